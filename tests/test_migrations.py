"""The schema's migrations (webnb/store/migrations), on SQLite and on PostgreSQL: a database written by the release
before Alembic, with its data, upgrades in place and every corpus reads back unchanged; identical corpora end up sharing
one content; a database at revision 0002 (content-addressed, counted) gains the class corpora's table with every row
kept; a database at revision 0006 gains when each job started (``jobs.started_at``, none for the rows before it);
a fresh database reaches the same schema; upgrading is a no-op the second time and safe from several processes
at once.

The schema before Alembic is the baseline revision's frozen copy (not webnb.store.database's, which moves on with
the migrations).
"""
from __future__ import annotations

import hashlib
import importlib
import json
import multiprocessing
from datetime import datetime, timedelta, timezone

import pytest
import sqlalchemy as sa
from alembic import command

from webnb.store import migrations

HEAD = "0008"
LTI_TABLES = ("lti_platforms", "lti_deployments", "lti_keys", "lti_logins", "lti_users", "lti_tickets",
              "lti_scores")  # 0008

# --- the schema of the release before Alembic ------------------------------------------------------------------------
# The baseline revision keeps the one frozen copy of it (what a database of that release holds); a database written
# with these tables, without Alembic's table, is what an upgrade from that release starts from.

TODAY = importlib.import_module("webnb.store.migrations.versions.0001_baseline").metadata
old_corpora, old_documents, old_shares, old_jobs, old_workspaces = (
    TODAY.tables[name] for name in ("corpora", "documents", "shares", "jobs", "workspaces"))

FIRST_RELEASE_SCHEMA = (  # as tests/test_tables_upload.py's OLD_SCHEMA: no workspace, counts, features, indexes
    "CREATE TABLE corpora (id TEXT PRIMARY KEY, name TEXT NOT NULL, source TEXT NOT NULL, "
    "created_at TIMESTAMP WITH TIME ZONE NOT NULL, n_documents INTEGER NOT NULL, classes TEXT NOT NULL)",
    "CREATE TABLE documents (corpus_id TEXT NOT NULL REFERENCES corpora (id) ON DELETE CASCADE, "
    "position INTEGER NOT NULL, doc_id TEXT NOT NULL, label TEXT NOT NULL, text TEXT NOT NULL, "
    "PRIMARY KEY (corpus_id, position))",
)

# --- the schema after the migrations: (python type, nullable) per column, primary key, foreign keys, indexes ---------

