"""Naive Bayes beside logistic regression: five models fitted and scored on the same documents and features.

All five start from the same training counts (``HeldOut.training.matrix``, (n_docs, n_words)) and are scored on
the same test counts (``HeldOut.test_matrix``):

- Bernoulli Naive Bayes (whether each word occurs),
- multinomial Naive Bayes on the counts,
- multinomial Naive Bayes on binary features (each word counted once per document),
- Complement Naive Bayes on the counts (weights from every other class's counts, scores that are not probabilities),
- softmax (multinomial logistic) regression with an L2 penalty, fitted by L-BFGS on the counts.

For each: the accuracy (documents it cannot decide count as wrong), how many documents it cannot decide, the
log loss (mean −log P(true class | x), +inf as soon as one test document gives its class probability 0; none for
Complement Naive Bayes, which gives no probabilities), and the wall time to fit and to score the test documents. A
Naive Bayes fit is timed from the training matrix: counting the class statistics, then deriving the parameters from
them, so that both families start from the same input. Each pair of models is compared by McNemar's exact test on
the documents one gets right and the other wrong (``webnb.engine.evaluation.significance``).
"""
from __future__ import annotations

import math
import numbers
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from webnb.engine.evaluation.heldout import HeldOut
from webnb.engine.evaluation.significance import McNemar, OverSplits, mcnemar, over_splits
from webnb.engine.shared.corpus import CorpusError
from webnb.engine.shared.forwarding import forwarded
from webnb.engine.shared.numbers import is_plain_decimal
from webnb.engine.shared.plain import number, plain
from webnb.engine.text.complement import fit_complement_naive_bayes
from webnb.engine.text.discriminative import fit_softmax_regression
from webnb.engine.text.models import fit_naive_bayes, normalise_log_joint, parse_alpha
from webnb.engine.text.statistics import ClassStatistics


@dataclass(frozen=True)
class StoppingRule:
    """When L-BFGS stops (see ``fit_softmax_regression``): the largest gradient entry of the mean loss below
    ``tolerance``, or, when ``relative_tolerance`` is set, the gradient's length below that fraction of its length at
    the start (W = 0), or after ``max_iterations``.

    Parameters
    ----------
    tolerance : float
        The absolute tolerance on the largest gradient entry.
    max_iterations : int
        The iteration cap.
    relative_tolerance : float or None, default None
        The relative tolerance on the gradient's length; None: off.
    """

    tolerance: float
    max_iterations: int
    relative_tolerance: float | None = None


# Small problems (the built-in corpora, SMS spam, movie reviews: at most tens of thousands of weights) fit in well
# under a second to scikit-learn's default tolerance, so they get it. All of 20 Newsgroups (130,107 words × 20
# classes = 2.6 million weights, C = 1) needs about 210 iterations for that. Its accuracy settles long before the
# weights do: from W = 0 the test accuracy stays between 77.9 % and 79.2 % from iteration 70 on (converged: 78.96 %,
# measured to iteration 200). So a large problem stops at ‖∇‖ ≤ 2 × 10⁻³ ‖∇ at 0‖, the relative rule LIBLINEAR uses for
# sparse text (its default is a looser 10⁻²): on 20 Newsgroups at C = 1 that is 73 iterations and 78.7 %
# (scripts/benchmark_compare.py measures it against scikit-learn). The cap bounds the worst case (a large C converges
# slowly); a fit stopped by it says so (``converged`` False).
PRECISE_STOPPING = StoppingRule(tolerance=1e-4, max_iterations=1000)
QUICK_STOPPING = StoppingRule(tolerance=1e-4, max_iterations=100, relative_tolerance=2e-3)
QUICK_ABOVE_WEIGHTS = 500_000


