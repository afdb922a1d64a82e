"""Questions in a class: the lecturer asks one from a slide, the students answer on their own screens (each answer
checked by the engine at once), and the projector tallies the answers as they arrive.

A question is asked about the slide it was asked from: its lesson address (model, α, review) is stored with it,
and every check of an answer builds the lesson from that address. Asking moves the class to the question's page,
which shows the lecturer the tally and a student the question; revealing moves it again (``?revealed=1``), so that
the students' pages show the answer too.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode, urlsplit

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from jinja2_fragments.flask import render_block
from limits import parse as parse_limit
from limits.strategies import FixedWindowRateLimiter
from werkzeug.datastructures import MultiDict

from webnb.answers import refusal, wants_json
from webnb.engine.evaluation.sweep import MarkedSweep
from webnb.engine.export.tables import csv_text
from webnb.hosting.work import Busy
from webnb.lesson.charts import accuracy_only, sweep_chart
from webnb.lesson.notation import NOTATIONS
from webnb.lesson.state import entry_defaults, parse_alpha, parse_state, read_alpha_answer
from webnb.room import broker as room_broker
from webnb.room import lecture
from webnb.room.following import followed
from webnb.room.hall import (
    led_class,
    member_of,
    move_class,
    not_the_lecturer,
    now,
    question_setting,
    room_storage,
    setting_at,
    student_id,
)
from webnb.views.common import LARGE_CORPUS, catalog, load_lesson
from webnb.views.evaluation import score_on, sweep_for
from webnb.views.inference import lesson_explained

bp = Blueprint("questions", __name__)
logger = logging.getLogger(__name__)

# Attempts of one student at one class's questions: a challenge is tried again and again, but not by a script.
ANSWERS_PER_STUDENT = "30 per minute"
# The answers' counts live in the rate limiter's storage when it has one (Redis, shared by every process); a class
# on the lecturer's own laptop, where the rate limits are off, counts them in this process
# (``app.extensions["webnb"]["answer_counts"]``, made by webnb/room/__init__.py).


def question_path(code: str, number: int, revealed: bool = False) -> str:
    return f"/classes/{code}/questions/{number}" + ("?revealed=1" if revealed else "")


# --- the lesson a question is about -------------------------------------------------------------------------------


def _address_args(address: str) -> MultiDict:
    return MultiDict(parse_qsl(urlsplit(address).query, keep_blank_values=True))


def _lesson_at(record, address: str, **changes):
    """The lesson of the class's corpus at the lesson address ``address``, with ``changes`` to its parameters."""
    return lesson_at(record.corpus_id, address, **changes)


def lesson_at(corpus_id: str, address: str, **changes):
    """The lesson of the corpus ``corpus_id`` at the lesson address ``address``, with ``changes`` to its
    parameters."""
    args = _address_args(address)
    for name, value in changes.items():
        args.setlist(name, [value])
    return load_lesson(corpus_id, args)


def decision_address(address: str) -> str:
    """The slide's address at the step that decides (where the reveal of a prediction sends the class)."""
    args = _address_args(address)
    args.setlist("step", ["decision"])
    return f"{urlsplit(address).path}?{urlencode(list(args.items(multi=True)))}"


def review_meets(corpus_id: str, challenge, review: str) -> bool | None:
    """Whether ``review`` does what ``challenge`` asks (its ``goal`` and ``target``, at the lesson address
    ``address`` of the corpus ``corpus_id``): checked at the challenge's settings, at α = 0 without a floor and at
    α = 1. None when the model cannot be trained at those settings."""
    at_question, _ = lesson_explained(lesson_at(corpus_id, challenge.address, text=review))
    at_one, _ = lesson_explained(lesson_at(corpus_id, challenge.address, text=review, alpha="1", floor=""))
    if at_question is None or at_one is None:
        return None
    return lecture.challenge_met(challenge, verdict=at_question.verdict, at_zero=at_question.at_zero,
                                 at_one=at_one.verdict)


