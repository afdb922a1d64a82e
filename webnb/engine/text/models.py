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
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import astuple, dataclass, fields, replace
from fractions import Fraction
from functools import cached_property, cmp_to_key
from typing import ClassVar, NamedTuple

import numpy as np
import scipy.sparse as sp

from webnb.engine.shared import budget
from webnb.engine.shared.classes import ClassPriors, class_priors
from webnb.engine.shared.corpus import CorpusError
from webnb.engine.shared.forwarding import forwarded
from webnb.engine.shared.numbers import bounded_fraction, parse_exact_decimal
from webnb.engine.text.statistics import ClassStatistics, count_matrix

SEED_EPSILON = 1e-14  # the floor of the lecture's notebook: psis.clip(1e-14, 1 - 1e-14)

# Two log joints closer than NEAR_TIE_RELATIVE · (1 + |best|) + NEAR_TIE_PER_TERM · (terms summed) may be
# exactly equal, or in the other order: their exact joints are compared. Float rounding in the sums stays far
# below this (about 1e-16 per unit of magnitude and 1e-13 per term, the logs of counts being at most ~745).
NEAR_TIE_RELATIVE = 1e-9
NEAR_TIE_PER_TERM = 1e-12
# The exact comparison multiplies whole numbers of about this many bits at most (a few milliseconds); longer
# documents, or a Bernoulli model over a large vocabulary, are decided by the floats alone.
EXACT_TIE_BITS = 1 << 17


def parse_alpha(value) -> Fraction:
    """α as an exact fraction: "0.1" and 0.1 both mean 1/10.

    Refuses negatives, NaN and infinity, and numbers too long to convert quickly (more than 40 characters, an
    exponent beyond ±100).

    Parameters
    ----------
    value : str, int, float or Fraction
        The pseudo-count, as typed ("0.5", "1/3", "1e-3") or as a number. A float means the decimal it prints as.

    Returns
    -------
    Fraction
        α, 0 or more. α = 0 is exact maximum likelihood: a word never seen in a class gets probability 0.

    Raises
    ------
    ValueError
        If ``value`` is a bool, negative, not a number, or too long.

    Examples
    --------
    >>> parse_alpha("0.1"), parse_alpha(0.1), parse_alpha("1/3"), parse_alpha(2)
    (Fraction(1, 10), Fraction(1, 10), Fraction(1, 3), Fraction(2, 1))
    >>> parse_alpha(-1)
    Traceback (most recent call last):
        ...
    ValueError: α must be 0 or more, not -1
    """
    if isinstance(value, bool):
        raise ValueError(f"α must be a number such as 1, 0.5 or 0, not {value!r}")
    if isinstance(value, (Fraction, int)):
        alpha = bounded_fraction(Fraction(value), "α")
    else:
        text = str(value).strip()
        unsigned = text[1:] if text.startswith("-") else text
        alpha = parse_exact_decimal(unsigned, "α")
        if text.startswith("-") and alpha != 0:
            alpha = -alpha
    if alpha < 0:
        raise ValueError(f"α must be 0 or more, not {value}")
    return alpha


def parse_probability(value) -> Fraction:
    if isinstance(value, Fraction):
        return bounded_fraction(value, "A class prior")
    try:
        return parse_exact_decimal(str(value).strip().removeprefix("-"), "A class prior") * (
            -1 if str(value).strip().startswith("-") else 1)
    except ValueError:
        raise ValueError(
            f"a class prior must be a number between 0 and 1 (at most 40 characters), not {str(value)[:20]!r}"
        ) from None


def exact_float(fraction: Fraction) -> float:
    """``fraction`` as the nearest float64 (numerator / denominator, correctly rounded, also for huge parts)."""
    return fraction.numerator / fraction.denominator


class Classifier(ABC):
    """What every text model answers from its scores: a model holds its ``statistics`` and ``binary`` and gives
    ``joint_log_likelihood`` (its score of each class for each document) and ``predict_index``; the class names and
    the normalised scores follow here, the same for every model."""

    statistics: ClassStatistics
    binary: bool
    # Whether the normalised scores are probabilities of the classes (Naive Bayes' posteriors). Complement Naive
    # Bayes' are not: no log loss or confidence is made of them.
    gives_probabilities: ClassVar[bool] = True

    classes = forwarded("statistics.classes")
    vocabulary = forwarded("statistics.vocabulary")

    @property
    def uses_presence(self) -> bool:
        """Whether a word counts once per document (Bernoulli, or binary multinomial features)."""
        return self.binary

    @abstractmethod
    def joint_log_likelihood(self, matrix) -> np.ndarray:
        """The score of each class for each row of ``matrix``, shape (n_documents, n_classes)."""

    @abstractmethod
    def undecided_rows(self, jll: np.ndarray) -> np.ndarray:
        """Which rows of scores ``jll`` (from ``joint_log_likelihood``) decide no class, shape (n_documents,)."""

    def predict_index(self, matrix) -> np.ndarray:
        """The class with the largest score per row (of classes tied exactly, the first), or −1 where none can be
        decided (``undecided_rows``).

        Parameters
        ----------
        matrix : scipy.sparse matrix or array-like of shape (n_documents, n_words)
            The documents to classify, as in ``joint_log_likelihood``.

        Returns
        -------
        numpy.ndarray of shape (n_documents,)
            Class numbers, or −1.

        Raises
        ------
        ValueError
            As ``joint_log_likelihood``.
        """
        jll = self.joint_log_likelihood(matrix)
        predicted = jll.argmax(axis=1)
        predicted[self.undecided_rows(jll)] = -1
        return predicted

    def predict(self, matrix: sp.csr_matrix) -> list[str | None]:
        """The class of each row, or None where none can be decided (with α = 0: every class impossible, or, for
        Complement Naive Bayes, two classes at +∞).

        Parameters
        ----------
        matrix : scipy.sparse matrix or array-like of shape (n_documents, n_words)
            As in ``joint_log_likelihood``.

        Returns
        -------
        list of str or None
            One class name per document.

        Raises
        ------
        ValueError
            As ``joint_log_likelihood``.

        Examples
        --------
        >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
        >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
        >>> d5 = training.transform(["Chinese Chinese Chinese Tokyo Japan"])
        >>> training.model("multinomial", 1).predict(d5), training.model("bernoulli", 1).predict(d5)
        (['China'], ['Japan'])
        """
        return [self.classes[i] if i >= 0 else None for i in self.predict_index(matrix)]

    def predict_log_proba(self, matrix: sp.csr_matrix) -> LogPosterior:
        """(log P(k | x), decidable): the scores normalised by log-sum-exp with the max shift.

        Rows where no class can be decided have no posterior; they are −∞ throughout and marked False in
        ``decidable``. (For Complement Naive Bayes the normalised scores sum to 1 but are not probabilities.)

        Parameters
        ----------
        matrix : scipy.sparse matrix or array-like of shape (n_documents, n_words)
            The documents whose posteriors are wanted, as in ``joint_log_likelihood``.

        Returns
        -------
        LogPosterior
            ``log_proba`` of shape (n_documents, n_classes) and ``decidable`` of shape (n_documents,).

        Raises
        ------
        ValueError
            If ``joint_log_likelihood`` refuses ``matrix``.

        Examples
        --------
        >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
        >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
        >>> d5 = training.transform(["Chinese Chinese Chinese Tokyo Japan"])
        >>> log_proba, decidable = training.model("multinomial", 1).predict_log_proba(d5)
        >>> np.exp(log_proba).round(6).tolist(), decidable.tolist()
        ([[0.689759, 0.310241]], [True])
        """
        return normalise_log_joint(self.joint_log_likelihood(matrix))


