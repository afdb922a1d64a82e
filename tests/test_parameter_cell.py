"""One cell of the parameters table, opened: its counts, its formula and its JSON twin (the table itself shows only
the values, and a link per word)."""
from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from conftest import soup_of

HTMX = {"HX-Request": "true"}


def cell_json(client, corpus, word, label, **state):
    query = {"word": word, "class": label, "format": "json", **state}
    return client.get(f"/corpora/{corpus}/parameters/cell", query_string=query)


def test_bernoulli_cell_of_the_seed_example(client):
    # "not" is in both negative reviews and in none of the 3 positive ones (the lecture's table).
    zero = cell_json(client, "match-reviews", "not", "positive", model="bernoulli", alpha="0").get_json()
    assert (zero["count"], zero["total"], zero["ratio"], zero["exact"], zero["value"]) == (0, 3, "0/3", "0", 0.0)
    assert zero["zero"] is True and zero["one"] is False and zero["floored"] is False
    one = cell_json(client, "match-reviews", "not", "negative", model="bernoulli", alpha="0").get_json()
    assert (one["ratio"], one["value"], one["one"]) == ("2/2", 1.0, True)
    smoothed = cell_json(client, "match-reviews", "not", "positive", model="bernoulli", alpha="1").get_json()
    assert (smoothed["ratio"], smoothed["exact"], smoothed["value"]) == ("1/5", "1/5", 0.2)
    assert smoothed["zero"] is False


def test_multinomial_cell_counts_occurrences_and_adds_alpha_per_word(client):
    # China/Japan: "chinese" occurs 5 times among the 8 words of class China; |V| = 6, α = 1 → 6/14.
    data = cell_json(client, "china-japan", "chinese", "China", model="multinomial", alpha="1").get_json()
    assert (data["count"], data["total"], data["vocabulary_size"], data["ratio"], data["exact"]) == (
        5, 8, 6, "6/14", "3/7")
    assert data["value"] == 6 / 14


def test_cell_agrees_with_the_table_in_every_cell(client):
    """The cell page and the table (and its JSON twin) give the same ratio and value for every word and class."""
    for corpus, state in (("match-reviews", {"model": "bernoulli", "alpha": "0"}),
                          ("china-japan", {"model": "multinomial", "alpha": "0.5"}),
                          ("spam-ham", {"model": "multinomial", "alpha": "1", "binary": "1"})):
        table = client.get(f"/corpora/{corpus}/parameters", query_string={**state, "format": "json"}).get_json()
        for word in table["words"]:
            for label, expected in zip(table["classes"], word["per_class"], strict=True):
                cell = cell_json(client, corpus, word["word"], label, **state).get_json()
                assert (cell["ratio"], cell["value"], cell["zero"], cell["one"]) == (
                    expected["ratio"], expected["value"], expected["zero"], expected["one"],
                ), (corpus, word["word"], label)


def test_cell_fragment_and_page(client):
    query = {"word": "not", "class": "positive", "model": "bernoulli", "alpha": "0"}
    fragment = client.get("/corpora/match-reviews/parameters/cell", query_string=query, headers=HTMX)
    soup = soup_of(fragment)
    assert "<html" not in fragment.get_data(as_text=True)
    formula = soup.find(class_="cell-formula")
    assert formula.math is not None and "0 of the 3 documents of positive contain “not”" in formula.get_text(" ")
    assert [mn.get_text() for mn in formula.math.find_all("mn")] == ["0", "0", "3", "2", "0", "0/3", "0"]
    assert "Exactly 0" in formula.get_text()
    page = soup_of(client.get("/corpora/match-reviews/parameters/cell", query_string=query))
    assert page.find("h1") is not None and page.find(class_="cell-formula").math is not None
    back = page.find("a", string="← The whole table")["href"]
    assert back.startswith("/corpora/match-reviews/parameters?") and parse_qs(urlsplit(back).query)["alpha"] == ["0"]


