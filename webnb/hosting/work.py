"""Memory per request and heavy work per process.

``WEBNB_MAX_WORK_MB`` caps the memory estimate of one piece of work (webnb/engine/shared/budget.py): 300 MB in
hosted mode, where students share a worker; 4,000 MB in local mode, the instructor's own machine, where the largest
real corpus (all of 20 Newsgroups on the compare page) needs about 1 GB and the cap only stops a corpus that would
swap.
0 means no cap.

``WEBNB_MAX_HEAVY_WORK`` computations at most run at once in one process (default 1 in hosted mode, 2 in local
mode): counting a large corpus, a held-out split, the comparison's fits, the α sweep. A background job waits for
its turn (its progress page shows meanwhile); a page that would compute while the request waits is refused with
503 and ``Retry-After`` instead of piling up memory.

``WEBNB_MAX_QUEUED_JOBS`` background jobs at most wait in one process (default 8 in hosted mode, 16 in local mode;
0 means no bound), a workspace's newer computation replacing its waiting one, and they start in turn across client
addresses and workspaces (webnb/hosting/jobs.py). A job past the bound is refused like a page, with 503 and
``Retry-After`` (:class:`Busy`, :data:`webnb.hosting.jobs.QUEUE_FULL`).

Each setting comes from the app's config, else from the environment variable of the same name, else the default.
"""
from __future__ import annotations

import os
import threading
from contextlib import contextmanager, nullcontext
from typing import Callable

from flask import current_app, g

from webnb.engine.shared import budget

DEFAULT_MAX_WORK_MB = {"hosted": 300, "local": 4000}
DEFAULT_MAX_HEAVY_WORK = {"hosted": 1, "local": 2}
DEFAULT_MAX_QUEUED_JOBS = {"hosted": 8, "local": 16}
# Counting more documents than this is heavy (the same bound above which pages show progress, views.common).
HEAVY_DOCUMENTS = 2000
RETRY_AFTER_SECONDS = 10
BUSY = ("This server is already busy with another large computation, so this one was not started. "
        "Nothing was changed; please try again in a few seconds.")


class Busy(Exception):
    """No slot for heavy work is free, and this request cannot wait for one."""


class HeavyWork:
    """At most ``slots`` heavy computations at once. A thread that holds a slot may enter again (a job that counts
    and then splits), without taking a second one."""

    def __init__(self, slots: int):
        self.slots = slots
        self._free = threading.BoundedSemaphore(slots)
        self._held = threading.local()

    @contextmanager
    def slot(self, wait: bool, while_waiting: Callable[[], None] | None = None, every: float = 30.0):
        """Hold a slot for the block: wait for one (background work), or raise :class:`Busy` at once (a request).
        ``while_waiting`` is called every ``every`` seconds that the wait lasts."""
        depth = getattr(self._held, "depth", 0)
        if depth == 0:
            if not wait:
                if not self._free.acquire(blocking=False):
                    raise Busy(BUSY)
            else:
                while not self._free.acquire(timeout=every if while_waiting is not None else None):
                    while_waiting()
        self._held.depth = depth + 1
        try:
            yield
        finally:
            self._held.depth = depth
            if depth == 0:
                self._free.release()


def init_app(app) -> None:
    mode = app.config.get("WEBNB_MODE", "local")
    for name, defaults, kind in (
        ("WEBNB_MAX_WORK_MB", DEFAULT_MAX_WORK_MB, float),
        ("WEBNB_MAX_HEAVY_WORK", DEFAULT_MAX_HEAVY_WORK, int),
        ("WEBNB_MAX_QUEUED_JOBS", DEFAULT_MAX_QUEUED_JOBS, int),
    ):
        app.config.setdefault(name, kind(os.environ.get(name, defaults.get(mode, defaults["local"]))))
    gate = HeavyWork(max(1, int(app.config["WEBNB_MAX_HEAVY_WORK"])))
    extensions = app.extensions["webnb"]
    extensions["heavy_work"] = gate
    extensions["catalog"].heavy_work = gate
    extensions["jobs"].heavy_work = gate
    extensions["jobs"].max_queued = max(0, int(app.config["WEBNB_MAX_QUEUED_JOBS"]))

    @app.before_request
    def _set_limit():
        g.webnb_work_limit = budget.set_limit(max_work_bytes(app))

    @app.teardown_request
    def _reset_limit(_error=None):
        token = g.pop("webnb_work_limit", None)
        if token is not None:
            try:
                budget.reset_limit(token)
            except ValueError:  # set in another context (a test client that reused the thread): nothing to undo
                pass



def max_work_bytes(app=None) -> int | None:
    """The cap in bytes, or None when WEBNB_MAX_WORK_MB is 0."""
    megabytes = float((app or current_app).config.get("WEBNB_MAX_WORK_MB") or 0)
    return int(megabytes * budget.MB) if megabytes > 0 else None


def heavy(n_documents: int | None = None):
    """A computation inside a request on ``n_documents`` (None: heavy whatever its size): refused with 503 when
    every slot is taken (see :class:`HeavyWork`), free for small work and inside a job that holds a slot."""
    if n_documents is not None and n_documents <= HEAVY_DOCUMENTS:
        return nullcontext()
    return current_app.extensions["webnb"]["heavy_work"].slot(wait=False)


def heavy_slot(owner, n_documents: int):
    """A slot of ``owner``'s gate (its ``heavy_work``, set by init_app) for counting ``n_documents``, when that many
    make the work heavy; refused with :class:`Busy` at once in a request, free in a job that already holds one."""
    gate = getattr(owner, "heavy_work", None)
    if gate is None or n_documents <= HEAVY_DOCUMENTS:
        return nullcontext()
    return gate.slot(wait=False)
