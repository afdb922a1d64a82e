"""The bell curves: per class, the prior and each feature's mean and smoothed population variance."""
from webnb.engine.export.cells.gaussian.data import FEATURES, X_train, y_train
from webnb.engine.export.cells.gaussian.imports import math, np
from webnb.engine.export.cells.gaussian.settings import PRIOR, VAR_SMOOTHING
from webnb.engine.export.cells.output import print

# ---- notebook cell ----
CLASSES = sorted(set(y_train.tolist()))
counts = np.array([np.sum(y_train == c) for c in CLASSES])
prior = counts / counts.sum() if PRIOR == "learned" else np.full(len(CLASSES), 1 / len(CLASSES))
means = np.array([X_train[y_train == c].mean(axis=0) for c in CLASSES])
variances = np.array([X_train[y_train == c].var(axis=0) for c in CLASSES])
epsilon = VAR_SMOOTHING * X_train.var(axis=0).max()
variances = variances + epsilon
print("epsilon =", epsilon)
for k, c in enumerate(CLASSES):
    print(c, "prior", prior[k])
    for j, feature in enumerate(FEATURES):
        print(f"   {feature}: mean {means[k, j]:.6g}, sd {math.sqrt(variances[k, j]):.6g}")
