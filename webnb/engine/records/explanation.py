"""The explanation of one review, step by step: Bayes' rule, the zero-probability failure, and both fixes.

The inference page steps through the computation for a typed review, then shows what goes wrong and
how it is repaired. This module computes every number those steps show, as frozen records that pages
only format; the explanation computes each of its parts when a step first reads it, so a step pays for what it
shows. It derives nothing by hand: each scenario is a model from ``TrainingSet.model`` explained with ``explain``.

    trace       the user's settings (model, α, prior, ε-floor)
    unsmoothed  α = 0 and no floor: a word never seen in a class makes the whole product 0
    smoothed    Laplace smoothing: the user's α if it is above 0, else ``smoothing_alpha``
    floored     α = 0 with the lecture notebook's floor, ψ clipped to [ε, 1 − ε] (θ to [ε, 1])

On top of them: the culprits (which word zeroed which class, and that factor under each fix), the
review repeated until float64 products underflow to 0.0 while log space still decides, the log-sum-exp
normalisation next to the naive exp that underflows, and each word's log-likelihood ratio between the
decided class and the runner-up (a nomogram).
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, NamedTuple

import numpy as np

from webnb.engine.shared.corpus import CorpusError
from webnb.engine.shared.plain import fraction_text, number, plain
from webnb.engine.text.bag import BagOfWords
from webnb.engine.text.models import SEED_EPSILON, NaiveBayes, parse_alpha
from webnb.engine.text.trace import ClassTrace, Factor, Reading, Trace, explain, factors_of, read_review
from webnb.engine.text.training import TrainingSet

# The longest repetition of a review tried when looking for the underflow of float64 products.
REPEAT_CAP = 5000


# -- records ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FloatLimits:
    """The edges of float64 that the underflow step marks, and their natural logs."""

    smallest_normal: float = sys.float_info.min  # 2.2250738585072014e-308
    smallest_subnormal: float = math.ulp(0.0)  # 5e-324; half of it rounds to 0.0
    log_smallest_normal: float = math.log(sys.float_info.min)  # −708.396…
    log_smallest_subnormal: float = math.log(math.ulp(0.0))  # −744.440…
    largest: float = sys.float_info.max


FLOAT64 = FloatLimits()


class RepeatedFactor(NamedTuple):
    """One factor multiplied ``times`` times in float64, one multiplication after another as a program does, and
    the same as a sum of logs: the lecture notes' demonstration that products of probabilities underflow."""

    factor: float
    times: int
    product: float  # math.prod: 0.0 once the true value is below about 5e-324
    log_sum: float  # math.fsum of the logs: an ordinary number

    def to_dict(self) -> dict:
        return plain(self)


def repeated_factor(factor: float, times: int) -> RepeatedFactor:
    return RepeatedFactor(factor, times, math.prod([factor] * times), math.fsum([math.log(factor)] * times))


# The notes' own numbers: 0.01 twenty times is 1.0000000000000005e-40; ten thousand times, 0.0.
PRODUCT_DEMONSTRATION = (repeated_factor(0.01, 20), repeated_factor(0.01, 10_000))


class CulpritWord(NamedTuple):
    """The zero factors of one word, for a slide: the classes it rules out, and why (in the review but never in
    those classes, or missing from it but in every document of them)."""

    word: str
    present: bool
    labels: tuple[str, ...]


def culprit_words(culprits) -> tuple[CulpritWord, ...]:
    """``culprits`` grouped by word (and reason), in their order."""
    groups: dict[tuple[str, bool], list[str]] = {}
    for c in culprits:
        groups.setdefault((c.word, c.present), []).append(c.label)
    return tuple(CulpritWord(word, present, tuple(labels)) for (word, present), labels in groups.items())


@dataclass(frozen=True)
class Culprit:
    """A factor that is exactly 0 at α = 0, and the same factor under each fix.

    Each value is one factor, ψ_jk, 1 − ψ_jk (Bernoulli, word absent) or θ_jk (multinomial), taken
    once (power 1), with its exact fraction where the model has one (not under the floor).
    """

    word: str
    label: str  # the class it makes impossible
    present: bool  # True: in the review but never in the class; False: absent, yet in every document of it
    unsmoothed: Factor  # probability 0.0, exact 0
    smoothed: Factor  # small but not 0
    floored: Factor  # ε, or 1 − (1 − ε) in float64 for an absent word

    def to_dict(self) -> dict:
        return {
            "word": self.word,
            "class": self.label,
            "present": self.present,
            "unsmoothed": self.unsmoothed.to_dict(),
            "smoothed": self.smoothed.to_dict(),
            "floored": self.floored.to_dict(),
        }


@dataclass(frozen=True)
class ClassZeros:
    """Whether α = 0 makes a class impossible for this review, and which words do it."""

    label: str
    zeroed: bool  # its joint probability is exactly 0
    present_words: tuple[str, ...]  # in the review, never seen in the class
    absent_words: tuple[str, ...]  # not in the review, but in every training document of the class


@dataclass(frozen=True)
class LogTerm:
    """One addend of log φ_k + Σ_j log P(x_j | k): a factor's log, times its power."""

    word: str
    present: bool
    power: int
    log_value: float  # −∞ for a zero factor


