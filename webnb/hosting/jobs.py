"""Work that takes longer than a page should (counting a 20,000-document corpus, storing a big upload)
runs in a background thread; the browser watches a progress page until the work is done.

The work runs in the process that started it. Its progress is also written to the database (at most every
half second), so that when several processes serve the app (gunicorn's workers) the progress page can be
polled from any of them.

**Waiting jobs are few and served in turn.** A job waits until a worker thread (and, with ``heavy_work``, a slot
for heavy work, webnb/hosting/work.py) is free. Waiting, it costs nothing but its place, and the places are bounded:

- *One waiting computation per workspace.* A job with a ``key`` computes what a page shows, and the page asks for
  it again when opened. A newer job of the same workspace replaces its waiting one, which never runs and says so
  on its progress page. A job without a key stores what a student sent (an upload) and is never dropped.
- *At most ``max_queued`` waiting jobs per process* (``WEBNB_MAX_QUEUED_JOBS``, webnb/hosting/work.py). A fresh cookie
  is a fresh workspace, so this bound is what stops one client: past it, the client address with the most waiting jobs
  gives up its newest waiting computation to an address with fewer (at least two fewer), and when no address has
  more than its share the new job is refused with :class:`webnb.hosting.work.Busy` (503 with ``Retry-After``). A lecture
  hall behind one address may fill the queue while nobody else waits; a flood from one address cannot keep
  another address out. Addresses are kept only as the keyed hashes that the caller gives (admission.address_key).
- *In turn, not first come first served.* The next job to start is that of the client address served least
  recently (never served counts as longest ago), of its workspaces the one served least recently, and of that
  workspace's jobs the oldest; so one address's or workspace's many jobs cannot push another's back by more than
  a turn each.
- A waiting job's row is written again every ``REFRESH_WAITING_SECONDS``, so that no other process takes it for
  the work of a stopped server while it waits.

**When a job started.** ``started_at`` is the wall-clock time (UTC) at which a worker took the job, not when it was
asked for: the time a job waited for a free slot says nothing of how long its work takes. Its row is written at that
moment, so that a progress page served by any process estimates the time left from it (webnb/views/jobs.py) and
knows the job is no longer waiting. A running job's row without ``started_at`` (nor progress) is one still waiting; one
with progress but no ``started_at`` was written by a release before 0007: its start is unknown, its page gives no
estimate.

**Memory goes back after each job.** A job's work, its exception's frames and its future are let go when it ends,
and the worker then collects reference cycles (``gc.collect()``) and, with glibc, returns freed memory to the
system (``malloc_trim``), still holding its heavy-work slot: the next computation starts from the same footprint.
Reference cycles that hold arrays (an exception and its frames, say) would otherwise be reached by Python's
collector only much later, with hundreds of megabytes held meanwhile. An unexpected error is
logged with its traceback (``webnb.hosting.jobs``) before its frames are cleared; the page says
"Something went wrong".
"""
from __future__ import annotations

import ctypes
import ctypes.util
import functools
import gc
import itertools
import logging
import secrets
import threading
import time
import traceback
from collections import Counter, OrderedDict
from concurrent.futures import Future
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Callable

from webnb.engine.shared import budget
from webnb.hosting.outages import STORAGE_ERRORS, describe_storage_error
from webnb.hosting.work import Busy

logger = logging.getLogger(__name__)

FORGET_AFTER_SECONDS = 3600
SAVE_EVERY_SECONDS = 0.5
# A job that another process has not reported on for this long died with that process (a crash, a restart):
# the work reports at least every few seconds while it runs.
STALE_AFTER_SECONDS = 120
# A waiting job reports nothing, so its row is written again this often: it is waiting, not stopped.
REFRESH_WAITING_SECONDS = 30
STOPPED = "The server stopped while doing this, so it did not finish. Nothing was stored; please try again."
REPLACED = ("You asked for newer work before this started, so it was replaced by the newer request and not done. "
            "Nothing was stored; open the page again if you still want it.")
CROWDED = ("The server had too many computations waiting, so this one was dropped to make room for another "
           "student's. Nothing was stored; please open the page again in a few seconds.")
QUEUE_FULL = ("This server has too many computations waiting already, so this one was not started. "
              "Nothing was changed; please try again in a few seconds.")
# Whom the scheduler remembers having served (client addresses and workspaces); one forgotten counts as served
# longest ago, which it nearly was.
REMEMBERED_OWNERS = 10_000


