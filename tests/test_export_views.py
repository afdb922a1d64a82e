"""Downloads: CSV tables of the lesson pages and the lesson notebook, as attachments."""
from __future__ import annotations

import csv
import io
import json
from pathlib import PurePath

import pytest
from bs4 import BeautifulSoup


def rows_of(response) -> list[list[str]]:
    assert response.status_code == 200
    assert response.headers["Content-Disposition"].startswith("attachment; filename=")
    return list(csv.reader(io.StringIO(response.get_data(as_text=True))))


def test_parameters_and_priors_csv(client):
    query = {"model": "bernoulli", "alpha": "0"}
    rows = rows_of(client.get("/corpora/match-reviews/export/parameters.csv", query_string=query))
    assert rows[0] == [
        "word", "ψ given negative", "ψ given negative (ratio)", "ψ given positive", "ψ given positive (ratio)"]
    by_word = {row[0]: row[1:] for row in rows[1:]}
    assert by_word["not"] == ["1.0", "2/2", "0.0", "0/3"] and by_word["keeper"][1] == "0/2" and len(by_word) == 8
    filtered = rows_of(client.get("/corpora/match-reviews/export/parameters.csv", query_string={**query, "q": "sh"}))
    assert [row[0] for row in filtered[1:]] == ["sharp"]
    priors = rows_of(client.get("/corpora/match-reviews/export/priors.csv", query_string=query))
    assert priors == [
        ["class", "documents", "φ", "φ (ratio)"], ["negative", "2", "0.4", "2/5"], ["positive", "3", "0.6", "3/5"]]


def test_the_parameters_csv_is_sent_in_pieces_as_it_is_written(client, monkeypatch):
    from webnb.engine.export import tables

    query = {"model": "multinomial", "alpha": "1/2"}
    whole = client.get("/corpora/match-reviews/export/parameters.csv", query_string=query).get_data(as_text=True)
    monkeypatch.setattr(tables, "ROWS_PER_PIECE", 3)  # 8 words: the header with 3 rows, 3 more rows, then 2
    response = client.get("/corpora/match-reviews/export/parameters.csv", query_string=query)
    assert response.is_streamed
    pieces = [piece.decode("utf-8") for piece in response.response]
    assert "".join(pieces) == whole
    assert [len(list(csv.reader(io.StringIO(piece)))) for piece in pieces] == [4, 3, 2]
    assert pieces[0].startswith("word,θ given negative,θ given negative (ratio),")


def test_matrix_csv_is_the_window_of_the_page(client):
    query = {"values": "counts", "q": "cup"}
    rows = rows_of(client.get("/corpora/folgers-students/export/matrix.csv", query_string=query))
    assert rows == [["id", "label", "cup"], ["1", "advert", "2"], ["2", "teacher", "0"]]
    page = BeautifulSoup(
        client.get("/corpora/folgers-students/matrix", query_string=query).get_data(as_text=True), "html.parser")
    link = page.find("p", class_="downloads").a["href"]
    assert link.startswith("/corpora/folgers-students/export/matrix.csv?") and "q=cup" in link


def test_exported_cells_cannot_become_formulas(client):
    corpus = '=HYPERLINK("http://x"),+great match\n@SUM(A1),-dull match\n=HYPERLINK("http://x"),fine match'
    location = client.post("/corpora/paste", data={"corpus": corpus}).headers["Location"]
    corpus_id = location.rsplit("/", 1)[1]
    rows = rows_of(client.get(f"/corpora/{corpus_id}/export/matrix.csv", query_string={"values": "counts"}))
    labels = [row[1] for row in rows[1:]]
    assert labels == ["'=HYPERLINK(\"http://x\")", "'@SUM(A1)", "'=HYPERLINK(\"http://x\")"]
    priors = rows_of(client.get(f"/corpora/{corpus_id}/export/priors.csv"))
    assert [row[0] for row in priors[1:]] == ["'=HYPERLINK(\"http://x\")", "'@SUM(A1)"]
    filename = client.get(f"/corpora/{corpus_id}/export/priors.csv").headers["Content-Disposition"]
    assert filename == f'attachment; filename="{corpus_id}-priors.csv"'


def test_notebook_download(client):
    response = client.get("/corpora/china-japan/export/notebook.ipynb",
                          query_string={"model": "multinomial", "alpha": "1", "text": "Chinese Tokyo Japan"})
    assert response.status_code == 200
    assert response.headers["Content-Disposition"] == 'attachment; filename="china-japan-lesson.ipynb"'
    notebook = json.loads(response.get_data(as_text=True))
    assert notebook["nbformat"] == 4 and notebook["metadata"]["kernelspec"]["name"] == "python3"
    source = "".join("".join(cell["source"]) for cell in notebook["cells"])
    assert "Chinese Tokyo Japan" in source


def test_notebook_refuses_what_it_cannot_reproduce(client):
    response = client.get("/corpora/spam-ham/export/notebook.ipynb", query_string={"stemmer": "porter"})
    assert response.status_code == 400 and "stemmer" in response.get_data(as_text=True)


# The type a download is sent as, by the ending of the name it is saved as.
CONTENT_TYPES = {".csv": "text/csv; charset=utf-8", ".ipynb": "application/x-ipynb+json"}
# Each download of a text lesson: its path after /corpora/match-reviews/export/, and the name it is saved as.
TEXT_DOWNLOADS = {
    "matrix.csv": "match-reviews-matrix.csv",
    "parameters.csv": "match-reviews-parameters.csv",
    "priors.csv": "match-reviews-priors.csv",
    "evaluation.csv": "match-reviews-evaluation.csv",
    "confusion.csv": "match-reviews-confusion.csv",
    "predictions.csv": "match-reviews-predictions.csv",
    "notebook.ipynb": "match-reviews-lesson.ipynb",
}


def assert_an_attachment(response, filename: str) -> None:
    """A download saved as ``filename``, sent as its type (CONTENT_TYPES) and never sniffed as another. The
    downloads of a table's lesson are checked alike (tests/test_gaussian_views.py)."""
    assert response.status_code == 200
    assert response.headers["Content-Disposition"] == f'attachment; filename="{filename}"'
    assert response.headers["Content-Type"] == CONTENT_TYPES[PurePath(filename).suffix]
    assert response.headers["X-Content-Type-Options"] == "nosniff"


@pytest.mark.parametrize("path, filename", TEXT_DOWNLOADS.items())
def test_every_download_is_an_attachment_named_after_the_corpus(client, path, filename):
    assert_an_attachment(client.get(f"/corpora/match-reviews/export/{path}", query_string={"test": "training"}),
                         filename)
