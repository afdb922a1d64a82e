"""Crash safety: the server killed with SIGKILL during uploads and fits leaves a sound database and no partial
corpus (the short version of scripts/crash_trials.py, which runs 50 trials)."""
from __future__ import annotations

import importlib.util
import sqlite3
import sys

import pytest
from conftest import REPO_ROOT


def load_script(name: str):
    spec = importlib.util.spec_from_file_location(name, REPO_ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


crash_trials = load_script("crash_trials")


def assert_sound(report: dict) -> None:
    totals = report["totals"]
    assert report["violations"] == []
    assert totals["integrity_ok"] == totals["trials"]
    assert totals["partial_corpora"] == 0
    assert totals["orphan_documents"] == 0
    assert totals["acknowledged_but_lost"] == 0
    for trial in report["trials"]:
        if "integrity_check" in trial["check"]:
            assert trial["check"]["integrity_check"] == "ok"
            assert trial["check"]["foreign_key_check"] == []
        assert trial["check"]["partial_corpora"] == []
        # Every upload is either stored whole, as sent, or not at all.
        assert {upload["outcome"] for upload in trial["uploads"]} <= {"stored", "absent"}
    if report["restart"] is not None:
        assert report["restart"]["violations"] == []
        assert report["restart"]["listed"] == report["restart"]["corpora"] == totals["corpora_at_end"]


@pytest.mark.slow
def test_killed_during_uploads_and_fits_sqlite(tmp_path):
    """8 trials on one SQLite database; half of them wait for a corpus write and kill the server inside it."""
    report = crash_trials.run_trials(
        8, seed=5, instance=tmp_path / "instance", sizes=crash_trials.CI_SIZES, aim_write=0.5, max_delay=2.5,
        restart_sample=2, echo=lambda line: None,
    )
    assert_sound(report)
    totals = report["totals"]
    assert totals["trials"] == 8
    # The trials did what they are for: every aimed kill landed inside a corpus write (held there by the pause
    # point, not by luck), some uploads got stored first.
    aimed = [trial for trial in report["trials"] if trial["aim"] == "write"]
    assert aimed and all(trial["write_in_progress"] for trial in aimed)
    assert totals["killed_during_corpus_write"] >= len(aimed)
    assert totals["uploads_stored"] >= 1
    assert totals["uploads_absent"] >= 1
    assert totals["corpora_at_end"] == totals["uploads_stored"]


def test_killed_inside_a_corpus_write_postgresql(tmp_path, postgres_schema_url):
    """Two trials, each killed while an INSERT INTO documents is open: PostgreSQL rolls the corpus back."""
    report = crash_trials.run_trials(
        2, seed=2, instance=tmp_path / "instance", database_url=postgres_schema_url, sizes=crash_trials.CI_SIZES,
        aim_write=1.0, max_delay=2.5, restart_sample=1, echo=lambda line: None,
    )
    assert_sound(report)
    assert report["totals"]["database"] == "postgresql"
    assert report["totals"]["killed_during_corpus_write"] == 2  # both held inside the write by the pause point


# -- the checker itself: it must see what it looks for -------------------------------------------------------------


def make_database(path, statements: str) -> None:
    from webnb.store.database import Storage

    with Storage(f"sqlite:///{path}") as storage:
        storage.create_schema()
    connection = sqlite3.connect(path)  # foreign keys off: the damage below must be possible
    with connection:
        connection.executescript(statements)
    connection.close()


CORPORA = """
    INSERT INTO contents (hash, n_documents, n_characters, n_bytes, classes, created_at)
        VALUES ('c-whole', 2, 7, 0, '["a", "b"]', '2026-01-01 10:00:00'),
               ('c-short', 3, 0, 0, '["a", "b"]', '2026-01-01 10:00:00'),
               ('c-gap', 2, 0, 0, '["a", "b"]', '2026-01-01 10:00:00'),
               ('c-empty', 1, 0, 0, '["a"]', '2026-01-01 10:00:00');
    INSERT INTO corpora (id, name, source, created_at, n_documents, classes, n_characters, content)
        VALUES ('whole', 'w', 's', '2026-01-01 10:00:00', 2, '["a", "b"]', 7, 'c-whole'),
               ('short', 'p', 's', '2026-01-01 10:00:00', 3, '["a", "b"]', NULL, 'c-short'),
               ('gap', 'g', 's', '2026-01-01 10:00:00', 2, '["a", "b"]', NULL, 'c-gap'),
               ('empty', 'e', 's', '2026-01-01 10:00:00', 1, '["a"]', NULL, 'c-empty');
    INSERT INTO documents (content, position, doc_id, label, text)
        VALUES ('c-whole', 0, '1', 'a', 'good'), ('c-whole', 1, '2', 'b', 'bad'),
               ('c-short', 0, '1', 'a', 'x'), ('c-short', 1, '2', 'b', 'y'),
               ('c-gap', 0, '1', 'a', 'x'), ('c-gap', 2, '3', 'b', 'y'),
               ('c-gone', 0, '1', 'a', 'orphan');
"""


def test_the_checker_finds_partial_corpora_and_orphans(tmp_path):
    path = tmp_path / "webnb.sqlite3"
    make_database(path, CORPORA)
    check = crash_trials.Database(sqlite_path=path).check(["whole"])
    assert check["integrity_check"] == "ok"
    assert sorted(row[0] for row in check["partial_corpora"]) == ["empty", "gap", "short"]
    assert sorted(map(tuple, check["partial_corpora"])) == [
        ("empty", 1, 0, None, None), ("gap", 2, 2, 0, 2), ("short", 3, 2, 0, 1)]
    assert check["orphan_documents"] == 1
    assert [(row[0], row[2]) for row in check["foreign_key_check"]] == [("documents", "contents")]
    assert check["wrong_characters"] == []  # 'good' + 'bad' = 7
    assert len(crash_trials.violations_of(check)) == 3


def test_the_checker_finds_a_wrong_character_count_and_a_clean_database(tmp_path):
    path = tmp_path / "webnb.sqlite3"
    make_database(path, """
        INSERT INTO contents VALUES ('k', 1, 4, 0, '["a"]', '2026-01-01 10:00:00');
        INSERT INTO corpora (id, name, source, created_at, n_documents, classes, n_characters, content)
            VALUES ('c', 'n', 's', '2026-01-01 10:00:00', 1, '["a"]', 5, 'k');
        INSERT INTO documents VALUES ('k', 0, '1', 'a', 'four');
    """)
    database = crash_trials.Database(sqlite_path=path)
    assert database.check(["c"])["wrong_characters"] == ["c"]
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE corpora SET n_characters = 4")
    connection.close()
    assert crash_trials.violations_of(database.check(["c"])) == []


def test_an_upload_is_judged_against_what_was_sent():
    upload = crash_trials.Upload(name="u", kind="upload", n_documents=2, n_bytes=10, n_characters=7, last_id="d2-1")
    assert crash_trials.judge_upload(upload, []) is None and upload.outcome == "absent"
    upload.acknowledged, upload.corpus_id = True, "abc"
    assert "not stored" in crash_trials.judge_upload(upload, [])
    assert crash_trials.judge_upload(upload, [("abc", 2, 7, 2, 7, "d2-1")]) is None and upload.outcome == "stored"
    assert "stored as" in crash_trials.judge_upload(upload, [("abc", 2, 7, 1, 4, "d2-0")])
    assert upload.outcome == "stored wrong"


def test_the_pause_point_is_off_unless_asked_for(monkeypatch, tmp_path):
    from webnb.store.faults import pause_at

    monkeypatch.delenv("WEBNB_PAUSE_AT", raising=False)
    pause_at("corpus-write")  # returns at once
    monkeypatch.setenv("WEBNB_PAUSE_AT", f"another-point:{tmp_path / 'marker'}")
    pause_at("corpus-write")
    assert not (tmp_path / "marker").exists()
