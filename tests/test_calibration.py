"""Calibration (webnb/engine/evaluation/calibration.py): the bins of a reliability diagram, the expected calibration
error, the share above 0.99 and how often it is right, confidence by document length; on 20 Newsgroups the figures
the lesson quotes, and the bins as scikit-learn's calibration_curve draws them."""
from __future__ import annotations

import math

import numpy as np
import pytest

from webnb.engine.evaluation.calibration import by_length, calibration


def test_bins_hold_their_upper_bound_and_the_first_holds_zero():
    result = calibration([0.0, 0.1, 0.1000001, 0.5, 1.0], [False, True, True, False, True], n_bins=10)
    counts = [b.count for b in result.bins]
    assert counts == [2, 1, 0, 0, 1, 0, 0, 0, 0, 1]
    assert (result.bins[0].lower, result.bins[0].upper) == (0.0, 0.1)
    assert result.bins[0].mean_confidence == 0.05 and result.bins[0].accuracy == 0.5
    assert result.bins[2].mean_confidence is None and result.bins[2].gap is None
    assert result.bins[9].gap == 0.0


def test_undecided_documents_are_counted_apart():
    result = calibration([0.995, float("nan"), 0.999, 0.7], [True, False, False, True], n_bins=4)
    assert (result.decided, result.undecided) == (3, 1)
    assert (result.high_confidence, result.high_confidence_accuracy) == (2, 0.5)
    assert result.high_confidence_share == pytest.approx(2 / 3)
    assert result.expected_calibration_error == pytest.approx(1 / 3 * abs(1 - 0.7) + 2 / 3 * abs(0.5 - 0.997))


def test_nothing_decided_has_no_error_and_no_share():
    result = calibration([float("nan")], [False])
    assert (result.decided, result.expected_calibration_error, result.high_confidence_share) == (0, None, None)
    assert by_length([float("nan")], [False], [4]) == ()


@pytest.mark.parametrize("confidence, correct, bins, message", [
    ([0.5, 0.6], [True], 10, "same length"),
    ([1.5], [True], 10, "between 0 and 1"),
    ([-0.1], [True], 10, "between 0 and 1"),
    ([0.5], [True], 0, "n_bins must be a whole number of at least 1"),
    ([0.5], [True], True, "n_bins"),
])
def test_refusals(confidence, correct, bins, message):
    with pytest.raises(ValueError, match=message):
        calibration(confidence, correct, n_bins=bins)


def test_length_groups_are_of_about_equal_size_shortest_first():
    lengths = [10, 1, 7, 3, 100, 5, 2]
    confidence = [0.9, 0.5, 0.8, 0.6, 1.0, 0.7, 0.55]
    groups = by_length(confidence, [True] * 7, lengths, n_groups=3)
    assert [(g.shortest, g.longest, g.count) for g in groups] == [(1, 3, 3), (5, 7, 2), (10, 100, 2)]
    assert groups[2].mean_confidence == pytest.approx(0.95) and groups[2].high_confidence_share == 0.5
    assert len(by_length([0.5, 0.6], [True, True], [1, 2], n_groups=5)) == 2
    with pytest.raises(ValueError, match="n_groups"):
        by_length([0.5], [True], [1], n_groups=0)


@pytest.mark.corpora
@pytest.mark.slow
def test_multinomial_naive_bayes_on_20_newsgroups_is_overconfident(shared_corpora):
    from sklearn.calibration import calibration_curve

    from webnb.engine import TrainingSet, read_corpus

    train = read_corpus(shared_corpora / "20newsgroups-bydate" / "train.jsonl.gz")
    test = read_corpus(shared_corpora / "20newsgroups-bydate" / "test.jsonl")
    training = TrainingSet.build(train)  # CountVectorizer's defaults
    matrix = training.transform(test.texts)
    log_proba, decidable = training.model("multinomial", 1).predict_log_proba(matrix)
    assert decidable.all()
    confidence = np.exp(log_proba.max(axis=1))
    predicted = np.asarray(training.classes)[log_proba.argmax(axis=1)]
    correct = predicted == np.asarray(test.labels)
    result = calibration(confidence, correct)
    # The lesson's figures: 88.9 % of the 7,532 test posts above 0.99, and 82.7 % of those right (accuracy 0.7728).
    assert round(float(correct.mean()), 4) == 0.7728
    assert round(result.high_confidence_share, 3) == 0.889 and round(result.high_confidence_accuracy, 3) == 0.827
    assert result.expected_calibration_error > 0.1  # a gap of more than ten points, on average
    accuracy, mean_confidence = calibration_curve(correct, confidence, n_bins=10, strategy="uniform")
    filled = [b for b in result.bins if b.count]
    np.testing.assert_allclose([b.accuracy for b in filled], accuracy, rtol=0, atol=1e-12)
    np.testing.assert_allclose([b.mean_confidence for b in filled], mean_confidence, rtol=0, atol=1e-12)
    lengths = np.asarray(matrix.sum(axis=1)).ravel()
    groups = by_length(confidence, correct, lengths)
    shares = [g.high_confidence_share for g in groups]
    assert shares == sorted(shares) and shares[-1] > 0.95  # the longer the post, the more often above 0.99
    assert math.isclose(sum(g.count for g in groups), len(test.texts))
