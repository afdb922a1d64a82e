"""Content-addressed corpora and counted data kept in the database: a copy stores no documents again, a corpus is
counted once for every app instance on one database, a process keeps what it loads within WEBNB_CACHE_MB, and the
inference and parameters pages never load a corpus's matrix or documents."""
from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone

import pytest
import sqlalchemy as sa

from webnb import create_app
from webnb.engine import AnalysisOptions, Corpus, TrainingSet, VocabularyOptions
from webnb.engine.io import persist
from webnb.hosting.catalog import Catalog
from webnb.store.database import Storage, content_hash, contents, corpora, counts, documents, stored_size

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
    from webnb.store.migrations import revision_module

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


@pytest.mark.slow  # about 1 s
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
    catalog_of(b).claim_wait_seconds = 600  # a request gives up after 5 s; this one waits however long A is held

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


# -- claims die with their process (a heartbeat), and nobody waits on one for long -------------------------------


def claim_by_another(storage: Storage, content: str, options: str, claimed_at: datetime) -> None:
    """A claim to count, as another process leaves it (no heartbeat of this one renews it)."""
    with storage.engine.begin() as connection:
        connection.execute(counts.insert(), {"content": content, "options": options, "state": "counting",
                                             "claimed_at": claimed_at, "builds": 0})


def test_a_count_renews_its_claim_while_it_runs(tmp_path, database_url, monkeypatch, make_app):
    app = make_app(tmp_path, database_url)
    storage, catalog = app.extensions["webnb"]["storage"], catalog_of(app)
    corpus_id = storage.add_corpus(lecture_corpus(), name="lecture", source="test")
    content, options = content_hash(lecture_corpus()), persist.options_key(AnalysisOptions(), VocabularyOptions())
    catalog.claim_heartbeat_seconds = 0.01
    inside, release, renewed = threading.Event(), threading.Event(), threading.Event()
    build, renew = TrainingSet.build.__func__, storage.renew_claim

    def held_build(cls, *args, **kwargs):
        inside.set()
        assert release.wait(60)
        return build(cls, *args, **kwargs)

    def noted_renew(*args):
        result = renew(*args)
        renewed.set()
        return result

    monkeypatch.setattr(TrainingSet, "build", classmethod(held_build))
    monkeypatch.setattr(storage, "renew_claim", noted_renew)
    counting = threading.Thread(
        target=lambda: catalog.training_set(catalog.get(corpus_id), AnalysisOptions(), VocabularyOptions()))
    counting.start()
    assert inside.wait(60)
    first_claim = storage.counting_state(content, options)
    renewed.clear()
    assert renewed.wait(60)  # the heartbeat ran while the count was held
    state, renewed_at = storage.counting_state(content, options)
    assert state == "counting" and renewed_at > first_claim[1]
    release.set()
    counting.join(60)
    assert storage.counting_state(content, options)[0] == "done"


def test_a_claim_that_is_not_renewed_is_taken_over_within_seconds(tmp_path, database_url, monkeypatch, make_app):
    """A process killed while counting renews nothing: 16 s after its last beat, the next request counts."""
    from webnb.hosting.catalog import STALE_CLAIM

    app = make_app(tmp_path, database_url)
    storage, catalog = app.extensions["webnb"]["storage"], catalog_of(app)
    corpus_id = storage.add_corpus(lecture_corpus(), name="lecture", source="test")
    content, options = content_hash(lecture_corpus()), persist.options_key(AnalysisOptions(), VocabularyOptions())
    assert STALE_CLAIM <= timedelta(seconds=30)
    claim_by_another(storage, content, options, datetime.now(timezone.utc) - STALE_CLAIM - timedelta(seconds=1))
    monkeypatch.setattr(catalog, "_wait_for_another_count", lambda: pytest.fail("waited on a dead claim"))
    with app.test_request_context():
        training = catalog.training_set(catalog.get(corpus_id), AnalysisOptions(), VocabularyOptions())
    assert len(training.vocabulary) == 23 and storage.count_builds() == {(content, options): 1}


def test_a_request_waits_on_a_live_claim_a_few_seconds_then_answers_503(tmp_path, database_url, monkeypatch,
                                                                         make_app):
    app = make_app(tmp_path, database_url)
    storage, catalog = app.extensions["webnb"]["storage"], catalog_of(app)
    corpus_id = storage.add_corpus(lecture_corpus(), name="lecture", source="test")
    content, options = content_hash(lecture_corpus()), persist.options_key(AnalysisOptions(), VocabularyOptions())
    claim_by_another(storage, content, options, datetime.now(timezone.utc))  # alive: it renews its claim
    now = [0.0]
    waits = []

    def wait():  # the poll, on a clock of the test's own
        waits.append(now[0])
        now[0] += 0.2

    monkeypatch.setattr(catalog, "clock", lambda: now[0])
    monkeypatch.setattr(catalog, "_wait_for_another_count", wait)
    response = app.test_client().get(f"/corpora/{corpus_id}/parameters?format=json")
    assert response.status_code == 503 and response.headers["Retry-After"] == "10"
    assert "counting this corpus with these settings" in response.get_json()["error"]
    assert 0 < len(waits) <= 26 and now[0] <= 5.2  # CLAIM_WAIT_SECONDS, in polls of 0.2 s
    assert storage.counting_state(content, options)[0] == "counting"  # the other's claim stands


