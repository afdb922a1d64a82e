"""The words each class leans on: the most probable words, the ones that belong to one class only, the
ones whose probability differs most between two classes, and what word pairs (bigrams) add."""
from __future__ import annotations

import math
from dataclasses import replace

from flask import Blueprint, request

from webnb.engine import CorpusError, evaluate
from webnb.engine.shared.numbers import parse_whole
from webnb.engine.shared.plain import fraction_text, number, ratio_text
from webnb.engine.text.insights import DISCRIMINATIVE_MEASURES, discriminative_words, top_words, unique_top_words
from webnb.notation import NOTATIONS
from webnb.views.common import LARGE_CORPUS, catalog, find_job, is_htmx, load_lesson, respond, start_job, wants_json

bp = Blueprint("words", __name__)

K_RANGE = (5, 50)
DEFAULT_K = 10
TOP_RANGE = (1, 10_000)
SEED_TOP = 200  # the lecture notebook's candidate list: each class's 200 most probable words
THRESHOLD = 1e-4  # as in the lecture: only words with probability above this in one of the two classes
SHORT_RATIO = 16  # characters: a longer exact ratio is left out and only the decimal is shown
# The comparison of section 4: single words against words and pairs, every other analysis option kept.
FEATURE_SETS = (("words", (1, 1), "single words"), ("pairs", (1, 2), "words and word pairs"))


