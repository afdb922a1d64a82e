"""The progress of background work, polled by htmx (or by a meta refresh without JavaScript)."""
from __future__ import annotations

from dataclasses import dataclass

from flask import Blueprint, abort, make_response, redirect

from webnb.jobs import Job
from webnb.views.common import find_job, is_htmx, respond

bp = Blueprint("jobs", __name__)


@dataclass(frozen=True)
class Progress:
    """A job as it was when the request read it: the worker thread goes on changing the job itself, so the page
    and its JSON twin are made from one reading."""

    id: str
    title: str
    state: str  # "running", "done" or "failed"
    unit: str  # what done and total count
    done: int
    total: int
    result_url: str | None
    error: str | None

    @classmethod
    def of(cls, job: Job) -> Progress:
        return cls(job.id, job.title, job.state, job.unit, job.done, job.total, job.result_url, job.error)

    @property
    def fraction(self) -> float | None:
        return self.done / self.total if self.total else None

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "title": self.title,
            "state": self.state,
            "unit": self.unit,
            "done": self.done,
            "total": self.total,
            "fraction": self.fraction,
            "error": self.error,
        }


def _progress_page(progress: Progress, status: int):
    return respond("jobs/show.html", "progress", progress, status=status, job=progress)


@bp.get("/jobs/<job_id>")
def show(job_id):
    job = find_job(job_id)
    if job is None:
        abort(404)
    progress = Progress.of(job)
    if progress.state == "done":
        if is_htmx():
            response = make_response("", 204)
            response.headers["HX-Redirect"] = progress.result_url
            return response
        return redirect(progress.result_url, code=303)
    return _progress_page(progress, 200 if progress.state == "running" else 400)


def progress_of(job):
    """The progress page of a job still running, where a page whose numbers it computes would be (202)."""
    return _progress_page(Progress.of(job), 202)
