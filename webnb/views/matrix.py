"""The bag of words: documents × words, both axes paged, so a 20,000-document corpus stays light."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from flask import Blueprint, request

from webnb.engine.text.bag import document_frequency
from webnb.views.common import load_lesson, page_number, respond, word_filter, words_containing
from webnb.views.corpus import DOCUMENTS_PER_PAGE

bp = Blueprint("matrix", __name__)

ROWS_PER_PAGE = 40
WORDS_PER_PAGE = 16


@dataclass(frozen=True)
class Window:
    """The part of the matrix one page shows (and its CSV export contains)."""

    presence: bool
    query: str
    order: str
    rows: np.ndarray
    columns: np.ndarray
    matching_words: int
    row_page: int
    row_pages: int
    column_page: int
    column_pages: int


def matrix_window(lesson) -> Window:
    """Which documents and words the request asks for: both axes paged, words filtered and ordered."""
    training = lesson.training
    presence = request.args.get("values") == "presence" or (
        request.args.get("values") != "counts" and (lesson.state.model == "bernoulli" or lesson.state.binary)
    )
    query = word_filter()
    order = "frequent" if request.args.get("order") == "frequent" else "alphabetical"
    words = words_containing(training.vocabulary, query)
    if order == "frequent":  # the words in most documents first, so a big corpus does not open on "00", "000", …
        words = words[np.argsort(-document_frequency(training.matrix)[words], kind="stable")]
    n_docs = training.matrix.shape[0]
    row_pages = math.ceil(n_docs / ROWS_PER_PAGE)
    column_pages = math.ceil(len(words) / WORDS_PER_PAGE)
    row_page, column_page = page_number("rows", row_pages), page_number("cols", column_pages)
    return Window(
        presence=presence,
        query=query,
        order=order,
        rows=np.arange((row_page - 1) * ROWS_PER_PAGE, min(row_page * ROWS_PER_PAGE, n_docs)),
        columns=words[(column_page - 1) * WORDS_PER_PAGE : column_page * WORDS_PER_PAGE],
        matching_words=len(words),
        row_page=row_page,
        row_pages=row_pages,
        column_page=column_page,
        column_pages=column_pages,
    )


@bp.get("/corpora/<corpus_id>/matrix")
def show(corpus_id):
    lesson = load_lesson(corpus_id)
    context = {"lesson": lesson, "section": "matrix", "table": None}
    if lesson.training is None:
        return respond("matrix/show.html", "matrix", context, {"error": lesson.error})
    training = lesson.training
    view = matrix_window(lesson)
    presence, query, order, rows, columns = view.presence, view.query, view.order, view.rows, view.columns
    row_page, row_pages, column_page, column_pages = view.row_page, view.row_pages, view.column_page, view.column_pages
    words_count = view.matching_words
    vocabulary = training.vocabulary
    n_docs = training.matrix.shape[0]
    # Only this window of the sparse matrix is ever made dense: at most 40 × 16 cells.
    window = training.matrix[rows][:, columns].toarray() if len(columns) else np.zeros((len(rows), 0), dtype=int)
    if presence:
        window = (window > 0).astype(int)
    corpus = lesson.entry.corpus
    nnz = training.matrix.nnz
    cells = n_docs * len(vocabulary)
    table = {
        "words": [vocabulary[j] for j in columns],
        "rows": [
            {
                "index": int(i),
                "id": corpus.ids[i],
                "label": corpus.labels[i],
                "values": window[r].tolist(),
                "page": int(i) // DOCUMENTS_PER_PAGE + 1,
            }
            for r, i in enumerate(rows)
        ],
    }
    context.update(
        table=table,
        presence=presence,
        query=query,
        order=order,
        row_page=row_page,
        row_pages=row_pages,
        column_page=column_page,
        column_pages=column_pages,
        matching_words=words_count,
        nnz=nnz,
        cells=cells,
        sparsity=1 - nnz / cells,
    )
    data = {
        "documents": n_docs,
        "vocabulary_size": len(vocabulary),
        "non_zero": nnz,
        "sparsity": 1 - nnz / cells,
        "values": "presence" if presence else "counts",
        "query": query,
        "order": order,
        "matching_words": words_count,
        "rows_page": row_page,
        "rows_pages": row_pages,
        "words_page": column_page,
        "words_pages": column_pages,
        "words": table["words"],
        "rows": [
            {"index": r["index"], "id": r["id"], "label": r["label"], "values": r["values"]} for r in table["rows"]
        ],
    }
    return respond("matrix/show.html", "matrix", context, data)
