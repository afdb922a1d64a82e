"""McNemar's exact test (webnb/engine/evaluation/significance.py) against a direct exact binomial computation."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import binomtest

from webnb.engine.evaluation.significance import exact_two_sided_p, mcnemar


@pytest.mark.parametrize("b, c", [(0, 1), (1, 0), (3, 3), (9, 1), (1, 9), (12, 30), (40, 41), (0, 25), (150, 100)])
def test_the_exact_p_value_is_the_binomial_tail_doubled(b, c):
    p = exact_two_sided_p(b, c)
    smaller, n = min(b, c), b + c
    tail = Fraction(sum(math.comb(n, i) for i in range(smaller + 1)), 2**n)
    assert p == min(Fraction(1), 2 * tail)
    assert float(p) == pytest.approx(binomtest(b, n, 0.5).pvalue, rel=1e-12)


def test_no_disagreement_tells_nothing():
    result = mcnemar([True, False, True], [True, False, True])
    assert (result.discordant, result.p_exact, result.p_value) == (0, 1, 1.0)
    assert (result.both_right, result.both_wrong, result.n) == (2, 1, 3)


def test_the_counts_of_a_pair_of_models():
    rng = np.random.default_rng(0)
    first = rng.random(200) < 0.85
    second = rng.random(200) < 0.78
    result = mcnemar(first, second)
    assert result.only_first == int((first & ~second).sum()) and result.only_second == int((~first & second).sum())
    assert result.n == 200
    assert result.p_value == pytest.approx(binomtest(result.only_first, result.discordant, 0.5).pvalue, rel=1e-12)


@pytest.mark.parametrize("b, c", [(-1, 2), (1.5, 2), (True, 2), (2, "3")])
def test_counts_must_be_counts(b, c):
    with pytest.raises(ValueError, match="must be a whole number of at least 0"):
        exact_two_sided_p(b, c)


def test_two_lists_of_different_lengths_are_refused():
    with pytest.raises(ValueError, match="same documents"):
        mcnemar([True, False], [True])


def test_over_splits_reports_each_models_mean_interval_and_wins():
    from webnb.engine.evaluation.significance import over_splits

    rng = np.random.default_rng(1)
    first = (0.8 + 0.02 * rng.standard_normal(40)).tolist()
    second = (0.79 + 0.02 * rng.standard_normal(40)).tolist()
    a, b = over_splits({"a": first, "b": second})
    assert a.mean == pytest.approx(np.mean(first)) and b.mean == pytest.approx(np.mean(second))
    assert a.interval == pytest.approx(tuple(np.percentile(first, [2.5, 97.5])))
    assert a.wins == sum(x >= y for x, y in zip(first, second, strict=True))
    assert a.wins + b.wins == 40  # no exact ties in noise
    (only,) = over_splits({"only": [0.5]})
    assert (only.mean, only.interval, only.wins) == (0.5, (0.5, 0.5), 1)


@pytest.mark.parametrize("accuracies, message", [
    ({}, "at least one model"),
    ({"a": [0.5], "b": [0.5, 0.6]}, "same splits"),
    ({"a": []}, "same splits"),
])
def test_over_splits_refuses_uneven_scores(accuracies, message):
    from webnb.engine.evaluation.significance import over_splits

    with pytest.raises(ValueError, match=message):
        over_splits(accuracies)
