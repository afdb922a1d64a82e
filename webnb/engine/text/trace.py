"""Bayes' rule for one review, step by step, as an immutable record that pages only format.

For each class the trace holds every factor of φ_k · Π_j P(x_j | k), the product as an exact fraction
(small vocabularies) and as float64 multiplied one factor at a time (which underflows to 0.0 for a long
review), the sum of logs, the factors that are exactly 0, and the normalisation by log-sum-exp with
its max shift. Words of the review that are not in the vocabulary are ignored, and listed as such.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

import numpy as np

from webnb.engine.shared.forwarding import forwarded
from webnb.engine.shared.plain import fraction_text, number, plain, ratio_text
from webnb.engine.text.analysis import DocumentAnalysis
from webnb.engine.text.bag import BagOfWords
from webnb.engine.text.models import NaiveBayes

# Exact fractions for the products when the vocabulary is at most this size (the lecture examples).
EXACT_VOCABULARY_LIMIT = 200
# Bernoulli: below this vocabulary size every absent word's factor 1 − ψ is listed; above it, the
# absent words are one aggregated factor (and those whose factor is 0 are still named).
LISTED_ABSENT_LIMIT = 60


@dataclass(frozen=True)
class FeatureValue:
    word: str
    index: int  # column j in the vocabulary
    count: int  # occurrences in the review
    value: int  # x_j as the model sees it: count, or 1 for presence


class Factor(NamedTuple):
    """One factor P(x_j | k): ψ_jk for a present word, 1 − ψ_jk for an absent one (Bernoulli), or θ_jk
    raised to the word's count (multinomial). Immutable like the other records; a named tuple because a trace
    on 20 classes builds hundreds and a frozen dataclass is several times slower to build."""

    word: str
    index: int
    present: bool
    probability: float
    ratio: tuple[Fraction, Fraction] | None  # unreduced numerator/denominator, None under an ε-floor
    power: int  # how many times the factor is multiplied in
    log_value: float  # power · log(probability); −∞ for a zero factor

    @property
    def exact(self) -> Fraction | None:
        return None if self.ratio is None else Fraction(self.ratio[0]) / Fraction(self.ratio[1])

    @property
    def is_zero(self) -> bool:
        return self.probability == 0.0

    def to_dict(self) -> dict:
        return {
            "word": self.word,
            "present": self.present,
            "power": self.power,
            "probability": number(self.probability),
            "ratio": ratio_text(self.ratio),
            "exact": fraction_text(self.exact),
            "log": number(self.log_value),
        }


@dataclass(frozen=True)
class AbsentWords:
    """The product of 1 − ψ_jk over absent words too many to list, taken from the kept sum of logs."""

    count: int
    log_product: float
    product: float
    exact: Fraction | None

    def to_dict(self) -> dict:
        return plain(self)


class ZeroFactor(NamedTuple):
    word: str
    label: str
    present: bool  # True: the word is in the review but never in the class; False: absent but always there

    def to_dict(self) -> dict:
        return {"word": self.word, "class": self.label, "present": self.present}


# The most rows of factors a slide shows, so that the factors of every class fit a 1024 × 768 projector.
SLIDE_FACTOR_ROWS = 8


class SlideRow(NamedTuple):
    """One word's factor in every class, a row of the slide's table."""

    word: str
    present: bool
    factors: tuple[Factor, ...]  # in class order

    @property
    def has_zero(self) -> bool:
        return any(f.is_zero for f in self.factors)


class SlideProduct(NamedTuple):
    """Several factors in one row, one product per class: "the 3 other words of the review" or "the 4 other absent
    words"."""

    words: tuple[str, ...]  # in the trace's order
    products: tuple[Fraction | float, ...]  # per class: exact when every factor is, else float64
    probabilities: tuple[float, ...]

    @classmethod
    def of(cls, words: list[str], factors_by_class: list[dict[str, Factor]]) -> SlideProduct:
        products = []
        for factors in factors_by_class:
            chosen = [factors[word] for word in words]
            if all(f.ratio is not None for f in chosen):
                products.append(math.prod((f.exact ** f.power for f in chosen), start=Fraction(1)))
            else:
                products.append(math.prod(f.probability ** f.power for f in chosen))
        return cls(tuple(words), tuple(products), tuple(float(p) for p in products))

    def to_dict(self) -> dict:
        return {"words": list(self.words),
                "products": [fraction_text(p) if isinstance(p, Fraction) else number(p) for p in self.products]}