@dataclass(frozen=True, eq=False)
class NaiveBayes(Classifier):
    """A fitted model: one of its two kinds, ``BernoulliNaiveBayes`` or ``MultinomialNaiveBayes``, which differ in
    what a word's factor is and whether absent words have one; everything else (storage, scoring, the exact tie
    check) is shared here.

    Parameters are stored where they differ: at the (class, word) pairs observed in training
    (``observed_*``, parallel to ``statistics.observed``), and once per class for all the words a class
    never saw (``unobserved_*``, shape (n_classes,)). That keeps a new α at O(observed pairs) instead of
    O(n_classes × n_words). The dense tables ``feature_prob_`` (ψ or θ), ``feature_log_prob_`` and, for
    Bernoulli, ``absent_log_prob_`` (log(1 − ψ)), of shape (n_classes, n_words), are built on first use.

    Made by ``fit_naive_bayes`` (or ``TrainingSet.model``), never directly.

    Parameters
    ----------
    statistics : ClassStatistics
        The counts the model is derived from.
    alpha : Fraction
        The pseudo-count α; 0 means no smoothing (zero probabilities stay exact zeros, their logs −∞).
    epsilon : float or None
        The ε-floor that clips ψ to [ε, 1 − ε] (θ to [ε, 1]), or None for none.
    binary : bool
        Whether a word counts once per document (always True for Bernoulli).
    prior_mode : {"learned", "uniform", "given"}
        Where the priors φ come from.
    class_prior_exact : tuple of Fraction
        φ_k exactly.
    class_prior_, class_log_prior_ : numpy.ndarray of shape (n_classes,)
        φ_k and log φ_k.
    observed_prob, observed_log_prob, observed_absent_log_prob : numpy.ndarray of shape (n_observed,)
        ψ or θ, its log, and log(1 − ψ) (Bernoulli; None for multinomial) at the observed (class, word) pairs.
    unobserved_prob, unobserved_log_prob, unobserved_absent_log_prob : numpy.ndarray of shape (n_classes,)
        The same for every word a class never saw.

    Attributes
    ----------
    kind : str
        "bernoulli" or "multinomial".
    classes, vocabulary : tuple of str
        Those of ``statistics``.
    feature_prob_, feature_log_prob_ : numpy.ndarray of shape (n_classes, n_words)
        ψ_jk or θ_jk and its log, made dense when first read.
    absent_log_prob_ : numpy.ndarray of shape (n_classes, n_words) or None
        log(1 − ψ_jk) for Bernoulli; None for multinomial.
    """

    kind: ClassVar[str]  # the model's name in addresses, JSON and the notebook
    counts_presence: ClassVar[bool]  # True: a word counts once per document, whatever ``binary`` says
    statistics: ClassStatistics
    alpha: Fraction
    epsilon: float | None
    binary: bool
    prior_mode: str
    class_prior_exact: tuple[Fraction, ...]
    class_prior_: np.ndarray
    class_log_prior_: np.ndarray
    observed_prob: np.ndarray
    observed_log_prob: np.ndarray
    observed_absent_log_prob: np.ndarray | None
    unobserved_prob: np.ndarray
    unobserved_log_prob: np.ndarray
    unobserved_absent_log_prob: np.ndarray | None

    # -- dense tables, for pages that show every parameter ----------------------------------------

    def _dense(self, unobserved: np.ndarray, observed: np.ndarray) -> np.ndarray:
        pairs = self.statistics.observed
        budget.require_shown_table(self.statistics.n_classes, self.statistics.n_words)  # before allocating it
        table = np.empty((self.statistics.n_classes, self.statistics.n_words))
        table[:] = unobserved[:, None]
        table[pairs.classes, pairs.words] = observed
        return table

    @cached_property
    def feature_prob_(self) -> np.ndarray:
        return self._dense(self.unobserved_prob, self.observed_prob)

    @cached_property
    def feature_log_prob_(self) -> np.ndarray:
        return self._dense(self.unobserved_log_prob, self.observed_log_prob)

    @cached_property
    def absent_log_prob_(self) -> np.ndarray | None:
        """log(1 − ψ) for Bernoulli, whose absent words have a factor; None for multinomial."""
        if self.observed_absent_log_prob is None:
            return None
        return self._dense(self.unobserved_absent_log_prob, self.observed_absent_log_prob)

    # -- single entries, for the trace ------------------------------------------------------------

    def columns(self, word_indices) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """ψ or θ, its log, and for Bernoulli log(1 − ψ), for a few words.

        Costs O(n_classes · len(word_indices)), whatever |V| is.

        Parameters
        ----------
        word_indices : sequence of int
            Columns of the vocabulary.

        Returns
        -------
        prob, log_prob : numpy.ndarray of shape (n_classes, len(word_indices))
            ψ_jk or θ_jk, and its log.
        absent_log_prob : numpy.ndarray of shape (n_classes, len(word_indices)) or None
            log(1 − ψ_jk) for Bernoulli; None for multinomial.

        Examples
        --------
        >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
        >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
        >>> prob, log_prob, absent = training.model("multinomial", 1).columns([training.bag.index["chinese"]])
        >>> prob.round(6).tolist(), absent is None
        ([[0.428571], [0.222222]], True)
        """
        word_indices = np.asarray(word_indices, dtype=np.int64)
        pairs = self.statistics.observed
        sources = [(self.unobserved_prob, self.observed_prob), (self.unobserved_log_prob, self.observed_log_prob)]
        if self.observed_absent_log_prob is not None:
            sources.append((self.unobserved_absent_log_prob, self.observed_absent_log_prob))
        tables = [np.repeat(unobserved[:, None], len(word_indices), axis=1) for unobserved, _ in sources]
        # Every observed (class, word) pair of the asked words at once: their positions in the word-major pairs, and
        # the column each lands in (a trace on twenty classes asks for a hundred words, six times a page).
        starts, stops = pairs.word_indptr[word_indices], pairs.word_indptr[word_indices + 1]
        lengths = stops - starts
        column_of_pair = np.repeat(np.arange(len(word_indices)), lengths)
        positions = np.arange(lengths.sum()) + np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
        seen_by = pairs.classes[positions]
        for table, (_, observed) in zip(tables, sources, strict=True):
            table[seen_by, column_of_pair] = observed[positions]
        return tables[0], tables[1], tables[2] if len(tables) == 3 else None

    def certain_words(self, class_index: int) -> np.ndarray:
        """Words with ψ_jk = 1 (in every training document of the class): their absence has probability 0.

        Only a Bernoulli model without smoothing (α = 0) has such words.

        Parameters
        ----------
        class_index : int
            The class k whose certain words are wanted.

        Returns
        -------
        numpy.ndarray of int
            The word numbers j, in vocabulary order.
        """
        return self._certain_words_per_class[class_index]

    @cached_property
    def _certain_words_per_class(self) -> tuple[np.ndarray, ...]:
        # Found once per model: a trace asks for every class, and the observed pairs are many on a real corpus.
        pairs = self.statistics.observed
        certain = self._observed_certain
        return tuple(pairs.words[certain & (pairs.classes == k)] for k in range(len(self.classes)))

    @cached_property
    def _observed_certain(self) -> np.ndarray:
        """At each observed pair, whether the word is certain (ψ_jk = 1, so its absence has probability 0). Only a
        Bernoulli model has such words: a multinomial one gives absent words no factor."""
        return np.zeros(len(self.observed_prob), dtype=bool)

    @cached_property
    def certain_word_count_(self) -> np.ndarray:
        """How many words have ψ_jk = 1 in each class, shape (n_classes,)."""
        return np.bincount(
            self.statistics.observed.classes[self._observed_certain], minlength=self.statistics.n_classes
        )

    @cached_property
    def has_zero_probabilities(self) -> bool:
        return bool((self.unobserved_log_prob == -np.inf).any() or self._observed_certain.any())

    # -- scoring ----------------------------------------------------------------------------------

    def _word_by_class(self, values: np.ndarray) -> sp.csr_matrix:
        """A sparse (n_words, n_classes) matrix holding ``values`` at the observed pairs."""
        pairs = self.statistics.observed
        shape = (self.statistics.n_words, self.statistics.n_classes)
        matrix = sp.csr_matrix((values, pairs.classes, pairs.word_indptr), shape=shape)
        matrix.has_canonical_format = True  # word-major, classes ascending: already canonical
        return matrix

    @cached_property
    def _scoring(self):
        """What scoring needs, per class: the shared weight of an unobserved word (0 where that weight
        is −∞, which is handled by counting instead), and sparse corrections at observed pairs."""
        unobserved, observed = self._present_word_weights()
        impossible_unobserved = unobserved == -np.inf
        base = np.where(impossible_unobserved, 0.0, unobserved)
        corrections = self._word_by_class(observed - base[self.statistics.observed.classes])
        observed_indicator = self._word_by_class(np.ones(len(observed))) if impossible_unobserved.any() else None
        certain_indicator = self._word_by_class(self._observed_certain.astype(float))
        return base, corrections, impossible_unobserved, observed_indicator, certain_indicator

    def _present_word_weights(self) -> tuple[np.ndarray, np.ndarray]:
        """What a counted word adds to its class's log joint: (unobserved, per class; observed, per pair)."""
        return self.unobserved_log_prob, self.observed_log_prob

    def _absent_words_log_prob(self) -> np.ndarray | float:
        """What every document adds to each class's log joint whatever its words (the absent words' factors)."""
        return 0.0

    def _terms_summed(self, lengths: np.ndarray) -> np.ndarray:
        """How many logs a document's joint sums, for the rounding allowance of the tie check."""
        return lengths

    def joint_log_likelihood(self, matrix: sp.csr_matrix, *, exact_bits: int | None = EXACT_TIE_BITS) -> np.ndarray:
        """log φ_k + log P(x | k) for each row of ``matrix``.

        Classes whose joints are exactly equal get the very same float, so that the argmax (the first of
        them) decides ties as exact arithmetic does: see ``_settle_near_ties``.

        Parameters
        ----------
        matrix : scipy.sparse matrix or array-like of shape (n_documents, n_words)
            Counts over the model's vocabulary (``TrainingSet.transform`` makes them).
        exact_bits : int or None, default ``EXACT_TIE_BITS``
            Bounds the exact tie check's work; None: no bound.

        Returns
        -------
        numpy.ndarray of shape (n_documents, n_classes)
            −∞ where a zero factor makes the class impossible (possible with α = 0). Never NaN.

        Raises
        ------
        ValueError
            If ``matrix`` is not one of counts (whole, 0 or more, finite) or has a number of columns other than the
            vocabulary's size.

        Examples
        --------
        >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
        >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
        >>> d5 = training.transform(["Chinese Chinese Chinese Tokyo Japan"])
        >>> training.model("multinomial", 1).joint_log_likelihood(d5).round(6).tolist()
        [[-8.10769, -8.906681]]
        >>> training.model("multinomial", 0).joint_log_likelihood(d5).round(6).tolist()  # α = 0, no "tokyo" in China
        [[-inf, -6.879356]]
        """
        matrix = integer_counts(count_matrix(matrix, self.statistics.n_words, "the document matrix"))
        presence = matrix.copy()
        presence.data = np.ones_like(presence.data)
        counted = presence if self.uses_presence else matrix
        base, corrections, impossible_unobserved, observed_indicator, certain_indicator = self._scoring
        lengths = np.asarray(counted.sum(axis=1)).reshape(-1, 1)
        jll = self.class_log_prior_ + lengths * base + (counted @ corrections).toarray()
        jll += self._absent_words_log_prob()
        if observed_indicator is not None:
            present_words = np.diff(presence.indptr).reshape(-1, 1)
            present_unobserved = present_words - (presence @ observed_indicator).toarray()
            jll[(present_unobserved > 0) & impossible_unobserved] = -np.inf
        if self.certain_word_count_.any():
            absent_certain = self.certain_word_count_ - (presence @ certain_indicator).toarray()
            jll[absent_certain > 0] = -np.inf
        self._settle_near_ties(jll, counted, lengths.ravel(), exact_bits)
        return jll

    # -- exact ties ---------------------------------------------------------------------------------
    #
    # The float sums above round differently for different classes, so two exactly equal joints (say 1/2 and
    # 1/2) can come out one unit in the last place apart, and the argmax would then pick whichever rounded up.
    # Where two or more classes are within rounding distance of the best, their joints are compared exactly,
    # as products of whole numbers, and the floats are set to follow that exact order: equal joints get
    # the same float (so the argmax picks the first of them, as scikit-learn does with equal floats).

    def _settle_near_ties(self, jll: np.ndarray, counted: sp.csr_matrix, lengths: np.ndarray, exact_bits) -> None:
        if self.epsilon is not None or jll.shape[1] < 2 or jll.shape[0] == 0:
            return  # under an ε-floor the parameters are clipped floats: there is no exact value to compare
        top = jll.max(axis=1)  # −∞ in rows where every class is impossible: their slack is +∞, nothing is near
        slack = NEAR_TIE_RELATIVE * (1.0 + np.abs(top)) + NEAR_TIE_PER_TERM * self._terms_summed(lengths)
        near = (jll >= (top - slack)[:, None]) & (jll > -np.inf)
        settled: dict = {}
        for row in np.flatnonzero(near.sum(axis=1) > 1).tolist():
            candidates = np.flatnonzero(near[row])
            start, stop = counted.indptr[row], counted.indptr[row + 1]
            words, counts = counted.indices[start:stop], counted.data[start:stop]
            key = (candidates.tobytes(), words.tobytes(), np.asarray(counts, dtype=np.int64).tobytes())
            if key not in settled:
                settled[key] = self._exact_order(candidates, words, counts, exact_bits)
            groups = settled[key]
            if groups is None:
                continue  # too large to compare exactly: the floats decide
            ceiling = np.inf
            for group in groups:  # best first; each group's joints are exactly equal
                value = jll[row, group].max()
                if value >= ceiling:
                    value = np.nextafter(ceiling, -np.inf)
                jll[row, group] = value
                ceiling = value

    def _exact_order(self, candidates, words, counts, exact_bits) -> list[list[int]] | None:
        """The candidate classes grouped by exactly equal joint, best group first, classes ascending within
        a group; None when a joint has more than ``exact_bits`` bits (too costly to multiply out)."""
        joints = []
        for k in candidates.tolist():
            joint = self._exact_joint(k, words, counts, exact_bits)
            if joint is None:
                return None
            joints.append((k, joint))
        # a/b > c/d ⟺ a·d > c·b for positive denominators; a stable sort keeps equal joints in class order.
        ordered = sorted(joints, key=cmp_to_key(lambda x, y: _compare_ratio(y[1], x[1])))
        groups = [[ordered[0][0]]]
        for (_, previous), (k, joint) in zip(ordered, ordered[1:], strict=False):
            if _compare_ratio(previous, joint) == 0:
                groups[-1].append(k)
            else:
                groups.append([k])
        return groups

    def _exact_joint(self, k: int, words, counts, exact_bits) -> tuple[int, int] | None:
        """φ_k · Π_j P(x_j | k) as (numerator, denominator), whole numbers, for the document whose counted
        words are ``words`` (indices) with ``counts``; None when it would exceed ``exact_bits`` bits.

        With α = p/q every parameter is a ratio of whole numbers: θ_jk = (q·c_jk + p)/(q·Σ_j c_jk + |V|·p),
        ψ_jk = (q·n_jk + p)/(q·n_k + 2p) and 1 − ψ_jk = (q·(n_k − n_jk) + p)/(q·n_k + 2p). Equal whole numbers
        are gathered into one power (cancelling between numerator and denominator), so a long document costs one
        power per distinct value."""
        prior = self.class_prior_exact[k]
        exponents = self._exact_likelihood(k, words, counts, exact_bits)
        if exponents is None:
            return None
        if exponents.get(0, 0) > 0:
            return 0, 1
        if exact_bits is not None:
            bits = prior.numerator.bit_length() + prior.denominator.bit_length()
            bits += sum(abs(times) * value.bit_length() for value, times in exponents.items())
            if bits > exact_bits:
                return None
        numerator = prior.numerator * math.prod(pow(v, e) for v, e in exponents.items() if e > 0)
        denominator = prior.denominator * math.prod(pow(v, -e) for v, e in exponents.items() if e < 0)
        return numerator, denominator

    @cached_property
    def _absent_histogram(self) -> np.ndarray:
        """Per class, how many words of the vocabulary occur in exactly n documents of the class, n = 0 … n_k
        (Bernoulli): row k is bincount(n_jk over j)."""
        stats = self.statistics
        size = int(stats.class_count_.max()) + 1
        return np.stack([np.bincount(stats.document_count_[k], minlength=size) for k in range(stats.n_classes)])

    def undecided_rows(self, jll: np.ndarray) -> np.ndarray:
        """The rows where every class has probability 0 (α = 0)."""
        return np.all(jll == -np.inf, axis=1)

    # -- exact values, for small corpora -----------------------------------------------------------

    @cached_property
    def _alpha_term(self) -> int | Fraction:
        """α as an int when it is whole, so that ratios stay in fast integer arithmetic."""
        return int(self.alpha) if self.alpha.denominator == 1 else self.alpha

    @abstractmethod
    def feature_ratio(self, class_index: int, word_index: int, absent: bool = False) -> tuple:
        """ψ_jk (or 1 − ψ_jk when ``absent``) or θ_jk as an unreduced (numerator, denominator), the way
        the lecture writes them: 0/2 is "no document of 2", which 0 alone does not say.

        Parameters
        ----------
        class_index : int
            The class number k.
        word_index : int
            The word number j.
        absent : bool, default False
            Bernoulli only: the ratio of 1 − ψ_jk, the factor of an absent word.

        Returns
        -------
        tuple
            (n_jk + α, n_k + 2α) for Bernoulli, (c_jk + α, Σ_j c_jk + |V|·α) for multinomial. The parts are
            ints, or Fractions when α is not a whole number. Under an ε-floor it is still the ratio before clipping.

        Examples
        --------
        >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
        >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
        >>> chinese = training.bag.index["chinese"]
        >>> training.model("multinomial", 1).feature_ratio(0, chinese)  # θ = (5 + 1)/(8 + 6·1)
        (6, 14)
        >>> training.model("bernoulli", 1).feature_ratio(1, chinese, absent=True)  # 1 − ψ = (1 − 1 + 1)/(1 + 2)
        (1, 3)
        """

    def feature_ratios(self, word_indices) -> tuple[list[list], list]:
        """``feature_ratio(k, j)`` for every class k and each word j of ``word_indices``, at once.

        Parameters
        ----------
        word_indices : sequence of int
            As in ``columns``.

        Returns
        -------
        numerators : list of list
            One list per class, in the order of ``word_indices``.
        denominators : list
            One per class.

        Examples
        --------
        >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
        >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
        >>> index = training.bag.index
        >>> training.model("multinomial", 1).feature_ratios([index["chinese"], index["tokyo"]])
        ([[6, 1], [2, 2]], [14, 9])
        """
        counts, denominators = self._counts_and_denominators(np.asarray(word_indices, dtype=np.int64))
        alpha = self._alpha_term
        numerators = [[count + alpha for count in row] for row in counts.astype(np.int64).tolist()]
        return numerators, denominators

    @abstractmethod
    def _counts_and_denominators(self, words: np.ndarray) -> tuple[np.ndarray, list]:
        """The counts that ψ or θ smooths for ``words``, shape (n_classes, len(words)), and each class's
        denominator."""

    @abstractmethod
    def _exact_likelihood(self, k: int, words, counts, exact_bits) -> dict[int, int] | None:
        """P(x | k) as whole numbers with their powers (negative: in the denominator), or None when it is
        certainly longer than ``exact_bits``: see ``_exact_joint``."""

    @classmethod
    @abstractmethod
    def parameters(cls, stats: ClassStatistics, alpha: float, epsilon: float | None, binary: bool) -> dict:
        """The fields of a model fitted with ``alpha`` (as a float) from ``stats``: see the class's docstring."""

    def exact_feature_prob(self, class_index: int, word_index: int, absent: bool = False) -> Fraction | None:
        """ψ_jk (1 − ψ_jk when ``absent``) or θ_jk as an exact fraction; None under an ε-floor.

        Parameters
        ----------
        class_index, word_index, absent
            As in ``feature_ratio``.

        Returns
        -------
        Fraction or None
            The reduced value of ``feature_ratio``; None when the model has an ε-floor (its values are clipped floats).
        """
        if self.epsilon is not None:
            return None
        numerator, denominator = self.feature_ratio(class_index, word_index, absent)
        return Fraction(numerator) / Fraction(denominator)

    @cached_property
    def per_class(self) -> "_PerClass":
        """What a trace reads once per class, as Python values (a trace on 20 classes reads each of them for each)."""
        stats = self.statistics
        ratios = [self.prior_ratio(k) for k in range(stats.n_classes)]
        return _PerClass(
            prior=self.class_prior_.tolist(),
            log_prior=self.class_log_prior_.tolist(),
            prior_ratio=ratios,
            certain_words=self.certain_word_count_.tolist(),
        )

    def prior_ratio(self, class_index: int) -> tuple[int, int] | None:
        """φ_k as (documents of class k, all documents) when the prior is learned.

        Parameters
        ----------
        class_index : int
            The class k.

        Returns
        -------
        (int, int) or None
            (n_k, Σ_k n_k); None for a uniform or given prior, which is no ratio of counts.
        """
        if self.prior_mode != "learned":
            return None
        return int(self.statistics.class_count_[class_index]), self.statistics.n_documents

    def to_dict(self) -> dict:
        return {
            "model": self.kind,
            "alpha": str(self.alpha) if self.alpha.denominator != 1 else int(self.alpha),
            "epsilon": self.epsilon,
            "binary": self.binary,
            "prior": self.prior_mode,
        }