TEXT, INT, TIME, BYTES = str, int, datetime, bytes
EXPECTED_SCHEMA = {
    "alembic_version": {"columns": {"version_num": (TEXT, False)}, "primary_key": ["version_num"],
                        "foreign_keys": [], "indexes": {}},
    "contents": {
        "columns": {"hash": (TEXT, False), "n_documents": (INT, False), "n_characters": (INT, False),
                    "n_bytes": (INT, False), "classes": (TEXT, False), "created_at": (TIME, False)},
        "primary_key": ["hash"], "foreign_keys": [], "indexes": {},
    },
    "corpora": {
        "columns": {"id": (TEXT, False), "name": (TEXT, False), "source": (TEXT, False), "created_at": (TIME, False),
                    "n_documents": (INT, False), "classes": (TEXT, False), "workspace": (TEXT, True),
                    "n_characters": (INT, True), "features": (TEXT, True), "n_bytes": (INT, True),
                    "content": (TEXT, True)},
        "primary_key": ["id"],
        "foreign_keys": [(("content",), "contents", ("hash",), None)],
        "indexes": {"ix_corpora_created_at": ["created_at"], "ix_corpora_workspace": ["workspace"],
                    "ix_corpora_content": ["content"]},
    },
    "documents": {
        "columns": {"content": (TEXT, False), "position": (INT, False), "doc_id": (TEXT, False),
                    "label": (TEXT, False), "text": (TEXT, False)},
        "primary_key": ["content", "position"],
        "foreign_keys": [(("content",), "contents", ("hash",), "CASCADE")],
        "indexes": {"ix_documents_content_label_position": ["content", "label", "position"]},
    },
    "counts": {
        "columns": {"content": (TEXT, False), "options": (TEXT, False), "state": (TEXT, False),
                    "claimed_at": (TIME, False), "builds": (INT, False), "n_words": (INT, True),
                    "vocabulary": (BYTES, True), "statistics": (BYTES, True), "matrix": (BYTES, True),
                    "n_bytes": (INT, True), "used_at": (TIME, True)},
        "primary_key": ["content", "options"],
        "foreign_keys": [(("content",), "contents", ("hash",), "CASCADE")],
        "indexes": {},
    },
    "shares": {
        "columns": {"token": (TEXT, False), "corpus_id": (TEXT, False), "created_at": (TIME, False)},
        "primary_key": ["token"], "foreign_keys": [(("corpus_id",), "corpora", ("id",), "CASCADE")], "indexes": {},
    },
    "jobs": {
        "columns": {"id": (TEXT, False), "workspace": (TEXT, True), "title": (TEXT, False), "unit": (TEXT, False),
                    "done": (INT, False), "total": (INT, False), "state": (TEXT, False),
                    "result_url": (TEXT, True), "error": (TEXT, True), "updated_at": (TIME, False),
                    "started_at": (TIME, True)},
        "primary_key": ["id"], "foreign_keys": [], "indexes": {},
    },
    "workspaces": {
        "columns": {"id": (TEXT, False), "created_at": (TIME, False), "last_seen_at": (TIME, False),
                    "created_by": (TEXT, True)},
        "primary_key": ["id"], "foreign_keys": [], "indexes": {"ix_workspaces_last_seen_at": ["last_seen_at"]},
    },
    "class_corpora": {
        "columns": {"id": (TEXT, False), "name": (TEXT, False), "description": (TEXT, False),
                    "source": (TEXT, False), "presets": (TEXT, False), "n_documents": (INT, False),
                    "class_counts": (TEXT, False), "created_at": (TIME, False), "content": (TEXT, False)},
        "primary_key": ["id"],
        "foreign_keys": [(("content",), "contents", ("hash",), None)],
        "indexes": {"ix_class_corpora_content": ["content"]},
    },
    "classes": {
        "columns": {"code": (TEXT, False), "secret_hash": (TEXT, False), "corpus_id": (TEXT, False),
                    "presets": (TEXT, False), "state": (TEXT, False), "created_at": (TIME, False),
                    "ends_at": (TIME, False), "ended_at": (TIME, True), "state_version": (INT, False)},
        "primary_key": ["code"], "foreign_keys": [], "indexes": {},
    },
    "class_members": {
        "columns": {"code": (TEXT, False), "workspace": (TEXT, False), "joined_at": (TIME, False)},
        "primary_key": ["code", "workspace"],
        "foreign_keys": [(("code",), "classes", ("code",), "CASCADE")], "indexes": {},
    },
    "class_questions": {
        "columns": {"id": (INT, False), "code": (TEXT, False), "number": (INT, False), "kind": (TEXT, False),
                    "goal": (TEXT, True), "target": (TEXT, True), "address": (TEXT, False), "answer": (TEXT, True),
                    "asked_at": (TIME, False), "revealed_at": (TIME, True)},
        "primary_key": ["id"],
        "foreign_keys": [(("code",), "classes", ("code",), "CASCADE")], "indexes": {},
    },
    "class_answers": {
        "columns": {"question_id": (INT, False), "student": (TEXT, False), "answer": (TEXT, False),
                    "success": (bool, True), "score": (float, True), "hidden": (bool, False),
                    "answered_at": (TIME, False)},
        "primary_key": ["question_id", "student"],
        "foreign_keys": [(("question_id",), "class_questions", ("id",), "CASCADE")], "indexes": {},
    },
    "lti_platforms": {
        "columns": {"id": (INT, False), "issuer": (TEXT, False), "client_id": (TEXT, False),
                    "login_url": (TEXT, False), "token_url": (TEXT, False), "keyset_url": (TEXT, False),
                    "created_at": (TIME, False)},
        "primary_key": ["id"], "foreign_keys": [], "indexes": {},
    },
    "lti_deployments": {
        "columns": {"platform": (INT, False), "deployment_id": (TEXT, False)},
        "primary_key": ["platform", "deployment_id"],
        "foreign_keys": [(("platform",), "lti_platforms", ("id",), "CASCADE")], "indexes": {},
    },
    "lti_keys": {
        "columns": {"kid": (TEXT, False), "private_pem": (TEXT, False), "created_at": (TIME, False)},
        "primary_key": ["kid"], "foreign_keys": [], "indexes": {},
    },
    "lti_logins": {
        "columns": {"state": (TEXT, False), "nonce": (TEXT, False), "platform": (INT, False),
                    "target_link_uri": (TEXT, False), "expires_at": (TIME, False), "used_at": (TIME, True)},
        "primary_key": ["state"],
        "foreign_keys": [(("platform",), "lti_platforms", ("id",), "CASCADE")], "indexes": {},
    },
    "lti_users": {
        "columns": {"issuer": (TEXT, False), "deployment_id": (TEXT, False), "subject": (TEXT, False),
                    "workspace": (TEXT, False), "created_at": (TIME, False), "last_launch_at": (TIME, False),
                    "platform": (INT, True), "lineitem": (TEXT, True), "score_maximum": (float, True),
                    "context_id": (TEXT, True)},
        "primary_key": ["issuer", "deployment_id", "subject"], "foreign_keys": [], "indexes": {},
    },
    "lti_tickets": {
        "columns": {"ticket_hash": (TEXT, False), "kind": (TEXT, False), "payload": (TEXT, False),
                    "expires_at": (TIME, False), "used_at": (TIME, True)},
        "primary_key": ["ticket_hash"], "foreign_keys": [], "indexes": {},
    },
    "lti_scores": {
        "columns": {"id": (INT, False), "platform": (INT, False), "subject": (TEXT, False), "lineitem": (TEXT, False),
                    "context_id": (TEXT, True), "workspace": (TEXT, False), "score_given": (float, False),
                    "score_maximum": (float, False), "scored_at": (TIME, False), "state": (TEXT, False),
                    "tries": (INT, False), "next_try_at": (TIME, True), "last_error": (TEXT, True)},
        "primary_key": ["id"],
        "foreign_keys": [(("platform",), "lti_platforms", ("id",), "CASCADE")], "indexes": {},
    },
}


