"""The downloads of a table of numbers: its rows, the parameters, the evaluation's scores, confusion matrix and
predictions as CSV, and the whole lesson as a notebook. Each is made with the settings in its address."""
from __future__ import annotations

import json

from flask import abort

from webnb.engine.evaluation.scores import Score
from webnb.engine.export import (
    confusion_table,
    csv_text,
    evaluation_table,
    gaussian_notebook,
    gaussian_parameters_table,
    table_predictions_table,
    table_rows,
)
from webnb.views.common import download
from webnb.views.export import settings_or_400
from webnb.views.gaussian.evaluation import scored
from webnb.views.gaussian.lesson import TableLesson, load_table_lesson


def _scored_or_400(lesson: TableLesson) -> Score:
    settings_or_400(lesson)
    try:
        return scored(lesson)
    except ValueError as problem:
        abort(400, str(problem))


def rows_csv(corpus_id):
    lesson = load_table_lesson(corpus_id)
    return download(lesson.entry, "rows", csv_text(*table_rows(lesson.entry.table)))


def parameters_csv(corpus_id):
    lesson = load_table_lesson(corpus_id)
    settings_or_400(lesson)
    if lesson.model is None:
        abort(400, lesson.error)
    return download(lesson.entry, "gaussian-parameters", csv_text(*gaussian_parameters_table(lesson.model)))


def evaluation_csv(corpus_id):
    lesson = load_table_lesson(corpus_id)
    return download(lesson.entry, "evaluation", csv_text(*evaluation_table(_scored_or_400(lesson).result)))


def confusion_csv(corpus_id):
    lesson = load_table_lesson(corpus_id)
    return download(lesson.entry, "confusion", csv_text(*confusion_table(_scored_or_400(lesson).result)))


def predictions_csv(corpus_id):
    lesson = load_table_lesson(corpus_id)
    score = _scored_or_400(lesson)
    return download(lesson.entry, "predictions", csv_text(*table_predictions_table(score.held.test, score.result)))


def notebook(corpus_id):
    """The lesson as a notebook: the typed values, the settings and the evaluation page's split."""
    lesson = load_table_lesson(corpus_id)
    settings_or_400(lesson)
    state = lesson.state
    test_size, seed = state.split
    try:
        document = gaussian_notebook(lesson.entry.table, var_smoothing=state.smoothing, prior=state.prior,
                                     values=lesson.values, test_size=test_size if state.test == "split" else None,
                                     seed=seed)
    except ValueError as problem:
        abort(400, str(problem))
    return download(lesson.entry, "gaussian", json.dumps(document, ensure_ascii=False, indent=1), suffix="ipynb",
                    mimetype="application/x-ipynb+json")
