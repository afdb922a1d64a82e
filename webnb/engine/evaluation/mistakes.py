"""The test documents a model got wrong, a page at a time, each with the beginning of its text: the evaluation
page lists them so that a student can open one in Bayes' rule and see why."""
from __future__ import annotations

from dataclasses import dataclass

from webnb.engine.evaluation.scores import Score
from webnb.engine.shared.paging import page_count
from webnb.engine.shared.plain import plain

MISTAKES_PER_PAGE = 20
SNIPPET_LENGTH = 160


def snippet(text: str, length: int = SNIPPET_LENGTH) -> str:
    """The beginning of ``text`` on one line: runs of whitespace become one space, and a text longer than
    ``length`` characters is cut to ``length`` with "…" as its last."""
    flat = " ".join(text.split())
    return flat if len(flat) <= length else flat[: length - 1] + "…"


@dataclass(frozen=True)
class Mistake:
    """One test document the model got wrong. ``position`` is its number in the corpus it came from (the split
    corpus, or the separate test corpus); ``predicted`` is None when the model cannot decide, and ``confidence``
    its posterior for the class it said (0.0 then)."""

    position: int
    id: str
    true: str
    predicted: str | None
    confidence: float
    snippet: str

    def to_dict(self) -> dict:
        return {
            "position": self.position,
            "id": self.id,
            "true": self.true,
            "predicted": self.predicted,
            "confidence": self.confidence,
        }


@dataclass(frozen=True)
class Mistakes:
    """Page ``page`` of ``pages`` of the ``count`` test documents a model got wrong, in test order.

    Parameters
    ----------
    count : int
        Wrong test documents in all (those the model cannot decide included).
    page : int
        This page, from 1.
    pages : int
        Pages in all (see ``mistake_pages``).
    documents : tuple of Mistake
        The wrong documents on this page, each with its place in its corpus, id, true and predicted class, the
        posterior of the prediction and the beginning of its text.
    """

    count: int
    page: int
    pages: int
    documents: tuple[Mistake, ...]

    def to_dict(self) -> dict:
        return plain(self)


def mistake_pages(score: Score, per_page: int = MISTAKES_PER_PAGE) -> int:
    """How many pages the wrong documents of ``score`` fill (1 when there are none).

    Parameters
    ----------
    score : Score
        A model scored on test documents.
    per_page : int, default ``MISTAKES_PER_PAGE`` (20)
        Documents per page.

    Returns
    -------
    int
        Pages of wrong documents, at least 1.
    """
    return page_count(len(score.wrong), per_page)


def misclassified(score: Score, page: int, per_page: int = MISTAKES_PER_PAGE) -> Mistakes:
    """Page ``page`` of the test documents of ``score`` (a text ``HeldOut``'s) that its model got wrong, those it
    cannot decide included.

    Parameters
    ----------
    score : Score
        A model scored on a ``HeldOut``'s test documents.
    page : int
        The page, from 1 to ``mistake_pages(score, per_page)``.
    per_page : int, default ``MISTAKES_PER_PAGE`` (20)
        Documents per page.

    Returns
    -------
    Mistakes
        The wrong documents on that page, with their count and the number of pages.

    Raises
    ------
    ValueError
        If ``page`` is not between 1 and the number of pages.
    """
    held, result = score.held, score.result
    pages = mistake_pages(score, per_page)
    if not 1 <= page <= pages:
        raise ValueError(f"There are {pages} pages of wrong documents, not {page}.")
    shown = score.wrong[(page - 1) * per_page : page * per_page]
    documents = tuple(
        Mistake(
            position=int(held.positions[i]),
            id=held.test.ids[i],
            true=held.test.labels[i],
            predicted=result.predictions[i],
            confidence=result.confidence[i],
            snippet=snippet(held.test.texts[i]),
        )
        for i in shown
    )
    return Mistakes(count=len(score.wrong), page=page, pages=pages, documents=documents)
