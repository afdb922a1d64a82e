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
    SPLITS_RANGE,
    Comparison,
    RepeatedSplits,
    StoppingRule,
    compare_models,
    compare_over_splits,
    estimated_fit_seconds,
    stopping_within,
)
from webnb.engine.evaluation.heldout import HeldOut
from webnb.engine.shared import budget
from webnb.engine.shared.plain import number
from webnb.hosting.work import heavy
from webnb.hosting.workspaces import hosted
from webnb.lesson.state import Parameter, inverse_penalty, page_parameters, whole_number
from webnb.views.claims import NotesClaims, claims_for
from webnb.views.common import (
    LARGE_CORPUS,
    WorkInProgress,
    catalog,
    held_out_key,
    load_held_out,
    load_lesson,
    respond,
    start_job,
)

bp = Blueprint("compare", __name__)

DEFAULT_C = 1.0  # the logistic regression's inverse penalty
# This page's own parameters.
PARAMETERS = page_parameters(
    Parameter("C", inverse_penalty, f"{{error}} Showing C = {DEFAULT_C:g}.", default=DEFAULT_C),
    Parameter("splits", whole_number(*SPLITS_RANGE),
              f"Repeated splits are a whole number from {SPLITS_RANGE[0]} to {SPLITS_RANGE[1]}, not “{{raw:.20}}”; "
              "this comparison is on one split."),
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


def _read_splits(lesson) -> tuple[str, int | None, str | None]:
    """(text for the form, how many splits to compare on or None for one, message)."""
    reading = PARAMETERS["splits"].read(request.args)
    text = (reading.text or "")[:20]
    if reading.value is not None and lesson.state.test != "split":
        tested = "the training documents" if lesson.state.test == "training" else "another corpus"
        return text, None, (f"Repeated splits need a share of the corpus held out; this comparison tests on {tested}, "
                            "which every split would give again.")
    return text, reading.value, reading.message


def _stopping(held, splits: int = 1) -> StoppingRule | None:
    """In hosted mode no request or job may keep a core busy for longer than WEBNB_MAX_WORK_SECONDS (default 10 s):
    the logistic regression's iteration cap is lowered to fit (a fit it stops says so; ``splits`` fits share the
    time), and a fit that would need it lowered too far is refused. None: the problem's own rule."""
    if not hosted():
        return None
    limit = current_app.config.get("WEBNB_MAX_WORK_SECONDS", 10) / splits
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


def comparison_for(lesson, held, C: float) -> Comparison:
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


def repeated_for(lesson, held, comparison: Comparison, C: float, n_splits: int) -> RepeatedSplits:
    """The comparison on ``n_splits`` splits, seeds from the lesson's on (the first is ``comparison``, not fitted
    again): from the app's cache, computed now, or (a large corpus, for a page) by a background job while the
    progress page shows."""
    state, entry = lesson.state, lesson.entry
    fit_prior = state.prior == "learned"
    key = (held_out_key(lesson), state.alpha, fit_prior, C, "splits", n_splits)
    comparisons = current_app.extensions["webnb"]["comparisons"]
    repeated = comparisons.get(key)
    if repeated is not None:
        return repeated
    stopping = _stopping(held, n_splits)
    shared, analysis, vocabulary = catalog(), state.analysis_options(), state.vocabulary_options()
    test_size, first_seed = state.split
    seeds = range(first_seed, first_seed + n_splits)

    def held_out_for(seed: int):
        split = held if seed == first_seed else shared.held_out(entry, analysis, vocabulary, "split", test_size, seed)
        training = split.training
        budget.require_comparison(len(training.corpus), len(split.test), len(training.vocabulary),
                                  len(training.classes), int(training.statistics.document_count_.sum()))
        return split

    def compute(progress=None) -> RepeatedSplits:
        return compare_over_splits(held_out_for, seeds, state.alpha, C, fit_prior=fit_prior, stopping=stopping,
                                   progress=progress, known={first_seed: comparison})

    if entry.n_documents > LARGE_CORPUS and not wants_json():
        return_to = request.full_path

        def work(job) -> str:
            comparisons.get_or_build(key, lambda: compute(job.report))
            return return_to

        title = f"Fitting {len(MODELS)} models on each of {n_splits} splits of {entry.n_documents:,} documents"
        raise WorkInProgress(start_job(title, work, key=("compare", key), unit="fitting steps"))

    def fit() -> RepeatedSplits:
        with heavy(entry.n_documents * n_splits):
            return compute()

    return comparisons.get_or_build(key, fit)


@dataclass(frozen=True)
class ComparePage:
    """The compare page: what it says about the parameters it could not use (``errors``, C's among them), and
    the comparison with its held-out documents (None, with ``error``, when they cannot be made)."""

    error: str | None
    errors: Mapping[str, str]
    C: float
    comparison: Comparison | None = None
    held: HeldOut | None = None
    repeated: RepeatedSplits | None = None  # the same models on several splits, when the page asks for them
    claims: NotesClaims | None = None  # what the lesson's notes claim about these models, checked here

    def to_dict(self) -> dict:
        data = {
            "error": self.error,
            "errors": dict(self.errors),
            "contrasts": [contrast.to_dict() for contrast in FAMILY_CONTRASTS],
        }
        if self.comparison is not None:
            data.update(comparison=self.comparison.to_dict(), held_out=self.held.to_dict(), C=number(self.C))
        if self.repeated is not None:
            data["splits"] = self.repeated.to_dict()
            for model in data["comparison"]["models"]:  # each model's interval beside its accuracy on this split
                model["interval"] = [number(v) for v in self.repeated.of(model["key"]).interval]
        if self.claims is not None:
            data["claims"] = self.claims.to_dict()
        return data


@bp.get("/corpora/<corpus_id>/compare")
def show(corpus_id):
    lesson = load_lesson(corpus_id)
    c_text, C, c_error = _read_C()
    splits_text, n_splits, splits_error = _read_splits(lesson)
    errors = dict(lesson.state.errors)
    if c_error:
        errors["C"] = c_error
    if splits_error:
        errors["splits"] = splits_error
    held, problem = load_held_out(lesson)
    lesson = lesson.with_error(problem)
    comparison = repeated = claims = None
    if held is not None:
        try:
            comparison = comparison_for(lesson, held, C)
            repeated = repeated_for(lesson, held, comparison, C, n_splits) if n_splits else None
            claims = claims_for(lesson, held, comparison, repeated)
        except ValueError as problem:
            lesson = lesson.with_error(str(problem))
    if comparison is None:
        held = repeated = claims = None
    return respond(
        "compare/show.html",
        "compare",
        ComparePage(lesson.error, errors, C, comparison, held, repeated, claims),
        lesson=lesson, section="compare", comparison=comparison, held=held,
        c_text=c_text, c_used=_c_text(C), c_error=c_error,  # the logistic regression's C
        repeated=repeated, splits_text=splits_text, splits_error=splits_error,  # the comparison on several splits
        claims=claims,
        contrasts=FAMILY_CONTRASTS, significance=SIGNIFICANCE,
    )