@dataclass(frozen=True)
class ClassLogSpace:
    label: str
    log_prior: float
    terms: tuple[LogTerm, ...]  # in the trace's order (vocabulary order)
    log_absent_words: float | None  # Σ log(1 − ψ) over absent words too many to list (Bernoulli)
    log_joint: float  # the engine's score, equal to log_prior + Σ terms (+ log_absent_words)
    shifted: float | None  # log_joint − m, ≤ 0; None when no class is possible
    exp_shifted: float | None  # exp(shifted): 1.0 for the top class, never all 0.0
    posterior: float | None


@dataclass(frozen=True)
class NaiveNormalisation:
    """Leaving log space without the shift: exp(log joint) in float64, then divide by their sum."""

    exps: tuple[float, ...]  # per class; 0.0 once a log joint is below about −745
    total: float
    posteriors: tuple[float, ...] | None  # None when the total is 0.0: 0/0 has no value
    underflowed: bool  # every exp is 0.0 although some class has a finite log joint


@dataclass(frozen=True)
class LogSpace:
    """Log-sum-exp normalisation, class by class: m = max_k log joint, log P(x) = m + log Σ_k exp(log joint − m)."""

    per_class: tuple[ClassLogSpace, ...]
    shift: float | None  # m; None when every class is impossible
    sum_exp_shifted: float | None
    log_evidence: float  # −∞ when every class is impossible
    naive: NaiveNormalisation

    def to_dict(self) -> dict:
        return {
            "per_class": [
                {
                    "class": c.label,
                    "log_prior": number(c.log_prior),
                    "terms": [
                        {"word": t.word, "present": t.present, "power": t.power, "log": number(t.log_value)}
                        for t in c.terms
                    ],
                    "log_absent_words": number(c.log_absent_words),
                    "log_joint": number(c.log_joint),
                    "shifted": number(c.shifted),
                    "exp_shifted": number(c.exp_shifted),
                    "posterior": number(c.posterior),
                }
                for c in self.per_class
            ],
            "shift": number(self.shift),
            "sum_exp_shifted": number(self.sum_exp_shifted),
            "log_evidence": number(self.log_evidence),
            "naive": {
                "exps": _numbers(self.naive.exps),
                "total": number(self.naive.total),
                "posteriors": _numbers(self.naive.posteriors),
                "underflowed": self.naive.underflowed,
            },
        }


@dataclass(frozen=True)
class Underflow:
    """The review repeated until every class's float64 product, multiplied one factor at a time, is 0.0
    while log space still decides. Tuples are parallel to ``classes``.

    When no repeat count up to ``cap`` does that (an empty review, a Bernoulli review whose repetition
    changes nothing, or a review no class can explain at all), ``repeats`` and what depends on it are None.
    """

    classes: tuple[str, ...]
    repeats: int | None
    text: str | None
    trace: Trace | None
    naive_products: tuple[float, ...] | None  # Trace.joint of each class: 0.0
    log_joints: tuple[float, ...] | None  # finite for at least one class
    log_space: LogSpace | None
    first_zero_repeats: tuple[int | None, ...]  # fewest repeats at which each class's product is 0.0
    cap: int
    float_limits: FloatLimits = field(default=FLOAT64)

    def to_dict(self) -> dict:
        limits = self.float_limits
        return {
            "classes": list(self.classes),
            "repeats": self.repeats,
            "trace": None if self.trace is None else self.trace.to_dict(),
            "naive_products": _numbers(self.naive_products),
            "log_joints": _numbers(self.log_joints),
            "log_space": None if self.log_space is None else self.log_space.to_dict(),
            "first_zero_repeats": list(self.first_zero_repeats),
            "cap": self.cap,
            "float_limits": {
                "smallest_normal": limits.smallest_normal,
                "smallest_subnormal": limits.smallest_subnormal,
                "log_smallest_normal": limits.log_smallest_normal,
                "log_smallest_subnormal": limits.log_smallest_subnormal,
                "largest": limits.largest,
            },
        }


@dataclass(frozen=True)
class Contribution:
    """One term of log P(decided | x) − log P(runner-up | x): how far it pushes towards either class."""

    kind: str  # "prior", "word" (a word of the review) or "absent" (all absent words, Bernoulli)
    word: str | None  # the word, for kind "word"
    count: int | None  # occurrences in the review ("word"), absent vocabulary words ("absent"), None ("prior")
    decided_log: float  # log of the factor (or of the product of factors) for the decided class
    runner_up_log: float
    log_ratio: float  # decided_log − runner_up_log; +∞ when only the runner-up's factor is 0
    favours: str | None  # the class it pushes towards; None when it is exactly 0
    zero_words: tuple[str, ...] = ()  # "absent": the absent words whose factor is 0 for one of the two classes


