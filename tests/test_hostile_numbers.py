"""Every number a user can type into a text lesson's address or the command line is read within bounds: a hostile
value gets the page's own message, quickly, and never Python's internal error text or a 500."""
from __future__ import annotations

import io
import json
import time
from contextlib import redirect_stderr, redirect_stdout

import pytest
from conftest import slow_but_the_first

from webnb.cli import main
from webnb.engine.shared.numbers import is_whole, parse_exact_decimal, parse_whole
from webnb.lesson.state import document_bound

HOSTILE = [
    "1e-100000", "1e-1000000", "1e1000000", "9" * 5000, "1" + ",111" * 500, "nan", "inf", "-inf", "-1", "0x10",
    "１", "²", "٣", "1_000", "1e", ".", " ", "1/0", "1" * 41, "0." + "0" * 4000 + "1", "1e+99999999999999999999",
]
# Text Python prints about itself, which must never reach a page, a JSON twin or the command line's output.
INTERNAL = ["Traceback", "Exceeds the limit", "set_int_max_str_digits", "ValueError", "ZeroDivisionError",
            "OverflowError", "Internal Server Error", "invalid literal", "could not convert"]

# Parameters read by every lesson page (through parse_state), each with words of the message it gives.
STATE_PARAMETERS = {
    "alpha": "α",
    "repeats": "Repeat the review",
    "min_df": "min_df",
    "max_df": "max_df",
    "max_features": "max_features",
    "test_size": "held-out share",
    "seed": "seed",
}
# A page's own numbers: (page, parameter, words of its message, or None where a bad value is page 1).
PAGE_PARAMETERS = [
    ("compare", "C", "C must be a positive number"),
    ("compare", "splits", "Repeated splits are a whole number"),
    ("words", "k", "k is a whole number"),
    ("words", "top", "top is a whole number"),
    ("sample", "draw", "The draw is a whole number"),
    ("sample", "length", "The length is a whole number"),
    ("inference", "document", "There is no such document"),
    ("matrix", "rows", None),
    ("matrix", "cols", None),
    ("parameters", "page", None),
    ("evaluation", "wrong_page", None),
    ("", "page", None),
]
PAGES = ["", "matrix", "parameters", "inference", "evaluation", "evaluation/sweep", "compare", "words", "confidence",
         "sample", "add", "export/parameters.csv", "export/predictions.csv", "export/notebook.ipynb"]


def assert_no_internals(text: str, where) -> None:
    for phrase in INTERNAL:
        assert phrase not in text, (where, phrase)


def get(client, url, **kwargs):
    started = time.perf_counter()
    response = client.get(url, **kwargs)
    return response, time.perf_counter() - started


@pytest.mark.parametrize("name", [  # alpha in the fast run; each takes about 1 s
    pytest.param(name, marks=() if name == "alpha" else pytest.mark.slow) for name in sorted(STATE_PARAMETERS)])
def test_every_state_number_is_refused_with_the_pages_message(client, name):
    slowest = 0.0
    for value in HOSTILE:
        for page in ("parameters", "inference", "evaluation"):
            url = f"/corpora/match-reviews/{page}"
            response, took = get(client, url, query_string={name: value, "text": "match was sharp"})
            slowest = max(slowest, took)
            body = response.get_data(as_text=True)
            assert response.status_code == 200, (page, name, value[:20])
            assert_no_internals(body, (page, name, value[:20]))
            if value.strip():
                assert STATE_PARAMETERS[name] in body, (page, name, value[:20])
            twin, took = get(client, url, query_string={name: value, "format": "json"})
            slowest = max(slowest, took)
            assert twin.status_code == 200
            assert_no_internals(twin.get_data(as_text=True), (page, name, value[:20], "json"))
            if value.strip():
                assert STATE_PARAMETERS[name] in twin.get_json()["errors"][name], (page, name, value[:20])
    print(f"{name}: slowest answer {slowest * 1000:.1f} ms")  # figures for the benchmark notes, not asserted


@pytest.mark.parametrize("page, name, message", [  # one with its own message, one read as page 1, in the fast run
    case if case[:2] in {("compare", "C"), ("matrix", "rows")} else pytest.param(*case, marks=pytest.mark.slow)
    for case in PAGE_PARAMETERS])
def test_every_page_number_is_refused_with_the_pages_message(client, page, name, message):
    url = f"/corpora/match-reviews/{page}".rstrip("/")
    for value in HOSTILE:
        for query in ({name: value, "model": "multinomial"}, {name: value, "model": "multinomial", "format": "json"}):
            response = client.get(url, query_string=query)
            body = response.get_data(as_text=True)
            assert response.status_code == 200, (page, name, value[:20], response.status_code)
            assert_no_internals(body, (page, name, value[:20]))
            if message and value.strip():
                shown = body if "format" not in query else json.dumps(response.get_json(), ensure_ascii=False)
                assert message in shown, (page, name, value[:20])