def describe(engine) -> dict:
    """The database's schema as EXPECTED_SCHEMA spells it, read back by SQLAlchemy's inspector."""
    inspector = sa.inspect(engine)
    described = {}
    for table in inspector.get_table_names():
        described[table] = {
            "columns": {column["name"]: (column["type"].python_type, column["nullable"])
                        for column in inspector.get_columns(table)},
            "primary_key": inspector.get_pk_constraint(table)["constrained_columns"],
            "foreign_keys": sorted((tuple(key["constrained_columns"]), key["referred_table"],
                                    tuple(key["referred_columns"]), key["options"].get("ondelete"))
                                   for key in inspector.get_foreign_keys(table)),
            # PostgreSQL lists a unique constraint's index too, SQLite does not: the constraints are tested by use.
            "indexes": {index["name"]: index["column_names"] for index in inspector.get_indexes(table)
                        if not index.get("duplicates_constraint")},
        }
    return described


# --- today's data -----------------------------------------------------------------------------------------------------

T0 = datetime(2026, 3, 1, 9, 30, 15, 123456, tzinfo=timezone.utc)

TRICKY = [  # (doc_id, label, text)
    ("1", "spam", "It's a \"great\" match; -- really'); DROP TABLE corpora; --"),
    ("review's.txt", "ham", "Ünïcödé: naïve café, 東京, Ελληνικά, עברית, 🙂👍🏽, e\u0301 (combining)"),
    ("pos/cv000_29590.txt", "spam", "line one\r\nline two\n\ttabbed\\backslash %s %(name)s ?"),
    ("4", "ham", ""),
    ("5", "ÄÖÜ", "five kilobytes " * 350),
    ("6", "spam", "   surrounding spaces kept   "),
    ("", "ham", "an empty id"),
    ("8", "ham", "\u2028line separator\u00a0no-break space\ufeff"),
]
IRIS_FEATURES = ["sepal length", "sepal width", "petal length", "petal width"]
IRIS = [(str(i), ("setosa", "versicolor", "virginica")[i % 3],
         " ".join(f"{(i * 7 + k * 3) % 50 / 10 + 1:.1f}" for k in range(4))) for i in range(30)]
# More documents than the migration fetches at a time, so that hashing streams over several batches.
BIG = [(f"doc-{i:05d}", f"class {i % 7}", f"document {i}: " + "word%d " % (i % 97) * (i % 40 + 1))
       for i in range(1234)]


def stored_size(records) -> int:
    return sum(len(text.encode()) + len(label.encode()) + len(doc_id.encode()) + 200 for doc_id, label, text in records)


def expected_hash(records) -> str:
    """The content hash as specified: each value as its UTF-8 length in 8 big-endian bytes, then its bytes."""
    stream = b"".join(len(value.encode()).to_bytes(8, "big") + value.encode()
                      for record in records for value in record)
    return hashlib.sha256(stream).hexdigest()


def classes_of(records) -> str:
    return json.dumps(sorted({label for _, label, _ in records}))


# id: (records, workspace, features, counted); "counted" False for a corpus stored before sizes were kept.
CORPORA = {
    "reviews": (TRICKY, "w1", None, True),
    "reviews-copy": (TRICKY, "w2", None, True),  # "Open my copy" from a share link, in another workspace
    "reviews-reversed": (TRICKY[::-1], "w1", None, True),
    "reviews-relabelled": ([("1", "ham", TRICKY[0][2]), *TRICKY[1:]], None, None, False),
    "iris": (IRIS, "w1", IRIS_FEATURES, True),
    "big": (BIG, "w3", None, True),  # w3 stored before workspaces had rows: it has none
    "big-again": (BIG, None, None, False),  # the same content, uploaded again in local mode
}
DISTINCT_CONTENTS = 5  # reviews (and its copy), reversed, relabelled, iris, big (and again)


