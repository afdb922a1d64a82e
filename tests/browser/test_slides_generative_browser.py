"""The slides of overconfidence, sampling, adding a document and the pages of a table of numbers (issue 24), in
Chromium at 1024 × 768: each fits the projector without scrolling, its running text stays ≥ 24 px and nothing (the
charts' text drawn at their scale included) goes under 20 px; axe finds nothing serious; the folded parts open from
the keyboard; the add slide leaves the arrows to the deck; and with many classes or features every slide still
fits."""
from __future__ import annotations

from urllib.parse import urlencode, urlsplit

import numpy as np
import pytest
from accessibility import axe_violations
from playwright.sync_api import expect

from browser.slides import (
    MEASURE,
    SMALLEST_TYPE,
    expect_after_background_work,
    press,
    slide_problems,
    twenty_classes_fixture,
)
from browser.test_deck_browser import LESSONS
from webnb.engine.gaussian.table import NumericTable

pytestmark = pytest.mark.browser

# (path after /corpora/<id>, what the slide must show)
TEXT_SLIDES = (
    ("/confidence", "svg.chart"),
    ("/confidence", "#slide-accuracy"),
    ("/sample", "#slide-sample-text li"),
    ("/add", ".slide-add-tables table"),
)
TABLE_SLIDES = (
    ("/gaussian", {}, "table.numeric-rows.condensed"),
    ("/gaussian/parameters", {}, "table.slide-bells"),
    ("/gaussian/inference", {"step": "densities"}, "svg.slide-chart"),
    ("/gaussian/evaluation", {}, "#slide-accuracy"),
)
TEXT_LESSONS = [name for name, (_, _, kind) in LESSONS.items() if kind == "text"]
TABLES = ["iris", "match-ratings", "red-cards"]

# The smallest text of the slide's charts as drawn: font size times the drawing's scale.
CHART_TEXT = """selector => Math.min(...[...document.querySelectorAll(selector)].filter(t => t.getClientRects().length)
  .map(t => { const svg = t.ownerSVGElement;
              return parseFloat(getComputedStyle(t).fontSize) * svg.getBoundingClientRect().width
                     / svg.viewBox.baseVal.width; }))"""


def text_url(server_url: str, corpus: str, settings: dict, path: str) -> str:
    return f"{server_url}/corpora/{corpus}{path}?{urlencode({**settings, 'presenter': '1'})}"


def table_url(server_url: str, corpus: str, path: str, extra: dict) -> str:
    return f"{server_url}/corpora/{corpus}{path}?{urlencode({**extra, 'presenter': '1'})}"


def table_slides(page, server_url: str, shot, corpus: str, name: str):
    """Open each of TABLE_SLIDES on ``corpus`` in turn, once it shows what it must (a screenshot named after
    ``name``); yield its path, the slide open."""
    for path, extra, shown in TABLE_SLIDES:
        page.goto(table_url(server_url, corpus, path, extra))
        expect(page.locator(f"main {shown}").first).to_be_visible()
        shot(page, f"slide-{name}{path.replace('/', '-')}", full_page=False)
        yield path


@pytest.mark.parametrize("lesson", TEXT_LESSONS)
def test_each_text_slide_fits_the_projector_in_legible_type(page, server_url, shot, lesson):
    corpus, settings, _ = LESSONS[lesson]
    problems = []
    for path, shown in TEXT_SLIDES:
        page.goto(text_url(server_url, corpus, settings, path))
        expect(page.locator(f".deck-slide {shown}").first).to_be_visible()
        shot(page, f"slide-{lesson}{path.replace('/', '-')}", full_page=False)
        problems += [f"{path}: {problem}" for problem in slide_problems(page.evaluate(MEASURE))]
        problems += [f"{path}: {violation}" for violation in axe_violations(page)]
        if path == "/confidence":
            assert page.evaluate(CHART_TEXT, ".deck-slide svg.chart text") >= SMALLEST_TYPE
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize("corpus", TABLES)
def test_each_table_slide_fits_the_projector_in_legible_type(page, server_url, shot, corpus):
    problems = []
    for path in table_slides(page, server_url, shot, corpus, corpus):
        problems += [f"{path}: {problem}" for problem in slide_problems(page.evaluate(MEASURE))]
        problems += [f"{path}: {violation}" for violation in axe_violations(page)]
        if page.locator("svg.slide-chart").count():
            assert page.evaluate(CHART_TEXT, "main svg.slide-chart text") >= SMALLEST_TYPE, path
    assert problems == [], "\n".join(problems)


def test_the_densities_of_bayes_rule_are_legible_and_the_other_features_open_from_the_keyboard(page, server_url):
    page.goto(table_url(server_url, "iris", "/gaussian/inference", {"step": "densities"}))
    charts = page.locator("#step-densities > .density-grid svg.slide-chart")
    expect(charts).to_have_count(2)
    # Drawn about a unit a pixel: the chart's text is the size the slide sets.
    assert page.evaluate(CHART_TEXT, "#step-densities > .density-grid svg.slide-chart text") >= SMALLEST_TYPE
    folded = page.locator("details.more-densities")
    expect(folded.locator("svg.slide-chart").first).to_be_hidden()
    folded.locator("summary").focus()
    page.keyboard.press("Enter")
    expect(folded.locator("svg.slide-chart")).to_have_count(2)
    expect(folded.locator("svg.slide-chart").first).to_be_visible()
    assert page.evaluate(CHART_TEXT, "details.more-densities svg.slide-chart text") >= SMALLEST_TYPE


