"""Keyboard shortcuts (static/webnb.js) in headless Chromium, on a throwaway page rather than the real lesson.

The page is served by a tiny Flask app made here, with the repository's real static folder and the header
`Content-Security-Policy: script-src 'self'`, so the script is shown to work without inline code. Marker
listeners added by Playwright (outside the page's CSP) record every click on a shortcut's target and every
keyup: once the keyup of a key has been seen, its keydown has been handled, so "nothing was clicked" is
known without waiting for a navigation that should not come.
"""
from __future__ import annotations

import re

import pytest
from accessibility import axe_violations
from conftest import REPO_ROOT, serving
from flask import Flask, render_template_string, request

pytestmark = pytest.mark.browser

CSP = "script-src 'self'"
LAST = 5

STEPS = """\
<nav aria-label="Steps">
  <a data-step="first" href="/?step=1">First</a>
  <a data-step="prev" href="/?step={{ step - 1 }}"{% if step <= 1 %} aria-disabled="true"{% endif %}>Previous</a>
  <span>Step {{ step }} of {{ last }}</span>
  <a data-step="next" href="/?step={{ step + 1 }}"{% if step >= last %} aria-disabled="true"{% endif %}>Next</a>
  <a data-step="last" href="/?step={{ last }}">Last</a>
</nav>
"""

PAGE = """\
<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Step {{ step }} of {{ last }}</title>
  <link rel="icon" href="data:,">
  <script src="/static/vendor/htmx.min.js" defer></script>
  <script src="/static/webnb.js" defer></script>
</head>
<body>
<main>
  <h1>Step {{ step }}</h1>
  <div id="steps">{{ steps|safe }}</div>
  <p><a data-presenter-toggle href="/?step={{ step }}&amp;presenter={{ 0 if presenter else 1 }}">Presenter mode</a></p>
  <p><button type="button" hx-get="/steps?step=4" hx-target="#steps">Go to step 4 without reloading</button></p>
  <form>
    <p><label for="review">Review</label> <textarea id="review" name="review"></textarea></p>
    <p><label for="word">Word</label> <input id="word" name="word" type="text"></p>
    <p><label for="model">Model</label>
       <select id="model" name="model"><option>multinomial</option><option>bernoulli</option></select></p>
    <p><label for="alpha">Smoothing α</label>
       <input id="alpha" name="alpha" type="range" min="0" max="2" step="0.5"></p>
    <div id="notes" contenteditable="true" role="textbox" aria-label="Notes"></div>
    {% if broken %}<input type="text" name="unlabelled">{% endif %}
  </form>
</main>
</body>
</html>
"""

# Run before the page's own scripts, and not subject to its CSP.
MARKERS = """
window.__clicked = [];
window.__keyups = [];
document.addEventListener("click", (event) => {
  const target = event.target.closest("[data-step], [data-presenter-toggle]");
  if (target) window.__clicked.push(target.dataset.step ?? "presenter");
}, true);
window.addEventListener("keyup", (event) => window.__keyups.push(event.key));
"""


def lesson_app() -> Flask:
    app = Flask(__name__, static_folder=str(REPO_ROOT / "static"))

    def steps() -> str:
        return render_template_string(STEPS, step=request.args.get("step", 2, type=int), last=LAST)

    @app.get("/")
    def lesson():
        html = render_template_string(
            PAGE, step=request.args.get("step", 2, type=int), last=LAST, steps=steps(),
            presenter=request.args.get("presenter") == "1", broken="broken" in request.args,
        )
        return html, {"Content-Security-Policy": CSP}

    @app.get("/steps")
    def steps_fragment():
        return steps(), {"Content-Security-Policy": CSP}

    return app


@pytest.fixture(scope="module")
def server_url():
    """The throwaway lesson page rather than the app."""
    with serving(lesson_app()) as url:
        yield url


@pytest.fixture
def page(browsing):
    """A page with the markers; `browsing.errors` holds its console errors (a CSP violation is one)."""
    browsing.context.add_init_script(MARKERS)
    return browsing.new_page()


def step_url(server_url: str, step: int, presenter: bool = False) -> re.Pattern:
    return re.compile(re.escape(f"{server_url}/?step={step}" + ("&presenter=1" if presenter else "")) + "$")


def assert_nothing_followed(page, key: str) -> None:
    """`key` reached the page (its keyup was seen, so its keydown was handled) and no shortcut target was clicked."""
    url = page.url
    page.keyboard.press(key)
    assert key.split("+")[-1] in page.evaluate("window.__keyups")
    assert page.evaluate("window.__clicked") == []
    assert page.url == url