def write_todays_database(engine) -> None:
    TODAY.create_all(engine)
    with engine.begin() as connection:
        for n, (corpus_id, (records, workspace, features, counted)) in enumerate(CORPORA.items()):
            connection.execute(old_corpora.insert(), {
                "id": corpus_id, "name": f"{corpus_id}: Jo's \"corpus\"", "source": "upload: data.csv",
                "created_at": T0 + timedelta(hours=n), "n_documents": len(records), "classes": classes_of(records),
                "workspace": workspace, "features": None if features is None else json.dumps(features),
                "n_characters": sum(len(text) for _, _, text in records) if counted else None,
                "n_bytes": stored_size(records) if counted else None,
            })
            connection.execute(old_documents.insert(), [
                {"corpus_id": corpus_id, "position": position, "doc_id": doc_id, "label": label, "text": text}
                for position, (doc_id, label, text) in enumerate(records)])
        connection.execute(old_workspaces.insert(), [
            {"id": "w1", "created_at": T0, "last_seen_at": T0 + timedelta(days=2), "created_by": "keyed-hash"},
            {"id": "w2", "created_at": T0, "last_seen_at": T0 + timedelta(days=1), "created_by": None},
        ])
        connection.execute(old_shares.insert(), [
            {"token": "token-reviews", "corpus_id": "reviews", "created_at": T0 + timedelta(minutes=5)},
            {"token": "token-iris", "corpus_id": "iris", "created_at": T0 + timedelta(minutes=6)},
        ])
        connection.execute(old_jobs.insert(), [
            {"id": "job-1", "workspace": "w1", "title": "Counting big", "unit": "documents", "done": 1234,
             "total": 1234, "state": "done", "result_url": "/corpora/big", "error": None, "updated_at": T0},
            {"id": "job-2", "workspace": None, "title": "Upload", "unit": "bytes", "done": 10, "total": 10**10,
             "state": "failed", "result_url": None, "error": "The file is not UTF-8 (byte 0xff at 3).",
             "updated_at": T0},
        ])


# --- reading back -----------------------------------------------------------------------------------------------------

def utc(moment: datetime | str) -> datetime:
    if isinstance(moment, str):  # SQLite's, read without SQLAlchemy's types
        moment = datetime.fromisoformat(moment)
    return moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment.astimezone(timezone.utc)


def plain(row) -> tuple:
    return tuple(utc(value) if isinstance(value, datetime) else value for value in row)


def rows(connection, table: str, order_by: str) -> list[tuple]:
    return [plain(row) for row in connection.execute(sa.text(f"SELECT * FROM {table} ORDER BY {order_by}"))]


def snapshot(engine) -> dict:
    """Every row of every table, to compare before and after."""
    with engine.connect() as connection:
        # Every table's key is its first column or (documents, counts) its first two.
        return {table: rows(connection, table, "1" if table == "alembic_version" else "1, 2")
                for table in sa.inspect(connection).get_table_names()}


def without_started_at(rows_of: dict) -> dict:
    """A snapshot taken at the head as it would have been before 0007: every job's row gained ``started_at`` (its
    last column), which is None for the jobs written before it, and 0008's tables are there, empty."""
    assert [row[-1] for row in rows_of["jobs"]] == [None] * len(rows_of["jobs"])
    return {**as_at_0007(rows_of), "jobs": [row[:-1] for row in rows_of["jobs"]]}


def as_at_0007(rows_of: dict) -> dict:
    """A snapshot taken at the head as it would have been at 0007: without 0008's tables, which must be empty."""
    assert [rows_of.get(table, []) for table in LTI_TABLES] == [[]] * len(LTI_TABLES)
    return {table: rows for table, rows in rows_of.items() if table not in LTI_TABLES}


def documents_of(connection, corpus_id: str) -> list[tuple]:
    found = connection.execute(sa.text(
        "SELECT d.position, d.doc_id, d.label, d.text FROM corpora c JOIN documents d ON d.content = c.content "
        "WHERE c.id = :corpus_id ORDER BY d.position"), {"corpus_id": corpus_id}).all()
    assert [position for position, *_ in found] == list(range(len(found)))
    return [tuple(record) for _, *record in found]


def count(connection, table: str) -> int:
    return connection.execute(sa.text(f"SELECT count(*) FROM {table}")).scalar_one()


@pytest.fixture
def engine(database_url):
    made = sa.create_engine(database_url)
    yield made
    made.dispose()


# --- the tests --------------------------------------------------------------------------------------------------------

def test_the_content_hash_is_as_specified():
    content_hash = migrations.revision_module("0002").content_hash
    assert content_hash(TRICKY) == expected_hash(TRICKY)
    # Spelled out once: "1", "pos", "good" as 8-byte lengths and bytes.
    assert content_hash([("1", "pos", "good")]) == hashlib.sha256(
        b"\0\0\0\0\0\0\0\x011" b"\0\0\0\0\0\0\0\x03pos" b"\0\0\0\0\0\0\0\x04good").hexdigest()
    # Lengths keep the boundaries: moving a character from one value to the next changes the hash.
    assert content_hash([("ab", "c", "")]) != content_hash([("a", "bc", "")])
    assert content_hash([("é", "x", "y")]) != content_hash([("e\u0301", "x", "y")])
    assert content_hash([]) == hashlib.sha256().hexdigest()


def test_an_empty_database_gets_the_newest_schema(engine):
    assert migrations.current(engine) is None
    migrations.upgrade(engine)
    assert migrations.current(engine) == migrations.head() == HEAD
    assert describe(engine) == EXPECTED_SCHEMA
    with engine.connect() as connection:
        assert [count(connection, table) for table in EXPECTED_SCHEMA if table != "alembic_version"] == [0] * 19


