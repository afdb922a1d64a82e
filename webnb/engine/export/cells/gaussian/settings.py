"""The Gaussian notebook's settings, as ``gaussian_notebook`` writes them below its imports for the lecture's
example: the match ratings, var_smoothing 1e-9, learned priors, and a rating of 6.0 to classify.

Each notebook writes these for its own lesson; the other cell files read them when they are imported on their own.
A test checks that this is what ``gaussian_notebook`` writes for those settings."""

# ---- notebook cell ----
VAR_SMOOTHING = 1e-09
PRIOR = 'learned'  # 'learned' or 'uniform'
VALUES = [6.0]  # one per feature
