"""Geometry of the inline SVG charts: where each point, tick and label goes, so that templates only draw.

The α sweep (evaluation) is drawn against log α. α = 0 has no place on a log scale, so it gets its own column to the
left of a break in the axis; an infinite log loss is drawn at the top edge with an upward arrow and "∞".
"""
from __future__ import annotations

import dataclasses
import math
import sys
from dataclasses import dataclass

import numpy as np

from webnb.engine.records.insights import AlphaSweep

WIDTH = 760
PANEL_HEIGHT = 190
LEFT, RIGHT, TOP, BOTTOM = 88, 24, 16, 44
ZERO_COLUMN = 76  # room for the α = 0 point left of the axis break


@dataclass(frozen=True)
class LegendEntry:
    """One line of a chart's legend: the words and how its swatch is drawn (the class and dash of the line it
    stands for). The page's legend and the downloaded SVG file's are both drawn from these."""

    label: str
    line_class: str
    dash: str = ""


@dataclass(frozen=True)
class Tick:
    position: float
    label: str


@dataclass(frozen=True)
class PlotFrame:
    """What every chart drawn on a page and a slide starts with: the drawing's size, its plot area's edges and the
    ticks of its x axis (the charts add their own y ticks, lines and markers)."""

    width: int
    height: int
    left: float
    right: float
    top: float
    bottom: float
    x_ticks: tuple


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    alpha: float
    value: float
    infinite: bool  # drawn at the panel's top edge with an arrow (log loss +∞)


@dataclass(frozen=True)
class Panel:
    title: str
    top: float  # y of the panel's upper edge
    height: float
    y_ticks: tuple[Tick, ...]
    line: str  # SVG polyline points through the finite values at α > 0
    points: tuple[Point, ...]
    best: Point | None
    current: Point | None
    marks: tuple[Point, ...] = ()  # the accuracy panel's: the α and score each student of a class found


@dataclass(frozen=True)
class SweepChart:
    width: int
    height: int
    axis_left: float  # where the value ticks stand, left of the α = 0 column
    plot_left: float
    plot_right: float
    zero_x: float | None  # x of the α = 0 column, None when 0 was not swept
    x_ticks: tuple[Tick, ...]
    current_x: float | None
    panels: tuple[Panel, ...]
    best_alpha: float
    current_alpha: float | None


def _alpha_label(alpha: float) -> str:
    if alpha == 0:
        return "0"
    exponent = math.log10(alpha)
    if abs(exponent - round(exponent)) < 1e-9:
        return f"10{_superscript(int(round(exponent)))}" if abs(exponent) >= 3 else f"{alpha:g}"
    return f"{alpha:.3g}"


def _superscript(n: int) -> str:
    return str(n).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))


def _nice_step(span: float) -> float:
    raw = span / 4
    magnitude = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 2.5, 5, 10):
        if factor * magnitude >= raw:
            return factor * magnitude
    return 10 * magnitude


def _value_range(values: list[float], floor: float | None = None, ceiling: float | None = None) -> tuple[float, float]:
    low, high = min(values), max(values)
    if high - low < 1e-12:
        low, high = low - 0.05 * (abs(low) or 1), high + 0.05 * (abs(high) or 1)
    pad = (high - low) * 0.08
    low, high = low - pad, high + pad
    if floor is not None:
        low = max(low, floor)
    if ceiling is not None:
        high = min(high, ceiling)
    return low, high


def _alpha_decades(sweep: AlphaSweep, current_alpha: float | None, marked=()) -> tuple[int, int]:
    """The powers of ten the α axis runs between: around every positive α shown (the sweep's, the current one and
    the ``marked`` ones), a decade further either way when they are one and the same power of ten; 10⁻³ to 10 when
    none is."""
    positive = [p.alpha for p in sweep.points if p.alpha > 0] + [alpha for alpha in marked if alpha > 0]
    if current_alpha is not None and current_alpha > 0:
        positive.append(current_alpha)
    if not positive:
        return -3, 1
    low, high = math.floor(math.log10(min(positive))), math.ceil(math.log10(max(positive)))
    if low == high:
        low, high = low - 1, high + 1
    return low, high


