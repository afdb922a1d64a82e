"""How good is a model: accuracy, confusion matrix and per-class precision, recall and F1.

Documents that the model cannot decide (every class at probability 0, possible with α = 0) are counted
on their own: they are not correct, they appear in no column of the confusion matrix, and they count
against recall. They are never quietly assigned to the first class.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from webnb.engine.shared.classes import class_numbers
from webnb.engine.shared.corpus import CorpusError
from webnb.engine.shared.plain import number
from webnb.engine.text.models import NaiveBayes, normalise_log_joint
from webnb.engine.text.statistics import count_matrix

if TYPE_CHECKING:
    from webnb.engine.text.discriminative import SoftmaxRegression


def stratified_split(labels, test_size: float = 0.25, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Indices (train, test), each sorted, with every class split in the same proportion.

    Each class keeps at least one training document; a class of n documents puts round(n · test_size)
    of them in the test set. The same seed always gives the same split.

    Parameters
    ----------
    labels : sequence of str
        The class of each document.
    test_size : float, default 0.25
        The share of each class held out, strictly between 0 and 1.
    seed : int, default 0
        The seed of ``numpy.random.default_rng``, which shuffles each class (in sorted class order).

    Returns
    -------
    train, test : numpy.ndarray of int
        Positions in ``labels``, each sorted; together they are every position once.

    Raises
    ------
    ValueError
        If ``test_size`` is not strictly between 0 and 1.
    CorpusError
        If the test set would be empty (every class too small to give up a document at this size).

    Examples
    --------
    >>> labels = ["spam"] * 4 + ["ham"] * 8
    >>> train, test = stratified_split(labels, test_size=0.25, seed=0)
    >>> test.tolist(), [labels[i] for i in test]  # one spam of 4, two ham of 8
    ([1, 6, 8], ['spam', 'ham', 'ham'])
    >>> len(train)
    9
    """
    if not 0.0 < test_size < 1.0:
        raise ValueError(f"test size must be a fraction between 0 and 1, not {test_size}")
    labels = np.asarray(labels)
    rng = np.random.default_rng(seed)
    test_parts = []
    for label in sorted(set(labels.tolist())):
        members = np.flatnonzero(labels == label)
        n_test = min(int(round(len(members) * test_size)), len(members) - 1)
        test_parts.append(rng.permutation(members)[:n_test])
    test = np.sort(np.concatenate(test_parts)) if test_parts else np.array([], dtype=np.int64)
    if len(test) == 0:
        raise CorpusError(
            "The test set would be empty: every class is too small to give up a document at this test size. "
            "Hold out a larger share, or test on the training documents."
        )
    train = np.setdiff1d(np.arange(len(labels)), test)
    return train, test


@dataclass(frozen=True)
class ClassScores:
    label: str
    support: int  # test documents of this class
    predicted: int  # test documents predicted as this class
    correct: int
    precision: float | None  # None when nothing was predicted as this class
    recall: float | None  # None when the class has no test documents
    f1: float | None


# Below this many test documents an accuracy says little: the pages say so and give its interval.
FEW_TEST_DOCUMENTS = 30
# The normal quantile of a two-sided 95 % interval, Φ⁻¹(0.975).
Z_95 = 1.959963984540054


