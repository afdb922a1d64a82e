"""The table of what a model learned: the priors φ, and one page of the word probabilities ψ (Bernoulli) or θ
(multinomial), one row per word and one cell per class.

A vocabulary of 100,000 words in 20 classes has two million cells; a page shows a few hundred. ``WholeTable`` knows
what the page needs from all of them (how many cells break the product, the row orders) and is worth keeping
between requests; ``parameter_table`` builds the ``ParameterTable`` of one page from it, paying for the rows shown.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import NamedTuple

import numpy as np

from webnb.engine.shared.numbers import is_whole, parse_whole
from webnb.engine.shared.paging import page_count
from webnb.engine.shared.plain import fraction_text, number, ratio_text
from webnb.engine.text.models import NaiveBayes

WORDS_PER_PAGE = 25
CELLS_PER_PAGE = 160  # with many classes, fewer words a page (8 words of 20 classes), so a page stays light


def words_per_page(n_classes: int) -> int:
    return max(8, min(WORDS_PER_PAGE, CELLS_PER_PAGE // n_classes))


def parameter_pages(n_classes: int, n_words: int) -> int:
    """How many pages the rows of ``n_words`` words take (at least one, which may be empty).

    A page shows 25 words, or fewer with many classes (about 160 cells, at least 8 words).

    Parameters
    ----------
    n_classes : int
        The model's classes.
    n_words : int
        Words to show.

    Returns
    -------
    int
        Pages of words, at least 1.

    Examples
    --------
    >>> parameter_pages(2, 100), parameter_pages(20, 100)
    (4, 13)
    """
    return page_count(n_words, words_per_page(n_classes))


class Cell(NamedTuple):
    """One (word, class) cell. A tuple, so that the template unpacks it instead of looking up attributes: a page of
    20 classes has 160 cells."""

    ratio: str | None  # unreduced, as ``NaiveBayes.feature_ratio`` gives it ("0/3"); None under the ε-floor
    flag: str  # "0" for an exact 0, "1" for a Bernoulli ψ = 1 (each breaks the product), else ""
    value: float

    def to_dict(self) -> dict:
        return {"ratio": self.ratio, "value": number(self.value), "zero": self.flag == "0", "one": self.flag == "1"}


class Row(NamedTuple):
    index: int  # the word's column in the vocabulary
    word: str
    cells: tuple[Cell, ...]  # one per class, in the model's class order

    def to_dict(self) -> dict:
        return {"word": self.word, "per_class": [cell.to_dict() for cell in self.cells]}


class Prior(NamedTuple):
    label: str
    count: int  # training documents of the class
    ratio: tuple[int, int] | None  # (documents of the class, all documents) when the prior is learned
    exact: Fraction
    value: float

    def to_dict(self) -> dict:
        return {"class": self.label, "documents": self.count, "exact": fraction_text(self.exact), "value": self.value}


def _class_sorted_by(sort: str, n_classes: int) -> int | None:
    """The class k of the sort "class-<k>" (by that class's probability), if there is such a class."""
    digits = sort.removeprefix("class-")
    if digits == sort or not is_whole(digits):  # signs and spaces, which parse_whole would strip, are refused
        return None
    try:
        return parse_whole(digits, low=0, high=n_classes - 1, what="The class")
    except ValueError:
        return None


class WholeTable:
    """What a page needs from every cell of a model's ψ or θ table: how many cells break (exactly 0, or 1 for
    Bernoulli) and the row orders over the whole vocabulary.

    Read from the model's sparse parameters (one value per class for the words it never saw, one per observed pair)
    and computed when first asked for, so that an app keeping one per model pays for the rows a request shows, not
    K × V. Orders are kept as they are asked for.

    Parameters
    ----------
    model : NaiveBayes
        The model whose table is shown.

    Attributes
    ----------
    breaking_cells : int
        Cells exactly 0 (or 1 for Bernoulli): each makes the product 0 for some review.
    breaking_words : numpy.ndarray of bool, shape (n_words,)
        Whether each word has a breaking cell in some class.
    orders : dict of str to numpy.ndarray
        The orders computed so far, by sort.

    Examples
    --------
    >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
    >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
    >>> table = WholeTable(training.model("multinomial", 0))  # α = 0: each class never saw some words
    >>> table.breaking_cells, [training.vocabulary[j] for j in table.order("zeros")]
    (5, ['beijing', 'japan', 'macao', 'shanghai', 'tokyo', 'chinese'])
    """

    def __init__(self, model: NaiveBayes):
        self.model = model
        self.orders: dict[str, np.ndarray] = {}  # "zeros" or "class-<k>": every word, in that order

    def _breaking(self, values: np.ndarray) -> np.ndarray:
        return (values == 0) | ((values == 1) if self.model.kind == "bernoulli" else False)

    @cached_property
    def breaking_cells(self) -> int:
        pairs = self.model.statistics.observed
        unobserved_words = self.model.statistics.n_words - pairs.per_class
        return int(unobserved_words[self._breaking(self.model.unobserved_prob)].sum()
                   + self._breaking(self.model.observed_prob).sum())

    @cached_property
    def breaking_words(self) -> np.ndarray:
        """Whether each word has a breaking cell in some class, shape (n_words,)."""
        model, pairs = self.model, self.model.statistics.observed
        breaking = np.zeros(model.statistics.n_words, dtype=bool)
        breaking[pairs.words[self._breaking(model.observed_prob)]] = True
        # A class whose unseen words break: every word it did not see breaks.
        unseen_break = self._breaking(model.unobserved_prob)
        if unseen_break.any():
            seen_by_those = np.bincount(pairs.words[unseen_break[pairs.classes]], minlength=len(breaking))
            breaking |= seen_by_those < unseen_break.sum()
        return breaking

    def row(self, k: int) -> np.ndarray:
        """Class k's ψ or θ for every word.

        Parameters
        ----------
        k : int
            The class number.

        Returns
        -------
        numpy.ndarray of shape (n_words,)
            ψ_jk or θ_jk for every word j, in vocabulary order.
        """
        model, pairs = self.model, self.model.statistics.observed
        values = np.full(model.statistics.n_words, model.unobserved_prob[k])
        in_class = pairs.classes == k
        values[pairs.words[in_class]] = model.observed_prob[in_class]
        return values

    def order(self, sort: str) -> np.ndarray | None:
        """Every word, in the order ``sort`` asks for: "zeros" puts the words with a breaking cell first, "class-<k>"
        sorts by class k's probability, largest first. None for alphabetical (vocabulary) order, which is also what
        any other ``sort`` gets.

        Parameters
        ----------
        sort : str
            "zeros", "class-<k>" for a class number k, or anything else for alphabetical order.

        Returns
        -------
        numpy.ndarray of int, shape (n_words,), or None
            Word numbers; equal keys keep vocabulary order.
        """
        if sort == "zeros":
            key = "zeros"
        elif (k := _class_sorted_by(sort, len(self.model.classes))) is not None:
            key = f"class-{k}"
        else:
            return None
        if key not in self.orders:
            if key == "zeros":
                self.orders[key] = np.argsort(~self.breaking_words, kind="stable")
            else:
                self.orders[key] = np.argsort(-self.row(k), kind="stable")
        return self.orders[key]

    def ordered(self, words: np.ndarray, sort: str) -> np.ndarray:
        """``words`` (column numbers in vocabulary order, such as those matching a filter) in the order ``sort`` asks
        for: a stable sort of them is the whole vocabulary's order restricted to them.

        Parameters
        ----------
        words : numpy.ndarray of int
            Word numbers, in vocabulary order.
        sort : str
            As for :meth:`order`.

        Returns
        -------
        numpy.ndarray of int
            The same words, reordered.
        """
        order = self.order(sort)
        if order is None:
            return words
        if len(words) == len(order):
            return order
        matching = np.zeros(len(order), dtype=bool)
        matching[words] = True
        return order[matching[order]]


def _cells(model: NaiveBayes, shown: np.ndarray) -> list[tuple[Cell, ...]]:
    """The cells of the words ``shown``: for each word, one cell per class. Built class by class, a list at a time."""
    probabilities = model.columns(shown)[0].tolist()  # (n_classes, len(shown)): only the rows shown
    numerators, denominators = model.feature_ratios(shown) if model.epsilon is None else (None, None)
    breaks_at_one = model.kind == "bernoulli"
    per_class = []
    for k, values in enumerate(probabilities):
        ratios = [ratio_text((n, denominators[k])) for n in numerators[k]] if numerators else [None] * len(values)
        flags = ["0" if v == 0.0 else "1" if breaks_at_one and v == 1.0 else "" for v in values]
        per_class.append(list(map(Cell, ratios, flags, values)))
    return list(zip(*per_class, strict=True))


@dataclass(frozen=True, eq=False)
class ParameterTable:
    """One page of a model's parameters: the priors, and the rows of the words on this page (those matching the
    ``query`` a page filtered them by, in the order ``sort`` asks for)."""

    model: NaiveBayes
    priors: tuple[Prior, ...]
    rows: tuple[Row, ...]
    query: str
    sort: str  # as asked for: one the table does not know shows the words alphabetically
    page: int  # from 1
    pages: int
    matching: int  # words matching the query, on every page
    breaking_cells: int  # cells of the whole table that are exactly 0 (or 1 for Bernoulli): each breaks the product

    @property
    def vocabulary_size(self) -> int:
        return len(self.model.vocabulary)

    @property
    def parameter_count(self) -> int:
        """K(d + 1): a prior per class, and a probability per class and word."""
        return len(self.model.classes) * (self.vocabulary_size + 1)

    @property
    def parameter_counts(self) -> dict:
        """The numbers the model is, counted the three ways the page says: every prior and probability, K(d + 1);
        without the last prior, which the others fix (they sum to 1), K·d + (K − 1) (the lecture notes' count); and
        for the multinomial model, whose probabilities of each class sum to 1 too, the free ones, K(d − 1) + (K − 1)."""
        classes = len(self.model.classes)
        counts = {"every": self.parameter_count, "last_prior_fixed": self.parameter_count - 1}
        if self.model.kind == "multinomial":
            counts["free"] = self.parameter_count - 1 - classes
        return counts

    def to_dict(self) -> dict:
        return {
            "model": self.model.to_dict(),
            "classes": list(self.model.classes),
            "priors": [prior.to_dict() for prior in self.priors],
            "vocabulary_size": self.vocabulary_size,
            "parameter_count": self.parameter_count,
            "parameter_counts": self.parameter_counts,
            "breaking_cells": self.breaking_cells,
            "page": self.page,
            "pages": self.pages,
            "sort": self.sort,
            "query": self.query,
            "words": [row.to_dict() for row in self.rows],
        }


def parameter_table(table: WholeTable, words: np.ndarray, *, query: str = "", sort: str = "word",
                    page: int = 1) -> ParameterTable:
    """Page ``page`` (of ``parameter_pages``; kept between 1 and the last) of ``table``'s model, showing ``words``
    (column numbers in vocabulary order, those matching ``query``) in the order ``sort`` asks for.

    Parameters
    ----------
    table : WholeTable
        The model's table.
    words : numpy.ndarray of int
        Word numbers in vocabulary order.
    query : str, default ""
        The filter ``words`` match (kept for the page).
    sort : str, default "word"
        See ``WholeTable.order``.
    page : int, default 1
        The page, from 1.

    Returns
    -------
    ParameterTable
        The priors, and one row per word of the page with a cell per class: the unreduced ratio (None under an
        ε-floor), the value, and a flag for a cell that breaks the product.

    Examples
    --------
    >>> import numpy as np
    >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
    >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
    >>> page = parameter_table(WholeTable(training.model("multinomial", 0)), np.arange(6), sort="class-0")
    >>> page.rows[0].word, [(cell.ratio, cell.flag) for cell in page.rows[0].cells]
    ('chinese', [('5/8', ''), ('1/3', '')])
    >>> page.rows[-1].word, [(cell.ratio, cell.flag) for cell in page.rows[-1].cells]  # "tokyo": 0 for China
    ('tokyo', [('0/8', '0'), ('1/3', '')])
    """
    model = table.model
    ordered = table.ordered(words, sort)
    per_page, pages = words_per_page(len(model.classes)), parameter_pages(len(model.classes), len(words))
    page = min(max(page, 1), pages)
    shown = ordered[(page - 1) * per_page : page * per_page]
    vocabulary, counts = model.vocabulary, model.statistics.class_count_
    rows = tuple(Row(j, vocabulary[j], cells) for j, cells in zip(shown.tolist(), _cells(model, shown), strict=True))
    priors = tuple(
        Prior(label, int(counts[k]), model.prior_ratio(k), model.class_prior_exact[k], float(model.class_prior_[k]))
        for k, label in enumerate(model.classes)
    )
    return ParameterTable(model, priors, rows, query, sort, page, pages, len(words), table.breaking_cells)