class FactorSlide(NamedTuple):
    """The factors of every class as one table of a slide: a row per word worth showing (zero in some class, or a
    word of the review; the zeros first past ``SLIDE_FACTOR_ROWS``), the review's other words in one row, and the
    remaining factors in one row. Read by presenter mode only; the trace's plain data does not include it."""

    rows: tuple[SlideRow, ...]
    rest: SlideProduct | None  # the review's words beyond the slide's rows
    others: SlideProduct | None  # Bernoulli on a small vocabulary: the absent words that are 0 in no class

    def to_dict(self) -> dict:
        return {"rows": [{"word": r.word, "present": r.present, "factors": [f.to_dict() for f in r.factors]}
                         for r in self.rows],
                "rest": self.rest.to_dict() if self.rest else None,
                "others": self.others.to_dict() if self.others else None}


def factor_slide(per_class: tuple[ClassTrace, ...], rows: int = SLIDE_FACTOR_ROWS, floor: float | None = None
                 ) -> FactorSlide:
    """The slide's table of ``per_class``'s factors (see FactorSlide). Under an ε-``floor``, a factor the floor made
    (ε, or 1 − (1 − ε) in float64) counts as a zero: it is the zero the floor replaced."""
    by_class = [{f.word: f for f in c.factors} for c in per_class]  # every class lists the same words
    words = {f.word: f.present for f in per_class[0].factors}  # in the trace's order
    zero = {word for factors in by_class for word, f in factors.items()
            if f.is_zero or (floor is not None and f.probability <= floor)}
    worth = [word for word, present in words.items() if present or word in zero]
    others = [word for word, present in words.items() if not present and word not in zero]
    if len(worth) > rows:
        room = max(rows - 1 - len([w for w in worth if w in zero]), 0)  # one row left for the rest
        kept = {w for w in worth if w in zero} | set([w for w in worth if w not in zero][:room])
        left = [w for w in worth if w not in kept]
        worth = [w for w in worth if w in kept]
    else:
        left = []
    return FactorSlide(
        rows=tuple(SlideRow(word, words[word], tuple(factors[word] for factors in by_class)) for word in worth),
        rest=SlideProduct.of(left, by_class) if left else None,
        others=SlideProduct.of(others, by_class) if others else None,
    )


class ClassTrace(NamedTuple):
    """One class's part of a trace (a named tuple, as ``Factor``: a trace on 20 classes builds one per class)."""

    label: str
    prior: float
    prior_ratio: tuple[int, int] | None
    prior_exact: Fraction
    log_prior: float
    factors: tuple[Factor, ...]
    absent_words: AbsentWords | None
    zero_factors: tuple[ZeroFactor, ...]
    joint: float  # φ_k · Π factors, multiplied one at a time in float64
    joint_exact: Fraction | None
    log_joint: float  # log φ_k + Σ log factors
    shifted_log_joint: float | None  # log_joint − max over classes (the log-sum-exp shift)
    posterior: float | None
    log_posterior: float | None

    def to_dict(self) -> dict:
        return {
            "class": self.label,
            "prior": number(self.prior),
            "prior_exact": fraction_text(self.prior_exact),
            "log_prior": number(self.log_prior),
            "factors": [f.to_dict() for f in self.factors],
            "absent_words": None if self.absent_words is None else self.absent_words.to_dict(),
            "zero_factors": [z.to_dict() for z in self.zero_factors],
            "joint": number(self.joint),
            "joint_exact": fraction_text(self.joint_exact),
            "log_joint": number(self.log_joint),
            "shifted_log_joint": number(self.shifted_log_joint),
            "posterior": number(self.posterior),
            "log_posterior": number(self.log_posterior),
        }


