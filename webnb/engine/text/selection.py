"""Feature selection by mutual information and χ² (Manning, Raghavan & Schütze, *Introduction to Information
Retrieval*, §13.5): how much knowing whether a document holds word t tells about whether it is in class c.

Both measures read the 2 × 2 table of document counts of one word and one class (that class against all the others):

                     in class c    not in c
    holds t             N11          N10
    lacks t             N01          N00

    I(U; C) = Σ over the four cells of  N_ij/N · log2( N · N_ij / (N_i· · N_·j) )   (a cell of 0 adds 0)
    X²      = N · (N11 · N00 − N10 · N01)² / ((N11 + N01) · (N11 + N10) · (N10 + N00) · (N01 + N00))

The tables of every word and class come from the kept class statistics (documents of each class holding each word),
without reading the corpus again.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from webnb.engine.shared.numbers import whole_number
from webnb.engine.text.statistics import ClassStatistics

MEASURES = ("mutual_information", "chi_square", "frequency")


@dataclass(frozen=True)
class ContingencyTable:
    """The 2 × 2 table of document counts of one word and one class.

    Parameters
    ----------
    n11 : int
        Documents of the class that hold the word.
    n10 : int
        Documents of other classes that hold the word.
    n01 : int
        Documents of the class that lack the word.
    n00 : int
        Documents of other classes that lack the word.

    Examples
    --------
    IIR's example: the word "export" and the class poultry in Reuters-RCV1.

    >>> table = ContingencyTable(n11=49, n10=27_652, n01=141, n00=774_106)
    >>> round(table.mutual_information, 7)
    0.0001105
    >>> round(float(table.chi_square))
    284
    """

    n11: int
    n10: int
    n01: int
    n00: int

    def __post_init__(self):
        for name in ("n11", "n10", "n01", "n00"):
            object.__setattr__(self, name, whole_number(getattr(self, name), name))
        if self.n == 0:
            raise ValueError("the table holds no document: N = 0")

    @property
    def n(self) -> int:
        return self.n11 + self.n10 + self.n01 + self.n00

    def cells(self) -> tuple[tuple[str, int, int, int], ...]:
        """(name, N_ij, row total N_i·, column total N_·j) of each cell, in the order IIR's formula sums them."""
        holds, lacks = self.n11 + self.n10, self.n01 + self.n00
        in_class, not_in_class = self.n11 + self.n01, self.n10 + self.n00
        return (("11", self.n11, holds, in_class), ("01", self.n01, lacks, in_class),
                ("10", self.n10, holds, not_in_class), ("00", self.n00, lacks, not_in_class))

    def mutual_information_terms(self) -> tuple[float, ...]:
        """Each cell's N_ij/N · log2(N · N_ij / (N_i· · N_·j)), in the order of ``cells``; 0 for a cell of 0."""
        n = self.n
        return tuple(
            0.0 if count == 0 else count / n * (math.log2(n * count) - math.log2(row * column))
            for _, count, row, column in self.cells()
        )

    @property
    def mutual_information(self) -> float:
        """I(U; C) in bits: 0 when the word and the class are independent, at most 1."""
        return math.fsum(self.mutual_information_terms())

    @property
    def expected(self) -> tuple[Fraction, ...]:
        """E_ij = N_i· · N_·j / N for each cell, in the order of ``cells``: the count if word and class were
        independent."""
        return tuple(Fraction(row * column, self.n) for _, _, row, column in self.cells())

    @property
    def chi_square(self) -> Fraction | None:
        """X² exactly, as a fraction; None when a row or a column of the table is empty (0/0: the word is in every
        document or in none, or the class holds every document or none)."""
        n11, n10, n01, n00 = self.n11, self.n10, self.n01, self.n00
        denominator = (n11 + n01) * (n11 + n10) * (n10 + n00) * (n01 + n00)
        if denominator == 0:
            return None
        return Fraction(self.n * (n11 * n00 - n10 * n01) ** 2, denominator)


