"""The lesson pages: full pages and htmx fragments, JSON twins, bad input, corpora added by users."""
from __future__ import annotations

import gzip
import io
import json
import zipfile

import pytest
from bs4 import BeautifulSoup
from conftest import slow_but_the_first, soup_of

from webnb import create_app
from webnb.lesson.pages import TEXT_PAGES
from webnb.lesson.state import STEPS

# Each text page's address after /corpora/<id>: the id and the tag of the element its fragment replaces. One
# parameter and its Beta prior need a word and a class (their own tests: test_parameter_cell, test_beta_prior).
LESSON_PAGES = {page.path: (page.fragment, "section" if page.in_menu else "div") for page in TEXT_PAGES
                if page.key not in ("cell", "prior")}


pytestmark = pytest.mark.on_both_databases  # every view test on SQLite and on PostgreSQL


def stored_count(app) -> int:
    return len(app.extensions["webnb"]["storage"].list_corpora())


# -- pages and fragments ------------------------------------------------------------------------------


@pytest.mark.parametrize("corpus_id", ["match-reviews"] + [  # every page of one corpus in the fast run
    pytest.param(name, marks=pytest.mark.slow) for name in ("china-japan", "folgers-students", "spam-ham")])
@pytest.mark.parametrize("suffix", list(LESSON_PAGES))
def test_full_page_and_fragment(client, corpus_id, suffix):
    url = f"/corpora/{corpus_id}{suffix}"
    block_id, tag = LESSON_PAGES[suffix]
    page = client.get(url)
    assert page.status_code == 200 and "HX-Request" in page.headers["Vary"]
    full = soup_of(page)
    assert full.find("html") is not None and full.find(id=block_id) is not None
    fragment = client.get(url, headers={"HX-Request": "true"})
    assert fragment.status_code == 200 and "HX-Request" in fragment.headers["Vary"]
    part = soup_of(fragment)
    assert part.find("html") is None and part.find("header") is None
    top = [element for element in part.contents if getattr(element, "name", None)]
    assert [(element.name, element.get("id")) for element in top] == [(tag, block_id)]


def test_unknown_corpus_is_404(client):
    for suffix in LESSON_PAGES:
        assert client.get(f"/corpora/no-such-corpus{suffix}").status_code == 404


def test_every_step_renders_in_both_models(client):
    for model, corpus_id, text in (
        ("bernoulli", "match-reviews", "not sharp match"), ("multinomial", "china-japan", "Chinese Tokyo Japan")
    ):
        for alpha in ("0", "1"):
            for step in STEPS:
                response = client.get(f"/corpora/{corpus_id}/inference",
                                      query_string={"model": model, "alpha": alpha, "text": text, "step": step})
                assert response.status_code == 200, (model, alpha, step)
                soup = soup_of(response)
                assert soup.find(id="step-title").get_text().startswith(f"{STEPS.index(step) + 1}.")


# -- the numbers on the pages --------------------------------------------------------------------------


def test_parameters_page_shows_the_seed_table(client):
    soup = soup_of(client.get("/corpora/match-reviews/parameters", query_string={"model": "bernoulli", "alpha": "0"}))
    rows = {row.th.get_text(strip=True): [td.summary.find(class_="frac").get_text() for td in row.find_all("td")]
            for row in soup.find("table", class_="params").tbody.find_all("tr")}
    assert rows["keeper"] == ["0/2", "1/3"] and rows["not"] == ["2/2", "0/3"] and rows["was"] == ["2/2", "2/3"]
    flagged = {(row.th.get_text(strip=True), i) for row in soup.find("table", class_="params").tbody.find_all("tr")
               for i, td in enumerate(row.find_all("td")) if "breaks" in td.get("class", [])}
    assert ("not", 1) in flagged and ("was", 0) in flagged and ("composed", 0) not in flagged
    assert "K(d + 1) = 18" in soup.get_text() and "= 511" in soup.get_text()


