"""What the browser tests of the presenter's slides share: the measure of a slide (its size and its smallest text,
SVG text at its drawn size), the rule it must meet, a key that opens another slide, the walk through a deck by the
keyboard, axe in a theme, and a twenty-class corpus."""
from __future__ import annotations

import gzip
import io
import json

import pytest
from accessibility import axe_violations
from playwright.sync_api import expect

from webnb.lesson import pages

BODY_TYPE = 24  # the slide's running text
SMALLEST_TYPE = 20  # anything on a slide, charts included

# Every element that shows text of its own, outside folded tables, the deck's list of keys and hidden parts: its
# font size (SVG text included), and the slide's size.
MEASURE = """() => {
  const shown = e => e.getClientRects().length > 0 && !e.closest('details:not([open]) > :not(summary), [hidden]');
  const texts = [...document.querySelectorAll('main *')].filter(e =>
      [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim()) && shown(e));
  // SVG text is drawn at its font size times the drawing's scale (its width over its viewBox's).
  const scale = e => {
    const svg = e instanceof SVGElement && e.ownerSVGElement;
    const box = svg && svg.viewBox.baseVal;
    return box && box.width ? svg.getBoundingClientRect().width / box.width : 1;
  };
  const sizes = texts.map(e => [parseFloat(getComputedStyle(e).fontSize) * scale(e),
      e.tagName + '.' + e.className + ': ' + e.textContent.trim().slice(0, 40)]);
  sizes.sort((a, b) => a[0] - b[0]);
  // The bar's slide numbers, whole: the page's title may give way (…), the numbers may not.
  const number = document.querySelector('.deck-bar .deck-number');
  const right = number && number.getBoundingClientRect().right;
  const cut = number !== null && (right > number.parentElement.getBoundingClientRect().right + 1 || right > innerWidth);
  return {height: document.scrollingElement.scrollHeight, width: document.scrollingElement.scrollWidth, numberCut: cut,
          body: parseFloat(getComputedStyle(document.querySelector('main')).fontSize),
          smallest: sizes.length ? sizes[0] : [99, '']};
}"""


def slide_problems(size: dict) -> list[str]:
    """What a slide measured with MEASURE breaks of the projector's rules: wider or taller than 1024 × 768, running
    text under BODY_TYPE, anything under SMALLEST_TYPE. Empty when it meets them."""
    problems = []
    if size["height"] > 768 or size["width"] > 1024:
        problems.append(f"{size['width']} × {size['height']} px")
    if size.get("numberCut"):
        problems.append("the bar cuts the slide's number")
    if size["body"] < BODY_TYPE or size["smallest"][0] < SMALLEST_TYPE:
        problems.append(f"body {size['body']} px, smallest {size['smallest']}")
    return problems


def press(page, key: str) -> None:
    """Press a key that opens another slide, and wait until that slide has loaded (its script included, so that the
    next key is heard)."""
    with page.expect_navigation():
        page.keyboard.press(key)


def publish_twenty_sample(app, shared_corpora, directory, corpus_id: str, per_class: int) -> str:
    """The first ``per_class`` 20 Newsgroups training posts of each of its twenty classes, published on ``app`` with
    ``webnb corpora add`` as an instructor would; returns the corpus id."""
    from webnb.cli import main

    taken: dict[str, int] = {}
    lines = []
    with gzip.open(shared_corpora / "20newsgroups-bydate" / "train.jsonl.gz", "rt", encoding="utf-8") as source:
        for record in map(json.loads, source):
            if taken.get(record["label"], 0) < per_class:
                taken[record["label"]] = taken.get(record["label"], 0) + 1
                lines.append(json.dumps({"label": record["label"], "text": record["text"]}))
    assert len(taken) == 20
    path = directory / "twenty.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("webnb.create_app", lambda: app)
        arguments = ["corpora", "add", str(path), "--id", corpus_id, "--name", "20 Newsgroups, a sample",
                     "--review", "OpenGL on the GPU is fast"]
        assert main(arguments, out=io.StringIO()) == 0
    return corpus_id


# 2,200 posts: above LARGE_CORPUS (webnb/views/common.py), so that counting them, and what a page derives from the
# counts (held-out scores, the comparison's models), runs as background jobs behind a progress page.
BACKGROUND_PER_CLASS = 110


def twenty_classes_fixture(corpus_id: str):
    """A module's fixture ``twenty_classes``: publish_twenty_sample's corpus, BACKGROUND_PER_CLASS posts a class,
    published once a module as ``corpus_id`` (each module its own id, on the one served app)."""

    @pytest.fixture(scope="module", name="twenty_classes")
    def twenty_classes(served_app, shared_corpora, tmp_path_factory) -> str:
        """The id of a twenty-class sample of 20 Newsgroups (slides.twenty_classes_fixture)."""
        return publish_twenty_sample(served_app, shared_corpora, tmp_path_factory.mktemp("twenty"), corpus_id,
                                     BACKGROUND_PER_CLASS)

    return twenty_classes


