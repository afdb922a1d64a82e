"""Gaussian Naive Bayes: exact statistics, scikit-learn parity, underflow without warnings, zero variance
without NaN."""
from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest

from webnb.engine import CorpusError
from webnb.engine.evaluation.scores import evaluate
from webnb.engine.gaussian.model import GaussianStatistics, explain
from webnb.engine.gaussian.table import NumericTable, numeric_layout, parse_number, read_numeric_csv
from webnb.engine.text.models import normalise_log_joint
from webnb.examples import TABLE_EXAMPLES, load_example_table

sklearn_naive_bayes = pytest.importorskip("sklearn.naive_bayes")


def _table(values, labels) -> NumericTable:
    values = np.asarray(values, dtype=float)
    return NumericTable(tuple(f"f{j}" for j in range(values.shape[1])), values, tuple(labels),
                        tuple(str(i) for i in range(len(labels))))


def _walk(value):
    """Every number inside the JSON-like ``value``."""
    if isinstance(value, dict):
        for v in value.values():
            yield from _walk(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _walk(v)
    elif isinstance(value, float):
        yield value


# --- the worked one-feature example, by hand -------------------------------------------------------------------


def test_match_ratings_statistics_equal_the_exact_fractions():
    table = load_example_table("match-ratings")
    model = GaussianStatistics.fit(table).model(0.0)
    assert model.classes == ("lost", "won")
    assert model.class_prior_exact == (Fraction(4, 9), Fraction(5, 9))
    lost = [Fraction(v) for v in ("8.1", "7.4", "8.8", "6.9", "7.7", "9.2", "7.0", "8.4")]
    won = [Fraction(v) for v in ("5.2", "6.1", "4.4", "6.8", "5.7", "3.9", "6.3", "5.0", "7.1", "4.8")]
    for k, rows in enumerate((lost, won)):
        mean = sum(rows) / len(rows)
        variance = sum((r - mean) ** 2 for r in rows) / len(rows)  # population: divided by n_k
        assert model.means[k, 0] == pytest.approx(float(mean), rel=1e-15)
        assert model.smoothed_variances[k, 0] == pytest.approx(float(variance), rel=1e-13)
        sample = sum((r - mean) ** 2 for r in rows) / (len(rows) - 1)
        assert model.statistics.sample_variances[k, 0] == pytest.approx(float(sample), rel=1e-13)
    assert float(sum(lost) / 8) == pytest.approx(7.9375) and float(sum(won) / 10) == pytest.approx(5.53)


def test_explanation_numbers_follow_the_formula():
    model = GaussianStatistics.fit(load_example_table("match-ratings")).model()
    explained = explain(model, (6.5,))
    total = 0.0
    for k, terms in enumerate(explained.classes):
        t = terms.terms[0]
        mu, var = model.means[k, 0], model.smoothed_variances[k, 0]
        density = math.exp(-(6.5 - mu) ** 2 / (2 * var)) / math.sqrt(2 * math.pi * var)
        assert t.density == pytest.approx(density, rel=1e-14)
        assert t.log_density == pytest.approx(math.log(density), rel=1e-13)
        assert terms.product == pytest.approx(model.class_prior_[k] * density, rel=1e-14)
        total += terms.product
    assert explained.evidence == pytest.approx(total, rel=1e-14)
    for terms in explained.classes:
        assert terms.posterior == pytest.approx(terms.product / total, rel=1e-12)
        assert terms.naive_posterior == pytest.approx(terms.posterior, rel=1e-12)
    assert explained.naive_decision == explained.decision == "won"
    assert explained.naive_warnings == ()


# --- scikit-learn parity -------------------------------------------------------------------------------------------


def _assert_parity(table: NumericTable, var_smoothing: float, rows, uniform: bool = False):
    ours = GaussianStatistics.fit(table).model(var_smoothing, "uniform" if uniform else "learned")
    k = len(table.classes)
    theirs = sklearn_naive_bayes.GaussianNB(var_smoothing=var_smoothing, priors=[1 / k] * k if uniform else None)
    theirs.fit(table.values, np.array(table.labels))
    assert tuple(theirs.classes_) == ours.classes
    np.testing.assert_array_equal(ours.class_prior_, theirs.class_prior_)
    np.testing.assert_allclose(ours.means, theirs.theta_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(ours.smoothed_variances, theirs.var_, rtol=0, atol=1e-10)
    assert ours.epsilon == pytest.approx(theirs.epsilon_, rel=1e-12)
    log_posterior, decidable = ours.predict_log_proba(rows)
    assert decidable.all()
    np.testing.assert_allclose(log_posterior, theirs.predict_log_proba(rows), rtol=0, atol=1e-9)
    assert ours.predict(rows) == list(theirs.predict(rows))
    return ours, theirs


@pytest.mark.parametrize("var_smoothing", [1e-9, 1e-4, 0.5])
def test_iris_parity_with_scikit_learn(var_smoothing):
    iris = load_example_table("iris")
    rng = np.random.default_rng(0)
    probes = np.vstack([iris.values, rng.uniform(0, 8, size=(200, 4)), [[5.9, 3.0, 40.0, 1.8], [-30, 90, 1, 0]]])
    _assert_parity(iris, var_smoothing, probes)


def test_iris_against_scikit_learns_own_copy_of_the_data():
    datasets = pytest.importorskip("sklearn.datasets")
    data = datasets.load_iris()
    np.testing.assert_array_equal(load_example_table("iris").values, data.data)
    assert load_example_table("iris").labels == tuple(data.target_names[t] for t in data.target)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_generated_data_parity_with_scikit_learn(seed):
    rng = np.random.default_rng(seed)
    n_classes, n_features = 5, 8
    centres = rng.normal(0, 5, size=(n_classes, n_features))
    scales = rng.uniform(0.01, 30, size=(n_classes, n_features))
    labels = rng.integers(0, n_classes, size=2000)
    values = centres[labels] + rng.normal(size=(2000, n_features)) * scales[labels]
    table = _table(values, [f"class {k}" for k in labels])
    probes = np.vstack([values[:300], rng.normal(0, 500, size=(100, n_features))])  # many far from every mean
    for var_smoothing in (1e-9, 1e-2):
        _assert_parity(table, var_smoothing, probes)
    _assert_parity(table, 1e-9, probes, uniform=True)


def test_evaluation_agrees_with_scikit_learn_on_a_split():
    from webnb.engine.evaluation.scores import stratified_split

    iris = load_example_table("iris")
    train, test = stratified_split(iris.labels, 0.3, 7)
    model = GaussianStatistics.fit(iris.subset(train)).model()
    result = evaluate(model, iris.values[test], iris.subset(test).labels)
    theirs = sklearn_naive_bayes.GaussianNB().fit(iris.values[train], np.array(iris.subset(train).labels))
    expected = theirs.predict(iris.values[test])
    assert list(result.predictions) == list(expected)
    assert result.accuracy == pytest.approx(np.mean(expected == np.array(iris.subset(test).labels)))


# --- underflow: a decision, no warning --------------------------------------------------------------------------------


def test_underflow_gives_a_decision_and_no_warning():
    iris = load_example_table("iris")
    model = GaussianStatistics.fit(iris).model()
    far = (5.9, 3.0, 40.0, 1.8)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(divide="raise", invalid="raise", over="raise"):  # underflow in exp is the harmless kind
            explained = explain(model, far)
            predictions = model.predict(np.array([far, [1e6, -1e6, 1e6, 1e6]]))
            log_posterior, decidable = model.predict_log_proba(np.array([far]))
    # In plain floats every density of petal length underflows, so every product is 0 and nothing is decided ...
    assert explained.product_underflow and explained.naive_decision is None
    assert {label for label, term in explained.underflows} == set(iris.classes)
    assert all(c.naive_log_joint == -math.inf for c in explained.classes)
    # ... and numpy's warning was heard and kept as text, not raised.
    assert explained.naive_warnings == ("RuntimeWarning: divide by zero encountered in log",)
    # In log space the decision is clear.
    assert explained.decision == "virginica" and predictions[0] == "virginica" and None not in predictions
    assert decidable.all() and np.isfinite(log_posterior).any()
    assert sum(c.posterior for c in explained.classes) == pytest.approx(1.0)
    assert all(math.isfinite(c.log_joint) for c in explained.classes)


def test_a_typed_value_off_the_scale_of_the_one_feature_example():
    model = GaussianStatistics.fit(load_example_table("match-ratings")).model()
    explained = explain(model, (60.0,))
    assert explained.naive_decision is None and explained.evidence == 0.0
    # Far from both means the wider bell (the wins) has the larger log-density.
    assert explained.decision == "won"
    lost, won = explained.classes
    assert won.log_joint > lost.log_joint > -3000


# --- zero variance ------------------------------------------------------------------------------------------------


def test_zero_variance_without_smoothing_never_gives_nan():
    table = load_example_table("red-cards")
    stats = GaussianStatistics.fit(table)
    lost = table.classes.index("lost")
    red_cards = table.features.index("opponent red cards")
    assert stats.variances[lost, red_cards] == 0.0
    model = stats.model(0.0)
    grid = np.array([[r, c] for r in np.linspace(0, 12, 25) for c in (0.0, 1.0, 2.0, 0.5)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(divide="raise", invalid="raise", over="raise"):  # underflow in exp is the harmless kind
            jll = model.joint_log_likelihood(grid)
            log_posterior, decidable = model.predict_log_proba(grid)
            result = evaluate(model, table.values, table.labels)
    assert not np.isnan(jll).any() and not np.isnan(log_posterior).any()
    # A red card rules "lost" out; none leaves it possible (its spike is at 0: density +∞).
    with_card = grid[:, 1] != 0
    assert (jll[with_card, lost] == -np.inf).all()
    assert (jll[~with_card, lost] == np.inf).all()
    assert decidable.all()
    assert not math.isnan(result.accuracy) and not math.isnan(result.log_loss)
    explained = explain(model, (7.5, 1.0))
    assert explained.decision == "won" and not any(math.isnan(v) for v in _walk(explained.to_dict()))
    lost_terms = explained.classes[lost].terms[red_cards]
    assert lost_terms.zero_width and lost_terms.density == 0.0 and lost_terms.log_density == -math.inf


def test_variance_smoothing_turns_the_spike_into_a_narrow_bell():
    table = load_example_table("red-cards")
    model = GaussianStatistics.fit(table).model(1e-9)
    lost = table.classes.index("lost")
    assert model.epsilon == pytest.approx(1e-9 * float(np.var(table.values[:, 0])), rel=1e-12)
    assert model.smoothed_variances[lost, 1] == model.epsilon > 0
    explained = explain(model, (7.5, 1.0))
    term = explained.classes[lost].terms[1]
    assert term.density == 0.0 and term.underflowed  # the narrow bell's density underflows ...
    expected = -1.0 / (2 * model.epsilon) - 0.5 * math.log(2 * math.pi * model.epsilon)
    assert term.log_density == pytest.approx(expected, rel=1e-12)  # ... its log does not
    assert explained.decision == "won"


def test_two_certain_classes_cannot_be_decided_and_one_certain_class_takes_everything():
    jll = np.array([[np.inf, -3.0], [np.inf, np.inf], [-np.inf, -np.inf], [-1.0, -2.0]])
    log_posterior, decidable = normalise_log_joint(jll)
    assert decidable.tolist() == [True, False, False, True]
    assert log_posterior[0].tolist() == [0.0, -np.inf]
    assert np.exp(log_posterior[3]).sum() == pytest.approx(1.0)
    assert not np.isnan(log_posterior).any()


def test_every_feature_constant_in_every_class():
    table = _table([[1.0], [1.0], [2.0], [2.0]], ["a", "a", "b", "b"])
    model = GaussianStatistics.fit(table).model()
    assert model.epsilon == pytest.approx(1e-9 * 0.25)
    assert model.predict(np.array([[1.0], [2.0], [1.4], [1.6]])) == ["a", "b", "a", "b"]


# --- tables ----------------------------------------------------------------------------------------------------------


def test_rows_written_out_read_back_exactly():
    rng = np.random.default_rng(3)
    table = _table(rng.normal(size=(50, 3)) * 10.0 ** rng.integers(-300, 300, size=(50, 3)), ["x", "y"] * 25)
    again = NumericTable.from_corpus(table.to_corpus(), table.features)
    np.testing.assert_array_equal(again.values, table.values)
    assert again.labels == table.labels and again.ids == table.ids


@pytest.mark.parametrize("text, number", [("5.1", 5.1), (" -0.25e3 ", -250.0), (".5", 0.5), ("7", 7.0)])
def test_numbers(text, number):
    assert parse_number(text) == number


@pytest.mark.parametrize("text", ["nan", "inf", "-Infinity", "1_000", "٣", "", "5,1", "1e999", "0x10"])
def test_not_numbers(text):
    assert parse_number(text) is None


def test_layout_finds_the_label_column():
    assert numeric_layout(("a", "b", "species"), [["1", "2", "x"], ["3", "4", "y"]]) == ("species", ("a", "b"))
    assert numeric_layout(("kind", "a"), [["x", "1"]]) == ("kind", ("a",))
    assert numeric_layout(("a", "b"), [["1", "2"]]) == ("b", ("a",))  # all numeric: the last column is the label
    assert numeric_layout(("label", "text"), [["spam", "win money"]]) is None
    assert numeric_layout(("id", "x", "label"), [["d1", "1", "a"]]) == ("label", ("x",))


@pytest.mark.parametrize("text, message", [
    ("x,label\n1,a\n2,b\nzz,a\n", "line 4"),
    ("x,label\n1,a\n,b\n", "line 3"),
    ("x,label\n1,a\n2,\n", "line 3"),
    ("x,label\n1,a\n2,a\n", "two classes"),
    ("x,label\n", "no rows"),
    ("x,label\n1,a\nnan,b\n", "line 3"),
])
def test_bad_tables_say_what_is_wrong(text, message):
    with pytest.raises(CorpusError, match=message):
        read_numeric_csv(text, label_column="label")


def test_the_built_in_tables():
    sizes = {example.id: len(load_example_table(example.id)) for example in TABLE_EXAMPLES}
    assert sizes == {"iris": 150, "match-ratings": 18, "red-cards": 14}
    for example in TABLE_EXAMPLES:
        table = load_example_table(example.id)
        assert len(example.sample) == len(example.far) == len(table.features)


def test_a_stored_row_with_a_number_missing_is_named():
    from webnb.engine.shared.corpus import Corpus

    corpus = Corpus(texts=("1.0\t2.0", "3.0", "4.0\t5.0"), labels=("a", "b", "a"), ids=("r1", "r2", "r3"))
    with pytest.raises(CorpusError, match="row r2 has 1 number, not 2"):
        NumericTable.from_corpus(corpus, ("x", "y"))
