"""A cache bounded in bytes, for the counted corpora a process keeps (see webnb/catalog.py).

Least recently used entries go first once the bound is passed. ``get_or_build`` builds a missing entry once even
when several threads ask for it together: the others wait for that build instead of repeating it.
"""
from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from typing import Callable, Hashable

import numpy as np
import scipy.sparse as sp

DEFAULT_CACHE_MB = 512  # WEBNB_CACHE_MB: 20 Newsgroups' statistics and rows take about 60 MB


class ByteCache:
    def __init__(self, max_bytes: int):
        self.max_bytes = int(max_bytes)
        self._entries: OrderedDict[Hashable, tuple[object, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self._building: dict[Hashable, threading.Lock] = {}

    @property
    def bytes(self) -> int:
        return self._bytes

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key) -> bool:
        return key in self._entries

    def get(self, key, default=None):
        with self._lock:
            found = self._entries.get(key)
            if found is None:
                return default
            self._entries.move_to_end(key)
            return found[0]

    def put(self, key, value, size: int | None = None) -> None:
        """Keep ``value`` (``size`` bytes, estimated by :func:`size_of` when not given); a value larger than the
        whole bound is not kept."""
        size = size_of(value) if size is None else int(size)
        with self._lock:
            previous = self._entries.pop(key, None)
            if previous is not None:
                self._bytes -= previous[1]
            if size > self.max_bytes:
                return
            self._entries[key] = (value, size)
            self._bytes += size
            while self._bytes > self.max_bytes:
                _, (_, evicted) = self._entries.popitem(last=False)
                self._bytes -= evicted

    def discard(self, key) -> None:
        with self._lock:
            previous = self._entries.pop(key, None)
            if previous is not None:
                self._bytes -= previous[1]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0

    def get_or_build(self, key, build: Callable[[], object], size: Callable[[object], int] | None = None):
        """The value for ``key``, built by ``build()`` when missing, by one thread at a time per key. A build that
        gives None (nothing to keep, e.g. not counted yet) is not kept."""
        value = self.get(key)
        if value is not None:
            return value
        with self._lock:
            building = self._building.setdefault(key, threading.Lock())
        with building:
            value = self.get(key)
            if value is None:
                value = build()
                if value is not None:
                    self.put(key, value, None if size is None else size(value))
        with self._lock:
            if self._building.get(key) is building and not building.locked():
                del self._building[key]
        return value


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
