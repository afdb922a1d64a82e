"""Geometry of the feature-selection chart (Manning, Raghavan & Schütze, *Introduction to Information Retrieval*,
figure 13.8): the test accuracy of a model that keeps only the top k words, against k on a log scale, one line per
measure (mutual information, χ², frequency). Where each point, tick and label goes is decided here; the templates
only draw it.

Each measure's line takes a class colour of the charts (static/charts.css: .class-0 …), a dash pattern and a marker
shape of its own, so that the lines differ without colour too.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from webnb.lesson.charts import DASHES, LegendEntry, PlotFrame, Tick

# What the page and the JSON twin call each measure of webnb/engine/text/selection.py (MEASURES).
MEASURE_NAMES = {"mutual_information": "mutual information", "chi_square": "χ²", "frequency": "frequency"}
MARKERS = ("circle", "square", "triangle")

# (width, height) in SVG units. A slide's chart is drawn across the slide (about 980 px for its 960 units), its
# labels at the slide's chart type (24 units: static/webnb.css, `body.presenter .generative .chart text`); the page's
# at 20 (static/charts.css, `.chart text`). The margins hold those labels.
FRAMES = {"page": (960, 420), "slide": (960, 330)}
TEXT = {"page": 20, "slide": 24}  # the labels' size in each frame, for the room a tick label takes
LEFT, RIGHT, TOP, BOTTOM = 96, 48, 14, 74
PERCENT_TICKS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
MARKER_SIZE = 7


@dataclass(frozen=True)
class CurvePoint:
    x: float
    y: float
    size: int  # words kept
    accuracy: float


@dataclass(frozen=True)
class CurveLine:
    measure: str  # a key of MEASURE_NAMES
    label: str
    line_class: str  # the class colour (charts.css)
    dash: str  # stroke-dasharray, "" for a solid line
    marker: str  # one of MARKERS
    points: tuple[CurvePoint, ...]
    line: str  # SVG polyline points

    @property
    def legend(self) -> LegendEntry:
        return LegendEntry(self.label, self.line_class, self.dash)


@dataclass(frozen=True)
class CurvesChart(PlotFrame):
    y_ticks: tuple[Tick, ...]
    lines: tuple[CurveLine, ...]
    marker_size: float = MARKER_SIZE

    @property
    def legend(self) -> tuple[LegendEntry, ...]:
        return tuple(line.legend for line in self.lines)


def _count_label(size: int) -> str:
    """1, 10, 100, 1,000, 10,000, 100,000, then 10⁶ and beyond."""
    if size < 1_000_000:
        return f"{size:,}"
    exponent = round(math.log10(size))
    return "10" + str(exponent).translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))


def curves_chart(curves, n_words: int, frame: str = "page") -> CurvesChart:
    """Where each point of ``curves`` (the engine's ``SelectionCurve`` records, all over the same sizes) goes: the
    number of words kept on a log axis from 1 to ``n_words`` (the whole vocabulary), the accuracy from 0 to 100 %.

    Parameters
    ----------
    curves : sequence of SelectionCurve
        One per measure, in the order the legend lists them.
    n_words : int
        The vocabulary's size, the axis's right end.
    frame : {"page", "slide"}
        Which of ``FRAMES`` to draw in.

    Returns
    -------
    CurvesChart
    """
    width, height = FRAMES[frame]
    left, right, top, bottom = LEFT, width - RIGHT, TOP, height - BOTTOM
    decades = max(math.log10(max(n_words, 1)), 1.0)  # a vocabulary of fewer than ten words still spans a decade

    def x_of(size: int) -> float:
        return round(left + math.log10(size) / decades * (right - left), 1)

    def y_of(accuracy: float) -> float:
        return round(bottom - accuracy * (bottom - top), 1)

    x_ticks = [Tick(x_of(10**e), _count_label(10**e)) for e in range(int(math.floor(decades + 1e-9)) + 1)]
    # The whole vocabulary, the curves' last point, gets a tick of its own where its label has room beside the last
    # power of ten (labels are about 0.62 em a character).
    last = Tick(x_of(n_words), f"{n_words:,}")
    room = (len(last.label) + len(x_ticks[-1].label)) / 2 * 0.62 * TEXT[frame] + TEXT[frame] / 2
    if n_words > 1 and last.position - x_ticks[-1].position >= room:
        x_ticks.append(last)
    x_ticks = tuple(x_ticks)
    y_ticks = tuple(Tick(y_of(share), f"{share * 100:.0f} %") for share in PERCENT_TICKS)
    lines = []
    for order, curve in enumerate(curves):
        points = tuple(CurvePoint(x_of(size), y_of(accuracy), size, accuracy)
                       for size, accuracy in zip(curve.sizes, curve.accuracies, strict=True))
        lines.append(CurveLine(
            curve.measure, MEASURE_NAMES.get(curve.measure, curve.measure), f"class-{order}",
            DASHES[order % len(DASHES)], MARKERS[order % len(MARKERS)], points,
            " ".join(f"{p.x},{p.y}" for p in points),
        ))
    return CurvesChart(width, height, left, right, top, bottom, x_ticks, y_ticks, tuple(lines))
