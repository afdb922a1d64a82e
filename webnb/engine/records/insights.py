"""What a fitted model tells beyond one decision: how α changes accuracy and log loss, which words each
class leans on, how repeated evidence makes the posterior overconfident, and what documents the model
would write if it were the process that generated the corpus.

Every function returns a frozen record of plain numbers; ``to_dict()`` gives the
JSON-safe twin, with infinities written as "inf" / "-inf" as in ``shared.plain``.

Notation as in ``models``: φ_k the class prior, ψ_jk (Bernoulli) the probability that word j appears in
a document of class k, θ_jk (multinomial) the probability that a drawn word is word j.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.special import logsumexp

from webnb.engine.evaluation.scores import FEW_TEST_DOCUMENTS, true_class_numbers, wilson_interval
from webnb.engine.shared.corpus import CorpusError
from webnb.engine.shared.numbers import whole_number
from webnb.engine.shared.plain import number, plain
from webnb.engine.text.models import NaiveBayes, normalise_log_joint, parse_alpha
from webnb.engine.text.training import TrainingSet

# [0] + 19 values from 10⁻³ to 10¹, evenly spaced in log α: 20 points.
DEFAULT_ALPHAS = (0.0, *np.logspace(-3, 1, 19).tolist())
DISCRIMINATIVE_MEASURES = ("ratio", "difference")


def _positive_int(name: str, value) -> int:
    return whole_number(value, name, least=1)


def _class_number(model: NaiveBayes, label) -> int:
    if label in model.classes:
        return model.classes.index(label)
    raise ValueError(f"{label!r} is not a class of this model; the classes are {', '.join(model.classes)}")


def _parameter_name(model: NaiveBayes) -> str:
    return "ψ" if model.kind == "bernoulli" else "θ"


# -- 1. accuracy and log loss against α ----------------------------------------------------------------------------


@dataclass(frozen=True)
class SweepPoint:
    alpha: float
    accuracy: float  # correct / n_test; undecidable documents are not correct
    correct: int
    log_loss: float | None  # mean −log P(true class | x): +inf as soon as one document gives its class
    # probability 0; None for scores that are not probabilities (Complement Naive Bayes)
    undecidable: int  # documents where every class has probability 0 (possible only with zero factors)
    infinite_loss_documents: int | None  # documents whose true class has probability 0, the undecidable ones included

    def to_dict(self) -> dict:
        return plain(self)


@dataclass(frozen=True)
class AlphaSweep:
    """One point per α, in increasing α: what ``alpha_sweep`` returns.

    ``best``: the highest accuracy; ties go to the smaller log loss, then to the smaller α. ``best_interval``: the
    Wilson 95 % interval of the best accuracy on these ``n_test`` documents; every α whose accuracy lies inside it
    (``tied``, the best included) scores as well as far as these test documents can tell, so the pages name a best α
    only when ``tied`` holds it alone.

    Parameters
    ----------
    kind : str
        "bernoulli" or "multinomial".
    binary : bool
        Whether words counted once per document.
    classes : tuple of str
        The model's classes.
    n_test : int
        Test documents.
    points : tuple of SweepPoint
        Per α: the accuracy, the correct documents, the log loss, the undecidable documents and those of
        infinite loss.
    best : SweepPoint
        The best point.

    Attributes
    ----------
    alphas : tuple of float
        The α of each point.
    best_interval : (float, float)
        The best accuracy's Wilson 95 % interval.
    tied : tuple of SweepPoint
        The points whose accuracy lies in ``best_interval``.
    best_is_clear : bool
        Whether ``tied`` holds the best alone.
    best_picked_by : str
        "accuracy", "log loss" or "smaller α": what made ``best`` the one named.
    """

    kind: str
    binary: bool
    classes: tuple[str, ...]
    n_test: int
    points: tuple[SweepPoint, ...]
    best: SweepPoint

    @property
    def alphas(self) -> tuple[float, ...]:
        return tuple(p.alpha for p in self.points)

    @property
    def best_interval(self) -> tuple[float, float]:
        return wilson_interval(self.best.correct, self.n_test)

    @property
    def tied(self) -> tuple[SweepPoint, ...]:
        low, high = self.best_interval
        return tuple(p for p in self.points if low <= p.accuracy <= high)

    @property
    def best_is_clear(self) -> bool:
        """Whether the best α scores better than every other α by more than the test documents' uncertainty."""
        return len(self.tied) == 1

    @property
    def as_accurate(self) -> int:
        """How many α score exactly the best accuracy (the best included)."""
        return sum(p.correct == self.best.correct for p in self.points)

    @property
    def best_picked_by(self) -> str:
        """Why ``best`` is the α named: "accuracy" (no other α is as accurate), "log loss" (others are, with a larger
        log loss) or "smaller α" (others are, with the same log loss)."""
        if self.as_accurate == 1:
            return "accuracy"
        same_loss = sum(p.correct == self.best.correct and p.log_loss == self.best.log_loss for p in self.points)
        return "log loss" if same_loss == 1 else "smaller α"

    @property
    def few_test_documents(self) -> bool:
        return self.n_test < FEW_TEST_DOCUMENTS

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "binary": self.binary,
            "classes": list(self.classes),
            "n_test": self.n_test,
            "points": [p.to_dict() for p in self.points],
            "best": self.best.to_dict(),
            "best_interval": list(self.best_interval),
            "tied_alphas": [p.alpha for p in self.tied],
            "best_is_clear": self.best_is_clear,
            "as_accurate": self.as_accurate,
            "best_picked_by": self.best_picked_by,
            "few_test_documents": self.few_test_documents,
        }