def stopping_rule(n_words: int, n_classes: int) -> StoppingRule:
    """The rule for a problem of this size: precise when it is cheap, quick when it has many weights.

    Parameters
    ----------
    n_words : int
        The vocabulary's size.
    n_classes : int
        The number of classes (two classes fit one weight vector).

    Returns
    -------
    StoppingRule
        ``PRECISE_STOPPING`` (scikit-learn's tolerance, up to 1,000 iterations), or ``QUICK_STOPPING`` (a relative
        tolerance as LIBLINEAR's, up to 100 iterations) above ``QUICK_ABOVE_WEIGHTS`` weights.

    Examples
    --------
    >>> stopping_rule(n_words=1_000, n_classes=2).max_iterations
    1000
    >>> stopping_rule(n_words=130_107, n_classes=20)  # all of 20 Newsgroups
    StoppingRule(tolerance=0.0001, max_iterations=100, relative_tolerance=0.002)
    """
    weights = n_words * (1 if n_classes == 2 else n_classes)  # two classes fit one weight vector
    return QUICK_STOPPING if weights > QUICK_ABOVE_WEIGHTS else PRECISE_STOPPING


# Measured on 20 Newsgroups (2.6 million weights, one thread on a shared 2-core machine): one L-BFGS iteration takes
# about 0.083 s, about half of it the gradient's two sparse products and half the two-loop recursion over the last 10
# steps (on 1.3 million weights once the words of a single document are merged). Rounded up to 0.1 s, for corpora
# with fewer such words.
SECONDS_PER_ITERATION_PER_WEIGHT = 0.1 / 2_600_000


def estimated_fit_seconds(n_words: int, n_classes: int) -> float:
    """An upper estimate of the logistic regression's fit on ``n_words`` words and ``n_classes`` classes: its
    iteration cap (``stopping_rule``) times the cost of one iteration.

    Parameters
    ----------
    n_words, n_classes : int
        As in ``stopping_rule``.

    Returns
    -------
    float
        Seconds, measured on one thread of a shared 2-core machine and rounded up.

    Examples
    --------
    >>> round(estimated_fit_seconds(130_107, 20), 1)
    10.0
    """
    return stopping_rule(n_words, n_classes).max_iterations * _seconds_per_iteration(n_words, n_classes)


def _seconds_per_iteration(n_words: int, n_classes: int) -> float:
    weights = (n_words + 1) * (n_classes - 1 if n_classes == 2 else n_classes)
    return weights * SECONDS_PER_ITERATION_PER_WEIGHT


# The fewest iterations a fit may be cut to so as to stay within a time limit: on 20 Newsgroups the test accuracy
# has settled (77.9 % to 79.2 %) from iteration 70 on, so a fit stopped there still says what the model does.
FEWEST_ITERATIONS_WITHIN_A_LIMIT = 70


def stopping_within(n_words: int, n_classes: int, seconds: float) -> StoppingRule | None:
    """The problem's stopping rule with its iteration cap lowered, if need be, so that the fit's upper estimate
    stays within ``seconds``.

    A fit stopped by the lowered cap says so (``converged`` False), as any fit stopped by its cap does.

    Parameters
    ----------
    n_words, n_classes : int
        As in ``stopping_rule``.
    seconds : float
        The time the fit may take.

    Returns
    -------
    StoppingRule or None
        ``stopping_rule(n_words, n_classes)``, with fewer iterations if need be; None when that would leave fewer
        than ``FEWEST_ITERATIONS_WITHIN_A_LIMIT`` (70).

    Examples
    --------
    >>> stopping_within(130_107, 20, seconds=8.0)
    StoppingRule(tolerance=0.0001, max_iterations=79, relative_tolerance=0.002)
    >>> stopping_within(130_107, 20, seconds=5.0) is None
    True
    """
    rule = stopping_rule(n_words, n_classes)
    iterations = min(rule.max_iterations, int(seconds / _seconds_per_iteration(n_words, n_classes)))
    if iterations < min(rule.max_iterations, FEWEST_ITERATIONS_WITHIN_A_LIMIT):
        return None
    if iterations == rule.max_iterations:
        return rule
    return StoppingRule(rule.tolerance, iterations, rule.relative_tolerance)


MAX_C = 1e6


@dataclass(frozen=True)
class ModelSpec:
    """One contender: its key (used in URLs and JSON), its name, its family, the features it reads, and for
    Naive Bayes the ``kind`` (a key of ``MODEL_KINDS``, or "complement") and the ``binary`` option."""

    key: str
    name: str
    family: str  # "generative", "complement" (weights, no probabilities) or "discriminative"
    features: str
    kind: str | None = None
    binary: bool = False


