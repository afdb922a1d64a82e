"""A class in the room: a lecturer starts one, students join it by a short code (or the QR code of its join address)
and land where the lecturer is.

A class has a join code of ``CODE_LENGTH`` characters from ``CODE_ALPHABET``, which leaves out the characters a
student could read as another on a projector (0/O, 1/I/L, 5/S, 2/Z, 8/B); a lecturer's secret (256 random bits)
whose SHA-256 hash alone is stored; the corpus and lesson presets it opened with; and ``state``, the lecturer's
current lesson address, where a student who joins lands. It ends when the lecturer ends it or after its hours.

No Flask here: the command line (``webnb class start|end``) and the views share these functions.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
import string
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from urllib.parse import quote, urlencode

from webnb.engine.shared.forwarding import forwarded
from webnb.lesson.notation import model_name
from webnb.store.database import ClassRecord, Storage

LOOK_ALIKES = frozenset("0O1IL5S2Z8B")
CODE_ALPHABET = "".join(c for c in string.digits + string.ascii_uppercase if c not in LOOK_ALIKES)
CODE_LENGTH = 6
DEFAULT_HOURS = 4
MAX_HOURS = 24 * 7  # a week: a class is a lecture or a course's week of exercises, not a term
# Draws of a new code before giving up: with 25⁶ ≈ 244 million codes, a second draw is already rare.
CODE_DRAWS = 20
# Characters a student may type between the code's characters: spaces and dashes (as "ABC-DEF" or "abc def").
IGNORED_IN_CODES = " -\t\u00a0\u2010\u2011\u2012\u2013\u2014"


@dataclass(frozen=True)
class StartedClass:
    """A class just started: its record, and the lecturer's secret (shown once, never stored)."""

    record: ClassRecord
    secret: str

    code = forwarded("record.code")


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalise_code(typed: str) -> str | None:
    """The code a student typed, in capitals without spaces or dashes; None when it cannot be a code (wrong length
    or a character outside the alphabet). Which codes exist is not looked at here."""
    code = "".join(c for c in (typed or "")[:100] if c not in IGNORED_IN_CODES).upper()
    if len(code) != CODE_LENGTH or any(c not in CODE_ALPHABET for c in code):
        return None
    return code


def secret_hash(secret: str) -> str:
    """The stored form of a lecturer's secret. The secret has 256 random bits, so a plain SHA-256 suffices."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def holds_secret(record: ClassRecord, secret: str) -> bool:
    return hmac.compare_digest(secret_hash(secret), record.secret_hash)


def lesson_address(corpus_id: str, presets) -> str:
    """The class's first lesson page (the corpus page) with its presets, as a path and query."""
    address = f"/corpora/{quote(corpus_id, safe='')}"
    presets = list(presets)
    return f"{address}?{urlencode(presets)}" if presets else address


def start_class(storage: Storage, corpus_id: str, presets=(), *, hours: float = DEFAULT_HOURS,
                now: datetime | None = None) -> StartedClass:
    """Start a class on ``corpus_id`` opening with ``presets`` ((address parameter, text) pairs), for ``hours``."""
    if not 0 < hours <= MAX_HOURS:
        raise ValueError(f"A class lasts more than 0 and at most {MAX_HOURS} hours; {hours:g} was asked.")
    now = now or datetime.now(timezone.utc)
    presets = tuple(presets)
    secret = secrets.token_urlsafe(32)
    for _ in range(CODE_DRAWS):
        code = new_code()
        if storage.add_class(code=code, secret_hash=secret_hash(secret), corpus_id=corpus_id, presets=presets,
                             state=lesson_address(corpus_id, presets), ends_at=now + timedelta(hours=hours), now=now):
            return StartedClass(storage.get_class(code), secret)
    raise RuntimeError(f"No free class code after {CODE_DRAWS} draws; try again.")


def join_path(code: str) -> str:
    return f"/join/{code}"


def lecturer_path(code: str, secret: str) -> str:
    return f"/classes/{code}/lead/{secret}"


# --- questions ------------------------------------------------------------------------------------------------------

KINDS = ("predict", "challenge", "tune")
GOALS = ("class", "cannot-decide", "flips")  # what a challenge asks the review to do
CANNOT_DECIDE = "cannot decide"
MAX_ANSWER_LENGTH = 1000  # characters of a challenge's review: a few sentences, enough for any of them
REVEALED_SHOWN = 5  # successful reviews the projector shows on reveal (the lecturer may hide any; the next moves up)


@dataclass(frozen=True)
class Setting:
    """What a question is about, from the address of the slide it was asked from: the corpus, the model, its
    pseudo-count as the lesson's notation names it, and what a tuning's α is scored on. Every screen that shows the
    question says it (the same question at α = 0 and at α = 0.01 has different answers), and so does its JSON twin."""

    corpus: str  # the corpus's name
    model: str  # "bernoulli" or "multinomial"
    pseudo_count: str  # the notation's symbol of α ("α", "γ"…)
    alpha: str  # as the lesson writes it
    floor: bool  # probabilities clipped to [10⁻¹⁴, 1 − 10⁻¹⁴] (the lecture notebook's floor)
    scored_on: str  # "held-out", "training" or "test corpus"
    test_share: str = ""  # a split's held-out share, "25 %"
    seed: str = ""  # a split's seed
    test_corpus: str = ""  # the test corpus's name

    @property
    def model_name(self) -> str:
        return model_name(self.model)

    @property
    def measure(self) -> str:
        """What a tuning's α is scored by: "held-out accuracy" only where documents are held out."""
        if self.scored_on == "held-out":
            return "held-out accuracy"
        if self.scored_on == "training":
            return "training accuracy"
        return f"accuracy on {self.test_corpus}"

    @property
    def scored_where(self) -> str:
        """Which documents a tuning's α is scored on, in a few words."""
        if self.scored_on == "held-out":
            return f"{self.test_share} of each class held out, seed {self.seed}"
        if self.scored_on == "training":
            return "no documents held out"
        return f"tested on {self.test_corpus}"

    def to_dict(self) -> dict:
        return {"corpus": self.corpus, "model": self.model, "pseudo_count": self.pseudo_count, "alpha": self.alpha,
                "floor": self.floor, "scored_on": self.scored_on, "measure": self.measure,
                "test_share": self.test_share or None, "seed": self.seed or None,
                "test_corpus": self.test_corpus or None}


