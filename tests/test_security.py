"""Security headers on every kind of response, no inline code for the Content-Security-Policy to block, and
state changes from other sites refused even with a valid CSRF token. The pages under the policy in a real
browser are in tests/browser/test_security_browser.py."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from tests.conftest import paste
from webnb import create_app
from webnb.hosting.security import CONTENT_SECURITY_POLICY

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
    response = paste(client, PASTED, "Pasted here", form={"csrf_token": client.token}, headers=headers)
    assert response.status_code == 403
    text = BeautifulSoup(response.get_data(as_text=True), "html.parser").find(role="alert").get_text()
    assert reason in text and "Nothing was changed." in text
    assert stored(app) == []


def test_the_refusal_is_json_for_a_json_client(guarded):
    app, client = guarded
    by_query = paste(client, PASTED, "Pasted here", form={"csrf_token": client.token},
                     headers={"Origin": "https://evil.example"}, query_string={"format": "json"})
    by_accept = paste(client, PASTED, "Pasted here", form={"csrf_token": client.token},
                      headers={"Sec-Fetch-Site": "cross-site", "Accept": "application/json"})
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
    response = paste(client, PASTED, "Pasted here", form={"csrf_token": client.token}, headers=headers)
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


def test_behind_an_https_proxy_the_forwarded_origin_counts(tmp_path):
    """The proxy speaks http to webnb; the browser says Origin: https://…. WEBNB_PROXIES=1 reconciles them."""
    headers = {
        "Origin": "https://webnb.example", "Sec-Fetch-Site": "same-origin",
        "X-Forwarded-Proto": "https", "X-Forwarded-Host": "webnb.example", "X-Forwarded-For": "203.0.113.7",
    }
    form = {"corpus": PASTED, "name": "Through the proxy"}
    for proxies, status in ((0, 403), (1, 303)):
        app = create_app(
            {"TESTING": True, "WTF_CSRF_ENABLED": False, "WEBNB_PROXIES": proxies, "WEBNB_PROXY_HOST": True},
            instance_path=str(tmp_path / f"instance-{proxies}"),
        )
        response = app.test_client().post("/corpora/paste", data=form, headers=headers)
        assert response.status_code == status, proxies
        assert len(stored(app)) == (1 if status == 303 else 0)


def test_no_template_marks_text_safe_or_leaves_an_attribute_unquoted():
    """Autoescaping does the escaping, so nothing may switch it off, and every attribute value that holds an
    expression stands in quotes (an unquoted value ends at the first space a user types)."""
    from conftest import REPO_ROOT

    templates = sorted((REPO_ROOT / "templates").rglob("*.html")) + sorted((REPO_ROOT / "templates").rglob("*.svg"))
    assert len(templates) > 20
    found = []
    for path in templates:
        source = path.read_text(encoding="utf-8")
        for pattern in (r"\|\s*safe\b", r"autoescape\s+false", r"""(?<!;)\s[\w:-]+=\{[{%]"""):
            found += [(path.name, match.group(0)) for match in re.finditer(pattern, source)]
    # One exception: the handout writes each slide as the app drew it (webnb/views/handouts.py, lecture), HTML
    # that the slide's own templates autoescaped; it is marked safe once, there, and nowhere else.
    python = [p.relative_to(REPO_ROOT).as_posix() for p in (REPO_ROOT / "webnb").rglob("*.py")
              if "Markup(" in p.read_text(encoding="utf-8")]
    assert found == [] and python == ["webnb/views/handouts.py"]
    assert (REPO_ROOT / "webnb/views/handouts.py").read_text(encoding="utf-8").count("Markup(") == 1
