"""Tables of extreme but finite numbers (±1e308, the largest float, the smallest normal float, subnormals) and
hostile numbers in the Gaussian pages' addresses. A table whose variance float64 cannot hold is refused when it is
added, naming the column and the lines; every other table gets real numbers on every page, fragment, JSON twin and
download. Never a 500, never NaN shown as a number, never Python's own words."""
from __future__ import annotations

import html
import io
import json
import math
import re
from urllib.parse import urlencode

import numpy as np
import pytest
from bs4 import BeautifulSoup

from tests.conftest import paste
from webnb.engine.gaussian.model import GaussianStatistics, explain
from webnb.engine.gaussian.table import NumericTable, read_numeric_csv
from webnb.engine.shared.corpus import CorpusError
from webnb.engine.shared.numbers import parse_decimal
from webnb.lesson.state import GAUSSIAN_STEPS

LARGEST = "1.7976931348623157e308"
SMALLEST_NORMAL = "2.2250738585072014e-308"
SMALLEST_SUBNORMAL = "5e-324"

# What Python would say if its errors reached a page. (numpy's "RuntimeWarning: divide by zero encountered in log"
# is quoted on purpose by the underflow step.)
INTERNAL_WORDS = ("Traceback", "ValueError", "OverflowError", "Exceeds the limit", "set_int_max_str_digits",
                  "Internal Server Error")
# The parity check's own note about scikit-learn's scores on a zero variance: the word, not a number shown.
PARITY_NAN_NOTE = re.compile(r"scikit-learn(?:'|&#39;)s scores are NaN \(it divides 0 by 0")


def table_text(column_a, labels="xy") -> str:
    """A table with the values ``column_a`` in column a, an ordinary column b and the classes alternating."""
    lines = ["a,b,label"] + [f"{value},{i},{labels[i % len(labels)]}" for i, value in enumerate(column_a)]
    return "\n".join(lines)


def stored_id(response) -> str:
    assert response.status_code == 303, response.get_data(as_text=True)[:1000]
    return response.headers["Location"].rsplit("/", 1)[-1]


def form_error(response) -> str:
    error = BeautifulSoup(response.get_data(as_text=True), "html.parser").find(id="form-error")
    assert error is not None, response.get_data(as_text=True)[:500]
    return error.get_text(" ", strip=True)


def stored_count(app) -> int:
    return len(app.extensions["webnb"]["storage"].list_corpora())


def strict_json(response):
    """The JSON twin, refusing NaN and ±Infinity, which are not JSON (the app writes ±∞ as "inf" and "-inf")."""

    def refuse(constant):
        raise AssertionError(f"{constant} in {response.request.url}")

    return json.loads(response.get_data(as_text=True), parse_constant=refuse)


def assert_clean(response, url: str, echoed: str = "") -> str:
    """The body, after checking it holds no 500, no Python error text and no NaN (``echoed``: what the user typed,
    which a message may quote)."""
    assert response.status_code < 500, (url, response.status_code)
    body = response.get_data(as_text=True)
    for word in INTERNAL_WORDS:
        assert word not in body, (url, word)
    if echoed.lower() != "nan":
        assert not re.search(r"\bnan\b", PARITY_NAN_NOTE.sub("", body), re.IGNORECASE), url
    return body


# --- refused: the variance would be infinite (in scikit-learn too) ------------------------------------------------

REFUSED = {
    "±1e308": (["1e308", "-1e308", "1", "2"], "'a' runs from -1e+308 (line 3) to 1e+308 (line 2)"),
    "± the largest float": ([LARGEST, "0", "-" + LARGEST, "5"], f"runs from -{LARGEST.replace('e', 'e+')} (line 4)"),
    "1e200 and 0": (["1e200", "0", "3", "-4"], "to 1e+200 (line 2)"),
    "the largest and a neighbour": ([LARGEST, "1.7976931348623155e308", LARGEST, LARGEST], "(line 3)"),
}


@pytest.mark.parametrize("name", [*REFUSED][:1] + [
    pytest.param(name, marks=pytest.mark.slow) for name in [*REFUSED][1:]])
def test_a_pasted_table_whose_variance_float64_cannot_hold_is_refused(app, name):
    column, where = REFUSED[name]
    text = table_text(column)
    response = paste(app.test_client(), text)
    assert response.status_code == 400
    message = form_error(response)
    assert where in message
    assert "span more than float64 can square" in message and "Divide that column by 1e" in message
    assert "Nothing was stored." in message
    assert stored_count(app) == 0


