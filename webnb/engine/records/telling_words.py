"""The words each class leans on, as the telling-words page shows them: the most probable words of each class, the
ones no other class has among its most probable, the words whose probability differs most between two classes
(the top one worked out with its exact numbers), and what word pairs (bigrams) add to a model.

The lists themselves come from ``insights`` (``top_words``, ``unique_top_words``, ``discriminative_words``); this
adds what the page reads beside them: short exact ratios, both measures for every listed word, the worked formula,
and the comparison of single words with words and pairs on held-out documents.
"""
from __future__ import annotations

import math
import threading
import weakref
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass

from webnb.engine.evaluation.heldout import HeldOut
from webnb.engine.evaluation.scores import evaluate
from webnb.engine.records.insights import (
    DiscriminativeWords,
    WordLists,
    discriminative_words,
    top_words,
    unique_top_words,
)
from webnb.engine.shared.plain import fraction_text, number, plain, ratio_text
from webnb.engine.text.models import NaiveBayes

SEED_TOP = 200  # the lecture notebook's candidate list: each class's 200 most probable words
THRESHOLD = 1e-4  # as in the lecture: only words with probability above this in one of the two classes
SHORT_RATIO = 16  # characters: a longer exact ratio is left out and only the decimal is shown
# The comparison of word pairs: single words against words and pairs, every other analysis option kept.
FEATURE_SETS = (("words", (1, 1), "single words"), ("pairs", (1, 2), "words and word pairs"))


