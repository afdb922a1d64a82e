"""Every page of the built-ins on a phone (390 × 844) and at projector size (1024 × 768), in headless Chromium
(issue 14, part 8): no page scrolls sideways, on a phone the lesson menu is one line and what a thumb taps is at
least 44 px tall, and on a wide screen the boxes added for phones change nothing."""
from __future__ import annotations

import re

import pytest

from webnb.examples import EXAMPLES, TABLE_EXAMPLES
from webnb.lesson.pages import lesson_menu
from webnb.lesson.state import GAUSSIAN_STEPS, STEPS

from .conftest import PROJECTOR, lazy_parts_loaded

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
SIZES = {"phone": PHONE, "projector": PROJECTOR}
# The lesson's title and its one-line menu; ten links one under the other took 581 px.
HEADER_HEIGHT = 200
TAP_HEIGHT = 44

# A word of each built-in text's vocabulary, for the page of one ψ or θ.
WORDS = {"match-reviews": "match", "china-japan": "chinese", "folgers-students": "cup", "spam-ham": "call",
         "film-sentiment": "fun"}
TEXT_PAGES = ("matrix", "parameters", "evaluation", "compare", "words", "sample", "confidence", "add", "parity")


def text_paths(corpus_id: str) -> list[str]:
    base = f"/corpora/{corpus_id}"
    paths = [base, *(f"{base}/{page}" for page in TEXT_PAGES), f"{base}/parameters/cell?word={WORDS[corpus_id]}"]
    if corpus_id == "match-reviews":
        paths.append(f"{base}/parameters/prior?word=match&class=positive")
    return paths + [f"{base}/inference?step={step}" for step in STEPS]


def table_paths(table_id: str) -> list[str]:
    base = f"/corpora/{table_id}/gaussian"
    steps = [f"{base}/inference?step={step}" for step in GAUSSIAN_STEPS]
    return [base, f"{base}/parameters", f"{base}/evaluation", *steps]


WALKS = {"home": ["/", "/corpora"]}
WALKS.update({example.id: text_paths(example.id) for example in EXAMPLES})
WALKS.update({example.id: table_paths(example.id) for example in TABLE_EXAMPLES})

# What a page looks like to these tests, measured in the page.
MEASURE = """([tap]) => {
  const visible = el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0
                            && getComputedStyle(el).visibility !== 'hidden'; };
  const name = el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
                     + ' "' + (el.name || el.textContent).trim().slice(0, 30) + '"';
  const header = document.querySelector('.lesson-header');
  // A box is tapped through its label; a hidden input and a spinner's own parts are not tapped at all.
  const small = [...document.querySelectorAll('main button, main input, main select, nav a, main summary')]
    .map(el => ['checkbox', 'radio'].includes(el.type) ? (el.closest('label') || el) : el)
    .filter(el => el.type !== 'hidden' && visible(el) && el.getBoundingClientRect().height < tap)
    .map(el => name(el) + ': ' + Math.round(el.getBoundingClientRect().height) + ' px');
  const boxes = [...document.querySelectorAll('.table-scroll, .phone-scroll')].filter(visible);
  return {
    scrollWidth: document.scrollingElement.scrollWidth,
    innerWidth: innerWidth,
    header: header ? header.getBoundingClientRect().height : null,
    small: small,
    // A box that scrolls must be reachable from the keyboard and named.
    unreachable: boxes.filter(box => box.scrollWidth > box.clientWidth && !(box.tabIndex === 0
                   && box.getAttribute('role') === 'region' && box.getAttribute('aria-label'))).map(name),
    // Charts scale to the width rather than spill out of it.
    wideCharts: [...document.querySelectorAll('main svg')].filter(visible)
                  .filter(svg => svg.getBoundingClientRect().right > innerWidth + 1).map(name),
  };
}"""

