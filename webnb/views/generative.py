"""The model run forwards: sampled documents, and the overconfidence of repeated evidence."""
from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
from flask import Blueprint, request

from webnb.charts import power_of_ten, repeat_doubt_chart, repeat_posterior_chart
from webnb.engine import CorpusError
from webnb.engine.shared.numbers import parse_whole
from webnb.engine.shared.plain import fraction_text, number, ratio_text
from webnb.engine.text.insights import calibration, mean_document_length, overconfidence, sample_document
from webnb.formatting import probability
from webnb.notation import NOTATIONS
from webnb.views.common import load_held_out, load_lesson, respond

bp = Blueprint("generative", __name__)

MAX_SAMPLE_LENGTH = 1000
# The sample's own random seed, the page parameter "draw". It is not the lesson state's ``seed``: that one fixes the
# held-out split of the evaluation pages, which paging through samples must leave alone.
MAX_DRAW = 2**32 - 1
REAL_DOCUMENTS = 3  # training documents of the drawn class shown beside the sample
READ_BACK_ROWS = 5
SHOWN_WORDS = 60  # drawn words shown with their probability at once; the rest behind a disclosure
DEFAULT_REPEATS = 50
MAX_REPEATS = 500
PLOTTED_CLASSES = 6  # more lines than this cannot be told apart on a projector
TABLE_CLASSES = 3  # columns of the table, so that it fits the projector's width
SURE = 0.99  # a test document with a top posterior this high counts as "sure"


def _model(lesson):
    """The lesson's model, or None with ``lesson.error`` set."""
    if lesson.training is None:
        return None
    try:
        return lesson.training.model(**lesson.state.model_options())
    except (CorpusError, ValueError) as error:
        lesson.error = str(error)
        return None


def _model_keywords(state) -> dict:
    options = state.model_options()
    return {key: options[key] for key in ("kind", "alpha", "binary", "fit_prior", "epsilon")}


# -- 1. a sampled document -------------------------------------------------------------------------------------------


def _chosen_class(model, messages: list) -> str:
    raw = request.args.get("class", "")
    if raw == "" or raw in model.classes:
        return raw
    messages.append(f"“{raw[:100]}” is not a class of this corpus, so the class is drawn from the prior instead. "
                    f"The classes are: {', '.join(model.classes)}.")
    return ""


def _chosen_draw() -> tuple[int, str | None]:
    """The ``draw`` parameter, and a message when it cannot be used (then draw 0 is shown)."""
    raw = request.args.get("draw", "").strip()
    if raw == "":
        return 0, None
    try:
        return parse_whole(raw, low=0, high=MAX_DRAW, what="The draw"), None
    except ValueError:
        pass
    return 0, f"The draw is a whole number from 0 to {MAX_DRAW:,}, not “{raw[:20]}”; draw 0 is shown instead."


def _chosen_length(model, messages: list) -> int | None:
    raw = request.args.get("length", "").strip()
    if raw == "":
        return None
    if model.kind == "bernoulli":
        messages.append("A Bernoulli document has no length to choose: each vocabulary word is present or not, "
                        "on its own coin flip. The length you asked for is not used; switch to the multinomial model "
                        "to choose one.")
        return None
    try:
        return parse_whole(raw, low=1, high=MAX_SAMPLE_LENGTH, what="The length")
    except ValueError:
        pass
    messages.append(f"The length is a whole number of words from 1 to {MAX_SAMPLE_LENGTH:,}, not “{raw[:20]}”; "
                    "the mean length of the class is used instead.")
    return None


def _sample_vector(model, training, words, n_words: int) -> sp.csr_matrix:
    """The sample as a count vector, built from the drawn words themselves (re-reading its text could split an
    n-gram differently)."""
    columns = np.array([training.bag.index[w] for w in words], dtype=np.int64)
    counts = np.bincount(columns, minlength=n_words) if len(columns) else np.zeros(n_words)
    return sp.csr_matrix(counts.reshape(1, -1).astype(np.float64))


def _exact(model, k: int, j: int):
    return model.feature_ratio(k, j) if model.epsilon is None else None


def _posterior_text(posteriors: np.ndarray, c: int) -> str:
    """Near 1 a posterior is written as 1 − (the sum of the others), which keeps the digits that 0.9999… loses."""
    p = float(posteriors[c])
    if 0.9999 < p < 1.0:
        return f"1 − {probability(float(posteriors.sum() - p))}"
    return probability(p)