NAIVE_BAYES_MODELS = (
    ModelSpec("bernoulli", "Bernoulli Naive Bayes", "generative", "present or absent", "bernoulli", True),
    ModelSpec("multinomial", "Multinomial Naive Bayes", "generative", "counts", "multinomial", False),
    ModelSpec(
        "multinomial-binary", "Multinomial Naive Bayes, binary", "generative", "once per document", "multinomial", True
    ),
    ModelSpec("complement", "Complement Naive Bayes", "complement", "counts", "complement", False),
)
LOGISTIC_MODEL = ModelSpec("logistic", "Logistic regression (softmax)", "discriminative", "counts")
MODELS = (*NAIVE_BAYES_MODELS, LOGISTIC_MODEL)


def duration(seconds: float) -> str:
    """A wall time a student can read: microseconds, milliseconds or seconds, three significant digits."""
    if seconds < 1e-3:
        return f"{seconds * 1e6:.3g} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds:.3g} s"


@dataclass(frozen=True)
class ModelScore:
    """How one model did on the test documents. ``iterations`` and ``converged`` are None for Naive Bayes,
    which is not fitted iteratively."""

    key: str
    name: str
    family: str
    features: str
    n_test: int
    correct: int
    accuracy: float  # correct / n_test; undecidable documents are not correct
    undecidable: int  # every class at probability 0 (Naive Bayes with α = 0); never for logistic regression
    log_loss: float | None  # mean −log P(true class | x); +inf when some true class has probability 0; None: no
    # probabilities (Complement Naive Bayes)
    infinite_loss_documents: int | None  # test documents whose true class has probability 0
    fit_seconds: float
    predict_seconds: float
    iterations: int | None = None
    converged: bool | None = None

    @property
    def fit_time(self) -> str:
        return duration(self.fit_seconds)

    @property
    def predict_time(self) -> str:
        return duration(self.predict_seconds)

    def to_dict(self) -> dict:
        return plain(self)


SIGNIFICANCE = Fraction(1, 20)  # the usual 5 % level: below it, a difference this uneven is unlikely to be chance


@dataclass(frozen=True)
class PairTest:
    """Two of the compared models on the same test documents: McNemar's exact test of their difference.

    Parameters
    ----------
    first, second : str
        The models' keys, in the order of ``MODELS``.
    test : McNemar
        The documents only the first gets right (b), only the second (c), and the exact two-sided p-value.
    """

    first: str
    second: str
    test: McNemar

    p_value = forwarded("test.p_value")

    @property
    def level(self) -> Fraction:
        """The p-value below which the difference is called real (``SIGNIFICANCE``)."""
        return SIGNIFICANCE

    @property
    def tells_apart(self) -> bool:
        """Whether the split of the discordant documents is too uneven for chance: p below ``SIGNIFICANCE``."""
        return self.test.p_exact < SIGNIFICANCE

    def to_dict(self) -> dict:
        test = self.test
        return {
            "models": [self.first, self.second],
            "both_right": test.both_right,
            "only_first_right": test.only_first,
            "only_second_right": test.only_second,
            "both_wrong": test.both_wrong,
            "p_exact": test.p_plain,
            "p_value": number(test.p_value),
            "tells_apart": self.tells_apart,
            "level": str(self.level),
        }


def pair_tests(keys, correct) -> tuple[PairTest, ...]:
    """McNemar's exact test for every pair of models.

    Parameters
    ----------
    keys : sequence of str
        The models, in order.
    correct : sequence of array-like of bool
        For each model, whether it classified each test document right (the same documents, in the same order).

    Returns
    -------
    tuple of PairTest
        One per pair (i < j), in the order of ``keys``.

    Examples
    --------
    >>> [p.to_dict()["p_exact"] for p in pair_tests(("a", "b"), ([True] * 9 + [False], [False] * 9 + [True]))]
    ['11/512']
    """
    keys = tuple(keys)
    return tuple(
        PairTest(keys[i], keys[j], mcnemar(correct[i], correct[j]))
        for i in range(len(keys)) for j in range(i + 1, len(keys))
    )


