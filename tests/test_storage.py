"""Stored corpora, on SQLite and on PostgreSQL: the same tests run against both.

PostgreSQL comes from ``WEBNB_TEST_POSTGRES_URL`` (default: the local ``test`` database). Each test
gets its own schema there, dropped afterwards, so the shared database is left as it was. Without
psycopg or a reachable server, the PostgreSQL half skips here and fails in CI.
"""
from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone

import pytest
import sqlalchemy as sa

from webnb.engine.shared.corpus import Corpus, CorpusError
from webnb.store import database as storage_module
from webnb.store.database import CorpusSummary, DocumentRow, Storage, StoredCorpus, content_hash, default_url, documents


@pytest.fixture
def store(database_url):
    with Storage(database_url) as opened:
        opened.create_schema()
        yield opened


def count_rows(store: Storage, table) -> int:
    with store.engine.connect() as connection:
        return connection.execute(sa.select(sa.func.count()).select_from(table)).scalar_one()


TRICKY = Corpus(
    texts=(
        "It's a \"great\" match; -- really'); DROP TABLE corpora; --",
        "Ünïcödé: naïve café, 東京, Ελληνικά, עברית, 🙂👍🏽, e\u0301 (combining)",
        "line one\r\nline two\n\ttabbed\\backslash %s %(name)s ?",
        "",
        "long " * 200_000,
        "   surrounding spaces kept   ",
    ),
    labels=("spam", "ham", "spam", "ham", "ÄÖÜ", "spam"),
    ids=("1", "review's.txt", "pos/cv000_29590.txt", "4", "5", "6"),
    name="tricky",
)


def test_round_trip_keeps_every_character(store):
    before = datetime.now(timezone.utc)
    corpus_id = store.add_corpus(TRICKY, name="Jo's \"corpus\"; DROP TABLE documents", source="upload: reviews.csv")
    after = datetime.now(timezone.utc)

    stored = store.get_corpus(corpus_id)
    assert isinstance(stored, StoredCorpus)
    assert stored.id == corpus_id
    assert stored.name == "Jo's \"corpus\"; DROP TABLE documents"
    assert stored.source == "upload: reviews.csv"
    assert stored.n_documents == 6
    assert stored.classes == TRICKY.classes == ("ham", "spam", "ÄÖÜ")
    assert stored.corpus.texts == TRICKY.texts
    assert stored.corpus.labels == TRICKY.labels
    assert stored.corpus.ids == TRICKY.ids
    assert stored.corpus.name == stored.name
    assert stored.created_at.tzinfo is not None and stored.created_at.utcoffset() == timedelta(0)
    # Databases keep microseconds at most.
    assert before - timedelta(milliseconds=1) <= stored.created_at <= after + timedelta(milliseconds=1)


def test_ids_are_random_and_url_safe(store):
    first = store.add_corpus(TRICKY, name="a", source="paste")
    second = store.add_corpus(TRICKY, name="a", source="paste")
    assert first != second
    for corpus_id in (first, second):
        assert re.fullmatch(r"[A-Za-z0-9_-]{22}", corpus_id)  # 22 base64 characters: 132 bits, 128 random


def test_unknown_ids(store):
    store.add_corpus(TRICKY, name="a", source="paste")
    assert store.get_corpus("nope") is None
    assert store.documents("nope", 0, 10) == []
    assert store.class_counts("nope") == {}
    assert store.delete_corpus("nope") is False


@pytest.mark.parametrize(
    "corpus, name, message",
    [
        (Corpus(("ok", "bad\x00text"), ("a", "b"), ("1", "line 2")), "n",
         r"^Document 'line 2' \(number 2\): its text contains a NUL character \(\\x00\), which is not text\. "
         r"Remove it"),
        (Corpus(("ok",), ("a\x00",), ("7",)), "n", r"^Document '7' \(number 1\): its label contains a NUL"),
        (Corpus(("ok",), ("a",), ("x\x00y",)), "n", r"^Document 'x\\x00y' \(number 1\): its id contains a NUL"),
        (Corpus(("ok",), ("a",), ("1",)), "bad\x00name", r"^The corpus name contains a NUL character"),
        (Corpus((), (), ()), "n", r"^The corpus has no documents; nothing was stored"),
    ],
)
def test_refused_corpora_store_nothing(store, corpus, name, message):
    with pytest.raises(CorpusError, match=message):
        store.add_corpus(corpus, name=name, source="paste")
    assert store.list_corpora() == []
    assert count_rows(store, documents) == 0


