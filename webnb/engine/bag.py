"""The bag of words: a sparse documents × words matrix of counts over an alphabetical vocabulary.

Built the way scikit-learn's ``CountVectorizer._count_vocab`` builds it (CSR from ``indptr``/``indices``/
``data``), never dense. Pruning follows scikit-learn too: first ``min_df``/``max_df`` on document
frequencies, then ``max_features`` keeps the most frequent words. Frequency means total occurrences,
or the number of documents containing the word when features are binary (scikit-learn binarises before
it ranks). Ties are broken alphabetically (a stable sort over the alphabetical vocabulary), so the same
corpus always gives the same vocabulary.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from numbers import Integral

import numpy as np
import scipy.sparse as sp

from .analysis import Analyzer
from .corpus import CorpusError


class EmptyVocabularyError(CorpusError):
    pass


@dataclass(frozen=True)
class VocabularyOptions:
    """``min_df``/``max_df``: an int is a number of documents, a float a fraction of them."""

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

    def describe(self) -> dict:
        return {"min_df": self.min_df, "max_df": self.max_df, "max_features": self.max_features, "binary": self.binary}


PROGRESS_EVERY = 1000  # documents between two progress reports


def _count(texts, analyzer: Analyzer, lookup, progress=None) -> tuple[np.ndarray, np.ndarray]:
    """Column ids of every feature occurrence, and the row pointer. ``lookup`` maps a feature to its
    column (or to -1 for a feature outside a fixed vocabulary). ``progress(done, total)``, if given, is
    called every ``PROGRESS_EVERY`` documents so that a caller can show how far counting has got."""
    column_ids: list[int] = []
    indptr = [0]
    extend, append = column_ids.extend, indptr.append
    for done, text in enumerate(texts, 1):
        extend(map(lookup, analyzer(text)))
        append(len(column_ids))
        if progress is not None and done % PROGRESS_EVERY == 0:
            progress(done, len(texts))
    return np.array(column_ids, dtype=np.int64), np.array(indptr, dtype=np.int64)


def _csr(column_ids: np.ndarray, indptr: np.ndarray, n_columns: int) -> sp.csr_matrix:
    """A CSR matrix of counts from one entry per occurrence (duplicates summed, indices sorted)."""
    data = np.ones(len(column_ids), dtype=np.int64)
    matrix = sp.csr_matrix((data, column_ids.astype(np.int32), indptr), shape=(len(indptr) - 1, n_columns))
    matrix.sum_duplicates()
    return matrix


class BagOfWords:
    """A fitted vocabulary: turns texts into count vectors over ``vocabulary`` (sorted alphabetically)."""

    def __init__(self, analyzer: Analyzer, vocabulary: tuple[str, ...], options: VocabularyOptions):
        self.analyzer = analyzer
        self.vocabulary = vocabulary
        self.options = options
        self.index = {word: j for j, word in enumerate(vocabulary)}

    def __len__(self) -> int:
        return len(self.vocabulary)

    @classmethod
    def fit_transform(cls, texts, analyzer: Analyzer, options: VocabularyOptions | None = None, progress=None):
        """Learn the vocabulary of ``texts`` and return ``(bag, X)``, X of shape (n_docs, n_words)."""
        options = options or VocabularyOptions()
        texts = list(texts)
        growing: defaultdict[str, int] = defaultdict()
        growing.default_factory = growing.__len__  # a new feature gets the next column id
        column_ids, indptr = _count(texts, analyzer, growing.__getitem__, progress)
        if not growing:
            raise EmptyVocabularyError(
                "No words were found: every document is empty, or made only of stop words, one-letter words or "
                "punctuation. Check the text column, or relax the analysis options (stop words, token pattern)."
            )
        # Renumber the columns alphabetically before building the matrix, so it is built only once.
        words = list(growing)
        order = sorted(range(len(words)), key=words.__getitem__)
        alphabetical = np.empty(len(words), dtype=np.int64)
        alphabetical[order] = np.arange(len(words))
        matrix = _csr(alphabetical[column_ids], indptr, len(words))
        vocabulary = tuple(words[j] for j in order)
        matrix, vocabulary = _prune(matrix, vocabulary, options)
        return cls(analyzer, vocabulary, options), matrix

    def transform(self, texts) -> sp.csr_matrix:
        """Count vectors of new texts; words outside the vocabulary are ignored."""
        get = self.index.get
        column_ids, indptr = _count(list(texts), self.analyzer, lambda word: get(word, -1))
        known = column_ids >= 0
        if not known.all():
            # Drop unknown words and shift the row pointer by how many were dropped before it.
            dropped_before = np.concatenate(([0], np.cumsum(~known)))
            indptr = indptr - dropped_before[indptr]
            column_ids = column_ids[known]
        return _csr(column_ids, indptr, len(self.vocabulary))


def document_frequency(matrix: sp.csr_matrix) -> np.ndarray:
    """Number of documents containing each word, shape (n_words,)."""
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
    new_column = np.full(len(vocabulary), -1, dtype=np.int64)
    new_column[kept_columns] = np.arange(len(kept_columns))
    columns = new_column[matrix.indices]
    stays = columns >= 0
    rows = np.repeat(np.arange(n_documents), np.diff(matrix.indptr))
    row_lengths = np.bincount(rows[stays], minlength=n_documents)
    indptr = np.concatenate(([0], np.cumsum(row_lengths)))
    pruned = sp.csr_matrix(
        (matrix.data[stays], columns[stays].astype(np.int32), indptr), shape=(n_documents, len(kept_columns))
    )
    return pruned, tuple(vocabulary[j] for j in kept_columns)
