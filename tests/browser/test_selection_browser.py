"""Feature selection in headless Chromium: the deck's three slides of a twenty-class sample of 20 Newsgroups at
projector size (1024 × 768), at 100 % and 150 %, each fitting without scrolling in legible type (the chart's text as
drawn included) with nothing serious for axe, and the table's full list one key away; the page's own form through
htmx; and the page and one table on a phone (390 × 844)."""
from __future__ import annotations

from urllib.parse import urlencode

import pytest
from accessibility import axe_violations
from conftest import slow_but_the_first
from playwright.sync_api import expect

from browser.slides import MEASURE, SMALLEST_TYPE, open_folded, publish_twenty_sample, slide_problems
from browser.test_deck_browser import LESSONS

from .conftest import htmx_settled, response_to, url_with

pytestmark = pytest.mark.browser

TWENTY = "twenty-selection"
PER_CLASS = 40  # 800 posts: under LARGE_CORPUS (webnb/views/common.py), so the curves are computed in the request
PHONE = {"width": 390, "height": 844}

# The smallest text of a slide's chart as drawn: its font size times the drawing's scale.
CHART_TEXT = """selector => Math.min(...[...document.querySelectorAll(selector)].filter(t => t.getClientRects().length)
  .map(t => { const svg = t.ownerSVGElement;
              return parseFloat(getComputedStyle(t).fontSize) * svg.getBoundingClientRect().width
                     / svg.viewBox.baseVal.width; }))"""

# (address after /corpora/<id>, its own parameters, what the slide must show)
SLIDES = (
    ("/selection", {"class": "comp.os.ms-windows.misc"}, "table.slide-selection"),
    ("/selection", {"slide": "curves"}, "svg.chart"),
    ("/selection/cell", {"class": "comp.os.ms-windows.misc"}, "table.slide-contingency"),
)


@pytest.fixture(scope="module")
def twenty_classes(served_app, shared_corpora, tmp_path_factory) -> str:
    return publish_twenty_sample(served_app, shared_corpora, tmp_path_factory.mktemp("twenty"), TWENTY, PER_CLASS)


@pytest.mark.corpora
@pytest.mark.slow
def test_each_slide_of_twenty_classes_fits_the_projector_in_legible_type(page, server_url, shot, twenty_classes):
    problems = []
    for zoom in ("", "150"):
        for path, own, shown in SLIDES:
            query = urlencode({**own, "presenter": "1", "zoom": zoom})
            page.goto(f"{server_url}/corpora/{twenty_classes}{path}?{query}")
            expect(page.locator(f".deck-slide {shown}").first).to_be_visible()
            expect(page.locator("main[data-zoom-in-use]")).to_have_count(1)
            key = page.locator(".deck-slide").get_attribute("data-slide-key")
            shot(page, f"selection-slide-{key}{'-zoom' + zoom if zoom else ''}", full_page=False)
            where = f"{path} {key} zoom {zoom or 100}"
            problems += [f"{where}: {problem}" for problem in slide_problems(page.evaluate(MEASURE))]
            problems += [f"{where}: {violation['id']}" for violation in axe_violations(page)]
            if key == "curves":
                assert page.evaluate(CHART_TEXT, ".deck-slide svg.chart text") >= SMALLEST_TYPE, where
                expect(page.locator(".deck-slide svg.chart g.measure")).to_have_count(3)
            if key == "selection":
                # 20 classes: one class against the other 19, its first words and "+ N more", every row one key away.
                expect(page.locator(".deck-slide .slide-lead")).to_contain_text("against the other 19 classes")
                expect(page.locator(".deck-slide table.slide-selection tfoot")).to_contain_text("more words")
    assert problems == [], "\n".join(problems)

    page.goto(f"{server_url}/corpora/{twenty_classes}/selection?presenter=1&class=sci.space")
    summary = page.locator(".deck-slide details.full-table > summary")
    open_folded(page, summary)
    expect(page.locator(".deck-slide details.full-table table.slide-selection-full tbody tr")).to_have_count(50)
    shot(page, "selection-slide-selection-full-table", full_page=False)


@pytest.mark.parametrize("lesson", slow_but_the_first(1, [name for name, (_, _, kind) in LESSONS.items()
                                                           if kind == "text"]))
def test_each_slide_of_the_built_in_lessons_fits_at_every_zoom(page, server_url, shot, lesson):
    """The seeds' lessons with their reviews (a long one takes two lines of context over every slide)."""
    corpus, settings, _ = LESSONS[lesson]
    problems = []
    for zoom in ("", "125", "150"):
        for path, own, shown in (("/selection", {}, "table.slide-selection"),
                                 ("/selection", {"slide": "curves"}, "svg.chart"),
                                 ("/selection/cell", {}, "table.slide-contingency")):
            query = urlencode({**settings, **own, "presenter": "1", "zoom": zoom})
            page.goto(f"{server_url}/corpora/{corpus}{path}?{query}")
            expect(page.locator(f".deck-slide {shown}").first).to_be_visible()
            expect(page.locator("main[data-zoom-in-use]")).to_have_count(1)
            key = page.locator(".deck-slide").get_attribute("data-slide-key")
            if not zoom:
                shot(page, f"selection-{lesson}-{key}", full_page=False)
            problems += [f"{key} zoom {zoom or 100}: {p}" for p in slide_problems(page.evaluate(MEASURE))]
    assert problems == [], "\n".join(problems)


def test_the_class_and_the_order_change_the_table_in_place(browsing, page, server_url, shot):
    path = "/corpora/spam-ham/selection"
    page.goto(f"{server_url}{path}")
    caption = page.locator("table.selection-table caption")
    expect(caption).to_contain_text("ham against the rest")
    with page.expect_response(response_to(path, **{"class": "spam"})):
        page.locator("#selection-class").select_option("spam")
    htmx_settled(page)
    expect(caption).to_contain_text("spam against the rest")
    expect(page).to_have_url(url_with(**{"class": "spam"}))
    with page.expect_response(response_to(path, sort="chi2")):
        page.locator("#selection-sort").select_option("chi2")
    htmx_settled(page)
    expect(caption).to_contain_text("sorted by χ²")
    expect(page.locator("#curves svg.chart g.measure")).to_have_count(3)
    shot(page, "selection-spam-ham-page")
    first = page.locator("table.selection-table tbody th a").first
    word = first.inner_text()
    first.click()
    expect(page.locator("#cell-title")).to_have_text(f"“{word}” and spam: the 2 × 2 table")
    expect(page.locator("#cell-mi-value")).to_contain_text("bits")
    shot(page, "selection-spam-ham-cell")
    assert browsing.errors == []


@pytest.mark.parametrize("path", ["/corpora/spam-ham/selection", "/corpora/spam-ham/selection/cell",
                                  "/corpora/china-japan/selection/cell?n11=49&n10=27652&n01=141&n00=774106"])
def test_the_page_and_one_table_fit_a_phone(browsing, page, server_url, shot, path):
    page.set_viewport_size(PHONE)
    page.goto(server_url + path)
    expect(page.locator("main h2").first).to_be_visible()
    widths = page.evaluate("""() => ({
        page: document.scrollingElement.scrollWidth, inner: innerWidth,
        charts: [...document.querySelectorAll('main svg.chart')].map(svg => svg.getBoundingClientRect().right)})""")
    assert widths["page"] <= widths["inner"], path
    assert all(right <= widths["inner"] + 1 for right in widths["charts"]), path
    shot(page, "selection-phone" + path.split("?")[0].replace("/", "-"))
    assert browsing.errors == []
