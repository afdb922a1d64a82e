"""The class index and the class priors, owned once for texts and tables.

Class k is ``classes[k]`` in every array a model holds: row k of its parameter tables, column k of its scores. The
labels are turned into those numbers here, and the priors φ_k (learned from the class counts, uniform, or given on
the text side) are computed here, exactly as fractions and in float64.

Each model takes its log priors the way its scikit-learn counterpart does, so that they agree to the last bit:
BernoulliNB and MultinomialNB subtract logarithms of counts (log n_k − log n, and −log K for the uniform prior),
GaussianNB takes the logarithm of the prior itself (log(n_k / n), log(1/K)). The two can differ in the last place.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from webnb.engine.shared.corpus import CorpusError

PRIOR_MODES = ("learned", "uniform", "given")
LOG_OF = ("counts", "prior")  # how the log priors are taken: see the module's docstring


def class_numbers(classes, labels, what: str = "The test documents") -> np.ndarray:
    """The class number of each of ``labels`` (a sequence), shape (len(labels),), int64: ``classes[k]`` is label
    k. A label that is not one of ``classes`` is refused with a CorpusError naming it (``what`` names the items
    the labels belong to)."""
    return _numbers(classes, labels, what, {})


def decided_numbers(classes, predictions) -> np.ndarray:
    """The class number of each predicted class, and −1 where the model could not decide (a prediction of None)."""
    return _numbers(classes, predictions, "The predictions", {None: -1})


def _numbers(classes, labels, what: str, extra: dict) -> np.ndarray:
    number_of = {label: k for k, label in enumerate(classes)} | extra
    try:
        return np.fromiter((number_of[label] for label in labels), dtype=np.int64, count=len(labels))
    except KeyError:
        unknown = sorted(set(labels) - set(number_of))
        raise CorpusError(
            f"{what} have classes the model never saw in training: {', '.join(map(repr, unknown))}."
        ) from None


def checked_class_numbers(class_index, n_items: int, n_classes: int) -> np.ndarray:
    """``class_index`` as int64 when it holds one class number in 0 … n_classes − 1 per item; refused with a
    ValueError saying what is wrong otherwise."""
    numbers = np.asarray(class_index)
    if numbers.ndim != 1 or len(numbers) != n_items:
        raise ValueError(f"give one class number per document: {n_items} documents, {numbers.size} class numbers")
    if numbers.size and numbers.dtype.kind not in "iu":
        raise ValueError("class numbers must be whole numbers (0 for the first class, 1 for the next, …)")
    if numbers.size and (numbers.min() < 0 or numbers.max() >= n_classes):
        raise ValueError(f"class numbers must be between 0 and {n_classes - 1} (one per class)")
    return numbers.astype(np.int64, copy=False)


def class_counts(class_index: np.ndarray, n_classes: int) -> np.ndarray:
    """n_k, how many items each class has, shape (n_classes,), int64."""
    return np.bincount(class_index, minlength=n_classes).astype(np.int64)


@dataclass(frozen=True, eq=False)
class ClassPriors:
    """φ_k for every class: ``mode`` says where they come from ("learned", "uniform" or "given"); ``exact`` as
    fractions, ``prior`` and ``log_prior`` in float64, each of shape (n_classes,)."""

    mode: str
    exact: tuple[Fraction, ...]
    prior: np.ndarray
    log_prior: np.ndarray


def class_priors(class_count, mode: str = "learned", given=None, *, log_of: str = "counts") -> ClassPriors:
    """The priors for classes with ``class_count`` items each: learned (n_k / n), uniform (1/K), or ``given``
    (exact fractions, already checked by the caller, in class order). ``log_of`` is "counts" for the log priors of
    the text models and "prior" for Gaussian NB's (see the module's docstring). A prior of 0 has log −∞."""
    if mode not in PRIOR_MODES:
        raise ValueError(f"the prior is one of {', '.join(PRIOR_MODES)}, not {mode!r}")
    if log_of not in LOG_OF:
        raise ValueError(f"log_of is one of {', '.join(LOG_OF)}, not {log_of!r}")
    if (given is not None) != (mode == "given"):
        raise ValueError("give the priors exactly when the prior is 'given'")
    counts = np.asarray(class_count)
    n_classes = len(counts)
    with np.errstate(divide="ignore"):
        if mode == "given":
            exact = tuple(given)
            prior = np.array([p.numerator / p.denominator for p in exact])
            return ClassPriors(mode, exact, prior, np.log(prior))
        if mode == "uniform":
            exact = tuple(Fraction(1, n_classes) for _ in range(n_classes))
            prior = np.full(n_classes, 1.0 / n_classes)
            log_prior = np.full(n_classes, -np.log(n_classes)) if log_of == "counts" else np.log(prior)
            return ClassPriors(mode, exact, prior, log_prior)
        total = int(counts.sum())
        exact = tuple(Fraction(int(c), total) for c in counts)
        prior = counts / total
        log_prior = np.log(counts) - np.log(total) if log_of == "counts" else np.log(prior)
        return ClassPriors(mode, exact, prior, log_prior)
