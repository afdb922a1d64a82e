"""The α sweep beside the model a page shows: where the student's α lands among the swept ones, and whether the
most accurate α is better than the student's by more than chance (McNemar's exact test on the same documents)."""
from __future__ import annotations

from dataclasses import dataclass

from webnb.engine.evaluation.comparison import SIGNIFICANCE
from webnb.engine.evaluation.scores import Score
from webnb.engine.evaluation.significance import McNemar, mcnemar
from webnb.engine.records.insights import AlphaSweep
from webnb.engine.shared.plain import number
from webnb.engine.text.models import ModelOptions, parse_alpha


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
    versus_best : McNemar or None, default None
        The current α (first) against the most accurate one (second) on the same test documents; None when they are
        the same α (see ``versus_best``).

    Attributes
    ----------
    alpha : float
        The current α, that of ``score.model``.
    best_tells_apart : bool or None
        Whether the most accurate α is better by more than chance.
    """

    sweep: AlphaSweep
    score: Score
    versus_best: McNemar | None = None

    @property
    def alpha(self) -> float:
        return float(self.score.model.alpha)

    @property
    def best_tells_apart(self) -> bool | None:
        """Whether the most accurate α beats the current one by more than chance (p below ``SIGNIFICANCE``); None
        when the current α is the most accurate."""
        return None if self.versus_best is None else self.versus_best.p_exact < SIGNIFICANCE

    def to_dict(self) -> dict:
        result = self.score.result
        current = {"alpha": self.alpha, "accuracy": result.accuracy, "log_loss": number(result.log_loss)}
        test = self.versus_best
        against = None if test is None else {
            "only_current_right": test.only_first, "only_best_right": test.only_second,
            "p_exact": test.p_plain,
            "p_value": number(test.p_value), "tells_apart": self.best_tells_apart, "level": str(SIGNIFICANCE)}
        return {**self.sweep.to_dict(), "current": current, "versus_best": against}


def versus_best(sweep: AlphaSweep, score: Score, options: ModelOptions) -> McNemar | None:
    """McNemar's exact test of the page's model against the same model at the sweep's most accurate α.

    Parameters
    ----------
    sweep : AlphaSweep
        Made on ``score.held``'s test documents.
    score : Score
        The page's model on those documents.
    options : ModelOptions
        The page's model settings; only α changes.

    Returns
    -------
    McNemar or None
        The current model first; None when its α is the most accurate one.

    Examples
    --------
    >>> from webnb.engine import evaluate
    >>> from webnb.engine.evaluation.heldout import hold_out
    >>> from webnb.engine.records.insights import alpha_sweep
    >>> from webnb.examples import load_example_corpus
    >>> held = hold_out(load_example_corpus("spam-ham"), test_size=0.5, seed=0)
    >>> options = ModelOptions("bernoulli", "0")
    >>> model = held.training.model_with(options)
    >>> score = Score(held, model, evaluate(model, held.test_matrix, held.test_labels))
    >>> sweep = alpha_sweep(held.training, held.test_matrix, held.test_labels, kind="bernoulli")
    >>> test = versus_best(sweep, score, options)
    >>> score.result.accuracy, sweep.best.accuracy, (test.only_first, test.only_second), test.p_exact
    (0.75, 1.0, (0, 2), Fraction(1, 2))
    """
    best = parse_alpha(sweep.best.alpha)
    if best == score.model.alpha:
        return None
    held = score.held
    other = held.training.model_with(options.replace(alpha=best))
    return mcnemar(score.model.predict_index(held.test_matrix) == held.true_class,
                   other.predict_index(held.test_matrix) == held.true_class)
