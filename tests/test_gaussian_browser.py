"""Gaussian Naive Bayes in headless Chromium at projector size: walking Bayes' rule for typed values, from the
densities through the underflow to log space, and the zero-variance step."""
from __future__ import annotations

import numpy as np
import pytest

from accessibility import axe_violations
from conftest import htmx_settled, serving
from test_evaluation_browser import PROJECTOR, open_page, shot
from webnb import create_app
from webnb.engine.table import NumericTable

pytestmark = pytest.mark.browser


WIDE_TABLE = "wide"  # replaced by the stored id of a 10,000-row table with six features


@pytest.fixture(scope="module")
def server_url(tmp_path_factory):
    global WIDE_TABLE
    app = create_app({"TESTING": True, "SECRET_KEY": "test"}, instance_path=str(tmp_path_factory.mktemp("instance")))
    rng = np.random.default_rng(0)
    classes = rng.integers(0, 4, 10_000)
    table = NumericTable(tuple(f"feature {j}" for j in range(6)), rng.normal(size=(10_000, 6)) + classes[:, None],
                         tuple(f"class {k}" for k in classes), tuple(map(str, range(10_000))))
    WIDE_TABLE = app.extensions["webnb"]["catalog"].add(table, name="Ten thousand rows", source="test")
    with serving(app) as url:
        yield url


@pytest.fixture
def page(browser):
    yield from open_page(browser)


def _next(page):
    page.locator("a[data-step=next]").click()
    htmx_settled(page)


def test_walking_the_gaussian_step_through(page, server_url):
    from playwright.sync_api import expect

    page.goto(f"{server_url}/corpora/iris/gaussian/inference")
    expect(page.locator("#step-title")).to_have_text("1. Each feature's density")
    expect(page.locator("figure.density")).to_have_count(4)
    # Typing a petal length of 40 cm redraws the lesson below without losing the typing.
    petal = page.get_by_role("textbox", name="petal length (cm)")
    petal.fill("40")
    expect(page.locator(".gaussian-terms .flag", has_text="underflow")).to_have_count(3)
    expect(page.locator(".marker-label.off-chart")).to_have_text(["x = 40 →"])
    assert petal.input_value() == "40"
    assert "value=40" in page.url

    _next(page)
    expect(page.locator("#step-title")).to_have_text("2. Prior × densities")
    expect(page.locator(".gaussian-products .flag")).to_have_count(3)
    _next(page)
    expect(page.locator("#naive-decision")).to_contain_text("Cannot decide")
    _next(page)
    expect(page.locator(".numpy-warning")).to_have_text("RuntimeWarning: divide by zero encountered in log")
    expect(page.locator(".gaussian-naive-logs td.breaks")).to_have_count(6)  # 3 densities and 3 sums at −∞
    shot(page, "gaussian-underflow")
    _next(page)
    expect(page.locator("#decision")).to_contain_text("virginica")
    expect(page.locator("#decision")).to_contain_text("where plain floats could not decide")
    expect(page.locator(".gaussian-logs .flag", has_text="was 0.0")).to_have_count(3)
    _next(page)
    expect(page.locator("#step-title")).to_have_text("6. Zero variance")
    expect(page.locator("a[data-step=next]")).to_have_count(0)

    # Back, and a typical row again: nothing underflows and the floats decide on their own.
    page.get_by_role("link", name="a typical row").click()
    htmx_settled(page)
    page.locator("nav.steps a", has_text="Normalise").click()
    htmx_settled(page)
    expect(page.locator("#naive-decision")).to_have_text("Decision: setosa")
    assert page.errors == []


def test_zero_variance_and_var_smoothing_in_the_browser(page, server_url):
    from playwright.sync_api import expect

    page.goto(f"{server_url}/corpora/red-cards/gaussian/inference?step=zero-width&value=7.5&value=1")
    expect(page.locator(".zero-variance tbody tr")).to_have_count(1)
    expect(page.locator(".zero-variance")).to_contain_text("underflows to 0.0")
    smoothing = page.get_by_role("textbox", name="var_smoothing")
    smoothing.fill("0")
    htmx_settled(page)
    expect(page.locator(".zero-variance")).to_contain_text("the class is impossible")
    expect(page.locator(".warning", has_text="var_smoothing is 0")).to_be_visible()
    assert "var_smoothing=0" in page.url
    shot(page, "gaussian-zero-variance")
    assert page.errors == []