def test_todays_database_upgrades_in_place_and_every_corpus_reads_back_unchanged(engine):
    write_todays_database(engine)
    before = snapshot(engine)
    migrations.upgrade(engine)

    assert migrations.current(engine) == HEAD
    assert describe(engine) == EXPECTED_SCHEMA  # the same schema as a fresh database's (test above)
    after = without_started_at(snapshot(engine))
    with engine.connect() as connection:
        for corpus_id, (records, *_) in CORPORA.items():
            assert documents_of(connection, corpus_id) == records, corpus_id

        # Identical corpora share one content and one set of document rows.
        content_of = dict(connection.execute(sa.text("SELECT id, content FROM corpora")).all())
        assert content_of["reviews"] == content_of["reviews-copy"]
        assert content_of["big"] == content_of["big-again"]
        assert len(set(content_of.values())) == count(connection, "contents") == DISTINCT_CONTENTS
        assert count(connection, "documents") == 3 * len(TRICKY) + len(IRIS) + len(BIG)
        assert count(connection, "counts") == 0

        # Each content's row: its hash, counts and classes from its documents; as old as its first corpus.
        contents = {row.hash: row for row in connection.execute(sa.text("SELECT * FROM contents"))}
        for corpus_id, (records, *_) in CORPORA.items():
            content = contents[content_of[corpus_id]]
            assert content.hash == expected_hash(records)
            assert (content.n_documents, content.n_characters, content.n_bytes, content.classes) == (
                len(records), sum(len(text) for _, _, text in records), stored_size(records), classes_of(records))
        assert utc(contents[content_of["reviews-copy"]].created_at) == T0  # the original's time, not the copy's
        assert utc(contents[content_of["big-again"]].created_at) == T0 + timedelta(hours=5)

    # Every corpus keeps its own columns; the sizes that were not counted are counted now.
    old = {row[0]: row for row in before["corpora"]}
    for row in after["corpora"]:
        corpus_id, *columns, n_bytes, content = row
        records, _, _, counted = CORPORA[corpus_id]
        expected = list(old[corpus_id][1:])
        if not counted:
            expected[6], expected[8] = sum(len(text) for _, _, text in records), stored_size(records)
        assert (*columns, n_bytes) == tuple(expected), corpus_id
    assert [row[8] for row in after["corpora"] if row[0] == "iris"] == [json.dumps(IRIS_FEATURES)]
    for table in ("shares", "jobs", "workspaces"):
        assert after[table] == before[table], table
    assert after["class_corpora"] == []


def test_a_first_release_database_upgrades_in_place(engine):
    with engine.begin() as connection:
        for statement in FIRST_RELEASE_SCHEMA:
            connection.execute(sa.text(statement))
        insert_corpus = sa.text("INSERT INTO corpora VALUES (:id, :name, 'paste', :created_at, :n, :classes)")
        insert_corpus = insert_corpus.bindparams(sa.bindparam("created_at", type_=sa.DateTime(timezone=True)))
        for n, corpus_id in enumerate(["old", "old-again"]):
            connection.execute(insert_corpus, {"id": corpus_id, "name": "Old", "created_at": T0 + timedelta(days=n),
                                               "n": len(TRICKY), "classes": classes_of(TRICKY)})
            for position, (doc_id, label, text) in enumerate(TRICKY):
                connection.execute(sa.text("INSERT INTO documents VALUES (:c, :p, :i, :l, :t)"),
                                   {"c": corpus_id, "p": position, "i": doc_id, "l": label, "t": text})
    migrations.upgrade(engine)

    described = describe(engine)
    if engine.dialect.name == "sqlite":
        # The first release's table is kept as its DDL made it: SQLite lets a PRIMARY KEY that is not an INTEGER
        # hold NULL unless it says NOT NULL (ids never were NULL), and reads "TIMESTAMP WITH TIME ZONE" as NUMERIC.
        columns = described["corpora"]["columns"]
        assert (columns["id"], columns["created_at"][0].__name__) == ((str, True), "Decimal")
        columns["id"], columns["created_at"] = (str, False), (datetime, False)
    assert described == EXPECTED_SCHEMA
    with engine.connect() as connection:
        assert documents_of(connection, "old") == documents_of(connection, "old-again") == TRICKY
        assert (count(connection, "contents"), count(connection, "documents")) == (1, len(TRICKY))
        assert connection.execute(sa.text(
            "SELECT workspace, n_characters, n_bytes, features FROM corpora ORDER BY id")).all() == [
            (None, sum(len(text) for _, _, text in TRICKY), stored_size(TRICKY), None)] * 2


def test_upgrading_again_changes_nothing(engine):
    write_todays_database(engine)
    migrations.upgrade(engine)
    upgraded = snapshot(engine)
    migrations.upgrade(engine)
    assert snapshot(engine) == upgraded
    assert migrations.current(engine) == HEAD


