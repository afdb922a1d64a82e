"""Bayes' rule for a typed review, step by step, then the zero-probability failure and its two fixes."""
from __future__ import annotations

from dataclasses import dataclass, replace

from flask import Blueprint, request

from webnb.engine.records.complement_steps import ComplementExplanation, explain_complement
from webnb.engine.records.explanation import PRODUCT_DEMONSTRATION, Explanation, explain_review
from webnb.lesson import pages
from webnb.lesson.notation import NOTATIONS
from webnb.lesson.state import (
    MAX_DOCUMENT_COUNT,
    MAX_TEXT_LENGTH,
    STEPS,
    Parameter,
    one_of,
    page_parameters,
    whole_number,
)
from webnb.views.common import TextLesson, catalog, load_lesson, respond

bp = Blueprint("inference", __name__)

# This page's own parameters: a document of the corpus (or of the test corpus) in the review box.
PARAMETERS = page_parameters(
    Parameter("document", whole_number(0, MAX_DOCUMENT_COUNT), "There is no such document."),
    Parameter("from", one_of(("test",)), "", spaces="keep"),
)

INFERENCE_PAGE = pages.page_of("text", "inference.show")


def _open_document(lesson) -> tuple[str | None, TextLesson]:
    """``?document=N`` (with ``from=test`` for the evaluation's test corpus) puts document N in the review box,
    so a misclassified document opens here by number instead of carrying its whole text in the link: the note that
    says which document it is, and the lesson with its text as the review (or with the problem said)."""
    asked = PARAMETERS["document"].read(request.args)
    if asked.value is None and asked.message is None:
        return None, lesson
    position = -1 if asked.message else asked.value  # no number: answered below like a number past the last document
    source = lesson.entry
    if PARAMETERS["from"].read(request.args).value == "test" and lesson.state.test not in ("split", "training"):
        source = catalog().get(lesson.state.test)
    if source is None or not 0 <= position < source.n_documents:
        return None, lesson.with_error("There is no such document.")
    text = source.corpus.texts[position]
    lesson = replace(lesson, state=replace(lesson.state, text=text[:MAX_TEXT_LENGTH]))
    label, doc_id = source.corpus.labels[position], source.corpus.ids[position]
    note = f"Document {doc_id} of {source.name}, labelled {label}"
    if len(text) > MAX_TEXT_LENGTH:
        note += f": its first {MAX_TEXT_LENGTH:,} of {len(text):,} characters"
    return note + ".", lesson


@dataclass(frozen=True)
class InferencePage:
    """The inference page: the step shown and the lesson (None when the lesson could not be built). Its plain data
    carries every part of the lesson, so reading it computes them all; the page reads only the step's parts."""

    step: str
    error: str | None
    explained: Explanation | ComplementExplanation | None

    def to_dict(self) -> dict:
        data = {"step": self.step, "error": self.error}
        if self.explained is not None:
            data.update(self.explained.to_dict())
        return data


def lesson_explained(lesson) -> tuple[Explanation | None, str | None]:
    """The lesson of the review typed, each part computed when first read (see ``Explanation``), and None; or None
    and why the settings cannot make one (None too for a lesson without a training set, whose error is said)."""
    if lesson.training is None:
        return None, None
    state = lesson.state
    repeats = int(state.repeats) if state.repeats else None
    try:
        if state.model == "complement":
            options = state.model_options()
            if options.epsilon is not None:
                lesson.training.model_with(options)  # refused, with the reason the page says
            explained = explain_complement(lesson.training, state.text, options.alpha, binary=options.binary,
                                           fit_prior=options.fit_prior)
        else:
            explained = explain_review(lesson.training, state.text, repeats=repeats, **state.model_options())
    except ValueError as error:
        return None, str(error)
    return explained, None


@bp.get("/corpora/<corpus_id>/inference")
def show(corpus_id):
    document_note, lesson = _open_document(load_lesson(corpus_id))
    explained, problem = lesson_explained(lesson)
    lesson = lesson.with_error(problem)
    state = lesson.state
    return respond(
        "inference/show.html",
        "inference",
        InferencePage(state.step, lesson.error, explained),
        lesson=lesson,
        document_note=document_note,
        section="inference",
        notation=NOTATIONS[state.notation],
        steps=[(step, INFERENCE_PAGE.title_of(step, state.model)) for step in STEPS],
        step_index=state.step_index,
        explained=explained,
        product_demonstration=PRODUCT_DEMONSTRATION,
        # Complement Naive Bayes' steps say what its weights do at each step of the lesson
        step_templates="inference/complement/" if state.model == "complement" else "inference/steps/",
    )
