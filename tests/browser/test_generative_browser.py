"""The generative pages in headless Chromium at projector size (1024×768): typing a review redraws the plot,
the sample steps through draws, and presenter mode never scrolls sideways."""
from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from accessibility import axe_violations

from .conftest import PROJECTOR, htmx_settled, response_to, scroll_width, url_with
from .page_checks import submit_without_javascript

pytestmark = pytest.mark.browser


def series_points(page) -> list[str]:
    lines = page.locator("svg.chart").first.locator("polyline.series")
    return lines.evaluate_all("lines => lines.map(l => l.getAttribute('points'))")


def from_htmx(matches):
    """`matches`, for htmx's requests only."""
    return lambda response: matches(response) and response.request.headers.get("hx-request") == "true"


def test_typing_a_review_redraws_the_plot(browsing, page, server_url, shot):
    from playwright.sync_api import expect

    path = "/corpora/match-reviews/confidence"
    page.goto(f"{server_url}{path}?model=multinomial&alpha=1")
    expect(page.locator("p.verdict")).to_contain_text("Once: positive")
    before = series_points(page)
    assert len(before) == 2
    review = page.locator("#review")
    with page.expect_response(from_htmx(response_to(path, text="match was not sharp not"))):
        review.fill("match was not sharp not")
    htmx_settled(page)  # the next action must reach the swapped-in elements
    expect(page.locator("p.verdict")).to_contain_text("Once: negative")
    after = series_points(page)
    assert after != before and len(after) == 2
    expect(page).to_have_url(url_with(text="match was not sharp not"))  # pushed to history
    # The review box kept its focus and text while the plot below it was redrawn.
    expect(review).to_be_focused()
    expect(review).to_have_value("match was not sharp not")
    shot(page, "confidence-typed")

    # Fewer repeats: the lines get shorter.
    with page.expect_response(from_htmx(response_to(path, repeats="20"))):
        page.locator("#repeats").fill("20")
        page.locator("#repeats").dispatch_event("change")
    htmx_settled(page)  # the next action must reach the swapped-in elements
    expect(page.locator("svg.chart").first.locator("text.tick").last).to_have_text("20")
    assert len(series_points(page)[0].split()) == 20
    assert browsing.errors == []


def test_another_sample_steps_the_draw_not_the_split_seed(browsing, page, server_url):
    from playwright.sync_api import expect

    path = "/corpora/spam-ham/sample"
    page.goto(f"{server_url}{path}?model=multinomial&alpha=1&seed=7")
    first = page.locator("#sample-text").inner_text()
    with page.expect_response(from_htmx(response_to(path, draw="1", seed="7"))):
        page.get_by_role("link", name="Another sample →").click()
    expect(page.locator(".step-buttons strong")).to_have_text("1")
    expect(page).to_have_url(url_with(draw="1", seed="7"))
    expect(page.locator("#sample-text")).not_to_have_text(first)
    htmx_settled(page)  # a key pressed before the swapped-in step links are live would be lost
    page.keyboard.press("ArrowLeft")  # the shared step keys move through draws too
    expect(page.locator(".step-buttons strong")).to_have_text("0")
    expect(page.locator("#sample-text")).to_have_text(first)
    htmx_settled(page)
    # Typing a draw number redraws the sample; the split seed still travels unchanged.
    with page.expect_response(from_htmx(response_to(path, draw="12", seed="7"))):
        page.locator("#sample-draw").fill("12")
    htmx_settled(page)  # the next action must reach the swapped-in elements
    expect(page.locator(".step-buttons strong")).to_have_text("12")
    expect(page).to_have_url(url_with(draw="12", seed="7"))
    assert browsing.errors == []


def test_chart_lines_and_legend_are_styled(browsing, page, server_url):
    # Without the stylesheet a polyline is filled black and an inline SVG swatch is as wide as the page.
    page.goto(f"{server_url}/corpora/match-reviews/confidence?model=multinomial&alpha=1")
    lines = page.locator("svg.chart polyline.series")
    assert lines.count() >= 3
    styles = lines.evaluate_all("ls => ls.map(l => getComputedStyle(l)).map(s => [s.fill, parseFloat(s.strokeWidth)])")
    for style in styles:
        assert style[0] == "none" and style[1] >= 2
    colours = lines.first.evaluate("l => getComputedStyle(l).stroke")
    assert colours != "none"
    for box in [swatch.bounding_box() for swatch in page.locator("svg.swatch").all()]:
        assert 20 <= box["width"] <= 100 and box["height"] <= 30
    legend = page.locator("ul.legend li")
    # one line, side by side
    assert legend.first.bounding_box()["y"] == pytest.approx(legend.nth(1).bounding_box()["y"], abs=2)
    assert browsing.errors == []


@pytest.mark.parametrize(
    "path",
    [
        "/corpora/match-reviews/confidence?model=multinomial&alpha=1&presenter=1",
        "/corpora/spam-ham/confidence?presenter=1",
        "/corpora/match-reviews/sample?presenter=1",
        "/corpora/spam-ham/sample?model=multinomial&alpha=1&presenter=1&length=60",
    ],
)
def test_presenter_mode_fits_the_projector(browsing, page, server_url, shot, path):
    page.goto(server_url + path)
    assert page.locator("body.presenter").count() == 1
    assert scroll_width(page) <= PROJECTOR["width"]
    for svg in page.locator("svg.chart").all():
        box = svg.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PROJECTOR["width"]
    name = urlsplit(path).path.strip("/").replace("/", "-")
    shot(page, f"presenter-{name}-{len(path)}")
    assert browsing.errors == []


def test_works_without_javascript(new_browsing, server_url):
    from playwright.sync_api import expect

    page = new_browsing(java_script_enabled=False).new_page()
    submit_without_javascript(page, f"{server_url}/corpora/match-reviews/confidence?model=multinomial&alpha=1",
                              "#review", "match was not composed", "#review-form button[type=submit]",
                              text="match was not composed", alpha="1", model="multinomial")
    expect(page.locator("p.verdict")).to_contain_text("Once: negative")
    page.goto(f"{server_url}/corpora/match-reviews/sample?draw=2")
    page.locator("#sample-class").select_option("negative")
    page.get_by_role("button", name="Draw").click()
    expect(page).to_have_url(url_with(**{"class": "negative"}))
    expect(page.locator("figure.sampled figcaption strong")).to_have_text("negative")


@pytest.mark.parametrize("path", ["/corpora/spam-ham/confidence?model=multinomial&alpha=1",
                                  "/corpora/china-japan/sample?draw=3"])
def test_no_serious_accessibility_violations(browsing, page, server_url, path):
    page.goto(server_url + path)
    assert axe_violations(page) == []
    assert browsing.errors == []
