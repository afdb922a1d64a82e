"""Identities, zero handling and the trace, checked against straightforward dense computations."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import logsumexp

from webnb.engine import (
    ClassStatistics,
    Corpus,
    CorpusError,
    TrainingSet,
    explain,
    fit_naive_bayes,
    parse_alpha,
)
from webnb.engine.text.trace import LISTED_ABSENT_LIMIT


def random_corpus(seed=0, n_docs=120, n_words=300, classes=("alpha", "beta", "gamma")) -> Corpus:
    """Documents drawn from class-specific word distributions, so the classes really differ."""
    rng = np.random.default_rng(seed)
    words = [f"w{j:03d}" for j in range(n_words)]
    weights = rng.dirichlet(np.full(n_words, 0.3), size=len(classes))
    pairs = []
    for i in range(n_docs):
        k = i % len(classes)
        length = rng.integers(3, 40)
        pairs.append((classes[k], " ".join(rng.choice(words, size=length, p=weights[k]))))
    return Corpus.from_pairs(pairs)


@pytest.fixture(scope="module")
def training():
    return TrainingSet.build(random_corpus())


@pytest.fixture(scope="module")
def test_matrix(training):
    return training.transform(random_corpus(seed=1, n_docs=60).texts)


def dense_joint_log_likelihood(model, matrix):
    """The textbook formula over every word, dense, with log 0 = −∞ and 0 · log 0 = 0."""
    x = matrix.toarray()
    stats = model.statistics
    alpha = float(model.alpha)
    with np.errstate(divide="ignore", invalid="ignore"):
        if model.kind == "bernoulli":
            x = (x > 0).astype(float)
            psi = (stats.document_count_ + alpha) / (stats.class_count_[:, None] + 2 * alpha)
            log_present, log_absent = np.log(psi), np.log(1 - psi)
            terms = np.where(x[:, None, :] > 0, log_present[None], log_absent[None])
        else:
            counts = stats.word_count_ + alpha
            log_theta = np.log(counts / counts.sum(axis=1, keepdims=True))
            terms = np.where(x[:, None, :] > 0, x[:, None, :] * log_theta[None], 0.0)
    return terms.sum(axis=2) + model.class_log_prior_


@pytest.mark.parametrize("kind", ["bernoulli", "multinomial"])
@pytest.mark.parametrize("alpha", [0, "0.01", "0.5", 1, 3])
def test_sparse_scoring_equals_dense_formula(training, test_matrix, kind, alpha):
    model = training.model(kind, alpha)
    sparse = model.joint_log_likelihood(test_matrix)
    dense = dense_joint_log_likelihood(model, test_matrix)
    assert not np.isnan(sparse).any()
    assert ((sparse == -np.inf) == (dense == -np.inf)).all()
    finite = np.isfinite(dense)
    np.testing.assert_allclose(sparse[finite], dense[finite], rtol=1e-12)
    if alpha == 0:
        assert (sparse == -np.inf).any()  # the test set does hit zero factors


@pytest.mark.parametrize("kind", ["bernoulli", "multinomial"])
def test_posteriors_sum_to_one_and_match_logsumexp(training, test_matrix, kind):
    model = training.model(kind, "0.5")
    log_posterior, decidable = model.predict_log_proba(test_matrix)
    assert decidable.all()
    jll = model.joint_log_likelihood(test_matrix)
    np.testing.assert_allclose(log_posterior, jll - logsumexp(jll, axis=1, keepdims=True), atol=1e-12)
    np.testing.assert_allclose(np.exp(log_posterior).sum(axis=1), 1.0, atol=1e-12)


def test_undecidable_rows_have_no_posterior(training, test_matrix):
    model = training.model("bernoulli", 0)
    log_posterior, decidable = model.predict_log_proba(test_matrix)
    jll = model.joint_log_likelihood(test_matrix)
    assert (~decidable == np.all(jll == -np.inf, axis=1)).all()
    assert (~decidable).any()
    assert not np.isnan(log_posterior).any()
    assert (model.predict_index(test_matrix)[~decidable] == -1).all()
    assert all(label is None for label, ok in zip(model.predict(test_matrix), decidable, strict=True) if not ok)
    np.testing.assert_allclose(np.exp(log_posterior[decidable]).sum(axis=1), 1.0, atol=1e-12)


def test_statistics_are_the_counts(training):
    stats = training.statistics
    x = training.matrix.toarray()
    y = training.class_index
    for k in range(stats.n_classes):
        assert stats.class_count_[k] == (y == k).sum()
        np.testing.assert_array_equal(stats.word_count_[k], x[y == k].sum(axis=0))
        np.testing.assert_array_equal(stats.document_count_[k], (x[y == k] > 0).sum(axis=0))


def test_a_new_alpha_needs_only_the_statistics(training, test_matrix):
    """Parameters come from the kept counts: a copy of the statistics alone gives the same model."""
    stats = training.statistics
    alone = ClassStatistics(
        stats.classes, stats.vocabulary,
        stats.class_count_.copy(), stats.document_count_.copy(), stats.word_count_.copy(),
    )
    for alpha in (0, "0.25", 2):
        for kind in ("bernoulli", "multinomial"):
            from_training = training.model(kind, alpha)
            from_counts = fit_naive_bayes(alone, kind, alpha)
            np.testing.assert_array_equal(from_training.feature_log_prob_, from_counts.feature_log_prob_)
            np.testing.assert_array_equal(
                from_training.predict_index(test_matrix), from_counts.predict_index(test_matrix))


@pytest.fixture(scope="module")
def with_certain_words():
    """Every 'a' document says "always", so ψ(always | a) = 1 at α = 0."""
    return TrainingSet.build(Corpus.from_pairs(
        [("a", "always red"), ("a", "always green"), ("b", "blue red"), ("b", "blue blue green"), ("b", "green")]
    ))


def test_alpha_zero_has_exact_zeros_and_ones_and_no_nan(with_certain_words):
    training = with_certain_words
    model = training.model("bernoulli", 0)
    stats = training.statistics
    never = stats.document_count_ == 0
    always = stats.document_count_ == stats.class_count_[:, None]
    assert never.sum() == 2 and always.sum() == 1
    assert (model.feature_prob_[never] == 0.0).all() and (model.feature_log_prob_[never] == -np.inf).all()
    assert (model.feature_prob_[always] == 1.0).all() and (model.absent_log_prob_[always] == -np.inf).all()
    assert (model.absent_log_prob_[never] == 0.0).all()
    assert not np.isnan(model.feature_log_prob_).any() and not np.isnan(model.absent_log_prob_).any()
    multinomial = training.model("multinomial", 0)
    assert (multinomial.feature_prob_[stats.word_count_ == 0] == 0.0).all()
    assert not np.isnan(multinomial.feature_log_prob_).any()
    # "blue" is never in 'a' and "always" never in 'b'; a review without "always" cannot be 'a'.
    assert model.predict(training.transform(["blue always", "always", "red"])) == [None, "a", "b"]


def test_epsilon_floor_clips_and_removes_zeros(with_certain_words):
    training = with_certain_words
    model = training.model("bernoulli", 0, epsilon=1e-14)
    assert model.feature_prob_.min() == 1e-14 and model.feature_prob_.max() == 1 - 1e-14
    assert np.isfinite(model.feature_log_prob_).all() and np.isfinite(model.absent_log_prob_).all()
    assert model.predict(training.transform(["blue always", "always", "red"])) == ["a", "a", "b"]
    assert model.exact_feature_prob(0, 0) is None
    multinomial = training.model("multinomial", 0, epsilon=1e-9)
    assert multinomial.feature_prob_.min() == 1e-9 and np.isfinite(multinomial.feature_log_prob_).all()


def test_priors_learned_uniform_and_given(training):
    learned = training.model("multinomial", 1)
    counts = training.statistics.class_count_
    assert learned.class_prior_exact == tuple(Fraction(int(c), int(counts.sum())) for c in counts)
    uniform = training.model("multinomial", 1, fit_prior=False)
    assert uniform.class_prior_exact == (Fraction(1, 3),) * 3
    np.testing.assert_allclose(uniform.class_log_prior_, -np.log(3))
    given = training.model("multinomial", 1, class_prior=["0.5", "0.5", "0"])
    assert given.class_prior_exact == (Fraction(1, 2), Fraction(1, 2), Fraction(0))
    assert given.class_log_prior_[2] == -np.inf
    assert "gamma" not in given.predict(training.matrix)


@pytest.mark.parametrize(
    "prior, message",
    [(["0.5", "0.5"], "needs 3 values"), (["0.5", "0.5", "0.5"], "add up to 1"),
     (["1.5", "-0.5", "0"], "between 0 and 1"), (["a", "b", "c"], "class prior must be a number")],
)
def test_bad_priors_are_refused(training, prior, message):
    with pytest.raises(ValueError, match=message):
        training.model("multinomial", 1, class_prior=prior)


@pytest.mark.parametrize("value, expected", [("0", Fraction(0)), ("0.1", Fraction(1, 10)), (0.1, Fraction(1, 10)),
                                              (1, Fraction(1)), ("1/3", Fraction(1, 3)), (" 2.5 ", Fraction(5, 2))])
def test_parse_alpha(value, expected):
    assert parse_alpha(value) == expected


@pytest.mark.parametrize("value, message", [("-1", "0 or more"), ("abc", "must be a number"),
                                             ("nan", "must be a number"), ("inf", "must be a number"),
                                             ("", "must be a number")])
def test_bad_alpha_is_refused(value, message):
    with pytest.raises(ValueError, match=message):
        parse_alpha(value)


def test_bad_model_options_are_refused(training):
    with pytest.raises(ValueError, match="model must be one of"):
        training.model("gaussian", 1)
    with pytest.raises(ValueError, match="ε-floor"):
        training.model("bernoulli", 1, epsilon=0.7)


def test_multinomial_alpha_zero_refuses_a_class_without_words():
    corpus = Corpus.from_pairs([("a", "red green"), ("a", "green"), ("b", "x"), ("b", "!")])
    training = TrainingSet.build(corpus)
    with pytest.raises(CorpusError, match="Class 'b' has no words in the vocabulary"):
        training.model("multinomial", 0)
    assert training.model("multinomial", 1).exact_feature_prob(1, 0) == Fraction(1, 2)  # (0 + 1)/(0 + 2·1)


# -- the trace -----------------------------------------------------------------------------------------


def _log_sum(class_trace):
    total = class_trace.log_prior + math.fsum(f.log_value for f in class_trace.factors)
    if class_trace.absent_words is not None:
        total += class_trace.absent_words.log_product
    return total


@pytest.mark.parametrize("kind", ["bernoulli", "multinomial"])
@pytest.mark.parametrize("alpha", ["0.5", 1])
def test_trace_agrees_with_scoring(training, kind, alpha):
    model = training.model(kind, alpha)
    texts = random_corpus(seed=2, n_docs=30).texts
    predictions = model.predict(training.transform(texts))
    jll = model.joint_log_likelihood(training.transform(texts))
    for text, predicted, row in zip(texts, predictions, jll, strict=True):
        trace = explain(model, training.bag, text)
        assert trace.decision == predicted
        for class_trace, expected in zip(trace.per_class, row, strict=True):
            assert class_trace.log_joint == pytest.approx(expected, rel=1e-12)
            assert _log_sum(class_trace) == pytest.approx(class_trace.log_joint, rel=1e-9)
        assert math.fsum(c.posterior for c in trace.per_class) == pytest.approx(1.0, abs=1e-12)
        shift = max(row)
        assert trace.log_shift == shift
        assert trace.log_evidence == pytest.approx(logsumexp(row), rel=1e-12)


def test_bernoulli_trace_aggregates_absent_words_honestly(training):
    """With a large vocabulary the absent words are one factor, equal to the product over each of them."""
    assert len(training.vocabulary) > LISTED_ABSENT_LIMIT
    model = training.model("bernoulli", 1)
    first, second, third = training.vocabulary[:3]
    trace = explain(model, training.bag, f"{first} {second} {second} {third} unknownword")
    assert trace.unseen == ("unknownword",)
    assert [(f.word, f.count) for f in trace.features] == [(first, 1), (second, 2), (third, 1)]
    for k, class_trace in enumerate(trace.per_class):
        absent = list(range(3, len(training.vocabulary)))
        assert class_trace.absent_words.count == len(absent)
        assert class_trace.absent_words.log_product == pytest.approx(model.absent_log_prob_[k, absent].sum(), rel=1e-12)
        assert len(class_trace.factors) == 3 and all(f.present for f in class_trace.factors)
        assert class_trace.joint == pytest.approx(math.exp(class_trace.log_joint), rel=1e-9)


def test_trace_names_absent_zero_factors_in_a_large_vocabulary():
    corpus = Corpus.from_pairs(
        [("a", f"common a{j} a{j + 1}") for j in range(40)] + [("b", f"b{j} b{j + 1}") for j in range(40)]
    )
    training = TrainingSet.build(corpus)
    assert len(training.vocabulary) > LISTED_ABSENT_LIMIT
    model = training.model("bernoulli", 0)
    trace = explain(model, training.bag, "b3 b4")
    by_class = {c.label: c for c in trace.per_class}
    assert [(z.word, z.present) for z in by_class["a"].zero_factors] == [("b3", True), ("b4", True), ("common", False)]
    assert by_class["a"].absent_words.log_product == -math.inf
    assert by_class["b"].zero_factors == () and trace.decision == "b"


def test_unseen_words_are_ignored(training):
    model = training.model("multinomial", 1)
    first, second = training.vocabulary[:2]
    plain = explain(model, training.bag, f"{first} {second}")
    with_unknown = explain(model, training.bag, f"{first} zebra {second} quokka zebra")
    assert with_unknown.unseen == ("zebra", "quokka")
    assert [c.log_joint for c in plain.per_class] == [c.log_joint for c in with_unknown.per_class]


def test_trace_of_an_empty_review_is_the_prior():
    corpus = Corpus.from_pairs([("a", "x1 x2"), ("b", "y1 y2"), ("b", "y1")])
    training = TrainingSet.build(corpus)
    model = training.model("multinomial", 1)
    trace = explain(model, training.bag, "")
    assert [c.posterior for c in trace.per_class] == pytest.approx([1 / 3, 2 / 3])
    assert [c.joint_exact for c in trace.per_class] == [Fraction(1, 3), Fraction(2, 3)]
    tie = explain(training.model("multinomial", 1, fit_prior=False), training.bag, "")
    assert tie.decision == "a" and tie.tied == ("a", "b")


def test_trace_has_no_exact_values_under_a_floor(training):
    trace = explain(training.model("bernoulli", 0, epsilon=1e-14), training.bag, "w001")
    assert not trace.exact and all(c.joint_exact is None for c in trace.per_class)
    assert all(f.ratio is None for c in trace.per_class for f in c.factors)


def test_binary_multinomial_counts_presence():
    corpus = Corpus.from_pairs([("a", "spam spam spam eggs"), ("b", "eggs ham")])
    training = TrainingSet.build(corpus)
    counts = training.model("multinomial", 1)
    binary = training.model("multinomial", 1, binary=True)
    spam = training.bag.index["spam"]
    assert counts.exact_feature_prob(0, spam) == Fraction(4, 7)  # (3 + 1)/(4 + 3·1)
    assert binary.exact_feature_prob(0, spam) == Fraction(2, 5)  # (1 + 1)/(2 + 3·1)
    trace = explain(binary, training.bag, "spam spam")
    assert [(f.word, f.count, f.value) for f in trace.features] == [("spam", 2, 1)]
    row = sp.csr_matrix(np.array([[0, 0, 2]]))
    assert binary.joint_log_likelihood(row)[0, 0] == pytest.approx(math.log(1 / 2) + math.log(2 / 5))