@dataclass(frozen=True)
class Contributions:
    """The per-word chart, sorted by |log ratio|, largest first."""

    decided: str
    runner_up: str
    from_smoothed: bool  # the user's model cannot decide, so these come from the smoothed trace
    alpha: object  # α of the trace they come from, as ``NaiveBayes.to_dict`` gives it
    entries: tuple[Contribution, ...]
    total: float  # Σ log ratios
    log_joint_difference: float  # log joint(decided) − log joint(runner-up), from the trace: equals total
    # Bernoulli: the "absent" entry told apart, the absent words that weigh most (kind "absent-word", largest
    # |log ratio| first), then the others as one entry (kind "absent", their count); () otherwise.
    absent_named: tuple[Contribution, ...] = ()

    def to_dict(self) -> dict:
        return {
            "decided": self.decided,
            "runner_up": self.runner_up,
            "from_smoothed": self.from_smoothed,
            "alpha": self.alpha,
            "entries": [
                {
                    "kind": e.kind,
                    "word": e.word,
                    "count": e.count,
                    "decided_log": number(e.decided_log),
                    "runner_up_log": number(e.runner_up_log),
                    "log_ratio": number(e.log_ratio),
                    "favours": e.favours,
                    "zero_words": list(e.zero_words),
                }
                for e in self.entries
            ],
            "total": number(self.total),
            "log_joint_difference": number(self.log_joint_difference),
            "absent_named": [
                {"kind": e.kind, "word": e.word, "count": e.count, "decided_log": number(e.decided_log),
                 "runner_up_log": number(e.runner_up_log), "log_ratio": number(e.log_ratio), "favours": e.favours}
                for e in self.absent_named
            ],
        }


@dataclass(frozen=True)
class Verdict:
    """A decision as the steps say it in words: the class decided, or that no class is possible ("cannot decide"),
    and the classes tied for the top. Every sentence of a step that states a decision is written from one of these,
    so that no slide says what another contradicts."""

    decision: str | None
    cannot_decide: bool
    tied: tuple[str, ...]
    tie_note: str | None = None  # the sentence that explains a tie

    @classmethod
    def of(cls, trace: Trace) -> "Verdict":
        return cls(trace.decision, trace.cannot_decide, trace.tied, trace.tie_note)

    @property
    def says(self) -> str:
        """"cannot-decide", "tie" or "decided": what the sentence states."""
        return "cannot-decide" if self.cannot_decide else "tie" if self.tied else "decided"

    def to_dict(self) -> dict:
        return {"says": self.says, "decision": self.decision, "tied": list(self.tied)}


@dataclass(frozen=True)
class Repetition:
    """The review repeated ``repeats`` times against the review once, between the class decided once and the class
    decided for the repetition. The prior is counted once; each copy multiplies the likelihood ratio again, so a
    ratio that favours the other class per copy overtakes the prior after enough copies: the decision flips.

    log joint(repeated) − log joint(once), for the repeated review, is
    ``repeats × log_likelihood_ratio − log_prior_ratio`` (≥ 0 exactly when the repetition decides ``repeated``)."""

    repeats: int
    once: Verdict  # the lesson's decision, for the review once
    repeated: Verdict  # for the review repeated
    log_prior_ratio: float | None  # log φ(once) − log φ(repeated); None when no class is decided either way
    log_likelihood_ratio: float | None  # per copy: log P(x | repeated) − log P(x | once)

    @property
    def flips(self) -> bool:
        return self.once.decision != self.repeated.decision

    def to_dict(self) -> dict:
        return {
            "repeats": self.repeats,
            "once": self.once.to_dict(),
            "repeated": self.repeated.to_dict(),
            "flips": self.flips,
            "log_prior_ratio": number(self.log_prior_ratio),
            "log_likelihood_ratio": number(self.log_likelihood_ratio),
        }


def repeated_against_once(once: Trace, underflow: Underflow) -> Repetition | None:
    """How the review repeated (the underflow step's) is decided against the review once; None without a repetition."""
    if underflow.trace is None:
        return None
    repeated = underflow.trace
    first, other = once.decision, repeated.decision
    prior_ratio = likelihood_ratio = None
    if first is not None and other is not None:
        a, b = (once.per_class[once.classes.index(label)] for label in (first, other))
        prior_ratio = a.log_prior - b.log_prior
        likelihood_ratio = (b.log_joint - b.log_prior) - (a.log_joint - a.log_prior)
    return Repetition(underflow.repeats, Verdict.of(once), Verdict.of(repeated), prior_ratio, likelihood_ratio)


def _numbers(values) -> list | None:
    return None if values is None else [number(v) for v in values]


class _part:
    """A part of the explanation, computed on first use and then kept in it (like ``functools.cached_property``,
    without the lock that Python 3.11 shares between every instance: an explanation belongs to one request)."""

    def __init__(self, compute: Callable):
        self.compute = compute
        self.__doc__ = compute.__doc__

    def __set_name__(self, owner, name: str):
        self.name = name

    def __get__(self, explanation, owner=None):
        if explanation is None:
            return self
        value = explanation.__dict__[self.name] = self.compute(explanation)
        return value


