"""The sweep chart's geometry, the held-out settings of the lesson state, and the links both kinds of state write."""
from __future__ import annotations

import math

import pytest

from webnb.engine.evaluation.heldout import hold_out
from webnb.engine.records.insights import alpha_sweep
from webnb.examples import load_example_corpus
from webnb.lesson.charts import sweep_chart
from webnb.lesson.state import LessonState, TableState, parse_state


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


def _query_by_the_rule(state: LessonState, defaults: LessonState | None, **changes) -> str:
    """The documented rule, written plainly: every field in order, left out when it equals the default, except
    model and α, each value as the URL writes it."""
    from dataclasses import fields, replace
    from urllib.parse import urlencode

    state, defaults = replace(state, **changes), defaults or LessonState()
    pairs = []
    for f in fields(state):
        value = getattr(state, f.name)
        if f.name == "errors" or (value == getattr(defaults, f.name) and f.name not in ("model", "alpha")):
            continue
        pairs.append((f.name, "1" if value is True else "0" if value is False else
                      ",".join(value) if isinstance(value, tuple) else str(value)))
    return urlencode(pairs)


def test_links_follow_the_rule_for_any_state_and_change():
    """The query string that links carry (made once per state and changed field by field) is the rule's, for
    thousands of random states, defaults and changes; an unknown field is refused."""
    import random

    from webnb.lesson.state import STEPS

    values = {
        "model": ["bernoulli", "multinomial"], "alpha": ["0", "1", "0.5"], "binary": [True, False],
        "text": ["", "x y", "ü&=+% <b>"], "step": list(STEPS), "presenter": [True, False],
        "normalize": [(), ("url",), ("url", "money")], "min_df": ["1", "2"], "floor": [True, False],
        "test": ["split", "training", "abc"], "seed": ["0", "7"],
    }
    rng = random.Random(12)
    for _ in range(2000):
        state = LessonState(**{k: rng.choice(v) for k, v in values.items() if rng.random() < 0.5})
        defaults = rng.choice([None, LessonState(model="multinomial", alpha="1"), LessonState()])
        changes = {k: rng.choice(v) for k, v in values.items() if rng.random() < 0.15}
        assert state.query(defaults, **changes) == _query_by_the_rule(state, defaults, **changes)
        assert state.query(defaults) == _query_by_the_rule(state, defaults)
    with pytest.raises(TypeError):
        LessonState().query(no_such_field="1")


def _table_query_by_the_rule(state: TableState, defaults: TableState | None, **changes) -> str:
    """The Gaussian pages' rule: every field in order, left out when it equals the default except var_smoothing,
    each typed value as a "value" of its own."""
    from dataclasses import fields, replace
    from urllib.parse import urlencode

    state, defaults = replace(state, **changes), defaults or TableState()
    pairs = []
    for f in fields(state):
        value = getattr(state, f.name)
        if f.name == "errors" or (value == getattr(defaults, f.name) and f.name != "var_smoothing"):
            continue
        if f.name == "values":
            pairs.extend(("value", v) for v in value)
        else:
            pairs.append((f.name, "1" if value is True else "0" if value is False else str(value)))
    return urlencode(pairs)


def test_table_links_follow_the_rule_for_any_state_and_change():
    """The same query-string builder, with the Gaussian pages' parameters: var_smoothing in every link, typed values
    repeated."""
    import random

    from webnb.lesson.state import GAUSSIAN_STEPS

    values = {
        "var_smoothing": ["1e-9", "0", "1e-3"], "prior": ["learned", "uniform"], "step": list(GAUSSIAN_STEPS),
        "values": [(), ("5.1",), ("1", "-2.5e3", "a&b")], "presenter": [True, False], "test": ["split", "training"],
        "test_size": ["0.25", "0.4"], "seed": ["0", "3"], "train": ["all", "split"],
    }
    rng = random.Random(21)
    for _ in range(2000):
        state = TableState(**{k: rng.choice(v) for k, v in values.items() if rng.random() < 0.5})
        defaults = rng.choice([None, TableState(test="training"), TableState()])
        changes = {k: rng.choice(v) for k, v in values.items() if rng.random() < 0.15}
        assert state.query(defaults, **changes) == _table_query_by_the_rule(state, defaults, **changes)
        assert state.query(defaults) == _table_query_by_the_rule(state, defaults)
    with pytest.raises(TypeError):
        TableState().query(no_such_field="1")


def test_a_state_reads_back_from_its_own_link():
    from urllib.parse import parse_qsl

    from werkzeug.datastructures import MultiDict

    from webnb.lesson.state import parse_table_state

    lesson = LessonState(model="multinomial", binary=True, normalize=("url", "phone"), text="ü & <b>", seed="9")
    again = parse_state(MultiDict(parse_qsl(lesson.query(), keep_blank_values=True)))
    assert again == lesson and again.errors == {}
    table = TableState(var_smoothing="0", values=("5.1", "-2"), presenter=True, test="training")
    again = parse_table_state(MultiDict(parse_qsl(table.query(), keep_blank_values=True)))
    assert again == table and again.errors == {}
