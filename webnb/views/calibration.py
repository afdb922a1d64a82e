"""Calibration: how sure the lesson's Naive Bayes is on documents it did not learn from, against how often it is
right, beside logistic regression on the same documents: the reliability diagram (bins of confidence: mean
confidence, accuracy, count), the expected calibration error, the documents decided above 0.99 and how many of them
are right, and confidence by document length and by class.

The records and their sentences are webnb/lesson/calibration_records.py's. Naive Bayes comes from the kept counts at
once. Logistic regression is fitted on the held-out set's training
documents (as on the compare page); each test document's confidence and whether it was right are kept in the
catalog's cache, so that another number of bins, the slide or the JSON twin never fit it again. On a large corpus
the first fit runs as a background job behind a progress page."""
from __future__ import annotations

from flask import Blueprint, abort, current_app, request, url_for

from webnb.answers import wants_json
from webnb.engine.evaluation.comparison import (
    StoppingRule,
    estimated_fit_seconds,
    stopping_rule,
    stopping_within,
)
from webnb.engine.evaluation.heldout import HeldOut
from webnb.engine.shared import budget
from webnb.engine.shared.corpus import CorpusError
from webnb.hosting.work import heavy
from webnb.hosting.workspaces import hosted
from webnb.lesson.calibration_chart import length_chart, reliability_chart
from webnb.lesson.calibration_records import (
    LOGISTIC_NAME,
    CalibrationPage,
    Decisions,
    logistic_decisions,
    model_calibration,
    naive_bayes_decisions,
    naive_bayes_name,
)
from webnb.lesson.notation import NOTATIONS
from webnb.lesson.state import Parameter, page_parameters, whole_number
from webnb.views.common import (
    LARGE_CORPUS,
    WorkInProgress,
    catalog,
    corpus_or_404,
    held_out_key,
    load_held_out,
    load_lesson,
    respond,
    start_job,
)
from webnb.views.compare import PARAMETERS as COMPARE_PARAMETERS

bp = Blueprint("calibration", __name__)

BINS_RANGE = (2, 20)
DEFAULT_BINS = 10
# This page's own parameters.
PARAMETERS = page_parameters(
    COMPARE_PARAMETERS["C"],  # the logistic regression's inverse penalty, read as the compare page reads it
    Parameter("bins", whole_number(*BINS_RANGE),
              f"The number of bins is a whole number from {BINS_RANGE[0]} to {BINS_RANGE[1]}, not “{{raw:.20}}”; "
              f"{DEFAULT_BINS} bins are shown.", default=DEFAULT_BINS),
)
# Each test document's confidence and correctness under logistic regression, kept in the catalog's cache: about
# nine bytes a document, and the record around them.
KEPT_BYTES_PER_DOCUMENT, KEPT_BYTES = 9, 1024


def _page_settings() -> tuple[float, int, str, dict[str, str]]:
    """C and the number of bins (each its default when it cannot be used), the text C's field shows, and the
    messages about what could not be used, under each parameter's name."""
    C, bins = PARAMETERS["C"].read(request.args), PARAMETERS["bins"].read(request.args)
    errors = {name: reading.message for name, reading in (("C", C), ("bins", bins)) if reading.message}
    C_text = C.text[:20] if C.text and not C.message else f"{C.value:g}"
    return C.value, bins.value, C_text, errors


def _stopping(held: HeldOut) -> StoppingRule:
    """The logistic regression's stopping rule: its problem's own, or in hosted mode one that keeps the fit within
    WEBNB_MAX_WORK_SECONDS (a fit that would need too few iterations for that is refused), as on the compare page."""
    n_words, n_classes = len(held.training.vocabulary), len(held.training.classes)
    if not hosted():
        return stopping_rule(n_words, n_classes)
    limit = current_app.config.get("WEBNB_MAX_WORK_SECONDS", 10)
    stopping = stopping_within(n_words, n_classes, limit)
    if stopping is None:
        raise CorpusError(
            f"Fitting logistic regression here ({len(held.training.corpus):,} documents, {n_words:,} words, "
            f"{n_classes} classes) could take up to {estimated_fit_seconds(n_words, n_classes):.0f} s; this server "
            f"allows {limit:g} s of work per request, so only Naive Bayes is shown. Fewer words (min_df or "
            "max_features) make it quicker.")
    return stopping