def test_an_upgrade_that_fails_leaves_the_database_as_it_was(engine, monkeypatch):
    """One transaction: tables made and corpora moved before the failure are all undone."""
    write_todays_database(engine)
    before = snapshot(engine)
    calls = []

    def sha256_failing_at_the_third_corpus():
        calls.append(1)
        if len(calls) == 3:
            raise RuntimeError("the disk is full")
        return hashlib.new("sha256")

    monkeypatch.setattr(hashlib, "sha256", sha256_failing_at_the_third_corpus)
    with pytest.raises(RuntimeError, match="the disk is full"):
        migrations.upgrade(engine)
    monkeypatch.undo()
    assert migrations.current(engine) is None
    assert snapshot(engine) == before
    migrations.upgrade(engine)  # and the next start upgrades it
    with engine.connect() as connection:
        assert documents_of(connection, "reviews-copy") == TRICKY


def test_0002_has_no_downgrade():
    with pytest.raises(NotImplementedError, match="restore a backup"):
        migrations.revision_module("0002").downgrade()


def migrate(engine, revision: str, direction=command.upgrade) -> None:
    """Take the database to ``revision`` (up or down) in one transaction, as webnb.store.migrations.upgrade runs
    them."""
    settings = migrations.config()
    with engine.begin() as connection:
        settings.attributes["connection"] = connection
        direction(settings, revision)


def assert_goes_back_and_up(engine, revision: str, before: dict) -> None:
    """Downgrading to ``revision`` gives back ``before`` (its rows, at that revision) and upgrading again gives
    today's schema."""
    migrate(engine, revision, command.downgrade)
    downgraded = snapshot(engine)
    assert before.get("alembic_version", [(revision,)]) == [(revision,)]  # taken at that revision
    before = {table: rows for table, rows in before.items() if table != "alembic_version"}
    assert downgraded.pop("alembic_version") == [(revision,)]
    assert downgraded == before
    migrations.upgrade(engine)
    assert describe(engine) == EXPECTED_SCHEMA


def write_counted_data(engine) -> None:
    """What a server at revision 0002 has besides its corpora: a counted content, a claim in progress."""
    with engine.begin() as connection:
        content = connection.execute(sa.text("SELECT content FROM corpora WHERE id = 'reviews'")).scalar_one()
        counted = sa.text("INSERT INTO counts (content, options, state, claimed_at, builds, n_words, vocabulary, "
                          "statistics, matrix, n_bytes) VALUES (:content, :options, :state, :claimed_at, :builds, "
                          ":n_words, :vocabulary, :statistics, :matrix, :n_bytes)")
        counted = counted.bindparams(sa.bindparam("claimed_at", type_=sa.DateTime(timezone=True)),
                                     *(sa.bindparam(name, type_=sa.LargeBinary)
                                       for name in ("vocabulary", "statistics", "matrix")))
        connection.execute(counted, [
            {"content": content, "options": '{"min_df": 1}', "state": "done", "claimed_at": T0, "builds": 1,
             "n_words": 3, "vocabulary": b"\x00words", "statistics": b"\x01\x02", "matrix": b"\xff" * 40,
             "n_bytes": 48},
            {"content": content, "options": '{"min_df": 2}', "state": "counting", "claimed_at": T0, "builds": 0,
             "n_words": None, "vocabulary": None, "statistics": None, "matrix": None, "n_bytes": None},
        ])


def test_a_database_at_0002_gains_class_corpora_in_place(engine):
    write_todays_database(engine)
    migrate(engine, "0002")
    write_counted_data(engine)
    before = snapshot(engine)
    assert "class_corpora" not in before and len(before["counts"]) == 2
    migrations.upgrade(engine)
    assert migrations.current(engine) == HEAD
    assert describe(engine) == EXPECTED_SCHEMA
    after = without_started_at(snapshot(engine))
    assert after.pop("class_corpora") == [] and after.pop("classes") == [] and after.pop("class_members") == []
    assert after.pop("class_questions") == [] and after.pop("class_answers") == []
    assert after.pop("alembic_version") == [(HEAD,)] and before.pop("alembic_version") == [("0002",)]
    assert [row[-1] for row in after["counts"]] == [None, None]  # 0004: not used since (claimed_at stands in)
    after["counts"] = [row[:-1] for row in after["counts"]]
    assert after == before  # every corpus, content, document, count, share, job and workspace as it was
    # A class corpus may now name a stored content, as a workspace's corpus does.
    with engine.begin() as connection:
        content = connection.execute(sa.text("SELECT content FROM corpora WHERE id = 'big'")).scalar_one()
        connection.execute(sa.text(
            "INSERT INTO class_corpora VALUES ('news', 'News', '', 'operator', '{}', 1234, '{}', :at, :content)"
        ).bindparams(sa.bindparam("at", type_=sa.DateTime(timezone=True))), {"at": T0, "content": content})
    with engine.connect() as connection:
        assert documents_of(connection, "big") == BIG


