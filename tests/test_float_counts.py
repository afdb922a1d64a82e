"""Counts are counts, whatever their dtype (issue 23, part 6).

scikit-learn users pass whole-number counts as floats (``np.array([[1., 0, 2]])``, dense or sparse). The engine
fits and scores them exactly as it does their integer twins, on every path, the exact tie check included; a float
matrix that is not whole non-negative counts is refused with the engine's usual messages.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp

from webnb.engine import ClassStatistics, evaluate, fit_naive_bayes

CLASSES = ("A", "B", "C")
MODELS = [("bernoulli", False), ("multinomial", False), ("multinomial", True)]  # (kind, binary)
ALPHAS = [0, 1, "0.5", Fraction(1, 3), 2]


def float_twins(counts: np.ndarray) -> dict[str, object]:
    """The same whole-number counts in every float form a scikit-learn user might pass."""
    return {
        "dense float64": counts.astype(np.float64),
        "dense float32": counts.astype(np.float32),
        "csr float64": sp.csr_matrix(counts.astype(np.float64)),
        "csr float32": sp.csr_matrix(counts.astype(np.float32)),
        "csc float64": sp.csc_matrix(counts.astype(np.float64)),
    }


def statistics(matrix, class_index: np.ndarray) -> ClassStatistics:
    n_classes = int(class_index.max()) + 1
    vocabulary = tuple(f"w{j}" for j in range(matrix.shape[1]))
    return ClassStatistics.from_matrix(matrix, class_index, CLASSES[:n_classes], vocabulary)


def scoring_outputs(model, matrix) -> dict[str, np.ndarray]:
    """Every public scoring output of a text model for ``matrix``."""
    log_posterior, decidable = model.predict_log_proba(matrix)
    n_docs = matrix.shape[0]
    evaluation = evaluate(model, matrix, [model.classes[0]] * n_docs)
    return {
        "joint_log_likelihood": model.joint_log_likelihood(matrix),
        "joint_log_likelihood (floats only)": model.joint_log_likelihood(matrix, exact_bits=0),
        "predict_index": model.predict_index(matrix),
        "predict": np.array(model.predict(matrix), dtype=object),
        "log_posterior": log_posterior,
        "decidable": decidable,
        "evaluate predictions": np.array(evaluation.predictions, dtype=object),
        "evaluate confidence": np.array(evaluation.confidence, dtype=object),
    }


def parameters(model) -> dict[str, np.ndarray]:
    return {
        "feature_log_prob_": model.feature_log_prob_,
        "feature_prob_": model.feature_prob_,
        "class_log_prior_": model.class_log_prior_,
        "absent_log_prob_sum_": model.absent_log_prob_sum_ if model.kind == "bernoulli" else np.zeros(0),
        "feature_ratios": np.array(model.feature_ratios(range(len(model.vocabulary))), dtype=object),
    }


def assert_same(got: dict, want: dict, context) -> None:
    for name in want:
        np.testing.assert_array_equal(got[name], want[name], err_msg=f"{name}: {context}")


def tied_rows(jll: np.ndarray) -> int:
    """Rows whose best score is shared by two or more classes (an exact tie the argmax gives to the first)."""
    possible = jll.max(axis=1) > -np.inf
    return int(((jll == jll.max(axis=1, keepdims=True)).sum(axis=1) > 1)[possible].sum())


# -- the case of the issue -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["bernoulli", "multinomial"])
def test_float_counts_with_a_near_tie_score_as_their_integer_twin(kind):
    # The same document in both classes: the two joints are exactly equal, so the exact tie check runs.
    counts = np.array([[1, 0, 2], [1, 0, 2]])
    class_index = np.array([0, 1])
    review = np.array([[1, 0, 1]])
    want = fit_naive_bayes(statistics(counts, class_index), kind, 1)
    got = fit_naive_bayes(statistics(counts.astype(float), class_index), kind, 1)
    np.testing.assert_array_equal(got.joint_log_likelihood(review.astype(float)), want.joint_log_likelihood(review))
    assert got.predict(review.astype(float)) == want.predict(review) == ["A"]
    jll = got.joint_log_likelihood(sp.csr_matrix(review.astype(np.float32)))
    assert jll[0, 0] == jll[0, 1]


def test_float_statistics_become_integer_counts():
    stats = statistics(np.array([[1.0, 0, 2], [0, 3, 0]]), np.array([0, 1]))
    model = fit_naive_bayes(stats, "bernoulli", 1)
    for counts in (model.statistics.class_count_, model.statistics.document_count_, model.statistics.word_count_):
        assert counts.dtype == np.int64
    assert model.statistics.document_count_.tolist() == [[1, 0, 1], [0, 1, 0]]
    assert model.statistics.word_count_.tolist() == [[1, 0, 2], [0, 3, 0]]


def test_integer_statistics_are_kept_as_they_are():
    stats = statistics(np.array([[1, 0, 2], [0, 3, 0]]), np.array([0, 1]))
    assert fit_naive_bayes(stats, "multinomial", 1).statistics is stats


# -- float twins against integer twins, near ties forced ----------------------------------------------------------


def random_corpus(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(training counts, class numbers, reviews) with classes A and B made (nearly) alike, so that their joints
    are exactly equal or within rounding for many reviews: B repeats A's documents, in another order, sometimes
    with one more word, or holds A's counts scaled (A: "spam", B: "spam spam" tie under multinomial θ)."""
    n_words = int(rng.integers(1, 5))
    a_docs = rng.integers(0, 4, size=(int(rng.integers(1, 4)), n_words))
    shape = rng.integers(0, 3)
    if shape == 0:
        b_docs = rng.permutation(a_docs)
    elif shape == 1:
        b_docs = a_docs * 2
    else:
        b_docs = a_docs.copy()
        b_docs[0, rng.integers(0, n_words)] += 1
    blocks, labels = [a_docs, b_docs], [0] * len(a_docs) + [1] * len(b_docs)
    if rng.random() < 0.5:  # a third class, unrelated
        c_docs = rng.integers(0, 3, size=(int(rng.integers(1, 3)), n_words))
        blocks.append(c_docs)
        labels += [2] * len(c_docs)
    reviews = np.vstack([
        np.zeros((1, n_words), dtype=np.int64),  # the empty review: the priors alone
        *blocks,
        rng.integers(0, 4, size=(4, n_words)),
    ])
    return np.vstack(blocks), np.array(labels), reviews


