"""The learned parameters: the priors φ and the word probabilities ψ (Bernoulli) or θ (multinomial)."""
from __future__ import annotations

import math
from fractions import Fraction
from functools import cached_property
from typing import NamedTuple

import numpy as np
from flask import Blueprint, current_app, request

from webnb.engine import CorpusError
from webnb.engine.shared.plain import fraction_text, number, ratio_text
from webnb.engine.text.estimate import estimate
from webnb.formatting import probability
from webnb.notation import NOTATIONS
from webnb.state import is_whole
from webnb.views.common import load_lesson, page_number, respond, wants_json, word_filter, words_containing

bp = Blueprint("parameters", __name__)

WORDS_PER_PAGE = 25
CELLS_PER_PAGE = 160  # with many classes, fewer words a page (8 words of 20 classes), so a page stays light


class Cell(NamedTuple):
    """One (word, class) cell of the table, formatted once for the page and its JSON twin. A tuple, so that the
    template unpacks it instead of looking up attributes: a page of 20 classes has 240 cells."""

    ratio: str | None  # unreduced, as ``NaiveBayes.feature_ratio`` gives it ("0/3"); None under the ε-floor
    text: str  # the value as the page writes it
    flag: str  # "0" for an exact 0, "1" for a Bernoulli ψ = 1 (each breaks the product), else ""
    value: float


class Row(NamedTuple):
    index: int
    word: str
    cells: tuple[Cell, ...]


class Prior(NamedTuple):
    label: str
    count: int
    ratio: tuple[int, int] | None
    exact: Fraction
    value: float