@dataclass(frozen=True)
class Trace:
    """Bayes' rule for one review, every number of it: what ``explain`` returns and the inference page formats.

    Parameters
    ----------
    text : str
        The review as typed.
    model : dict
        The model's settings (``NaiveBayes.to_dict()``).
    analysis : DocumentAnalysis
        What the analysis did to the review.
    features : tuple of FeatureValue
        The non-zero entries of the feature vector, in vocabulary order.
    unseen : tuple of str
        Features of the review that are not in the vocabulary: ignored.
    classes : tuple of str
        The model's classes.
    per_class : tuple of ClassTrace
        For each class: the prior, every factor, the product in float64 and exactly, the sum of logs, the
        zero factors and the posterior.
    cannot_decide : bool
        Whether every class has probability 0 (possible with α = 0).
    log_shift : float or None
        max_k log joint, subtracted before exponentiating (None when no class is possible).
    sum_shifted : float or None
        Σ_k exp(log joint − shift).
    log_evidence, evidence : float
        log P(x) and P(x); −∞ and 0.0 when no class is possible.
    decision : str or None
        The most probable class; of classes tied exactly, the first; None when no class is possible.
    tied : tuple of str
        The classes sharing the top score, when more than one does.
    exact : bool
        Whether the products are also given as exact fractions (no ε-floor, a vocabulary of at most
        ``EXACT_VOCABULARY_LIMIT`` words).
    vocabulary_size : int
        |V|.

    Attributes
    ----------
    tokens : tuple of str
        The review's features, in order, as the analysis made them.
    tie_note : str or None
        The sentence that explains a tie.
    """
    text: str
    model: dict
    analysis: DocumentAnalysis
    features: tuple[FeatureValue, ...]  # the non-zero entries of the feature vector
    unseen: tuple[str, ...]  # features of the review that are not in the vocabulary: ignored
    classes: tuple[str, ...]
    per_class: tuple[ClassTrace, ...]
    cannot_decide: bool  # every class has probability 0
    log_shift: float | None  # max_k log joint, subtracted before exponentiating
    sum_shifted: float | None  # Σ_k exp(log joint − shift)
    log_evidence: float  # log P(x)
    evidence: float
    decision: str | None
    tied: tuple[str, ...]  # classes sharing the top score, when more than one does
    exact: bool  # whether the products are also given as exact fractions
    vocabulary_size: int

    tokens = forwarded("analysis.features")

    @property
    def factor_slide(self) -> FactorSlide:
        """The factors of every class as a slide shows them (computed when read; not part of the plain data)."""
        return factor_slide(self.per_class, floor=self.model.get("epsilon"))

    @property
    def tie_note(self) -> str | None:
        """The sentence that explains a tie, or None when one class is ahead."""
        if not self.tied:
            return None
        equal = " and ".join((", ".join(self.tied[:-1]), self.tied[-1]))
        return f"{equal} are tied, with the same probability; a tie goes to the first class, {self.decision}."

    def to_dict(self) -> dict:
        analysis = self.analysis
        return {
            "text": self.text,
            "model": self.model,
            "tokens": list(analysis.features),
            "dropped": [{"word": d.word, "reason": d.reason} for d in analysis.dropped],
            "replacements": [{"text": original, "placeholder": p} for original, p in analysis.replacements],
            "unseen": list(self.unseen),
            "features": [{"word": f.word, "index": f.index, "count": f.count, "value": f.value} for f in self.features],
            "vocabulary_size": self.vocabulary_size,
            "classes": list(self.classes),
            "per_class": [c.to_dict() for c in self.per_class],
            "cannot_decide": self.cannot_decide,
            "log_shift": number(self.log_shift),
            "sum_shifted": number(self.sum_shifted),
            "log_evidence": number(self.log_evidence),
            "evidence": number(self.evidence),
            "decision": self.decision,
            "tied": list(self.tied),
            "tie_note": self.tie_note,
            "exact": self.exact,
        }


@dataclass(frozen=True)
class Reading:
    """The review as the model reads it, before any probability: its words, the feature vector's non-zero entries,
    and the words the vocabulary does not have (what the first steps of the lesson show, as a student types)."""

    analysis: DocumentAnalysis
    features: tuple[FeatureValue, ...]
    unseen: tuple[str, ...]
    vocabulary_size: int

    tokens = forwarded("analysis.features")


def read_review(bag: BagOfWords, text: str, uses_presence: bool) -> Reading:
    """``text`` analysed and looked up in ``bag``'s vocabulary; a feature's value is 1 for presence features
    (Bernoulli, binary multinomial), else its count."""
    analysis = bag.analyzer.explain(text)
    counts: dict[int, int] = {}
    unseen: dict[str, None] = {}
    for feature in analysis.features:
        j = bag.index.get(feature)
        if j is None:
            unseen[feature] = None
        else:
            counts[j] = counts.get(j, 0) + 1
    features = tuple(
        FeatureValue(bag.vocabulary[j], j, c, 1 if uses_presence else c) for j, c in sorted(counts.items())
    )
    return Reading(analysis, features, tuple(unseen), len(bag.vocabulary))


