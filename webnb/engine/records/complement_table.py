"""What Complement Naive Bayes learned, one page of words at a time: for each word its count over every class (T_j)
and, per class, the count in that class (c_jk), the complement's estimate θ̃_jk = (T_j − c_jk + α) / (Σ_j (T_j − c_jk)
+ |V|·α) and the weight w_jk = −log θ̃_jk.

The weights are not probabilities: for a class, its θ̃ sum to 1 over the vocabulary, but they describe every *other*
class's documents, and a document's score Σ_j x_j · w_jk is no log-probability of anything. Read from the kept
counts' observed pairs: a page pays for its rows only, whatever the vocabulary's size.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from webnb.engine.records.parameter_table import parameter_pages, words_per_page
from webnb.engine.shared.plain import number, plain, ratio_text
from webnb.engine.text.complement import ComplementNaiveBayes


class ComplementCell(NamedTuple):
    """One (word, class) cell."""

    count: int  # c_jk: the word's count in this class (documents holding it, with binary features)
    ratio: tuple  # θ̃_jk unreduced: (T_j − c_jk + α, the class's complement total)
    weight: float  # w_jk = −log θ̃_jk; +∞ when θ̃ is 0 (α = 0 and no other class has the word)

    @property
    def theta(self) -> float:
        return float(self.ratio[0]) / float(self.ratio[1])

    def to_dict(self) -> dict:
        return {"count": self.count, "ratio": ratio_text(self.ratio), "theta": number(self.theta),
                "weight": number(self.weight)}


class ComplementRow(NamedTuple):
    word: str
    total: int  # T_j over every class
    cells: tuple[ComplementCell, ...]  # one per class, in the model's class order

    def to_dict(self) -> dict:
        return plain(self)


@dataclass(frozen=True)
class ComplementTable:
    """One page of a Complement Naive Bayes model's weights.

    Parameters
    ----------
    classes : tuple of str
        The classes, in the model's order.
    alpha : Fraction
        The pseudo-count added to every complement count.
    binary : bool
        Whether a word counts once per document.
    vocabulary_size : int
        |V|.
    class_totals : tuple of int
        Σ_j c_jk per class: the words of each class.
    complement_totals : tuple
        The denominator of each class's θ̃: Σ_j (T_j − c_jk) + |V|·α, the other classes' words plus the pseudo-counts.
    rows : tuple of ComplementRow
        The words of this page.
    page, pages : int
        This page and how many there are.
    query : str
        The substring the words shown contain ("" for all).
    n_matching : int
        How many words contain ``query``.
    infinite_cells : int
        Cells of the whole table (every word, every class) whose weight is +∞: with α = 0, each word that occurs in
        one class only, in that class.
    """

    classes: tuple[str, ...]
    alpha: object
    binary: bool
    vocabulary_size: int
    class_totals: tuple[int, ...]
    complement_totals: tuple
    rows: tuple[ComplementRow, ...]
    page: int
    pages: int
    query: str
    n_matching: int
    infinite_cells: int = 0

    def to_dict(self) -> dict:
        alpha = self.alpha
        return {
            "model": "complement",
            "alpha": str(alpha) if alpha.denominator != 1 else int(alpha),
            "binary": self.binary,
            "classes": list(self.classes),
            "vocabulary_size": self.vocabulary_size,
            "class_totals": dict(zip(self.classes, self.class_totals, strict=True)),
            "complement_totals": {label: str(total) for label, total in zip(self.classes, self.complement_totals,
                                                                            strict=True)},
            "words": [row.to_dict() for row in self.rows],
            "page": self.page,
            "pages": self.pages,
            "query": self.query,
            "matching_words": self.n_matching,
            "infinite_cells": self.infinite_cells,
        }


def complement_totals(model: ComplementNaiveBayes) -> tuple[tuple[int, ...], tuple]:
    """Each class's words (Σ_j c_jk) and the denominator of its θ̃: Σ_j (T_j − c_jk) + |V|·α."""
    stats = model.statistics
    class_totals = tuple(int(total) for total in stats.feature_total[model.binary])
    everything = sum(class_totals)
    return class_totals, tuple(everything - total + stats.n_words * model._alpha_term for total in class_totals)


