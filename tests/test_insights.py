"""Insights: the α sweep, telling words, overconfidence and sampling, checked against values computed by hand,
against straightforward dense computations, against scikit-learn, and against the lecture notebook's output."""
from __future__ import annotations

import json
import math
from fractions import Fraction
from itertools import pairwise

import numpy as np
import pytest
from scipy.special import logsumexp
from scipy.stats import chisquare
from sklearn.metrics import accuracy_score, log_loss
from sklearn.naive_bayes import BernoulliNB, MultinomialNB

from webnb.engine import (
    Corpus,
    CorpusError,
    TrainingSet,
    VocabularyOptions,
    evaluate,
    read_corpus,
)
from webnb.engine.records.insights import (
    DEFAULT_ALPHAS,
    alpha_sweep,
    discriminative_words,
    mean_document_length,
    overconfidence,
    sample_document,
    top_words,
    unique_top_words,
)
from webnb.engine.text import training as training_module
from webnb.engine.text.bag import BagOfWords
from webnb.engine.text.models import NaiveBayes
from webnb.engine.text.statistics import ClassStatistics
from webnb.examples import load_example_corpus

# -- a small corpus, worked by hand -------------------------------------------------------------------------------
#
# Vocabulary: at lunch meeting money noon now prize see win you.
# spam (3 documents, 10 words): win 3, money 2, now 3, prize 2.
# ham (3 documents, 11 words): at 3, noon 2, lunch 2, meeting 1, money 1, see 1, you 1.
# Multinomial with α = 0 (θ = c_jk / Σ_j c_jk, priors 1/2 each):
#   "money at noon"  ham:  spam has no "at"/"noon" → ham with probability 1: correct, loss 0
#   "win money"      spam: ham has no "win" → spam with probability 1: correct, loss 0
#   "win lunch"      spam: spam has no "lunch", ham no "win" → undecidable, loss +∞
#   "prize money"    ham:  ham has no "prize" → spam: wrong, P(ham) = 0, loss +∞
#   "money"          ham:  P(spam) ∝ 2/10, P(ham) ∝ 1/11 → spam: wrong, loss −log((1/11)/(2/10 + 1/11)) = log 3.2
#   "see you now"    spam: spam has no "see"/"you", ham no "now" → undecidable, loss +∞

HAND_TRAIN = (
    ("spam", "win money now"),
    ("spam", "win win prize"),
    ("spam", "money prize now now"),
    ("ham", "meeting at noon"),
    ("ham", "lunch money at noon"),
    ("ham", "see you at lunch"),
)
HAND_TEST = (
    ("ham", "money at noon"),
    ("spam", "win money"),
    ("spam", "win lunch"),
    ("ham", "prize money"),
    ("ham", "money"),
    ("spam", "see you now"),
)


@pytest.fixture(scope="module")
def hand() -> TrainingSet:
    return TrainingSet.build(Corpus.from_pairs(HAND_TRAIN))


@pytest.fixture(scope="module")
def hand_test(hand):
    return hand.transform([text for _, text in HAND_TEST]), [label for label, _ in HAND_TEST]


def dense_log_posterior(training: TrainingSet, kind: str, alpha: float, matrix) -> np.ndarray:
    """The textbook formulas over every word, dense, for α > 0 (no zero probabilities)."""
    stats = training.statistics
    x = matrix.toarray().astype(float)
    log_prior = np.log(stats.class_count_ / stats.class_count_.sum())
    if kind == "bernoulli":
        x = (x > 0).astype(float)
        psi = (stats.document_count_ + alpha) / (stats.class_count_[:, None] + 2 * alpha)
        jll = x @ np.log(psi).T + (1 - x) @ np.log(1 - psi).T + log_prior
    else:
        counts = stats.word_count_ + alpha
        jll = x @ np.log(counts / counts.sum(axis=1, keepdims=True)).T + log_prior
    return jll - logsumexp(jll, axis=1, keepdims=True)


# -- 1. the α sweep ---------------------------------------------------------------------------------------------------


def test_default_alphas_are_zero_and_a_log_grid():
    assert len(DEFAULT_ALPHAS) == 20
    assert DEFAULT_ALPHAS[0] == 0.0
    np.testing.assert_allclose(DEFAULT_ALPHAS[1:], 10.0 ** np.linspace(-3, 1, 19), rtol=1e-15)
    assert DEFAULT_ALPHAS[1] == pytest.approx(0.001) and DEFAULT_ALPHAS[-1] == pytest.approx(10.0)


@pytest.mark.parametrize("kind", ["bernoulli", "multinomial"])
def test_sweep_at_alpha_one_equals_a_dense_computation(hand, hand_test, kind):
    matrix, labels = hand_test
    point = alpha_sweep(hand, matrix, labels, kind=kind, alphas=[1]).points[0]
    log_posterior = dense_log_posterior(hand, kind, 1.0, matrix)
    true = np.array([hand.classes.index(label) for label in labels])
    assert point.alpha == 1.0
    assert point.accuracy == np.mean(log_posterior.argmax(axis=1) == true)
    assert point.log_loss == pytest.approx(-log_posterior[np.arange(len(true)), true].mean(), rel=1e-12)
    assert point.undecidable == point.infinite_loss_documents == 0


