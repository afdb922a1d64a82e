"""Content-addressed corpora and counted data kept in the database: a copy stores no documents again, a corpus is
counted once for every app instance on one database, a process keeps what it loads within WEBNB_CACHE_MB, and the
inference and parameters pages never load a corpus's matrix or documents."""
from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone

import pytest
import sqlalchemy as sa

from webnb import create_app
from webnb.catalog import Catalog
from webnb.engine import AnalysisOptions, Corpus, TrainingSet, VocabularyOptions
from webnb.engine.io import persist
from webnb.storage import Storage, content_hash, contents, corpora, counts, documents, stored_size

LABELS = ("negative", "positive")
WORDS = ("sharp", "dull", "keeper", "match", "goal", "slow", "brilliant", "composed", "tired", "late")


def lecture_corpus(n: int = 60, salt: str = "") -> Corpus:
    """A corpus of ``n`` short reviews; ``salt`` makes another content of the same shape."""
    texts = tuple(
        f"{WORDS[i % 10]} {WORDS[(i * 3) % 10]} {WORDS[(i * 7 + 1) % 10]} word{i % 13}{salt}" for i in range(n)
    )
    return Corpus(texts=texts, labels=tuple(LABELS[i % 2] for i in range(n)), ids=tuple(str(i + 1) for i in range(n)),
                  name="lecture")


@pytest.fixture()
def make_app():
    """Apps (as many as a test wants: separate processes or machines on one database), closed at the end."""
    made = []

    def make(tmp_path, database_url, name="a", **config):
        app = create_app({"TESTING": True, "WTF_CSRF_ENABLED": False, "DATABASE_URL": database_url, **config},
                         instance_path=str(tmp_path / f"instance-{name}"))
        made.append(app)
        return app

    yield make
    for app in made:
        app.extensions["webnb"]["storage"].dispose()


def rows(storage: Storage, table) -> int:
    with storage.engine.connect() as connection:
        return connection.execute(sa.select(sa.func.count()).select_from(table)).scalar_one()


def catalog_of(app) -> Catalog:
    return app.extensions["webnb"]["catalog"]


# -- content addressing -------------------------------------------------------------------------------------------


def test_copies_and_identical_uploads_share_one_content(tmp_path, database_url, make_app):
    app = make_app(tmp_path, database_url)
    storage, catalog = app.extensions["webnb"]["storage"], catalog_of(app)
    corpus = lecture_corpus()
    first = catalog.add(corpus, name="mine", source="paste", workspace="alice")
    again = catalog.add(corpus, name="the same file", source="upload", workspace="bob")
    copy = catalog.copy(catalog.get(first), name="mine", source="a copy", workspace="carol")
    other = catalog.add(lecture_corpus(salt="x"), name="another", source="paste", workspace="alice")
    assert rows(storage, corpora) == 4
    assert rows(storage, contents) == 2 and rows(storage, documents) == 2 * len(corpus)
    assert {storage.content_of(i) for i in (first, again, copy)} == {content_hash(corpus)}
    assert storage.content_of(other) != content_hash(corpus)
    # One count for the shared content (made when it was first stored) and one for the other content.
    assert sorted(storage.count_builds().values()) == [1, 1]
    options = persist.options_key(AnalysisOptions(), VocabularyOptions())
    assert catalog.counted_here == [(content_hash(corpus), options), (content_hash(lecture_corpus(salt="x")), options)]
    # Each entry keeps its own name, owner and quota figures.
    assert [storage.summary(i).name for i in (first, again, copy)] == ["mine", "the same file", "mine"]
    assert storage.usage("carol") == (1, len(corpus), sum(map(len, corpus.texts)))
    # The whole server's storage counts the records once.
    assert storage.stored_bytes() == stored_size(corpus) + stored_size(lecture_corpus(salt="x"))


def test_deleting_an_entry_keeps_content_another_entry_uses(tmp_path, database_url, make_app):
    app = make_app(tmp_path, database_url)
    storage, catalog = app.extensions["webnb"]["storage"], catalog_of(app)
    corpus = lecture_corpus()
    first = catalog.add(corpus, name="mine", source="paste", workspace="alice")
    copy = catalog.copy(catalog.get(first), name="mine", source="a copy", workspace="bob")
    assert storage.delete_corpus(first) is True
    kept = storage.get_corpus(copy)
    assert kept.corpus.texts == corpus.texts and kept.corpus.labels == corpus.labels and kept.corpus.ids == corpus.ids
    assert rows(storage, documents) == len(corpus) and rows(storage, counts) == 1
    assert storage.delete_corpus(copy) is True
    assert (rows(storage, contents), rows(storage, documents), rows(storage, counts)) == (0, 0, 0)


