"""The Big List of Naughty Strings through every field a user controls, on every lesson page.

Fields: corpus texts, labels, corpus names (the paste form), file names (an upload's filename), column names
(a CSV header: the column preview, and the column fields of the upload form) and the review (``text`` in the
query). Each page is fetched whole and as its htmx fragment, parsed with html.parser (and html5lib and lxml
when they are installed) and must hold nothing the user typed as markup: no element our templates do not
use, no ``on…`` attribute, no ``javascript:`` URL, no script of our own but the two under /static/, and the
no htmx attribute or value that the same page showing harmless text lacks. Never a 500.

The strings are batched to keep this quick: all of them as the texts of one corpus, all of them as the
labels of another, all of them as the column names of one file; names, file names and reviews one per
request. Every test adds its number of checks (string × field × page) to CHECKS, printed at the end.
"""
from __future__ import annotations

import csv
import importlib.util
import io
import json
import re
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from bs4 import BeautifulSoup
from conftest import RAN_IN_THIS_PROCESS  # the plugin's own module: the set its hook fills
from test_views import LESSON_PAGES

from webnb import create_app
from webnb.engine.shared.corpus import Corpus
from webnb.lesson.state import MAX_TEXT_LENGTH, STEPS

DATA = Path(__file__).parent / "data" / "naughty-strings.json"
STRINGS: list[str] = json.loads(DATA.read_text(encoding="ascii"))
TEMPLATES = Path(__file__).resolve().parents[1] / "templates"
# The tag names our templates write (lower case, as the parsers report them).
OUR_TAGS = frozenset(
    name.lower()
    for path in TEMPLATES.rglob("*.html")
    for name in re.findall(r"<([A-Za-z][A-Za-z0-9-]*)", path.read_text())
)
PARSERS = ["html.parser"] + [name for name in ("html5lib", "lxml") if importlib.util.find_spec(name)]
URL_ATTRIBUTES = ("href", "src", "action", "formaction", "xlink:href", "poster", "data")
HX_URLS = ("hx-get", "hx-post", "hx-put", "hx-patch", "hx-delete", "hx-push-url", "hx-replace-url")
# Control characters and spaces a browser ignores in a URL's scheme ("java\tscript:" runs).
_URL_NOISE = re.compile(r"[\x00-\x20\x7f]+")

CHECKS: Counter = Counter()  # field -> (string, page) pairs checked


def test_the_list_is_the_vendored_one():
    assert len(STRINGS) == len(set(STRINGS)) == 516
    assert "<script>alert(123)</script>" in STRINGS and "" in STRINGS
    assert all(isinstance(s, str) for s in STRINGS)


# -- what a page may contain -------------------------------------------------------------------------------


def _hx_attributes(name: str, attributes) -> tuple | None:
    """An element's htmx attributes, URLs cut to their path (the query carries the state, user text
    included, percent-encoded), the corpus id and the CSRF token left out; None if it has none."""
    found = []
    for attribute, value in attributes:
        if not attribute.startswith(("hx-", "data-hx-")):
            continue
        value = value or ""
        if attribute in HX_URLS and value.startswith("/"):
            value = re.sub(r"^/corpora/[^/]+", "/corpora/{id}", urlsplit(value).path)
        elif attribute == "hx-headers":
            value = tuple(sorted(json.loads(value)))
        found.append((attribute, value))
    return (name, tuple(sorted(found))) if found else None


