"""The Complement Naive Bayes notebook's last cell: everything it computed, printed as JSON for webnb's tests."""
from webnb.engine.export.cells.complement_accuracy import accuracy, correct, y_test
from webnb.engine.export.cells.complement_model import model
from webnb.engine.export.cells.complement_trace import decision, review_features, review_scores
from webnb.engine.export.cells.corpus import CLASSES
from webnb.engine.export.cells.imports import json, math
from webnb.engine.export.cells.output import print
from webnb.engine.export.cells.settings import REVIEW
from webnb.engine.export.cells.vocabulary import vocabulary


# ---- notebook cell ----
def plain(value):
    """A number JSON can hold: ±∞ as the text "inf" or "-inf"."""
    value = float(value)
    return value if math.isfinite(value) else ("inf" if value > 0 else "-inf")


summary = {
    "classes": CLASSES,
    "vocabulary": vocabulary,
    "weights": [[plain(w) for w in row] for row in model["weight"].tolist()],
    "trace": {
        "review": REVIEW,
        "features": review_features,
        "per_class": [{"class": label, "score": plain(review_scores[k])} for k, label in enumerate(CLASSES)],
        "decision": decision,
    },
    "accuracy": accuracy,
    "correct": int(correct),
    "n_test": len(y_test),
}
print(json.dumps(summary, ensure_ascii=False))
