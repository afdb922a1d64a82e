"""Work that takes longer than a page should (counting a 20,000-document corpus, storing a big upload)
runs in a background thread; the browser watches a progress page until the work is done.

The work runs in the process that started it. Its progress is also written to the database (at most every
half second), so that when several processes serve the app (gunicorn's workers) the progress page can be
polled from any of them."""
from __future__ import annotations

import secrets
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Callable

from webnb.engine import CorpusError
from webnb.engine.shared import budget
from webnb.outages import STORAGE_ERRORS, STORAGE_UNAVAILABLE

FORGET_AFTER_SECONDS = 3600
SAVE_EVERY_SECONDS = 0.5
# A job that another process has not reported on for this long died with that process (a crash, a restart):
# the work reports at least every few seconds while it runs.
STALE_AFTER_SECONDS = 120
STOPPED = "The server stopped while doing this, so it did not finish. Nothing was stored; please try again."


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
    started: float = field(default_factory=time.monotonic)

    saved: float = 0.0  # when the progress was last written to the database
    on_change: Callable | None = field(default=None, repr=False, compare=False)

    def report(self, done: int, total: int) -> None:
        self.done, self.total = done, total
        if self.on_change is not None and time.monotonic() - self.saved >= SAVE_EVERY_SECONDS:
            self.saved = time.monotonic()
            self.on_change(self)

    @property
    def fraction(self) -> float | None:
        return self.done / self.total if self.total else None


class Jobs:
    """A small pool of worker threads and the jobs it ran in the last hour."""

    def __init__(self, workers: int = 2, storage=None):
        self._storage = storage  # where other processes read the jobs' progress (None: this process only)
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="webnb-job")
        self._jobs: dict[str, Job] = {}
        self._futures: dict[str, Future] = {}
        self._lock = threading.Lock()
        self.heavy_work = None  # webnb.work.HeavyWork: how many heavy jobs may run at once (None: as many as workers)

    def start(self, title: str, work: Callable[[Job], str], key=None, unit: str = "documents", workspace=None) -> Job:
        """Run ``work(job)``, which returns the URL to show when it is done. A job with the same ``key``
        that is still running is reused, so reloading a page does not start the same work twice."""
        with self._lock:
            self._forget_old()
            if key is not None:
                for job in self._jobs.values():
                    if job.key == key and job.workspace == workspace and job.state == "running":
                        return job
            job = Job(id=secrets.token_urlsafe(16), title=title, key=key, unit=unit, workspace=workspace)
            self._jobs[job.id] = job
        if self._storage is not None:
            job.on_change = self._storage.save_job
            try:
                self._storage.save_job(job)
            except Exception:
                with self._lock:  # never started: the same work asked again must start, not be watched forever
                    del self._jobs[job.id]
                raise
        self._futures[job.id] = self._pool.submit(self._run, job, self._within_limits(work))
        return job

    def _within_limits(self, work: Callable[[Job], str]) -> Callable[[Job], str]:
        """``work`` under the memory cap of the request that started it (webnb/engine/shared/budget.py), run when a slot
        for heavy work is free: until then the job waits, and its progress page says it has not started."""
        cap, gate = budget.current_limit(), self.heavy_work

        def limited(job: Job) -> str:
            with budget.limit(cap):
                if gate is None:
                    return work(job)
                with gate.slot(wait=True):
                    return work(job)

        return limited

    def wait(self, job_id: str, timeout: float | None = None) -> Job:
        """Block until the job has finished (for tests and scripts; pages poll instead)."""
        self._futures[job_id].result(timeout=timeout)
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
                silent = (datetime.now(timezone.utc) - updated_at).total_seconds()
                if job.state == "running" and silent > STALE_AFTER_SECONDS:
                    job.state, job.error = "failed", STOPPED
        return job

    @staticmethod
    def _run(job: Job, work: Callable[[Job], str]) -> None:
        try:
            job.result_url = work(job)
            job.state = "done"
        except (CorpusError, ValueError) as error:
            job.error, job.state = str(error), "failed"
        except STORAGE_ERRORS:  # the database went away during the work; its transaction was rolled back
            job.error, job.state = STORAGE_UNAVAILABLE, "failed"
        except Exception as error:  # noqa: BLE001 - a worker must never die silently
            job.error, job.state = f"Something went wrong: {type(error).__name__}. Nothing was stored.", "failed"
        if job.on_change is not None:
            try:
                job.on_change(job)
            except Exception:  # noqa: BLE001 - the outcome is still known to this process
                pass

    def _forget_old(self) -> None:
        now = time.monotonic()
        for job_id in [
            j.id for j in self._jobs.values() if j.state != "running" and now - j.started > FORGET_AFTER_SECONDS
        ]:
            del self._jobs[job_id]
            self._futures.pop(job_id, None)

    def shutdown(self) -> None:
        self._pool.shutdown(wait=True)