# Every element's box, then the same with each phone-only box unwrapped and the phone menu gone: equal when those
# boxes change nothing on a wide screen.
LAYOUT_WITHOUT_PHONE_BOXES = """() => {
  const elements = [...document.querySelectorAll('main *')]
    .filter(el => !el.matches('.phone-scroll') && !el.closest('.lesson-menu'));
  const layout = () => elements.map(el => {
    const r = el.getBoundingClientRect(); return [r.x, r.y, r.width, r.height].map(Math.round).join(' ');
  });
  const before = layout();
  for (const box of document.querySelectorAll('.phone-scroll')) box.replaceWith(...box.childNodes);
  for (const menu of document.querySelectorAll('.lesson-menu')) menu.remove();
  const after = layout();
  return before.filter((box, i) => box !== after[i]).length;
}"""


def open_settled(page, url: str) -> None:
    page.goto(url)
    lazy_parts_loaded(page)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("walk", WALKS)
def test_every_page_fits(browsing, page, server_url, shot, walk, size):
    from playwright.sync_api import expect

    page.set_viewport_size(SIZES[size])
    problems = {}
    for path in WALKS[walk]:
        open_settled(page, server_url + path)
        measured = page.evaluate(MEASURE, [TAP_HEIGHT])
        found = []
        if measured["scrollWidth"] > measured["innerWidth"]:
            found.append(f"scrolls sideways: {measured['scrollWidth']} px in {measured['innerWidth']}")
        found += [f"scrolls without a named, focusable box: {box}" for box in measured["unreachable"]]
        found += [f"chart wider than the screen: {chart}" for chart in measured["wideCharts"]]
        if size == "phone":
            if measured["header"] is not None and measured["header"] > HEADER_HEIGHT:
                found.append(f"lesson header {measured['header']:.0f} px tall")
            found += [f"under {TAP_HEIGHT} px: {control}" for control in measured["small"]]
        else:
            changed = page.evaluate(LAYOUT_WITHOUT_PHONE_BOXES)
            if changed:
                found.append(f"the phone's boxes move {changed} elements on a wide screen")
        if found:
            problems[path] = found
    shot(page, f"phone-fit-{walk}-{size}", full_page=False)
    assert problems == {}
    expect(page.locator("main")).to_be_visible()
    assert browsing.errors == []


def test_the_lesson_menu_on_a_phone(browsing, page, server_url, shot):
    from playwright.sync_api import expect

    page.set_viewport_size(PHONE)
    open_settled(page, server_url + "/corpora/match-reviews/inference?step=logspace")
    menu = page.get_by_role("navigation", name="Lesson")
    expect(menu).to_have_count(1)  # the wide menu is not shown
    expect(menu.locator("summary")).to_have_text("4 · Bayes' rule, every page of the lesson")
    expect(menu.get_by_role("link", name="Previous page: 3 · Parameters")).to_be_visible()
    expect(menu.get_by_role("link", name="Next page: 5 · Evaluation")).to_be_visible()
    expect(menu.get_by_role("link", name="7 · Telling words")).to_be_hidden()
    box = menu.bounding_box()
    assert box["height"] < 2 * TAP_HEIGHT  # one line
    shot(page, "phone-menu-closed", full_page=False)

    menu.locator("summary").click()
    links = menu.locator("details li a")
    expect(links).to_have_count(len(lesson_menu("text")))
    for link in links.all():
        expect(link).to_be_visible()
        assert link.bounding_box()["height"] >= TAP_HEIGHT
    expect(menu.locator("details li a[aria-current=page]")).to_have_text("4 · Bayes' rule")
    shot(page, "phone-menu-open", full_page=False)

    menu.get_by_role("link", name="7 · Telling words").click()
    expect(page).to_have_url(re.compile(r"/corpora/match-reviews/words(\?|$)"))
    expect(page.get_by_role("navigation", name="Lesson").locator("summary")).to_contain_text("7 · Telling words")
    page.get_by_role("navigation", name="Lesson").get_by_role("link", name="Next page: 8 · Feature selection").click()
    expect(page).to_have_url(re.compile(r"/corpora/match-reviews/selection(\?|$)"))
    assert browsing.errors == []


