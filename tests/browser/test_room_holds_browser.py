"""Only the lecturer's own clicks move the class, in Chromium (issue 35, finding 4): a link on another site opens the
lesson page for the lecturer alone, with "Show this to the class"; pressing it moves the class, and the student's
page follows. Screenshots: the offer on the projector (1024 × 768, presenter mode) and on a phone."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import start_class

pytestmark = pytest.mark.browser

SLIDE = "/corpora/match-reviews/inference?text=brilliant+match&model=multinomial&alpha=1&presenter=1"
LURE = ("/corpora/match-reviews/inference?model=multinomial&alpha=1&presenter=1&step=decision"
        "&text=a+text+the+lecturer+never+typed")
LURE_SITE = "http://lure.example/"


def test_a_link_from_another_site_moves_nothing_until_the_lecturer_shows_it(browsing, new_browsing, server_url,
                                                                            served_app, shot):
    lecturer = browsing.new_page()
    code = start_class(lecturer, server_url)
    lecturer.goto(server_url + SLIDE)
    storage = served_app.extensions["webnb"]["storage"]
    state = storage.get_class(code).state

    student_browsing = new_browsing()
    student = student_browsing.new_page()
    student.goto(f"{server_url}/join/{code}")
    expect(student.locator(".class-bar")).to_contain_text("following the lecturer")
    followed = student.url

    # Another site's page, with a link into the lesson.
    lecturer.route(LURE_SITE, lambda route: route.fulfill(
        content_type="text/html", body=f'<a id="lure" href="{server_url}{LURE}">a slide</a>'))
    lecturer.goto(LURE_SITE)
    with lecturer.expect_navigation():
        lecturer.click("#lure")
    offer = lecturer.locator("form.show-to-class")
    expect(offer.locator("#show-to-class")).to_be_visible()
    assert storage.get_class(code).state == state  # the class stayed where it was
    shot(lecturer, "show-to-class-projector", full_page=False)
    lecturer.set_viewport_size({"width": 390, "height": 844})
    shot(lecturer, "show-to-class-phone", full_page=False)
    lecturer.set_viewport_size({"width": 1024, "height": 768})
    assert student.url == followed

    with lecturer.expect_navigation():
        offer.locator("#show-to-class").click()
    expect(lecturer.locator("form.show-to-class")).to_have_count(0)
    assert "never+typed" in storage.get_class(code).state
    student.wait_for_url(lambda url: "never+typed" in url)
    assert browsing.errors == []
