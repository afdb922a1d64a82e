"""The "add one document" page: the form, the highlighted changes, the JSON twin, and keeping a copy."""
from __future__ import annotations

import json

import pytest
from conftest import soup_of
from test_views import HOSTILE, assert_inert

from webnb import create_app
from webnb.lesson.state import MAX_TEXT_LENGTH

PAGE = "/corpora/match-reviews/add"
KEEP = "/corpora/match-reviews/add/keep"
NOT_SHARP = {"model": "bernoulli", "alpha": "0", "label": "negative", "document": "not sharp"}


def stored_count(app) -> int:
    return len(app.extensions["webnb"]["storage"].list_corpora())


def text_of(element) -> str:
    """The text as a reader sees it: runs of white space read as one space."""
    return " ".join(element.get_text(" ").split())


def classes_of(cell) -> list[str]:
    return cell.get("class") or []


def parameter_cells(soup) -> dict[tuple[str, str], object]:
    """{(word, class): td} of the parameter table."""
    table = soup.find("table", class_="add-params")
    labels = [th.get_text(" ", strip=True).split(" (")[0] for th in table.thead.find_all("th")[1:]]
    cells = {}
    for row in table.tbody.find_all("tr"):
        word = row.th.get_text(" ", strip=True).split(" ")[0]
        for label, cell in zip(labels, row.find_all("td"), strict=True):
            cells[(word, label)] = cell
    return cells


# -- the page -----------------------------------------------------------------------------------------------------


def test_the_form_alone(client):
    response = client.get(PAGE)
    assert response.status_code == 200 and "HX-Request" in response.headers["Vary"]
    soup = soup_of(response)
    form = soup.find("form", class_="add-form")
    assert form["method"] == "get" and form["hx-get"] == PAGE and form["hx-target"] == "#additions"
    assert [o["value"] for o in soup.find("select", id="add-label").find_all("option")] == ["negative", "positive"]
    assert int(soup.find("textarea", id="add-text")["maxlength"]) == MAX_TEXT_LENGTH
    # The rest of the lesson state travels with the form.
    assert form.find("input", attrs={"type": "hidden", "name": "text"})["value"] == "match was sharp"
    assert soup.find("table", class_="add-params") is None and soup.find("form", class_="keep-form") is None


def test_full_page_and_htmx_fragment(client):
    full = soup_of(client.get(PAGE, query_string=NOT_SHARP))
    assert full.find("html") is not None and full.find(id="additions") is not None
    fragment = client.get(PAGE, query_string=NOT_SHARP, headers={"HX-Request": "true"})
    assert "HX-Request" in fragment.headers["Vary"]
    part = soup_of(fragment)
    assert part.find("html") is None and part.find("header") is None
    top = [element for element in part.contents if getattr(element, "name", None)]
    assert [(element.name, element.get("id")) for element in top] == [("section", "additions")]


def test_unknown_corpus_is_404(client):
    assert client.get("/corpora/no-such-corpus/add").status_code == 404
    assert client.post("/corpora/no-such-corpus/add/keep", data={"label": "x", "document": "y"}).status_code == 404


def test_bernoulli_highlights_exactly_the_changed_cells(client):
    soup = soup_of(client.get(PAGE, query_string=NOT_SHARP))
    assert "6 of the K(d + 1) = 2 × (8 + 1) = 18 parameters" in text_of(soup.find(class_="add-verdict"))
    cells = parameter_cells(soup)
    changed = {key for key, cell in cells.items() if "changed" in classes_of(cell)}
    assert changed == {("sharp", "negative")}
    sharp = cells[("sharp", "negative")]
    assert sharp.find(class_="old").get_text() == "1/2" and sharp.find(class_="new").get_text() == "2/3"
    assert "→" in sharp.get_text() and sharp.find(class_="change-mark").get_text() == "changed"
    for key, cell in cells.items():
        if key not in changed:
            assert "→" not in cell.get_text() and cell.find(class_="change-mark") is None, key
    # ψ(not | negative) = 2/2 → 3/3 stays 1: flagged as breaking, but not changed.
    not_negative = cells[("not", "negative")]
    assert "breaks" in classes_of(not_negative) and not_negative.find(class_="flag").get_text() == "1"
    # Priors: both move; counts: n_negative grows, n_positive does not.
    priors = soup.find("table", class_="add-priors").tbody.find_all("tr")
    negative, positive = ([td for td in row.find_all("td")] for row in priors)
    assert ["changed" in classes_of(td) for td in negative] == [True, True]
    assert ["changed" in classes_of(td) for td in positive] == [False, True]
    assert negative[1].find(class_="old").get_text() == "2/5" and negative[1].find(class_="new").get_text() == "3/6"
    counts = soup.find("table", class_="add-counts").tbody.find_all("tr")
    assert [[text_of(td) for td in row.find_all("td")] for row in counts] == [
        ["1", "2 → 3 +1", "2 → 3 +1"],
        ["1", "1 → 2 +1", "1 → 2 +1"],
    ]
    summary = text_of(soup.find(class_="add-summary"))
    assert "3 of the 6 other words of class negative moved" in summary
    assert "= (1 + 0) / (2 + 2×0) = 1/2 ≈ 0.5 → (1 + 0) / (3 + 2×0) = 1/3 ≈ 0.3333" in summary
    # "match" and "was" were in every negative review.
    assert "2 cells that were exactly 0 or 1 no longer are" in text_of(soup)


