"""What the browser tests of the lesson's pages share beyond conftest: a page checked together with its slide, and a
form sent without JavaScript. A helper module, not a test module: pytest does not rewrite its asserts, so each one
says what it found."""
from __future__ import annotations

from accessibility import axe_violations
from playwright.sync_api import expect

from .conftest import PROJECTOR, lazy_parts_loaded, scroll_width, url_with


def check_page_and_its_slide(page, server_url: str, url: str) -> None:
    """Open ``url``, then the same with ``presenter=1``: each, once its lazy parts are in (the scikit-learn badge),
    has no axe violation and is no wider than the projector."""
    for address in (url, url + ("&" if "?" in url else "?") + "presenter=1"):
        page.goto(server_url + address)
        lazy_parts_loaded(page)
        violations = axe_violations(page)
        assert violations == [], f"{address}: {violations}"
        width = scroll_width(page)
        assert width <= PROJECTOR["width"], f"{address}: {width} px wide"


def submit_without_javascript(page, url: str, field, typed: str, button: str, **sent) -> None:
    """On a page of a context without JavaScript: open ``url``, fill ``field`` (a selector or a locator) with
    ``typed`` and press ``button``. The plain form submit leads to an address whose query holds ``sent`` (a
    parameter may be called ``value``: the form's own name for a typed number)."""
    page.goto(url)
    (page.locator(field) if isinstance(field, str) else field).fill(typed)
    page.locator(button).click()
    expect(page).to_have_url(url_with(**sent))