def _is_slide_of(record, address: str, page: str | None = None) -> bool:
    """Whether ``address`` is a lesson page of the class's corpus on this site (``page`` of it, when given)."""
    parts = urlsplit(address)
    if parts.scheme or parts.netloc or not address.startswith("/"):
        return False
    path = parts.path
    corpus = f"/corpora/{record.corpus_id}"
    return path == f"{corpus}/{page}" if page else path == corpus or path.startswith(corpus + "/")


# --- asking -------------------------------------------------------------------------------------------------------


@bp.post("/classes/<code>/questions")
def ask(code: str):
    record = led_class(code)
    if record is None:
        return not_the_lecturer("Only the class's lecturer asks its questions.")
    if not record.running(now()):
        return refusal("This class has ended", "The class has ended, so it takes no more questions.", 410)
    kind, challenge = request.form.get("kind", ""), request.form.get("challenge", "")
    # A challenge is one choice: "class:<label>", "cannot-decide" or "flips".
    goal, _, target = challenge.partition(":")
    address = request.form.get("address", "")
    if kind not in lecture.KINDS or not _is_slide_of(record, address, None if kind == "tune" else "inference"):
        return refusal("No such question", "A question is asked from a slide of Bayes' rule (to predict or to "
                       "challenge) or from any slide of the lesson (to tune α); nothing was asked.", 400)
    lesson = _lesson_at(record, address)
    if lesson.entry.is_table or lesson.training is None:
        return refusal("No question here", "Questions are asked about a lesson of texts with words counted; "
                       "nothing was asked.", 400)
    answer = None
    if kind == "predict":
        explained, _ = lesson_explained(lesson)
        if explained is None or not lesson.state.text.strip():
            return refusal("Type a review first", "A prediction is asked about the review on the slide: type one, "
                           "then ask. Nothing was asked.", 400)
        answer = lecture.predicted(explained.verdict)
    if kind == "challenge":
        classes = lesson.training.statistics.classes
        if goal not in lecture.GOALS or (goal == "class" and target not in classes):
            return refusal("No such challenge", "A challenge asks for a review of one of the corpus's classes, one "
                           "the model cannot decide, or one whose decision α changes. Nothing was asked.", 400)
    question = room_storage().ask_question(
        record.code, kind=kind, address=address, goal=goal if kind == "challenge" else None,
        target=target if kind == "challenge" and goal == "class" else None, answer=answer, now=now())
    move_class(record.code, question_path(record.code, question.number))
    return redirect(url_for("questions.show", code=record.code, number=question.number), 303)


# --- the question's page: the tally for the lecturer, the question for a student ---------------------------------


def _tally(record, question, *, counted: bool = True):
    """The question's tally and the lesson it was asked about. ``counted=False`` leaves the answers out: a student's
    page and the check of an answer need the options only, not the room's 300 answers."""
    lesson = _lesson_at(record, question.address, **(_TUNING_LESSON if question.kind == "tune" else {}))
    classes = lesson.training.statistics.classes if lesson.training is not None else ()
    answers = room_storage().answers(question) if counted else ()
    # The lesson read the slide's address already: its state says what the question is about.
    setting = setting_at(lesson.entry.name, lesson.state)
    return lecture.tally(question, answers, classes, lesson.state.text, setting), lesson


def _sweep(record, question, tally, held):
    """A tuning's sweep chart on its counted held-out set ``held``, with the students' scored answers on it; None
    when the settings cannot be scored."""
    lesson = _lesson_at(record, question.address, **_TUNING_LESSON)
    try:
        score = score_on(held, lesson.state)
    except ValueError:
        return None
    marked = MarkedSweep(sweep_for(lesson, held), score)
    marks = [(parse_alpha(alpha), accuracy) for alpha, accuracy in tally.points]
    return {"sweep": marked.sweep, "chart": accuracy_only(sweep_chart(marked.sweep, marks=marks)),
            "notation": NOTATIONS[lesson.state.notation]}


def _question(record, number: int):
    """The class's question ``number``; answered with a 404 page when it has none."""
    question = room_storage().question(record.code, number)
    if question is None:
        abort(refusal("No such question", "This class has no question with this number.", 404))
    return question


def _lecturers_question(code: str, number: int):
    """The class this browser leads and its question ``number``; answered with a refusal for anyone else."""
    record = led_class(code)
    if record is None:
        abort(not_the_lecturer())
    return record, _question(record, number)


