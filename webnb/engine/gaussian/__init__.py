"""Gaussian Naive Bayes on a table of numbers: the table, the model and its step-by-step explanation."""
