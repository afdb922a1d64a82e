"""3 · Bayes' rule for typed values, step by step: the densities, their product, the normalisation, how the
densities underflow in plain floats, log space, and bells of width zero."""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

from webnb.engine.gaussian.lesson import far_row, typical_row, zero_width_cells
from webnb.engine.gaussian.model import GaussianExplanation, explain
from webnb.lesson import pages
from webnb.lesson.charts import density_chart, slide_density_frames
from webnb.lesson.state import GAUSSIAN_STEPS
from webnb.views.common import respond
from webnb.views.gaussian.lesson import TableLesson, load_table_lesson

STEP_TITLES = dict(pages.GAUSSIAN_INFERENCE_STEPS)
# On a slide the density charts stand side by side, at most this many, each drawn this tall at about a unit a pixel
# so that its labels stay legible; the other features' charts are one key away.
SLIDE_CHARTS_ACROSS, SLIDE_CHART_HEIGHT = 2, 150
CONDENSED_CHART_HEIGHT = 120  # over a condensed table, which needs the room
# A slide's tables have the classes across and the features down: up to ALL_CLASSES classes and ALL_FEATURES features
# all fit; beyond that a slide shows SLIDE_CLASSES classes and SLIDE_FEATURES features, the rest one key away.
ALL_CLASSES, SLIDE_CLASSES = 4, 3
ALL_FEATURES, SLIDE_FEATURES = 6, 4


@dataclass(frozen=True)
class SlideRows:
    """The classes and features a slide's condensed tables show, as indices into the model's: all of them when they
    fit; otherwise the classes with the largest log joint ℓ_k (the decided class first, then the runner-up), and the
    features whose log-densities differ most between those two, which are the features that decided between them."""

    classes: tuple[int, ...]
    features: tuple[int, ...]
    n_classes: int
    n_features: int

    @property
    def more_classes(self) -> int:
        return self.n_classes - len(self.classes)

    @property
    def more_features(self) -> int:
        return self.n_features - len(self.features)

    def narrowed(self, most: int) -> SlideRows:
        """The same, with only the first ``most`` of its features (for a table with a column per feature)."""
        return replace(self, features=self.features[:most])

    def to_dict(self, explained: GaussianExplanation) -> dict:
        first = explained.classes[0].terms
        return {"classes": [explained.classes[k].label for k in self.classes],
                "features": [first[j].feature for j in self.features],
                "more_classes": self.more_classes, "more_features": self.more_features}


def _rank_key(value: float) -> float:
    """A number to sort by, largest first: NaN (∞ − ∞, which tells nothing) counts as nothing."""
    return -math.inf if math.isnan(value) else value


def slide_rows(explained: GaussianExplanation) -> SlideRows:
    """What a slide of ``explained`` shows of its classes and features (see SlideRows)."""
    classes, features = explained.classes, explained.classes[0].terms
    n_classes, n_features = len(classes), len(features)
    if n_classes <= ALL_CLASSES:
        shown_classes = tuple(range(n_classes))
    else:  # the highest ℓ_k first; a tie keeps the classes' order
        ranked = sorted(range(n_classes), key=lambda k: (-_rank_key(classes[k].log_joint), k))
        shown_classes = tuple(ranked[:SLIDE_CLASSES])
    if n_features <= ALL_FEATURES:
        shown_features = tuple(range(n_features))
    else:
        first, second = (classes[k].terms for k in shown_classes[:2])

        def gap(j: int) -> float:
            difference = abs(first[j].log_density - second[j].log_density)
            return 0.0 if math.isnan(difference) else difference

        shown_features = tuple(sorted(range(n_features), key=lambda j: (-gap(j), j))[:SLIDE_FEATURES])
    return SlideRows(shown_classes, shown_features, n_classes, n_features)


@dataclass(frozen=True)
class InferencePage:
    """The inference page: the settings, the step shown, and the explanation of the typed values (None when no
    model could be made)."""

    lesson: TableLesson
    step: str
    explained: GaussianExplanation | None
    slide: SlideRows | None = None  # what a slide shows of the classes and features

    def to_dict(self) -> dict:
        data = {**self.lesson.to_dict(), "error": self.lesson.error, "step": self.step}
        if self.explained is not None:
            data["explanation"] = self.explained.to_dict()
        if self.slide is not None:
            data["slide"] = self.slide.to_dict(self.explained)
        return data


def inference(corpus_id):
    lesson = load_table_lesson(corpus_id)
    state, model, entry = lesson.state, lesson.model, lesson.entry
    explained = explain(model, lesson.values) if model is not None else None
    slide = slide_rows(explained) if explained is not None else None
    typical = typical_row(entry.table, entry.sample)
    # Only what the step on screen draws: this runs on every keystroke.
    charts = zero_cells = None
    more_charts = ()
    if model is not None and state.step == "densities" and state.presenter:
        # The features that matter most first, each chart with the curves of the classes the slide shows.
        height = SLIDE_CHART_HEIGHT if not slide.more_features else CONDENSED_CHART_HEIGHT
        frame, across = slide_density_frames(len(lesson.values), SLIDE_CHARTS_ACROSS, height)
        order = [*slide.features, *(j for j in range(len(lesson.values)) if j not in slide.features)]
        drawn = [density_chart(model, j, lesson.values[j], frame) for j in order]
        if slide.more_classes:
            drawn = [{**chart, "lines": [chart["lines"][k] for k in slide.classes]} for chart in drawn]
        charts, more_charts = drawn[:across], drawn[across:]
    elif model is not None and state.step == "densities":
        charts = [density_chart(model, j, v) for j, v in enumerate(lesson.values)]
    if model is not None and state.step == "zero-width":
        zero_cells = zero_width_cells(model, lesson.values)
    return respond(
        "gaussian/inference.html",
        "inference",
        InferencePage(lesson, state.step, explained, slide),
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
        slide_rows=slide,
    )