def test_an_uploaded_table_is_refused_the_same_way(app):
    data = table_text(["1e308", "-1e308", "1", "2"]).encode()
    response = app.test_client().post("/corpora/upload", data={"file": (io.BytesIO(data), "extreme.csv"), "name": "x"},
                                      content_type="multipart/form-data")
    assert response.status_code == 400
    assert "'a' runs from -1e+308 (line 3) to 1e+308 (line 2)" in form_error(response)
    assert stored_count(app) == 0


def test_the_suggested_divisor_brings_the_column_within_bounds():
    text = table_text(["1e308", "-1e308", "1", "2"])
    with pytest.raises(CorpusError, match=r"Divide that column by 1e(\d+)") as refused:
        read_numeric_csv(text)
    power = int(re.search(r"by 1e(\d+)", str(refused.value)).group(1))
    assert power == 155  # a span of 2e308 over 1.34e154, the square root of the largest float
    scaled = table_text([f"1e{308 - power}", f"-1e{308 - power}", "1", "2"])
    assert read_numeric_csv(scaled).features == ("a", "b")


# --- accepted: finite numbers on every page -------------------------------------------------------------------------

ACCEPTED = {
    "the largest float in every row": [LARGEST] * 8,
    "minus the largest float in every row": ["-" + LARGEST] * 8,
    # Three rows per class: the mean's rounding (1e292) was squared into an infinite variance ("below nan").
    "1.7e308 in every row, three per class": ["1.7e308"] * 6,
    "subnormals": [SMALLEST_SUBNORMAL, "0", "1e-323", SMALLEST_SUBNORMAL, "-" + SMALLEST_SUBNORMAL, "0", "2e-323", "0"],
    "the smallest normal float": [SMALLEST_NORMAL, SMALLEST_NORMAL, "-" + SMALLEST_NORMAL, SMALLEST_NORMAL] * 2,
    "just inside the widest span": ["6.5e153", "-6.5e153"] * 20,
    "one class at each end of the widest span": ["6.5e153"] * 10 + ["-6.5e153"] * 10,
}
SETTINGS = ("", "var_smoothing=0", "var_smoothing=1000000", "train=split", "test=training")
TYPED = (
    f"value={LARGEST}&value=1",
    f"value=-{LARGEST}&value={SMALLEST_SUBNORMAL}",
    f"value={SMALLEST_NORMAL}&value=-0",
)
PAGES = ("", "/parameters", "/evaluation", "/parity?of=parameters", "/parity?of=evaluation",
         *(f"/inference?step={step}" for step in GAUSSIAN_STEPS))
DOWNLOADS = ("/rows.csv", "/parameters.csv", "/evaluation.csv", "/confusion.csv", "/predictions.csv", "/notebook.ipynb")


def _labels(name: str) -> str:
    return "x" * 10 + "y" * 10 if name.startswith("one class at each end") else "xy"


@pytest.fixture()
def extreme_tables(app):
    client = app.test_client()
    ids = {name: stored_id(paste(client, table_text(column, _labels(name)), name)) for name, column in ACCEPTED.items()}
    return client, ids


@pytest.mark.slow  # 14 s
def test_every_page_fragment_twin_and_download_of_an_extreme_table_works(extreme_tables):
    client, ids = extreme_tables
    for corpus_id in ids.values():
        base = f"/corpora/{corpus_id}/gaussian"
        for query in SETTINGS + TYPED:
            for page in PAGES:
                url = base + page + ("&" if "?" in page else "?") + query
                assert_clean(client.get(url), url)
                assert_clean(client.get(url, headers={"HX-Request": "true"}), url)
                twin = client.get(url + "&format=json")
                assert_clean(twin, url)
                strict_json(twin)
            for download in DOWNLOADS:
                url = f"{base}{download}?{query}"
                response = client.get(url)
                body = assert_clean(response, url)
                if response.status_code != 200:  # only a setting the model cannot use, said in words
                    assert response.status_code == 400 and "var_smoothing" in body, (url, body[:300])


