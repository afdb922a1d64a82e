"""Downloads: CSV tables and notebooks that recompute a lesson's numbers on their own.

``tables`` writes the CSV, ``notebook`` the text lesson's notebook and ``gaussian_notebook`` the Gaussian one, both
from the cells of ``cells/`` and the parts of ``jupyter`` (the notebook format, imported from there). The names the
views use are importable from here.
"""
from webnb.engine.export.gaussian_notebook import MAX_NOTEBOOK_CELLS, gaussian_notebook
from webnb.engine.export.notebook import NOTEBOOK_CANNOT, NOTEBOOK_CELL_LIMIT, lesson_notebook
from webnb.engine.export.tables import (
    FORMULA_STARTS,
    confusion_table,
    csv_pieces,
    csv_text,
    documents_table,
    evaluation_table,
    gaussian_parameters_table,
    matrix_table,
    neutralise,
    parameters_table,
    predictions_table,
    priors_table,
    table_predictions_table,
    table_rows,
)

__all__ = [
    "FORMULA_STARTS", "MAX_NOTEBOOK_CELLS", "NOTEBOOK_CANNOT", "NOTEBOOK_CELL_LIMIT", "confusion_table", "csv_pieces",
    "csv_text",
    "documents_table", "evaluation_table", "gaussian_notebook", "gaussian_parameters_table", "lesson_notebook",
    "matrix_table", "neutralise", "parameters_table", "predictions_table", "priors_table", "table_predictions_table",
    "table_rows",
]