@pytest.mark.parametrize(("kind", "estimator"), [("bernoulli", BernoulliNB), ("multinomial", MultinomialNB)])
def test_sweep_equals_sklearn_on_the_hand_corpus(hand, hand_test, kind, estimator):
    matrix, labels = hand_test
    sweep = alpha_sweep(hand, matrix, labels, kind=kind, alphas=[0.1, 1, 2])
    for point in sweep.points:
        theirs = estimator(alpha=point.alpha, force_alpha=True).fit(hand.matrix, list(hand.corpus.labels))
        assert point.accuracy == accuracy_score(labels, theirs.predict(matrix))
        expected = log_loss(labels, theirs.predict_proba(matrix), labels=theirs.classes_)
        assert point.log_loss == pytest.approx(expected, rel=1e-12)


def test_alpha_zero_gives_infinite_log_loss_counted_by_hand(hand, hand_test):
    matrix, labels = hand_test
    point = alpha_sweep(hand, matrix, labels, kind="multinomial", alphas=[0]).points[0]
    assert point.log_loss == math.inf
    assert point.correct == 2 and point.accuracy == 2 / 6
    assert point.undecidable == 2  # "win lunch", "see you now"
    assert point.infinite_loss_documents == 3  # the two undecidable ones and "prize money"
    # The same counts as evaluate() makes.
    evaluation = evaluate(hand.model("multinomial", 0), matrix, labels)
    assert (evaluation.correct, evaluation.undecidable) == (2, 2)


def test_alpha_zero_log_loss_is_finite_when_no_true_class_is_impossible(hand):
    texts, labels = ["money at noon", "win money", "money"], ["ham", "spam", "ham"]
    point = alpha_sweep(hand, hand.transform(texts), labels, kind="multinomial", alphas=[0]).points[0]
    assert point.infinite_loss_documents == 0
    assert point.log_loss == pytest.approx(math.log(3.2) / 3, rel=1e-14)  # losses 0, 0, log 3.2


def test_sweep_never_gives_nan(hand, hand_test):
    matrix, labels = hand_test
    for kind in ("bernoulli", "multinomial"):
        for point in alpha_sweep(hand, matrix, labels, kind=kind).points:
            assert not math.isnan(point.log_loss)


def test_sweep_predictions_and_posteriors_match_the_model(spam_ham):
    # One joint log-likelihood per α serves both: check against the model's own predict_index / predict_log_proba.
    corpus = load_example_corpus("spam-ham")
    matrix = spam_ham.transform(corpus.texts + ("free lunch", "call me later", "zzz"))
    labels = list(corpus.labels) + ["ham", "ham", "spam"]
    for kind in ("bernoulli", "multinomial"):
        sweep = alpha_sweep(spam_ham, matrix, labels, kind=kind, alphas=[0, "0.01", 1])
        for point in sweep.points:
            model = spam_ham.model(kind, point.alpha)
            evaluation = evaluate(model, matrix, labels)
            assert (point.correct, point.undecidable) == (evaluation.correct, evaluation.undecidable)
            log_posterior, decidable = model.predict_log_proba(matrix)
            true = np.array([model.classes.index(label) for label in labels])
            losses = -log_posterior[np.arange(len(labels)), true]
            assert point.infinite_loss_documents == np.isinf(losses).sum()
            if np.isfinite(losses).all():
                assert point.log_loss == losses.mean()


def test_points_are_in_increasing_alpha_without_repeats(hand, hand_test):
    matrix, labels = hand_test
    sweep = alpha_sweep(hand, matrix, labels, alphas=[1, "0.5", 0.5, 0, 2])
    assert sweep.alphas == (0.0, 0.5, 1.0, 2.0)
    assert alpha_sweep(hand, matrix, labels).alphas == tuple(DEFAULT_ALPHAS)


def test_best_alpha_prefers_accuracy_then_log_loss(hand, hand_test):
    matrix, labels = hand_test
    # α = 0 gets 2 of 6 right; α = 0.1 and α = 0.5 both get 3, and α = 0.5 has the smaller log loss.
    sweep = alpha_sweep(hand, matrix, labels, kind="multinomial", alphas=[0, 0.1, 0.5])
    correct = [p.correct for p in sweep.points]
    assert correct == [2, 3, 3]
    assert sweep.points[2].log_loss < sweep.points[1].log_loss
    assert sweep.best.alpha == 0.5
    # α = 1 gets 4 right: accuracy first.
    assert alpha_sweep(hand, matrix, labels, kind="multinomial", alphas=[0, 0.5, 1]).best.alpha == 1.0


def test_best_alpha_ties_go_to_the_smaller_alpha(hand):
    # Words the model never saw: a multinomial posterior is then the prior for every α, so every point is equal.
    matrix = hand.transform(["hello there", "goodbye"])
    sweep = alpha_sweep(hand, matrix, ["ham", "spam"], kind="multinomial", alphas=[2, 0.5, 1])
    assert len({(p.correct, p.log_loss) for p in sweep.points}) == 1
    assert sweep.points[0].log_loss == pytest.approx(math.log(2))
    assert sweep.best.alpha == 0.5