def sweep_chart(sweep: AlphaSweep, current_alpha: float | None = None, current_accuracy: float | None = None,
                current_log_loss: float | None = None, marks=()) -> SweepChart:
    """Two panels sharing the α axis: accuracy above, log loss below. The current α (with its own accuracy and
    log loss, from the evaluation at that α) is marked, and so is the best α of the sweep; ``marks``, (α, accuracy)
    pairs, are drawn on the accuracy panel (a class's answers)."""
    marks = tuple((float(alpha), float(accuracy)) for alpha, accuracy in marks)
    has_zero = any(p.alpha == 0 for p in sweep.points) or current_alpha == 0 or any(a == 0 for a, _ in marks)
    plot_left = LEFT + (ZERO_COLUMN if has_zero else 0)
    plot_right = WIDTH - RIGHT
    zero_x = LEFT + ZERO_COLUMN / 2 - 10 if has_zero else None
    low, high = _alpha_decades(sweep, current_alpha, [alpha for alpha, _ in marks])

    def x_of(alpha: float) -> float:
        if alpha == 0:
            return zero_x
        return plot_left + (math.log10(alpha) - low) / (high - low) * (plot_right - plot_left)

    x_ticks = [Tick(x_of(10.0**e), _alpha_label(10.0**e)) for e in range(low, high + 1)]
    if has_zero:
        x_ticks.insert(0, Tick(zero_x, "0"))

    def panel(index: int, title: str, values: list[float], current_value, as_percent: bool, marked=()) -> Panel:
        top = TOP + index * (PANEL_HEIGHT + BOTTOM)
        finite = [v for v in values if math.isfinite(v)] + [v for _, v in marked if math.isfinite(v)]
        if current_value is not None and math.isfinite(current_value):
            finite.append(current_value)
        low_v, high_v = _value_range(finite or [0.0], 0.0 if as_percent else None, 1.0 if as_percent else None)
        step = _nice_step(high_v - low_v)

        def y_of(value: float) -> float:
            if not math.isfinite(value):
                return top
            return top + PANEL_HEIGHT - (value - low_v) / (high_v - low_v) * PANEL_HEIGHT

        ticks = []
        tick = math.ceil(low_v / step) * step
        while tick <= high_v + 1e-12:
            label = f"{tick:.0%}" if as_percent and step >= 0.01 else (f"{tick:.1%}" if as_percent else f"{tick:.3g}")
            ticks.append(Tick(y_of(tick), label))
            tick += step
        points = tuple(
            Point(x_of(p.alpha), y_of(v), p.alpha, v, not math.isfinite(v))
            for p, v in zip(sweep.points, values, strict=True)
        )
        line = " ".join(f"{pt.x:.1f},{pt.y:.1f}" for pt in points if pt.alpha > 0 and not pt.infinite)
        best_value = values[list(sweep.points).index(sweep.best)]
        best = Point(x_of(sweep.best.alpha), y_of(best_value), sweep.best.alpha, best_value,
                     not math.isfinite(best_value))
        current = None
        if current_alpha is not None and current_value is not None:
            current = Point(x_of(current_alpha), y_of(current_value), current_alpha, current_value,
                            not math.isfinite(current_value))
        shown = tuple(Point(x_of(alpha), y_of(v), alpha, v, not math.isfinite(v)) for alpha, v in marked)
        return Panel(title, top, PANEL_HEIGHT, tuple(ticks), line, points, best, current, shown)

    panels = (panel(0, "accuracy", [p.accuracy for p in sweep.points], current_accuracy, True, marks),)
    if all(p.log_loss is not None for p in sweep.points):  # scores that are not probabilities have no log loss
        panels += (panel(1, "log loss", [p.log_loss for p in sweep.points], current_log_loss, False),)
    return SweepChart(
        width=WIDTH,
        axis_left=LEFT,
        height=TOP + len(panels) * (PANEL_HEIGHT + BOTTOM) + 28,
        plot_left=plot_left,
        plot_right=plot_right,
        zero_x=zero_x,
        x_ticks=tuple(x_ticks),
        current_x=x_of(current_alpha) if current_alpha is not None else None,
        panels=panels,
        best_alpha=sweep.best.alpha,
        current_alpha=current_alpha,
    )


