"""What a student sees first (issue 26, parts 1 and 2), measured in headless Chromium: on a 390 × 844 phone the
step's result is on the first screen after typing, tables with the classes across become one card per row, a flag
never breaks inside a word, the home page and the list of corpora start with what a student comes for; on a
1366 × 768 laptop Back and Next are on the screen at every step; and a refusal (429, 404) says so on the page."""
from __future__ import annotations

import time

import pytest
from conftest import serving
from playwright.sync_api import expect

from webnb import create_app
from webnb.engine.shared.corpus import Corpus
from webnb.lesson.state import GAUSSIAN_STEPS, STEPS, counting_options
from webnb.store.database import PublishedCorpus

from .conftest import htmx_settled, lazy_parts_loaded, query_of

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1366, "height": 768}

BOX = """(selector) => { const el = document.querySelector(selector); if (!el) return null;
  const r = el.getBoundingClientRect(); return {top: r.top, bottom: r.bottom, left: r.left, right: r.right}; }"""


def box(page, selector: str) -> dict:
    found = page.evaluate(BOX, selector)
    assert found is not None, selector
    return found


def visible_screen_bottom(page) -> float:
    """Where the first screen ends above the Back / Next bar that sticks to its bottom edge."""
    return min(PHONE["height"], box(page, ".step-buttons")["top"])


def test_the_phone_shows_the_steps_result_on_the_first_screen_after_typing(browsing, page, server_url, shot):
    from playwright.sync_api import expect

    page.set_viewport_size(PHONE)
    page.goto(server_url + "/corpora/match-reviews/inference?step=decision")
    lazy_parts_loaded(page)
    # The settings fold into one line each: the model (with α in force) and the list of steps.
    expect(page.locator(".model-fold > summary")).to_have_text("Model Bernoulli, α = 0")
    expect(page.locator(".model-form")).to_be_hidden()
    expect(page.locator(".steps-fold > summary")).to_contain_text("Step 5 of 10")
    with page.expect_response(lambda r: query_of(r.url).get("text") == "sharp keeper"):
        page.locator("#review").fill("sharp keeper")
    htmx_settled(page)
    # The address bar holds what differs from the corpus's defaults, not every field of the forms.
    assert page.url.endswith("/corpora/match-reviews/inference?model=bernoulli&alpha=0&text=sharp+keeper&step=decision")
    verdict = page.locator(".step .verdict")
    expect(verdict).to_contain_text("Decision:")
    assert page.evaluate("scrollY") == 0
    assert box(page, ".step .verdict")["bottom"] <= visible_screen_bottom(page)
    assert box(page, "#review")["bottom"] < box(page, ".step h2")["top"]
    shot(page, "phone-first-screen-decision", full_page=False)

    # The folded model opens, and stays open while its α changes the page.
    page.locator(".model-fold > summary").click()
    expect(page.locator(".model-form")).to_be_visible()
    alpha = page.locator("#model-alpha")
    alpha.fill("1")
    expect(page.locator(".model-fold > summary")).to_have_text("Model Bernoulli, α = 1")
    htmx_settled(page)
    expect(page.locator(".model-form")).to_be_visible()
    assert browsing.errors == []


@pytest.mark.parametrize("path", [f"/corpora/match-reviews/inference?step={step}" for step in STEPS]
                         + [f"/corpora/iris/gaussian/inference?step={step}" for step in GAUSSIAN_STEPS])
def test_every_step_starts_on_the_phones_first_screen(page, server_url, path):
    """Texts and tables alike: the values and the model fold into a line each (issue 36, part 5: iris's first result
    was at 1,024 px)."""
    page.set_viewport_size(PHONE)
    page.goto(server_url + path)
    lazy_parts_loaded(page)
    first_content = page.evaluate("""() => { const h = document.querySelector('.step h2');
        const next = h.nextElementSibling; const r = next.getBoundingClientRect(); return r.top; }""")
    assert box(page, ".step h2")["bottom"] <= visible_screen_bottom(page)
    assert first_content < visible_screen_bottom(page)