@bp.get("/classes/<code>/questions/<int:number>")
@followed  # an open question is drawn once for the students who have not answered it
def show(code: str, number: int):
    lecturer = led_class(code)
    record = lecturer or member_of(code)
    if record is None:
        return refusal("Not your class", "This browser has not joined this class; join it with its code.", 404)
    question = _question(record, number)
    if lecturer is not None:
        return _lecturer_page(record, question)
    own = _own_answer(record, question)
    tally, lesson = _tally(record, question, counted=False)
    if wants_json():
        data = {"number": question.number, "kind": question.kind, "prompt": tally.prompt,
                "about": tally.setting.to_dict(), "review": tally.review,
                "options": list(tally.options) if question.kind == "predict" else [],
                "revealed": tally.revealed, "own_answer": _own_answer_twin(question, own)}
        if tally.revealed and question.kind == "predict":
            data["model_answer"] = question.answer
        return data
    return _student_page(record, question, tally, lesson, own)


def _own_answer_twin(question, own) -> dict | None:
    mine = None if own is None else {"answer": own.answer, "success": own.success, "accuracy": own.score}
    if own is not None and question.kind == "tune":
        mine["pending"] = own.pending  # stored, its score not known yet
    return mine


def _student_page(record, question, tally, lesson, own, *, refused: tuple[str, str] | None = None,
                  typed: str | None = None, status: int = 200):
    """The question on a student's screen; after a refused answer, with the message (``refused``: title, message)
    above the form, which keeps what was ``typed``."""
    return render_template("room/question.html", record=record, question=question, tally=tally, own=own,
                           lesson=lesson, lecturer=False, max_length=lecture.MAX_ANSWER_LENGTH,
                           running=record.running(now()), refused=refused, typed=typed,
                           measure=tally.setting.measure), status


@bp.get("/classes/<code>/questions/<int:number>/own-answer")
def own_answer(code: str, number: int):
    """A student's answer alone, which their page polls (htmx, once a second) while its score is being counted."""
    record = member_of(code)
    if record is None:
        return refusal("Not your class", "This browser has not joined this class; join it with its code.", 404)
    question = _question(record, number)
    if wants_json():
        return {"number": question.number, "own_answer": _own_answer_twin(question, _own_answer(record, question))}
    return render_block("room/question.html", "own_answer", record=record, question=question,
                        own=_own_answer(record, question),
                        measure=question_setting(record.corpus_id, question.address).measure)


def _own_answer(record, question):
    """This student's answer; a tuning's scored first if it waits and its held-out set is counted by now."""
    own = room_storage().own_answer(question.id, student_id())
    if question.kind == "tune" and own is not None and own.pending:
        _score_tuning(record, question)
        own = room_storage().own_answer(question.id, student_id())
    return own


def _lecturer_context(record, question) -> dict:
    held, counting = _score_tuning(record, question) if question.kind == "tune" else (None, False)
    tally, lesson = _tally(record, question)
    return dict(record=record, question=question, tally=tally, lesson=lesson,
                lecturer=True, sweep=_sweep(record, question, tally, held) if held is not None else None,
                counting=counting, running=record.running(now()), decision_address=decision_address(question.address))


def _lecturer_page(record, question):
    if wants_json():
        return _lecturer_twin(record, question)
    return render_template("room/question.html", **_lecturer_context(record, question))


def _lecturer_twin(record, question) -> dict:
    """The question page's JSON twin for its lecturer (and the tally's): the tally and the class's questions."""
    if question.kind == "tune":
        _score_tuning(record, question)  # answers that can be scored by now are, before the tally is made
    tally, _ = _tally(record, question)
    return {"class": record.code, "question": tally.to_dict(),
            "questions": [_summary(record, q) for q in room_storage().questions(record.code)]}


def _summary(record, question) -> dict:
    answers = room_storage().answers(question)
    setting = question_setting(record.corpus_id, question.address)
    return {"number": question.number, "kind": question.kind, "prompt": lecture.prompt(question, setting),
            "answers": len(answers), "revealed": question.revealed_at is not None}


