"""SQLite under many processes: WAL, a busy timeout, BEGIN IMMEDIATE for writes, a connection per process; and an
older database gaining the columns added since."""
from __future__ import annotations

import importlib.util
import itertools
import sqlite3
from types import SimpleNamespace

import pytest
import sqlalchemy as sa
from conftest import REPO_ROOT

from webnb.store.database import ANY_WORKSPACE, SQLITE_BUSY_TIMEOUT_MS, Storage


def load_script(name: str):
    spec = importlib.util.spec_from_file_location(name, REPO_ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_sqlite_is_in_wal_mode_with_a_busy_timeout(tmp_path):
    with Storage(f"sqlite:///{tmp_path / 'db.sqlite3'}") as storage:
        storage.create_schema()
        with storage.engine.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() == SQLITE_BUSY_TIMEOUT_MS
            assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1


def test_writes_take_the_lock_up_front(tmp_path):
    """BEGIN IMMEDIATE: while one writer holds the lock, another waits (and would time out), it never fails at once."""
    path = tmp_path / "db.sqlite3"
    with Storage(f"sqlite:///{path}") as storage:
        storage.create_schema()
        statements = []
        sa.event.listen(storage.engine, "before_cursor_execute",
                        lambda conn, cursor, statement, *rest: statements.append(statement))
        from webnb.engine import Corpus

        storage.add_corpus(Corpus(("a b", "c d"), ("x", "y"), ("1", "2")), name="n", source="s")
        storage.list_corpora()
    begins = [s for s in statements if s.startswith("BEGIN")]
    assert begins == ["BEGIN IMMEDIATE", "BEGIN"]  # the write, then the read


def test_an_older_database_is_upgraded_in_place(tmp_path):
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as connection:  # the corpora table as the first release made it
        connection.executescript("""
            CREATE TABLE corpora (id TEXT PRIMARY KEY, name TEXT NOT NULL, source TEXT NOT NULL,
                                  created_at DATETIME NOT NULL, n_documents INTEGER NOT NULL, classes TEXT NOT NULL);
            CREATE TABLE documents (corpus_id TEXT REFERENCES corpora(id) ON DELETE CASCADE, position INTEGER,
                                    doc_id TEXT NOT NULL, label TEXT NOT NULL, text TEXT NOT NULL,
                                    PRIMARY KEY (corpus_id, position));
            INSERT INTO corpora VALUES ('old', 'kept', 'paste', '2026-01-01 10:00:00', 2, '["neg", "pos"]');
            INSERT INTO documents VALUES ('old', 0, '1', 'pos', 'good'), ('old', 1, '2', 'neg', 'bad');
        """)
    with Storage(f"sqlite:///{path}") as storage:
        storage.create_schema()
        storage.create_schema()  # and again, at the next start
        old = storage.get_corpus("old")
        # The migration counts what the first release did not: its characters now count against a quota.
        assert (old.workspace, old.n_characters, old.corpus.texts) == (None, 7, ("good", "bad"))
        assert storage.usage(None) == (1, 2, 7)
        assert [s.id for s in storage.list_corpora(ANY_WORKSPACE)] == ["old"]


@pytest.mark.slow  # forks processes
def test_forked_processes_reading_then_writing_are_never_locked_out(tmp_path, monkeypatch):
    """The short version of scripts/stress_storage.py (4 processes × 50 clients × 60 s in the benchmark).

    The script's clock is replaced by one that moves a tick each time it is read, so that the run lasts a number of
    rounds rather than a number of seconds: the same work on a busy machine as on a quiet one. A client reads the
    clock three times a round (whether to go on, then as its read and its write start), so the clients of a process
    make at least a third as many rounds as the process has ticks, each round ending in a write."""
    stress = load_script("stress_storage")
    ticks = itertools.count()
    monkeypatch.setattr(stress, "time", SimpleNamespace(monotonic=lambda: float(next(ticks))))
    processes, process_ticks = 4, 150
    report = stress.run(f"sqlite:///{tmp_path / 'db.sqlite3'}", processes=processes, clients=10, seconds=process_ticks)
    assert report["errors"] == {} and report["exit_codes"] == [0, 0, 0, 0]
    assert report["writes"] >= processes * ((process_ticks - 1) // 3) == 196
    assert report["stored"] == report["writes"] and report["sampled_corpora_whole"]


@pytest.mark.slow  # starts processes
def test_workers_starting_at_once_all_create_the_schema(tmp_path):
    """gunicorn without --preload starts every worker at once on a fresh database: none may fail to boot."""
    import multiprocessing

    url = f"sqlite:///{tmp_path / 'fresh.sqlite3'}"
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_create_schema, args=(url,)) for _ in range(6)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert [worker.exitcode for worker in workers] == [0] * 6
    with Storage(url) as storage:
        assert storage.list_corpora() == []


def _create_schema(url: str) -> None:
    with Storage(url) as storage:
        storage.create_schema()
