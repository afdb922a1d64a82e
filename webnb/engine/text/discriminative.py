"""Multinomial logistic (softmax) regression: the discriminative counterpart of Naive Bayes, on the same features.

Naive Bayes is generative: it models how a class produces a document, P(x | k) P(k), and reads its parameters
off counts. Logistic regression models P(k | x) directly,

    P(k | x) = softmax(x Wᵀ + b)_k = exp(x·w_k + b_k) / Σ_l exp(x·w_l + b_l)

with one weight per (class, word) in W, shape (n_classes, n_words), and one bias per class in b, shape
(n_classes,). Nothing can be counted: W and b are found by minimising, as scikit-learn's
``LogisticRegression(C=C)`` does (L2 penalty, the intercept not penalised),

    J(W, b) = ½‖W‖² + C · Σ_i −log P(y_i | x_i)

whose gradient is, with P the (n_docs, n_classes) matrix of probabilities and Y the one-hot true classes,

    ∂J/∂W = W + C · (P − Y)ᵀ X        ∂J/∂b = C · Σ_i (p_i − y_i)

X stays sparse throughout: the only products are X Wᵀ and Xᵀ(P − Y). L-BFGS (scipy.optimize) minimises
J / (C · n_docs), the mean loss plus ‖W‖² / (2 C n_docs): the same minimiser, and the form scikit-learn
hands to the same optimiser, so that ``tol`` (the largest gradient entry at which to stop) means what it
means there.

Two classes: only the difference between the two rows of scores matters, and scikit-learn then fits one
weight vector w, penalising ½‖w‖². We do the same and keep w in the second row, the first row and bias
pinned at 0, so the formula for J above holds for ``coef_`` as stored and the fit is scikit-learn's.
(Fitting both rows freely would penalise ½‖w/2‖² · 2 = ¼‖w‖², which is scikit-learn's fit with 2C.)
"""
from __future__ import annotations

import math
import numbers
import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import minimize
from scipy.special import logsumexp

MODEL_KIND = "logistic"


def _features(matrix, binary: bool) -> sp.csr_matrix:
    """``matrix`` as float64 CSR; with ``binary``, presence (1) instead of counts, like binary NB features."""
    matrix = sp.csr_matrix(matrix, dtype=np.float64, copy=True)
    matrix.eliminate_zeros()
    if binary:
        matrix.data[:] = 1.0
    return matrix


def _loss_and_gradient(weights, intercept, matrix, transposed, class_index, penalty: float, loss_weight: float):
    """penalty · ½‖W‖² + loss_weight · Σ_i −log softmax(x_i Wᵀ + b)[y_i] and its gradient, with the weights
    word-major: ``weights`` is Wᵀ, (n_words, n_classes), the layout in which X Wᵀ and Xᵀ(P − Y) are CSR ×
    contiguous dense products. ``transposed`` is Xᵀ as CSR. Returns (value, gradient of Wᵀ, gradient of b)."""
    rows = np.arange(matrix.shape[0])
    scores = matrix @ weights
    scores += intercept  # (n_docs, n_classes)
    log_evidence = logsumexp(scores, axis=1)  # log Σ_l exp(score_l), computed after subtracting the row max
    log_loss = float(np.sum(log_evidence) - np.sum(scores[rows, class_index]))
    scores -= log_evidence[:, None]
    residual = np.exp(scores, out=scores)  # P
    residual[rows, class_index] -= 1.0  # P − Y
    grad_weights = transposed @ residual
    grad_weights *= loss_weight
    grad_weights += penalty * weights
    grad_intercept = loss_weight * residual.sum(axis=0)
    value = 0.5 * penalty * float(np.vdot(weights, weights)) + loss_weight * log_loss
    return value, grad_weights, grad_intercept