def test_parameters_json_twin(client):
    data = client.get("/corpora/china-japan/parameters",
                      query_string={"model": "multinomial", "alpha": "1", "format": "json"}).get_json()
    assert data["classes"] == ["China", "not China"]
    assert [p["exact"] for p in data["priors"]] == ["3/4", "1/4"]
    chinese = next(w for w in data["words"] if w["word"] == "chinese")
    assert [c["ratio"] for c in chinese["per_class"]] == ["6/14", "2/9"]
    assert data["parameter_count"] == 2 * 7


def test_inference_json_twin_cannot_decide_then_decides(client):
    query = {"model": "bernoulli", "text": "not sharp match", "format": "json"}
    at_zero = client.get("/corpora/match-reviews/inference", query_string={**query, "alpha": "0"}).get_json()
    assert at_zero["trace"]["decision"] is None and at_zero["trace"]["cannot_decide"] is True
    smoothed = client.get("/corpora/match-reviews/inference", query_string={**query, "alpha": "1"}).get_json()
    assert smoothed["trace"]["decision"] == "negative"
    assert json.dumps(smoothed, allow_nan=False)


def test_inference_page_says_cannot_decide(client):
    soup = soup_of(client.get("/corpora/match-reviews/inference",
                              query_string={"alpha": "0", "text": "not sharp match", "step": "decision"}))
    assert "cannot decide" in soup.find(class_="verdict").get_text()
    soup = soup_of(client.get("/corpora/match-reviews/inference",
                              query_string={"alpha": "1", "text": "not sharp match", "step": "decision"}))
    assert soup.find(class_="verdict").strong.get_text() == "negative"


def test_matrix_page_pages_both_axes_and_filters(client):
    data = client.get("/corpora/spam-ham/matrix", query_string={"format": "json", "values": "counts"}).get_json()
    assert data["documents"] == 16 and data["words_pages"] >= 2 and len(data["words"]) == 16
    filtered = client.get("/corpora/spam-ham/matrix", query_string={"format": "json", "q": "claim"}).get_json()
    assert filtered["words"] == ["claim"] and filtered["matching_words"] == 1
    claim_rows = [row["id"] for row in filtered["rows"] if row["values"][0]]
    assert claim_rows == ["1", "2", "5"]
    soup = soup_of(client.get("/corpora/folgers-students/matrix", query_string={"values": "counts", "q": "cup"}))
    cells = [td.get_text() for td in soup.find("table", class_="matrix").tbody.find_all("td", class_="num")]
    assert cells == ["2", "0"]
    link = soup.find("table", class_="matrix").tbody.th.a["href"]
    assert link.startswith("/corpora/folgers-students?") and link.endswith("#doc-0")


def test_corpus_page_previews_tokens_and_dropped_words(client):
    soup = soup_of(client.get("/corpora/spam-ham", query_string={"stop_words": "english", "normalize": "phone,money"}))
    first = soup.find(id="doc-0")
    tokens = [span.get_text() for span in first.find_all(class_="token")]
    assert "__phone__" in tokens and "winner" in tokens
    dropped = [d.get_text() for d in first.find_all("del")]
    assert "you" in dropped and "have" in dropped


def test_state_survives_in_links(client):
    query = {"alpha": "0.5", "text": "sharp match", "step": "factors", "notation": "pi-theta"}
    soup = soup_of(client.get("/corpora/match-reviews/inference", query_string=query))
    next_link = soup.find("a", attrs={"data-step": "next"})["href"]
    assert "alpha=0.5" in next_link and "step=product" in next_link and "notation=pi-theta" in next_link
    assert "text=sharp+match" in next_link
    # The corpus's own review is its default: links leave it out, and an empty review is written as one.
    for review, written in (("match was sharp", None), ("", "text=&")):
        soup = soup_of(client.get("/corpora/match-reviews/inference", query_string={**query, "text": review}))
        next_link = soup.find("a", attrs={"data-step": "next"})["href"]
        assert ("text=" in next_link) == (written is not None), next_link
        if written:
            assert written in next_link + "&"


