"""The Gaussian notebook's last cell: everything it computed, printed as JSON for webnb's tests to compare."""
from webnb.engine.export.cells.gaussian.evaluation import accuracy, confusion
from webnb.engine.export.cells.gaussian.fit import CLASSES, epsilon, means, prior, variances
from webnb.engine.export.cells.gaussian.imports import json, math, np
from webnb.engine.export.cells.gaussian.log_space import decision, log_joint, posterior
from webnb.engine.export.cells.gaussian.naive import naive_log_joint, naive_posterior, products
from webnb.engine.export.cells.output import print


# ---- notebook cell ----
def plain(values):
    return [float(v) if v > -math.inf else "-inf" for v in values]

print(json.dumps({
    "classes": CLASSES,
    "prior": prior.tolist(),
    "means": means.tolist(),
    "variances": variances.tolist(),
    "epsilon": float(epsilon),
    "naive_decision": None if naive_posterior is None else CLASSES[int(np.argmax(products))],
    "naive_log_joint": plain(naive_log_joint),
    "log_joint": plain(log_joint),
    "posterior": posterior.tolist(),
    "decision": decision,
    "accuracy": accuracy,
    "confusion": confusion,
}))
