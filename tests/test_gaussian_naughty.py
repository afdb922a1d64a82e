"""Hostile strings through the pages of a table of numbers: as feature names, as labels, and typed as values.

The same 516 strings and the same checks as tests/test_naughty_strings.py: nothing a user wrote becomes an element,
an event attribute, an htmx attribute, a script URL or a 500, whole page, htmx fragment or JSON twin.
"""
from __future__ import annotations

import numpy as np
import pytest
from test_naughty_strings import CHECKS, STRINGS, fetch, hx_signature, inert, make_app

from webnb.engine.gaussian.table import NumericTable
from webnb.lesson.state import GAUSSIAN_STEPS

pytestmark = pytest.mark.slow  # three sweeps of 516 strings, a minute in all

VIEWS = [("", {}), ("/parameters", {}), ("/evaluation", {"test": "training"})] + [
    ("/inference", {"step": step}) for step in GAUSSIAN_STEPS]


def add_table(app, features, labels, values) -> str:
    table = NumericTable(tuple(features), np.asarray(values, dtype=float), tuple(labels),
                         tuple(str(i) for i in range(1, len(labels) + 1)))
    return app.extensions["webnb"]["catalog"].add(table, name="table", source="test")


def signatures(client, corpus_id) -> dict:
    return {(suffix, tuple(extra.items()), fragment): hx_signature(
        fetch(client, f"/corpora/{corpus_id}/gaussian{suffix}", extra, fragment).get_data(as_text=True))
        for suffix, extra in VIEWS for fragment in (False, True)}


def check(client, corpus_id, reference, query=None) -> int:
    pages = 0
    for suffix, extra in VIEWS:
        url = f"/corpora/{corpus_id}/gaussian{suffix}"
        for fragment in (False, True):
            page = fetch(client, url, {**(query or {}), **extra}, fragment)
            inert(page.get_data(as_text=True), reference[suffix, tuple(extra.items()), fragment],
                  f"{url} {extra} hx={fragment}")
            pages += 1
        twin = fetch(client, url, {**(query or {}), **extra, "format": "json"})
        assert twin.is_json and isinstance(twin.get_json(), dict)
        pages += 1
    return pages


def _rows(n_rows: int, n_features: int):
    rng = np.random.default_rng(0)
    return rng.normal(size=(n_rows, n_features)) + np.arange(n_rows)[:, None] % 2 * 3


def test_every_string_as_a_feature_name(tmp_path):
    app = make_app(tmp_path)
    client = app.test_client()
    unique = list(dict.fromkeys(s.strip() for s in STRINGS if s.strip()))
    labels = ["neg", "pos"] * 4
    pages = 0
    for start in range(0, len(unique), 60):
        names = unique[start:start + 60]
        values = _rows(len(labels), len(names))
        harmless = add_table(app, [f"feature {j}" for j in range(len(names))], labels, values)
        naughty = add_table(app, names, labels, values)
        pages += check(client, naughty, signatures(client, harmless)) * len(names)
        data = fetch(client, f"/corpora/{naughty}/gaussian/parameters", {"format": "json"}).get_json()
        assert data["features"] == names
    CHECKS["feature name"] += pages


def test_every_string_as_a_label(tmp_path):
    app = make_app(tmp_path)
    client = app.test_client()
    unique = list(dict.fromkeys(s.strip() for s in STRINGS if s.strip()))
    pages = 0
    for start in range(0, len(unique), 60):
        names = unique[start:start + 60]
        labels = [label for label in names for _ in range(2)]  # two rows per class, so every bell has a width
        values = _rows(len(labels), 2) + np.repeat(np.arange(len(names)), 2)[:, None]
        harmless = add_table(app, ["x", "y"], [f"class {i // 2}" for i in range(len(labels))], values)
        naughty = add_table(app, ["x", "y"], labels, values)
        pages += check(client, naughty, signatures(client, harmless)) * len(names)
        data = fetch(client, f"/corpora/{naughty}/gaussian", {"format": "json"}).get_json()
        assert sorted(data["class_counts"]) == sorted(names)
    CHECKS["table label"] += pages


def test_every_string_typed_as_a_value(tmp_path):
    app = make_app(tmp_path)
    client = app.test_client()
    reference = signatures(client, "iris")
    pages = 0
    for string in STRINGS:
        typed = string[:100]
        for suffix, extra in (("/inference", {"step": "densities"}), ("/inference", {"step": "zero-width"})):
            for fragment in (False, True):
                query = {**extra, "value": [typed, "3", "1.4", "0.2"]}
                page = fetch(client, f"/corpora/iris/gaussian{suffix}", query, fragment)
                inert(page.get_data(as_text=True), reference[suffix, tuple(extra.items()), fragment],
                      f"value {typed!r}")
                pages += 1
    CHECKS["typed value"] += pages
