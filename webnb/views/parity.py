"""Whether scikit-learn, given the same settings, computes the same numbers.

The parameters and evaluation pages load a small badge from here after they have appeared (htmx, on load),
so a page never waits for scikit-learn. Without JavaScript the badge is a link to the small page.
"""
from __future__ import annotations

from dataclasses import replace

from flask import Blueprint, current_app, request, url_for

from webnb.answers import is_htmx
from webnb.engine.evaluation.parity import ParityCheck, evaluation_parity, parameters_parity
from webnb.lesson.state import Parameter, one_of, page_parameters
from webnb.views.common import WorkInProgress, load_held_out, load_lesson, respond

bp = Blueprint("parity", __name__)

PARITY_CHECKS = ("parameters", "evaluation")
# The check against scikit-learn's own parameter, of the text pages and the tables' alike.
PARAMETERS = page_parameters(
    Parameter("of", one_of(PARITY_CHECKS),
              "A check is of the parameters or of the evaluation (of=parameters or of=evaluation).",
              default="parameters", spaces="keep", unset=()),
)

TEMPLATE = "parity/show.html"
FRAGMENT = "parity"
PAGES = {"parameters": "parameters.show", "evaluation": "evaluation.show"}  # ?of= → the page checked


@bp.get("/corpora/<corpus_id>/parity")
def show(corpus_id):
    of, choice_error, _ = PARAMETERS["of"].read(request.args)
    bad_choice = choice_error is not None
    try:
        lesson = load_lesson(corpus_id)
        # A bad choice reads as "parameters".
        held_out, problem = load_held_out(lesson) if of == "evaluation" else (None, None)
        lesson = lesson.with_error(problem)
    except WorkInProgress:
        if not is_htmx():
            raise  # the progress page, which comes back here when the counting is done
        # Inside another page, a progress page would replace it: the badge waits and asks again instead. (Only
        # htmx gets here: a JSON twin never waits for counting.)
        return respond(TEMPLATE, FRAGMENT, None, of=of, report=None, waiting=True, error=None,
                       retry=request.full_path, expanded=False)

    report, error = None, choice_error
    if not bad_choice and lesson.training is not None and (of == "parameters" or held_out is not None):
        options = lesson.state.model_options()
        try:
            if of == "parameters":
                report = parameters_parity(lesson.training, options)
            else:
                report = evaluation_parity(held_out, options)
        except ValueError as problem:
            error = str(problem)
    if report is None and error is None:
        # Said once, in the badge: the page's header would repeat it.
        error, lesson = lesson.error or "There is nothing to check.", replace(lesson, error=None)

    endpoint = PAGES[of]
    back = lesson.link(url_for(endpoint, corpus_id=corpus_id)) if endpoint in current_app.view_functions else None
    return parity_answer(TEMPLATE, FRAGMENT, lesson, ParityCheck(of, report, error), back, bad_choice=bad_choice)


def parity_answer(template: str, block: str, lesson, check: ParityCheck, back: str | None, *, bad_choice: bool):
    """The badge (htmx), the small page or the JSON twin of ``check``, texts and tables alike; 400 for an unknown
    ``of``."""
    return respond(
        template,
        block,
        check,
        status=400 if bad_choice else 200,
        lesson=lesson,
        section=check.of,
        of=check.of,
        report=check.report,
        waiting=False,
        error=check.error,
        back=back,
        retry=None,
        expanded=not is_htmx(),
    )
