"""Complement Naive Bayes deciding a typed review, step by step: the record the Bayes'-rule steps read when the lesson's
model is "complement".

Its steps differ from Naive Bayes' where the model does. There is no product of probabilities: each word of the
review adds its weight w_jk = −log θ̃_jk to the score of class k, θ̃_jk being the word's share of every *other*
class's words; the class with the largest score wins. So there is nothing to underflow and nothing to move to log
space (the weights are logs already). A word that no other class ever used has θ̃ = 0 at α = 0 and weight +∞: it
hands its class the decision outright (the mirror of Naive Bayes, where a zero factor takes the class out), and two
classes at +∞ cannot be compared. Smoothing lifts θ̃ from 0, as it lifts ψ and θ.

The scores are not log-probabilities. Normalising them as if they were (a softmax, which scikit-learn's
``ComplementNB.predict_proba`` does) gives numbers that sum to 1 without being the probability of anything: the record
gives them (``normalised``) so that a step can say so.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from webnb.engine.records.complement_table import complement_totals, word_cells
from webnb.engine.shared.forwarding import forwarded
from webnb.engine.shared.plain import number, plain, ratio_text
from webnb.engine.text.complement import ComplementNaiveBayes
from webnb.engine.text.models import parse_alpha
from webnb.engine.text.trace import Reading, read_review
from webnb.engine.text.training import TrainingSet

SMOOTHING_ALPHA = Fraction(1)  # the α the smoothing step shows when the lesson's own is 0


class WeightTerm(NamedTuple):
    """One word of the review in one class: x_j · w_jk."""

    word: str
    count: int  # x_j: occurrences (1 with binary features)
    ratio: tuple  # θ̃_jk unreduced: (T_j − c_jk + α, Σ_j (T_j − c_jk) + |V|·α)
    weight: float  # w_jk = −log θ̃_jk; +∞ when θ̃ = 0

    @property
    def theta(self) -> float:
        return float(self.ratio[0]) / float(self.ratio[1])

    @property
    def contribution(self) -> float:
        return self.count * self.weight

    def to_dict(self) -> dict:
        return {"word": self.word, "count": self.count, "ratio": ratio_text(self.ratio), "theta": number(self.theta),
                "weight": number(self.weight), "contribution": number(self.contribution)}


@dataclass(frozen=True)
class ClassScore:
    """One class's score for the review: Σ_j x_j · w_jk over the review's words."""

    label: str
    terms: tuple[WeightTerm, ...]  # in vocabulary order
    score: float  # as the model scores it (ComplementNaiveBayes.joint_log_likelihood); +∞ possible at α = 0

    @property
    def infinite_words(self) -> tuple[str, ...]:
        """The review's words whose weight is +∞ for this class (no other class ever used them; α = 0)."""
        return tuple(term.word for term in self.terms if term.weight == math.inf)

    def to_dict(self) -> dict:
        return {"class": self.label, "score": number(self.score), "terms": [term.to_dict() for term in self.terms],
                "infinite_words": list(self.infinite_words)}