# -- bad input -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "query, field, message",
    slow_but_the_first(3, [
        ({"alpha": "abc"}, "alpha", "must be a number"),
        ({"alpha": "-1"}, "alpha", "0 or more"),
        ({"model": "gaussian"}, "model", "Bernoulli, multinomial or Complement"),
        ({"step": "nope"}, "step", "no such step"),
        ({"text": "x" * 6000}, "text", "the limit is 5,000"),
        ({"repeats": "0"}, "repeats", "between 1 and 5,000"),
    ]),
)
def test_bad_settings_give_a_message_and_the_default(client, query, field, message):
    response = client.get("/corpora/match-reviews/inference", query_string=query)
    assert response.status_code == 200
    errors = soup_of(response).find(class_="errors")
    assert errors is not None and field in errors.get_text() and message in errors.get_text()


@pytest.mark.parametrize("raw", ["2", " 2 ", "02"])
def test_a_document_number_opens_that_document_in_the_review_box(client, raw):
    data = client.get("/corpora/match-reviews/inference", query_string={"document": raw, "format": "json"}).get_json()
    assert data["error"] is None and data["text"] == "brilliant match"  # the third review of the corpus
    soup = soup_of(client.get("/corpora/match-reviews/inference", query_string={"document": raw}))
    assert soup.find("textarea", attrs={"name": "text"}).get_text().strip() == "brilliant match"


@pytest.mark.parametrize("raw", slow_but_the_first(2, ["abc", "-1", "1.5", "5", "²", "9" * 41]))
def test_a_document_that_is_not_there_is_said_so(client, raw):
    data = client.get("/corpora/match-reviews/inference", query_string={"document": raw, "format": "json"}).get_json()
    plain = client.get("/corpora/match-reviews/inference", query_string={"format": "json"}).get_json()
    assert data["error"] == "There is no such document." and data["text"] == plain["text"] == "match was sharp"


@pytest.mark.parametrize("of", ["words", "", " evaluation", "Parameters"])
def test_a_check_of_anything_but_the_parameters_or_the_evaluation_is_a_400(client, of):
    message = "A check is of the parameters or of the evaluation (of=parameters or of=evaluation)."
    soup = soup_of(client.get("/corpora/match-reviews/parity", query_string={"of": of}), status=400)
    badge = soup.find(id="parity-parameters").get_text(" ", strip=True)
    assert badge == f"– Not checked against scikit-learn: {message}"
    response = client.get("/corpora/match-reviews/parity", query_string={"of": of, "format": "json"})
    assert response.status_code == 400
    assert response.get_json() == {"of": "parameters", "status": "error", "error": message}


@pytest.mark.parametrize(
    "corpus, message",
    [
        ("positive keeper was sharp", "line 1: no TAB or comma"),
        ("spam,win money\nspam,free prize", "at least two classes"),
        ("a,b\nc,d", "No words were found"),
        ("", "no documents"),
    ],
)
def test_pasting_a_bad_corpus_stores_nothing(app, client, corpus, message):
    response = client.post("/corpora/paste", data={"corpus": corpus, "name": "bad"})
    soup = soup_of(response, status=400)
    error = soup.find(id="form-error")
    assert error is not None and message.lower() in error.get_text().lower()
    assert stored_count(app) == 0
    assert soup.find("textarea", id="paste-corpus").get_text() == corpus  # kept for correcting


def test_pasting_a_corpus_stores_it_and_opens_it(app, client):
    response = client.post(
        "/corpora/paste", data={"corpus": "pos\tgreat match\nneg\tdull match\npos,great keeper", "name": "Live"})
    assert response.status_code == 303
    corpus_url = response.headers["Location"]
    page = soup_of(client.get(corpus_url))
    assert page.h1.get_text() == "Live"
    assert stored_count(app) == 1
    listing = soup_of(client.get("/corpora")).find(id="stored-title").find_next("ul").get_text()
    assert "Live" in listing and "3 documents" in listing
    data = client.get(
        corpus_url + "/parameters", query_string={"format": "json", "model": "bernoulli", "alpha": "0"}).get_json()
    assert data["classes"] == ["neg", "pos"]


def _upload(client, filename, data, **fields):
    return client.post(
        "/corpora/upload", data={"file": (io.BytesIO(data), filename), **fields}, content_type="multipart/form-data")


