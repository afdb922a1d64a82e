"""A window of the bag of words: some documents × some words, both axes paged, so that a corpus of 20,000
documents and 100,000 words shows (and exports) 40 × 16 cells, the only part of its sparse matrix made dense."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from webnb.engine.records.document_window import DOCUMENTS_PER_PAGE
from webnb.engine.shared.plain import plain
from webnb.engine.text.bag import document_frequency
from webnb.engine.text.training import TrainingSet

ROWS_PER_PAGE = 40
WORDS_PER_PAGE = 16


@dataclass(frozen=True)
class MatrixRow:
    """One document of the window: its counts (or 1/0 for presence) of the window's words.

    Parameters
    ----------
    index : int
        The document's row in the matrix.
    id : str
        Its id in the corpus.
    label : str
        Its class.
    values : tuple of int
        Its count (or 1/0) of each of the window's words.
    position : int
        Its number among the corpus's documents (not the row when the matrix is a split's training part).

    Attributes
    ----------
    page : int
        The page of the corpus's documents (``document_window``) that shows it, from 1.
    """

    index: int  # the document's row in the matrix
    id: str
    label: str
    values: tuple[int, ...]
    position: int  # its number among the corpus's documents (not the row when the matrix is a split's training part)

    @property
    def page(self) -> int:
        """The page of the corpus's documents (``document_window``) that shows it, from 1."""
        return self.position // DOCUMENTS_PER_PAGE + 1

    def to_dict(self) -> dict:
        return plain(self)


@dataclass(frozen=True, eq=False)
class MatrixWindow:
    """The part of the matrix one page shows (and its CSV export contains): documents ``rows`` × words ``columns``,
    the words those matching ``query`` in ``order``.

    Parameters
    ----------
    presence : bool
        Whether cells say if the word occurs (1/0) instead of how often.
    query : str
        The filter the words match.
    order : {"alphabetical", "frequent"}
        The words in vocabulary order, or those in most documents first.
    rows : numpy.ndarray of int, shape (≤ ROWS_PER_PAGE,)
        The documents' rows.
    columns : numpy.ndarray of int, shape (≤ WORDS_PER_PAGE,)
        The words' columns.
    words : tuple of str
        The words of ``columns``.
    documents : tuple of MatrixRow
        The documents of ``rows``, with their cells.
    matching_words : int
        Words matching the query, on every page.
    row_page, row_pages, column_page, column_pages : int
        This page of documents and of words (from 1), and how many there are (``column_pages`` is 0 when no word
        matches).
    n_documents, vocabulary_size : int
        The whole matrix's shape.
    non_zero : int
        Stored cells of the whole matrix.

    Attributes
    ----------
    sparsity : float
        The share of the whole matrix's cells that are 0.
    """

    presence: bool  # cells say whether the word occurs (1/0) instead of how often
    query: str
    order: str  # of the words: "alphabetical" (vocabulary order) or "frequent" (in most documents first)
    rows: np.ndarray  # document numbers, shape (≤ ROWS_PER_PAGE,)
    columns: np.ndarray  # word numbers, shape (≤ WORDS_PER_PAGE,)
    words: tuple[str, ...]  # the words of ``columns``
    documents: tuple[MatrixRow, ...]  # the documents of ``rows``
    matching_words: int  # words matching the query, on every page
    row_page: int
    row_pages: int
    column_page: int
    column_pages: int  # 0 when no word matches
    n_documents: int
    vocabulary_size: int
    non_zero: int  # stored cells of the whole matrix

    @property
    def cells(self) -> int:
        return self.n_documents * self.vocabulary_size

    @property
    def sparsity(self) -> float:
        """The share of the whole matrix's cells that are 0."""
        return 1 - self.non_zero / self.cells

    @property
    def first_word(self) -> int:
        """The number of the window's first word among the matching words, from 1."""
        return (self.column_page - 1) * WORDS_PER_PAGE + 1

    def to_dict(self) -> dict:
        return {
            "documents": self.n_documents,
            "vocabulary_size": self.vocabulary_size,
            "non_zero": self.non_zero,
            "sparsity": self.sparsity,
            "values": "presence" if self.presence else "counts",
            "query": self.query,
            "order": self.order,
            "matching_words": self.matching_words,
            "rows_page": self.row_page,
            "rows_pages": self.row_pages,
            "words_page": self.column_page,
            "words_pages": self.column_pages,
            "words": list(self.words),
            "rows": [row.to_dict() for row in self.documents],
        }