def test_multinomial_with_a_new_word_highlights_every_cell(client):
    query = {"model": "multinomial", "alpha": "1", "label": "positive", "document": "superb keeper superb"}
    soup = soup_of(client.get(PAGE, query_string=query))
    cells = parameter_cells(soup)
    assert set(cells) == {
        ("keeper", "negative"), ("keeper", "positive"), ("superb", "negative"), ("superb", "positive")
    }
    assert all("changed" in classes_of(cell) for cell in cells.values())
    assert cells[("superb", "positive")].find(class_="change-mark").get_text() == "new"
    assert cells[("keeper", "positive")].find(class_="old").get_text() == "2/18"
    assert cells[("keeper", "positive")].find(class_="new").get_text() == "3/22"
    words = soup.find("table", class_="add-counts").tbody.find_all("tr")
    assert [text_of(row.th) for row in words] == ["keeper", "superb new word"]
    summary = text_of(soup.find(class_="add-summary"))
    assert "The vocabulary grew from 8 to 9 words" in summary and "7 of 7 θ of the other classes moved" in summary


def test_highlighted_cells_agree_with_the_json_twin(client):
    for query in (
        NOT_SHARP,
        {"model": "multinomial", "alpha": "0", "label": "positive", "document": "not superb"},
        {"model": "bernoulli", "alpha": "1", "prior": "uniform", "label": "positive", "document": "keeper keeper"},
    ):
        cells = parameter_cells(soup_of(client.get(PAGE, query_string=query)))
        data = client.get(PAGE, query_string={**query, "format": "json"}).get_json()["addition"]
        flags = {(p["word"], p["class"]): p["changed"] for row in data["parameters"] for p in row}
        assert flags == {key: "changed" in classes_of(cell) for key, cell in cells.items()}


def test_json_twin(client):
    response = client.get(PAGE, query_string={**NOT_SHARP, "format": "json"})
    assert response.status_code == 200
    data = response.get_json()
    addition = data["addition"]
    assert data["error"] is None and data["classes"] == ["negative", "positive"]
    assert addition["class"] == "negative" and addition["features"] == ["not", "sharp"]
    assert addition["count"]["changed"] == 6 and addition["count"]["parameters"] == 18
    sharp = next(p for row in addition["parameters"] for p in row if p["word"] == "sharp" and p["class"] == "negative")
    assert sharp["ratio"] == ["1/2", "2/3"] and sharp["exact"] == ["1/2", "2/3"] and sharp["changed"]
    assert addition["classes"][0]["prior_exact"] == ["2/5", "1/2"]
    assert [c["word"] for c in addition["repaired"]] == ["match", "was"]
    # The ε-floor: no fractions, and JSON never carries NaN.
    floored = client.get(PAGE, query_string={**NOT_SHARP, "floor": "1", "format": "json"})
    json.loads(floored.get_data(as_text=True))
    assert next(p for row in floored.get_json()["addition"]["parameters"] for p in row)["exact"] == [None, None]


