"""Downloads: the tables of the lesson pages as CSV, and the lesson as a runnable notebook."""
from __future__ import annotations

import json

from flask import Blueprint, abort

from webnb.engine.export import (
    confusion_table,
    csv_pieces,
    csv_text,
    evaluation_table,
    lesson_notebook,
    matrix_table,
    parameters_table,
    predictions_table,
    priors_table,
)
from webnb.views.common import download, load_lesson, word_filter, words_containing
from webnb.views.evaluation import scored
from webnb.views.matrix import matrix_window

bp = Blueprint("export", __name__)


def settings_or_400(lesson) -> None:
    """A download is made with the settings in its address (a text lesson's or a table's): with any of them
    unusable, say which, by the name it has in the address, rather than quietly using the defaults."""
    errors = lesson.state.errors
    if errors:
        said = (_sentence(message if name in message else f"{name}: {message}") for name, message in errors.items())
        abort(400, " ".join(said) + " Nothing was downloaded; correct the address and retry.")


def _sentence(text: str) -> str:
    return text if text.endswith((".", "!", "?")) else text + "."


def _trained(corpus_id):
    lesson = load_lesson(corpus_id)
    settings_or_400(lesson)
    if lesson.training is None:
        abort(400, lesson.error)
    return lesson


def _model(lesson):
    model, problem = lesson.model()
    if model is None:
        abort(400, problem)
    return model


@bp.get("/corpora/<corpus_id>/export/matrix.csv")
def matrix(corpus_id):
    """The window of the bag of words that the matrix page shows, with the same parameters."""
    lesson = _trained(corpus_id)
    window = matrix_window(lesson)
    header, rows = matrix_table(lesson.training, window.rows, window.columns, window.presence)
    return download(lesson.entry, "matrix", csv_text(header, rows))


@bp.get("/corpora/<corpus_id>/export/parameters.csv")
def parameters(corpus_id):
    """ψ or θ of every word matching the page's filter (the whole vocabulary without one)."""
    lesson = _trained(corpus_id)
    model = _model(lesson)
    header, rows = parameters_table(model, words_containing(model.vocabulary, word_filter()))
    return download(lesson.entry, "parameters", csv_pieces(header, rows))  # sent as it is written


@bp.get("/corpora/<corpus_id>/export/priors.csv")
def priors(corpus_id):
    lesson = _trained(corpus_id)
    header, rows = priors_table(_model(lesson))
    return download(lesson.entry, "priors", csv_text(header, rows))


def _scored(corpus_id):
    score, lesson = scored(_trained(corpus_id))
    if score is None:
        abort(400, lesson.error)
    return lesson, score


@bp.get("/corpora/<corpus_id>/export/evaluation.csv")
def evaluation(corpus_id):
    """Precision, recall and F1 per class on the evaluation page's test documents."""
    lesson, score = _scored(corpus_id)
    header, rows = evaluation_table(score.result)
    return download(lesson.entry, "evaluation", csv_text(header, rows))


@bp.get("/corpora/<corpus_id>/export/confusion.csv")
def confusion(corpus_id):
    lesson, score = _scored(corpus_id)
    header, rows = confusion_table(score.result)
    return download(lesson.entry, "confusion", csv_text(header, rows))


@bp.get("/corpora/<corpus_id>/export/predictions.csv")
def predictions(corpus_id):
    """One row per test document: its id, true class, the model's answer and its posterior."""
    lesson, score = _scored(corpus_id)
    header, rows = predictions_table(score.held.test, score.result)
    return download(lesson.entry, "predictions", csv_text(header, rows))


@bp.get("/corpora/<corpus_id>/export/notebook.ipynb")
def notebook(corpus_id):
    """A Jupyter notebook that recomputes this lesson's numbers with numpy alone."""
    lesson = _trained(corpus_id)
    state = lesson.state
    if state.test not in ("split", "training"):
        abort(400, "The notebook holds one corpus: it can test on a held-out split of it or on its training documents, "
                   "not on another corpus.")
    # The accuracy is the evaluation page's: on the held-out split, or on the training documents.
    test_size, seed = state.split if state.test == "split" else (None, 0)
    try:
        document = lesson_notebook(
            lesson.entry.corpus,
            state.analysis_options(),
            state.vocabulary_options(),
            review=state.text,
            test_size=test_size,
            seed=seed,
            **state.model_options(),
        )
    except ValueError as error:
        abort(400, str(error))
    body = json.dumps(document, ensure_ascii=False, indent=1)
    return download(lesson.entry, "lesson", body, suffix="ipynb", mimetype="application/x-ipynb+json")
