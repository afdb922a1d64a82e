"""Gaussian Naive Bayes for tables of numbers: a bell curve per class and feature, and Bayes' rule over them.

The statistics of a table (class counts, means, population variances and each feature's variance over all rows)
are kept, so a new ``var_smoothing`` builds a model without reading the rows again. As in scikit-learn's
GaussianNB, ``var_smoothing`` × the largest feature variance (ε) is added to every variance.

A variance can still be exactly 0 (a feature constant within a class, with ``var_smoothing`` = 0). Such a bell has
no width: every value but the mean is impossible (log-density −∞), and the mean itself has unbounded density
(+∞). A miss outweighs any number of hits (−(x−μ)²/2σ² falls faster than −log σ rises as σ → 0), and two classes
that are both +∞ cannot be told apart. Nothing here ever produces NaN.
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from webnb.engine.gaussian.table import NumericTable
from webnb.engine.shared.classes import class_counts, class_numbers, class_priors
from webnb.engine.shared.corpus import CorpusError
from webnb.engine.shared.forwarding import forwarded
from webnb.engine.text.models import LogPosterior, normalise_log_joint

LOG_2PI = math.log(2.0 * math.pi)
DEFAULT_VAR_SMOOTHING = 1e-9  # scikit-learn's default
GAUSSIAN_PRIORS = ("learned", "uniform")


@dataclass(frozen=True, eq=False)
class GaussianStatistics:
    r"""Everything Gaussian NB learns from a table, before the variance smoothing is chosen.

    Parameters
    ----------
    classes : tuple of str
        The classes, sorted.
    features : tuple of str
        The columns.
    class_count : numpy.ndarray of shape (n_classes,)
        Rows per class.
    means : numpy.ndarray of shape (n_classes, n_features)
        μ_jk, each feature's mean within each class.
    variances : numpy.ndarray of shape (n_classes, n_features)
        σ²_jk, population variances (divided by n_k), as the model uses them.
    sample_variances : numpy.ndarray of shape (n_classes, n_features)
        Divided by n_k − 1 (0 where n_k = 1), shown for comparison.
    feature_variances : numpy.ndarray of shape (n_features,)
        Each feature's population variance over all rows: ε is ``var_smoothing`` times the largest.
    rescaled : tuple of str, default ()
        Features computed from their deviations because numpy's direct formula overflowed.

    Attributes
    ----------
    largest_variance_feature : int
        The feature whose variance sets ε.

    Examples
    --------
    >>> from webnb.engine.gaussian.table import HEIGHT_WEIGHT_CSV, read_numeric_csv
    >>> table = read_numeric_csv(HEIGHT_WEIGHT_CSV)
    >>> stats = GaussianStatistics.fit(table)
    >>> stats.classes, stats.class_count.tolist()
    (('female', 'male'), [4, 4])
    >>> stats.means.round(6).tolist()
    [[5.4175, 132.5], [5.855, 176.25]]
    >>> stats.variances.round(6).tolist()
    [[0.072919, 418.75], [0.026275, 92.1875]]
    """

    classes: tuple[str, ...]
    features: tuple[str, ...]
    class_count: np.ndarray  # (K,) rows per class
    means: np.ndarray  # (K, d)
    variances: np.ndarray  # (K, d) population variances: divided by n_k
    sample_variances: np.ndarray  # (K, d) divided by n_k − 1 (NaN-free: 0 where n_k = 1), shown for comparison
    feature_variances: np.ndarray  # (d,) population variance of each feature over all rows
    # Features whose mean or variance overflowed in numpy's (and scikit-learn's) direct formula and were computed
    # from their deviations instead: scikit-learn's numbers for them are ±∞ or NaN, so there is nothing to compare.
    rescaled: tuple[str, ...] = ()

    @classmethod
    def fit(cls, table: NumericTable) -> "GaussianStatistics":
        """The statistics of ``table``'s rows.

        Parameters
        ----------
        table : NumericTable
            Labelled rows of numbers, of at least two classes.

        Returns
        -------
        GaussianStatistics
            Class counts, means and variances, before any smoothing.

        Raises
        ------
        CorpusError
            If the table has no feature columns, no rows or a single class, or a column whose values span more than
            float64 can square (its variance would be infinite).
        """
        table.require_trainable()  # also refuses a column too widely spread for a finite variance
        values = table.values
        # First, while nothing else is held: np.var makes a temporary copy of the whole table.
        _, feature_variances, rescaled = _means_and_variances(values)
        classes = table.classes
        codes = class_numbers(classes, table.labels)
        counts = class_counts(codes, len(classes))
        means, variances = [], []
        for k in range(len(classes)):
            mean, variance, rescaled_here = _means_and_variances(values[codes == k])
            rescaled = rescaled | rescaled_here
            means.append(mean)
            variances.append(variance)
        variances = np.array(variances)
        # n/(n − 1) times the population variance; 0 for a class of one row (no spread to estimate).
        correction = np.where(counts > 1, counts / np.maximum(counts - 1, 1), 0.0)
        return cls(
            classes=classes,
            features=table.features,
            class_count=counts,
            means=np.array(means),
            variances=variances,
            sample_variances=variances * correction[:, None],
            feature_variances=feature_variances,
            rescaled=tuple(feature for feature, scaled in zip(table.features, rescaled, strict=True) if scaled),
        )

    @property
    def largest_variance_feature(self) -> int:
        return int(np.argmax(self.feature_variances))

    def model(self, var_smoothing: float = DEFAULT_VAR_SMOOTHING, prior: str = "learned") -> "GaussianNB":
        r"""The model of these statistics with ε = ``var_smoothing`` × the largest feature variance added to every
        variance, as scikit-learn's GaussianNB does.

        Parameters
        ----------
        var_smoothing : float, default 1e-9
            0 or more; 0 keeps a variance of 0 (a bell of no width: −∞ away from its mean, +∞ at it).
        prior : {"learned", "uniform"}, default "learned"
            φ_k = n_k / n, or 1/K.

        Returns
        -------
        GaussianNB
            The fitted model.

        Raises
        ------
        ValueError
            If ``var_smoothing`` is negative or not finite, ``prior`` is neither name, or ε would take a variance
            beyond the largest float64.

        Examples
        --------
        >>> from webnb.engine.gaussian.table import HEIGHT_WEIGHT_CSV, read_numeric_csv
        >>> table = read_numeric_csv(HEIGHT_WEIGHT_CSV)
        >>> model = GaussianStatistics.fit(table).model(var_smoothing=1e-9)
        >>> round(model.epsilon / 1e-9, 6), model.class_prior_.tolist()  # ε = 1e-9 × the variance of "weight"
        (733.984375, [0.5, 0.5])
        """
        if not (math.isfinite(var_smoothing) and var_smoothing >= 0):
            raise ValueError(f"var_smoothing must be a number ≥ 0, not {var_smoothing}")
        if prior not in GAUSSIAN_PRIORS:
            raise ValueError(f"prior must be 'learned' or 'uniform', not {prior!r}")
        largest = float(self.feature_variances.max())
        epsilon = var_smoothing * largest
        smoothed = self.variances + epsilon
        if not (math.isfinite(epsilon) and np.all(np.isfinite(smoothed))):
            # Only near the float64 limit: the variances themselves are finite (see NumericTable.require_representable).
            room = (sys.float_info.max - float(self.variances.max())) / largest
            raise ValueError(
                f"var_smoothing {var_smoothing:g} × the largest variance ({largest:.4g}) goes beyond the largest "
                f"float64 (about 1.8e308). Choose a var_smoothing below {room:.3g}."
            )
        priors = class_priors(self.class_count, prior, log_of="prior")  # as GaussianNB takes its log
        return GaussianNB(self, var_smoothing, epsilon, smoothed, priors.mode, priors.exact, priors.prior,
                          priors.log_prior)


@dataclass(frozen=True, eq=False)
class GaussianNB:
    """A fitted Gaussian model: the statistics with ε added to every variance, and the priors, named as the text
    models name theirs.

    Made by ``GaussianStatistics.model``.

    Parameters
    ----------
    statistics : GaussianStatistics
        What the model learned from the table.
    var_smoothing : float
        The share of the largest feature variance added to every variance.
    epsilon : float
        ε, the amount added.
    smoothed_variances : numpy.ndarray of shape (n_classes, n_features)
        σ²_jk + ε.
    prior_mode : {"learned", "uniform"}
        Where the priors come from.
    class_prior_exact : tuple of Fraction
        φ_k exactly.
    class_prior_, class_log_prior_ : numpy.ndarray of shape (n_classes,)
        φ_k and log φ_k.

    Attributes
    ----------
    classes, features : tuple of str
        Those of ``statistics``.
    means : numpy.ndarray of shape (n_classes, n_features)
        μ_jk.
    zero_variance : numpy.ndarray of bool, shape (n_classes, n_features)
        Where the smoothed variance is still exactly 0.
    """

    statistics: GaussianStatistics
    var_smoothing: float
    epsilon: float  # added to every variance
    smoothed_variances: np.ndarray  # (K, d)
    prior_mode: str  # "learned" or "uniform"
    class_prior_exact: tuple[Fraction, ...]
    class_prior_: np.ndarray  # (K,)
    class_log_prior_: np.ndarray  # (K,)

    classes = forwarded("statistics.classes")
    features = forwarded("statistics.features")
    means = forwarded("statistics.means")

    def to_dict(self) -> dict:
        """The settings, as the text models give theirs (a ``Score`` of either kind reads them)."""
        return {"model": "gaussian", "var_smoothing": self.var_smoothing, "epsilon": self.epsilon,
                "prior": self.prior_mode}

    @property
    def zero_variance(self) -> np.ndarray:
        """(K, d) True where the smoothed variance is still exactly 0."""
        return self.smoothed_variances == 0.0

    def feature_log_densities(self, values) -> np.ndarray:
        r"""log N(x_j; μ_jk, σ²_jk) for one row of values, computed directly in log space:
        −(x−μ)²/(2σ²) − ½·log(2πσ²). A zero variance gives −∞ away from the mean and +∞ at it.

        Parameters
        ----------
        values : array-like of shape (n_features,)
            One row.

        Returns
        -------
        numpy.ndarray of shape (n_classes, n_features)
            The log-density of each feature's value under each class's bell.

        Examples
        --------
        >>> from webnb.engine.gaussian.table import HEIGHT_WEIGHT_CSV, read_numeric_csv
        >>> table = read_numeric_csv(HEIGHT_WEIGHT_CSV)
        >>> model = GaussianStatistics.fit(table).model()
        >>> model.feature_log_densities([6.0, 130]).round(6).tolist()
        [[-1.93632, -3.945038], [0.500532, -14.782546]]
        """
        x = np.asarray(values, dtype=np.float64)
        return self._log_densities(x[None, :])[0]

    def _log_densities(self, rows: np.ndarray) -> np.ndarray:
        """(n, K, d) log-densities of ``rows`` (n, d)."""
        variances, means = self.smoothed_variances, self.means
        zero = variances == 0.0
        safe = np.where(zero, 1.0, variances)
        squared = _squared_distances(rows[:, None, :], means[None, :, :], safe[None, :, :])
        log_density = -0.5 * (LOG_2PI + np.log(safe))[None, :, :] - 0.5 * squared
        if zero.any():
            at_mean = rows[:, None, :] == means[None, :, :]
            spike = np.where(at_mean, np.inf, -np.inf)
            log_density = np.where(zero[None, :, :], spike, log_density)
        return log_density

    def joint_log_likelihood(self, rows) -> np.ndarray:
        """log P(k) + Σ_j log N(x_j; μ_jk, σ²_jk) for each row.

        Parameters
        ----------
        rows : array-like of shape (n_rows, n_features)
            Rows of numbers, one per feature.

        Returns
        -------
        numpy.ndarray of shape (n_rows, n_classes)
            Never NaN: −∞ where a zero-width bell misses (or the prior is 0), +∞ where a value sits exactly at
            the mean of a zero-width bell and no bell misses.

        Raises
        ------
        CorpusError
            If the rows do not have one number per feature.
        """
        rows = np.asarray(rows, dtype=np.float64)
        if rows.ndim != 2 or rows.shape[1] != len(self.features):
            raise CorpusError(f"each row needs {len(self.features)} numbers, one per feature")
        if not self.zero_variance.any():
            # Summed in scikit-learn's order (the normalisers, then the squared distances), so that even log
            # posteriors of −10⁷ agree to the last bit rather than to a few units in the last place.
            columns = []
            for k in range(len(self.classes)):
                variance = self.smoothed_variances[k]
                normaliser = -0.5 * np.sum(_log_2pi_variances(variance))
                normaliser -= 0.5 * np.sum(_squared_distances(rows, self.means[k], variance), 1)
                columns.append(self.class_log_prior_[k] + normaliser)
            return np.array(columns).T
        densities = self._log_densities(rows)
        missed = np.any(densities == -np.inf, axis=2)
        hit = np.any(densities == np.inf, axis=2)
        finite = np.where(np.isinf(densities), 0.0, densities).sum(axis=2) + self.class_log_prior_[None, :]
        # A miss beats any hit; a class with a prior of 0 stays impossible.
        jll = np.where(hit, np.inf, finite)
        return np.where(missed | (self.class_log_prior_[None, :] == -np.inf), -np.inf, jll)

    def predict_log_proba(self, rows) -> LogPosterior:
        r"""(log P(k | x), decidable), normalised by log-sum-exp; see ``normalise_log_joint``.

        Parameters
        ----------
        rows : array-like of shape (n_rows, n_features)
            The rows whose posteriors are wanted.

        Returns
        -------
        LogPosterior
            ``log_proba`` of shape (n_rows, n_classes) and ``decidable`` of shape (n_rows,).

        Raises
        ------
        CorpusError
            As ``joint_log_likelihood``.

        Examples
        --------
        >>> from webnb.engine.gaussian.table import HEIGHT_WEIGHT_CSV, read_numeric_csv
        >>> table = read_numeric_csv(HEIGHT_WEIGHT_CSV)
        >>> model = GaussianStatistics.fit(table).model()
        >>> log_proba, decidable = model.predict_log_proba([[6.0, 130]])
        >>> np.exp(log_proba).round(6).tolist(), decidable.tolist()
        ([[0.999775, 0.000225]], [True])
        """
        return normalise_log_joint(self.joint_log_likelihood(rows))

    def predict_index(self, rows) -> np.ndarray:
        """Index of the most probable class per row, or −1 where the model cannot decide.

        Parameters
        ----------
        rows : array-like of shape (n_rows, n_features)
            The rows to classify.

        Returns
        -------
        numpy.ndarray of int, shape (n_rows,)
            Class numbers; −1 for an undecidable row.

        Raises
        ------
        CorpusError
            As ``joint_log_likelihood``.
        """
        jll = self.joint_log_likelihood(rows)
        return np.where(normalise_log_joint(jll).decidable, jll.argmax(axis=1), -1)

    def predict(self, rows) -> list[str | None]:
        r"""The most probable class of each row, or None where the model cannot decide.

        Parameters
        ----------
        rows : array-like of shape (n_rows, n_features)
            The rows to name a class for.

        Returns
        -------
        list of str or None
            One class name per row.

        Raises
        ------
        CorpusError
            If a row does not have one number per feature (see ``joint_log_likelihood``).

        Examples
        --------
        >>> from webnb.engine.gaussian.table import HEIGHT_WEIGHT_CSV, read_numeric_csv
        >>> table = read_numeric_csv(HEIGHT_WEIGHT_CSV)
        >>> GaussianStatistics.fit(table).model().predict([[6.0, 130], [5.9, 185]])
        ['female', 'male']
        """
        return [self.classes[k] if k >= 0 else None for k in self.predict_index(rows)]

    def densities_on(self, feature: int, xs: np.ndarray) -> np.ndarray:
        """The density of each class's bell for feature ``feature`` at ``xs`` (for drawing).

        Parameters
        ----------
        feature : int
            The feature's column number.
        xs : numpy.ndarray of shape (n_points,)
            Where to evaluate.

        Returns
        -------
        numpy.ndarray of shape (n_classes, n_points)
            N(x; μ_jk, σ²_jk); 0 throughout for a bell of width 0.
        """
        variances = self.smoothed_variances[:, feature]
        means = self.means[:, feature]
        out = np.zeros((len(self.classes), len(xs)))
        for k in range(len(self.classes)):
            if variances[k] > 0:
                variance = float(variances[k])  # a Python float: overflow gives ∞, not a numpy warning
                normaliser = math.sqrt(2 * math.pi * variance)
                if math.isinf(normaliser):  # 2πσ² beyond the largest float; √ of each factor is not
                    normaliser = math.sqrt(2 * math.pi) * math.sqrt(variance)
                out[k] = np.exp(-0.5 * _squared_distances(xs, means[k], variances[k])) / normaliser
        return out


# --- arithmetic that stays finite near the float64 limits -----------------------------------------------------


def _means_and_variances(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each column's mean and population variance, as numpy (and scikit-learn) compute them, so that ordinary
    tables agree to the last bit. Only where that overflows (values near ±1.8e308 whose sum is infinite, or many
    squared distances near the limit) the column is computed from its deviations from its first value instead; the
    third array marks those columns.

    The deviations span no more than the column does, at most √(largest float64) (see
    ``NumericTable.require_representable``), so neither they nor their mean overflow, and a constant column gets
    its value as its mean and a variance of exactly 0. (Scaling the values alone would keep the rounding of their
    mean, about 1e292 near the largest float, whose square overflows.) Their squares can still add up past the
    largest float, so they are scaled by a power of two first, which loses nothing."""
    with np.errstate(over="ignore", invalid="ignore"):
        means, variances = np.mean(rows, axis=0), np.var(rows, axis=0)
    rescaled = ~(np.isfinite(means) & np.isfinite(variances))
    for j in np.flatnonzero(rescaled):
        column = rows[:, j]
        origin = column[0]
        deviations = column - origin
        # The mean lies between the extremes; rounding must not push it past them (nor past the largest float).
        means[j] = np.clip(origin + np.mean(deviations), column.min(), column.max())
        exponent = math.frexp(float(np.max(np.abs(deviations))))[1]  # every |deviation| < 2**exponent
        with np.errstate(over="ignore"):
            variances[j] = np.ldexp(np.var(np.ldexp(deviations, -exponent)), 2 * exponent)
    return means, variances, rescaled


