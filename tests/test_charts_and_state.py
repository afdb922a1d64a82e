"""The sweep chart's geometry, and the held-out settings of the lesson state."""
from __future__ import annotations

import math

import pytest

from webnb.charts import sweep_chart
from webnb.engine.heldout import hold_out
from webnb.engine.insights import alpha_sweep
from webnb.examples import load_example_corpus
from webnb.state import LessonState, parse_state


@pytest.fixture(scope="module")
def sweep():
    held = hold_out(load_example_corpus("spam-ham"), test_size=0.25, seed=0)
    return alpha_sweep(held.training, held.test_matrix, held.test.labels, kind="bernoulli")


def test_alpha_zero_stands_left_of_the_log_axis_and_infinity_at_the_top(sweep):
    chart = sweep_chart(sweep, 1.0, 0.5, 1.28)
    accuracy, loss = chart.panels
    xs = [p.x for p in accuracy.points]
    assert xs == sorted(xs) and xs[0] == chart.zero_x < chart.plot_left == xs[1]
    assert xs[-1] == pytest.approx(chart.plot_right)  # α = 10 is the right end of 10⁻³ … 10¹
    assert [t.label for t in chart.x_ticks] == ["0", "10⁻³", "0.01", "0.1", "1", "10"]
    assert loss.points[0].infinite and loss.points[0].y == loss.top
    assert not any(p.infinite for p in loss.points[1:])
    # the line joins only the positive α with a finite value
    assert len(loss.line.split()) == 19 and len(accuracy.line.split()) == 19
    # higher values are drawn higher up
    best = accuracy.best
    assert best.alpha == 0.001 and best.y == min(p.y for p in accuracy.points)
    assert chart.current_x == pytest.approx(chart.plot_left + 3 / 4 * (chart.plot_right - chart.plot_left))
    assert accuracy.current.value == 0.5 and loss.current.value == 1.28


def test_an_alpha_outside_the_sweep_widens_the_axis(sweep):
    chart = sweep_chart(sweep, 100.0, 0.5, 2.0)
    assert chart.x_ticks[-1].label == "100" and chart.current_x == pytest.approx(chart.plot_right)
    assert all(math.isfinite(p.y) for panel in chart.panels for p in panel.points)


def test_held_out_settings_are_read_from_the_address():
    state = parse_state({"test": "training", "test_size": "0.4", "seed": "0042", "train": "split"})
    assert (state.test, state.split, state.train, state.errors) == ("training", (0.4, 42), "split", {})
    assert "seed=42" in state.query() and "test=training" in state.query()
    assert "test_size" not in LessonState().query()  # defaults stay out of links
    bad = parse_state({"test": "../x", "test_size": "1", "seed": "9" * 12, "train": "some"})
    assert set(bad.errors) == {"test", "test_size", "seed", "train"}
    assert (bad.test, bad.split, bad.train) == ("split", (0.25, 0), "all")
    for size in ("nan", "inf", "-0.1", "0", "0.0000000001"):
        assert "test_size" in parse_state({"test_size": size}).errors


@pytest.mark.parametrize("name", ["seed", "repeats", "max_features", "min_df", "test_size"])
def test_digits_other_than_0_to_9_are_refused_not_crashed_on(name):
    assert name in parse_state({name: "²"}).errors
    assert name in parse_state({name: "١٢"}).errors  # Arabic-Indic digits
