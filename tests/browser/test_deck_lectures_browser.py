"""The whole lecture on the projector for large lessons (issue 24, parts 1 to 3): every slide of every page, walked
in order by the keyboard at 1024 × 768, fits without scrolling in type legible from the back of the room, for a
digits-sized table of numbers (10 classes, 64 features) and for the published lecture corpora (the SMS Spam
Collection, the four and the twenty newsgroups), where each slide also passes axe in every theme."""
from __future__ import annotations

import re
from urllib.parse import parse_qs, urlencode, urlsplit

import numpy as np
import pytest
from playwright.sync_api import expect

from browser.slides import axe_problems, look_classes, press, slide_problems, walk_deck
from webnb.engine.gaussian.table import NumericTable

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def digits(served_app) -> str:
    """scikit-learn's bundled handwritten digits (1,797 rows of 8 × 8 pixels, 10 classes; no download), stored as a
    table of numbers; its id."""
    from sklearn.datasets import load_digits

    data = load_digits()
    table = NumericTable(tuple(data.feature_names), np.asarray(data.data, dtype=np.float64),
                         tuple(f"digit {k}" for k in data.target), tuple(map(str, range(len(data.target)))))
    return served_app.extensions["webnb"]["catalog"].add(table, name="Handwritten digits", source="test")


@pytest.mark.parametrize("table", ["digits", "iris"])
def test_every_table_slide_fits_for_ten_classes_and_sixty_four_features(page, server_url, shot, digits, table):
    corpus = digits if table == "digits" else "iris"
    problems = []
    for slide, size in walk_deck(page, f"{server_url}/corpora/{corpus}/gaussian?presenter=1", "table", shot, table):
        problems += [f"{slide.page.key}/{slide.key}: {problem}" for problem in slide_problems(size)]
    assert problems == [], "\n".join(problems)


TWENTY, PER_CLASS = "twenty-lecture", 40  # 800 posts of the twenty groups: every class, a short walk


@pytest.fixture(scope="module")
def lecture_corpora(served_app, shared_corpora, tmp_path_factory) -> dict[str, dict]:
    """The published lectures (sms-spam, newsgroups-4 and a sample of the twenty groups), as an instructor publishes
    them: corpus id → the settings its lesson opens with."""
    from conftest import publish_lecture_corpora

    from browser.slides import publish_twenty_sample
    from webnb.lesson.seed_lessons import get_recipe

    publish_lecture_corpora(served_app, shared_corpora, tmp_path_factory.mktemp("lecture"))
    publish_twenty_sample(served_app, shared_corpora, tmp_path_factory.mktemp("twenty"), TWENTY, PER_CLASS)
    return {"sms-spam": dict(get_recipe("sms-spam").presets), "newsgroups-4": dict(get_recipe("newsgroups-4").presets),
            TWENTY: {"model": "multinomial", "alpha": "1", "text": "OpenGL on the GPU is fast"}}


def settings_of(url: str) -> dict[str, list[str]]:
    """The lesson's state in an address: its query less what only places a slide."""
    return {k: v for k, v in parse_qs(urlsplit(url).query).items() if k not in ("presenter", "slide", "step")}


def keeps(url: str, settings: dict[str, str]) -> bool:
    """Whether an address carries the lesson's ``settings``: the model and α always, any other setting (the review
    too) as given or left out (an address leaves out what equals the published lesson's own default)."""
    query = settings_of(url)
    return (all(query.get(name, [value]) == [value] for name, value in settings.items())
            and all(name in query for name in ("model", "alpha")))


def alpha_moves_the_slide(page) -> None:
    """+ then − on the slide: α goes one step up and the slide's decision is the record's for that α; − brings the
    α the walk had back, on the same slide."""
    before = page.url
    alpha = page.locator(".deck-bar .slide-alpha")
    was = alpha.inner_text()
    up = page.locator('[data-control="alpha-up"]').get_attribute("title")  # "α = <the next step up>"
    press(page, "+")
    expect(alpha).to_have_text(up)
    assert "presenter=1" in page.url and parse_qs(urlsplit(page.url).query)["alpha"] == [up.removeprefix("α = ")]
    expect(page.locator("#step-decision")).to_be_visible()
    twin = page.request.get(page.url + "&format=json").json()
    expect(page.locator('[data-about="lesson"]')).to_have_attribute("data-says", twin["statements"]["lesson"]["says"])
    press(page, "-")
    expect(alpha).to_have_text(was)
    assert settings_of(page.url) == settings_of(before)


