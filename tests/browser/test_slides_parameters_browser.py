"""The slides of the bag of words, the parameters, one parameter and the Beta prior (issue 24) in Chromium at
1024 × 768: each fits without scrolling in type of at least 20 px (the Beta chart's SVG labels included), shows its
condensed content, and keeps the full table one key away; twenty classes fit too."""
from __future__ import annotations

import io
import json
from urllib.parse import urlencode
from urllib.request import urlopen

import pytest
from playwright.sync_api import expect

from browser.slides import MEASURE, open_folded, press, slide_problems

pytestmark = pytest.mark.browser

LESSONS = {
    "match-bernoulli-0": ("match-reviews", {"model": "bernoulli", "alpha": "0", "text": "match was sharp"}),
    "match-bernoulli-1": ("match-reviews", {"model": "bernoulli", "alpha": "1", "text": "match was sharp"}),
    "china-japan": ("china-japan", {"model": "multinomial", "alpha": "1",
                                    "text": "Chinese Chinese Chinese Tokyo Japan"}),
    "spam-ham": ("spam-ham", {"model": "bernoulli", "alpha": "1",
                              "text": "Claim your free prize now, call 0800 555 0199"}),
}
# The five slides in the deck's order, from the bag of words on, and what each must show.
SLIDES = (
    ("matrix", "#slide-matrix table.slide-matrix"),
    ("priors", "#slide-priors table.slide-priors"),
    ("table", "#slide-table table.slide-params"),
    ("cell", "#slide-cell table.slide-cells"),
    ("prior", "#slide-prior svg.beta-chart"),
)


def matrix_url(server_url: str, corpus: str, settings: dict) -> str:
    return f"{server_url}/corpora/{corpus}/matrix?{urlencode({**settings, 'presenter': '1'})}"


def fits(page) -> list[str]:
    return slide_problems(page.evaluate(MEASURE))


def walk_my_slides(page, server_url: str, corpus: str, settings: dict, shot, name: str, timeout: float = 30_000):
    """From the bag of words, → through the five slides: each fits and shows its content; [problems]."""
    page.goto(matrix_url(server_url, corpus, settings), timeout=timeout)
    problems = []
    for number, (key, content) in enumerate(SLIDES):
        expect(page.locator(content)).to_be_visible(timeout=timeout)
        shot(page, f"slides-parameters-{name}-{key}", full_page=False)
        problems += [f"{key}: {problem}" for problem in fits(page)]
        if number < len(SLIDES) - 1:
            press(page, "ArrowRight")
    return problems


@pytest.mark.parametrize("lesson", list(LESSONS))
def test_the_five_slides_fit_the_projector_and_show_their_content(page, server_url, shot, lesson):
    corpus, settings = LESSONS[lesson]
    assert walk_my_slides(page, server_url, corpus, settings, shot, lesson) == []


def test_the_cell_and_the_prior_open_on_the_reviews_first_word(page, server_url):
    corpus, settings = LESSONS["match-bernoulli-0"]
    page.goto(f"{server_url}/corpora/{corpus}/parameters?{urlencode({**settings, 'slide': 'table', 'presenter': '1'})}")
    expect(page.locator("#slide-table table.slide-params tbody th")).to_have_text(["match", "was", "sharp"])
    expect(page.locator("#slide-table table.slide-params td.breaks .flag")).to_have_text(["1", "1"])
    press(page, "ArrowRight")
    cells = page.locator("#slide-cell table.slide-cells tbody tr")
    expect(cells.locator("th")).to_have_text(["negative", "positive"])
    expect(cells.first).to_have_class("breaks")
    expect(page.locator("#slide-cell .warning")).to_contain_text("without “match” gets probability 0")
    press(page, "ArrowRight")
    expect(page.locator("#slide-prior table.slide-estimates td")).to_have_text(
        ["= 2/2 ≈ 1", "= (2 + 0) / (2 + 2 × 0) = 2/2 ≈ 1", "= (2 + 0 + 1) / (2 + 2 × 0 + 2) = 3/4 ≈ 0.75"])


def test_the_beta_charts_axis_labels_are_at_least_20_px(page, server_url):
    corpus, settings = LESSONS["china-japan"]
    query = urlencode({**settings, "word": "chinese", "class": "China", "presenter": "1"})
    page.goto(f"{server_url}/corpora/{corpus}/parameters/prior?{query}")
    sizes = page.evaluate("""() => [...document.querySelectorAll('svg.beta-chart text')].map(t => {
        const svg = t.ownerSVGElement;
        return parseFloat(getComputedStyle(t).fontSize) * svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    })""")
    assert len(sizes) == 8 and min(sizes) >= 20, sizes  # five ticks, three estimates
    expect(page.locator("svg.beta-chart text.tick")).to_have_text(["0", "0.25", "0.5", "0.75", "1"])


def test_the_pages_window_of_the_matrix_is_one_key_away(page, server_url):
    corpus, settings = LESSONS["spam-ham"]
    page.goto(matrix_url(server_url, corpus, settings))
    summary = page.locator("#slide-matrix details.full-table > summary")
    full = page.locator("#slide-matrix details.full-table table.matrix")
    expect(full).to_be_hidden()
    open_folded(page, summary)
    expect(full).to_be_visible()
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 1024  # a wide window scrolls in its box


# -- twenty classes ----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def twenty_newsgroups(served_app, server_url, shared_corpora):
    """The 20 Newsgroups training posts, all twenty groups, published on the served app as ``ng20`` and counted."""
    from webnb.cli import main

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("webnb.create_app", lambda: served_app)
        assert main(["corpora", "add", str(shared_corpora / "20newsgroups-bydate" / "train.jsonl.gz"), "--id", "ng20",
                     "--name", "20 Newsgroups, twenty groups", "--review", "OpenGL on the GPU is fast"],
                    out=io.StringIO()) == 0
    # The JSON twin counts the corpus there and then (a page would show the progress of counting it).
    with urlopen(f"{server_url}/corpora/ng20/parameters?format=json", timeout=600) as response:
        assert len(json.load(response)["classes"]) == 20
    return "ng20"


@pytest.mark.corpora
@pytest.mark.slow
@pytest.mark.parametrize("settings", [{}, {"model": "bernoulli", "alpha": "0"}])
def test_twenty_classes_fit_every_slide(page, server_url, shot, twenty_newsgroups, settings):
    name = "ng20-" + ("-".join(settings.values()) or "presets")
    assert walk_my_slides(page, server_url, twenty_newsgroups, settings, shot, name, timeout=120_000) == []
    page.goto(f"{server_url}/corpora/ng20/parameters?{urlencode({**settings, 'presenter': '1'})}")
    expect(page.locator("#slide-priors table.slide-priors tfoot")).to_contain_text("more classes")
    expect(page.locator("#slide-priors details.full-table tbody tr")).to_have_count(20)
    page.goto(f"{server_url}/corpora/ng20/parameters?{urlencode({**settings, 'slide': 'table', 'presenter': '1'})}")
    expect(page.locator("#slide-table table.slide-params th.more-classes")).to_have_text("+ 17 more classes")
    expect(page.locator("#slide-table table.slide-params tbody th").first).to_have_text("opengl")