@dataclass(frozen=True, eq=False)
class BernoulliNaiveBayes(NaiveBayes):
    """Which words a document holds: every word of the vocabulary has a factor, ψ_jk when present and 1 − ψ_jk
    when absent. Σ_j log(1 − ψ_jk) is kept per class, so that scoring touches a document's present words only.

    ψ_jk = (n_jk + α) / (n_k + 2α). Made by ``fit_naive_bayes(stats, "bernoulli", alpha)``; see ``NaiveBayes`` for
    the fields.

    Parameters
    ----------
    statistics, alpha, epsilon, binary, prior_mode, class_prior_exact, class_prior_, class_log_prior_
        As for ``NaiveBayes``.
    observed_prob, observed_log_prob, observed_absent_log_prob
        As for ``NaiveBayes``.
    unobserved_prob, unobserved_log_prob, unobserved_absent_log_prob
        As for ``NaiveBayes``.

    Attributes
    ----------
    absent_log_prob_sum_ : numpy.ndarray of shape (n_classes,)
        Σ_j log(1 − ψ_jk) over the words whose absence is possible.

    Examples
    --------
    >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
    >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
    >>> model = fit_naive_bayes(training.statistics, "bernoulli", alpha=1)
    >>> model.feature_ratio(0, training.bag.index["chinese"])  # ψ = (3 + 1)/(3 + 2)
    (4, 5)
    >>> log_proba, _ = model.predict_log_proba(training.transform(["Chinese Chinese Chinese Tokyo Japan"]))
    >>> np.exp(log_proba).round(6).tolist()  # absent "beijing", "macao", "shanghai" count against China
    [[0.191067, 0.808933]]
    """

    kind: ClassVar[str] = "bernoulli"
    counts_presence: ClassVar[bool] = True

    @classmethod
    def parameters(cls, stats: ClassStatistics, alpha: float, epsilon: float | None, binary: bool) -> dict:
        """ψ = (n_jk + α)/(n_k + 2α) and log(1 − ψ) = log(n_k − n_jk + α) − log(n_k + 2α): computed from
        the counts, not as 1 − ψ, so no digits cancel and ψ = 1 gives exactly −∞."""
        pairs = stats.observed
        n_k = stats.class_count_.astype(float)
        denominator = n_k + 2 * alpha
        observed_denominator = denominator[pairs.classes]
        present = pairs.document_count + alpha
        absent = n_k[pairs.classes] - pairs.document_count + alpha
        if epsilon is None:
            return {
                "observed_prob": present / observed_denominator,
                "observed_log_prob": np.log(present) - np.log(observed_denominator),
                "observed_absent_log_prob": np.log(absent) - np.log(observed_denominator),
                "unobserved_prob": alpha / denominator,
                "unobserved_log_prob": np.log(np.full_like(denominator, alpha)) - np.log(denominator),
                "unobserved_absent_log_prob": np.log(n_k + alpha) - np.log(denominator),
            }
        observed = np.clip(present / observed_denominator, epsilon, 1.0 - epsilon)
        unobserved = np.clip(alpha / denominator, epsilon, 1.0 - epsilon)
        return {
            "observed_prob": observed,
            "observed_log_prob": np.log(observed),
            "observed_absent_log_prob": np.log1p(-observed),
            "unobserved_prob": unobserved,
            "unobserved_log_prob": np.log(unobserved),
            "unobserved_absent_log_prob": np.log1p(-unobserved),
        }

    @cached_property
    def _observed_certain(self) -> np.ndarray:
        return self.observed_absent_log_prob == -np.inf

    @cached_property
    def absent_log_prob_sum_(self) -> np.ndarray:
        """Σ_j log(1 − ψ_jk) over the words whose absence is possible, shape (n_classes,)."""
        pairs = self.statistics.observed
        unobserved_words = self.statistics.n_words - pairs.per_class
        finite = np.where(self._observed_certain, 0.0, self.observed_absent_log_prob)
        return unobserved_words * self.unobserved_absent_log_prob + np.bincount(
            pairs.classes, weights=finite, minlength=self.statistics.n_classes
        )

    @cached_property
    def _certain_per_class(self) -> np.ndarray:
        """How many words of each class have ψ_jk = 1 (an absent factor of exactly 0), shape (n_classes,)."""
        return np.bincount(self.statistics.observed.classes, weights=self._observed_certain,
                           minlength=self.statistics.n_classes).astype(np.int64)

    @cached_property
    def _absent_rankings(self) -> dict:
        # (k, other) → the vocabulary's first ABSENT_RANKED words by absent_ranking's order: each pair of classes
        # is ranked over the whole vocabulary once per model (a corpus's models are kept by its TrainingSet).
        return {}

    ABSENT_RANKED: ClassVar[int] = 64

    def absent_log_prob_row(self, k: int) -> np.ndarray:
        """log(1 − ψ_jk) for every word j of the vocabulary, shape (n_words,), from the kept parameters (one row,
        never the dense table)."""
        pairs = self.statistics.observed
        row = np.full(self.statistics.n_words, self.unobserved_absent_log_prob[k])
        mine = pairs.classes == k
        row[pairs.words[mine]] = self.observed_absent_log_prob[mine]
        return row

    def absent_log_prob_at(self, k: int, words) -> np.ndarray:
        """log(1 − ψ_jk) at the word indices ``words``, looked up in each word's observed pairs."""
        pairs = self.statistics.observed
        values = np.full(len(words), self.unobserved_absent_log_prob[k])
        for position, j in enumerate(words):
            start, end = pairs.word_indptr[j], pairs.word_indptr[j + 1]
            hit = start + np.searchsorted(pairs.classes[start:end], k)
            if hit < end and pairs.classes[hit] == k:
                values[position] = self.observed_absent_log_prob[hit]
        return values

    def absent_ranking(self, k: int, other: int, leave_out=()) -> np.ndarray:
        """The words of the vocabulary, but ``leave_out``, by how much their absent factors differ between the
        classes ``k`` and ``other``: largest |log(1 − ψ_jk) − log(1 − ψ_j,other)| first, a word whose two
        factors are both 0 last, ties by word index. Only the first ``ABSENT_RANKED`` minus the words left out
        are sure to be listed (the whole vocabulary is ranked once per pair of classes, then kept)."""
        ranked = self._absent_rankings.get((k, other))
        if ranked is None:
            with np.errstate(invalid="ignore"):
                ratios = self.absent_log_prob_row(k) - self.absent_log_prob_row(other)
            weight = np.where(np.isnan(ratios), -1.0, np.abs(ratios))  # −∞ − −∞: no factor differs
            ranked = self._absent_rankings[(k, other)] = np.argsort(-weight, kind="stable")[:self.ABSENT_RANKED]
        return ranked[~np.isin(ranked, np.asarray(leave_out, dtype=np.int64))]

    def absent_log_prob_sum_without(self, k: int, words) -> float:
        """Σ log(1 − ψ_jk) over the vocabulary but the distinct word indices ``words``: −∞ if a word left in has
        ψ_jk = 1, else the kept sum less the finite factors of ``words``."""
        values = self.absent_log_prob_at(k, words)
        certain_left_out = int(np.count_nonzero(values == -np.inf))
        if self._certain_per_class[k] > certain_left_out:
            return -math.inf
        return float(self.absent_log_prob_sum_[k]) - math.fsum(values[values > -np.inf].tolist())

    def _present_word_weights(self) -> tuple[np.ndarray, np.ndarray]:
        # a present word trades its absent factor, already in absent_log_prob_sum_, for its present one
        unobserved = self.unobserved_log_prob - self.unobserved_absent_log_prob
        observed = self.observed_log_prob - np.where(self._observed_certain, 0.0, self.observed_absent_log_prob)
        return unobserved, observed

    def _absent_words_log_prob(self) -> np.ndarray:
        return self.absent_log_prob_sum_

    def _terms_summed(self, lengths: np.ndarray) -> np.ndarray:
        return lengths + self.statistics.n_words

    def _exact_likelihood(self, k: int, words, counts, exact_bits) -> dict[int, int] | None:
        p, q = self.alpha.numerator, self.alpha.denominator
        stats = self.statistics
        n_k = int(stats.class_count_[k])
        if exact_bits is not None and p > 0 and stats.n_words * (q * n_k + 2 * p).bit_length() > exact_bits:
            return None  # every numerator is below the denominator, so its |V|-th power cannot cancel
        exponents: dict[int, int] = {}
        present = stats.document_count_[k, words].astype(np.int64)
        absent = self._absent_histogram[k].copy()  # how many words of the vocabulary have each n_jk
        np.subtract.at(absent, present, 1)
        for n_jk in np.flatnonzero(absent).tolist():
            _multiply(exponents, q * (n_k - n_jk) + p, int(absent[n_jk]))
        for n_jk in present.tolist():
            _multiply(exponents, q * n_jk + p, 1)
        _multiply(exponents, q * n_k + 2 * p, -stats.n_words)
        return exponents

    def feature_ratio(self, class_index: int, word_index: int, absent: bool = False) -> tuple:
        stats, alpha = self.statistics, self._alpha_term
        n_k = int(stats.class_count_[class_index])
        n_jk = int(stats.document_count_[class_index, word_index])
        return (n_k - n_jk if absent else n_jk) + alpha, n_k + 2 * alpha

    def _counts_and_denominators(self, words: np.ndarray) -> tuple[np.ndarray, list]:
        stats, alpha = self.statistics, self._alpha_term
        denominators = [n_k + 2 * alpha for n_k in stats.class_count_.astype(np.int64).tolist()]
        return stats.document_count_[:, words], denominators


