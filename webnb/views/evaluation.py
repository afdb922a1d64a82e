"""How good the model is on documents it did not learn from: accuracy, confusion, the α sweep."""
from __future__ import annotations

import math
from dataclasses import dataclass

from flask import Blueprint, current_app, url_for

from webnb.charts import sweep_chart
from webnb.engine import CorpusError, evaluate
from webnb.engine.evaluation.heldout import HeldOut
from webnb.engine.evaluation.scores import Evaluation
from webnb.engine.text.insights import AlphaSweep, alpha_sweep
from webnb.engine.text.models import NaiveBayes
from webnb.notation import NOTATIONS
from webnb.views.common import Lesson, catalog, load_held_out, load_lesson, page_number, respond
from webnb.work import heavy

bp = Blueprint("evaluation", __name__)

MISTAKES_PER_PAGE = 20
SNIPPET_LENGTH = 160


@dataclass
class Scored:
    held: HeldOut
    model: NaiveBayes
    result: Evaluation


def scored(lesson: Lesson) -> Scored | None:
    """The lesson's model trained on the held-out set's training documents and scored on its test documents,
    or None with ``lesson.error`` set."""
    held = load_held_out(lesson)
    if held is None:
        return None
    try:
        model = held.training.model(**lesson.state.model_options())
        return Scored(held, model, evaluate(model, held.test_matrix, held.test_labels))
    except (CorpusError, ValueError) as error:
        lesson.error = str(error)
        return None


def held_out_key(lesson: Lesson) -> tuple:
    """The documents a held-out set trains and tests on, as a cache key for what is computed from them: the
    corpus's records (its content hash; a built-in's id), the analysis and vocabulary options, and the test
    documents (the split with its size and seed, the training documents, or another corpus's records). Never an
    object's ``id()``, which a later object may reuse. The test corpus is asked for first, so one that this workspace
    may not see raises CorpusError before any cache is read; any request that gets past that may see the records
    the key names, so an entry made for one workspace can answer another's."""
    entry, state = lesson.entry, lesson.state
    test_entry = catalog().test_corpus(state.test)
    if test_entry is not None:
        tested = ("corpus", test_entry.content or test_entry.id)
    elif state.test == "split":
        tested = ("split", *state.split)
    else:
        tested = ("training",)
    return entry.content or entry.id, state.analysis_options(), state.vocabulary_options(), tested


# Sweeps kept in the app (app.extensions["webnb"]["sweeps"], made by create_app). A sweep does not depend on α, only
# on the held-out documents and the model's other settings: moving α on the page redraws the marker without
# sweeping again.
SWEEPS_KEPT = 8


def sweep_for(lesson: Lesson, held: HeldOut) -> AlphaSweep:
    """The α sweep of the lesson's model on ``held``, from the app's cache or computed now."""
    options = lesson.state.model_options()
    settings = {name: options[name] for name in ("kind", "binary", "fit_prior", "epsilon")}
    key = (held_out_key(lesson), *settings.items())

    def sweep() -> AlphaSweep:
        with heavy(len(held.training.corpus)):  # at most WEBNB_MAX_HEAVY_WORK at once (webnb/work.py)
            return alpha_sweep(held.training, held.test_matrix, held.test_labels, **settings)

    return current_app.extensions["webnb"]["sweeps"].get_or_build(key, sweep)


def test_choices(lesson: Lesson) -> list[tuple[str, str]]:
    """(value, title) of every test-document source the form offers: the split, the training documents, and
    every other corpus of texts (a table of numbers has no words to test on)."""
    others = [(e.id, e.name) for e in catalog().builtin() if e.id != lesson.entry.id and not e.is_table]
    others += [(s.id, s.name) for s in catalog().stored() if s.id != lesson.entry.id and s.features is None]
    return [("split", "a held-out part of this corpus"), ("training", "the training documents themselves"),
            *((value, f"another corpus: {name}") for value, name in others)]