def default_top(n_words: int) -> int:
    """The seed's 200, or a quarter of a small vocabulary (at least 5): with 200 candidates out of a hundred
    words every word is in every class's list, and no word can be unique."""
    return SEED_TOP if n_words >= 4 * SEED_TOP else max(5, n_words // 4)


def _last(name: str) -> str:
    values = request.args.getlist(name)
    return values[-1].strip() if values else ""


def _whole_number(name: str, default: int, bounds: tuple[int, int], message: str, errors: dict) -> int:
    raw = _last(name)
    if not raw:
        return default
    try:
        return parse_whole(raw, low=bounds[0], high=bounds[1], what=name)
    except ValueError:
        errors[name] = message
        return default


def page_settings(classes: tuple[str, ...], n_words: int) -> tuple[dict, dict]:
    """The page's own parameters (k, top, measure, class pair) with defaults for bad values, and the messages."""
    errors: dict[str, str] = {}
    k = _whole_number(
        "k", DEFAULT_K, K_RANGE, f"k is a whole number of words from {K_RANGE[0]} to {K_RANGE[1]}.", errors
    )
    top = _whole_number(
        "top", default_top(n_words), TOP_RANGE,
        f"top is a whole number of words from {TOP_RANGE[0]} to {TOP_RANGE[1]:,}.", errors,
    )
    by = _last("by") or "ratio"
    if by not in DISCRIMINATIVE_MEASURES:
        errors["by"] = "Words are ranked by the ratio or by the difference of their probabilities."
        by = "ratio"
    positive, negative = _last("positive") or classes[0], _last("negative") or classes[1]
    for name, label in (("positive", positive), ("negative", negative)):
        if label not in classes:
            shown = label if len(label) <= 40 else label[:40] + "…"
            errors[name] = f"There is no class {shown!r} in this corpus."
    if "positive" in errors or "negative" in errors:
        positive, negative = classes[0], classes[1]
    elif positive == negative:
        errors["negative"] = "Compare two different classes."
        negative = next(label for label in classes if label != positive)
    return {"k": k, "top": top, "by": by, "positive": positive, "negative": negative}, errors


# -- 1 and 2: the most probable words, and the ones no other class has among its most probable -------------


def _short_ratio(model, k: int, j: int):
    """ψ_jk or θ_jk as the lecture's unreduced ratio, when it is short enough to read (None under a floor)."""
    if model.epsilon is not None:
        return None
    text = ratio_text(model.feature_ratio(k, j))
    return text if len(text) <= SHORT_RATIO else None


def word_columns(model, lists) -> list[dict]:
    """One column per class of ``lists`` (a ``WordLists``): its words with their probability and ratio."""
    columns = []
    for entry in lists.per_class:
        k = model.classes.index(entry.label)
        words = [
            {"word": w.word, "probability": w.probability, "ratio": _short_ratio(model, k, w.index)}
            for w in entry.words
        ]
        columns.append({"label": entry.label, "words": words, "available": entry.available})
    return columns


def columns_data(columns: list[dict]) -> list[dict]:
    return [
        {
            "class": c["label"],
            "available": c["available"],
            "words": [
                {"word": w["word"], "probability": number(w["probability"]), "ratio": w["ratio"]}
                for w in c["words"]
            ],
        }
        for c in columns
    ]


# -- 3. discriminative words ------------------------------------------------------------------------------


def _ratio(favoured: float, other: float) -> float:
    # The engine only lists words more probable in the favoured class, so favoured > 0: x/0 is +∞, never 0/0.
    return math.inf if other == 0 else favoured / other


def discriminative_rows(found, toward_positive: bool) -> list[dict]:
    """Both measures for each listed word, in the direction of its list: P(favoured)/P(other) and the difference."""
    rows = []
    for w in found.toward_positive if toward_positive else found.toward_negative:
        favoured, other = (
            (w.positive_probability, w.negative_probability) if toward_positive
            else (w.negative_probability, w.positive_probability)
        )
        rows.append(
            {
                "word": w.word,
                "index": w.index,
                "favoured": favoured,
                "other": other,
                # The ranked measure as the engine scored it; the other one worked out beside it.
                "ratio": w.score if found.by == "ratio" else _ratio(favoured, other),
                "difference": w.score if found.by == "difference" else favoured - other,
                "bigram": " " in w.word,
            }
        )
    return rows


def _ratio_parts(model, k: int, j: int):
    """[numerator, denominator] of ψ_jk or θ_jk as text (None under a floor, or when too long to read)."""
    if _short_ratio(model, k, j) is None:
        return None
    return [ratio_text((part,)) for part in model.feature_ratio(k, j)]


def worked_formula(model, found) -> dict | None:
    """The top word of the first list with its numbers filled into the chosen measure, exact where possible."""
    rows = found.toward_positive or found.toward_negative
    if not rows:
        return None
    top = rows[0]
    toward_positive = bool(found.toward_positive)
    favoured_label, other_label = (
        (found.positive, found.negative) if toward_positive else (found.negative, found.positive)
    )
    favoured_k, other_k = model.classes.index(favoured_label), model.classes.index(other_label)
    favoured = top.positive_probability if toward_positive else top.negative_probability
    other = top.negative_probability if toward_positive else top.positive_probability
    exact_favoured = model.exact_feature_prob(favoured_k, top.index)
    exact_other = model.exact_feature_prob(other_k, top.index)
    value = top.score  # as the engine ranked it: +inf for a ratio over an exact 0
    if found.by == "ratio":
        exact = exact_favoured / exact_other if exact_favoured is not None and exact_other else None
    else:
        exact = exact_favoured - exact_other if exact_favoured is not None else None
    exact_text = fraction_text(exact) if exact is not None else None
    return {
        "word": top.word,
        "by": found.by,
        "favoured_label": favoured_label,
        "other_label": other_label,
        "favoured": favoured,
        "other": other,
        "favoured_parts": _ratio_parts(model, favoured_k, top.index),
        "other_parts": _ratio_parts(model, other_k, top.index),
        "value": value,
        "exact": (
            exact_text if exact_text is not None and len(exact_text) <= SHORT_RATIO and exact.denominator != 1
            else None
        ),
    }


def discriminative_data(found, rows_positive, rows_negative, formula) -> dict:
    def plain(rows):
        return [
            {
                "word": r["word"],
                "favoured_probability": number(r["favoured"]),
                "other_probability": number(r["other"]),
                "ratio": number(r["ratio"]),
                "difference": number(r["difference"]),
            }
            for r in rows
        ]

    data = {
        "positive": found.positive,
        "negative": found.negative,
        "by": found.by,
        "threshold": found.threshold,
        "considered": found.considered,
        "toward_positive": plain(rows_positive),
        "toward_negative": plain(rows_negative),
        "formula": None,
    }
    if formula is not None:
        data["formula"] = {
            key: number(value) if isinstance(value, float) else value for key, value in formula.items()
        }
    return data


# -- 4. bigrams on and off ----------------------------------------------------------------------------------


def _feature_settings(lesson):
    state = lesson.state
    analysis, vocabulary = state.analysis_options(), state.vocabulary_options()
    test_size, seed = state.split
    analyses = {name: replace(analysis, ngram_range=ngrams) for name, ngrams, _ in FEATURE_SETS}
    return analyses, vocabulary, state.test, test_size, seed


def bigram_comparison(lesson, settings: dict) -> dict:
    """Single words against words and pairs on the state's held-out documents: vocabulary size, accuracy, and the
    word pairs among the most discriminative features. Counting a large corpus twice takes seconds, so for one it
    runs as a background job and this says so (``state`` "running"); the results then wait in the catalog's cache."""
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
        rows = []
        for name, ngrams, title in FEATURE_SETS:
            model = held[name].training.model(**state.model_options())
            scores = evaluate(model, held[name].test_matrix, held[name].test_labels)
            rows.append(
                {
                    "name": name,
                    "title": title,
                    "ngrams": f"{ngrams[0]}-{ngrams[1]}",
                    "current": state.ngrams == f"{ngrams[0]}-{ngrams[1]}",
                    "vocabulary_size": held[name].training.statistics.n_words,
                    "n_train": len(held[name].training.corpus),
                    "n_test": scores.n_test,
                    "correct": scores.correct,
                    "accuracy": scores.accuracy,
                    "undecidable": scores.undecidable,
                    "model": model,
                }
            )
        with_pairs = rows[1]["model"]
        found = discriminative_words(
            with_pairs, settings["positive"], settings["negative"],
            k=settings["k"], threshold=THRESHOLD, by=settings["by"],
        )
        pairs = {
            found.positive: [r for r in discriminative_rows(found, True) if r["bigram"]],
            found.negative: [r for r in discriminative_rows(found, False) if r["bigram"]],
        }
        return {"state": "done", "rows": rows, "pairs": pairs, "source": held["words"].source}
    except (CorpusError, ValueError) as problem:
        return {"state": "failed", "error": str(problem)}


def _background_comparison(lesson, analyses, vocabulary, test, test_size, seed) -> dict:
    entry = lesson.entry
    job = find_job(_last("bigram_job")) if _last("bigram_job") else None
    if job is not None and job.state == "failed":
        return {"state": "failed", "error": job.error}
    if job is None or job.state == "done":  # done, yet not in the cache: something else pushed it out; count again
        shared, return_to = catalog(), request.full_path

        def count_both(job) -> str:
            for analysis in analyses.values():
                shared.held_out(entry, analysis, vocabulary, test, test_size, seed, progress=job.report)
            return return_to

        title = f"Counting {entry.n_documents:,} documents with and without word pairs"
        key = ("words-bigrams", entry.id, tuple(analyses.values()), vocabulary, test, test_size, seed)
        job = start_job(title, count_both, key=key)
    return {"state": "running", "job": job}


def bigram_data(comparison: dict) -> dict:
    if comparison["state"] != "done":
        return {"state": comparison["state"], "error": comparison.get("error")}
    return {
        "state": "done",
        "test": comparison["source"],
        "feature_sets": [
            {
                "features": r["title"],
                "ngrams": r["ngrams"],
                "vocabulary_size": r["vocabulary_size"],
                "n_train": r["n_train"],
                "n_test": r["n_test"],
                "correct": r["correct"],
                "accuracy": r["accuracy"],
                "undecidable": r["undecidable"],
            }
            for r in comparison["rows"]
        ],
        "discriminative_pairs": {label: [r["word"] for r in rows] for label, rows in comparison["pairs"].items()},
    }


# -- the page -----------------------------------------------------------------------------------------------


@bp.get("/corpora/<corpus_id>/words")
def show(corpus_id):
    lesson = load_lesson(corpus_id)
    state = lesson.state
    notation = NOTATIONS[state.notation]
    context = {"lesson": lesson, "section": "words", "notation": notation, "model": None, "page_errors": {}}
    model = None
    if lesson.training is not None:
        try:
            model = lesson.training.model(**state.model_options())
        except (CorpusError, ValueError) as error:
            lesson.error = str(error)
    if model is not None and len(model.classes) < 2:
        lesson.error, model = "Telling words need at least two classes to compare.", None
    if model is None:
        return respond("words/show.html", "words", context, {"error": lesson.error})

    d = model.statistics.n_words
    settings, page_errors = page_settings(model.classes, d)
    page_params = {name: settings[name] for name in ("k", "top", "by", "positive", "negative")}
    comparison = bigram_comparison(lesson, settings)
    context.update(
        model=model, settings=settings, page_errors=page_errors, page_params=page_params, d=d, comparison=comparison
    )
    if is_htmx() and _last("part") == "bigrams":  # the "being computed" note polling for its results
        return respond("words/show.html", "bigrams", context)

    top = top_words(model, settings["k"])
    unique = unique_top_words(model, settings["top"], settings["k"])
    found = discriminative_words(
        model, settings["positive"], settings["negative"], k=settings["k"], threshold=THRESHOLD, by=settings["by"]
    )
    rows_positive, rows_negative = discriminative_rows(found, True), discriminative_rows(found, False)
    formula = worked_formula(model, found)
    context.update(
        top_columns=word_columns(model, top),
        unique_columns=word_columns(model, unique),
        all_candidates=settings["top"] >= d,
        found=found,
        rows_positive=rows_positive,
        rows_negative=rows_negative,
        formula=formula,
        default_top=default_top(d),
        seed_top=SEED_TOP,
        threshold=THRESHOLD,
        k_range=K_RANGE,
        top_range=TOP_RANGE,
    )
    data = {
        "model": model.to_dict(),
        "classes": list(model.classes),
        "vocabulary_size": d,
        "settings": settings,
        "errors": {**state.errors, **page_errors},
        "top_words": {"parameter": top.parameter, "k": top.k, "per_class": columns_data(context["top_columns"])},
        "unique_words": {
            "parameter": unique.parameter,
            "k": unique.k,
            "top": unique.top,
            "every_word_a_candidate": context["all_candidates"],
            "per_class": columns_data(context["unique_columns"]),
        },
        "discriminative": discriminative_data(found, rows_positive, rows_negative, formula),
        "bigrams": bigram_data(comparison),
    }
    return respond("words/show.html", "words", context, data)