@dataclass(frozen=True, eq=False)
class MultinomialNaiveBayes(NaiveBayes):
    """How often each word occurs (or, with ``binary``, whether it does): a factor θ_jk per occurrence, none for
    absent words.

    θ_jk = (c_jk + α) / (Σ_j c_jk + |V|·α). Made by ``fit_naive_bayes(stats, "multinomial", alpha)``; see
    ``NaiveBayes`` for the fields.

    Parameters
    ----------
    statistics, alpha, epsilon, binary, prior_mode, class_prior_exact, class_prior_, class_log_prior_
        As for ``NaiveBayes``.
    observed_prob, observed_log_prob, observed_absent_log_prob
        As for ``NaiveBayes``; ``observed_absent_log_prob`` is None.
    unobserved_prob, unobserved_log_prob, unobserved_absent_log_prob
        As for ``NaiveBayes``; ``unobserved_absent_log_prob`` is None.

    Examples
    --------
    >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
    >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
    >>> model = training.model("multinomial", 1)
    >>> model.exact_feature_prob(0, training.bag.index["chinese"])  # θ = (5 + 1)/(8 + 6)
    Fraction(3, 7)
    >>> model.predict(training.transform(["Chinese Chinese Chinese Tokyo Japan"]))
    ['China']
    """

    kind: ClassVar[str] = "multinomial"
    counts_presence: ClassVar[bool] = False

    @classmethod
    def parameters(cls, stats: ClassStatistics, alpha: float, epsilon: float | None, binary: bool) -> dict:
        """θ = (c_jk + α)/(Σ_j c_jk + |V|·α)."""
        pairs = stats.observed
        totals = stats.feature_total[binary] + stats.n_words * alpha
        empty = [stats.classes[k] for k in np.flatnonzero(totals == 0)]
        if empty:
            raise CorpusError(
                f"Class {empty[0]!r} has no words in the vocabulary, so with α = 0 every θ of that class "
                "would be 0/0. Use α > 0, or give that class documents with words."
            )
        smoothed = pairs.count(binary) + alpha
        observed_totals = totals[pairs.classes]
        if epsilon is None:
            return {
                "observed_prob": smoothed / observed_totals,
                "observed_log_prob": np.log(smoothed) - np.log(observed_totals),
                "observed_absent_log_prob": None,
                "unobserved_prob": alpha / totals,
                "unobserved_log_prob": np.log(np.full_like(totals, alpha, dtype=float)) - np.log(totals),
                "unobserved_absent_log_prob": None,
            }
        observed = np.clip(smoothed / observed_totals, epsilon, 1.0)
        unobserved = np.clip(alpha / totals, epsilon, 1.0)
        return {
            "observed_prob": observed,
            "observed_log_prob": np.log(observed),
            "observed_absent_log_prob": None,
            "unobserved_prob": unobserved,
            "unobserved_log_prob": np.log(unobserved),
            "unobserved_absent_log_prob": None,
        }

    def _exact_likelihood(self, k: int, words, counts, exact_bits) -> dict[int, int] | None:
        p, q = self.alpha.numerator, self.alpha.denominator
        stats = self.statistics
        exponents: dict[int, int] = {}
        feature_count = stats.feature_count(self.binary)[k, words]
        counts = np.asarray(counts, dtype=np.int64)
        for c_jk, times in zip(feature_count.tolist(), counts.tolist(), strict=True):
            _multiply(exponents, q * int(c_jk) + p, times)
        _multiply(exponents, q * int(stats.feature_total[self.binary][k]) + stats.n_words * p, -int(counts.sum()))
        return exponents

    def feature_ratio(self, class_index: int, word_index: int, absent: bool = False) -> tuple:
        stats, alpha = self.statistics, self._alpha_term
        counts = stats.feature_count(self.binary)
        total = int(stats.feature_total[self.binary][class_index]) + stats.n_words * alpha
        return int(counts[class_index, word_index]) + alpha, total

    def _counts_and_denominators(self, words: np.ndarray) -> tuple[np.ndarray, list]:
        stats, alpha = self.statistics, self._alpha_term
        totals = stats.feature_total[self.binary].astype(np.int64).tolist()
        return stats.feature_count(self.binary)[:, words], [total + stats.n_words * alpha for total in totals]