@dataclass(frozen=True)
class WordClassTables:
    """The 2 × 2 tables of every word against every class, as arrays of shape (n_classes, n_words).

    Parameters
    ----------
    statistics : ClassStatistics
        The counts they are read from.
    n11, n10, n01, n00 : numpy.ndarray of shape (n_classes, n_words), int64
        As in ``ContingencyTable``, for class k (row) and word j (column).
    """

    statistics: ClassStatistics
    n11: np.ndarray
    n10: np.ndarray
    n01: np.ndarray
    n00: np.ndarray

    @classmethod
    def of(cls, statistics: ClassStatistics) -> "WordClassTables":
        """Every word's table against every class, from the documents of each class holding each word.

        Parameters
        ----------
        statistics : ClassStatistics
            The class statistics of a training set.

        Returns
        -------
        WordClassTables

        Examples
        --------
        >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
        >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
        >>> tables = WordClassTables.of(training.statistics)
        >>> tables.table(training.classes.index("Japan"), training.bag.index["chinese"])
        ContingencyTable(n11=1, n10=3, n01=0, n00=0)
        """
        holds = statistics.document_count_.astype(np.int64)  # n_jk
        in_class = statistics.class_count_.astype(np.int64)[:, None]  # n_k
        holds_anywhere = holds.sum(axis=0)[None, :]  # documents holding word j
        n = int(statistics.class_count_.sum())
        n10 = holds_anywhere - holds
        n01 = in_class - holds
        n00 = n - in_class - n10
        return cls(statistics, holds, n10, n01, n00)

    def table(self, class_index: int, word_index: int) -> ContingencyTable:
        """The table of word j against class k.

        Parameters
        ----------
        class_index : int
            k: the documents of class k against all others.
        word_index : int
            j: the documents that contain word j against those that do not.

        Returns
        -------
        ContingencyTable
        """
        k, j = class_index, word_index
        return ContingencyTable(int(self.n11[k, j]), int(self.n10[k, j]), int(self.n01[k, j]), int(self.n00[k, j]))

    @property
    def mutual_information(self) -> np.ndarray:
        """I(U; C) of every class (row) and word (column), in bits, as ``ContingencyTable.mutual_information``."""
        n = float(self.statistics.n_documents)
        holds, lacks = self.n11 + self.n10, self.n01 + self.n00
        in_class, not_in_class = self.n11 + self.n01, self.n10 + self.n00
        total = np.zeros(self.n11.shape)
        for count, row, column in ((self.n11, holds, in_class), (self.n01, lacks, in_class),
                                   (self.n10, holds, not_in_class), (self.n00, lacks, not_in_class)):
            with np.errstate(divide="ignore", invalid="ignore"):
                term = count / n * (np.log2(n * count) - np.log2(row.astype(float) * column))
            total += np.where(count == 0, 0.0, term)
        return total

    @property
    def chi_square(self) -> np.ndarray:
        """X² of every class (row) and word (column) as float64; NaN where the table has an empty row or column."""
        n11, n10, n01, n00 = (a.astype(float) for a in (self.n11, self.n10, self.n01, self.n00))
        n = n11 + n10 + n01 + n00
        denominator = (n11 + n01) * (n11 + n10) * (n10 + n00) * (n01 + n00)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(denominator == 0, np.nan, n * (n11 * n00 - n10 * n01) ** 2 / denominator)

    def scores(self, measure: str) -> np.ndarray:
        """The measure of every class and word, shape (n_classes, n_words): "mutual_information", "chi_square"
        (an empty row or column of a table scores 0) or "frequency" (documents of the class holding the word).

        Parameters
        ----------
        measure : {"mutual_information", "chi_square", "frequency"}

        Returns
        -------
        numpy.ndarray of shape (n_classes, n_words)

        Raises
        ------
        ValueError
            For another measure.
        """
        if measure == "mutual_information":
            return self.mutual_information
        if measure == "chi_square":
            return np.nan_to_num(self.chi_square, nan=0.0)
        if measure == "frequency":
            return self.n11.astype(float)
        raise ValueError(f"measure must be one of {MEASURES}, not {measure!r}")

    def top_words(self, measure: str, count: int) -> np.ndarray:
        """The ``count`` words with the largest measure for any class (each word's best class decides its place), in
        that order; ties in vocabulary order.

        Parameters
        ----------
        measure : {"mutual_information", "chi_square", "frequency"}
        count : int
            How many words to keep, 1 or more (all of them when it exceeds the vocabulary).

        Returns
        -------
        numpy.ndarray of int
            Word indices.

        Raises
        ------
        ValueError
            For another measure, or a count below 1.

        Examples
        --------
        >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
        >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
        >>> tables = WordClassTables.of(training.statistics)
        >>> [training.vocabulary[j] for j in tables.top_words("chi_square", 3)]
        ['japan', 'tokyo', 'beijing']
        """
        whole_number(count, "count", least=1)
        best = self.scores(measure).max(axis=0)
        return np.argsort(-best, kind="stable")[:count]