def word_cells(model: ComplementNaiveBayes, word_index: int, totals) -> tuple[int, tuple[ComplementCell, ...]]:
    """Word j's count over every class (T_j) and its cell in each class: c_jk, θ̃_jk unreduced and w_jk, read from
    the word's observed pairs (``totals``: ``complement_totals(model)[1]``)."""
    stats, alpha = model.statistics, model._alpha_term
    pairs = stats.observed
    counts = [0] * stats.n_classes
    pair_counts = pairs.count(model.binary)
    for position in range(pairs.word_indptr[word_index], pairs.word_indptr[word_index + 1]):
        counts[int(pairs.classes[position])] = int(pair_counts[position])
    total = int(stats.word_total[model.binary][word_index])
    cells = []
    for k, count in enumerate(counts):
        ratio = (total - count + alpha, totals[k])
        log_theta = -math.inf if ratio[0] == 0 else math.log(float(ratio[0]) / float(ratio[1]))
        # normalised weights (scikit-learn's norm) divide by the class's Σ_j log θ̃; plain ones are −log θ̃
        weight = log_theta / float(model.log_normaliser_[k]) if model.norm else -log_theta
        cells.append(ComplementCell(count, ratio, weight))
    return total, tuple(cells)


def complement_table(model: ComplementNaiveBayes, words: np.ndarray, *, query: str = "",
                     page: int = 1) -> ComplementTable:
    """The page ``page`` of the rows of ``words`` (vocabulary numbers, in the order shown).

    Parameters
    ----------
    model : ComplementNaiveBayes
        A fitted model.
    words : numpy.ndarray of int
        The words to page through (all of the vocabulary, or those containing ``query``).
    query : str, default ""
        What the words shown were filtered by, said on the page.
    page : int, default 1
        The page, from 1; past the last, the last.

    Returns
    -------
    ComplementTable

    Examples
    --------
    >>> import numpy as np
    >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
    >>> from webnb.engine.text.complement import fit_complement_naive_bayes
    >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
    >>> table = complement_table(fit_complement_naive_bayes(training.statistics, 1), np.arange(6))
    >>> table.complement_totals  # China's complement is document 4's 3 words + 6; Japan's, the 8 words of 1–3 + 6
    (9, 14)
    >>> row = table.rows[1]  # "chinese": 5 times in China, once in Japan
    >>> row.word, row.total, [(cell.count, cell.ratio) for cell in row.cells]
    ('chinese', 6, [(5, (2, 9)), (1, (6, 14))])
    >>> round(row.cells[0].weight, 6)  # −log(2/9): a China document's "chinese" adds this to China's score
    1.504077
    """
    stats, binary = model.statistics, model.binary
    n_classes = stats.n_classes
    per_page = words_per_page(n_classes)
    pages = parameter_pages(n_classes, len(words))
    page = min(max(page, 1), pages)
    shown = np.asarray(words, dtype=np.int64)[(page - 1) * per_page: page * per_page]
    class_totals, totals = complement_totals(model)
    rows = tuple(ComplementRow(stats.vocabulary[j], *word_cells(model, j, totals)) for j in shown.tolist())
    # θ̃ = 0 needs α = 0 and no other class with the word: a word whose observed pairs are a single class's
    infinite_cells = int((np.diff(stats.observed.word_indptr) == 1).sum()) if model.alpha == 0 else 0
    return ComplementTable(
        stats.classes, model.alpha, binary, stats.n_words, class_totals, totals,  # the model
        rows, page, pages, query, len(words), infinite_cells,  # this page of it
    )
