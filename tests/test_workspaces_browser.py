"""Hosted mode in Chromium: two students in two browsers, each with their own workspace."""
from __future__ import annotations

import pytest

from conftest import serving
from webnb import create_app

pytestmark = pytest.mark.browser

PROJECTOR = {"width": 1024, "height": 768}


def test_two_students_in_two_browsers(browser, tmp_path):
    from playwright.sync_api import expect

    app = create_app({"WEBNB_MODE": "hosted", "SECRET_KEY": "k" * 48}, instance_path=str(tmp_path / "instance"))
    with serving(app) as url:
        alice = browser.new_context(viewport=PROJECTOR).new_page()
        alice.goto(url + "/corpora")
        cookies = {c["name"]: c for c in alice.context.cookies()}
        assert cookies["webnb"]["secure"] and cookies["webnb"]["httpOnly"] and cookies["webnb"]["sameSite"] == "Lax"
        alice.locator("#paste-name").fill("Alice's reviews")
        alice.locator("textarea[name=corpus]").fill("pos\tgreat match\nneg\tdull match\npos\tsharp keeper\nneg\tslow game")
        alice.locator("form[action$='/corpora/paste'] button[type=submit]").click()
        expect(alice.get_by_role("heading", level=1)).to_have_text("Alice's reviews")
        own = alice.url

        bob = browser.new_context(viewport=PROJECTOR).new_page()
        response = bob.goto(own)
        assert response.status == 404
        bob.goto(url + "/corpora")
        expect(bob.locator("body")).not_to_contain_text("Alice's reviews")

        # Alice shares it; Bob opens his own copy from the link.
        alice.get_by_role("button", name="Share a copy…").click()
        link = alice.locator("#share-link").input_value()
        bob.goto(link)
        bob.get_by_role("button", name="Open my copy").click()
        expect(bob.get_by_role("heading", level=1)).to_have_text("Alice's reviews")
        assert bob.url != own
        alice.context.close()
        bob.context.close()