def test_the_curves_slide_opens_every_mean_and_the_other_curves_by_tab_and_enter(page, server_url):
    page.goto(table_url(server_url, "iris", "/gaussian/parameters", {}))
    summary = page.locator(".deck-slide details.full-table > summary")
    for _ in range(12):  # Tab reaches the summary after the deck's own controls, whichever come first
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.tagName") == "SUMMARY":
            break
    expect(summary).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator(".deck-slide details.full-table table.gaussian-params")).to_be_visible()
    expect(page.locator(".deck-slide details.full-table svg.slide-chart")).to_have_count(2)


def test_the_add_slide_leaves_the_arrows_to_the_deck_until_a_field_is_chosen(page, server_url):
    corpus, settings, _ = LESSONS["match-reviews"]
    page.goto(text_url(server_url, corpus, settings, "/add"))
    # Arriving from the deck the slide adds the review.
    expect(page.locator("#slide-add-text")).to_have_value(settings["text"])
    expect(page.locator(".add-verdict")).to_contain_text("Counted as a negative document")
    assert page.evaluate("document.activeElement === document.body")
    # In the field the arrows move the caret; Escape leaves it and they move the deck again.
    page.locator("#slide-add-text").click()
    page.keyboard.press("ArrowLeft")
    assert urlsplit(page.url).path.endswith("/add")
    page.keyboard.press("Escape")
    press(page, "ArrowLeft")
    expect(page.locator(".deck-bar .deck-position strong")).to_have_text("Sampling")
    press(page, "ArrowRight")
    expect(page.locator(".deck-bar .deck-position strong")).to_have_text("Add a document")
    assert page.evaluate("document.activeElement === document.body")


def test_another_document_is_added_from_the_slide(page, server_url):
    corpus, settings, _ = LESSONS["match-reviews"]
    page.goto(text_url(server_url, corpus, settings, "/add"))
    page.locator("#slide-add-label").select_option("positive")
    page.locator("#slide-add-text").fill("superb keeper")
    with page.expect_navigation():
        page.locator(".slide-add-form button").click()
    assert "presenter=1" in page.url and "document=superb+keeper" in page.url
    expect(page.locator(".add-verdict")).to_contain_text("Counted as a positive document")
    expect(page.locator(".deck-bar")).to_be_visible()


# -- many classes and features ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def wide_table(served_app) -> str:
    """A table of twelve classes with long names and seven features, in the served app's catalog."""
    rng = np.random.default_rng(2)
    classes = np.repeat(np.arange(12), 15)
    table = NumericTable(tuple(f"measurement number {j}" for j in range(7)),
                         rng.normal(size=(len(classes), 7)) * 100 + classes[:, None] * 20,
                         tuple(f"a rather long class name {k}" for k in classes), tuple(map(str, range(len(classes)))))
    return served_app.extensions["webnb"]["catalog"].add(table, name="Twelve kinds of things", source="test")


def test_with_many_classes_and_features_every_table_slide_still_fits(page, server_url, shot, wide_table):
    problems = []
    for path in table_slides(page, server_url, shot, wide_table, "wide"):
        if path == "/gaussian/inference":
            # The step's table of densities has a column per class (templates/gaussian/steps/densities.html): only
            # its charts are measured here, two side by side, within the slide and legible.
            charts = page.locator("#step-densities > .density-grid svg.slide-chart")
            boxes = [svg.bounding_box() for svg in charts.all()]
            assert len(boxes) == 2 and all(0 <= box["x"] and box["x"] + box["width"] <= 1024 for box in boxes)
            assert page.evaluate(CHART_TEXT, "#step-densities > .density-grid svg.slide-chart text") >= SMALLEST_TYPE
            continue
        problems += [f"{path}: {problem}" for problem in slide_problems(page.evaluate(MEASURE))]
    assert problems == [], "\n".join(problems)


# The corpus is counted, and the confidence scores its held-out part, in the background.
twenty_classes = twenty_classes_fixture("twenty-generative")


@pytest.mark.corpora
@pytest.mark.slow
def test_with_twenty_classes_every_text_slide_still_fits(page, server_url, shot, twenty_classes):
    problems = []
    for path, shown in TEXT_SLIDES:
        page.goto(text_url(server_url, twenty_classes, {}, path))
        expect_after_background_work(page.locator(f".deck-slide {shown}").first)
        shot(page, f"slide-twenty{path.replace('/', '-')}", full_page=False)
        problems += [f"{path}: {problem}" for problem in slide_problems(page.evaluate(MEASURE))]
        if path == "/confidence":
            assert page.evaluate(CHART_TEXT, ".deck-slide svg.chart text") >= SMALLEST_TYPE
            expect(page.locator(".deck-slide .legend li.muted")).to_contain_text("less probable classes")
        if path == "/add":
            expect(page.locator(".slide-add-tables .more").first).to_have_text("+ 18 more classes")
    assert problems == [], "\n".join(problems)