def test_binary_multinomial_sweep(hand, hand_test):
    matrix, labels = hand_test
    sweep = alpha_sweep(hand, matrix, labels, kind="multinomial", binary=True, alphas=[1])
    assert sweep.binary
    theirs = MultinomialNB(alpha=1.0).fit((hand.matrix > 0).astype(float), list(hand.corpus.labels))
    expected = log_loss(labels, theirs.predict_proba((matrix > 0).astype(float)), labels=theirs.classes_)
    assert sweep.points[0].log_loss == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    ("labels", "message"),
    [
        (["ham"] * 5, r"6 documents but 5 labels"),
        (["ham", "ham", "ham", "spam", "spam", "eggs"], r"never saw in training: 'eggs'"),
    ],
)
def test_sweep_refuses_bad_labels(hand, hand_test, labels, message):
    with pytest.raises(CorpusError, match=message):
        alpha_sweep(hand, hand_test[0], labels)


def test_sweep_refuses_a_matrix_of_another_vocabulary(hand, match_reviews):
    with pytest.raises(ValueError, match=r"8 columns but the vocabulary has 10 words"):
        alpha_sweep(hand, match_reviews.matrix, ["ham"] * 5)


def test_sweep_refuses_bad_alphas(hand, hand_test):
    with pytest.raises(ValueError, match="at least one α"):
        alpha_sweep(hand, *hand_test, alphas=[])
    with pytest.raises(ValueError, match="0 or more"):
        alpha_sweep(hand, *hand_test, alphas=[-1])


def test_sweep_as_plain_data(hand, hand_test):
    data = alpha_sweep(hand, *hand_test, alphas=[0, 1]).to_dict()
    json.dumps(data, allow_nan=False)
    assert data["points"][0]["log_loss"] == "inf"
    assert data["points"][1]["alpha"] == 1.0 and isinstance(data["points"][1]["log_loss"], float)
    assert data["best"]["alpha"] == 1.0


# -- on the shared corpora -----------------------------------------------------------------------------------------


@pytest.mark.corpora
def test_sweep_equals_sklearn_on_sms(sms_spam_held_out):
    train, test, training, matrix = (sms_spam_held_out.train, sms_spam_held_out.test, sms_spam_held_out.training,
                                     sms_spam_held_out.test_matrix)
    sweep = alpha_sweep(training, matrix, test.labels, alphas=[0.01, 0.1, 1])
    for point in sweep.points:
        theirs = MultinomialNB(alpha=point.alpha, force_alpha=True).fit(training.matrix, list(train.labels))
        assert point.accuracy == pytest.approx(accuracy_score(test.labels, theirs.predict(matrix)), abs=1e-12)
        expected = log_loss(test.labels, theirs.predict_proba(matrix), labels=theirs.classes_)
        assert point.log_loss == pytest.approx(expected, rel=1e-9, abs=1e-9)
    assert [p.correct for p in sweep.points] == [1375, 1375, 1371]  # of 1393
    assert sweep.best.alpha == 0.1  # tied with α = 0.01 on accuracy, smaller log loss


@pytest.fixture(scope="module")
def newsgroups_train(shared_corpora) -> Corpus:
    return read_corpus(shared_corpora / "20newsgroups-bydate" / "train.jsonl.gz")


@pytest.mark.corpora
@pytest.mark.slow
def test_sweep_on_all_of_20_newsgroups_fits_and_scores_once_per_alpha(shared_corpora, newsgroups_train, monkeypatch):
    """What keeps the sweep fast: each α's model comes from the kept counts and scores the test set once; no word
    is counted again. scripts/benchmark_evaluation.py times it against scikit-learn."""
    test = read_corpus(shared_corpora / "20newsgroups-bydate" / "test.jsonl")
    training = TrainingSet.build(newsgroups_train)
    matrix = training.transform(test.texts)
    assert (len(newsgroups_train), matrix.shape[0], len(training.classes)) == (11314, 7532, 20)
    fitted, scored = [], []
    fit, score = training_module.fit_naive_bayes, NaiveBayes.joint_log_likelihood

    def fitting(statistics, kind, alpha, **options):
        fitted.append(alpha)
        return fit(statistics, kind, alpha, **options)

    def scoring(model, rows, **options):
        scored.append(rows.shape)
        return score(model, rows, **options)

    def counting_again(*args, **kwargs):
        raise AssertionError("the sweep counted words again")

    monkeypatch.setattr(training_module, "fit_naive_bayes", fitting)
    monkeypatch.setattr(NaiveBayes, "joint_log_likelihood", scoring)
    monkeypatch.setattr(BagOfWords, "transform", counting_again)
    monkeypatch.setattr(BagOfWords, "fit_transform", counting_again)
    monkeypatch.setattr(ClassStatistics, "from_matrix", counting_again)
    sweep = alpha_sweep(training, matrix, test.labels)
    assert len(fitted) == len(set(fitted)) == len(sweep.points) == len(DEFAULT_ALPHAS) == 20
    assert scored == [matrix.shape] * 20
    zero = sweep.points[0]
    assert zero.alpha == 0 and zero.log_loss == math.inf and zero.undecidable > 0
    assert all(math.isfinite(p.log_loss) for p in sweep.points[1:])
    # The most accurate α is not the one with the smallest log loss: accuracy decides.
    assert sweep.best.alpha == pytest.approx(0.1)
    assert min(p.log_loss for p in sweep.points) < sweep.best.log_loss
    assert sweep.best.accuracy == evaluate(training.model("multinomial", "0.1"), matrix, test.labels).accuracy


# -- 2. telling words ----------------------------------------------------------------------------------------------


