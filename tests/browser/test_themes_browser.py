"""The projector's themes and zoom (issue 24, part 7): t changes the theme and z / Z the zoom, in the address too,
and the walk carries them from slide to slide; presenter mode on a phone; the axe check itself. (Every slide of the
seeds' lessons passes axe in each theme on the lecture's walk, tests/browser/test_deck_browser.py.)"""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from browser.slides import axe_problems, press
from browser.test_deck_browser import first_slide_url, walk_by_keyboard

pytestmark = pytest.mark.browser


def test_t_changes_the_theme_and_z_the_zoom_and_the_walk_keeps_them(page, server_url):
    page.goto(first_slide_url(server_url, "match-reviews"))
    body = page.locator("body")
    expect(body).to_have_class("presenter slide")
    press(page, "t")
    expect(body).to_have_class("presenter slide theme-light")
    assert "theme=light" in page.url
    press(page, "t")
    expect(body).to_have_class("presenter slide theme-dark")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(0, 0, 0)"
    press(page, "z")
    expect(body).to_have_class("presenter slide theme-dark zoom-125")
    assert page.evaluate("getComputedStyle(document.querySelector('main')).zoom") == "1.25"
    # The deck's bar keeps its size while the slide grows: it still fits the screen's width.
    assert page.evaluate("document.querySelector('.deck-bar').getBoundingClientRect().right") <= 1024
    press(page, "ArrowRight")  # the next slide keeps theme and zoom
    expect(page.locator(".deck-bar .deck-position")).to_contain_text("· 2/")
    expect(body).to_have_class("presenter slide theme-dark zoom-125")
    press(page, "Shift+Z")
    expect(body).to_have_class("presenter slide theme-dark")
    press(page, "t")
    expect(body).to_have_class("presenter slide")
    assert "theme=" not in page.url and "zoom=" not in page.url
    # The list of keys names both, with the one in force marked.
    page.keyboard.press("?")
    keys = page.locator("#deck-keys")
    expect(keys).to_be_visible()
    expect(keys.locator("a[aria-current=true]")).to_have_text(["normal", "100 %"])


# A student following the slides on a phone: every slide of the lecture stays within the screen's width (a wide
# table scrolls inside itself), the deck's bar wraps and shows its controls, and the links that only keys use stay
# hidden.
OUTSIDE_THE_SCREEN = """() => [...document.querySelectorAll('main *')].filter(element => {
    const box = element.getBoundingClientRect();
    return box.width > 0 && box.right > innerWidth + 1 && !element.closest('table, [role=region], math');
}).map(element => element.tagName + '.' + element.className)"""


@pytest.mark.parametrize("lesson", ["match-reviews", "iris"])
def test_presenter_mode_on_a_phone_keeps_every_slide_within_the_screen(page, server_url, shot, lesson):
    page.set_viewport_size({"width": 390, "height": 844})
    problems = []
    for slide, _ in walk_by_keyboard(page, server_url, lesson):
        where = f"{slide.page.key}/{slide.key}"
        if page.evaluate("document.scrollingElement.scrollWidth") > 390:
            problems.append(f"{where}: the page scrolls sideways")
        problems += [f"{where}: {outside}" for outside in page.evaluate(OUTSIDE_THE_SCREEN)]
        bar = page.locator(".deck-bar")
        for control in (bar.locator(".deck-exit"), bar.locator("[data-keys-toggle]")):
            box = control.bounding_box()
            if box is None or box["x"] + box["width"] > 390 or box["y"] + box["height"] > 844:
                problems.append(f"{where}: a control of the deck's bar is off the screen")
        if bar.locator("a[hidden]:visible").count():
            problems.append(f"{where}: a link for keys only is shown")
        if slide.key in ("zeros", "scores"):
            shot(page, f"phone-presenter-{lesson}-{slide.page.key}-{slide.key}", full_page=False)
    assert problems == [], "\n".join(problems)


def summary_of(problems: list[str]) -> list[str]:
    """Each problem as where it was found and its rule."""
    found = []
    for problem in problems:
        where, rule_and_targets = problem.split(": ", 1)
        found.append(f"{where} {rule_and_targets.split()[0]}")
    return sorted(found)


def test_the_axe_check_finds_a_contrast_in_every_theme_and_the_rest_in_the_one_drawn(page):
    """The check itself: grey text on a high-contrast theme's black (5.3 : 1, under its 7 : 1) is found in the theme
    whose colours make it, drawn or worn in place; an image without a text alternative in the theme drawn; and in a
    folded table, once opened, grey on white (4.48 : 1, under 4.5 : 1) in every theme, and only there: the check
of the opened state is limited to the tables opened."""
    page.set_content('<html lang="en"><head><title>t</title><style>body.theme-dark p {color:#888;background:#000}'
                     '</style></head><body class="presenter slide"><main><h1>Slide</h1><p>grey on black</p>'
                     '<img src="data:," width="10" height="10"><details class="full-table"><summary>Every row'
                     '</summary><p style="color:#777;background:#fff">faint</p></details></main></body></html>')
    found = axe_problems(page, "probe")
    assert summary_of(found) == sorted([
        "probe image-alt", "probe (dark theme) color-contrast-enhanced", "probe (opened) color-contrast",
        "probe (opened) (light theme) color-contrast", "probe (opened) (dark theme) color-contrast"]), found
    assert page.evaluate("document.body.className") == "presenter slide"  # drawn as it was after the check
    page.evaluate("document.body.className = 'presenter slide theme-dark'")
    page.evaluate("document.querySelector('details').open = false")
    found = axe_problems(page, "probe", ("dark", ""))
    assert summary_of(found) == sorted([
        "probe (dark theme) color-contrast-enhanced", "probe (dark theme) image-alt",
        "probe (opened) (dark theme) color-contrast", "probe (opened) color-contrast"]), found