GAUSSIAN_PAGES = [
    "/corpora/iris/gaussian",
    "/corpora/iris/gaussian/parameters",
    "/corpora/iris/gaussian/inference",
    "/corpora/iris/gaussian/inference?value=5.9&value=3&value=40&value=1.8&step=logspace",
    "/corpora/red-cards/gaussian/inference?step=zero-width&var_smoothing=0",
    "/corpora/red-cards/gaussian/parameters?var_smoothing=0",
    "/corpora/match-ratings/gaussian/inference?value=60&step=underflow",
    "/corpora/iris/gaussian/evaluation",
    "/corpora/iris/gaussian/parity?of=evaluation",
    "/corpora/wide/gaussian",
    "/corpora/wide/gaussian/parameters",
    "/corpora/wide/gaussian/inference?step=densities",
    "/corpora/wide/gaussian/evaluation",
]


@pytest.mark.parametrize("url", GAUSSIAN_PAGES)
def test_gaussian_pages_are_accessible_and_fit_the_projector(page, server_url, url):
    url = url.replace("/wide/", f"/{WIDE_TABLE}/")
    for address in (url, url + ("&" if "?" in url else "?") + "presenter=1"):
        page.goto(server_url + address)
        page.wait_for_load_state("networkidle")  # the scikit-learn badge is in
        assert axe_violations(page) == [], address
        assert page.evaluate("() => document.documentElement.scrollWidth") <= PROJECTOR["width"], address
    assert page.errors == []


def test_the_gaussian_pages_work_without_javascript(browser, server_url):
    context = browser.new_context(viewport=PROJECTOR, java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{server_url}/corpora/match-ratings/gaussian/inference?step=logspace")
    page.get_by_role("textbox", name="opponent rating").fill("60")
    page.locator("#values-form button[type=submit]").click()
    page.wait_for_load_state()
    assert "won" in page.locator("#decision").inner_text()
    page.goto(f"{server_url}/corpora/iris/gaussian/evaluation")
    page.locator("#var-smoothing").fill("0.5")
    page.locator(".model-form button[type=submit]").click()
    page.wait_for_load_state()
    assert "var_smoothing=0.5" in page.url and page.locator("#accuracy").count() == 1
    context.close()


def test_a_pasted_and_an_uploaded_table_open_as_gaussian_lessons(page, server_url, tmp_path):
    from playwright.sync_api import expect

    page.goto(f"{server_url}/corpora")
    page.locator("#paste-name").fill("Sepals")
    page.locator("#paste-corpus").fill(
        "sepal length,sepal width,species\n5.1,3.5,setosa\n4.9,3.0,setosa\n4.7,3.2,setosa\n"
        "7.0,3.2,versicolor\n6.4,3.2,versicolor\n6.9,3.1,versicolor\n")
    page.get_by_role("button", name="Add corpus").click()
    page.wait_for_load_state()
    assert page.url.endswith("/gaussian")
    expect(page.locator("h1")).to_contain_text("Sepals")
    expect(page.locator(".numeric-rows tbody tr")).to_have_count(6)
    page.get_by_role("link", name="3 · Bayes' rule").click()
    page.get_by_role("textbox", name="sepal length").fill("6.8")
    htmx_settled(page)
    page.locator("nav.steps a", has_text="Log space").click()
    htmx_settled(page)
    expect(page.locator("#decision")).to_contain_text("versicolor")

    upload = tmp_path / "flowers.csv"
    upload.write_text("petal length,petal width,kind\n1.4,0.2,a\n1.3,0.2,a\n4.7,1.4,b\n4.5,1.5,b\n")
    page.goto(f"{server_url}/corpora")
    page.locator("#upload-file").set_input_files(str(upload))
    expect(page.locator("#numeric-table")).to_be_visible()
    expect(page.locator("#numeric-features li")).to_have_text(["petal length", "petal width"])
    expect(page.locator("#text-column")).to_have_count(0)
    page.get_by_role("button", name="Upload").click()
    page.wait_for_load_state()
    assert page.url.endswith("/gaussian")
    expect(page.locator(".numeric-rows tbody tr")).to_have_count(4)
    assert page.errors == []
