"""The telling-words page in headless Chromium at projector size (1024×768): the model form changes the lists,
the page settings form changes them too, presenter mode fits the screen, and a large corpus's word-pair comparison
arrives by itself after the rest of the page."""
from __future__ import annotations

import re
import threading

import pytest

from webnb.engine import Corpus
from webnb.views.common import LARGE_CORPUS

from .conftest import PROJECTOR, htmx_settled, response_to, scroll_width, url_with

pytestmark = pytest.mark.browser

PATH = "/corpora/spam-ham/words"


def test_model_and_alpha_change_the_lists(browsing, page, server_url, shot):
    from playwright.sync_api import expect

    page.goto(f"{server_url}{PATH}?model=bernoulli&alpha=1")
    ham_top = page.locator("#top-words table").first.locator("tbody tr").first
    expect(ham_top).to_contain_text("the")
    expect(ham_top).to_contain_text("9/11 ≈ 0.8182")  # 8 of 9 ham messages contain "the", smoothed
    formula = page.locator("#discriminative-formula")
    expect(formula).to_contain_text("7.364")  # (9/11) ÷ (1/9) = 81/11
    shot(page, "words-spam-ham-bernoulli")

    with page.expect_response(response_to(PATH, model="multinomial")):
        page.locator("#model-kind").select_option("multinomial")
    htmx_settled(page)  # the next action must reach the swapped-in elements
    expect(ham_top).not_to_contain_text("9/11")
    expect(page.locator("#top-words th").filter(has_text="θ").first).to_be_visible()
    expect(page).to_have_url(url_with(model="multinomial"))  # pushed into the address

    with page.expect_response(response_to(PATH, model="multinomial", alpha="0")):
        page.locator("#model-alpha").fill("0")
    htmx_settled(page)  # the next action must reach the swapped-in elements
    expect(formula).to_contain_text("∞")
    ratios = page.locator("#discriminative table").first.locator("tbody tr td:nth-of-type(3)")
    expect(ratios.first).to_have_text("∞")
    assert set(ratios.all_inner_texts()) == {"∞"}
    expect(page.locator("#discriminative .warning")).to_contain_text("infinite")

    with page.expect_response(response_to(PATH, k="5", alpha="0")):
        page.locator("#words-k").fill("5")
        page.locator("#words-k").press("Tab")
    htmx_settled(page)  # the next action must reach the swapped-in elements
    expect(page.locator("#top-words table").first.locator("tbody tr")).to_have_count(5)
    expect(page.locator("#model-kind")).to_have_value("multinomial")  # the model was kept
    with page.expect_response(response_to(PATH, k="5", alpha="2")):
        page.locator("#model-alpha").fill("2")
    htmx_settled(page)  # the next action must reach the swapped-in elements
    expect(formula).not_to_contain_text("∞")
    expect(page.locator("#top-words table").first.locator("tbody tr")).to_have_count(5)  # and k kept by the model form
    expect(page).to_have_url(url_with(alpha="2", k="5"))
    shot(page, "words-spam-ham-multinomial-alpha0")
    assert browsing.errors == []


@pytest.mark.parametrize("query", ["model=bernoulli&alpha=1", "model=multinomial&alpha=0&k=50"])
def test_presenter_mode_fits_the_projector(browsing, page, server_url, shot, query):
    from playwright.sync_api import expect

    page.goto(f"{server_url}{PATH}?{query}&presenter=1")
    expect(page.locator("body")).to_have_class(re.compile(r"\bpresenter\b"))
    expect(page.locator(".model-form")).to_be_hidden()
    expect(page.locator("#words-settings")).to_be_hidden()
    assert scroll_width(page) <= PROJECTOR["width"]
    assert page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)") >= 24
    shot(page, f"words-presenter-{query.replace('&', '-').replace('=', '')}")
    assert browsing.errors == []


def test_large_corpus_pairs_arrive_after_the_page(served_app, browsing, page, server_url, shot):
    """A corpus above LARGE_CORPUS documents: the comparison is held back until the test releases it, so the page
    must show the rest and a note first, then the note polls and turns into the table by itself."""
    from playwright.sync_api import expect

    n = LARGE_CORPUS + 100
    pairs = [("spam", f"win cash prize message {i % 50}") if i % 3 == 0 else ("ham", f"lunch at noon message {i % 50}")
             for i in range(n)]
    catalog = served_app.extensions["webnb"]["catalog"]
    corpus_id = catalog.add(Corpus.from_pairs(pairs), name="Many messages", source="test")
    release = threading.Event()
    counting = catalog.held_out

    def held_back(*args, **kwargs):
        release.wait(timeout=60)
        return counting(*args, **kwargs)

    catalog.held_out = held_back
    try:
        page.goto(f"{server_url}/corpora/{corpus_id}/words?model=multinomial&alpha=1")
        expect(page.locator("#top-words table").first).to_be_visible()
        expect(page.locator("#bigrams .computing")).to_contain_text("Being computed")
        expect(page.locator("#bigrams table")).to_have_count(0)
        shot(page, "words-large-computing")
        release.set()
        expect(page.locator("#bigrams table")).to_be_visible(timeout=30_000)
        expect(page.locator("#bigrams .computing")).to_have_count(0)
        rows = page.locator("#bigrams table tbody tr")
        expect(rows).to_have_count(2)
        shot(page, "words-large-done")
    finally:
        release.set()
        del catalog.held_out
    assert browsing.errors == []


def test_settings_work_without_javascript(new_browsing, server_url):
    from playwright.sync_api import expect

    page = new_browsing(java_script_enabled=False).new_page()
    page.goto(f"{server_url}{PATH}?model=bernoulli&alpha=1")
    page.locator("#words-k").fill("7")
    page.locator("#words-by").select_option("difference")
    page.locator("#words-settings button", has_text="Show").click()
    expect(page).to_have_url(url_with(k="7", by="difference", alpha="1"))
    expect(page.locator("#top-words table").first.locator("tbody tr")).to_have_count(7)
    expect(page.locator("#discriminative th.ranked")).to_have_text(["difference", "difference"])
