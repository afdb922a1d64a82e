"""The generative pages in headless Chromium at projector size (1024×768): typing a review redraws the plot,
the sample steps through draws, and presenter mode never scrolls sideways. Screenshots go to tests/artifacts/."""
from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from conftest import htmx_settled, serving
from webnb import create_app

pytestmark = pytest.mark.browser

PROJECTOR = {"width": 1024, "height": 768}
ARTIFACTS = Path(__file__).parent / "artifacts"


@pytest.fixture(scope="module")
def server_url(tmp_path_factory):
    app = create_app({"TESTING": True, "SECRET_KEY": "test"}, instance_path=str(tmp_path_factory.mktemp("instance")))
    with serving(app) as url:
        yield url


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport=PROJECTOR)
    errors: list[str] = []
    context.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    context.on("weberror", lambda error: errors.append(str(error.error)))
    page = context.new_page()
    yield page
    assert errors == []
    context.close()


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / f"{name}.png", full_page=True)


def scroll_width(page) -> int:
    return page.evaluate("document.documentElement.scrollWidth")


def series_points(page) -> list[str]:
    return page.locator("svg.chart").first.locator("polyline.series").evaluate_all("lines => lines.map(l => l.getAttribute('points'))")


def test_typing_a_review_redraws_the_plot(page, server_url):
    from playwright.sync_api import expect

    page.goto(f"{server_url}/corpora/match-reviews/confidence?model=multinomial&alpha=1")
    expect(page.locator("p.verdict")).to_contain_text("Once: positive")
    before = series_points(page)
    assert len(before) == 2
    review = page.locator("#review")
    path = urlsplit(page.url).path
    with page.expect_response(lambda r: urlsplit(r.url).path == path and "not" in r.url and r.request.headers.get("hx-request") == "true"):
        review.fill("match was not sharp not")
    htmx_settled(page)  # the next action must reach the swapped-in elements
    expect(page.locator("p.verdict")).to_contain_text("Once: negative")
    after = series_points(page)
    assert after != before and len(after) == 2
    assert parse_qs(urlsplit(page.url).query)["text"] == ["match was not sharp not"]  # pushed to history
    # The review box kept its focus and text while the plot below it was redrawn.
    expect(review).to_be_focused()
    expect(review).to_have_value("match was not sharp not")
    shot(page, "confidence-typed")

    # Fewer repeats: the lines get shorter.
    with page.expect_response(lambda r: "repeats=20" in r.url):
        page.locator("#repeats").fill("20")
        page.locator("#repeats").dispatch_event("change")
    htmx_settled(page)  # the next action must reach the swapped-in elements
    expect(page.locator("svg.chart").first.locator("text.tick").last).to_have_text("20")
    assert len(series_points(page)[0].split()) == 20


def test_another_sample_steps_the_draw_not_the_split_seed(page, server_url):
    from playwright.sync_api import expect

    page.goto(f"{server_url}/corpora/spam-ham/sample?model=multinomial&alpha=1&seed=7")
    first = page.locator("#sample-text").inner_text()
    page.get_by_role("link", name="Another sample →").click()
    expect(page.locator(".step-buttons strong")).to_have_text("1")
    query = parse_qs(urlsplit(page.url).query)
    assert query["draw"] == ["1"] and query["seed"] == ["7"]
    assert page.locator("#sample-text").inner_text() != first
    page.keyboard.press("ArrowLeft")  # the shared step keys move through draws too
    expect(page.locator(".step-buttons strong")).to_have_text("0")
    expect(page.locator("#sample-text")).to_have_text(first)
    # Typing a draw number redraws the sample; the split seed still travels unchanged.
    with page.expect_response(lambda r: "draw=12" in r.url and r.request.headers.get("hx-request") == "true"):
        page.locator("#sample-draw").fill("12")
    htmx_settled(page)  # the next action must reach the swapped-in elements
    expect(page.locator(".step-buttons strong")).to_have_text("12")
    assert parse_qs(urlsplit(page.url).query)["seed"] == ["7"]


def test_chart_lines_and_legend_are_styled(page, server_url):
    # Without the stylesheet a polyline is filled black and an inline SVG swatch is as wide as the page.
    page.goto(f"{server_url}/corpora/match-reviews/confidence?model=multinomial&alpha=1")
    lines = page.locator("svg.chart polyline.series")
    assert lines.count() >= 3
    for style in lines.evaluate_all("ls => ls.map(l => [getComputedStyle(l).fill, parseFloat(getComputedStyle(l).strokeWidth)])"):
        assert style[0] == "none" and style[1] >= 2
    colours = lines.first.evaluate("l => getComputedStyle(l).stroke")
    assert colours != "none"
    for box in [swatch.bounding_box() for swatch in page.locator("svg.swatch").all()]:
        assert 20 <= box["width"] <= 100 and box["height"] <= 30
    legend = page.locator("ul.legend li")
    assert legend.first.bounding_box()["y"] == pytest.approx(legend.nth(1).bounding_box()["y"], abs=2)  # one line, side by side


@pytest.mark.parametrize(
    "path",
    [
        "/corpora/match-reviews/confidence?model=multinomial&alpha=1&presenter=1",
        "/corpora/spam-ham/confidence?presenter=1",
        "/corpora/match-reviews/sample?presenter=1",
        "/corpora/spam-ham/sample?model=multinomial&alpha=1&presenter=1&length=60",
    ],
)
def test_presenter_mode_fits_the_projector(page, server_url, path):
    page.goto(server_url + path)
    assert page.locator("body.presenter").count() == 1
    assert scroll_width(page) <= PROJECTOR["width"]
    for svg in page.locator("svg.chart").all():
        box = svg.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PROJECTOR["width"]
    name = urlsplit(path).path.strip("/").replace("/", "-")
    shot(page, f"presenter-{name}-{len(path)}")


def test_works_without_javascript(browser, server_url):
    context = browser.new_context(viewport=PROJECTOR, java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{server_url}/corpora/match-reviews/confidence?model=multinomial&alpha=1")
    page.locator("#review").fill("match was not composed")
    page.locator("#review-form button[type=submit]").click()
    page.wait_for_url("**text=match+was+not+composed**")
    assert "Once: negative" in page.locator("p.verdict").inner_text()
    assert "alpha=1" in page.url and "model=multinomial" in page.url
    page.goto(f"{server_url}/corpora/match-reviews/sample?draw=2")
    page.locator("#sample-class").select_option("negative")
    page.get_by_role("button", name="Draw").click()
    page.wait_for_url("**class=negative**")
    assert page.locator("figure.sampled figcaption strong").inner_text() == "negative"
    context.close()


@pytest.mark.parametrize("path", ["/corpora/spam-ham/confidence?model=multinomial&alpha=1", "/corpora/china-japan/sample?draw=3"])
def test_no_serious_accessibility_violations(page, server_url, path):
    from accessibility import axe_violations

    page.goto(server_url + path)
    assert axe_violations(page) == []
