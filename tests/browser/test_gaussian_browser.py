"""Gaussian Naive Bayes in headless Chromium at projector size: walking Bayes' rule for typed values, from the
densities through the underflow to log space, and the zero-variance step."""
from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest

from webnb.engine.gaussian.table import NumericTable

from .conftest import htmx_settled, url_with
from .page_checks import check_page_and_its_slide, submit_without_javascript

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def wide_table(served_app) -> str:
    """The stored id of a 10,000-row table with six features and four classes."""
    rng = np.random.default_rng(0)
    classes = rng.integers(0, 4, 10_000)
    table = NumericTable(tuple(f"feature {j}" for j in range(6)), rng.normal(size=(10_000, 6)) + classes[:, None],
                         tuple(f"class {k}" for k in classes), tuple(map(str, range(10_000))))
    return served_app.extensions["webnb"]["catalog"].add(table, name="Ten thousand rows", source="test")


def htmx_get(path: str):
    """A predicate for `page.expect_response`: htmx's request for `path`."""
    return lambda response: urlsplit(response.url).path == path and response.request.headers.get("hx-request") == "true"


def follow(page, link, path: str) -> None:
    """Click a link that htmx follows to `path`, and wait until what it brings is swapped in."""
    with page.expect_response(htmx_get(path)):
        link.click()
    htmx_settled(page)


def test_walking_the_gaussian_step_through(browsing, page, server_url, shot):
    from playwright.sync_api import expect

    path = "/corpora/iris/gaussian/inference"
    page.goto(server_url + path)
    expect(page.locator("#step-title")).to_have_text("1. Each feature's density")
    expect(page.locator("figure.density")).to_have_count(4)
    # Typing a petal length of 40 cm redraws the lesson below without losing the typing.
    petal = page.get_by_role("textbox", name="petal length (cm)")
    with page.expect_response(htmx_get(path)):
        petal.fill("40")
    expect(page.locator(".gaussian-terms .flag", has_text="underflow")).to_have_count(3)
    expect(page.locator(".marker-label.off-chart")).to_have_text(["x = 40 →"])
    expect(petal).to_have_value("40")
    expect(page).to_have_url(url_with(value="40"))
    htmx_settled(page)

    next_step = page.locator("a[data-step=next]")
    follow(page, next_step, path)
    expect(page.locator("#step-title")).to_have_text("2. Prior × densities")
    expect(page.locator(".gaussian-products .flag")).to_have_count(3)
    follow(page, next_step, path)
    expect(page.locator("#naive-decision")).to_contain_text("Cannot decide")
    follow(page, next_step, path)
    expect(page.locator(".numpy-warning")).to_have_text("RuntimeWarning: divide by zero encountered in log")
    expect(page.locator(".gaussian-naive-logs td.breaks")).to_have_count(6)  # 3 densities and 3 sums at −∞
    shot(page, "gaussian-underflow")
    follow(page, next_step, path)
    expect(page.locator("#decision")).to_contain_text("virginica")
    expect(page.locator("#decision")).to_contain_text("where plain floats could not decide")
    expect(page.locator(".gaussian-logs .flag", has_text="was 0.0")).to_have_count(3)
    follow(page, next_step, path)
    expect(page.locator("#step-title")).to_have_text("6. Zero variance")
    expect(next_step).to_have_count(0)

    # Back, and a typical row again: nothing underflows and the floats decide on their own.
    page.get_by_role("link", name="a typical row").click()  # a page of its own, which htmx must set up again
    page.wait_for_url(lambda url: "40" not in parse_qs(urlsplit(url).query).get("value", []), wait_until="load")
    follow(page, page.locator("nav.steps a", has_text="Normalise"), path)
    expect(page.locator("#naive-decision")).to_have_text("Decision: setosa")
    assert browsing.errors == []