def wilson_interval(correct: int, n: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval for an accuracy of ``correct`` out of ``n`` (95 % by default): the proportions p
    for which ``correct`` is within z standard errors of n·p. Unlike p̂ ± z·√(p̂(1 − p̂)/n) it stays inside [0, 1]
    and is not a single point at 0 of n or n of n, which is what a small test set needs."""
    if n <= 0:
        raise ValueError("An interval needs at least one test document.")
    p = correct / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    # Exactly 0 of n (n of n) has its interval start (end) exactly at 0 (1), not a rounding error away.
    low = 0.0 if correct == 0 else max(0.0, centre - half)
    high = 1.0 if correct == n else min(1.0, centre + half)
    return low, high


@dataclass(frozen=True)
class Evaluation:
    """The scores of a model on test documents: what ``evaluate`` returns.

    Documents that the model cannot decide (every class at probability 0, possible with α = 0) are counted on
    their own: not correct, in no column of the confusion matrix, and against recall.

    Parameters
    ----------
    classes : tuple of str
        The model's classes.
    n_test : int
        Test documents.
    correct : int
        Those predicted right.
    accuracy : float
        correct / n_test; undecidable documents count as not correct.
    undecidable : int
        Documents no class could claim.
    undecidable_by_class : tuple of int
        The undecidable ones per true class.
    confusion : tuple of tuple of int
        ``confusion[true][predicted]``, decided documents only.
    per_class : tuple of ClassScores
        Support, precision, recall and F1 per class (None where undefined).
    predictions : tuple of str or None
        The predicted class per test document; None where undecidable.
    log_loss : float or None
        Mean −log P(true class | x): +inf as soon as one document gives its true class probability 0; None for a
        model whose scores are not probabilities (Complement Naive Bayes).
    infinite_loss_documents : int or None
        Documents whose true class has probability 0 (None as for ``log_loss``).
    confidence : tuple of float (or of None)
        P(predicted class | x) per test document; 0.0 where undecidable; None for each document of a model whose
        scores are not probabilities.

    Attributes
    ----------
    decided_accuracy : float or None
        The accuracy on the documents the model can decide.
    mean_confidence : float or None
        The mean ``confidence`` of the decided documents.
    accuracy_interval : (float, float) or None
        The accuracy's Wilson 95 % interval.
    few_test_documents : bool
        Fewer than ``FEW_TEST_DOCUMENTS`` (30): the accuracy says little.
    """
    classes: tuple[str, ...]
    n_test: int
    correct: int
    accuracy: float  # correct / n_test; undecidable documents count as not correct
    undecidable: int
    undecidable_by_class: tuple[int, ...]
    confusion: tuple[tuple[int, ...], ...]  # confusion[true][predicted], decided documents only
    per_class: tuple[ClassScores, ...]
    predictions: tuple[str | None, ...]
    # mean −log P(true class | x) over the test documents: +inf as soon as one gives its class probability 0
    log_loss: float | None = float("nan")
    infinite_loss_documents: int | None = 0
    # P(predicted class | x) per test document (0.0 where the model cannot decide): how sure it was; None each for a
    # model whose scores are not probabilities
    confidence: tuple[float | None, ...] = ()

    @property
    def mean_confidence(self) -> float | None:
        decided = [c for c, p in zip(self.confidence, self.predictions, strict=False)
                   if p is not None and c is not None]
        return sum(decided) / len(decided) if decided else None

    @property
    def decided_accuracy(self) -> float | None:
        decided = self.n_test - self.undecidable
        return self.correct / decided if decided else None

    @property
    def accuracy_interval(self) -> tuple[float, float] | None:
        """The accuracy's Wilson 95 % interval (None without test documents)."""
        return wilson_interval(self.correct, self.n_test) if self.n_test else None

    @property
    def few_test_documents(self) -> bool:
        """Fewer than ``FEW_TEST_DOCUMENTS``: the pages say the accuracy says little, and show its interval."""
        return self.n_test < FEW_TEST_DOCUMENTS

    def to_dict(self) -> dict:
        interval = self.accuracy_interval
        return {
            "n_test": self.n_test,
            "accuracy": self.accuracy,
            "accuracy_interval": None if interval is None else list(interval),
            "few_test_documents": self.few_test_documents,
            "correct": self.correct,
            "undecidable": self.undecidable,
            "classes": list(self.classes),
            "confusion": [list(row) for row in self.confusion],
            "undecidable_by_class": list(self.undecidable_by_class),
            "per_class": [
                {
                    "class": s.label,
                    "support": s.support,
                    "precision": s.precision,
                    "recall": s.recall,
                    "f1": s.f1,
                }
                for s in self.per_class
            ],
            "log_loss": number(self.log_loss),
            "infinite_loss_documents": self.infinite_loss_documents,
            "mean_confidence": self.mean_confidence,
        }


@dataclass(frozen=True)
class Score:
    """A model trained on a held-out set's training part and scored on its test part: text and tables alike.

    Parameters
    ----------
    held : HeldOut or GaussianSplit
        Has ``training`` and ``test`` (``test.labels`` the true classes), and ``positions`` of the test items.
    model : NaiveBayes or GaussianNB
        The model scored.
    result : Evaluation
        The scores.

    Attributes
    ----------
    wrong : tuple of int
        Numbers of the test items the model got wrong, those it cannot decide included.
    """

    held: object
    model: object
    result: Evaluation

    @cached_property
    def wrong(self) -> tuple[int, ...]:
        """Numbers of the test items the model got wrong, those it cannot decide included."""
        pairs = zip(self.result.predictions, self.held.test.labels, strict=True)
        return tuple(i for i, (predicted, true) in enumerate(pairs) if predicted != true)

    def to_dict(self) -> dict:
        """The model, the test documents (``held.to_dict()``) and every score, with the accuracy on the
        documents the model can decide."""
        return {
            "model": self.model.to_dict(),
            "test": self.held.to_dict(),
            **self.result.to_dict(),
            "decided_accuracy": self.result.decided_accuracy,
        }


def true_class_numbers(classes: tuple[str, ...], labels, n_documents: int) -> np.ndarray:
    """The class number of each test label, refusing a label count that does not match the documents
    and classes the model never saw."""
    labels = list(labels)
    if n_documents != len(labels):
        raise CorpusError(
            f"The test matrix has {n_documents} documents but {len(labels)} labels were given: "
            "give one label per document."
        )
    return class_numbers(classes, labels)


def _unnormalised_log_posterior(model, matrix) -> np.ndarray:
    """Per document and class, log P(k | x) up to a constant per document: Naive Bayes' joint log-likelihood,
    or a discriminative model's logits (both normalise to the posterior by log-sum-exp)."""
    if hasattr(model, "joint_log_likelihood"):
        return model.joint_log_likelihood(matrix)
    return model.decision_function(matrix)


def evaluate(model: "NaiveBayes | SoftmaxRegression", matrix: sp.csr_matrix, labels) -> Evaluation:
    """Score ``model`` on the documents of ``matrix`` (counts) whose true classes are ``labels``.

    Of classes tied exactly, the first is predicted (Naive Bayes compares near ties exactly: see
    ``NaiveBayes.joint_log_likelihood``).

    Parameters
    ----------
    model : NaiveBayes, SoftmaxRegression or GaussianNB
        A fitted model.
    matrix : scipy.sparse matrix or array-like of shape (n_documents, n_words)
        Counts over the model's vocabulary (``TrainingSet.transform``); for Gaussian NB, rows of numbers of shape
        (n_rows, n_features).
    labels : sequence of str
        The true class of each document.

    Returns
    -------
    Evaluation
        Accuracy, confusion matrix, precision, recall and F1 per class, log loss and each prediction.

    Raises
    ------
    ValueError
        If ``matrix`` is not one of whole, non-negative counts over the model's vocabulary.
    CorpusError
        If the number of labels differs from the number of documents, or a label is not one of the model's classes.

    Examples
    --------
    >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
    >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
    >>> X = training.transform(["Chinese Chinese Chinese Tokyo Japan", "Tokyo Japan", "Beijing Shanghai"])
    >>> result = evaluate(training.model("multinomial", 1), X, ["China", "Japan", "China"])
    >>> result.accuracy, result.predictions, result.confusion
    (1.0, ('China', 'Japan', 'China'), ((2, 0), (0, 1)))
    >>> round(result.log_loss, 6), [round(c, 6) for c in result.confidence]
    (0.275031, [0.689759, 0.763389, 0.832192])

    With α = 0 the first document is Japan for certain, so its true class has probability 0 and the log loss is
    infinite; the Bernoulli model cannot decide two of the three at all.

    >>> result = evaluate(training.model("multinomial", 0), X, ["China", "Japan", "China"])
    >>> result.correct, result.log_loss
    (2, inf)
    >>> result = evaluate(training.model("bernoulli", 0), X, ["China", "Japan", "China"])
    >>> result.predictions, result.undecidable, result.accuracy
    (('Japan', None, None), 2, 0.0)
    """
    classes = model.classes
    if hasattr(model, "n_words") or hasattr(model, "vocabulary"):
        # Word counts (Naive Bayes, logistic regression); Gaussian NB is scored on rows of real numbers.
        n_words = model.n_words if hasattr(model, "n_words") else len(model.vocabulary)
        matrix = count_matrix(matrix, n_words, "the test matrix")
    true = true_class_numbers(classes, labels, matrix.shape[0])
    jll = _unnormalised_log_posterior(model, matrix)
    log_posterior, decidable = normalise_log_joint(jll)
    predicted = jll.argmax(axis=1)  # the first of equal scores
    predicted[~decidable] = -1
    rows = np.arange(len(true))
    losses = -log_posterior[rows, true]  # +inf where the true class has probability 0; never NaN
    confidence = np.where(decidable, np.exp(log_posterior.max(axis=1)), 0.0)
    # Scores that are not probabilities (Complement Naive Bayes) give no log loss and no confidence.
    probabilities = getattr(model, "gives_probabilities", True)
    n_classes = len(classes)
    decided = predicted >= 0
    confusion = np.zeros((n_classes, n_classes), dtype=np.int64)
    np.add.at(confusion, (true[decided], predicted[decided]), 1)
    undecidable_by_class = np.bincount(true[~decided], minlength=n_classes)
    correct = int(np.trace(confusion))
    per_class = []
    for k, label in enumerate(classes):
        support = int((true == k).sum())
        predicted_k = int(confusion[:, k].sum())
        hits = int(confusion[k, k])
        precision = hits / predicted_k if predicted_k else None
        recall = hits / support if support else None
        if precision is None or recall is None:
            f1 = None
        else:
            f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        per_class.append(ClassScores(label, support, predicted_k, hits, precision, recall, f1))
    return Evaluation(
        classes=classes,
        n_test=len(true),
        correct=correct,
        accuracy=correct / len(true) if len(true) else 0.0,
        undecidable=int((~decided).sum()),
        undecidable_by_class=tuple(int(v) for v in undecidable_by_class),
        confusion=tuple(tuple(int(v) for v in row) for row in confusion),
        per_class=tuple(per_class),
        predictions=tuple(classes[i] if i >= 0 else None for i in predicted),
        log_loss=(float(losses.mean()) if len(true) else float("nan")) if probabilities else None,
        infinite_loss_documents=int(np.isinf(losses).sum()) if probabilities else None,
        confidence=tuple(confidence.tolist()) if probabilities else (None,) * len(true),
    )