@bp.get("/classes/<code>/questions/<int:number>/tally")
def tally(code: str, number: int):
    """The tally alone, which the projector's page polls (htmx, once a second)."""
    record, question = _lecturers_question(code, number)
    if wants_json():
        return _lecturer_twin(record, question)
    return render_block("room/question.html", "tally", **_lecturer_context(record, question))


# --- a tuning: stored when it arrives, scored when its held-out set is counted -----------------------------------
#
# Scoring an α needs the held-out set of the question's slide, which takes seconds to count on a large corpus and is
# kept by each process. So a tuning answer is stored at once without a score (pending), and the held-out set is
# counted by one background job that the whole class shares (one per process: a job runs where it was started).
# When it is counted, every pending answer of the question is scored at its own α, which is quick from the counts.
# Scoring writes only answers still pending at that α, so it may run twice (two processes, a job started again) to
# no harm, and a process that has the held-out set scores what any other stored. Every request that finds answers
# pending (the student's page waiting for its score, the projector's tally) scores them, or starts the job again
# when none runs: an answer outlives a failed job or a restarted server.

# A tuning is scored on the held-out set whatever the slide trains on: its lesson is opened trained on all the
# documents, so that showing the question never counts the split for each student.
_TUNING_LESSON = {"train": "all"}


@dataclass(frozen=True)
class _Tuning:
    """What a tuning question's answers are scored on, as the evaluation page scores them: the class's corpus and
    the slide's settings, with the catalog as the request saw it (the job uses it after the request has ended)."""

    question: object  # storage.QuestionRecord
    entry: object  # catalog.CorpusEntry
    args: MultiDict  # the lesson parameters of the slide the question was asked from
    shared: object  # catalog.ScopedCatalog
    storage: object  # storage.Storage
    graders: tuple = ()  # the app's graders of answers (``_grade``), taken in the request for the job

    def at(self, alpha: str | None = None):
        """The slide's settings (with α = ``alpha``): those of the evaluation page at that α."""
        args = self.args.copy()
        if alpha is not None:
            args.setlist("alpha", [alpha])
        return parse_state(args, entry_defaults(self.entry))

    def held_out(self, *, counted_only: bool = False, progress=None):
        """The held-out set; with ``counted_only``, None unless this process has it already. Raises ValueError when
        the slide's settings make none."""
        state = self.at()
        where = (self.entry, state.analysis_options(), state.vocabulary_options(), state.test, *state.split)
        if counted_only:
            return self.shared.cached_held_out(*where)
        return self.shared.held_out(*where, progress=progress)

    def score_pending(self, held) -> None:
        """Score every answer that waits, at its own α, on ``held`` (None: the settings make no held-out set, so no
        α can be scored)."""
        for alpha in self.storage.pending_tunings(self.question.id):
            try:
                accuracy = score_on(held, self.at(alpha)).result.accuracy if held is not None else None
            except ValueError:  # the model cannot be trained at this α: the student is told so
                accuracy = None
            self.storage.score_tunings(self.question.id, alpha, accuracy)
            if accuracy:  # the students waiting at this α are graded now (again for the others: no change)
                for student in self.storage.students_at(self.question.id, alpha):
                    _grade_with(self.graders, student, "tune", success=None, accuracy=accuracy)


def _score_tuning(record, question) -> tuple[object, bool]:
    """(the question's held-out set, False) after scoring every answer that waited for it; (None, True) while a
    background job counts it, started here unless one runs; (None, False) when the slide's settings make none.
    Never answers with a progress page nor a refusal: the answers wait, stored."""
    shared = catalog()
    entry = shared.get(record.corpus_id)
    if entry is None:  # the class's corpus was removed: nothing to score on
        return None, False
    tuning = _Tuning(question, entry, _address_args(question.address), shared, room_storage(),
                     tuple(current_app.extensions.get("webnb_answer_graders", ())))
    try:
        # A small corpus is counted here, as quickly as the evaluation page counts it; a large one in the background.
        held = tuning.held_out(counted_only=entry.n_documents > LARGE_CORPUS)
    except ValueError:
        tuning.score_pending(None)
        return None, False
    except Busy:  # another process is counting these documents: the next request looks again
        return None, True
    if held is None:
        _start_scoring(tuning)
        return None, True
    tuning.score_pending(held)
    return held, False


