"""How much memory a computation will take, estimated from its sizes before it starts, and a cap to refuse it.

The estimates are upper estimates in bytes, measured on the corpus of scripts/hostile_corpus.py (many classes, a
large vocabulary) with scripts/memory_pages.py. What makes a page expensive is never the text alone:

- counting the words: 5 to 6 bytes per character of text at the peak (each chunk of documents is summed before
  the next is read, so what grows is the sparse matrix, 12 bytes per stored count; ``max_features`` prunes a copy),
  hence ``COUNTING_BYTES_PER_CHARACTER`` with room to spare;
- the class statistics: two dense (n_classes, n_words) tables of counts, int64, and a presence mask while they
  are summarised; every ψ or θ table a page shows is another (n_classes, n_words) float64;
- logistic regression: L-BFGS-B keeps about 25 vectors as long as the weights ((n_words + 1) × classes) and the
  fit a few more; each gradient holds a few (n_documents, n_classes) arrays of scores.

The cap is a context variable, so that the engine stays free of the web app: the app sets it for each request
(and for each background job it starts), and ``require`` refuses with :class:`WorkTooLarge` (a CorpusError, so
pages show it as they show any problem with a corpus). Outside the app (scripts, the CLI) there is no cap.
"""
from __future__ import annotations

import contextvars
from contextlib import contextmanager

from webnb.engine.shared.corpus import CorpusError

MB = 1_000_000
COUNTING_BYTES_PER_CHARACTER = 8  # measured 4.7–5.9 since counting sums each chunk of documents (bag.COUNT_CHUNK)
CLASS_TABLE_BYTES_PER_CELL = 18  # document_count_ and word_count_ (8 + 8), a presence mask (1), slack
SHOWN_TABLE_BYTES_PER_CELL = 10  # ψ or θ as float64, and the masks a page compares it with
STORED_COUNT_BYTES = 12  # one stored (document, word) count of a CSR matrix: its int64 value and int32 column
LBFGS_VECTORS = 36  # L-BFGS-B's 2m + 5 work vectors (m = 10), x, the gradient, the weights and their copies
SCORE_ARRAYS = 5  # scores, their shifted copy, exp, the residual and the probabilities, each (documents, classes)
FLOAT_BYTES = 8

_limit: contextvars.ContextVar[int | None] = contextvars.ContextVar("webnb_work_limit", default=None)


class WorkTooLarge(CorpusError):
    """A computation refused before it started because its memory estimate is over the cap.

    A ``CorpusError``, so pages show it as they show any problem with a corpus; its message gives the estimate, the
    cap and what to change.

    Parameters
    ----------
    message : str
        What is wrong, and what to change.
    """


def current_limit() -> int | None:
    """The cap in bytes for the work in this context, or None for none.

    Returns
    -------
    int or None
        The cap that ``limit`` or ``set_limit`` set in this context; None outside the app (scripts, the CLI).

    Examples
    --------
    >>> current_limit() is None
    True
    >>> with limit(500_000_000):
    ...     current_limit()
    500000000
    """
    return _limit.get()


@contextmanager
def limit(max_bytes: int | None):
    """Work inside this block may take at most ``max_bytes`` (None: no cap).

    A context manager: the previous cap is back when the block ends, even by an exception.

    Parameters
    ----------
    max_bytes : int or None
        The cap in bytes.

    Yields
    ------
    None
        The block runs with the cap in place.

    Examples
    --------
    >>> with limit(1_000_000):  # doctest: +ELLIPSIS
    ...     require_comparison(n_train=100_000, n_test=10, n_words=50_000, n_classes=20, n_stored=10**7)
    Traceback (most recent call last):
        ...
    webnb.engine.shared.budget.WorkTooLarge: Fitting logistic regression ... would need about 608 MB of memory; ...
    """
    token = _limit.set(max_bytes)
    try:
        yield
    finally:
        _limit.reset(token)


def set_limit(max_bytes: int | None) -> contextvars.Token:
    """Set the cap until ``reset_limit(token)``: for a request, whose start and end are separate callbacks.

    Parameters
    ----------
    max_bytes : int or None
        The cap in bytes (None: no cap).

    Returns
    -------
    contextvars.Token
        What ``reset_limit`` takes to restore the previous cap.
    """
    return _limit.set(max_bytes)


def reset_limit(token: contextvars.Token) -> None:
    """Restore the cap that was in place before the ``set_limit`` call that returned ``token``.

    Parameters
    ----------
    token : contextvars.Token
        The value ``set_limit`` returned, in this same context.

    Returns
    -------
    None
        The previous cap is back.

    Raises
    ------
    ValueError
        If ``token`` was made in another context (as ``ContextVar.reset`` raises).
    RuntimeError
        If ``token`` has been used already.
    """
    _limit.reset(token)


def size_text(n_bytes: float) -> str:
    """Bytes as a reader says them: 7.2 GB, 334 MB, 12 MB."""
    if n_bytes >= 1000 * MB:
        return f"{n_bytes / (1000 * MB):.1f} GB"
    return f"{max(n_bytes / MB, 1):,.0f} MB"


