"""The evaluation page in headless Chromium at projector size: changing α redraws the numbers and the sweep."""
from __future__ import annotations

import re

import pytest
from accessibility import axe_violations

from .conftest import PROJECTOR, htmx_settled, lazy_parts_loaded, response_to, scroll_width, url_with
from .page_checks import check_page_and_its_slide, submit_without_javascript

pytestmark = pytest.mark.browser


def test_changing_alpha_redraws_the_numbers_and_the_sweep(browsing, page, server_url, shot):
    from playwright.sync_api import expect

    page.goto(f"{server_url}/corpora/spam-ham/evaluation?model=bernoulli&alpha=1")
    expect(page.locator("#accuracy")).to_have_text("50.0 %")
    expect(page.locator("#undecidable")).to_have_text("0")
    # the sweep arrives by itself, after the page
    marker = page.locator("#sweep line.current-line").first
    expect(marker).to_be_attached()
    # Four test documents cannot tell it from the α near it: it is the most accurate, not "the best".
    expect(page.locator("#most-accurate-alpha")).to_have_text("0.001")
    x_at_one = marker.get_attribute("x1")
    htmx_settled(page)
    # at α = 0 the log loss is infinite: an arrow, not a point
    expect(page.locator("#sweep circle.point")).to_have_count(2 * 20 - 1)
    shot(page, "evaluation-alpha-1")

    alpha = page.locator("#model-alpha")
    with page.expect_response(response_to("/corpora/spam-ham/evaluation/sweep", alpha="0")):
        alpha.fill("0")
    expect(page.locator("#accuracy")).to_have_text("25.0 %")
    expect(page.locator("#undecidable")).to_have_text("3")
    expect(page.locator(".warning").first).to_contain_text("cannot decide")
    expect(page.locator("#sweep line.current-line").first).not_to_have_attribute("x1", x_at_one)
    expect(page).to_have_url(url_with(alpha="0"))  # the address holds the new state
    rows = page.locator("table.mistakes tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.first).to_contain_text("cannot decide")
    shot(page, "evaluation-alpha-0")

    # a misclassified document opens in Bayes' rule with the model that misclassified it
    rows.first.locator("a").click()
    expect(page.locator(".notice")).to_contain_text("12 training documents")
    expect(page.locator("#review")).to_have_value("URGENT: your account is suspended. Verify now at http://secure-login.example/verify")
    assert browsing.errors == []


def test_changing_the_split_seed(browsing, page, server_url):
    from playwright.sync_api import expect

    path = "/corpora/spam-ham/evaluation"
    page.goto(f"{server_url}{path}?model=multinomial&alpha=1")
    lazy_parts_loaded(page)  # the sweep and the parity badge load by themselves
    before = page.locator("table.confusion").inner_text()
    with page.expect_response(response_to(path, seed="7")):
        page.locator("#test-seed").fill("7")
    expect(page.locator("table.confusion")).not_to_have_text(before)
    htmx_settled(page)
    with page.expect_response(response_to(path, test="training")):
        page.locator("#test-source").select_option("training")
    expect(page.locator("#evaluation")).to_contain_text("flatters the model")
    expect(page.locator("#test-seed")).to_have_count(0)
    assert browsing.errors == []


def test_evaluation_is_accessible_and_fits_the_projector(browsing, page, server_url, shot):
    # Under the real Content-Security-Policy: axe runs through DevTools.
    from playwright.sync_api import expect

    for url in ("/corpora/spam-ham/evaluation?alpha=0", "/corpora/spam-ham/evaluation?presenter=1",
                "/corpora/match-reviews/evaluation", "/corpora/spam-ham/evaluation/sweep?alpha=0.1"):
        page.goto(server_url + url)
        if "presenter=1" in url:  # a slide: the scores, and the sweep on a slide of its own
            expect(page.locator(".deck-slide")).to_be_visible()
        else:
            expect(page.locator("#sweep svg, #evaluation .errors, #sweep").first).to_be_visible()
        if "/sweep" not in url and "presenter=1" not in url:
            expect(page.locator("#sweep svg")).to_be_visible()
        lazy_parts_loaded(page)
        assert axe_violations(page) == [], url
        assert scroll_width(page) <= PROJECTOR["width"], url
    shot(page, "evaluation-sweep-page")
    assert browsing.errors == []


# The other pages of the evaluation part of the lesson, in their ordinary and their presenter form.
OTHER_PAGES = [
    "/corpora/spam-ham/compare",
    "/corpora/spam-ham/words?model=multinomial",
    "/corpora/spam-ham/confidence",
    "/corpora/match-reviews/confidence?alpha=1",
    "/corpora/spam-ham/sample",
    "/corpora/match-reviews/add?label=negative&document=not+sharp",
    "/corpora/match-reviews/parity?of=parameters",
    "/corpora/spam-ham/parity?of=evaluation",
]


@pytest.mark.parametrize("url", OTHER_PAGES)
def test_the_other_evaluation_pages_are_accessible_and_fit_the_projector(browsing, page, server_url, url):
    check_page_and_its_slide(page, server_url, url)
    assert browsing.errors == []


def test_evaluation_without_javascript(new_browsing, server_url):
    from playwright.sync_api import expect

    page = new_browsing(java_script_enabled=False).new_page()
    submit_without_javascript(page, f"{server_url}/corpora/spam-ham/evaluation?model=bernoulli&alpha=1",
                              "#model-alpha", "0", ".model-form button[type=submit]", alpha="0")
    expect(page.locator("#undecidable")).to_have_text("3")
    page.get_by_role("link", name="Show the sweep").click()
    expect(page).to_have_url(re.compile(r"/evaluation/sweep\?"))
    expect(page.locator("svg.sweep-chart")).to_have_count(1)
    expect(page).to_have_url(url_with(alpha="0"))  # the sweep of the model on show
