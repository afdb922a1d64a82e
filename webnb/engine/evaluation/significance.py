"""Whether two models' accuracies on the same test documents differ by more than chance: McNemar's exact test.

Only the documents the two models disagree on can tell them apart: b that the first gets right and the second
wrong, c the other way round. If the models were equally good, each of those b + c documents would fall on either
side with probability 1/2, so b follows a binomial distribution Binomial(b + c, 1/2). The exact two-sided p-value is
the probability of a split at least as uneven as the one seen:

    p = min(1, 2 · Σ_{i=0}^{min(b, c)} C(b + c, i) / 2^(b + c))

A small p (say below 0.05) says the difference is unlikely to be chance on documents like these; a large one says
this test set cannot tell the two apart, which is not the same as saying they are equally good.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from webnb.engine.shared.numbers import whole_number


@dataclass(frozen=True)
class McNemar:
    """McNemar's exact test of two models on the same documents.

    Parameters
    ----------
    both_right, only_first, only_second, both_wrong : int
        Documents both models classify right; the first only (b); the second only (c); neither.
    p_exact : Fraction
        The exact two-sided p-value.

    Attributes
    ----------
    p_value : float
        ``p_exact`` as a float.
    p_plain : str or int
        ``p_exact`` as the JSON twins write it.
    discordant : int
        b + c, the documents that can tell the models apart.
    """

    both_right: int
    only_first: int
    only_second: int
    both_wrong: int
    p_exact: Fraction

    @property
    def p_value(self) -> float:
        return self.p_exact.numerator / self.p_exact.denominator

    @property
    def p_plain(self) -> str | int:
        """``p_exact`` as the JSON twins write it: "11/512", or 1 when the split is as even as it can be."""
        p = self.p_exact
        return int(p) if p.denominator == 1 else f"{p.numerator}/{p.denominator}"

    @property
    def discordant(self) -> int:
        return self.only_first + self.only_second

    @property
    def n(self) -> int:
        return self.both_right + self.only_first + self.only_second + self.both_wrong


def exact_two_sided_p(b: int, c: int) -> Fraction:
    """The exact two-sided binomial p-value of b successes against c under probability 1/2.

    Parameters
    ----------
    b, c : int
        The two discordant counts, 0 or more.

    Returns
    -------
    Fraction
        min(1, 2 · P(X ≤ min(b, c))) for X ~ Binomial(b + c, 1/2); 1 when b + c = 0.

    Raises
    ------
    ValueError
        If a count is negative or not whole.

    Examples
    --------
    >>> exact_two_sided_p(9, 1)  # 2 · (1 + 10)/1024
    Fraction(11, 512)
    >>> exact_two_sided_p(5, 5), exact_two_sided_p(0, 0)
    (Fraction(1, 1), Fraction(1, 1))
    """
    b, c = whole_number(b, "b"), whole_number(c, "c")
    n, smaller = b + c, min(b, c)
    # C(n, i + 1) = C(n, i) · (n − i) / (i + 1), exact in integers: one multiplication per term instead of a fresh
    # binomial coefficient (thousands of discordant documents on a large test set).
    term = tail = 1
    for i in range(smaller):
        term = term * (n - i) // (i + 1)
        tail += term
    return min(Fraction(1), Fraction(2 * tail, 2**n))


def mcnemar(first_correct, second_correct) -> McNemar:
    """McNemar's exact test of two models, from whether each classified each document right.

    Parameters
    ----------
    first_correct, second_correct : array-like of bool, shape (n_documents,)
        One value per test document, the same documents in the same order.

    Returns
    -------
    McNemar

    Raises
    ------
    ValueError
        If the two lists differ in length.

    Examples
    --------
    >>> result = mcnemar([True, True, True, False, True], [True, False, False, False, True])
    >>> (result.only_first, result.only_second, result.p_exact)
    (2, 0, Fraction(1, 2))
    """
    first = np.asarray(first_correct, dtype=bool)
    second = np.asarray(second_correct, dtype=bool)
    if first.shape != second.shape or first.ndim != 1:
        raise ValueError("the two models must be scored on the same documents: two lists of the same length")
    only_first = int((first & ~second).sum())
    only_second = int((~first & second).sum())
    return McNemar(
        both_right=int((first & second).sum()),
        only_first=only_first,
        only_second=only_second,
        both_wrong=int((~first & ~second).sum()),
        p_exact=exact_two_sided_p(only_first, only_second),
    )


@dataclass(frozen=True)
class OverSplits:
    """One model's accuracy over repeated random splits of the same corpus.

    Parameters
    ----------
    key : str
        The model.
    accuracies : tuple of float
        Its test accuracy on each split, in split order.
    wins : int
        Splits on which it scored highest (a tie counts for each model tied).

    Attributes
    ----------
    mean : float
        The mean accuracy.
    interval : tuple of float
        The range that holds the central 95 % of the splits' accuracies (linear percentiles 2.5 and 97.5): how far
        one split's accuracy can fall from another's by the luck of the split alone.
    """

    key: str
    accuracies: tuple[float, ...]
    wins: int

    @property
    def mean(self) -> float:
        return math.fsum(self.accuracies) / len(self.accuracies)

    @property
    def interval(self) -> tuple[float, float]:
        low, high = np.percentile(self.accuracies, [2.5, 97.5])
        return float(low), float(high)


def over_splits(accuracies: dict[str, list[float]]) -> tuple[OverSplits, ...]:
    """Each model's accuracies over the same splits, with its mean, its interval and how often it won.

    Parameters
    ----------
    accuracies : dict of str to list of float
        For each model (in the order to report them), its accuracy on split 1, 2, …; every model scored on the same
        splits.

    Returns
    -------
    tuple of OverSplits

    Raises
    ------
    ValueError
        If there is no model, no split, or the models were not scored on the same number of splits.

    Examples
    --------
    >>> words, bigrams = over_splits({"words": [0.80, 0.85, 0.79], "bigrams": [0.78, 0.85, 0.81]})
    >>> (words.wins, bigrams.wins), round(words.mean, 4), round(bigrams.mean, 4)
    ((2, 2), 0.8133, 0.8133)
    """
    if not accuracies:
        raise ValueError("give at least one model's accuracies")
    lengths = {len(values) for values in accuracies.values()}
    if len(lengths) != 1 or 0 in lengths:
        raise ValueError("every model must be scored on the same splits, at least one")
    table = np.array([list(values) for values in accuracies.values()], dtype=float)
    best = table.max(axis=0)
    wins = (table == best).sum(axis=1)
    return tuple(
        OverSplits(key, tuple(float(v) for v in values), int(won))
        for (key, values), won in zip(accuracies.items(), wins, strict=True)
    )
