"""Security headers on every kind of response, no inline code for the Content-Security-Policy to block, and
state changes from other sites refused even with a valid CSRF token."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from webnb import create_app
from webnb.security import CONTENT_SECURITY_POLICY

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"
PASTED = "positive,keeper was sharp\nnegative,match was dull"


def directives(policy: str) -> dict[str, list[str]]:
    parsed = {}
    for part in policy.split(";"):
        name, *values = part.split()
        parsed[name] = values
    return parsed


def assert_secure_headers(response, what: str) -> None:
    policy = directives(response.headers.get("Content-Security-Policy", ""))
    for name in ("default-src", "form-action"):
        assert policy.get(name) == ["'self'"], (what, name)
    assert policy.get("object-src") == ["'none'"], what
    assert policy.get("base-uri") == ["'none'"], what
    assert policy.get("frame-ancestors") == ["'none'"], what
    assert not any("unsafe" in value for values in policy.values() for value in values), what
    # Nothing may widen scripts or styles beyond the default 'self'.
    assert "script-src" not in policy and "style-src" not in policy, what
    assert response.headers.get("X-Content-Type-Options") == "nosniff", what
    assert response.headers.get("Referrer-Policy") == "same-origin", what


# -- headers ------------------------------------------------------------------------------------------


def test_the_policy_is_the_documented_one():
    assert directives(CONTENT_SECURITY_POLICY) == {
        "default-src": ["'self'"],
        "img-src": ["'self'", "data:"],  # the favicon is data:, (base.html)
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "frame-ancestors": ["'none'"],
        "form-action": ["'self'"],
    }


@pytest.mark.parametrize("url, status, kind", [
    ("/", 200, "text/html"),
    ("/corpora", 200, "text/html"),
    ("/corpora/match-reviews/inference?text=not+sharp&step=factors", 200, "text/html"),
    ("/corpora/match-reviews/parameters?format=json", 200, "application/json"),
    ("/corpora/spam-ham/evaluation/sweep", 200, "text/html"),
    ("/static/webnb.css", 200, "text/css"),
    ("/static/webnb.js", 200, "text/javascript"),
    ("/static/vendor/htmx.min.js", 200, "text/javascript"),
    ("/corpora/match-reviews/export/parameters.csv", 200, "text/csv"),
    ("/corpora/match-reviews/export/notebook.ipynb", 200, None),
    ("/corpora/no-such-corpus", 404, "text/html"),
    ("/no/such/page", 404, "text/html"),
    ("/jobs/no-such-job", 404, None),
    ("/corpora/match-reviews/export/evaluation.csv?test=nonsense", None, None),
    ("/corpora/match-reviews/inference?text=" + "a" * 70_000, 413, "text/html"),
])
def test_every_response_carries_the_headers(client, url, status, kind):
    with client.get(url) as response:  # closed, as static files are streamed from an open file
        if status is not None:
            assert response.status_code == status, url
        if kind is not None:
            assert response.mimetype == kind, url
        assert_secure_headers(response, url)


def test_fragments_redirects_refusals_and_errors_carry_the_headers(tmp_path):
    app = create_app(
        {"TESTING": True, "WTF_CSRF_ENABLED": False, "PROPAGATE_EXCEPTIONS": False},
        instance_path=str(tmp_path / "instance"),
    )

    @app.get("/broken-on-purpose")
    def broken():
        raise RuntimeError("a bug")

    client = app.test_client()
    fragment = client.get("/corpora/match-reviews/parameters", headers={"HX-Request": "true"})
    assert fragment.status_code == 200 and "<html" not in fragment.get_data(as_text=True)
    assert_secure_headers(fragment, "htmx fragment")
    stored = client.post("/corpora/paste", data={"corpus": PASTED, "name": "Mine"})
    assert stored.status_code == 303
    assert_secure_headers(stored, "redirect after a POST")
    refused = client.post("/corpora/paste", data={"corpus": PASTED}, headers={"Sec-Fetch-Site": "cross-site"})
    assert refused.status_code == 403
    assert_secure_headers(refused, "403")
    missing_file = client.post("/corpora/upload", data={})
    assert missing_file.status_code == 400
    assert_secure_headers(missing_file, "400")
    server_error = client.get("/broken-on-purpose")
    assert server_error.status_code == 500
    assert_secure_headers(server_error, "500")


# -- nothing inline for the policy to block -----------------------------------------------------------

JINJA_COMMENT = re.compile(r"\{#.*?#\}", re.S)
INLINE_IN_SOURCE = [
    re.compile(r"\sstyle\s*=", re.I),  # style attributes
    re.compile(r"<style", re.I),  # style elements
    re.compile(r"<script(?![^>]*\ssrc=)[^>]*>", re.I),  # scripts without src
    re.compile(r"\son[a-z]+\s*=", re.I),  # event handler attributes
    re.compile(r"javascript:", re.I),
    re.compile(r"hx-on", re.I),  # htmx handlers are eval'd code, refused with allowEval false anyway
    re.compile(r"""hx-vals\s*=\s*["']\s*(js|javascript):""", re.I),
]


