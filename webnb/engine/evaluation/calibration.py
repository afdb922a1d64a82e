"""Calibration: whether a model's confidence matches how often it is right.

A model is calibrated when, of the documents it classifies with confidence about 0.8, about 80 % are right. Naive
Bayes multiplies one factor per word as if the words were independent, so a long document piles up evidence that
is partly the same evidence counted again, and its posterior runs to 0.99 and beyond more often than it is right.

The reliability diagram groups the test documents by the confidence of their decision (the posterior of the class
chosen) into equal-width bins, and sets each bin's accuracy against its mean confidence; the expected calibration
error (ECE) is the mean gap, each bin weighted by its share of the documents:

    ECE = Σ_b (n_b / N) · |accuracy_b − confidence_b|
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from webnb.engine.shared.numbers import whole_number

HIGH_CONFIDENCE = 0.99


@dataclass(frozen=True)
class CalibrationBin:
    """The documents whose confidence lies in (lower, upper] (the first bin also holds ``lower`` itself).

    Parameters
    ----------
    lower, upper : float
        The bin's bounds.
    count : int
        Documents in the bin.
    mean_confidence, accuracy : float or None
        Their mean confidence and the share of them classified right; None for an empty bin.
    """

    lower: float
    upper: float
    count: int
    mean_confidence: float | None
    accuracy: float | None

    @property
    def gap(self) -> float | None:
        """accuracy − mean confidence: negative where the model is overconfident."""
        return None if self.count == 0 else self.accuracy - self.mean_confidence


@dataclass(frozen=True)
class LengthGroup:
    """Documents whose length (words counted in the vocabulary) lies in [shortest, longest].

    Parameters
    ----------
    shortest, longest : int
        The group's lengths.
    count : int
        Documents in the group.
    mean_confidence, accuracy : float
        Their mean confidence and the share of them classified right.
    high_confidence_share : float
        The share of them decided with confidence above ``HIGH_CONFIDENCE``.
    """

    shortest: int
    longest: int
    count: int
    mean_confidence: float
    accuracy: float
    high_confidence_share: float


@dataclass(frozen=True)
class Calibration:
    """A reliability diagram and what it sums up to.

    Parameters
    ----------
    bins : tuple of CalibrationBin
        Equal-width bins of confidence over [0, 1].
    decided : int
        Documents with a decision (the others, which no class can explain at α = 0, have no confidence).
    undecided : int
        Documents without one.
    expected_calibration_error : float or None
        Σ_b (n_b / N) · |accuracy_b − confidence_b| over the decided documents; None when there are none.
    high_confidence : int
        Decided documents with confidence above ``threshold``.
    high_confidence_accuracy : float or None
        The share of those classified right; None when there are none.
    threshold : float
        The confidence counted as high (0.99).
    """

    bins: tuple[CalibrationBin, ...]
    decided: int
    undecided: int
    expected_calibration_error: float | None
    high_confidence: int
    high_confidence_accuracy: float | None
    threshold: float

    @property
    def high_confidence_share(self) -> float | None:
        """The share of the decided documents decided with confidence above ``threshold``."""
        return None if self.decided == 0 else self.high_confidence / self.decided


def calibration(confidence, correct, *, n_bins: int = 10, threshold: float = HIGH_CONFIDENCE) -> Calibration:
    """The reliability diagram of decisions made with ``confidence`` that were ``correct``.

    Parameters
    ----------
    confidence : array-like of float, shape (n_documents,)
        The posterior of the class chosen for each document, in [0, 1]; NaN where no class was chosen.
    correct : array-like of bool, shape (n_documents,)
        Whether each document's class was the right one (False where none was chosen).
    n_bins : int, default 10
        Equal-width bins over [0, 1].
    threshold : float, default 0.99
        The confidence counted as high.

    Returns
    -------
    Calibration

    Raises
    ------
    ValueError
        If the arrays differ in length, a confidence lies outside [0, 1], or ``n_bins`` is below 1.

    Examples
    --------
    Four decisions at 0.95 of which two are right, and one at 0.6 that is right:

    >>> result = calibration([0.95, 0.95, 0.95, 0.95, 0.6], [True, True, False, False, True], n_bins=5)
    >>> [(b.count, b.mean_confidence, b.accuracy) for b in result.bins if b.count]
    [(1, 0.6, 1.0), (4, 0.95, 0.5)]
    >>> round(result.expected_calibration_error, 6)  # (1/5)·|1 − 0.6| + (4/5)·|0.5 − 0.95|
    0.44
    """
    confidence = np.asarray(confidence, dtype=float)
    correct = np.asarray(correct, dtype=bool)
    if confidence.shape != correct.shape or confidence.ndim != 1:
        raise ValueError("confidence and correct must be two lists of the same length, one value per document")
    whole_number(n_bins, "n_bins", least=1)
    decided = ~np.isnan(confidence)
    if ((confidence[decided] < 0) | (confidence[decided] > 1)).any():
        raise ValueError("a confidence is a probability: between 0 and 1")
    values, right = confidence[decided], correct[decided]
    # Bin b holds (b/n, (b+1)/n]; 0 itself goes to the first bin.
    index = np.clip(np.ceil(values * n_bins).astype(np.int64) - 1, 0, n_bins - 1)
    bins = []
    for b in range(n_bins):
        members = index == b
        count = int(members.sum())
        bins.append(CalibrationBin(
            lower=b / n_bins,
            upper=(b + 1) / n_bins,
            count=count,
            mean_confidence=math.fsum(values[members].tolist()) / count if count else None,
            accuracy=int(right[members].sum()) / count if count else None,
        ))
    n = len(values)
    ece = None
    if n:
        ece = math.fsum(b.count / n * abs(b.accuracy - b.mean_confidence) for b in bins if b.count)
    high = values > threshold
    n_high = int(high.sum())
    return Calibration(
        bins=tuple(bins),
        decided=n,
        undecided=int((~decided).sum()),
        expected_calibration_error=ece,
        high_confidence=n_high,
        high_confidence_accuracy=int(right[high].sum()) / n_high if n_high else None,
        threshold=threshold,
    )


def by_length(confidence, correct, lengths, *, n_groups: int = 5,
              threshold: float = HIGH_CONFIDENCE) -> tuple[LengthGroup, ...]:
    """Confidence and accuracy of the decided documents grouped by length, in groups of about equal size (shortest
    first): the longer the document, the more factors, the more confident Naive Bayes.

    Parameters
    ----------
    confidence, correct
        As in ``calibration``.
    lengths : array-like of int, shape (n_documents,)
        Each document's length.
    n_groups : int, default 5
        How many groups; fewer when there are fewer documents.
    threshold : float, default 0.99
        The confidence counted as high.

    Returns
    -------
    tuple of LengthGroup

    Raises
    ------
    ValueError
        If the arrays differ in length or ``n_groups`` is below 1.

    Examples
    --------
    >>> groups = by_length([0.5, 0.7, 0.999, 1.0], [True, False, True, False], [3, 5, 40, 90], n_groups=2)
    >>> [(g.shortest, g.longest, g.mean_confidence, g.accuracy, g.high_confidence_share) for g in groups]
    [(3, 5, 0.6, 0.5, 0.0), (40, 90, 0.9995, 0.5, 1.0)]
    """
    confidence = np.asarray(confidence, dtype=float)
    correct = np.asarray(correct, dtype=bool)
    lengths = np.asarray(lengths, dtype=np.int64)
    if not (confidence.shape == correct.shape == lengths.shape) or confidence.ndim != 1:
        raise ValueError("confidence, correct and lengths must be lists of the same length, one value per document")
    whole_number(n_groups, "n_groups", least=1)
    decided = ~np.isnan(confidence)
    values, right, sizes = confidence[decided], correct[decided], lengths[decided]
    order = np.argsort(sizes, kind="stable")
    groups = []
    for part in np.array_split(order, min(n_groups, len(order))) if len(order) else ():
        part_values = values[part]
        groups.append(LengthGroup(
            shortest=int(sizes[part].min()),
            longest=int(sizes[part].max()),
            count=len(part),
            mean_confidence=math.fsum(part_values.tolist()) / len(part),
            accuracy=int(right[part].sum()) / len(part),
            high_confidence_share=int((part_values > threshold).sum()) / len(part),
        ))
    return tuple(groups)
