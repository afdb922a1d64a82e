"""The one cache helper (webnb/hosting/cache.py) and the caches the app keeps in ``app.extensions["webnb"]``: bounded in
bytes or entries, one build per key, keyed by what a value was computed from, and new with every app."""
from __future__ import annotations

import threading

import numpy as np
import pytest
import scipy.sparse as sp

from webnb import create_app
from webnb.engine import Corpus
from webnb.hosting.cache import Cache, size_of
from webnb.views import compare, evaluation

# -- the helper ----------------------------------------------------------------------------------------------------


def test_least_recently_used_go_first_once_the_bytes_are_over():
    cache = Cache(max_bytes=100)
    cache.put("a", "A", 40)
    cache.put("b", "B", 40)
    assert cache.get("a") == "A"  # a is now the most recently used
    cache.put("c", "C", 40)
    assert ("a" in cache, "b" in cache, "c" in cache) == (True, False, True)
    assert cache.bytes == 80 and len(cache) == 2


def test_a_value_larger_than_the_bound_is_not_kept_and_replacing_counts_once():
    cache = Cache(max_bytes=100)
    cache.put("a", "A", 60)
    cache.put("a", "A2", 30)
    assert cache.bytes == 30 and cache.get("a") == "A2"
    cache.put("huge", "H", 101)
    assert "huge" not in cache and cache.get("a") == "A2"
    cache.discard("a")
    assert cache.bytes == 0 and len(cache) == 0


def test_least_recently_used_go_first_once_the_entries_are_over_and_sizes_are_not_measured():
    cache = Cache(max_entries=2)
    cache.put("a", np.zeros(1000))
    cache.put("b", "B")
    assert cache.get("a") is not None  # a is now the most recently used
    cache.put("c", "C")
    assert ("a" in cache, "b" in cache, "c" in cache) == (True, False, True)
    assert len(cache) == 2 and cache.bytes == 0


def test_with_both_bounds_whichever_is_passed_first_evicts():
    cache = Cache(max_bytes=100, max_entries=3)
    for key in "abc":
        cache.put(key, key, 10)
    cache.put("d", "d", 10)  # a fourth entry: over the entries
    assert [key in cache for key in "abcd"] == [False, True, True, True] and cache.bytes == 30
    cache.put("d", "d", 85)  # still three entries, but 105 bytes: over the bytes, so b goes
    assert [key in cache for key in "bcd"] == [False, True, True] and cache.bytes == 95


def test_a_cache_needs_a_bound():
    with pytest.raises(ValueError, match="A cache needs a bound: give max_bytes, max_entries or both"):
        Cache()


def test_clear_empties_the_cache():
    cache = Cache(max_bytes=100)
    cache.put("a", "A", 40)
    cache.put("b", "B", 40)
    cache.clear()
    assert len(cache) == 0 and cache.bytes == 0 and cache.get("a") is None
    assert cache.get_or_build("a", lambda: "again", lambda v: 10) == "again" and cache.bytes == 10


def test_one_build_per_key_however_many_threads_ask():
    cache = Cache(max_bytes=10_000)
    started, release, builds = threading.Event(), threading.Event(), []

    def build():
        builds.append(1)
        started.set()
        assert release.wait(30)
        return "value"

    results = []
    first = threading.Thread(target=lambda: results.append(cache.get_or_build("k", build, lambda v: 10)))
    first.start()
    assert started.wait(30)
    others = [threading.Thread(target=lambda: results.append(cache.get_or_build("k", build, lambda v: 10)))
              for _ in range(4)]
    for thread in others:
        thread.start()
    release.set()
    for thread in [first, *others]:
        thread.join(30)
    assert results == ["value"] * 5 and builds == [1]
    assert cache._building == {}  # no lock left behind for the key


def test_builds_of_different_keys_do_not_wait_for_each_other():
    cache = Cache(max_entries=4)
    b_built = threading.Event()

    def build_a():
        assert b_built.wait(30)  # finishes only once b was built while a was still building
        return "A"

    def build_b():
        b_built.set()
        return "B"

    results = {}
    a = threading.Thread(target=lambda: results.update(a=cache.get_or_build("a", build_a)))
    a.start()
    b = threading.Thread(target=lambda: results.update(b=cache.get_or_build("b", build_b)))
    b.start()
    b.join(30)
    a.join(30)
    assert results == {"a": "A", "b": "B"}


def test_a_build_that_gives_nothing_is_not_kept():
    cache = Cache(max_bytes=100)
    assert cache.get_or_build("k", lambda: None) is None
    assert "k" not in cache
    assert cache.get_or_build("k", lambda: "now") == "now" and cache.get("k") == "now"


def test_a_build_that_raises_keeps_nothing_and_the_next_ask_builds():
    cache = Cache(max_entries=2)

    def fails():
        raise ValueError("no such corpus")

    with pytest.raises(ValueError, match="no such corpus"):
        cache.get_or_build("k", fails)
    assert "k" not in cache and cache._building == {}
    assert cache.get_or_build("k", lambda: "built") == "built"