@dataclass(frozen=True)
class ComplementDecision:
    """The scores of every class for one α, and what they decide."""

    alpha: Fraction
    per_class: tuple[ClassScore, ...]

    @property
    def scores(self) -> tuple[float, ...]:
        return tuple(c.score for c in self.per_class)

    @property
    def infinite_classes(self) -> tuple[str, ...]:
        """The classes scoring +∞ (a word of the review that no other class ever used; α = 0)."""
        return tuple(c.label for c in self.per_class if c.score == math.inf)

    @property
    def cannot_decide(self) -> bool:
        """Two or more classes at +∞: their scores cannot be compared."""
        return len(self.infinite_classes) > 1

    @property
    def tied(self) -> tuple[str, ...]:
        """The classes sharing the top score, when more than one does (and the scores can be compared)."""
        if self.cannot_decide:
            return ()
        top = max(self.scores)
        best = tuple(c.label for c in self.per_class if c.score == top)
        return best if len(best) > 1 else ()

    @property
    def decision(self) -> str | None:
        """The class with the largest score (the first of tied ones, as the model predicts); None if none can be."""
        if self.cannot_decide:
            return None
        top = max(self.scores)
        return next(c.label for c in self.per_class if c.score == top)

    @property
    def says(self) -> str:
        return "cannot-decide" if self.cannot_decide else "tie" if self.tied else "decided"

    @property
    def normalised(self) -> tuple[float, ...] | None:
        """exp(score) / Σ exp(score), as scikit-learn's predict_proba gives it: between 0 and 1 and summing to 1,
        yet no probability of a class. None when a score is +∞."""
        if any(math.isinf(s) for s in self.scores):
            return None
        shift = max(self.scores)
        exps = [math.exp(s - shift) for s in self.scores]
        total = math.fsum(exps)
        return tuple(e / total for e in exps)

    def to_dict(self) -> dict:
        normalised = self.normalised
        return {
            "alpha": str(self.alpha) if self.alpha.denominator != 1 else int(self.alpha),
            "per_class": [c.to_dict() for c in self.per_class],
            "says": self.says,
            "decision": self.decision,
            "tied": list(self.tied),
            "cannot_decide": self.cannot_decide,
            "infinite_classes": list(self.infinite_classes),
            "normalised": None if normalised is None else {c.label: number(v) for c, v in
                                                            zip(self.per_class, normalised, strict=True)},
        }


@dataclass(frozen=True)
class Contribution:
    """One word's part in the decision between the winner and the runner-up: x_j · (w_j,winner − w_j,runner-up)."""

    word: str
    count: int
    difference: float  # > 0 pulls towards the winner; ±∞ or NaN-free: never ∞ − ∞ (see ``contributions``)

    def to_dict(self) -> dict:
        return plain(self)


def _decision(model: ComplementNaiveBayes, reading: Reading) -> ComplementDecision:
    """Every class's terms and score for the review's features."""
    stats = model.statistics
    _, totals = complement_totals(model)
    columns = np.array([f.index for f in reading.features], dtype=np.int64)
    values = np.array([f.value for f in reading.features], dtype=np.int64)
    row = sp.csr_matrix((values, columns, [0, len(columns)]), shape=(1, stats.n_words))
    scores = model.joint_log_likelihood(row)[0].tolist()  # what evaluation and scikit-learn compute
    per_class_terms = [[] for _ in range(stats.n_classes)]
    for feature in reading.features:
        _, cells = word_cells(model, feature.index, totals)
        for terms, cell in zip(per_class_terms, cells, strict=True):
            terms.append(WeightTerm(feature.word, feature.value, cell.ratio, cell.weight))
    per_class = tuple(ClassScore(label, tuple(terms), float(score))
                      for label, terms, score in zip(stats.classes, per_class_terms, scores, strict=True))
    return ComplementDecision(model.alpha, per_class)


