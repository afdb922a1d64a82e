"""Several models side by side on the same training and test documents: three Naive Bayes models and
logistic regression, with what each family models."""
from __future__ import annotations

from flask import Blueprint, current_app, request

from webnb.engine import CorpusError
from webnb.engine.evaluation.comparison import (
    FAMILY_CONTRASTS,
    Comparison,
    compare_models,
    parse_C,
    stopping_rule,
)
from webnb.engine.shared import budget
from webnb.engine.shared.plain import number
from webnb.views.common import LARGE_CORPUS, WorkInProgress, load_held_out, load_lesson, respond, start_job, wants_json
from webnb.views.evaluation import held_out_key
from webnb.work import heavy
from webnb.workspaces import hosted

bp = Blueprint("compare", __name__)

DEFAULT_C = 1.0
# Finished comparisons kept in the app (app.extensions["webnb"]["comparisons"], made by create_app). A 20 Newsgroups
# comparison takes most of a minute, so reloading the page or switching to the presenter view must not redo it.
COMPARISONS_KEPT = 16


def _read_C() -> tuple[str, float, str | None]:
    """(text for the form, C to use, message): a bad C falls back to the default and says why."""
    raw = request.args.get("C", "").strip()
    if not raw:
        return _c_text(DEFAULT_C), DEFAULT_C, None
    try:
        return raw[:20], parse_C(raw), None
    except ValueError as error:
        return raw[:20], DEFAULT_C, f"{error} Showing C = {_c_text(DEFAULT_C)}."


def _c_text(C: float) -> str:
    return f"{C:g}"


def duration(seconds: float) -> str:
    """A wall time a student can read: microseconds, milliseconds or seconds, three significant digits."""
    if seconds < 1e-3:
        return f"{seconds * 1e6:.3g} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds:.3g} s"


# Measured on 20 Newsgroups (2.6 million weights, 2 cores): one L-BFGS iteration takes about 0.47 s, nearly all
# of it in scipy's L-BFGS-B update, which grows with the number of weights.
SECONDS_PER_ITERATION_PER_WEIGHT = 0.47 / 2_600_000


def estimated_fit_seconds(held) -> float:
    """An upper estimate of the logistic regression's fit: its iteration cap times the cost of one iteration."""
    n_words, n_classes = len(held.training.vocabulary), len(held.training.classes)
    rule = stopping_rule(n_words, n_classes)
    weights = (n_words + 1) * (n_classes - 1 if n_classes == 2 else n_classes)
    return rule.max_iterations * weights * SECONDS_PER_ITERATION_PER_WEIGHT


def _refuse_long_work(held) -> None:
    """In hosted mode no request may keep a core busy for longer than WEBNB_MAX_WORK_SECONDS (default 10 s)."""
    if not hosted():
        return
    limit = current_app.config.get("WEBNB_MAX_WORK_SECONDS", 10)
    estimate = estimated_fit_seconds(held)
    if estimate > limit:
        raise CorpusError(
            f"Fitting logistic regression here ({len(held.training.corpus):,} documents, "
            f"{len(held.training.vocabulary):,} words, {len(held.training.classes)} classes) could take up to "
            f"{estimate:.0f} s; this server allows {limit:g} s of work per request. Nothing was started. "
            "Fewer words (min_df or max_features) make it quicker; the Naive Bayes models are on the evaluation page."
        )


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
    _refuse_long_work(held)
    training = held.training  # and the memory cap (WEBNB_MAX_WORK_MB, webnb/work.py), before anything starts
    budget.require_comparison(
        len(training.corpus), len(held.test), len(training.vocabulary), len(training.classes), training.matrix.nnz
    )
    if entry.n_documents > LARGE_CORPUS and not wants_json():
        return_to = request.full_path

        def work(job) -> str:
            comparisons.get_or_build(
                key, lambda: compare_models(held, state.alpha, C, fit_prior=fit_prior, progress=job.report))
            return return_to

        title = f"Fitting four models on {len(held.training.corpus):,} documents (logistic regression takes longest)"
        # Progress counts the three Naive Bayes fits, then the iterations of the logistic regression.
        raise WorkInProgress(start_job(title, work, key=("compare", key), unit="fitting steps"))

    def fit() -> Comparison:
        with heavy(len(held.training.corpus)):
            return compare_models(held, state.alpha, C, fit_prior=fit_prior)

    return comparisons.get_or_build(key, fit)  # two requests for the same settings fit once


@bp.get("/corpora/<corpus_id>/compare")
def show(corpus_id):
    lesson = load_lesson(corpus_id)
    c_text, C, c_error = _read_C()
    context = {
        "lesson": lesson,
        "section": "compare",
        "comparison": None,
        "held": None,
        "c_text": c_text,
        "c_used": _c_text(C),
        "c_error": c_error,
        "contrasts": FAMILY_CONTRASTS,
    }
    errors = dict(lesson.state.errors)
    if c_error:
        errors["C"] = c_error
    held = load_held_out(lesson)
    comparison = None
    if held is not None:
        try:
            comparison = _comparison(lesson, held, C)
        except (CorpusError, ValueError) as problem:
            lesson.error = str(problem)
    data = {"error": lesson.error, "errors": errors, "contrasts": [c.to_dict() for c in FAMILY_CONTRASTS]}
    if comparison is None:
        return respond("compare/show.html", "compare", context, data)

    rows = [
        {
            "score": score,
            "best": score.key in comparison.best,
            "fit": duration(score.fit_seconds),
            "predict": duration(score.predict_seconds),
        }
        for score in comparison.models
    ]
    context.update(comparison=comparison, held=held, rows=rows)
    data.update(comparison=comparison.to_dict(), held_out=held.to_dict(), C=number(C))
    return respond("compare/show.html", "compare", context, data)
