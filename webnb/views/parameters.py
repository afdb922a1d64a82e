"""The learned parameters: the priors φ and the word probabilities ψ (Bernoulli) or θ (multinomial)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from flask import Blueprint, current_app, request

from webnb.engine.records.complement_table import complement_table
from webnb.engine.records.estimate import Estimate, estimate
from webnb.engine.records.parameter_table import WholeTable, parameter_pages, parameter_table
from webnb.engine.text.models import NaiveBayes
from webnb.lesson import slides
from webnb.lesson.notation import NOTATIONS
from webnb.lesson.slides import Kept
from webnb.lesson.state import Parameter, class_of_the_corpus, page_parameters
from webnb.views.common import load_lesson, note_kept, page_number, respond, word_filter, words_containing

bp = Blueprint("parameters", __name__)

# This page's own parameters: its order (kept as typed, links carry it on) and one cell (also the Beta prior's).
PARAMETERS = page_parameters(
    Parameter("sort", str, "", default="word", spaces="keep", unset=()),
    Parameter("word", str, "", default="", spaces="keep", unset=()),
    Parameter("class", class_of_the_corpus, "“{raw:.100}” is not a class of this corpus.", field="cell_class",
              spaces="keep", unset=(), needs=("classes",)),
)

PARAMETER_TABLES_KEPT = 8  # the whole tables of the few models last shown (each holds a few vocabulary-long arrays)


def _whole_table(lesson, model: NaiveBayes) -> WholeTable:
    """The model's ``WholeTable``, kept in the app's cache of them under what the model is made of (the corpus's
    content, the options, the training part and the model's settings), so that it goes when the cache's bound says."""
    state = lesson.state
    trained_on = ("split", *state.split) if state.train == "split" else ("all",)
    key = (lesson.entry.content or lesson.entry.id, state.analysis_options(), state.vocabulary_options(), trained_on,
           state.model_options().key)
    return current_app.extensions["webnb"]["parameter_tables"].get_or_build(key, lambda: WholeTable(model))


SLIDE_LEAST_WORDS = 3  # fewer of the review's words are joined by the vocabulary's first ones


def _slide_words(lesson, model) -> tuple[np.ndarray, int]:
    """The presenter's table's words: the review's, joined by the vocabulary's first when it has few; and how many
    of them are the review's. What the slide keeps is noted for its JSON twin."""
    shown = lesson.review_words(slides.how_many("parameters.slide.words", lesson.state.zoom))
    from_review = len(shown)
    shown += [j for j in range(min(len(model.vocabulary), SLIDE_LEAST_WORDS + len(shown)))
              if j not in shown][: max(0, SLIDE_LEAST_WORDS - len(shown))]
    note_kept(Kept("parameters.slide.words", tuple(shown), len(model.vocabulary),
                   slides.CUTS["parameters.slide.words"].why, tuple(model.vocabulary[j] for j in shown)))
    return np.array(shown, dtype=np.int64), from_review


@bp.get("/corpora/<corpus_id>/parameters")
def show(corpus_id):
    lesson = load_lesson(corpus_id)
    model, problem = lesson.model()
    lesson, table, slide_table, from_review = lesson.with_error(problem), None, None, 0
    if model is not None and model.kind == "complement":
        return _complement(lesson, model)
    if model is not None:
        query = word_filter()
        words = words_containing(model.vocabulary, query)
        page = page_number("page", parameter_pages(len(model.classes), len(words)))
        sort = PARAMETERS["sort"].read(request.args).value
        whole = _whole_table(lesson, model)
        table = parameter_table(whole, words, query=query, sort=sort, page=page)
        if lesson.deck() is not None:
            shown, from_review = _slide_words(lesson, model)
            slide_table = parameter_table(whole, shown)
    return respond("parameters/show.html", "parameters", table, lesson=lesson, section="parameters",
                   notation=NOTATIONS[lesson.state.notation], slide_table=slide_table,
                   slide_from_review=from_review)


def _complement(lesson, model):
    """Complement Naive Bayes' page: its weights, a page of words at a time (no priors, no probabilities)."""
    query = word_filter()
    words = words_containing(model.vocabulary, query)
    page = page_number("page", parameter_pages(len(model.classes), len(words)))
    table = complement_table(model, words, query=query, page=page)
    slide_table, from_review = None, 0
    if lesson.deck() is not None:
        shown, from_review = _slide_words(lesson, model)
        slide_table = complement_table(model, shown)
    return respond("parameters/complement.html", "parameters", table, lesson=lesson, section="parameters",
                   notation=NOTATIONS[lesson.state.notation], slide_table=slide_table, slide_from_review=from_review)


@dataclass(frozen=True)
class CellPage:
    """A word's ψ or θ opened, in one class or in all (``label`` None), or why it cannot be (``error``)."""

    word: str
    label: str | None
    model: NaiveBayes | None
    estimates: tuple[Estimate, ...] = ()
    error: str | None = None

    def to_dict(self) -> dict:
        if not self.estimates:
            return {"error": self.error}
        if self.label is not None:
            return self.estimates[0].to_dict()
        return {"word": self.word, "model": self.model.to_dict(), "classes": [e.to_dict() for e in self.estimates]}


def _opened(lesson, args) -> tuple[CellPage | None, int]:
    """The cell page of the word and class in ``args`` (every class when it names none), and its status; None when
    the lesson has no model (its error says why)."""
    if lesson.training is None:
        return None, 200
    word = PARAMETERS["word"].read(args).value
    model, problem = lesson.model()
    if model is None:
        return CellPage(word, None, None, error=problem), 200
    word_index = lesson.training.bag.index.get(word)
    label, unknown_class, _ = PARAMETERS["cell_class"].read(args, classes=model.classes)
    if not word:
        return CellPage(word, label, model, error="Which word? Name it with word=…, as the links of the table do."), 400
    if word_index is None:
        return CellPage(word, label, model, error=f"“{word[:100]}” is not a word of this vocabulary."), 404
    if unknown_class:
        return CellPage(word, label, model, error=unknown_class), 404
    classes = range(len(model.classes)) if label is None else [model.classes.index(label)]
    return CellPage(word, label, model, tuple(estimate(model, word_index, k) for k in classes)), 200


@bp.get("/corpora/<corpus_id>/parameters/cell")
def cell(corpus_id):
    """A word's ψ or θ opened: how each comes from two counts and α, in one class (``class``) or in every class.
    The table links each word here, and loads one class's into a cell when a student opens it, so that a page of
    hundreds of cells does not carry hundreds of formulas."""
    lesson = load_lesson(corpus_id)
    opened, status = _opened(lesson, request.args)
    return respond("parameters/cell.html", "cell", opened, status=status, lesson=lesson, section="parameters",
                   notation=NOTATIONS[lesson.state.notation])
