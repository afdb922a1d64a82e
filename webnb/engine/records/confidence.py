"""The overconfidence curve as the confidence page reads it: which classes are drawn, the posteriors at a few n in
a table, and where float64 rounds the top posterior to 1 although another class is still possible.

The curve itself is ``insights.overconfidence``; this adds only what the page reads off it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from webnb.engine.records.insights import Overconfidence, RepeatPoint
from webnb.engine.shared.plain import number

PLOTTED_CLASSES = 6  # more lines than this cannot be told apart on a projector
TABLE_CLASSES = 3  # columns of the table, so that it fits the projector's width
TABLE_REPEATS = (1, 2, 3, 5, 10, 20, 50, 100, 200, 500)  # rows of the table, with the last n and the saturation


@dataclass(frozen=True)
class TopPosterior:
    """The highest posterior at one n, with log₁₀ of the doubt left below 1 (see ``Overconfidence.log10_doubt``)."""

    value: float | None  # None when every class is impossible
    log10_doubt: float | None  # −inf when every other class is impossible; None when nothing is decidable

    @property
    def reading(self) -> str:
        """How to write it without losing what is known: "undecidable"; "certain" (exactly 1: every other class is
        impossible); "rounded" (float64 says 1.0 while another class is still possible); "near one" (above
        0.9999, where 1 − the doubt keeps the digits that the value has lost); else "value"."""
        if self.value is None:
            return "undecidable"
        if self.value == 1.0:
            return "certain" if self.log10_doubt == -math.inf else "rounded"
        return "near one" if self.value > 0.9999 else "value"


@dataclass(frozen=True)
class RepeatCell:
    posterior: float
    top: bool  # the most probable class at this n
    underflows: bool  # 0.0 in float64, yet not impossible


@dataclass(frozen=True)
class RepeatRow:
    repeats: int
    cells: tuple[RepeatCell, ...]  # one per tabled class
    top: TopPosterior


@dataclass(frozen=True, eq=False)
class CurveReading:
    """``curve`` read for the page. ``plotted`` and ``tabled`` are class numbers, in class order: the classes whose
    highest posterior over the curve is largest, as many as a plot (a table) can show. ``rounded_at`` is the first
    n at which float64 rounds the top posterior to 1.0 while another class is still possible (a 1.0 because every
    other class is impossible is certainty, not rounding); ``certain`` says that the top posterior is exactly 1 at
    every n. ``log10_doubt`` is the curve's, computed once.

    Parameters
    ----------
    curve : Overconfidence
        The curve (see ``insights.overconfidence``).
    log10_doubt : tuple of float or None
        Per n, log₁₀(1 − the top posterior).
    plotted, tabled : tuple of int
        The classes drawn, and those in the table.
    rounded_at : int or None
        The first n at which float64 rounds the top posterior to 1.0.
    certain : bool
        Whether the top posterior is exactly 1 at every n.
    rows : tuple of RepeatRow
        The table's rows.
    """

    curve: Overconfidence
    log10_doubt: tuple[float | None, ...]
    plotted: tuple[int, ...]
    tabled: tuple[int, ...]
    rounded_at: int | None
    certain: bool
    rows: tuple[RepeatRow, ...]

    @property
    def repeats(self) -> int:
        return len(self.curve.points)

    @property
    def first(self) -> TopPosterior:
        return _top(self.curve.points[0], self.log10_doubt[0])

    def to_dict(self) -> dict:
        return {**self.curve.to_dict(), "log10_doubt": [None if d is None else number(d) for d in self.log10_doubt]}


def _top(point: RepeatPoint, doubt: float | None) -> TopPosterior:
    return TopPosterior(None if point.decision is None else max(point.posteriors), doubt)


def _row(point: RepeatPoint, doubt: float | None, tabled: tuple[int, ...]) -> RepeatRow:
    top = int(np.argmax(point.log_posteriors)) if point.decision is not None else None
    cells = tuple(
        RepeatCell(
            point.posteriors[k],
            k == top,
            k != top and point.posteriors[k] == 0.0 and point.log_posteriors[k] > -math.inf,
        )
        for k in tabled
    )
    return RepeatRow(point.repeats, cells, _top(point, doubt))


def read_curve(
    curve: Overconfidence, *, plotted: int = PLOTTED_CLASSES, tabled: int = TABLE_CLASSES, at=TABLE_REPEATS
) -> CurveReading:
    """What the page shows of ``curve`` (see ``CurveReading``): ``plotted`` classes drawn, ``tabled`` in the
    table, whose rows are the n of ``at`` up to the curve's last, that last n and the saturation.

    Parameters
    ----------
    curve : Overconfidence
        The curve.
    plotted : int, default ``PLOTTED_CLASSES`` (6)
        The most classes drawn.
    tabled : int, default ``TABLE_CLASSES`` (3)
        The most classes in the table.
    at : iterable of int, default ``TABLE_REPEATS``
        The n of the table's rows.

    Returns
    -------
    CurveReading
        The classes shown, the table's rows, and where float64 rounds to 1.

    Examples
    --------
    >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
    >>> from webnb.engine.records.insights import overconfidence
    >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
    >>> curve = overconfidence(training, "Tokyo Japan", kind="multinomial", alpha=1, max_repeats=30)
    >>> reading = read_curve(curve)
    >>> top = [max(point.posteriors) for point in curve.points]  # P(Japan) after n repeats of "Tokyo Japan"
    >>> n = reading.rounded_at  # about 17 or 18, as the platform's exp and log round their last bit
    >>> top[n - 2] < 1.0 == top[n - 1]  # from n repeats on, float64 writes P(Japan) as exactly 1.0
    True
    >>> n in [row.repeats for row in reading.rows]  # and the table shows that row
    True
    """
    doubts = curve.log10_doubt
    n_max = len(curve.points)
    ranking = sorted(range(len(curve.classes)), key=lambda k: -max(p.posteriors[k] for p in curve.points))
    columns = tuple(sorted(ranking[:tabled]))
    saturates_at = curve.saturates_at
    shown = sorted({n for n in (*at, n_max, saturates_at or 1) if n <= n_max})
    return CurveReading(
        curve=curve,
        log10_doubt=doubts,
        plotted=tuple(sorted(ranking[:plotted])),
        tabled=columns,
        rounded_at=saturates_at if saturates_at and doubts[saturates_at - 1] != -math.inf else None,
        certain=all(d == -math.inf for d in doubts if d is not None) and curve.decision is not None,
        rows=tuple(_row(curve.points[n - 1], doubts[n - 1], columns) for n in shown),
    )


__all__ = [
    "PLOTTED_CLASSES", "TABLE_CLASSES", "TABLE_REPEATS",
    "TopPosterior", "RepeatCell", "RepeatRow", "CurveReading", "read_curve",
]