def penalised_log_loss(coef, intercept, matrix, class_index, C: float) -> tuple[float, np.ndarray, np.ndarray]:
    """J(W, b) = ½‖W‖² + C · Σ_i −log softmax(x_i Wᵀ + b)[y_i] and its gradient.

    ``coef`` W is (n_classes, n_words), ``intercept`` b is (n_classes,), ``matrix`` X is (n_docs, n_words),
    used as given (counts stay counts), and ``class_index[i]`` is the class number of document i. Returns
    ``(J, ∂J/∂W, ∂J/∂b)`` with the gradients shaped like W and b.
    """
    matrix = sp.csr_matrix(matrix, dtype=np.float64)
    weights = np.ascontiguousarray(np.asarray(coef, dtype=np.float64).T)
    value, grad_weights, grad_intercept = _loss_and_gradient(
        weights,
        np.asarray(intercept, dtype=np.float64),
        matrix,
        matrix.T.tocsr(),
        np.asarray(class_index, dtype=np.int64),
        1.0,
        float(C),
    )
    return value, grad_weights.T.copy(), grad_intercept


@dataclass(frozen=True, eq=False)
class SoftmaxRegression:
    """A fitted multinomial logistic regression.

    ``coef_`` W is (n_classes, n_words) and ``intercept_`` b is (n_classes,); with two classes the first row
    and bias are 0 (see the module docstring). ``objective_`` is J(W, b) at the solution on the training
    features. ``n_iterations`` and ``converged`` are what L-BFGS reported: converged means it stopped because
    the gradient was below ``tol`` or J stopped decreasing, not at the iteration limit or in a failed line
    search. ``fit_seconds`` is wall time.
    """

    classes: tuple[str, ...]
    coef_: np.ndarray
    intercept_: np.ndarray
    C: float
    binary: bool
    n_iterations: int
    converged: bool
    fit_seconds: float
    objective_: float

    @property
    def n_words(self) -> int:
        return self.coef_.shape[1]

    def _features(self, matrix) -> sp.csr_matrix:
        if matrix.shape[1] != self.n_words:
            raise ValueError(
                f"The matrix has {matrix.shape[1]} word columns but the model was fitted on {self.n_words}: "
                "turn the texts into counts with the same vocabulary (TrainingSet.transform)."
            )
        return _features(matrix, self.binary)

    def decision_function(self, matrix) -> np.ndarray:
        """Scores x Wᵀ + b for each row of ``matrix`` (counts, (n_docs, n_words)): shape (n_docs, n_classes)."""
        return np.asarray(self._features(matrix) @ self.coef_.T) + self.intercept_

    def predict_log_proba(self, matrix) -> np.ndarray:
        """log P(k | x) = score_k − logsumexp(scores), shape (n_docs, n_classes)."""
        scores = self.decision_function(matrix)
        return scores - logsumexp(scores, axis=1, keepdims=True)

    def predict_proba(self, matrix) -> np.ndarray:
        return np.exp(self.predict_log_proba(matrix))

    def predict_index(self, matrix) -> np.ndarray:
        """Index of the highest-scoring class per row. Unlike Naive Bayes with α = 0, every class always has a
        positive probability, so every document is decided (never −1)."""
        return self.decision_function(matrix).argmax(axis=1)

    def predict(self, matrix) -> list[str]:
        return [self.classes[i] for i in self.predict_index(matrix)]

    def objective(self, matrix, class_index) -> float:
        """J(W, b) of this model on documents ``matrix`` (counts) whose class numbers are ``class_index``."""
        return penalised_log_loss(self.coef_, self.intercept_, self._features(matrix), class_index, self.C)[0]

    def to_dict(self) -> dict:
        return {
            "model": MODEL_KIND,
            "C": self.C,
            "binary": self.binary,
            "iterations": self.n_iterations,
            "converged": self.converged,
            "fit_seconds": self.fit_seconds,
        }