@pytest.mark.parametrize(
    ("key", "step"),
    [("ArrowRight", 3), ("ArrowLeft", 1), ("Home", 1), ("End", LAST)],
)
def test_key_follows_its_step_link(page, server_url, key, step):
    from playwright.sync_api import expect

    page.goto(server_url + "/?step=2")
    page.keyboard.press(key)
    expect(page).to_have_url(step_url(server_url, step))
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Step {step}")


def test_p_follows_the_presenter_link(page, server_url):
    from playwright.sync_api import expect

    page.goto(server_url + "/?step=2")
    page.keyboard.press("p")
    expect(page).to_have_url(step_url(server_url, 2, presenter=True))


def test_runs_under_csp_without_console_errors(browsing, page, server_url):
    from playwright.sync_api import expect

    response = page.goto(server_url + "/?step=2")
    assert response.headers["content-security-policy"] == CSP
    page.keyboard.press("ArrowRight")
    expect(page).to_have_url(step_url(server_url, 3))
    assert browsing.errors == []


def test_finds_links_that_htmx_swapped_in(browsing, page, server_url):
    from playwright.sync_api import expect

    page.goto(server_url + "/?step=2")
    page.get_by_role("button", name="Go to step 4 without reloading").click()
    expect(page.locator('[data-step="next"]')).to_have_attribute("href", "/?step=5")
    page.locator("body").focus()  # away from the button, as after clicking a step with the mouse
    page.keyboard.press("ArrowRight")
    expect(page).to_have_url(step_url(server_url, 5))
    assert browsing.errors == []


@pytest.mark.parametrize(
    ("field", "key"),
    [
        ("#review", "ArrowRight"),
        ("#review", "ArrowLeft"),
        ("#review", "p"),
        ("#review", "End"),
        ("#word", "Home"),
        ("#model", "ArrowRight"),
        ("#alpha", "ArrowLeft"),
        ("#notes", "ArrowRight"),
    ],
)
def test_keys_in_a_field_stay_in_the_field(page, server_url, field, key):
    page.goto(server_url + "/?step=2")
    page.focus(field)
    assert_nothing_followed(page, key)


def test_typing_a_review_types_it(page, server_url):
    page.goto(server_url + "/?step=2")
    page.focus("#review")
    page.keyboard.type("spam, p please")
    for key in ("ArrowLeft", "ArrowRight", "Home", "End"):
        page.keyboard.press(key)
    assert page.input_value("#review") == "spam, p please"
    assert page.evaluate("window.__clicked") == []
    assert page.url == server_url + "/?step=2"


@pytest.mark.parametrize("key", ["Alt+ArrowRight", "Control+ArrowLeft", "Shift+ArrowRight", "Meta+End", "Shift+P"])
def test_keys_with_a_modifier_are_left_alone(page, server_url, key):
    page.goto(server_url + "/?step=2")
    assert_nothing_followed(page, key)


@pytest.mark.parametrize(("step", "key"), [(LAST, "ArrowRight"), (1, "ArrowLeft")])
def test_aria_disabled_step_is_not_followed(page, server_url, step, key):
    page.goto(server_url + f"/?step={step}")
    direction = "next" if key == "ArrowRight" else "prev"
    assert page.locator(f'[data-step="{direction}"]').get_attribute("aria-disabled") == "true"
    assert_nothing_followed(page, key)


# axe-core: the test page itself is accessible, and the helper does find a real problem.


@pytest.fixture
def axe_page(new_browsing):
    """A page whose context ignores the page's Content-Security-Policy."""
    return new_browsing(bypass_csp=True).new_page()


def test_page_has_no_serious_accessibility_violations(axe_page, server_url):
    axe_page.goto(server_url + "/?step=2")
    assert axe_violations(axe_page) == []


def test_axe_reports_an_unlabelled_field(axe_page, server_url):
    axe_page.goto(server_url + "/?step=2&broken")
    violations = axe_violations(axe_page)
    assert [(violation["id"], violation["targets"]) for violation in violations] == [
        ("label", [['input[name="unlabelled"]']])
    ]
    assert violations[0]["impact"] == "critical"
    assert axe_violations(axe_page, impacts=("minor", "moderate")) == []


def test_axe_runs_under_the_pages_content_security_policy(page, server_url):
    """axe is evaluated through the DevTools protocol, so a page is checked under the policy it really has."""
    page.goto(server_url + "/?step=2")
    assert axe_violations(page) == []
