"""The progress of background work, polled by htmx (or by a meta refresh without JavaScript).

**The time left** is estimated from the work done so far at the pace so far: elapsed × (total − done) / done,
the elapsed time counted from when a worker took the job (``Job.started_at``, kept in the database, so any process
estimates alike), not from when it was asked for. There is no estimate while nothing is done, for work that has no
total, or for a job whose start is not known (a row written before migration 0007).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timezone
from urllib.parse import parse_qsl, urlencode, urlsplit

from flask import Blueprint, abort, make_response, redirect, request
from werkzeug.datastructures import MultiDict

from webnb.answers import is_htmx
from webnb.hosting.jobs import Job
from webnb.lesson.state import parse_state
from webnb.views.common import find_job, respond

bp = Blueprint("jobs", __name__)


def clock() -> datetime:
    """The wall clock (UTC) the estimates are made with; tests replace it with a fixed time."""
    return datetime.now(timezone.utc)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _nearest(amount: float) -> int:
    """Rounded half up, as people round (Python's ``round`` rounds half to even)."""
    return math.floor(amount + 0.5)


def duration(seconds: float) -> str:
    """A duration in plain words, rounded as a person would say it: "less than a second", whole seconds under a
    minute, whole minutes under an hour, then hours and minutes."""
    if seconds < 1:
        return "less than a second"
    if _nearest(seconds) < 60:
        return _plural(_nearest(seconds), "second")
    minutes = _nearest(seconds / 60)
    if minutes < 60:
        return _plural(minutes, "minute")
    hours, minutes = divmod(minutes, 60)
    return _plural(hours, "hour") + (f" {_plural(minutes, 'minute')}" if minutes else "")


@dataclass(frozen=True)
class Progress:
    """A job as it was when the request read it: the worker thread goes on changing the job itself, so the page
    and its JSON twin are made from one reading of the job and one reading of the clock."""

    id: str
    title: str
    state: str  # "running", "done" or "failed"
    unit: str  # what done and total count
    done: int
    total: int
    result_url: str | None
    error: str | None
    waiting: bool = False  # not started yet: waiting for a free worker
    elapsed_seconds: float | None = None  # since a worker took it (None: not started, not running, or not known)
    remaining_seconds: float | None = None  # estimated (None: nothing done yet, no total, or no start)

    @classmethod
    def of(cls, job: Job, now: datetime | None = None) -> Progress:
        """One reading of ``job`` at ``now`` (by default :func:`clock`)."""
        state, done, total, started_at = job.state, job.done, job.total, job.started_at
        waiting = state == "running" and job.waiting
        elapsed = remaining = None
        if state == "running" and not waiting and started_at is not None:
            now = clock() if now is None else now
            # Never negative: another process's clock may be a little behind the one that started the job.
            elapsed = max(0.0, (now - started_at).total_seconds())
            if total > 0 and 0 < done:
                remaining = elapsed * max(0, total - done) / done
        return cls(job.id, job.title, state, job.unit, done, total, job.result_url, job.error,
                   waiting, elapsed, remaining)

    @property
    def fraction(self) -> float | None:
        return self.done / self.total if self.total else None

    @property
    def estimate(self) -> str | None:
        """The time left (or why it cannot be said yet) in a sentence; None when there is nothing to say."""
        if self.state != "running":
            return None
        if self.waiting:
            return "Waiting for a free slot: this starts when the work ahead of it is done."
        if self.elapsed_seconds is None:
            return None
        so_far = duration(self.elapsed_seconds)
        if self.remaining_seconds is not None:
            if self.remaining_seconds < 1:
                return "Less than a second left."
            return f"About {duration(self.remaining_seconds)} left ({so_far} so far)."
        if not self.total:
            return f"Working for {so_far}; the time left cannot be estimated from this work."
        return f"Working for {so_far}; the time left can be estimated once the first {self.unit} are done."

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "title": self.title,
            "state": self.state,
            "unit": self.unit,
            "done": self.done,
            "total": self.total,
            "fraction": self.fraction,
            "waiting": self.waiting,
            "elapsed_seconds": self.elapsed_seconds,
            "remaining_seconds": self.remaining_seconds,
            "estimate": self.estimate,
            "error": self.error,
        }


@dataclass(frozen=True)
class SlideWait:
    """Work for a slide (``presenter=1`` in its address): the progress is drawn as a slide of the deck, in its theme
    and zoom, with a bar that goes back to the slide before and leaves presenter mode."""

    theme: str
    zoom: str
    exit_url: str
    back_url: str | None


def _slide_wait(progress: Progress) -> SlideWait | None:
    # Drawn at the slide's own address (a page whose numbers the job computes), or at /jobs/<id>: its result's.
    at_the_slide = bool(request.args.get("presenter"))
    parts = urlsplit(request.full_path if at_the_slide else progress.result_url or "")
    # Read as the lesson pages read them (presenter, theme and zoom mean the same for texts and tables).
    look = parse_state(MultiDict(parse_qsl(parts.query, keep_blank_values=True)))
    if not look.presenter:
        return None
    kept = [(name, value) for name, value in parse_qsl(parts.query, keep_blank_values=True)
            if name not in ("presenter", "slide", "step")]
    exit_url = parts.path + ("?" + urlencode(kept) if kept else "")
    referrer = urlsplit(request.referrer or "")
    same_site = (referrer.netloc == request.host and referrer.path.startswith("/")
                 and not referrer.path.startswith("//"))  # "//elsewhere" would leave the site
    back = (referrer.path + ("?" + referrer.query if referrer.query else "")
            if same_site and referrer.path != request.path else None)
    return SlideWait(look.theme, look.zoom, exit_url, back)


def _progress_page(progress: Progress, status: int):
    return respond("jobs/show.html", "progress", progress, status=status, job=progress,
                   slide_wait=_slide_wait(progress))


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