def expect_after_background_work(locator) -> None:
    """Wait for ``locator`` on a slide whose first visit starts background work (BACKGROUND_PER_CLASS): the
    progress page follows on to the slide by itself, within three minutes."""
    expect(locator).to_be_visible(timeout=180_000)


def open_folded(page, summary) -> None:
    """Tab to a folded table's summary (the locator ``summary``) as a presenter would, and open it with Enter."""
    from playwright.sync_api import expect

    for _ in range(12):
        page.keyboard.press("Tab")
        if summary.evaluate("element => element === document.activeElement"):
            break
    expect(summary).to_be_focused()
    page.keyboard.press("Enter")


def look_classes(theme: str, zoom: str) -> str:
    """The body's classes on a slide in ``theme`` at ``zoom`` ("" for the normal theme, 100 %)."""
    return " ".join(["presenter slide", *([f"theme-{theme}"] if theme else []), *([f"zoom-{zoom}"] if zoom else [])])


def walk_deck(page, first_url: str, kind: str, shot=None, name: str = "", timeout: float = 20_000):
    """Open ``first_url`` (the walk's first slide) and press → until the last slide; yield (slide, measures) at each,
    once the deck bar names it (within ``timeout`` ms: a large corpus counts its words in the background first)."""
    slides = pages.walk(kind)
    page.goto(first_url)
    for number, slide in enumerate(slides, start=1):
        bar = page.locator(".deck-bar")
        expect(bar.locator(".deck-position")).to_contain_text(f"{number}/{len(slides)} slides", timeout=timeout)
        expect(bar.locator(".deck-position strong")).to_have_text(slide.page.title)
        # The slide's own document, its stylesheets applied and fitted (webnb.js marks <main> when it has fitted
        # it): a slide computed first arrives from its progress page, and its bar can be read before its styles.
        page.wait_for_load_state("load")
        expect(page.locator("main[data-zoom-in-use]")).to_have_count(1)
        measured = page.evaluate(MEASURE)
        if shot:
            shot(page, f"deck-{name}-{number:02d}-{slide.page.key}-{slide.key}", full_page=False)
        yield slide, measured
        if number < len(slides):
            press(page, "ArrowRight")


# Opens every folded full table of the slide; false when it has none.
OPEN_FOLDED = """() => {
    const folded = [...document.querySelectorAll('details.full-table')];
    folded.forEach(details => details.open = true);
    return folded.length > 0;
}"""
EVERY_IMPACT = ("minor", "moderate", "serious", "critical")
SERIOUS = ("serious", "critical")
# The contrast bar of each theme: 4.5 : 1 in the normal theme, and 7 : 1 too (axe's enhanced rule, off by default)
# in the high-contrast ones.
CONTRAST = {"": ["color-contrast"], "light": ["color-contrast", "color-contrast-enhanced"],
            "dark": ["color-contrast", "color-contrast-enhanced"]}
# The rules whose answer depends on colours besides contrast: a theme changes colours and nothing else
# (static/charts.css), so in a second theme on the same slides these and the contrast rules are all that can change.
COLOUR_RULES = ["link-in-text-block"]
# Draws the slide in another theme as the app writes it: the theme's class on the body, nothing else (the themes
# differ in colours only, tests/test_colours.py; a slide's markup names no theme but in the body's class and the
# hidden links of the deck's keys).
WEAR_THEME = """theme => {
    document.body.classList.remove(...[...document.body.classList].filter(name => name.startsWith('theme-')));
    if (theme) document.body.classList.add('theme-' + theme);
}"""


def axe_problems(page, where: str, themes=tuple(pages.THEMES)) -> list[str]:
    """What axe finds on the slide (or page) in each of ``themes``: serious and critical problems, and any contrast
    below the theme's bar; as shown and then with its folded full tables open (one key away on the projector).

    The slide is checked whole (every rule) in the first theme, the one the app drew it in, and in each further
    theme only for what a theme can change (the contrast and colour rules), redrawn in that theme in place
    (WEAR_THEME): one walk of the slides checks them in every theme."""
    drawn = themes[0]
    worn = [name for name in page.evaluate("[...document.body.classList]") if name.startswith("theme-")]
    assert worn == ([f"theme-{drawn}"] if drawn else []), (where, worn)
    problems = []
    for opened in (False, True):
        if opened and not page.evaluate(OPEN_FOLDED):
            continue
        state = f"{where}{' (opened)' if opened else ''}"
        for theme in themes:
            if theme == drawn:
                options = {"rules": {rule: {"enabled": True} for rule in CONTRAST[theme]}}
            else:
                options = {"runOnly": {"type": "rule", "values": CONTRAST[theme] + COLOUR_RULES}}
            page.evaluate(WEAR_THEME, theme)
            # Opened, only the tables opened are checked again: opening them changes nothing else.
            context = "details.full-table" if opened else None
            found = [v for v in axe_violations(page, EVERY_IMPACT, context=context, options=options)
                     if v["impact"] in SERIOUS or v["id"] in CONTRAST[theme]]
            label = f"{state} ({theme} theme)" if theme else state
            problems += [f"{label}: {v['id']} {v['targets'][:3]}" for v in found]
        page.evaluate(WEAR_THEME, drawn)
    return problems
