"""The pages of a lesson, in the order it is taught: the one list that the menus (wide and phone), the presenter's
deck, the tests and the README's table read. A corpus of texts has the text pages; a table of numbers (Gaussian Naive
Bayes) the table pages. A page's address is ``/corpora/<id>`` followed by its ``path``.

In presenter mode every page is a short deck of slides, and the decks of a lesson's pages, one after the other, are
the lecture: ``walk(kind)``. A slide is addressed by the page's ``slide_parameter`` (``step`` on the Bayes'-rule pages,
whose slides are their steps; ``slide`` elsewhere)."""
from __future__ import annotations

from dataclasses import dataclass

# The steps of Bayes' rule for a text, and for a row of numbers: (key in the address, title).
INFERENCE_STEPS = (
    ("tokens", "Words of the review"),
    ("vector", "Feature vector"),
    ("factors", "Every factor"),
    ("product", "The product"),
    ("decision", "The decision"),
    ("zeros", "When a factor is 0"),
    ("smoothing", "Fix 1: smoothing"),
    ("underflow", "Too many factors"),
    ("logspace", "Fix 2: log space"),
    ("contributions", "Which words decided"),
)
GAUSSIAN_INFERENCE_STEPS = (
    ("densities", "Each feature's density"),
    ("product", "Prior × densities"),
    ("normalise", "Normalise"),
    ("underflow", "When densities underflow"),
    ("logspace", "Log space"),
    ("zero-width", "Zero variance"),
)


# The models a page can show: every page shows Naive Bayes; Complement Naive Bayes, whose weights are not
# probabilities, only on the pages that say what it does (the others say where to look instead).
NAIVE_BAYES = ("bernoulli", "multinomial")
EVERY_MODEL = (*NAIVE_BAYES, "complement")


@dataclass(frozen=True)
class LessonPage:
    key: str  # the page's name in templates (its section) and tests
    title: str  # in the menus, after its number
    endpoint: str  # the Flask view
    path: str  # after /corpora/<id>
    slides: tuple[tuple[str, str], ...]  # (key, title) of each slide in presenter mode, in order
    in_menu: bool = True  # False: a part of the page before it (the α sweep of the evaluation, one parameter)
    fragment: str = ""  # the id of the element its htmx fragment replaces (default: the key)
    slide_parameter: str = "slide"  # the address's name for the slide ("step" where the slides are steps)
    models: tuple[str, ...] = NAIVE_BAYES  # the text models it can show (EVERY_MODEL, or Naive Bayes only)

    def __post_init__(self):
        if not self.fragment:
            object.__setattr__(self, "fragment", self.key)

    def title_of(self, key: str, model: str = "") -> str:
        """The title of the slide ``key`` for the text model ``model``: Complement Naive Bayes has weights where the
        others have probabilities, so some of its slides say so in their titles (``MODEL_SLIDE_TITLES``)."""
        return MODEL_SLIDE_TITLES.get(model, {}).get((self.key, key)) or dict(self.slides)[key]

    def slide(self, key: str) -> str:
        """``key`` if it is one of this page's slides, else the first slide (an address may name another page's)."""
        return key if key in dict(self.slides) else self.slides[0][0]


# Slide titles that differ for a model: Complement Naive Bayes learns weights, sums them, and never multiplies.
MODEL_SLIDE_TITLES = {
    "complement": {
        ("parameters", "priors"): "No priors: the other classes' words",
        ("parameters", "table"): "One weight per word and class",
        ("inference", "factors"): "Every weight",
        ("inference", "product"): "The score: a sum of weights",
        ("inference", "zeros"): "When a weight is infinite",
        ("inference", "smoothing"): "The fix: smoothing",
        ("inference", "underflow"): "Nothing to underflow",
        ("inference", "logspace"): "Log space from the start",
    },
}

TEXT_PAGES = (
    LessonPage("corpus", "Documents", "corpus.show", "", fragment="documents", models=EVERY_MODEL,
               slides=(("classes", "The documents and their classes"), ("documents", "A few documents"))),
    LessonPage("matrix", "Bag of words", "matrix.show", "/matrix", models=EVERY_MODEL,
               slides=(("matrix", "Documents become counts"),)),
    LessonPage("parameters", "Parameters", "parameters.show", "/parameters", models=EVERY_MODEL,
               slides=(("priors", "Class priors"), ("table", "One probability per word and class"))),
    LessonPage("cell", "One parameter", "parameters.cell", "/parameters/cell", in_menu=False,
               slides=(("cell", "Where one parameter comes from"),)),
    LessonPage("prior", "Smoothing as a prior", "prior.show", "/parameters/prior", in_menu=False,
               slides=(("prior", "Smoothing as a Beta prior"),)),
    LessonPage("inference", "Bayes' rule", "inference.show", "/inference", slides=INFERENCE_STEPS,
               slide_parameter="step", models=EVERY_MODEL),
    LessonPage("evaluation", "Evaluation", "evaluation.show", "/evaluation", models=EVERY_MODEL,
               slides=(("scores", "How often it is right"), ("mistakes", "What it got wrong"))),
    LessonPage("sweep", "α sweep", "evaluation.sweep", "/evaluation/sweep", in_menu=False, models=EVERY_MODEL,
               slides=(("sweep", "Other values of α"),)),
    LessonPage("compare", "Models side by side", "compare.show", "/compare", models=EVERY_MODEL,
               slides=(("compare", "Models side by side"), ("pairs", "Is a difference real?"))),
    LessonPage("words", "Telling words", "words.show", "/words",
               slides=(("words", "The words that tell classes apart"),)),
    LessonPage("selection", "Feature selection", "selection.show", "/selection", models=EVERY_MODEL,
               slides=(("selection", "Mutual information and χ² of each word"),
                       ("curves", "Accuracy against the words kept"))),
    LessonPage("selection-cell", "One word and one class", "selection.cell", "/selection/cell", in_menu=False,
               models=EVERY_MODEL, slides=(("contingency", "One word, one class: the 2 × 2 table"),)),
    LessonPage("confidence", "Overconfidence", "generative.confidence", "/confidence",
               slides=(("confidence", "How sure, and how right"),)),
    LessonPage("calibration", "Calibration", "calibration.show", "/calibration",
               slides=(("calibration", "Is it as sure as it is right?"),)),
    LessonPage("sample", "Sampling", "generative.sample", "/sample",
               slides=(("sample", "A document the model writes"),)),
    LessonPage("additions", "Add a document", "additions.show", "/add",
               slides=(("add", "Learning one more document"),)),
)