def test_extreme_tables_get_real_parameters(extreme_tables):
    client, ids = extreme_tables
    largest = float(LARGEST)

    def parameters(name, query=""):
        data = strict_json(client.get(f"/corpora/{ids[name]}/gaussian/parameters?format=json&{query}"))
        assert data["error"] is None, data["error"]
        return {(c["class"], f["feature"]): f for c in data["parameters"] for f in c["features"]}

    # Eight times the largest float overflows numpy's sum; scaled by a power of two, the mean is exact.
    for name, sign in (("the largest float in every row", 1), ("minus the largest float in every row", -1)):
        cells = parameters(name)
        assert cells[("x", "a")]["mean"] == sign * largest and cells[("x", "a")]["variance"] == 0.0
    cells = parameters("1.7e308 in every row, three per class")
    assert {(cells[(label, "a")]["mean"], cells[(label, "a")]["variance"]) for label in "xy"} == {(1.7e308, 0.0)}
    # Variances near the largest float: finite, and as large as they should be.
    cells = parameters("one class at each end of the widest span")
    assert cells[("x", "a")]["mean"] == pytest.approx(6.5e153, rel=1e-15)
    assert cells[("y", "a")]["mean"] == pytest.approx(-6.5e153, rel=1e-15)
    widest = parameters("just inside the widest span")
    # Twenty copies of 6.5e153 vary only by the rounding of their mean, as in numpy and scikit-learn.
    assert 0.0 <= widest[("x", "a")]["variance"] < 1e-30 * 6.5e153**2
    overall = GaussianStatistics.fit(read_numeric_csv(table_text(ACCEPTED["just inside the widest span"])))
    assert overall.feature_variances[0] == pytest.approx(6.5e153**2, rel=1e-12)
    # Subnormals keep their exact value.
    cells = parameters("the smallest normal float")
    assert cells[("x", "a")]["mean"] == 0.0  # ±2.2e-308 alternately
    assert cells[("y", "a")]["mean"] == float(SMALLEST_NORMAL) and cells[("y", "a")]["variance"] == 0.0


def test_too_much_smoothing_for_the_largest_variance_is_said_not_computed(extreme_tables):
    client, ids = extreme_tables
    base = f"/corpora/{ids['just inside the widest span']}/gaussian"
    data = strict_json(client.get(base + "/parameters?format=json&var_smoothing=1000000"))
    assert "goes beyond the largest float64" in data["error"] and "Choose a var_smoothing below" in data["error"]
    page = client.get(base + "/parameters?var_smoothing=1000000").get_data(as_text=True)
    assert "goes beyond the largest float64" in page
    response = client.get(base + "/parameters.csv?var_smoothing=1000000")
    assert response.status_code == 400 and "goes beyond the largest float64" in response.get_data(as_text=True)


def test_the_scikit_learn_check_says_why_it_cannot_compare(extreme_tables):
    client, ids = extreme_tables
    for of in ("parameters", "evaluation"):
        largest_id = ids["the largest float in every row"]
        data = strict_json(client.get(f"/corpora/{largest_id}/gaussian/parity?of={of}&format=json"))
        assert data["status"] == "error" and "scikit-learn's GaussianNB overflows" in data["error"]
    # Where scikit-learn's numbers are finite (subnormals), it is compared as usual.
    smallest_normal_id = ids["the smallest normal float"]
    data = strict_json(client.get(f"/corpora/{smallest_normal_id}/gaussian/parity?of=parameters&format=json"))
    assert data["status"] == "agrees", data


# --- the engine near the limits -----------------------------------------------------------------------------------


def test_log_densities_stay_finite_where_two_pi_sigma_squared_overflows():
    # ε = 1 × the overall variance (4.2e307) makes every σ² about 4.2e307: 2πσ² is beyond the largest float,
    # log(2π) + log(σ²) is not.
    table = read_numeric_csv(table_text(["6.5e153"] * 10 + ["-6.5e153"] * 10, "x" * 10 + "y" * 10))
    model = GaussianStatistics.fit(table).model(1.0)
    variance = float(model.smoothed_variances[0, 0])
    assert math.isinf(2 * math.pi * variance)
    x = 6.5e153
    expected = -0.5 * (math.log(2 * math.pi) + math.log(variance)) - 0.5 * (x - model.means[0, 0]) ** 2 / variance
    assert model.feature_log_densities([x, 0.0])[0, 0] == pytest.approx(expected, rel=1e-12)
    assert np.all(np.isfinite(model.joint_log_likelihood(table.values)))
    assert model.predict(table.values) == list(table.labels)


def test_a_typed_value_far_from_a_huge_bell_keeps_a_finite_log_density():
    # (x − μ)² overflows (1e600) although (x − μ)²/σ² is an ordinary number (1e300): σ² is about 1e300.
    table = NumericTable(features=("a",), values=np.array([[1e150], [-1e150], [3e150], [-3e150]]),
                         labels=("x", "x", "y", "y"), ids=("1", "2", "3", "4"))
    model = GaussianStatistics.fit(table).model(0.0)
    explained = explain(model, [1e300])
    term = explained.classes[0].terms[0]
    sd = math.sqrt(float(model.smoothed_variances[0, 0]))
    assert sd == pytest.approx(1e150)
    assert term.log_density == pytest.approx(
        -0.5 * (1e300 / sd) ** 2 - math.log(sd * math.sqrt(2 * math.pi)), rel=1e-12)
    assert term.z == pytest.approx(1e300 / sd, rel=1e-12)
    assert explained.decision == "y"  # the wider bell


