"""Bayes' rule for a typed review, step by step, then the zero-probability failure and its two fixes."""
from __future__ import annotations

from flask import Blueprint

from webnb.engine import CorpusError
from webnb.engine.lesson import build_lesson, lesson_dict
from webnb.notation import NOTATIONS
from webnb.state import STEPS
from webnb.views.common import load_lesson, respond

bp = Blueprint("inference", __name__)

STEP_TITLES = {
    "tokens": "Words of the review",
    "vector": "Feature vector",
    "factors": "Every factor",
    "product": "The product",
    "decision": "The decision",
    "zeros": "When a factor is 0",
    "smoothing": "Fix 1: smoothing",
    "underflow": "Too many factors",
    "logspace": "Fix 2: log space",
    "contributions": "Which words decided",
}


@bp.get("/corpora/<corpus_id>/inference")
def show(corpus_id):
    lesson = load_lesson(corpus_id)
    state = lesson.state
    context = {
        "lesson": lesson,
        "section": "inference",
        "notation": NOTATIONS[state.notation],
        "steps": [(step, STEP_TITLES[step]) for step in STEPS],
        "step_index": state.step_index,
        "explained": None,
    }
    if lesson.training is not None:
        options = state.model_options()
        try:
            context["explained"] = build_lesson(
                lesson.training,
                state.text,
                kind=options["kind"],
                alpha=options["alpha"],
                binary=options["binary"],
                fit_prior=options["fit_prior"],
                epsilon=options["epsilon"],
                repeats=int(state.repeats) if state.repeats else None,
            )
        except (CorpusError, ValueError) as error:
            lesson.error = str(error)
    data = {"step": state.step, "error": lesson.error}
    if context["explained"] is not None:
        data.update(lesson_dict(context["explained"]))
    return respond("inference/show.html", "inference", context, data)