def test_top_words_by_hand(match_reviews):
    # Multinomial, α = 1: θ(positive) = (c + 1)/18: composed, match, was 3/18; and, brilliant, keeper, sharp 2/18.
    words = top_words(match_reviews.model("multinomial", 1), k=5)
    assert words.parameter == "θ"
    positive = words.for_class("positive")
    assert positive.names == ("composed", "match", "was", "and", "brilliant")
    assert [w.probability for w in positive.words] == [3 / 18] * 3 + [2 / 18] * 2
    # θ(negative) = (c + 1)/16: match, not, was 3/16; composed, sharp 2/16.
    assert words.for_class("negative").names == ("match", "not", "was", "composed", "sharp")
    data = words.to_dict()
    json.dumps(data, allow_nan=False)
    assert data["per_class"][1]["words"][0] == {"word": "composed", "index": 2, "probability": 3 / 18}


def test_top_words_equal_a_sort_of_every_word(spam_ham):
    for kind in ("bernoulli", "multinomial"):
        model = spam_ham.model(kind, "0.5")
        table = model.feature_prob_
        for entry, k in zip(top_words(model, k=12).per_class, range(len(model.classes)), strict=True):
            expected = sorted(range(len(model.vocabulary)), key=lambda j: (-table[k, j], model.vocabulary[j]))[:12]
            assert [w.index for w in entry.words] == expected
            assert entry.names == tuple(model.vocabulary[j] for j in expected)


def test_top_words_k_larger_than_the_vocabulary(match_reviews):
    words = top_words(match_reviews.model("bernoulli", 0), k=100)
    assert all(len(entry.words) == 8 for entry in words.per_class)
    with pytest.raises(ValueError, match="k must be a whole number"):
        top_words(match_reviews.model("bernoulli", 0), k=0)


def test_unique_top_words_by_hand(match_reviews):
    # Bernoulli, α = 0: ψ(positive) = n/3: composed, match, was 2/3, then and, brilliant, keeper, sharp 1/3, not 0;
    # ψ(negative) = n/2: match, not, was 1, composed, sharp 1/2, and, brilliant, keeper 0.
    # Top 3: positive {composed, match, was}, negative {match, not, was}.
    words = unique_top_words(match_reviews.model("bernoulli", 0), top=3, k=10)
    assert words.for_class("positive").names == ("composed",)
    assert words.for_class("negative").names == ("not",)
    assert words.for_class("positive").available == 1
    # Top 5 (ties cut alphabetically): positive + and, brilliant; negative + composed, sharp.
    words = unique_top_words(match_reviews.model("bernoulli", 0), top=5, k=10)
    assert words.for_class("positive").names == ("and", "brilliant")
    assert words.for_class("negative").names == ("not", "sharp")


# The lecture notebook (seed 000) printed unique_words[-10:], ascending in ψ.
NOTEBOOK_UNIQUE = {
    "alt.atheism": [
        "someone", "again", "allan", "political", "schneider", "atheism", "caltech", "cco", "keith", "atheists",
    ],
    "comp.graphics": [
        "files", "version", "file", "mail", "image", "keywords", "program", "looking", "please", "graphics",
    ],
    "sci.med": ["soon", "univ", "pittsburgh", "disease", "geb", "banks", "medical", "years", "gordon", "pitt"],
    "soc.religion.christian": [
        "faith", "athos", "church", "bible", "christ", "jesus", "apr", "christians", "1993", "rutgers",
    ],
}


@pytest.fixture(scope="module")
def newsgroups_4(newsgroups_train) -> TrainingSet:
    wanted = set(NOTEBOOK_UNIQUE)
    corpus = newsgroups_train.subset(i for i, label in enumerate(newsgroups_train.labels) if label in wanted)
    return TrainingSet.build(corpus, None, VocabularyOptions(max_features=1000, binary=True))


@pytest.mark.corpora
@pytest.mark.slow
def test_unique_top_words_reproduce_the_notebook(newsgroups_4):
    model = newsgroups_4.model("bernoulli", 0, epsilon=None)
    assert newsgroups_4.statistics.n_documents == 2257 and newsgroups_4.statistics.n_words == 1000
    words = unique_top_words(model, top=200, k=10)
    assert [c.label for c in words.per_class] == list(NOTEBOOK_UNIQUE)
    psi = dict(zip(model.classes, model.feature_prob_, strict=True))
    index = {word: j for j, word in enumerate(model.vocabulary)}
    for entry in words.per_class:
        printed = NOTEBOOK_UNIQUE[entry.label]
        # Our 1000-word vocabulary differs from the notebook's by tie-breaking at rank 1000, and its top-200 cut-offs
        # by tie order; neither touches these words: all four sets are the notebook's exactly.
        assert set(entry.names) == set(printed), entry.label
        # Most probable first, the reverse of the notebook's order; words of equal ψ may be swapped (the notebook's
        # argsort left ties in arbitrary order, here they are alphabetical: ψ(athos) = ψ(church) in
        # soc.religion.christian), so compare the sequences of ψ.
        assert [w.probability for w in entry.words] == [psi[entry.label][index[w]] for w in reversed(printed)]
    christian = words.for_class("soc.religion.christian")
    assert christian.names[-3:] == ("athos", "church", "faith")


@pytest.mark.corpora
@pytest.mark.slow
def test_top_words_on_20_newsgroups(newsgroups_4):
    model = newsgroups_4.model("bernoulli", 0, epsilon=None)
    graphics = top_words(model, k=4).for_class("comp.graphics")
    # Header lines appear in every post (ψ = 1, tied, so alphabetical), then "organization".
    assert graphics.names == ("from", "lines", "subject", "organization")
    assert [w.probability for w in graphics.words[:3]] == [1.0, 1.0, 1.0]