def setting_of(corpus_name: str, state, pseudo_count: str, test_corpus_name: str = "") -> Setting:
    """The Setting of a question asked at the lesson state ``state`` (webnb/lesson/state.py LessonState)."""
    scored_on = {"split": "held-out", "training": "training"}.get(state.test, "test corpus")
    return Setting(corpus=corpus_name, model=state.model, pseudo_count=pseudo_count, alpha=str(state.alpha),
                   floor=bool(state.floor), scored_on=scored_on,
                   test_share=f"{float(state.test_size) * 100:g} %" if scored_on == "held-out" else "",
                   seed=str(state.seed) if scored_on == "held-out" else "",
                   test_corpus=test_corpus_name if scored_on == "test corpus" else "")


def prompt(question, setting: Setting) -> str:
    """The question as the students' screens and the projector ask it."""
    alpha = setting.pseudo_count
    if question.kind == "predict":
        return "Which class will the model choose for this review?"
    if question.kind == "tune":
        return f"Find the {alpha} with the best {setting.measure}."
    if question.goal == "class":
        return f"Type a review that the model classifies as {question.target}."
    if question.goal == "cannot-decide":
        return f"Type a review that the model cannot decide at {alpha} = 0: every class gets probability 0."
    return f"Type a review whose decision changes when {alpha} goes from 0 to 1."


def predicted(verdict) -> str:
    """A verdict (webnb/engine/records/explanation.py) as a prediction's answer: its class, or "cannot decide"."""
    return CANNOT_DECIDE if verdict.cannot_decide else verdict.decision


def challenge_met(question, *, verdict, at_zero, at_one) -> bool:
    """Whether a review did what the challenge asked: ``verdict`` at the question's own settings, ``at_zero`` and
    ``at_one`` the decisions at α = 0 (without a floor) and α = 1 with the other settings the question's."""
    if question.goal == "class":
        return not verdict.cannot_decide and verdict.decision == question.target
    if question.goal == "cannot-decide":
        return at_zero.cannot_decide
    return not at_zero.cannot_decide and not at_one.cannot_decide and at_zero.decision != at_one.decision


@dataclass(frozen=True)
class Tally:
    """What the projector shows of a question, and its JSON twin: how many answered, the count of each answer (a
    challenge's: how many succeeded), and after the reveal the right answer and the reviews shown. A challenge's
    texts never leave the server before the reveal, and a hidden one never."""

    question: object  # storage.QuestionRecord
    options: tuple[str, ...]  # what the counts are of, in the order they are drawn
    counts: dict
    answers: tuple  # storage.AnswerRecord, first answered first
    review: str  # the review of the slide it was asked from
    setting: Setting  # what it is about

    @property
    def prompt(self) -> str:
        return prompt(self.question, self.setting)

    @property
    def n_answers(self) -> int:
        return len(self.answers)

    @property
    def revealed(self) -> bool:
        return self.question.revealed_at is not None

    @property
    def most(self) -> int:
        return max([self.counts.get(option, 0) for option in self.options] + [1])

    @property
    def shown(self) -> tuple:
        """The successful reviews on the projector after the reveal, first sent first, the hidden left out."""
        if not self.revealed or self.question.kind != "challenge":
            return ()
        return tuple(a for a in self.answers if a.success and not a.hidden)[:REVEALED_SHOWN]

    @property
    def points(self) -> tuple:
        """A tuning's scored answers: (α, held-out accuracy) of each student."""
        if self.question.kind != "tune":
            return ()
        return tuple((a.answer, a.score) for a in self.answers if a.score is not None)

    @property
    def pending(self) -> int:
        """A tuning's answers stored but not scored yet (their held-out set is being counted): counted among the
        answers, not drawn among the points."""
        return sum(a.pending for a in self.answers) if self.question.kind == "tune" else 0

    def to_dict(self) -> dict:
        question = self.question
        data = {"number": question.number, "kind": question.kind, "goal": question.goal, "target": question.target,
                "prompt": self.prompt, "about": self.setting.to_dict(), "review": self.review,
                "asked_at": question.asked_at.isoformat(),
                "revealed": self.revealed, "answers": self.n_answers,
                "counts": {option: self.counts.get(option, 0) for option in self.options}}
        if self.revealed and question.kind == "predict":
            data["model_answer"] = question.answer
        if question.kind == "challenge":
            data["shown"] = [a.answer for a in self.shown]
        if question.kind == "tune":
            data["points"] = [{"alpha": alpha, "accuracy": score} for alpha, score in self.points]
            data["pending"] = self.pending
        return data


def tally(question, answers, classes: tuple[str, ...], review: str, setting: Setting) -> Tally:
    if question.kind == "predict":
        options = (*classes, CANNOT_DECIDE)
    elif question.kind == "challenge":
        options = ("succeeded", "failed")
    else:
        options = ()
    counts: dict[str, int] = {}
    for answer in answers:
        key = answer.answer if question.kind == "predict" else "succeeded" if answer.success else "failed"
        counts[key] = counts.get(key, 0) + 1
    return Tally(question, options, counts, tuple(answers), review, setting)