def test_tables_with_classes_across_are_cards_on_a_phone(browsing, page, server_url, shot):
    page.set_viewport_size(PHONE)
    page.goto(server_url + "/corpora/china-japan/parameters")
    lazy_parts_loaded(page)
    cells = page.evaluate("""() => [...document.querySelectorAll('table.params.cards td')].map(td => {
        const r = td.getBoundingClientRect(); return [td.dataset.label, r.left, r.right]; })""")
    classes = page.evaluate("""() => [...document.querySelectorAll('table.params.cards thead th[data-class]')]
        .map(th => th.dataset.class)""")
    rows = page.locator("table.params.cards tbody tr").count()
    assert len(classes) == 2 and len(cells) == 2 * rows
    assert {label for label, _, _ in cells} == set(classes)
    assert all(left >= 0 and right <= PHONE["width"] for _, left, right in cells), cells
    shot(page, "phone-parameter-cards", full_page=False)

    page.goto(server_url + "/corpora/match-reviews/inference?step=logspace&alpha=1&model=multinomial")
    lazy_parts_loaded(page)
    posteriors = page.evaluate("""() => [...document.querySelectorAll('td[data-label="posterior"]')].map(td => {
        const r = td.getBoundingClientRect(); return [r.left, r.right, td.textContent.trim()]; })""")
    assert len(posteriors) == 2
    assert all(left >= 0 and right <= PHONE["width"] and text for left, right, text in posteriors)
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
    assert browsing.errors == []


def test_a_flag_never_breaks_inside_a_word_on_a_phone(page, server_url, shot):
    page.set_viewport_size(PHONE)
    # α = 0: three test documents have a zero factor in both classes.
    page.goto(server_url + "/corpora/spam-ham/evaluation?alpha=0")
    lazy_parts_loaded(page)
    flags = page.evaluate("""() => [...document.querySelectorAll('.flag')].filter(f => f.offsetParent).map(f => {
        const style = getComputedStyle(f); return [f.textContent, f.getClientRects().length,
        f.getBoundingClientRect().height / parseFloat(style.lineHeight || style.fontSize)]; })""")
    assert any(text == "cannot decide" for text, _, _ in flags), flags
    assert all(lines == 1 for _, lines, _ in flags), flags
    shot(page, "phone-flag", full_page=False)


def test_on_a_laptop_back_and_next_are_on_the_screen_at_every_step(page, server_url):
    page.set_viewport_size(LAPTOP)
    walks = [f"/corpora/match-reviews/inference?step={step}" for step in STEPS]
    walks += [f"/corpora/spam-ham/inference?step={step}&model=multinomial&alpha=1" for step in STEPS]
    walks += [f"/corpora/iris/gaussian/inference?step={step}" for step in GAUSSIAN_STEPS]
    off_screen = {}
    for path in walks:
        page.goto(server_url + path)
        lazy_parts_loaded(page)
        buttons = box(page, ".step-buttons")
        if not (0 <= buttons["top"] and buttons["bottom"] <= LAPTOP["height"]):
            off_screen[path] = buttons
    assert off_screen == {}


class StoppedClock:
    """The rate limiter's clock, stopped: a window of requests ends only when the test moves the clock, so that a
    slow machine (clicks a second apart) reaches the limit as surely as a fast one."""

    def __init__(self):
        self.now = time.time()

    def time(self) -> float:
        return self.now


def hosted_server(tmp_path, clock: StoppedClock | None = None):
    """A hosted server (a student's workspace per browser) with one class corpus, rate-limited tightly so that a
    few quick presses are too many. With a ``clock``, the limiter counts on it and a refusal moves it past the
    window, so the page's own retry (after Retry-After) is answered."""
    app = create_app({"WEBNB_MODE": "hosted", "SECRET_KEY": "k" * 48, "WEBNB_RATE_LIMIT": "6 per 3 seconds"},
                     instance_path=str(tmp_path / "instance"))
    corpus = Corpus.from_pairs([("space", "orbit launch rocket"), ("space", "rocket orbit moon"),
                                ("autos", "engine car wheel"), ("autos", "car brake engine")], name="Two newsgroups")
    presets = (("alpha", "1"),)
    app.extensions["webnb"]["catalog"].publish(
        [PublishedCorpus("two-groups", "Two newsgroups", "Posts of two groups.", "test", presets, corpus)],
        [counting_options(presets, len(corpus))])
    if clock is not None:
        @app.after_request
        def window_ends_at_a_refusal(response):
            if response.status_code == 429:
                clock.now += 3
            return response
    try:
        with serving(app) as url:
            yield url
    finally:
        app.extensions["webnb"]["storage"].dispose()