def test_discriminative_words_by_ratio_by_hand(match_reviews):
    # Multinomial, α = 1: θ(positive) = (c + 1)/18, θ(negative) = (c + 1)/16.
    #   and, brilliant, keeper: (2/18)/(1/16) = 16/9; composed: (3/18)/(2/16) = 4/3   → toward positive
    #   not: (3/16)/(1/18) = 27/8; match, was: (3/16)/(3/18) = 9/8; sharp (2/16)/(2/18) = 9/8 → toward negative
    # Equal ratios: the word more probable in the favoured class first (match, was 3/16 before sharp 2/16),
    # then alphabetical.
    result = discriminative_words(match_reviews.model("multinomial", 1), "positive", "negative")
    assert result.considered == 8
    assert [w.word for w in result.toward_positive] == ["and", "brilliant", "keeper", "composed"]
    assert [w.score for w in result.toward_positive] == pytest.approx([16 / 9] * 3 + [4 / 3], rel=1e-15)
    assert [w.word for w in result.toward_negative] == ["not", "match", "was", "sharp"]
    assert [w.score for w in result.toward_negative] == pytest.approx([27 / 8] + [9 / 8] * 3, rel=1e-15)
    keeper = result.toward_positive[2]
    assert (keeper.positive_probability, keeper.negative_probability) == pytest.approx((2 / 18, 1 / 16))


def test_discriminative_words_by_difference_by_hand(match_reviews):
    # Bernoulli, α = 1: ψ(positive) = (n + 1)/5, ψ(negative) = (n + 1)/4.
    #   and, brilliant, keeper: 2/5 − 1/4 = 0.15; composed: 3/5 − 2/4 = 0.1
    #   not: 3/4 − 1/5 = 0.55; match, was: 3/4 − 3/5 = 0.15; sharp: 2/4 − 2/5 = 0.1
    result = discriminative_words(match_reviews.model("bernoulli", 1), "positive", "negative", by="difference", k=3)
    assert [w.word for w in result.toward_positive] == ["and", "brilliant", "keeper"]
    assert [w.score for w in result.toward_positive] == pytest.approx([0.15] * 3, rel=1e-12)
    assert [w.word for w in result.toward_negative] == ["not", "match", "was"]
    assert [w.score for w in result.toward_negative] == pytest.approx([0.55, 0.15, 0.15], rel=1e-12)
    # Ranked by difference, the sides of the comparison swap when the classes do.
    swapped = discriminative_words(match_reviews.model("bernoulli", 1), "negative", "positive", by="difference", k=3)
    assert [w.word for w in swapped.toward_positive] == ["not", "match", "was"]


def test_discriminative_words_threshold(match_reviews):
    # Bernoulli, α = 1: only composed (3/5), match, not, was (3/4 in negative) have ψ > 0.5 in either class.
    result = discriminative_words(match_reviews.model("bernoulli", 1), "positive", "negative", threshold=0.5)
    assert result.considered == 4
    assert [w.word for w in result.toward_positive] == ["composed"]  # (3/5)/(2/4) = 1.2
    assert [w.word for w in result.toward_negative] == ["not", "match", "was"]  # 3.75, 1.25, 1.25


def test_discriminative_words_with_infinite_ratios(match_reviews):
    # Multinomial, α = 0: θ(positive) = c/10, θ(negative) = c/8. "and", "brilliant", "keeper" never occur in a
    # negative review (ratio ∞), "not" never in a positive one.
    result = discriminative_words(match_reviews.model("multinomial", 0), "positive", "negative")
    assert [w.word for w in result.toward_positive] == ["and", "brilliant", "keeper", "composed"]
    assert [w.score for w in result.toward_positive] == [math.inf] * 3 + [pytest.approx(1.6)]
    assert [w.word for w in result.toward_negative] == ["not", "match", "was", "sharp"]
    assert result.toward_negative[0].score == math.inf
    assert result.toward_negative[0].positive_probability == 0.0
    scores = [w.score for w in result.toward_positive + result.toward_negative]
    assert not any(math.isnan(s) for s in scores)
    data = result.to_dict()
    json.dumps(data, allow_nan=False)
    assert data["toward_positive"][0]["score"] == "inf"


def test_discriminative_words_on_a_larger_vocabulary_equal_a_plain_sort(spam_ham):
    model = spam_ham.model("multinomial", "0.5")
    table = model.feature_prob_
    p, q = table[model.classes.index("spam")], table[model.classes.index("ham")]
    result = discriminative_words(model, "spam", "ham", k=7, threshold=0.01)
    considered = [j for j in range(len(p)) if p[j] > 0.01 or q[j] > 0.01]
    expected = sorted(
        (j for j in considered if p[j] > q[j]), key=lambda j: (-(p[j] / q[j]), -p[j], model.vocabulary[j])
    )[:7]
    assert [w.index for w in result.toward_positive] == expected
    assert result.considered == len(considered)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"positive": "positive", "negative": "positive"}, "two different classes"),
        ({"positive": "neutral", "negative": "positive"}, r"'neutral' is not a class of this model"),
        ({"positive": "positive", "negative": "negative", "by": "log"}, "by must be one of"),
        ({"positive": "positive", "negative": "negative", "threshold": 1.5}, "between 0 and 1"),
    ],
)
def test_discriminative_words_refuse_bad_arguments(match_reviews, arguments, message):
    with pytest.raises(ValueError, match=message):
        discriminative_words(match_reviews.model("multinomial", 1), **arguments)


