"""Hosted mode in Chromium: two students in two browsers, each with their own workspace."""
from __future__ import annotations

import re

import pytest
from conftest import serving

from webnb import create_app

pytestmark = pytest.mark.browser


@pytest.fixture
def hosted_url(tmp_path):
    app = create_app({"WEBNB_MODE": "hosted", "SECRET_KEY": "k" * 48}, instance_path=str(tmp_path / "instance"))
    with serving(app) as url:
        yield url
    app.extensions["webnb"]["storage"].dispose()


def test_two_students_in_two_browsers(new_browsing, hosted_url):
    from playwright.sync_api import expect

    alice_browsing, bob_browsing = new_browsing(), new_browsing()
    alice = alice_browsing.new_page()
    alice.goto(hosted_url + "/corpora")
    cookies = {c["name"]: c for c in alice.context.cookies()}
    assert cookies["webnb"]["secure"] and cookies["webnb"]["httpOnly"] and cookies["webnb"]["sameSite"] == "Lax"
    alice.locator("#paste-name").fill("Alice's reviews")
    alice.locator("textarea[name=corpus]").fill("pos\tgreat match\nneg\tdull match\npos\tsharp keeper\nneg\tslow game")
    alice.locator("form[action$='/corpora/paste'] button[type=submit]").click()
    expect(alice.get_by_role("heading", level=1)).to_have_text("Alice's reviews")
    own = alice.url

    bob = bob_browsing.new_page()
    response = bob.goto(own)
    assert response.status == 404
    bob.goto(hosted_url + "/corpora")
    expect(bob.locator("body")).not_to_contain_text("Alice's reviews")

    # Alice shares it; Bob opens his own copy from the link.
    alice.get_by_role("button", name="Share a copy…").click()
    share_link = alice.locator("#share-link")
    expect(share_link).to_have_value(re.compile(r"^http"))
    bob.goto(share_link.input_value())
    bob.get_by_role("button", name="Open my copy").click()
    expect(bob.get_by_role("heading", level=1)).to_have_text("Alice's reviews")
    expect(bob).not_to_have_url(own)
    assert alice_browsing.errors == []
    # Bob's only error is Chromium's note (sometimes made twice) on the 404 of Alice's corpus.
    refused = f"{own}: Failed to load resource: the server responded with a status of 404 (NOT FOUND)"
    assert set(bob_browsing.errors) == {refused}