def _true_class_numbers(classes: tuple[str, ...], labels, n_documents: int) -> np.ndarray:
    numbers = true_class_numbers(classes, labels, n_documents)
    if len(numbers) == 0:
        raise CorpusError("The test set is empty: give at least one test document.")
    return numbers


def alpha_sweep(
    train: TrainingSet,
    X_test: sp.csr_matrix,
    test_labels,
    *,
    kind: str = "multinomial",
    binary: bool = False,
    alphas=None,
    progress=None,
    **model_options,
) -> AlphaSweep:
    """Accuracy and log loss of the ``kind`` model on held-out counts for each α of ``alphas``.

    Every model is derived from ``train.statistics``; nothing is re-vectorised. Per α the only heavy step is
    one ``joint_log_likelihood``; the predictions (as ``predict_index``) and the log posteriors (as
    ``predict_log_proba``) both come from it.

    Parameters
    ----------
    train : TrainingSet
        The training set.
    X_test : scipy.sparse matrix of shape (n_documents, n_words)
        Test counts over ``train``'s vocabulary, from ``train.transform``.
    test_labels : sequence of str
        The true class of each test document.
    kind : {"bernoulli", "multinomial"}, default "multinomial"
        The model.
    binary : bool, default False
        Multinomial only: count each word once per document.
    alphas : iterable, optional
        The α to try, anything ``parse_alpha`` reads (duplicates are merged, the order sorted). Default
        ``DEFAULT_ALPHAS``: 0 and 19 values from 0.001 to 10, evenly spaced in log α.
    progress : callable, optional
        ``progress(done, total)`` is told after each α.
    **model_options
        ``fit_prior``, ``class_prior``, ``epsilon``: passed to ``train.model``.

    Returns
    -------
    AlphaSweep
        A point per α; α = 0 gives an infinite log loss as soon as one test document's true class has
        probability 0.

    Raises
    ------
    ValueError
        If ``X_test`` has a number of columns other than the vocabulary's size, ``alphas`` is empty or holds a value
        ``parse_alpha`` refuses, or the model options are refused (see ``fit_naive_bayes``).
    CorpusError
        If there are no test documents, the labels do not match the documents in number, or a label is not a class of
        the model; or if a multinomial model cannot have α = 0 (a class without words).

    Examples
    --------
    >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
    >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
    >>> X = training.transform(["Chinese Chinese Chinese Tokyo Japan", "Tokyo Japan", "Beijing Shanghai"])
    >>> sweep = alpha_sweep(training, X, ["China", "Japan", "China"], kind="multinomial", alphas=[0, 0.5, 1, 10])
    >>> [(p.alpha, p.correct, round(p.log_loss, 6)) for p in sweep.points]
    [(0.0, 2, inf), (0.5, 2, 0.342478), (1.0, 3, 0.275031), (10.0, 2, 0.542753)]
    >>> sweep.best.alpha, sweep.best_is_clear  # three test documents cannot tell the α apart
    (1.0, False)
    """
    # Counts as float64 once, rather than upcast inside every product (≈ 20 % of each joint log-likelihood);
    # small whole numbers are exact in float64, so the scores do not change.
    X_test = sp.csr_matrix(X_test, dtype=np.float64)
    if X_test.shape[1] != train.statistics.n_words:
        raise ValueError(
            f"The test matrix has {X_test.shape[1]} columns but the vocabulary has {train.statistics.n_words} "
            "words: make it with train.transform(texts)."
        )
    true = _true_class_numbers(train.classes, test_labels, X_test.shape[0])
    exact_alphas = sorted({parse_alpha(a) for a in (DEFAULT_ALPHAS if alphas is None else alphas)})
    if not exact_alphas:
        raise ValueError("Give at least one α to sweep over.")
    rows = np.arange(len(true))
    points = []
    for alpha in exact_alphas:
        model = train.model(kind, alpha, binary=binary, **model_options)
        jll = model.joint_log_likelihood(X_test)
        log_posterior, decidable = normalise_log_joint(jll)
        predicted = jll.argmax(axis=1)
        predicted[~decidable] = -1
        correct = int((predicted == true).sum())
        losses = -log_posterior[rows, true]  # +inf where the true class has probability 0; never NaN
        probabilities = model.gives_probabilities  # Complement Naive Bayes' scores give no log loss
        points.append(
            SweepPoint(
                alpha=alpha.numerator / alpha.denominator,
                accuracy=correct / len(true),
                correct=correct,
                log_loss=float(losses.mean()) if probabilities else None,
                undecidable=int((~decidable).sum()),
                infinite_loss_documents=int(np.isinf(losses).sum()) if probabilities else None,
            )
        )
        if progress is not None:
            progress(len(points), len(exact_alphas))
    best = min(points, key=lambda p: (-p.correct, 0.0 if p.log_loss is None else p.log_loss, p.alpha))
    return AlphaSweep(
        kind=kind,
        binary=model.binary,
        classes=train.classes,
        n_test=len(true),
        points=tuple(points),
        best=best,
    )


