"""Section 4 of the Complement Naive Bayes notebook: the review's score for each class, a sum of weights
(``complement_scores``), and the decision (``decide``)."""
from webnb.engine.export.cells.analysis import analyze
from webnb.engine.export.cells.complement_model import complement_ratio, model
from webnb.engine.export.cells.corpus import CLASSES
from webnb.engine.export.cells.imports import np
from webnb.engine.export.cells.output import print
from webnb.engine.export.cells.ratios import show
from webnb.engine.export.cells.settings import BINARY, REVIEW
from webnb.engine.export.cells.vocabulary import count_matrix, vocabulary


# ---- notebook cell ----
def complement_scores(model, x):
    """Σ_j x_j · w_jk for each class k, over the words the review holds: a word it lacks adds nothing, even where
    its weight is infinite."""
    present = x > 0
    times = np.ones_like(x) if BINARY else x
    return (model["weight"][:, present] * times[present]).sum(axis=1)


def decide(scores):
    """The class with the largest score (the first of equal ones), or None where two or more classes score +∞
    (α = 0), which cannot be compared."""
    if np.count_nonzero(scores == np.inf) > 1:
        return None
    return int(np.argmax(scores))


review_features = analyze(REVIEW)
x = count_matrix([review_features], vocabulary)[0]
print(f"Review: {REVIEW!r}")
print(f"Features: {review_features}")
print(f"Ignored (not in the vocabulary): {[f for f in review_features if f not in vocabulary]}")
review_scores = complement_scores(model, x)
for k, label in enumerate(CLASSES):
    print(f"\nClass {label!r}:")
    for j in np.flatnonzero(x):
        times = 1 if BINARY else int(x[j])
        weight = model["weight"][k, j]
        print(f"  + {times} × {weight:.6g}   {vocabulary[j]!r}: θ̃ = {show(complement_ratio(model, k, j))}")
    print(f"  = {review_scores[k]:.10g}")
decided = decide(review_scores)
decision = None if decided is None else CLASSES[decided]
if decision is None:
    print("\nTwo or more classes score +∞: they cannot be compared, and the model cannot decide.")
else:
    print(f"\nDecision: {decision!r}, the largest score")