@pytest.fixture
def hosted(tmp_path):
    yield from hosted_server(tmp_path)


@pytest.fixture
def hosted_on_a_stopped_clock(tmp_path, monkeypatch):
    clock = StoppedClock()
    # The limiter's in-memory counts and webnb's Retry-After read the same clock.
    monkeypatch.setattr("limits.storage.memory.time", clock)
    monkeypatch.setattr("webnb.errors.time", clock)
    yield from hosted_server(tmp_path, clock)


def test_hosted_home_and_corpora_start_with_what_a_student_needs(browsing, page, hosted, shot):
    page.set_viewport_size(PHONE)
    page.goto(hosted + "/")
    class_corpora, lessons = box(page, "#class-corpora-title"), box(page, "#seed-lessons-title")
    examples = box(page, "section.example:not(#example-two-groups)")
    assert class_corpora["top"] < PHONE["height"]  # on the first screen
    assert class_corpora["top"] < lessons["top"] < examples["top"]
    shot(page, "phone-home-hosted", full_page=False)

    page.goto(hosted + "/corpora")
    typed, upload, builtin = box(page, "#paste-title"), box(page, "#upload-title"), box(page, "#builtin-title")
    assert typed["top"] < PHONE["height"]
    assert typed["top"] < upload["top"] < builtin["top"]
    shot(page, "phone-corpora-hosted", full_page=False)
    assert browsing.errors == []


def test_too_many_requests_are_said_in_the_fragment_and_tried_again(browsing, page, hosted_on_a_stopped_clock, shot):
    from playwright.sync_api import expect

    page.goto(hosted_on_a_stopped_clock + "/corpora/match-reviews/inference")
    lazy_parts_loaded(page)
    refused = []
    page.on("response", lambda r: refused.append(r) if r.status == 429 else None)
    # Quick presses of → until the server refuses one: its message appears above the step, which stays.
    for _ in range(12):
        if refused:
            break
        next_step = page.locator("#inference [data-step=next]")
        if next_step.count() == 0:
            break
        with page.expect_response(lambda r: "/inference" in r.url):
            next_step.click()
        # The response's headers can arrive before htmx has read and swapped it: a click then would replace the
        # request still in flight (hx-sync), which htmx reports as an aborted send.
        htmx_settled(page)
    assert refused, "no request was refused"
    response = refused[0]
    retry = int(response.headers["retry-after"])
    assert retry == 3  # the whole window: the clock stood still since its first request
    note = page.locator("#inference > .refusal-note")
    expect(note).to_contain_text("Too many requests")
    expect(note).to_contain_text(f"Wait {retry} second")
    expect(page.locator("#inference .step h2")).to_be_visible()  # what the page showed is still there
    shot(page, "refused-429-fragment", full_page=False)
    # After Retry-After the page asks again by itself, and the answer replaces the note.
    expect(note).to_have_count(0, timeout=(retry + 10) * 1000)
    expect(page.locator("#inference .step h2")).to_be_visible()
    assert not [error for error in browsing.errors if "429" not in error]