# -- bad input ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data, message",
    [
        ({"label": "neutral", "document": "fine match"},
         "Choose the document's class from the list (negative, positive)."),
        ({"label": "negative", "document": "x" * (MAX_TEXT_LENGTH + 1)},
         f"The document is {MAX_TEXT_LENGTH + 1:,} characters long; the limit is {MAX_TEXT_LENGTH:,}."),
        ({"label": "negative", "document": "  "}, "Type the text of the document to add."),
    ],
)
def test_bad_input_gets_a_message_and_stores_nothing(app, client, data, message):
    page = soup_of(client.get(PAGE, query_string=data))  # status 200: htmx swaps only a successful answer
    assert message in page.find(id="add-error").get_text() and page.find("table", class_="add-params") is None
    twin = client.get(PAGE, query_string={**data, "format": "json"})
    assert twin.status_code == 400
    assert message in twin.get_json()["error"] and twin.get_json()["addition"] is None
    response = client.post(KEEP, data=data)
    error = soup_of(response, status=400).find(id="add-error").get_text()
    assert message in error and "Nothing was stored." in error
    refused = client.post(KEEP, query_string={"format": "json"}, data=data)
    assert refused.status_code == 400 and refused.get_json()["error"] == error.strip()
    assert stored_count(app) == 0
    assert len(app.extensions["webnb"]["catalog"].get("match-reviews").corpus) == 5


# The hostile texts of the lesson pages (tests/test_views.py), as the label and the document.
@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_is_escaped(client, text):
    for response in (
        client.get(PAGE, query_string={"label": "negative", "document": text}),
        client.get(PAGE, query_string={"label": text, "document": text}),
        client.post(KEEP, data={"label": text, "document": text}),
    ):
        soup = soup_of(response, status=None)  # the refused ones are escaped as well
        assert_inert(soup)  # no <img>, scripts from /static/ only, no on* attribute, ...
        assert soup.find("div", attrs={"hx-trigger": "load"}) is None
        assert soup.find("textarea", id="add-text").get_text() == text


# -- keeping a copy -------------------------------------------------------------------------------------------------


@pytest.mark.slow  # about 1 s
def test_keep_stores_a_copy_and_opens_its_parameters(app, client):
    page = soup_of(client.get(PAGE, query_string=NOT_SHARP))
    keep = page.find("form", class_="keep-form")
    assert keep["method"] == "post" and keep["action"].startswith(KEEP + "?")
    fields = {i["name"]: i["value"] for i in keep.find_all("input")}
    assert fields["label"] == "negative" and fields["document"] == "not sharp"
    response = client.post(keep["action"], data=fields)
    assert response.status_code == 303
    location = response.headers["Location"]
    new_id = location.split("/")[2]
    assert location.startswith(f"/corpora/{new_id}/parameters?")
    assert "model=bernoulli" in location and "alpha=0" in location
    catalog = app.extensions["webnb"]["catalog"]
    stored = catalog.get(new_id)
    assert stored is not None and not stored.builtin and stored.name == "Match reviews + 1 document"
    assert len(stored.corpus) == 6
    assert (stored.corpus.texts[-1], stored.corpus.labels[-1], stored.corpus.ids[-1]) == (
        "not sharp", "negative", "added-1")
    assert len(catalog.get("match-reviews").corpus) == 5  # the built-in corpus is untouched
    # The new corpus's parameters are the ones the page promised.
    parameters = client.get(location + "&format=json").get_json()
    sharp = next(w for w in parameters["words"] if w["word"] == "sharp")
    assert [c["ratio"] for c in sharp["per_class"]] == ["2/3", "1/3"]
    assert [p["exact"] for p in parameters["priors"]] == ["1/2", "1/2"]
    assert client.get(location).status_code == 200
    # Adding to the copy gives the next document id.
    again = client.post(f"/corpora/{new_id}/add/keep", data={"label": "positive", "document": "superb"})
    assert catalog.get(again.headers["Location"].split("/")[2]).corpus.ids[-2:] == ("added-1", "added-2")


def test_keep_needs_a_csrf_token(tmp_path):
    app = create_app({"TESTING": True}, instance_path=str(tmp_path))
    client = app.test_client()
    response = client.post(KEEP, data={"label": "negative", "document": "not sharp"})
    assert response.status_code == 400 and stored_count(app) == 0
    keep = soup_of(client.get(PAGE, query_string=NOT_SHARP)).find("form", class_="keep-form")
    fields = {i["name"]: i["value"] for i in keep.find_all("input")}
    assert fields["csrf_token"]
    response = client.post(keep["action"], data=fields)
    assert response.status_code == 303 and stored_count(app) == 1