@dataclass(frozen=True)
class SelectionCurve:
    """Accuracy on test documents of a model that keeps only the top k words by one measure, for several k.

    Parameters
    ----------
    measure : str
        "mutual_information", "chi_square" or "frequency".
    sizes : tuple of int
        The numbers of words kept, ascending.
    accuracies : tuple of float
        The test accuracy for each of ``sizes`` (a document the model cannot decide counts as wrong).
    """

    measure: str
    sizes: tuple[int, ...]
    accuracies: tuple[float, ...]


def kept_statistics(statistics: ClassStatistics, words) -> ClassStatistics:
    """``statistics`` restricted to the vocabulary ``words`` (indices, kept in vocabulary order).

    Parameters
    ----------
    statistics : ClassStatistics
        The counts of the whole vocabulary.
    words : array-like of int
        The word indices to keep.

    Returns
    -------
    ClassStatistics
        The same classes and documents, over the kept words only.

    Examples
    --------
    >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
    >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
    >>> kept = kept_statistics(training.statistics, [training.bag.index["tokyo"], training.bag.index["chinese"]])
    >>> kept.vocabulary, kept.word_count_.tolist()
    (('chinese', 'tokyo'), [[5, 0], [1, 1]])
    """
    columns = np.unique(np.asarray(words, dtype=np.int64))
    return ClassStatistics(
        classes=statistics.classes,
        vocabulary=tuple(statistics.vocabulary[j] for j in columns.tolist()),
        class_count_=statistics.class_count_,
        document_count_=statistics.document_count_[:, columns],
        word_count_=statistics.word_count_[:, columns],
    )


def selection_curves(statistics: ClassStatistics, test_matrix, test_labels, sizes, *,
                     measures=MEASURES, kind: str = "multinomial", alpha=1) -> tuple[SelectionCurve, ...]:
    """For each measure, the test accuracy of a model on the top k words by that measure, for each k of ``sizes``
    (IIR's figure 13.8): the words are ranked once per measure, from the kept class statistics.

    Parameters
    ----------
    statistics : ClassStatistics
        The training counts.
    test_matrix : scipy.sparse matrix of shape (n_test, n_words)
        The test documents over the same vocabulary.
    test_labels : sequence of str
        Their true classes.
    sizes : iterable of int
        How many words to keep, each 1 or more; above the vocabulary's size, all of it.
    measures : iterable of str, default all three
        Of ``MEASURES``.
    kind : {"multinomial", "bernoulli"}, default "multinomial"
        The model fitted on the kept words.
    alpha : str, int, float or Fraction, default 1
        Its pseudo-count.

    Returns
    -------
    tuple of SelectionCurve
        One per measure, in the order asked.

    Raises
    ------
    ValueError
        For an unknown measure, a size below 1, labels of another length than the test matrix, or model settings
        ``fit_naive_bayes`` refuses.
    CorpusError
        For a multinomial model with α = 0 and a class with none of the kept words.

    Examples
    --------
    >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
    >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
    >>> test = training.transform(["Chinese Chinese Chinese Tokyo Japan", "Tokyo Japan"])
    >>> [c.accuracies for c in selection_curves(training.statistics, test, ["China", "Japan"], [1, 6])]
    [(0.5, 1.0), (0.5, 1.0), (0.5, 1.0)]
    """
    from webnb.engine.text.models import fit_naive_bayes

    tables = WordClassTables.of(statistics)
    labels = np.asarray(list(test_labels), dtype=object)
    if len(labels) != test_matrix.shape[0]:
        raise ValueError(f"{len(labels)} labels for {test_matrix.shape[0]} test documents: one label per document")
    sizes = sorted({min(whole_number(size, "a number of words", least=1), statistics.n_words) for size in sizes})
    test_matrix = test_matrix.tocsc()
    curves = []
    for measure in measures:
        ranking = tables.top_words(measure, statistics.n_words)
        accuracies = []
        for size in sizes:
            words = np.sort(ranking[:size])
            model = fit_naive_bayes(kept_statistics(statistics, words), kind, alpha)
            predicted = np.asarray(model.predict(test_matrix[:, words].tocsr()), dtype=object)
            accuracies.append(float(np.mean(predicted == labels)) if len(labels) else 0.0)
        curves.append(SelectionCurve(measure, tuple(sizes), tuple(accuracies)))
    return tuple(curves)