def _start_scoring(tuning: _Tuning) -> None:
    """Count the question's held-out set in the background, then score the answers that wait for it. One job for the
    whole class: keyed by the question, on behalf of the class (not of a student), so every student who answers
    meanwhile shares it. When the server has too many jobs waiting, the answers wait for the next request."""
    question = tuning.question
    broker = current_app.extensions["webnb"].get("broker")  # taken here: a background job has no app context

    def work(job) -> str:
        try:
            held = tuning.held_out(progress=job.report)
        except ValueError:
            tuning.score_pending(None)
            raise
        tuning.score_pending(held)
        if broker is not None:
            broker.publish(question.code, "tally", {"number": question.number})  # the projector draws the scores
        return question_path(question.code, question.number)

    try:
        current_app.extensions["webnb"]["jobs"].start(
            f"Counting the held-out documents of question {question.number}", work, key=("tuning", question.id),
            workspace=f"class {question.code}")
    except Busy:
        pass


# --- answering ----------------------------------------------------------------------------------------------------


class AnswerRefused(Exception):
    """An answer that cannot be taken: the question page says why (``title``, ``message``), the form keeps it."""

    def __init__(self, title: str, message: str, status: int = 400):
        super().__init__(message)
        self.title, self.message, self.status = title, message, status


def count_answer() -> None:
    """Count this student's answer; raises AnswerRefused (429) past ``ANSWERS_PER_STUDENT``."""
    limiter = current_app.extensions.get("webnb_limiter")
    enabled = limiter is not None and limiter.enabled
    storage = limiter.limiter.storage if enabled else current_app.extensions["webnb"]["answer_counts"]
    if not FixedWindowRateLimiter(storage).hit(parse_limit(ANSWERS_PER_STUDENT), "webnb-answer", student_id()):
        raise AnswerRefused("Too many answers", "You sent many answers in the last minute. Wait a moment, then "
                            "send your best one.", 429)


def _checked(record, question, given: str):
    """The answer as stored and whether it succeeded (a challenge); raises AnswerRefused with why it cannot be
    taken. A tuning's α is checked here and scored once it is stored (``_score_tuning``)."""
    if question.kind == "predict":
        tally, _ = _tally(record, question, counted=False)
        if given not in tally.options:
            raise AnswerRefused("Choose one of the answers", "Choose one of the classes, or that the model cannot "
                                "decide. Your answer was not stored.")
        return given, None, None
    return (*checked_answer(record.corpus_id, question, given), None)


def checked_answer(corpus_id: str, question, given: str) -> tuple[str, bool | None]:
    """A challenge's review or a tuning's α, as stored, and whether the challenge was met (None for a tuning, whose
    α is scored apart), for ``question`` (its ``kind``, ``goal``, ``target`` and lesson ``address``) about the
    corpus ``corpus_id``. Raises AnswerRefused with why the answer cannot be taken."""
    if len(given) > lecture.MAX_ANSWER_LENGTH:
        raise AnswerRefused("This answer is too long", f"An answer has at most {lecture.MAX_ANSWER_LENGTH:,} "
                            f"characters; this one has {len(given):,}. Shorten it and send it again.")
    if question.kind == "challenge":
        if not given.strip():
            raise AnswerRefused("Type a review", "Type a review, then send it. Nothing was stored.")
        success = review_meets(corpus_id, question, given)
        if success is None:
            raise AnswerRefused("This review cannot be checked", "The model cannot be trained with this lesson's "
                                "settings. Nothing was stored.")
        return given, success
    try:
        alpha = read_alpha_answer(given)
    except ValueError as problem:
        raise AnswerRefused("Not a value of α", f"{str(problem).rstrip('.')}. Your answer was not stored.") from None
    return str(alpha), None