# The model kinds by the name that addresses, the JSON twins and the notebook give them.
MODEL_KINDS: dict[str, type[NaiveBayes]] = {model.kind: model for model in (BernoulliNaiveBayes, MultinomialNaiveBayes)}


def _multiply(exponents: dict[int, int], value: int, times: int) -> None:
    """Multiply a product kept as {whole number: power} by value ** times."""
    exponents[value] = exponents.get(value, 0) + times


class _PerClass(NamedTuple):
    prior: list[float]  # φ_k
    log_prior: list[float]
    prior_ratio: list[tuple[int, int] | None]
    certain_words: list[int]  # words with ψ_jk = 1 (Bernoulli), 0 for multinomial


def _compare_ratio(a: tuple[int, int], b: tuple[int, int]) -> int:
    """−1, 0 or 1 as a[0]/a[1] is less than, equal to or greater than b[0]/b[1] (positive denominators)."""
    left, right = a[0] * b[1], b[0] * a[1]
    return (left > right) - (left < right)


class LogPosterior(NamedTuple):
    """What every model's ``predict_log_proba`` answers (Bernoulli, multinomial and Gaussian alike).

    A named tuple: ``log_proba, decidable = model.predict_log_proba(X)``.

    Parameters
    ----------
    log_proba : numpy.ndarray of shape (n, n_classes)
        log P(k | x); −∞ throughout a row that is not ``decidable``.
    decidable : numpy.ndarray of bool, shape (n,)
        False where no class is possible (or two are certain, Gaussian NB).
    """

    log_proba: np.ndarray  # (n, K) log P(k | x); −∞ throughout a row that is not ``decidable``
    decidable: np.ndarray  # (n,) False where no class is possible (or two are certain, Gaussian NB)