@dataclass(frozen=True, eq=False)
class Explanation:
    """Everything the inference page shows for one review. Immutable, but each part below is computed the first
    time it is read and then kept: a step pays only for what it shows (the words of the review never build the
    smoothed trace or search for the underflow), while the JSON twin reads, and so computes, every part.

    Made by ``explain_review``.

    Parameters
    ----------
    text : str
        The review.
    alpha : Fraction
        The user's α.
    user_epsilon : float or None
        The user's ε-floor, if any.
    smoothing_alpha : Fraction
        The α of ``smoothed`` (above 0).
    epsilon : float
        The floor of ``floored`` (the lecture notebook's 1e-14).
    repeats : int or None
        The underflow step's repeat count; None searches for the smallest that underflows.
    variants : _Variants
        The lesson's models, each explained at most once.

    Attributes
    ----------
    reading : Reading
        The review's words and feature vector.
    trace, unsmoothed, smoothed, floored : Trace
        The user's settings; α = 0 without a floor; Laplace smoothing; α = 0 with the floor.
    culprits : tuple of Culprit
        Every zero factor at α = 0, with its value smoothed and floored.
    verdict, at_zero : Verdict
        The decision with the user's settings, and at α = 0 without the floor.
    log_space : LogSpace
        The log-sum-exp normalisation of ``trace``, next to the naive exp that underflows.
    contributions : Contributions or None
        Each word's log-likelihood ratio between the decided class and the runner-up.
    underflow : Underflow
        The review repeated until float64 products underflow to 0.0 while log space still decides.
    """

    text: str
    alpha: Fraction  # the user's α
    user_epsilon: float | None  # the user's ε-floor, if any
    smoothing_alpha: Fraction  # the α of ``smoothed``
    epsilon: float  # the floor of ``floored``
    repeats: int | None  # the underflow step's repeat count; None searches for the smallest that underflows
    variants: "_Variants" = field(repr=False)

    @_part
    def reading(self) -> Reading:
        """The review's words and feature vector: all the first steps show, and no probability is needed for it
        (the user's trace's own, when that is made already)."""
        if "trace" in self.__dict__:
            trace = self.trace
            return Reading(trace.analysis, trace.features, trace.unseen, trace.vocabulary_size)
        return read_review(
            self.variants.training.bag, self.text, self.variants.kind == "bernoulli" or self.variants.binary
        )

    @_part
    def trace(self) -> Trace:
        """The user's settings (model, α, prior, ε-floor)."""
        return self.variants.trace(self.alpha, self.user_epsilon)

    @_part
    def unsmoothed(self) -> Trace:
        """α = 0 and no floor."""
        return self.variants.trace(Fraction(0), None)

    @_part
    def smoothed(self) -> Trace:
        return self.variants.trace(self.smoothing_alpha, None)

    @_part
    def floored(self) -> Trace:
        return self.variants.trace(Fraction(0), self.epsilon)

    @_part
    def culprits(self) -> tuple[Culprit, ...]:
        return _culprits(self.variants, self.unsmoothed, self.smoothing_alpha, self.epsilon)

    @property
    def culprit_words(self) -> tuple[CulpritWord, ...]:
        """The culprits one row per word, as a slide shows them (not part of the plain data)."""
        return culprit_words(self.culprits)

    @_part
    def unsmoothed_cannot_decide(self) -> bool:
        return self.unsmoothed.cannot_decide

    @_part
    def verdict(self) -> Verdict:
        """The lesson's decision: the user's settings, what the context line of every slide names."""
        return Verdict.of(self.trace)

    @_part
    def at_zero(self) -> Verdict:
        """The decision at α = 0 without the floor, which the zero-factor step shows."""
        return Verdict.of(self.unsmoothed)

    @property
    def zero_is_lesson(self) -> bool:
        """Whether the lesson itself is α = 0 without the floor, so that the zero-factor step's decision is its own."""
        return self.alpha == 0 and self.user_epsilon is None

    @property
    def smoothing_is_lesson(self) -> bool:
        """Whether the smoothing step smooths with the lesson's own α (else with ``smoothing_alpha``, to show it)."""
        return self.smoothing_alpha == self.alpha and self.user_epsilon is None

    @_part
    def repetition(self) -> Repetition | None:
        """The underflow step's repeated review against the review once."""
        return repeated_against_once(self.trace, self.underflow)

    @_part
    def zero_summary(self) -> tuple[ClassZeros, ...]:
        """One per class, in class order."""
        return tuple(_class_zeros(c) for c in self.unsmoothed.per_class)

    @_part
    def log_space(self) -> LogSpace:
        """Of ``trace``."""
        return log_space(self.trace)

    @_part
    def contributions(self) -> Contributions | None:
        """None only if neither ``trace`` nor ``smoothed`` decides."""
        smoothed = self.trace.cannot_decide
        source = self.smoothed if smoothed else self.trace
        model = self.variants.model(self.smoothing_alpha, None) if smoothed else self.variants.model(
            self.alpha, self.user_epsilon)
        return contributions(source, from_smoothed=smoothed, model=model)

    @_part
    def underflow(self) -> Underflow:
        user_model = self.variants.model(self.alpha, self.user_epsilon)
        return find_underflow(user_model, self.variants.training.bag, self.text, trace=self.trace, repeats=self.repeats)

    def to_dict(self) -> dict:
        """Every part as JSON-ready data (so reading it computes every part): infinities as "inf"/"-inf", exact
        values as "p/q"."""
        return {
            "text": self.text,
            "trace": self.trace.to_dict(),
            "unsmoothed": self.unsmoothed.to_dict(),
            "smoothed": self.smoothed.to_dict(),
            "floored": self.floored.to_dict(),
            "smoothing_alpha": fraction_text(self.smoothing_alpha),
            "epsilon": number(self.epsilon),
            "culprits": [c.to_dict() for c in self.culprits],
            "unsmoothed_cannot_decide": self.unsmoothed_cannot_decide,
            "zero_summary": [
                {
                    "class": z.label,
                    "zeroed": z.zeroed,
                    "present_words": list(z.present_words),
                    "absent_words": list(z.absent_words),
                }
                for z in self.zero_summary
            ],
            "log_space": None if self.log_space is None else self.log_space.to_dict(),
            "contributions": None if self.contributions is None else self.contributions.to_dict(),
            "underflow": self.underflow.to_dict(),
            "product_demonstration": [row.to_dict() for row in PRODUCT_DEMONSTRATION],
            "statements": {
                "lesson": self.verdict.to_dict(),
                "alpha": fraction_text(self.alpha),
                "floor": self.user_epsilon is not None,
                "at_zero": self.at_zero.to_dict(),
                "zero_is_lesson": self.zero_is_lesson,
                "smoothing_alpha": fraction_text(self.smoothing_alpha),
                "smoothing_is_lesson": self.smoothing_is_lesson,
                "smoothed": Verdict.of(self.smoothed).to_dict(),
                "floored": Verdict.of(self.floored).to_dict(),
                "repetition": None if self.repetition is None else self.repetition.to_dict(),
            },
        }


