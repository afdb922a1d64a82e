"""The Flask app: the home page, the vendored htmx, and the engine staying Flask-free."""
from __future__ import annotations

import json

import pytest
from bs4 import BeautifulSoup

import webnb.views.home
from webnb.engine.shared.corpus import Corpus
from webnb.examples import TABLE_EXAMPLES, Example, example_ids, load_example_corpus

pytestmark = pytest.mark.app_config(WTF_CSRF_ENABLED=True, SECRET_KEY="test")  # as served: CSRF on


def get_soup(client, url="/"):
    response = client.get(url)
    assert response.status_code == 200
    return BeautifulSoup(response.get_data(as_text=True), "html.parser")


def cell_texts(row):
    return [cell.get_text(strip=True) for cell in row.find_all(["th", "td"])]


def test_instance_folder_is_created(app, tmp_path):
    assert app.instance_path == str(tmp_path / "instance")
    assert (tmp_path / "instance").is_dir()


def test_home_lists_every_example(client):
    soup = get_soup(client)
    sections = soup.select("section.example")
    tables = [f"example-{example.id}" for example in TABLE_EXAMPLES]
    assert [section["id"] for section in sections] == [f"example-{example_id}" for example_id in example_ids()] + tables
    iris = soup.select_one("#example-iris")
    assert "150 rows, 4 features" in iris.get_text() and iris.select_one('a[href="/corpora/iris/gaussian"]')


@pytest.mark.parametrize(
    "example_id, title, n_documents, class_counts",
    [
        ("match-reviews", "Match reviews", 5, {"positive": 3, "negative": 2}),
        ("china-japan", "China or not China", 4, {"China": 3, "not China": 1}),
    ],
)
def test_home_shows_example_corpus(client, example_id, title, n_documents, class_counts):
    section = get_soup(client).find("section", id=f"example-{example_id}")
    assert section.find("h2").get_text(strip=True) == title

    counts = section.find("table", class_="class-counts")
    assert {row.th.get_text(strip=True): int(row.td.get_text()) for row in counts.tbody.find_all("tr")} == class_counts
    assert cell_texts(counts.tfoot.tr) == ["Total", str(n_documents)]

    rows = section.find("table", class_="documents").tbody.find_all("tr")
    assert len(rows) == n_documents
    corpus = load_example_corpus(example_id)
    assert [cell_texts(row) for row in rows] == [
        [doc_id, label, text] for doc_id, label, text in zip(corpus.ids, corpus.labels, corpus.texts, strict=True)
    ]


def test_corpus_text_is_escaped(client, monkeypatch):
    hostile = "<script>alert(1)</script>"
    example = Example(
        id="hostile", title=hostile, description=hostile, suggested_model="bernoulli", suggested_alpha="1",
        sample_review=hostile,
    )
    corpus = Corpus.from_pairs([(hostile, hostile), ("fine", "<b>bold?</b>")])
    monkeypatch.setattr(webnb.views.home, "EXAMPLES", (example,))
    monkeypatch.setattr(webnb.views.home, "load_example_corpus", lambda example_id: corpus)

    soup = get_soup(client)
    assert [script.get("src") for script in soup.find_all("script")] == [
        "/static/vendor/htmx.min.js", "/static/webnb.js"]
    assert soup.find("b") is None
    assert soup.find(id="title-hostile").get_text() == hostile  # shown as text, not run
    assert cell_texts(soup.find("table", class_="documents").tbody.tr) == ["1", hostile, hostile]


def test_htmx_is_served_locally(client):
    script = get_soup(client).find("script", src=lambda src: src and src.endswith("htmx.min.js"))
    assert script.has_attr("defer")
    assert script["src"].startswith("/static/")
    with client.get(script["src"]) as response:
        assert response.status_code == 200
        assert response.mimetype in {"text/javascript", "application/javascript"}
        assert len(response.data) > 10_000
        assert b"htmx" in response.data


def test_htmx_may_not_eval_or_leave_the_site(client):
    meta = get_soup(client).find("meta", attrs={"name": "htmx-config"})
    config = json.loads(meta["content"])
    assert config["allowEval"] is False
    assert config["allowScriptTags"] is False
    assert config["selfRequestsOnly"] is True


def test_stylesheet_is_served(client):
    link = get_soup(client).find("link", rel="stylesheet")
    with client.get(link["href"]) as response:
        assert response.status_code == 200
        assert response.mimetype == "text/css"


def test_unknown_path_is_404(client):
    assert client.get("/no-such-page").status_code == 404
