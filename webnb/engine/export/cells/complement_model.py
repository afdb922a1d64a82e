"""Section 3 of the Complement Naive Bayes notebook: each class's complement counts, θ̃ and the weights
(``fit_complement``), and θ̃ as the unreduced ratio the lesson's pages print (``complement_ratio``)."""
from webnb.engine.export.cells.corpus import CLASSES, y
from webnb.engine.export.cells.imports import np
from webnb.engine.export.cells.output import print
from webnb.engine.export.cells.ratios import show
from webnb.engine.export.cells.settings import ALPHA, BINARY
from webnb.engine.export.cells.vocabulary import X, vocabulary

# ---- notebook cell ----
ALPHA_F = ALPHA.numerator / ALPHA.denominator  # α as a float


def fit_complement(X, y):
    """Per class k and word j: the count c_jk, the complement's θ̃_jk and the weight w_jk = −log θ̃_jk."""
    counted = (X > 0).astype(np.int64) if BINARY else X
    count = np.array([counted[y == k].sum(axis=0) for k in range(len(CLASSES))])  # c_jk
    total = count.sum(axis=0)  # T_j: word j in every class
    complement = total[None, :] - count  # T_j − c_jk: word j in every class but k
    denominator = complement.sum(axis=1, keepdims=True) + X.shape[1] * ALPHA_F  # Σ_j (T_j − c_jk) + |V|α
    with np.errstate(divide="ignore"):  # α = 0: a word of one class only has θ̃ = 0 there, and an infinite weight
        weight = np.log(denominator) - np.log(complement + ALPHA_F)
    return {"count": count, "total": total, "complement": complement, "theta": (complement + ALPHA_F) / denominator,
            "weight": weight}


def complement_ratio(model, k, j):
    """θ̃_jk as an unreduced (numerator, denominator) of exact numbers."""
    n_words = model["complement"].shape[1]
    return int(model["complement"][k, j]) + ALPHA, int(model["complement"][k].sum()) + n_words * ALPHA


model = fit_complement(X, y)
print(f"Weights w = −log θ̃ (α = {ALPHA}): a word's weight for class k grows as the other classes use it less")
print("  word".ljust(22) + "all".rjust(6) + "".join(f"  {label[:26]:<28}" for label in CLASSES))
for j, word in enumerate(vocabulary[:60]):
    cells = "".join(f"  {show(complement_ratio(model, k, j)) + ' → ' + format(model['weight'][k, j], '.4g'):<28}"
                    for k in range(len(CLASSES)))
    print(f"  {word[:19]:<20}{int(model['total'][j]):>6}{cells}")
if len(vocabulary) > 60:
    print(f"  … and {len(vocabulary) - 60} more words")
