"""The byte-bounded cache a process keeps counted corpora in (webnb/cache.py)."""
from __future__ import annotations

import threading

import numpy as np
import scipy.sparse as sp

from webnb.cache import ByteCache, size_of


def test_least_recently_used_go_first_once_the_bytes_are_over():
    cache = ByteCache(max_bytes=100)
    cache.put("a", "A", 40)
    cache.put("b", "B", 40)
    assert cache.get("a") == "A"  # a is now the most recently used
    cache.put("c", "C", 40)
    assert ("a" in cache, "b" in cache, "c" in cache) == (True, False, True)
    assert cache.bytes == 80 and len(cache) == 2


def test_a_value_larger_than_the_bound_is_not_kept_and_replacing_counts_once():
    cache = ByteCache(max_bytes=100)
    cache.put("a", "A", 60)
    cache.put("a", "A2", 30)
    assert cache.bytes == 30 and cache.get("a") == "A2"
    cache.put("huge", "H", 101)
    assert "huge" not in cache and cache.get("a") == "A2"
    cache.discard("a")
    assert cache.bytes == 0 and len(cache) == 0


def test_one_build_per_key_however_many_threads_ask():
    cache = ByteCache(max_bytes=10_000)
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


def test_a_build_that_gives_nothing_is_not_kept():
    cache = ByteCache(max_bytes=100)
    assert cache.get_or_build("k", lambda: None) is None
    assert "k" not in cache
    assert cache.get_or_build("k", lambda: "now") == "now" and cache.get("k") == "now"


def test_sizes_of_arrays_and_sparse_matrices_are_their_bytes():
    array = np.zeros((10, 10))
    matrix = sp.csr_matrix(np.eye(5))
    assert size_of(array) == 800
    assert size_of(matrix) == matrix.data.nbytes + matrix.indices.nbytes + matrix.indptr.nbytes
    assert size_of((array, array)) > 1600