def explain(model: NaiveBayes, bag: BagOfWords, text: str) -> Trace:
    """The complete trace of classifying ``text`` with ``model`` (whose vocabulary is ``bag``'s).

    For each class: every factor of φ_k · Π_j P(x_j | k), the product as an exact fraction (small
    vocabularies) and as float64 multiplied one factor at a time, the sum of logs, the factors that are exactly 0,
    and the posterior by log-sum-exp. The log joints are those ``NaiveBayes.joint_log_likelihood`` gives, so
    the trace and the evaluation agree.

    Parameters
    ----------
    model : NaiveBayes
        A fitted model.
    bag : BagOfWords
        The vocabulary the model was counted over.
    text : str
        The review. Words outside the vocabulary are ignored, and listed in ``unseen``.

    Returns
    -------
    Trace
        Every number of the computation; ``to_dict()`` gives them as JSON-ready data.

    Examples
    --------
    The multinomial model with α = 1 on the China/Japan corpus decides China for d5:

    >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
    >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
    >>> trace = explain(training.model("multinomial", 1), training.bag, "Chinese Chinese Chinese Tokyo Japan Osaka")
    >>> trace.decision, trace.unseen
    ('China', ('osaka',))
    >>> china = trace.per_class[0]
    >>> [(f.word, f.ratio, f.power) for f in china.factors]  # θ as unreduced ratios, raised to each count
    [('chinese', (6, 14), 3), ('japan', (1, 14), 1), ('tokyo', (1, 14), 1)]
    >>> china.prior_exact, china.joint_exact  # 3/4 · (6/14)³ · 1/14 · 1/14
    (Fraction(3, 4), Fraction(81, 268912))
    >>> round(china.log_joint, 6), round(trace.log_evidence, 6), round(china.posterior, 6)
    (-8.10769, -7.736277, 0.689759)

    With α = 0, "japan" and "tokyo" were never seen in China: two zero factors make China impossible.

    >>> trace = explain(training.model("multinomial", 0), training.bag, "Chinese Chinese Chinese Tokyo Japan")
    >>> [(z.word, z.label) for c in trace.per_class for z in c.zero_factors], trace.decision
    ([('japan', 'China'), ('tokyo', 'China')], 'Japan')
    """
    reading = read_review(bag, text, model.uses_presence)
    analysis, features, unseen = reading.analysis, reading.features, reading.unseen
    exact = model.epsilon is None and len(bag.vocabulary) <= EXACT_VOCABULARY_LIMIT
    log_joints = _log_joints(model, features)

    finite = [v for v in log_joints if v > -math.inf]
    cannot_decide = not finite
    if cannot_decide:
        shift = sum_shifted = None
        log_evidence = -math.inf
    else:
        shift = max(finite)
        sum_shifted = math.fsum(math.exp(v - shift) for v in finite)
        log_evidence = shift + math.log(sum_shifted)

    listed = range(len(bag.vocabulary)) if _lists_every_word(model) else (f.index for f in features)
    columns = _Columns.fetch(model, listed)
    present = {f.index: f for f in features}
    per_class = tuple(
        _class_trace(model, k, features, columns, log_joints[k], shift, log_evidence, exact, present)
        for k in range(len(model.classes))
    )
    decision, tied = None, ()
    if not cannot_decide:
        if exact and all(c.joint_exact is not None for c in per_class):
            # The exact products decide, and show a tie as equal fractions. The scores agree: scoring compares
            # near ties exactly too (NaiveBayes._settle_near_ties).
            top_exact = max(c.joint_exact for c in per_class)
            best = [k for k, c in enumerate(per_class) if c.joint_exact == top_exact]
        else:
            best = [k for k, v in enumerate(log_joints) if v == shift]
        decision = model.classes[best[0]]
        tied = tuple(model.classes[k] for k in best) if len(best) > 1 else ()
    return Trace(
        text=text,
        model=model.to_dict(),
        analysis=analysis,
        features=features,
        unseen=tuple(unseen),
        classes=model.classes,
        per_class=per_class,
        cannot_decide=cannot_decide,
        log_shift=shift,
        sum_shifted=sum_shifted,
        log_evidence=log_evidence,
        evidence=math.exp(log_evidence),
        decision=decision,
        tied=tied,
        exact=exact,
        vocabulary_size=len(bag.vocabulary),
    )


