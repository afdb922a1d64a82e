"""The bag of words: documents × words, both axes paged, so a 20,000-document corpus stays light."""
from __future__ import annotations

import numpy as np
from flask import Blueprint, request

from webnb.engine.pages.matrix_window import MatrixWindow, matrix_pages
from webnb.engine.pages.matrix_window import matrix_window as window_of
from webnb.state import read_parameter
from webnb.views.common import load_lesson, page_number, respond, word_filter, words_containing

bp = Blueprint("matrix", __name__)


def matrix_window(lesson) -> MatrixWindow:
    """The window the request asks for (the page shows it, the CSV export writes it): both axes paged, the words
    filtered and ordered, counts or presence (presence by default for the models that count it)."""
    training, state, values = lesson.training, lesson.state, read_parameter(request.args, "values").value
    presence = values == "presence" or (values != "counts" and (state.model == "bernoulli" or state.binary))
    query = word_filter()
    order = read_parameter(request.args, "order").value
    words = words_containing(training.vocabulary, query)
    row_pages, column_pages = matrix_pages(training.matrix.shape[0], len(words))
    return window_of(training, words, presence=presence, query=query, order=order,
                     row_page=page_number("rows", row_pages), column_page=page_number("cols", column_pages),
                     positions=training_positions(lesson))


def training_positions(lesson):
    """Under ``train=split`` the matrix is the split's training part: its documents' numbers in the whole corpus
    (the split's test positions left out, in order); None when the matrix is the whole corpus."""
    held = lesson.trained_on_split
    if held is None:
        return None
    return np.setdiff1d(np.arange(lesson.entry.n_documents), held.positions)


@bp.get("/corpora/<corpus_id>/matrix")
def show(corpus_id):
    lesson = load_lesson(corpus_id)
    shown = matrix_window(lesson) if lesson.training is not None else None
    return respond("matrix/show.html", "matrix", shown, lesson=lesson, section="matrix")