def _check_inputs(matrix, class_index, classes, C: float) -> tuple[np.ndarray, tuple[str, ...]]:
    classes = tuple(classes)
    class_index = np.asarray(class_index)
    if len(classes) < 2:
        raise ValueError("Logistic regression needs at least two classes; add documents with another label.")
    if class_index.ndim != 1 or class_index.shape[0] != matrix.shape[0]:
        raise ValueError(
            f"The matrix has {matrix.shape[0]} documents but {class_index.size} class numbers were given: "
            "give one class number per document."
        )
    if class_index.dtype.kind not in "iu" or (class_index.size and not (
        0 <= class_index.min() and class_index.max() < len(classes)
    )):
        raise ValueError(f"Class numbers must be whole numbers from 0 to {len(classes) - 1} (one per class).")
    counts = np.bincount(class_index, minlength=len(classes))
    if not counts.all():
        missing = classes[int(np.flatnonzero(counts == 0)[0])]
        raise ValueError(
            f"Every class needs at least one training document; {missing!r} has none. "
            "Add documents of that class or leave the class out."
        )
    if isinstance(C, bool) or not (isinstance(C, numbers.Real) and math.isfinite(C) and C > 0):
        raise ValueError(f"C (the inverse of the regularisation strength) must be a positive number, not {C!r}")
    return class_index.astype(np.int64), classes


def fit_softmax_regression(
    matrix: sp.csr_matrix,
    class_index: np.ndarray,
    classes,
    *,
    C: float = 1.0,
    binary: bool = False,
    max_iterations: int = 500,
    tol: float = 1e-6,
    progress=None,
) -> SoftmaxRegression:
    """Fit W and b on ``matrix`` (counts, (n_docs, n_words), as in ``TrainingSet.matrix``) with L-BFGS, starting
    from 0. ``tol`` bounds the largest entry of the gradient of J / (C · n_docs) at which to stop; a fit that
    stops at ``max_iterations`` first is returned with ``converged`` False. ``progress(done, max_iterations)``
    is told after every iteration (all of 20 Newsgroups takes hundreds of them)."""
    class_index, classes = _check_inputs(matrix, class_index, classes, C)
    C = float(C)
    started = time.perf_counter()
    features = _features(matrix, binary)
    transposed = features.T.tocsr()  # Xᵀ once, so that each gradient is a CSR × dense product
    n_docs, n_words = features.shape
    n_classes = len(classes)
    pinned = 1 if n_classes == 2 else 0  # classes whose weights and bias stay 0 (two classes: see the docstring)
    n_free = n_classes - pinned
    penalty, loss_weight = 1.0 / (C * n_docs), 1.0 / n_docs  # J / (C · n_docs)

    def unpack(parameters) -> tuple[np.ndarray, np.ndarray]:
        """Wᵀ (n_words, n_classes) and b from the flat parameters: Wᵀ of the free classes, then their biases."""
        free_weights = parameters[: n_words * n_free].reshape(n_words, n_free)
        free_intercept = parameters[n_words * n_free:]
        if not pinned:
            return free_weights, free_intercept
        weights = np.zeros((n_words, n_classes))
        weights[:, pinned:] = free_weights
        return weights, np.concatenate((np.zeros(pinned), free_intercept))

    def scaled_objective(parameters):
        weights, intercept = unpack(parameters)
        value, grad_weights, grad_intercept = _loss_and_gradient(
            weights, intercept, features, transposed, class_index, penalty, loss_weight
        )
        return value, np.concatenate((grad_weights[:, pinned:].ravel(), grad_intercept[pinned:]))

    iterations_done = 0

    def report(intermediate_result):
        nonlocal iterations_done
        iterations_done += 1
        progress(iterations_done, max_iterations)

    result = minimize(
        scaled_objective,
        np.zeros(n_free * (n_words + 1)),
        method="L-BFGS-B",
        jac=True,
        options={"maxiter": max_iterations, "gtol": tol, "ftol": 64 * np.finfo(float).eps, "maxls": 50},
        callback=None if progress is None else report,
    )
    weights, intercept = unpack(result.x)
    intercept = intercept.copy()
    if not pinned:
        # Adding the same number to every bias changes no probability; centre them so the fit is reproducible.
        intercept -= intercept.mean()
    objective, _, _ = _loss_and_gradient(weights, intercept, features, transposed, class_index, 1.0, C)
    return SoftmaxRegression(
        classes=classes,
        coef_=np.ascontiguousarray(weights.T),
        intercept_=intercept,
        C=C,
        binary=bool(binary),
        n_iterations=int(result.nit),
        converged=bool(result.success),
        fit_seconds=time.perf_counter() - started,
        objective_=float(objective),
    )