@bp.get("/corpora/<corpus_id>/sample")
def sample(corpus_id):
    lesson = load_lesson(corpus_id)
    state = lesson.state
    notation = NOTATIONS[state.notation]
    path_args = {"corpus_id": corpus_id}
    context = {"lesson": lesson, "section": "sample", "notation": notation, "story": None, "messages": [],
               "path_args": path_args, "draw_error": None}
    model = _model(lesson)
    if model is None:
        return respond("generative/sample.html", "sample", context, {"error": lesson.error})

    messages = context["messages"]
    training = lesson.training
    draw, draw_error = _chosen_draw()
    context["draw_error"] = draw_error  # shown beside the draw input, not with the other messages
    chosen = _chosen_class(model, messages)
    length = _chosen_length(model, messages)
    try:
        document = sample_document(model, seed=draw, label=chosen or None, length=length)
    except ValueError as error:  # the checks above should leave nothing for the engine to refuse
        messages.append(str(error))
        document = sample_document(model, seed=draw, label=chosen or None)
    k = model.classes.index(document.label)
    vocabulary_size = len(model.vocabulary)

    priors = [
        {"label": label, "value": float(model.class_prior_[c]), "ratio": model.prior_ratio(c),
         "exact": model.class_prior_exact[c], "drawn": c == k}
        for c, label in enumerate(model.classes)
    ]
    index = training.bag.index
    words = [
        {"word": w, "probability": float(model.feature_prob_[k, index[w]]), "ratio": _exact(model, k, index[w])}
        for w in document.words
    ]
    # Words the class never used in training can still be drawn: smoothing gave each a little probability.
    counts = model.statistics.document_count_ if model.uses_presence else model.statistics.word_count_
    unseen = sum(1 for w in document.words if counts[k, index[w]] == 0)
    log_probability = float(sum(math.log(w["probability"]) for w in words)) if words else 0.0
    if model.kind == "bernoulli":
        # Absent words are part of the Bernoulli story too: each was left out with probability 1 − ψ.
        present = np.zeros(vocabulary_size, dtype=bool)
        present[[index[w] for w in document.words]] = True
        with np.errstate(divide="ignore"):
            log_probability += float(np.log1p(-model.feature_prob_[k, ~present]).sum())
    vector = _sample_vector(model, training, document.words, vocabulary_size)
    log_posterior, decidable = model.log_posterior(vector)
    posteriors = np.exp(log_posterior[0])
    read_back = [
        {"label": label, "posterior": float(posteriors[c]), "text": _posterior_text(posteriors, c)}
        for c, label in enumerate(model.classes)
    ]
    read_as = model.classes[int(log_posterior[0].argmax())] if decidable[0] else None
    # With many classes, the five most probable and the sample's own class tell the story.
    shown = sorted(range(len(read_back)), key=lambda c: -log_posterior[0, c])[:READ_BACK_ROWS]
    read_back_rows = [read_back[c] for c in sorted(set(shown) | {k})]

    members = np.flatnonzero(training.class_index == k)
    picked = np.random.default_rng(draw).choice(members, size=min(REAL_DOCUMENTS, len(members)), replace=False)
    corpus = training.corpus
    real = [
        {"id": corpus.ids[i], "text": corpus.texts[i], "words": int(training.matrix[i].sum())}
        for i in picked.tolist()
    ]
    mean_length = mean_document_length(model, k) if model.kind == "multinomial" else None
    all_words = None
    if model.kind == "bernoulli" and vocabulary_size <= 40:
        chosen_words = set(document.words)
        all_words = [
            {
                "word": w, "probability": float(model.feature_prob_[k, j]), "ratio": _exact(model, k, j),
                "present": w in chosen_words,
            }
            for j, w in enumerate(model.vocabulary)
        ]
    story = {
        "draw": draw,
        "label": document.label,
        "chosen": chosen,
        "length": length,
        "mean_length": mean_length,
        "words": words[:SHOWN_WORDS],
        "more_words": words[SHOWN_WORDS:],
        "n_words": len(words),
        "unseen": unseen,
        "text": document.text,
        "vocabulary_size": vocabulary_size,
        "expected_present": float(model.feature_prob_[k].sum()) if model.kind == "bernoulli" else None,
        "log_probability": log_probability,
        "read_back": read_back_rows,
        "read_back_hidden": len(read_back) - len(read_back_rows),
        "read_as": read_as,
        "real": real,
        "all_words": all_words,
    }
    context.update(model=model, priors=priors, story=story, chosen=chosen, length=length)
    # "draw" is the random seed of this sample (the engine's SampledDocument.seed); the lesson's split seed is not used.
    data = {
        "model": model.to_dict(),
        "draw": draw,
        "class_drawn": not chosen,
        "class": document.label,
        "priors": [
            {"class": p["label"], "value": p["value"], "exact": fraction_text(p["exact"]), "drawn": p["drawn"]}
            for p in priors
        ],
        "parameter": notation.word(model.kind),
        "length": len(document.words) if model.kind == "multinomial" else None,
        "mean_length": mean_length,
        "unseen_in_class": unseen,
        "words": [
            {"word": w["word"], "probability": number(w["probability"]), "ratio": ratio_text(w["ratio"])}
            for w in words
        ],
        "text": document.text,
        "log_probability": number(log_probability),
        "read_back": [{"class": r["label"], "posterior": number(r["posterior"])} for r in read_back],
        "read_as": read_as,
        "real_documents": [{"id": r["id"], "text": r["text"]} for r in real],
        "messages": messages + ([draw_error] if draw_error else []),
    }
    return respond("generative/sample.html", "sample", context, data)


# -- 2. overconfidence -----------------------------------------------------------------------------------------------