@dataclass(frozen=True)
class Comparison:
    """The five models on one split. ``best`` holds the keys of the models with the highest accuracy (ties
    keep them all).

    Parameters
    ----------
    classes : tuple of str
        The classes.
    n_train, n_test, n_words : int
        Training documents, test documents and the vocabulary's size.
    alpha : Fraction
        The Naive Bayes pseudo-count.
    fit_prior : bool
        Whether the Naive Bayes priors are learned (else uniform).
    C : float
        The logistic regression's inverse L2 strength.
    tolerance, max_iterations, relative_tolerance
        The stopping rule the logistic regression was fitted with.
    models : tuple of ModelScore
        One per model of ``MODELS``, in that order: accuracy, undecidable documents, log loss and wall times.
    pairs : tuple of PairTest
        McNemar's exact test for each pair of models (``pair_tests``).

    Attributes
    ----------
    best : tuple of str
        The keys of the most accurate models.
    """

    classes: tuple[str, ...]
    n_train: int
    n_test: int
    n_words: int
    alpha: Fraction
    fit_prior: bool
    C: float
    tolerance: float
    max_iterations: int
    models: tuple[ModelScore, ...]
    relative_tolerance: float | None = None
    pairs: tuple[PairTest, ...] = ()

    @property
    def best(self) -> tuple[str, ...]:
        top = max(score.correct for score in self.models)
        return tuple(score.key for score in self.models if score.correct == top)

    def score(self, key: str) -> ModelScore:
        """The score of the model whose key is ``key``.

        Parameters
        ----------
        key : str
            "bernoulli", "multinomial", "multinomial-binary", "complement" or "logistic".

        Returns
        -------
        ModelScore
            Its accuracy, undecidable documents, log loss and wall times.

        Raises
        ------
        KeyError
            If no model has that key.
        """
        for score in self.models:
            if score.key == key:
                return score
        raise KeyError(key)

    def to_dict(self) -> dict:
        alpha = self.alpha
        return {
            "classes": list(self.classes),
            "n_train": self.n_train,
            "n_test": self.n_test,
            "n_words": self.n_words,
            "alpha": str(alpha) if alpha.denominator != 1 else int(alpha),
            "prior": "learned" if self.fit_prior else "uniform",
            "C": number(self.C),
            "tolerance": number(self.tolerance),
            "max_iterations": self.max_iterations,
            "relative_tolerance": None if self.relative_tolerance is None else number(self.relative_tolerance),
            "models": [score.to_dict() for score in self.models],
            "best": list(self.best),
            "pairs": [pair.to_dict() for pair in self.pairs],
            "against_best": [[pair.first, pair.second] for pair in self.against_best],
        }

    @property
    def closest(self) -> PairTest | None:
        """The test of the most accurate model against the next (the first of each when accuracies tie): whether the
        winner's lead is more than chance. None with fewer than two models."""
        ranked = sorted(self.models, key=lambda score: -score.correct)  # stable: ties keep the order of MODELS
        if len(ranked) < 2 or not self.pairs:
            return None
        return self.pair(ranked[0].key, ranked[1].key)

    @property
    def against_best(self) -> tuple[PairTest, ...]:
        """McNemar's test of the most accurate model (the first of tied ones) against each other model, in the
        order of ``MODELS``: what the slide "Is a difference real?" shows of the pairs."""
        best = self.best[0] if self.models else None
        return tuple(pair for pair in self.pairs if best in (pair.first, pair.second))

    def pair(self, first: str, second: str) -> PairTest:
        """McNemar's test of the models ``first`` and ``second`` (in either order).

        Raises
        ------
        KeyError
            If no pair holds those two keys.
        """
        for pair in self.pairs:
            if {pair.first, pair.second} == {first, second}:
                return pair
        raise KeyError((first, second))


def parse_C(value) -> float:
    """C, the inverse of the L2 penalty's strength, from text or a number: positive and at most ``MAX_C``.

    Parameters
    ----------
    value : str or real number
        What a person typed ("0.1") or a number.

    Returns
    -------
    float
        C.

    Raises
    ------
    ValueError
        If ``value`` is a bool, not a plain decimal, not finite, 0 or less, or above ``MAX_C`` (10⁶).

    Examples
    --------
    >>> parse_C("0.1"), parse_C(2)
    (0.1, 2.0)
    >>> parse_C("0")
    Traceback (most recent call last):
        ...
    ValueError: C must be a positive number such as 1 or 0.1, not 0.0.
    """
    if isinstance(value, bool):
        raise ValueError("C must be a positive number such as 1 or 0.1.")
    if isinstance(value, str):
        text = value.strip()
        try:
            if not is_plain_decimal(text):  # float() also reads "１", "1_000" and 5,000 digits
                raise ValueError(text)
            value = float(text)
        except ValueError:
            raise ValueError(f"C must be a positive number such as 1 or 0.1, not {text[:20]!r}.") from None
    if not isinstance(value, numbers.Real) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"C must be a positive number such as 1 or 0.1, not {value!r}.")
    if value > MAX_C:
        raise ValueError(f"C above {MAX_C:,.0f} means almost no penalty and a very long fit; use a smaller C.")
    return float(value)


