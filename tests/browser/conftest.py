"""Fixtures of the browser tests: Debian's Chromium driven by Playwright, the app served over real HTTP, pages at
projector size that record console errors, and screenshots for a person to look at.

Screenshots go under pytest's temporary directory, never into the source tree; the end of the run names the folder
(pytest keeps only its last few temporary directories: ``--basetemp=DIR`` keeps them in DIR).
Waits are on what the page shows (`expect(...)`) or on the response an action asks for (`page.expect_response`),
never on a fixed time or on the network falling silent.

This folder is a package (``browser``) so that this file is ``browser.conftest``: the modules that do
``from conftest import ...`` keep getting tests/conftest.py, whichever folder pytest collects first.
"""
from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, quote, quote_plus, urlsplit

import pytest
from conftest import serving, skip_unless_ci

from webnb import create_app
from webnb.lesson.state import STEPS

PROJECTOR = {"width": 1024, "height": 768}

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium driven by Playwright; never `playwright install`. One per test run: Playwright's
    sync API allows only one instance at a time."""
    if not CHROMIUM.exists():
        skip_unless_ci(f"Chromium is not at {CHROMIUM}")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        skip_unless_ci("playwright is not installed")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


HERE = Path(__file__).parent


def pytest_itemcollected(item):
    """Every test in this folder drives Chromium, so every one is marked ``browser`` (out of the fast run) whether
    or not its module says so."""
    if HERE in Path(item.path).parents:
        item.add_marker(pytest.mark.browser)


# -- the app, served -------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def served_app(tmp_path_factory):
    """The app as it is served (CSRF on), one per test module, so that what one module stores stays there."""
    app = create_app({"TESTING": True, "SECRET_KEY": "test"}, instance_path=str(tmp_path_factory.mktemp("instance")))
    yield app
    app.extensions["webnb"]["jobs"].shutdown()
    app.extensions["webnb"]["storage"].dispose()


@pytest.fixture(scope="module")
def server_url(served_app):
    with serving(served_app) as url:
        yield url


# -- pages -----------------------------------------------------------------------------------------------------------


class Browsing:
    """A browser context at projector size that records console errors and uncaught exceptions of every page."""

    def __init__(self, browser, **options):
        self.context = browser.new_context(viewport=PROJECTOR, **options)
        self.errors: list[str] = []
        self.context.on("console", self._console)
        self.context.on("weberror", self._uncaught)

    def _console(self, message):
        if message.type == "error":
            self.errors.append(f"{message.page.url if message.page else ''}: {message.text}")

    def _uncaught(self, error):
        self.errors.append(f"{error.page.url if error.page else ''}: {error.error}")

    def new_page(self):
        return self.context.new_page()


@pytest.fixture
def new_browsing(browser):
    """Makes browsing contexts with Playwright's context options (``new_browsing(java_script_enabled=False)``),
    all closed after the test."""
    made: list[Browsing] = []

    def make(**options) -> Browsing:
        made.append(Browsing(browser, **options))
        return made[-1]

    yield make
    for browsing in made:
        browsing.context.close()


@pytest.fixture
def browsing(new_browsing):
    return new_browsing()


@pytest.fixture
def page(browsing):
    return browsing.new_page()


# -- screenshots -----------------------------------------------------------------------------------------------------

SCREENSHOTS = pytest.StashKey[Path]()


@pytest.fixture(scope="session")
def screenshots_dir(tmp_path_factory, pytestconfig) -> Path:
    """This run's screenshots, under pytest's temporary directory; the terminal summary names it."""
    directory = tmp_path_factory.mktemp("screenshots", numbered=False)
    pytestconfig.stash[SCREENSHOTS] = directory
    return directory


def pytest_terminal_summary(terminalreporter, config):
    directory = config.stash.get(SCREENSHOTS, None)
    if directory is not None:
        terminalreporter.write_line(f"Screenshots of the browser tests: {directory}")


@pytest.fixture
def shot(screenshots_dir):
    """``shot(page, name)`` saves the page as ``name.png`` (the whole page unless ``full_page=False``)."""

    def take(page, name: str, full_page: bool = True) -> Path:
        path = screenshots_dir / f"{name}.png"
        page.screenshot(path=path, full_page=full_page)
        return path

    return take


# -- waiting on the page ---------------------------------------------------------------------------------------------


def htmx_settled(page) -> None:
    """Wait until htmx has no request in flight and nothing left to swap or settle, so that the next keystroke
    lands on the element that stays (a fill right after a response can hit the element being replaced)."""
    page.wait_for_function(
        "() => !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling, .htmx-added')"
    )


# Placeholders that htmx replaces once the page has loaded: the α sweep, the scikit-learn badges (which ask
# again, with "load delay:1s", while the corpus is being counted).
LAZY_PARTS = '[hx-trigger^="load"]'


def lazy_parts_loaded(page, timeout: float = 30_000) -> None:
    """Wait until every part the page loads by itself after it opens has arrived and been swapped in."""
    from playwright.sync_api import expect

    expect(page.locator(LAZY_PARTS)).to_have_count(0, timeout=timeout)
    htmx_settled(page)


def query_of(url: str) -> dict[str, str]:
    """The query of a URL, the last value of each name."""
    return {name: values[-1] for name, values in parse_qs(urlsplit(url).query, keep_blank_values=True).items()}


# Links leave out the settings that have their default value; forms send them all.
UNSAID = {"step": STEPS[0], "presenter": "0"}


def response_to(path: str, **params):
    """A predicate for `page.expect_response`: a GET of `path` whose query has these values (``**{"class": ...}``
    for names that are Python keywords)."""

    def matches(response) -> bool:
        query = query_of(response.url)
        return urlsplit(response.url).path == path and all(
            query.get(name, UNSAID.get(name)) == value for name, value in params.items()
        )

    return matches


def url_with(**params) -> re.Pattern:
    """A pattern for `expect(page).to_have_url`: a URL whose query has these values (spaces as + or as %20)."""

    def either(value: str) -> str:
        return "|".join(re.escape(encoded) for encoded in sorted({quote_plus(value), quote(value)}))

    # One lookahead per name, so that the order of the query does not matter.
    return re.compile("".join(
        rf"(?=.*[?&]{re.escape(name)}=(?:{either(value)})(?:&|#|$))" for name, value in params.items()
    ))


def scroll_width(page) -> int:
    return page.evaluate("document.documentElement.scrollWidth")


# -- a class in the room -----------------------------------------------------------------------------------------------


def start_class(page, server_url: str, corpus: str = "match-reviews") -> str:
    """Start a class on ``corpus`` from the home page's form, which makes ``page``'s browser its lecturer; its code."""
    page.goto(server_url + "/")
    page.select_option("#class-corpus", corpus)
    page.click("#start-class")
    return page.locator("#class-code").inner_text()
