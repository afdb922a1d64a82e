"""The "compare models" page in headless Chromium: the form changes the table and the address, and the projector
shows the settings in words without scrolling sideways."""
from __future__ import annotations

import re

import pytest

from .conftest import url_with

pytestmark = pytest.mark.browser

PAGE = "/corpora/spam-ham/compare"


def test_changing_C_updates_the_table_and_the_address(browsing, page, server_url, shot):
    from playwright.sync_api import expect

    page.goto(f"{server_url}{PAGE}")
    accuracy = page.locator("#model-logistic td.accuracy")
    expect(accuracy).to_have_text(re.compile(r"^75\.00 %"))
    page.fill("#compare-C", "0.001")
    page.press("#compare-C", "Enter")
    expect(page).to_have_url(url_with(C="0.001"))
    expect(page.locator("#compare-C")).to_have_value("0.001")
    # a penalty this strong leaves only the biases, which pick the larger class: ham, 2 of the 4 test messages
    expect(accuracy).to_have_text(re.compile(r"^50\.00 %"))
    expect(page.locator("#compare-C-error")).to_have_count(0)
    # the projector's slide: the form gives way to the settings said in words, and nothing scrolls sideways
    page.goto(page.url + "&presenter=1")
    expect(page.locator(".deck-slide")).to_contain_text("Naive Bayes with α = 1, logistic regression with C = 0.001.")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert page.evaluate("[...document.querySelectorAll('.table-scroll')].every(s => s.scrollWidth <= s.clientWidth)")
    shot(page, "compare-presenter")
    assert browsing.errors == []