PARTS = tuple(name for name, value in vars(Explanation).items() if isinstance(value, _part))


# -- building the explanation ---------------------------------------------------------------------------------


def explain_review(
    training: TrainingSet,
    text: str,
    *,
    kind: str = "bernoulli",
    alpha="0",
    binary: bool = False,
    fit_prior: bool = True,
    epsilon: float | None = None,
    repeats: int | None = None,
    smoothing_alpha="1",
) -> Explanation:
    """Everything the inference page shows for ``text``, each part computed when first read (see ``Explanation``).

    What can be refused is refused here, before any part is read: the settings, and a corpus that cannot
    have the α = 0 that the lesson compares with. Only the models are derived for that (and kept by ``training``).

    Parameters
    ----------
    training : TrainingSet
        The training set.
    text : str
        The review.
    kind : {"bernoulli", "multinomial"}, default "bernoulli"
        The model.
    alpha : str, int, float or Fraction, default "0"
        The user's α.
    binary : bool, default False
        Multinomial only: count each word once per document.
    fit_prior : bool, default True
        Learn the priors (else uniform).
    epsilon : float, optional
        The user's ε-floor.
    repeats : int, optional
        Fixes the underflow step's repeat count, 1 to ``REPEAT_CAP``; None searches for the smallest one that
        underflows.
    smoothing_alpha : str, int, float or Fraction, default "1"
        The α the smoothing step shows when the user's α is 0 (else the user's α is used).

    Returns
    -------
    Explanation
        Whose parts are computed as they are read.

    Raises
    ------
    ValueError
        If ``smoothing_alpha`` is 0, ``repeats`` is out of range, or the model settings are refused.
    CorpusError
        If the corpus cannot have α = 0 (a multinomial class without words), or the user's model cannot be made.

    Examples
    --------
    >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
    >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
    >>> explanation = explain_review(training, "Chinese Chinese Chinese Tokyo Japan", kind="multinomial", alpha="1")
    >>> explanation.verdict.decision, explanation.at_zero.decision  # smoothed, China; at α = 0, Japan
    ('China', 'Japan')
    >>> [(c.word, c.label) for c in explanation.culprits]  # the zero factors that ruled China out
    [('japan', 'China'), ('tokyo', 'China')]
    """
    alpha = parse_alpha(alpha)
    smoothing_alpha = alpha if alpha > 0 else parse_alpha(smoothing_alpha)
    if smoothing_alpha == 0:
        raise ValueError("smoothing_alpha must be more than 0: α = 0 is what smoothing repairs")
    variants = _Variants(training, text, kind, binary, fit_prior)
    variants.model(alpha, epsilon)
    try:
        variants.model(Fraction(0), None)
    except CorpusError as error:
        raise CorpusError(
            f"This lesson compares your model with α = 0, which this corpus cannot have: {error}"
        ) from None
    _require_repeats(repeats)
    return Explanation(
        text=text,
        alpha=alpha,
        user_epsilon=epsilon,
        smoothing_alpha=smoothing_alpha,
        epsilon=SEED_EPSILON,
        repeats=repeats,
        variants=variants,
    )


def computed_parts(explanation: Explanation) -> tuple[str, ...]:
    """The parts of ``explanation`` read so far."""
    return tuple(name for name in PARTS if name in explanation.__dict__)