def _squared_distances(x, means, variances):
    """(x − μ)²/σ² for σ² > 0, in scikit-learn's order; where that overflows although the ratio may not (a typed
    value far from a huge-variance bell), from ((x/2 − μ/2)/σ)² × 4. Never NaN: +∞ at worst."""
    with np.errstate(over="ignore"):
        squared = (x - means) ** 2 / variances
        overflowed = np.isinf(squared)
        if np.any(overflowed):
            half = (np.multiply(x, 0.5) - np.multiply(means, 0.5)) / np.sqrt(variances)
            squared = np.where(overflowed, 4.0 * half * half, squared)
    return squared


def _log_2pi_variances(variances):
    """log(2πσ²) as scikit-learn computes it, or log 2π + log σ² where 2πσ² overflows (σ² above 2.8e307)."""
    with np.errstate(over="ignore"):
        logs = np.log(2.0 * np.pi * variances)
    overflowed = np.isinf(logs) & np.isfinite(variances) & (variances > 0)
    if np.any(overflowed):
        logs = np.where(overflowed, LOG_2PI + np.log(np.where(overflowed, variances, 1.0)), logs)
    return logs


# --- the step-by-step explanation of one prediction ---------------------------------------------------------


@dataclass(frozen=True)
class FeatureTerm:
    """One feature under one class: the bell's parameters, the density the textbook formula gives in floats,
    and the log-density computed directly."""

    feature: str
    value: float
    mean: float
    variance: float  # smoothed
    raw_variance: float  # before ε
    sd: float
    z: float | None  # (x − μ)/σ; None when σ = 0
    squared_term: float | None  # (x − μ)²/(2σ²); None when σ = 0
    log_normaliser: float | None  # log(σ√(2π)); None when σ = 0
    density: float  # exp(−(x−μ)²/(2σ²)) / (σ√(2π)) in float64: 0.0 after underflow; 0 or +∞ when σ = 0
    naive_log: float  # log(density): −∞ once the density has underflowed
    log_density: float  # computed in log space; −∞/+∞ only when σ = 0

    @property
    def underflowed(self) -> bool:
        """The density is 0.0 in floats although its log is an ordinary number."""
        return self.density == 0.0 and math.isfinite(self.log_density)

    @property
    def zero_width(self) -> bool:
        return self.variance == 0.0