def normalise_log_joint(jll: np.ndarray) -> LogPosterior:
    """(log P(k | x), decidable) from joint log-likelihoods, by log-sum-exp with the max shift.

    log P(k | x) = jll_k − (m + log Σ_c exp(jll_c − m)) with m = max_c jll_c, so that nothing underflows however
    small the joints. Rows where every class is −∞ have no posterior: −∞ throughout, False in ``decidable``.

    Text models never give +∞; Gaussian NB does for a value exactly at the mean of a zero-variance feature. One
    class at +∞ takes all the probability; two or more cannot be compared (∞/∞), so that row is undecidable too.

    Parameters
    ----------
    jll : numpy.ndarray of shape (n, n_classes)
        log φ_k + log P(x | k) per row and class.

    Returns
    -------
    LogPosterior
        ``log_proba`` of shape (n, n_classes) and ``decidable`` of shape (n,).

    Examples
    --------
    Joints of 0.3 and 0.1 (the evidence is 0.4), then a row where both classes are impossible:

    >>> with np.errstate(divide="ignore"):
    ...     jll = np.log([[0.3, 0.1], [0.0, 0.0]])
    >>> log_proba, decidable = normalise_log_joint(jll)
    >>> np.exp(log_proba).round(6).tolist(), decidable.tolist()
    ([[0.75, 0.25], [0.0, 0.0]], [True, False])
    >>> log_proba, _ = normalise_log_joint(np.array([[-1000.0, -1001.0]]))  # exp(−1000) underflows; this does not
    >>> np.exp(log_proba).round(6).tolist()
    [[0.731059, 0.268941]]
    """
    infinite = jll == np.inf
    n_infinite = infinite.sum(axis=1)
    decidable = ~np.all(jll == -np.inf, axis=1) & (n_infinite <= 1)
    log_posterior = np.full_like(jll, -np.inf)
    certain = decidable & (n_infinite == 1)
    log_posterior[certain] = np.where(infinite[certain], 0.0, -np.inf)
    ordinary = decidable & ~certain
    scores = jll[ordinary]
    shift = scores.max(axis=1, keepdims=True)
    log_evidence = shift + np.log(np.exp(scores - shift).sum(axis=1, keepdims=True))
    log_posterior[ordinary] = scores - log_evidence
    return LogPosterior(log_posterior, decidable)


