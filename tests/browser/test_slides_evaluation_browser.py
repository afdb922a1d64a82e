"""The slides of the evaluation, the α sweep, the models side by side and the telling words (issue 24), in Chromium at
1024 × 768: each fits the projector without scrolling, its running text stays ≥ 24 px and nothing (the sweep's chart
included) goes under 20 px; the full tables open from the keyboard; and with twenty classes every slide still fits."""
from __future__ import annotations

import json
from urllib.parse import urlencode

import pytest
from playwright.sync_api import expect

from browser.slides import (
    MEASURE,
    SMALLEST_TYPE,
    expect_after_background_work,
    slide_problems,
    twenty_classes_fixture,
)
from browser.test_deck_browser import LESSONS
from webnb.lesson.formatting import probability

pytestmark = pytest.mark.browser

# (path after /corpora/<id>, slide key or None for a page of one slide, what the slide must show)
SLIDES = (
    ("/evaluation", "scores", "#slide-accuracy"),
    ("/evaluation", "mistakes", "#slide-mistakes-count"),
    ("/evaluation/sweep", None, "svg.sweep-chart"),
    ("/compare", None, "table.slide-comparison"),
    ("/compare", "pairs", "table.slide-pairs"),
    ("/words", None, "table.slide-words"),
)
TEXT_LESSONS = [name for name, (_, _, kind) in LESSONS.items() if kind == "text"]


def slide_url(server_url: str, corpus: str, settings: dict, path: str, key: str | None) -> str:
    query = {**settings, "presenter": "1", **({"slide": key} if key else {})}
    return f"{server_url}/corpora/{corpus}{path}?{urlencode(query)}"


def sweep_text_size(page) -> float:
    """The smallest text of the sweep's chart as drawn: its font size times the drawing's scale."""
    return page.evaluate("""() => {
      const svg = document.querySelector('svg.sweep-chart');
      const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
      return Math.min(...[...svg.querySelectorAll('text')].map(t => parseFloat(getComputedStyle(t).fontSize) * scale));
    }""")


@pytest.mark.parametrize("lesson", TEXT_LESSONS)
def test_each_slide_fits_the_projector_in_legible_type(page, server_url, shot, lesson):
    corpus, settings, _ = LESSONS[lesson]
    problems = []
    for path, key, shown in SLIDES:
        page.goto(slide_url(server_url, corpus, settings, path, key))
        expect(page.locator(".deck-slide")).to_be_visible()
        expect(page.locator(f".deck-slide {shown}").first).to_be_visible()
        # The scikit-learn check is not on the slide, nor any warning box.
        expect(page.locator(".deck-slide .parity, .deck-slide .warning")).to_have_count(0)
        shot(page, f"slide-{lesson}{path.replace('/', '-')}-{key or 'one'}", full_page=False)
        problems += [f"{path} {key}: {problem}" for problem in slide_problems(page.evaluate(MEASURE))]
        if path == "/evaluation/sweep":
            assert sweep_text_size(page) >= SMALLEST_TYPE
    assert problems == [], "\n".join(problems)


def test_the_sweep_slide_draws_the_chart_at_full_scale_and_names_both_alphas(page, server_url):
    corpus, settings, _ = LESSONS["spam-ham"]
    page.goto(slide_url(server_url, corpus, settings, "/evaluation/sweep", None))
    record = json.loads(page.context.request.get(
        f"{server_url}/corpora/{corpus}/evaluation/sweep?{urlencode({**settings, 'format': 'json'})}").text())
    expect(page.locator("#slide-best-alpha")).to_have_text(probability(record["best"]["alpha"]))
    expect(page.locator("#slide-current-alpha")).to_have_text(settings["alpha"])
    assert sweep_text_size(page) >= 22  # 22 px labels on a drawing at its own scale
    box = page.locator("svg.sweep-chart").bounding_box()
    assert box["x"] + box["width"] <= 1024 and box["y"] + box["height"] <= 768 - 40  # above the deck's bar


