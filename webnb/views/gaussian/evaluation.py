"""4 · How often the model is right: on held-out rows or on the training rows, with the rows it got wrong."""
from __future__ import annotations

from dataclasses import dataclass

from flask import url_for

from webnb.engine.evaluation.scores import Score
from webnb.engine.gaussian.lesson import TableEvaluation, evaluate_table, page_count, score_table
from webnb.views.common import catalog, respond
from webnb.views.gaussian.lesson import ROWS_PER_PAGE, TableLesson, asked_page, load_table_lesson


@dataclass(frozen=True)
class EvaluationPage:
    """The evaluation page: the settings, and the evaluation or why there is none."""

    lesson: TableLesson
    evaluation: TableEvaluation | None
    error: str | None = None

    def to_dict(self) -> dict:
        shown = {"error": self.error} if self.evaluation is None else self.evaluation.to_dict()
        return {**self.lesson.to_dict(), **shown}


def held_rows(lesson: TableLesson):
    """The training and test rows the state asks for (the catalog's ``GaussianSplit``)."""
    test_size, seed = lesson.state.split
    return catalog().gaussian_split(lesson.entry, lesson.state.test, test_size, seed)


def scored(lesson: TableLesson) -> Score:
    """The model of the state's settings trained on the state's training rows, scored on its test rows."""
    return score_table(held_rows(lesson), lesson.state.smoothing, lesson.state.prior)


SLIDE_CLASSES = 6  # classes of the confusion matrix on the slide; the whole matrix is one key away


def slide_classes(result, most: int = SLIDE_CLASSES) -> tuple[int, ...]:
    """The classes whose rows and columns the slide's window of the confusion matrix shows, in class order: all of
    them up to ``most``, else the ``most`` with the most test rows mistaken for another class or another class's
    mistaken for them (ties to the larger class)."""
    classes = range(len(result.classes))
    if len(result.classes) <= most:
        return tuple(classes)
    confusion = result.confusion
    confused = [sum(confusion[k]) - confusion[k][k] + sum(row[k] for row in confusion) - confusion[k][k]
                + result.undecidable_by_class[k] for k in classes]
    support = [sum(confusion[k]) + result.undecidable_by_class[k] for k in classes]
    return tuple(sorted(sorted(classes, key=lambda k: (-confused[k], -support[k], k))[:most]))


def evaluation(corpus_id):
    lesson = load_table_lesson(corpus_id)
    context = {"lesson": lesson, "section": "evaluation"}
    try:
        evaluated = evaluate_table(held_rows(lesson), lesson.state.smoothing, lesson.state.prior)
    except ValueError as problem:
        return respond("gaussian/evaluation.html", "evaluation", EvaluationPage(lesson, None, str(problem)), **context)
    mistakes = evaluated.mistakes
    pages = page_count(len(mistakes), ROWS_PER_PAGE)
    page = asked_page(lesson, pages)
    # Each wrong row opens in Bayes' rule with the model that got it wrong.
    inference = url_for("gaussian.inference", corpus_id=lesson.entry.id)
    train = "split" if lesson.state.test == "split" else "all"
    shown = [(mistake, lesson.link(inference, train=train, values=tuple(map(repr, mistake.values)), step="logspace"))
             for mistake in mistakes[(page - 1) * ROWS_PER_PAGE: page * ROWS_PER_PAGE]]
    return respond("gaussian/evaluation.html", "evaluation", EvaluationPage(lesson, evaluated), mistakes=shown,
                   page=page, pages=pages, slide_classes=slide_classes(evaluated.score.result), **context)
