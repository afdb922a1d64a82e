"""Work that takes longer than a page should (counting a 20,000-document corpus, storing a big upload)
runs in a background thread; the browser watches a progress page until the work is done."""
from __future__ import annotations

import secrets
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Callable

from webnb.engine import CorpusError

FORGET_AFTER_SECONDS = 3600


@dataclass
class Job:
    id: str
    title: str
    key: object = None
    unit: str = "documents"  # what done and total count
    done: int = 0
    total: int = 0
    state: str = "running"  # "running", "done" or "failed"
    result_url: str | None = None
    error: str | None = None
    started: float = field(default_factory=time.monotonic)

    def report(self, done: int, total: int) -> None:
        self.done, self.total = done, total

    @property
    def fraction(self) -> float | None:
        return self.done / self.total if self.total else None


class Jobs:
    """A small pool of worker threads and the jobs it ran in the last hour."""

    def __init__(self, workers: int = 2):
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="webnb-job")
        self._jobs: dict[str, Job] = {}
        self._futures: dict[str, Future] = {}
        self._lock = threading.Lock()

    def start(self, title: str, work: Callable[[Job], str], key=None, unit: str = "documents") -> Job:
        """Run ``work(job)``, which returns the URL to show when it is done. A job with the same ``key``
        that is still running is reused, so reloading a page does not start the same work twice."""
        with self._lock:
            self._forget_old()
            if key is not None:
                for job in self._jobs.values():
                    if job.key == key and job.state == "running":
                        return job
            job = Job(id=secrets.token_urlsafe(12), title=title, key=key, unit=unit)
            self._jobs[job.id] = job
        self._futures[job.id] = self._pool.submit(self._run, job, work)
        return job

    def wait(self, job_id: str, timeout: float | None = None) -> Job:
        """Block until the job has finished (for tests and scripts; pages poll instead)."""
        self._futures[job_id].result(timeout=timeout)
        return self._jobs[job_id]

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            return self._jobs.get(job_id)

    @staticmethod
    def _run(job: Job, work: Callable[[Job], str]) -> None:
        try:
            job.result_url = work(job)
            job.state = "done"
        except (CorpusError, ValueError) as error:
            job.error, job.state = str(error), "failed"
        except Exception as error:  # noqa: BLE001 - a worker must never die silently
            job.error, job.state = f"Something went wrong: {type(error).__name__}. Nothing was stored.", "failed"

    def _forget_old(self) -> None:
        now = time.monotonic()
        for job_id in [j.id for j in self._jobs.values() if j.state != "running" and now - j.started > FORGET_AFTER_SECONDS]:
            del self._jobs[job_id]
            self._futures.pop(job_id, None)

    def shutdown(self) -> None:
        self._pool.shutdown(wait=True)