@pytest.mark.parametrize(
    "filename, payload",
    [
        ("reviews.csv", b"label,text\npos,great match\nneg,dull match\n"),
        ("reviews.tsv", "label\ttext\npos\tgreat match\nneg\tdull match\n".encode()),
        ("reviews.jsonl", b'{"label": "pos", "text": "great match"}\n{"label": "neg", "text": "dull match"}\n'),
        ("reviews.csv.gz", gzip.compress(b"\xef\xbb\xbflabel,text\r\npos,great match\r\nneg,dull match\r\n", mtime=0)),
    ],
)
def test_uploads_of_each_format(app, client, filename, payload):
    response = _upload(client, filename, payload)
    assert response.status_code == 303, response.get_data(as_text=True)[:500]
    data = client.get(response.headers["Location"] + "/matrix", query_string={"format": "json"}).get_json()
    assert data["documents"] == 2 and data["vocabulary_size"] == 3


def test_upload_of_a_zip_with_a_folder_per_class(client):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("reviews/pos/1.txt", "great match")
        archive.writestr("reviews/neg/2.txt", "dull match")
        archive.writestr("reviews/pos/3.txt", "brilliant keeper")
    response = _upload(client, "reviews.zip", buffer.getvalue())
    assert response.status_code == 303
    page = client.get(response.headers["Location"], query_string={"format": "json"}).get_json()
    assert page["class_counts"] == {"neg": 1, "pos": 2}


def test_upload_with_chosen_columns(client):
    payload = b"id,category,body\n1,pos,great match\n2,neg,dull match\n"
    response = _upload(client, "x.csv", payload, label_column="category", text_column="body")
    assert response.status_code == 303


@pytest.mark.parametrize(
    "filename, payload, message",
    [
        ("bad.csv", b"label,text\npos,caf\xe9\n", "not UTF-8"),
        ("one.csv", b"label,text\npos,great\npos,fine\n", "at least two classes"),
        ("evil.zip", None, "unsafe path"),
    ],
)
def test_bad_uploads_store_nothing(app, client, filename, payload, message):
    if payload is None:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr("../pos/1.txt", "x")
        payload = buffer.getvalue()
    response = _upload(client, filename, payload)
    assert message.lower() in soup_of(response, status=400).find(id="form-error").get_text().lower()
    assert stored_count(app) == 0


def test_an_upload_over_the_limit_is_refused(tmp_path):
    app = create_app(
        {"TESTING": True, "WTF_CSRF_ENABLED": False, "MAX_CONTENT_LENGTH": 1000}, instance_path=str(tmp_path))
    response = _upload(app.test_client(), "big.csv", b"label,text\n" + b"pos,word\n" * 500)
    assert "larger than the limit" in soup_of(response, status=413).find(id="form-error").get_text()
    assert stored_count(app) == 0


def test_column_inspection_offers_the_columns(client):
    payload = b"id;category;body\n1;pos;great match\n2;neg;dull match\n3;pos;fine\n4;neg;poor\n"
    response = client.post(
        "/corpora/upload/inspect", data={"file": (io.BytesIO(payload), "x.csv")}, content_type="multipart/form-data")
    soup = soup_of(response)
    label_options = soup.find("select", id="label-column").find_all("option")
    assert [o.get_text() for o in label_options] == ["id", "category", "body"]
    assert soup.find("select", id="label-column").find("option", selected=True).get_text() == "category"
    assert soup.find("select", id="text-column").find("option", selected=True).get_text() == "body"


def test_state_changes_need_a_csrf_token(tmp_path):
    app = create_app({"TESTING": True}, instance_path=str(tmp_path))
    client = app.test_client()
    response = client.post("/corpora/paste", data={"corpus": "a,good match\nb,dull match"})
    assert response.status_code == 400 and stored_count(app) == 0
    page = soup_of(client.get("/corpora"))
    token = page.find("input", attrs={"name": "csrf_token"})["value"]
    assert json.loads(page.body["hx-headers"])["X-CSRFToken"] == token
    response = client.post("/corpora/paste", data={"corpus": "a,good match\nb,dull match", "csrf_token": token})
    assert response.status_code == 303 and stored_count(app) == 1


