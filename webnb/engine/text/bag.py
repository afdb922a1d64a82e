"""The bag of words: a sparse documents × words matrix of counts over an alphabetical vocabulary.

Built the way scikit-learn's ``CountVectorizer._count_vocab`` builds it (CSR from ``indptr``/``indices``/
``data``), never dense. Pruning follows scikit-learn too: first ``min_df``/``max_df`` on document
frequencies, then ``max_features`` keeps the most frequent words. Frequency means total occurrences,
or the number of documents containing the word when features are binary (scikit-learn binarises before
it ranks). Ties are broken alphabetically (a stable sort over the alphabetical vocabulary), so the same
corpus always gives the same vocabulary.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from functools import cached_property
from itertools import repeat
from numbers import Integral

import numpy as np
import scipy.sparse as sp

from webnb.engine.shared.corpus import CorpusError
from webnb.engine.shared.plain import plain
from webnb.engine.text.analysis import Analyzer


class EmptyVocabularyError(CorpusError):
    """No word is left to count: every document is empty or dropped by the analysis, or pruning removed every word.

    A ``CorpusError``: the message says which options to relax.

    Parameters
    ----------
    message : str
        What is wrong, and what to change.
    """
    pass


@dataclass(frozen=True)
class VocabularyOptions:
    """Which words the vocabulary keeps, as scikit-learn's ``CountVectorizer`` prunes them.

    ``min_df``/``max_df``: an int is a number of documents, a float a fraction of them.

    Parameters
    ----------
    min_df : int or float, default 1
        Keep only words found in at least this many documents (or this fraction of them).
    max_df : int or float, default 1.0
        Keep only words found in at most this many documents (or this fraction of them).
    max_features : int or None, default None
        Then keep only this many words, the most frequent (ties in alphabetical order).
    binary : bool, default False
        Rank words for ``max_features`` by the documents containing them rather than by their occurrences. It only
        changes which words ``max_features`` keeps, as in scikit-learn; the models decide what they count.

    Raises
    ------
    ValueError
        If ``min_df`` or ``max_df`` is not a number, is negative, or is a float outside [0, 1], or if
        ``max_features`` is not a positive whole number.

    Examples
    --------
    >>> VocabularyOptions(min_df=2).document_count_bounds(4)
    (2, 4.0)
    >>> VocabularyOptions(max_df=1.5)
    Traceback (most recent call last):
        ...
    ValueError: max_df as a fraction must be between 0 and 1, not 1.5
    """

    min_df: int | float = 1
    max_df: int | float = 1.0
    max_features: int | None = None
    binary: bool = False  # only changes which words max_features keeps, as in scikit-learn

    def __post_init__(self):
        for name in ("min_df", "max_df"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (Integral, float)):
                raise ValueError(f"{name} must be a number, not {value!r}")
            if isinstance(value, float) and not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} as a fraction must be between 0 and 1, not {value}")
            if isinstance(value, Integral) and value < 0:
                raise ValueError(f"{name} must not be negative")
        if self.max_features is not None and (
            isinstance(self.max_features, bool) or not isinstance(self.max_features, Integral) or self.max_features < 1
        ):
            raise ValueError(f"max_features must be a positive whole number, not {self.max_features!r}")

    def document_count_bounds(self, n_documents: int) -> tuple[float, float]:
        low = self.min_df if isinstance(self.min_df, Integral) else self.min_df * n_documents
        high = self.max_df if isinstance(self.max_df, Integral) else self.max_df * n_documents
        if low > n_documents:
            raise EmptyVocabularyError(
                f"min_df ({self.min_df}) keeps only words found in at least {low:g} documents, but the corpus "
                f"has {n_documents}. Lower min_df."
            )
        if high < low:
            raise CorpusError(
                f"max_df ({self.max_df}) allows fewer documents than min_df ({self.min_df}): "
                "no word could be kept. Lower min_df or raise max_df."
            )
        return low, high

    def to_dict(self) -> dict:
        return plain(self)


PROGRESS_EVERY = 1000  # documents between two progress reports
# Documents counted together before their counts are summed per document: the list of every occurrence then
# never holds more than one chunk, so counting takes memory in proportion to the stored counts, not the tokens.
COUNT_CHUNK = 1000


def _count(texts, tokenize, columns_of, progress=None, after_chunk=None) -> sp.csr_matrix:
    """The counts of ``texts``, one row per text, duplicates summed and columns sorted within each row.
    ``tokenize(text)`` gives a text's tokens and ``columns_of(tokens)`` their columns (-1 for a token that is not
    counted: outside a fixed vocabulary, or dropped by the analysis), as an iterator that does no Python work per
    token (a ``map`` of a dict's method, say). ``progress(done, total)``, if given, is called every
    ``PROGRESS_EVERY`` documents so that a caller can show how far counting has got; ``after_chunk()``, if given,
    after each chunk (it may refuse to go on)."""
    indices, data, lengths = [], [], []
    column_ids: list[int] = []
    extend = column_ids.extend
    for start in range(0, len(texts), COUNT_CHUNK):
        chunk = texts[start:start + COUNT_CHUNK]
        chunk_indptr = [0]
        # One document at a time: its tokens are looked up while they are still in the processor's cache.
        for done, text in enumerate(chunk, start + 1):
            extend(columns_of(tokenize(text)))
            chunk_indptr.append(len(column_ids))
            if progress is not None and done % PROGRESS_EVERY == 0:
                progress(done, len(texts))
        counts = _csr(np.array(column_ids, dtype=np.int64), np.array(chunk_indptr, dtype=np.int64))
        column_ids.clear()
        indices.append(counts.indices)
        data.append(counts.data.astype(np.int32))  # a count within one document; int64 once joined
        lengths.append(np.diff(counts.indptr))
        if after_chunk is not None:
            after_chunk()
    n_columns = 1 + max((int(part.max()) for part in indices if len(part)), default=-1)
    indptr = np.concatenate(([0], np.cumsum(np.concatenate(lengths)) if lengths else [])).astype(np.int64)
    # Joined one array at a time, each chunk list released before the next: the peak stays near the result's size.
    joined_indices = _joined(indices, np.int32)
    joined_data = _joined(data, np.int64)
    return sp.csr_matrix((joined_data, joined_indices, indptr), shape=(len(indptr) - 1, n_columns))


class _Columns(dict):
    """Token → column while a vocabulary is learned: a new token gets the next column (``words`` lists them in
    column order), or -1 when ``drops(token)`` says the analysis drops it; either way it is asked once per distinct
    token, and then looked up in C."""

    def __init__(self, drops=None):
        super().__init__()
        self.words: list[str] = []
        self._drops = drops

    def __missing__(self, token: str) -> int:
        if self._drops is not None and self._drops(token):
            column = -1
        else:
            column = len(self.words)
            self.words.append(token)
        self[token] = column
        return column


def _joined(parts: list, dtype) -> np.ndarray:
    """The arrays of ``parts`` as one, emptying the list as it goes."""
    joined = np.concatenate(parts, dtype=dtype) if parts else np.zeros(0, dtype=dtype)
    parts.clear()
    return joined


def _csr(column_ids: np.ndarray, indptr: np.ndarray) -> sp.csr_matrix:
    """A CSR matrix of counts from one entry per occurrence (duplicates summed, indices sorted); entries of -1
    (words outside a fixed vocabulary) are dropped first."""
    known = column_ids >= 0
    if not known.all():
        # Drop unknown words and shift the row pointer by how many were dropped before it.
        dropped_before = np.concatenate(([0], np.cumsum(~known)))
        indptr = indptr - dropped_before[indptr]
        column_ids = column_ids[known]
    n_columns = int(column_ids.max()) + 1 if len(column_ids) else 0
    data = np.ones(len(column_ids), dtype=np.int64)
    matrix = sp.csr_matrix((data, column_ids.astype(np.int32), indptr), shape=(len(indptr) - 1, n_columns))
    matrix.sum_duplicates()
    return matrix


class BagOfWords:
    """A fitted vocabulary: turns texts into count vectors over ``vocabulary`` (sorted alphabetically).

    Made by ``fit_transform``, which learns the vocabulary from a corpus; ``transform`` counts new texts over it.

    Parameters
    ----------
    analyzer : Analyzer
        How a text becomes features.
    vocabulary : tuple of str
        The words, in alphabetical order: word ``vocabulary[j]`` is column j.
    options : VocabularyOptions
        The pruning options the vocabulary was learned with.

    Attributes
    ----------
    index : dict of str to int
        Each word's column.

    Examples
    --------
    >>> from webnb.engine.text.analysis import Analyzer
    >>> texts = ["Chinese Beijing Chinese", "Chinese Chinese Shanghai", "Chinese Macao", "Tokyo Japan Chinese"]
    >>> bag, X = BagOfWords.fit_transform(texts, Analyzer())
    >>> bag.vocabulary
    ('beijing', 'chinese', 'japan', 'macao', 'shanghai', 'tokyo')
    >>> X.toarray().tolist()
    [[1, 2, 0, 0, 0, 0], [0, 2, 0, 0, 1, 0], [0, 1, 0, 1, 0, 0], [0, 1, 1, 0, 0, 1]]
    >>> bag.transform(["Chinese Chinese Chinese Tokyo Japan Osaka"]).toarray().tolist()  # "osaka" is not counted
    [[0, 3, 1, 0, 0, 1]]
    """

    def __init__(self, analyzer: Analyzer, vocabulary: tuple[str, ...], options: VocabularyOptions):
        self.analyzer = analyzer
        self.vocabulary = vocabulary
        self.options = options

    @cached_property
    def index(self) -> dict[str, int]:
        """Each word's column; made when first asked for (counting a corpus needs none)."""
        return dict(zip(self.vocabulary, range(len(self.vocabulary)), strict=True))

    def __len__(self) -> int:
        return len(self.vocabulary)

    @classmethod
    def fit_transform(
        cls, texts, analyzer: Analyzer, options: VocabularyOptions | None = None, progress=None, vocabulary_guard=None
    ):
        """Learn the vocabulary of ``texts`` and count them over it.

        Parameters
        ----------
        texts : iterable of str
            The documents.
        analyzer : Analyzer
            How a text becomes features.
        options : VocabularyOptions, optional
            Pruning by document frequency and ``max_features``; none when None.
        progress : callable, optional
            ``progress(done, total)`` is told how many documents have been counted, every 1,000.
        vocabulary_guard : callable, optional
            ``vocabulary_guard(n_words)`` is told the number of distinct words found so far after each chunk of
            documents, and may refuse to go on by raising.

        Returns
        -------
        bag : BagOfWords
            The fitted vocabulary, sorted alphabetically.
        X : scipy.sparse.csr_matrix of shape (n_documents, n_words)
            The counts, int64: ``X[i, j]`` is how often word j occurs in document i.

        Raises
        ------
        EmptyVocabularyError
            If no word is found, or pruning keeps none (``min_df`` above the number of documents, say).
        CorpusError
            If ``max_df`` allows fewer documents than ``min_df``.

        Examples
        --------
        >>> from webnb.engine.text.analysis import Analyzer
        >>> texts = ["Chinese Beijing Chinese", "Chinese Chinese Shanghai", "Chinese Macao", "Tokyo Japan Chinese"]
        >>> bag, X = BagOfWords.fit_transform(texts, Analyzer(), VocabularyOptions(min_df=2))
        >>> bag.vocabulary, X.shape
        (('chinese',), (4, 1))
        """
        options = options or VocabularyOptions()
        texts = list(texts)
        # The tokens as found, each distinct one classified once (kept, or dropped by the analysis), when the
        # analysis only drops tokens (no stemming, no n-grams); else the analysis's own features.
        fast = analyzer.unfiltered()
        tokenize, drops = fast if fast is not None else (analyzer, None)
        columns = _Columns(drops)
        words = columns.words  # the vocabulary as it grows, in column order
        after_chunk = None if vocabulary_guard is None else lambda: vocabulary_guard(len(words))
        counts = _count(texts, tokenize, functools.partial(map, columns.__getitem__), progress, after_chunk)
        if not words:
            raise EmptyVocabularyError(
                "No words were found: every document is empty, or made only of stop words, one-letter words or "
                "punctuation. Check the text column, or relax the analysis options (stop words, token pattern)."
            )
        # Renumber the columns alphabetically before building the matrix, so it is built only once. (Sorting the
        # words themselves, then looking up their columns, is faster than sorting the columns by word.)
        vocabulary = tuple(sorted(words))
        order = np.fromiter(map(columns.__getitem__, vocabulary), dtype=np.int64, count=len(vocabulary))
        del columns  # the dropped tokens with the words: only the vocabulary is needed now
        alphabetical = np.empty(len(vocabulary), dtype=np.int32)
        alphabetical[order] = np.arange(len(vocabulary), dtype=np.int32)
        matrix = sp.csr_matrix(
            (counts.data, alphabetical[counts.indices], counts.indptr), shape=(len(texts), len(vocabulary))
        )
        del counts
        matrix.has_sorted_indices = False
        matrix.sort_indices()  # renumbered columns, each row still free of duplicates
        matrix, vocabulary = _prune(matrix, vocabulary, options)
        return cls(analyzer, vocabulary, options), matrix

    def transform(self, texts) -> sp.csr_matrix:
        """Count vectors of new texts; words outside the vocabulary are ignored.

        Parameters
        ----------
        texts : iterable of str
            The documents.

        Returns
        -------
        scipy.sparse.csr_matrix of shape (n_texts, n_words)
            The counts over this vocabulary, int64.

        Examples
        --------
        >>> from webnb.engine.text.analysis import Analyzer
        >>> bag, _ = BagOfWords.fit_transform(["Tokyo Japan", "Chinese Beijing"], Analyzer())
        >>> bag.transform(["Japan Japan Osaka"]).toarray().tolist()
        [[0, 0, 2, 0]]
        """
        texts = list(texts)
        get = self.index.get
        counts = _count(texts, self.analyzer, lambda tokens: map(get, tokens, repeat(-1)))
        return sp.csr_matrix((counts.data, counts.indices, counts.indptr), shape=(len(texts), len(self.vocabulary)))


def document_frequency(matrix: sp.csr_matrix) -> np.ndarray:
    """Number of documents containing each word.

    Parameters
    ----------
    matrix : scipy.sparse.csr_matrix of shape (n_documents, n_words)
        Counts without stored zeros, as ``BagOfWords.fit_transform`` gives them.

    Returns
    -------
    numpy.ndarray of shape (n_words,)
        For each word, the documents in which it occurs at least once.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> document_frequency(sp.csr_matrix([[1, 2, 0], [0, 2, 0], [0, 1, 1]])).tolist()
    [1, 3, 1]
    """
    return np.bincount(matrix.indices, minlength=matrix.shape[1])


def _prune(matrix: sp.csr_matrix, vocabulary: tuple[str, ...], options: VocabularyOptions):
    n_documents = matrix.shape[0]
    low, high = options.document_count_bounds(n_documents)
    frequencies = document_frequency(matrix)
    keep = (frequencies >= low) & (frequencies <= high)
    if options.max_features is not None and keep.sum() > options.max_features:
        if options.binary:
            ranking_counts = frequencies
        else:
            ranking_counts = np.bincount(matrix.indices, weights=matrix.data, minlength=matrix.shape[1])
        candidates = np.flatnonzero(keep)
        # Stable sort of the alphabetical candidates: equal counts stay in alphabetical order.
        best = candidates[np.argsort(-ranking_counts[candidates], kind="stable")[: options.max_features]]
        keep = np.zeros_like(keep)
        keep[best] = True
    if keep.all():
        return matrix, vocabulary
    if not keep.any():
        raise EmptyVocabularyError(
            f"After pruning no word remains (min_df={options.min_df}, max_df={options.max_df}). "
            "Lower min_df or raise max_df."
        )
    kept_columns = np.flatnonzero(keep)
    new_column = np.full(len(vocabulary), -1, dtype=np.int32)
    new_column[kept_columns] = np.arange(len(kept_columns), dtype=np.int32)
    columns = new_column[matrix.indices]
    stays = columns >= 0
    # A row's new end is the number of kept entries before its old end (no per-entry row numbers needed).
    kept_before = np.cumsum(stays, dtype=np.int64 if len(stays) >= 2**31 else np.int32)
    ends = matrix.indptr[1:]
    indptr = np.concatenate(([0], np.where(ends > 0, kept_before[np.maximum(ends - 1, 0)], 0))).astype(np.int64)
    del kept_before
    pruned = sp.csr_matrix(
        (matrix.data[stays], columns[stays], indptr), shape=(n_documents, len(kept_columns))
    )
    return pruned, tuple(vocabulary[j] for j in kept_columns)
