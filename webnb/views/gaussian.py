"""Tables of numbers: the rows, the bell curves Gaussian Naive Bayes learns, Bayes' rule for typed values (and how
it fails in plain floats), and the evaluation. Each page has a JSON twin and CSV downloads."""
from __future__ import annotations

import json
import math
import re
import sys
from dataclasses import dataclass
from urllib.parse import urlencode

import numpy as np
from flask import Blueprint, Response, abort, redirect, request, url_for

from webnb.catalog import SMALLEST_SPLIT_CORPUS, CorpusEntry
from webnb.charts import density_chart
from webnb.engine import CorpusError
from webnb.engine.evaluation.parity import gaussian_parity
from webnb.engine.evaluation.scores import evaluate
from webnb.engine.export.gaussian_notebook import gaussian_notebook
from webnb.engine.export.notebook import (
    confusion_table,
    csv_text,
    evaluation_table,
    gaussian_parameters_table,
    predictions_table,
    table_rows,
)
from webnb.engine.gaussian.model import DEFAULT_VAR_SMOOTHING, GaussianStatistics, explain
from webnb.engine.gaussian.table import NumericTable
from webnb.engine.shared.numbers import parse_decimal, parse_whole
from webnb.state import GAUSSIAN_STEPS, MAX_SEED, MAX_VAR_SMOOTHING, TableState, parse_table_state
from webnb.views.common import catalog, is_htmx, respond, wants_json

bp = Blueprint("gaussian", __name__, url_prefix="/corpora/<corpus_id>/gaussian")

ROWS_PER_PAGE = 50
STEP_TITLES = {
    "densities": "Each feature's density",
    "product": "Prior × densities",
    "normalise": "Normalise",
    "underflow": "When densities underflow",
    "logspace": "Log space",
    "zero-width": "Zero variance",
}


@dataclass
class TableLesson:
    """The request's table, state and model (None with ``error`` set when no model can be made)."""

    entry: CorpusEntry
    state: TableState
    table: NumericTable  # the rows the model is trained on (the split's training part with train=split)
    statistics: GaussianStatistics | None
    model: object
    error: str | None
    values: tuple[float, ...]  # the typed values, or the example's row
    defaults: TableState
    trained_on_split: tuple[int, int] | None = None  # (training rows, held-out rows) when train=split

    def link(self, path: str, extra: dict | None = None, **changes) -> str:
        query = self.state.query(self.defaults, **changes)
        if extra:
            query = "&".join(filter(None, [query, urlencode({k: v for k, v in extra.items() if v not in (None, "")})]))
        return f"{path}?{query}" if query else path

    @property
    def features(self) -> tuple[str, ...]:
        return self.table.features


def table_defaults(entry: CorpusEntry) -> TableState:
    return TableState(test="training" if len(entry.table) < SMALLEST_SPLIT_CORPUS else "split")


def load_table_lesson(corpus_id: str) -> TableLesson:
    entry = catalog().get(corpus_id)
    if entry is None:
        abort(404)
    if not entry.is_table:
        abort(redirect(url_for("corpus.show", corpus_id=corpus_id)))
    defaults = table_defaults(entry)
    args, number_errors = _checked_numbers(request.args, entry.table.features)
    state = parse_table_state(args, defaults)
    state.errors.update(number_errors)  # ours say what is wrong with the value, not only what is expected
    table, statistics, model, error, trained_on_split = entry.table, None, None, None, None
    try:
        test_size, seed = state.split
        if state.train == "split":
            held = catalog().gaussian_split(entry, "split", test_size, seed)
            table, trained_on_split = held.training, (len(held.training), len(held.test))
        else:
            held = catalog().gaussian_split(entry)
        statistics = held.statistics
        model = statistics.model(state.smoothing, state.prior)
    except (CorpusError, ValueError) as problem:
        error = str(problem)
    values = _typed_values(entry, state, entry.table.features)
    return TableLesson(entry, state, table, statistics, model, error, values, defaults, trained_on_split)


# What each number in a Gaussian page's address may be, in the words the pages use.
SMOOTHING_EXPECTED = "var_smoothing is a number from 0 to 1,000,000, such as 1e-9 or 0."
SHARE_EXPECTED = "The held-out share is a fraction between 0 and 1, such as 0.25."
VALUE_EXPECTED = "Type one plain decimal number per feature, such as 5.1 or -0.25e3."
MAX_TYPED_VALUES = 200  # more than any table here has features


