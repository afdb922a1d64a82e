"""The one cache helper of webnb: least recently used entries go first once a bound in bytes or in entries is passed.

The app makes every cache it needs in ``create_app`` and keeps it in ``app.extensions["webnb"]`` (never in a module
global), so a new app starts with empty caches. Bytes bound what holds data of very different sizes (the catalog's
counted corpora, webnb/hosting/catalog.py); entries bound small records that are costly to compute (the compare page's
comparisons, the evaluation page's α sweeps).

``get_or_build`` builds a missing entry once even when several threads ask for it together: the others wait for
that build instead of repeating it.
"""
from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from typing import Callable, Hashable

import numpy as np
import scipy.sparse as sp

DEFAULT_CACHE_MB = 512  # WEBNB_CACHE_MB: 20 Newsgroups' statistics and rows take about 60 MB


class Cache:
    """A thread-safe LRU cache bounded by ``max_bytes`` (each entry's size given, or estimated by :func:`size_of`),
    by ``max_entries``, or by both. Keys must name what a value was computed from (content, options), never an
    object's ``id()``, which a new object may reuse once the old one is freed."""

    def __init__(self, *, max_bytes: int | None = None, max_entries: int | None = None):
        if max_bytes is None and max_entries is None:
            raise ValueError("A cache needs a bound: give max_bytes, max_entries or both.")
        self.max_bytes = None if max_bytes is None else int(max_bytes)
        self.max_entries = None if max_entries is None else int(max_entries)
        self._entries: OrderedDict[Hashable, tuple[object, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self._building: dict[Hashable, threading.Lock] = {}

    @property
    def bytes(self) -> int:
        """The bytes the entries hold (0 in a cache bounded by entries only, where sizes are not measured)."""
        return self._bytes

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key) -> bool:
        with self._lock:
            return key in self._entries

    def keys(self) -> list:
        """The keys kept, least recently used first (for inspection: reading them does not count as a use)."""
        with self._lock:
            return list(self._entries)

    def get(self, key, default=None):
        with self._lock:
            found = self._entries.get(key)
            if found is None:
                return default
            self._entries.move_to_end(key)
            return found[0]

    def put(self, key, value, size: int | None = None) -> None:
        """Keep ``value``: ``size`` bytes, estimated by :func:`size_of` when not given (and not measured at all when
        only entries bound the cache). A value larger than the whole byte bound is not kept."""
        if self.max_bytes is None:
            size = 0
        else:
            size = size_of(value) if size is None else int(size)
        with self._lock:
            self._drop(key)
            if self.max_bytes is not None and size > self.max_bytes:
                return
            self._entries[key] = (value, size)
            self._bytes += size
            while self._over_bound():
                _, (_, evicted) = self._entries.popitem(last=False)
                self._bytes -= evicted

    def discard(self, key) -> None:
        with self._lock:
            self._drop(key)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0

    def get_or_build(self, key, build: Callable[[], object], size: Callable[[object], int] | None = None):
        """The value for ``key``, built by ``build()`` when missing, by one thread at a time per key. A build that
        gives None (nothing to keep, e.g. not counted yet) is not kept; a build that raises keeps nothing either."""
        value = self.get(key)
        if value is not None:
            return value
        with self._lock:
            building = self._building.setdefault(key, threading.Lock())
        try:
            with building:
                value = self.get(key)  # built by the thread this one waited for
                if value is None:
                    value = build()
                    if value is not None:
                        self.put(key, value, None if size is None else size(value))
        finally:
            with self._lock:
                # The last thread out removes the key's lock; one still waiting removes it after its turn.
                if self._building.get(key) is building and not building.locked():
                    del self._building[key]
        return value

    def _drop(self, key) -> None:
        previous = self._entries.pop(key, None)
        if previous is not None:
            self._bytes -= previous[1]

    def _over_bound(self) -> bool:
        return ((self.max_bytes is not None and self._bytes > self.max_bytes)
                or (self.max_entries is not None and len(self._entries) > self.max_entries))


def size_of(value) -> int:
    """An estimate of the bytes ``value`` holds: arrays and sparse matrices exactly, texts by their length, and
    containers by what they hold (objects that say ``nbytes`` are believed)."""
    if isinstance(value, np.ndarray):
        return value.nbytes
    if sp.issparse(value):
        return sum(part.nbytes for part in (value.data, value.indices, value.indptr))
    if isinstance(value, str):
        return sys.getsizeof(value)
    if isinstance(value, (tuple, list)):
        return sys.getsizeof(value) + sum(size_of(item) for item in value)
    nbytes = getattr(value, "nbytes", None)
    if isinstance(nbytes, int):
        return nbytes
    return sys.getsizeof(value)