# -- 2. telling words ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RankedWord:
    word: str
    index: int  # column in the vocabulary
    probability: float  # ψ_jk or θ_jk

    def to_dict(self) -> dict:
        return plain(self)


@dataclass(frozen=True)
class ClassWords:
    label: str
    words: tuple[RankedWord, ...]  # most probable first; equal probabilities in alphabetical order
    available: int  # how many words qualified (for unique_top_words: the unique ones among the top)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(w.word for w in self.words)

    def to_dict(self) -> dict:
        return {"class": self.label, "words": [w.to_dict() for w in self.words], "available": self.available}


@dataclass(frozen=True)
class WordLists:
    """Per class, words ranked by ψ_jk (Bernoulli) or θ_jk (multinomial).

    ``top`` is None for ``top_words``; for ``unique_top_words`` it is the size of each class's candidate list."""

    kind: str
    parameter: str  # "ψ" or "θ"
    k: int
    top: int | None
    per_class: tuple[ClassWords, ...]

    def for_class(self, label: str) -> ClassWords:
        for entry in self.per_class:
            if entry.label == label:
                return entry
        raise KeyError(label)

    def to_dict(self) -> dict:
        return plain(self)


# The lists below are read off the class-count tables the model keeps (``feature_prob_``, K × |V|), with numpy over
# whole rows: no loop over the vocabulary, no document read again. Two things make a large vocabulary slow if done
# naively, and both are avoided. (1) Ties: every word a class never saw shares one probability (on 20 Newsgroups
# about 118,000 of 130,000 words per class), and ``np.partition`` degrades badly on so many equal values (20 ms a
# row, 0.75 s for the 20 rows), where a plain ``np.sort`` of the values takes under 1 ms: the cutoff is read from a
# sort of the values, then only the words above it and the few needed from its tie group are ordered. (2) The
# alphabetical tie-break: a fixed-width numpy string array of the vocabulary costs 94 MB and 0.3 s on 20
# Newsgroups (its longest "word" has 180 characters); the vocabulary is alphabetical already when it comes from a
# bag of words, so the rank is found once per set of statistics and kept with them.
def _alphabetical_rank(model: NaiveBayes) -> np.ndarray:
    """Each word's place in the alphabetical order of the vocabulary (``ClassStatistics.alphabetical_rank``)."""
    return model.statistics.alphabetical_rank


def _nth_largest(values: np.ndarray, n: int, common=None):
    """The n-th largest of ``values`` (1 ≤ n ≤ len), counted with repeats. A sort, not ``np.partition`` (see above);
    when at least n values exceed ``common`` (a value most of them share, such as a class's probability of an unseen
    word), only those are sorted."""
    if common is not None:
        higher = values[values > common]
        if len(higher) >= n:
            return np.sort(higher)[len(higher) - n]
    return np.sort(values)[len(values) - n]