@pytest.mark.parametrize("page", PAGES[:4] + [pytest.param(page, marks=pytest.mark.slow) for page in PAGES[4:]])
def test_all_numbers_hostile_at_once_on_every_page(client, page):
    """Every page (and download) with every numeric parameter hostile at once still answers, in its own words."""
    names = [*STATE_PARAMETERS, *(name for _, name, _ in PAGE_PARAMETERS)]
    for value in ("1e-1000000", "9" * 3000, "nan", "0x10"):  # 18 parameters of 3,000 digits stay under the query limit
        query = {name: value for name in names}
        for suffix in ({}, {"format": "json"}):
            response = client.get(f"/corpora/match-reviews/{page}".rstrip("/"), query_string={**query, **suffix})
            assert response.status_code in (200, 400), (page, value[:20], response.status_code)
            assert_no_internals(response.get_data(as_text=True), (page, value[:20]))


def run_cli(*args) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exit_:
            code = exit_.code
    return code, out.getvalue() + err.getvalue()


CLI_OPTIONS = ["--alpha", "--epsilon", "--min-df", "--max-df", "--max-features", "--ngram-range", "--class-prior"]


@pytest.mark.parametrize("option", slow_but_the_first(3, CLI_OPTIONS + ["--test-size", "--seed"]))
def test_every_number_on_the_command_line_is_refused_with_a_message(option):
    corpus = "webnb/examples/match-reviews.jsonl"
    for value in HOSTILE:
        if not value.strip() or value.startswith("-"):
            continue  # argparse reads these as options of their own
        code, output = run_cli("evaluate", "--train", corpus, option, value)
        assert code != 0, (option, value[:20])
        assert_no_internals(output, (option, value[:20]))
        assert "webnb" in output and len(output) < 6000, (option, value[:20])


def test_the_shared_parsers():
    assert parse_whole("007", low=0, high=10, what="n") == 7
    for bad in ("٣", "²", "1_0", "-1", "11", "9" * 41, ""):
        with pytest.raises(ValueError, match="must be a whole number from 0 to 10"):
            parse_whole(bad, low=0, high=10, what="n")
    assert parse_exact_decimal("0.1") == parse_exact_decimal("1/10") == parse_exact_decimal("1e-1")
    assert parse_exact_decimal("2.5e+2") == 250
    for bad, message in (("1e-101", "exponent between"), ("1" * 41, "at most 40"), ("1/0", "divide by 0"),
                         ("nan", "not 'nan'"), ("-1", "not '-1'"), ("0x1", "not '0x1'")):
        with pytest.raises(ValueError, match=message):
            parse_exact_decimal(bad)


def test_one_rule_for_whole_numbers_and_one_reader_for_document_bounds():
    """The digits 0-9 are checked in one place; min_df/max_df are read by one function, for pages and command line."""
    assert is_whole("007") and is_whole("9" * 100)  # what kind of number; parse_whole bounds its length
    for bad in ("", " 1", "1 ", "²", "٣", "１", "-1", "+1", "1.0", "1_0", "12\n"):
        assert not is_whole(bad), bad
    assert document_bound(" 2 ") == 2 and isinstance(document_bound("2"), int)
    assert document_bound("0.5", "max_df") == 0.5 and document_bound(".5") == 0.5
    for bad, message in (("1.5", "max_df as a fraction must be between 0 and 1, not 1.5"),
                         ("9" * 41, "from 0 to 1,000,000,000"), ("1e-1000", "write it as 2"), ("nan", "write it as 2"),
                         ("١", "write it as 2"), ("-1", "write it as 2")):
        with pytest.raises(ValueError, match=message):
            document_bound(bad, "max_df")


@pytest.mark.parametrize("model", ["multinomial", pytest.param("bernoulli", marks=pytest.mark.slow)])  # 1 s each
def test_a_long_review_with_an_awkward_alpha_shows_every_step(client, model):
    """2,400 short words at α = 1/7: an exact product would have tens of thousands of digits, more than Python
    writes out, so the steps show the float64 and log-space values without it."""
    for text in ("a " * 2400, "a b " * 1200, "match was sharp " * 300):
        for step in ("factors", "product", "decision", "underflow", "logspace"):
            query = {"text": text, "step": step, "alpha": "1/7", "model": model, "tokens": "words"}
            page = client.get("/corpora/match-reviews/inference", query_string=query)
            assert page.status_code == 200, (text[:10], step)
            assert_no_internals(page.get_data(as_text=True), (text[:10], step))
            twin = client.get("/corpora/match-reviews/inference", query_string={**query, "format": "json"})
            assert twin.status_code == 200


def test_an_exact_product_is_kept_while_it_can_be_written_out():
    from webnb.engine import TrainingSet, explain
    from webnb.engine.text.trace import EXACT_PRODUCT_BITS
    from webnb.examples import load_example_corpus

    training = TrainingSet.build(load_example_corpus("china-japan"))
    model = training.model("multinomial", "1/7")
    short = explain(model, training.bag, "Chinese Tokyo Japan " * 50)
    assert all(c.joint_exact is not None and c.joint_exact > 0 for c in short.per_class)
    assert max(c.joint_exact.denominator.bit_length() for c in short.per_class) < EXACT_PRODUCT_BITS
    long = explain(model, training.bag, "Chinese Tokyo Japan " * 1000)
    assert all(c.joint_exact is None for c in long.per_class)
    assert long.decision == short.decision == "not China" and all(c.joint == 0.0 for c in long.per_class)