@bp.post("/classes/<code>/questions/<int:number>/answers")
def answer(code: str, number: int):
    record = member_of(code)
    if record is None:
        return refusal("Not your class", "This browser has not joined this class; join it with its code.", 404)
    if not record.running(now()):
        return refusal("This class has ended", "The class has ended, so it takes no more answers.", 410)
    question = _question(record, number)
    given = request.form.get("answer", "")
    try:
        if question.revealed_at is not None:
            raise AnswerRefused("This question is closed", "The lecturer has shown the answers to this question, "
                                "so it takes no more. Your answer was not stored.", 409)
        count_answer()
        given, success, score = _checked(record, question, given)
    except AnswerRefused as refused:
        return _refused_answer(record, question, refused, given)
    room_storage().answer_question(question.id, student_id(), given, success=success, score=score, now=now())
    stored = {"answer": given, "success": success, "accuracy": score}
    if question.kind == "tune":
        # Stored first: scored now when its held-out set is counted, else when the class's job has counted it.
        _score_tuning(record, question)
        own = room_storage().own_answer(question.id, student_id())
        stored.update(success=own.success, accuracy=own.score, pending=own.pending)
    _grade(question.kind, stored)
    room_broker.publish(record.code, "tally", {"number": question.number})  # the projector redraws its tally
    if wants_json():
        return stored
    return redirect(url_for("questions.show", code=record.code, number=question.number), 303)


def _grade(kind: str, stored: dict) -> None:
    """The answer's grade goes to the student's course, when an LMS launched them into a graded activity: the
    graders are the LMS layer's (webnb/lti/grades.py), which keeps the grade and sends it in the background. A tuning
    scored later, in the background, is graded then (``_Tuning.score_pending``)."""
    if kind == "tune" and stored.get("pending"):
        return
    _grade_with(current_app.extensions.get("webnb_answer_graders", ()), student_id(), kind,
                success=stored["success"], accuracy=stored["accuracy"])


def _grade_with(graders, student: str, kind: str, *, success, accuracy) -> None:
    """Each grader's grade of one answer. A grade that cannot be kept never costs the student their answer."""
    for grader in graders:
        try:
            grader(student, kind, success=success, accuracy=accuracy)
        except Exception:
            logger.exception("The grade of an answer could not be kept for the course")


def _refused_answer(record, question, refused: AnswerRefused, typed: str):
    """A refused answer: on the question page with the message and the form as it was sent (JSON: the message)."""
    if wants_json():
        response = refusal(refused.title, refused.message, refused.status)
    else:
        tally, lesson = _tally(record, question, counted=False)
        response = make_response(_student_page(record, question, tally, lesson, _own_answer(record, question),
                                               refused=(refused.title, refused.message),
                                               typed=typed[:lecture.MAX_ANSWER_LENGTH], status=refused.status))
    if refused.status == 429:
        response.headers["Retry-After"] = "60"
    return response


# --- revealing, hiding, after class ---------------------------------------------------------------------------------


@bp.post("/classes/<code>/questions/<int:number>/reveal")
def reveal(code: str, number: int):
    record, question = _lecturers_question(code, number)
    room_storage().reveal_question(question.id, now=now())
    if record.running(now()):
        move_class(record.code, question_path(record.code, question.number, revealed=True))
    return redirect(url_for("questions.show", code=record.code, number=question.number), 303)


@bp.post("/classes/<code>/questions/<int:number>/hide")
def hide(code: str, number: int):
    """Take one review off the projector: the next successful one takes its place."""
    record, question = _lecturers_question(code, number)
    try:
        student = int(request.form.get("student", ""))
    except ValueError:
        student = 0
    if not room_storage().hide_answer(question, student):
        return refusal("No such answer", "This question has no answer to hide by that number.", 404)
    return redirect(url_for("questions.show", code=record.code, number=question.number), 303)


@bp.get("/classes/<code>/questions/<int:number>/answers.csv")
def answers_csv(code: str, number: int):
    """A question's answers, for after class: a number per student (their order of joining), never who they are."""
    record, question = _lecturers_question(code, number)
    rows = ([a.student, a.answer, None if a.success is None else str(a.success).lower(), a.score,
             a.answered_at.isoformat()] for a in room_storage().answers(question))
    # The engine's CSV, whose one rule neutralises what a spreadsheet would run as a formula.
    body = csv_text(["student", "answer", "success", "accuracy", "answered_at"], rows)
    response = Response(body, mimetype="text/csv")
    response.headers["Content-Disposition"] = (
        f'attachment; filename="class-{record.code}-question-{question.number}.csv"')
    return response