def test_a_background_count_waits_for_a_live_claim_until_it_is_done(tmp_path, database_url, monkeypatch, make_app):
    """Outside a request (a job's thread) nobody is kept waiting by the wait, so it goes on until the other's
    result is there, and loads it instead of counting."""
    app = make_app(tmp_path, database_url)
    storage, catalog = app.extensions["webnb"]["storage"], catalog_of(app)
    corpus_id = storage.add_corpus(lecture_corpus(), name="lecture", source="test")
    content, options = content_hash(lecture_corpus()), persist.options_key(AnalysisOptions(), VocabularyOptions())
    claim_by_another(storage, content, options, datetime.now(timezone.utc))
    counted = TrainingSet.build(lecture_corpus(), AnalysisOptions(), VocabularyOptions())
    polls = []

    def wait():
        polls.append(1)
        if len(polls) == 30:  # well past the 5 s a request would wait: the other process saves its result
            catalog._save(content, options, counted)

    monkeypatch.setattr(catalog, "clock", lambda: float(len(polls)))
    monkeypatch.setattr(catalog, "_wait_for_another_count", wait)
    training = catalog.training_set(catalog.get(corpus_id), AnalysisOptions(), VocabularyOptions())
    assert len(polls) == 30 and catalog.counted_here == []
    assert training.vocabulary == counted.vocabulary


# -- counted data is bounded per content ---------------------------------------------------------------------------


def test_only_the_most_recently_used_option_sets_of_a_content_are_kept(tmp_path, database_url, make_app):
    """A student varying max_df without end stores at most COUNTED_OPTION_SETS_PER_CONTENT sets of counts; the
    least recently used go, and one that a process loads again counts as used."""
    from webnb.store.database import COUNTED_OPTION_SETS_PER_CONTENT

    app = make_app(tmp_path, database_url)
    storage = app.extensions["webnb"]["storage"]
    corpus_id = storage.add_corpus(lecture_corpus(), name="lecture", source="test")
    content = content_hash(lecture_corpus())
    client = app.test_client()
    for max_df in range(1, 13):
        assert client.get(f"/corpora/{corpus_id}/parameters?max_df={max_df / 13:.3f}&format=json").status_code == 200
    with storage.engine.connect() as connection:
        kept = connection.execute(sa.select(counts.c.options, counts.c.n_bytes, counts.c.used_at)
                                  .where(counts.c.content == content)).all()
    assert len(kept) == COUNTED_OPTION_SETS_PER_CONTENT == 8
    assert all(row.n_bytes > 0 and row.used_at is not None for row in kept)
    newest = {persist.options_from_key(row.options)[1].max_df for row in kept}
    assert newest == {round(max_df / 13, 3) for max_df in range(5, 13)}  # the four oldest were removed

    # The oldest kept set, used again by another process, survives the next new set; the one after it goes.
    oldest = min(kept, key=lambda row: row.used_at).options
    with storage.engine.begin() as connection:  # as if that set's mark were older than USED_AT_RESOLUTION
        connection.execute(counts.update().where(counts.c.content == content, counts.c.options == oldest),
                           {"used_at": datetime.now(timezone.utc) - timedelta(hours=1)})
    assert storage.counted(content, oldest) is not None  # a load marks it used now
    assert client.get(f"/corpora/{corpus_id}/parameters?max_df=0.999&format=json").status_code == 200
    with storage.engine.connect() as connection:
        options = set(connection.execute(sa.select(counts.c.options).where(counts.c.content == content)).scalars())
    assert oldest in options and len(options) == 8


def test_a_matrix_whose_counts_were_replaced_is_counted_again(tmp_path, database_url, make_app):
    app = make_app(tmp_path, database_url)
    storage, catalog = app.extensions["webnb"]["storage"], catalog_of(app)
    corpus_id = storage.add_corpus(lecture_corpus(), name="lecture", source="test")
    content, options = content_hash(lecture_corpus()), persist.options_key(AnalysisOptions(), VocabularyOptions())
    entry = catalog.get(corpus_id)
    expected = TrainingSet.build(lecture_corpus(), AnalysisOptions(), VocabularyOptions())
    catalog._save(content, options, expected)
    training = catalog.training_set(entry, AnalysisOptions(), VocabularyOptions())  # statistics loaded, no rows yet
    with storage.engine.begin() as connection:  # replaced by more recently used sets meanwhile
        connection.execute(counts.delete().where(counts.c.content == content))
    assert (training.matrix != expected.matrix).nnz == 0
    assert list(training.class_index) == list(expected.class_index)


# -- a cleanup that removes a content while the same records are uploaded -------------------------------------------


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_an_upload_racing_the_cleanup_of_its_records_stores_them_again(database_url, monkeypatch, make_app, tmp_path):
    """PostgreSQL (SQLite has one writer at a time): the upload finds the records stored, then a cleanup removes
    their last entry and the records and commits, before the upload names them in its new entry."""
    import webnb.store.database as storage_module

    app = make_app(tmp_path, database_url)
    storage = app.extensions["webnb"]["storage"]
    storage.add_corpus(lecture_corpus(), name="old", source="test", workspace="leaving")
    removed = []
    insert = storage_module.insert_ignoring_duplicate

    def cleanup_in_between(connection, table, key, values):
        inserted = insert(connection, table, key, values)
        if table is contents and not inserted and not removed:
            removed.append(storage.remove_workspace("leaving", datetime.now(timezone.utc) + timedelta(days=1)))
        return inserted

    monkeypatch.setattr(storage_module, "insert_ignoring_duplicate", cleanup_in_between)
    corpus_id = storage.add_corpus(lecture_corpus(), name="new", source="test", workspace="arriving")
    assert removed and removed[0] is not None  # the cleanup ran inside the upload, and removed the old entry
    stored = storage.get_corpus(corpus_id)
    assert stored.corpus.texts == lecture_corpus().texts and rows(storage, documents) == 60
