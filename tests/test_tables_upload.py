"""Tables of numbers added by upload or paste: detected, checked row by row, stored with their feature names
(on SQLite and PostgreSQL) and read back as the same table, down to the last bit of every number."""
from __future__ import annotations

import io

import numpy as np
import pytest
import sqlalchemy as sa
from bs4 import BeautifulSoup
from conftest import slow_but_the_first, soup_of

from webnb import create_app
from webnb.engine.gaussian.table import NumericTable
from webnb.engine.io.uploads import inspect_table, parse_pasted_table
from webnb.engine.shared.corpus import Corpus
from webnb.examples import load_example_table
from webnb.store.database import ANY_WORKSPACE, Storage, corpora

IRIS = load_example_table("iris")
IRIS_HEADER = (*IRIS.features, "species")
# Numbers written the many ways people write them; each must come back as float(text), exactly.
AWKWARD = ("0.1", "1e-300", "-0.25e3", "+3", ".5", "12345678901234567", "2.5E+10", "-0", "7.")


def iris_rows() -> list[list[str]]:
    return [[repr(float(v)) for v in values] + [label] for values, label in zip(IRIS.values, IRIS.labels, strict=True)]


def iris_text(delimiter: str = ",", rows=None) -> str:
    """The iris table as a file would hold it: a header, then each row's numbers and its species."""
    rows = iris_rows() if rows is None else rows
    return "\n".join(delimiter.join(cells) for cells in [list(IRIS_HEADER), *rows]) + "\n"


def form_error(response) -> str:
    error = soup_of(response, status=400).find(id="form-error")
    assert error is not None, response.get_data(as_text=True)[:500]
    return error.get_text(" ", strip=True)


def stored_count(app) -> int:
    return len(app.extensions["webnb"]["storage"].list_corpora())


def upload(client, filename: str, data: bytes, **fields):
    return client.post(
        "/corpora/upload", data={"file": (io.BytesIO(data), filename), **fields}, content_type="multipart/form-data"
    )


def stored_id(response) -> str:
    assert response.status_code == 303, response.get_data(as_text=True)[:500]
    return response.headers["Location"].rsplit("/", 1)[-1]


# --- upload ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("filename, delimiter", [("iris.csv", ","), ("iris.tsv", "\t")])
def test_an_uploaded_table_is_stored_and_comes_back_exactly(app_on_both_databases, filename, delimiter):
    app = app_on_both_databases
    client = app.test_client()
    corpus_id = stored_id(upload(client, filename, iris_text(delimiter).encode(), name="My iris"))
    stored = app.extensions["webnb"]["storage"].get_corpus(corpus_id)
    assert stored.features == IRIS.features and stored.n_documents == 150 and stored.name == "My iris"
    assert stored.source == f"uploaded {filename}"
    app.extensions["webnb"]["catalog"].cache.clear()  # read it from the database, not the cache
    entry = app.extensions["webnb"]["catalog"].get(corpus_id)
    assert entry.is_table and not entry.builtin
    assert np.array_equal(entry.table.values, IRIS.values)
    assert entry.table.features == IRIS.features
    assert entry.table.labels == IRIS.labels
    assert entry.table.ids == tuple(str(line) for line in range(2, 152))  # the line each row is on


def test_awkward_numbers_and_an_id_column_round_trip_bit_for_bit(app_on_both_databases):
    app = app_on_both_databases
    rows = [[f"r{i}", number, str(len(AWKWARD) - i), "odd" if i % 2 else "even"] for i, number in enumerate(AWKWARD)]
    text = "id,weight,height,class\n" + "\n".join(",".join(row) for row in rows) + "\n"
    corpus_id = stored_id(upload(app.test_client(), "awkward.csv", text.encode()))
    app.extensions["webnb"]["catalog"].cache.clear()
    table = app.extensions["webnb"]["catalog"].get(corpus_id).table
    expected = np.array([[float(row[1]), float(row[2])] for row in rows])
    assert np.array_equal(table.values, expected) and table.values.tobytes() == expected.tobytes()  # -0.0 too
    assert table.features == ("weight", "height")
    assert table.ids == tuple(row[0] for row in rows)
    assert table.labels == tuple(row[3] for row in rows)


def test_the_label_column_chosen_in_the_form_wins(app):
    # Every column is numbers: without a choice the label would be the last column.
    text = "group,x,y\n" + "\n".join(f"{i % 2},{i}.5,{i * 3}" for i in range(8)) + "\n"
    assert inspect_table(text.encode()).suggested_label == "y"
    corpus_id = stored_id(upload(app.test_client(), "numbers.csv", text.encode(), label_column="group", text_column=""))
    table = app.extensions["webnb"]["catalog"].get(corpus_id).table
    assert table.features == ("x", "y") and table.labels == tuple(str(i % 2) for i in range(8))


