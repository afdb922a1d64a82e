"""The words each class leans on: the most probable words, the ones that belong to one class only, the
ones whose probability differs most between two classes, and what word pairs (bigrams) add."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from flask import Blueprint, current_app, request

from webnb.answers import is_htmx
from webnb.engine.records.telling_words import (
    FEATURE_SETS,
    SEED_TOP,
    THRESHOLD,
    PairComparison,
    TellingWords,
    compare_pairs,
    default_top,
    telling_words,
)
from webnb.lesson.notation import NOTATIONS
from webnb.lesson.state import (
    Parameter,
    class_of_the_corpus,
    measure,
    one_of,
    page_parameters,
    whole_number,
)
from webnb.views.common import LARGE_CORPUS, Unfinished, catalog, find_job, load_lesson, respond, start_job

bp = Blueprint("words", __name__)

K_RANGE = (5, 50)
DEFAULT_K = 10
TOP_RANGE = (1, 10_000)
# This page's own parameters (a form may send them twice; the last wins).
PARAMETERS = page_parameters(
    Parameter("k", whole_number(*K_RANGE), f"k is a whole number of words from {K_RANGE[0]} to {K_RANGE[1]}.",
              default=DEFAULT_K, repeated="last"),
    Parameter("top", whole_number(*TOP_RANGE),
              f"top is a whole number of words from {TOP_RANGE[0]} to {TOP_RANGE[1]:,}.", default=SEED_TOP,
              repeated="last"),
    Parameter("by", measure,
              "Words are ranked by the ratio or by the difference of their probabilities.", default="ratio",
              repeated="last"),
    *(Parameter(name, class_of_the_corpus, repeated="last", needs=("classes",)) for name in ("positive", "negative")),
    Parameter("bigram_job", str, "", repeated="last"),  # the background count of word pairs the page waits for
    Parameter("part", one_of(("bigrams",)), "", repeated="last"),  # the note polling for that count's results
)


def page_settings(classes: tuple[str, ...], n_words: int) -> tuple[dict, dict]:
    """The page's own parameters (k, top, measure, class pair) with defaults for bad values, and the messages."""
    args = request.args
    readings = {
        "k": PARAMETERS["k"].read(args),
        "top": PARAMETERS["top"].read(args, default=default_top(n_words)),
        "by": PARAMETERS["by"].read(args),
        "positive": PARAMETERS["positive"].read(args, default=classes[0], classes=classes),
        "negative": PARAMETERS["negative"].read(args, default=classes[1], classes=classes),
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



def _feature_settings(lesson):
    state = lesson.state
    analysis, vocabulary = state.analysis_options(), state.vocabulary_options()
    test_size, seed = state.split
    analyses = {name: replace(analysis, ngram_range=ngrams) for name, ngrams, _ in FEATURE_SETS}
    return analyses, vocabulary, state.test, test_size, seed


# A finished comparison is a few rows and a few words: kept in the catalog's cache beside the counts it was made
# from, so that the page asked again (or polled, or its JSON twin) shows it at once, even when the counts with
# word pairs are too large for the cache (20 Newsgroups: 970,000 words and pairs) and would have to be counted again.
COMPARISON_BYTES = 16_384


def _comparison_key(lesson, settings: dict, analyses, vocabulary, test, test_size, seed, test_entry) -> tuple:
    """What a comparison is made from, as the catalog keys held-out sets: the corpus, both feature sets, the test
    documents (the test corpus with its owner), the model's options and the page's own settings."""
    if test == "split":
        documents = (test, test_size, seed)
    elif test_entry is None:
        documents = (test,)
    else:
        documents = ("corpus", test_entry.id, test_entry.workspace)
    options = lesson.state.model_options().key
    page = tuple(settings[name] for name in ("positive", "negative", "k", "by"))
    return ("words-pairs", lesson.entry.id, tuple(analyses.values()), vocabulary, documents, options, page)


def _compare(lesson, settings: dict, held) -> PairComparison:
    return compare_pairs(
        held, lesson.state.model_options(), current=lesson.state.analysis_options().ngram_range,
        positive=settings["positive"], negative=settings["negative"], k=settings["k"], by=settings["by"],
    )


def bigram_comparison(lesson, settings: dict) -> PairComparison | Unfinished:
    """Single words against words and pairs on the state's held-out documents (see ``compare_pairs``). Counting a
    large corpus twice takes seconds (20 Newsgroups: about a minute), so unless both counts wait in the catalog's
    cache it runs as a background job and this says so (state "running"), for the page and its JSON twin alike: the
    rest of the page never waits for it. The finished comparison waits in the cache."""
    entry = lesson.entry
    try:
        analyses, vocabulary, test, test_size, seed = _feature_settings(lesson)
        shared = catalog()
        test_entry = shared.test_corpus(test)  # who may see the test corpus, before any cache
        key = _comparison_key(lesson, settings, analyses, vocabulary, test, test_size, seed, test_entry)
        found = shared.cache.get(key)
        if found is not None:
            return found
        held = {
            name: shared.cached_held_out(entry, a, vocabulary, test, test_size, seed) for name, a in analyses.items()
        }
        if any(h is None for h in held.values()):
            if entry.n_documents > LARGE_CORPUS:
                return _background_comparison(lesson, settings, key, analyses, vocabulary, test, test_size, seed)
            held = {name: shared.held_out(entry, a, vocabulary, test, test_size, seed) for name, a in analyses.items()}
        comparison = _compare(lesson, settings, held)
        shared.cache.put(key, comparison, COMPARISON_BYTES)
        return comparison
    except ValueError as problem:
        return Unfinished("failed", str(problem))


def _background_comparison(lesson, settings, key, analyses, vocabulary, test, test_size, seed) -> Unfinished:
    entry = lesson.entry
    job_id = PARAMETERS["bigram_job"].read(request.args).value
    job = find_job(job_id) if job_id else None
    if job is not None and job.state == "failed":
        return Unfinished("failed", job.error)
    # Done, yet not in the cache (something else pushed it out), or another job: count again. A job with the same
    # key still running is the one returned, so reloading or polling never starts the same work twice.
    if job is None or job.state == "done" or getattr(job, "key", None) != key:
        shared, return_to = catalog(), request.full_path

        def count_both(job) -> str:
            held = {
                name: shared.held_out(entry, analysis, vocabulary, test, test_size, seed, progress=job.report)
                for name, analysis in analyses.items()
            }
            shared.cache.put(key, _compare(lesson, settings, held), COMPARISON_BYTES)
            return return_to

        title = f"Counting {entry.n_documents:,} documents with and without word pairs"
        job = start_job(title, count_both, key=key)
    extra = {name: settings[name] for name in ("k", "top", "by", "positive", "negative")}
    poll = lesson.link(request.path, extra={**extra, "bigram_job": job.id, "format": "json"})
    return Unfinished("running", job=job, poll=poll)


@dataclass(frozen=True)
class WordsPage:
    """The telling-words page: the engine's lists, the word-pair comparison, and what the page says about the
    parameters it could not use (the lesson's and its own)."""

    telling: TellingWords
    comparison: PairComparison | Unfinished
    errors: Mapping[str, str]

    def to_dict(self) -> dict:
        return {**self.telling.to_dict(), "errors": dict(self.errors), "bigrams": self.comparison.to_dict()}


# -- the page -----------------------------------------------------------------------------------------------


def _model(lesson):
    """The lesson's model and the lesson, or None and the lesson with its problem said (a corpus of one class has
    no words to tell apart)."""
    model, problem = lesson.model()
    if model is None:
        return None, lesson.with_error(problem)
    if len(model.classes) < 2:
        return None, lesson.with_error("Telling words need at least two classes to compare.")
    return model, lesson


@bp.get("/corpora/<corpus_id>/words")
def show(corpus_id):
    model, lesson = _model(load_lesson(corpus_id))
    context = {"lesson": lesson, "section": "words", "notation": NOTATIONS[lesson.state.notation]}
    if model is None:
        return respond("words/show.html", "words", None, **context)
    n_words = model.statistics.n_words
    settings, page_errors = page_settings(model.classes, n_words)
    page_params = {name: settings[name] for name in ("k", "top", "by", "positive", "negative")}
    comparison = bigram_comparison(lesson, settings)
    context.update(settings=settings, page_errors=page_errors, page_params=page_params, comparison=comparison)
    # The "being computed" note polling for its results.
    if is_htmx() and PARAMETERS["part"].read(request.args).value == "bigrams":
        return respond("words/show.html", "bigrams", comparison, **context)
    telling = telling_words(
        model, settings["positive"], settings["negative"], k=settings["k"], top=settings["top"], by=settings["by"],
        told=current_app.extensions["webnb"]["told"],
    )
    page = WordsPage(telling, comparison, {**lesson.state.errors, **page_errors})
    return respond(
        "words/show.html", "words", page, default_top=default_top(n_words), seed_top=SEED_TOP, threshold=THRESHOLD,
        k_range=K_RANGE, top_range=TOP_RANGE, **context,
    )
