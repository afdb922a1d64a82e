"""The α sweep beside the model a page shows: where the student's α lands among the swept ones."""
from __future__ import annotations

from dataclasses import dataclass

from webnb.engine.evaluation.scores import Score
from webnb.engine.records.insights import AlphaSweep
from webnb.engine.shared.plain import number


@dataclass(frozen=True)
class MarkedSweep:
    """``sweep`` (see ``alpha_sweep``) made on the held-out documents of ``score``, whose model's α is marked
    as the current one.

    Parameters
    ----------
    sweep : AlphaSweep
        Accuracy and log loss for each α swept.
    score : Score
        The page's own model on the same test documents.

    Attributes
    ----------
    alpha : float
        The current α, that of ``score.model``.
    """

    sweep: AlphaSweep
    score: Score

    @property
    def alpha(self) -> float:
        return float(self.score.model.alpha)

    def to_dict(self) -> dict:
        result = self.score.result
        current = {"alpha": self.alpha, "accuracy": result.accuracy, "log_loss": number(result.log_loss)}
        return {**self.sweep.to_dict(), "current": current}