def _scores(
    spec: ModelSpec, log_posterior: np.ndarray | None, predicted: np.ndarray, true: np.ndarray, **timing
) -> ModelScore:
    """Accuracy and log loss from the log posteriors (n_test, n_classes; None for a model without probabilities)
    and the predictions (−1: undecided)."""
    correct = int((predicted == true).sum())
    if log_posterior is None:
        log_loss = infinite = None
    else:
        losses = -log_posterior[np.arange(len(true)), true]  # +inf where the true class has probability 0; never NaN
        log_loss, infinite = float(losses.mean()), int(np.isinf(losses).sum())
    return ModelScore(
        key=spec.key,
        name=spec.name,
        family=spec.family,
        features=spec.features,
        n_test=len(true),
        correct=correct,
        accuracy=correct / len(true),
        undecidable=int((predicted < 0).sum()),
        log_loss=log_loss,
        infinite_loss_documents=infinite,
        **timing,
    )


def compare_models(
    held: HeldOut,
    alpha=1,
    C: float = 1.0,
    *,
    fit_prior: bool = True,
    stopping: StoppingRule | None = None,
    progress=None,
) -> Comparison:
    """Fit the five models of ``MODELS`` on ``held.training`` and score them on ``held.test_matrix``.

    Bernoulli Naive Bayes, multinomial Naive Bayes on counts and on binary features, and softmax regression with an
    L2 penalty all start from the same training counts and are scored on the same test counts. A Naive Bayes fit is
    timed from the training matrix (counting the class statistics, then deriving φ and ψ or θ), as the logistic
    regression's is.

    Parameters
    ----------
    held : HeldOut
        The training set and the test documents' counts.
    alpha : str, int, float or Fraction, default 1
        The Naive Bayes pseudo-count (exact, as ``parse_alpha`` reads it).
    C : float, default 1.0
        The inverse strength of the logistic regression's L2 penalty (see ``parse_C``).
    fit_prior : bool, default True
        Whether the Naive Bayes priors are learned (else uniform).
    stopping : StoppingRule, optional
        When L-BFGS stops; default ``stopping_rule`` for the problem's size.
    progress : callable, optional
        ``progress(done, total)`` is told after each Naive Bayes model and each L-BFGS iteration.

    Returns
    -------
    Comparison
        The five scores, McNemar's test of each pair, and the settings they were made with.

    Raises
    ------
    ValueError
        For an α or a C that is refused, or a model that cannot be made.
    CorpusError
        If there are no test documents, or a multinomial model cannot have α = 0 (a class without words).
    """
    training = held.training
    alpha = parse_alpha(alpha)
    C = parse_C(C)
    true = held.true_class
    if len(true) == 0:
        raise CorpusError("The test set is empty: give at least one test document.")
    if stopping is None:
        stopping = stopping_rule(len(training.vocabulary), len(training.classes))
    total = len(NAIVE_BAYES_MODELS) + stopping.max_iterations

    def tell(done: int) -> None:
        if progress is not None:
            progress(done, total)

    matrix, test_matrix = training.matrix, held.test_matrix
    results, correct = [], []
    for done, spec in enumerate(NAIVE_BAYES_MODELS, start=1):
        started = time.perf_counter()
        statistics = ClassStatistics.from_matrix(matrix, training.class_index, training.classes, training.vocabulary)
        if spec.kind == "complement":
            model = fit_complement_naive_bayes(statistics, alpha, binary=spec.binary, fit_prior=fit_prior)
            fitted = time.perf_counter()
            log_posterior, predicted = None, model.predict_index(test_matrix)  # scores, not log-probabilities
        else:
            model = fit_naive_bayes(statistics, spec.kind, alpha, binary=spec.binary, fit_prior=fit_prior)
            fitted = time.perf_counter()
            jll = model.joint_log_likelihood(test_matrix)
            log_posterior, decidable = normalise_log_joint(jll)
            predicted = jll.argmax(axis=1)  # as NaiveBayes.predict_index: the first of tied classes, −1 if none is
            predicted[~decidable] = -1  # possible
        scored = time.perf_counter()
        timing = {"fit_seconds": fitted - started, "predict_seconds": scored - fitted}
        results.append(_scores(spec, log_posterior, predicted, true, **timing))
        correct.append(predicted == true)
        tell(done)

    logistic = fit_softmax_regression(
        matrix,
        training.class_index,
        training.classes,
        C=C,
        max_iterations=stopping.max_iterations,
        tol=stopping.tolerance,
        relative_tol=stopping.relative_tolerance,
        progress=None if progress is None else (lambda iteration, _: tell(len(NAIVE_BAYES_MODELS) + iteration)),
    )
    started = time.perf_counter()
    log_proba = logistic.predict_log_proba(test_matrix)
    predicted = log_proba.argmax(axis=1)
    scored = time.perf_counter()
    results.append(
        _scores(
            LOGISTIC_MODEL,
            log_proba,
            predicted,
            true,
            fit_seconds=logistic.fit_seconds,
            predict_seconds=scored - started,
            iterations=logistic.n_iterations,
            converged=logistic.converged,
        )
    )
    correct.append(predicted == true)
    tell(total)
    return Comparison(
        classes=training.classes,
        n_train=len(training.corpus),
        n_test=len(true),
        n_words=len(training.vocabulary),
        alpha=alpha,
        fit_prior=bool(fit_prior),
        C=C,
        tolerance=float(stopping.tolerance),
        max_iterations=int(stopping.max_iterations),
        models=tuple(results),
        relative_tolerance=None if stopping.relative_tolerance is None else float(stopping.relative_tolerance),
        pairs=pair_tests([score.key for score in results], correct),
    )


