"""The records the pages of a table of numbers show (webnb/engine/gaussian/lesson.py), against known numbers."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from webnb.engine.evaluation.scores import stratified_split
from webnb.engine.gaussian.lesson import (
    GaussianSplit,
    evaluate_table,
    far_row,
    gaussian_parameters,
    page_count,
    rows_page,
    score_table,
    typical_row,
    zero_width_cells,
)
from webnb.engine.gaussian.model import GaussianStatistics
from webnb.examples import load_example_table

LOST = [Fraction(v) for v in ("8.1", "7.4", "8.8", "6.9", "7.7", "9.2", "7.0", "8.4")]


def test_a_page_of_rows():
    iris = load_example_table("iris")
    assert [page_count(n, 50) for n in (0, 1, 50, 51, 150)] == [1, 1, 1, 2, 3]
    shown = rows_page(iris, 2, 50)
    assert (shown.page, shown.pages, len(shown.rows)) == (2, 3, 50)
    first = shown.rows[0]
    # Row 50 (from 0) is line 52 of the file: the first versicolor.
    assert first.to_dict() == {"index": 50, "id": "52", "label": "versicolor", "values": [7.0, 3.2, 4.7, 1.4]}
    data = shown.to_dict()
    assert data["class_counts"] == {"setosa": 50, "versicolor": 50, "virginica": 50}
    assert data["features"][2] == "petal length (cm)" and (data["page"], data["pages"]) == (2, 3)
    assert [row["index"] for row in data["rows"]] == list(range(50, 100))
    assert len(rows_page(iris, 3, 60).rows) == 30


def test_the_parameters_of_the_match_ratings():
    model = GaussianStatistics.fit(load_example_table("match-ratings")).model(0.0)
    learned = gaussian_parameters(model)
    lost = learned.classes[0]
    assert (lost.label, lost.count, lost.exact_prior, lost.prior) == ("lost", 8, Fraction(4, 9), 4 / 9)
    mean = sum(LOST) / 8
    variance = sum((v - mean) ** 2 for v in LOST) / 8
    cell = lost.cells[0]
    assert cell.mean == 7.9375 and cell.variance == pytest.approx(float(variance), rel=1e-13)
    assert cell.sd == math.sqrt(cell.variance) and cell.used == cell.variance and not cell.zero
    sample = sum((v - mean) ** 2 for v in LOST) / 7
    assert cell.sample_sd == pytest.approx(math.sqrt(float(sample)), rel=1e-13)
    assert (learned.largest, learned.zero_cells) == (0, 0)
    data = learned.to_dict()
    assert data["classes"] == ["lost", "won"] and data["features"] == ["opponent rating"] and data["epsilon"] == 0
    assert data["largest_variance_feature"] == "opponent rating"
    assert [(c["class"], c["rows"], c["prior"]) for c in data["parameters"]] == [("lost", 8, 4 / 9), ("won", 10, 5 / 9)]
    assert data["parameters"][1]["features"][0]["mean"] == pytest.approx(5.53, rel=1e-15)
    assert set(data["parameters"][0]["features"][0]) == {"feature", "mean", "variance", "sd", "sample_sd", "used",
                                                         "used_sd", "zero"}


def test_the_bell_of_width_zero_with_and_without_epsilon():
    table = load_example_table("red-cards")  # no red card in any match we lost
    model = GaussianStatistics.fit(table).model(0.0)
    assert gaussian_parameters(model).zero_cells == 1
    (cell,) = zero_width_cells(model, (7.5, 1.0))
    epsilon = 1e-9 * float(np.var(table.values[:, 0]))
    expected = -1.0 / (2 * epsilon) - 0.5 * math.log(2 * math.pi * epsilon)
    assert (cell.label, cell.feature, cell.mean, cell.value, cell.at_mean) == ("lost", "opponent red cards", 0.0,
                                                                                1.0, False)
    assert cell.shown_smoothing == 1e-9 and cell.epsilon == pytest.approx(epsilon, rel=1e-12)
    assert cell.epsilon_variance == cell.epsilon
    assert cell.smoothed_log_density == pytest.approx(expected, rel=1e-12) and cell.smoothed_density == 0.0
    assert cell.to_dict() == {"class": "lost", "feature": "opponent red cards", "mean": 0.0, "value": 1.0,
                              "at_mean": False, "var_smoothing": 1e-9, "epsilon": cell.epsilon,
                              "variance": cell.epsilon, "log_density": cell.smoothed_log_density, "density": 0.0}
    # At the mean the spike is +∞ without ε; with the user's own var_smoothing that one is shown.
    (at_mean,) = zero_width_cells(GaussianStatistics.fit(table).model(0.01), (7.5, 0.0))
    assert at_mean.at_mean and at_mean.shown_smoothing == 0.01
    assert at_mean.smoothed_density == pytest.approx(math.exp(at_mean.smoothed_log_density), rel=1e-15)
    assert zero_width_cells(GaussianStatistics.fit(load_example_table("iris")).model(), (5.1, 3.5, 1.4, 0.2)) == ()


def test_rows_to_try():
    ratings = load_example_table("match-ratings")
    assert typical_row(ratings) == (8.1,) and typical_row(ratings, (6.5,)) == (6.5,)
    # 50 population standard deviations (1.5004) beyond the largest rating, 9.2, to three digits.
    assert far_row(ratings, (8.1,)) == (84.2,)
    assert far_row(ratings, (8.1,), (60.0,)) == (60.0,)
    iris = load_example_table("iris")
    far = far_row(iris, (5.1, 3.5, 1.4, 0.2))
    assert far[1:] == (3.5, 1.4, 0.2) and far[0] == float(f"{7.9 + 50 * float(np.std(iris.values[:, 0])):.3g}")


def test_the_evaluation_and_its_mistakes():
    iris = load_example_table("iris")
    train, test = stratified_split(iris.labels, 0.4, 3)
    training = iris.subset(train)
    held = GaussianSplit(GaussianStatistics.fit(training), training, iris.subset(test), test, "split", 0.4, 3)
    assert held.to_dict() == {"source": "split", "test_size": 0.4, "seed": 3, "n_train": 90, "n_test": 60}
    evaluated = evaluate_table(held, 1e-9, "learned")
    model = GaussianStatistics.fit(training).model()
    predicted = model.predict(iris.values[test])
    wrong = [i for i, label in enumerate(held.test.labels) if predicted[i] != label]
    assert [m.position for m in evaluated.mistakes] == [int(test[i]) for i in wrong]
    for mistake in evaluated.mistakes:
        assert iris.labels[mistake.position] == mistake.label != mistake.predicted
        assert mistake.values == tuple(iris.values[mistake.position]) and 0.5 <= mistake.confidence <= 1
    data = evaluated.to_dict()
    assert (data["n_train"], data["n_test"]) == (90, 60)
    assert data["evaluation"]["accuracy"] == (60 - len(wrong)) / 60
    assert data["mistakes"] == [m.to_dict() for m in evaluated.mistakes]
    assert set(data["mistakes"][0]) == {"position", "id", "label", "predicted", "confidence", "values"}
    score = score_table(held, 1e-9, "uniform")
    assert score.held is held and score.model.prior_mode == "uniform" and score.result.n_test == 60
    assert score.model.to_dict() == {"model": "gaussian", "var_smoothing": 1e-9, "epsilon": score.model.epsilon,
                                     "prior": "uniform"}
    # The one score record reads a table's split as it reads a text HeldOut.
    plain = score.to_dict()
    assert plain["model"] == score.model.to_dict() and plain["test"] == held.to_dict() and plain["n_test"] == 60
