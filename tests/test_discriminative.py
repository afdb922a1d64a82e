"""Multinomial logistic (softmax) regression: its gradient, its decisions, and agreement with scikit-learn.

scikit-learn's ``LogisticRegression(C=C)`` (lbfgs, L2, intercept not penalised) minimises the same objective
J(W, b) = ½‖W‖² + C · Σ_i −log softmax(x_i Wᵀ + b)[y_i]. On small random problems, fitted to a tight tolerance by
both, the coefficients agree; on the real corpora, both are fitted on the same CSR matrix (our ``TrainingSet``
features) and must reach the same test accuracy (to one point) and our solution an objective no worse than
scikit-learn's (both evaluated by our objective function).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import check_grad
from scipy.special import logsumexp
from sklearn.linear_model import LogisticRegression

from webnb.engine import Corpus, TrainingSet, evaluate, read_corpus, stratified_split
from webnb.engine.text.discriminative import (
    SoftmaxRegression,
    _merge_single_document_words,
    fit_softmax_regression,
    penalised_log_loss,
)

NEWSGROUPS_4 = ("alt.atheism", "comp.graphics", "sci.med", "soc.religion.christian")


def random_counts(n_docs: int, n_words: int, n_classes: int, seed: int) -> tuple[sp.csr_matrix, np.ndarray]:
    """A sparse matrix of small counts, with labels that depend on it (so there is something to learn)."""
    rng = np.random.default_rng(seed)
    matrix = sp.random(n_docs, n_words, density=0.3, format="csr", rng=rng, data_rvs=lambda k: rng.integers(1, 4, k))
    matrix = matrix.astype(np.int64)
    signal = matrix @ rng.normal(size=(n_words, n_classes)) + rng.normal(scale=0.5, size=(n_docs, n_classes))
    class_index = signal.argmax(axis=1)
    class_index[:n_classes] = np.arange(n_classes)  # every class present
    return matrix, class_index


def scikit_learn_objective(estimator: LogisticRegression, matrix, class_index, C: float) -> float:
    """Our J at scikit-learn's solution. With two classes scikit-learn keeps one vector w for the second class; that
    is our (0, w) layout."""
    coef, intercept = estimator.coef_, estimator.intercept_
    if coef.shape[0] == 1:
        coef = np.vstack((np.zeros_like(coef[0]), coef[0]))
        intercept = np.array([0.0, intercept[0]])
    return penalised_log_loss(coef, intercept, matrix, class_index, C)[0]


# -- the objective and its gradient ------------------------------------------------------------------------------


@pytest.mark.parametrize("n_classes", [2, *(pytest.param(n, marks=pytest.mark.slow) for n in (3, 5))])
def test_analytic_gradient_matches_finite_differences(n_classes):
    matrix, class_index = random_counts(40, 15, n_classes, seed=n_classes)
    rng = np.random.default_rng(100 + n_classes)
    n_words, C = matrix.shape[1], 2.5
    size = n_classes * n_words

    def objective(parameters):
        coef, intercept = parameters[:size].reshape(n_classes, n_words), parameters[size:]
        return penalised_log_loss(coef, intercept, matrix, class_index, C)

    def value(parameters):
        return objective(parameters)[0]

    def gradient(parameters):
        _, grad_coef, grad_intercept = objective(parameters)
        assert grad_coef.shape == (n_classes, n_words) and grad_intercept.shape == (n_classes,)
        return np.concatenate((grad_coef.ravel(), grad_intercept))

    for _ in range(3):
        point = rng.normal(scale=0.5, size=size + n_classes)
        analytic = gradient(point)
        # forward differences (scipy's check_grad) and central differences, relative to the gradient's size
        assert check_grad(value, gradient, point, epsilon=1e-7) / np.linalg.norm(analytic) < 1e-6
        step = 1e-5
        central = np.array([
            (value(point + step * e) - value(point - step * e)) / (2 * step) for e in np.eye(len(point))
        ])
        assert np.linalg.norm(central - analytic) / np.linalg.norm(analytic) < 1e-8


def test_objective_is_the_penalty_plus_c_times_the_log_loss():
    matrix, class_index = random_counts(20, 6, 3, seed=7)
    rng = np.random.default_rng(7)
    coef, intercept, C = rng.normal(size=(3, 6)), rng.normal(size=3), 4.0
    scores = matrix.toarray() @ coef.T + intercept
    log_loss = -sum(scores[i, k] - np.log(np.exp(scores[i]).sum()) for i, k in enumerate(class_index))
    expected = 0.5 * (coef**2).sum() + C * log_loss
    assert penalised_log_loss(coef, intercept, matrix, class_index, C)[0] == pytest.approx(expected, rel=1e-12)


def test_huge_scores_do_not_overflow():
    matrix = sp.csr_matrix(np.array([[1000, 0], [0, 1000]]))
    coef = np.array([[5.0, -5.0], [-5.0, 5.0]])  # scores of ±5000: exp() alone would overflow
    value, grad_coef, grad_intercept = penalised_log_loss(coef, np.zeros(2), matrix, np.array([1, 0]), 1.0)
    assert value == pytest.approx(0.5 * 100 + 2 * 10_000)  # each document loses 10 000 nats
    assert np.isfinite(grad_coef).all() and np.isfinite(grad_intercept).all()


# -- agreement with scikit-learn on small problems, to many digits ------------------------------------------------


@pytest.mark.parametrize("n_classes", [2, 3, 4])
@pytest.mark.parametrize("C", [pytest.param(0.1, marks=pytest.mark.slow), 1.0,
                               pytest.param(10.0, marks=pytest.mark.slow)])
def test_same_fit_as_scikit_learn_on_random_counts(n_classes, C):
    matrix, class_index = random_counts(80, 12, n_classes, seed=10 * n_classes + int(C))
    ours = fit_softmax_regression(matrix, class_index, [f"c{k}" for k in range(n_classes)], C=C, tol=1e-10)
    theirs = LogisticRegression(C=C, tol=1e-10, max_iter=10_000).fit(matrix.astype(float), class_index)
    assert ours.converged
    J = ours.objective(matrix, class_index)
    assert J == pytest.approx(ours.objective_, rel=1e-12)
    assert J == pytest.approx(scikit_learn_objective(theirs, matrix.astype(float), class_index, C), rel=1e-9)
    if n_classes == 2:
        # scikit-learn's one vector is our second row; the first is pinned at 0
        assert not ours.coef_[0].any() and ours.intercept_[0] == 0
        np.testing.assert_allclose(ours.coef_[1:], theirs.coef_, atol=1e-5)
        np.testing.assert_allclose(ours.intercept_[1:], theirs.intercept_, atol=1e-5)
    else:
        np.testing.assert_allclose(ours.coef_, theirs.coef_, atol=1e-5)
        # an unpenalised bias is known only up to a shared constant: compare the centred biases
        np.testing.assert_allclose(ours.intercept_, theirs.intercept_ - theirs.intercept_.mean(), atol=1e-5)
    theirs_log_proba = theirs.predict_log_proba(matrix.astype(float))
    np.testing.assert_allclose(ours.predict_log_proba(matrix), theirs_log_proba, atol=1e-5)


def test_the_fit_is_a_stationary_point_of_the_objective():
    matrix, class_index = random_counts(60, 20, 4, seed=3)
    model = fit_softmax_regression(matrix, class_index, list("abcd"), C=3.0)
    _, grad_coef, grad_intercept = penalised_log_loss(model.coef_, model.intercept_, matrix, class_index, 3.0)
    # tol bounds the gradient of J / (C · n_docs)
    assert np.abs(grad_coef).max() / (3.0 * 60) <= 1e-6
    assert np.abs(grad_intercept).max() / (3.0 * 60) <= 1e-6
    # the L2 penalty makes every word's weights sum to 0 over the classes (their gradient sums to W's sum)
    np.testing.assert_allclose(model.coef_.sum(axis=0), 0, atol=1e-6)
    assert model.intercept_.sum() == pytest.approx(0, abs=1e-12)


def test_binary_features_count_presence():
    matrix, class_index = random_counts(50, 10, 3, seed=5)
    assert matrix.max() > 1
    presence = matrix.copy()
    presence.data[:] = 1
    on_presence = fit_softmax_regression(matrix, class_index, "abc", binary=True)
    on_counts = fit_softmax_regression(matrix, class_index, "abc")
    fitted_on_ones = fit_softmax_regression(presence, class_index, "abc")
    np.testing.assert_allclose(on_presence.coef_, fitted_on_ones.coef_)
    assert not np.allclose(on_presence.coef_, on_counts.coef_)
    # the binary model binarises what it scores too
    np.testing.assert_allclose(on_presence.decision_function(matrix), fitted_on_ones.decision_function(presence))


# -- a tiny corpus, as the lesson would show it -------------------------------------------------------------------

TINY = Corpus.from_pairs([
    ("sport", "goal match team goal"),
    ("sport", "team won the match"),
    ("sport", "goal keeper saves"),
    ("politics", "vote election parliament"),
    ("politics", "election minister vote"),
    ("politics", "parliament minister debate"),
    ("tech", "computer software code"),
    ("tech", "code compiler computer"),
    ("tech", "software bug code"),
])


@pytest.fixture(scope="module")
def tiny() -> tuple[TrainingSet, SoftmaxRegression]:
    training_set = TrainingSet.build(TINY)
    return training_set, fit_softmax_regression(training_set.matrix, training_set.class_index, training_set.classes)


def test_tiny_corpus_is_classified_right(tiny):
    training_set, model = tiny
    assert model.classes == ("politics", "sport", "tech")
    assert model.coef_.shape == (3, len(training_set.vocabulary)) and model.intercept_.shape == (3,)
    assert model.predict(training_set.matrix) == list(TINY.labels)
    new = training_set.transform(["the team scored a goal", "the minister lost the vote", "a bug in the compiler"])
    assert model.predict(new) == ["sport", "politics", "tech"]
    np.testing.assert_array_equal(model.predict_index(new), [1, 0, 2])


def test_log_probabilities_are_normalised_scores(tiny):
    training_set, model = tiny
    matrix = training_set.transform(["goal goal vote", "computer", "nothing known here"])
    scores = model.decision_function(matrix)
    log_proba = model.predict_log_proba(matrix)
    np.testing.assert_allclose(logsumexp(log_proba, axis=1), 0, atol=1e-12)
    np.testing.assert_allclose(log_proba, scores - logsumexp(scores, axis=1, keepdims=True))
    np.testing.assert_allclose(model.predict_proba(matrix).sum(axis=1), 1)
    # x Wᵀ + b, one word at a time
    goal, vote = (training_set.vocabulary.index(word) for word in ("goal", "vote"))
    np.testing.assert_allclose(scores[0], 2 * model.coef_[:, goal] + model.coef_[:, vote] + model.intercept_)


def test_every_document_is_decided(tiny):
    training_set, model = tiny
    unknown = training_set.transform(["nothing known here", ""])
    assert unknown.nnz == 0
    # with no known word the biases alone decide: never −1, unlike Naive Bayes with α = 0
    np.testing.assert_array_equal(model.predict_index(unknown), [np.argmax(model.intercept_)] * 2)
    np.testing.assert_allclose(model.decision_function(unknown), [model.intercept_] * 2)


def test_evaluate_scores_it_beside_naive_bayes(tiny):
    training_set, model = tiny
    texts, labels = ["goal for the team", "vote for the minister", "code and software", "the election match"], [
        "sport", "politics", "tech", "politics"
    ]
    matrix = training_set.transform(texts)
    logistic = evaluate(model, matrix, labels)
    naive_bayes = evaluate(training_set.model("multinomial", 1), matrix, labels)
    assert logistic.classes == naive_bayes.classes == ("politics", "sport", "tech")
    assert logistic.predictions == tuple(model.predict(matrix))
    assert logistic.n_test == 4 and logistic.undecidable == 0
    assert logistic.accuracy == np.mean(np.array(model.predict(matrix)) == np.array(labels))
    assert sum(map(sum, logistic.confusion)) == 4


def test_describe(tiny):
    _, model = tiny
    assert model.to_dict() == {
        "model": "logistic",
        "C": 1.0,
        "binary": False,
        "iterations": model.n_iterations,
        "converged": True,
        "fit_seconds": model.fit_seconds,
    }
    assert model.n_iterations > 0 and model.fit_seconds > 0


def test_a_fit_stopped_early_says_so():
    matrix, class_index = random_counts(60, 20, 3, seed=1)
    model = fit_softmax_regression(matrix, class_index, "abc", max_iterations=2)
    assert model.n_iterations == 2 and not model.converged
    assert model.to_dict()["converged"] is False


def test_progress_is_told_every_iteration():
    matrix, class_index = random_counts(60, 20, 3, seed=2)
    told = []
    model = fit_softmax_regression(matrix, class_index, "abc", progress=lambda done, total: told.append((done, total)))
    assert model.converged
    assert told == [(i, 500) for i in range(1, model.n_iterations + 1)]


@pytest.mark.parametrize(
    "change, message",
    [
        ({"class_index": np.array([0, 0, 1, 1, 0, 0])}, r"'c' has none"),
        ({"class_index": np.array([0, 1, 2])}, r"6 documents but 3 class numbers"),
        ({"class_index": np.array([0, 1, 2, 3, 0, 1])}, r"from 0 to 2"),
        ({"classes": ("a",), "class_index": np.zeros(6, dtype=int)}, r"at least two classes"),
        ({"C": 0}, r"C .* must be a positive number"),
        ({"C": float("inf")}, r"C .* must be a positive number"),
    ],
)
def test_bad_inputs_say_what_to_do(change, message):
    arguments = {"matrix": sp.csr_matrix(np.eye(6)), "class_index": np.array([0, 1, 2, 0, 1, 2]), "classes": "abc"}
    C = change.pop("C", 1.0)
    arguments.update(change)
    with pytest.raises(ValueError, match=message):
        fit_softmax_regression(arguments["matrix"], arguments["class_index"], arguments["classes"], C=C)


def test_a_matrix_of_another_vocabulary_is_refused(tiny):
    _, model = tiny
    with pytest.raises(ValueError, match=r"3 word columns but the model was fitted on \d+.*TrainingSet.transform"):
        model.predict(sp.csr_matrix((1, 3)))


# -- the real corpora: the same features for both libraries -------------------------------------------------------


@dataclass(frozen=True)
class Features:
    training_set: TrainingSet
    test_matrix: sp.csr_matrix
    test_labels: tuple[str, ...]

    @property
    def train_matrix(self) -> sp.csr_matrix:
        return self.training_set.matrix.astype(np.float64)

    @property
    def test_index(self) -> np.ndarray:
        return np.array([self.training_set.classes.index(label) for label in self.test_labels])


class Bench:
    """Each corpus vectorised once for the module."""

    def __init__(self, root: Path):
        self.root = root
        self._features: dict[str, Features] = {}

    def features(self, name: str) -> Features:
        if name not in self._features:
            if name == "sms":
                corpus = read_corpus(self.root / "sms-spam-collection-v1/all.jsonl")
                train_index, test_index = stratified_split(corpus.labels, 0.25, seed=0)
                train, test = corpus.subset(train_index), corpus.subset(test_index)
            else:
                train = read_corpus(self.root / "20newsgroups-bydate/train.jsonl.gz")
                test = read_corpus(self.root / "20newsgroups-bydate/test.jsonl")
                train, test = (
                    part.subset(i for i, label in enumerate(part.labels) if label in NEWSGROUPS_4)
                    for part in (train, test)
                )
            training_set = TrainingSet.build(train)
            self._features[name] = Features(training_set, training_set.transform(test.texts), test.labels)
        return self._features[name]


@pytest.fixture(scope="module")
def bench(shared_corpora) -> Bench:
    return Bench(shared_corpora)


@pytest.mark.corpora
@pytest.mark.parametrize(
    "corpus, C",
    [
        pytest.param("sms", 1.0, id="sms-C1"),
        pytest.param("sms", 10.0, id="sms-C10"),
        pytest.param("20ng-4", 1.0, id="20ng-4-C1", marks=pytest.mark.slow),
        pytest.param("20ng-4", 10.0, id="20ng-4-C10", marks=pytest.mark.slow),
    ],
)
def test_parity_with_scikit_learn_on_real_corpora(bench, corpus, C):
    features = bench.features(corpus)
    training_set = features.training_set
    ours = fit_softmax_regression(training_set.matrix, training_set.class_index, training_set.classes, C=C)
    theirs = LogisticRegression(C=C, max_iter=1000).fit(features.train_matrix, training_set.class_index)
    assert ours.converged

    ours_accuracy = evaluate(ours, features.test_matrix, features.test_labels).accuracy
    theirs_accuracy = float(np.mean(theirs.predict(features.test_matrix.astype(np.float64)) == features.test_index))
    assert abs(ours_accuracy - theirs_accuracy) <= 0.01

    ours_objective = ours.objective(training_set.matrix, training_set.class_index)
    theirs_objective = scikit_learn_objective(theirs, features.train_matrix, training_set.class_index, C)
    assert ours_objective <= theirs_objective * (1 + 1e-3)

    # beside Naive Bayes on the same features, as the lesson compares them
    naive_bayes = evaluate(training_set.model("multinomial", 1), features.test_matrix, features.test_labels)
    assert naive_bayes.classes == ours.classes and naive_bayes.n_test == len(features.test_labels)


# -- words of a single document, and the relative stopping rule -----------------------------------------------------


def with_single_document_words(seed: int) -> tuple[sp.csr_matrix, np.ndarray]:
    """``random_counts`` plus 30 words that each occur in one document only (several in some documents), as most
    of a text vocabulary does."""
    matrix, class_index = random_counts(60, 10, 3, seed=seed)
    rng = np.random.default_rng(seed)
    documents = rng.integers(0, 60, size=30)
    single = sp.csr_matrix((rng.integers(1, 5, size=30).astype(float), (documents, np.arange(30))), shape=(60, 30))
    return sp.hstack((matrix, single), format="csr"), class_index


def test_merging_single_document_words_keeps_every_dot_product():
    matrix, _ = with_single_document_words(seed=4)
    features = matrix.astype(float)
    expand = _merge_single_document_words(features)
    merged = (features @ expand).toarray()
    assert expand.shape[0] == 40 and expand.shape[1] < 40  # fewer columns than words
    # Eᵀ E = I (an isometry, so ‖W‖² is kept) and X E Eᵀ Xᵀ = X Xᵀ (every score and document product is kept):
    # together, every quantity L-BFGS computes from 0 is the same on the merged columns
    np.testing.assert_allclose((expand.T @ expand).toarray(), np.eye(expand.shape[1]), atol=1e-15)
    np.testing.assert_allclose(merged @ merged.T, (features @ features.T).toarray(), rtol=1e-13)
    # a word of several documents keeps a column of its own
    several = np.flatnonzero(np.diff(features.tocsc().indptr) > 1)
    np.testing.assert_array_equal(expand[several].getnnz(axis=1), 1)
    np.testing.assert_array_equal(expand[several].max(axis=1).toarray().ravel(), 1)


@pytest.mark.parametrize("C", [0.5, 20.0])
def test_merged_fit_is_scikit_learns_on_all_the_words(C):
    matrix, class_index = with_single_document_words(seed=int(C))
    ours = fit_softmax_regression(matrix, class_index, "abc", C=C, tol=1e-10)
    theirs = LogisticRegression(C=C, tol=1e-10, max_iter=10_000).fit(matrix.astype(float), class_index)
    assert ours.converged and ours.coef_.shape == (3, 40)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, atol=1e-5)
    assert ours.objective_ == pytest.approx(scikit_learn_objective(theirs, matrix.astype(float), class_index, C),
                                            rel=1e-9)


def test_relative_rule_stops_once_the_gradient_has_shrunk_enough():
    matrix, class_index = with_single_document_words(seed=8)
    C = 10.0
    precise = fit_softmax_regression(matrix, class_index, "abc", C=C, tol=1e-10)
    quick = fit_softmax_regression(matrix, class_index, "abc", C=C, tol=1e-10, relative_tol=1e-2)
    assert quick.converged and quick.n_iterations < precise.n_iterations

    def gradient_length(coef, intercept) -> float:
        _, grad_coef, grad_intercept = penalised_log_loss(coef, intercept, matrix, class_index, C)
        return float(np.linalg.norm(np.concatenate((grad_coef.ravel(), grad_intercept))))

    at_start = gradient_length(np.zeros((3, 40)), np.zeros(3))
    # the documented rule, checked on all the words: ‖∇J‖ ≤ relative_tol · ‖∇J at 0‖ ...
    assert gradient_length(quick.coef_, quick.intercept_) <= 1e-2 * at_start
    # ... and not met one iteration earlier
    earlier = fit_softmax_regression(matrix, class_index, "abc", C=C, max_iterations=quick.n_iterations - 1,
                                     tol=1e-10, relative_tol=1e-2)
    assert not earlier.converged and gradient_length(earlier.coef_, earlier.intercept_) > 1e-2 * at_start
    # what stopping there costs: J a little above the minimum, the training documents decided alike
    assert precise.objective_ < quick.objective_ <= precise.objective_ * 1.05
    assert np.mean(quick.predict_index(matrix) == precise.predict_index(matrix)) >= 0.95