def priors_asked_for(stats: ClassStatistics, fit_prior: bool, class_prior) -> ClassPriors:
    """The priors the options ask for: ``class_prior`` (one probability per class, in class order) when given,
    else learned from the class counts (``fit_prior``) or uniform."""
    if class_prior is None:
        return class_priors(stats.class_count_, "learned" if fit_prior else "uniform")
    n_classes = stats.n_classes
    exact = tuple(parse_probability(p) for p in class_prior)
    if len(exact) != n_classes:
        raise ValueError(f"class_prior needs {n_classes} values (one per class: {', '.join(stats.classes)})")
    if any(p < 0 or p > 1 for p in exact):
        raise ValueError("every class prior must be between 0 and 1")
    if abs(float(sum(exact)) - 1.0) > 1e-9:
        raise ValueError(f"the class priors must add up to 1, not {float(sum(exact)):g}")
    return class_priors(stats.class_count_, "given", exact)


@dataclass(frozen=True)
class ModelOptions(Mapping):
    """The settings of one text model, as one value: which model, α, and how the priors and the floor are set.

    It reads as the keywords ``fit_naive_bayes`` and ``TrainingSet.model`` take (it is a mapping of them), so the
    engine's functions that take model keywords take it whole; ``key`` is its hashable form for caches.

    Parameters
    ----------
    kind : {"bernoulli", "multinomial"}, default "bernoulli"
        The model.
    alpha : str, int, float or Fraction, default 1
        The pseudo-count (see ``parse_alpha``).
    binary : bool, default False
        Multinomial only: count each word once per document.
    fit_prior : bool, default True
        Learned class priors; False for uniform ones.
    epsilon : float or None, default None
        The ε-floor of the probabilities, None for none.

    Examples
    --------
    >>> options = ModelOptions("multinomial", "1")
    >>> dict(options)
    {'kind': 'multinomial', 'alpha': '1', 'binary': False, 'fit_prior': True, 'epsilon': None}
    >>> options.replace(alpha="0.5").key
    ('multinomial', '0.5', False, True, None)
    """

    kind: str = "bernoulli"
    alpha: object = 1
    binary: bool = False
    fit_prior: bool = True
    epsilon: float | None = None

    def __getitem__(self, name: str):
        if name not in self._names():
            raise KeyError(name)
        return getattr(self, name)

    def __iter__(self):
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())

    @classmethod
    def _names(cls) -> tuple[str, ...]:
        return tuple(field.name for field in fields(cls))

    def replace(self, **changes) -> "ModelOptions":
        """The same settings with ``changes``."""
        return replace(self, **changes)

    @property
    def key(self) -> tuple:
        """The settings as a hashable tuple, in field order."""
        return astuple(self)


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
    """Derive a model's parameters from kept counts (the corpus itself is not needed).

    Bernoulli: ψ_jk = (n_jk + α) / (n_k + 2α). Multinomial: θ_jk = (c_jk + α) / (Σ_j c_jk + |V|·α). α = 0 is exact
    maximum likelihood: a zero probability is an exact zero and its log is −∞.

    Parameters
    ----------
    stats : ClassStatistics
        The counts per class.
    kind : {"bernoulli", "multinomial"}, default "bernoulli"
        The model (the keys of ``MODEL_KINDS``).
    alpha : str, int, float or Fraction, default 1
        The pseudo-count, read by ``parse_alpha``.
    binary : bool, default False
        Multinomial only: count each word once per document (Bernoulli always does).
    fit_prior : bool, default True
        Learn φ_k = n_k / Σ n_k from the class counts; else uniform φ_k = 1/K.
    class_prior : sequence of numbers, optional
        φ_k given outright, one per class in class order, each in [0, 1], summing to 1. Overrides ``fit_prior``.
    epsilon : float, optional
        The ε-floor, 0 < ε < 0.5: ψ is clipped to [ε, 1 − ε], θ to [ε, 1]. None: no floor.

    Returns
    -------
    NaiveBayes
        A ``BernoulliNaiveBayes`` or a ``MultinomialNaiveBayes``.

    Raises
    ------
    ValueError
        For an unknown ``kind``, an α that ``parse_alpha`` refuses, an ``epsilon`` outside (0, 0.5), a
        ``class_prior`` of the wrong length, outside [0, 1] or not summing to 1, or counts that are not counts.
    CorpusError
        For a multinomial model with α = 0 and a class with no words in the vocabulary (every θ would be 0/0).

    Examples
    --------
    >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
    >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
    >>> model = fit_naive_bayes(training.statistics, "multinomial", alpha=1)
    >>> model.class_prior_exact, model.exact_feature_prob(0, training.bag.index["tokyo"])
    ((Fraction(3, 4), Fraction(1, 4)), Fraction(1, 14))
    >>> fit_naive_bayes(training.statistics, "multinomial", alpha=0).exact_feature_prob(0, training.bag.index["tokyo"])
    Fraction(0, 1)
    >>> fit_naive_bayes(training.statistics, "gaussian")
    Traceback (most recent call last):
        ...
    ValueError: model must be one of ('bernoulli', 'multinomial'), not 'gaussian'
    """
    if kind not in MODEL_KINDS:
        raise ValueError(f"model must be one of {tuple(MODEL_KINDS)}, not {kind!r}")
    model_class = MODEL_KINDS[kind]
    alpha_exact = parse_alpha(alpha)
    alpha_value = exact_float(alpha_exact)
    if epsilon is not None and not (0.0 < epsilon < 0.5):
        raise ValueError(f"the ε-floor must be between 0 and 0.5, not {epsilon}")
    stats = integer_statistics(stats)
    priors = priors_asked_for(stats, fit_prior, class_prior)

    binary = binary or model_class.counts_presence
    with np.errstate(divide="ignore"):
        parameters = model_class.parameters(stats, alpha_value, epsilon, binary)
    return model_class(
        statistics=stats,
        alpha=alpha_exact,
        epsilon=epsilon,
        binary=binary,
        prior_mode=priors.mode,
        class_prior_exact=priors.exact,
        class_prior_=priors.prior,
        class_log_prior_=priors.log_prior,
        **parameters,
    )