def test_no_template_has_inline_code_or_styles():
    found = []
    for template in sorted(TEMPLATES.rglob("*.html")):
        # Jinja comments may talk about <style>; blanked out, keeping the line numbers.
        text = JINJA_COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), template.read_text(encoding="utf-8"))
        for pattern in INLINE_IN_SOURCE:
            for match in pattern.finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                found.append(f"{template.relative_to(TEMPLATES)}:{line}: {match.group(0).strip()}")
    assert found == []


RENDERED_PAGES = [
    "/",
    "/corpora",
    "/corpora/match-reviews",
    "/corpora/match-reviews/matrix",
    "/corpora/match-reviews/parameters?alpha=0",
    "/corpora/match-reviews/inference?text=not+sharp+match&step=factors",
    "/corpora/china-japan/inference?step=logspace",
    "/corpora/china-japan/inference?step=contributions",
    "/corpora/spam-ham/evaluation",
    "/corpora/spam-ham/evaluation/sweep",
    "/corpora/spam-ham/compare",
    "/corpora/spam-ham/words?model=multinomial",
    "/corpora/spam-ham/confidence",
    "/corpora/spam-ham/sample",
    "/corpora/match-reviews/add?label=negative&document=not+sharp",
    "/corpora/match-reviews/parity?of=parameters",
    "/corpora/spam-ham/parity?of=evaluation",
]


@pytest.mark.parametrize("url", RENDERED_PAGES)
def test_rendered_pages_have_no_inline_code_or_styles(client, url):
    """The templates' output, which includes what macros and filters (charts, formulas) generate."""
    response = client.get(url)
    assert response.status_code == 200, url
    soup = BeautifulSoup(response.get_data(as_text=True), "html.parser")
    assert soup.find("style") is None
    for script in soup.find_all("script"):
        assert script.get("src", "").startswith("/static/"), script
    for element in soup.find_all(True):
        attributes = {name.lower() for name in element.attrs}
        assert "style" not in attributes, element.name
        assert not {name for name in attributes if name.startswith("on")}, element.name
        assert not {name for name in attributes if name.startswith("hx-on")}, element.name
        for name in ("href", "src", "action", "formaction", "hx-get", "hx-post"):
            assert not str(element.get(name, "")).strip().lower().startswith("javascript:"), element


def test_htmx_is_configured_for_the_policy(client):
    soup = BeautifulSoup(client.get("/").get_data(as_text=True), "html.parser")
    config = json.loads(soup.find("meta", attrs={"name": "htmx-config"})["content"])
    assert config == {
        "allowScriptTags": False,
        "allowEval": False,
        "selfRequestsOnly": True,
        "historyCacheSize": 0,
        "includeIndicatorStyles": False,  # else htmx adds an inline <style> that the policy blocks
        "attributesToSettle": ["class", "width", "height"],  # not "style": htmx would set style attributes
    }


# -- cross-site state changes -------------------------------------------------------------------------


@pytest.fixture
def guarded(tmp_path):
    """An app with CSRF on, as served, and a client that holds a valid token."""
    app = create_app({"TESTING": True, "SECRET_KEY": "test"}, instance_path=str(tmp_path / "instance"))
    client = app.test_client()
    page = BeautifulSoup(client.get("/corpora").get_data(as_text=True), "html.parser")
    client.token = page.find("input", attrs={"name": "csrf_token"})["value"]
    return app, client


