"""Tables of numbers: the rows, the bell curves Gaussian Naive Bayes learns, Bayes' rule for typed values (and how
it fails in plain floats), and the evaluation, one module per page. Each page has a JSON twin; the downloads and
the scikit-learn check have modules of their own. Every address below starts with /corpora/<corpus_id>/gaussian,
and every endpoint is named after its view (``gaussian.rows``, ``gaussian.parameters_csv``, …)."""
from __future__ import annotations

from flask import Blueprint

from webnb.views.gaussian import downloads, evaluation, inference, parameters, parity, rows

bp = Blueprint("gaussian", __name__, url_prefix="/corpora/<corpus_id>/gaussian")

PAGES = (
    ("", rows.rows),
    ("/parameters", parameters.parameters),
    ("/inference", inference.inference),
    ("/evaluation", evaluation.evaluation),
    ("/parity", parity.parity),
    ("/rows.csv", downloads.rows_csv),
    ("/parameters.csv", downloads.parameters_csv),
    ("/evaluation.csv", downloads.evaluation_csv),
    ("/confusion.csv", downloads.confusion_csv),
    ("/predictions.csv", downloads.predictions_csv),
    ("/notebook.ipynb", downloads.notebook),
)
for rule, view in PAGES:
    bp.get(rule)(view)