def test_zero_variance_and_var_smoothing_in_the_browser(browsing, page, server_url, shot):
    from playwright.sync_api import expect

    path = "/corpora/red-cards/gaussian/inference"
    page.goto(f"{server_url}{path}?step=zero-width&value=7.5&value=1")
    expect(page.locator(".zero-variance tbody tr")).to_have_count(1)
    expect(page.locator(".zero-variance")).to_contain_text("underflows to 0.0")
    smoothing = page.get_by_role("textbox", name="var_smoothing")
    with page.expect_response(htmx_get(path)):
        smoothing.fill("0")
    expect(page.locator(".zero-variance")).to_contain_text("the class is impossible")
    expect(page.locator(".warning", has_text="var_smoothing is 0")).to_be_visible()
    expect(page).to_have_url(url_with(var_smoothing="0"))
    shot(page, "gaussian-zero-variance")
    assert browsing.errors == []


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
def test_gaussian_pages_are_accessible_and_fit_the_projector(browsing, page, server_url, wide_table, url):
    url = url.replace("/wide/", f"/{wide_table}/")
    check_page_and_its_slide(page, server_url, url)
    assert browsing.errors == []


def test_the_gaussian_pages_work_without_javascript(new_browsing, server_url):
    from playwright.sync_api import expect

    page = new_browsing(java_script_enabled=False).new_page()
    submit_without_javascript(page, f"{server_url}/corpora/match-ratings/gaussian/inference?step=logspace",
                              page.get_by_role("textbox", name="opponent rating"), "60",
                              "#values-form button[type=submit]", value="60")
    expect(page.locator("#decision")).to_contain_text("won")
    submit_without_javascript(page, f"{server_url}/corpora/iris/gaussian/evaluation",
                              "#var-smoothing", "0.5", ".model-form button[type=submit]", var_smoothing="0.5")
    expect(page.locator("#accuracy")).to_have_count(1)


def test_a_pasted_and_an_uploaded_table_open_as_gaussian_lessons(browsing, page, server_url, tmp_path):
    from playwright.sync_api import expect

    page.goto(f"{server_url}/corpora")
    page.locator("#paste-name").fill("Sepals")
    page.locator("#paste-corpus").fill(
        "sepal length,sepal width,species\n5.1,3.5,setosa\n4.9,3.0,setosa\n4.7,3.2,setosa\n"
        "7.0,3.2,versicolor\n6.4,3.2,versicolor\n6.9,3.1,versicolor\n")
    page.get_by_role("button", name="Add corpus").click()
    expect(page).to_have_url(re.compile(r"/corpora/[^/]+/gaussian$"))
    expect(page.locator("h1")).to_contain_text("Sepals")
    expect(page.locator(".numeric-rows tbody tr")).to_have_count(6)
    page.get_by_role("link", name="3 · Bayes' rule").click()
    page.wait_for_url(re.compile(r"/gaussian/inference(\?|$)"), wait_until="load")  # htmx is set up to listen
    path = urlsplit(page.url).path
    with page.expect_response(htmx_get(path)):
        page.get_by_role("textbox", name="sepal length").fill("6.8")
    htmx_settled(page)
    follow(page, page.locator("nav.steps a", has_text="Log space"), path)
    expect(page.locator("#decision")).to_contain_text("versicolor")
    expect(page).to_have_url(url_with(value="6.8"))

    upload = tmp_path / "flowers.csv"
    upload.write_text("petal length,petal width,kind\n1.4,0.2,a\n1.3,0.2,a\n4.7,1.4,b\n4.5,1.5,b\n")
    page.goto(f"{server_url}/corpora")
    page.locator("#upload-file").set_input_files(str(upload))
    expect(page.locator("#numeric-table")).to_be_visible()
    expect(page.locator("#numeric-features li")).to_have_text(["petal length", "petal width"])
    expect(page.locator("#text-column")).to_have_count(0)
    page.get_by_role("button", name="Upload").click()
    expect(page).to_have_url(re.compile(r"/corpora/[^/]+/gaussian$"))
    expect(page.locator(".numeric-rows tbody tr")).to_have_count(4)
    assert browsing.errors == []