@pytest.mark.corpora
@pytest.mark.slow
@pytest.mark.parametrize("corpus", ["sms-spam", "newsgroups-4", TWENTY])
def test_the_published_lectures_walk_from_the_documents_to_the_end(page, server_url, shot, lecture_corpora, corpus):
    settings = lecture_corpora[corpus]
    first = f"{server_url}/corpora/{corpus}?{urlencode({**settings, 'presenter': '1'})}"
    problems, previous = [], None
    for slide, size in walk_deck(page, first, "text", shot, corpus, timeout=240_000):
        where = f"{slide.page.key}/{slide.key}"
        problems += [f"{where}: {problem}" for problem in slide_problems(size)]
        # The state travels with the walk, and the exit leaves presenter mode for the same page and state.
        assert keeps(page.url, settings), (where, page.url)
        exit_link = page.locator(".deck-bar .deck-exit").get_attribute("href")
        assert urlsplit(exit_link).path == urlsplit(page.url).path, where
        assert "presenter" not in parse_qs(urlsplit(exit_link).query) and keeps(exit_link, settings), (where, exit_link)
        if previous is not None and previous.page.key == "inference" and previous.key == "contributions":
            assert slide.page.key == "evaluation"  # → from step 10 of Bayes' rule
        # Every rule in the normal theme, and what a theme can change in the high-contrast ones.
        problems += axe_problems(page, where)
        if slide.page.key == "inference" and slide.key == "decision":
            alpha_moves_the_slide(page)
        previous = slide
    assert problems == [], "\n".join(problems)
    page.locator(".deck-bar .deck-exit").click()
    expect(page.locator(".deck-bar")).to_have_count(0)
    expect(page.locator("h1")).to_be_visible()
    assert "presenter" not in parse_qs(urlsplit(page.url).query)


@pytest.mark.corpora
@pytest.mark.slow
@pytest.mark.parametrize("zoom, theme", [(zoom, theme) for zoom in ("125", "150") for theme in ("", "light")])
def test_twenty_classes_at_every_zoom_never_make_a_slide_scroll(page, server_url, lecture_corpora, zoom, theme):
    """Issue 36, part 2, on 20 Newsgroups' twenty classes, at the two larger zooms (100 % is the lecture's own walk
    above) in the normal theme and a high-contrast one (the dark theme is laid out as the light one:
    tests/test_colours.py): every slide shows fewer rows and classes as the zoom grows and is enlarged as far as it
    fits; none scrolls; the walk keeps the theme and the zoom."""
    settings = lecture_corpora[TWENTY]
    look = {name: value for name, value in (("zoom", zoom), ("theme", theme)) if value}
    first = f"{server_url}/corpora/{TWENTY}?{urlencode({**settings, 'presenter': '1', **look})}"
    problems = []
    for slide, size in walk_deck(page, first, "text", None, TWENTY, timeout=240_000):
        problems += [f"{slide.page.key}/{slide.key}: {problem}" for problem in slide_problems(size)]
        assert 1 <= float(page.locator("main").get_attribute("data-zoom-in-use")) <= int(zoom) / 100
        assert page.evaluate("document.body.className") == look_classes(theme, zoom), slide
    assert problems == [], "\n".join(problems)


@pytest.mark.corpora
@pytest.mark.slow
def test_a_slide_that_counts_shows_its_progress_inside_the_deck(page, server_url, lecture_corpora, monkeypatch,
                                                                 tmp_path):
    """Issue 36, part 2: a slide whose words must be counted first (options no process has counted) shows the
    progress as a slide, in the deck's theme, with its bar, then the slide itself. The count is held for 5 s at the
    named point ``counting`` (webnb/store/faults.py), so that the progress is on screen whatever the machine's
    speed."""
    import webnb.store.faults

    monkeypatch.setenv("WEBNB_PAUSE_AT", f"counting:{tmp_path / 'paused'}")
    monkeypatch.setattr(webnb.store.faults, "PAUSE_SECONDS", 5)
    settings = {**lecture_corpora["sms-spam"], "stop_words": "english", "ngrams": "1-2", "presenter": "1",
                "theme": "dark"}
    before = f"{server_url}/corpora/sms-spam?{urlencode({**lecture_corpora['sms-spam'], 'presenter': '1'})}"
    page.goto(f"{server_url}/corpora/sms-spam/matrix?{urlencode(settings)}", referer=before)
    expect(page.locator("body")).to_have_class("presenter slide theme-dark")
    bar = page.locator(".deck-bar")
    expect(bar.locator(".deck-position")).to_contain_text("Counting")
    expect(bar.locator("[data-step=prev]")).to_have_attribute("href", re.compile(r"^/corpora/sms-spam\?"))
    expect(bar.locator(".deck-exit")).to_be_visible()
    # When the count is done, the slide itself, still in the deck and the theme.
    expect(bar.locator(".deck-position strong")).to_have_text("Bag of words", timeout=120_000)
    expect(page.locator("body")).to_have_class(re.compile(r"presenter slide theme-dark"))