def _checked_numbers(args, features) -> tuple[object, dict[str, str]]:
    """``args`` without the numbers that are malformed, out of range or too long, and a message for each. Each
    check reads at most 40 characters, so a hostile value (10,000 digits, 1e-100000) costs microseconds."""
    cleaned, errors = args.copy(), {}
    checks = {
        "var_smoothing": lambda raw: parse_decimal(raw, "var_smoothing", low=0.0, high=MAX_VAR_SMOOTHING,
                                                   expected=SMOOTHING_EXPECTED),
        "test_size": lambda raw: parse_decimal(raw, "The held-out share", low=0.0, high=1.0, low_open=True,
                                               high_open=True, expected=SHARE_EXPECTED),
        "seed": lambda raw: parse_whole(raw, low=0, high=MAX_SEED, what="The seed"),
    }
    for name, check in checks.items():
        if name in args:
            try:
                check(args.get(name, ""))
            except ValueError as problem:
                errors[name] = str(problem)
                cleaned.poplist(name)
    typed = args.getlist("value")
    if len(typed) > MAX_TYPED_VALUES:
        errors["value"] = (
            f"{len(typed):,} values were typed; this table has {len(features):,} features. {VALUE_EXPECTED}"
        )
        cleaned.poplist("value")
    else:
        for position, raw in enumerate(typed):
            feature = features[position] if position < len(features) else f"value {position + 1}"
            try:
                parse_decimal(raw, f"The value for {feature!r}", expected=VALUE_EXPECTED)
            except ValueError as problem:
                errors["value"] = str(problem)
                if any(len(v) > 100 for v in typed):  # too long to echo back in the form
                    cleaned.poplist("value")
                break
    return cleaned, errors


def _page(lesson: "TableLesson", pages: int) -> int:
    """The page asked for in ``page``; 1 with a message when it is not a page number, the last one when past it."""
    raw = request.args.get("page")
    if raw is None:
        return 1
    try:
        page = parse_whole(raw, low=1, high=2**63, what="The page")
    except ValueError:
        lesson.state.errors["page"] = f"The page is a whole number from 1 to {pages:,}; the first page is shown."
        return 1
    if page > pages:
        lesson.state.errors["page"] = (
            f"There {'is' if pages == 1 else 'are'} only {pages:,} page{'s' if pages != 1 else ''}; "
            "the last is shown."
        )
        return pages
    return page


def _typed_values(entry: CorpusEntry, state: TableState, features) -> tuple[float, ...]:
    """The values typed for each feature; a wrong count or a non-number is named in ``state.errors`` (by
    ``_checked_numbers``) and the example's row (or the first row of the table) is used instead."""
    fallback = tuple(entry.sample) if entry.sample else tuple(float(v) for v in entry.table.values[0])
    if not state.values or "value" in state.errors:
        return fallback
    if len(state.values) != len(features):
        state.errors["value"] = f"Give {len(features)} values, one per feature."
        return fallback
    return tuple(parse_decimal(typed, "value") for typed in state.values)  # each checked in _checked_numbers


def _state_for_json(lesson: TableLesson) -> dict:
    state = lesson.state
    return {"var_smoothing": state.var_smoothing, "prior": state.prior, "values": list(lesson.values),
            "test": state.test, "test_size": state.test_size, "seed": state.seed, "train": state.train,
            "errors": state.errors}


def _context(lesson: TableLesson, section: str, **more) -> dict:
    return {"lesson": lesson, "section": section, **more}


# --- 1 · the rows ----------------------------------------------------------------------------------------------


@bp.get("")
def rows(corpus_id):
    lesson = load_table_lesson(corpus_id)
    table = lesson.entry.table
    pages = max(1, math.ceil(len(table) / ROWS_PER_PAGE))
    page = _page(lesson, pages)
    start = (page - 1) * ROWS_PER_PAGE
    shown = range(start, min(start + ROWS_PER_PAGE, len(table)))
    listed = [{"index": i, "id": table.ids[i], "label": table.labels[i], "values": [float(v) for v in table.values[i]]}
              for i in shown]
    context = _context(lesson, "rows", rows=listed, page=page, pages=pages, class_counts=table.class_counts())
    data = {"corpus": {"id": lesson.entry.id, "name": lesson.entry.name, "rows": len(table)},
            "features": list(table.features), "class_counts": table.class_counts(), "page": page, "pages": pages,
            "rows": listed, "errors": lesson.state.errors}
    return respond("gaussian/rows.html", "rows", context, data)