def _logistic(lesson, held: HeldOut, C: float) -> Decisions:
    """Logistic regression's decisions on the test documents: from the catalog's cache, fitted now, or (a large
    corpus, for a page) fitted by a background job while the progress page shows. Raises ValueError when it cannot
    be fitted (the page shows Naive Bayes alone and says why)."""
    stopping = _stopping(held)
    key = ("calibration-logistic", held_out_key(lesson), C, stopping)  # the test corpus's access is checked first
    shared = catalog()
    found = shared.cache.get(key)
    if found is not None:
        return found
    training = held.training
    budget.require_comparison(len(training.corpus), len(held.test), len(training.vocabulary), len(training.classes),
                              int(training.statistics.document_count_.sum()))
    size = KEPT_BYTES + KEPT_BYTES_PER_DOCUMENT * len(held.test)
    if lesson.entry.n_documents > LARGE_CORPUS and not wants_json():
        return_to = request.full_path

        def work(job) -> str:
            shared.cache.put(key, logistic_decisions(held, C, stopping, progress=job.report), size)
            return return_to

        title = f"Fitting logistic regression on {len(training.corpus):,} documents to compare its confidence"
        raise WorkInProgress(start_job(title, work, key=key, unit="iterations"))
    with heavy(len(training.corpus)):
        decisions = logistic_decisions(held, C, stopping)
    shared.cache.put(key, decisions, size)
    return decisions


def _table_refused(entry) -> None:
    """A table of numbers has no words to classify by: say so, and where its own evaluation is."""
    if entry.is_table:
        evaluation = url_for("gaussian.evaluation", corpus_id=entry.id)
        abort(404, f"“{entry.name}” is a table of numbers: its lesson is Gaussian Naive Bayes, and this page "
                   f"compares the confidence of text classifiers. Its rows are scored at {evaluation}.")


@bp.get("/corpora/<corpus_id>/calibration")
def show(corpus_id):
    _table_refused(corpus_or_404(corpus_id))
    lesson = load_lesson(corpus_id)
    C, n_bins, C_text, page_errors = _page_settings()
    context = {"lesson": lesson, "section": "calibration", "notation": NOTATIONS[lesson.state.notation],
               "C_text": C_text, "n_bins": n_bins, "bins_range": BINS_RANGE, "page_errors": page_errors}
    held, problem = load_held_out(lesson)  # (None, None) without a training set: the lesson's error says why
    lesson = lesson.with_error(problem)
    context["lesson"] = lesson
    if held is None:
        return respond("calibration/show.html", "calibration", None, **context)
    try:
        nb_model = held.training.model_with(lesson.state.model_options())
        naive_bayes = model_calibration("naive-bayes", naive_bayes_name(lesson.state), "Naive Bayes",
                                        naive_bayes_decisions(nb_model, held), held, n_bins)
    except ValueError as error:
        return respond("calibration/show.html", "calibration", None, **{**context, "lesson": lesson.with_error(
            f"The held-out documents could not be scored: {error}")})
    logistic, logistic_problem = None, None
    try:
        logistic = model_calibration("logistic", LOGISTIC_NAME, LOGISTIC_NAME, _logistic(lesson, held, C), held,
                                     n_bins)
    except ValueError as error:
        logistic_problem = f"Logistic regression could not be fitted: {error}"
    page = CalibrationPage(held, naive_bayes, logistic, logistic_problem, C, n_bins,
                           {**lesson.state.errors, **page_errors}, bool(lesson.state.presenter))
    charted = [(m.name, m.result.bins) for m in page.models]
    return respond(
        "calibration/show.html", "calibration", page,
        reliability=reliability_chart(charted, n_bins),
        lengths=length_chart([(m.name, m.lengths) for m in page.models]),
        **context,
    )