# -- user text is inert everywhere --------------------------------------------------------------------------

HOSTILE = [
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    '<div hx-get="/x" hx-trigger="load">boom</div>',
    "javascript:alert(1)",
    "' onmouseover='alert(1)",
]


def assert_inert(soup: BeautifulSoup) -> None:
    assert soup.find("img") is None
    assert all(script.get("src", "").startswith("/static/") for script in soup.find_all("script"))
    for element in soup.find_all(True):
        for attribute, value in element.attrs.items():
            assert not attribute.startswith("on"), (element.name, attribute)
            if attribute.startswith("hx-") and attribute != "hx-headers":
                assert "/x" != value
            if attribute in ("href", "src", "action"):
                assert not str(value).strip().lower().startswith("javascript:")
    assert soup.find(string=lambda s: s and "boom" in s) is None or soup.find("div", string="boom") is None


@pytest.mark.parametrize("hostile", HOSTILE[:1] + [  # each about 1 s; all of them in the full run
    pytest.param(text, marks=pytest.mark.slow) for text in HOSTILE[1:]])
def test_hostile_text_is_escaped_in_pages_and_fragments(app, client, hostile):
    corpus = f"{hostile}\t{hostile} match\nneg\t{hostile} dull\npos\tgreat"
    response = client.post("/corpora/paste", data={"corpus": corpus, "name": hostile})
    assert response.status_code == 303
    url = response.headers["Location"]
    query = {"text": hostile, "alpha": "1"}
    for suffix in LESSON_PAGES:
        for headers in ({}, {"HX-Request": "true"}):
            page = client.get(url + suffix, query_string=query, headers=headers)
            assert page.status_code == 200
            assert_inert(soup_of(page))
    for step in STEPS:
        fragment = client.get(url + "/inference", query_string={**query, "step": step}, headers={"HX-Request": "true"})
        assert_inert(soup_of(fragment))
    assert_inert(soup_of(client.get("/corpora")))


def test_corpora_survive_a_restart(tmp_path):
    config = {"TESTING": True, "WTF_CSRF_ENABLED": False}
    first = create_app(config, instance_path=str(tmp_path))
    pasted = first.test_client().post(
        "/corpora/paste", data={"corpus": "pos,great match\nneg,dull match", "name": "Kept"})
    location = pasted.headers["Location"]
    first.extensions["webnb"]["storage"].dispose()
    second = create_app(config, instance_path=str(tmp_path))
    page = second.test_client().get(location)
    assert page.status_code == 200 and soup_of(page).h1.get_text() == "Kept"


def test_log_space_step_shows_the_evidence(client):
    from fractions import Fraction

    from webnb.lesson.formatting import probability

    query = {"model": "multinomial", "alpha": "1", "text": "Chinese Chinese Chinese Tokyo Japan", "step": "logspace"}
    text = soup_of(client.get("/corpora/china-japan/inference", query_string=query)).find(id="inference").get_text(" ")
    evidence = Fraction(3, 4) * Fraction(3, 7) ** 3 * Fraction(1, 14) ** 2 + Fraction(1, 4) * Fraction(2, 9) ** 5
    assert f"= {probability(float(evidence))}" in text
    page = soup_of(client.get("/corpora/china-japan/inference", query_string=query))
    rows = page.find("table", class_="decision").tbody.find_all("tr")
    posteriors = {row.th.get_text(): row.find_all("td")[-1].get_text() for row in rows}
    china = Fraction(3, 4) * Fraction(3, 7) ** 3 * Fraction(1, 14) ** 2 / evidence
    assert posteriors == {"China": probability(float(china)), "not China": probability(float(1 - china))}


def test_matrix_can_show_the_most_frequent_words_first(client):
    data = client.get("/corpora/match-reviews/matrix", query_string={"format": "json", "order": "frequent"}).get_json()
    # match and was are in 4 of the 5 reviews, composed in 3, sharp and not in 2; ties stay alphabetical.
    assert data["words"] == ["match", "was", "composed", "not", "sharp", "and", "brilliant", "keeper"]
