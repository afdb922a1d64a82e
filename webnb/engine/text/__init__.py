"""Naive Bayes on text, in the lesson's order: analysis (text → words) → bag (sparse counts) → statistics (per
class) → models (φ, ψ, θ for any α) → trace (Bayes' rule for one review) → lesson (the steps) → insights."""
