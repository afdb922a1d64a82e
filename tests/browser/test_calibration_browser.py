"""The calibration page in headless Chromium: its slide at 1024 × 768 with the twenty-class sample of 20 Newsgroups
fits at every zoom in legible type (the charts' text as drawn included), its folded tables open from the keyboard,
axe finds nothing serious in any theme; the page redraws when the number of bins changes, its chart downloads as a
PNG picture, and on a phone (390 × 844) nothing scrolls sideways."""
from __future__ import annotations

from urllib.parse import urlencode

import pytest
from accessibility import axe_violations
from playwright.sync_api import expect

from browser.slides import (
    MEASURE,
    SMALLEST_TYPE,
    axe_problems,
    expect_after_background_work,
    open_folded,
    slide_problems,
    twenty_classes_fixture,
)

from .conftest import htmx_settled, response_to, url_with

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
# The smallest text of the slide's charts as drawn: font size times the drawing's scale.
CHART_TEXT = """selector => Math.min(...[...document.querySelectorAll(selector)].filter(t => t.getClientRects().length)
  .map(t => { const svg = t.ownerSVGElement;
              return parseFloat(getComputedStyle(t).fontSize) * svg.getBoundingClientRect().width
                     / svg.viewBox.baseVal.width; }))"""
# What overflows the screen sideways: the document, or a chart.
SIDEWAYS = """() => ({width: document.scrollingElement.scrollWidth, inner: innerWidth,
  charts: [...document.querySelectorAll('main svg')].filter(s => s.getClientRects().length)
            .filter(s => s.getBoundingClientRect().right > innerWidth + 1).length})"""


def slide_url(server_url: str, corpus: str, **settings) -> str:
    return f"{server_url}/corpora/{corpus}/calibration?{urlencode({**settings, 'presenter': '1'})}"


# The corpus is counted, split and its logistic regression fitted in the background.
twenty_classes = twenty_classes_fixture("twenty-calibration")


@pytest.mark.corpora
@pytest.mark.slow
def test_with_twenty_classes_the_slide_fits_at_every_zoom_and_its_tables_open(page, server_url, shot, twenty_classes):
    chart = page.locator('.deck-slide svg[data-figure="reliability"]')
    problems = []
    for zoom in ("", "125", "150"):
        page.goto(slide_url(server_url, twenty_classes, zoom=zoom))
        expect_after_background_work(chart)
        page.wait_for_load_state("load")
        expect(page.locator("main[data-zoom-in-use]")).to_have_count(1)
        shot(page, f"calibration-twenty-slide-{zoom or '100'}", full_page=False)
        problems += [f"zoom {zoom or 100}: {problem}" for problem in slide_problems(page.evaluate(MEASURE))]
        assert page.evaluate(CHART_TEXT, '.deck-slide svg[data-figure="reliability"] text') >= SMALLEST_TYPE, zoom
    assert problems == [], "\n".join(problems)
    # The verdict over the chart is the twin's, and so are the two errors beside it.
    twin = page.request.get(slide_url(server_url, twenty_classes) + "&format=json").json()
    lead = twin["slide"]["statements"][0]
    expect(page.locator(".deck-slide p.verdict")).to_have_text(lead["text"])
    for model in twin["models"]:
        expect(page.locator(f"#slide-ece-{model['key']}")).to_have_text(f"{model['ece']:.3f}")
    # The bins, lengths and classes are one key away, over the slide, never making it scroll.
    page.goto(slide_url(server_url, twenty_classes))
    expect(chart).to_be_visible()
    open_folded(page, page.locator(".deck-slide details.full-table > summary"))
    classes = page.locator(".deck-slide details.full-table table.calibration-classes tbody tr")
    expect(classes).to_have_count(20)
    expect(page.locator(".deck-slide details.full-table table.calibration-bins")).to_be_visible()
    shot(page, "calibration-twenty-slide-opened", full_page=False)
    assert page.evaluate("document.scrollingElement.scrollHeight") <= 768
    # Each theme, as shown and opened.
    page.goto(slide_url(server_url, twenty_classes))
    expect(chart).to_be_visible()
    found = axe_problems(page, "calibration slide")
    assert found == [], "\n".join(found)


@pytest.mark.corpora
@pytest.mark.slow
def test_with_twenty_classes_a_phone_never_scrolls_sideways(page, server_url, shot, twenty_classes):
    page.set_viewport_size(PHONE)
    for name, address in (("page", f"{server_url}/corpora/{twenty_classes}/calibration"),
                          ("slide", slide_url(server_url, twenty_classes))):
        page.goto(address)
        expect_after_background_work(page.locator('svg[data-figure="reliability"]').first)
        measured = page.evaluate(SIDEWAYS)
        shot(page, f"calibration-twenty-phone-{name}", full_page=False)
        assert measured["width"] <= measured["inner"] and measured["charts"] == 0, (name, measured)
    # The wide tables scroll inside their own boxes, reachable from the keyboard.
    boxes = page.locator("main .table-scroll")
    page.goto(f"{server_url}/corpora/{twenty_classes}/calibration")
    assert boxes.count() >= 2
    for box in boxes.all():
        assert box.get_attribute("tabindex") == "0" and box.get_attribute("role") == "region"


def test_the_built_in_slide_fits_and_the_page_redraws_with_other_bins(browsing, page, server_url, shot):
    page.goto(slide_url(server_url, "spam-ham", model="multinomial", alpha="1"))
    expect(page.locator('.deck-slide svg[data-figure="reliability"]')).to_be_visible()
    page.wait_for_load_state("load")
    assert slide_problems(page.evaluate(MEASURE)) == []
    assert axe_violations(page) == []
    shot(page, "calibration-spam-ham-slide", full_page=False)
    # The page: four bins instead of ten redraw the section in place, and the address says so.
    path = "/corpora/spam-ham/calibration"
    page.goto(f"{server_url}{path}?model=multinomial&alpha=1")
    quarter = page.locator('#calibration svg[data-figure="reliability"] text.tick').filter(has_text="0.25")
    expect(quarter).to_have_count(0)
    with page.expect_response(lambda r: response_to(path, bins="4")(r) and r.request.headers.get("hx-request")):
        page.locator("#calibration-bins").fill("4")
        page.locator("#calibration-bins").dispatch_event("change")
    htmx_settled(page)
    expect(page).to_have_url(url_with(bins="4"))
    expect(quarter).to_have_count(1)
    expect(page.locator("table.calibration-bins caption")).to_have_text("The 4 bins of confidence")
    assert axe_violations(page) == []
    shot(page, "calibration-spam-ham-page")
    assert browsing.errors == []
    # The figure as a PNG picture, drawn from its SVG file. (Drawing any figure's SVG file on the canvas logs Chromium's
    # note that the file's own <style> meets the page's Content-Security-Policy; the picture keeps its colours.)
    button = page.locator("#calibration .figure-download button[data-png-of]").first
    expect(button).to_be_visible()
    with page.expect_download() as download:
        button.click()
    assert download.value.suggested_filename == "spam-ham-calibration-reliability.png"
    assert download.value.path().read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
