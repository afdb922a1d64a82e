"""The model run forwards: sampled documents, and the overconfidence of repeated evidence."""
from __future__ import annotations

from dataclasses import dataclass

from flask import Blueprint, request

from webnb.engine.evaluation.heldout import HeldOut
from webnb.engine.records.confidence import CurveReading, read_curve
from webnb.engine.records.insights import Calibration, calibration, overconfidence
from webnb.engine.records.sampling import SampleStory, sample_story
from webnb.lesson.charts import repeat_doubt_chart, repeat_posterior_chart
from webnb.lesson.notation import NOTATIONS
from webnb.lesson.state import Parameter, class_of_the_corpus, page_parameters, whole_number
from webnb.views.common import load_held_out, load_lesson, respond

bp = Blueprint("generative", __name__)

MAX_SAMPLE_LENGTH = 1000
# The sample's own random seed, the page parameter "draw". It is not the lesson state's ``seed``: that one fixes the
# held-out split of the evaluation pages, which paging through samples must leave alone.
MAX_DRAW = 2**32 - 1
# The sampling page's own parameters.
PARAMETERS = page_parameters(
    Parameter("class", class_of_the_corpus, "“{raw:.100}” is not a class of this corpus, so the class is drawn from "
              "the prior instead. The classes are: {classes}.", default="", field="sampled_class", spaces="keep",
              needs=("classes",)),
    Parameter("draw", whole_number(0, MAX_DRAW),
              f"The draw is a whole number from 0 to {MAX_DRAW:,}, not “{{raw:.20}}”; draw 0 is shown instead.",
              default=0),
    Parameter("length", whole_number(1, MAX_SAMPLE_LENGTH),
              f"The length is a whole number of words from 1 to {MAX_SAMPLE_LENGTH:,}, not “{{raw:.20}}”; the mean "
              "length of the class is used instead."),
)

SHOWN_WORDS = 60  # drawn words shown with their probability at once; the rest behind a disclosure
DEFAULT_REPEATS = 50
MAX_REPEATS = 500
SURE = 0.99  # a test document with a top posterior this high counts as "sure"


# -- 1. a sampled document -------------------------------------------------------------------------------------------


def _chosen_class(model, messages: list) -> str:
    """The class asked for, or "" to draw it from the prior (also when the class asked for is none of the model's)."""
    reading = PARAMETERS["sampled_class"].read(request.args, classes=model.classes)
    if reading.message:
        messages.append(reading.message)
    return reading.value


def _chosen_length(model, messages: list) -> int | None:
    """The length asked for, or None for the class's mean length (also when it cannot be used, saying why)."""
    reading = PARAMETERS["length"].read(request.args)
    if reading.text and model.kind == "bernoulli":
        messages.append("A Bernoulli document has no length to choose: each vocabulary word is present or not, "
                        "on its own coin flip. The length you asked for is not used; switch to the multinomial model "
                        "to choose one.")
        return None
    if reading.message:
        messages.append(reading.message)
    return reading.value


@dataclass(frozen=True)
class SamplePage:
    """The sample page: the engine's story of the sample, and what the page says about its own parameters."""

    story: SampleStory
    chosen: str  # the class asked for; "" when it is drawn from the prior
    length: int | None  # the length asked for; None for the class's mean
    parameter: str  # ψ or θ in the lesson's notation
    messages: tuple[str, ...]  # about the class and the length
    draw_error: str | None  # shown beside the draw input

    def to_dict(self) -> dict:
        messages = [*self.messages, *([self.draw_error] if self.draw_error else [])]
        return {**self.story.to_dict(), "parameter": self.parameter, "messages": messages}