# --- 2 · the bell curves ---------------------------------------------------------------------------------------


def parameter_rows(model) -> list[dict]:
    stats = model.statistics
    result = []
    for k, label in enumerate(model.classes):
        cells = []
        for j, feature in enumerate(model.features):
            variance = float(stats.variances[k, j])
            cells.append({
                "feature": feature, "mean": float(stats.means[k, j]), "variance": variance, "sd": math.sqrt(variance),
                "sample_sd": math.sqrt(float(stats.sample_variances[k, j])),
                "used": float(model.smoothed_variances[k, j]),
                "used_sd": math.sqrt(float(model.smoothed_variances[k, j])), "zero": variance == 0.0,
            })
        result.append({"label": label, "count": int(stats.class_count[k]), "prior": float(model.priors[k]),
                       "exact_prior": model.exact_priors[k], "cells": cells})
    return result


@bp.get("/parameters")
def parameters(corpus_id):
    lesson = load_table_lesson(corpus_id)
    model = lesson.model
    context = _context(lesson, "parameters")
    data = {"corpus": {"id": lesson.entry.id, "name": lesson.entry.name}, "state": _state_for_json(lesson),
            "error": lesson.error}
    if model is not None:
        largest = lesson.statistics.largest_variance_feature
        context.update(
            model=model, classes=parameter_rows(model), largest=largest,
            largest_variance=float(lesson.statistics.feature_variances[largest]),
            charts=[density_chart(model, j) for j in range(len(model.features))],
            zero_cells=int((lesson.statistics.variances == 0).sum()),
        )
        data.update({
            "classes": list(model.classes), "features": list(model.features), "epsilon": model.epsilon,
            "largest_variance_feature": model.features[largest],
            "parameters": [dict(zip(("class", "rows", "prior"), (c["label"], c["count"], c["prior"]), strict=True),
                                features=c["cells"]) for c in context["classes"]],
        })
    return respond("gaussian/parameters.html", "parameters", context, data)


# --- 3 · Bayes' rule, step by step ------------------------------------------------------------------------------


@bp.get("/inference")
def inference(corpus_id):
    lesson = load_table_lesson(corpus_id)
    state = lesson.state
    context = _context(lesson, "inference", steps=[(s, STEP_TITLES[s]) for s in GAUSSIAN_STEPS],
                       step_index=state.step_index, typical=_typical(lesson.entry), far=_far(lesson))
    data = {"corpus": {"id": lesson.entry.id, "name": lesson.entry.name}, "state": _state_for_json(lesson),
            "error": lesson.error, "step": state.step}
    if lesson.model is not None:
        explained = explain(lesson.model, lesson.values)
        context.update(explained=explained, model=lesson.model)
        # Only what the step on screen draws: this runs on every keystroke.
        if state.step == "densities":
            context["charts"] = [density_chart(lesson.model, j, v) for j, v in enumerate(lesson.values)]
        if state.step == "zero-width":
            context["zero_cells"] = _zero_cells(lesson)
        if wants_json():
            data["explanation"] = explained.to_dict()
    return respond("gaussian/inference.html", "inference", context, data)


def _typical(entry: CorpusEntry) -> tuple[float, ...]:
    return tuple(entry.sample) if entry.sample else tuple(float(v) for v in entry.table.values[0])


def _far(lesson: TableLesson) -> tuple[float, ...]:
    """A row whose first feature lies about 50 standard deviations beyond every class's mean: its densities
    underflow (e^(−50²/2) is far below the smallest float)."""
    if lesson.entry.far:
        return tuple(lesson.entry.far)
    table = lesson.entry.table
    column = table.values[:, 0]
    highest, lowest = float(column.max()), float(column.min())
    with np.errstate(over="ignore", invalid="ignore"):
        spread = float(np.std(column))
    if not math.isfinite(spread):  # values near ±1.8e308: half the range is spread enough
        spread = highest / 2 - lowest / 2
    spread = spread or max(abs(highest), 1.0)
    # Beyond the largest value, or below the smallest where that would overflow, or the largest float itself.
    for far in (highest + 50 * spread, lowest - 50 * spread, math.copysign(sys.float_info.max, -lowest)):
        if math.isfinite(far):
            break
    rounded = float(f"{far:.3g}")
    return (rounded if math.isfinite(rounded) else far, *_typical(lesson.entry)[1:])


