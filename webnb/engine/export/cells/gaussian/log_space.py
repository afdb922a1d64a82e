"""Bayes' rule in log space: the log-densities, log-sum-exp, the posterior and the decision."""
from webnb.engine.export.cells.gaussian.fit import CLASSES, means, prior, variances
from webnb.engine.export.cells.gaussian.imports import np
from webnb.engine.export.cells.gaussian.naive import x
from webnb.engine.export.cells.output import print

# ---- notebook cell ----
log_density = -(x - means) ** 2 / (2 * variances) - 0.5 * np.log(2 * np.pi * variances)
log_joint = np.log(prior) + log_density.sum(axis=1)
m = log_joint.max()
log_evidence = m + np.log(np.exp(log_joint - m).sum())
posterior = np.exp(log_joint - log_evidence)
decision = CLASSES[int(np.argmax(log_joint))]
print("log joint:", log_joint)
print("posterior:", posterior)
print("decision:", decision)