# -- 3. overconfidence ---------------------------------------------------------------------------------------------


def direct_log_posterior(training: TrainingSet, kind: str, alpha, text: str, repeats: int) -> np.ndarray:
    """The posterior of the review counted ``repeats`` times, computed directly: for the multinomial model the
    text written out ``repeats`` times, for Bernoulli the dense formula with every factor raised to that power."""
    model = training.model(kind, alpha)
    if kind == "multinomial":
        joint = model.joint_log_likelihood(training.transform([" ".join([text] * repeats)]))[0]
        return np.array([-logsumexp(joint - joint[k]) for k in range(len(joint))])
    x = (training.transform([text]).toarray()[0] > 0).astype(float)
    log_likelihood = model.feature_log_prob_ @ x + model.absent_log_prob_ @ (1 - x)
    joint = model.class_log_prior_ + repeats * log_likelihood
    # log P(k | x) = −log Σ_c exp(joint_c − joint_k): for the winning class this is −log(1 + small), so its
    # posterior near 1 keeps every digit.
    return np.array([-logsumexp(joint - joint[k]) for k in range(len(joint))])


@pytest.mark.parametrize("kind", ["bernoulli", "multinomial"])
def test_overconfidence_equals_a_direct_computation(spam_ham, kind):
    text = "Claim your free prize now, call 0800 555 0199"
    curve = overconfidence(spam_ham, text, kind=kind, alpha=1, max_repeats=50)
    assert len(curve.points) == 50 and [p.repeats for p in curve.points] == list(range(1, 51))
    for n in (1, 2, 3, 7, 20, 50):
        direct = direct_log_posterior(spam_ham, kind, 1, text, n)
        point = curve.points[n - 1]
        # In log space to 1e-12 relative (the top class's log posterior is ≈ 0, hence the tiny absolute
        # tolerance). A loser's posterior exp(−281) inherits the log's absolute error as a relative one, so
        # posteriors are compared as probabilities.
        np.testing.assert_allclose(point.log_posteriors, direct, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(point.posteriors, np.exp(direct), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("kind", ["bernoulli", "multinomial"])
def test_decided_posterior_runs_monotonically_to_one(spam_ham, kind):
    curve = overconfidence(spam_ham, "Claim your free prize now, call 0800 555 0199", kind=kind, alpha=1)
    assert curve.decision == curve.converges_to == "spam"
    spam = curve.posterior_of("spam")
    assert all(later >= earlier for earlier, later in pairwise(spam))
    assert spam[0] < 1.0 and spam[-1] == 1.0
    n = curve.saturates_at
    assert n is not None and spam[n - 2] < 1.0 and spam[n - 1] == 1.0
    assert all(point.decision == "spam" for point in curve.points)
    for point in curve.points:
        # exp(log posterior): the log evidence ≈ −35 carries an absolute error of a few ulps (7e-15 each).
        assert sum(point.posteriors) == pytest.approx(1.0, abs=1e-13)


def test_repeating_can_overturn_a_decision_made_by_the_prior(match_reviews):
    # Multinomial, α = 1, "match was sharp": log P(x | negative) > log P(x | positive), but the prior 3/5 decides
    # the single review for positive. Counted again and again, the likelihood wins.
    # P(x | negative) = (3/16)(3/16)(2/16) = 18/4096, P(x | positive) = (3/18)(3/18)(2/18) = 18/5832, so after n
    # repeats P(positive | x) / P(negative | x) = (3/2)(4096/5832)ⁿ: 1.0035 at n = 1, 0.7048 at n = 2.
    curve = overconfidence(match_reviews, "match was sharp", kind="multinomial", alpha=1, max_repeats=200)
    assert curve.log_likelihood == pytest.approx((math.log(18 / 4096), math.log(18 / 5832)), rel=1e-14)
    assert curve.decision == "positive" and curve.converges_to == "negative"
    assert curve.points[0].posteriors[1] == pytest.approx(1.5 * 4096 / 5832 / (1 + 1.5 * 4096 / 5832), rel=1e-13)
    assert curve.points[1].decision == "negative"
    negative_posterior = curve.posterior_of("negative")
    assert all(later >= earlier for earlier, later in pairwise(negative_posterior))
    # It saturates where the exact posterior 1/(1 + r), r = (3/2)(4096/5832)ⁿ, rounds to 1.0 in float64: r < 2⁻⁵⁴.
    # (1.0 / (1.0 + r) computed in floats would say n = 106 already: 1 + r rounds to 1 from r < 2⁻⁵³.)
    exact = [1 / (1 + Fraction(3, 2) * Fraction(4096, 5832) ** n) for n in range(1, 201)]
    assert curve.posterior_of("negative") == pytest.approx([float(p) for p in exact], rel=1e-13)
    expected = next(n for n, p in enumerate(exact, start=1) if float(p) == 1.0)
    assert curve.saturates_at == expected == 108
    assert curve.points[curve.saturates_at - 1].posteriors[0] == 1.0
    assert curve.points[-1].posteriors[0] == 1.0 and 0 < curve.points[-1].posteriors[1] < 1e-30


def test_a_review_with_only_unknown_words_never_saturates(match_reviews):
    curve = overconfidence(match_reviews, "lovely weather", kind="multinomial", alpha=1, max_repeats=5)
    assert curve.known_words == 0
    assert curve.log_likelihood == (0.0, 0.0)
    assert curve.converges_to is None and curve.saturates_at is None
    assert all(p.posteriors == pytest.approx((0.4, 0.6), rel=1e-15) for p in curve.points)


def test_overconfidence_with_zero_factors(match_reviews):
    # Bernoulli, α = 0: "not sharp match" is impossible in both classes, at every n.
    curve = overconfidence(match_reviews, "not sharp match", kind="bernoulli", alpha=0, max_repeats=3)
    assert curve.decision is None and curve.converges_to is None and curve.saturates_at is None
    assert all(p.posteriors == (0.0, 0.0) and p.decision is None for p in curve.points)
    # "match was not sharp" is impossible for positive only: negative has probability 1 from the start.
    curve = overconfidence(match_reviews, "match was not sharp", kind="bernoulli", alpha=0, max_repeats=3)
    assert curve.saturates_at == 1 and curve.points[0].posteriors == (1.0, 0.0)
    data = curve.to_dict()
    json.dumps(data, allow_nan=False)
    assert data["log_likelihood"][1] == "-inf" and data["points"][0]["log_posteriors"][1] == "-inf"


def test_overconfidence_with_a_prior_of_zero(match_reviews):
    curve = overconfidence(match_reviews, "not composed", kind="bernoulli", alpha=1, class_prior=["0", "1"])
    assert curve.log_prior[0] == -math.inf and curve.log_likelihood[0] == -math.inf
    assert all(p.posteriors == (0.0, 1.0) for p in curve.points)
    assert curve.decision == curve.converges_to == "positive" and curve.saturates_at == 1


# -- 4. sampling ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["bernoulli", "multinomial"])
def test_sampling_is_deterministic_for_a_seed(spam_ham, kind):
    model = spam_ham.model(kind, 1)
    assert sample_document(model, seed=42) == sample_document(model, seed=42)
    documents = {(d.label, d.words) for d in (sample_document(model, seed=s) for s in range(10))}
    assert len(documents) == 10
    assert sample_document(model, seed=7).seed == 7


@pytest.mark.parametrize("kind", ["bernoulli", "multinomial"])
def test_sampled_labels_follow_the_prior(spam_ham, kind):
    model = spam_ham.model(kind, 1)
    labels = [sample_document(model, seed=s, length=0 if kind == "multinomial" else None).label for s in range(4000)]
    observed = [labels.count(label) for label in model.classes]
    expected = model.class_prior_ * len(labels)  # ham 9/16, spam 7/16
    assert chisquare(observed, expected).pvalue > 0.01
    assert abs(observed[0] / len(labels) - 9 / 16) < 0.03


def test_multinomial_word_frequencies_approach_theta(spam_ham):
    model = spam_ham.model("multinomial", "0.5")
    n = 200_000
    for k, label in enumerate(model.classes):
        document = sample_document(model, seed=k, label=label, length=n)
        assert document.label == label and len(document.words) == n
        counts = np.zeros(len(model.vocabulary))
        index = {word: j for j, word in enumerate(model.vocabulary)}
        for word in document.words:
            counts[index[word]] += 1
        theta = model.feature_prob_[k]
        # Within 5 standard deviations of a binomial count, for every word.
        assert np.all(np.abs(counts / n - theta) <= 5 * np.sqrt(theta * (1 - theta) / n))


def test_bernoulli_presence_frequencies_approach_psi(spam_ham):
    model = spam_ham.model("bernoulli", 1)
    k = model.classes.index("spam")
    draws = 3000
    present = np.zeros(len(model.vocabulary))
    index = {word: j for j, word in enumerate(model.vocabulary)}
    for seed in range(draws):
        document = sample_document(model, seed=seed, label="spam")
        present[[index[w] for w in document.words]] += 1
        assert list(document.words) == sorted(document.words, key=index.get)  # vocabulary order
    psi = model.feature_prob_[k]
    assert np.all(np.abs(present / draws - psi) <= 5 * np.sqrt(psi * (1 - psi) / draws))


def test_alpha_zero_never_draws_a_word_of_probability_zero(match_reviews):
    bernoulli = match_reviews.model("bernoulli", 0)
    multinomial = match_reviews.model("multinomial", 0)
    for model in (bernoulli, multinomial):
        table = dict(zip(model.classes, model.feature_prob_, strict=True))
        index = {word: j for j, word in enumerate(model.vocabulary)}
        for seed in range(500):
            document = sample_document(model, seed=seed)
            assert all(table[document.label][index[w]] > 0 for w in document.words)
            if model is bernoulli and document.label == "negative":
                # ψ = 1 for match, not, was: present in every negative document drawn.
                assert {"match", "not", "was"} <= set(document.words)
    assert "not" not in {w for s in range(500) for w in sample_document(multinomial, seed=s, label="positive").words}


def test_default_length_is_the_mean_training_length(match_reviews):
    # Positive: 5 + 3 + 2 = 10 tokens in 3 reviews → 3.33 → 3; negative: 4 + 4 = 8 in 2 → 4.
    model = match_reviews.model("multinomial", 1)
    assert [mean_document_length(model, k) for k in range(2)] == [4, 3]
    assert len(sample_document(model, seed=0, label="positive").words) == 3
    assert len(sample_document(model, seed=0, label="negative").words) == 4
    assert len(sample_document(model, seed=0, label="negative", length=11).words) == 11


def test_sampled_document_as_plain_data(match_reviews):
    document = sample_document(match_reviews.model("multinomial", 1), seed=3, label="negative")
    assert document.to_dict() == {"label": "negative", "words": list(document.words), "seed": 3}
    assert document.text == " ".join(document.words)


@pytest.mark.parametrize(
    ("kind", "arguments", "message"),
    [
        ("multinomial", {"seed": 0, "label": "neutral"}, "'neutral' is not a class"),
        ("multinomial", {"seed": -1}, "seed must be a whole number"),
        ("multinomial", {"seed": 0, "length": -2}, "length must be a whole number"),
        ("bernoulli", {"seed": 0, "length": 5}, "no length to choose"),
    ],
)
def test_sampling_refuses_bad_arguments(match_reviews, kind, arguments, message):
    with pytest.raises(ValueError, match=message):
        sample_document(match_reviews.model(kind, 1), **arguments)


# -- the generative pages' additions: the doubt left below 1, and calibration -------------------------------------


def test_log10_doubt_equals_exact_fractions_on_china_japan(china_japan):
    """1 − P(top | x⁽ⁿ⁾) by hand for the textbook review, multinomial α = 1: θ(Chinese | China) = 6/14,
    θ(Tokyo | China) = θ(Japan | China) = 1/14; θ(Chinese | not China) = θ(Tokyo | …) = θ(Japan | …) = 2/9."""
    curve = overconfidence(
        china_japan, "Chinese Chinese Chinese Tokyo Japan", kind="multinomial", alpha=1, max_repeats=300)
    for n in (1, 2, 10, 100, 300):
        china = Fraction(3, 4) * (Fraction(3, 7) ** 3 * Fraction(1, 14) ** 2) ** n
        other = Fraction(1, 4) * (Fraction(2, 9) ** 5) ** n
        doubt = min(china, other) / (china + other)
        expected = math.log10(doubt.numerator) - math.log10(doubt.denominator)
        assert curve.log10_doubt[n - 1] == pytest.approx(expected, abs=1e-9)
    # The top posterior reads 1.0 once the doubt is below half the float64 spacing under 1 (2⁻⁵⁴): here from
    # n = 129 when rounded correctly. numpy's exp may be one ulp off (it gives 1 − 2⁻⁵³ at n = 129), so one more.
    below = next(n for n, d in enumerate(curve.log10_doubt, start=1) if d < -54 * math.log10(2))
    assert below == 129 and curve.saturates_at in (below, below + 1)


def test_log10_doubt_is_minus_infinity_when_the_other_classes_are_impossible(match_reviews):
    curve = overconfidence(match_reviews, "match was sharp", kind="bernoulli", alpha=0, max_repeats=4)
    assert curve.log10_doubt == (-math.inf,) * 4 and curve.saturates_at == 1
    unknown = overconfidence(match_reviews, "lovely weather", kind="multinomial", alpha=1, max_repeats=3)
    prior_doubt = math.log10(2 / 5)  # no evidence: the posterior stays at the prior 3/5
    assert unknown.log10_doubt == pytest.approx((prior_doubt,) * 3, abs=1e-12)


def test_calibration_by_hand(hand, hand_test):
    from webnb.engine.records.insights import calibration

    matrix, labels = hand_test
    model = hand.model("multinomial", 1)
    result = calibration(model, matrix, labels, threshold=0.9)
    evaluation = evaluate(model, matrix, labels)
    posterior = np.exp(dense_log_posterior(hand, "multinomial", 1.0, matrix))
    top = posterior.max(axis=1)
    right = posterior.argmax(axis=1) == np.array([hand.classes.index(label) for label in labels])
    assert (result.n_test, result.correct, result.accuracy, result.undecidable) == (
        evaluation.n_test, evaluation.correct, evaluation.accuracy, evaluation.undecidable)
    assert result.mean_top_posterior == pytest.approx(top.mean(), rel=1e-12)
    assert result.gap == pytest.approx(top.mean() - right.mean(), rel=1e-12)
    assert (result.sure, result.sure_correct) == (int((top >= 0.9).sum()), int(((top >= 0.9) & right).sum()))
    assert json.loads(json.dumps(result.to_dict()))["threshold"] == 0.9


def test_calibration_leaves_undecidable_documents_out_of_the_mean(hand, hand_test):
    from webnb.engine.records.insights import calibration

    matrix, labels = hand_test
    result = calibration(hand.model("multinomial", 0), matrix, labels)
    # See the table at the top: two documents correct at probability 1, two undecidable, two wrong.
    assert (result.correct, result.undecidable, result.n_test) == (2, 2, 6)
    assert result.accuracy == pytest.approx(2 / 6) and result.decided_accuracy == pytest.approx(2 / 4)
    spam_joint, ham_joint = Fraction(2, 10) * Fraction(1, 2), Fraction(1, 11) * Fraction(1, 2)
    spam_share = spam_joint / (spam_joint + ham_joint)
    assert result.mean_top_posterior == pytest.approx((1 + 1 + 1 + float(spam_share)) / 4, rel=1e-12)
    with pytest.raises(ValueError, match="threshold"):
        calibration(hand.model("multinomial", 1), matrix, labels, threshold=0)
