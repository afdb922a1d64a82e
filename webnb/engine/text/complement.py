"""Complement Naive Bayes (Rennie, Shih, Teevan & Karger, 2003; scikit-learn's ``ComplementNB``).

Multinomial Naive Bayes estimates each class's word distribution from that class's documents alone, so a class
with few documents gets rough estimates. Complement Naive Bayes estimates, for each class k, the word distribution
of everything that is *not* k, from many more documents, and prefers the class whose complement explains the
document worst:

    θ̃_jk = (Σ_{c≠k} c_jc + α) / (Σ_j Σ_{c≠k} c_jc + |V|·α)      (the complement's estimate of word j)
    w_jk = −log θ̃_jk                                                 (a word's weight for class k)
    score_k(x) = Σ_j x_j · w_jk                                       (the class with the largest score wins)

With ``norm``, each class's log θ̃ are divided by their sum over the vocabulary (Rennie et al.'s weight
normalisation, step 8 of their algorithm): w_jk = log θ̃_jk / Σ_j log θ̃_jk.

The scores are sums of weights, not log-probabilities of anything: there is no prior (scikit-learn adds one only
when there is a single class), exp(score) is not a likelihood, and normalising the scores by log-sum-exp gives
numbers between 0 and 1 that sum to 1 without being the probability of a class. That is the lesson of the model.

The complement counts of a class are the corpus's totals minus its own, so, as for the other models, nothing is
stored over the classes × vocabulary table: per word the log of its total count plus α (every class that never
saw the word has that complement count), and corrections at the (class, word) pairs seen in training.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import ClassVar

import numpy as np
import scipy.sparse as sp

from webnb.engine.shared import budget
from webnb.engine.shared.corpus import CorpusError
from webnb.engine.text.models import (
    Classifier,
    exact_float,
    integer_counts,
    integer_statistics,
    parse_alpha,
    priors_asked_for,
)
from webnb.engine.text.statistics import ClassStatistics, count_matrix


@dataclass(frozen=True, eq=False)
class ComplementNaiveBayes(Classifier):
    """A fitted Complement Naive Bayes model, made by ``fit_complement_naive_bayes`` (never directly).

    Parameters
    ----------
    statistics : ClassStatistics
        The counts the model is derived from.
    alpha : Fraction
        The pseudo-count α added to every complement count.
    norm : bool
        Whether each class's weights are normalised by the sum of its log θ̃ (scikit-learn's ``norm``).
    binary : bool
        Whether a word counts once per document.
    class_prior_exact : tuple of Fraction
        φ_k, used only when there is a single class (as scikit-learn does).
    class_log_prior_ : numpy.ndarray of shape (n_classes,)
        log φ_k.
    complement_total_ : numpy.ndarray of shape (n_classes,)
        Σ_j (T_j − c_jk + α): the denominator of every θ̃ of class k, T_j being word j's count over all classes.
    word_log_complement : numpy.ndarray of shape (n_words,)
        log(T_j + α): log of the complement count of word j in every class that never saw it.
    observed_log_complement : numpy.ndarray of shape (n_observed,)
        log(T_j − c_jk + α) at the observed (class, word) pairs (``statistics.observed``); −∞ where it is 0.
    log_normaliser_ : numpy.ndarray of shape (n_classes,) or None
        With ``norm``, Σ_j log θ̃_jk per class (negative); else None.

    Attributes
    ----------
    kind : str
        "complement".
    classes, vocabulary : tuple of str
        Those of ``statistics``.
    feature_log_prob_ : numpy.ndarray of shape (n_classes, n_words)
        The weights w_jk as scikit-learn names them, made dense when first read (a shown table's budget applies).
    """

    kind: ClassVar[str] = "complement"
    gives_probabilities: ClassVar[bool] = False  # sums of weights: normalised, they are the probability of nothing
    statistics: ClassStatistics
    alpha: Fraction
    norm: bool
    binary: bool
    class_prior_exact: tuple[Fraction, ...]
    class_log_prior_: np.ndarray
    complement_total_: np.ndarray
    word_log_complement: np.ndarray
    observed_log_complement: np.ndarray
    log_normaliser_: np.ndarray | None

    # -- the parameters -----------------------------------------------------------------------------------------

    @cached_property
    def _log_complement_total(self) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.log(self.complement_total_)

    @cached_property
    def feature_log_prob_(self) -> np.ndarray:
        """w_jk for every class and word, dense: −log θ̃_jk, or log θ̃_jk / Σ_j log θ̃_jk with ``norm``."""
        stats, pairs = self.statistics, self.statistics.observed
        budget.require_shown_table(stats.n_classes, stats.n_words)  # before allocating it
        log_complement = np.empty((stats.n_classes, stats.n_words))
        log_complement[:] = self.word_log_complement[None, :]
        log_complement[pairs.classes, pairs.words] = self.observed_log_complement
        logged = log_complement - self._log_complement_total[:, None]
        return logged / self.log_normaliser_[:, None] if self.norm else -logged

    def complement_ratio(self, class_index: int, word_index: int) -> tuple:
        """θ̃_jk as the unreduced ratio (T_j − c_jk + α, Σ_j (T_j − c_jk) + |V|·α).

        Parameters
        ----------
        class_index : int
            k, the class whose complement (every other class) is counted.
        word_index : int
            j, the word's column in the vocabulary.

        Returns
        -------
        tuple
            (numerator, denominator): ints when α is whole, else Fractions.
        """
        stats, alpha = self.statistics, self._alpha_term
        counts, totals = stats.feature_count(self.binary)[:, word_index], stats.feature_total[self.binary]
        numerator = int(counts.sum()) - int(counts[class_index]) + alpha  # T_j − c_jk + α: every other class's count
        return numerator, int(totals.sum()) - int(totals[class_index]) + stats.n_words * alpha

    @cached_property
    def _alpha_term(self) -> int | Fraction:
        return int(self.alpha) if self.alpha.denominator == 1 else self.alpha

    # -- scoring ------------------------------------------------------------------------------------------------

    @cached_property
    def _corrections(self) -> sp.csr_matrix:
        """log(T_j − c_jk + α) − log(T_j + α) at the observed pairs, a sparse (n_words, n_classes) matrix (≤ 0)."""
        stats, pairs = self.statistics, self.statistics.observed
        values = self.observed_log_complement - self.word_log_complement[pairs.words]
        matrix = sp.csr_matrix((values, pairs.classes, pairs.word_indptr), shape=(stats.n_words, stats.n_classes))
        matrix.has_canonical_format = True
        return matrix

    def joint_log_likelihood(self, matrix) -> np.ndarray:
        """The score of each class for each row of ``matrix``: Σ_j x_j · w_jk (scikit-learn's name for it; with a
        single class, log φ is added, as scikit-learn does).

        Parameters
        ----------
        matrix : scipy.sparse matrix or array-like of shape (n_documents, n_words)
            Counts over the model's vocabulary.

        Returns
        -------
        numpy.ndarray of shape (n_documents, n_classes)
            +∞ for a class whose complement never saw a word of the document (possible with α = 0). Never NaN.

        Raises
        ------
        ValueError
            If ``matrix`` is not one of counts or has a number of columns other than the vocabulary's size.

        Examples
        --------
        >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
        >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
        >>> model = fit_complement_naive_bayes(training.statistics, alpha=1)
        >>> model.joint_log_likelihood(training.transform(["Chinese Chinese Chinese Tokyo Japan"])).round(6).tolist()
        [[7.520387, 7.820008]]
        """
        matrix = integer_counts(count_matrix(matrix, self.statistics.n_words, "the document matrix"))
        counted = matrix
        if self.binary:
            counted = matrix.copy()
            counted.data = np.ones_like(counted.data)
        lengths = np.asarray(counted.sum(axis=1), dtype=float).reshape(-1, 1)
        with np.errstate(invalid="ignore"):
            # Σ_j x_j log comp_jk, summed over the words each document holds only: a word it does not hold adds
            # nothing, even where its complement count is 0 (α = 0), so no 0 · ∞ is ever formed.
            summed = (counted @ self.word_log_complement).reshape(-1, 1) + (counted @ self._corrections).toarray()
        logged = summed - lengths * self._log_complement_total[None, :]  # Σ_j x_j log θ̃_jk
        jll = logged / self.log_normaliser_[None, :] if self.norm else -logged
        if self.statistics.n_classes == 1:
            jll += self.class_log_prior_
        return jll

    def undecided_rows(self, jll: np.ndarray) -> np.ndarray:
        """The rows where two or more classes score +∞ (α = 0), which cannot be compared."""
        return (jll == np.inf).sum(axis=1) > 1

    def to_dict(self) -> dict:
        return {"model": self.kind, "alpha": float(self.alpha), "norm": self.norm, "binary": self.binary}


def fit_complement_naive_bayes(stats: ClassStatistics, alpha=1, *, norm: bool = False, binary: bool = False,
                               fit_prior: bool = True, class_prior=None) -> ComplementNaiveBayes:
    """Derive a Complement Naive Bayes model from kept counts (the corpus itself is not needed).

    Parameters
    ----------
    stats : ClassStatistics
        The counts per class.
    alpha : str, int, float or Fraction, default 1
        The pseudo-count, read by ``parse_alpha``.
    norm : bool, default False
        Normalise each class's weights (scikit-learn's ``norm``).
    binary : bool, default False
        Count each word once per document.
    fit_prior, class_prior
        The prior, used only with a single class (as in ``fit_naive_bayes``).

    Returns
    -------
    ComplementNaiveBayes

    Raises
    ------
    ValueError
        For an α that ``parse_alpha`` refuses, or counts that are not counts.
    CorpusError
        With α = 0, for a class whose complement has no words (θ̃ would be 0/0), and with ``norm`` for a word that
        occurs in one class only (its log θ̃ is −∞ and the normalised weights would be ∞/∞).

    Examples
    --------
    >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
    >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
    >>> model = fit_complement_naive_bayes(training.statistics, alpha=1)
    >>> tokyo = training.bag.index["tokyo"]
    >>> model.complement_ratio(0, tokyo)  # θ̃ of "tokyo" for China: the Japan document's 1 "tokyo", + 1, over 3 + 6
    (2, 9)
    >>> round(float(model.feature_log_prob_[0, tokyo]), 6)  # its weight, −log(2/9)
    1.504077
    """
    alpha_exact = parse_alpha(alpha)
    alpha_value = exact_float(alpha_exact)
    stats = integer_statistics(stats)
    priors = priors_asked_for(stats, fit_prior, class_prior)
    word_totals = stats.word_total[binary]  # T_j
    class_totals = stats.feature_total[binary]
    complement_total = (class_totals.sum() - class_totals) + stats.n_words * alpha_value
    pairs = stats.observed
    observed_complement = word_totals[pairs.words] - pairs.count(binary) + alpha_value
    _check_complement(stats, alpha_exact, word_totals, complement_total, observed_complement, norm)
    with np.errstate(divide="ignore"):
        word_log_complement = np.log(word_totals + alpha_value)
        observed_log_complement = np.log(observed_complement)
        log_total = np.log(complement_total)
    log_normaliser = None
    if norm:
        # Σ_j log θ̃_jk = Σ_j log(T_j + α) + Σ_{observed j} correction − |V| log S_k.
        corrections = observed_log_complement - word_log_complement[pairs.words]
        per_class = np.bincount(pairs.classes, weights=corrections, minlength=stats.n_classes)
        log_normaliser = word_log_complement.sum() + per_class - stats.n_words * log_total
    return ComplementNaiveBayes(
        statistics=stats,
        alpha=alpha_exact,
        norm=norm,
        binary=binary,
        class_prior_exact=priors.exact,
        class_log_prior_=priors.log_prior,
        complement_total_=complement_total,
        word_log_complement=word_log_complement,
        observed_log_complement=observed_log_complement,
        log_normaliser_=log_normaliser,
    )


def _check_complement(stats, alpha: Fraction, word_totals, complement_total, observed_complement, norm: bool) -> None:
    """What α = 0 cannot have: a word that occurs nowhere, or a class whose complement holds no word (each θ̃ 0/0);
    with ``norm``, a word seen in one class only (log θ̃ = −∞ there, and the normalisation divides ∞ by ∞)."""
    if alpha > 0:
        return
    if (word_totals == 0).any():
        j = int(np.flatnonzero(word_totals == 0)[0])
        raise CorpusError(f"{stats.vocabulary[j]!r} occurs in no document, so with α = 0 its θ̃ is 0 in every class. "
                          "Use α > 0.")
    if (complement_total == 0).any():
        k = int(np.flatnonzero(complement_total == 0)[0])
        raise CorpusError(
            f"No document outside class {stats.classes[k]!r} has a word of the vocabulary, so with α = 0 each θ̃ of "
            "that class would be 0/0. Use α > 0."
        )
    if norm and (observed_complement == 0).any():
        j = int(stats.observed.words[np.flatnonzero(observed_complement == 0)[0]])
        raise CorpusError(
            f"{stats.vocabulary[j]!r} occurs in one class only, so with α = 0 its complement count there is 0, its "
            "log −∞, and normalised weights would divide ∞ by ∞. Use α > 0, or weights without normalising."
        )