def _unseen_probability(model: NaiveBayes, class_index: int):
    """The probability every word unseen in the class shares (a hint for ``_nth_largest``), None if unknown."""
    unobserved = getattr(model, "unobserved_prob", None)
    return None if unobserved is None else unobserved[class_index]


def _most_probable(probabilities: np.ndarray, alphabetical: np.ndarray, n: int, common=None) -> np.ndarray:
    """Indices of the n largest values, largest first, ties alphabetical. Only the words above the n-th value are
    sorted, and of the words tied with it only the alphabetically first ones still needed: O(|V|) plus a sort of the
    values (of those above ``common``, see ``_nth_largest``), however many words share the n-th value."""
    n = min(n, len(probabilities))
    if n <= 0:
        return np.array([], dtype=np.int64)
    cutoff = _nth_largest(probabilities, n, common)
    above = np.flatnonzero(probabilities > cutoff)  # fewer than n
    above = above[np.lexsort((alphabetical[above], -probabilities[above]))]
    tied = np.flatnonzero(probabilities == cutoff)
    wanted = n - len(above)  # at least 1
    if wanted < len(tied):
        tied = tied[np.argpartition(alphabetical[tied], wanted - 1)[:wanted]]  # ranks are distinct: no ties here
    tied = tied[np.argsort(alphabetical[tied])]
    return np.concatenate((above, tied)).astype(np.int64, copy=False)


def _ranked(model: NaiveBayes, k: int, indices: np.ndarray) -> tuple[RankedWord, ...]:
    table = model.feature_prob_
    return tuple(RankedWord(model.vocabulary[j], int(j), float(table[k, j])) for j in indices.tolist())


def top_words(model: NaiveBayes, k: int = 10) -> WordLists:
    """Per class, the k words with the highest ψ_jk (Bernoulli) or θ_jk (multinomial), most probable first;
    equal probabilities in alphabetical order."""
    k = _positive_int("k", k)
    table = model.feature_prob_
    alphabetical = _alphabetical_rank(model)
    per_class = tuple(
        ClassWords(
            label,
            _ranked(model, c, _most_probable(table[c], alphabetical, k, _unseen_probability(model, c))),
            model.statistics.n_words,
        )
        for c, label in enumerate(model.classes)
    )
    return WordLists(model.kind, _parameter_name(model), k, None, per_class)


def unique_top_words(model: NaiveBayes, top: int = 200, k: int = 10) -> WordLists:
    """The "top unique words" of the lecture notebook: for each class its ``top`` most probable words, minus
    every word among the ``top`` of any other class; of those that remain, the k most probable.

    Given most probable first. (The notebook prints ``unique_words[-10:]`` of an ascending list: the same
    words, least probable first.) Ties at the ``top`` boundary are broken alphabetically; the notebook's
    ``np.argsort`` left them in an arbitrary order. ``available`` counts the unique words before taking k.
    """
    k = _positive_int("k", k)
    top = _positive_int("top", top)
    table = model.feature_prob_
    alphabetical = _alphabetical_rank(model)
    tops = [
        _most_probable(table[c], alphabetical, top, _unseen_probability(model, c))
        for c in range(model.statistics.n_classes)
    ]
    # How many classes hold each word among their top: a word of one class's top is unique when that is 1.
    holders = np.bincount(np.concatenate(tops), minlength=model.statistics.n_words)
    per_class = []
    for c, label in enumerate(model.classes):
        unique = tops[c][holders[tops[c]] == 1]  # still most probable first
        per_class.append(ClassWords(label, _ranked(model, c, unique[:k]), len(unique)))
    return WordLists(model.kind, _parameter_name(model), k, top, tuple(per_class))


@dataclass(frozen=True)
class DiscriminativeWord:
    word: str
    index: int
    positive_probability: float  # P(w | positive): ψ or θ
    negative_probability: float  # P(w | negative)
    score: float  # the ratio or the difference in the direction of its list: +inf when the other side is 0

    def to_dict(self) -> dict:
        return plain(self)


@dataclass(frozen=True)
class DiscriminativeWords:
    """Words whose probability differs most between two classes, in both directions.

    ``toward_positive``: words with P(w|positive) > P(w|negative), ranked by P(w|positive)/P(w|negative) (or
    by P(w|positive) − P(w|negative)); ``toward_negative`` the same with the classes swapped, its ``score``
    being P(w|negative)/P(w|positive) (or the difference the other way round). Only words with probability
    above ``threshold`` in at least one of the two classes are considered. Equal scores: the word more probable
    in the favoured class first, then alphabetical. Infinite ratios (a zero on the other side, α = 0) come first.
    """

    kind: str
    parameter: str
    positive: str
    negative: str
    by: str
    threshold: float
    k: int
    considered: int  # words above the threshold
    toward_positive: tuple[DiscriminativeWord, ...]
    toward_negative: tuple[DiscriminativeWord, ...]

    def to_dict(self) -> dict:
        return plain(self)


