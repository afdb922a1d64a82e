"""Grades back to the course (LTI Advantage, AGS): a launched student's answer to a graded question in a class
becomes a Score in the gradebook column of the activity they launched, sent in the background, tried at most
``MAX_TRIES`` times with growing waits, and shown to the lecturer as waiting, sent or failed.

The student's page never waits for the LMS: answering stores the grade (``grade_answer``) and wakes the courier,
a thread of the process that sends what is due (``Courier.send_due``). One grade per student and column: a better
answer replaces the one kept and is sent again, a worse one changes nothing, so sending again is harmless.
"""
from __future__ import annotations

import logging
import threading
from datetime import datetime, timedelta, timezone

from webnb.lti.adapter import ScoreNotSent, post_score
from webnb.lti.registry import Registry

logger = logging.getLogger(__name__)

MAX_TRIES = 5
FIRST_WAIT = timedelta(seconds=30)  # then 1, 2 and 4 minutes: a platform down for a few minutes still gets them
IDLE_WAIT_SECONDS = 300  # the courier looks again this often with nothing due (another process may have added some)


def score_of(kind: str, *, success: bool | None, accuracy: float | None, maximum: float) -> float | None:
    """The grade of an answer out of ``maximum``: a challenge met gets it all; a tuning its α's accuracy of it;
    anything else (a prediction, a challenge not met, a tuning not scored yet) no grade."""
    if kind == "challenge" and success:
        return maximum
    if kind == "tune" and accuracy:
        return round(accuracy * maximum, 6)
    return None


def grade_answer(registry: Registry, workspace: str, kind: str, *, success: bool | None,
                 accuracy: float | None) -> bool:
    """Keep the grade of this workspace's answer for its course, if its user launched a graded activity. True if a
    grade is to be sent."""
    link = registry.grade_link(workspace)
    if link is None:
        return False
    given = score_of(kind, success=success, accuracy=accuracy, maximum=link.grading.score_maximum)
    return given is not None and registry.save_score(link, given)


def wait_after(tries: int) -> timedelta | None:
    """How long to wait after the ``tries``-th failed try; None: no more tries."""
    return None if tries >= MAX_TRIES else FIRST_WAIT * 2 ** (tries - 1)


class Courier:
    """Sends the grades that are due, from one thread per process (started at the first grade it is told of)."""

    def __init__(self, registry: Registry, http, *, in_background: bool = True):
        self.registry = registry
        self.http = http
        self.tokens: dict = {}  # the platforms' access tokens, until they expire
        self.in_background = in_background
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def send_due(self, now: datetime | None = None) -> list[tuple[int, str]]:
        """Send every grade due at ``now``: (id, "sent" or why not) of each."""
        now = now or datetime.now(timezone.utc)
        results = []
        for score in self.registry.claim_due_scores(now=now):
            try:
                post_score(self.registry, self.http, self.tokens, score)
            except ScoreNotSent as problem:
                wait = wait_after(score.tries + 1)
                self.registry.score_not_sent(score, str(problem), retry_at=None if wait is None else now + wait)
                logger.warning("A grade for the course was not taken (try %d of %d): %s", score.tries + 1, MAX_TRIES,
                               problem)
                results.append((score.id, str(problem)))
                continue
            self.registry.score_sent(score)
            results.append((score.id, "sent"))
        return results

    def wake(self) -> None:
        """There is a grade to send: the courier's thread sends it now (started if it is not running)."""
        if not self.in_background:
            return
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="webnb-grades", daemon=True)
                self._thread.start()
        self._wake.set()

    def _run(self) -> None:
        while True:
            self._wake.clear()
            try:
                self.send_due()
                due = self.registry.next_due()
            except Exception:  # the database away, a bug: the next grade wakes it again
                logger.exception("The grades for the courses could not be sent")
                due = None
            now = datetime.now(timezone.utc)
            wait = IDLE_WAIT_SECONDS if due is None else max(0.0, min((due - now).total_seconds(), IDLE_WAIT_SECONDS))
            self._wake.wait(wait)