def test_a_product_of_an_overflowed_and_an_underflowed_density_is_zero_not_nan():
    # σ² = 1e-300: each density is about 4e149 at the mean, so two of them overflow the product; a third far off is 0.
    values = np.array([[0.0, 0.0, 0.0], [2e-150, 2e-150, 2e-150], [1.0, 1.0, 1.0], [1.0 + 2e-10, 1.0, 1.0]])
    table = NumericTable(features=("a", "b", "c"), values=values, labels=("x", "x", "y", "y"), ids=("1", "2", "3", "4"))
    model = GaussianStatistics.fit(table).model(0.0)
    explained = explain(model, [1e-150, 1e-150, 5.0])
    for terms in explained.classes:
        assert not math.isnan(terms.product) and not math.isnan(terms.naive_log_joint)
    assert json.loads(json.dumps(explained.to_dict()), parse_constant=lambda c: pytest.fail(c))


# --- hostile numbers in the address ---------------------------------------------------------------------------------

HOSTILE = ("1e-100000", "1e1000000", "1" * 10_000, "nan", "inf", "-0", "0x10", "\uff11", "")
# What each parameter's message says, and the pages that read it.
MESSAGES = {
    "var_smoothing": r"var_smoothing (is|must)",
    "value": r"The value for 'sepal length \(cm\)'",
    "test_size": r"held-out share is",
    "seed": r"The seed must be a whole number",
    "page": r"page",
}
NUMERIC_PAGES = ("", "/parameters", "/inference", "/evaluation", "/parity?of=parameters", "/parity?of=evaluation")
PAGED = ("", "/evaluation")
SETTING_DOWNLOADS = ("/parameters.csv", "/evaluation.csv", "/predictions.csv", "/notebook.ipynb")


def _hostile_query(parameter: str, hostile: str) -> list[tuple[str, str]]:
    if parameter == "value":  # the hostile one first, then ordinary values for iris's other three features
        return [("value", hostile), ("value", "3"), ("value", "1.4"), ("value", "0.2")]
    return [(parameter, hostile)]


def _accepted(parameter: str, hostile: str) -> bool:
    """-0 is an ordinary typed value (the same number as 0); nowhere else is a minus sign, an empty field or any
    of the others a number these pages use."""
    return parameter == "value" and hostile == "-0"


@pytest.mark.parametrize("parameter", [  # "page" in the fast run; each of the others takes 2-3 s
    pytest.param(name, marks=() if name == "page" else pytest.mark.slow) for name in MESSAGES])
def test_every_hostile_number_in_every_gaussian_page_gets_a_message(client, parameter):
    pages = PAGED if parameter == "page" else NUMERIC_PAGES
    for page in pages:
        for hostile in HOSTILE:
            query = _hostile_query(parameter, hostile)
            url = "/corpora/iris/gaussian" + page + ("&" if "?" in page else "?") + urlencode(query)
            response = client.get(url)
            assert response.status_code == 200, (url[:200], response.status_code)
            body = assert_clean(response, url[:200], hostile)
            twin = client.get(url + "&format=json")
            assert twin.status_code == 200
            assert_clean(twin, url[:200], hostile)
            errors = strict_json(twin).get("errors", {})
            if _accepted(parameter, hostile):
                assert parameter not in errors
                continue
            assert parameter in errors, (url[:200], errors)
            assert re.search(MESSAGES[parameter], errors[parameter], re.IGNORECASE), errors[parameter]
            page_text = BeautifulSoup(body, "html.parser").get_text(" ")
            assert re.search(MESSAGES[parameter], page_text, re.IGNORECASE), url[:200]
            assert "1" * 1000 not in body  # a 10,000-digit value is not echoed back


@pytest.mark.parametrize("parameter", ("var_smoothing", "value", "test_size", "seed"))
def test_a_download_with_a_hostile_number_says_so_and_sends_nothing(client, parameter):
    for download in SETTING_DOWNLOADS:
        for hostile in HOSTILE:
            if _accepted(parameter, hostile):
                continue
            url = f"/corpora/iris/gaussian{download}?" + urlencode(_hostile_query(parameter, hostile))
            response = client.get(url)
            assert response.status_code == 400, (url[:200], response.status_code)
            body = assert_clean(response, url[:200], hostile)
            text = html.unescape(body)
            assert re.search(MESSAGES[parameter], text, re.IGNORECASE) and "Nothing was downloaded" in text


