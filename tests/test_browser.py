"""The home page as a person sees it: headless Chromium at projector size, against a real local server.

The fixtures here are module- and session-scoped so that browser tests for other pages can copy them.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import serving
from webnb import create_app
from webnb.examples import EXAMPLES, load_example_corpus

pytestmark = pytest.mark.browser

PROJECTOR = {"width": 1024, "height": 768}
ARTIFACTS = Path(__file__).parent / "artifacts"


@pytest.fixture(scope="module")
def server_url(tmp_path_factory):
    app = create_app({"TESTING": True, "SECRET_KEY": "test"}, instance_path=str(tmp_path_factory.mktemp("instance")))
    with serving(app) as url:
        yield url


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport=PROJECTOR)
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture
def console_errors(page):
    """Console errors and uncaught exceptions, collected from before the page loads."""
    errors = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


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


def test_htmx_loads_without_console_errors(page, console_errors, server_url):
    page.goto(server_url + "/")
    assert page.evaluate("typeof htmx") == "object"
    assert console_errors == []


def test_home_fits_the_projector(page, server_url):
    page.goto(server_url + "/")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / "home-1024x768.png")
    assert page.evaluate("document.documentElement.scrollWidth") <= PROJECTOR["width"]
    assert page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)") >= 20