def accuracy_only(chart: SweepChart) -> SweepChart:
    """The sweep chart's accuracy panel alone (a class's tuning question, on the projector: half the height, so
    that its type stays large)."""
    accuracy = chart.panels[0]
    return dataclasses.replace(chart, panels=(accuracy,), height=accuracy.top + accuracy.height + BOTTOM + 28)


# -- the overconfidence of repeated evidence ------------------------------------------------------------------------

# Doubles just below 1 are 2⁻⁵³ apart, so a posterior within 2⁻⁵⁴ of 1 rounds to exactly 1.0.
LOG10_ROUNDS_TO_ONE = -54 * math.log10(2)
SUPERSCRIPT_DIGITS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def _tick_step(span: float, most: int, steps=(1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500)) -> int:
    for step in steps:
        if span / step <= most:
            return step
    return steps[-1]


def power_of_ten(log10_value: float | None) -> str:
    """10^x written as "3.162 × 10⁻¹⁸⁰", from its logarithm, so that a value far below the smallest float64 prints."""
    if log10_value is None:
        return "—"
    if log10_value == -math.inf:
        return "0"
    exponent = math.floor(log10_value)
    mantissa = 10 ** (log10_value - exponent)
    if mantissa >= 9.9995:  # 9.99996 would print as "10.00 × 10ⁿ"
        mantissa, exponent = 1.0, exponent + 1
    if -3 <= exponent <= 0:
        return f"{10 ** log10_value:.4g}"
    return f"{mantissa:.3f} × {_decade(exponent)}"


# The plot area inside each SVG's viewBox (960 × 440): room on the left for tick labels, below for the axis title.
PLOT = {"width": 960, "height": 440, "left": 130, "right": 930, "top": 20, "bottom": 350}
# Each class line takes the colour of its place (static/charts.css: .class-0 … .class-5, chosen to stay apart under the
# common colour-vision deficiencies and in each theme) and a dash pattern, so that the lines differ without colour.
CLASS_COLOURS = 6
DASHES = ("", "14 7", "4 5", "14 5 4 5", "2 4", "8 8")


def _decade(exponent: int) -> str:
    return "1" if exponent == 0 else "10" + str(exponent).replace("-", "⁻").translate(SUPERSCRIPT_DIGITS)


def _x_axis(n_max: int) -> tuple:
    left, right = PLOT["left"], PLOT["right"]

    def x(n: float) -> float:
        return left + (right - left) * ((n - 1) / (n_max - 1) if n_max > 1 else 0.5)

    step = _tick_step(n_max, 10)
    ticks = [1] + [n for n in range(step, n_max + 1, step) if n != 1]
    return x, [{"at": round(x(n), 1), "label": str(n)} for n in ticks]