def test_a_typed_minus_zero_is_zero(client):
    data = client.get("/corpora/iris/gaussian/inference?format=json&value=-0&value=3&value=1.4&value=0.2").get_json()
    assert data["state"]["values"] == [0.0, 3.0, 1.4, 0.2] and "value" not in data.get("errors", {})


@pytest.mark.parametrize(
    "text, problem",
    [
        ("1e-100000", "closer to 0 than any float64"),
        ("1e1000000", "larger than any float64"),
        ("1" * 10_000, "is 10,000 characters long"),
        ("nan", "not a plain decimal number"),
        ("-inf", "not a plain decimal number"),
        ("0x10", "not a plain decimal number"),
        ("\uff11", "not a plain decimal number"),
        ("1_0", "not a plain decimal number"),
        ("", "is empty"),
        ("-0", "with a minus sign"),
        ("-1", "with a minus sign"),
        ("2", "above 1"),
        ("1", "above or at 1"),
        ("0", "below or at 0"),
    ],
)
def test_parse_decimal_names_what_is_wrong(text, problem):
    with pytest.raises(ValueError) as refused:
        parse_decimal(text, "The share", low=0.0, high=1.0, low_open=True, high_open=text == "1", expected="Say 0.25.")
    message = str(refused.value)
    assert message.startswith("The share ") and problem in message and message.endswith("Say 0.25.")


def test_parse_decimal_reads_plain_numbers_exactly():
    assert parse_decimal(" 0.25 ", "x", low=0, high=1) == 0.25
    assert parse_decimal(SMALLEST_SUBNORMAL, "x") == 5e-324
    assert parse_decimal("-" + LARGEST, "x") == -float(LARGEST)
    assert math.copysign(1.0, parse_decimal("-0", "x")) == -1.0  # where negatives are allowed, -0 is a number
    assert parse_decimal("0e-100000", "x", low=0) == 0.0  # zero written with a huge exponent is still zero


@pytest.mark.parametrize(
    "path, query, message",
    [
        ("/parameters", "var_smoothing=1e-100000", "var_smoothing is '1e-100000', closer to 0 than any float64"),
        ("/evaluation", "var_smoothing=nan", "var_smoothing is 'nan', not a plain decimal number"),
        ("/inference", "var_smoothing=-0", "var_smoothing is '-0', with a minus sign"),
        ("/inference", "value=1e1000000&value=3&value=1.4&value=0.2", "larger than any float64"),
    ],
)
def test_the_redrawn_part_names_a_value_typed_wrong(client, path, query, message):
    # What htmx swaps in while the student types: the message must be in it, not only in the page's header.
    fragment = client.get(f"/corpora/iris/gaussian{path}?{query}", headers={"HX-Request": "true"})
    assert fragment.status_code == 200
    error = BeautifulSoup(fragment.get_data(as_text=True), "html.parser").select_one(".field-error")
    assert error is not None and message in error.get_text(" ", strip=True)


def test_a_table_stored_before_the_check_shows_the_reason_on_every_page(app):
    # Added by an older version straight into storage: the pages explain, the rows still show.
    table = NumericTable(features=("a", "b"), values=np.array([[1e308, 1.0], [-1e308, 2.0], [1.0, 3.0], [2.0, 4.0]]),
                         labels=("x", "x", "y", "y"), ids=("2", "3", "4", "5"))
    corpus_id = app.extensions["webnb"]["storage"].add_corpus(table.to_corpus(), name="old", source="test",
                                                              features=table.features)
    client = app.test_client()
    base = f"/corpora/{corpus_id}/gaussian"
    assert client.get(base).status_code == 200 and client.get(base + "/rows.csv").status_code == 200
    for page in PAGES:
        url = base + page
        body = assert_clean(client.get(url), url)
        if page:
            assert "span more than float64 can square" in html.unescape(body), url
        assert_clean(client.get(url, headers={"HX-Request": "true"}), url)
        strict_json(client.get(url + ("&" if "?" in url else "?") + "format=json"))
    for download in DOWNLOADS[1:]:
        response = client.get(base + download)
        assert response.status_code == 400
        assert "span more than float64 can square" in html.unescape(assert_clean(response, download))
