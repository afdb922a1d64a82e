"""The "add one document" page in headless Chromium: the changes appear in place, follow the model, and a kept copy
opens as a corpus of its own."""
from __future__ import annotations

import re

import pytest

from .conftest import PROJECTOR, response_to, scroll_width, url_with

pytestmark = pytest.mark.browser

PAGE = "/corpora/match-reviews/add"


def test_in_a_browser(browsing, page, server_url, shot):
    from playwright.sync_api import expect

    page.goto(f"{server_url}{PAGE}?model=bernoulli&alpha=0")
    page.select_option("#add-label", "negative")
    page.fill("#add-text", "not sharp")
    with page.expect_response(response_to(PAGE, document="not sharp", label="negative")):
        page.click("text=Show what changes")
    expect(page.locator("table.add-params")).to_be_visible()
    expect(page).to_have_url(url_with(document="not sharp"))
    expect(page.locator("table.add-params td.changed")).to_have_count(1)
    # Changing the model re-renders the changes at once, keeping the document.
    with page.expect_response(response_to(PAGE, model="multinomial", document="not sharp")):
        page.select_option("#add-model", "multinomial")
    expect(page.locator("table.add-params caption")).to_contain_text("θ")
    expect(page.locator("#add-text")).to_have_value("not sharp")
    expect(page.locator("table.add-params td.changed")).to_have_count(2)  # both θ of the negative class
    page.click("text=Keep it")
    expect(page).to_have_url(re.compile(r"/corpora/[^/]+/parameters\?"))
    expect(page.locator("h1")).to_contain_text("Match reviews + 1 document")
    page.goto(f"{server_url}{PAGE}?model=multinomial&alpha=1&label=positive&document=superb+keeper+superb&presenter=1")
    assert scroll_width(page) <= PROJECTOR["width"]
    shot(page, "additions-presenter")
    assert browsing.errors == []