@bp.get("/corpora/<corpus_id>/sample")
def sample(corpus_id):
    lesson = load_lesson(corpus_id)
    notation = NOTATIONS[lesson.state.notation]
    model, problem = lesson.model()
    lesson = lesson.with_error(problem)
    context = {"lesson": lesson, "section": "sample", "notation": notation, "shown_words": SHOWN_WORDS,
               "max_draw": MAX_DRAW}
    if model is None:
        return respond("generative/sample.html", "sample", None, **context)
    messages = []
    draw, draw_error, _ = PARAMETERS["draw"].read(request.args)
    chosen = _chosen_class(model, messages)
    length = _chosen_length(model, messages)
    try:
        story = sample_story(lesson.training, model, draw=draw, label=chosen or None, length=length)
    except ValueError as error:  # the checks above should leave nothing for the engine to refuse
        messages.append(str(error))
        story = sample_story(lesson.training, model, draw=draw, label=chosen or None)
    page = SamplePage(story, chosen, length, notation.word(model.kind), tuple(messages), draw_error)
    return respond("generative/sample.html", "sample", page, **context)


# -- 2. overconfidence -----------------------------------------------------------------------------------------------


def _repeats(state, messages: list) -> int:
    """N, the most repeats plotted: the lesson's ``repeats`` when it is set, at most ``MAX_REPEATS``."""
    if not state.repeats:
        return DEFAULT_REPEATS
    repeats = int(state.repeats)  # parse_state keeps only whole numbers from 1 up
    if repeats > MAX_REPEATS:
        messages.append(f"The plot goes up to {MAX_REPEATS} repeats, not {repeats:,}: showing {MAX_REPEATS}.")
        return MAX_REPEATS
    return repeats


def _held_out_calibration(lesson, messages: list):
    """The same settings trained on the training part and scored on the held-out documents. A problem is said
    once, beside the comparison (in ``messages``), not in the page's header."""
    held, problem = load_held_out(lesson)
    if held is None:
        messages.append(problem or "There are no held-out documents to compare with.")
        return None, None
    try:
        model = held.training.model_with(lesson.state.model_options())
        return held, calibration(model, held.test_matrix, held.test_labels, threshold=SURE)
    except ValueError as error:
        messages.append(f"The held-out documents could not be scored: {error}")
        return held, None


@dataclass(frozen=True)
class ConfidencePage:
    """The confidence page: the curve of the review counted 1 … ``repeats`` times as the engine read it (None
    without a review, or when it could not be drawn), the held-out documents and the model's calibration on them,
    and what the page says about each part."""

    repeats: int
    reading: CurveReading | None
    messages: tuple[str, ...]  # about the review and the repeats
    held: HeldOut | None
    calibration: Calibration | None
    held_messages: tuple[str, ...]  # about the held-out comparison

    def to_dict(self) -> dict:
        return {
            "repeats": self.repeats,
            "messages": [*self.messages, *self.held_messages],
            "overconfidence": None if self.reading is None else self.reading.to_dict(),
            "held_out": None if self.held is None else self.held.to_dict(),
            "calibration": None if self.calibration is None else self.calibration.to_dict(),
        }


def _reading(lesson, n_max: int, messages: list) -> CurveReading | None:
    """The curve of the lesson's review, or None with a message saying why there is none."""
    state = lesson.state
    if not state.text.strip():
        messages.append("Type a review above to watch its posterior as it is counted again and again.")
        return None
    try:
        return read_curve(overconfidence(lesson.training, state.text, max_repeats=n_max, **state.model_options()))
    except ValueError as error:
        messages.append(str(error))
        return None


@bp.get("/corpora/<corpus_id>/confidence")
def confidence(corpus_id):
    lesson = load_lesson(corpus_id)
    context = {"lesson": lesson, "section": "confidence", "notation": NOTATIONS[lesson.state.notation]}
    if lesson.training is None:
        return respond("generative/confidence.html", "confidence", None, **context)
    messages, held_messages = [], []
    n_max = _repeats(lesson.state, messages)
    reading = _reading(lesson, n_max, messages)
    held, scores = _held_out_calibration(lesson, held_messages)
    page = ConfidencePage(n_max, reading, tuple(messages), held, scores, tuple(held_messages))
    if reading is not None:
        context.update(
            posterior_chart=repeat_posterior_chart(reading.curve, reading.plotted, n_max, reading.rounded_at),
            doubt_chart=repeat_doubt_chart(reading.curve, reading.log10_doubt, n_max, reading.rounded_at),
        )
    return respond(
        "generative/confidence.html", "confidence", page, max_repeats=MAX_REPEATS, **context)