def _zero_cells(lesson: TableLesson) -> list[dict]:
    """Every class and feature whose variance is 0 before smoothing: what the bell is with and without ε."""
    stats, model = lesson.statistics, lesson.model
    shown_smoothing = model.var_smoothing or DEFAULT_VAR_SMOOTHING  # with none in effect, show the default's
    with_epsilon = stats.model(shown_smoothing, model.prior_kind)
    log_densities = with_epsilon.feature_log_densities(np.array(lesson.values))
    cells = []
    for k, j in zip(*np.nonzero(stats.variances == 0), strict=True):
        mean, log_density = float(stats.means[k, j]), float(log_densities[k, j])
        cells.append({
            "label": model.classes[k], "feature": model.features[j], "mean": mean, "value": lesson.values[j],
            "at_mean": lesson.values[j] == mean, "epsilon_variance": float(with_epsilon.smoothed_variances[k, j]),
            "shown_smoothing": shown_smoothing, "epsilon": with_epsilon.epsilon, "smoothed_log_density": log_density,
            "smoothed_density": math.exp(log_density) if log_density < 709 else math.inf,
        })
    return cells


# --- 4 · evaluation ----------------------------------------------------------------------------------------------


def scored(lesson: TableLesson):
    """(model, training rows, test rows, their places in the table, evaluation) as the state says."""
    test_size, seed = lesson.state.split
    held = catalog().gaussian_split(lesson.entry, lesson.state.test, test_size, seed)
    model = held.statistics.model(lesson.state.smoothing, lesson.state.prior)
    return model, held.training, held.test, held.positions, evaluate(model, held.test.values, held.test.labels)


@bp.get("/evaluation")
def evaluation(corpus_id):
    lesson = load_table_lesson(corpus_id)
    context = _context(lesson, "evaluation")
    data = {"corpus": {"id": lesson.entry.id, "name": lesson.entry.name}, "state": _state_for_json(lesson)}
    try:
        model, training, test, positions, result = scored(lesson)
    except (CorpusError, ValueError) as problem:
        context["error"] = data["error"] = str(problem)
        return respond("gaussian/evaluation.html", "evaluation", context, data)
    mistakes = [
        {"position": int(positions[i]), "id": test.ids[i], "label": test.labels[i], "predicted": predicted,
         "confidence": result.confidence[i], "values": [float(v) for v in test.values[i]]}
        for i, predicted in enumerate(result.predictions) if predicted != test.labels[i]
    ]
    pages = max(1, math.ceil(len(mistakes) / ROWS_PER_PAGE))
    page = _page(lesson, pages)
    shown = mistakes[(page - 1) * ROWS_PER_PAGE: page * ROWS_PER_PAGE]
    for row in shown:
        row["link"] = lesson.link(url_for("gaussian.inference", corpus_id=lesson.entry.id),
                                  train="split" if lesson.state.test == "split" else "all",
                                  values=tuple(repr(v) for v in row["values"]), step="logspace")
    context.update(result=result, n_train=len(training), n_test=len(test), mistakes=shown, n_mistakes=len(mistakes),
                   page=page, pages=pages, model=model)
    data.update({"n_train": len(training), "n_test": len(test), "evaluation": result.to_dict(),
                 "mistakes": [{k: v for k, v in row.items() if k != "link"} for row in mistakes]})
    return respond("gaussian/evaluation.html", "evaluation", context, data)


# --- downloads ----------------------------------------------------------------------------------------------------


def _settings_or_400(lesson: TableLesson) -> None:
    """A download is made with the settings in its address: with any of them unusable, say which rather than
    quietly using the defaults."""
    if lesson.state.errors:
        abort(400, " ".join(lesson.state.errors.values()) + " Nothing was downloaded; correct the address and retry.")


def _download(lesson: TableLesson, name: str, header, body) -> Response:
    response = Response(csv_text(header, body), mimetype="text/csv")
    safe_id = re.sub(r"[^A-Za-z0-9_-]", "", lesson.entry.id)
    response.headers["Content-Disposition"] = f'attachment; filename="{safe_id}-{name}.csv"'
    return response


@bp.get("/rows.csv")
def rows_csv(corpus_id):
    lesson = load_table_lesson(corpus_id)
    return _download(lesson, "rows", *table_rows(lesson.entry.table))


@bp.get("/parameters.csv")
def parameters_csv(corpus_id):
    lesson = load_table_lesson(corpus_id)
    _settings_or_400(lesson)
    if lesson.model is None:
        abort(400, lesson.error)
    return _download(lesson, "gaussian-parameters", *gaussian_parameters_table(lesson.model))