# -- estimates ---------------------------------------------------------------------------------------------------


def counting_bytes(n_characters: int) -> int:
    """Counting the words of ``n_characters`` of text into a documents × words matrix (the peak, while counting)."""
    return COUNTING_BYTES_PER_CHARACTER * int(n_characters)


def class_tables_bytes(n_classes: int, n_words: int, n_stored: int = 0) -> int:
    """The class statistics of a counted corpus: two dense (n_classes, n_words) tables of counts, and a copy of
    its counts matrix (``n_stored`` stored counts) as presence."""
    return CLASS_TABLE_BYTES_PER_CELL * n_classes * n_words + STORED_COUNT_BYTES * int(n_stored)


def shown_table_bytes(n_classes: int, n_words: int) -> int:
    """One dense table of ψ or θ, (n_classes, n_words), as the parameters, words and sample pages read it."""
    return SHOWN_TABLE_BYTES_PER_CELL * n_classes * n_words


def logistic_bytes(n_documents: int, n_words: int, n_classes: int, n_stored: int) -> int:
    """Fitting softmax regression with L-BFGS on ``n_documents`` × ``n_words`` with ``n_stored`` stored counts:
    the optimiser's vectors, the gradient's (documents, classes) arrays, and the float copies of the matrix and
    its transpose (12 bytes per stored count each)."""
    free_classes = 1 if n_classes == 2 else n_classes
    weights = (n_words + 1) * free_classes
    return (
        LBFGS_VECTORS * FLOAT_BYTES * weights
        + SCORE_ARRAYS * FLOAT_BYTES * n_documents * n_classes
        + 2 * 12 * n_stored
    )


def comparison_bytes(n_train: int, n_test: int, n_words: int, n_classes: int, n_stored: int) -> int:
    """The compare page: three Naive Bayes models (class statistics again, scores of the test documents) and the
    logistic regression, one after the other, so the larger of the two."""
    # The statistics are counted again for each Naive Bayes model; the previous ones go once the next exist.
    naive_bayes = 2 * class_tables_bytes(n_classes, n_words, n_stored) + SCORE_ARRAYS * FLOAT_BYTES * n_test * n_classes
    return max(naive_bayes, logistic_bytes(n_train, n_words, n_classes, n_stored))


# -- the cap -----------------------------------------------------------------------------------------------------


def require(estimate: int, what: str, sizes: str, advice: str) -> None:
    """Refuse ``what`` (its ``sizes`` said in words) if ``estimate`` bytes is over the cap; ``advice`` says what
    to change. Nothing has been started when this raises."""
    cap = _limit.get()
    if cap is None or estimate <= cap:
        return
    raise WorkTooLarge(
        f"{what} ({sizes}) would need about {size_text(estimate)} of memory; this server allows "
        f"{size_text(cap)} for one piece of work. Nothing was started. {advice}"
    )


FEWER_WORDS = "Fewer words (a larger min_df, or max_features) or fewer classes make it smaller."


def require_counting(n_documents: int, n_characters: int) -> None:
    require(
        counting_bytes(n_characters),
        "Counting the words of this corpus",
        f"{n_documents:,} documents, {n_characters:,} characters",
        "Use a smaller corpus, or a sample of its documents.",
    )


def require_class_tables(n_classes: int, n_words: int, n_stored: int = 0, *, at_least: bool = False) -> None:
    """``at_least``: ``n_words`` is what counting has found so far, and the vocabulary can only grow."""
    require(
        class_tables_bytes(n_classes, n_words, n_stored),
        "Counting the words of each class",
        f"{n_classes:,} classes × {'at least ' if at_least else ''}{n_words:,} words",
        FEWER_WORDS,
    )


def require_shown_table(n_classes: int, n_words: int) -> None:
    require(
        shown_table_bytes(n_classes, n_words),
        "A table of every word's probability in every class",
        f"{n_classes:,} classes × {n_words:,} words",
        FEWER_WORDS,
    )


def require_comparison(n_train: int, n_test: int, n_words: int, n_classes: int, n_stored: int) -> None:
    """Refuse the compare page's work (three Naive Bayes models, then logistic regression) if its memory estimate is
    over the cap; see ``comparison_bytes``.

    Parameters
    ----------
    n_train, n_test : int
        Training and test documents.
    n_words : int
        The vocabulary's size.
    n_classes : int
        The number of classes.
    n_stored : int
        Stored (non-zero) counts of the training matrix.

    Returns
    -------
    None
        When the work may start.

    Raises
    ------
    WorkTooLarge
        If the estimate is over the cap of this context; nothing has been started then.
    """
    require(
        comparison_bytes(n_train, n_test, n_words, n_classes, n_stored),
        "Fitting logistic regression beside Naive Bayes",
        f"{n_train:,} training documents, {n_words:,} words, {n_classes:,} classes",
        FEWER_WORDS + " The Naive Bayes models alone are on the evaluation page.",
    )