def words_per_page(n_classes: int) -> int:
    return max(8, min(WORDS_PER_PAGE, CELLS_PER_PAGE // n_classes))
PARAMETER_TABLES_KEPT = 8  # the whole tables of the few models last shown (each holds a few vocabulary-long arrays)
SORTS = ("word", "zeros")  # or "class-<k>": by that class's probability, largest first


class _WholeTable:
    """What the page needs from every cell of a model's ψ or θ table: how many cells break (exactly 0, or 1 for
    Bernoulli) and the row orders over the whole vocabulary. Read from the model's sparse parameters (one value per
    class for the words it never saw, one per observed pair), computed once per model and kept in the app's cache of
    them: a request then pays for the rows it shows, not K × V."""

    def __init__(self, model):
        self.model = model
        self._orders: dict[str, np.ndarray] = {}

    def _breaking(self, values: np.ndarray) -> np.ndarray:
        return (values == 0) | ((values == 1) if self.model.kind == "bernoulli" else False)

    @cached_property
    def breaking_cells(self) -> int:
        pairs = self.model.statistics.observed
        unobserved_words = self.model.statistics.n_words - pairs.per_class
        return int(unobserved_words[self._breaking(self.model.unobserved_prob)].sum()
                   + self._breaking(self.model.observed_prob).sum())

    @cached_property
    def breaking_words(self) -> np.ndarray:
        """Whether each word has a breaking cell in some class, shape (n_words,)."""
        model, pairs = self.model, self.model.statistics.observed
        breaking = np.zeros(model.statistics.n_words, dtype=bool)
        breaking[pairs.words[self._breaking(model.observed_prob)]] = True
        # A class whose unseen words break: every word it did not see breaks.
        unseen_break = self._breaking(model.unobserved_prob)
        if unseen_break.any():
            seen_by_those = np.bincount(pairs.words[unseen_break[pairs.classes]], minlength=len(breaking))
            breaking |= seen_by_those < unseen_break.sum()
        return breaking

    def row(self, k: int) -> np.ndarray:
        """Class k's ψ or θ for every word, shape (n_words,)."""
        model, pairs = self.model, self.model.statistics.observed
        values = np.full(model.statistics.n_words, model.unobserved_prob[k])
        in_class = pairs.classes == k
        values[pairs.words[in_class]] = model.observed_prob[in_class]
        return values

    def order(self, sort: str) -> np.ndarray | None:
        """Every word, in the order ``sort`` asks for; None for alphabetical (vocabulary) order."""
        model = self.model
        if sort == "zeros":
            key = "zeros"
        elif sort.startswith("class-") and is_whole(sort[6:]) and int(sort[6:]) < len(model.classes):
            key = f"class-{int(sort[6:])}"
        else:
            return None
        if key not in self._orders:
            if key == "zeros":
                self._orders[key] = np.argsort(~self.breaking_words, kind="stable")
            else:
                self._orders[key] = np.argsort(-self.row(int(key[6:])), kind="stable")
        return self._orders[key]


def _whole_table(lesson, model) -> _WholeTable:
    """The model's ``_WholeTable``, kept in the app's cache of them under what the model is made of (the corpus's
    content, the options, the training part and the model's settings), so that it goes when the cache's bound says."""
    state = lesson.state
    trained_on = ("split", *state.split) if state.train == "split" else ("all",)
    key = (lesson.entry.content or lesson.entry.id, state.analysis_options(), state.vocabulary_options(), trained_on,
           tuple(sorted(state.model_options().items())))
    return current_app.extensions["webnb"]["parameter_tables"].get_or_build(key, lambda: _WholeTable(model))


def _order(table: _WholeTable, sort: str, words: np.ndarray) -> np.ndarray:
    """Row order of the table: alphabetical, the breaking cells first, or by one class's value. ``words`` are the
    matching words in vocabulary order; a stable sort of them is the whole vocabulary's order restricted to them."""
    order = table.order(sort)
    if order is None:
        return words
    if len(words) == len(order):
        return order
    matching = np.zeros(len(order), dtype=bool)
    matching[words] = True
    return order[matching[order]]


def _cells(model, shown: np.ndarray) -> list[tuple[Cell, ...]]:
    """The cells of the words ``shown``: for each word, one cell per class. Built class by class, a list at a time
    (a page of 20 classes has 240 cells)."""
    probabilities = model.columns(shown)[0].tolist()  # (n_classes, len(shown)): only the rows shown
    # Most words of a large vocabulary are unseen in most classes, which share one value per class.
    texts = {value: probability(value) for value in {v for values in probabilities for v in values}}
    numerators, denominators = model.feature_ratios(shown) if model.epsilon is None else (None, None)
    breaks_at_one = model.kind == "bernoulli"
    per_class = []
    for k, values in enumerate(probabilities):
        ratios = [ratio_text((n, denominators[k])) for n in numerators[k]] if numerators else [None] * len(values)
        flags = ["0" if v == 0.0 else "1" if breaks_at_one and v == 1.0 else "" for v in values]
        per_class.append(list(map(Cell, ratios, [texts[v] for v in values], flags, values)))
    return list(zip(*per_class, strict=True))


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
    table = _whole_table(lesson, model)
    ordered = _order(table, sort, words)
    per_page = words_per_page(len(model.classes))
    pages = max(1, math.ceil(len(ordered) / per_page))
    page = page_number("page", pages)
    shown = ordered[(page - 1) * per_page : page * per_page]

    stats = model.statistics
    rows = [
        Row(index=j, word=vocabulary[j], cells=cells)
        for j, cells in zip(shown.tolist(), _cells(model, shown), strict=True)
    ]

    priors = [
        Prior(
            label=label,
            count=int(stats.class_count_[k]),
            ratio=model.prior_ratio(k),
            exact=model.class_prior_exact[k],
            value=float(model.class_prior_[k]),
        )
        for k, label in enumerate(model.classes)
    ]
    d, n_classes = len(vocabulary), len(model.classes)
    totals = stats.feature_total[model.binary] if model.kind == "multinomial" else None
    breaking = table.breaking_cells
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
    if not wants_json():  # the plain data is only for the JSON twin
        return respond("parameters/show.html", "parameters", context)
    data = {
        "model": model.to_dict(),
        "classes": list(model.classes),
        "priors": [
            {"class": p.label, "documents": p.count, "exact": fraction_text(p.exact), "value": p.value}
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
                "word": r.word,
                "per_class": [
                    {"ratio": c.ratio, "value": number(c.value), "zero": c.flag == "0", "one": c.flag == "1"}
                    for c in r.cells
                ],
            }
            for r in rows
        ],
    }
    return respond("parameters/show.html", "parameters", context, data)


@bp.get("/corpora/<corpus_id>/parameters/cell")
def cell(corpus_id):
    """A word's ψ or θ opened: how each comes from two counts and α, in one class (``class``) or in every class.
    The table links each word here, and loads one class's into a cell when a student opens it, so that a page of
    hundreds of cells does not carry hundreds of formulas."""
    lesson = load_lesson(corpus_id)
    state = lesson.state
    context = {"lesson": lesson, "section": "parameters", "notation": NOTATIONS[state.notation], "estimates": (),
               "cell_error": None}
    model, status = None, 200
    if lesson.training is not None:
        try:
            model = lesson.training.model(**state.model_options())
        except (CorpusError, ValueError) as error:
            context["cell_error"] = str(error)
    word, label = request.args.get("word", ""), request.args.get("class")
    if model is not None:
        word_index = lesson.training.bag.index.get(word)
        if not word:
            context["cell_error"], status = "Which word? Name it with word=…, as the links of the table do.", 400
        elif word_index is None:
            context["cell_error"], status = f"“{word[:100]}” is not a word of this vocabulary.", 404
        elif label is not None and label not in model.classes:
            context["cell_error"], status = f"“{label[:100]}” is not a class of this corpus.", 404
        else:
            classes = range(len(model.classes)) if label is None else [model.classes.index(label)]
            context["estimates"] = tuple(estimate(model, word_index, k) for k in classes)
    estimates = context["estimates"]
    if not estimates:
        data = {"error": context["cell_error"] or lesson.error}
    elif label is not None:
        data = estimates[0].to_dict()
    else:
        data = {"word": word, "model": model.to_dict(), "classes": [e.to_dict() for e in estimates]}
    response = respond("parameters/cell.html", "cell", context, data)
    response.status_code = status
    return response