@pytest.mark.slow  # 8-9 s
def test_float_twins_fit_and_score_exactly_as_integer_twins():
    rng = np.random.default_rng(20230623)
    compared = ties = 0
    for trial in range(40):
        counts, class_index, reviews = random_corpus(rng)
        fit_forms = {"int64": counts, **float_twins(counts)}
        score_forms = {"int64": reviews, **float_twins(reviews)}
        reference_stats = statistics(counts, class_index)
        fit_prior = trial % 2 == 0
        for (kind, binary), alpha in [(m, a) for m in MODELS for a in ALPHAS]:
            options = {"binary": binary, "fit_prior": fit_prior}
            # Fitted from one form, scored in another: over the trials every pairing of forms comes up, the integer
            # forms included (a float-fitted model scoring integer reviews, and the other way round).
            fit_name, score_name = list(fit_forms)[compared % 6], list(score_forms)[(compared // 6 + trial) % 6]
            twin_stats = statistics(fit_forms[fit_name], class_index)
            context = (trial, kind, binary, str(alpha), fit_prior, fit_name, score_name)
            try:
                reference = fit_naive_bayes(reference_stats, kind, alpha, **options)
            except ValueError:  # multinomial at α = 0 with a class without words is refused: so must its twin be
                with pytest.raises(ValueError, match="has no words in the vocabulary"):
                    fit_naive_bayes(twin_stats, kind, alpha, **options)
                continue
            want = scoring_outputs(reference, reviews)
            ties += tied_rows(want["joint_log_likelihood"])
            model = fit_naive_bayes(twin_stats, kind, alpha, **options)
            assert_same(parameters(model), parameters(reference), context)
            assert_same(scoring_outputs(model, score_forms[score_name]), want, context)
            compared += 1
    assert compared > 500
    assert ties > 500  # the exact tie check really ran, many times


# -- what is not counts is refused, as for integer input ------------------------------------------------------------

NOT_COUNTS = [
    (np.array([[1.5, 0.0], [0.0, 1.0]]), "holds a count that is not a whole number: counts are 0, 1, 2, …"),
    (np.array([[1.0, -1.0], [0.0, 1.0]]), "holds a negative count: counts are 0 or more"),
    (np.array([[1.0, np.nan], [0.0, 1.0]]), "holds a value that is not finite"),
    (np.array([[np.inf, 0.0], [0.0, 1.0]]), "holds a value that is not finite"),
]


def in_every_float_form(matrix: np.ndarray) -> list:
    return [form(matrix.astype(dtype)) for dtype in (np.float64, np.float32) for form in (np.asarray, sp.csr_matrix)]


@pytest.mark.parametrize("matrix, message", NOT_COUNTS)
def test_fitting_refuses_float_matrices_that_are_not_counts(matrix, message):
    for form in in_every_float_form(matrix):
        with pytest.raises(ValueError, match="the training matrix " + message):
            statistics(form, np.array([0, 1]))


@pytest.mark.parametrize("kind", ["bernoulli", "multinomial"])
@pytest.mark.parametrize("matrix, message", NOT_COUNTS)
def test_scoring_refuses_float_matrices_that_are_not_counts(kind, matrix, message):
    model = fit_naive_bayes(statistics(np.array([[1.0, 0.0], [1.0, 1.0]]), np.array([0, 1])), kind, 1)
    for form in in_every_float_form(matrix):
        for score in (model.joint_log_likelihood, model.predict, model.predict_index, model.predict_log_proba):
            with pytest.raises(ValueError, match="the document matrix " + message):
                score(form)
        with pytest.raises(ValueError, match="the test matrix " + message):
            evaluate(model, form, ["A", "B"])


@pytest.mark.parametrize("value, message", [(0.5, "not a whole number"), (-1.0, "negative count")])
def test_fitting_refuses_float_statistics_that_are_not_counts(value, message):
    # Statistics made by hand, not from a matrix: their counts are checked as a matrix's are.
    stats = statistics(np.array([[1, 0], [1, 1]]), np.array([0, 1]))
    word_count = stats.word_count_.astype(float)
    word_count[0, 1] = value
    made = ClassStatistics(stats.classes, stats.vocabulary, stats.class_count_, stats.document_count_, word_count)
    with pytest.raises(ValueError, match=message):
        fit_naive_bayes(made, "multinomial", 1)