@dataclass(frozen=True)
class ComplementExplanation:
    """A review decided by Complement Naive Bayes, every part a step shows.

    Parameters
    ----------
    text : str
        The review.
    reading : Reading
        Its words and feature vector (the first two steps, as for Naive Bayes).
    model : ComplementNaiveBayes
        The lesson's model.
    training : TrainingSet
        Where the model and its unsmoothed and smoothed variants come from.
    """

    text: str
    reading: Reading
    model: ComplementNaiveBayes
    training: TrainingSet

    alpha = forwarded("model.alpha")

    @property
    def smoothing_alpha(self) -> Fraction:
        """The α the smoothing step shows: the lesson's, or 1 when the lesson's is 0."""
        return self.alpha if self.alpha > 0 else SMOOTHING_ALPHA

    def _variant(self, alpha: Fraction) -> ComplementDecision:
        if alpha == self.alpha:
            return self.decided
        model = self.training.model("complement", alpha, binary=self.model.binary)
        return _decision(model, self.reading)

    @cached_property
    def decided(self) -> ComplementDecision:
        """The lesson's own α."""
        return _decision(self.model, self.reading)

    @cached_property
    def unsmoothed(self) -> ComplementDecision:
        """α = 0: a word no other class used has weight +∞."""
        return self._variant(Fraction(0))

    @cached_property
    def smoothed(self) -> ComplementDecision:
        return self._variant(self.smoothing_alpha)

    @property
    def runner_up(self) -> str | None:
        """The class with the second largest score (None with one class, or when the decision cannot be made)."""
        decided = self.decided
        if decided.decision is None or len(decided.per_class) < 2:
            return None
        others = [c for c in decided.per_class if c.label != decided.decision]
        top = max(c.score for c in others)
        return next(c.label for c in others if c.score == top)

    @cached_property
    def contributions(self) -> tuple[Contribution, ...]:
        """Each word's pull towards the winner against the runner-up, largest first; () when there is no runner-up
        or a weight is infinite (an infinite weight decides alone: the zeros step says which)."""
        runner_up, decided = self.runner_up, self.decided
        if runner_up is None:
            return ()
        winner = next(c for c in decided.per_class if c.label == decided.decision)
        second = next(c for c in decided.per_class if c.label == runner_up)
        if any(math.isinf(t.weight) for t in (*winner.terms, *second.terms)):
            return ()
        found = [Contribution(a.word, a.count, a.contribution - b.contribution)
                 for a, b in zip(winner.terms, second.terms, strict=True)]
        return tuple(sorted(found, key=lambda c: -c.difference))

    def to_dict(self) -> dict:
        return {
            "text": self.text,
            "model": self.model.to_dict(),
            "tokens": list(self.reading.tokens),
            "features": [{"word": f.word, "count": f.count, "value": f.value} for f in self.reading.features],
            "unseen": list(self.reading.unseen),
            "decided": self.decided.to_dict(),
            "unsmoothed": self.unsmoothed.to_dict(),
            "smoothed": self.smoothed.to_dict(),
            "smoothing_alpha": str(self.smoothing_alpha),
            "runner_up": self.runner_up,
            "contributions": [c.to_dict() for c in self.contributions],
        }


def explain_complement(training: TrainingSet, text: str, alpha=1, *, binary: bool = False,
                       fit_prior: bool = True) -> ComplementExplanation:
    """How Complement Naive Bayes, fitted on ``training`` with ``alpha``, decides ``text``.

    Parameters
    ----------
    training : TrainingSet
        The counted training documents.
    text : str
        The review.
    alpha : str, int, float or Fraction, default 1
        The pseudo-count (``parse_alpha``).
    binary : bool, default False
        Count each word once per document.
    fit_prior : bool, default True
        Used only with a single class (as scikit-learn does).

    Returns
    -------
    ComplementExplanation

    Raises
    ------
    ValueError, CorpusError
        As ``fit_complement_naive_bayes`` raises them.

    Examples
    --------
    On the China / Japan documents, d5 goes to the class whose complement explains it worst: Japan, whose complement
    (documents 1–3) never says "tokyo" or "japan" (the multinomial model says China).

    >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
    >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
    >>> explained = explain_complement(training, "Chinese Chinese Chinese Tokyo Japan", 1)
    >>> [(c.label, round(c.score, 4)) for c in explained.decided.per_class], explained.decided.decision
    ([('China', 7.5204), ('Japan', 7.82)], 'Japan')
    >>> [(t.word, t.count, t.ratio) for t in explained.decided.per_class[1].terms]  # Japan's: θ̃ from China's words
    [('chinese', 3, (6, 14)), ('japan', 1, (1, 14)), ('tokyo', 1, (1, 14))]
    """
    model = training.model("complement", parse_alpha(alpha), binary=binary, fit_prior=fit_prior)
    reading = read_review(training.bag, text, model.uses_presence)
    return ComplementExplanation(text, reading, model, training)