def test_word_link_opens_every_class_of_the_word(client):
    """Each row header of the table links to the word's formulas; the link keeps the state but not the review."""
    soup = soup_of(client.get("/corpora/match-reviews/parameters",
                              query_string={"model": "bernoulli", "alpha": "0", "text": "a long review " * 50}))
    rows = soup.find("table", class_="params").tbody.find_all("tr")
    links = {row.th.get_text(strip=True): row.th.a["href"] for row in rows}
    query = parse_qs(urlsplit(links["not"]).query, keep_blank_values=True)
    assert query["word"] == ["not"] and query["alpha"] == ["0"] and query["model"] == ["bernoulli"]
    assert query["text"] == [""]
    page = soup_of(client.get(links["not"]))
    formulas = page.find_all(class_="cell-formula")
    assert [f.find("p").get_text(" ", strip=True)[:40] for f in formulas] == [
        "2 of the 2 documents of negative contain", "0 of the 3 documents of positive contain"]
    data = client.get(links["not"] + "&format=json").get_json()
    assert [(c["class"], c["ratio"]) for c in data["classes"]] == [("negative", "2/2"), ("positive", "0/3")]


def test_cell_under_the_floor_shows_the_ratio_and_the_floor(client):
    data = cell_json(client, "match-reviews", "not", "positive", model="bernoulli", alpha="0", floor="1").get_json()
    assert data["ratio"] == "0/3" and data["value"] == 1e-14 and data["floored"] is True and data["zero"] is False
    soup = soup_of(client.get("/corpora/match-reviews/parameters/cell", headers=HTMX, query_string={
        "word": "not", "class": "positive", "model": "bernoulli", "alpha": "0", "floor": "1"}))
    assert "ε-floor moves it to 1.000 × 10⁻¹⁴" in soup.get_text()


def test_a_cell_without_a_word_is_a_clear_400(client):
    response = client.get("/corpora/match-reviews/parameters/cell", query_string={"class": "positive"})
    assert response.status_code == 400 and "Which word? Name it with word=…" in response.get_data(as_text=True)


def test_unknown_word_or_class_is_a_clear_404(client):
    for query, message in (({"word": "zebra", "class": "positive"}, "“zebra” is not a word of this vocabulary."),
                           ({"word": "not", "class": "neutral"}, "“neutral” is not a class of this corpus."),
                           ({"word": "not", "class": " positive"}, "“ positive” is not a class of this corpus."),
                           ({"word": "not", "class": ""}, "“” is not a class of this corpus.")):
        response = client.get("/corpora/match-reviews/parameters/cell", query_string=query)
        assert response.status_code == 404 and message in response.get_data(as_text=True)
        data = client.get("/corpora/match-reviews/parameters/cell", query_string={**query, "format": "json"})
        assert data.status_code == 404 and data.get_json() == {"error": message}


def test_cell_escapes_words_and_labels(client):
    pasted = client.post("/corpora/paste", data={"corpus": "<b>x</b>,<i>one</i> two\nok,three four"})
    location = pasted.headers["Location"]
    corpus_id = location.rsplit("/", 1)[1]
    page = client.get(f"/corpora/{corpus_id}/parameters/cell", query_string={"word": "one", "class": "<b>x</b>"})
    body = page.get_data(as_text=True)
    assert page.status_code == 200 and "<b>x</b>" not in body and "&lt;b&gt;x&lt;/b&gt;" in body
    table = client.get(f"/corpora/{corpus_id}/parameters").get_data(as_text=True)
    assert 'data-class="&lt;b&gt;x&lt;/b&gt;"' in table and "<b>x</b>" not in table


def test_a_model_that_cannot_be_made_is_said_once_in_the_cell_and_in_the_table(client):
    """Multinomial with α = 0 and a class without words: the cell says why in its own place (the lesson's header
    stays quiet), the table in the lesson's header; both twins carry the message."""
    pasted = client.post("/corpora/paste", data={"corpus": "silent,x y\nsilent,a b\nloud,keeper match\nloud,match"})
    base = pasted.headers["Location"]
    query = {"word": "match", "model": "multinomial", "alpha": "0"}
    soup = soup_of(client.get(f"{base}/parameters/cell", query_string=query))
    alerts = [alert.get_text(" ", strip=True) for alert in soup.find_all(role="alert")]
    assert len(alerts) == 1 and alerts[0].startswith("Class 'silent' has no words in the vocabulary")
    assert soup.find(class_="cell-formula").find(role="alert") is not None
    cell = client.get(f"{base}/parameters/cell", query_string={**query, "format": "json"}).get_json()
    table = client.get(f"{base}/parameters", query_string={"model": "multinomial", "alpha": "0", "format": "json"})
    assert cell == table.get_json() == {"error": alerts[0]}
    page = soup_of(client.get(f"{base}/parameters", query_string={"model": "multinomial", "alpha": "0"}))
    assert [a.get_text(" ", strip=True) for a in page.find_all(role="alert")] == alerts
    assert page.find("table", class_="params") is None
