"""Geometry of the Beta-prior chart (``webnb.engine.records.beta_prior``): where each curve, estimate and tick goes, so
that the template only draws.

The likelihood, the prior and the posterior are each scaled to their own peak. As densities the posterior of a
thousand documents stands hundreds of times taller than a flat prior, which would then be a line along the axis;
scaled, the three shapes and where each peaks can be compared, and the page says so.
"""
from __future__ import annotations

from dataclasses import dataclass

from webnb.engine.records.beta_prior import BetaPrior
from webnb.lesson.charts import LegendEntry, PlotFrame, Tick

WIDTH, HEIGHT = 760, 330
LEFT, RIGHT, TOP, BOTTOM = 40, 40, 86, 46
LABEL_ROW = 24  # the estimates' labels stand in rows above the plot, so that close estimates stay readable
CURVE_DASHES = {"likelihood": "10 6", "prior": "3 5", "posterior": ""}
MARKER_DASHES = {"mle": "10 6", "map": "", "posterior_mean": "3 5"}
MARKER_LABELS = {"mle": "MLE", "map": "MAP", "posterior_mean": "posterior mean"}


@dataclass(frozen=True)
class CurveLine:
    name: str
    points: str  # SVG polyline points
    dash: str


@dataclass(frozen=True)
class Marker:
    name: str
    label: str
    x: float
    label_y: float
    anchor: str  # "start" or "end": the label runs away from the nearer edge
    dash: str


@dataclass(frozen=True)
class BetaChart(PlotFrame):
    lines: tuple[CurveLine, ...]
    markers: tuple[Marker, ...]

    @property
    def legend(self) -> list[LegendEntry]:
        """A swatch of each curve and its name."""
        return [LegendEntry(line.name, f"curve curve-{line.name}", line.dash) for line in self.lines]


def beta_chart(prior: BetaPrior) -> BetaChart:
    """The likelihood, prior and posterior of ``prior`` on [0, x_max], each scaled to its own peak, with the MLE, the
    MAP and the posterior mean marked."""
    right, bottom = WIDTH - RIGHT, HEIGHT - BOTTOM
    plot_w, plot_h = right - LEFT, bottom - TOP

    def x_at(value: float) -> float:
        return LEFT + value / prior.x_max * plot_w

    lines = []
    for curve in prior.curves:
        drawn, last = [], None
        for x, density in zip(curve.xs, curve.densities, strict=True):
            point = f"{x_at(x):.1f},{bottom - density / curve.peak * plot_h:.1f}"
            if point != last:  # the samples packed around a narrow peak often round to the same pixel
                drawn.append(point)
            last = point
        lines.append(CurveLine(curve.name, " ".join(drawn), CURVE_DASHES[curve.name]))
    markers = []
    for row, estimate in enumerate((prior.mle, prior.map, prior.posterior_mean)):
        if estimate.exact is None:
            continue
        x = x_at(float(estimate.exact))
        markers.append(Marker(estimate.name, MARKER_LABELS[estimate.name], round(x, 1), TOP - 10 - row * LABEL_ROW,
                              "start" if x < (LEFT + right) / 2 else "end", MARKER_DASHES[estimate.name]))
    ticks = tuple(Tick(round(x_at(prior.x_max * i / 4), 1), f"{prior.x_max * i / 4:g}") for i in range(5))
    return BetaChart(WIDTH, HEIGHT, LEFT, right, TOP, bottom, ticks, tuple(lines), tuple(markers))
