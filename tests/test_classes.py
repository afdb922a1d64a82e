"""The class index and the priors that the text and the Gaussian models share (webnb/engine/shared/classes.py)."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from webnb.engine import CorpusError, TrainingSet
from webnb.engine.gaussian.model import GaussianStatistics
from webnb.engine.shared.classes import (
    checked_class_numbers,
    class_counts,
    class_numbers,
    class_priors,
    decided_numbers,
)
from webnb.engine.shared.corpus import Corpus
from webnb.examples import load_example_table


def test_labels_become_their_place_among_the_classes():
    numbers = class_numbers(("ham", "spam"), ("spam", "ham", "spam"))
    assert numbers.tolist() == [1, 0, 1] and numbers.dtype == np.int64
    assert class_numbers(("a", "b"), ()).tolist() == []
    assert decided_numbers(("ham", "spam"), ("spam", None, "ham")).tolist() == [1, -1, 0]


def test_a_label_the_model_never_saw_is_named():
    with pytest.raises(CorpusError, match=r"The test documents have classes the model never saw in training: 'eggs'"):
        class_numbers(("ham", "spam"), ("ham", "eggs", "eggs"))
    with pytest.raises(CorpusError, match=r"^The test rows have classes .*: 'x', 'y'\.$"):
        class_numbers(("a",), ("y", "x"), what="The test rows")
    with pytest.raises(CorpusError, match="The predictions have classes"):
        decided_numbers(("a",), ("b",))


@pytest.mark.parametrize(
    "class_index, message",
    [
        (np.array([0]), "one class number per document: 2 documents, 1 class numbers"),
        (np.array([0, 2]), "between 0 and 1"),
        (np.array([-1, 0]), "between 0 and 1"),
        (np.array([0.0, 1.0]), "whole numbers"),
        (np.array([[0, 1]]), "one class number per document"),
    ],
)
def test_bad_class_numbers_are_refused(class_index, message):
    with pytest.raises(ValueError, match=message):
        checked_class_numbers(class_index, 2, 2)


def test_checked_class_numbers_and_counts():
    numbers = checked_class_numbers(np.array([1, 0, 1], dtype=np.int32), 3, 3)
    assert numbers.dtype == np.int64 and numbers.tolist() == [1, 0, 1]
    assert class_counts(numbers, 3).tolist() == [1, 2, 0]


def test_learned_priors_exactly_and_in_both_logs():
    counts = np.array([3, 4], dtype=np.int64)
    for log_of, expected in (("counts", np.log(counts) - np.log(7)), ("prior", np.log(counts / 7))):
        priors = class_priors(counts, "learned", log_of=log_of)
        assert priors.mode == "learned" and priors.exact == (Fraction(3, 7), Fraction(4, 7))
        assert priors.prior.tolist() == [3 / 7, 4 / 7]
        np.testing.assert_array_equal(priors.log_prior, expected)
    # The two ways round differently here: each model keeps its scikit-learn counterpart's.
    assert not np.array_equal(np.log(counts) - np.log(7), np.log(counts / 7))


def test_uniform_and_given_priors():
    uniform = class_priors(np.array([5, 1, 1]), "uniform")
    assert uniform.exact == (Fraction(1, 3),) * 3 and uniform.prior.tolist() == [1 / 3] * 3
    np.testing.assert_array_equal(uniform.log_prior, np.full(3, -np.log(3)))
    np.testing.assert_array_equal(class_priors(np.array([5, 1, 1]), "uniform", log_of="prior").log_prior,
                                  np.log(np.full(3, 1 / 3)))
    given = class_priors(np.array([2, 2]), "given", (Fraction(1, 4), Fraction(3, 4)))
    assert given.exact == (Fraction(1, 4), Fraction(3, 4)) and given.prior.tolist() == [0.25, 0.75]
    impossible = class_priors(np.array([2, 2]), "given", (Fraction(1), Fraction(0)))  # log 0 without a warning
    assert impossible.log_prior.tolist() == [0.0, -math.inf]


@pytest.mark.parametrize(
    "mode, given, log_of, message",
    [("fitted", None, "counts", "the prior is one of learned, uniform, given, not 'fitted'"),
     ("given", None, "counts", "exactly when the prior is 'given'"),
     ("learned", (Fraction(1),), "counts", "exactly when the prior is 'given'"),
     ("learned", None, "density", "log_of is one of counts, prior")],
)
def test_bad_prior_requests_are_refused(mode, given, log_of, message):
    with pytest.raises(ValueError, match=message):
        class_priors(np.array([1, 1]), mode, given, log_of=log_of)


def test_both_models_hold_their_priors_under_the_same_names():
    table = load_example_table("match-ratings")  # 8 lost, 10 won
    gaussian = GaussianStatistics.fit(table).model(prior="learned")
    corpus = Corpus.from_pairs([("lost", "poor match")] * 8 + [("won", "great match")] * 10)
    text = TrainingSet.build(corpus).model("multinomial", 1)
    for model in (gaussian, text):
        assert model.prior_mode == "learned"
        assert model.class_prior_exact == (Fraction(4, 9), Fraction(5, 9))
        assert model.class_prior_.tolist() == [8 / 18, 10 / 18]
    np.testing.assert_array_equal(text.class_log_prior_, np.log([8, 10]) - np.log(18))
    np.testing.assert_array_equal(gaussian.class_log_prior_, np.log(np.array([8, 10]) / 18))
    assert TrainingSet.build(corpus).class_index.tolist() == [0] * 8 + [1] * 10
    uniform = GaussianStatistics.fit(table).model(prior="uniform")
    assert uniform.prior_mode == "uniform" and uniform.class_prior_exact == (Fraction(1, 2),) * 2
