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


# Each page of a text lesson and of a table lesson, with its address's settings. The corpus's own presets are read
# once per process, at its first page (not a request's state): a first request reads them before the count.
PAGES = [(f"/corpora/match-reviews{page.path}{TEXT}", f"/corpora/match-reviews{TEXT}", page.key)
         for page in TEXT_PAGES] + [(f"/corpora/iris{page.path}{TABLE}", f"/corpora/iris/gaussian{TABLE}",
                                     f"table {page.key}") for page in TABLE_PAGES]


@pytest.mark.parametrize("address, first, key", PAGES, ids=[key for _, _, key in PAGES])
def test_a_page_parses_its_state_once(client, parses, address, first, key):
    client.get(first)
    for suffix, headers in ASKED:
        parses.clear()
        response = client.get(address + suffix, headers=headers)
        assert response.status_code == 200, (key, suffix, response.status_code)
        assert len(parses) == 1, (key, suffix, len(parses))