def test_sizes_of_arrays_and_sparse_matrices_are_their_bytes():
    array = np.zeros((10, 10))
    matrix = sp.csr_matrix(np.eye(5))
    assert size_of(array) == 800
    assert size_of(matrix) == matrix.data.nbytes + matrix.indices.nbytes + matrix.indptr.nbytes
    assert size_of((array, array)) > 1600


# -- the app's caches ----------------------------------------------------------------------------------------------


def make_app(path, **config):
    return create_app({"TESTING": True, "WTF_CSRF_ENABLED": False, **config}, instance_path=str(path / "instance"))


def counting(monkeypatch, module, name: str) -> list:
    """Replace ``module.name`` by itself counting its calls; the list of calls' keyword arguments."""
    calls, real = [], getattr(module, name)

    def counted(*args, **kwargs):
        calls.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_each_app_makes_its_own_bounded_caches(tmp_path):
    first, second = make_app(tmp_path / "first", WEBNB_CACHE_MB=64), make_app(tmp_path / "second")
    caches = [app.extensions["webnb"] for app in (first, second)]
    for name in ("comparisons", "sweeps"):
        assert isinstance(caches[0][name], Cache) and caches[0][name] is not caches[1][name]
    assert caches[0]["comparisons"].max_entries == compare.COMPARISONS_KEPT == 16
    assert caches[0]["sweeps"].max_entries == evaluation.SWEEPS_KEPT == 8
    assert caches[0]["catalog"].cache.max_bytes == 64 * 2**20
    assert caches[0]["catalog"].cache is not caches[1]["catalog"].cache

    assert first.test_client().get("/corpora/spam-ham/compare?format=json").get_json()["comparison"] is not None
    assert len(caches[0]["comparisons"]) == 1 and len(caches[1]["comparisons"]) == 0


@pytest.mark.slow  # about 1 s
def test_a_comparison_is_fitted_once_per_settings_and_a_new_app_fits_again(tmp_path, monkeypatch):
    fits = counting(monkeypatch, compare, "compare_models")
    app = make_app(tmp_path / "one")
    client = app.test_client()
    first = client.get("/corpora/spam-ham/compare?format=json").get_json()["comparison"]
    assert client.get("/corpora/spam-ham/compare").status_code == 200
    assert len(fits) == 1
    # The held-out documents made again are new objects; the comparison is keyed by what they are made of.
    app.extensions["webnb"]["catalog"].cache.clear()
    assert client.get("/corpora/spam-ham/compare?format=json").get_json()["comparison"] == first
    assert len(fits) == 1
    assert client.get("/corpora/spam-ham/compare?format=json&C=2").get_json()["comparison"]["C"] == 2
    assert client.get("/corpora/spam-ham/compare?format=json&seed=1").get_json()["comparison"] is not None
    assert len(fits) == 3
    # Nothing to forget between apps: a new app starts with no comparisons.
    again = make_app(tmp_path / "two").test_client().get("/corpora/spam-ham/compare?format=json").get_json()
    assert again["comparison"]["models"][0]["accuracy"] == first["models"][0]["accuracy"] and len(fits) == 4


def test_a_sweep_is_kept_by_its_documents_and_settings_not_by_the_held_out_object(client, app, monkeypatch):
    sweeps = counting(monkeypatch, evaluation, "alpha_sweep")
    url = "/corpora/spam-ham/evaluation/sweep"

    def points(**query):
        data = client.get(url, query_string={"model": "bernoulli", "format": "json", **query}).get_json()
        return [(p["alpha"], p["accuracy"]) for p in data["points"]]

    first = points(alpha="1")
    assert points(alpha="0.5") == first and len(sweeps) == 1  # α only moves the marker
    app.extensions["webnb"]["catalog"].cache.clear()  # the held-out set is made again, as a new object
    assert points(alpha="1") == first and len(sweeps) == 1
    points(alpha="1", seed="1")
    points(alpha="1", model="multinomial")
    assert len(sweeps) == 3 and [call["kind"] for call in sweeps] == ["bernoulli", "bernoulli", "multinomial"]


def test_a_test_corpus_keys_a_sweep_by_its_records(client, app, monkeypatch):
    storage = app.extensions["webnb"]["storage"]

    def store(name: str, texts: tuple[str, ...]) -> str:
        corpus = Corpus(texts=texts, labels=("positive", "negative"), ids=("1", "2"), name=name)
        return storage.add_corpus(corpus, name=name, source="test")

    same = ("sharp composed match", "dull match")
    first, copy, other = store("first", same), store("a copy", same), store("other", ("sharp keeper", "dull keeper"))
    sweeps = counting(monkeypatch, evaluation, "alpha_sweep")

    def points(test: str):
        data = client.get(
            "/corpora/match-reviews/evaluation/sweep", query_string={"test": test, "format": "json"}).get_json()
        assert data.get("error") is None
        return [(p["alpha"], p["accuracy"]) for p in data["points"]]

    assert points(first) == points(copy) and len(sweeps) == 1  # the same records: swept once
    points(other)
    assert len(sweeps) == 2
