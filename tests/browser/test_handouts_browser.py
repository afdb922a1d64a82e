"""The whole lecture printed through Chromium's PDF: one printed page per slide (two slides a page with per_page=2),
and nothing wider than the page. Screenshots: the handout on screen and as printed."""
from __future__ import annotations

import math
import re

import pytest
from playwright.sync_api import expect

from webnb.lesson import pages

pytestmark = pytest.mark.browser

SETTINGS = "model=bernoulli&alpha=0&text=match+was+sharp"
# What sticks out of the page's width, as print lays it out: every element, by its bounding box.
WIDER_THAN_THE_PAGE = """() => {
  const width = document.documentElement.clientWidth;
  const out = e => { const box = e.getBoundingClientRect();
                     return box.width > 0 && (box.right > width + 1 || box.left < -1); };
  return [...document.querySelectorAll("body *")].filter(out).map(e => {
    const box = e.getBoundingClientRect();
    return `${e.tagName.toLowerCase()}.${e.getAttribute("class")} ${Math.round(box.left)}–${Math.round(box.right)}`;
  });
}"""


def pdf_pages(pdf: bytes) -> int:
    """The number of pages of a PDF: its page objects (/Type /Page, not /Pages)."""
    return len(re.findall(rb"/Type\s*/Page(?![a-z])", pdf))


@pytest.mark.parametrize("per_page", [1, 2])
def test_the_whole_lecture_prints_one_page_per_slide_or_per_two(page, server_url, shot, screenshots_dir, browsing,
                                                                 per_page):
    slides = len(pages.walk("text"))
    page.goto(f"{server_url}/corpora/match-reviews/lecture?{SETTINGS}&per_page={per_page}")
    assert page.locator("article.handout-slide").count() == slides
    assert page.locator(".handout-body").count() == slides
    shot(page, f"handout-screen-{per_page}", full_page=False)
    page.emulate_media(media="print")
    # Print's layout: nothing wider than the page, nothing of the site's chrome.
    assert page.evaluate(WIDER_THAN_THE_PAGE) == []
    assert page.locator(".site-header").is_hidden() and page.locator(".handout-intro").is_hidden()
    shot(page, f"handout-print-{per_page}", full_page=False)
    # One slide a page on landscape paper; two a page on the portrait paper that the stylesheet asks for.
    options = {"format": "A4", "landscape": True} if per_page == 1 else {"format": "A4", "prefer_css_page_size": True}
    pdf = page.pdf(path=str(screenshots_dir / f"handout-{per_page}.pdf"), print_background=True, **options)
    assert pdf_pages(pdf) == math.ceil(slides / per_page)
    assert browsing.errors == []


def test_a_table_lecture_prints_its_nine_slides(page, server_url, browsing):
    page.goto(f"{server_url}/corpora/iris/lecture")
    assert page.locator("article.handout-slide").count() == 9
    page.emulate_media(media="print")
    assert page.evaluate(WIDER_THAN_THE_PAGE) == []
    assert pdf_pages(page.pdf(format="A4", landscape=True)) == 9
    assert browsing.errors == []


def test_a_printed_lesson_page_shows_its_state_and_no_controls(page, server_url):
    page.goto(f"{server_url}/corpora/match-reviews/parameters?{SETTINGS}")
    assert page.locator(".print-state").is_hidden()
    page.emulate_media(media="print")
    assert page.locator(".print-state .slide-context").is_visible()
    assert "Bernoulli, α = 0" in page.locator(".print-state").inner_text()
    for chrome in (".site-header", ".lesson-nav", ".handout-links", "form"):
        assert all(not element.is_visible() for element in page.locator(chrome).all()), chrome
    assert page.evaluate(WIDER_THAN_THE_PAGE) == []


# Number cells whose text takes more than one line as laid out (a number broken inside), and screen-only controls
# that print anyway.
BROKEN_NUMBERS = """() => {
  // Lines a box list takes as laid out: a box below the bottom of the line before starts a new one (a raised flag
  // overlaps its line, so it is not one).
  const lines = rects => {
    let count = 0, bottom = -Infinity;
    for (const box of [...rects].filter(r => r.width > 0).sort((a, b) => a.top - b.top)) {
      if (box.top >= bottom - 2) { count += 1; bottom = box.bottom; } else { bottom = Math.max(bottom, box.bottom); }
    }
    return count;
  };
  const broken = [];
  for (const cell of document.querySelectorAll(".num")) {
    if (cell.getBoundingClientRect().width === 0) continue;
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let text = walker.nextNode(); text; text = walker.nextNode()) {
      for (const token of text.data.matchAll(/[0-9][0-9.,/]*/g)) {  // a number, a fraction: one unit each
        const range = document.createRange();
        range.setStart(text, token.index); range.setEnd(text, token.index + token[0].length);
        if (lines(range.getClientRects()) > 1) broken.push(token[0]);
      }
    }
  }
  return broken;
}"""
PRINTED_CONTROLS = """() => [...document.querySelectorAll(".downloads, details.full-table:not([open]) > summary")]
  .filter(e => e.getClientRects().length > 0).map(e => e.textContent.trim().slice(0, 40))"""