def _snippet(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SNIPPET_LENGTH else flat[: SNIPPET_LENGTH - 1] + "…"


def wrong_documents(score: Scored) -> list[int]:
    """Test document numbers the model got wrong, including those it cannot decide."""
    return [i for i, (p, t) in enumerate(zip(score.result.predictions, score.held.test_labels, strict=True)) if p != t]


def mistakes(lesson: Lesson, score: Scored, wrong: list[int], page: int) -> list[dict]:
    """One page of the wrong documents, each with a link to the step-through of Bayes' rule for that document
    under the same model."""
    result, held = score.result, score.held
    shown = wrong[(page - 1) * MISTAKES_PER_PAGE : page * MISTAKES_PER_PAGE]
    inference = url_for("inference.show", corpus_id=lesson.entry.id)
    train = "split" if held.source == "split" else "all"
    rows = []
    for i in shown:
        position = int(held.positions[i])
        extra = {"document": position, "from": "test" if held.source == "corpus" else ""}
        rows.append(
            {
                "position": position,
                "id": held.test.ids[i],
                "true": held.test_labels[i],
                "predicted": result.predictions[i],
                "confidence": result.confidence[i],
                "snippet": _snippet(held.test.texts[i]),
                "link": lesson.link(inference, extra=extra, step="decision", text="", train=train),
            }
        )
    return rows


@bp.get("/corpora/<corpus_id>/evaluation")
def show(corpus_id):
    lesson = load_lesson(corpus_id)
    state = lesson.state
    context = {
        "lesson": lesson,
        "section": "evaluation",
        "notation": NOTATIONS[state.notation],
        "score": None,
        "test_choices": test_choices(lesson),
    }
    score = scored(lesson) if lesson.training is not None else None
    if score is None:
        return respond("evaluation/show.html", "evaluation", context, {"error": lesson.error})
    wrong = wrong_documents(score)
    n_wrong = len(wrong)
    pages = max(1, math.ceil(n_wrong / MISTAKES_PER_PAGE))
    page = page_number("wrong_page", pages)
    rows = mistakes(lesson, score, wrong, page)
    context.update(score=score, mistakes=rows, n_wrong=n_wrong, page=page, pages=pages)
    data = {
        "model": score.model.to_dict(),
        "test": score.held.to_dict(),
        **score.result.to_dict(),
        "decided_accuracy": score.result.decided_accuracy,
        "misclassified": {
            "count": n_wrong,
            "page": page,
            "pages": pages,
            "documents": [{k: row[k] for k in ("position", "id", "true", "predicted", "confidence")} for row in rows],
        },
    }
    return respond("evaluation/show.html", "evaluation", context, data)


@bp.get("/corpora/<corpus_id>/evaluation/sweep")
def sweep(corpus_id):
    """Accuracy and log loss for 20 values of α (0 and 10⁻³ … 10), the current α and the best one marked."""
    lesson = load_lesson(corpus_id)
    state = lesson.state
    context = {"lesson": lesson, "section": "evaluation", "notation": NOTATIONS[state.notation], "chart": None}
    score = scored(lesson) if lesson.training is not None else None
    if score is None:
        return respond("evaluation/sweep.html", "sweep", context, {"error": lesson.error})
    try:
        swept = sweep_for(lesson, score.held)
    except CorpusError as error:  # the test corpus was removed since the held-out set was made
        lesson.error = str(error)
        return respond("evaluation/sweep.html", "sweep", context, {"error": lesson.error})
    alpha = float(score.model.alpha)
    chart = sweep_chart(swept, alpha, score.result.accuracy, score.result.log_loss)
    context.update(sweep=swept, chart=chart, score=score)
    data = {**swept.to_dict(), "current": {"alpha": alpha, "accuracy": score.result.accuracy,
                                           "log_loss": score.result.to_dict()["log_loss"]}}
    return respond("evaluation/sweep.html", "sweep", context, data)
