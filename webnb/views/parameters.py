"""The learned parameters: the priors φ and the word probabilities ψ (Bernoulli) or θ (multinomial)."""
from __future__ import annotations

import math

import numpy as np
from flask import Blueprint, request

from webnb.engine import CorpusError
from webnb.engine.serialize import fraction_text, number, ratio_text
from webnb.notation import NOTATIONS
from webnb.state import is_whole
from webnb.views.common import load_lesson, page_number, respond, word_filter, words_containing

bp = Blueprint("parameters", __name__)

WORDS_PER_PAGE = 25
CELLS_PER_PAGE = 250  # with many classes, fewer words a page, so a page stays light


def words_per_page(n_classes: int) -> int:
    return max(8, min(WORDS_PER_PAGE, CELLS_PER_PAGE // n_classes))
SORTS = ("word", "zeros")  # or "class-<k>": by that class's probability, largest first


def _order(model, sort: str, words: np.ndarray) -> np.ndarray:
    """Row order of the table: alphabetical, the breaking cells first, or by one class's value."""
    if sort == "zeros":
        table = model.feature_prob_[:, words]
        breaking = (table == 0).any(axis=0) | ((table == 1).any(axis=0) if model.kind == "bernoulli" else False)
        return words[np.argsort(~breaking, kind="stable")]
    if sort.startswith("class-") and is_whole(sort[6:]) and int(sort[6:]) < len(model.classes):
        k = int(sort[6:])
        return words[np.argsort(-model.feature_prob_[k, words], kind="stable")]
    return words


@bp.get("/corpora/<corpus_id>/parameters")
def show(corpus_id):
    lesson = load_lesson(corpus_id)
    state = lesson.state
    notation = NOTATIONS[state.notation]
    context = {"lesson": lesson, "section": "parameters", "notation": notation, "model": None}
    model = None
    if lesson.training is not None:
        try:
            model = lesson.training.model(**state.model_options())
        except (CorpusError, ValueError) as error:
            lesson.error = str(error)
    if model is None:
        return respond("parameters/show.html", "parameters", context, {"error": lesson.error})

    vocabulary = model.vocabulary
    query = word_filter()
    words = words_containing(vocabulary, query)
    sort = request.args.get("sort", "word")
    ordered = _order(model, sort, words)
    per_page = words_per_page(len(model.classes))
    pages = max(1, math.ceil(len(ordered) / per_page))
    page = page_number("page", pages)
    shown = ordered[(page - 1) * per_page : page * per_page]

    stats = model.statistics
    rows = []
    for j in shown.tolist():
        cells = []
        for k in range(len(model.classes)):
            probability = float(model.feature_prob_[k, j])
            cells.append(
                {
                    "ratio": model.feature_ratio(k, j) if model.epsilon is None else None,
                    "value": probability,
                    "zero": probability == 0.0,
                    "one": model.kind == "bernoulli" and probability == 1.0,
                    "count": int(stats.document_count_[k, j] if model.uses_presence else stats.word_count_[k, j]),
                }
            )
        rows.append({"index": j, "word": vocabulary[j], "cells": cells})

    priors = [
        {
            "label": label,
            "count": int(stats.class_count_[k]),
            "ratio": model.prior_ratio(k),
            "exact": model.class_prior_exact[k],
            "value": float(model.class_prior_[k]),
        }
        for k, label in enumerate(model.classes)
    ]
    d, n_classes = len(vocabulary), len(model.classes)
    totals = stats.feature_total[model.binary] if model.kind == "multinomial" else None
    breaking = int((model.feature_prob_ == 0).sum() + ((model.feature_prob_ == 1).sum() if model.kind == "bernoulli" else 0))
    context.update(
        model=model,
        rows=rows,
        priors=priors,
        query=query,
        sort=sort,
        page=page,
        pages=pages,
        matching=len(words),
        d=d,
        naive_count=n_classes * (d + 1),
        totals=totals.tolist() if totals is not None else None,
        breaking=breaking,
    )
    data = {
        "model": model.describe(),
        "classes": list(model.classes),
        "priors": [
            {"class": p["label"], "documents": p["count"], "exact": fraction_text(p["exact"]), "value": p["value"]}
            for p in priors
        ],
        "vocabulary_size": d,
        "parameter_count": n_classes * (d + 1),
        "breaking_cells": breaking,
        "page": page,
        "pages": pages,
        "sort": sort,
        "query": query,
        "words": [
            {
                "word": r["word"],
                "per_class": [
                    {"ratio": ratio_text(c["ratio"]), "value": number(c["value"]), "zero": c["zero"], "one": c["one"]}
                    for c in r["cells"]
                ],
            }
            for r in rows
        ],
    }
    return respond("parameters/show.html", "parameters", context, data)
