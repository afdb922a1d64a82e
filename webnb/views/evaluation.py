"""How good the model is on documents it did not learn from: accuracy, confusion, the α sweep."""
from __future__ import annotations

from dataclasses import dataclass

from flask import Blueprint, current_app, request, url_for

from webnb.answers import wants_json
from webnb.engine import CorpusError, evaluate
from webnb.engine.evaluation.heldout import HeldOut
from webnb.engine.evaluation.mistakes import Mistakes, misclassified, mistake_pages
from webnb.engine.evaluation.scores import Score
from webnb.engine.evaluation.sweep import MarkedSweep, versus_best
from webnb.engine.records.insights import DEFAULT_ALPHAS, AlphaSweep, alpha_sweep
from webnb.hosting.work import heavy
from webnb.lesson.charts import sweep_chart
from webnb.lesson.notation import NOTATIONS
from webnb.views.claims import NotesClaims, claims_for, lesson_claims
from webnb.views.common import (
    LARGE_CORPUS,
    TextLesson,
    WorkInProgress,
    catalog,
    held_out_key,
    load_held_out,
    load_lesson,
    page_number,
    respond,
    start_job,
)
from webnb.views.compare import PARAMETERS as COMPARE_PARAMETERS
from webnb.views.compare import comparison_for

bp = Blueprint("evaluation", __name__)


def scored(lesson: TextLesson) -> tuple[Score | None, TextLesson]:
    """The lesson's model trained on the held-out set's training documents and scored on its test documents, and
    the lesson (with the problem said, when it could not be scored: then the score is None)."""
    held, problem = load_held_out(lesson)
    if held is None:
        return None, lesson.with_error(problem)
    try:
        return score_on(held, lesson.state), lesson
    except ValueError as error:
        return None, lesson.with_error(str(error))


def score_on(held: HeldOut, state) -> Score:
    """The model that ``state`` asks for, trained on ``held``'s training documents and scored on its test documents
    (no request needed: a class's tuning answers are scored by a background job too). Raises ValueError when the
    settings make no model."""
    model = held.training.model_with(state.model_options())
    return Score(held, model, evaluate(model, held.test_matrix, held.test_labels))


# Sweeps kept in the app (app.extensions["webnb"]["sweeps"], made by create_app). A sweep does not depend on α, only
# on the held-out documents and the model's other settings: moving α on the page redraws the marker without
# sweeping again.
SWEEPS_KEPT = 8


def sweep_for(lesson: TextLesson, held: HeldOut, page: bool = False) -> AlphaSweep:
    """The α sweep of the lesson's model on ``held``, from the app's cache or computed now. For the sweep's own
    ``page`` on a large corpus (20 Newsgroups: about a second), computed by a background job while the progress
    page shows, one step per α."""
    options = lesson.state.model_options()
    settings = {name: options[name] for name in ("kind", "binary", "fit_prior", "epsilon")}
    key = (held_out_key(lesson), *settings.items())
    sweeps = current_app.extensions["webnb"]["sweeps"]  # taken here: a background job has no app context
    if page and lesson.entry.n_documents > LARGE_CORPUS and not wants_json() and sweeps.get(key) is None:
        return_to = request.full_path

        def work(job) -> str:
            sweeps.get_or_build(key, lambda: alpha_sweep(held.training, held.test_matrix, held.test_labels,
                                                          progress=job.report, **settings))
            return return_to

        title = f"Scoring {len(DEFAULT_ALPHAS)} values of α on {len(held.test):,} test documents"
        raise WorkInProgress(start_job(title, work, key=("sweep", key), unit="values of α"))

    def sweep() -> AlphaSweep:
        with heavy(len(held.training.corpus)):  # at most WEBNB_MAX_HEAVY_WORK at once (webnb/hosting/work.py)
            return alpha_sweep(held.training, held.test_matrix, held.test_labels, **settings)

    return sweeps.get_or_build(key, sweep)


def test_choices(lesson: TextLesson) -> list[tuple[str, str]]:
    """(value, title) of every test-document source the form offers: the split, the training documents, and
    every other corpus of texts (a table of numbers has no words to test on)."""
    others = [(e.id, e.name) for e in catalog().builtin() if e.id != lesson.entry.id and not e.is_table]
    others += [(s.id, s.name) for s in catalog().stored() if s.id != lesson.entry.id and s.features is None]
    return [("split", "a held-out part of this corpus"), ("training", "the training documents themselves"),
            *((value, f"another corpus: {name}") for value, name in others)]


