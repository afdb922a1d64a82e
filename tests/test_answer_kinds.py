"""One rule decides JSON or HTML for every answer (webnb/answers.py, ``wants_json``), and one writes every CSV cell
(the engine's ``csv_text``): asked with ``Accept: application/json``, every page of the app, its htmx fragment and
its errors answer JSON; asked as a browser asks, HTML. A download answers its file either way, and its errors in
the kind that was asked for."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from tests.test_class_questions import ask, lecture_on

BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
JSON_ACCEPT = "application/json"
# Addresses that name a file: they answer the file whatever was asked for (only their errors follow the rule).
FILE_SUFFIXES = (".csv", ".ipynb", ".svg", ".json")
# Routes that are not pages: the static files and the class's event stream (text/event-stream or its errors).
NOT_PAGES = {"static", "events.class_events"}


def route_addresses(app, code: str, number: int) -> dict[str, tuple[str, str]]:
    """Every GET route of the app (but NOT_PAGES) as (an address that exists, one that does not)."""
    built_in = {"gaussian": "iris"}
    addresses = {}
    for rule in app.url_map.iter_rules():
        if "GET" not in rule.methods or rule.endpoint in NOT_PAGES:
            continue
        corpus = next((corpus for prefix, corpus in built_in.items() if f"/{prefix}" in rule.rule), "match-reviews")
        values = {"corpus_id": corpus, "code": code, "number": number, "page": "evaluation", "name": "sweep",
                  "typed": code, "job_id": "0" * 32, "token": "0" * 32}
        good = rule.rule
        for name, value in values.items():
            good = re.sub(rf"<(?:[a-z]+:)?{name}>", str(value), good)
        bad = (good.replace(f"/{corpus}", "/no-such-corpus").replace(code, "QQQQQQ")
               .replace(f"/{number}", "/999"))
        addresses[rule.endpoint] = (good, bad)
    return addresses


@pytest.fixture()
def class_and_addresses(app):
    lecture, lecturer, student = lecture_on(app)
    number = ask(lecturer, lecture.code, "predict")
    return lecturer, route_addresses(app, lecture.code, number)


def kind(response) -> str:
    if response.mimetype == "application/json":
        return "json"
    if response.mimetype == "text/html":
        return "html"
    return response.mimetype


def test_every_route_is_asked(class_and_addresses):
    _, addresses = class_and_addresses
    assert len(addresses) >= 45  # every GET route but the static files and the stream


@pytest.mark.parametrize("accept, expected", [(JSON_ACCEPT, "json"), (BROWSER_ACCEPT, "html"), ("*/*", "html")])
def test_a_page_and_its_errors_answer_the_kind_asked_for(class_and_addresses, accept, expected):
    lecturer, addresses = class_and_addresses
    wrong = []
    for endpoint, (good, bad) in sorted(addresses.items()):
        is_file = good.endswith(FILE_SUFFIXES)
        answered = lecturer.get(good, headers={"Accept": accept})
        refused = lecturer.get(bad, headers={"Accept": accept})
        if refused.status_code < 400:
            refused = None  # an address with nothing to get wrong in it (the list of corpora, the join form)
        if not is_file and answered.status_code not in (301, 302, 303) and kind(answered) != expected:
            wrong.append(f"{endpoint} {good}: {answered.status_code} {answered.mimetype}")
        if refused is not None and kind(refused) != expected:
            wrong.append(f"{endpoint} {bad}: {refused.status_code} {refused.mimetype}")
    assert not wrong, "\n".join(wrong)


def test_an_htmx_fragment_and_its_error_answer_json_when_json_is_asked_for(client):
    htmx = {"HX-Request": "true", "Accept": JSON_ACCEPT}
    page = client.get("/corpora/match-reviews/inference?text=brilliant+match&alpha=1", headers=htmx)
    assert page.status_code == 200 and page.is_json and page.get_json()["statements"]
    error = client.get("/corpora/no-such-corpus/inference?text=brilliant", headers=htmx)
    assert error.status_code == 404 and error.get_json() == {"error": error.get_json()["error"]}
    # As htmx asks (Accept: */*), the fragment and its refusal are HTML.
    htmx["Accept"] = "*/*"
    assert client.get("/corpora/match-reviews/inference?text=match", headers=htmx).mimetype == "text/html"
    refused = client.get("/corpora/no-such-corpus/inference", headers=htmx)
    assert refused.status_code == 404 and refused.headers["X-Webnb-Refusal"] == "1"


def test_the_json_twin_asked_by_accept_is_the_one_asked_by_format(client):
    address = "/corpora/china-japan/inference?model=multinomial&alpha=1&text=Chinese+Chinese+Chinese+Tokyo+Japan"
    by_format = client.get(address + "&format=json").get_json()
    by_accept = client.get(address, headers={"Accept": JSON_ACCEPT}).get_json()
    assert by_accept == by_format and by_format["statements"]


def test_the_lectures_twin_lists_every_slide_with_its_own_twin(client):
    twin = client.get("/corpora/china-japan/lecture?model=multinomial&alpha=1&text=Chinese+Tokyo",
                      headers={"Accept": JSON_ACCEPT}).get_json()
    assert twin["total"] == len(twin["slides"]) == 30
    first, decision = twin["slides"][0], next(s for s in twin["slides"] if s["slide"] == "decision")
    assert (first["number"], first["page"], first["problem"]) == (1, "corpus", None)
    alone = client.get(decision["twin_address"]).get_json()
    assert decision["twin"] == alone and "presenter=1" in decision["address"]


def test_a_large_corpus_lecture_twin_leaves_each_twin_to_its_address(client, monkeypatch):
    """A twin never waits for counting: one request must not compute every slide of a large corpus at once."""
    from webnb.views import handouts

    monkeypatch.setattr(handouts, "LARGE_CORPUS", 4)  # china-japan's four documents are "large" here
    assert client.get("/corpora/china-japan/lecture?format=json").get_json()["total"] == 30
    monkeypatch.setattr(handouts, "LARGE_CORPUS", 3)
    slides = client.get("/corpora/china-japan/lecture?format=json").get_json()["slides"]
    assert all(s["twin"] is None and s["problem"] == handouts.LARGE_CORPUS_TWINS for s in slides)
    assert client.get(slides[0]["twin_address"]).get_json()["documents"]


# -- architecture: one rule each ---------------------------------------------------------------------------------

PACKAGE = REPO_ROOT / "webnb"


def python_files():
    return sorted(PACKAGE.rglob("*.py"))


def test_one_function_decides_json():
    defined = [f"{path.relative_to(REPO_ROOT)}" for path in python_files()
               for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
               if isinstance(node, ast.FunctionDef) and node.name == "wants_json"]
    assert defined == ["webnb/answers.py"]
    # Nobody else reads the Accept header or asks for ?format=json by hand.
    readers = [str(path.relative_to(REPO_ROOT)) for path in python_files() if path.name != "answers.py"
               and re.search(r"accept_mimetypes|\.get\(\"format\"\)|\"format\"\)\.value", path.read_text("utf-8"))]
    assert readers == []


def test_one_function_writes_csv():
    writers = [str(path.relative_to(REPO_ROOT)) for path in python_files()
               if re.search(r"csv\.(writer|DictWriter)\(", path.read_text(encoding="utf-8"))]
    assert writers == ["webnb/engine/export/tables.py"]


def test_the_answers_module_imports_no_view():
    tree = ast.parse((PACKAGE / "answers.py").read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not {name for name in imported if name and name.startswith("webnb")}
    assert Path(PACKAGE / "answers.py").is_file()