@dataclass
class _Variants:
    """The models of one lesson (same kind and prior, different α and ε), each explained at most once:
    when the user's settings coincide with a fixed scenario, the two share one trace. The models themselves
    come from ``training``, which keeps the few most recently derived."""

    training: TrainingSet
    text: str
    kind: str
    binary: bool
    fit_prior: bool
    _traces: dict = field(default_factory=dict)

    def model(self, alpha: Fraction, epsilon: float | None) -> NaiveBayes:
        return self.training.model(self.kind, alpha, binary=self.binary, fit_prior=self.fit_prior, epsilon=epsilon)

    def trace(self, alpha: Fraction, epsilon: float | None) -> Trace:
        key = (alpha, epsilon)
        if key not in self._traces:
            self._traces[key] = explain(self.model(alpha, epsilon), self.training.bag, self.text)
        return self._traces[key]


# -- the zero-probability failure --------------------------------------------------------------------------


def _culprits(variants: _Variants, unsmoothed: Trace, smoothing_alpha: Fraction, epsilon: float) -> tuple[Culprit, ...]:
    """Every zero factor at α = 0, in vocabulary order, with its value smoothed and floored (read from the
    models: the smoothed and floored traces are not needed for it)."""
    models = (
        variants.model(Fraction(0), None),
        variants.model(smoothing_alpha, None),
        variants.model(Fraction(0), epsilon),
    )
    index = variants.training.bag.index
    zeros = sorted(
        ((index[z.word], k, z) for k, c in enumerate(unsmoothed.per_class) for z in c.zero_factors),
        key=lambda item: item[:2],  # vocabulary order, then class order
    )
    cells = [(k, j, z.present) for j, k, z in zeros]
    unsmoothed_factors, smoothed_factors, floored_factors = (factors_of(model, cells) for model in models)
    return tuple(
        Culprit(z.word, z.label, z.present, *factors)
        for (_, _, z), *factors in zip(zeros, unsmoothed_factors, smoothed_factors, floored_factors, strict=True)
    )


def _class_zeros(class_trace: ClassTrace) -> ClassZeros:
    zeros = class_trace.zero_factors
    return ClassZeros(
        label=class_trace.label,
        zeroed=class_trace.log_joint == -math.inf,
        present_words=tuple(z.word for z in zeros if z.present),
        absent_words=tuple(z.word for z in zeros if not z.present),
    )


# -- log space -------------------------------------------------------------------------------------------


def log_space(trace: Trace) -> LogSpace:
    """The trace's sums of logs and log-sum-exp normalisation, assembled class by class, next to the
    naive exp without the shift."""
    return LogSpace(
        per_class=tuple(_class_log_space(c) for c in trace.per_class),
        shift=trace.log_shift,
        sum_exp_shifted=trace.sum_shifted,
        log_evidence=trace.log_evidence,
        naive=_naive_normalisation([c.log_joint for c in trace.per_class]),
    )


def _class_log_space(class_trace: ClassTrace) -> ClassLogSpace:
    shifted = class_trace.shifted_log_joint
    absent = class_trace.absent_words
    return ClassLogSpace(
        label=class_trace.label,
        log_prior=class_trace.log_prior,
        terms=tuple(LogTerm(f.word, f.present, f.power, f.log_value) for f in class_trace.factors),
        log_absent_words=None if absent is None else absent.log_product,
        log_joint=class_trace.log_joint,
        shifted=shifted,
        exp_shifted=None if shifted is None else math.exp(shifted),
        posterior=class_trace.posterior,
    )


def _naive_normalisation(log_joints: list[float]) -> NaiveNormalisation:
    # math.exp returns 0.0 on underflow without a warning; a log joint is ≤ 0, so it never overflows.
    exps = tuple(math.exp(v) for v in log_joints)
    total = math.fsum(exps)
    possible = any(v > -math.inf for v in log_joints)
    return NaiveNormalisation(
        exps=exps,
        total=total,
        posteriors=tuple(e / total for e in exps) if total > 0.0 else None,
        underflowed=possible and total == 0.0,
    )


# -- contributions (the nomogram) ------------------------------------------------------------------------------


ABSENT_NAMED = 3  # the absent words the chart names, those that weigh most; the others are one bar


def contributions(
    trace: Trace, *, from_smoothed: bool = False, model: NaiveBayes | None = None
) -> Contributions | None:
    """Each term's log-likelihood ratio between the decided class and the runner-up; None when the trace
    cannot decide. The decided class has no zero factor, so a ratio is finite or +∞, never NaN. With the trace's
    ``model``, a Bernoulli chart also names the absent words that weigh most (``absent_named``)."""
    if trace.cannot_decide:
        return None
    decided = next(c for c in trace.per_class if c.label == trace.decision)
    runner_up = max((c for c in trace.per_class if c is not decided), key=lambda c: c.log_joint)  # first on ties

    def entry(kind, word, count, decided_log, runner_up_log, zero_words=()) -> Contribution:
        ratio = decided_log - runner_up_log
        favours = decided.label if ratio > 0 else runner_up.label if ratio < 0 else None
        return Contribution(kind, word, count, decided_log, runner_up_log, ratio, favours, zero_words)

    entries = [entry("prior", None, None, decided.log_prior, runner_up.log_prior)]
    decided_logs, runner_up_logs = _present_logs(decided), _present_logs(runner_up)
    entries += [
        entry("word", f.word, f.count, decided_logs[f.index], runner_up_logs[f.index]) for f in trace.features
    ]
    if trace.model["model"] == "bernoulli":
        zero_words = tuple(dict.fromkeys(z.word for c in (decided, runner_up) for z in c.zero_factors if not z.present))
        absent_count = trace.vocabulary_size - len(trace.features)
        logs = _absent_log_product(decided), _absent_log_product(runner_up)
        entries.append(entry("absent", None, absent_count, *logs, zero_words))
    entries.sort(key=lambda e: -abs(e.log_ratio))  # stable: prior, words, absent words among equals
    return Contributions(
        decided=decided.label,
        runner_up=runner_up.label,
        from_smoothed=from_smoothed,
        alpha=trace.model["alpha"],
        entries=tuple(entries),
        total=math.fsum(e.log_ratio for e in entries),
        log_joint_difference=decided.log_joint - runner_up.log_joint,
        absent_named=() if model is None or trace.model["model"] != "bernoulli" else _absent_named(
            model, trace, decided.label, runner_up.label),
    )