@dataclass
class Job:
    id: str
    title: str
    key: object = None
    workspace: object = None  # who started it (hosted mode): nobody else may watch it
    unit: str = "documents"  # what done and total count
    done: int = 0
    total: int = 0
    state: str = "running"  # "running", "done" or "failed"
    result_url: str | None = None
    error: str | None = None
    started: float = field(default_factory=time.monotonic)  # when it was asked for (this process's clock)
    started_at: datetime | None = None  # when a worker took it (UTC wall clock; None: not yet, or not known)
    waiting: bool = False  # asked for, not started: waiting for a free worker (or slot for heavy work)

    saved: float = 0.0  # when the progress was last written to the database
    on_change: Callable | None = field(default=None, repr=False, compare=False)
    after_done: list[tuple[Callable, Callable | None]] = field(default_factory=list, repr=False, compare=False)

    def later(self, work: Callable[[], None], if_failed: Callable[[], None] | None = None) -> None:
        """Run ``work`` once the job has said it is done, so that its page opens without waiting for it: what the
        result does not need (storing counts for other processes, say). If the job fails, ``if_failed`` runs
        instead (to let go of what ``work`` would have finished)."""
        self.after_done.append((work, if_failed))

    def report(self, done: int, total: int) -> None:
        self.done, self.total = done, total
        if self.on_change is not None and time.monotonic() - self.saved >= SAVE_EVERY_SECONDS:
            self.saved = time.monotonic()
            self.on_change(self)

    @property
    def fraction(self) -> float | None:
        return self.done / self.total if self.total else None


def utc_now() -> datetime:
    """The wall clock, in UTC (a function of its own, so that tests can fix it)."""
    return datetime.now(timezone.utc)


@dataclass(eq=False)
class _Waiting:
    """A job that has not started: its work, the memory cap of the request that asked for it, and who asked."""

    job: Job
    work: Callable[[Job], str] | None
    cap: int | None
    address: object  # a keyed hash of the client's address (None: unknown, or local mode)
    order: int  # arrival
    ready: bool = False  # its progress is in the database (other processes can show it): it may start

    @property
    def replaceable(self) -> bool:
        return self.job.key is not None