def test_0003_goes_back_to_0002_without_the_class_corpora(engine):
    write_todays_database(engine)
    migrations.upgrade(engine)
    upgraded = without_started_at(snapshot(engine))  # 0007's column
    migrate(engine, "0002", command.downgrade)
    assert migrations.current(engine) == "0002"
    downgraded = snapshot(engine)
    assert "class_corpora" not in downgraded
    later = ("class_corpora", "classes", "class_members", "class_questions", "class_answers",
             "alembic_version")  # 0003's table, 0005's and 0006's
    assert {table: rows for table, rows in upgraded.items() if table not in later} == {
        table: rows for table, rows in downgraded.items() if table != "alembic_version"}
    migrations.upgrade(engine)
    assert describe(engine) == EXPECTED_SCHEMA


def test_0004_adds_when_counts_were_used_and_goes_back(engine):
    write_todays_database(engine)
    migrate(engine, "0003")
    write_counted_data(engine)
    before = snapshot(engine)
    migrations.upgrade(engine)
    after = as_at_0007(snapshot(engine))
    assert [row[-1] for row in after["counts"]] == [None, None]
    assert [row[:-1] for row in after["counts"]] == before["counts"]
    assert_goes_back_and_up(engine, "0003", before)


def test_0005_adds_the_classes_in_the_room_and_goes_back(engine):
    write_todays_database(engine)
    migrate(engine, "0004")
    write_counted_data(engine)
    before = snapshot(engine)
    assert "classes" not in before and "class_members" not in before
    migrations.upgrade(engine)
    assert describe(engine) == EXPECTED_SCHEMA
    after = without_started_at(snapshot(engine))
    assert after.pop("classes") == [] and after.pop("class_members") == []
    assert after.pop("class_questions") == [] and after.pop("class_answers") == []
    assert after.pop("alembic_version") == [(HEAD,)]
    assert after == {table: rows for table, rows in before.items() if table != "alembic_version"}
    # A class and a member, as webnb/store/database.py writes them; a member's row goes with its class.
    with engine.begin() as connection:
        at = sa.bindparam("at", type_=sa.DateTime(timezone=True))
        connection.execute(sa.text(
            "INSERT INTO classes (code, secret_hash, corpus_id, presets, state, created_at, ends_at) "
            "VALUES ('3X9KQR', 'hash', 'spam-ham', '{}', '/corpora/spam-ham', :at, :at)").bindparams(at), {"at": T0})
        connection.execute(sa.text("INSERT INTO class_members VALUES ('3X9KQR', 'w1', :at)").bindparams(at),
                           {"at": T0})
        assert connection.execute(sa.text("SELECT state_version FROM classes")).scalar_one() == 0
    assert_goes_back_and_up(engine, "0004", before)


def test_0006_adds_the_questions_of_a_class_and_goes_back(engine):
    write_todays_database(engine)
    migrate(engine, "0005")
    with engine.begin() as connection:
        at = sa.bindparam("at", type_=sa.DateTime(timezone=True))
        connection.execute(sa.text(
            "INSERT INTO classes (code, secret_hash, corpus_id, presets, state, created_at, ends_at) "
            "VALUES ('3X9KQR', 'hash', 'spam-ham', '{}', '/corpora/spam-ham', :at, :at)").bindparams(at), {"at": T0})
    before = snapshot(engine)
    migrations.upgrade(engine)
    assert describe(engine) == EXPECTED_SCHEMA
    after = without_started_at(snapshot(engine))
    assert after.pop("class_questions") == [] and after.pop("class_answers") == []
    assert after.pop("alembic_version") == [(HEAD,)] and before.pop("alembic_version") == [("0005",)]
    assert after == before
    # A question and an answer as webnb/store/database.py writes them: a second question of the same number is refused.
    with engine.begin() as connection:
        at = sa.bindparam("at", type_=sa.DateTime(timezone=True))
        connection.execute(sa.text(
            "INSERT INTO class_questions (code, number, kind, address, asked_at) "
            "VALUES ('3X9KQR', 1, 'predict', '/corpora/spam-ham/inference', :at)").bindparams(at), {"at": T0})
        connection.execute(sa.text(
            "INSERT INTO class_answers (question_id, student, answer, answered_at) "
            "VALUES (1, 'w1', 'spam', :at)").bindparams(at), {"at": T0})
        assert connection.execute(sa.text("SELECT hidden FROM class_answers")).scalar_one() in (False, 0)
    with pytest.raises(sa.exc.IntegrityError), engine.begin() as connection:
        connection.execute(sa.text(
            "INSERT INTO class_questions (code, number, kind, address, asked_at) "
            "VALUES ('3X9KQR', 1, 'tune', '/corpora/spam-ham', :at)").bindparams(at), {"at": T0})
    assert_goes_back_and_up(engine, "0005", before)


