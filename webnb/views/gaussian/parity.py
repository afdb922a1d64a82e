"""Whether scikit-learn's GaussianNB, on the same rows and settings, computes the same numbers. The parameters and
evaluation pages load this as a badge once they have appeared; without JavaScript the badge is a link here."""
from __future__ import annotations

from flask import request, url_for

from webnb.engine.evaluation.parity import ParityCheck, gaussian_parity
from webnb.views.gaussian.evaluation import held_rows
from webnb.views.gaussian.lesson import load_table_lesson
from webnb.views.parity import PARAMETERS, parity_answer

PARITY_PAGES = {"parameters": "gaussian.parameters", "evaluation": "gaussian.evaluation"}  # ?of= → the page checked


def parity(corpus_id):
    lesson = load_table_lesson(corpus_id)
    of, error, _ = PARAMETERS["of"].read(request.args)
    bad_choice, report = error is not None, None
    if not bad_choice:
        try:
            if of == "parameters":
                training, test, statistics = lesson.table, lesson.table, lesson.statistics
            else:
                held = held_rows(lesson)
                training, test, statistics = held.training, held.test, held.statistics
            report = gaussian_parity(training, test, lesson.state.smoothing, lesson.state.prior, of,
                                     statistics=statistics)
        except ValueError as problem:
            error = str(problem)
    back = lesson.link(url_for(PARITY_PAGES[of], corpus_id=corpus_id))
    return parity_answer("gaussian/parity.html", "parity", lesson, ParityCheck(of, report, error, lesson.state.errors),
                         back, bad_choice=bad_choice)
