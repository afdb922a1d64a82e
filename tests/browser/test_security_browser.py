"""The Content-Security-Policy in a real browser: no violation on any page, with every page's headers checked
(the policy itself, and the templates' lack of inline code, are tested in tests/test_security.py)."""
from __future__ import annotations

import re
import threading

import pytest

from webnb.views.common import start_job

from .conftest import htmx_settled, lazy_parts_loaded

pytestmark = pytest.mark.browser

# Playwright's init scripts are not subject to the page's policy; this one makes every violation a console error.
REPORT_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (event) => {
  window.cspViolations = (window.cspViolations || 0) + 1;  // lets a test wait for them, with no fixed delay
  console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI || "inline code"}`
    + ` (${event.sourceFile}:${event.lineNumber})`);
}, true);
"""


class Watching:
    """A browsing context (CSP enforced) whose console errors include every CSP violation, and which notes every
    response that came without the policy."""

    def __init__(self, browsing):
        browsing.context.add_init_script(REPORT_VIOLATIONS)
        browsing.context.on("response", self._response)
        self.errors = browsing.errors
        self.unprotected: list[str] = []
        self.page = browsing.new_page()

    def _response(self, response):
        if "content-security-policy" not in response.headers:
            self.unprotected.append(f"{response.status} {response.url}")


@pytest.fixture
def watching(browsing):
    return Watching(browsing)


def test_the_watch_sees_violations(watching, server_url):
    """The check below would notice inline code: here some is injected on purpose."""
    page = watching.page
    page.goto(server_url + "/corpora")
    page.evaluate("document.head.insertAdjacentHTML('beforeend', '<style>body { color: red }</style>')")
    page.evaluate("document.body.insertAdjacentHTML('beforeend', '<p style=\"color: red\">x</p>')")
    page.evaluate("""() => { const script = document.createElement('script');
                             script.textContent = 'window.ran = true'; document.body.append(script); }""")
    page.wait_for_function("() => document.querySelector('p[style]') !== null")
    assert page.evaluate("window.ran === undefined")
    # Violation events are dispatched asynchronously: wait until the page has reported all three (their console
    # messages reach Python before the answer to this wait, in order).
    page.wait_for_function("() => (window.cspViolations || 0) >= 3")
    violations = [error for error in watching.errors if "CSP violation" in error]
    assert len(violations) >= 3, watching.errors
    assert any("style-src" in error for error in violations) and any("script-src" in error for error in violations)


def test_every_page_works_under_the_policy(watching, served_app, server_url):
    from playwright.sync_api import expect

    page = watching.page

    def visit(path: str):
        response = page.goto(server_url + path)
        assert response.status == 200, path
        lazy_parts_loaded(page)  # the α sweep, the parity badges

    visit("/")
    visit("/corpora")

    # A pasted corpus: a real browser POST (Origin and Sec-Fetch-Site sent by Chromium) with the CSRF token.
    page.locator("#paste-name").fill("Pasted in the browser")
    page.locator("#paste-corpus").fill("positive,keeper was sharp\nnegative,match was dull\npositive,sharp save")
    page.get_by_role("button", name="Add corpus").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Pasted in the browser")

    # An upload: htmx posts the file to be inspected, then the form posts it.
    visit("/corpora")
    table = "label,text\n" + "positive,keeper was sharp and composed\nnegative,match was not sharp\n" * 10
    with page.expect_response(lambda response: response.url.endswith("/corpora/upload/inspect")) as inspected:
        page.locator("#upload-file").set_input_files(
            {"name": "reviews.csv", "mimeType": "text/csv", "buffer": table.encode()}
        )
    assert inspected.value.status == 200
    expect(page.locator("#text-column")).to_have_value("text")
    page.locator("#upload-name").fill("Uploaded in the browser")
    page.get_by_role("button", name="Upload").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Uploaded in the browser")
    names = sorted(summary.name for summary in served_app.extensions["webnb"]["storage"].list_corpora())
    assert names == ["Pasted in the browser", "Uploaded in the browser"]

    corpus = "/corpora/match-reviews"
    visit(corpus)
    visit(corpus + "/matrix")
    visit(corpus + "/parameters?alpha=1")
    # A style="" left on a field (by a browser extension, or by Playwright's fill) must not be carried over
    # to the field's new version by htmx, which would set it as an attribute, an inline style the policy blocks.
    page.evaluate("() => { const field = document.querySelector('#model-alpha'); field.style.color = 'red';"
                  " field.style.color = ''; }")
    assert page.locator("#model-alpha").get_attribute("style") == ""
    with page.expect_response(lambda response: "alpha=0" in response.url):
        page.locator("#model-alpha").fill("0")
    htmx_settled(page)

    visit(corpus + "/inference?text=not+sharp+match")
    for _ in range(3):  # steps through the keyboard shortcuts, each an htmx swap
        with page.expect_response(lambda response: "/inference?" in response.url):
            page.keyboard.press("ArrowRight")
        htmx_settled(page)
    with page.expect_response(lambda response: "keeper" in response.url):
        page.locator("#review").fill("sharp keeper")
    htmx_settled(page)
    visit("/corpora/china-japan/inference?step=logspace")

    visit("/corpora/spam-ham/evaluation")
    expect(page.locator("#sweep svg")).to_be_visible()
    expect(page.locator(".parity-pending")).to_have_count(0)
    visit("/corpora/spam-ham/evaluation/sweep")
    visit("/corpora/spam-ham/compare")
    visit("/corpora/spam-ham/words?model=multinomial")
    visit("/corpora/spam-ham/confidence")
    visit("/corpora/spam-ham/sample")
    visit("/corpora/match-reviews/parity?of=parameters")

    # Adding a document, then keeping the copy: another same-origin POST.
    visit(corpus + "/add?label=negative&document=not+sharp")
    page.get_by_role("button", name="Keep it: save a copy of the corpus with this document").click()
    expect(page).to_have_url(re.compile(r"/corpora/[^/]+/parameters"))

    # A job's progress page, polling until the work is done, then following on to the result. The job ends
    # right after a poll, not during one: jobs.show reads job.state twice and can answer 400 in between.
    release = threading.Event()
    with served_app.test_request_context():
        job = start_job("Waiting on purpose", lambda job: release.wait(10) and "/corpora/spam-ham")
    visit(f"/jobs/{job.id}")
    with page.expect_response(lambda response: f"/jobs/{job.id}" in response.url):
        pass  # at least one poll under the policy
    release.set()
    expect(page).to_have_url(server_url + "/corpora/spam-ham", timeout=5000)
    assert (job.state, job.error) == ("done", None)

    assert watching.errors == []
    assert watching.unprotected == []