def test_0007_adds_when_each_job_started_and_goes_back(engine):
    write_todays_database(engine)
    migrate(engine, "0006")
    with engine.begin() as connection:  # a job still running when the server was upgraded
        connection.execute(old_jobs.insert(), {
            "id": "job-3", "workspace": "w1", "title": "Counting big", "unit": "documents", "done": 500,
            "total": 1234, "state": "running", "result_url": None, "error": None, "updated_at": T0})
    before = snapshot(engine)
    migrations.upgrade(engine)
    assert describe(engine) == EXPECTED_SCHEMA
    after = snapshot(engine)
    assert [row[0] for row in after["jobs"]] == ["job-1", "job-2", "job-3"]
    after = without_started_at(after)  # every job of before: no start known, so no estimate
    assert after.pop("alembic_version") == [(HEAD,)] and before.pop("alembic_version") == [("0006",)]
    assert after == before
    # A job's start as webnb/store/database.py writes it, read back at the same moment.
    started = T0 + timedelta(seconds=8, microseconds=250)
    with engine.begin() as connection:
        at = sa.bindparam("at", type_=sa.DateTime(timezone=True))
        connection.execute(sa.text(
            "INSERT INTO jobs (id, workspace, title, unit, done, total, state, updated_at, started_at) "
            "VALUES ('job-4', 'w2', 'Fitting', 'fitting steps', 3, 12, 'running', :at, :started)"
        ).bindparams(at, sa.bindparam("started", type_=sa.DateTime(timezone=True))), {"at": T0, "started": started})
        read = connection.execute(sa.select(sa.column("started_at", sa.DateTime(timezone=True))).select_from(
            sa.table("jobs")).where(sa.column("id") == "job-4")).scalar_one()
    assert utc(read) == started
    migrate(engine, "0006", command.downgrade)
    downgraded = snapshot(engine)
    assert downgraded.pop("alembic_version") == [("0006",)]
    job_4 = downgraded["jobs"].pop()
    assert job_4[:3] == ("job-4", "w2", "Fitting")  # kept, without its start
    assert len(job_4) == len(old_jobs.columns)
    assert downgraded == before
    migrations.upgrade(engine)
    assert describe(engine) == EXPECTED_SCHEMA


def test_0008_adds_the_lms_tables_and_goes_back(engine):
    write_todays_database(engine)
    migrate(engine, "0007")
    before = snapshot(engine)
    migrations.upgrade(engine)
    assert describe(engine) == EXPECTED_SCHEMA
    after = snapshot(engine)
    assert after.pop("alembic_version") == [(HEAD,)] and before.pop("alembic_version") == [("0007",)]
    assert as_at_0007(after) == before
    # A platform with a deployment and a login, as webnb/lti/registry.py writes them: they go with their platform.
    with engine.begin() as connection:
        at = sa.bindparam("at", type_=sa.DateTime(timezone=True))
        connection.execute(sa.text(
            "INSERT INTO lti_platforms (issuer, client_id, login_url, token_url, keyset_url, created_at) "
            "VALUES ('https://lms', 'c1', 'https://lms/auth', 'https://lms/token', 'https://lms/jwks', :at)"
        ).bindparams(at), {"at": T0})
        platform = connection.execute(sa.text("SELECT id FROM lti_platforms")).scalar_one()
        connection.execute(sa.text("INSERT INTO lti_deployments VALUES (:p, 'd1')"), {"p": platform})
        connection.execute(sa.text(
            "INSERT INTO lti_logins (state, nonce, platform, target_link_uri, expires_at) "
            "VALUES ('s1', 'n1', :p, 'https://webnb/lti/launch', :at)").bindparams(at), {"p": platform, "at": T0})
    with pytest.raises(sa.exc.IntegrityError), engine.begin() as connection:  # one registration per client id
        connection.execute(sa.text(
            "INSERT INTO lti_platforms (issuer, client_id, login_url, token_url, keyset_url, created_at) "
            "VALUES ('https://lms', 'c1', 'a', 'b', 'c', :at)").bindparams(at), {"at": T0})
    with engine.begin() as connection:
        if connection.dialect.name == "sqlite":
            connection.execute(sa.text("PRAGMA foreign_keys = ON"))
        connection.execute(sa.text("DELETE FROM lti_platforms"))
        assert [count(connection, table) for table in ("lti_deployments", "lti_logins")] == [0, 0]
    assert_goes_back_and_up(engine, "0007", before)


@pytest.mark.parametrize("data", ["fresh", "today's data"])
@pytest.mark.slow  # starts processes
def test_processes_upgrading_at_once_end_at_the_head(database_url, engine, data):
    """Workers starting at once on one database: one upgrades, the others wait for its lock and find the head."""
    if data == "today's data":
        write_todays_database(engine)
    engine.dispose()  # no connection of the parent's crosses the fork
    context = multiprocessing.get_context("fork")
    start = context.Barrier(6)
    workers = [context.Process(target=_upgrade, args=(database_url, start)) for _ in range(6)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
    assert [worker.exitcode for worker in workers] == [0] * 6
    assert migrations.current(engine) == HEAD
    assert describe(engine) == EXPECTED_SCHEMA
    if data == "today's data":
        with engine.connect() as connection:
            assert count(connection, "contents") == DISTINCT_CONTENTS
            assert documents_of(connection, "big-again") == BIG


def _upgrade(url: str, start) -> None:
    engine = sa.create_engine(url)
    start.wait(60)
    migrations.upgrade(engine)
    engine.dispose()