def repeat_posterior_chart(curve, plotted: list[int], n_max: int, saturates_at) -> dict:
    """Each plotted class's posterior against the number of repeats 1 … n_max (an ``insights.Overconfidence``)."""
    top, bottom = PLOT["top"], PLOT["bottom"]
    x, x_ticks = _x_axis(n_max)

    def y(p: float) -> float:
        return bottom - (bottom - top) * p

    lines = []
    for order, k in enumerate(plotted):
        points = " ".join(f"{x(p.repeats):.1f},{y(p.posteriors[k]):.1f}" for p in curve.points)
        lines.append({"label": curve.classes[k], "points": points, "index": order % CLASS_COLOURS,
                      "dash": DASHES[order]})
    legend = [LegendEntry(line["label"], f"class-{line['index']}", line["dash"]) for line in lines]
    if saturates_at is not None:
        legend.append(LegendEntry("float64 says 1.0 from here", "saturation"))
    return {
        **PLOT,
        "lines": lines,
        "legend": legend,
        "x_ticks": x_ticks,
        "y_ticks": [
            {"at": round(y(v), 1), "label": label}
            for v, label in ((0, "0"), (0.25, "0.25"), (0.5, "0.5"), (0.75, "0.75"), (1, "1"))
        ],
        "saturation": None if saturates_at is None else round(x(saturates_at), 1),
    }


def repeat_doubt_chart(curve, doubts, n_max: int, saturates_at) -> dict | None:
    """log₁₀(1 − top posterior) against the repeats, with the level below which float64 rounds to 1.0; None when
    there is no doubt to draw (every other class impossible)."""
    finite = [d for d in doubts if d is not None and d != -math.inf]
    if not finite:
        return None
    top, bottom = PLOT["top"], PLOT["bottom"]
    x, x_ticks = _x_axis(n_max)
    lowest = min(min(finite), LOG10_ROUNDS_TO_ONE if saturates_at else 0.0, -1.0)
    step = _tick_step(-lowest, 7)
    floor = -step * math.ceil(-lowest / step)

    def y(value: float) -> float:
        return top + (bottom - top) * (value / floor)

    # A point with no doubt at all (every other class impossible) cannot be drawn on a log scale: it breaks the line.
    segments, current = [], []
    for p, d in zip(curve.points, doubts, strict=True):
        if d is None or d == -math.inf:
            if current:
                segments.append(" ".join(current))
            current = []
        else:
            current.append(f"{x(p.repeats):.1f},{y(d):.1f}")
    if current:
        segments.append(" ".join(current))
    return {
        **PLOT,
        "segments": segments,
        "x_ticks": x_ticks,
        "y_ticks": [{"at": round(y(-e), 1), "label": _decade(-e)} for e in range(0, -floor + 1, step)],
        "rounds_to_one": round(y(LOG10_ROUNDS_TO_ONE), 1) if LOG10_ROUNDS_TO_ONE >= floor else None,
        "saturation": None if saturates_at is None else round(x(saturates_at), 1),
    }


# --- Gaussian NB: each class's bell curve for one feature ------------------------------------------------------

DENSITY_WIDTH, DENSITY_HEIGHT = 460, 210
DENSITY_LEFT, DENSITY_RIGHT, DENSITY_TOP, DENSITY_BOTTOM = 72, 16, 14, 40
DENSITY_SAMPLES = 161
# Dash patterns per class, so that the curves differ without colour too.
DENSITY_DASHES = ("", "8 5", "2 4", "12 4 2 4", "4 2")


@dataclass(frozen=True)
class DensityFrame:
    """A slide's density panel: ``width`` × ``height`` units drawn at about one pixel each, with labels of ``text``
    units (static/presenter.css gives a slide's chart text that size: SLIDE_DENSITY_TEXT). Its margins are made to
    hold its labels at that size; the page's panel keeps its own fixed ones."""

    width: float
    height: float
    text: float = 0.0

    def __post_init__(self):
        if not self.text:
            object.__setattr__(self, "text", SLIDE_DENSITY_TEXT)


# The size of a slide chart's text, in SVG units drawn about a pixel each: 20 px at the least even when the chart is
# drawn up to a tenth smaller than planned. Keep it equal to the font size of `svg.slide-chart text` in presenter.css.
SLIDE_DENSITY_TEXT = 23
# A slide's content is this wide at 1024 pixels (main's padding taken off), its charts side by side this far apart.
SLIDE_WIDTH, SLIDE_CHART_GAP = 980, 13