def _lists_every_word(model: NaiveBayes) -> bool:
    """Bernoulli multiplies a factor for every word of the vocabulary; list them all when they are few."""
    return model.kind == "bernoulli" and len(model.vocabulary) <= LISTED_ABSENT_LIMIT


def _log_joints(model: NaiveBayes, features) -> list[float]:
    """The same computation as scoring a whole test set, so the trace and the evaluation agree."""
    import scipy.sparse as sp

    columns = np.array([f.index for f in features], dtype=np.int64)
    values = np.array([f.count for f in features], dtype=np.int64)
    row = sp.csr_matrix((values, columns, [0, len(columns)]), shape=(1, len(model.vocabulary)))
    return [float(v) for v in model.joint_log_likelihood(row)[0]]


@dataclass(frozen=True)
class _Columns:
    """The parameters of the words a trace looks at, fetched once for every class, as lists indexed [k][column]
    (a trace on 20 classes builds a factor per class and word: reading numpy scalars one by one cost more than
    the rest of the factor)."""

    words: tuple[int, ...]
    prob: list[list[float]]
    log_prob: list[list[float]]
    absent_log_prob: list[list[float]] | None
    numerators: list[list] | None  # of each ratio as ``NaiveBayes.feature_ratio`` writes it; None under a floor
    denominators: list | None  # one per class

    @classmethod
    def fetch(cls, model: NaiveBayes, words) -> "_Columns":
        words = tuple(words)
        prob, log_prob, absent_log_prob = model.columns(words)
        numerators, denominators = model.feature_ratios(words) if model.epsilon is None else (None, None)
        return cls(words, prob.tolist(), log_prob.tolist(),
                   None if absent_log_prob is None else absent_log_prob.tolist(), numerators, denominators)


def _factor(model: NaiveBayes, columns: _Columns, k: int, column: int, present: bool, power: int) -> Factor:
    j = columns.words[column]
    absent = model.kind == "bernoulli" and not present
    if absent:
        probability = 1.0 - columns.prob[k][column]
        log_probability = columns.absent_log_prob[k][column]
    else:
        probability = columns.prob[k][column]
        log_probability = columns.log_prob[k][column]
    ratio = None
    if columns.numerators is not None:
        numerator, denominator = columns.numerators[k][column], columns.denominators[k]
        # 1 − ψ as the lecture writes it, (n_k − n_jk + α)/(n_k + 2α): the same as feature_ratio(absent=True)
        ratio = (denominator - numerator, denominator) if absent else (numerator, denominator)
        probability = float(ratio[0]) / float(ratio[1])  # from the counts, not 1 − ψ: exact zeros stay exact
    return Factor(
        word=model.vocabulary[j],
        index=j,
        present=present,
        probability=probability,
        ratio=ratio,
        power=power,
        log_value=power * log_probability if log_probability > -math.inf else -math.inf,
    )


def _present_factors(columns: _Columns, k: int, features) -> tuple[Factor, ...]:
    """Class k's factor for each word of the review, the column of each word being its position in ``features``:
    what ``_factor(model, columns, k, c, True, f.value)`` gives for each, written out for speed (a trace on 20
    classes makes a factor per class and word)."""
    prob, log_prob, minus_infinity = columns.prob[k], columns.log_prob[k], -math.inf
    logs = [f.value * log_prob[c] if log_prob[c] > minus_infinity else minus_infinity for c, f in enumerate(features)]
    if columns.numerators is None:
        return tuple(Factor(f.word, f.index, True, prob[c], None, f.value, logs[c]) for c, f in enumerate(features))
    numerators, denominator = columns.numerators[k], columns.denominators[k]
    float_denominator = float(denominator)
    return tuple(
        Factor(f.word, f.index, True, float(numerators[c]) / float_denominator, (numerators[c], denominator), f.value,
               logs[c])
        for c, f in enumerate(features)
    )


def factor_of(model: NaiveBayes, class_index: int, word_index: int, present: bool, power: int = 1) -> Factor:
    """One factor exactly as a trace shows it, also for an absent word that a large vocabulary's trace
    only aggregates."""
    return _factor(model, _Columns.fetch(model, [word_index]), class_index, 0, present, power)


