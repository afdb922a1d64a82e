"""The pages of a lesson, in the order it is taught: the one list that the menus (wide and phone), the tests and the
README's table read. A corpus of texts has the text pages; a table of numbers (Gaussian Naive Bayes) the table
pages. A page's address is ``/corpora/<id>`` followed by its ``path``."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LessonPage:
    key: str  # the page's name in templates (its section) and tests
    title: str  # in the menus, after its number
    endpoint: str  # the Flask view
    path: str  # after /corpora/<id>
    in_menu: bool = True  # False: a part of the page before it, loaded into it (the α sweep of the evaluation)
    fragment: str = ""  # the id of the element its htmx fragment replaces (default: the key)

    def __post_init__(self):
        if not self.fragment:
            object.__setattr__(self, "fragment", self.key)


TEXT_PAGES = (
    LessonPage("corpus", "Documents", "corpus.show", "", fragment="documents"),
    LessonPage("matrix", "Bag of words", "matrix.show", "/matrix"),
    LessonPage("parameters", "Parameters", "parameters.show", "/parameters"),
    LessonPage("inference", "Bayes' rule", "inference.show", "/inference"),
    LessonPage("evaluation", "Evaluation", "evaluation.show", "/evaluation"),
    LessonPage("sweep", "α sweep", "evaluation.sweep", "/evaluation/sweep", in_menu=False),
    LessonPage("compare", "Models side by side", "compare.show", "/compare"),
    LessonPage("words", "Telling words", "words.show", "/words"),
    LessonPage("confidence", "Overconfidence", "generative.confidence", "/confidence"),
    LessonPage("sample", "Sampling", "generative.sample", "/sample"),
    LessonPage("additions", "Add a document", "additions.show", "/add"),
)

TABLE_PAGES = (
    LessonPage("rows", "Rows", "gaussian.rows", "/gaussian"),
    LessonPage("parameters", "Bell curves", "gaussian.parameters", "/gaussian/parameters"),
    LessonPage("inference", "Bayes' rule", "gaussian.inference", "/gaussian/inference"),
    LessonPage("evaluation", "Evaluation", "gaussian.evaluation", "/gaussian/evaluation"),
)

PAGES = {"text": TEXT_PAGES, "table": TABLE_PAGES}


def lesson_menu(kind: str) -> tuple[tuple[str, str, str], ...]:
    """(key, "n · title", endpoint) of each page in the menu of a ``kind`` ("text" or "table") lesson, numbered in
    the order they are taught."""
    shown = [page for page in PAGES[kind] if page.in_menu]
    return tuple((page.key, f"{number} · {page.title}", page.endpoint) for number, page in enumerate(shown, 1))
