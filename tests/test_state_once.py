"""One request state, parsed once: every page of a lesson (text or table; the page, its htmx fragment, its JSON twin,
its slide in presenter mode) reads the address's lesson state once, and whatever the page draws later (a chart's
download address, the deck's links) reads that value instead of parsing the query again."""
from __future__ import annotations

import pytest

from webnb.lesson import state as lesson_state
from webnb.lesson.pages import TABLE_PAGES, TEXT_PAGES

TEXT = "?model=bernoulli&alpha=1/2&text=brilliant+match&word=match&class=positive"
TABLE = "?var_smoothing=1e-9"
ASKED = [("", {}), ("&format=json", {}), ("&presenter=1", {}), ("", {"HX-Request": "true"})]


@pytest.fixture()
def parses(monkeypatch):
    """How many times the lesson state was parsed (texts' and tables' parameters alike) since the last reset."""
    counted = []
    parse = lesson_state.ParameterTable.parse

    def counting(self, *args, **kwargs):
        counted.append(self)
        return parse(self, *args, **kwargs)

    monkeypatch.setattr(lesson_state.ParameterTable, "parse", counting)
    return counted


@pytest.mark.parametrize("page", TEXT_PAGES, ids=lambda page: page.key)
def test_a_text_page_parses_its_state_once(client, parses, page):
    # The corpus's own presets are read once per process, at its first page: not a request's state.
    client.get(f"/corpora/match-reviews{TEXT}")
    for suffix, headers in ASKED:
        parses.clear()
        response = client.get(f"/corpora/match-reviews{page.path}{TEXT}{suffix}", headers=headers)
        assert response.status_code == 200, (page.key, suffix, response.status_code)
        assert len(parses) == 1, (page.key, suffix, len(parses))


@pytest.mark.parametrize("page", TABLE_PAGES, ids=lambda page: page.key)
def test_a_table_page_parses_its_state_once(client, parses, page):
    client.get(f"/corpora/iris/gaussian{TABLE}")
    for suffix, headers in ASKED:
        parses.clear()
        response = client.get(f"/corpora/iris{page.path}{TABLE}{suffix}", headers=headers)
        assert response.status_code == 200, (page.key, suffix, response.status_code)
        assert len(parses) == 1, (page.key, suffix, len(parses))