def integer_counts(matrix: sp.csr_matrix) -> sp.csr_matrix:
    """A checked count matrix (see ``count_matrix``, which keeps the caller's dtype) with int64 counts: whole floats
    (float32, float64) become the integers they hold, so that scoring, the exact tie check included, sees the same
    matrix as for the integer twin. A copy when converted; the caller's arrays are never changed."""
    return matrix if matrix.dtype == np.int64 else matrix.astype(np.int64)


def integer_statistics(stats: ClassStatistics) -> ClassStatistics:
    """``stats`` with int64 counts. Statistics counted from a float matrix hold whole floats, which the exact tie
    check cannot count (np.bincount) or multiply out as whole numbers; converted once here, where a model is fitted,
    every later path sees the integers an integer matrix gives. Counts made by hand are checked as a matrix's are."""
    counts = {"class_count_": stats.class_count_, "document_count_": stats.document_count_,
              "word_count_": stats.word_count_}
    if all(np.asarray(values).dtype == np.int64 for values in counts.values()):
        return stats
    for values in counts.values():
        count_matrix(np.atleast_2d(values), what="the class statistics")  # refuses as for a matrix; result unused
    return replace(stats, **{name: np.asarray(values).astype(np.int64) for name, values in counts.items()})


def log_of_fraction(value: Fraction) -> float:
    """log of an exact fraction without overflow for huge numerators/denominators; log 0 = −∞."""
    if value == 0:
        return -math.inf
    return math.log(value.numerator) - math.log(value.denominator)
