"""2 · The bell curves: each class's prior, and per feature its mean and variance, drawn."""
from __future__ import annotations

from dataclasses import dataclass

from webnb.charts import density_chart
from webnb.engine.gaussian.lesson import GaussianParameters, gaussian_parameters
from webnb.views.common import respond
from webnb.views.gaussian.lesson import TableLesson, load_table_lesson


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
    charts = [density_chart(model, j) for j in range(len(model.features))] if model is not None else []
    return respond("gaussian/parameters.html", "parameters", ParametersPage(lesson, learned), lesson=lesson,
                   section="parameters", charts=charts)
