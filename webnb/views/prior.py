"""Smoothing as a Beta prior: one ψ (or θ) as the peak of a posterior, beside the likelihood and the prior."""
from __future__ import annotations

from dataclasses import dataclass

from flask import Blueprint, request

from webnb.engine.records.beta_prior import BetaPrior, beta_prior
from webnb.engine.shared.numbers import ExactNumber
from webnb.lesson.beta_chart import BetaChart, beta_chart
from webnb.lesson.notation import NOTATIONS
from webnb.views.common import load_lesson, respond
from webnb.views.parameters import PARAMETERS as CELL_PARAMETERS  # one word in one class, as the cell reads it

bp = Blueprint("prior", __name__)

# The pseudo-counts a student can jump between: none, the seed's half, Laplace's one, and more.
ALPHA_CHOICES = tuple(ExactNumber(text) for text in ("0", "0.5", "1", "2"))


@dataclass(frozen=True)
class PriorPage:
    """The Beta-prior view of one cell, or why it cannot be shown (``error``)."""

    word: str
    label: str | None
    prior: BetaPrior | None = None
    error: str | None = None
    classes: tuple[str, ...] = ()  # the model's, for links to the same word in the other classes

    @property
    def chart(self) -> BetaChart | None:
        return beta_chart(self.prior) if self.prior is not None and self.prior.curves else None

    def to_dict(self) -> dict:
        return self.prior.to_dict() if self.prior is not None else {"error": self.error}


def _opened(lesson, args) -> tuple[PriorPage | None, int]:
    """The page of the word and class in ``args``, and its status; None when the lesson has no words (its error
    says why)."""
    if lesson.training is None:
        return None, 200
    word = CELL_PARAMETERS["word"].read(args).value
    model, problem = lesson.model()
    if model is None:
        return PriorPage(word, None, error=problem), 200
    label, unknown_class, _ = CELL_PARAMETERS["cell_class"].read(args, classes=model.classes)
    word_index = lesson.training.bag.index.get(word)
    if not word:
        return PriorPage(word, label, error="Which word? Name it with word=…, as the links of the table do."), 400
    if word_index is None:
        return PriorPage(word, label, error=f"“{word[:100]}” is not a word of this vocabulary."), 404
    if unknown_class:
        return PriorPage(word, label, error=unknown_class), 404
    if label is None:
        return PriorPage(word, label, error="Which class? Name it with class=…, as the links of the table do."), 400
    prior = beta_prior(model, word_index, model.classes.index(label))
    return PriorPage(word, label, prior, classes=model.classes), 200


@bp.get("/corpora/<corpus_id>/parameters/prior")
def show(corpus_id):
    """One ψ_jk (or θ_jk) as the MAP estimate of a Beta (or Dirichlet) posterior: the likelihood of the counts, the
    Beta(α + 1, α + 1) prior, the posterior, and the MLE, the MAP and the posterior mean marked on them."""
    lesson = load_lesson(corpus_id)
    opened, status = _opened(lesson, request.args)
    return respond("prior/show.html", "prior", opened, status=status, lesson=lesson, section="parameters",
                   notation=NOTATIONS[lesson.state.notation], alpha_choices=ALPHA_CHOICES)