def slide_density_frames(count: int, most: int, height: float) -> tuple[DensityFrame, int]:
    """The frame of each of ``count`` panels side by side across a slide, at most ``most`` of them in a row, and
    how many go in the row (the rest are drawn at the same size under a disclosure)."""
    across = max(1, min(count, most))
    width = (SLIDE_WIDTH - SLIDE_CHART_GAP * (across - 1)) / across
    return DensityFrame(math.floor(width), height), across


def _text_width(label: str, size: float) -> float:
    """About how wide a label is drawn at font size ``size`` (digits and signs are about 0.62 em in the sans)."""
    return len(label) * 0.62 * size


def density_chart(model, feature: int, marker: float | None = None, frame: DensityFrame | None = None) -> dict:
    """Geometry of one feature's panel: a curve per class over μ ± 4σ of every class, ticks, and where the typed
    value ``marker`` stands (or an arrow at the edge saying how far off it is). A class whose variance is 0 is a
    vertical spike at its mean, marked ∞. Values near ±1.8e308 or near the smallest floats are drawn too: the axis
    is computed in halves where a span would overflow, and never narrower than the floats can tell apart.

    With ``frame`` (a slide's) the panel has that size, margins that hold its labels at the frame's text size, the
    word "density" up the y axis, and only as many ticks as have room for their labels."""
    means = model.means[:, feature]
    variances = model.smoothed_variances[:, feature]
    sds = np.sqrt(variances)
    with np.errstate(over="ignore"):
        ends = np.clip(np.concatenate([means - 4 * sds, means + 4 * sds]), -_LARGEST, _LARGEST)
    low, high = _density_range(float(ends.min()), float(ends.max()))
    if high / 2 - low / 2 < _LARGEST / 2:
        xs = np.linspace(low, high, DENSITY_SAMPLES)
    else:  # high − low is beyond the largest float: blend the two ends instead
        t = np.linspace(0.0, 1.0, DENSITY_SAMPLES)
        xs = low * (1.0 - t) + high * t
    curves = model.densities_on(feature, xs)
    # The tallest bell's exact top, 1/√(2πσ²), not the largest sampled point, so the axis label is a true value.
    widths = variances[variances > 0]
    peak = float(1.0 / (math.sqrt(2 * math.pi) * math.sqrt(float(widths.min())))) if len(widths) else 1.0
    peak_label = f"{peak:.3g}"
    if frame is None:
        width, height, text = DENSITY_WIDTH, DENSITY_HEIGHT, None
        left, right_margin, top = DENSITY_LEFT, DENSITY_RIGHT, DENSITY_TOP
        bottom_margin = DENSITY_BOTTOM
    else:
        width, height, text = frame.width, frame.height, frame.text
        # The word "density" runs up the left edge; the tallest bell's height stands right of it.
        left = math.ceil(1.5 * text + _text_width(peak_label, text) + 10)
        # The typed value's label goes above the plot.
        right_margin, top = math.ceil(1.2 * text), math.ceil((1.2 if marker is not None else 0.5) * text)
        bottom_margin = math.ceil(1.5 * text)
    plot_w = width - left - right_margin
    plot_h = height - top - bottom_margin
    bottom = top + plot_h
    half_span = high / 2 - low / 2

    def x_at(value: float) -> float:
        return left + (value / 2 - low / 2) / half_span * plot_w  # halves: the same ratio, never overflowing

    def y_at(density: float) -> float:
        return bottom - density / (peak * 1.08) * plot_h

    lines = []
    for k, label in enumerate(model.classes):
        spike = variances[k] == 0
        points = "" if spike else " ".join(f"{x_at(x):.1f},{y_at(y):.1f}" for x, y in zip(xs, curves[k], strict=True))
        lines.append({
            "label": label, "index": k % CLASS_COLOURS, "dash": DENSITY_DASHES[k % len(DENSITY_DASHES)],
            "points": points,
            "spike": bool(spike), "spike_x": round(x_at(means[k]), 1), "mean": float(means[k]), "sd": float(sds[k]),
        })
    ticks = [Tick(round(x_at(value), 1), label) for value, label in _density_ticks(low, high)]
    if text is not None:
        ticks = _ticks_with_room(ticks, text)
    mark = None
    if marker is not None:
        if low <= marker <= high:
            mark = {"x": round(x_at(marker), 1), "inside": True, "label": f"x = {marker:g}"}
        else:
            right = marker > high
            mark = {"x": left + plot_w - 4 if right else left + 4, "inside": False, "right": right,
                    "label": f"x = {marker:g} {'→' if right else '←'}"}
    # Where the labels go: under the ticks, beside the peak, at the top of the marker and of a spike. A marker
    # label turns to the left of its line when it has no room on the right.
    if text is None:
        labels = {"text": None, "tick_label_y": bottom + 20, "label_dy": 5, "top_label_y": top + 10,
                  "spike_label_y": top + 12, "turn_at": left + plot_w - 80, "density_title": None}
    else:
        room = _text_width(mark["label"], text) + 8 if mark else 0
        labels = {"text": text, "tick_label_y": round(bottom + 1.2 * text, 1), "label_dy": round(0.35 * text, 1),
                  "top_label_y": round(top - 0.3 * text, 1), "spike_label_y": round(top + 0.9 * text, 1),
                  "turn_at": round(left + plot_w - room, 1),
                  "density_title": {"x": round(1.05 * text, 1), "y": round(top + plot_h / 2, 1)}}
    return {
        "feature": model.features[feature],
        "width": width, "height": height, "left": left, "top": top,
        "right": left + plot_w, "bottom": bottom,
        "lines": lines, "ticks": ticks, "marker": mark,
        "legend": [LegendEntry(line["label"], f"curve class-{line['index']}", line["dash"])
                   for line in lines], "peak": peak, "peak_y": round(y_at(peak), 1),
        "peak_label": peak_label, **labels,
    }


