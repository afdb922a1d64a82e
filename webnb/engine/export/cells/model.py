"""Sections 3 and 4 of the text notebook: the priors φ and the word probabilities ψ or θ (``fit``), and the
lecture's unreduced ratios (``ratio``, ``prior_exact``; the cell starts with ``show``, ``cells/ratios.py``)."""
from webnb.engine.export.cells.corpus import CLASSES, y
from webnb.engine.export.cells.imports import Fraction, np
from webnb.engine.export.cells.output import print
from webnb.engine.export.cells.ratios import show
from webnb.engine.export.cells.settings import ALPHA, BINARY, EPSILON, FIT_PRIOR, MODEL
from webnb.engine.export.cells.vocabulary import X, vocabulary

# ---- notebook cell ----
ALPHA_F = ALPHA.numerator / ALPHA.denominator  # α as a float


def fit(X, y):
    """φ and the word probabilities, with their logs. Arrays of shape (classes,) or (classes, words)."""
    presence = MODEL == "bernoulli" or BINARY
    counted = (X > 0).astype(np.int64) if presence else X
    n_classes, n_words = len(CLASSES), X.shape[1]
    class_count = np.bincount(y, minlength=n_classes)  # n_k
    count = np.array([counted[y == k].sum(axis=0) for k in range(n_classes)])  # n_jk or c_jk
    if FIT_PRIOR:
        prior = class_count / class_count.sum()
        log_prior = np.log(class_count) - np.log(class_count.sum())
    else:
        prior = np.full(n_classes, 1 / n_classes)
        log_prior = np.full(n_classes, -np.log(n_classes))
    with np.errstate(divide="ignore"):  # log 0 = −∞ is the point of α = 0
        if MODEL == "bernoulli":
            denominator = class_count[:, None] + 2 * ALPHA_F  # n_k + 2α
            present = count + ALPHA_F  # n_jk + α
            absent = class_count[:, None] - count + ALPHA_F  # n_k − n_jk + α
            prob = present / denominator
            log_prob = np.log(present) - np.log(denominator)
            log_absent = np.log(absent) - np.log(denominator)  # log(1 − ψ)
            if EPSILON is not None:
                prob = np.clip(prob, EPSILON, 1 - EPSILON)
                log_prob, log_absent = np.log(prob), np.log1p(-prob)
        else:
            total = count.sum(axis=1, keepdims=True) + n_words * ALPHA_F  # Σ_j c_jk + |V|α
            prob = (count + ALPHA_F) / total
            log_prob = np.log(count + ALPHA_F) - np.log(total)
            log_absent = None
            if EPSILON is not None:
                prob = np.clip(prob, EPSILON, 1.0)
                log_prob = np.log(prob)
    return {"class_count": class_count, "count": count, "prior": prior, "log_prior": log_prior,
            "prob": prob, "log_prob": log_prob, "log_absent": log_absent}


def ratio(model, k, j, absent=False):
    """The parameter of word j in class k as an unreduced (numerator, denominator) of exact numbers."""
    n_k, count = int(model["class_count"][k]), int(model["count"][k, j])
    if MODEL == "bernoulli":
        return (n_k - count if absent else count) + ALPHA, n_k + 2 * ALPHA
    return count + ALPHA, int(model["count"][k].sum()) + model["count"].shape[1] * ALPHA


def prior_exact(model, k):
    if FIT_PRIOR:
        return Fraction(int(model["class_count"][k]), int(model["class_count"].sum()))
    return Fraction(1, len(CLASSES))


model = fit(X, y)
symbol = "ψ" if MODEL == "bernoulli" else "θ"
print("Class priors φ:")
for k, label in enumerate(CLASSES):
    print(f"  φ({label}) = {prior_exact(model, k)} = {model['prior'][k]:.6g}")
print(f"\nWord probabilities {symbol} (α = {ALPHA}{'' if EPSILON is None else f', ε = {EPSILON:g}'}):")
print("  word".ljust(28) + "".join(label[:22].ljust(24) for label in CLASSES))
for j, word in enumerate(vocabulary[:60]):
    cells = []
    for k in range(len(CLASSES)):
        as_ratio = "" if EPSILON is not None else show(ratio(model, k, j)) + " = "
        cells.append(f"{as_ratio}{model['prob'][k, j]:.4g}".ljust(24))
    print(f"  {word[:25]:<26}" + "".join(cells))
if len(vocabulary) > 60:
    print(f"  … and {len(vocabulary) - 60} more words")
