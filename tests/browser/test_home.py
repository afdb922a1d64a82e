"""The home page as a person sees it: headless Chromium at projector size, against a real local server."""
from __future__ import annotations

import pytest

from webnb.examples import EXAMPLES, load_example_corpus
from webnb.lesson.seed_lessons import SEED_LESSONS, TEXTBOOK_LESSONS

from .conftest import PROJECTOR, scroll_width

pytestmark = pytest.mark.browser


def test_home_shows_the_examples(page, server_url):
    from playwright.sync_api import expect

    page.goto(server_url + "/")
    for example in EXAMPLES:
        section = page.locator(f"#example-{example.id}")
        expect(section.get_by_role("heading", name=example.title)).to_be_visible()
        expect(section.locator("table.class-counts")).to_be_visible()
        documents = section.locator("table.documents")
        expect(documents).to_be_visible()
        expect(documents.locator("tbody tr")).to_have_count(len(load_example_corpus(example.id)))


def test_htmx_loads_without_console_errors(browsing, page, server_url):
    page.goto(server_url + "/")
    assert page.evaluate("typeof htmx") == "object"
    assert browsing.errors == []


def test_home_fits_the_projector(page, server_url, shot):
    page.goto(server_url + "/")
    shot(page, "home-1024x768", full_page=False)
    assert scroll_width(page) <= PROJECTOR["width"]
    assert page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)") >= 20


def test_the_lecture_lessons_are_one_click_each_and_accessible(browsing, page, server_url, shot):
    from accessibility import axe_violations
    from playwright.sync_api import expect

    page.goto(server_url + "/")
    lessons = page.locator(".seed-lessons:not(.textbook-lessons) .seed-lesson-list > li")
    expect(lessons).to_have_count(len(SEED_LESSONS))
    expect(page.locator(".textbook-lessons .seed-lesson-list > li a")).to_have_count(len(TEXTBOOK_LESSONS))
    expect(page.get_by_role("link", name="Match reviews without smoothing")).to_be_visible()
    # The lessons on the lectures' real corpora are not links until the instructor publishes them.
    expect(page.locator("#lesson-newsgroups-4 a")).to_have_count(0)
    expect(page.locator("#lesson-newsgroups-4")).to_contain_text("webnb corpora add 20news-bydate.tar.gz")
    assert axe_violations(page) == []
    assert scroll_width(page) <= PROJECTOR["width"]
    shot(page, "home-lessons-1024x768")
    assert browsing.errors == []


@pytest.mark.parametrize("presenter", ["0", "1"])
@pytest.mark.parametrize("lesson", [lesson for lesson in SEED_LESSONS if lesson.recipe is None], ids=lambda x: x.id)
def test_each_lesson_link_opens_its_example(browsing, page, server_url, shot, lesson, presenter):
    from accessibility import axe_violations
    from playwright.sync_api import expect

    page.goto(server_url + "/")
    link = page.locator(f"#lesson-{lesson.id} a")
    with page.expect_navigation():
        link.click()
    if presenter == "1":
        page.goto(page.url + "&presenter=1")
    review = dict(lesson.parameters).get("text")
    if presenter == "1":  # the slide: one line of context names the review instead of the form
        expect(page.locator("main")).to_contain_text(review or "Gaussian Naive Bayes")
    else:
        expect(page.locator("h1")).to_be_visible()
        if review is not None:
            expect(page.get_by_label("Review to classify")).to_have_value(review)
    assert scroll_width(page) <= PROJECTOR["width"]
    assert axe_violations(page) == []
    assert browsing.errors == []
    shot(page, f"lesson-{lesson.id}-presenter-{presenter}", full_page=False)