TABLE_PAGES = (
    LessonPage("rows", "Rows", "gaussian.rows", "/gaussian", slides=(("rows", "The rows and their classes"),)),
    LessonPage("parameters", "Bell curves", "gaussian.parameters", "/gaussian/parameters",
               slides=(("curves", "A bell curve per feature and class"),)),
    LessonPage("inference", "Bayes' rule", "gaussian.inference", "/gaussian/inference",
               slides=GAUSSIAN_INFERENCE_STEPS, slide_parameter="step"),
    LessonPage("evaluation", "Evaluation", "gaussian.evaluation", "/gaussian/evaluation",
               slides=(("scores", "How often it is right"),)),
)

PAGES = {"text": TEXT_PAGES, "table": TABLE_PAGES}

# How the lesson looks on a projector, each in the address (theme=, zoom=) and on a key (t, z): the normal theme or a
# high-contrast one, light or dark (contrast ≥ 7 : 1); and the slide's content at 100, 125 or 150 %. "" is the default.
THEMES = {"": "normal", "light": "high contrast, light", "dark": "high contrast, dark"}
ZOOMS = {"": "100 %", "125": "125 %", "150": "150 %"}


def next_choice(choices: dict, current: str, step: int = 1) -> str:
    """The choice after ``current`` (before it when ``step`` is -1), round the list: what t and z move to."""
    keys = list(choices)
    return keys[(keys.index(current) + step) % len(keys)]
# Every slide key a text or table lesson knows, for the check of the address's ``slide``.
SLIDE_KEYS = {kind: tuple(dict.fromkeys(key for page in pages if page.slide_parameter == "slide"
                                        for key, _ in page.slides))
              for kind, pages in PAGES.items()}


def lesson_menu(kind: str) -> tuple[tuple[str, str, str], ...]:
    """(key, "n · title", endpoint) of each page in the menu of a ``kind`` ("text" or "table") lesson, numbered in
    the order they are taught."""
    shown = [page for page in PAGES[kind] if page.in_menu]
    return tuple((page.key, f"{number} · {page.title}", page.endpoint) for number, page in enumerate(shown, 1))


def page_of(kind: str, endpoint: str) -> LessonPage | None:
    """The page a view serves, or None when it is not a page of the lesson (a parity report, a download)."""
    return next((page for page in PAGES[kind] if page.endpoint == endpoint), None)


@dataclass(frozen=True)
class DeckSlide:
    page: LessonPage
    key: str
    title: str


def walk(kind: str) -> tuple[DeckSlide, ...]:
    """Every slide of the lecture of a ``kind`` lesson, page after page in the lesson's order."""
    return tuple(DeckSlide(page, key, title) for page in PAGES[kind] for key, title in page.slides)


@dataclass(frozen=True)
class DeckPosition:
    """Where a slide stands in the walk: its number (from 1) of ``total``, its number within its page, and the
    slides before and after it, the first and the last (None before the first and after the last)."""

    slide: DeckSlide
    number: int
    total: int
    number_in_page: int
    page_slides: int
    previous: DeckSlide | None
    next: DeckSlide | None
    first: DeckSlide
    last: DeckSlide


def position(kind: str, endpoint: str, slide_key: str) -> DeckPosition | None:
    """The position of the slide ``slide_key`` (the page's first when it is not one of the page's) of the page served
    by ``endpoint``; None for a view that is not a page of the deck."""
    page = page_of(kind, endpoint)
    if page is None:
        return None
    slides = walk(kind)
    key = page.slide(slide_key)
    at = next(i for i, s in enumerate(slides) if s.page is page and s.key == key)
    keys = [k for k, _ in page.slides]
    return DeckPosition(
        slide=slides[at], number=at + 1, total=len(slides), number_in_page=keys.index(key) + 1,
        page_slides=len(keys), previous=slides[at - 1] if at > 0 else None,
        next=slides[at + 1] if at + 1 < len(slides) else None, first=slides[0], last=slides[-1],
    )


def pages_showing(kind: str, model: str) -> tuple[LessonPage, ...]:
    """The pages of a ``kind`` lesson's menu that can show ``model``."""
    return tuple(page for page in PAGES[kind] if page.in_menu and model in page.models)
