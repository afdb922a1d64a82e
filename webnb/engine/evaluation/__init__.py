"""How good a model is: held-out splits, scores, comparisons of models, and agreement with scikit-learn."""