def test_the_lesson_menu_on_a_projector(page, server_url):
    from playwright.sync_api import expect

    open_settled(page, server_url + "/corpora/iris/gaussian/parameters")
    menu = page.get_by_role("navigation", name="Lesson")
    expect(menu).to_have_count(1)
    expect(menu.get_by_role("link")).to_have_text(["1 · Rows", "2 · Bell curves", "3 · Bayes' rule", "4 · Evaluation"])
    expect(page.locator(".lesson-menu")).to_be_hidden()


def test_a_wide_table_scrolls_in_its_own_box_on_a_phone(browsing, page, server_url, shot):
    from playwright.sync_api import expect

    page.set_viewport_size(PHONE)
    # (A table with a row per class becomes cards instead: test_first_screen.py.)
    open_settled(page, server_url + "/corpora/spam-ham/evaluation?alpha=0")
    box = page.get_by_role("region", name="Documents it got wrong, scrollable")
    expect(box.locator("table")).to_be_visible()
    assert box.evaluate("box => box.scrollWidth > box.clientWidth")  # the columns do not fit 390 px
    box.focus()
    expect(box).to_be_focused()
    # A sideways swipe (here the wheel) moves the table inside its box; the page stays put.
    box.hover()
    page.mouse.wheel(200, 0)
    page.wait_for_function("box => box.scrollLeft > 0", arg=box.element_handle())
    assert page.evaluate("document.scrollingElement.scrollLeft") == 0
    shot(page, "phone-mistakes-scrolled", full_page=False)
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
    assert browsing.errors == []


# --- twenty classes on a phone (issue 36, part 5) -----------------------------------------------------------------

TWENTY = "twenty-phone"
# The outermost elements that stick out of the screen's width, and by how much: what to fix.
STICKING_OUT = """() => [...document.querySelectorAll('body *')].filter(el => {
  const r = el.getBoundingClientRect();
  if (r.width === 0 || r.right <= innerWidth) return false;
  const parent = el.parentElement.getBoundingClientRect();
  return parent.right <= innerWidth || getComputedStyle(el).position === 'absolute';
}).slice(0, 3)
  .map(el => `${el.tagName.toLowerCase()}.${el.className} ${Math.round(el.getBoundingClientRect().right)}`)"""


@pytest.fixture(scope="module")
def twenty_classes(served_app, shared_corpora, tmp_path_factory) -> str:
    """40 training posts of each of 20 Newsgroups' classes, published as a class corpus."""
    from browser.slides import publish_twenty_sample

    return publish_twenty_sample(served_app, shared_corpora, tmp_path_factory.mktemp("twenty"), TWENTY, 40)


@pytest.mark.corpora
@pytest.mark.slow
def test_every_page_of_twenty_classes_fits_a_phone(browsing, page, server_url, shot, twenty_classes):
    page.set_viewport_size(PHONE)
    base = f"/corpora/{twenty_classes}"
    review = "text=OpenGL+on+the+GPU+is+fast"
    paths = [f"{base}?{review}", *(f"{base}/{p}?{review}" for p in TEXT_PAGES if p != "parity"),
             f"{base}/parameters/cell?word=space&{review}", *(f"{base}/inference?step={s}&{review}" for s in STEPS)]
    problems = {}
    for path in paths:
        open_settled(page, server_url + path)
        measured = page.evaluate(MEASURE, [TAP_HEIGHT])
        if measured["scrollWidth"] > measured["innerWidth"]:
            problems[path] = (f"scrolls sideways: {measured['scrollWidth']} px in {measured['innerWidth']}",
                              page.evaluate(STICKING_OUT))
    shot(page, "phone-twenty", full_page=False)
    assert problems == {}
    assert browsing.errors == []
