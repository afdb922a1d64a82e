"""3 · Bayes' rule for typed values, step by step: the densities, their product, the normalisation, how the
densities underflow in plain floats, log space, and bells of width zero."""
from __future__ import annotations

from dataclasses import dataclass

from webnb import pages
from webnb.charts import density_chart, slide_density_frames
from webnb.engine.gaussian.lesson import far_row, typical_row, zero_width_cells
from webnb.engine.gaussian.model import GaussianExplanation, explain
from webnb.state import GAUSSIAN_STEPS
from webnb.views.common import respond
from webnb.views.gaussian.lesson import TableLesson, load_table_lesson

STEP_TITLES = dict(pages.GAUSSIAN_INFERENCE_STEPS)
# On a slide the density charts stand side by side, at most this many, each drawn this tall at about a unit a pixel
# so that its labels stay legible; the other features' charts are one key away.
SLIDE_CHARTS_ACROSS, SLIDE_CHART_HEIGHT = 2, 150


@dataclass(frozen=True)
class InferencePage:
    """The inference page: the settings, the step shown, and the explanation of the typed values (None when no
    model could be made)."""

    lesson: TableLesson
    step: str
    explained: GaussianExplanation | None

    def to_dict(self) -> dict:
        data = {**self.lesson.to_dict(), "error": self.lesson.error, "step": self.step}
        if self.explained is not None:
            data["explanation"] = self.explained.to_dict()
        return data


def inference(corpus_id):
    lesson = load_table_lesson(corpus_id)
    state, model, entry = lesson.state, lesson.model, lesson.entry
    explained = explain(model, lesson.values) if model is not None else None
    typical = typical_row(entry.table, entry.sample)
    # Only what the step on screen draws: this runs on every keystroke.
    charts = zero_cells = None
    more_charts = ()
    if model is not None and state.step == "densities" and state.presenter:
        frame, across = slide_density_frames(len(lesson.values), SLIDE_CHARTS_ACROSS, SLIDE_CHART_HEIGHT)
        drawn = [density_chart(model, j, v, frame) for j, v in enumerate(lesson.values)]
        charts, more_charts = drawn[:across], drawn[across:]
    elif model is not None and state.step == "densities":
        charts = [density_chart(model, j, v) for j, v in enumerate(lesson.values)]
    if model is not None and state.step == "zero-width":
        zero_cells = zero_width_cells(model, lesson.values)
    return respond(
        "gaussian/inference.html",
        "inference",
        InferencePage(lesson, state.step, explained),
        lesson=lesson,
        section="inference",
        steps=[(step, STEP_TITLES[step]) for step in GAUSSIAN_STEPS],
        step_index=state.step_index,
        typical=typical,
        far=far_row(entry.table, typical, entry.far),
        explained=explained,
        charts=charts,
        more_charts=more_charts,
        zero_cells=zero_cells,
    )