def test_a_folded_table_opens_from_the_keyboard(page, server_url):
    corpus, settings, _ = LESSONS["spam-ham"]
    page.goto(slide_url(server_url, corpus, settings, "/compare", None))
    summary = page.locator(".deck-slide details.full-table > summary").first
    for _ in range(12):  # Tab until the first folded table's summary has the focus
        page.keyboard.press("Tab")
        if summary.evaluate("e => e === document.activeElement"):
            break
    expect(summary).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator(".deck-slide details.full-table").first).to_have_attribute("open", "")
    expect(page.locator(".deck-slide details.full-table").first.locator("table").first).to_be_visible()


# -- twenty classes --------------------------------------------------------------------------------------------------

# The corpus is counted, and the comparison fits its models, in the background.
twenty_classes = twenty_classes_fixture("twenty-sample")


@pytest.mark.corpora
@pytest.mark.slow
def test_with_twenty_classes_every_slide_still_fits(page, server_url, shot, twenty_classes):
    problems = []
    for path, key, shown in SLIDES:
        page.goto(slide_url(server_url, twenty_classes, {}, path, key))
        expect_after_background_work(page.locator(f".deck-slide {shown}").first)
        shot(page, f"slide-twenty{path.replace('/', '-')}-{key or 'one'}", full_page=False)
        problems += [f"{path} {key}: {problem}" for problem in slide_problems(page.evaluate(MEASURE))]
        if key == "scores":
            # Twenty classes: the largest confusions on the slide, the whole matrix folded.
            expect(page.locator(".deck-slide table.slide-confusion")).to_have_count(0)
            expect(page.locator(".deck-slide table.slide-confused tbody tr")).not_to_have_count(0)
            expect(page.locator(".deck-slide details.full-table table.confusion tbody tr")).to_have_count(20)
        if path == "/words":
            expect(page.locator(".deck-slide table.slide-words tbody tr")).to_have_count(5)
            expect(page.locator(".deck-slide .more-classes")).to_have_text("+ 15 more classes")
            expect(page.locator(".deck-slide details.full-table tbody tr")).to_have_count(20)
    assert problems == [], "\n".join(problems)


@pytest.mark.corpora
@pytest.mark.slow
def test_with_twenty_classes_the_comparison_on_several_splits_fits_both_slides(page, server_url, shot, twenty_classes):
    """Twenty classes on three splits: each model's range and wins one key away on the first slide, the verdict of
    the splits on the second, both within 1024 × 768, and the twin's figures on them."""
    problems = []
    settings = {"splits": "3"}
    for key, shown in ((None, "table.slide-comparison"), ("pairs", "table.slide-pairs")):
        page.goto(slide_url(server_url, twenty_classes, settings, "/compare", key))
        expect_after_background_work(page.locator(f".deck-slide {shown}").first)
        shot(page, f"slide-twenty-compare-splits-{key or 'one'}", full_page=False)
        problems += [f"/compare {key}: {problem}" for problem in slide_problems(page.evaluate(MEASURE))]
    record = json.loads(page.context.request.get(
        f"{server_url}/corpora/{twenty_classes}/compare?{urlencode({**settings, 'format': 'json'})}").text())
    splits = record["splits"]
    assert splits["splits"] == 3 and len(record["comparison"]["against_best"]) == 4
    rows = page.locator(".deck-slide .slide-pairs tbody tr")
    expect(rows).to_have_count(4)
    for index, (first, second) in enumerate(record["comparison"]["against_best"]):
        expect(rows.nth(index)).to_have_attribute("id", f"slide-pair-{first}-{second}")
    always = splits["always_best"]
    verdict = page.locator(".deck-slide .splits-verdict")
    if always:
        expect(verdict).to_contain_text(always[0])
    else:
        expect(verdict).to_have_text("No model came out best on every split: which one wins depends on the split.")
    assert problems == [], "\n".join(problems)