def test_a_label_column_named_as_one_is_suggested():
    text = b"class,x,y\n0,1.5,2\n1,2.5,3\n0,3.5,4\n"
    shape = inspect_table(text)
    assert (shape.suggested_label, shape.numeric_features) == ("class", ("x", "y"))


def test_a_chosen_text_column_reads_the_file_as_texts(app):
    text = b"stars,summary\n5,great\n1,awful\n4,fine\n2,poor\n"
    assert inspect_table(text).numeric_features == ("stars",)
    corpus_id = stored_id(upload(app.test_client(), "reviews.csv", text, label_column="stars", text_column="summary"))
    assert app.extensions["webnb"]["storage"].get_corpus(corpus_id).features is None
    assert not app.extensions["webnb"]["catalog"].get(corpus_id).is_table


@pytest.mark.parametrize(
    "data",
    [
        b"5.1,3.5,setosa\n4.9,3.0,setosa\n6.1,2.9,versicolor\n5.9,3.0,virginica\n",  # no header: numbers on line 1
        b"label,text\npos,5\nneg,3\npos,4\n",  # the texts happen to be numbers
        b"score;words\n1;a b c\n0;d e\n1;f g h i\n",  # a score beside texts
        b"label,text\nspam,Win a FREE prize\nham,See you at 5?\n",
    ],
)
def test_tables_of_texts_are_not_tables_of_numbers(data):
    assert inspect_table(data).numeric_features == ()


def test_uploaded_texts_stay_texts(app):
    corpus_id = stored_id(upload(app.test_client(), "r.csv", b"label,text\npos,great match\nneg,dull match\n"))
    assert app.extensions["webnb"]["storage"].get_corpus(corpus_id).features is None
    assert app.extensions["webnb"]["catalog"].get(corpus_id).table is None


def _iris_with(line: int, column: int, value: str, copies: int = 1):
    """The iris file (``copies`` times over) with one cell replaced; line 1 is the header."""
    rows = [list(row) for _ in range(copies) for row in iris_rows()]
    rows[line - 2][column] = value
    return iris_text(",", rows).encode()


@pytest.mark.parametrize(
    "data, message",
    slow_but_the_first(2, [
        (_iris_with(4000, 2, "abc", copies=30), "line 4000: 'abc' in column 'petal length (cm)' is not a number"),
        (_iris_with(5, 1, ""), "line 5: '' in column 'sepal width (cm)' is not a number"),
        (_iris_with(3, 0, "nan"), "line 3: 'nan' in column 'sepal length (cm)' is not a number"),
        (_iris_with(140, 3, "inf"), "line 140: 'inf' in column 'petal width (cm)' is not a number"),
        (_iris_with(7, 0, "1,5"), "line 7: 6 fields, but the table has 5 columns"),
        (_iris_with(9, 4, " "), "line 9: the 'species' column is empty"),
        (iris_text(",", [row[:4] + ["setosa"] for row in iris_rows()]).encode(), "Every row has the label 'setosa'"),
        (b"species\nsetosa\nversicolor\n", "one field only"),  # only a label column
        (",".join(IRIS_HEADER).encode() + b"\n", "at least two classes"),  # a header and no rows
    ]),
)
def test_a_bad_table_is_refused_whole(app, data, message):
    client = app.test_client()
    stored_id(upload(client, "first.csv", iris_text().encode()))  # one stored before: it stays alone
    response = upload(client, "bad.csv", data)
    assert response.status_code == 400
    error = form_error(response)
    assert error.startswith("bad.csv: ") and message in error and "Nothing was stored" in error
    assert stored_count(app) == 1


@pytest.mark.slow  # about 1 s
def test_a_big_table_is_read_in_the_background(tmp_path):
    app = create_app({"TESTING": True, "WTF_CSRF_ENABLED": False, "WEBNB_BACKGROUND_UPLOAD_BYTES": 50_000},
                     instance_path=str(tmp_path))
    try:
        client, jobs = app.test_client(), app.extensions["webnb"]["jobs"]
        good = iris_text(",", [list(row) for _ in range(20) for row in iris_rows()]).encode()
        bad = _iris_with(2990, 0, "5,1", copies=20)
        assert len(good) > 50_000
        response = upload(client, "big.csv", good)
        assert response.status_code == 303 and "/jobs/" in response.headers["Location"]
        job = jobs.wait(response.headers["Location"].rsplit("/", 1)[1], timeout=60)
        assert job.state == "done", job.error
        table = app.extensions["webnb"]["catalog"].get(job.result_url.rsplit("/", 1)[1]).table
        assert np.array_equal(table.values, np.tile(IRIS.values, (20, 1)))
        job = jobs.wait(upload(client, "bad.csv", bad).headers["Location"].rsplit("/", 1)[1], timeout=60)
        assert job.state == "failed" and "bad.csv: line 2990: 6 fields" in job.error
        assert stored_count(app) == 1
    finally:
        app.extensions["webnb"]["jobs"].shutdown()