def stored(app) -> list[str]:
    return [summary.name for summary in app.extensions["webnb"]["storage"].list_corpora()]


def paste(client, headers=None, query=""):
    form = {"csrf_token": client.token, "corpus": PASTED, "name": "Pasted here"}
    return client.post(f"/corpora/paste{query}", data=form, headers=headers or {})


@pytest.mark.parametrize("headers, reason", [
    ({"Sec-Fetch-Site": "cross-site"}, "another site (Sec-Fetch-Site: cross-site)"),
    ({"Sec-Fetch-Site": "same-site"}, "another site (Sec-Fetch-Site: same-site)"),
    ({"Origin": "https://evil.example"}, "it came from https://evil.example, not from http://localhost"),
    ({"Origin": "null"}, "it came from null"),
    ({"Origin": "https://localhost"}, "it came from https://localhost"),  # another scheme is another origin
    ({"Sec-Fetch-Site": "same-origin", "Origin": "https://evil.example"}, "it came from https://evil.example"),
    ({"Sec-Fetch-Site": "cross-site", "Origin": "http://localhost"}, "Sec-Fetch-Site: cross-site"),
])
def test_a_post_from_another_site_is_refused_despite_a_valid_token(guarded, headers, reason):
    app, client = guarded
    response = paste(client, headers)
    assert response.status_code == 403
    text = BeautifulSoup(response.get_data(as_text=True), "html.parser").find(role="alert").get_text()
    assert reason in text and "Nothing was changed." in text
    assert stored(app) == []


def test_the_refusal_is_json_for_a_json_client(guarded):
    app, client = guarded
    by_query = paste(client, {"Origin": "https://evil.example"}, query="?format=json")
    by_accept = paste(client, {"Sec-Fetch-Site": "cross-site", "Accept": "application/json"})
    for response in (by_query, by_accept):
        assert response.status_code == 403 and response.is_json
        assert "another site" in response.json["error"] or "evil.example" in response.json["error"]
    assert stored(app) == []


@pytest.mark.parametrize("headers", [
    {},  # an old browser, or curl: the CSRF token alone decides
    {"Sec-Fetch-Site": "same-origin", "Origin": "http://localhost"},
    {"Sec-Fetch-Site": "none"},  # the user's own action, not a site's
    {"Origin": "http://LOCALHOST"},
])
def test_a_post_from_this_site_works(guarded, headers):
    app, client = guarded
    response = paste(client, headers)
    assert response.status_code == 303 and response.location.startswith("/corpora/")
    assert stored(app) == ["Pasted here"]


def test_a_post_without_the_token_is_still_refused(guarded):
    app, client = guarded
    response = client.post("/corpora/paste", data={"corpus": PASTED}, headers={"Sec-Fetch-Site": "same-origin"})
    assert response.status_code == 400
    assert stored(app) == []


def test_keeping_an_added_document_from_another_site_is_refused(guarded):
    app, client = guarded
    form = {"csrf_token": client.token, "label": "negative", "document": "not sharp"}
    url = "/corpora/match-reviews/add/keep"
    assert client.post(url, data=form, headers={"Sec-Fetch-Site": "cross-site"}).status_code == 403
    assert stored(app) == []
    kept = client.post(url, data=form, headers={"Sec-Fetch-Site": "same-origin"})
    assert kept.status_code == 303
    assert stored(app) == ["Match reviews + 1 document"]


def test_reads_from_other_sites_still_work(client):
    """A link to a lesson page from a course site, or the course site's own page, must still open."""
    response = client.get("/corpora/match-reviews/parameters", headers={
        "Sec-Fetch-Site": "cross-site", "Origin": "https://course.example",
    })
    assert response.status_code == 200


# -- in a real browser: no violation anywhere ---------------------------------------------------------

