"""What every page of a table of numbers starts from: the table, the state read from the URL, and the model."""
from __future__ import annotations

from dataclasses import dataclass

from flask import abort, g, redirect, request, url_for

from webnb.engine.gaussian.lesson import typical_row
from webnb.engine.gaussian.model import GaussianStatistics
from webnb.engine.gaussian.table import NumericTable
from webnb.engine.shared.forwarding import forwarded
from webnb.engine.shared.numbers import parse_decimal, parse_whole
from webnb.hosting.catalog import CorpusEntry
from webnb.lesson.state import (
    MAX_SEED,
    MAX_VAR_SMOOTHING,
    SMALLEST_SPLIT_CORPUS,
    Parameter,
    TableState,
    page_parameters,
    parse_table_state,
    whole_number,
)
from webnb.views.common import Linking, PageState, catalog, corpus_or_404

# The Gaussian pages' own parameter: a page of rows.
PARAMETERS = page_parameters(
    Parameter("page", whole_number(1, 2**63), "The page is a whole number from 1 to {pages:,}; the first page is "
              "shown.", default=1, field="table_page", unset=()),
)

ROWS_PER_PAGE = 50  # of the table's rows, and of the rows the evaluation got wrong


@dataclass(frozen=True)
class TableLesson(Linking):
    """The request's table, state and model (None with ``error`` set when no model can be made)."""

    kind = "table"

    entry: CorpusEntry
    state: TableState
    table: NumericTable  # the rows the model is trained on (the split's training part with train=split)
    statistics: GaussianStatistics | None
    model: object
    error: str | None
    values: tuple[float, ...]  # the typed values, or the example's row
    defaults: TableState
    trained_on_split: tuple[int, int] | None = None  # (training rows, held-out rows) when train=split

    features = forwarded("table.features")

    def to_dict(self) -> dict:
        """What every page's JSON twin but the rows' starts with: the table and the settings."""
        state = self.state
        return {
            "corpus": {"id": self.entry.id, "name": self.entry.name},
            "state": {"var_smoothing": state.var_smoothing, "prior": state.prior, "values": list(self.values),
                      "test": state.test, "test_size": state.test_size, "seed": state.seed, "train": state.train,
                      "errors": state.errors},
        }


def table_defaults(entry: CorpusEntry) -> TableState:
    return TableState(test="training" if len(entry.table) < SMALLEST_SPLIT_CORPUS else "split")


def load_table_lesson(corpus_id: str) -> TableLesson:
    entry = corpus_or_404(corpus_id)
    if not entry.is_table:
        abort(redirect(url_for("corpus.show", corpus_id=corpus_id)))
    defaults = table_defaults(entry)
    args, number_errors = _checked_numbers(request.args, entry.table.features)
    state = parse_table_state(args, defaults)
    state.errors.update(number_errors)  # ours say what is wrong with the value, not only what is expected
    g.page_state = PageState(entry.id, state, defaults)
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
    except ValueError as problem:
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


def _typed_values(entry: CorpusEntry, state: TableState, features) -> tuple[float, ...]:
    """The values typed for each feature; a wrong count or a non-number is named in ``state.errors`` (by
    ``_checked_numbers``) and the example's row (or the first row of the table) is used instead."""
    fallback = typical_row(entry.table, entry.sample)
    if not state.values or "value" in state.errors:
        return fallback
    if len(state.values) != len(features):
        state.errors["value"] = f"Give {len(features)} values, one per feature."
        return fallback
    return tuple(parse_decimal(typed, "value") for typed in state.values)  # each checked in _checked_numbers


def asked_page(lesson: TableLesson, pages: int) -> int:
    """The page asked for in ``page``; 1 with a message when it is not a page number, the last one when past it."""
    page, message, _ = PARAMETERS["table_page"].read(request.args, pages=pages)
    if message:
        lesson.state.errors["page"] = message
        return page
    if page > pages:
        lesson.state.errors["page"] = (
            f"There {'is' if pages == 1 else 'are'} only {pages:,} page{'s' if pages != 1 else ''}; "
            "the last is shown."
        )
        return pages
    return page