@dataclass(frozen=True)
class ClassTerms:
    label: str
    prior: float
    exact_prior: Fraction
    log_prior: float
    terms: tuple[FeatureTerm, ...]
    product: float  # prior × Π densities, multiplied left to right in float64
    naive_log_joint: float  # log prior + Σ log(density): what taking logs too late gives
    log_joint: float  # log prior + Σ log-densities
    naive_posterior: float | None  # product / Σ products; None when every product is 0 (0/0)
    posterior: float  # from log-sum-exp; 0.0 where the model cannot decide
    shifted: float | None  # log_joint − max log_joint (≤ 0), the exponent log-sum-exp takes; None for +∞


@dataclass(frozen=True)
class GaussianExplanation:
    """Bayes' rule for one row, twice: in plain floats as the textbook formula reads, and in log space. What
    ``explain`` returns.

    Parameters
    ----------
    values : tuple of float
        The row.
    classes : tuple of ClassTerms
        Per class: the prior, each feature's bell and density, the product in float64, the log joint and the
        posterior.
    evidence : float
        Σ_k of the products in float64: 0.0 once every product has underflowed.
    naive_decision : str or None
        The decision of the plain floats; None when every product is 0.0.
    naive_warnings : tuple of str
        What numpy said while taking logs of the densities.
    shift : float or None
        The largest finite log joint, the log-sum-exp shift.
    log_evidence : float or None
        log P(x).
    decision : str or None
        The decision in log space; None only with a zero variance.
    decidable : bool
        Whether some class is possible.
    epsilon, var_smoothing : float
        The model's.

    Attributes
    ----------
    underflows : tuple of (str, FeatureTerm)
        Every density that underflowed to 0.0 although its log is finite.
    product_underflow : bool
        Whether every product is 0.0, so that Bayes' rule in plain floats has nothing to divide.
    """
    values: tuple[float, ...]
    classes: tuple[ClassTerms, ...]
    evidence: float  # Σ products in float64
    naive_decision: str | None  # None: every product is 0.0, so the floats cannot decide
    naive_warnings: tuple[str, ...]  # what numpy said while taking logs of the densities
    shift: float | None  # max log joint, the log-sum-exp shift (None when no class is finite)
    log_evidence: float | None
    decision: str | None  # None: cannot decide, even in log space (only with a zero variance)
    decidable: bool
    epsilon: float
    var_smoothing: float

    @property
    def underflows(self) -> tuple[tuple[str, FeatureTerm], ...]:
        """(class, term) for every density that underflowed to 0.0 although its log is finite."""
        return tuple((c.label, t) for c in self.classes for t in c.terms if t.underflowed)

    @property
    def zero_widths(self) -> tuple[tuple[str, FeatureTerm], ...]:
        return tuple((c.label, t) for c in self.classes for t in c.terms if t.zero_width)

    @property
    def product_underflow(self) -> bool:
        """Every class's product is 0.0 in floats: Bayes' rule in plain floats has nothing to divide."""
        return self.evidence == 0.0

    def to_dict(self) -> dict:
        from webnb.engine.shared.plain import number

        return {
            "values": list(self.values),
            "var_smoothing": self.var_smoothing,
            "epsilon": self.epsilon,
            "classes": [
                {
                    "class": c.label,
                    "prior": c.prior,
                    "log_prior": number(c.log_prior),
                    "features": [
                        {
                            "feature": t.feature, "value": t.value, "mean": t.mean, "variance": t.variance,
                            "sd": t.sd, "density": number(t.density), "naive_log": number(t.naive_log),
                            "log_density": number(t.log_density), "underflowed": t.underflowed,
                        }
                        for t in c.terms
                    ],
                    "product": number(c.product),
                    "naive_log_joint": number(c.naive_log_joint),
                    "log_joint": number(c.log_joint),
                    "naive_posterior": c.naive_posterior,
                    "posterior": c.posterior,
                }
                for c in self.classes
            ],
            "evidence": number(self.evidence),
            "naive_decision": self.naive_decision,
            "naive_warnings": list(self.naive_warnings),
            "log_evidence": number(self.log_evidence) if self.log_evidence is not None else None,
            "decision": self.decision,
        }


