"""The home page as a person sees it: headless Chromium at projector size, against a real local server."""
from __future__ import annotations

import pytest

from webnb.examples import EXAMPLES, load_example_corpus

from .conftest import PROJECTOR, scroll_width

pytestmark = pytest.mark.browser


def test_home_shows_the_examples(page, server_url):
    from playwright.sync_api import expect

    page.goto(server_url + "/")
    for example in EXAMPLES:
        section = page.locator(f"#example-{example.id}")
        expect(section.get_by_role("heading", name=example.title)).to_be_visible()
        expect(section.locator("table.class-counts")).to_be_visible()
        documents = section.locator("table.documents")
        expect(documents).to_be_visible()
        expect(documents.locator("tbody tr")).to_have_count(len(load_example_corpus(example.id)))


def test_htmx_loads_without_console_errors(browsing, page, server_url):
    page.goto(server_url + "/")
    assert page.evaluate("typeof htmx") == "object"
    assert browsing.errors == []


def test_home_fits_the_projector(page, server_url, shot):
    page.goto(server_url + "/")
    shot(page, "home-1024x768", full_page=False)
    assert scroll_width(page) <= PROJECTOR["width"]
    assert page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)") >= 20
