"""The Gaussian lesson as a Jupyter notebook that recomputes every number with numpy alone: the bell curves, Bayes'
rule for the typed values in plain floats (where it may underflow, with numpy's warning) and in log space, and the
accuracy on the same held-out rows as the evaluation page."""
from __future__ import annotations

import json

from webnb.engine.evaluation.scores import stratified_split
from webnb.engine.export.notebook import code_cell, markdown_cell, markdown_escape, notebook_document, number_literal
from webnb.engine.gaussian.model import GaussianStatistics
from webnb.engine.gaussian.table import NumericTable
from webnb.engine.shared.corpus import CorpusError

MAX_NOTEBOOK_CELLS = 2_000_000  # numbers embedded (rows × features); a bigger table makes an unwieldy notebook


def gaussian_notebook(table: NumericTable, *, var_smoothing: float, prior: str, values, test_size: float | None,
                      seed: int = 0) -> dict:
    """An nbformat 4 notebook (a plain dict). The split is the app's own (its row numbers are written into the
    notebook), so the accuracy is the evaluation page's. Refused (CorpusError) when a variance would be 0, which the
    formula-as-written cannot evaluate, and for tables too big to embed."""
    if table.values.size > MAX_NOTEBOOK_CELLS:
        raise CorpusError(
            f"The table has {table.values.size:,} numbers; a notebook embeds at most {MAX_NOTEBOOK_CELLS:,}."
        )
    if test_size is None:
        train = test = list(range(len(table)))
    else:
        train_index, test_index = stratified_split(table.labels, test_size, seed)
        train, test = train_index.tolist(), test_index.tolist()
    model = GaussianStatistics.fit(table.subset(train)).model(var_smoothing, prior)
    if model.zero_variance.any():
        raise CorpusError("A feature has variance 0 within a class and var_smoothing is 0: the notebook's formulas "
                          "would divide by 0. Set var_smoothing above 0 to download the notebook.")
    data = {"features": list(table.features), "labels": list(table.labels), "ids": list(table.ids),
            "values": table.values.tolist(), "train": train, "test": test}
    # Inside a raw triple-quoted string: apostrophes (and everything outside ASCII) escaped, as JSON allows.
    embedded = json.dumps(data, ensure_ascii=True).replace("'", "\\u0027")
    typed = [float(v) for v in values]
    settings = (f"VAR_SMOOTHING = {number_literal(var_smoothing)}\nPRIOR = {prior!r}  # 'learned' or 'uniform'\n"
                f"VALUES = [{', '.join(number_literal(v) for v in typed)}]  # one per feature\n")
    split = ("every row: the model is tested on the rows it learned from" if test_size is None else
             f"a stratified split holding out {test_size:g} of each class (seed {seed}), "
             "the same rows as on the evaluation page")
    # The labels are the only user text in the Markdown; escaped as in the text notebook.
    classes = ", ".join(markdown_escape(label) for label in table.classes)
    cells = [
        markdown_cell(f"# Gaussian Naive Bayes, every number\n\n{len(table):,} rows, {len(table.features)} feature"
                      f"{'s' if len(table.features) != 1 else ''}, classes {classes}. "
                      f"var_smoothing = {var_smoothing:g}, {prior} prior. Tested on {split}.\n\n"
                      "Every number below is recomputed with numpy alone; webnb's tests run this notebook and "
                      "compare."),
        code_cell("import json\nimport math\n\nimport numpy as np\n\n" + settings),
        markdown_cell("## The table\n\nThe rows as JSON, and which of them the model learns from and is tested on."),
        code_cell(f"TABLE = json.loads(r'''{embedded}''')\n" + _DATA_CODE),
        markdown_cell(_FIT_TEXT),
        code_cell(_FIT_CODE),
        markdown_cell(_NAIVE_TEXT),
        code_cell(_NAIVE_CODE),
        markdown_cell(_LOG_TEXT),
        code_cell(_LOG_CODE),
        markdown_cell(_EVALUATION_TEXT),
        code_cell(_EVALUATION_CODE),
        markdown_cell("## Summary\n\nEverything above as JSON (−∞ written as `\"-inf\"`)."),
        code_cell(_SUMMARY_CODE),
    ]
    settings = {"model": "gaussian", "var_smoothing": var_smoothing, "prior": prior, "values": typed,
                "test_size": test_size, "seed": seed}
    return notebook_document(cells, settings, "webnb-gaussian")


_DATA_CODE = """
FEATURES = TABLE["features"]
X = np.array(TABLE["values"], dtype=float)
y = np.array(TABLE["labels"])
X_train, y_train = X[TABLE["train"]], y[TABLE["train"]]
X_test, y_test = X[TABLE["test"]], y[TABLE["test"]]
print(f"{len(X)} rows: {len(X_train)} to learn from, {len(X_test)} to test on; features {FEATURES}")
"""

_FIT_TEXT = """
## The bell curves

For each class k: the prior (its share of the training rows, or uniform), and per feature the mean μ and the
population variance σ² (divided by the class's row count, the maximum-likelihood estimate). Variance smoothing adds
ε = var_smoothing × the largest feature variance over all training rows to every variance.
"""

_FIT_CODE = """
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
"""

_NAIVE_TEXT = """
## Bayes' rule as the formula reads

Each density exp(−(x − μ)²/(2σ²)) / (σ√(2π)), their product with the prior, and the normalisation. For a value far
from a class's mean the density underflows to 0.0, and taking its log afterwards gives −∞: numpy prints a
"divide by zero encountered in log" warning here when that happens.
"""

_NAIVE_CODE = """
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
"""

_LOG_TEXT = """
## In log space

The log-density written out, −(x − μ)²/(2σ²) − log(σ√(2π)), never underflows. Log-sum-exp normalises: subtract the
largest log joint m, exponentiate, add, take the log, add m back.
"""

_LOG_CODE = """
log_density = -(x - means) ** 2 / (2 * variances) - 0.5 * np.log(2 * np.pi * variances)
log_joint = np.log(prior) + log_density.sum(axis=1)
m = log_joint.max()
log_evidence = m + np.log(np.exp(log_joint - m).sum())
posterior = np.exp(log_joint - log_evidence)
decision = CLASSES[int(np.argmax(log_joint))]
print("log joint:", log_joint)
print("posterior:", posterior)
print("decision:", decision)
"""

_EVALUATION_TEXT = """
## Accuracy on the test rows

The same log-space computation for every test row at once.
"""

_EVALUATION_CODE = """
scores = (np.log(prior) - 0.5 * np.log(2 * np.pi * variances).sum(axis=1)
          - 0.5 * (((X_test[:, None, :] - means[None, :, :]) ** 2) / variances[None, :, :]).sum(axis=2))
predicted = np.array(CLASSES)[scores.argmax(axis=1)]
accuracy = float(np.mean(predicted == y_test))
confusion = [[int(np.sum((y_test == a) & (predicted == b))) for b in CLASSES] for a in CLASSES]
print("accuracy:", accuracy)
print("confusion (rows: true class):", confusion)
"""

_SUMMARY_CODE = """
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
"""