# -- the same comparison on several splits --------------------------------------------------------------------------

SPLITS_RANGE = (2, 30)  # how many splits a page may ask for: one is the comparison above, more than 30 is slow


@dataclass(frozen=True)
class RepeatedSplits:
    """The models of ``MODELS`` compared on several stratified splits of one corpus, one seed after another: how far
    each model's accuracy moves with the split alone, and how often each comes out best.

    Parameters
    ----------
    test_size : float
        The share of each class held out on every split.
    seeds : tuple of int
        The splits' seeds, in order.
    names : tuple of str
        The models' names, in the order of ``MODELS``.
    models : tuple of OverSplits
        Each model's accuracy on every split, its mean, its interval and its wins, in the same order.

    Attributes
    ----------
    always_best : tuple of str
        The names of the models that were best (or tied for best) on every split; empty when the split alone
        changes the winner.
    """

    test_size: float
    seeds: tuple[int, ...]
    names: tuple[str, ...]
    models: tuple[OverSplits, ...]

    @property
    def always_best(self) -> tuple[str, ...]:
        return tuple(name for name, model in zip(self.names, self.models, strict=True)
                     if model.wins == len(self.seeds))

    def of(self, key: str) -> OverSplits:
        """The splits' record of the model ``key`` (raises KeyError for another)."""
        return {model.key: model for model in self.models}[key]

    def to_dict(self) -> dict:
        return {
            "splits": len(self.seeds),
            "seeds": list(self.seeds),
            "test_size": number(self.test_size),
            "models": [{"key": model.key, "name": name, "accuracies": [number(a) for a in model.accuracies],
                        "mean": number(model.mean), "interval": [number(v) for v in model.interval],
                        "wins": model.wins} for name, model in zip(self.names, self.models, strict=True)],
            "always_best": list(self.always_best),
        }