@pytest.mark.parametrize("path", ["/corpora/match-reviews/parameters?" + SETTINGS, "/corpora/match-reviews/lecture?"
                                  + SETTINGS, "/corpora/match-reviews/evaluation/sweep?" + SETTINGS + "&presenter=1"])
def test_on_paper_numbers_stay_whole_and_screen_controls_do_not_print(page, server_url, path):
    page.goto(server_url + path)
    page.emulate_media(media="print")
    assert page.evaluate(BROKEN_NUMBERS) == []
    assert page.evaluate(PRINTED_CONTROLS) == []
    assert page.evaluate(WIDER_THAN_THE_PAGE) == []


def test_each_chart_downloads_as_svg_and_as_png(page, server_url):
    """The α sweep's chart: its SVG file, and a PNG drawn from it in the browser at twice its size."""
    import struct

    page.goto(f"{server_url}/corpora/match-reviews/evaluation/sweep?{SETTINGS}")
    figure = page.locator(".figure-download").first
    svg_link, png_button = figure.locator("a[download]"), figure.locator("button[data-png-of]")
    expect(png_button).to_be_visible()
    assert png_button.get_attribute("data-png-of") == svg_link.get_attribute("href")
    with page.expect_download() as svg_download:
        svg_link.click()
    assert svg_download.value.suggested_filename == "match-reviews-sweep-sweep.svg"
    with page.expect_download() as png_download:
        png_button.click()
    assert png_download.value.suggested_filename == "match-reviews-sweep-sweep.png"
    data = png_download.value.path().read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])  # the IHDR chunk: the picture's size
    svg = svg_download.value.path().read_text(encoding="utf-8")
    view_box = [float(v) for v in svg.split('viewBox="', 1)[1].split('"', 1)[0].split()]
    assert (width, height) == (round(view_box[2] * 2), round(view_box[3] * 2))


TWENTY = "twenty-handout"


@pytest.fixture(scope="module")
def lecture_corpora(served_app, shared_corpora, tmp_path_factory) -> dict[str, dict]:
    """The published lectures (sms-spam, newsgroups-4) and a sample of the twenty groups: id → their settings."""
    from conftest import publish_lecture_corpora

    from browser.slides import publish_twenty_sample
    from webnb.lesson.seed_lessons import get_recipe

    publish_lecture_corpora(served_app, shared_corpora, tmp_path_factory.mktemp("lecture"))
    publish_twenty_sample(served_app, shared_corpora, tmp_path_factory.mktemp("twenty"), TWENTY, 40)
    return {"sms-spam": dict(get_recipe("sms-spam").presets), "newsgroups-4": dict(get_recipe("newsgroups-4").presets),
            TWENTY: {"model": "multinomial", "alpha": "1", "text": "OpenGL on the GPU is fast"}}


def finished_lecture(page, slides: int) -> None:
    """Waits until the lecture shows every slide and its stylesheets have loaded.

    Counting and the comparison's models run in the background and the page reloads itself until every slide is there;
    the document that has them all is the last one (it asks for no reload), but it may still be loading its
    stylesheets, and a layout measured then is the unstyled page's.
    """
    expect(page.locator("article .handout-body")).to_have_count(slides, timeout=240_000)
    expect(page.locator('meta[http-equiv="refresh"]')).to_have_count(0)
    page.wait_for_load_state("load")


@pytest.mark.corpora
@pytest.mark.slow
@pytest.mark.parametrize("corpus", ["sms-spam", "newsgroups-4", TWENTY])
def test_the_published_lectures_print_one_page_per_slide(page, server_url, lecture_corpora, shot, corpus):
    from urllib.parse import urlencode

    slides = len(pages.walk("text"))
    page.goto(f"{server_url}/corpora/{corpus}/lecture?{urlencode(lecture_corpora[corpus])}")
    finished_lecture(page, slides)
    page.emulate_media(media="print")
    assert page.evaluate(WIDER_THAN_THE_PAGE) == []
    assert page.evaluate(BROKEN_NUMBERS) == [] and page.evaluate(PRINTED_CONTROLS) == []
    shot(page, f"handout-print-{corpus}", full_page=False)
    assert pdf_pages(page.pdf(format="A4", landscape=True)) == slides
    page.goto(f"{server_url}/corpora/{corpus}/lecture?{urlencode(lecture_corpora[corpus])}&per_page=2")
    finished_lecture(page, slides)
    assert page.evaluate(WIDER_THAN_THE_PAGE) == []
    assert pdf_pages(page.pdf(format="A4", prefer_css_page_size=True)) == math.ceil(slides / 2)