class PageScan(HTMLParser):
    """What a page holds as markup, read with the standard library's tokenizer (the one BeautifulSoup's
    html.parser uses) without building a tree: ten times faster on the multi-megabyte pages."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, list]] = []
        self.script_text = ""
        self._in_script = False
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, attrs))
        self._in_script = tag == "script"

    def handle_startendtag(self, tag, attrs):
        self.elements.append((tag, attrs))

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.script_text += data

    def hx_signature(self) -> frozenset:
        return frozenset(filter(None, (_hx_attributes(tag, attrs) for tag, attrs in self.elements)))


def hx_signature(html: str) -> frozenset:
    return PageScan(html).hx_signature()


def _check_element(tag: str, attributes, where: str) -> None:
    assert tag in OUR_TAGS, (where, "element", tag, attributes)
    for name, value in attributes:
        assert not name.lower().startswith("on"), (where, "attribute", tag, name)
        if name.lower() in URL_ATTRIBUTES:
            scheme = _URL_NOISE.sub("", value or "").lower()
            assert not scheme.startswith(("javascript:", "vbscript:")), (where, tag, name, value)
            assert not scheme.startswith("data:") or scheme == "data:,", (where, tag, name, value)  # our empty icon
    if tag == "script":
        assert dict(attributes).get("src", "").startswith("/static/"), (where, attributes)


def inert(html: str, reference: frozenset | None = None, where: str = "") -> None:
    """Nothing in ``html`` is markup that came from the user (see the module's docstring)."""
    scan = PageScan(html)
    for tag, attributes in scan.elements:
        _check_element(tag, attributes, where)
    # htmx, webnb.js, and on a class's pages htmx's SSE extension: each from /static/ (checked above).
    assert not scan.script_text.strip() and sum(tag == "script" for tag, _ in scan.elements) <= 3, where
    if reference is not None:
        # A subset: some controls show only for some data (the underflow step's form needs a review
        # with known words), but an htmx attribute or value the harmless page lacks came from the user.
        assert scan.hx_signature() <= reference, (where, scan.hx_signature() - reference)
    for parser in PARSERS[1:]:  # the HTML5 parsers, when installed, read the page as a browser would
        soup = BeautifulSoup(html, parser)
        for element in soup.find_all(True):
            attributes = [(k, " ".join(v) if isinstance(v, list) else v) for k, v in element.attrs.items()]
            _check_element(element.name, attributes, f"{where} {parser}")
        assert not any(script.get_text().strip() for script in soup.find_all("script")), where


def fetch(client, url, query=None, fragment=False, ok=(200,)):
    response = client.get(url, query_string=query or {}, headers={"HX-Request": "true"} if fragment else {})
    assert response.status_code in ok, (url, query, fragment, response.status_code)
    return response


# -- lesson pages of a corpus ------------------------------------------------------------------------------

# Every lesson page, plus every step of the inference page: (path suffix, extra query).
VIEWS = [(suffix, {}) for suffix in LESSON_PAGES] + [("/inference", {"step": step}) for step in STEPS[1:]]


def make_app(tmp_path):
    return create_app({"TESTING": True, "WTF_CSRF_ENABLED": False}, instance_path=str(tmp_path))


def add(app, texts, labels, name="corpus") -> str:
    ids = tuple(str(i) for i in range(1, len(texts) + 1))
    corpus = Corpus(texts=tuple(texts), labels=tuple(labels), ids=ids, name=name)
    return app.extensions["webnb"]["catalog"].add(corpus, name=name, source="test")


def lesson_signatures(client, corpus_id, query) -> dict:
    """The htmx signature of every view, whole and as a fragment, for a corpus holding harmless text."""
    signatures = {}
    for suffix, extra in VIEWS:
        for fragment in (False, True):
            page = fetch(client, f"/corpora/{corpus_id}{suffix}", {**query, **extra}, fragment)
            signatures[suffix, tuple(extra.items()), fragment] = hx_signature(page.get_data(as_text=True))
    return signatures


def check_lesson(client, corpus_id, query, reference) -> int:
    """Every view whole and as a fragment, and its JSON twin; returns the number of pages checked."""
    pages = 0
    for suffix, extra in VIEWS:
        url = f"/corpora/{corpus_id}{suffix}"
        for fragment in (False, True):
            page = fetch(client, url, {**query, **extra}, fragment)
            inert(page.get_data(as_text=True), reference[suffix, tuple(extra.items()), fragment],
                  f"{url} {extra} hx={fragment}")
            pages += 1
        twin = fetch(client, url, {**query, **extra, "format": "json"})
        assert twin.is_json and isinstance(twin.get_json(), dict)
        pages += 1
    return pages


def two_labels(n):
    return ["pos" if i % 2 else "neg" for i in range(n)]


@pytest.mark.slow
def test_every_string_as_a_corpus_text(tmp_path):
    app = make_app(tmp_path)
    client = app.test_client()
    harmless = add(app, [f"plain{i} words{i % 7} here" for i in range(len(STRINGS))], two_labels(len(STRINGS)))
    naughty = add(app, STRINGS, two_labels(len(STRINGS)))
    query = {"alpha": "1", "text": "plain1 words here"}
    pages = check_lesson(client, naughty, query, lesson_signatures(client, harmless, query))
    # Every document page of the corpus: each text is shown as it was given, as text.
    per_page = 50
    shown = []
    for page_number in range(1, -(-len(STRINGS) // per_page) + 1):
        for fragment in (False, True):
            page = fetch(client, f"/corpora/{naughty}", {"page": page_number}, fragment)
            html = page.get_data(as_text=True)
            inert(html)
            pages += 1
            if fragment:
                shown += [cell.get_text() for cell in BeautifulSoup(html, "html.parser").select("td.doc-text")]
    assert shown == STRINGS
    CHECKS["corpus text"] += len(STRINGS) * pages


@pytest.mark.slow
def test_every_string_as_a_label(tmp_path):
    app = make_app(tmp_path)
    client = app.test_client()
    # Labels arrive stripped and non-empty from every form and file reader.
    labels = list(dict.fromkeys(s.strip() for s in STRINGS if s.strip()))
    texts = [f"word{i % 8} shared" for i in range(len(labels))]  # few words: the class × word tables stay small
    harmless = add(app, texts, [f"class{i}" for i in range(len(labels))])
    naughty = add(app, texts, labels)
    query = {"alpha": "1", "text": "word1 shared"}
    pages = check_lesson(client, naughty, query, lesson_signatures(client, harmless, query))
    data = fetch(client, f"/corpora/{naughty}", {"format": "json"}).get_json()
    assert sorted(data["class_counts"]) == sorted(labels)
    CHECKS["label"] += len(labels) * pages


@pytest.mark.slow
def test_every_string_as_a_review(tmp_path):
    app = make_app(tmp_path)
    client = app.test_client()
    corpus_id = "match-reviews"
    query = {"alpha": "1", "model": "multinomial"}
    reference = lesson_signatures(client, corpus_id, {**query, "text": "plain review"})
    pages = 0
    # One string per request on the pages that show the review itself.
    for text in STRINGS:
        for suffix in ("/inference", "/confidence"):
            for fragment in (False, True):
                page = fetch(client, f"/corpora/{corpus_id}{suffix}", {**query, "text": text}, fragment)
                inert(page.get_data(as_text=True), reference[suffix, (), fragment], f"{suffix} {text!r}")
                pages += 1
    CHECKS["review"] += pages
    # All of them, a few to a review, through every view and every inference step.
    batches, batch = [], ""
    for text in STRINGS:
        if len(batch) + len(text) + 1 > MAX_TEXT_LENGTH:
            batches.append(batch)
            batch = ""
        batch += text + "\n"
    batches.append(batch)
    for batch in batches:
        twin = fetch(client, f"/corpora/{corpus_id}/inference", {**query, "text": batch, "format": "json"})
        assert twin.get_json()["text"] == batch
        pages = check_lesson(client, corpus_id, {**query, "text": batch}, reference)
    CHECKS["review"] += len(STRINGS) * pages


@pytest.mark.slow
def test_every_string_as_a_corpus_name(tmp_path):
    app = make_app(tmp_path)
    client = app.test_client()
    harmless = client.post("/corpora/paste", data={"corpus": "pos,great match\nneg,dull match", "name": "Plain"})
    reference = lesson_signatures(client, harmless.headers["Location"].rsplit("/", 1)[1], {})
    index_reference = hx_signature(client.get("/corpora").get_data(as_text=True))
    locations = []
    for name in STRINGS:
        response = client.post("/corpora/paste", data={"corpus": "pos,great match\nneg,dull match", "name": name})
        assert response.status_code == 303, name
        locations.append(response.headers["Location"])
        page = fetch(client, response.headers["Location"])
        html = page.get_data(as_text=True)
        inert(html, reference["", (), False], repr(name))
        assert BeautifulSoup(html, "html.parser").h1.get_text() == (name.strip() or "Pasted corpus")
    # Pages that list every stored corpus by name (the list, a choice of test corpus), whole and as fragments.
    inert(client.get("/corpora").get_data(as_text=True), index_reference, "/corpora")
    corpora_page = BeautifulSoup(client.get("/corpora").get_data(as_text=True), "html.parser")
    listed = [a.get_text() for a in corpora_page.select("#stored-title ~ ul a")]
    assert sorted(listed) == sorted([name.strip() or "Pasted corpus" for name in STRINGS] + ["Plain"])
    pages = check_lesson(client, locations[0].rsplit("/", 1)[1], {}, reference)
    # Each name on its own page, in the list, and on the evaluation page (whole and fragment: its choice of a
    # test corpus names them all); the first corpus's name also on every view.
    CHECKS["corpus name"] += len(STRINGS) * 4 + pages


def on_the_wire(filename: str) -> str:
    """The test client writes the file name between double quotes as it is; escaped like this, the
    server reads back exactly ``filename`` (browsers would send %22 for a quote instead)."""
    return filename.replace("\\", "\\\\").replace('"', '\\"')


def upload(client, filename, data, **fields):
    return client.post(
        "/corpora/upload",
        data={"file": (io.BytesIO(data), on_the_wire(filename)), **fields},
        content_type="multipart/form-data",
    )


def inspect(client, filename, data):
    return client.post(
        "/corpora/upload/inspect",
        data={"file": (io.BytesIO(data), on_the_wire(filename))},
        content_type="multipart/form-data",
    )


GOOD_CSV = b"label,text\npos,great match\nneg,dull match\n"
BAD_CSV = b"label,text\npos,caf\xe9\n"


@pytest.mark.slow
def test_every_string_as_a_file_name(tmp_path):
    app = make_app(tmp_path)
    client = app.test_client()
    index_reference = hx_signature(client.get("/corpora").get_data(as_text=True))
    columns_reference = hx_signature(inspect(client, "plain.csv", BAD_CSV).get_data(as_text=True))
    pages = 0
    for filename in STRINGS:
        refused = upload(client, filename, BAD_CSV)
        assert refused.status_code == 400, (filename, refused.status_code)
        inert(refused.get_data(as_text=True), index_reference, repr(filename))
        error = BeautifulSoup(refused.get_data(as_text=True), "html.parser").find(id="form-error").get_text()
        assert ("not UTF-8" in error) if filename else ("Choose a file" in error)
        preview = inspect(client, filename, BAD_CSV)
        assert preview.status_code == 200
        inert(preview.get_data(as_text=True), columns_reference if filename else None, repr(filename))
    pages += 2
    assert app.extensions["webnb"]["storage"].list_corpora() == []
    lesson_reference = None
    for filename in STRINGS[1:]:  # "" is "no file chosen", refused above
        response = upload(client, filename, GOOD_CSV)
        assert response.status_code == 303, (filename, response.status_code, response.get_data(as_text=True)[:300])
        page = fetch(client, response.headers["Location"])
        html = page.get_data(as_text=True)
        if lesson_reference is None:
            lesson_reference = hx_signature(html)
        inert(html, lesson_reference, repr(filename))
        assert BeautifulSoup(html, "html.parser").h1.get_text() == filename
    pages += 1
    listing = client.get("/corpora").get_data(as_text=True)
    inert(listing, index_reference, "/corpora")
    listed = BeautifulSoup(listing, "html.parser").select("#stored-title ~ ul span.muted")
    sources = [span.get_text() for span in listed]
    assert sorted(source.split(" documents · uploaded ", 1)[1] for source in sources) == sorted(STRINGS[1:])
    pages += 1
    CHECKS["file name"] += len(STRINGS) * pages


def wide_table(strings) -> tuple[bytes, list[str]]:
    """A CSV whose header is label, text and then every string of up to 100 characters (a longer first-row
    cell reads as a document, not a column name); the longer ones are its texts, one a row. Returns the file
    and its column names as the app makes them unique."""
    short = [s for s in strings if len(s) <= 100]
    long = [s for s in strings if len(s) > 100]
    header = ["label", "text", *short]
    rows = [header] + [["pos" if i % 2 else "neg", text, *("x" * len(short))] for i, text in enumerate(long)]
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    names = []
    for i, cell in enumerate(header, start=1):  # as uploads._column_names makes them unique
        name = cell.strip()
        if not name or name in names:
            name = f"{name} (column {i})" if name else f"column {i}"
        names.append(name)
    return buffer.getvalue().encode(), names


@pytest.mark.slow
def test_every_string_as_a_column_name(tmp_path):
    app = make_app(tmp_path)
    client = app.test_client()
    data, columns = wide_table(STRINGS)
    harmless, _ = wide_table([f"col{i}" + "x" * (120 if i % 9 == 0 else 0) for i in range(len(STRINGS))])
    reference = hx_signature(inspect(client, "t.csv", harmless).get_data(as_text=True))
    preview = inspect(client, "t.csv", data)
    assert preview.status_code == 200
    html = preview.get_data(as_text=True)
    inert(html, reference, "column preview")
    soup = BeautifulSoup(html, "html.parser")
    assert [option["value"] for option in soup.find("select", id="label-column").find_all("option")] == columns
    assert [option.get_text() for option in soup.find("select", id="text-column").find_all("option")] == columns
    assert [th.get_text() for th in soup.select("table.preview thead th")] == columns
    index_reference = hx_signature(client.get("/corpora").get_data(as_text=True))
    # Each string as a chosen column that is not there: the message names it and lists the columns.
    for name in STRINGS:
        refused = upload(client, "t.csv", GOOD_CSV, label_column=name, text_column="text")
        # A blank field means "the detected column".
        assert refused.status_code == (303 if name.strip() in ("", "label") else 400), (name, refused.status_code)
        if refused.status_code == 400:
            inert(refused.get_data(as_text=True), index_reference, repr(name))
    # Each column of the wide file chosen as the label column: read, or refused with a message.
    for name in columns[2:]:
        response = upload(client, "t.csv", data, label_column=name, text_column="text")
        assert response.status_code in (303, 400), (name, response.status_code)
        if response.status_code == 400:
            inert(response.get_data(as_text=True), index_reference, repr(name))
    CHECKS["column name"] += len(STRINGS) * 3


def expected_checks() -> dict[str, tuple[str, int]]:
    """Each field of CHECKS: the test that checks it and how many (string, page) pairs that test checks, counted
    from the lists the tests walk (VIEWS, the pages of a document list, the strings a field keeps)."""
    from test_gaussian_naughty import VIEWS as GAUSSIAN_VIEWS

    lesson = 3 * len(VIEWS)  # every view whole, as a fragment, and its JSON twin
    document_pages = 2 * -(-len(STRINGS) // 50)  # the corpus's document pages, whole and as fragments
    kept = len(list(dict.fromkeys(s.strip() for s in STRINGS if s.strip())))  # stripped, non-empty, unique
    table = 3 * len(GAUSSIAN_VIEWS)
    return {
        "corpus text": ("test_naughty_strings.py::test_every_string_as_a_corpus_text",
                        len(STRINGS) * (lesson + document_pages)),
        "label": ("test_naughty_strings.py::test_every_string_as_a_label", kept * lesson),
        "review": ("test_naughty_strings.py::test_every_string_as_a_review", len(STRINGS) * (2 * 2 + lesson)),
        "corpus name": ("test_naughty_strings.py::test_every_string_as_a_corpus_name", len(STRINGS) * 4 + lesson),
        "file name": ("test_naughty_strings.py::test_every_string_as_a_file_name", len(STRINGS) * 4),
        "column name": ("test_naughty_strings.py::test_every_string_as_a_column_name", len(STRINGS) * 3),
        "feature name": ("test_gaussian_naughty.py::test_every_string_as_a_feature_name", kept * table),
        "table label": ("test_gaussian_naughty.py::test_every_string_as_a_label", kept * table),
        "typed value": ("test_gaussian_naughty.py::test_every_string_typed_as_a_value", len(STRINGS) * 2 * 2),
    }


def test_report_the_checks(request, capsys):
    """Runs last (file order): prints what was checked, for the record, and that it is what the sweeps of this
    run (the selected ones: `-m "not slow"` runs none) check: each field's count exactly, nothing missing."""
    total = sum(CHECKS.values())
    with capsys.disabled():
        print(f"\nnaughty strings: {len(STRINGS)}; string × page checks per field: {dict(CHECKS)}; "
              f"total {total:,}; parsers {PARSERS}")
    expected = expected_checks()
    # The sweeps that ran in this process: with the suite on several workers, another may have run the others.
    ran_before = {nodeid.rsplit("/", 1)[-1] for nodeid in RAN_IN_THIS_PROCESS}
    wanted = {field: count for field, (test, count) in expected.items() if test in ran_before}
    assert dict(CHECKS) == wanted  # a field missing here is a sweep that failed before counting its checks
    assert total == sum(wanted.values())