def compare_over_splits(held_out_for: Callable[[int], HeldOut], seeds: Sequence[int], alpha=1, C: float = 1.0, *,
                        fit_prior: bool = True, stopping: StoppingRule | None = None, progress=None,
                        known: Mapping[int, Comparison] | None = None) -> RepeatedSplits:
    """``compare_models`` on the split of each seed in turn, keeping each model's accuracy.

    Parameters
    ----------
    held_out_for : callable
        ``held_out_for(seed)``: the training and test documents of the stratified split made with ``seed``. Called
        once per seed, so that only one split need be held at a time.
    seeds : sequence of int
        The seeds, at least one.
    alpha, C, fit_prior, stopping
        As for ``compare_models``, the same on every split.
    progress : callable, optional
        ``progress(done, total)`` over all the splits' fitting steps.
    known : mapping of int to Comparison, optional
        Comparisons already made with these settings, by seed (the page's own split): used as they are, not fitted
        again.

    Returns
    -------
    RepeatedSplits

    Raises
    ------
    ValueError, CorpusError
        As ``compare_models`` raises them, or if there is no seed.

    Examples
    --------
    >>> from webnb.engine.evaluation.heldout import hold_out
    >>> from webnb.examples import load_example_corpus
    >>> corpus = load_example_corpus("spam-ham")
    >>> splits = compare_over_splits(lambda seed: hold_out(corpus, test_size=0.25, seed=seed), [0, 1, 2])
    >>> splits.of("bernoulli").accuracies, splits.of("logistic").accuracies, splits.of("logistic").wins
    ((0.5, 0.75, 0.75), (0.75, 1.0, 1.0), 2)
    """
    if not seeds:
        raise ValueError("give at least one seed")
    accuracies: dict[str, list[float]] = {spec.key: [] for spec in MODELS}
    test_size = None
    for number_done, seed in enumerate(seeds):
        held = held_out_for(seed)
        test_size = held.test_size

        def told(done: int, total: int, before: int = number_done) -> None:
            if progress is not None:
                progress(before * total + done, len(seeds) * total)

        comparison = (known or {}).get(seed)
        if comparison is None:
            comparison = compare_models(held, alpha, C, fit_prior=fit_prior, stopping=stopping, progress=told)
        for score in comparison.models:
            accuracies[score.key].append(score.accuracy)
    return RepeatedSplits(float(test_size), tuple(int(seed) for seed in seeds), tuple(spec.name for spec in MODELS),
                          over_splits(accuracies))


# -- what each family models, for the table beside the numbers -------------------------------------------------------


@dataclass(frozen=True)
class FamilyContrast:
    """One question, answered for Naive Bayes (generative) and for logistic regression (discriminative)."""

    question: str
    generative: str
    discriminative: str

    def to_dict(self) -> dict:
        return plain(self)


FAMILY_CONTRASTS = (
    FamilyContrast(
        "What is modelled",
        "How a class writes a document: P(x, y) = P(y) P(x | y). Bayes' rule turns that into P(y | x).",
        "Only the answer: P(y | x) = softmax(x·w_y + b_y). How documents come about is never modelled.",
    ),
    FamilyContrast(
        "Assumption",
        "Given the class, every word is independent of the others, so P(x | y) is a product of one factor per word.",
        "None about how words go together: a weight per word and class, fitted jointly, so correlated words share "
        "the credit.",
    ),
    FamilyContrast(
        "Features",
        "Bernoulli: which words occur (and which do not). Multinomial: how often each word occurs, or whether "
        "(binary).",
        "The same count vector x, each count multiplied by a weight.",
    ),
    FamilyContrast(
        "The knob",
        "α, a pseudo-count added to every count: larger α pulls each word's probabilities towards equal; "
        "α = 0 allows zeros.",
        "C, the inverse strength of the L2 penalty ½‖W‖²: smaller C keeps weights small; larger C fits the training "
        "documents harder.",
    ),
    FamilyContrast(
        "Fitting",
        "One pass of counting: the parameters are ratios of counts, exact and immediate.",
        "Iterative: L-BFGS improves the weights step by step until the gradient is small. Slower, and only "
        "approximate.",
    ),
    FamilyContrast(
        "Only this one can",
        "Generate: sample a class, then words, and get a new document. Learn from very few documents. "
        "Change α without refitting.",
        "Use overlapping or correlated features without counting the same evidence twice, so its probabilities are "
        "usually less overconfident, better calibrated.",
    ),
    FamilyContrast(
        "Weak spots",
        "Repeated or correlated words push posteriors towards 0 and 1; with α = 0 a single unseen pairing makes a "
        "class impossible.",
        "Needs more documents to beat Naive Bayes; the fit costs many passes over the data, and every change of C "
        "is a new fit.",
    ),
)