PROJECTOR = {"width": 1024, "height": 768}
# Playwright's init scripts are not subject to the page's policy; this one makes every violation a console error.
REPORT_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (event) => {
  window.cspViolations = (window.cspViolations || 0) + 1;  // lets a test wait for them, with no fixed delay
  console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI || "inline code"}`
    + ` (${event.sourceFile}:${event.lineNumber})`);
}, true);
"""


class Watching:
    """A browser context (CSP enforced) that collects console errors, CSP violations and uncaught exceptions,
    and the security headers of every page it opens."""

    def __init__(self, browser):
        self.context = browser.new_context(viewport=PROJECTOR)
        self.context.add_init_script(REPORT_VIOLATIONS)
        self.errors: list[str] = []
        self.unprotected: list[str] = []
        self.context.on("console", self._console)
        self.context.on("weberror", lambda error: self.errors.append(f"uncaught: {error.error}"))
        self.context.on("response", self._response)
        self.page = self.context.new_page()

    def _console(self, message):
        if message.type == "error":
            self.errors.append(f"{message.page.url if message.page else ''}: {message.text}")

    def _response(self, response):
        if "content-security-policy" not in response.headers:
            self.unprotected.append(f"{response.status} {response.url}")


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """The app as served, CSRF on."""
    app = create_app({"TESTING": True, "SECRET_KEY": "test"}, instance_path=str(tmp_path_factory.mktemp("instance")))
    from conftest import serving

    with serving(app) as url:
        yield app, url


@pytest.fixture
def watching(browser):
    watching = Watching(browser)
    yield watching
    watching.context.close()


@pytest.mark.browser
def test_the_watch_sees_violations(watching, served):
    """The check below would notice inline code: here some is injected on purpose."""
    _, url = served
    page = watching.page
    page.goto(url + "/corpora")
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


@pytest.mark.browser
def test_every_page_works_under_the_policy(watching, served):
    from playwright.sync_api import expect

    from conftest import htmx_settled

    app, url = served
    page = watching.page

    def visit(path: str):
        response = page.goto(url + path)
        assert response.status == 200, path
        page.wait_for_load_state("networkidle")  # lazily loaded parts: the α sweep, the parity badges
        htmx_settled(page)

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
    names = sorted(summary.name for summary in app.extensions["webnb"]["storage"].list_corpora())
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
    import threading

    from webnb.views.common import start_job

    release = threading.Event()
    with app.test_request_context():
        job = start_job("Waiting on purpose", lambda job: release.wait(10) and "/corpora/spam-ham")
    visit(f"/jobs/{job.id}")
    with page.expect_response(lambda response: f"/jobs/{job.id}" in response.url):
        pass  # at least one poll under the policy
    release.set()
    expect(page).to_have_url(url + "/corpora/spam-ham", timeout=5000)
    assert (job.state, job.error) == ("done", None)

    assert watching.errors == []
    assert watching.unprotected == []


def test_behind_an_https_proxy_the_forwarded_origin_counts(tmp_path):
    """The proxy speaks http to webnb; the browser says Origin: https://…. WEBNB_PROXIES=1 reconciles them."""
    headers = {
        "Origin": "https://webnb.example", "Sec-Fetch-Site": "same-origin",
        "X-Forwarded-Proto": "https", "X-Forwarded-Host": "webnb.example", "X-Forwarded-For": "203.0.113.7",
    }
    form = {"corpus": PASTED, "name": "Through the proxy"}
    for proxies, status in ((0, 403), (1, 303)):
        app = create_app(
            {"TESTING": True, "WTF_CSRF_ENABLED": False, "WEBNB_PROXIES": proxies},
            instance_path=str(tmp_path / f"instance-{proxies}"),
        )
        response = app.test_client().post("/corpora/paste", data=form, headers=headers)
        assert response.status_code == status, proxies
        assert len(stored(app)) == (1 if status == 303 else 0)


def test_no_template_marks_text_safe_or_leaves_an_attribute_unquoted():
    """Autoescaping does the escaping, so nothing may switch it off, and every attribute value that holds an
    expression stands in quotes (an unquoted value ends at the first space a user types)."""
    from conftest import REPO_ROOT

    templates = sorted((REPO_ROOT / "templates").rglob("*.html"))
    assert len(templates) > 20
    found = []
    for path in templates:
        source = path.read_text(encoding="utf-8")
        for pattern in (r"\|\s*safe\b", r"autoescape\s+false", r"""(?<!;)\s[\w:-]+=\{[{%]"""):
            found += [(path.name, match.group(0)) for match in re.finditer(pattern, source)]
    python = [p for p in (REPO_ROOT / "webnb").rglob("*.py") if "Markup(" in p.read_text(encoding="utf-8")]
    assert found == [] and python == []
