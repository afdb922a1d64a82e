"""The scikit-learn parity badges in headless Chromium: they load by themselves, on any page that shows them."""
from __future__ import annotations

import pytest
from flask import render_template_string

from webnb.views.common import load_lesson

from .conftest import PROJECTOR, lazy_parts_loaded, scroll_width

pytestmark = pytest.mark.browser

BADGE_PAGE = """{% extends "base.html" %}{% from "parity/badge.html" import parity_badge %}
{% block content %}{{ parity_badge(lesson, "parameters") }}{{ parity_badge(lesson, "evaluation") }}{% endblock %}"""


@pytest.fixture(scope="module")
def served_app(served_app):
    """The app with a page that shows both badges (added before the server answers its first request)."""

    @served_app.get("/badge-test/<corpus_id>")
    def badge_test(corpus_id):
        return render_template_string(BADGE_PAGE, lesson=load_lesson(corpus_id))

    return served_app


def test_the_badge_appears_in_a_browser(browsing, page, server_url, shot):
    from playwright.sync_api import expect

    page.goto(f"{server_url}/badge-test/spam-ham?model=multinomial&alpha=1&test_size=0.5")
    expect(page.locator("#parity-parameters.parity-agrees")).to_be_visible()
    expect(page.locator("#parity-evaluation.parity-agrees")).to_be_visible()
    expect(page.locator("#parity-parameters .parity-headline")).to_contain_text("agrees")
    lazy_parts_loaded(page)
    assert scroll_width(page) <= PROJECTOR["width"]
    shot(page, "parity-badges", full_page=False)
    page.goto(f"{server_url}/corpora/match-reviews/parity?of=parameters&presenter=1")
    assert scroll_width(page) <= PROJECTOR["width"]
    assert browsing.errors == []
