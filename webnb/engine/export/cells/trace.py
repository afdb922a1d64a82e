"""Section 5 of the text notebook: classifying the review, factor by factor and exactly while the vocabulary is
small (``log_joint``, ``factors``)."""
from webnb.engine.export.cells.analysis import analyze
from webnb.engine.export.cells.corpus import CLASSES
from webnb.engine.export.cells.imports import Fraction, np
from webnb.engine.export.cells.model import model, prior_exact, ratio, symbol
from webnb.engine.export.cells.output import print
from webnb.engine.export.cells.ratios import show
from webnb.engine.export.cells.settings import BINARY, EPSILON, EXACT_VOCABULARY_LIMIT, MODEL, REVIEW
from webnb.engine.export.cells.vocabulary import count_matrix, vocabulary


# ---- notebook cell ----
def log_joint(model, x):
    """log φ_k + Σ_j log P(x_j | k) for each class k; x is one row of counts."""
    present = x > 0
    if MODEL == "bernoulli":
        return (model["log_prior"] + model["log_prob"][:, present].sum(axis=1)
                + model["log_absent"][:, ~present].sum(axis=1))
    times = np.ones_like(x) if BINARY else x
    return model["log_prior"] + (model["log_prob"][:, present] * times[present]).sum(axis=1)


def factors(model, k, x):
    """The factors of class k's product: (word, present?, unreduced ratio, or None under an ε-floor, float, power)."""
    result = []
    for j, word in enumerate(vocabulary):
        if x[j] > 0:
            power = 1 if MODEL == "bernoulli" or BINARY else int(x[j])
            exact = None if EPSILON is not None else ratio(model, k, j)
            result.append((word, True, exact, model["prob"][k, j], power))
        elif MODEL == "bernoulli":
            exact = None if EPSILON is not None else ratio(model, k, j, absent=True)
            result.append((word, False, exact, float(np.exp(model["log_absent"][k, j])), 1))
    return result


review_features = analyze(REVIEW)
x = count_matrix([review_features], vocabulary)[0]
print(f"Review: {REVIEW!r}")
print(f"Features: {review_features}")
print(f"Ignored (not in the vocabulary): {[f for f in review_features if f not in vocabulary]}")
exact = EPSILON is None and len(vocabulary) <= EXACT_VOCABULARY_LIMIT
review_log_joint = log_joint(model, x)
joint_exact = []
for k, label in enumerate(CLASSES):
    print(f"\nClass {label!r}: φ = {prior_exact(model, k) if exact else model['prior'][k]}")
    listed = factors(model, k, x)
    product = prior_exact(model, k) if exact else None
    absent = 0
    for word, present, value, probability, power in listed:
        if exact:
            product *= Fraction(*value) ** power
        if present or len(listed) <= 60:  # with a large vocabulary, absent words are only counted
            what = (symbol if present else f"1 − {symbol}") + ("" if power == 1 else f", {power} times")
            shown = (show(value) if value is not None else f"{probability:.6g}") + ("" if power == 1 else f" ^ {power}")
            print(f"  × {shown:<14} {word!r} {'present' if present else 'absent'}: {what}")
        else:
            absent += 1
    if absent:
        print(f"  × the factors 1 − {symbol} of the {absent} absent words (not listed)")
    joint_exact.append(product)
    if exact:
        written = str(product) if len(str(product)) <= 60 else f"a fraction of {len(str(product))} digits"
        print(f"  = {written} ≈ {float(product):.6g}")
    print(f"  log joint = {review_log_joint[k]:.10g}")