def _score(favoured: np.ndarray, other: np.ndarray, by: str) -> np.ndarray:
    if by == "difference":
        return favoured - other
    with np.errstate(divide="ignore"):  # x/0 with x > 0 is +inf; 0/0 cannot occur (one side is above threshold)
        return favoured / other


def discriminative_words(
    model: NaiveBayes,
    positive,
    negative,
    *,
    k: int = 20,
    threshold: float = 1e-4,
    by: str = "ratio",
) -> DiscriminativeWords:
    """The words that tell class ``positive`` from class ``negative`` (both labels of ``model``); see
    ``DiscriminativeWords``. As in the lecture: words with probability > ``threshold`` in either class, ranked by
    the ratio (or the difference) of their probabilities, the top ``k`` each way."""
    k = _positive_int("k", k)
    if by not in DISCRIMINATIVE_MEASURES:
        raise ValueError(f"by must be one of {DISCRIMINATIVE_MEASURES}, not {by!r}")
    threshold = float(threshold)
    if not 0.0 <= threshold < 1.0:
        raise ValueError(f"the threshold is a probability: between 0 and 1 (excluded), not {threshold}")
    p_index, n_index = _class_number(model, positive), _class_number(model, negative)
    if p_index == n_index:
        raise ValueError("Choose two different classes to compare.")
    table = model.feature_prob_
    p, q = table[p_index], table[n_index]
    considered = (p > threshold) | (q > threshold)
    alphabetical = _alphabetical_rank(model)

    def direction(favoured: np.ndarray, other: np.ndarray) -> tuple[DiscriminativeWord, ...]:
        words = np.flatnonzero(considered & (favoured > other))
        scores = _score(favoured[words], other[words], by)
        if len(words) > k:  # only the words scoring at least the k-th score can be listed: sort just those
            keep = scores >= _nth_largest(scores, k)
            words, scores = words[keep], scores[keep]
        order = np.lexsort((alphabetical[words], -favoured[words], -scores))[:k]
        return tuple(
            DiscriminativeWord(model.vocabulary[j], int(j), float(p[j]), float(q[j]), float(s))
            for j, s in zip(words[order].tolist(), scores[order].tolist(), strict=True)
        )

    return DiscriminativeWords(
        kind=model.kind,
        parameter=_parameter_name(model),
        positive=model.classes[p_index],
        negative=model.classes[n_index],
        by=by,
        threshold=threshold,
        k=k,
        considered=int(np.count_nonzero(considered)),
        toward_positive=direction(p, q),
        toward_negative=direction(q, p),
    )


# -- 3. overconfidence: the same evidence, counted n times -----------------------------------------------------------


@dataclass(frozen=True)
class RepeatPoint:
    repeats: int
    log_posteriors: tuple[float, ...]  # log P(k | x repeated n times), per class; −inf for impossible classes
    posteriors: tuple[float, ...]
    decision: str | None  # the most probable class at this n; None when every class is impossible

    def to_dict(self) -> dict:
        return {
            "repeats": self.repeats,
            "log_posteriors": [number(v) for v in self.log_posteriors],
            "posteriors": [number(v) for v in self.posteriors],
            "decision": self.decision,
        }


