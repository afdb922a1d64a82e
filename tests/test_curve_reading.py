"""The confidence page's reading of the overconfidence curve (``engine.text.confidence``), checked against posteriors
worked out by hand on the match reviews (seed 002)."""
from __future__ import annotations

import json
import math
from fractions import Fraction as F

import pytest

from webnb.engine import Corpus, TrainingSet
from webnb.engine.records.confidence import TopPosterior, read_curve
from webnb.engine.records.insights import overconfidence


def match_was_sharp(n: int) -> F:
    """P(positive | "match was sharp" counted n times), multinomial, α = 1: P(x | positive) = 18/5832 and
    P(x | negative) = 18/4096 per copy, priors 3/5 and 2/5."""
    positive, negative = F(3, 5) * F(18, 5832) ** n, F(2, 5) * F(18, 4096) ** n
    return positive / (positive + negative)


def log10_of(value: F) -> float:
    return math.log10(value.numerator) - math.log10(value.denominator)


@pytest.mark.parametrize(
    "value, doubt, reading",
    [
        (None, None, "undecidable"),
        (1.0, -math.inf, "certain"),
        (1.0, -20.0, "rounded"),
        (0.99995, math.log10(0.00005), "near one"),
        (0.9999, -4.0, "value"),
        (0.5, math.log10(0.5), "value"),
    ],
)
def test_how_a_top_posterior_is_read(value, doubt, reading):
    assert TopPosterior(value, doubt).reading == reading


def test_the_table_of_a_curve_that_rounds_to_one(match_reviews):
    curve = overconfidence(match_reviews, "match was sharp", kind="multinomial", alpha=1, max_repeats=200)
    reading = read_curve(curve)
    assert reading.repeats == 200 and reading.plotted == (0, 1) and reading.tabled == (0, 1)
    # float64 rounds the negative posterior 1 − (3/2)(4096/5832)ⁿ/(…) to 1.0 from n = 108 on.
    assert reading.rounded_at == 108 and reading.certain is False
    assert [row.repeats for row in reading.rows] == [1, 2, 3, 5, 10, 20, 50, 100, 108, 200]
    for row in reading.rows:
        positive = match_was_sharp(row.repeats)
        top = 1 if positive > F(1, 2) else 0
        assert [cell.top for cell in row.cells] == [k == top for k in (0, 1)]
        assert [cell.posterior for cell in row.cells] == pytest.approx([float(1 - positive), float(positive)],
                                                                       rel=1e-11, abs=1e-300)
        assert not any(cell.underflows for cell in row.cells)
        assert row.top.log10_doubt == pytest.approx(log10_of(min(positive, 1 - positive)), abs=1e-9)
    readings = {row.repeats: row.top.reading for row in reading.rows}
    # Once: positive at 0.513; by 50 repeats negative is above 0.9999; from 108 on float64 says 1.0.
    assert readings == {1: "value", 2: "value", 3: "value", 5: "value", 10: "value", 20: "value",
                        50: "near one", 100: "near one", 108: "rounded", 200: "rounded"}
    assert reading.first.value == pytest.approx(float(match_was_sharp(1)), rel=1e-13)


def test_a_posterior_too_small_for_float64_is_not_impossible(match_reviews):
    # "not not not", multinomial, α = 1: θ_not is 1/18 for positive and 3/16 for negative, so each copy multiplies
    # the odds for positive by (16/54)³. After 300 copies its posterior is about 10⁻⁴⁷⁵: 0.0 in float64, yet possible.
    curve = overconfidence(match_reviews, "not not not", kind="multinomial", alpha=1, max_repeats=300)
    reading = read_curve(curve)
    last = reading.rows[-1]
    assert last.repeats == 300
    log10_positive = math.log10(3 / 2) + 300 * 3 * math.log10(16 / 54)
    assert log10_positive < -324  # below the smallest float64
    negative, positive = last.cells
    assert negative.top and not negative.underflows
    assert positive.posterior == 0.0 and positive.underflows and not positive.top
    assert curve.points[-1].log_posteriors[1] * math.log10(math.e) == pytest.approx(log10_positive, rel=1e-9)
    assert last.top.reading == "rounded" and last.top.log10_doubt == pytest.approx(log10_positive, rel=1e-9)


def test_an_impossible_class_makes_the_posterior_certain(match_reviews):
    # Bernoulli, α = 0: every negative review has "not", so "match was sharp" is impossible for negative.
    reading = read_curve(overconfidence(match_reviews, "match was sharp", kind="bernoulli", alpha=0, max_repeats=5))
    assert reading.certain is True and reading.rounded_at is None  # 1.0 from the start, but not by rounding
    assert reading.first.reading == "certain" and reading.log10_doubt == (-math.inf,) * 5
    assert [row.repeats for row in reading.rows] == [1, 2, 3, 5]
    assert all(not cell.underflows for row in reading.rows for cell in row.cells)


def test_an_undecidable_review(match_reviews):
    # Bernoulli, α = 0: "not sharp match" is impossible in both classes.
    reading = read_curve(overconfidence(match_reviews, "not sharp match", kind="bernoulli", alpha=0, max_repeats=3))
    assert reading.certain is False and reading.rounded_at is None
    assert reading.first == TopPosterior(None, None) and reading.first.reading == "undecidable"
    assert all(not cell.top for row in reading.rows for cell in row.cells)


def test_with_many_classes_the_most_probable_are_plotted_and_tabled():
    # Eight classes "ownC shared"; the review has own0 four times, own1 three times, own2 twice and own3 once: the
    # classes rank 0, 1, 2, 3, then the other four tied (the first of them first).
    corpus = Corpus.from_pairs([(f"c{i}", f"own{i} shared") for i in range(8) for _ in range(2)])
    training = TrainingSet.build(corpus)
    curve = overconfidence(training, "own0 own0 own0 own0 own1 own1 own1 own2 own2 own3", kind="multinomial",
                           alpha=1, max_repeats=10)
    reading = read_curve(curve, plotted=6, tabled=3)
    assert reading.plotted == (0, 1, 2, 3, 4, 5) and reading.tabled == (0, 1, 2)
    assert all(len(row.cells) == 3 for row in reading.rows)
    assert [row.repeats for row in read_curve(curve, at=(1, 4)).rows] == [1, 4, 10]


def test_plain_data(match_reviews):
    curve = overconfidence(match_reviews, "match was sharp", kind="bernoulli", alpha=0, max_repeats=3)
    data = read_curve(curve).to_dict()
    json.dumps(data, allow_nan=False)
    assert data == {**curve.to_dict(), "log10_doubt": ["-inf", "-inf", "-inf"]}
    undecidable = overconfidence(match_reviews, "not sharp match", kind="bernoulli", alpha=0, max_repeats=2)
    assert read_curve(undecidable).to_dict()["log10_doubt"] == [None, None]
    smoothed = overconfidence(match_reviews, "match was sharp", kind="multinomial", alpha=1, max_repeats=2)
    doubts = read_curve(smoothed).to_dict()["log10_doubt"]
    # Positive decides the single review (doubt: the negative posterior); negative decides it counted twice.
    assert doubts == pytest.approx([log10_of(1 - match_was_sharp(1)), log10_of(match_was_sharp(2))], abs=1e-12)
