"""Bayes' rule as the formula reads, in plain floats: densities, products, and a log taken too late."""
from webnb.engine.export.cells.gaussian.fit import means, prior, variances
from webnb.engine.export.cells.gaussian.imports import np
from webnb.engine.export.cells.gaussian.settings import VALUES
from webnb.engine.export.cells.output import print

# ---- notebook cell ----
x = np.array(VALUES, dtype=float)
density = np.exp(-(x - means) ** 2 / (2 * variances)) / np.sqrt(2 * np.pi * variances)
products = prior * density.prod(axis=1)
evidence = products.sum()
naive_posterior = products / evidence if evidence > 0 else None
naive_log_joint = np.log(prior) + np.log(density).sum(axis=1)
print("densities:", density)
print("prior × densities:", products)
print("posterior:", naive_posterior if naive_posterior is not None else "cannot decide (0 / 0)")
print("log taken too late:", naive_log_joint)