class Jobs:
    """A few worker threads, the jobs waiting for them (bounded, served in turn) and the jobs of the last hour."""

    def __init__(self, workers: int = 2, storage=None, max_queued: int | None = None):
        self._storage = storage  # where other processes read the jobs' progress (None: this process only)
        self._workers = workers
        self._jobs: dict[str, Job] = {}
        self._futures: dict[str, Future] = {}  # of the jobs not finished yet
        self._waiting: list[_Waiting] = []
        self._served: OrderedDict[tuple, int] = OrderedDict()  # when each address and workspace last had a turn
        self._turns = itertools.count(1)
        self._threads: set[threading.Thread] = set()
        self._closed = False
        self._lock = threading.Lock()
        self.max_queued = max_queued  # waiting jobs at most (None or 0: no bound)
        # webnb.hosting.work.HeavyWork: how many heavy jobs may run at once (None: as many as workers)
        self.heavy_work = None

    def start(self, title: str, work: Callable[[Job], str], key=None, unit: str = "documents", workspace=None,
              address=None) -> Job:
        """Run ``work(job)``, which returns the URL to show when it is done. A job with the same ``key`` and
        ``workspace`` that is still running (or waiting) is reused, so reloading a page does not start the same work
        twice; one with another key replaces the workspace's waiting one. ``address``: a keyed hash of the client's
        address. Raises :class:`webnb.hosting.work.Busy` when too many jobs wait already (see the module's
        docstring)."""
        with self._lock:
            if self._closed:
                raise RuntimeError("These jobs were shut down; no job can start.")
            self._forget_old()
            if key is not None:
                for job in self._jobs.values():
                    if job.key == key and job.workspace == workspace and job.state == "running":
                        return job
            job = Job(id=secrets.token_urlsafe(16), title=title, key=key, unit=unit, workspace=workspace,
                      waiting=True)
            if self._storage is not None:
                job.on_change = self._storage.save_job
            waiting = _Waiting(job, work, budget.current_limit(), address, next(self._turns))
            dropped = self._make_room(waiting)
            self._waiting.append(waiting)
            self._jobs[job.id] = job
            self._futures[job.id] = Future()
        for other in dropped:
            self._save_quietly(other)
        if self._storage is not None:
            try:
                self._storage.save_job(job)
                job.saved = time.monotonic()
            except Exception:
                self._withdraw(waiting)  # never started: the same work asked again must start, not be watched forever
                raise
        with self._lock:
            waiting.ready = True
            if waiting in self._waiting and len(self._threads) < self._workers:
                thread = threading.Thread(target=self._serve, name=f"webnb-job-{waiting.order}")
                self._threads.add(thread)
                thread.start()
        if job.state != "running":  # replaced while its start was being saved: the database must say so too
            self._save_quietly(job)
        return job

    def _make_room(self, new: _Waiting) -> list[Job]:
        """Place for ``new`` among the waiting jobs: its workspace's waiting computation gives way, else past the
        bound the newest waiting computation of the address with the most waiting jobs (if that address has at
        least two more than ``new``'s). The jobs dropped, marked failed; raises Busy when there is no place."""
        dropped = []
        if new.replaceable:
            for older in [w for w in self._waiting if w.replaceable and w.job.workspace == new.job.workspace]:
                dropped.append(self._drop(older, REPLACED))
        if self.max_queued and len(self._waiting) >= self.max_queued:
            waiting_per_address = Counter(w.address for w in self._waiting)
            share = waiting_per_address[new.address] + 1
            crowding = [w for w in self._waiting if w.replaceable and waiting_per_address[w.address] > share]
            if not crowding:
                raise Busy(QUEUE_FULL)
            most = max(waiting_per_address[w.address] for w in crowding)
            newest = max((w for w in crowding if waiting_per_address[w.address] == most), key=lambda w: w.order)
            dropped.append(self._drop(newest, CROWDED))
        return dropped

    def _drop(self, waiting: _Waiting, reason: str) -> Job:
        """Take a waiting job out of the queue, never to run (under the lock)."""
        self._waiting.remove(waiting)
        waiting.work = None
        job = waiting.job
        job.state, job.error, job.waiting = "failed", reason, False
        self._futures.pop(job.id).set_result(None)
        return job

    def _withdraw(self, waiting: _Waiting) -> None:
        """Forget a job whose start could not be saved, as if it had never been asked for."""
        with self._lock:
            if waiting in self._waiting:
                self._waiting.remove(waiting)
            waiting.work = None
            self._jobs.pop(waiting.job.id, None)
            future = self._futures.pop(waiting.job.id, None)
        if future is not None:
            future.set_result(None)

    def _next(self) -> _Waiting | None:
        """The next job to start (under the lock): the oldest of the address served least recently, and of its
        workspace served least recently; never served counts as longest ago."""
        ready = [w for w in self._waiting if w.ready]
        if not ready:
            return None
        chosen = min(ready, key=lambda w: (self._served.get(("address", w.address), 0),
                                           self._served.get(("workspace", w.job.workspace), 0), w.order))
        self._waiting.remove(chosen)
        turn = next(self._turns)
        for owner in (("address", chosen.address), ("workspace", chosen.job.workspace)):
            self._served[owner] = turn
            self._served.move_to_end(owner)
        while len(self._served) > REMEMBERED_OWNERS:
            self._served.popitem(last=False)
        return chosen

    def _serve(self) -> None:
        """A worker thread: start the next job whenever a slot for heavy work is free; end when none waits."""
        try:
            while True:
                # While this thread waits for the slot (another job holds it), it keeps the waiting jobs' rows fresh.
                gate = self.heavy_work
                waiting_for_slot = (gate.slot(wait=True, while_waiting=self._refresh_waiting,
                                              every=REFRESH_WAITING_SECONDS) if gate is not None else nullcontext())
                with waiting_for_slot:
                    with self._lock:
                        waiting = self._next()
                        if waiting is None:  # said under the lock: a job that arrives now starts a new thread
                            self._threads.discard(threading.current_thread())
                            return
                    self._run(waiting)
                del waiting
                self._refresh_waiting()
        finally:  # also when something failed outside the jobs (it must not be counted as a worker ever after)
            with self._lock:
                self._threads.discard(threading.current_thread())

    def _run(self, waiting: _Waiting) -> None:
        job, work, cap = waiting.job, waiting.work, waiting.cap
        waiting.work = None
        job.started_at = utc_now()
        job.waiting = False
        job.saved = time.monotonic()
        self._save_quietly(job)  # started: other processes' progress pages can estimate from now on
        result_url = error = None
        try:
            with budget.limit(cap):
                result_url = work(job)
        except ValueError as problem:
            error = str(problem)
            _clear_frames(problem)
        except STORAGE_ERRORS as problem:  # the database went away (or the disk filled) during the work; rolled back
            error = describe_storage_error(problem)
            _clear_frames(problem)
        except Exception as problem:  # a worker must never die silently, nor hide what went wrong
            logger.exception("The background job %r failed", job.title)
            error = f"Something went wrong: {type(problem).__name__}. Nothing was stored."
            _clear_frames(problem)
        del work
        job.result_url = result_url
        job.state, job.error = ("done", None) if error is None else ("failed", error)
        self._save_quietly(job)
        self._after(job, failed=error is not None)
        # After the page may open (a tenth of a second on 20 Newsgroups), before ``wait`` returns: this thread
        # still holds its slot for heavy work, so the next computation starts from the same footprint.
        release_memory()
        with self._lock:
            future = self._futures.pop(job.id, None)
        if future is not None:
            future.set_result(None)

    @staticmethod
    def _after(job: Job, failed: bool) -> None:
        """What the job left for after its end (``Job.later``): its work, or what to do instead if it failed."""
        later, job.after_done = job.after_done, []
        for work, if_failed in later:
            after = if_failed if failed else work
            try:
                if after is not None:
                    after()
            except Exception:  # noqa: BLE001 - the job's outcome stands; what it would have added is lost
                logger.exception("The work after the background job %r failed", job.title)

    def _refresh_waiting(self) -> None:
        """Write the waiting jobs' rows again when they are due: another process calls a job that has been silent
        for STALE_AFTER_SECONDS stopped, and a waiting job has nothing to report."""
        if self._storage is None:
            return
        now = time.monotonic()
        with self._lock:
            due = [w.job for w in self._waiting if w.ready and now - w.job.saved >= REFRESH_WAITING_SECONDS]
        for job in due:
            job.saved = now
            self._save_quietly(job)
            if job.state != "running":  # it started and ended meanwhile: its outcome must be the last word
                self._save_quietly(job)

    @staticmethod
    def _save_quietly(job: Job) -> None:
        if job.on_change is not None:
            try:
                job.on_change(job)
            except Exception:  # noqa: BLE001 - the outcome is still known to this process
                pass

    def wait(self, job_id: str, timeout: float | None = None) -> Job:
        """Block until the job has finished (for tests and scripts; pages poll instead)."""
        future = self._futures.get(job_id)
        if future is not None:
            future.result(timeout=timeout)
        return self._jobs[job_id]

    def get(self, job_id: str) -> Job | None:
        """The job, from this process, or else as another process last saved it."""
        with self._lock:
            job = self._jobs.get(job_id)
        if job is None and self._storage is not None:
            saved = self._storage.load_job(job_id)
            if saved is not None:
                updated_at = saved.pop("updated_at")
                job = Job(**saved)
                # Started jobs have a start, and only started jobs report progress; a row with progress but no
                # start was written by a release before 0007: running, its start unknown.
                job.waiting = job.state == "running" and job.started_at is None and not (job.done or job.total)
                silent = (datetime.now(timezone.utc) - updated_at).total_seconds()
                if job.state == "running" and silent > STALE_AFTER_SECONDS:
                    job.state, job.error = "failed", STOPPED
        return job

    def _forget_old(self) -> None:
        now = time.monotonic()
        for job_id in [
            j.id for j in self._jobs.values() if j.state != "running" and now - j.started > FORGET_AFTER_SECONDS
        ]:
            del self._jobs[job_id]

    def shutdown(self) -> None:
        """Start no more jobs; return when the waiting and running ones are done."""
        with self._lock:
            self._closed = True
        while True:
            with self._lock:
                threads = [thread for thread in self._threads if thread is not threading.current_thread()]
            if not threads:
                return
            for thread in threads:
                thread.join()


def _clear_frames(error: BaseException) -> None:
    """Let go of the local variables of every frame that ``error`` (and the errors it came from) went through: a
    traceback keeps them, arrays included, for as long as anything keeps the error."""
    seen, errors = set(), [error]
    while errors:
        error = errors.pop()
        if error is not None and id(error) not in seen:
            seen.add(id(error))
            traceback.clear_frames(error.__traceback__)
            errors += [error.__cause__, error.__context__]


def release_memory() -> None:
    """Free what reference cycles hold, and hand freed memory back to the system where the C library can."""
    gc.collect()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim():
    """glibc's ``malloc_trim``, or None elsewhere (macOS, musl, Windows)."""
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None
