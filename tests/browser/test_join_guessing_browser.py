"""A hall whose address a guesser spent still joins, in Chromium: the join page asks for a proof of work, the browser
finds it by itself (static/join.js, SHA-256 through WebCrypto) and sends the code (issue 35, finding 1)."""
from __future__ import annotations

import time

import pytest
from conftest import browser_from, serving

from webnb import create_app
from webnb.room import lecture as lectures
from webnb.room.joining import PROOF_ASKED, PROOF_BITS

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


@pytest.fixture
def spent_hall(tmp_path):
    """A hosted app whose only address (127.0.0.1: the browser's too) sent 60 wrong codes, and a running class."""
    app = create_app({"WEBNB_MODE": "hosted", "SECRET_KEY": "k" * 48}, instance_path=str(tmp_path / "instance"))
    lecture = lectures.start_class(app.extensions["webnb"]["storage"], "spam-ham")
    for _ in range(60):
        assert browser_from(app, "127.0.0.1").get("/join/3X9KQR").status_code == 404
    with serving(app) as url:
        yield url, lecture
    app.extensions["webnb"]["storage"].dispose()


def test_a_student_behind_a_spent_address_joins_by_the_qr_address_and_by_the_form(new_browsing, spent_hall, shot):
    from playwright.sync_api import expect

    url, lecture = spent_hall
    phone = new_browsing()
    page = phone.new_page()
    page.set_viewport_size(PHONE)
    asked = []
    page.on("response", lambda response: asked.append(response.status) if "/join" in response.url else None)
    started = time.perf_counter()
    page.goto(f"{url}/join/{lecture.code}")
    page.wait_for_url(f"{url}/corpora/spam-ham**")
    seconds = time.perf_counter() - started
    print(f"\nproof of {PROOF_BITS} bits found and the code sent in {seconds:.2f} s")  # a figure, never asserted
    assert asked[0] == 429 and 303 in asked
    expect(page.locator(".class-bar")).to_contain_text(f"Class {lecture.code}")

    # Typed into the form: the page asks for the work, keeps the code and sends it once the work is done.
    second = new_browsing().new_page()
    second.set_viewport_size(PHONE)
    second.goto(f"{url}/join")
    second.locator("#class-code").fill(lecture.code.lower())
    with second.expect_response(lambda response: "/join?code=" in response.url and response.status == 429) as asked:
        second.get_by_role("button", name="Join").click()
    assert PROOF_ASKED.replace("'", "&#39;") in asked.value.text()
    second.wait_for_url(f"{url}/corpora/spam-ham**")
    expect(second.locator(".class-bar")).to_contain_text(f"Class {lecture.code}")
    # No error on the join pages but the 429 that asks for the work, which the browser logs as a failed load.
    assert [e for e in phone.errors if "/join" in e and "status of 429" not in e] == [], phone.errors