def default_top(n_words: int) -> int:
    """The seed's 200 candidates, or a quarter of a small vocabulary (at least 5): with 200 candidates out of a
    hundred words every word is in every class's list, and no word can be unique.

    Parameters
    ----------
    n_words : int
        The vocabulary's size.

    Returns
    -------
    int
        How many of each class's most probable words are its candidates for the unique words.

    Examples
    --------
    >>> default_top(100), default_top(10), default_top(100_000)
    (25, 5, 200)
    """
    return SEED_TOP if n_words >= 4 * SEED_TOP else max(5, n_words // 4)


def _short_ratio(model: NaiveBayes, k: int, j: int) -> str | None:
    """ψ_jk or θ_jk as the lecture's unreduced ratio, when it is short enough to read (None under a floor)."""
    if model.epsilon is not None:
        return None
    text = ratio_text(model.feature_ratio(k, j))
    return text if len(text) <= SHORT_RATIO else None


# -- 1 and 2: the most probable words, and the ones no other class has among its most probable -------------------


@dataclass(frozen=True)
class ListedWord:
    word: str
    probability: float  # ψ_jk or θ_jk
    ratio: str | None  # the same as a short unreduced ratio, such as "9/11"

    def to_dict(self) -> dict:
        return plain(self)


@dataclass(frozen=True)
class WordColumn:
    label: str
    words: tuple[ListedWord, ...]
    available: int  # as in ``ClassWords``

    def to_dict(self) -> dict:
        return {"class": self.label, "available": self.available, "words": [w.to_dict() for w in self.words]}


def _columns(model: NaiveBayes, lists: WordLists) -> tuple[WordColumn, ...]:
    columns = []
    for entry in lists.per_class:
        k = model.classes.index(entry.label)
        words = tuple(ListedWord(w.word, w.probability, _short_ratio(model, k, w.index)) for w in entry.words)
        columns.append(WordColumn(entry.label, words, entry.available))
    return tuple(columns)


# -- 3: the words that tell two classes apart ----------------------------------------------------------------------


@dataclass(frozen=True)
class TellingWord:
    """A word of one direction's list with both measures, in the direction of its list."""

    word: str
    index: int
    favoured: float  # its probability in the class the list points to
    other: float
    ratio: float  # favoured / other: +inf when other is 0
    difference: float  # favoured − other

    @property
    def is_pair(self) -> bool:
        return " " in self.word

    def to_dict(self) -> dict:
        return {
            "word": self.word,
            "favoured_probability": number(self.favoured),
            "other_probability": number(self.other),
            "ratio": number(self.ratio),
            "difference": number(self.difference),
        }


def _ratio(favoured: float, other: float) -> float:
    # Lists hold only words more probable in the favoured class, so favoured > 0: x/0 is +∞, never 0/0.
    return math.inf if other == 0 else favoured / other


def telling_rows(found: DiscriminativeWords, toward_positive: bool) -> tuple[TellingWord, ...]:
    """Both measures for each word of one list of ``found``: the ranked one as the engine scored it, the other
    worked out beside it."""
    rows = []
    for w in found.toward_positive if toward_positive else found.toward_negative:
        favoured, other = (
            (w.positive_probability, w.negative_probability) if toward_positive
            else (w.negative_probability, w.positive_probability)
        )
        ratio = w.score if found.by == "ratio" else _ratio(favoured, other)
        difference = w.score if found.by == "difference" else favoured - other
        rows.append(TellingWord(w.word, w.index, favoured, other, ratio, difference))
    return tuple(rows)


@dataclass(frozen=True)
class WorkedMeasure:
    """The top word of the first non-empty list with its numbers put into the measure ranked by: its probability in
    the favoured class and in the other (with their unreduced ratios as [numerator, denominator], when short), the
    value as ranked (+inf for a ratio over an exact 0), and the exact value when it is a short fraction."""

    word: str
    by: str
    favoured_label: str
    other_label: str
    favoured: float
    other: float
    favoured_parts: tuple[str, str] | None
    other_parts: tuple[str, str] | None
    value: float
    exact: str | None

    def to_dict(self) -> dict:
        return {
            "word": self.word,
            "by": self.by,
            "favoured_label": self.favoured_label,
            "other_label": self.other_label,
            "favoured": number(self.favoured),
            "other": number(self.other),
            "favoured_parts": None if self.favoured_parts is None else list(self.favoured_parts),
            "other_parts": None if self.other_parts is None else list(self.other_parts),
            "value": number(self.value),
            "exact": self.exact,
        }


def _ratio_parts(model: NaiveBayes, k: int, j: int) -> tuple[str, str] | None:
    if _short_ratio(model, k, j) is None:
        return None
    numerator, denominator = model.feature_ratio(k, j)
    return ratio_text((numerator,)), ratio_text((denominator,))


def worked_measure(model: NaiveBayes, found: DiscriminativeWords) -> WorkedMeasure | None:
    """The top word of ``found`` worked out (see ``WorkedMeasure``); None when both lists are empty."""
    rows = found.toward_positive or found.toward_negative
    if not rows:
        return None
    top = rows[0]
    toward_positive = bool(found.toward_positive)
    favoured_label, other_label = (
        (found.positive, found.negative) if toward_positive else (found.negative, found.positive)
    )
    favoured_k, other_k = model.classes.index(favoured_label), model.classes.index(other_label)
    favoured = top.positive_probability if toward_positive else top.negative_probability
    other = top.negative_probability if toward_positive else top.positive_probability
    exact_favoured = model.exact_feature_prob(favoured_k, top.index)
    exact_other = model.exact_feature_prob(other_k, top.index)
    if found.by == "ratio":
        exact = exact_favoured / exact_other if exact_favoured is not None and exact_other else None
    else:
        exact = exact_favoured - exact_other if exact_favoured is not None else None
    exact_text = fraction_text(exact) if exact is not None else None
    short = exact_text is not None and len(exact_text) <= SHORT_RATIO and exact.denominator != 1
    return WorkedMeasure(
        word=top.word,
        by=found.by,
        favoured_label=favoured_label,
        other_label=other_label,
        favoured=favoured,
        other=other,
        favoured_parts=_ratio_parts(model, favoured_k, top.index),
        other_parts=_ratio_parts(model, other_k, top.index),
        value=top.score,
        exact=exact_text if short else None,
    )


# -- the three lists together ----------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class TellingWords:
    """Everything the page lists for ``model``: ``k`` words per list, the ``top`` most probable words of each class
    as its candidates for the unique words, and the two classes compared, ranked ``by`` ratio or difference.

    Parameters
    ----------
    model : NaiveBayes
        The model.
    most_probable : WordLists
        Per class, the ``k`` words of highest ψ or θ.
    most_probable_columns : tuple of WordColumn
        The same as the page's columns, with short exact ratios.
    unique : WordLists
        Per class, the words among its ``top`` most probable that no other class has among its own.
    unique_columns : tuple of WordColumn
        The same as columns.
    found : DiscriminativeWords
        The words whose probability differs most between the two classes compared.
    toward_positive, toward_negative : tuple of TellingWord
        Those words, each with both measures.
    formula : WorkedMeasure or None
        The top word's measure worked out with its exact numbers.

    Attributes
    ----------
    vocabulary_size : int
        |V|.
    every_word_a_candidate : bool
        Whether ``top`` reaches the whole vocabulary (then no word is unique).
    """

    model: NaiveBayes
    most_probable: WordLists
    most_probable_columns: tuple[WordColumn, ...]
    unique: WordLists
    unique_columns: tuple[WordColumn, ...]
    found: DiscriminativeWords
    toward_positive: tuple[TellingWord, ...]
    toward_negative: tuple[TellingWord, ...]
    formula: WorkedMeasure | None

    @property
    def vocabulary_size(self) -> int:
        return self.model.statistics.n_words

    @property
    def every_word_a_candidate(self) -> bool:
        """Whether ``top`` reaches the whole vocabulary: then every word is every class's candidate, none unique."""
        return self.unique.top >= self.vocabulary_size

    def to_dict(self) -> dict:
        found = self.found
        return {
            "model": self.model.to_dict(),
            "classes": list(self.model.classes),
            "vocabulary_size": self.vocabulary_size,
            "settings": {
                "k": found.k, "top": self.unique.top, "by": found.by,
                "positive": found.positive, "negative": found.negative,
            },
            "top_words": {
                "parameter": self.most_probable.parameter,
                "k": self.most_probable.k,
                "per_class": [c.to_dict() for c in self.most_probable_columns],
            },
            "unique_words": {
                "parameter": self.unique.parameter,
                "k": self.unique.k,
                "top": self.unique.top,
                "every_word_a_candidate": self.every_word_a_candidate,
                "per_class": [c.to_dict() for c in self.unique_columns],
            },
            "discriminative": {
                "positive": found.positive,
                "negative": found.negative,
                "by": found.by,
                "threshold": found.threshold,
                "considered": found.considered,
                "toward_positive": [w.to_dict() for w in self.toward_positive],
                "toward_negative": [w.to_dict() for w in self.toward_negative],
                "formula": None if self.formula is None else self.formula.to_dict(),
            },
        }


# The lists last told per model, kept while the model lives (a training set keeps its few recent models): asking
# for the page again with the same settings, or polling its word-pair part, reads them instead of ranking again.
# Each model's entries hold every field but the model itself, so that they never keep their key alive.
TOLD_PER_MODEL = 8


class ToldLists:
    """The telling-words lists kept per model and settings, at most ``TOLD_PER_MODEL`` for each model, each model's
    dropped with it. The app makes one (``create_app``) and passes it to ``telling_words``; without one nothing is
    kept.

    Examples
    --------
    >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
    >>> model = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN)).model("multinomial", 1)
    >>> told = ToldLists()
    >>> first = telling_words(model, "China", "Japan", told=told)
    >>> telling_words(model, "China", "Japan", told=told).found is first.found
    True
    """

    def __init__(self):
        self._kept: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def get(self, model: NaiveBayes, key) -> dict | None:
        """The fields kept for ``model`` under ``key``, or None."""
        with self._lock:
            kept = self._kept.get(model)
            fields = None if kept is None else kept.get(key)
            if fields is not None:
                kept.move_to_end(key)
            return fields

    def keep(self, model: NaiveBayes, key, fields: dict) -> None:
        """Keeps ``fields`` for ``model`` under ``key``, the least recently asked for going first."""
        with self._lock:
            kept = self._kept.setdefault(model, OrderedDict())
            kept[key] = fields
            kept.move_to_end(key)
            while len(kept) > TOLD_PER_MODEL:
                kept.popitem(last=False)


def telling_words(
    model: NaiveBayes, positive, negative, *, k: int = 10, top: int = SEED_TOP, by: str = "ratio",
    threshold: float = THRESHOLD, told: ToldLists | None = None,
) -> TellingWords:
    """The page's lists for ``model`` (see ``TellingWords``), comparing the classes ``positive`` and ``negative``.

    Everything is read from the model's class tables, which it derives from the training set's kept counts (see
    ``insights``); with ``told``, the result is kept per model and settings, so the same page asked again costs
    nothing.

    Parameters
    ----------
    model : NaiveBayes
        A fitted model.
    positive, negative : str
        The two classes compared, different.
    k : int, default 10
        Words per list.
    top : int, default ``SEED_TOP`` (200)
        Each class's candidates for the unique words.
    by : {"ratio", "difference"}, default "ratio"
        Rank the compared words by the ratio or by the difference of their probabilities.
    threshold : float, default ``THRESHOLD`` (1e-4)
        Only words with a probability above it in one of the two classes are compared.
    told : ToldLists, optional
        Where the lists are kept and looked up (the app's); None ranks every time.

    Returns
    -------
    TellingWords
        The three lists, with the worked measure of the top word.

    Raises
    ------
    ValueError
        If ``k`` or ``top`` is not a whole number of at least 1, ``by`` is neither measure, ``threshold`` is not
        between 0 and 1, or the two classes are the same or not classes of the model.
    WorkTooLarge
        If the app's memory cap refuses the dense ψ or θ table that the words are ranked by.

    Examples
    --------
    >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
    >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
    >>> lists = telling_words(training.model("multinomial", 1), "China", "Japan", k=2, top=3)
    >>> lists.most_probable.per_class[0].names
    ('chinese', 'beijing')
    >>> [w.word for w in lists.toward_positive], [w.word for w in lists.toward_negative]
    (['chinese', 'beijing'], ['japan', 'tokyo'])
    """
    try:
        key = (positive, negative, type(k), k, type(top), top, by, type(threshold), threshold)  # True is not 1
        hash(key)
    except TypeError:  # unhashable settings: refused below, with the engine's own message
        key = None
    fields = None if key is None or told is None else told.get(model, key)
    if fields is None:
        most_probable = top_words(model, k)
        unique = unique_top_words(model, top, k)
        found = discriminative_words(model, positive, negative, k=k, threshold=threshold, by=by)
        fields = {
            "most_probable": most_probable,
            "most_probable_columns": _columns(model, most_probable),
            "unique": unique,
            "unique_columns": _columns(model, unique),
            "found": found,
            "toward_positive": telling_rows(found, True),
            "toward_negative": telling_rows(found, False),
            "formula": worked_measure(model, found),
        }
        if key is not None and told is not None:
            told.keep(model, key, fields)
    return TellingWords(model=model, **fields)


# -- 4: word pairs on and off ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FeatureSetScore:
    """One feature set trained on the same training documents and scored on the same test documents."""

    name: str  # "words" or "pairs", as in FEATURE_SETS
    title: str
    ngrams: tuple[int, int]
    current: bool  # the lesson's own ngram range
    vocabulary_size: int
    n_train: int
    n_test: int
    correct: int
    accuracy: float
    undecidable: int

    def to_dict(self) -> dict:
        return {
            "features": self.title,
            "ngrams": f"{self.ngrams[0]}-{self.ngrams[1]}",
            "vocabulary_size": self.vocabulary_size,
            "n_train": self.n_train,
            "n_test": self.n_test,
            "correct": self.correct,
            "accuracy": self.accuracy,
            "undecidable": self.undecidable,
        }


@dataclass(frozen=True)
class PairComparison:
    """Single words against words and pairs (``rows``, in FEATURE_SETS order), tested on the ``source`` documents
    ("split", "training" or "corpus"), and per class of the compared two (positive first) the word pairs among the
    k words that best tell them apart once pairs are features.

    Parameters
    ----------
    source : str
        "split", "training" or "corpus", as the ``HeldOut`` tested on.
    rows : tuple of FeatureSetScore
        Per feature set: its vocabulary's size, the training and test documents, and the accuracy.
    pairs : tuple of (str, tuple of TellingWord)
        Per class compared, the word pairs among its telling words.

    Attributes
    ----------
    state : str
        "done" (a comparison still being counted says "running", one that failed "failed").
    """

    source: str
    rows: tuple[FeatureSetScore, ...]
    pairs: tuple[tuple[str, tuple[TellingWord, ...]], ...]

    @property
    def state(self) -> str:
        """"done", where a comparison still being counted says "running" and one that could not be made "failed"."""
        return "done"

    def to_dict(self) -> dict:
        return {
            "state": self.state,
            "test": self.source,
            "feature_sets": [r.to_dict() for r in self.rows],
            "discriminative_pairs": {label: [w.word for w in words] for label, words in self.pairs},
        }


def compare_pairs(
    held: Mapping[str, HeldOut], model_options: dict, *, current: tuple[int, int], positive, negative, k: int,
    by: str = "ratio", threshold: float = THRESHOLD,
) -> PairComparison:
    """Train the model of ``model_options`` on each feature set's training documents and score it on their test
    documents (see ``PairComparison``).

    Parameters
    ----------
    held : mapping of str to HeldOut
        ``held[name]`` for each name of ``FEATURE_SETS`` ("words", "pairs"): the same documents counted with
        ``ngram_range`` (1, 1) and (1, 2).
    model_options : ModelOptions or dict
        Keywords of ``TrainingSet.model``.
    current : (int, int)
        The lesson's ngram range.
    positive, negative : str
        The two classes compared.
    k : int
        Words per list.
    by : {"ratio", "difference"}, default "ratio"
        How the telling words are ranked.
    threshold : float, default ``THRESHOLD``
        As for ``telling_words``.

    Returns
    -------
    PairComparison
        The accuracy of each feature set, and the telling word pairs.

    Raises
    ------
    KeyError
        If ``held`` lacks a feature set.
    ValueError, CorpusError
        If the model settings, the classes or the ranking settings are refused, or the test documents cannot be
        scored (see ``evaluate``).
    """
    rows, models = [], []
    for name, ngrams, title in FEATURE_SETS:
        part = held[name]
        model = part.training.model(**model_options)
        scores = evaluate(model, part.test_matrix, part.test_labels)
        models.append(model)
        rows.append(
            FeatureSetScore(
                name=name,
                title=title,
                ngrams=ngrams,
                current=current == ngrams,
                vocabulary_size=part.training.statistics.n_words,
                n_train=len(part.training.corpus),
                n_test=scores.n_test,
                correct=scores.correct,
                accuracy=scores.accuracy,
                undecidable=scores.undecidable,
            )
        )
    found = discriminative_words(models[-1], positive, negative, k=k, threshold=threshold, by=by)
    pairs = (
        (found.positive, tuple(w for w in telling_rows(found, True) if w.is_pair)),
        (found.negative, tuple(w for w in telling_rows(found, False) if w.is_pair)),
    )
    return PairComparison(source=held[FEATURE_SETS[0][0]].source, rows=tuple(rows), pairs=pairs)


__all__ = [
    "SEED_TOP", "THRESHOLD", "SHORT_RATIO", "FEATURE_SETS", "default_top",
    "ListedWord", "WordColumn", "TellingWord", "telling_rows", "WorkedMeasure", "worked_measure",
    "TellingWords", "telling_words", "TOLD_PER_MODEL", "ToldLists",
    "FeatureSetScore", "PairComparison", "compare_pairs",
]
