"""Geometry of the calibration charts (webnb/engine/evaluation/calibration.py): where each bin, line, tick and label
goes, so that the templates only draw. The page, its slide and the downloaded SVG (and PNG) file draw the same
geometry.

- The reliability diagram: each model's bins of confidence, at their mean confidence (x) and their accuracy (y),
  joined by a line; a marker's area grows with the share of the documents in its bin. The diagonal is a calibrated
  model, whose documents decided with confidence p are right a share p of the time: under it, overconfident.
- Confidence against length: the test documents in groups by their length (words of the vocabulary, on a log scale),
  each group's mean confidence (a solid line) and accuracy (a dashed line) per model.

Both are 960 units wide, with room for labels of ``TEXT`` units: the slide draws the reliability diagram about 712
pixels wide with its text at 30 units (static/presenter.css, ``.slide-confidence .chart text``), 22 pixels.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from webnb.lesson.charts import DASHES, LegendEntry, PlotFrame

WIDTH, HEIGHT = 960, 340
TEXT = 30  # the largest size the labels are drawn at, in units (the slide's)
LEFT, RIGHT, TOP, BOTTOM = 116, 28, 18, 84  # the plot's margins: tick labels and the axes' titles
MARKER_SMALLEST, MARKER_LARGEST = 4.0, 15.0  # the radius of a bin's marker, for none and for all of the documents
DIAGONAL_DASH = "4 6"
DIAGONAL_CLASS = "class-2"  # the ink-coloured class line: black in the light themes, white in the dark one
DIAGONAL_LABEL = "calibrated (a bin under this line: overconfident)"
# Each model's line: its colour and dashes as the class lines of webnb/lesson/charts.py; the shape of its markers.
SHAPES = ("circle", "square")
ACCURACY_DASH = "10 7"  # confidence against length: the accuracy lines, dashed; the confidence lines solid


@dataclass(frozen=True)
class Tick:
    at: float  # x or y in the drawing
    label: str


@dataclass(frozen=True)
class BinMarker:
    """One bin of a model: where it is drawn and what it stands for (for the drawing's title)."""

    x: float
    y: float
    radius: float
    lower: float
    upper: float
    count: int
    confidence: float
    accuracy: float


@dataclass(frozen=True)
class ReliabilitySeries:
    label: str
    line_class: str  # "class-0", "class-1": the colour
    dash: str
    shape: str  # "circle" or "square"
    points: str  # SVG polyline points through the non-empty bins, in order of confidence
    markers: tuple[BinMarker, ...]


@dataclass(frozen=True)
class ReliabilityChart(PlotFrame):
    y_ticks: tuple[Tick, ...]
    diagonal: tuple[float, float, float, float]  # x1, y1, x2, y2
    series: tuple[ReliabilitySeries, ...]
    legend: tuple[LegendEntry, ...]
    tick_label_y: float
    x_title_y: float
    y_title_x: float


def _plot() -> tuple[float, float, float, float]:
    return LEFT, WIDTH - RIGHT, TOP, HEIGHT - BOTTOM


def _unit_ticks(n_bins: int, scale, labelled: int = 5) -> tuple[Tick, ...]:
    """The edges of ``n_bins`` equal bins over [0, 1], at ``scale(edge)``; every one labelled up to ``labelled`` bins
    (as "0", "0.1", … "1"), else the ones at multiples of 0.2 and the ends."""
    ticks = []
    for b in range(n_bins + 1):
        edge = b / n_bins
        shown = n_bins <= labelled or b in (0, n_bins) or math.isclose(edge * 5, round(edge * 5), abs_tol=1e-9)
        ticks.append(Tick(round(scale(edge), 1), _unit_label(edge) if shown else ""))
    return tuple(ticks)


def _unit_label(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".") if value not in (0, 1) else str(int(value))


def reliability_chart(models, n_bins: int) -> ReliabilityChart:
    """The reliability diagram of ``models``: (label, bins) pairs, each bins a sequence of the engine's
    ``CalibrationBin`` (``n_bins`` equal bins over [0, 1]), drawn in the order given (the first in class-0's colour,
    a solid line and circles; the second in class-1's, dashed, with squares).

    Parameters
    ----------
    models : sequence of (str, sequence of CalibrationBin)
        Each model's name and bins.
    n_bins : int
        How many bins the confidence axis is cut into (its grid).

    Returns
    -------
    ReliabilityChart
    """
    left, right, top, bottom = _plot()

    def x_of(confidence: float) -> float:
        return left + confidence * (right - left)

    def y_of(accuracy: float) -> float:
        return bottom - accuracy * (bottom - top)

    series, legend = [], []
    for order, (label, bins) in enumerate(models):
        total = sum(b.count for b in bins) or 1
        markers = tuple(
            BinMarker(
                x=round(x_of(b.mean_confidence), 1), y=round(y_of(b.accuracy), 1),
                radius=round(MARKER_SMALLEST + (MARKER_LARGEST - MARKER_SMALLEST) * math.sqrt(b.count / total), 1),
                lower=b.lower, upper=b.upper, count=b.count, confidence=b.mean_confidence, accuracy=b.accuracy,
            )
            for b in bins if b.count
        )
        line_class, dash = f"class-{order}", DASHES[order % len(DASHES)]
        series.append(ReliabilitySeries(label, line_class, dash, SHAPES[order % len(SHAPES)],
                                        " ".join(f"{m.x:.1f},{m.y:.1f}" for m in markers), markers))
        legend.append(LegendEntry(label, line_class, dash))
    legend.append(LegendEntry(DIAGONAL_LABEL, DIAGONAL_CLASS, DIAGONAL_DASH))
    return ReliabilityChart(
        width=WIDTH, height=HEIGHT, left=left, right=right, top=top, bottom=bottom,
        x_ticks=_unit_ticks(n_bins, x_of), y_ticks=_unit_ticks(5, y_of),
        diagonal=(left, bottom, right, top),
        series=tuple(series), legend=tuple(legend),
        tick_label_y=bottom + TEXT + 6, x_title_y=HEIGHT - 8, y_title_x=TEXT,
    )


# -- confidence against length ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LengthPoint:
    x: float  # the middle of the group's lengths, on the log scale
    x_from: float  # the shortest and longest document of the group
    x_to: float
    confidence_y: float
    accuracy_y: float
    shortest: int
    longest: int
    count: int
    confidence: float
    accuracy: float


@dataclass(frozen=True)
class LengthSeries:
    label: str
    line_class: str
    shape: str
    confidence_points: str
    accuracy_points: str
    points: tuple[LengthPoint, ...]


@dataclass(frozen=True)
class LengthChart(PlotFrame):
    y_ticks: tuple[Tick, ...]
    series: tuple[LengthSeries, ...]
    legend: tuple[LegendEntry, ...]
    tick_label_y: float
    x_title_y: float
    y_title_x: float
    accuracy_dash: str


def _log_length(n: int) -> float:
    return math.log10(1 + n)  # a document may have no word of the vocabulary


def _length_label(n: int) -> str:
    return f"{n:,}"


def _lowest_shown(values: list[float]) -> float:
    """The bottom of the y axis: a tenth below the lowest value (0 at the least), so that the gap between a group's
    confidence and its accuracy is drawn large enough to see; the top is always 1."""
    return max(0.0, math.floor(min(values) * 10 - 1e-9) / 10) if values else 0.0


def length_chart(models) -> LengthChart:
    """Confidence and accuracy against document length: ``models`` are (label, groups) pairs, each groups a sequence
    of the engine's ``LengthGroup`` (shortest first), drawn in the order given, in class-0's and class-1's colours.

    Parameters
    ----------
    models : sequence of (str, sequence of LengthGroup)
        Each model's name and its documents in groups by length.

    Returns
    -------
    LengthChart
        The axes (length on a log scale of 1 + the words, so that a document with none has a place; from 0 to the
        power of ten past the longest), each group at the middle of its lengths, and the legend: each model's
        confidence and accuracy.
    """
    left, right, top, bottom = _plot()
    groups = [g for _, model_groups in models for g in model_groups]
    longest = max((g.longest for g in groups), default=1)
    decades = math.ceil(math.log10(max(longest, 10)))  # the axis runs from 0 to the power of ten past the longest
    span = _log_length(10 ** decades)
    low = _lowest_shown([v for g in groups for v in (g.mean_confidence, g.accuracy)])

    def x_of(n: float) -> float:
        return left + _log_length(n) / span * (right - left)

    def y_of(value: float) -> float:
        return bottom - (value - low) / (1 - low) * (bottom - top)

    series, legend = [], []
    for order, (label, model_groups) in enumerate(models):
        points = tuple(
            LengthPoint(
                x=round((x_of(g.shortest) + x_of(g.longest)) / 2, 1), x_from=round(x_of(g.shortest), 1),
                x_to=round(x_of(g.longest), 1), confidence_y=round(y_of(g.mean_confidence), 1),
                accuracy_y=round(y_of(g.accuracy), 1), shortest=g.shortest, longest=g.longest, count=g.count,
                confidence=g.mean_confidence, accuracy=g.accuracy,
            )
            for g in model_groups
        )
        line_class = f"class-{order}"
        series.append(LengthSeries(
            label, line_class, SHAPES[order % len(SHAPES)],
            " ".join(f"{p.x:.1f},{p.confidence_y:.1f}" for p in points),
            " ".join(f"{p.x:.1f},{p.accuracy_y:.1f}" for p in points), points))
        legend += [LegendEntry(f"{label}: mean confidence", line_class),
                   LegendEntry(f"{label}: accuracy", line_class, ACCURACY_DASH)]
    x_ticks = (Tick(round(x_of(0), 1), "0"),
               *(Tick(round(x_of(10 ** d), 1), _length_label(10 ** d)) for d in range(decades + 1)))
    step = 0.1 if 1 - low <= 0.3 else 0.2 if 1 - low <= 0.6 else 0.25
    count = round((1 - low) / step)
    y_ticks = tuple(Tick(round(y_of(1 - i * step), 1), _unit_label(round(1 - i * step, 2))) for i in range(count + 1)
                    if 1 - i * step >= low - 1e-9)
    return LengthChart(
        width=WIDTH, height=HEIGHT, left=left, right=right, top=top, bottom=bottom, x_ticks=x_ticks,
        y_ticks=y_ticks, series=tuple(series), legend=tuple(legend), tick_label_y=bottom + TEXT + 6,
        x_title_y=HEIGHT - 8, y_title_x=TEXT, accuracy_dash=ACCURACY_DASH,
    )