def test_another_students_corpus_says_why_and_how_to_get_a_copy(new_browsing, hosted, shot):
    from playwright.sync_api import expect

    alice = new_browsing().new_page()
    alice.goto(hosted + "/corpora")
    alice.locator("#paste-name").fill("Alice's reviews")
    alice.locator("#paste-corpus").fill("pos\tgreat match\nneg\tdull match\npos\tsharp keeper\nneg\tslow game")
    alice.locator("form[action$='/corpora/paste'] button[type=submit]").click()
    expect(alice.get_by_role("heading", level=1)).to_have_text("Alice's reviews")

    bob = new_browsing().new_page()
    response = bob.goto(alice.url + "/inference")
    assert response.status == 404
    expect(bob.get_by_role("heading", level=1)).to_have_text("Page not found")
    expect(bob.locator("[role=alert]")).to_contain_text("belongs to another workspace")
    expect(bob.locator("[role=alert]")).to_contain_text("Share a copy")
    expect(bob.locator("body")).not_to_contain_text("Alice's reviews")
    expect(bob.locator("body")).not_to_contain_text("check your spelling")
    shot(bob, "refused-404-other-workspace", full_page=False)


# The twenty classes of 20 Newsgroups, whose long names were what pushed values off a phone's screen.
NEWSGROUPS = ("alt.atheism", "comp.graphics", "comp.os.ms-windows.misc", "comp.sys.ibm.pc.hardware",
              "comp.sys.mac.hardware", "comp.windows.x", "misc.forsale", "rec.autos", "rec.motorcycles",
              "rec.sport.baseball", "rec.sport.hockey", "sci.crypt", "sci.electronics", "sci.med", "sci.space",
              "soc.religion.christian", "talk.politics.guns", "talk.politics.mideast", "talk.politics.misc",
              "talk.religion.misc")

# Tables with a row per class or per factor of a class (not the review's vector over the whole vocabulary, which
# scrolls in its own box by design).
OFF_SCREEN = """() => [...document.querySelectorAll(
    ':is(table.cards, table.decision:not(.product-demonstration)) :is(td, tbody th)')]
  .filter(cell => cell.offsetParent && cell.getBoundingClientRect().right > innerWidth + 1)
  .map(cell => cell.closest('table').className + ': ' + cell.textContent.trim().slice(0, 30))"""


def test_twenty_classes_stay_on_a_phones_screen(served_app, page, server_url, shot):
    corpus = Corpus.from_pairs([(group, f"{group.replace('.', ' ')} post {n} number {n * 7}")
                                for group in NEWSGROUPS for n in range(3)], name="Twenty groups")
    presets = (("model", "multinomial"), ("alpha", "1"), ("text", "comp graphics space post"))
    served_app.extensions["webnb"]["catalog"].publish(
        [PublishedCorpus("twenty-groups", "Twenty groups", "", "test", presets, corpus)],
        [counting_options(presets, len(corpus))])
    page.set_viewport_size(PHONE)
    off_screen = {}
    for path in [*(f"inference?step={step}" for step in STEPS), "parameters", "inference?step=zeros&alpha=0",
                 "compare"]:
        page.goto(f"{server_url}/corpora/twenty-groups/{path}")
        lazy_parts_loaded(page)
        cells = page.evaluate(OFF_SCREEN)
        if cells:
            off_screen[path] = cells
    assert off_screen == {}
    # The models compared are cards as well: each one's accuracy and log loss under their names.
    page.goto(f"{server_url}/corpora/twenty-groups/compare")
    expect(page.locator("table.comparison.cards tbody tr")).to_have_count(5)
    assert page.locator('table.comparison td[data-label="Log loss"]').count() == 5
    # and so are the pairs of models, each with its McNemar p-value
    assert page.locator('table.pair-tests td[data-label="p (McNemar, exact)"]').count() == 10
    page.goto(f"{server_url}/corpora/twenty-groups/inference?step=decision")
    posteriors = page.locator('td[data-label="P(class | review)"]')
    assert posteriors.count() == 20
    shot(page, "phone-twenty-classes-decision", full_page=False)


@pytest.mark.parametrize("corpus", ["china-japan", "spam-ham", "folgers-students"])
def test_the_decision_is_said_first_on_a_phone(page, server_url, corpus):
    page.set_viewport_size(PHONE)
    page.goto(server_url + f"/corpora/{corpus}/inference?step=decision")
    lazy_parts_loaded(page)
    verdict, table = box(page, "#step-decision > .verdict"), box(page, "#step-decision > table.decision")
    assert verdict["bottom"] <= visible_screen_bottom(page) and verdict["bottom"] <= table["top"]