def test_the_hash_is_the_migrations_hash():
    from webnb.migrations import revision_module

    migration_hash = revision_module("0002").content_hash
    for corpus in (lecture_corpus(), Corpus(("é\x00?", ""), ("a", "b"), ("1", "1")), Corpus(("ab",), ("c",), ("",))):
        records = list(zip(corpus.ids, corpus.labels, corpus.texts, strict=True))
        assert content_hash(corpus) == migration_hash(records)
    # Lengths are part of the hash: the same characters split differently are another content.
    assert content_hash(Corpus(("ab",), ("c",), ("1",))) != content_hash(Corpus(("b",), ("ac",), ("1",)))


# -- counted once, for every instance -----------------------------------------------------------------------------


def test_a_corpus_counted_by_one_instance_is_loaded_by_another(tmp_path, database_url, make_app):
    first = make_app(tmp_path, database_url, "a")
    corpus_id = first.extensions["webnb"]["storage"].add_corpus(lecture_corpus(), name="lecture", source="test")
    query = "model=bernoulli&alpha=1&min_df=2&text=sharp+keeper"
    counted = first.test_client().get(f"/corpora/{corpus_id}/parameters?{query}&format=json").get_json()
    assert len(catalog_of(first).counted_here) == 1

    second = make_app(tmp_path, database_url, "b")  # another process, machine, or the same after a restart
    loaded = second.test_client().get(f"/corpora/{corpus_id}/parameters?{query}&format=json").get_json()
    assert catalog_of(second).counted_here == []
    assert loaded == counted
    assert list(second.extensions["webnb"]["storage"].count_builds().values()) == [1]


def test_every_page_gives_the_same_numbers_counted_or_loaded(tmp_path, make_app):
    """A golden run: every GET route of a stored corpus and of a built-in answers the same (JSON twins, downloads)
    in the instance that counted the corpus as in a second instance that loaded the counts from the database."""
    url = f"sqlite:///{tmp_path / 'webnb.sqlite3'}"
    first = make_app(tmp_path, url, "a")
    corpus_id = first.extensions["webnb"]["storage"].add_corpus(lecture_corpus(), name="lecture", source="test")
    second = make_app(tmp_path, url, "b")
    routes = sorted(rule.rule for rule in first.url_map.iter_rules()
                    if "corpus_id" in rule.arguments and "GET" in rule.methods and len(rule.arguments) == 1)
    assert len(routes) >= 25
    query = "model=multinomial&alpha=1&text=sharp+keeper+late&step=decision&test=training&format=json"
    compared = 0
    for corpus in (corpus_id, "match-reviews"):
        for rule in routes:
            path = f"{rule.replace('<corpus_id>', corpus)}?{query}"
            counted, loaded = first.test_client().get(path), second.test_client().get(path)
            assert (loaded.status_code, loaded.mimetype) == (counted.status_code, counted.mimetype), path
            if counted.status_code == 200 and counted.mimetype == "application/json":
                assert without_timings(loaded.get_json()) == without_timings(counted.get_json()), path
                compared += 1
            elif counted.status_code == 200 and counted.mimetype != "text/html":
                assert loaded.get_data() == counted.get_data(), path
                compared += 1
    assert compared >= 30
    # The stored corpus was counted by the first instance only; the second loaded it (a built-in is counted in each).
    assert [what for what, _ in catalog_of(second).counted_here if what != "match-reviews"] == []
    builds = second.extensions["webnb"]["storage"].count_builds()
    assert builds and set(builds.values()) == {1}  # each set of options (pages count with several) counted once


def without_timings(data):
    """Plain data without the seconds a piece of work took (the parity badge's "seconds", a comparison's
    "fit_seconds" and "predict_seconds"): the only figures that may differ between two instances."""
    if isinstance(data, dict):
        return {key: without_timings(value) for key, value in data.items()
                if key != "seconds" and not key.endswith("_seconds")}
    if isinstance(data, list):
        return [without_timings(value) for value in data]
    return data


def test_two_instances_asking_at_once_count_once(tmp_path, database_url, monkeypatch, make_app):
    """Instance A claims the count and is held inside it; B asks meanwhile, waits for A's result, and loads it."""
    a, b = make_app(tmp_path, database_url, "a"), make_app(tmp_path, database_url, "b")
    storage = a.extensions["webnb"]["storage"]
    corpus_id = storage.add_corpus(lecture_corpus(), name="lecture", source="test")
    inside, release = threading.Event(), threading.Event()
    build = TrainingSet.build.__func__

    def held_build(cls, *args, **kwargs):
        if threading.current_thread().name == "instance-a":
            inside.set()
            assert release.wait(60)
        return build(cls, *args, **kwargs)

    monkeypatch.setattr(TrainingSet, "build", classmethod(held_build))
    results = {}

    def visit(app, name):
        with app.test_request_context():
            catalog = catalog_of(app)
            entry = catalog.get(corpus_id)
            results[name] = catalog.training_set(entry, AnalysisOptions(), VocabularyOptions(max_features=5))

    waiting = threading.Event()
    wait = catalog_of(b)._wait_for_another_count

    def noted_wait():
        waiting.set()
        wait()

    monkeypatch.setattr(catalog_of(b), "_wait_for_another_count", noted_wait)
    thread_a = threading.Thread(target=visit, args=(a, "a"), name="instance-a")
    thread_a.start()
    assert inside.wait(60)
    thread_b = threading.Thread(target=visit, args=(b, "b"), name="instance-b")
    thread_b.start()
    assert waiting.wait(60)  # B found A's claim and waits for its result instead of counting
    release.set()
    thread_a.join(60)
    thread_b.join(60)
    assert len(catalog_of(a).counted_here) == 1 and catalog_of(b).counted_here == []
    assert results["a"].vocabulary == results["b"].vocabulary and len(results["b"].vocabulary) == 5
    assert (results["a"].statistics.word_count_ == results["b"].statistics.word_count_).all()
    assert list(storage.count_builds().values()) == [1]