def _ticks_with_room(ticks: list[Tick], text: float) -> list[Tick]:
    """Every n-th tick (n as small as it can be) so that no two labels at font size ``text`` touch; at least the
    first and the last."""
    if len(ticks) < 3:
        return ticks
    widest = max(_text_width(t.label, text) for t in ticks)
    for every in range(1, len(ticks)):
        kept = ticks[::every]
        if all(b.position - a.position >= widest + 0.6 * text for a, b in zip(kept, kept[1:], strict=False)):
            return kept
    return [ticks[0], ticks[-1]]


_LARGEST = sys.float_info.max
# The narrowest axis relative to the size of its numbers: 161 samples and five ticks must still be different floats.
_NARROWEST = 1e-12
_MOST_TICKS = 12


def _density_range(low: float, high: float) -> tuple[float, float]:
    """``_value_range`` for the density axis, safe at the float64 limits: a flat range (only spikes, or bells too
    narrow for the floats around them) is widened around its middle, and 8 % is added on each side, all without
    overflow."""
    size = max(abs(low), abs(high))
    if high / 2 - low / 2 < max(_NARROWEST * size, 0.5e-12):
        middle = low / 2 + high / 2
        # 5 % of the middle; ±0.05 around 0 and around numbers so small that 5 % of them would underflow.
        half = 0.05 * abs(middle) if abs(middle) >= 1e-290 else 0.05
        with np.errstate(over="ignore"):
            low, high = max(middle - half, -_LARGEST), min(middle + half, _LARGEST)
    pad = (high / 2 - low / 2) * 0.16  # 8 % of the span
    with np.errstate(over="ignore"):
        return max(low - pad, -_LARGEST), min(high + pad, _LARGEST)