def test_the_bad_line_is_named_even_far_beyond_the_sample():
    # 200 rows are sampled to guess the layout; every row is checked when it is read.
    data = _iris_with(4000, 2, "abc", copies=30)
    assert inspect_table(data).numeric_features == IRIS.features


# --- paste ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("separator", [",", "\t"])
def test_a_pasted_table_of_numbers_is_a_table(app, separator):
    text = separator.join(["petal length", "petal width", "species"]) + "\n" + "\n".join(
        separator.join(cells)
        for cells in [["1.4", "0.2", "setosa"], ["4.7", "1.4", "versicolor"], [], ["6.0", "2.5", "virginica"]]
    )
    response = app.test_client().post("/corpora/paste", data={"corpus": text, "name": "Petals"})
    corpus_id = stored_id(response)
    assert app.extensions["webnb"]["storage"].get_corpus(corpus_id).features == ("petal length", "petal width")
    app.extensions["webnb"]["catalog"].cache.clear()
    table = app.extensions["webnb"]["catalog"].get(corpus_id).table
    assert np.array_equal(table.values, [[1.4, 0.2], [4.7, 1.4], [6.0, 2.5]])
    assert table.labels == ("setosa", "versicolor", "virginica") and table.ids == ("2", "3", "5")


def test_pasted_texts_stay_texts(app):
    corpus_id = stored_id(app.test_client().post(
        "/corpora/paste", data={"corpus": "positive,keeper was sharp\nnegative,match was not sharp", "name": "t"}))
    summary = app.extensions["webnb"]["storage"].list_corpora()[0]
    assert summary.id == corpus_id and summary.features is None
    assert not app.extensions["webnb"]["catalog"].get(corpus_id).is_table


@pytest.mark.parametrize(
    "text",
    [
        "positive,keeper was sharp\nnegative,match was not sharp",
        "label,text\npos,5\nneg,3",  # the header of a corpus of texts
        "pos,1\nneg,2",  # a number in the first line: no header
        "spam,win money\nham,see you at five",
    ],
)
def test_texts_are_not_taken_for_tables(text):
    assert parse_pasted_table(text) is None


PASTED_IRIS = "\n".join(",".join(row) for row in [list(IRIS_HEADER), *iris_rows()[:8], *iris_rows()[50:58]])


def _pasted_with(line: int, column: int, value: str) -> str:
    lines = [line_text.split(",") for line_text in PASTED_IRIS.split("\n")]
    lines[line - 1][column] = value
    return "\n".join(",".join(cells) for cells in lines)


@pytest.mark.parametrize(
    "text, message",
    slow_but_the_first(2, [
        (_pasted_with(7, 1, "abc"), "line 7: 'abc' in column 'sepal width (cm)' is not a number"),
        (_pasted_with(4, 0, ""), "line 4: '' in column 'sepal length (cm)' is not a number"),
        (_pasted_with(12, 2, "NaN"), "line 12: 'NaN' in column 'petal length (cm)' is not a number"),
        (_pasted_with(3, 3, "-inf"), "line 3: '-inf' in column 'petal width (cm)' is not a number"),
        (_pasted_with(5, 4, ""), "line 5: the 'species' column is empty"),
        ("\n".join(PASTED_IRIS.split("\n")[:9]), "Every row has the label 'setosa'"),
        (",".join(IRIS_HEADER), "Only line 1 has anything on it"),  # a header and no rows
        ("species\nsetosa\nversicolor", "line 1: no TAB or comma"),  # only a label column
    ]),
)
def test_a_bad_pasted_table_names_the_line_and_stores_nothing(app, text, message):
    client = app.test_client()
    response = client.post("/corpora/paste", data={"corpus": text, "name": "bad"})
    assert response.status_code == 400
    assert message in form_error(response)
    assert stored_count(app) == 0
    assert soup_of(response, status=400).find("textarea", id="paste-corpus").get_text() == text  # kept for correcting


