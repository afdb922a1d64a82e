"""A graded question of its own: an activity that a course links to (chosen in deep linking's picker) and that a
launched student answers alone, outside any class. The student's best answer becomes their grade in the activity's
gradebook column, sent in the background as a class's answers are (webnb/lti/grades.py).

The question is one a lecturer asks in a class (webnb/room/lecture.py), and it is checked the same way: a challenge
by the engine's verdicts on the review at the lesson's settings, a tuning by the held-out accuracy of the model at
the student's α. It travels in the resource link's custom parameters (``question``, beside ``lesson``), which the
LMS signs into every launch, so a student cannot change what they are asked.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from urllib.parse import parse_qsl, urlencode, urlsplit

from webnb.room import lecture
from webnb.room.questions import checked_answer, lesson_at
from webnb.views.common import load_held_out
from webnb.views.evaluation import score_on

# The questions a graded link may ask, as its custom ``question`` names them (a class challenge adds ":<class>").
QUESTIONS = {
    "challenge:class": "Challenge: a review the model puts in a class you name",
    "challenge:cannot-decide": "Challenge: a review the model cannot decide at α = 0",
    "challenge:flips": "Challenge: a review whose decision changes when α goes from 0 to 1",
    "tune": "Tune α: the value with the best accuracy on held-out documents",
}


@dataclass(frozen=True)
class Activity:
    """A question of its own about the lesson at ``address`` (a lesson page of a corpus, with its parameters):
    ``kind`` "challenge" (with its ``goal`` and, for a class, ``target``) or "tune"."""

    kind: str
    address: str
    goal: str | None = None
    target: str | None = None

    @property
    def corpus_id(self) -> str:
        return urlsplit(self.address).path.split("/")[2]

    @property
    def question(self) -> str:
        """The activity as the link's custom ``question``."""
        return ":".join(part for part in (self.kind, self.goal, self.target) if part)

    def to_dict(self) -> dict:
        return asdict(self)

    def with_review(self, review: str) -> str:
        """The lesson's address with ``review`` as its text: the review shown step by step."""
        parts = urlsplit(self.address)
        query = [(name, value) for name, value in parse_qsl(parts.query, keep_blank_values=True)
                 if name not in ("text", "step")]
        return f"{parts.path}?{urlencode([*query, ('text', review)])}"


def activity_of(question: str, address: str) -> Activity | None:
    """The activity a link's custom ``question`` asks about the lesson at ``address``; None when it names none that
    webnb asks (then the link is a lesson, graded by a class's questions only)."""
    parts = urlsplit(address)
    if not parts.path.startswith("/corpora/") or len(parts.path.split("/")) < 3:
        return None
    kind, _, challenge = question.strip().partition(":")
    goal, _, target = challenge.partition(":")
    if kind == "tune" and not challenge:
        return Activity("tune", address)
    if kind == "challenge" and goal in lecture.GOALS and bool(target) == (goal == "class"):
        return Activity("challenge", address, goal, target or None)
    return None


@dataclass(frozen=True)
class Answer:
    """A student's answer as checked: a challenge's ``success``, a tuning's ``accuracy`` (None: its α cannot be
    scored with the lesson's settings)."""

    answer: str
    success: bool | None = None
    accuracy: float | None = None

    def to_dict(self) -> dict:
        return asdict(self)


def check_answer(activity: Activity, given: str) -> Answer:
    """``given`` checked as the answer to ``activity``, as a class's answer is checked; raises AnswerRefused with
    why it cannot be taken."""
    answer, success = checked_answer(activity.corpus_id, activity, given)
    if activity.kind == "challenge":
        return Answer(answer, success=success)
    return Answer(answer, accuracy=tuning_accuracy(activity, answer))


def tuning_accuracy(activity: Activity, alpha: str) -> float | None:
    """The held-out accuracy of the lesson's model at ``alpha``, as its evaluation page shows it; None when the
    model cannot be trained or scored at that α."""
    lesson = lesson_at(activity.corpus_id, activity.address, alpha=alpha)
    held, _ = load_held_out(lesson, progress_page=False)  # counted already when the activity's page was shown
    if held is None:
        return None
    try:
        return score_on(held, lesson.state).result.accuracy
    except ValueError:
        return None