def numbered_corpus(n: int, labels=("neg", "pos", "neutral")) -> Corpus:
    return Corpus(
        texts=tuple(f"document {i} says something" for i in range(n)),
        labels=tuple(labels[i % len(labels)] for i in range(n)),
        ids=tuple(f"doc{i}.txt" for i in range(n)),
    )


def test_ten_thousand_documents_in_a_few_statements_and_paged(store):
    corpus = numbered_corpus(10_000)
    statements, commits = [], []

    def executed(connection, cursor, statement, parameters, context, executemany):
        statements.append(statement)

    def committed(connection):
        commits.append(connection)

    sa.event.listen(store.engine, "before_cursor_execute", executed)
    sa.event.listen(store.engine, "commit", committed)
    try:
        corpus_id = store.add_corpus(corpus, name="big", source="upload: big.csv")
    finally:
        sa.event.remove(store.engine, "before_cursor_execute", executed)
        sa.event.remove(store.engine, "commit", committed)
    # One transaction, and a statement per batch of documents rather than one per document.
    document_inserts = [s for s in statements if re.match(r'INSERT INTO "?documents\b', s)]
    assert len(document_inserts) == 10_000 // storage_module.BATCH_SIZE == 10
    assert len(statements) <= len(document_inserts) + 5 and len(commits) == 1, statements
    assert count_rows(store, documents) == 10_000

    assert store.documents(corpus_id, 9_998, 50) == [
        DocumentRow(9_998, "doc9998.txt", "neutral", "document 9998 says something"),
        DocumentRow(9_999, "doc9999.txt", "neg", "document 9999 says something"),
    ]
    page = store.documents(corpus_id, offset=100, limit=3, label="neutral")
    assert page == [(302, "doc302.txt", "neutral", "document 302 says something"),
                    (305, "doc305.txt", "neutral", "document 305 says something"),
                    (308, "doc308.txt", "neutral", "document 308 says something")]
    assert store.class_counts(corpus_id) == {"neg": 3334, "neutral": 3333, "pos": 3333}
    assert store.get_corpus(corpus_id).corpus.texts == corpus.texts


def test_paging_edges(store):
    corpus_id = store.add_corpus(numbered_corpus(7), name="small", source="paste")
    assert [row.position for row in store.documents(corpus_id, 0, 3)] == [0, 1, 2]
    assert [row.position for row in store.documents(corpus_id, 3, 3)] == [3, 4, 5]
    assert [row.position for row in store.documents(corpus_id, 6, 3)] == [6]
    assert store.documents(corpus_id, 7, 3) == []
    assert store.documents(corpus_id, 0, 0) == []
    assert store.documents(corpus_id, 0, 10, label="missing") == []
    assert [row.doc_id for row in store.documents(corpus_id, 1, 10, label="pos")] == ["doc4.txt"]
    with pytest.raises(ValueError, match=r"offset and limit must not be negative \(got offset=-1, limit=3\)"):
        store.documents(corpus_id, -1, 3)


def test_class_counts_sorted_like_the_corpus(store):
    corpus = Corpus(texts=("x",) * 6, labels=("b", "B", "a", "ä", "b", "Z"), ids=tuple("123456"))
    corpus_id = store.add_corpus(corpus, name="labels", source="paste")
    # Python's order (code points), whatever the database's collation says.
    assert store.class_counts(corpus_id) == corpus.class_counts() == {"B": 1, "Z": 1, "a": 1, "b": 2, "ä": 1}
    assert list(store.class_counts(corpus_id)) == ["B", "Z", "a", "b", "ä"]
    assert store.get_corpus(corpus_id).classes == ("B", "Z", "a", "b", "ä")


