"""Sufficient statistics: the per-class counts that every Naive Bayes parameter is derived from.

Kept once per corpus, so a new α, a new prior or the other model derives its parameters from these
arrays without reading the corpus again.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from webnb.engine.shared.classes import checked_class_numbers, class_counts

# Larger counts are no document's; below it, float64 holds every whole number exactly.
MAX_COUNT = 10**15


def count_matrix(matrix, n_words: int | None = None, what: str = "the count matrix") -> sp.csr_matrix:
    """``matrix`` as a canonical CSR matrix of word counts, refused with a ValueError saying what is wrong
    when it is not one: counts are whole numbers, 0 or more, and finite. Each (document, word) pair is
    stored once and stored zeros are dropped, because presence (Bernoulli) is read from what is stored.
    ``n_words``, if given, is the number of columns the vocabulary needs. The input is never modified."""
    result = _as_csr(matrix, what)
    if n_words is not None and result.shape[1] != n_words:
        raise ValueError(
            f"{what} has {result.shape[1]} columns but the vocabulary has {n_words} words: "
            "make it with the same vocabulary as the model (one column per word)"
        )
    _check_counts(result.data, what)
    return _canonical(result, what)


def _as_csr(matrix, what: str) -> sp.csr_matrix:
    """``matrix`` (sparse, an array, or nested lists of numbers) as CSR, sharing its arrays when it already is."""
    if isinstance(matrix, (str, bytes)) or matrix is None:
        raise ValueError(f"{what} must be a matrix of word counts (documents × words), not {type(matrix).__name__}")
    if not sp.issparse(matrix):
        try:
            matrix = np.asarray(matrix)
        except (TypeError, ValueError):
            raise ValueError(f"{what} must be a matrix of word counts (documents × words)") from None
        if matrix.dtype.kind not in "biuf":
            raise ValueError(f"{what} must hold numbers (word counts), not {matrix.dtype}")
    try:
        return sp.csr_matrix(matrix)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a matrix of word counts (documents × words)") from None


def _check_counts(data: np.ndarray, what: str) -> None:
    """Refuses stored values that are not counts: not numbers, not finite, not whole, or negative."""
    if data.dtype.kind not in "biuf":
        raise ValueError(f"{what} must hold numbers (word counts), not {data.dtype}")
    if data.dtype.kind == "f":
        if not np.isfinite(data).all():
            raise ValueError(f"{what} holds a value that is not finite (NaN or infinity): counts are whole numbers")
        if (data != np.floor(data)).any():
            raise ValueError(f"{what} holds a count that is not a whole number: counts are 0, 1, 2, …")
    if (data < 0).any():
        raise ValueError(f"{what} holds a negative count: counts are 0 or more")


def _canonical(result: sp.csr_matrix, what: str) -> sp.csr_matrix:
    """``result`` with each (document, word) pair stored once and no stored zeros, copied before any change
    (it may share its arrays with the caller's matrix); refuses a count above ``MAX_COUNT``."""
    data = result.data
    # sp.csr_matrix(a CSR matrix) shares its arrays: copy before changing anything.
    if not result.has_canonical_format:
        result = result.copy()
        result.sum_duplicates()
    for values in (data, result.data):  # before adding duplicates up (no overflow), and after
        if values.size and values.max() > MAX_COUNT:
            raise ValueError(f"{what} holds a count above {MAX_COUNT:,}: no document has that many words")
    if (result.data == 0).any():
        if result.data is data:
            result = result.copy()
        result.eliminate_zeros()
    return result


# Count dtypes whose class sums the sparse product gives as int64 (the bincount below gives the same).
_SUMMED_AS_INT64 = frozenset(map(np.dtype, (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32)))


def _class_sums(matrix: sp.csr_matrix, class_index: np.ndarray, n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """(documents of each class containing each word, occurrences of each word in each class), both (n_classes,
    n_words) int64, from a canonical count matrix: one pass of ``np.bincount`` over the stored entries, each keyed by
    its document's class and its word. Counts that float64 might not hold exactly (a sum past 2**53) are added up
    as integers instead, by a sparse product."""
    n_words = matrix.shape[1]
    exact = matrix.data.dtype in _SUMMED_AS_INT64 and (
        not matrix.nnz or int(matrix.data.max()) < 2**53 // matrix.nnz)
    if not exact:  # also keeps the sparse product's dtype for counts held as floats (float64 sums, as ever)
        membership = sp.csr_matrix(
            (np.ones(len(class_index), dtype=np.int64), (class_index, np.arange(len(class_index)))),
            shape=(n_classes, matrix.shape[0]),
        )
        present = matrix.copy()
        present.data = np.ones_like(present.data)
        return (membership @ present).toarray(), (membership @ matrix).toarray()
    keys = np.repeat(class_index * n_words, np.diff(matrix.indptr)) + matrix.indices
    size, shape = n_classes * n_words, (n_classes, n_words)
    document_count = np.bincount(keys, minlength=size).astype(np.int64, copy=False).reshape(shape)
    word_count = np.bincount(keys, weights=matrix.data, minlength=size).astype(np.int64).reshape(shape)
    return document_count, word_count


@dataclass(frozen=True, eq=False)
class ClassStatistics:
    """Counts per class: all that every Naive Bayes parameter is derived from, for any α, prior or model kind.

    Parameters
    ----------
    classes : tuple of str
        The class names; class k is ``classes[k]``.
    vocabulary : tuple of str
        The words; word j is ``vocabulary[j]``.
    class_count_ : numpy.ndarray of shape (n_classes,)
        n_k, documents in class k.
    document_count_ : numpy.ndarray of shape (n_classes, n_words)
        n_jk, documents of class k that contain word j.
    word_count_ : numpy.ndarray of shape (n_classes, n_words)
        c_jk, occurrences of word j in the documents of class k.

    Attributes
    ----------
    n_documents, n_classes, n_words : int
        The sizes.
    observed : ObservedPairs
        The (class, word) pairs seen at least once, where parameters are computed one by one.
    feature_total : dict of bool to numpy.ndarray
        Σ_j c_jk per class (False) and Σ_j n_jk per class (True), shape (n_classes,).

    Examples
    --------
    The China/Japan example: documents 1–3 are China, document 4 is Japan.

    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> X = sp.csr_matrix([[1, 2, 0, 0, 0, 0], [0, 2, 0, 0, 1, 0], [0, 1, 0, 1, 0, 0], [0, 1, 1, 0, 0, 1]])
    >>> vocabulary = ("beijing", "chinese", "japan", "macao", "shanghai", "tokyo")
    >>> stats = ClassStatistics.from_matrix(X, np.array([0, 0, 0, 1]), ("China", "Japan"), vocabulary)
    >>> stats.class_count_.tolist()
    [3, 1]
    >>> stats.document_count_.tolist()  # n_jk
    [[1, 3, 0, 1, 1, 0], [0, 1, 1, 0, 0, 1]]
    >>> stats.word_count_.tolist()  # c_jk: "chinese" occurs 5 times in China
    [[1, 5, 0, 1, 1, 0], [0, 1, 1, 0, 0, 1]]
    """

    classes: tuple[str, ...]
    vocabulary: tuple[str, ...]
    class_count_: np.ndarray
    document_count_: np.ndarray
    word_count_: np.ndarray

    @classmethod
    def from_matrix(cls, matrix: sp.csr_matrix, class_index: np.ndarray, classes, vocabulary) -> "ClassStatistics":
        """Count the classes of a document × word matrix.

        Parameters
        ----------
        matrix : scipy.sparse matrix or array-like of shape (n_documents, n_words)
            Word counts: whole numbers, 0 or more. Never modified.
        class_index : numpy.ndarray of shape (n_documents,)
            ``class_index[i]`` is document i's class number, from 0 to n_classes − 1.
        classes : sequence of str
            The class names, in class-number order.
        vocabulary : sequence of str
            The words, one per column.

        Returns
        -------
        ClassStatistics
            n_k, n_jk and c_jk, int64 for integer counts.

        Raises
        ------
        ValueError
            If ``matrix`` is not one of counts (negative, fractional, not finite, above 10¹⁵) or has a number of
            columns other than ``len(vocabulary)``, or if ``class_index`` does not give one valid class number per
            document.
        """
        n_classes = len(classes)
        matrix = count_matrix(matrix, len(vocabulary), "the training matrix")
        class_index = checked_class_numbers(class_index, matrix.shape[0], n_classes)
        document_count, word_count = _class_sums(matrix, class_index, n_classes)
        return cls(
            classes=tuple(classes),
            vocabulary=tuple(vocabulary),
            class_count_=class_counts(class_index, n_classes),
            document_count_=document_count,
            word_count_=word_count,
        )

    @cached_property
    def n_documents(self) -> int:
        return int(self.class_count_.sum())

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    @property
    def n_words(self) -> int:
        return len(self.vocabulary)

    def feature_count(self, binary: bool) -> np.ndarray:
        """The counts a multinomial model uses: occurrences, or documents when features are binary.

        Parameters
        ----------
        binary : bool
            Whether each word counts once per document.

        Returns
        -------
        numpy.ndarray of shape (n_classes, n_words)
            ``document_count_`` (n_jk) when ``binary``, else ``word_count_`` (c_jk).
        """
        return self.document_count_ if binary else self.word_count_

    @cached_property
    def observed(self) -> "ObservedPairs":
        """The (class, word) pairs seen at least once: a small fraction of n_classes × n_words on a
        real corpus. Parameters are computed there; every unseen pair of a class shares one value.
        Ordered by word, then class, so that they form a sparse (n_words, n_classes) matrix as they are."""
        words, classes = np.nonzero(self.document_count_.T)
        return ObservedPairs(
            classes=classes,
            words=words,
            word_indptr=np.concatenate(([0], np.cumsum(np.bincount(words, minlength=self.n_words)))),
            document_count=self.document_count_[classes, words],
            word_count=self.word_count_[classes, words],
            per_class=np.bincount(classes, minlength=self.n_classes),
        )

    @cached_property
    def alphabetical_rank(self) -> np.ndarray:
        """Each word's place in the alphabetical (code point) order of the vocabulary, 0 … n_words − 1, read-only.
        A bag of words' vocabulary is alphabetical already (then this is 0, 1, 2, …); found once per statistics,
        without a fixed-width string array of the vocabulary (94 MB on 20 Newsgroups, whose longest "word" has 180
        characters)."""
        words = np.empty(len(self.vocabulary), dtype=object)
        words[:] = self.vocabulary
        if len(words) < 2 or bool((words[:-1] < words[1:]).all()):
            rank = np.arange(len(words), dtype=np.int64)
        else:
            rank = np.empty(len(words), dtype=np.int64)
            rank[np.argsort(words, kind="stable")] = np.arange(len(words))
        rank.flags.writeable = False
        return rank

    @cached_property
    def feature_total(self) -> dict[bool, np.ndarray]:
        """Σ_j of the multinomial counts per class, for counts (False) and for presence (True)."""
        return {False: self.word_count_.sum(axis=1), True: self.document_count_.sum(axis=1)}

    @cached_property
    def word_total(self) -> dict[bool, np.ndarray]:
        """Σ_k of the multinomial counts per word (T_j, over every class), for counts (False) and for presence (True),
        shape (n_words,): summed over the observed pairs only, which are ordered by word, in whole numbers."""
        pairs, totals = self.observed, {}
        for binary in (False, True):
            running = np.concatenate(([0], np.cumsum(pairs.count(binary), dtype=np.int64)))
            totals[binary] = running[pairs.word_indptr[1:]] - running[pairs.word_indptr[:-1]]
        return totals


@dataclass(frozen=True, eq=False)
class ObservedPairs:
    """The non-zero entries of the class statistics, as parallel arrays of length n_observed."""

    classes: np.ndarray
    words: np.ndarray
    word_indptr: np.ndarray  # the pairs of word j are positions word_indptr[j]:word_indptr[j + 1]
    document_count: np.ndarray
    word_count: np.ndarray
    per_class: np.ndarray  # observed words per class, shape (n_classes,)

    def count(self, binary: bool) -> np.ndarray:
        return self.document_count if binary else self.word_count
