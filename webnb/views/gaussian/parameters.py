"""2 · The bell curves: each class's prior, and per feature its mean and variance, drawn."""
from __future__ import annotations

from dataclasses import dataclass

from webnb.engine.gaussian.lesson import GaussianParameters, gaussian_parameters
from webnb.lesson.charts import density_chart, slide_density_frames
from webnb.views.common import respond
from webnb.views.gaussian.lesson import TableLesson, load_table_lesson

# On the slide the bell curves stand side by side, at most this many, each drawn this tall at about a unit a pixel;
# the other features' are one key away.
SLIDE_CHARTS_ACROSS, SLIDE_CHART_HEIGHT = 2, 240


@dataclass(frozen=True)
class ParametersPage:
    """The parameters page: the settings, and what the model learned (None when no model could be made)."""

    lesson: TableLesson
    parameters: GaussianParameters | None

    def to_dict(self) -> dict:
        data = {**self.lesson.to_dict(), "error": self.lesson.error}
        if self.parameters is not None:
            data.update(self.parameters.to_dict())
        return data


def parameters(corpus_id):
    lesson = load_table_lesson(corpus_id)
    model = lesson.model
    learned = gaussian_parameters(model) if model is not None else None
    frame, across = None, 0
    if model is not None and lesson.state.presenter:  # the slide's charts
        frame, across = slide_density_frames(len(model.features), SLIDE_CHARTS_ACROSS, SLIDE_CHART_HEIGHT)
    charts = [density_chart(model, j, frame=frame) for j in range(len(model.features))] if model is not None else []
    return respond("gaussian/parameters.html", "parameters", ParametersPage(lesson, learned), lesson=lesson,
                   section="parameters", charts=charts, slide_across=across)