def test_a_failure_midway_stores_nothing(store, monkeypatch):
    monkeypatch.setattr(storage_module, "BATCH_SIZE", 10)
    document_batches = []

    def fail_on_second_batch(conn, cursor, statement, parameters, context, executemany):
        if statement.lstrip().upper().startswith("INSERT INTO DOCUMENTS"):
            document_batches.append(len(parameters) if executemany else 1)
            if len(document_batches) == 2:
                raise RuntimeError("disk full (simulated)")

    sa.event.listen(store.engine, "before_cursor_execute", fail_on_second_batch)
    try:
        with pytest.raises(RuntimeError, match="disk full"):
            store.add_corpus(numbered_corpus(25), name="half", source="paste")
    finally:
        sa.event.remove(store.engine, "before_cursor_execute", fail_on_second_batch)
    assert document_batches == [10, 10]  # the first batch was sent, then rolled back
    assert store.list_corpora() == []
    assert count_rows(store, documents) == 0
    # And the storage still works afterwards.
    corpus_id = store.add_corpus(numbered_corpus(25), name="whole", source="paste")
    assert store.get_corpus(corpus_id).n_documents == 25


def test_list_newest_first(store, monkeypatch):
    moments = iter(datetime(2024, 5, day, 9, 30, tzinfo=timezone.utc) for day in (1, 3, 2))
    monkeypatch.setattr(storage_module, "_now", lambda: next(moments))
    first = store.add_corpus(numbered_corpus(2), name="first", source="paste")
    third = store.add_corpus(numbered_corpus(3), name="third", source="upload: c.zip")
    second = store.add_corpus(Corpus(("x",), ("only",), ("1",)), name="second", source="upload: b.csv")
    characters = {n: sum(map(len, numbered_corpus(n).texts)) for n in (2, 3)}
    assert store.list_corpora() == [
        CorpusSummary(third, "third", "upload: c.zip", datetime(2024, 5, 3, 9, 30, tzinfo=timezone.utc), 3,
                      ("neg", "neutral", "pos"), None, characters[3], content=content_hash(numbered_corpus(3))),
        CorpusSummary(second, "second", "upload: b.csv", datetime(2024, 5, 2, 9, 30, tzinfo=timezone.utc), 1, ("only",),
                      None, 1, content=content_hash(Corpus(("x",), ("only",), ("1",)))),
        CorpusSummary(first, "first", "paste", datetime(2024, 5, 1, 9, 30, tzinfo=timezone.utc), 2, ("neg", "pos"),
                      None, characters[2], content=content_hash(numbered_corpus(2))),
    ]


def test_delete_cascades_to_documents(store):
    kept = store.add_corpus(numbered_corpus(4), name="kept", source="paste")
    gone = store.add_corpus(numbered_corpus(5), name="gone", source="paste")
    assert count_rows(store, documents) == 9
    assert store.delete_corpus(gone) is True
    assert store.get_corpus(gone) is None
    assert [summary.id for summary in store.list_corpora()] == [kept]
    assert count_rows(store, documents) == 4  # its records went with it: no other entry used them
    assert store.delete_corpus(gone) is False
    assert store.get_corpus(kept).n_documents == 4


def test_foreign_keys_are_enforced(store):
    with pytest.raises(sa.exc.IntegrityError):
        with store.engine.begin() as connection:
            connection.execute(
                documents.insert(), {"content": "missing", "position": 0, "doc_id": "1", "label": "a", "text": "x"}
            )


def test_corpora_survive_a_restart(database_url):
    with Storage(database_url) as before:
        before.create_schema()
        corpus_id = before.add_corpus(TRICKY, name="kept", source="paste")
        listed = before.list_corpora()
    with Storage(database_url) as after:
        after.create_schema()  # at every start: creates nothing, deletes nothing
        assert after.list_corpora() == listed
        stored = after.get_corpus(corpus_id)
        assert (stored.corpus.texts, stored.corpus.labels, stored.corpus.ids) == (
            TRICKY.texts, TRICKY.labels, TRICKY.ids)


def test_usable_from_other_threads(store):
    corpus_id = store.add_corpus(numbered_corpus(30), name="threads", source="paste")
    with ThreadPoolExecutor(max_workers=4) as pool:
        pages = list(pool.map(lambda offset: store.documents(corpus_id, offset, 10), [0, 10, 20, 0]))
        added = list(pool.map(lambda i: store.add_corpus(numbered_corpus(3), name=f"t{i}", source="paste"), range(4)))
    assert [page[0].position for page in pages] == [0, 10, 20, 0]
    assert len(set(added)) == 4
    assert len(store.list_corpora()) == 5


