"""The evaluation page in headless Chromium at projector size: changing α redraws the numbers and the sweep."""
from __future__ import annotations

from pathlib import Path

import pytest

from accessibility import axe_violations
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


def open_page(browser, **options):
    context = browser.new_context(viewport=PROJECTOR, **options)
    errors: list[str] = []
    context.on("console", lambda message: message.type == "error" and errors.append(message.text))
    context.on("weberror", lambda error: errors.append(str(error.error)))
    page = context.new_page()
    page.errors = errors
    yield page
    context.close()


@pytest.fixture
def page(browser):
    yield from open_page(browser)


@pytest.fixture
def axe_page(browser):
    """A page for the axe checks: under the real Content-Security-Policy (axe runs through DevTools)."""
    yield from open_page(browser)


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / f"{name}.png", full_page=True)


def test_changing_alpha_redraws_the_numbers_and_the_sweep(page, server_url):
    from playwright.sync_api import expect

    page.goto(f"{server_url}/corpora/spam-ham/evaluation?model=bernoulli&alpha=1")
    expect(page.locator("#accuracy")).to_have_text("50.0 %")
    expect(page.locator("#undecidable")).to_have_text("0")
    # the sweep arrives by itself, after the page
    marker = page.locator("#sweep line.current-line").first
    expect(marker).to_be_attached()
    expect(page.locator("#best-alpha")).to_have_text("0.001")
    x_at_one = marker.get_attribute("x1")
    htmx_settled(page)
    assert page.locator("#sweep circle.point").count() == 2 * 20 - 1  # at α = 0 the log loss is infinite: an arrow, not a point
    shot(page, "evaluation-alpha-1")

    alpha = page.locator("#model-alpha")
    with page.expect_response(lambda r: "/evaluation/sweep" in r.url and "alpha=0" in r.url):
        alpha.fill("0")
    expect(page.locator("#accuracy")).to_have_text("25.0 %")
    expect(page.locator("#undecidable")).to_have_text("3")
    expect(page.locator(".warning").first).to_contain_text("cannot decide")
    expect(page.locator("#sweep line.current-line").first).not_to_have_attribute("x1", x_at_one)
    assert "alpha=0" in page.url  # the address holds the new state
    rows = page.locator("table.mistakes tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.first).to_contain_text("cannot decide")
    shot(page, "evaluation-alpha-0")

    # a misclassified document opens in Bayes' rule with the model that misclassified it
    rows.first.locator("a").click()
    expect(page.locator(".notice")).to_contain_text("12 training documents")
    expect(page.locator("#review")).to_have_value("URGENT: your account is suspended. Verify now at http://secure-login.example/verify")
    assert page.errors == []


def test_changing_the_split_seed(page, server_url):
    from playwright.sync_api import expect

    page.goto(f"{server_url}/corpora/spam-ham/evaluation?model=multinomial&alpha=1")
    htmx_settled(page)  # the sweep and the parity badge load by themselves
    before = page.locator("table.confusion").inner_text()
    with page.expect_response(lambda r: "/evaluation?" in r.url and "seed=7" in r.url):
        page.locator("#test-seed").fill("7")
    expect(page.locator("table.confusion")).not_to_have_text(before)
    htmx_settled(page)
    with page.expect_response(lambda r: "/evaluation?" in r.url and "test=training" in r.url):
        page.locator("#test-source").select_option("training")
    expect(page.locator("#evaluation")).to_contain_text("flatters the model")
    expect(page.locator("#test-seed")).to_have_count(0)
    assert page.errors == []


def test_evaluation_is_accessible_and_fits_the_projector(axe_page, server_url):
    from playwright.sync_api import expect

    page = axe_page

    for url in ("/corpora/spam-ham/evaluation?alpha=0", "/corpora/spam-ham/evaluation?presenter=1",
                "/corpora/match-reviews/evaluation", "/corpora/spam-ham/evaluation/sweep?alpha=0.1"):
        page.goto(server_url + url)
        expect(page.locator("#sweep svg, #evaluation .errors, #sweep").first).to_be_visible()
        if "/sweep" not in url:
            expect(page.locator("#sweep svg")).to_be_visible()
        assert axe_violations(page) == [], url
        assert page.evaluate("document.documentElement.scrollWidth") <= PROJECTOR["width"], url
    shot(page, "evaluation-sweep-page")
    assert page.errors == []


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
def test_the_other_evaluation_pages_are_accessible_and_fit_the_projector(axe_page, server_url, url):
    page = axe_page
    for address in (url, url + "&presenter=1" if "?" in url else url + "?presenter=1"):
        page.goto(server_url + address)
        page.wait_for_load_state("networkidle")  # lazily loaded parts (the parity badge) are in
        assert axe_violations(page) == [], address
        assert page.evaluate("document.documentElement.scrollWidth") <= PROJECTOR["width"], address
    assert page.errors == []


def test_evaluation_without_javascript(browser, server_url):
    context = browser.new_context(viewport=PROJECTOR, java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{server_url}/corpora/spam-ham/evaluation?model=bernoulli&alpha=1")
    page.locator("#model-alpha").fill("0")
    page.locator(".model-form button[type=submit]").click()
    page.wait_for_load_state()
    assert page.locator("#undecidable").inner_text() == "3"
    page.get_by_role("link", name="Show the sweep").click()
    page.wait_for_load_state()
    assert page.locator("svg.sweep-chart").count() == 1
    context.close()
