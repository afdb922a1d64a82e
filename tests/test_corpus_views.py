"""The home page, the list of corpora with its forms, a corpus's documents and the bag of words: each a page, an htmx
fragment and a JSON twin built from the same record."""
from __future__ import annotations

import io

from conftest import soup_of

HTMX = {"HX-Request": "true"}
PASTE = "positive,keeper was sharp\nnegative,match was dull\npositive,brilliant match"


def test_home_twin_lists_the_examples_the_page_shows(client):
    page = soup_of(client.get("/"))
    data = client.get("/", query_string={"format": "json"}).get_json()
    assert [e["id"] for e in data["examples"]] == [s["id"].removeprefix("example-")
                                                   for s in page.find_all("section", class_="example")
                                                   if s.h2 is not None]
    match = data["examples"][0]
    assert (match["id"], match["title"], match["sample_review"]) == (
        "match-reviews", "Match reviews", "match was sharp")
    assert match["class_counts"] == {"negative": 2, "positive": 3}
    assert match["documents"][0] == {"id": "1", "label": "positive", "text": "keeper was sharp and composed"}
    iris = next(t for t in data["tables"] if t["id"] == "iris")
    assert iris["rows"] == 150 and iris["class_counts"] == {"setosa": 50, "versicolor": 50, "virginica": 50}
    assert len(iris["features"]) == 4
    fragment = client.get("/", headers=HTMX).get_data(as_text=True)
    assert "<html" not in fragment and 'id="example-match-reviews"' in fragment


def test_corpora_twin_lists_built_ins_and_stored_corpora(client):
    assert client.post("/corpora/paste", data={"corpus": PASTE, "name": "Mine"}).status_code == 303
    data = client.get("/corpora", query_string={"format": "json"}).get_json()
    assert data["error"] is None
    listed = {c["name"]: c for c in data["corpora"]}
    assert listed["Match reviews"] == {"id": "match-reviews", "name": "Match reviews", "builtin": True,
                                       "source": "built in", "documents": 5, "features": None,
                                       "classes": ["negative", "positive"]}
    assert listed["Iris flowers"]["features"] is not None and listed["Iris flowers"]["documents"] == 150
    mine = listed["Mine"]
    assert (mine["builtin"], mine["source"], mine["documents"], mine["classes"], mine["features"]) == (
        False, "typed in", 3, ["negative", "positive"], None)
    page = soup_of(client.get("/corpora"))
    assert "Mine" in page.find(id="stored-title").find_next("ul").get_text()


def test_a_refused_paste_says_why_on_the_page_and_in_the_twin(client):
    page = soup_of(client.post("/corpora/paste", data={"corpus": "only one line", "name": "Bad"}), status=400)
    message = page.find(id="form-error").p.get_text()
    assert page.find(id="paste-name")["value"] == "Bad"  # the form comes back as it was sent
    twin = client.post("/corpora/paste", query_string={"format": "json"}, data={"corpus": "only one line"})
    assert twin.status_code == 400 and twin.get_json()["error"] == message
    assert "Match reviews" in [c["name"] for c in twin.get_json()["corpora"]]


def test_column_inspection_fragment_and_twin(client):
    payload = b"id;category;body\n1;pos;great match\n2;neg;dull match\n3;pos;fine\n4;neg;poor\n"

    def inspect(name, data, **query):
        return client.post("/corpora/upload/inspect", query_string=query, headers=HTMX,
                           data={"file": (io.BytesIO(data), name)}, content_type="multipart/form-data")

    fragment = inspect("x.csv", payload)
    assert "<html" not in fragment.get_data(as_text=True)
    assert soup_of(fragment).find("select", id="text-column").find("option", selected=True).get_text() == "body"
    shape = inspect("x.csv", payload, format="json").get_json()
    assert shape["error"] is None and shape["shape"]["columns"] == ["id", "category", "body"]
    assert (shape["shape"]["delimiter"], shape["shape"]["suggested_label"], shape["shape"]["suggested_text"]) == (
        ";", "category", "body")
    assert shape["shape"]["preview_rows"][0] == ["1", "pos", "great match"]
    assert inspect("x.zip", b"PK\x03\x04rest", format="json").get_json() == {"shape": None, "error": None}
    assert "No columns to choose" in inspect("x.zip", b"PK\x03\x04rest").get_data(as_text=True)
    bad = inspect("x.csv", b"", format="json").get_json()
    assert bad["shape"] is None and bad["error"].startswith("x.csv: ")