def _density_ticks(low: float, high: float) -> list[tuple[float, str]]:
    """Round values between ``low`` and ``high`` with labels precise enough to differ; just the two ends where
    no round step can be found (spans of a few subnormals)."""
    raw = (high / 2 - low / 2) / 2  # a quarter of the span
    magnitude = 10.0 ** math.floor(math.log10(raw)) if raw > 0 else 0.0
    step = next((f * magnitude for f in (1, 2, 2.5, 5, 10) if f * magnitude >= raw), 10 * magnitude)
    first, last = (
        (math.ceil(low / step), math.floor(high / step + 1e-9)) if step > 0 and math.isfinite(step) else (1, 0)
    )
    if not 0 <= last - first < _MOST_TICKS:
        return [(low, _tick_label(low, high - low)), (high, _tick_label(high, high - low))]
    return [(i * step, _tick_label(i * step, step)) for i in range(first, last + 1)]


def _tick_label(value: float, step: float) -> str:
    """Six significant digits, or as many as it takes to tell ticks ``step`` apart (17 at most)."""
    digits = 6
    if value and step and math.isfinite(step):
        digits = min(17, max(6, math.ceil(math.log10(abs(value) / step)) + 2))
    return f"{value:.{digits}g}".replace("-", "−")


# -- which words decided: one bar per word, from an axis, towards the chosen class or against it ---------------------

CONTRIBUTION_BAR = 30  # the height of a row
CONTRIBUTION_NAME_X, CONTRIBUTION_VALUE_X = 230, 335  # where the names and the values end (right-aligned)
CONTRIBUTION_AXIS, CONTRIBUTION_HALF = 615, 270  # the axis, and the room on either side of it
CONTRIBUTION_FINITE = 0.85  # finite bars use this share of the room; an infinite one runs to the edge, dashed
CONTRIBUTION_WIDTH, CONTRIBUTION_MARGIN = 900, 5


@dataclass(frozen=True)
class ContributionBar:
    entry: object  # the contribution (its log ratio, its word or kind)
    y: float  # the row's top
    x: float  # the bar's left edge
    width: float
    towards: bool  # to the right of the axis: for the chosen class
    infinite: bool


def contributions_chart(contributions) -> dict:
    """Where each row of "which words decided" goes (``contributions``: the lesson's record of them): names and
    values right-aligned in their columns, then the bar from the axis, scaled by the largest finite |log ratio|.
    Names, values and bars never overlap. For Bernoulli, the absent words that weigh most have rows of their own,
    in the place of the absent words' bar."""
    entries = []
    for entry in contributions.entries:
        if entry.kind == "absent" and contributions.absent_named:
            entries.extend(contributions.absent_named)
        else:
            entries.append(entry)
    finite = [abs(e.log_ratio) for e in entries if math.isfinite(e.log_ratio)]
    scale = (max(finite) if finite else 1) or 1
    bars = []
    for index, entry in enumerate(entries):
        value, y = entry.log_ratio, index * CONTRIBUTION_BAR + CONTRIBUTION_MARGIN
        infinite = math.isinf(value)
        width = CONTRIBUTION_HALF if infinite else abs(value) / scale * CONTRIBUTION_HALF * CONTRIBUTION_FINITE
        towards = value >= 0
        bars.append(ContributionBar(entry, y, CONTRIBUTION_AXIS if towards else CONTRIBUTION_AXIS - width, width,
                                    towards, infinite))
    height = len(entries) * CONTRIBUTION_BAR
    return {"bars": bars, "width": CONTRIBUTION_WIDTH, "height": height + 20, "axis": CONTRIBUTION_AXIS,
            "axis_end": height + 10, "bar_height": CONTRIBUTION_BAR - 6, "name_x": CONTRIBUTION_NAME_X,
            "value_x": CONTRIBUTION_VALUE_X, "baseline": 21, "bar_top": 3}