def test_a_claim_left_by_a_stopped_process_is_taken_over(tmp_path, database_url, make_app):
    app = make_app(tmp_path, database_url)
    storage, catalog = app.extensions["webnb"]["storage"], catalog_of(app)
    corpus_id = storage.add_corpus(lecture_corpus(), name="lecture", source="test")
    content, options = content_hash(lecture_corpus()), persist.options_key(AnalysisOptions(), VocabularyOptions())
    long_ago = datetime.now(timezone.utc) - timedelta(hours=1)
    with storage.engine.begin() as connection:  # a process claimed it an hour ago and was stopped
        connection.execute(counts.insert(), {"content": content, "options": options, "state": "counting",
                                             "claimed_at": long_ago, "builds": 0})
    with app.test_request_context():
        training = catalog.training_set(catalog.get(corpus_id), AnalysisOptions(), VocabularyOptions())
    assert len(training.vocabulary) == 23 and storage.count_builds() == {(content, options): 1}


def test_a_count_that_fails_leaves_no_claim(tmp_path, database_url, make_app):
    app = make_app(tmp_path, database_url)
    storage, catalog = app.extensions["webnb"]["storage"], catalog_of(app)
    corpus_id = storage.add_corpus(lecture_corpus(), name="lecture", source="test")
    response = app.test_client().get(f"/corpora/{corpus_id}/parameters?min_df=1000&format=json")
    assert "min_df" in response.get_json()["error"]
    assert rows(storage, counts) == 0 and catalog.counted_here == []


# -- what a process keeps -----------------------------------------------------------------------------------------


def test_inference_and_parameters_load_neither_matrix_nor_documents(tmp_path, database_url, make_app):
    first = make_app(tmp_path, database_url, "a")
    corpus_id = first.extensions["webnb"]["storage"].add_corpus(lecture_corpus(), name="lecture", source="test")
    assert first.test_client().get(f"/corpora/{corpus_id}/parameters").status_code == 200  # counted and stored

    second = make_app(tmp_path, database_url, "b")
    client = second.test_client()
    for step in ("tokens", "decision", "smoothing", "logspace"):
        page = client.get(
            f"/corpora/{corpus_id}/inference?step={step}&text=sharp+keeper", headers={"HX-Request": "true"})
        assert page.status_code == 200
    assert client.get(f"/corpora/{corpus_id}/parameters").status_code == 200
    kinds = {key[0] for key in catalog_of(second).cache._entries}
    assert kinds == {"counted"}  # the statistics only: no ("rows", …), no ("documents", …)
    # The matrix page needs them, and loads them once: the rows and the training documents (their ids and labels
    # name the rows), not the corpus entry's own copy of them.
    assert client.get(f"/corpora/{corpus_id}/matrix").status_code == 200
    assert {key[0] for key in catalog_of(second).cache._entries} == {"counted", "rows", "documents"}
    assert catalog_of(second).counted_here == []


def test_the_cache_is_bounded_in_bytes_and_evicts(tmp_path, database_url, make_app):
    app = make_app(tmp_path, database_url, WEBNB_CACHE_MB=0.02)  # 20 KB: one small corpus's statistics at a time
    storage, catalog = app.extensions["webnb"]["storage"], catalog_of(app)
    ids = [storage.add_corpus(lecture_corpus(salt=salt), name=salt, source="test") for salt in ("p", "q", "r")]
    client = app.test_client()
    pages = {}
    for corpus_id in ids + ids:
        pages.setdefault(corpus_id, []).append(client.get(f"/corpora/{corpus_id}/parameters?format=json").get_json())
        assert catalog.cache.bytes <= catalog.cache.max_bytes
    assert len(catalog.cache) < 6  # something was evicted
    assert len(catalog.counted_here) == 3  # evicted statistics come back from the database, not from counting
    assert all(first == again for first, again in pages.values())


def test_the_cache_size_comes_from_the_setting(tmp_path, monkeypatch, make_app):
    monkeypatch.setenv("WEBNB_CACHE_MB", "64")
    app = make_app(tmp_path, f"sqlite:///{tmp_path / 'webnb.sqlite3'}")
    assert catalog_of(app).cache.max_bytes == 64 * 2**20