def test_default_url_is_a_file_in_the_instance_folder(tmp_path):
    url = default_url(tmp_path)
    assert url == f"sqlite:///{tmp_path / 'webnb.sqlite3'}"
    with Storage(url) as opened:
        opened.create_schema()
        opened.add_corpus(numbered_corpus(2), name="file", source="paste")
    assert (tmp_path / "webnb.sqlite3").stat().st_size > 0


# -- class corpora, published and replaced ---------------------------------------------------------------------------

CLASS_FIRST = Corpus(texts=("great match", "dull match", "brilliant goal"), labels=("pos", "neg", "pos"),
                     ids=("1", "2", "3"))
CLASS_SECOND = Corpus(texts=("splendid final", "awful replay"), labels=("pos", "neg"), ids=("a", "b"))


def class_corpus(corpus_id: str, corpus: Corpus, name: str = "Matches"):
    from webnb.store.database import PublishedCorpus

    return PublishedCorpus(corpus_id, name, "for the class", "test", (("alpha", "2"),), corpus)


def test_a_class_corpus_id_in_use_is_refused_without_replace(store):
    store.add_class_corpora([class_corpus("matches", CLASS_FIRST)])
    before = store.class_corpus("matches")
    with pytest.raises(CorpusError, match=r"^The id 'matches' is taken already\. Nothing was stored\.$"):
        store.add_class_corpora([class_corpus("other", CLASS_SECOND), class_corpus("matches", CLASS_SECOND)])
    assert store.class_corpora() == [before]


def test_replace_keeps_the_place_in_the_list_and_drops_the_unused_records(store):
    from webnb.store.database import contents

    store.add_class_corpora([class_corpus("matches", CLASS_FIRST)])
    store.add_class_corpora([class_corpus("later", CLASS_SECOND, "Later")])
    old = store.class_corpus("matches")
    store.add_class_corpora([class_corpus("matches", CLASS_SECOND, "Replayed"), class_corpus("fresh", CLASS_FIRST)],
                            replace=True)
    new = store.class_corpus("matches")
    assert (new.name, new.n_documents, new.created_at, new.content) == (
        "Replayed", 2, old.created_at, content_hash(CLASS_SECOND))
    assert [entry.id for entry in store.class_corpora()] == ["matches", "later", "fresh"]
    # The first records stay while "fresh" uses them; replaced once more, nothing uses them and they go.
    assert store.content_corpus(old.content) == CLASS_FIRST
    store.add_class_corpora([class_corpus("fresh", CLASS_SECOND)], replace=True)
    assert store.content_corpus(old.content) is None
    assert count_rows(store, contents) == 1


def test_replace_never_replaces_a_stored_corpus(store):
    from webnb.store.database import StoredCorpusId, corpora

    corpus_id = store.add_corpus(CLASS_FIRST, name="mine", source="paste")
    with store.engine.begin() as connection:
        connection.execute(corpora.update().where(corpora.c.id == corpus_id).values(id="mine"))
    with pytest.raises(StoredCorpusId) as refused:
        store.add_class_corpora([class_corpus("mine", CLASS_SECOND)], replace=True)
    assert refused.value.corpus_id == "mine"
    assert store.class_corpora() == [] and store.summary("mine").name == "mine"


def test_a_replace_that_fails_before_its_commit_leaves_the_old_corpora_whole(store, monkeypatch):
    from webnb.store.database import contents

    store.add_class_corpora([class_corpus("matches", CLASS_FIRST), class_corpus("matches-test", CLASS_SECOND)])
    before = store.class_corpora()

    def fail(point):  # every old row and record deleted by now, every new one written, nothing committed
        if point == "class-corpora-write":
            raise sa.exc.OperationalError("COMMIT", {}, Exception("disk I/O error"))

    monkeypatch.setattr(storage_module, "pause_at", fail)
    replacement = Corpus(texts=("new one", "new two"), labels=("x", "y"), ids=("n1", "n2"))
    with pytest.raises(sa.exc.OperationalError):
        store.add_class_corpora([class_corpus("matches", replacement, "New"),
                                 class_corpus("matches-test", replacement, "New")], replace=True)
    assert store.class_corpora() == before
    assert store.content_corpus(before[0].content) == CLASS_FIRST
    assert store.content_corpus(before[1].content) == CLASS_SECOND
    assert store.content_corpus(content_hash(replacement)) is None and count_rows(store, contents) == 2