def factors_of(model: NaiveBayes, cells) -> list[Factor]:
    """``factor_of(model, k, j, present)`` for each (k, j, present) of ``cells``, the parameters of all their words
    fetched at once (a review can meet a hundred zero factors on a corpus of twenty classes)."""
    words = sorted({j for _, j, _ in cells})
    columns = _Columns.fetch(model, words)
    column_of = {j: column for column, j in enumerate(words)}
    return [_factor(model, columns, k, column_of[j], present, 1) for k, j, present in cells]


def _class_trace(model: NaiveBayes, k: int, features, columns: _Columns, log_joint, shift, log_evidence, exact,
                 present: dict | None = None):
    """Class k's part of the trace. ``present`` maps the review's word indices to their features (made once per
    trace when not given)."""
    label = model.classes[k]
    if present is None:
        present = {f.index: f for f in features}
    absent_words = None
    if _lists_every_word(model):
        factors = tuple(_factor(model, columns, k, j, j in present, 1) for j in range(len(model.vocabulary)))
    else:
        factors = _present_factors(columns, k, features)
        if model.kind == "bernoulli":
            absent_words = _absent_words(model, k, present, columns, exact)

    per_class = model.per_class
    zero_factors = [ZeroFactor(f.word, label, f.present) for f in factors if f.probability == 0.0]
    if absent_words is not None and per_class.certain_words[k]:
        zero_factors += [
            ZeroFactor(model.vocabulary[j], label, False) for j in model.certain_words(k) if j not in present
        ]

    prior = per_class.prior[k]
    joint = prior
    for factor in factors:
        for _ in range(factor.power):
            joint *= factor.probability  # one multiplication at a time, as a naive program would
    if absent_words is not None:
        joint *= absent_words.product

    joint_exact = None
    if exact and _exact_product_fits(model.class_prior_exact[k], factors, absent_words):
        joint_exact = model.class_prior_exact[k]
        for factor in factors:
            joint_exact *= factor.exact**factor.power
        if absent_words is not None:
            joint_exact *= absent_words.exact

    decided = log_evidence > -math.inf
    return ClassTrace(
        label=label,
        prior=prior,
        prior_ratio=per_class.prior_ratio[k],
        prior_exact=model.class_prior_exact[k],
        log_prior=per_class.log_prior[k],
        factors=factors,
        absent_words=absent_words,
        zero_factors=tuple(zero_factors),
        joint=joint,
        joint_exact=joint_exact,
        log_joint=log_joint,
        shifted_log_joint=(log_joint - shift) if decided else None,
        posterior=math.exp(log_joint - log_evidence) if decided else None,
        log_posterior=(log_joint - log_evidence) if decided else None,
    )


# An exact product is shown while it can be written out: a review of 2,500 short words with α = 1/7 would
# otherwise give numerators and denominators past the 4,300 digits Python writes as text (and slow to build).
EXACT_PRODUCT_BITS = 12_000  # about 3,600 decimal digits, each of the numerator and the denominator


def _exact_product_fits(prior: Fraction, factors, absent_words) -> bool:
    """Whether φ · Π factor^power keeps its numerator and denominator within ``EXACT_PRODUCT_BITS`` each,
    estimated (from above) before it is computed."""
    parts = [(prior, 1), *((f.exact, f.power) for f in factors)]
    if absent_words is not None and absent_words.exact is not None:
        parts.append((absent_words.exact, 1))
    numerator_bits = sum(value.numerator.bit_length() * power for value, power in parts)
    denominator_bits = sum(value.denominator.bit_length() * power for value, power in parts)
    return max(numerator_bits, denominator_bits) <= EXACT_PRODUCT_BITS


def _absent_words(model: NaiveBayes, k: int, present: dict, columns: _Columns, exact: bool) -> AbsentWords:
    present_logs = columns.absent_log_prob[k]
    certain_present = sum(1 for value in present_logs if value == -math.inf)
    if model.per_class.certain_words[k] - certain_present > 0:
        log_product = -math.inf  # an absent word with ψ = 1: the product is exactly 0
    else:
        log_product = float(model.absent_log_prob_sum_[k]) - math.fsum(v for v in present_logs if v > -math.inf)
    product_exact = None
    if exact:
        product_exact = Fraction(1)
        for j in range(len(model.vocabulary)):
            if j not in present:
                product_exact *= model.exact_feature_prob(k, j, absent=True)
    return AbsentWords(
        count=len(model.vocabulary) - len(present),
        log_product=log_product,
        product=math.exp(log_product),
        exact=product_exact,
    )