@dataclass(frozen=True)
class EvaluationPage:
    """The evaluation page: the scores, the page of wrong documents it lists, and what the lesson's notes claim
    about other models, checked on the same test documents (None for a lesson whose notes claim nothing)."""

    score: Score
    mistakes: Mistakes
    claims: NotesClaims | None = None

    def to_dict(self) -> dict:
        data = {**self.score.to_dict(), "misclassified": self.mistakes.to_dict()}
        if self.claims is not None:
            data["claims"] = self.claims.to_dict()
        return data


def notes_claims(lesson: TextLesson, held: HeldOut) -> NotesClaims | None:
    """The lesson's claims on the evaluation's test documents, from the compare page's comparison at its default C
    (the same record the compare page shows); None when the notes claim nothing."""
    if not lesson_claims(lesson):
        return None
    try:
        return claims_for(lesson, held, comparison_for(lesson, held, COMPARE_PARAMETERS["C"].default))
    except ValueError:  # a model of the comparison cannot be made here: the compare page says why; this one scores
        return None


def mistake_links(lesson: TextLesson, score: Score, mistakes: Mistakes) -> list[str]:
    """For each wrong document shown, the step-through of Bayes' rule for it under the same model."""
    held = score.held
    inference = url_for("inference.show", corpus_id=lesson.entry.id)
    train = "split" if held.source == "split" else "all"
    origin = "test" if held.source == "corpus" else ""
    return [
        lesson.link(inference, extra={"document": m.position, "from": origin}, step="decision", text="", train=train)
        for m in mistakes.documents
    ]


# The confusion matrix of more classes than this is condensed on the presenter's slide to its largest off-diagonal
# cells (the full matrix one key away).
SLIDE_MATRIX_CLASSES = 4
SLIDE_CONFUSIONS = 5


@dataclass(frozen=True)
class Confusion:
    """One off-diagonal cell of the confusion matrix: ``count`` test documents of class ``true`` that the model
    called ``predicted``, of the ``support`` test documents of that class."""

    true: str
    predicted: str
    count: int
    support: int


def most_confused(score: Score, n: int = SLIDE_CONFUSIONS) -> list[Confusion]:
    """The ``n`` largest off-diagonal cells of the confusion matrix (none empty), largest first; ties in the
    matrix's order (row by row)."""
    result = score.result
    supports = {s.label: s.support for s in result.per_class}
    cells = [
        Confusion(result.classes[i], result.classes[j], count, supports.get(result.classes[i], 0))
        for i, row in enumerate(result.confusion) for j, count in enumerate(row) if i != j and count
    ]
    return sorted(cells, key=lambda cell: -cell.count)[:n]


@bp.get("/corpora/<corpus_id>/evaluation")
def show(corpus_id):
    lesson = load_lesson(corpus_id)
    score, lesson = scored(lesson) if lesson.training is not None else (None, lesson)
    context = {
        "lesson": lesson,
        "section": "evaluation",
        "notation": NOTATIONS[lesson.state.notation],
        "test_choices": test_choices(lesson),
    }
    if score is None:
        return respond("evaluation/show.html", "evaluation", None, score=None, **context)
    mistakes = misclassified(score, page_number("wrong_page", mistake_pages(score)))
    claims = notes_claims(lesson, score.held)
    return respond(
        "evaluation/show.html",
        "evaluation",
        EvaluationPage(score, mistakes, claims),
        score=score,
        mistakes=mistakes,
        claims=claims,
        links=mistake_links(lesson, score, mistakes),
        confused=most_confused(score),
        slide_matrix_classes=SLIDE_MATRIX_CLASSES,
        **context,
    )


@bp.get("/corpora/<corpus_id>/evaluation/sweep")
def sweep(corpus_id):
    """Accuracy and log loss for 20 values of α (0 and 10⁻³ … 10), the current α and the best one marked."""
    lesson = load_lesson(corpus_id)
    score, lesson = scored(lesson) if lesson.training is not None else (None, lesson)
    marked = None
    if score is not None:
        try:
            swept = sweep_for(lesson, score.held, page=True)
            marked = MarkedSweep(swept, score, versus_best(swept, score, lesson.state.model_options()))
        except CorpusError as error:  # the test corpus was removed since the held-out set was made
            lesson = lesson.with_error(str(error))
    context = {"lesson": lesson, "section": "evaluation", "notation": NOTATIONS[lesson.state.notation]}
    if marked is None:
        return respond("evaluation/sweep.html", "sweep", None, chart=None, **context)
    chart = sweep_chart(marked.sweep, marked.alpha, score.result.accuracy, score.result.log_loss)
    return respond("evaluation/sweep.html", "sweep", marked, sweep=marked.sweep, marked=marked, chart=chart,
                   score=score, **context)