def test_the_paste_form_mentions_tables(client):
    hint = soup_of(client.get("/corpora")).find(id="paste-table-hint").get_text(" ", strip=True)
    assert "petal length,petal width,species" in hint and "Gaussian Naive Bayes" in hint


# --- the columns form -----------------------------------------------------------------------------------------


def inspect(client, filename: str, data: bytes):
    response = client.post("/corpora/upload/inspect", data={"file": (io.BytesIO(data), filename)},
                           content_type="multipart/form-data")
    assert response.status_code == 200
    return soup_of(response)


def test_inspecting_a_table_of_numbers_asks_only_for_the_label(client):
    soup = inspect(client, "iris.tsv", iris_text("\t").encode())
    assert "table of numbers" in soup.find(id="numeric-table").get_text() and "Gaussian Naive Bayes" in soup.get_text()
    assert [li.get_text() for li in soup.find(id="numeric-features").find_all("li")] == list(IRIS.features)
    label = soup.find("select", id="label-column")
    assert [o.get_text() for o in label.find_all("option")] == list(IRIS_HEADER)
    assert label.find("option", selected=True)["value"] == "species"
    assert soup.find("select", id="text-column") is None and soup.find(id="text-column") is None
    hidden = soup.find("input", attrs={"name": "text_column"})
    assert hidden["type"] == "hidden" and hidden["value"] == ""


def test_inspecting_a_table_of_texts_still_asks_for_both_columns(client):
    soup = inspect(client, "r.csv", b"label,text\npos,great match\nneg,dull match\npos,fine\n")
    assert soup.find(id="numeric-table") is None
    assert soup.find("select", id="text-column").find("option", selected=True).get_text() == "text"


def test_column_names_are_escaped(client):
    data = b'<b>x</b>,"a ""quoted"" name",species\n1,2,a\n3,4,b\n5,6,a\n'
    page = client.post("/corpora/upload/inspect", data={"file": (io.BytesIO(data), "x.csv")},
                       content_type="multipart/form-data").get_data(as_text=True)
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page
    soup = BeautifulSoup(page, "html.parser")
    assert [li.get_text() for li in soup.find(id="numeric-features").find_all("li")] == ["<b>x</b>", 'a "quoted" name']
    assert [o["value"] for o in soup.find("select", id="label-column").find_all("option")] == \
        ["<b>x</b>", 'a "quoted" name', "species"]


# --- the list of corpora --------------------------------------------------------------------------------------


def test_tables_are_listed_apart(app):
    client = app.test_client()
    table_id = stored_id(upload(client, "iris.csv", iris_text().encode(), name="Uploaded iris"))
    text_id = stored_id(
        client.post("/corpora/paste", data={"corpus": "pos,great match\nneg,dull match", "name": "Words"}))
    soup = soup_of(client.get("/corpora"))
    tables = soup.find(id="tables-title")
    assert tables.get_text() == "Tables of numbers (Gaussian Naive Bayes)"
    items = {
        a["href"]: " ".join(a.find_parent("li").get_text(" ").split()) for a in tables.find_next("ul").find_all("a")
    }
    assert set(items) == {"/corpora/iris", "/corpora/match-ratings", "/corpora/red-cards", f"/corpora/{table_id}"}
    assert "150 rows" in items["/corpora/iris"] and "4 features" in items["/corpora/iris"]
    assert "setosa, versicolor, virginica" in items["/corpora/iris"]
    assert "Uploaded iris" in items[f"/corpora/{table_id}"] and "150 rows · 4 features" in items[f"/corpora/{table_id}"]
    assert "1 feature ·" in items["/corpora/match-ratings"]
    texts = [a["href"] for a in soup.find(id="stored-title").find_next("ul").find_all("a")]
    assert texts == [f"/corpora/{text_id}"]
    built_in = [a["href"] for a in soup.find(id="builtin-title").find_next("ul").find_all("a")]
    assert "/corpora/match-reviews" in built_in and "/corpora/iris" not in built_in


# --- storage --------------------------------------------------------------------------------------------------


def test_storage_keeps_the_feature_names(database_url):
    with Storage(database_url) as store:
        store.create_schema()
        rows = IRIS.to_corpus()
        table_id = store.add_corpus(rows, name="iris", source="test", features=IRIS.features)
        text_id = store.add_corpus(
            Corpus(texts=("a b", "c"), labels=("x", "y"), ids=("1", "2")), name="t", source="test")
        stored = store.get_corpus(table_id)
        assert stored.features == IRIS.features and store.get_corpus(text_id).features is None
        assert {s.id: s.features for s in store.list_corpora(ANY_WORKSPACE)} == {table_id: IRIS.features, text_id: None}
        table = NumericTable.from_corpus(stored.corpus, stored.features)
        assert np.array_equal(table.values, IRIS.values) and table.labels == IRIS.labels


