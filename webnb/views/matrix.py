"""The bag of words: documents × words, both axes paged, so a 20,000-document corpus stays light."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from flask import Blueprint, request

from webnb.engine.records.matrix_window import MatrixRow, MatrixWindow, matrix_pages
from webnb.engine.records.matrix_window import matrix_window as window_of
from webnb.engine.text.bag import document_frequency
from webnb.lesson import slides
from webnb.lesson.slides import Kept
from webnb.lesson.state import Parameter, one_of, page_parameters
from webnb.views.common import load_lesson, note_kept, page_number, respond, word_filter, words_containing

bp = Blueprint("matrix", __name__)

# This page's own parameters (the lesson's state is webnb/lesson/state.py's).
PARAMETERS = page_parameters(
    Parameter("values", one_of(("presence", "counts")), "", spaces="keep"),
    Parameter("order", one_of(("frequent", "alphabetical")), "", default="alphabetical", spaces="keep"),
)


def matrix_window(lesson) -> MatrixWindow:
    """The window the request asks for (the page shows it, the CSV export writes it): both axes paged, the words
    filtered and ordered, counts or presence (presence by default for the models that count it)."""
    training, state, values = lesson.training, lesson.state, PARAMETERS["values"].read(request.args).value
    presence = values == "presence" or (values != "counts" and (state.model == "bernoulli" or state.binary))
    query = word_filter()
    order = PARAMETERS["order"].read(request.args).value
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




@dataclass(frozen=True)
class SlideWindow:
    """What the presenter's slide shows of the matrix: a few words (the review's first) × a few documents."""

    words: tuple[str, ...]
    documents: tuple[MatrixRow, ...]
    from_review: int  # how many of ``words`` are the review's (the first ones); the others are in most documents
    whole: bool  # the whole matrix: every word and every document


def slide_window(lesson, window: MatrixWindow) -> SlideWindow:
    """The few words and documents a slide shows of the matrix (values as ``window`` shows them: counts or presence):
    the review's words of the vocabulary, then the words in most documents, as many as "matrix.words" keeps; and
    documents that contain the most of those words (the rare ones counting more), one of each class first, shown in
    the corpus's order; fewer of both at the projector's zoom (webnb/lesson/slides.py). A small corpus whose whole
    matrix fits is shown whole."""
    training = lesson.training
    matrix, vocabulary = training.matrix, training.vocabulary
    n_documents, n_words = matrix.shape
    slide_rows = slides.how_many("matrix.rows", lesson.state.zoom)
    slide_words = slides.how_many("matrix.words", lesson.state.zoom)
    whole = n_words <= slide_words + 1 and n_documents <= slide_rows + 2
    from_review = 0
    if whole:
        columns = np.arange(n_words)
    else:
        chosen = lesson.review_words(slide_words)
        from_review = len(chosen)
        if len(chosen) < slide_words:
            taken = set(chosen)
            for j in np.argsort(-document_frequency(matrix), kind="stable")[: slide_words * 2].tolist():
                if len(chosen) < slide_words and j not in taken:
                    chosen.append(j)
        columns = np.array(chosen, dtype=np.int64)
    cells = matrix[:, columns]
    if whole or n_documents <= slide_rows + 2:
        rows = np.arange(n_documents)
    else:
        # Rare words weigh more (log N/df), so that the review's telling words show up, not only "the" and "is".
        weights = np.log(n_documents / np.maximum(document_frequency(cells), 1))
        score = np.asarray((cells > 0).astype(float) @ weights).ravel()
        best = np.argsort(-score, kind="stable")  # the documents with the most (and rarest) of the words first
        labels, picked, seen = training.corpus.labels, [], set()
        for i in best[: slide_rows * 50].tolist():
            if len(picked) < slide_rows and labels[i] not in seen:
                picked.append(i)
                seen.add(labels[i])
        picked += [i for i in best[: slide_rows * 2].tolist() if i not in picked][: slide_rows - len(picked)]
        rows = np.array(sorted(picked), dtype=np.int64)
    note_kept(Kept("matrix.rows", tuple(rows.tolist()), n_documents, slides.CUTS["matrix.rows"].why,
                   tuple(str(training.corpus.ids[i]) for i in rows.tolist())))
    note_kept(Kept("matrix.words", tuple(columns.tolist()), n_words, slides.CUTS["matrix.words"].why,
                   tuple(vocabulary[j] for j in columns.tolist())))
    values = cells[rows].toarray()
    if window.presence:
        values = (values > 0).astype(int)
    positions = training_positions(lesson)
    corpus = training.corpus
    documents = tuple(
        MatrixRow(i, corpus.ids[i], corpus.labels[i], tuple(row), i if positions is None else int(positions[i]))
        for i, row in zip(rows.tolist(), values.tolist(), strict=True)
    )
    return SlideWindow(tuple(vocabulary[j] for j in columns.tolist()), documents, from_review, whole)


@bp.get("/corpora/<corpus_id>/matrix")
def show(corpus_id):
    lesson = load_lesson(corpus_id)
    shown = matrix_window(lesson) if lesson.training is not None else None
    slide = slide_window(lesson, shown) if shown is not None and lesson.deck() is not None else None
    return respond("matrix/show.html", "matrix", shown, lesson=lesson, section="matrix", slide_matrix=slide)