def explain(model: GaussianNB, values) -> GaussianExplanation:
    r"""Bayes' rule for one row of ``values``, twice: in plain floats as the textbook formula reads (and as it
    fails), then in log space. Warnings numpy raises on the way are kept as text, never emitted.

    Parameters
    ----------
    model : GaussianNB
        A fitted model.
    values : array-like of shape (n_features,)
        One finite number per feature.

    Returns
    -------
    GaussianExplanation
        Every term of both computations, class by class.

    Raises
    ------
    CorpusError
        If ``values`` is not one finite number per feature.

    Examples
    --------
    >>> from webnb.engine.gaussian.table import HEIGHT_WEIGHT_CSV, read_numeric_csv
    >>> table = read_numeric_csv(HEIGHT_WEIGHT_CSV)
    >>> model = GaussianStatistics.fit(table).model()
    >>> step = explain(model, [6.0, 130])
    >>> step.decision, [round(c.posterior, 6) for c in step.classes]
    ('female', [0.999775, 0.000225])

    A height of 60 lies about 200 standard deviations from every mean: each density underflows to 0.0, the
    plain product cannot decide, and log space still can.

    >>> step = explain(model, [60.0, 130])
    >>> step.product_underflow, step.naive_decision, step.decision
    (True, None, 'female')
    >>> step.naive_warnings
    ('RuntimeWarning: divide by zero encountered in log',)
    """
    x = np.asarray(values, dtype=np.float64)
    if x.shape != (len(model.features),) or not np.all(np.isfinite(x)):
        raise CorpusError(f"give {len(model.features)} finite numbers, one per feature")
    warnings: list[str] = []

    def heard(kind: str, flag: int) -> None:
        message = f"RuntimeWarning: {kind} encountered in log"
        if message not in warnings:
            warnings.append(message)

    log_densities = model.feature_log_densities(x)
    jll = model.joint_log_likelihood(x[None, :])[0]
    log_posterior, decidable = normalise_log_joint(jll[None, :])
    log_posterior, decidable = log_posterior[0], bool(decidable[0])
    finite = jll[np.isfinite(jll)]
    shift = float(finite.max()) if len(finite) else None
    if np.any(jll == np.inf):
        shift = None
    log_evidence = float(shift + np.log(np.exp(finite - shift).sum())) if shift is not None else None

    per_class, products = [], []
    for k, label in enumerate(model.classes):
        terms = []
        product = float(model.class_prior_[k])
        naive_log_joint = float(model.class_log_prior_[k])
        for j, feature in enumerate(model.features):
            mean, variance = float(model.means[k, j]), float(model.smoothed_variances[k, j])
            if variance > 0:
                sd = math.sqrt(variance)
                squared = float(_squared_distances(x[j], mean, variance)) / 2
                normaliser = sd * math.sqrt(2 * math.pi)
                density = math.exp(-squared) / normaliser
                z, log_normaliser = _standardised(float(x[j]), mean, sd), math.log(normaliser)
            else:
                sd, squared, log_normaliser, z = 0.0, None, None, None
                density = math.inf if x[j] == mean else 0.0
            with np.errstate(divide="call", call=heard):
                naive_log = float(np.log(np.float64(density)))
            terms.append(FeatureTerm(feature, float(x[j]), mean, variance, float(model.statistics.variances[k, j]),
                                     sd, z, squared, log_normaliser, density, naive_log,
                                     float(log_densities[k, j])))
            # 0 × ∞ has no value in floats: a density of 0 (a miss, or an underflow) wins over an infinite product
            # (a zero-width hit, or densities above 1 multiplied past the largest float), so never NaN.
            product = 0.0 if 0.0 in (product, density) else product * density
            naive_log_joint = _extended_sum(naive_log_joint, naive_log)
        products.append(product)
        per_class.append((label, k, tuple(terms), product, naive_log_joint))
    evidence = float(sum(products))
    naive_ok = evidence > 0.0 and math.isfinite(evidence)
    classes = tuple(
        ClassTerms(
            label=label,
            prior=float(model.class_prior_[k]),
            exact_prior=model.class_prior_exact[k],
            log_prior=float(model.class_log_prior_[k]),
            terms=terms,
            product=product,
            naive_log_joint=naive_log_joint,
            log_joint=float(jll[k]),
            naive_posterior=product / evidence if naive_ok else None,
            posterior=float(np.exp(log_posterior[k])) if decidable else 0.0,
            shifted=_shifted(float(jll[k]), shift),
        )
        for label, k, terms, product, naive_log_joint in per_class
    )
    naive_decision = model.classes[int(np.argmax(products))] if naive_ok else None
    return GaussianExplanation(
        values=tuple(float(v) for v in x),
        classes=classes,
        evidence=evidence,
        naive_decision=naive_decision,
        naive_warnings=tuple(warnings),
        shift=shift,
        log_evidence=log_evidence,
        decision=model.classes[int(np.argmax(jll))] if decidable else None,
        decidable=decidable,
        epsilon=model.epsilon,
        var_smoothing=model.var_smoothing,
    )


def _standardised(value: float, mean: float, sd: float) -> float:
    """(x − μ)/σ, halving first where x − μ itself overflows (a typed ±1e308 against a mean of the other sign)."""
    difference = value - mean
    if math.isinf(difference):
        return 2.0 * ((value / 2 - mean / 2) / sd)
    return difference / sd


def _extended_sum(total: float, term: float) -> float:
    """total + term, where −∞ (impossible) wins over +∞ (a zero-width hit), as in ``joint_log_likelihood``."""
    if total == -math.inf or term == -math.inf:
        return -math.inf
    return total + term


def _shifted(log_joint: float, shift: float | None) -> float | None:
    if log_joint == -math.inf:
        return -math.inf
    if shift is None or not math.isfinite(log_joint):
        return None
    return log_joint - shift