def matrix_pages(n_documents: int, n_words: int) -> tuple[int, int]:
    """How many pages of documents, and of ``n_words`` words, the matrix takes (no page of words for no word).

    Parameters
    ----------
    n_documents : int
        Rows of the matrix.
    n_words : int
        Words to show (those matching a filter, say).

    Returns
    -------
    (int, int)
        Pages of ``ROWS_PER_PAGE`` (40) documents and of ``WORDS_PER_PAGE`` (16) words.

    Examples
    --------
    >>> matrix_pages(45, 17), matrix_pages(40, 0)
    ((2, 2), (1, 0))
    """
    return math.ceil(n_documents / ROWS_PER_PAGE), math.ceil(n_words / WORDS_PER_PAGE)


def matrix_window(training: TrainingSet, words: np.ndarray, *, presence: bool = False, query: str = "",
                  order: str = "alphabetical", row_page: int = 1, column_page: int = 1,
                  positions: np.ndarray | None = None) -> MatrixWindow:
    """Page ``row_page`` of the documents × page ``column_page`` of ``words``, in ``order``; pages of
    ``matrix_pages``, kept between 1 and the last. Only this window of the sparse matrix is made dense.

    Parameters
    ----------
    training : TrainingSet
        Whose matrix is shown.
    words : numpy.ndarray of int
        Word numbers in vocabulary order, those matching ``query``.
    presence : bool, default False
        Show 1/0 for presence instead of counts.
    query : str, default ""
        The filter ``words`` match (kept for the page).
    order : {"alphabetical", "frequent"}, default "alphabetical"
        Vocabulary order, or the words in most documents first.
    row_page, column_page : int, default 1
        The pages, from 1.
    positions : numpy.ndarray of int, optional
        The matrix's rows numbered among the corpus's documents when they are only a part of them (a split's
        training part); by default row i is document i.

    Returns
    -------
    MatrixWindow
        The window's documents and words, with the pages and the whole matrix's sizes.

    Examples
    --------
    >>> import numpy as np
    >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
    >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
    >>> window = matrix_window(training, np.arange(6), order="frequent")
    >>> window.words
    ('chinese', 'beijing', 'japan', 'macao', 'shanghai', 'tokyo')
    >>> [row.values for row in window.documents]
    [(2, 1, 0, 0, 0, 0), (2, 0, 0, 0, 1, 0), (1, 0, 0, 1, 0, 0), (1, 0, 1, 0, 0, 1)]
    >>> window.sparsity  # 15 of the 24 cells are 0
    0.625
    """
    matrix, corpus = training.matrix, training.corpus
    if order == "frequent":  # the words in most documents first, so a big corpus does not open on "00", "000", …
        words = words[np.argsort(-document_frequency(matrix)[words], kind="stable")]
    n_documents = matrix.shape[0]
    row_pages, column_pages = matrix_pages(n_documents, len(words))
    row_page, column_page = min(max(row_page, 1), max(row_pages, 1)), min(max(column_page, 1), max(column_pages, 1))
    rows = np.arange((row_page - 1) * ROWS_PER_PAGE, min(row_page * ROWS_PER_PAGE, n_documents))
    columns = words[(column_page - 1) * WORDS_PER_PAGE : column_page * WORDS_PER_PAGE]
    # Only this window of the sparse matrix is ever made dense: at most 40 × 16 cells.
    cells = matrix[rows][:, columns].toarray() if len(columns) else np.zeros((len(rows), 0), dtype=int)
    if presence:
        cells = (cells > 0).astype(int)
    documents = tuple(
        MatrixRow(i, corpus.ids[i], corpus.labels[i], tuple(values), i if positions is None else int(positions[i]))
        for i, values in zip(rows.tolist(), cells.tolist(), strict=True)
    )
    vocabulary = training.vocabulary
    return MatrixWindow(
        presence=presence,
        query=query,
        order=order,
        rows=rows,
        columns=columns,
        words=tuple(vocabulary[j] for j in columns.tolist()),
        documents=documents,
        matching_words=len(words),
        row_page=row_page,
        row_pages=row_pages,
        column_page=column_page,
        column_pages=column_pages,
        n_documents=n_documents,
        vocabulary_size=len(vocabulary),
        non_zero=matrix.nnz,
    )
