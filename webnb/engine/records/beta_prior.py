"""Smoothing as a Beta prior: one word probability's likelihood, prior and posterior, and its three estimates.

Bernoulli ψ_jk, when n_jk of the n_k documents of class k contain word j:

    likelihood   L(ψ) = ψ^n_jk (1 − ψ)^(n_k − n_jk), which normalised is Beta(n_jk + 1, n_k − n_jk + 1)
    prior        Beta(α + 1, α + 1), density ∝ ψ^α (1 − ψ)^α: α pseudo-documents with the word and α without
    posterior    Beta(n_jk + α + 1, n_k − n_jk + α + 1)

    MLE  n_jk / n_k                 the likelihood's peak
    MAP  (n_jk + α) / (n_k + 2α)    the posterior's peak: Laplace smoothing, what the ψ table shows
    mean (n_jk + α + 1) / (n_k + 2α + 2)

Multinomial θ_k = (θ_1k, …, θ_|V|k), when word j makes c_jk of the Σc words of class k: a Dirichlet(α + 1, …, α + 1)
prior and the posterior Dirichlet(c_1k + α + 1, …); MLE c_jk/Σc, MAP (c_jk + α)/(Σc + |V|α), posterior mean
(c_jk + α + 1)/(Σc + |V|(α + 1)). One θ_jk of a Dirichlet is Beta-distributed, so its curves are Betas too: the prior's
Beta(α + 1, (|V| − 1)(α + 1)) and the posterior's Beta(c_jk + α + 1, Σc − c_jk + (|V| − 1)(α + 1)); the likelihood is
θ_jk^c_jk (1 − θ_jk)^(Σc − c_jk) once the other words share what θ_jk leaves. The MAP is the peak of the whole
Dirichlet, not of this one-word marginal, whose peak lies a little lower.

Densities are computed in log space (``betaln``, ``xlogy``), so α = 1000 or n = 10,000 neither overflows nor
underflows to nothing; each curve is sampled more densely around its peak, so that a narrow posterior is drawn
whole and its trapezoid area is 1. Every parameter is at least 1, so every density is finite on [0, 1].
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy.special import betaln, xlog1py, xlogy

from webnb.engine.records.estimate import Estimate, estimate
from webnb.engine.shared.forwarding import forwarded
from webnb.engine.shared.plain import fraction_text, number, ratio_text
from webnb.engine.text.models import NaiveBayes

BASE_SAMPLES = 161  # evenly over the axis
PEAK_SAMPLES = 161  # again within PEAK_WIDTH standard deviations of the peak
PEAK_WIDTH = 12
TAIL_SAMPLES = 40  # beyond that, each side, ever further apart, out to the axis's ends


def part_text(value) -> str:
    """A Beta parameter or a part of a ratio as the lecture writes it: 3, 3.5, or (10/3) when no decimal is exact."""
    return ratio_text((Fraction(value),))


@dataclass(frozen=True)
class BetaCurve:
    """Beta(a, b) on [0, ``x_max``]: its density sampled at ``xs`` (ascending, the peak among them)."""

    name: str  # "likelihood", "prior" or "posterior"
    a: Fraction
    b: Fraction
    xs: tuple[float, ...]
    densities: tuple[float, ...]

    @property
    def mode(self) -> Fraction | None:
        """Where the density peaks: (a − 1)/(a + b − 2); None for Beta(1, 1), which is flat."""
        if self.a + self.b == 2:
            return None
        return (self.a - 1) / (self.a + self.b - 2)

    @property
    def mean(self) -> Fraction:
        return self.a / (self.a + self.b)

    @property
    def peak(self) -> float:
        """The highest density (at the mode, which is sampled)."""
        return max(self.densities)

    @property
    def a_text(self) -> str:
        return part_text(self.a)

    @property
    def b_text(self) -> str:
        return part_text(self.b)

    def to_dict(self) -> dict:
        return {
            "a": part_text(self.a),
            "b": part_text(self.b),
            "mode": fraction_text(self.mode),
            "mean": fraction_text(self.mean),
            "peak_density": number(self.peak),
            "points": [[x, d] for x, d in zip(self.xs, self.densities, strict=True)],
        }


@dataclass(frozen=True)
class PointEstimate:
    """One estimate of ψ_jk or θ_jk as an unreduced ratio (None: the MLE of a class without words, 0/0)."""

    name: str  # "mle", "map" or "posterior_mean"
    ratio: tuple | None

    @property
    def exact(self) -> Fraction | None:
        return None if self.ratio is None else Fraction(self.ratio[0]) / Fraction(self.ratio[1])

    def to_dict(self) -> dict:
        exact = self.exact
        return {"ratio": ratio_text(self.ratio), "exact": fraction_text(exact),
                "value": None if exact is None else number(float(exact))}


@dataclass(frozen=True)
class BetaPrior:
    """ψ_jk (Bernoulli) or θ_jk (multinomial) seen as a MAP estimate: the cell as the table shows it, the three
    curves, and the three estimates. ``curves`` is empty when the vocabulary has one word (θ_jk is then 1).

    Parameters
    ----------
    cell : Estimate
        The cell of the table.
    x_max : float
        The curves' axis ends here: 1 for ψ, less for a θ whose curves all lie near 0.
    curves : tuple of BetaCurve
        The likelihood, the prior Beta(α + 1, …) and the posterior, sampled for drawing.
    mle, map, posterior_mean : PointEstimate
        The maximum-likelihood estimate (α = 0; None for no documents), the MAP estimate (the table's ratio) and
        the posterior mean.

    Attributes
    ----------
    prior_parameter : Fraction
        α + 1: each Beta (Bernoulli) or Dirichlet (multinomial) parameter of the prior.
    """

    cell: Estimate
    x_max: float  # the curves' axis ends here: 1 for ψ, less for a θ whose curves all lie near 0
    curves: tuple[BetaCurve, ...]  # likelihood, prior, posterior
    mle: PointEstimate
    map: PointEstimate
    posterior_mean: PointEstimate

    kind = forwarded("cell.kind")
    alpha = forwarded("cell.alpha")

    @property
    def likelihood(self) -> BetaCurve | None:
        return self.curves[0] if self.curves else None

    @property
    def prior(self) -> BetaCurve | None:
        return self.curves[1] if self.curves else None

    @property
    def posterior(self) -> BetaCurve | None:
        return self.curves[2] if self.curves else None

    @property
    def alpha_text(self) -> str:
        return part_text(self.alpha)

    @property
    def prior_parameter(self) -> Fraction:
        """α + 1: each Beta (Bernoulli) or Dirichlet (multinomial) parameter of the prior."""
        return self.alpha + 1

    def to_dict(self) -> dict:
        cell = self.cell
        return {
            "word": cell.word,
            "class": cell.label,
            "model": cell.model,
            "count": cell.count,
            "total": cell.total,
            "vocabulary_size": cell.n_words,
            "prior_parameter": part_text(self.prior_parameter),
            "estimates": {e.name: e.to_dict() for e in (self.mle, self.map, self.posterior_mean)},
            "table": {"ratio": ratio_text(cell.ratio), "value": number(cell.value), "floored": cell.floored},
            "x_max": self.x_max,
            "curves": {c.name: c.to_dict() for c in self.curves},
        }


def beta_prior(model: NaiveBayes, word_index: int, class_index: int) -> BetaPrior:
    """The Beta-prior view of the cell (word ``word_index``, class ``class_index``) of ``model``'s ψ or θ table.

    Smoothing with α is the MAP estimate under a Beta(α + 1, α + 1) prior (Dirichlet for θ): the posterior's mode is
    the table's ratio, its mean adds one more pseudo-count.

    Parameters
    ----------
    model, word_index, class_index
        As in ``estimate``, whose cell this shows.

    Returns
    -------
    BetaPrior
        The cell, the three curves and the three estimates.

    Raises
    ------
    IndexError
        If an index is out of range (see ``estimate``).

    Examples
    --------
    >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
    >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
    >>> view = beta_prior(training.model("bernoulli", 1), training.bag.index["chinese"], 0)
    >>> view.mle.exact, view.map.exact, view.posterior_mean.exact  # 3/3, (3 + 1)/(3 + 2), (3 + 2)/(3 + 4)
    (Fraction(1, 1), Fraction(4, 5), Fraction(5, 7))
    """
    cell = estimate(model, word_index, class_index)
    alpha = int(cell.alpha) if cell.alpha.denominator == 1 else cell.alpha  # whole parts stay ints, as in the table
    count, total = cell.count, cell.total
    if cell.kind == "bernoulli":
        others = 1  # the prior's second parameter is α + 1 too
        mean_ratio = (count + alpha + 1, total + 2 * alpha + 2)
    else:
        others = cell.n_words - 1  # the rest of the vocabulary, each with α + 1
        mean_ratio = (count + alpha + 1, total + cell.n_words * (alpha + 1))
    parameters = (
        ("likelihood", Fraction(count + 1), Fraction(total - count + 1)),
        ("prior", Fraction(alpha + 1), Fraction(others * (alpha + 1))),
        ("posterior", Fraction(count + alpha + 1), Fraction(total - count + others * (alpha + 1))),
    )
    mle = PointEstimate("mle", (count, total) if total else None)
    map_ = PointEstimate("map", cell.ratio)
    mean = PointEstimate("posterior_mean", mean_ratio)
    if others == 0:  # a vocabulary of one word: θ_jk is 1 whatever the counts, and no Beta has a 0 parameter
        return BetaPrior(cell, 1.0, (), mle, map_, mean)
    x_max = 1.0 if cell.kind == "bernoulli" else axis_end([(a, b) for _, a, b in parameters],
                                                           [e.exact for e in (mle, map_, mean)])
    curves = tuple(beta_curve(name, a, b, x_max) for name, a, b in parameters)
    return BetaPrior(cell, x_max, curves, mle, map_, mean)


def beta_curve(name: str, a: Fraction, b: Fraction, x_max: float = 1.0) -> BetaCurve:
    """Beta(a, b) (a, b ≥ 1) sampled on [0, ``x_max``]: evenly, densely within a few standard deviations of its peak,
    at the peak itself, and in the tails and near the ends at distances growing geometrically (the tail of
    Beta(1, 10⁶) falls like an exponential: evenly spaced points would add a visible sliver of area)."""
    fa, fb = float(a), float(b)
    spread = math.sqrt(fa * fb / ((fa + fb) ** 2 * (fa + fb + 1)))
    centre = float((a - 1) / (a + b - 2)) if a + b > 2 else 0.5
    near = np.linspace(-PEAK_WIDTH, PEAK_WIDTH, PEAK_SAMPLES)
    tail = np.geomspace(PEAK_WIDTH, max(PEAK_WIDTH, x_max / spread), TAIL_SAMPLES)
    offsets = np.concatenate([near, tail, -tail]) * spread
    # A parameter between 1 and 2 makes the density rise like a root from an end: ever closer samples there.
    ends = x_max * np.geomspace(1e-9, 1 / BASE_SAMPLES, TAIL_SAMPLES)
    xs = np.concatenate([np.linspace(0.0, x_max, BASE_SAMPLES), centre + offsets, [centre], ends, x_max - ends])
    xs = np.unique(xs[(xs >= 0.0) & (xs <= x_max)])
    return BetaCurve(name, a, b, tuple(xs.tolist()), tuple(beta_density(fa, fb, xs).tolist()))


def beta_density(a: float, b: float, xs: np.ndarray) -> np.ndarray:
    """The Beta(a, b) density at ``xs`` in [0, 1], through its log: x^(a−1) (1 − x)^(b−1) / B(a, b). ``xlogy`` makes
    0 · log 0 = 0, so a parameter of exactly 1 gives the finite endpoint (b at x = 0 when a = 1)."""
    return np.exp(xlogy(a - 1, xs) + xlog1py(b - 1, -xs) - betaln(a, b))


def axis_end(parameters: list[tuple[Fraction, Fraction]], marks: list[Fraction | None]) -> float:
    """Where the θ axis ends: past every curve's bulk (its mean plus PEAK_WIDTH standard deviations) and every
    estimate, rounded up to 1, 2 or 5 times a power of ten, and never beyond 1. A θ on a large vocabulary lies
    near 0, where [0, 1] would squash all three curves into one line."""
    reach = [float(m) for m in marks if m is not None]
    for a, b in parameters:
        fa, fb = float(a), float(b)
        reach.append(fa / (fa + fb) + PEAK_WIDTH * math.sqrt(fa * fb / ((fa + fb) ** 2 * (fa + fb + 1))))
    furthest = max(reach)
    if furthest >= 0.5:
        return 1.0
    magnitude = 10.0 ** math.floor(math.log10(furthest))
    return next(f * magnitude for f in (1, 2, 5, 10) if f * magnitude >= furthest)