def _absent_named(model: NaiveBayes, trace: Trace, decided: str, runner_up: str) -> tuple[Contribution, ...]:
    """The absent words whose factors 1 − ψ differ most between the two classes (largest |log ratio|, a zero factor
    first), then the other absent words as one entry. The model ranks each pair of classes over the vocabulary once;
    a review then costs its own words, not the vocabulary's."""
    k, other = model.classes.index(decided), model.classes.index(runner_up)
    present = sorted({f.index for f in trace.features})
    ranked = model.absent_ranking(k, other, leave_out=present)
    if len(ranked) < ABSENT_NAMED:  # a review that holds most of the ranked words: rank its absent words afresh
        absent = np.ones(model.statistics.n_words, dtype=bool)
        absent[present] = False
        with np.errstate(invalid="ignore"):
            ratios = (model.absent_log_prob_row(k) - model.absent_log_prob_row(other))[absent]
        weight = np.where(np.isnan(ratios), -1.0, np.abs(ratios))
        ranked = np.flatnonzero(absent)[np.argsort(-weight, kind="stable")]
    named = ranked[:ABSENT_NAMED].tolist()
    logs = model.absent_log_prob_at(k, named), model.absent_log_prob_at(other, named)

    def entry(kind, word, count, decided_log, runner_up_log) -> Contribution:
        ratio = decided_log - runner_up_log if not (decided_log == runner_up_log == -math.inf) else 0.0
        favours = decided if ratio > 0 else runner_up if ratio < 0 else None
        return Contribution(kind, word, count, decided_log, runner_up_log, ratio, favours)

    entries = [entry("absent-word", model.vocabulary[j], 1, float(logs[0][i]), float(logs[1][i]))
               for i, j in enumerate(named)]
    rest = model.statistics.n_words - len(present) - len(named)
    if rest:
        left_out = present + named
        entries.append(entry("absent", None, rest, model.absent_log_prob_sum_without(k, left_out),
                             model.absent_log_prob_sum_without(other, left_out)))
    return tuple(entries)


def _present_logs(class_trace: ClassTrace) -> dict[int, float]:
    """Word index → log of its factor (power · log ψ or log θ) for the words of the review."""
    return {f.index: f.log_value for f in class_trace.factors if f.present}


def _absent_log_product(class_trace: ClassTrace) -> float:
    """Σ log(1 − ψ) over the absent words: listed factors (small vocabulary) or the trace's aggregate."""
    if class_trace.absent_words is not None:
        return class_trace.absent_words.log_product
    return math.fsum(f.log_value for f in class_trace.factors if not f.present)


# -- underflow -------------------------------------------------------------------------------------------------


def repeated(text: str, repeats: int) -> str:
    return " ".join([text] * repeats)


def find_underflow(
    model: NaiveBayes, bag: BagOfWords, text: str, *, trace: Trace | None = None, repeats: int | None = None
) -> Underflow:
    """Repeat ``text`` until every class's float64 product is 0.0 while log space still decides.

    ``trace`` is ``explain(model, bag, text)`` if already made. With ``repeats`` given, that
    count is shown as it is; otherwise it is the smallest count at which every product is 0.0 (the
    largest of the classes' first zeros), provided some class keeps a finite log joint.
    """
    _require_repeats(repeats)
    products = RepeatedProducts.of_review(model, bag, text, trace=trace)
    first_zeros = tuple(
        _first_true(lambda r, k=k: products.of_class(k, r) == 0.0, REPEAT_CAP, hint=products.estimated_first_zero(k))
        for k in range(len(model.classes))
    )
    searched = repeats is None
    if searched and None not in first_zeros:
        repeats = max(first_zeros)
    chosen = None if repeats is None else explain(model, bag, repeated(text, repeats))
    if searched and chosen is not None and chosen.cannot_decide:
        # Every class is impossible, so log space cannot decide either: no lesson about underflow here
        # (more repeats keep the same zero factors).
        chosen = None
    if chosen is None:
        return Underflow(model.classes, None, None, None, None, None, None, first_zeros, REPEAT_CAP)
    return Underflow(
        classes=model.classes,
        repeats=repeats,
        text=chosen.text,
        trace=chosen,
        naive_products=tuple(c.joint for c in chosen.per_class),
        log_joints=tuple(c.log_joint for c in chosen.per_class),
        log_space=log_space(chosen),
        first_zero_repeats=first_zeros,
        cap=REPEAT_CAP,
    )