def test_corpus_page_twin_matches_the_page(client):
    query = {"stop_words": "english"}
    data = client.get("/corpora/spam-ham", query_string={**query, "format": "json"}).get_json()
    assert data["corpus"] == {"id": "spam-ham", "name": "Spam or ham", "documents": 16}
    assert (data["error"], data["page"], data["pages"], data["class_counts"]) == (None, 1, 1, {"ham": 9, "spam": 7})
    soup = soup_of(client.get("/corpora/spam-ham", query_string=query))
    for document in data["documents"]:
        row = soup.find(id=f"doc-{document['index']}")
        assert [span.get_text() for span in row.find_all(class_="token")] == document["tokens"][:60]
        assert [d.get_text() for d in row.find_all("del")] == [w["word"] for w in document["dropped"][:30]]
    fragment = client.get("/corpora/spam-ham", query_string=query, headers=HTMX).get_data(as_text=True)
    assert "<html" not in fragment and fragment.lstrip().startswith('<section id="documents"')


def test_corpus_page_without_words_still_lists_its_documents(client):
    data = client.get("/corpora/match-reviews", query_string={"min_df": "99", "format": "json"}).get_json()
    assert data["error"] and data["vocabulary_size"] is None
    assert [d["tokens"] for d in data["documents"]] == [None] * 5 and data["documents"][2]["text"] == "brilliant match"


def test_matrix_twin_and_page_show_the_same_window(client):
    query = {"model": "multinomial", "values": "counts", "order": "frequent"}
    data = client.get("/corpora/match-reviews/matrix", query_string={**query, "format": "json"}).get_json()
    assert data["words"] == ["match", "was", "composed", "not", "sharp", "and", "brilliant", "keeper"]
    assert (data["non_zero"], data["sparsity"], data["values"]) == (18, 1 - 18 / 40, "counts")
    soup = soup_of(client.get("/corpora/match-reviews/matrix", query_string=query))
    table = soup.find("table", class_="matrix")
    assert [th.get_text() for th in table.thead.find_all("th", class_="word")] == data["words"]
    shown = [[int(td.get_text()) for td in tr.find_all("td", class_="num")] for tr in table.tbody.find_all("tr")]
    assert shown == [row["values"] for row in data["rows"]]
    assert " ".join(table.caption.get_text().split()) == "Documents 1–5, words 1–8 of 8"


def test_matrix_trained_on_the_split_names_the_documents_it_counts(client):
    """With ``train=split`` the matrix holds the training part's documents: each row is named after its own."""
    query = {"train": "split", "test": "split", "format": "json", "values": "counts"}
    data = client.get("/corpora/spam-ham/matrix", query_string=query).get_json()
    whole = client.get("/corpora/spam-ham", query_string={"format": "json"}).get_json()
    texts = {d["id"]: (d["label"], d["text"]) for d in whole["documents"]}
    assert 0 < data["documents"] < 16 and len(data["rows"]) == data["documents"]
    for row in data["rows"]:
        label, text = texts[row["id"]]
        assert row["label"] == label
        counted = [word for word, value in zip(data["words"], row["values"], strict=True) if value]
        assert all(word in text.lower() for word in counted), (row["id"], counted, text)
    # Each row links to its own document on the corpus page, numbered among all the corpus's documents.
    positions = {d["id"]: d["index"] for d in whole["documents"]}
    assert [row["position"] for row in data["rows"]] == [positions[row["id"]] for row in data["rows"]]
    assert [row["position"] for row in data["rows"]] != [row["index"] for row in data["rows"]]  # the split shows
    page = soup_of(client.get("/corpora/spam-ham/matrix", query_string={**query, "format": None}))
    for link, row in zip(page.select("table.matrix tbody th a"), data["rows"], strict=True):
        corpus_page = soup_of(client.get(link["href"].split("#")[0]))
        anchored = corpus_page.find(id=link["href"].split("#")[1])
        assert anchored is not None and row["id"] in anchored.get_text(" ", strip=True), (link["href"], row["id"])


def test_matrix_without_words_says_why(client):
    data = client.get("/corpora/match-reviews/matrix", query_string={"min_df": "99", "format": "json"}).get_json()
    assert set(data) == {"error"} and data["error"]