def _repeats(state, messages: list) -> int:
    """N, the most repeats plotted: the lesson's ``repeats`` when it is set, at most ``MAX_REPEATS``."""
    if not state.repeats:
        return DEFAULT_REPEATS
    repeats = int(state.repeats)  # parse_state keeps only whole numbers from 1 up
    if repeats > MAX_REPEATS:
        messages.append(f"The plot goes up to {MAX_REPEATS} repeats, not {repeats:,}: showing {MAX_REPEATS}.")
        return MAX_REPEATS
    return repeats


def _top_text(point, doubt) -> str:
    """The top posterior as text; close to 1 it is written as 1 − the doubt, which keeps its digits."""
    if point.decision is None:
        return "—"
    top = max(point.posteriors)
    if top == 1.0:
        return "1.0 in float64" if doubt != -math.inf else "exactly 1"
    return f"1 − {power_of_ten(doubt)}" if top > 0.9999 else probability(top)


def _table_rows(curve, doubts, plotted: list[int], n_max: int) -> list[dict]:
    shown = sorted({n for n in (1, 2, 3, 5, 10, 20, 50, 100, 200, 500, n_max, curve.saturates_at or 1) if n <= n_max})
    rows = []
    for n in shown:
        point, doubt = curve.points[n - 1], doubts[n - 1]
        top = int(np.argmax(point.log_posteriors)) if point.decision is not None else None
        cells = []
        for k in plotted:
            p = point.posteriors[k]
            if k == top:
                text = _top_text(point, doubt)
            elif p == 0.0 and point.log_posteriors[k] > -math.inf:
                text = "0.0 in float64"  # too small for a float64, yet not impossible
            else:
                text = probability(p)
            cells.append({"text": text, "top": k == top})
        rows.append({"repeats": n, "cells": cells, "doubt": power_of_ten(doubt), "decision": point.decision})
    return rows


def _held_out_calibration(lesson, messages: list):
    """The same settings trained on the training part and scored on the held-out documents."""
    held = load_held_out(lesson)
    if held is None:
        messages.append(lesson.error or "There are no held-out documents to compare with.")
        lesson.error = None  # said once, beside the comparison
        return None, None
    try:
        model = held.training.model(**lesson.state.model_options())
        return held, calibration(model, held.test_matrix, held.test_labels, threshold=SURE)
    except (CorpusError, ValueError) as error:
        messages.append(f"The held-out documents could not be scored: {error}")
        return held, None


@bp.get("/corpora/<corpus_id>/confidence")
def confidence(corpus_id):
    lesson = load_lesson(corpus_id)
    state = lesson.state
    notation = NOTATIONS[state.notation]
    context = {"lesson": lesson, "section": "confidence", "notation": notation, "curve": None, "messages": [],
               "held_messages": [], "held": None, "calibration": None}
    if lesson.training is None:
        return respond("generative/confidence.html", "confidence", context, {"error": lesson.error})
    messages = context["messages"]
    n_max = _repeats(state, messages)
    curve = None
    text = state.text
    if not text.strip():
        messages.append("Type a review above to watch its posterior as it is counted again and again.")
    else:
        try:
            curve = overconfidence(lesson.training, text, max_repeats=n_max, **_model_keywords(state))
        except (CorpusError, ValueError) as error:
            messages.append(str(error))
    held, scores = _held_out_calibration(lesson, context["held_messages"])
    context.update(n_max=n_max, held=held, calibration=scores, max_repeats=MAX_REPEATS)
    data = {"repeats": n_max, "messages": messages + context["held_messages"], "overconfidence": None,
            "held_out": held.to_dict() if held is not None else None,
            "calibration": scores.to_dict() if scores is not None else None}
    if curve is not None:
        doubts = curve.log10_doubt
        ranking = sorted(range(len(curve.classes)), key=lambda k: -max(p.posteriors[k] for p in curve.points))
        plotted = sorted(ranking[:PLOTTED_CLASSES])
        # 1.0 because another class is impossible (a zero factor) is certainty, not rounding: no line for it.
        rounded_at = curve.saturates_at if curve.saturates_at and doubts[curve.saturates_at - 1] != -math.inf else None
        context.update(
            curve=curve,
            plotted=plotted,
            rounded_at=rounded_at,
            certain=all(d == -math.inf for d in doubts if d is not None) and curve.decision is not None,
            posterior_chart=repeat_posterior_chart(curve, plotted, n_max, rounded_at),
            doubt_chart=repeat_doubt_chart(curve, doubts, n_max, rounded_at),
            table_classes=sorted(ranking[:TABLE_CLASSES]),
            rows=_table_rows(curve, doubts, sorted(ranking[:TABLE_CLASSES]), n_max),
            last_doubt=power_of_ten(doubts[-1]),
            first_doubt=power_of_ten(doubts[0]),
            first_top=_top_text(curve.points[0], doubts[0]),
        )
        data["overconfidence"] = {**curve.to_dict(), "log10_doubt": [None if d is None else number(d) for d in doubts]}
    return respond("generative/confidence.html", "confidence", context, data)