OLD_SCHEMA = (
    # The first release: no workspace, no character count, no feature names.
    "CREATE TABLE corpora (id TEXT PRIMARY KEY, name TEXT NOT NULL, source TEXT NOT NULL, "
    "created_at TIMESTAMP WITH TIME ZONE NOT NULL, n_documents INTEGER NOT NULL, classes TEXT NOT NULL)",
    "CREATE TABLE documents (corpus_id TEXT NOT NULL REFERENCES corpora (id) ON DELETE CASCADE, "
    "position INTEGER NOT NULL, doc_id TEXT NOT NULL, label TEXT NOT NULL, text TEXT NOT NULL, "
    "PRIMARY KEY (corpus_id, position))",
)


def test_an_old_database_gains_the_features_column(database_url):
    from datetime import datetime, timezone

    engine = sa.create_engine(database_url)
    with engine.begin() as connection:
        for statement in OLD_SCHEMA:
            connection.execute(sa.text(statement))
        # Only the old columns: an INSERT names the columns given.
        connection.execute(corpora.insert(), {"id": "old", "name": "Old", "source": "paste", "n_documents": 2,
                                              "classes": '["neg", "pos"]',
                                              "created_at": datetime(2024, 1, 2, tzinfo=timezone.utc)})
        connection.execute(sa.text(
            "INSERT INTO documents VALUES ('old', 0, '1', 'pos', 'good'), ('old', 1, '2', 'neg', 'bad')"))
    engine.dispose()
    with Storage(database_url) as store:
        store.create_schema()
        store.create_schema()  # at every start: the second finds nothing to add
        columns = {column["name"] for column in sa.inspect(store.engine).get_columns("corpora")}
        assert {"workspace", "n_characters", "features"} <= columns
        old = store.get_corpus("old")
        assert old.features is None and old.corpus.texts == ("good", "bad")
        table_id = store.add_corpus(IRIS.to_corpus(), name="iris", source="test", features=IRIS.features)
        assert store.get_corpus(table_id).features == IRIS.features


def test_the_catalog_refuses_a_table_it_cannot_train_on_and_keeps_quotas(app):
    from webnb.engine.shared.corpus import CorpusError
    from webnb.hosting.catalog import Quota

    catalog = app.extensions["webnb"]["catalog"]
    one_class = IRIS.subset(range(10))
    with pytest.raises(CorpusError, match="Every row has the label 'setosa'"):
        catalog.add(one_class, name="one", source="test")
    with pytest.raises(CorpusError, match="may hold 100 documents in all"):
        catalog.add(IRIS, name="big", source="test",
                    quota=Quota(corpora=5, documents=100, characters=10**6, vocabulary=10))
    assert stored_count(app) == 0
    corpus_id = catalog.add(IRIS, name="iris", source="test",
                            quota=Quota(corpora=5, documents=1000, characters=10**6, vocabulary=1))
    assert catalog.get(corpus_id).table.features == IRIS.features  # no vocabulary to count for a table


# --- sharing in hosted mode -----------------------------------------------------------------------------------

SECRET = "s" * 40


@pytest.fixture()
def hosted(tmp_path, database_url):
    app = create_app(
        {"TESTING": True, "WTF_CSRF_ENABLED": False, "WEBNB_MODE": "hosted", "SECRET_KEY": SECRET,
         "DATABASE_URL": database_url, "WEBNB_RATE_LIMIT": "100000 per minute"},
        instance_path=str(tmp_path / "instance"),
    )
    yield app
    app.extensions["webnb"]["storage"].dispose()


def test_a_shared_table_is_copied_as_a_table(hosted):
    alice, bob = hosted.test_client(), hosted.test_client()
    corpus_id = stored_id(upload(alice, "iris.csv", iris_text().encode(), name="Alice's iris"))
    link = soup_of(alice.post(f"/corpora/{corpus_id}/share")).select_one("#share-link")["value"]
    copy_id = stored_id(bob.post("/shared/" + link.rsplit("/", 1)[-1]))
    assert copy_id != corpus_id
    storage = hosted.extensions["webnb"]["storage"]
    original, copy = storage.get_corpus(corpus_id), storage.get_corpus(copy_id)
    assert copy.features == original.features == IRIS.features
    assert copy.workspace != original.workspace
    hosted.extensions["webnb"]["catalog"].cache.clear()
    assert np.array_equal(hosted.extensions["webnb"]["catalog"].get(copy_id).table.values, IRIS.values)
