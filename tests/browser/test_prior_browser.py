"""Smoothing as a Beta prior in headless Chromium at projector size (1024×768), normal and in presenter mode: the
chart is drawn, axe finds nothing serious, nothing scrolls sideways, and the α links redraw the view in place."""
from __future__ import annotations

import pytest
from accessibility import axe_violations

from .conftest import PROJECTOR, htmx_settled, response_to, scroll_width, url_with

pytestmark = pytest.mark.browser

PATH = "/corpora/match-reviews/parameters/prior"
QUERY = "word=not&class=positive&model=bernoulli"


@pytest.mark.parametrize("presenter", ["0", "1"])
def test_the_beta_view_is_drawn_and_accessible(browsing, page, server_url, shot, presenter):
    from playwright.sync_api import expect

    page.goto(f"{server_url}{PATH}?{QUERY}&alpha=1&presenter={presenter}")
    chart = page.get_by_role("img", name="Likelihood, prior and posterior of ψ for “not” in positive")
    expect(chart).to_be_visible()
    expect(page.locator(".beta-chart polyline")).to_have_count(3)
    expect(page.locator(".beta-chart .estimate-label")).to_have_text(["MLE", "MAP", "posterior mean"])
    map_row = page.locator(".beta-estimates tr.chosen")
    expect(map_row).to_contain_text("= (0 + 1) / (3 + 2 × 1) = 1/5")
    box = chart.bounding_box()
    assert box["width"] > 600 and box["y"] + box["height"] > 0
    assert scroll_width(page) <= PROJECTOR["width"]
    assert axe_violations(page) == []
    assert browsing.errors == []
    shot(page, f"prior-match-reviews-presenter-{presenter}")


def test_alpha_links_redraw_the_view_and_keep_the_address(browsing, page, server_url, shot):
    from playwright.sync_api import expect

    page.goto(f"{server_url}{PATH}?{QUERY}&alpha=1")
    map_row = page.locator(".beta-estimates tr.chosen")
    with page.expect_response(response_to(PATH, alpha="0", word="not")):
        page.locator(".beta-choices").get_by_role("link", name="0", exact=True).click()
    htmx_settled(page)
    expect(map_row).to_contain_text("(0 + 0) / (3 + 2 × 0) = 0/3")
    expect(page.locator("#prior .warning")).to_contain_text("ψ = 0 exactly")
    expect(page).to_have_url(url_with(alpha="0", word="not", **{"class": "positive"}))
    assert page.locator("h1").count() == 1  # the block was swapped, not a page inside the page
    shot(page, "prior-match-reviews-alpha-0")
    with page.expect_response(response_to(PATH, alpha="0", **{"class": "negative"})):
        page.locator(".beta-choices").get_by_role("link", name="negative").click()
    htmx_settled(page)
    expect(map_row).to_contain_text("(2 + 0) / (2 + 2 × 0) = 2/2")
    assert browsing.errors == []


def test_the_dirichlet_view_of_a_multinomial_theta(browsing, page, server_url, shot):
    from playwright.sync_api import expect

    page.goto(f"{server_url}/corpora/china-japan/parameters/prior?word=tokyo&class=China&model=multinomial&alpha=1")
    expect(page.get_by_role("img", name="Likelihood, prior and posterior of θ for “tokyo” in China")).to_be_visible()
    expect(page.locator(".beta-estimates tr.chosen")).to_contain_text("= (0 + 1) / (8 + 6 × 1) = 1/14")
    assert scroll_width(page) <= PROJECTOR["width"]
    assert axe_violations(page) == []
    assert browsing.errors == []
    shot(page, "prior-china-japan-multinomial")
