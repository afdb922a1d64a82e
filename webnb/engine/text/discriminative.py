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

X stays sparse throughout: the only products are X Wᵀ and Xᵀ(P − Y), both read from one CSR copy of Xᵀ. L-BFGS
(``_lbfgs``, written here without the bounds of scipy's L-BFGS-B, whose bookkeeping cost more than the gradient
on millions of weights) minimises J / (C · n_docs), the mean loss plus ‖W‖² / (2 C n_docs): the same minimiser,
and the form scikit-learn hands to scipy's L-BFGS-B, so that ``tol`` (the largest gradient entry at which to stop)
means what it means there. Large problems may stop earlier, on the gradient's length relative to its length at
the start (``relative_tol``), the rule LIBLINEAR uses for sparse text.

Words that occur in a single training document (more than half of a text vocabulary) are merged into one column
per document before the fit (``_merge_single_document_words``): an exact change of variables, with the same
iterates and minimiser on half as many weights.

Two classes: only the difference between the two rows of scores matters, and scikit-learn then fits one
weight vector w, penalising ½‖w‖². We do the same and keep w in the second row, the first row and bias
pinned at 0, so the formula for J above holds for ``coef_`` as stored and the fit is scikit-learn's.
(Fitting both rows freely would penalise ½‖w/2‖² · 2 = ¼‖w‖², which is scikit-learn's fit with 2C.)
"""
from __future__ import annotations

import math
import numbers
import time
from collections import deque
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.linalg import get_blas_funcs
from scipy.special import logsumexp
from threadpoolctl import threadpool_limits

MODEL_KIND = "logistic"


def _features(matrix, binary: bool) -> sp.csr_matrix:
    """``matrix`` as float64 CSR; with ``binary``, presence (1) instead of counts, like binary NB features."""
    matrix = sp.csr_matrix(matrix, dtype=np.float64, copy=True)
    matrix.eliminate_zeros()
    if binary:
        matrix.data[:] = 1.0
    return matrix


def _loss_and_gradient(weights, intercept, transposed, class_index, penalty: float, loss_weight: float):
    """penalty · ½‖W‖² + loss_weight · Σ_i −log softmax(x_i Wᵀ + b)[y_i] and its gradient, with the weights
    word-major: ``weights`` is Wᵀ, (n_words, n_classes), so that both products below are sparse × contiguous
    dense. ``transposed`` is Xᵀ as CSR, the only copy of X needed. Returns (value, gradient of Wᵀ, gradient of b)."""
    rows = np.arange(transposed.shape[1])
    # X Wᵀ as (Xᵀ)ᵀ Wᵀ, a CSC × dense product: it reads Wᵀ row after row, twice as fast as CSR X reading it at random
    scores = transposed.T @ weights
    scores += intercept  # (n_docs, n_classes)
    log_evidence = logsumexp(scores, axis=1)  # log Σ_l exp(score_l), computed after subtracting the row max
    log_loss = float(np.sum(log_evidence) - np.sum(scores[rows, class_index]))
    scores -= log_evidence[:, None]
    residual = np.exp(scores, out=scores)  # P
    residual[rows, class_index] -= 1.0  # P − Y
    residual *= loss_weight  # scaled here, (n_docs, n_classes), rather than on the longer gradient
    grad_weights = transposed @ residual
    grad_weights += penalty * weights
    grad_intercept = residual.sum(axis=0)
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
    the gradient was below ``tol`` (or below ``relative_tol`` of its length at the start, when given) or J stopped
    decreasing, not at the iteration limit or in a failed line search. ``fit_seconds`` is wall time.
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


def _merge_single_document_words(features: sp.csr_matrix) -> sp.csr_matrix:
    """The (n_words, n_merged) matrix E that folds every word seen in one training document only into one column per
    such document, so that the fit runs on ``features @ E`` and its weights come back as E Wᵀ_merged.

    If word j occurs only in document i (value x_ij), J depends on w_j through x_ij · w_j and ½‖w_j‖² alone, and at
    every L-BFGS iterate from 0 (and at the optimum) w_j = x_ij · v_i for one vector v_i per document. Giving
    document i the single column h_i = ‖x_i's such values‖ with weights u_i, and w_j = (x_ij / h_i) · u_i, keeps
    every score and the penalty, and every dot product L-BFGS takes: the same iterates and the same minimiser, on
    about half as many weights for 20 Newsgroups (73,671 of its 130,107 words occur in one document). Words in no
    document get weight 0 (their row of E is empty); every other word keeps its own column."""
    n_docs, n_words = features.shape
    columns = features.tocsc()
    documents_per_word = np.diff(columns.indptr)
    single = np.flatnonzero(documents_per_word == 1)
    kept = np.flatnonzero(documents_per_word > 1)
    document = columns.indices[columns.indptr[single]]
    value = columns.data[columns.indptr[single]]
    documents, merged = np.unique(document, return_inverse=True)
    norms = np.sqrt(np.bincount(merged, weights=value * value, minlength=len(documents)))
    rows = np.concatenate((kept, single))
    cols = np.concatenate((np.arange(len(kept)), len(kept) + merged))
    scales = np.concatenate((np.ones(len(kept)), value / norms[merged]))
    return sp.csr_matrix((scales, (rows, cols)), shape=(n_words, len(kept) + len(documents)))


@dataclass(frozen=True)
class _Minimum:
    """Where ``_lbfgs`` stopped: the point, J there, the iterations done and why it stopped."""

    parameters: np.ndarray
    value: float
    iterations: int
    converged: bool


def _two_loop_direction(gradient: np.ndarray, steps, direction: np.ndarray, axpy) -> None:
    """−H g into ``direction``: the two-loop recursion over the kept pairs (s, y, 1 / sᵀy, sᵀy / yᵀy), oldest first,
    from H₀ = γI with γ = sᵀy / yᵀy of the newest pair (no pair yet: a first step of length at most 1)."""
    np.negative(gradient, out=direction)
    alphas = []
    for s, y, rho, _ in reversed(steps):
        alpha = rho * float(np.dot(s, direction))
        axpy(y, direction, a=-alpha)
        alphas.append(alpha)
    if steps:
        direction *= steps[-1][3]
    else:
        direction /= max(float(np.linalg.norm(gradient)), 1.0)
    for (s, y, rho, _), alpha in zip(steps, reversed(alphas), strict=True):
        beta = rho * float(np.dot(y, direction))
        axpy(s, direction, a=alpha - beta)


def _lbfgs(
    value_and_gradient, initial: np.ndarray, *, tol: float, relative_tol: float | None, max_iterations: int,
    memory: int = 10, after_iteration=None,
) -> _Minimum:
    """Minimise a smooth convex function by L-BFGS (Nocedal & Wright, Algorithms 7.4 and 7.5), without bounds.

    The direction is the two-loop recursion over the last ``memory`` steps from γI, γ = sᵀy / yᵀy, as scipy and
    scikit-learn start it. The step is 1, shortened by quadratic interpolation (Nocedal & Wright 3.5) until
    Armijo's sufficient decrease holds; on these objectives step 1 nearly always does, so an iteration costs one
    evaluation of J and its gradient. A pair whose curvature sᵀy is not positive is not kept. Converged: the
    largest gradient entry ≤ ``tol``, or ‖g‖₂ ≤ ``relative_tol`` · ‖g₀‖₂, or J decreased by no more than
    rounding three times in a row. Not converged: ``max_iterations`` reached, or no step decreased J. Vectors are
    updated in place (BLAS axpy) and reused, because with millions of weights these passes over memory, not
    arithmetic, are what an iteration costs beside the gradient.
    """
    axpy = get_blas_funcs("axpy", (initial,))
    parameters = np.array(initial, dtype=np.float64)
    value, gradient = value_and_gradient(parameters)
    threshold = 0.0 if relative_tol is None else relative_tol * float(np.linalg.norm(gradient))

    def small(gradient) -> bool:
        return float(np.linalg.norm(gradient)) <= threshold or max(gradient.max(), -gradient.min()) <= tol

    if small(gradient):
        return _Minimum(parameters, value, 0, True)
    steps: deque = deque(maxlen=memory)  # (s, y, 1 / sᵀy, sᵀy / yᵀy), oldest first
    direction, candidate = np.empty_like(parameters), np.empty_like(parameters)
    spare = None  # two vectors for the next s and y: those of the pair that was dropped or not kept
    stalls = 0
    for iteration in range(1, max_iterations + 1):
        _two_loop_direction(gradient, steps, direction, axpy)
        slope = float(np.dot(gradient, direction))
        if slope >= 0:  # rounding spoilt the direction: steepest descent, and the history is forgotten
            steps.clear()
            np.negative(gradient, out=direction)
            slope = -float(np.dot(gradient, gradient))
        step = 1.0
        for _ in range(40):
            np.copyto(candidate, parameters)
            axpy(direction, candidate, a=step)
            new_value, new_gradient = value_and_gradient(candidate)
            if new_value <= value + 1e-4 * step * slope:
                break
            # the minimum of the parabola through J, its slope and the rejected J, within [0.1, 0.5] of the step:
            # one or two trials instead of halving four times where the first step of length 1 is far too long
            excess = new_value - value - slope * step  # > 0 since Armijo failed
            shorter = -slope * step * step / (2 * excess) if math.isfinite(excess) else 0.0
            step = min(0.5 * step, max(0.1 * step, shorter))
        else:
            return _Minimum(parameters, value, iteration - 1, False)
        s, y = spare if spare is not None else (np.empty_like(parameters), np.empty_like(parameters))
        np.subtract(candidate, parameters, out=s)
        np.subtract(new_gradient, gradient, out=y)
        curvature, y_length2 = float(np.dot(s, y)), float(np.dot(y, y))
        spare = (s, y)
        if curvature > 1e-10 * y_length2:
            spare = steps.popleft()[:2] if len(steps) == memory else None
            steps.append((s, y, 1.0 / curvature, curvature / y_length2))
        # J stalls at rounding level once in a while before the end: only a third stall in a row stops the fit
        tiny = value - new_value <= 64 * np.finfo(float).eps * max(abs(value), abs(new_value), 1.0)
        stalls = stalls + 1 if tiny else 0
        parameters, candidate = candidate, parameters
        value, gradient = new_value, new_gradient
        if after_iteration is not None:
            after_iteration(iteration)
        if small(gradient) or stalls == 3:
            return _Minimum(parameters, value, iteration, True)
    return _Minimum(parameters, value, max_iterations, False)


def fit_softmax_regression(
    matrix: sp.csr_matrix,
    class_index: np.ndarray,
    classes,
    *,
    C: float = 1.0,
    binary: bool = False,
    max_iterations: int = 500,
    tol: float = 1e-6,
    relative_tol: float | None = None,
    progress=None,
) -> SoftmaxRegression:
    """Fit W and b on ``matrix`` (counts, (n_docs, n_words), as in ``TrainingSet.matrix``) with L-BFGS, starting
    from 0, on the words merged by ``_merge_single_document_words`` (same iterates, half the weights on text).

    Two stopping rules, whichever comes first:

    - ``tol``: the largest entry of the gradient of J / (C · n_docs) (on the merged weights, whose entries are at
      least as large as the words'), as scipy's L-BFGS-B and scikit-learn's ``tol`` mean it;
    - ``relative_tol`` (off when None): ‖∇J‖₂ ≤ relative_tol · ‖∇J at W = 0, b = 0‖₂, the rule of LIBLINEAR's
      solvers for sparse text. It does not depend on the scale of the counts or the number of documents, and the
      merge leaves ‖∇J‖₂ unchanged.

    A fit that reaches ``max_iterations`` first is returned with ``converged`` False.

    Parameters
    ----------
    matrix : scipy.sparse matrix of shape (n_documents, n_words)
        Training counts.
    class_index : numpy.ndarray of int, shape (n_documents,)
        Each document's class number, from 0 to n_classes − 1; every class needs a document.
    classes : sequence of str
        The class names (at least two).
    C : float, default 1.0
        The inverse strength of the L2 penalty ½‖W‖²: positive and finite.
    binary : bool, default False
        Fit on presence (0/1) instead of counts.
    max_iterations : int, default 500
        The iteration cap.
    tol : float, default 1e-6
        The absolute gradient tolerance.
    relative_tol : float, optional
        The relative gradient tolerance; None: off.
    progress : callable, optional
        ``progress(done, max_iterations)`` is told after every iteration.

    Returns
    -------
    SoftmaxRegression
        ``coef_`` of shape (n_classes, n_words), ``intercept_`` of shape (n_classes,), the iterations, whether it
        converged, and the wall time of the fit in seconds.

    Raises
    ------
    ValueError
        For fewer than two classes, a number of class numbers other than the documents', class numbers outside
        0 … n_classes − 1, a class without documents, or a C that is not a positive number.
    """
    class_index, classes = _check_inputs(matrix, class_index, classes, C)
    C = float(C)
    started = time.perf_counter()
    features = _features(matrix, binary)
    expand = _merge_single_document_words(features)
    merged = (features @ expand).tocsr()
    transposed = merged.T.tocsr()  # Xᵀ once: both products of each gradient read it
    n_docs, n_words = merged.shape
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
            weights, intercept, transposed, class_index, penalty, loss_weight
        )
        return value, np.concatenate((grad_weights[:, pinned:].ravel(), grad_intercept[pinned:]))

    # One BLAS thread: each iteration makes about 40 short vector updates (axpy, dot), and waking another thread for
    # each costs milliseconds on a busy or virtual 2-core machine, more than the update itself (sentence polarity:
    # 14 s with two threads, 0.2 s with one). The sparse products never used BLAS threads.
    with threadpool_limits(limits=1, user_api="blas"):
        result = _lbfgs(
            scaled_objective,
            np.zeros(n_free * (n_words + 1)),
            tol=tol,
            relative_tol=relative_tol,
            max_iterations=max_iterations,
            after_iteration=None if progress is None else (lambda done: progress(done, max_iterations)),
        )
    weights, intercept = unpack(result.parameters)
    intercept = intercept.copy()
    if not pinned:
        # Adding the same number to every bias changes no probability; centre them so the fit is reproducible.
        intercept -= intercept.mean()
    objective, _, _ = _loss_and_gradient(weights, intercept, transposed, class_index, 1.0, C)
    return SoftmaxRegression(
        classes=classes,
        coef_=np.ascontiguousarray((expand @ weights).T),
        intercept_=intercept,
        C=C,
        binary=bool(binary),
        n_iterations=result.iterations,
        converged=result.converged,
        fit_seconds=time.perf_counter() - started,
        objective_=float(objective),
    )
