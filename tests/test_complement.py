"""Complement Naive Bayes (webnb/engine/text/complement.py): the complement counts exactly, the weights and scores
as scikit-learn's ComplementNB gives them (China/Japan here, the real corpora below), and α = 0 without NaN."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from sklearn.naive_bayes import ComplementNB

from webnb.engine import CHINA_JAPAN, Corpus, CorpusError, TrainingSet
from webnb.engine.text.complement import fit_complement_naive_bayes

D5 = "Chinese Chinese Chinese Tokyo Japan"


@pytest.fixture(scope="module")
def china_japan_training():
    return TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))


def test_complement_counts_are_the_other_classes_counts_plus_alpha(china_japan_training):
    training = china_japan_training
    model = fit_complement_naive_bayes(training.statistics, alpha=1)
    index = training.bag.index
    # China's complement is the Japan document (Tokyo Japan Chinese): 3 words, 6 in the vocabulary.
    assert model.complement_ratio(0, index["chinese"]) == (2, 9)
    assert model.complement_ratio(0, index["beijing"]) == (1, 9)
    # Japan's complement is the three China documents: 8 words, "chinese" 5 times.
    assert model.complement_ratio(1, index["chinese"]) == (6, 14)
    assert model.complement_ratio(1, index["tokyo"]) == (1, 14)
    half = fit_complement_naive_bayes(training.statistics, alpha="1/2")
    assert half.complement_ratio(1, index["tokyo"]) == (Fraction(1, 2), 11)
    for k in range(2):
        for j in range(len(training.vocabulary)):
            numerator, denominator = model.complement_ratio(k, j)
            assert model.feature_log_prob_[k, j] == pytest.approx(-math.log(numerator / denominator), abs=1e-15)


def test_d5_is_japan_for_the_complement_model_and_china_for_the_multinomial(china_japan_training):
    training = china_japan_training
    d5 = training.transform([D5])
    model = fit_complement_naive_bayes(training.statistics, alpha=1)
    # China: 3·(−log 2/9) + 2·(−log 2/9); Japan: 3·(−log 6/14) + 2·(−log 1/14). No prior: Japan's 3-to-1 deficit in
    # documents does not count, and its complement (China) rarely says "tokyo" or "japan".
    china = -5 * math.log(2 / 9)
    japan = -3 * math.log(6 / 14) - 2 * math.log(1 / 14)
    assert model.joint_log_likelihood(d5)[0].tolist() == pytest.approx([china, japan], abs=1e-12)
    assert model.predict(d5) == ["Japan"]
    assert training.model("multinomial", 1).predict(d5) == ["China"]


@pytest.mark.parametrize("norm", [False, True])
@pytest.mark.parametrize("alpha", [1, 0.5, 2, 0.01])
def test_china_japan_agrees_with_scikit_learn(china_japan_training, alpha, norm):
    training = china_japan_training
    matrix, labels = training.matrix, [label for label, _ in CHINA_JAPAN]
    theirs = ComplementNB(alpha=alpha, norm=norm, force_alpha=True).fit(matrix, labels)
    ours = fit_complement_naive_bayes(training.statistics, alpha=alpha, norm=norm)
    np.testing.assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, rtol=0, atol=1e-13)
    reviews = training.transform([D5, "Tokyo", "Beijing Shanghai Macao", "Chinese"])
    np.testing.assert_allclose(ours.joint_log_likelihood(reviews), theirs.predict_joint_log_proba(reviews),
                               rtol=0, atol=1e-12)
    assert ours.predict(reviews) == theirs.predict(reviews).tolist()
    log_proba, decidable = ours.predict_log_proba(reviews)
    np.testing.assert_allclose(log_proba, theirs.predict_log_proba(reviews), rtol=0, atol=1e-12)
    assert decidable.all()


def test_alpha_zero_gives_infinite_weights_never_nan(china_japan_training):
    training = china_japan_training
    model = fit_complement_naive_bayes(training.statistics, alpha=0)
    index = training.bag.index
    assert model.complement_ratio(1, index["tokyo"]) == (0, 8)  # no China document says "tokyo"
    weights = model.feature_log_prob_
    assert weights[1, index["tokyo"]] == math.inf and not np.isnan(weights).any()
    reviews = training.transform([D5, "Chinese Beijing", "Tokyo Beijing", "Chinese", ""])
    scores = model.joint_log_likelihood(reviews)
    assert not np.isnan(scores).any()
    assert scores[0, 1] == math.inf and math.isfinite(scores[0, 0])  # "tokyo", only in Japan: Japan at +∞
    assert scores[1, 0] == math.inf and math.isfinite(scores[1, 1])  # "beijing", only in China: China at +∞
    assert scores[2].tolist() == [math.inf, math.inf]
    assert np.isfinite(scores[3]).all()  # "chinese" is in both classes
    assert scores[4].tolist() == [0.0, 0.0]  # no word: nothing added, no 0 · ∞
    assert model.predict(reviews) == ["Japan", "China", None, "China", "China"]  # ∞ against ∞: no decision
    assert model.predict_log_proba(reviews).decidable.tolist() == [True, True, False, True, True]


def test_alpha_zero_with_normalised_weights_is_refused_when_a_word_is_in_one_class_only(china_japan_training):
    with pytest.raises(CorpusError, match="occurs in one class only"):
        fit_complement_naive_bayes(china_japan_training.statistics, alpha=0, norm=True)


def test_alpha_zero_is_refused_when_a_class_has_an_empty_complement():
    training = TrainingSet.build(Corpus.from_pairs([("a", "red blue"), ("b", "")]))
    with pytest.raises(CorpusError, match="No document outside class 'a'"):
        fit_complement_naive_bayes(training.statistics, alpha=0)
    smoothed = fit_complement_naive_bayes(training.statistics, alpha=1)
    assert smoothed.complement_ratio(0, 0) == (1, 2) and smoothed.complement_ratio(1, 0) == (2, 4)
    assert smoothed.predict(training.transform(["red"])) == ["a"]  # 1/2 against 2/4: equal scores, the first class


def test_binary_counts_each_word_once_per_document(china_japan_training):
    training = china_japan_training
    model = fit_complement_naive_bayes(training.statistics, alpha=1, binary=True)
    # Japan's complement, by presence: "chinese" is in all three China documents (not 5 times), of 6 presences.
    assert model.complement_ratio(1, training.bag.index["chinese"]) == (4, 12)
    theirs = ComplementNB(alpha=1, force_alpha=True).fit(training.matrix.sign(), [label for label, _ in CHINA_JAPAN])
    np.testing.assert_allclose(model.feature_log_prob_, theirs.feature_log_prob_, rtol=0, atol=1e-13)


# -- the real corpora ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bench(shared_corpora):
    from tests.test_parity_sklearn import Bench

    return Bench(shared_corpora)


@pytest.mark.corpora
@pytest.mark.parametrize("corpus, setting, alpha, norm", [
    ("sms", "default", 1, False),
    ("sms", "default", 0.1, True),
    ("sms", "binary", 1, False),
    ("sentence-polarity", "default", 1, False),
    ("sentence-polarity", "pruned", 0.5, True),
    pytest.param("20ng-20", "default", 1, False, marks=pytest.mark.slow),
    pytest.param("20ng-20", "default", 0.1, True, marks=pytest.mark.slow),
])
def test_same_weights_scores_and_predictions_as_scikit_learn(bench, corpus, setting, alpha, norm):
    from tests.test_parity_sklearn import SETTINGS

    binary = SETTINGS[setting].binary
    ours, theirs = bench.ours(corpus, setting), bench.theirs(corpus, setting)
    labels = bench.split(corpus).train.labels
    our_model = fit_complement_naive_bayes(ours.training_set.statistics, alpha=alpha, norm=norm, binary=binary)
    their_model = ComplementNB(alpha=alpha, norm=norm, force_alpha=True).fit(theirs.train_matrix, labels)
    assert our_model.classes == tuple(their_model.classes_)
    np.testing.assert_allclose(our_model.feature_log_prob_, their_model.feature_log_prob_, rtol=0, atol=1e-10)
    our_scores = our_model.joint_log_likelihood(ours.test_matrix)
    their_scores = their_model.predict_joint_log_proba(theirs.test_matrix)
    scale = np.abs(their_scores).max(axis=1, keepdims=True)
    assert (np.abs(our_scores - their_scores) <= 1e-9 + 1e-12 * scale).all()
    predicted = our_model.predict(ours.test_matrix)
    assert predicted == their_model.predict(theirs.test_matrix).tolist()
    if (corpus, alpha, norm) == ("20ng-20", 1, False):
        # CountVectorizer's defaults, α = 1, the by-date test set: 0.8267 (multinomial NB: 0.7728).
        accuracy = np.mean(np.asarray(predicted) == np.asarray(bench.split(corpus).test.labels))
        assert round(float(accuracy), 4) == 0.8267


def test_word_totals_are_read_from_the_observed_pairs(china_japan_training):
    statistics = china_japan_training.statistics
    for binary in (False, True):
        totals = statistics.word_total[binary]
        assert totals.dtype == np.int64
        assert totals.tolist() == statistics.feature_count(binary).sum(axis=0).tolist()
    assert statistics.word_total[False][china_japan_training.bag.index["chinese"]] == 6  # 5 in China, 1 in Japan


def test_the_training_set_makes_and_keeps_the_complement_model_and_refuses_a_floor(china_japan_training):
    model = china_japan_training.model("complement", 1)
    assert model.kind == "complement" and model is china_japan_training.model("complement", "1")
    with pytest.raises(ValueError, match="Complement Naive Bayes has weights, not probabilities"):
        china_japan_training.model("complement", 1, epsilon=1e-14)


@pytest.mark.parametrize("alpha, binary, norm", [("1", False, False), ("1/2", True, False), ("0", False, False),
                                                 ("1", False, True)])
def test_a_page_of_the_complement_table_holds_the_models_own_weights(china_japan_training, alpha, binary, norm):
    from webnb.engine.records.complement_table import complement_table

    model = fit_complement_naive_bayes(china_japan_training.statistics, alpha, binary=binary, norm=norm)
    table = complement_table(model, np.arange(len(model.vocabulary)))
    weights = model.feature_log_prob_
    for j, row in enumerate(table.rows):
        assert row.word == model.vocabulary[j]
        for k, cell in enumerate(row.cells):
            assert Fraction(cell.ratio[0]) / Fraction(cell.ratio[1]) == (
                Fraction(model.complement_ratio(k, j)[0]) / Fraction(model.complement_ratio(k, j)[1]))
            assert cell.weight == pytest.approx(weights[k, j], rel=1e-12) if math.isfinite(cell.weight) else (
                weights[k, j] == math.inf)
    data = table.to_dict()
    assert data["model"] == "complement" and data["words"][1]["word"] == "chinese" and data["pages"] == 1