def _require_repeats(repeats: int | None) -> None:
    if repeats is not None and not 1 <= repeats <= REPEAT_CAP:
        raise ValueError(f"repeats must be between 1 and {REPEAT_CAP}, not {repeats}")


class RepeatedProducts:
    """Each class's float64 product for the review repeated r times, computed as ``Trace.joint`` is (the
    prior, then each factor multiplied in one at a time, in the trace's order) without building a trace
    per r: ``of_class(k, r)`` equals ``explain(model, bag, repeated(text, r)).per_class[k].joint``.

    Presence features (Bernoulli, binary multinomial) do not change when the review repeats, so the
    product is that of one copy or, from two copies on, of two (n-grams across the seam of two copies
    may add words). Counts grow by the same amount with each extra copy, so the factors and powers are
    read from the traces of one and two copies: power(r) = power(1) + (r − 1)·(power(2) − power(1)).
    That is exact for single words, and for n-grams once the review has at least n − 1 words.
    """

    def __init__(self, once: Trace, twice: Trace, uses_presence: bool):
        self.uses_presence = uses_presence
        self.once, self.twice = once, twice
        self.sequences = [_factor_sequence(c1, c2) for c1, c2 in zip(once.per_class, twice.per_class, strict=True)]

    @classmethod
    def of_review(cls, model: NaiveBayes, bag: BagOfWords, text: str, *, trace: Trace | None = None):
        """``trace`` is ``explain(model, bag, text)`` if already made."""
        once = trace if trace is not None else explain(model, bag, text)
        return cls(once, explain(model, bag, repeated(text, 2)), model.uses_presence)

    def at(self, repeats: int) -> tuple[float, ...]:
        return tuple(self.of_class(k, repeats) for k in range(len(self.sequences)))

    def of_class(self, k: int, repeats: int) -> float:
        if self.uses_presence:
            return (self.once if repeats == 1 else self.twice).per_class[k].joint
        prior, factors = self.sequences[k]
        return _sequential_product(prior, ((p, first + (repeats - 1) * extra) for p, first, extra in factors))


    def estimated_first_zero(self, k: int) -> int | None:
        """Where class k's product should reach 0.0, from its log (exact but for rounding): the search for the
        real first zero starts there instead of at 1. None when the logs do not say (the search then starts at 1)."""
        if self.uses_presence:
            return None
        prior, factors = self.sequences[k]
        if prior == 0.0 or any(p == 0.0 for p, _, _ in factors):
            return None
        once = math.log(prior) + math.fsum(first * math.log(p) for p, first, _ in factors)
        per_copy = math.fsum(extra * math.log(p) for p, _, extra in factors)
        if per_copy >= 0.0:
            return None
        # A float64 product rounds to 0.0 below half the smallest subnormal, 2^-1075.
        copies = math.ceil((-1075 * math.log(2) - once) / per_copy)
        return max(1, 1 + copies) if math.isfinite(copies) else None


def _factor_sequence(once: ClassTrace, twice: ClassTrace) -> tuple[float, list[tuple[float, int, int]]]:
    """A class's prior, and (probability, power for one copy, extra power per copy) for each factor."""
    power_once = {f.index: f.power for f in once.factors}
    factors = [(f.probability, power_once.get(f.index, 0), f.power - power_once.get(f.index, 0)) for f in twice.factors]
    return twice.prior, factors


def _sequential_product(start: float, factors) -> float:
    """start · Π p^n over (p, n), one multiplication at a time as a naive program does; it stops at 0.0,
    which nothing can change (every p is finite), and skips p = 1.0, which changes nothing."""
    product = start
    for probability, times in factors:
        if probability == 1.0:
            continue
        for _ in range(times):
            product *= probability
            if product == 0.0:
                return 0.0
    return product


def _first_true(predicate: Callable[[int], bool], cap: int, hint: int | None = None) -> int | None:
    """The smallest r in 1..cap with predicate(r), for a predicate that stays true once it is true:
    doubling steps to bracket it (from ``hint``, a guess of the answer, when one is given, else from 1), then
    bisection. None if predicate(cap) is false. The answer does not depend on the hint, only the steps taken.

    A product of factors ≤ 1 never grows when factors are inserted (rounding is monotone), so
    "the product is 0.0" stays true as the review repeats more.
    """
    if hint is None or not 1 < hint <= cap:
        hint = 1
    if predicate(hint):
        low, high, step = hint, hint, 1  # predicate(high) is true; walk down to a false one
        while True:
            if high == 1:
                return 1
            low = max(1, high - step)
            if not predicate(low):
                break
            if low == 1:
                return 1
            high, step = low, 2 * step
    else:
        low, high, step = hint, hint, 1  # predicate(low) is false; walk up to a true one
        while True:
            if low >= cap:
                return None
            high = min(cap, low + step)
            if predicate(high):
                break
            low, step = high, 2 * step
    while high - low > 1:  # predicate(low) is false, predicate(high) is true
        middle = (low + high) // 2
        if predicate(middle):
            high = middle
        else:
            low = middle
    return high