@dataclass(frozen=True)
class Overconfidence:
    """How the posterior runs to 1 when one review's evidence is counted n = 1 … max_repeats times.

    Naive Bayes treats every factor as independent evidence, so the review repeated n times has
    log P(x⁽ⁿ⁾ | k) = n · log P(x | k), and log P(k | x⁽ⁿ⁾) = log φ_k + n · log P(x | k) − log Σ_c (…).
    (For the multinomial model on counts this is exactly the review's text written n times; for Bernoulli and
    binary features, which would see the same words present again, it is n independent copies of the review.)
    ``decision`` is the class decided for the review itself (n = 1). As n grows the prior matters less and less:
    ``converges_to`` is the class whose posterior tends to 1, the one with the highest log P(x | k) (None when
    several share it, or every class is impossible); it can differ from ``decision`` when the prior decided the
    single review. ``saturates_at`` is the first n at which the top posterior is 1.0 in float64, or None if that
    does not happen by ``max_repeats``.
    """

    text: str
    model: dict
    classes: tuple[str, ...]
    known_words: int  # vocabulary words in the review (occurrences, or distinct words for presence features)
    log_prior: tuple[float, ...]
    log_likelihood: tuple[float, ...]  # log P(x | k) for the review once: the slope in n
    points: tuple[RepeatPoint, ...]
    decision: str | None
    converges_to: str | None
    saturates_at: int | None

    def posterior_of(self, label: str) -> tuple[float, ...]:
        k = self.classes.index(label)
        return tuple(p.posteriors[k] for p in self.points)

    @property
    def log10_doubt(self) -> tuple[float | None, ...]:
        """Per point, log₁₀(1 − the top posterior), the room left below 1: summed from the other classes'
        log posteriors, so it stays exact long after the top posterior itself reads 1.0 in float64.
        −inf when every other class is impossible (the doubt is exactly 0); None when nothing is decidable."""
        return tuple(_log10_doubt(p.log_posteriors) if p.decision is not None else None for p in self.points)

    def to_dict(self) -> dict:
        return {
            "text": self.text,
            "model": self.model,
            "classes": list(self.classes),
            "known_words": self.known_words,
            "log_prior": [number(v) for v in self.log_prior],
            "log_likelihood": [number(v) for v in self.log_likelihood],
            "points": [p.to_dict() for p in self.points],
            "decision": self.decision,
            "converges_to": self.converges_to,
            "saturates_at": self.saturates_at,
        }


def _log10_doubt(log_posteriors) -> float:
    values = np.asarray(log_posteriors, dtype=float)
    others = np.delete(values, int(values.argmax()))
    if len(others) == 0 or np.all(others == -np.inf):
        return -np.inf
    return float(logsumexp(others) / np.log(10.0))


