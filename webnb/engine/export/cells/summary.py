"""The text notebook's last cell: everything it computed, printed as JSON for webnb's tests to compare."""
from webnb.engine.export.cells.accuracy import accuracy, correct, y_test
from webnb.engine.export.cells.corpus import CLASSES
from webnb.engine.export.cells.imports import json, math
from webnb.engine.export.cells.model import model
from webnb.engine.export.cells.output import print
from webnb.engine.export.cells.posterior import decision, posterior
from webnb.engine.export.cells.settings import REVIEW
from webnb.engine.export.cells.trace import joint_exact, review_features, review_log_joint
from webnb.engine.export.cells.vocabulary import vocabulary

# ---- notebook cell ----
summary = {
    "classes": CLASSES,
    "vocabulary": vocabulary,
    "class_prior": model["prior"].tolist(),
    "feature_prob": model["prob"].tolist(),
    "trace": {
        "review": REVIEW,
        "features": review_features,
        "per_class": [
            {
                "class": label,
                "log_joint": float(review_log_joint[k]) if review_log_joint[k] > -math.inf else "-inf",
                "posterior": None if posterior is None else posterior[k],
                "joint_exact": None if joint_exact[k] is None else str(joint_exact[k]),
            }
            for k, label in enumerate(CLASSES)
        ],
        "decision": decision,
    },
    "accuracy": accuracy,
    "correct": int(correct),
    "n_test": len(y_test),
}
print(json.dumps(summary, ensure_ascii=False))
