"""Bernoulli and multinomial Naive Bayes, derived from kept class statistics.

Notation of the lecture notes: φ_k is the prior of class k; ψ_jk (Bernoulli) is the probability that
word j appears in a document of class k; θ_jk (multinomial) is the probability that a word drawn from
class k is word j.

    Bernoulli:    ψ_jk = (n_jk + α) / (n_k + 2α)
    multinomial:  θ_jk = (c_jk + α) / (Σ_j c_jk + |V|·α)

α = 0 is exact maximum likelihood: a zero probability is an exact zero, its log is −∞, and nothing is
clamped. The optional ε-floor clips ψ to [ε, 1 − ε] (θ to [ε, 1]) as one of the lecture notebooks does,
so that the three ways of handling zeros (none, Laplace smoothing, a floor) can be compared.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from .corpus import CorpusError
from .statistics import ClassStatistics

MODEL_KINDS = ("bernoulli", "multinomial")
PRIOR_MODES = ("learned", "uniform", "given")
SEED_EPSILON = 1e-14  # the floor of the lecture's notebook: psis.clip(1e-14, 1 - 1e-14)


def parse_alpha(value) -> Fraction:
    """α as an exact fraction: "0.1" and 0.1 both mean 1/10. Refuses negatives, NaN and infinity."""
    if isinstance(value, Fraction):
        alpha = value
    else:
        text = str(value).strip()
        try:
            alpha = Fraction(text)
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"α must be a number such as 1, 0.5 or 0, not {text!r}") from None
    if alpha < 0:
        raise ValueError(f"α must be 0 or more, not {value}")
    return alpha


def parse_probability(value) -> Fraction:
    if isinstance(value, Fraction):
        return value
    try:
        return Fraction(str(value).strip())
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"a class prior must be a number between 0 and 1, not {value!r}") from None


def _exact_float(fraction: Fraction) -> float:
    return fraction.numerator / fraction.denominator


@dataclass(frozen=True, eq=False)
class NaiveBayes:
    """A fitted model. Arrays ending in ``_`` have shape (n_classes,) or (n_classes, n_words).

    ``feature_prob_`` is ψ (Bernoulli) or θ (multinomial), after the ε-floor if one is set.
    For Bernoulli, ``absent_log_prob_`` is log(1 − ψ), the log-factor of a word that is absent.
    """

    kind: str
    statistics: ClassStatistics
    alpha: Fraction
    epsilon: float | None
    binary: bool
    prior_mode: str
    class_prior_exact: tuple[Fraction, ...]
    class_prior_: np.ndarray
    class_log_prior_: np.ndarray
    feature_prob_: np.ndarray
    feature_log_prob_: np.ndarray
    absent_log_prob_: np.ndarray | None = None

    @property
    def classes(self) -> tuple[str, ...]:
        return self.statistics.classes

    @property
    def vocabulary(self) -> tuple[str, ...]:
        return self.statistics.vocabulary

    @property
    def uses_presence(self) -> bool:
        """Whether a word counts once per document (Bernoulli, or binary multinomial features)."""
        return self.kind == "bernoulli" or self.binary

    # -- Bernoulli bookkeeping: Σ_j log(1 − ψ_jk) is kept so that scoring touches present words only.

    @cached_property
    def _certain(self) -> np.ndarray:
        """ψ_jk = 1: the word is in every training document of the class, so its absence has probability 0."""
        return self.absent_log_prob_ == -np.inf

    @cached_property
    def _impossible(self) -> np.ndarray:
        """ψ_jk or θ_jk = 0: the word never occurs in the class, so its presence has probability 0."""
        return self.feature_log_prob_ == -np.inf

    @cached_property
    def absent_log_prob_sum_(self) -> np.ndarray:
        """Σ_j log(1 − ψ_jk) over the words whose absence is possible, shape (n_classes,)."""
        return np.where(self._certain, 0.0, self.absent_log_prob_).sum(axis=1)

    @cached_property
    def certain_word_count_(self) -> np.ndarray:
        """How many words have ψ_jk = 1 in each class, shape (n_classes,)."""
        return self._certain.sum(axis=1)

    @cached_property
    def _presence_weight_by_word(self) -> np.ndarray:
        """log ψ − log(1 − ψ), shape (n_words, n_classes), the infinite cases set to 0 (they are counted
        separately). Stored word-major so that a sparse row times it reads only the present words."""
        finite = ~(self._certain | self._impossible)
        weight = np.where(finite, self.feature_log_prob_ - np.where(finite, self.absent_log_prob_, 0.0), 0.0)
        return np.ascontiguousarray(weight.T)

    @cached_property
    def _log_prob_by_word(self) -> np.ndarray:
        return np.ascontiguousarray(self.feature_log_prob_.T)

    @cached_property
    def _zero_indicators_by_word(self) -> tuple[np.ndarray, np.ndarray]:
        return (
            np.ascontiguousarray(self._impossible.T, dtype=np.int64),
            np.ascontiguousarray(self._certain.T, dtype=np.int64),
        )

    @cached_property
    def has_zero_probabilities(self) -> bool:
        return bool(self._impossible.any() or (self.absent_log_prob_ is not None and self._certain.any()))

    # -- scoring ----------------------------------------------------------------------------------

    def joint_log_likelihood(self, matrix: sp.csr_matrix) -> np.ndarray:
        """log φ_k + log P(x | k) for each row of ``matrix`` (counts, shape (n_docs, n_words)).

        Returns shape (n_docs, n_classes); −∞ where a zero factor makes the class impossible. Never NaN.
        """
        matrix = sp.csr_matrix(matrix)
        if self.uses_presence:
            matrix = matrix.copy()
            matrix.data = np.ones_like(matrix.data)
        if self.kind == "multinomial":
            # Counts are positive, so −∞ log-probabilities only ever add up to −∞, never to NaN.
            return np.asarray(matrix @ self._log_prob_by_word) + self.class_log_prior_
        jll = np.asarray(matrix @ self._presence_weight_by_word) + self.class_log_prior_ + self.absent_log_prob_sum_
        if self.has_zero_probabilities:
            impossible, certain = self._zero_indicators_by_word
            present_impossible = np.asarray(matrix @ impossible)
            present_certain = np.asarray(matrix @ certain)
            absent_certain = self.certain_word_count_ - present_certain
            jll[(present_impossible > 0) | (absent_certain > 0)] = -np.inf
        return jll

    def predict_index(self, matrix: sp.csr_matrix) -> np.ndarray:
        """Index of the most probable class per row, or −1 where every class has probability 0."""
        jll = self.joint_log_likelihood(matrix)
        predicted = jll.argmax(axis=1)
        predicted[np.all(jll == -np.inf, axis=1)] = -1
        return predicted

    def predict(self, matrix: sp.csr_matrix) -> list[str | None]:
        return [self.classes[i] if i >= 0 else None for i in self.predict_index(matrix)]

    def log_posterior(self, matrix: sp.csr_matrix) -> tuple[np.ndarray, np.ndarray]:
        """(log P(k | x), decidable): rows where every class is impossible have no posterior; they are
        −∞ throughout and marked False in ``decidable``."""
        jll = self.joint_log_likelihood(matrix)
        decidable = ~np.all(jll == -np.inf, axis=1)
        log_posterior = np.full_like(jll, -np.inf)
        scores = jll[decidable]
        shift = scores.max(axis=1, keepdims=True)
        log_evidence = shift + np.log(np.exp(scores - shift).sum(axis=1, keepdims=True))
        log_posterior[decidable] = scores - log_evidence
        return log_posterior, decidable

    # -- exact values, for small corpora -----------------------------------------------------------

    def feature_ratio(self, class_index: int, word_index: int, absent: bool = False) -> tuple[Fraction, Fraction]:
        """ψ_jk (or 1 − ψ_jk when ``absent``) or θ_jk as an unreduced (numerator, denominator), the way
        the lecture writes them: 0/2 is "no document of 2", which 0 alone does not say."""
        stats = self.statistics
        if self.kind == "bernoulli":
            n_k = int(stats.class_count_[class_index])
            n_jk = int(stats.document_count_[class_index, word_index])
            numerator = (n_k - n_jk if absent else n_jk) + self.alpha
            return numerator, n_k + 2 * self.alpha
        counts = stats.feature_count(self.binary)
        return int(counts[class_index, word_index]) + self.alpha, self._multinomial_total(class_index)

    def _multinomial_total(self, class_index: int) -> Fraction:
        counts = self.statistics.feature_count(self.binary)
        return int(counts[class_index].sum()) + self.statistics.n_words * self.alpha

    def exact_feature_prob(self, class_index: int, word_index: int, absent: bool = False) -> Fraction | None:
        """ψ_jk (1 − ψ_jk when ``absent``) or θ_jk as an exact fraction; None under an ε-floor."""
        if self.epsilon is not None:
            return None
        numerator, denominator = self.feature_ratio(class_index, word_index, absent)
        return Fraction(numerator) / Fraction(denominator)

    def prior_ratio(self, class_index: int) -> tuple[int, int] | None:
        """φ_k as (documents of class k, all documents) when the prior is learned."""
        if self.prior_mode != "learned":
            return None
        return int(self.statistics.class_count_[class_index]), self.statistics.n_documents

    def describe(self) -> dict:
        return {
            "model": self.kind,
            "alpha": str(self.alpha) if self.alpha.denominator != 1 else int(self.alpha),
            "epsilon": self.epsilon,
            "binary": self.binary,
            "prior": self.prior_mode,
        }


def _class_prior(stats: ClassStatistics, fit_prior: bool, class_prior):
    n_classes = stats.n_classes
    if class_prior is not None:
        exact = tuple(parse_probability(p) for p in class_prior)
        if len(exact) != n_classes:
            raise ValueError(f"class_prior needs {n_classes} values (one per class: {', '.join(stats.classes)})")
        if any(p < 0 or p > 1 for p in exact):
            raise ValueError("every class prior must be between 0 and 1")
        if abs(float(sum(exact)) - 1.0) > 1e-9:
            raise ValueError(f"the class priors must add up to 1, not {float(sum(exact)):g}")
        prior = np.array([_exact_float(p) for p in exact])
        with np.errstate(divide="ignore"):
            return "given", exact, prior, np.log(prior)
    if not fit_prior:
        exact = tuple(Fraction(1, n_classes) for _ in range(n_classes))
        return "uniform", exact, np.full(n_classes, 1.0 / n_classes), np.full(n_classes, -np.log(n_classes))
    counts = stats.class_count_
    total = int(counts.sum())
    exact = tuple(Fraction(int(c), total) for c in counts)
    # As scikit-learn computes it, so that class log priors agree to the last bit.
    return "learned", exact, counts / total, np.log(counts) - np.log(total)


def fit_naive_bayes(
    stats: ClassStatistics,
    kind: str = "bernoulli",
    alpha=1,
    *,
    binary: bool = False,
    fit_prior: bool = True,
    class_prior=None,
    epsilon: float | None = None,
) -> NaiveBayes:
    """Derive a model's parameters from kept counts (the corpus itself is not needed)."""
    if kind not in MODEL_KINDS:
        raise ValueError(f"model must be one of {MODEL_KINDS}, not {kind!r}")
    alpha_exact = parse_alpha(alpha)
    alpha_value = _exact_float(alpha_exact)
    if epsilon is not None and not (0.0 < epsilon < 0.5):
        raise ValueError(f"the ε-floor must be between 0 and 0.5, not {epsilon}")
    prior_mode, prior_exact, prior, log_prior = _class_prior(stats, fit_prior, class_prior)

    with np.errstate(divide="ignore"):
        if kind == "bernoulli":
            present = stats.document_count_ + alpha_value
            absent = (stats.class_count_[:, None] - stats.document_count_) + alpha_value
            denominator = (stats.class_count_ + 2 * alpha_value)[:, None]
            prob = present / denominator
            if epsilon is None:
                log_prob = np.log(present) - np.log(denominator)
                absent_log_prob = np.log(absent) - np.log(denominator)
            else:
                prob = np.clip(prob, epsilon, 1.0 - epsilon)
                log_prob, absent_log_prob = np.log(prob), np.log1p(-prob)
        else:
            smoothed = stats.feature_count(binary) + alpha_value
            totals = smoothed.sum(axis=1)
            empty = [stats.classes[k] for k in np.flatnonzero(totals == 0)]
            if empty:
                raise CorpusError(
                    f"Class {empty[0]!r} has no words in the vocabulary, so with α = 0 every θ of that class "
                    "would be 0/0. Use α > 0, or give that class documents with words."
                )
            prob = smoothed / totals[:, None]
            if epsilon is None:
                log_prob = np.log(smoothed) - np.log(totals)[:, None]
            else:
                prob = np.clip(prob, epsilon, 1.0)
                log_prob = np.log(prob)
            absent_log_prob = None

    return NaiveBayes(
        kind=kind,
        statistics=stats,
        alpha=alpha_exact,
        epsilon=epsilon,
        binary=binary if kind == "multinomial" else True,
        prior_mode=prior_mode,
        class_prior_exact=prior_exact,
        class_prior_=prior,
        class_log_prior_=log_prior,
        feature_prob_=prob,
        feature_log_prob_=log_prob,
        absent_log_prob_=absent_log_prob,
    )


def log_of_fraction(value: Fraction) -> float:
    """log of an exact fraction without overflow for huge numerators/denominators; log 0 = −∞."""
    if value == 0:
        return -math.inf
    return math.log(value.numerator) - math.log(value.denominator)
