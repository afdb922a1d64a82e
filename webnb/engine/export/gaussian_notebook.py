"""The Gaussian lesson as a Jupyter notebook that recomputes every number with numpy alone: the bell curves, Bayes'
rule for the typed values in plain floats (where it may underflow, with numpy's warning) and in log space, and the
accuracy on the same held-out rows as the evaluation page. The settings and the table are written here for each
lesson; the rest of the code is the files of ``cells/gaussian/``, the same in every notebook."""
from __future__ import annotations

import json

from webnb.engine.evaluation.scores import stratified_split
from webnb.engine.export.jupyter import (
    cell_source,
    code_cell,
    explained_cells,
    markdown_cell,
    markdown_escape,
    notebook_document,
    number_literal,
)
from webnb.engine.gaussian.model import GaussianStatistics
from webnb.engine.gaussian.table import NumericTable
from webnb.engine.shared.corpus import CorpusError

MAX_NOTEBOOK_CELLS = 2_000_000  # numbers embedded (rows × features); a bigger table makes an unwieldy notebook


def gaussian_notebook(table: NumericTable, *, var_smoothing: float, prior: str, values, test_size: float | None,
                      seed: int = 0) -> dict:
    """The Gaussian lesson as an nbformat 4 notebook (a plain dict) that recomputes every number with numpy alone.

    The split is the app's own (its row numbers are written into the notebook), so the accuracy is the evaluation
    page's.

    Parameters
    ----------
    table : NumericTable
        The lesson's table, embedded in the notebook.
    var_smoothing : float
        The share of the largest feature variance added to every variance; above 0 when a variance is 0.
    prior : {"learned", "uniform"}
        The class priors.
    values : sequence of float
        The typed row whose Bayes' rule the notebook computes, one number per feature.
    test_size : float or None
        The held-out share of each class; None tests on every row.
    seed : int, default 0
        The split's seed.

    Returns
    -------
    dict
        The notebook of the table's lesson, made by ``notebook_document``.

    Raises
    ------
    CorpusError
        When a variance would be 0 (the formula as written cannot evaluate it), for tables too big to embed (more
        than ``MAX_NOTEBOOK_CELLS`` numbers), and for a table or split the engine refuses.
    ValueError
        For a ``test_size``, ``var_smoothing`` or ``prior`` the engine refuses.
    """
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
        code_cell(cell_source("gaussian/imports") + "\n\n" + settings),
        markdown_cell("## The table\n\nThe rows as JSON, and which of them the model learns from and is tested on."),
        code_cell(f"TABLE = json.loads(r'''{embedded}''')\n\n" + cell_source("gaussian/data")),
        *explained_cells((_FIT_TEXT, "gaussian/fit"), (_NAIVE_TEXT, "gaussian/naive"),
                         (_LOG_TEXT, "gaussian/log_space"), (_EVALUATION_TEXT, "gaussian/evaluation"),
                         ("## Summary\n\nEverything above as JSON (−∞ written as `\"-inf\"`).", "gaussian/summary")),
    ]
    settings = {"model": "gaussian", "var_smoothing": var_smoothing, "prior": prior, "values": typed,
                "test_size": test_size, "seed": seed}
    return notebook_document(cells, settings, "webnb-gaussian")


_FIT_TEXT = """
## The bell curves

For each class k: the prior (its share of the training rows, or uniform), and per feature the mean μ and the
population variance σ² (divided by the class's row count, the maximum-likelihood estimate). Variance smoothing adds
ε = var_smoothing × the largest feature variance over all training rows to every variance.
"""

_NAIVE_TEXT = """
## Bayes' rule as the formula reads

Each density exp(−(x − μ)²/(2σ²)) / (σ√(2π)), their product with the prior, and the normalisation. For a value far
from a class's mean the density underflows to 0.0, and taking its log afterwards gives −∞: numpy prints a
"divide by zero encountered in log" warning here when that happens.
"""

_LOG_TEXT = """
## In log space

The log-density written out, −(x − μ)²/(2σ²) − log(σ√(2π)), never underflows. Log-sum-exp normalises: subtract the
largest log joint m, exponentiate, add, take the log, add m back.
"""

_EVALUATION_TEXT = """
## Accuracy on the test rows

The same log-space computation for every test row at once.
"""