def _scored_or_400(lesson):
    _settings_or_400(lesson)
    try:
        return scored(lesson)
    except (CorpusError, ValueError) as problem:
        abort(400, str(problem))


@bp.get("/evaluation.csv")
def evaluation_csv(corpus_id):
    lesson = load_table_lesson(corpus_id)
    result = _scored_or_400(lesson)[-1]
    return _download(lesson, "evaluation", *evaluation_table(result))


@bp.get("/confusion.csv")
def confusion_csv(corpus_id):
    lesson = load_table_lesson(corpus_id)
    result = _scored_or_400(lesson)[-1]
    return _download(lesson, "confusion", *confusion_table(result))


@bp.get("/predictions.csv")
def predictions_csv(corpus_id):
    lesson = load_table_lesson(corpus_id)
    _, _, test, _, result = _scored_or_400(lesson)
    header, body = predictions_table(test, result)
    # The typed values of each row, so the download stands on its own.
    header = header[:2] + list(test.features) + header[2:]
    body = [row[:2] + [float(v) for v in test.values[i]] + row[2:] for i, row in enumerate(body)]
    return _download(lesson, "predictions", header, body)


# --- checked against scikit-learn ---------------------------------------------------------------------------------

PARITY_PAGES = {"parameters": "gaussian.parameters", "evaluation": "gaussian.evaluation"}


@bp.get("/parity")
def parity(corpus_id):
    """Whether scikit-learn's GaussianNB, on the same rows and settings, computes the same numbers. The parameters
    and evaluation pages load this as a badge once they have appeared."""
    lesson = load_table_lesson(corpus_id)
    of = request.args.get("of", "parameters")
    bad_choice = of not in PARITY_PAGES
    report, error = None, None
    if bad_choice:
        of, error = "parameters", "A check is of the parameters or of the evaluation (of=parameters or of=evaluation)."
    else:
        try:
            if of == "parameters":
                training, test, statistics = lesson.table, lesson.table, lesson.statistics
            else:
                test_size, seed = lesson.state.split
                held = catalog().gaussian_split(lesson.entry, lesson.state.test, test_size, seed)
                training, test, statistics = held.training, held.test, held.statistics
            if statistics is not None and statistics.rescaled:
                error = _overflows_in_sklearn(statistics.rescaled)
            else:
                report = gaussian_parity(training, test, lesson.state.smoothing, lesson.state.prior, of)
        except (CorpusError, ValueError) as problem:
            error = str(problem)
    context = _context(lesson, of, of=of, report=report, waiting=False, error=error, retry=None,
                       back=lesson.link(url_for(PARITY_PAGES[of], corpus_id=corpus_id)), expanded=not is_htmx())
    data = report.to_dict() if report else {"of": of, "status": "error"}
    data["error"] = error
    data["errors"] = lesson.state.errors
    response = respond("gaussian/parity.html", "parity", context, data)
    if bad_choice:
        response.status_code = 400
    return response


def _overflows_in_sklearn(features) -> str:
    named = ", ".join(repr(f) for f in features[:3]) + (" and others" if len(features) > 3 else "")
    return (f"the values of {named} are so large that scikit-learn's GaussianNB overflows on them (the sums behind "
            "its mean or variance pass the largest float64, so they come out infinite): there is nothing to compare "
            "with. The app scales such columns by a power of two before adding them up, so its numbers are finite.")


@bp.get("/notebook.ipynb")
def notebook(corpus_id):
    """The lesson as a notebook: the typed values, the settings and the evaluation page's split."""
    lesson = load_table_lesson(corpus_id)
    _settings_or_400(lesson)
    state = lesson.state
    test_size, seed = state.split
    try:
        document = gaussian_notebook(lesson.entry.table, var_smoothing=state.smoothing, prior=state.prior,
                                     values=lesson.values, test_size=test_size if state.test == "split" else None,
                                     seed=seed)
    except (CorpusError, ValueError) as problem:
        abort(400, str(problem))
    response = Response(json.dumps(document, ensure_ascii=False, indent=1), mimetype="application/x-ipynb+json")
    safe_id = re.sub(r"[^A-Za-z0-9_-]", "", lesson.entry.id)
    response.headers["Content-Disposition"] = f'attachment; filename="{safe_id}-gaussian.ipynb"'
    return response
