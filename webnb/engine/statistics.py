"""Sufficient statistics: the per-class counts that every Naive Bayes parameter is derived from.

Kept once per corpus, so a new α, a new prior or the other model derives its parameters from these
arrays without reading the corpus again.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sp


@dataclass(frozen=True, eq=False)
class ClassStatistics:
    """Counts per class.

    ``class_count_``: n_k, documents in class k, shape (n_classes,).
    ``document_count_``: n_jk, documents of class k that contain word j, shape (n_classes, n_words).
    ``word_count_``: c_jk, occurrences of word j in the documents of class k, shape (n_classes, n_words).
    """

    classes: tuple[str, ...]
    vocabulary: tuple[str, ...]
    class_count_: np.ndarray
    document_count_: np.ndarray
    word_count_: np.ndarray

    @classmethod
    def from_matrix(cls, matrix: sp.csr_matrix, class_index: np.ndarray, classes, vocabulary) -> "ClassStatistics":
        """``matrix`` holds counts (n_docs, n_words); ``class_index[i]`` is document i's class number."""
        n_classes = len(classes)
        membership = sp.csr_matrix(
            (np.ones(len(class_index), dtype=np.int64), (class_index, np.arange(len(class_index)))),
            shape=(n_classes, matrix.shape[0]),
        )
        present = matrix.copy()
        present.data = np.ones_like(present.data)
        return cls(
            classes=tuple(classes),
            vocabulary=tuple(vocabulary),
            class_count_=np.bincount(class_index, minlength=n_classes).astype(np.int64),
            document_count_=(membership @ present).toarray(),
            word_count_=(membership @ matrix).toarray(),
        )

    @property
    def n_documents(self) -> int:
        return int(self.class_count_.sum())

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    @property
    def n_words(self) -> int:
        return len(self.vocabulary)

    def feature_count(self, binary: bool) -> np.ndarray:
        """The counts a multinomial model uses: occurrences, or documents when features are binary."""
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
    def feature_total(self) -> dict[bool, np.ndarray]:
        """Σ_j of the multinomial counts per class, for counts (False) and for presence (True)."""
        return {False: self.word_count_.sum(axis=1), True: self.document_count_.sum(axis=1)}


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
