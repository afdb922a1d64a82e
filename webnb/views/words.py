"""The words each class leans on: the most probable words, the ones that belong to one class only, the
ones whose probability differs most between two classes, and what word pairs (bigrams) add."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from flask import Blueprint, request

from webnb.engine.pages.telling_words import (
    FEATURE_SETS,
    SEED_TOP,
    THRESHOLD,
    PairComparison,
    TellingWords,
    compare_pairs,
    default_top,
    telling_words,
)
from webnb.notation import NOTATIONS
from webnb.state import K_RANGE, TOP_RANGE, read_parameter
from webnb.views.common import LARGE_CORPUS, catalog, find_job, is_htmx, load_lesson, respond, start_job, wants_json

bp = Blueprint("words", __name__)


def page_settings(classes: tuple[str, ...], n_words: int) -> tuple[dict, dict]:
    """The page's own parameters (k, top, measure, class pair) with defaults for bad values, and the messages."""
    args = request.args
    readings = {
        "k": read_parameter(args, "k"),
        "top": read_parameter(args, "top", default=default_top(n_words)),
        "by": read_parameter(args, "by"),
        "positive": read_parameter(args, "positive", default=classes[0], classes=classes),
        "negative": read_parameter(args, "negative", default=classes[1], classes=classes),
    }
    errors = {name: reading.message for name, reading in readings.items() if reading.message}
    settings = {name: reading.value for name, reading in readings.items()}
    if "positive" in errors or "negative" in errors:
        settings.update(positive=classes[0], negative=classes[1])
    elif settings["positive"] == settings["negative"]:
        errors["negative"] = "Compare two different classes."
        settings["negative"] = next(label for label in classes if label != settings["positive"])
    return settings, errors


# -- 4. word pairs on and off ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class UnfinishedComparison:
    """The word-pair comparison while it is being counted in the background ("running", with its job), or when
    it could not be made ("failed", with the reason)."""

    state: str
    error: str | None = None
    job: object = None

    def to_dict(self) -> dict:
        return {"state": self.state, "error": self.error}


def _feature_settings(lesson):
    state = lesson.state
    analysis, vocabulary = state.analysis_options(), state.vocabulary_options()
    test_size, seed = state.split
    analyses = {name: replace(analysis, ngram_range=ngrams) for name, ngrams, _ in FEATURE_SETS}
    return analyses, vocabulary, state.test, test_size, seed


def bigram_comparison(lesson, settings: dict) -> PairComparison | UnfinishedComparison:
    """Single words against words and pairs on the state's held-out documents (see ``compare_pairs``). Counting a
    large corpus twice takes seconds, so for one it runs as a background job and this says so (state "running");
    the results then wait in the catalog's cache."""
    entry, state = lesson.entry, lesson.state
    try:
        analyses, vocabulary, test, test_size, seed = _feature_settings(lesson)
        shared = catalog()
        held = {
            name: shared.cached_held_out(entry, a, vocabulary, test, test_size, seed) for name, a in analyses.items()
        }
        if any(h is None for h in held.values()):
            if entry.n_documents > LARGE_CORPUS and not wants_json():
                return _background_comparison(lesson, analyses, vocabulary, test, test_size, seed)
            held = {name: shared.held_out(entry, a, vocabulary, test, test_size, seed) for name, a in analyses.items()}
        return compare_pairs(
            held, state.model_options(), current=state.analysis_options().ngram_range,
            positive=settings["positive"], negative=settings["negative"], k=settings["k"], by=settings["by"],
        )
    except ValueError as problem:
        return UnfinishedComparison("failed", str(problem))


def _background_comparison(lesson, analyses, vocabulary, test, test_size, seed) -> UnfinishedComparison:
    entry = lesson.entry
    job_id = read_parameter(request.args, "bigram_job").value
    job = find_job(job_id) if job_id else None
    if job is not None and job.state == "failed":
        return UnfinishedComparison("failed", job.error)
    if job is None or job.state == "done":  # done, yet not in the cache: something else pushed it out; count again
        shared, return_to = catalog(), request.full_path

        def count_both(job) -> str:
            for analysis in analyses.values():
                shared.held_out(entry, analysis, vocabulary, test, test_size, seed, progress=job.report)
            return return_to

        title = f"Counting {entry.n_documents:,} documents with and without word pairs"
        key = ("words-bigrams", entry.id, tuple(analyses.values()), vocabulary, test, test_size, seed)
        job = start_job(title, count_both, key=key)
    return UnfinishedComparison("running", job=job)


@dataclass(frozen=True)
class WordsPage:
    """The telling-words page: the engine's lists, the word-pair comparison, and what the page says about the
    parameters it could not use (the lesson's and its own)."""

    telling: TellingWords
    comparison: PairComparison | UnfinishedComparison
    errors: Mapping[str, str]

    def to_dict(self) -> dict:
        return {**self.telling.to_dict(), "errors": dict(self.errors), "bigrams": self.comparison.to_dict()}


# -- the page -----------------------------------------------------------------------------------------------


def _model(lesson):
    """The lesson's model, or None with ``lesson.error`` set (a corpus of one class has no words to tell apart)."""
    model, problem = lesson.model()
    if model is None:
        lesson.error = problem or lesson.error
        return None
    if len(model.classes) < 2:
        lesson.error = "Telling words need at least two classes to compare."
        return None
    return model


@bp.get("/corpora/<corpus_id>/words")
def show(corpus_id):
    lesson = load_lesson(corpus_id)
    context = {"lesson": lesson, "section": "words", "notation": NOTATIONS[lesson.state.notation]}
    model = _model(lesson)
    if model is None:
        return respond("words/show.html", "words", None, **context)
    n_words = model.statistics.n_words
    settings, page_errors = page_settings(model.classes, n_words)
    page_params = {name: settings[name] for name in ("k", "top", "by", "positive", "negative")}
    comparison = bigram_comparison(lesson, settings)
    context.update(settings=settings, page_errors=page_errors, page_params=page_params, comparison=comparison)
    # The "being computed" note polling for its results.
    if is_htmx() and read_parameter(request.args, "part").value == "bigrams":
        return respond("words/show.html", "bigrams", comparison, **context)
    telling = telling_words(
        model, settings["positive"], settings["negative"], k=settings["k"], top=settings["top"], by=settings["by"]
    )
    page = WordsPage(telling, comparison, {**lesson.state.errors, **page_errors})
    return respond(
        "words/show.html", "words", page, default_top=default_top(n_words), seed_top=SEED_TOP, threshold=THRESHOLD,
        k_range=K_RANGE, top_range=TOP_RANGE, **context,
    )