def _log_posterior_near_one(joint: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(log P(k | x), decidable), accurate for a posterior close to 1.

    log P(top | x) = −log(1 + r) with r = Σ_(c ≠ top) exp(log joint_c − log joint_top), computed with log1p, so
    the top posterior is 1 − r to the last bit instead of moving in steps of one ulp of the log joint (5.7e-14
    when it is near −300), as ``joint − (shift + log Σ)`` would. Here that matters: the curve is all about how
    close to 1 the posterior gets."""
    decidable = ~np.all(joint == -np.inf, axis=1)
    log_posterior = np.full_like(joint, -np.inf)
    scores = joint[decidable]
    rows = np.arange(len(scores))
    top = scores.argmax(axis=1)
    shifted = scores - scores[rows, top][:, None]  # exactly 0 for the top class; −∞ stays −∞
    others = np.exp(shifted)
    others[rows, top] = 0.0
    log_posterior[decidable] = shifted - np.log1p(others.sum(axis=1, keepdims=True))
    return log_posterior, decidable


def overconfidence(
    train: TrainingSet,
    text: str,
    *,
    kind: str,
    alpha,
    max_repeats: int = 50,
    **model_options,
) -> Overconfidence:
    """The posterior of each class for ``text`` counted 1 … ``max_repeats`` times (see ``Overconfidence``).

    Naive Bayes takes every factor as independent evidence, so the review counted n times has
    log P(x⁽ⁿ⁾ | k) = n · log P(x | k): the posterior runs to 1, towards the class of highest likelihood, whatever
    the prior said.

    Parameters
    ----------
    train : TrainingSet
        The training set.
    text : str
        The review.
    kind : {"bernoulli", "multinomial"}
        The model.
    alpha : str, int, float or Fraction
        The pseudo-count.
    max_repeats : int, default 50
        The largest n, at least 1.
    **model_options
        ``binary``, ``fit_prior``, ``class_prior``, ``epsilon``: passed to ``train.model``.

    Returns
    -------
    Overconfidence
        A point per n, with the decision for n = 1, the class the posterior converges to and the first n at which
        float64 rounds the top posterior to 1.0.

    Raises
    ------
    ValueError
        If ``max_repeats`` is not a whole number of at least 1, or the model settings are refused.
    CorpusError
        As ``TrainingSet.model`` raises it.

    Examples
    --------
    The prior decides d5 for China once; counted again and again, the evidence alone favours Japan.

    >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
    >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
    >>> curve = overconfidence(training, "Chinese Chinese Chinese Tokyo Japan", kind="multinomial", alpha=1,
    ...                        max_repeats=5)
    >>> [round(p.posteriors[0], 6) for p in curve.points]  # P(China | d5 counted n times)
    [0.689759, 0.622311, 0.549772, 0.475053, 0.401434]
    >>> curve.decision, curve.converges_to
    ('China', 'Japan')
    """
    max_repeats = _positive_int("max_repeats", max_repeats)
    model = train.model(kind, alpha, **model_options)
    matrix = train.transform([text])
    jll = model.joint_log_likelihood(matrix)[0]
    log_prior = model.class_log_prior_
    possible = log_prior > -np.inf  # a class with prior 0 stays impossible, whatever the evidence
    log_likelihood = np.full_like(jll, -np.inf)
    log_likelihood[possible] = jll[possible] - log_prior[possible]

    repeats = np.arange(1, max_repeats + 1, dtype=float)[:, None]
    joint = np.full((max_repeats, len(jll)), -np.inf)
    finite = possible & (log_likelihood > -np.inf)
    joint[:, finite] = log_prior[finite] + repeats * log_likelihood[finite]
    log_posterior, decidable = _log_posterior_near_one(joint)
    posterior = np.exp(log_posterior)

    classes = model.classes
    points = []
    saturates_at = None
    for n in range(max_repeats):
        decision = classes[int(joint[n].argmax())] if decidable[n] else None
        points.append(
            RepeatPoint(
                repeats=n + 1,
                log_posteriors=tuple(log_posterior[n].tolist()),
                posteriors=tuple(posterior[n].tolist()),
                decision=decision,
            )
        )
        if saturates_at is None and decidable[n] and posterior[n].max() == 1.0:
            saturates_at = n + 1
    converges_to = None
    if finite.any():
        top = np.flatnonzero(log_likelihood == log_likelihood.max())
        converges_to = classes[int(top[0])] if len(top) == 1 else None
    counted = matrix.copy()
    if model.uses_presence:
        counted.data = np.ones_like(counted.data)
    return Overconfidence(
        text=text,
        model=model.to_dict(),
        classes=classes,
        known_words=int(counted.sum()),
        log_prior=tuple(log_prior.tolist()),
        log_likelihood=tuple(log_likelihood.tolist()),
        points=tuple(points),
        decision=points[0].decision,
        converges_to=converges_to,
        saturates_at=saturates_at,
    )


@dataclass(frozen=True)
class Calibration:
    """How sure a model says it is on test documents, against how often it is right.

    ``mean_top_posterior`` is the mean of max_k P(k | x) over the decided documents and ``decided_accuracy``
    the share of those that are correct: for a calibrated model the two agree, and ``gap`` (their difference)
    is 0. ``sure`` documents are those with a top posterior of at least ``threshold``; ``sure_correct`` of
    them are correct. Undecidable documents (every class at probability 0) have no posterior and are only
    counted in ``undecidable``; ``accuracy`` counts them as wrong, like ``evaluate``.

    Parameters
    ----------
    n_test, correct, undecidable : int
        Test documents, those predicted right, those no class could claim.
    accuracy : float
        correct / n_test.
    decided_accuracy, mean_top_posterior, gap : float or None
        None when no document is decided.
    threshold : float
        What counts as sure.
    sure, sure_correct : int
        Decided documents with a top posterior of at least ``threshold``, and those of them that are correct.
    """

    n_test: int
    correct: int
    accuracy: float
    undecidable: int
    decided_accuracy: float | None
    mean_top_posterior: float | None
    gap: float | None
    threshold: float
    sure: int
    sure_correct: int

    def to_dict(self) -> dict:
        return plain(self)


def calibration(model: NaiveBayes, matrix: sp.csr_matrix, labels, *, threshold: float = 0.99) -> Calibration:
    """Compare the model's confidence with its accuracy on the documents of ``matrix`` whose true classes are
    ``labels``; see ``Calibration``.

    Parameters
    ----------
    model : NaiveBayes
        A fitted model.
    matrix : scipy.sparse matrix of shape (n_documents, n_words)
        Counts over the model's vocabulary, from ``train.transform``.
    labels : sequence of str
        The true class of each document.
    threshold : float, default 0.99
        A top posterior at least this high is "sure": above 0, at most 1.

    Returns
    -------
    Calibration
        The accuracy beside the mean top posterior, and the documents the model is sure of.

    Raises
    ------
    ValueError
        If ``threshold`` is not in (0, 1], or ``matrix`` is not one of counts over the vocabulary.
    CorpusError
        If there are no documents, the labels do not match them in number, or a label is not a class of the model.

    Examples
    --------
    >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
    >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
    >>> test = Corpus.from_pairs([("China", "Chinese Chinese Chinese Tokyo Japan"), ("Japan", "Tokyo Japan"),
    ...                           ("China", "Beijing Shanghai")])
    >>> result = calibration(training.model("multinomial", 1), training.transform(test.texts), test.labels)
    >>> result.decided_accuracy, round(result.mean_top_posterior, 6), round(result.gap, 6)  # right more than it says
    (1.0, 0.76178, -0.23822)
    """
    threshold = float(threshold)
    if not 0.0 < threshold <= 1.0:
        raise ValueError(f"the threshold is a probability above 0 and at most 1, not {threshold}")
    true = _true_class_numbers(model.classes, labels, matrix.shape[0])
    log_posterior, decidable = _log_posterior_near_one(model.joint_log_likelihood(matrix))
    predicted = log_posterior.argmax(axis=1)  # the argmax of the joint, as predict_index
    right = decidable & (predicted == true)
    top = np.exp(log_posterior.max(axis=1))
    decided = int(decidable.sum())
    sure = decidable & (top >= threshold)
    correct = int(right.sum())
    decided_accuracy = correct / decided if decided else None
    mean_top = float(top[decidable].mean()) if decided else None
    return Calibration(
        n_test=len(true),
        correct=correct,
        accuracy=correct / len(true),
        undecidable=len(true) - decided,
        decided_accuracy=decided_accuracy,
        mean_top_posterior=mean_top,
        gap=None if mean_top is None else mean_top - decided_accuracy,
        threshold=threshold,
        sure=int(sure.sum()),
        sure_correct=int((sure & right).sum()),
    )


# -- 4. the generative story: sampling a document ------------------------------------------------------------------


@dataclass(frozen=True)
class SampledDocument:
    """A synthetic document: the class drawn from φ (or given), then its words from P(x | class)."""

    label: str
    words: tuple[str, ...]
    seed: int

    @property
    def text(self) -> str:
        return " ".join(self.words)

    def to_dict(self) -> dict:
        return plain(self)


def mean_document_length(model: NaiveBayes, class_index: int) -> int:
    """The mean length of the class's training documents in vocabulary tokens, rounded half to even: Σ_j c_jk / n_k
    (for binary features, Σ_j n_jk / n_k, the mean number of distinct words, since that is what θ counts)."""
    stats = model.statistics
    return int(round(float(stats.feature_total[model.binary][class_index]) / float(stats.class_count_[class_index])))


def sample_document(model: NaiveBayes, *, seed: int, length: int | None = None, label=None) -> SampledDocument:
    """Run the model forwards, as a generative model can (``np.random.default_rng(seed)``; the same seed gives
    the same document):

    1. the class: drawn from φ, unless ``label`` is given (then no class is drawn);
    2. multinomial: ``length`` words (default ``mean_document_length``), each drawn from θ_k, in draw order;
       Bernoulli: each vocabulary word present independently with probability ψ_jk, in vocabulary order
       (``length`` does not apply).

    A word of probability 0 (α = 0) is never drawn.
    """
    rng = np.random.default_rng(whole_number(seed, "the seed"))
    if label is None:
        prior = model.class_prior_ / model.class_prior_.sum()
        k = int(rng.choice(len(prior), p=prior))
    else:
        k = _class_number(model, label)
    vocabulary = model.vocabulary
    probabilities = model.feature_prob_[k]
    if model.kind == "bernoulli":
        if length is not None:
            raise ValueError("A Bernoulli document has no length to choose: every word is present or not.")
        present = np.flatnonzero(rng.random(len(probabilities)) < probabilities)
        words = tuple(vocabulary[j] for j in present.tolist())
    else:
        if length is None:
            length = mean_document_length(model, k)
        else:
            length = whole_number(length, "the length")
        # θ_k sums to 1 up to rounding (or an ε-floor): normalised so that numpy accepts it as a distribution.
        drawn = rng.choice(len(probabilities), size=int(length), p=probabilities / probabilities.sum())
        words = tuple(vocabulary[j] for j in drawn.tolist())
    return SampledDocument(label=model.classes[k], words=words, seed=int(seed))


__all__ = [
    "DEFAULT_ALPHAS", "DISCRIMINATIVE_MEASURES",
    "SweepPoint", "AlphaSweep", "alpha_sweep",
    "RankedWord", "ClassWords", "WordLists", "top_words", "unique_top_words",
    "DiscriminativeWord", "DiscriminativeWords", "discriminative_words",
    "RepeatPoint", "Overconfidence", "overconfidence", "Calibration", "calibration",
    "SampledDocument", "mean_document_length", "sample_document",
]
