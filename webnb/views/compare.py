"""Several models side by side on the same training and test documents: four Naive Bayes models and
logistic regression, with what each family models and whether each pair's difference is more than chance."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from flask import Blueprint, current_app, request

from webnb.answers import wants_json
from webnb.engine import CorpusError
from webnb.engine.evaluation.comparison import (
    FAMILY_CONTRASTS,
    MODELS,
    SIGNIFICANCE,
    Comparison,
    StoppingRule,
    compare_models,
    estimated_fit_seconds,
    stopping_within,
)
from webnb.engine.evaluation.heldout import HeldOut
from webnb.engine.shared import budget
from webnb.engine.shared.plain import number
from webnb.hosting.work import heavy
from webnb.hosting.workspaces import hosted
from webnb.lesson.state import Parameter, inverse_penalty, page_parameters
from webnb.views.common import LARGE_CORPUS, WorkInProgress, load_held_out, load_lesson, respond, start_job
from webnb.views.evaluation import held_out_key

bp = Blueprint("compare", __name__)

DEFAULT_C = 1.0  # the logistic regression's inverse penalty
# This page's own parameter.
PARAMETERS = page_parameters(
    Parameter("C", inverse_penalty, f"{{error}} Showing C = {DEFAULT_C:g}.", default=DEFAULT_C),
)

# Finished comparisons kept in the app (app.extensions["webnb"]["comparisons"], made by create_app). A 20 Newsgroups
# comparison takes most of a minute, so reloading the page or switching to the presenter view must not redo it.
COMPARISONS_KEPT = 16


def _read_C() -> tuple[str, float, str | None]:
    """(text for the form, C to use, message): a bad C falls back to the default and says why."""
    reading = PARAMETERS["C"].read(request.args)
    return (reading.text[:20] if reading.text else _c_text(DEFAULT_C)), reading.value, reading.message


def _c_text(C: float) -> str:
    return f"{C:g}"


def _stopping(held) -> StoppingRule | None:
    """In hosted mode no request or job may keep a core busy for longer than WEBNB_MAX_WORK_SECONDS (default 10 s):
    the logistic regression's iteration cap is lowered to fit (a fit it stops says so), and a fit that would need
    it lowered too far is refused. None: the problem's own rule."""
    if not hosted():
        return None
    limit = current_app.config.get("WEBNB_MAX_WORK_SECONDS", 10)
    n_words, n_classes = len(held.training.vocabulary), len(held.training.classes)
    stopping = stopping_within(n_words, n_classes, limit)
    if stopping is None:
        estimate = estimated_fit_seconds(n_words, n_classes)
        raise CorpusError(
            f"Fitting logistic regression here ({len(held.training.corpus):,} documents, "
            f"{n_words:,} words, {n_classes} classes) could take up to "
            f"{estimate:.0f} s; this server allows {limit:g} s of work per request. Nothing was started. "
            "Fewer words (min_df or max_features) make it quicker; the Naive Bayes models are on the evaluation page."
        )
    return stopping


def _comparison(lesson, held, C: float) -> Comparison:
    """The comparison for these settings: from the app's cache, computed now, or (a large corpus, for a page)
    computed by a background job while the progress page shows."""
    state, entry = lesson.state, lesson.entry
    fit_prior = state.prior == "learned"
    # Asked first: a test corpus this workspace may not see raises before the cache is read.
    key = (held_out_key(lesson), state.alpha, fit_prior, C)
    comparisons = current_app.extensions["webnb"]["comparisons"]  # taken here: a background job has no app context
    comparison = comparisons.get(key)
    if comparison is not None:
        return comparison
    stopping = _stopping(held)
    training = held.training  # and the memory cap (WEBNB_MAX_WORK_MB, webnb/hosting/work.py), before anything starts
    # The stored counts are the (document, word) pairs, which the class statistics count already: loading the
    # document × word matrix to learn its size would be the first piece of the work the cap may refuse.
    stored = int(training.statistics.document_count_.sum())
    budget.require_comparison(
        len(training.corpus), len(held.test), len(training.vocabulary), len(training.classes), stored
    )
    if entry.n_documents > LARGE_CORPUS and not wants_json():
        return_to = request.full_path

        def work(job) -> str:
            comparisons.get_or_build(
                key, lambda: compare_models(held, state.alpha, C, fit_prior=fit_prior, stopping=stopping,
                                       progress=job.report))
            return return_to

        title = (f"Fitting {len(MODELS)} models on {len(held.training.corpus):,} documents "
                 "(logistic regression takes longest)")
        # Progress counts the Naive Bayes fits, then the iterations of the logistic regression.
        raise WorkInProgress(start_job(title, work, key=("compare", key), unit="fitting steps"))

    def fit() -> Comparison:
        with heavy(len(held.training.corpus)):
            return compare_models(held, state.alpha, C, fit_prior=fit_prior, stopping=stopping)

    return comparisons.get_or_build(key, fit)  # two requests for the same settings fit once


@dataclass(frozen=True)
class ComparePage:
    """The compare page: what it says about the parameters it could not use (``errors``, C's among them), and
    the comparison with its held-out documents (None, with ``error``, when they cannot be made)."""

    error: str | None
    errors: Mapping[str, str]
    C: float
    comparison: Comparison | None = None
    held: HeldOut | None = None

    def to_dict(self) -> dict:
        data = {
            "error": self.error,
            "errors": dict(self.errors),
            "contrasts": [contrast.to_dict() for contrast in FAMILY_CONTRASTS],
        }
        if self.comparison is not None:
            data.update(comparison=self.comparison.to_dict(), held_out=self.held.to_dict(), C=number(self.C))
        return data


@bp.get("/corpora/<corpus_id>/compare")
def show(corpus_id):
    lesson = load_lesson(corpus_id)
    c_text, C, c_error = _read_C()
    errors = dict(lesson.state.errors)
    if c_error:
        errors["C"] = c_error
    held, problem = load_held_out(lesson)
    lesson = lesson.with_error(problem)
    comparison = None
    if held is not None:
        try:
            comparison = _comparison(lesson, held, C)
        except ValueError as problem:
            lesson = lesson.with_error(str(problem))
    if comparison is None:
        held = None
    return respond(
        "compare/show.html",
        "compare",
        ComparePage(lesson.error, errors, C, comparison, held),
        lesson=lesson,
        section="compare",
        comparison=comparison,
        held=held,
        c_text=c_text,
        c_used=_c_text(C),
        c_error=c_error,
        contrasts=FAMILY_CONTRASTS,
        significance=SIGNIFICANCE,
    )
