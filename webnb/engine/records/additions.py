"""One more labelled training document, and exactly what it changes.

``add_document`` counts the corpus with the document appended and compares the model before and after:
the counts n_k, n_jk and c_jk of the document's words, the priors φ_k, the word parameters ψ_jk or θ_jk
(exact fractions where the model has them), and how many of the K(d + 1) parameters moved, found by
comparing the two models cell by cell rather than by reasoning about which ones should move.

With the default vocabulary options nothing is ever pruned, so the new counts are the old ones plus the
document's (``incremental_training_set``): a few milliseconds instead of re-reading the corpus (about
1.3 s for 20 Newsgroups' 11,314 documents). Other options (min_df, max_df, max_features) can let words
in or out of the vocabulary depending on every document, so the corpus is counted again.
"""
from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from webnb.engine.shared.corpus import Corpus, CorpusError
from webnb.engine.shared.plain import fraction_text, number, ratio_text
from webnb.engine.text.analysis import DroppedWord
from webnb.engine.text.bag import BagOfWords
from webnb.engine.text.models import NaiveBayes, parse_alpha
from webnb.engine.text.statistics import ClassStatistics
from webnb.engine.text.training import TrainingSet

ADDED_ID_PREFIX = "added-"
# Breaking cells listed one by one; beyond this only their number is kept (a new word on 20 Newsgroups
# with α = 0 makes a zero in each of the 19 other classes).
MAX_LISTED_CELLS = 200


class AdditionError(CorpusError):
    """A document that cannot be added; the message says what to change."""


# -- the training set with the document ------------------------------------------------------------------------


def added_document_id(corpus: Corpus) -> str:
    """"added-1", or the next free number if the corpus already holds added documents."""
    taken = set(corpus.ids)
    number_ = 1
    while f"{ADDED_ID_PREFIX}{number_}" in taken:
        number_ += 1
    return f"{ADDED_ID_PREFIX}{number_}"


def corpus_with_document(corpus: Corpus, label: str, text: str) -> Corpus:
    """A copy of ``corpus`` with one more document at the end (the corpus itself is never changed).

    Parameters
    ----------
    corpus : Corpus
        The corpus to copy.
    label : str
        The new document's class.
    text : str
        Its text.

    Returns
    -------
    Corpus
        The documents of ``corpus`` and the new one, whose id is "added-1" (or the next number free).

    Examples
    --------
    >>> from webnb.engine.shared.corpus import Corpus
    >>> corpus = Corpus.from_pairs([("China", "Chinese Macao"), ("Japan", "Tokyo Japan")])
    >>> corpus_with_document(corpus, "Japan", "Osaka Japan").ids
    ('1', '2', 'added-1')
    """
    return Corpus(
        texts=corpus.texts + (text,),
        labels=corpus.labels + (label,),
        ids=corpus.ids + (added_document_id(corpus),),
        name=corpus.name,
    )


def document_problem(classes, label: str, text: str, max_length: int) -> str | None:
    """Why a document typed into a form cannot be added to a corpus of ``classes``, in words a student can act
    on; None when it can.

    Checked before anything is counted: a text longer than ``max_length`` characters, a label that is not one of
    ``classes``, an empty text.

    Parameters
    ----------
    classes : sequence of str
        The corpus's classes.
    label : str
        The class chosen.
    text : str
        The text typed.
    max_length : int
        The most characters a document may have.

    Returns
    -------
    str or None
        The problem, or None when the document can be added.

    Examples
    --------
    >>> document_problem(("China", "Japan"), "Korea", "Seoul", max_length=1000)
    "Choose the document's class from the list (China, Japan)."
    >>> document_problem(("China", "Japan"), "Japan", "Osaka", max_length=1000) is None
    True
    """
    if len(text) > max_length:
        return f"The document is {len(text):,} characters long; the limit is {max_length:,}. Shorten it."
    if label not in classes:
        return f"Choose the document's class from the list ({', '.join(classes)})."
    if not text.strip():
        return "Type the text of the document to add."
    return None


def _check_document(training: TrainingSet, label: str, text: str) -> int:
    if label not in training.classes:
        raise AdditionError(
            f"{label!r} is not a class of this corpus. Choose one of: {', '.join(training.classes)}."
        )
    if not text.strip():
        raise AdditionError("The document is empty. Type the text of the document to add.")
    return training.classes.index(label)


def can_update_incrementally(training: TrainingSet) -> bool:
    """Whether the vocabulary options keep every word both before and after one more document, so that
    the new counts are the old counts plus the document's. True for the defaults (min_df=1, max_df=1.0)."""
    options = training.bag.options
    if options.max_features is not None:
        return False
    n_after = len(training.corpus) + 1
    try:
        low, high = options.document_count_bounds(n_after)
    except CorpusError:
        return False
    # low ≤ 1 and high ≥ n keep a word found in 1 to n documents; both bounds only grow with n, so the
    # same holds for the corpus without the document.
    return low <= 1 and high >= n_after


def incremental_training_set(training: TrainingSet, label: str, text: str) -> TrainingSet | None:
    """The training set with the document added, from the kept counts, or None when the vocabulary options
    could prune words (see ``can_update_incrementally``). Equal to ``TrainingSet.build`` of the new corpus."""
    updated = _incremental(training, label, text)
    return updated[0] if updated is not None else None


def _incremental(training: TrainingSet, label: str, text: str) -> tuple[TrainingSet, np.ndarray] | None:
    """(new training set, new column of every old word), or None when counting must start again."""
    class_index = _check_document(training, label, text)
    if not can_update_incrementally(training):
        return None
    bag = training.bag
    features = Counter(bag.analyzer(text))
    old_vocabulary = training.vocabulary
    entering = sorted(word for word in features if word not in bag.index)
    if entering:
        # Old column j moves right by the number of new words that sort before it.
        positions = np.array([bisect_left(old_vocabulary, word) for word in entering], dtype=np.int64)
        old_to_new = np.arange(len(old_vocabulary)) + np.searchsorted(
            positions, np.arange(len(old_vocabulary)), side="right"
        )
        vocabulary_list = list(old_vocabulary)
        for offset, (position, word) in enumerate(zip(positions.tolist(), entering, strict=True)):
            vocabulary_list.insert(position + offset, word)
        vocabulary = tuple(vocabulary_list)
        new_bag = BagOfWords(bag.analyzer, vocabulary, bag.options)
    else:
        old_to_new = np.arange(len(old_vocabulary))
        vocabulary, new_bag = old_vocabulary, bag
    n_words = len(vocabulary)

    row = sorted((new_bag.index[word], count) for word, count in features.items())
    row_columns = np.array([column for column, _ in row], dtype=training.matrix.indices.dtype)
    row_counts = np.array([count for _, count in row], dtype=training.matrix.data.dtype)
    old = training.matrix
    matrix = sp.csr_matrix(
        (
            np.concatenate((old.data, row_counts)),
            np.concatenate((old_to_new[old.indices].astype(old.indices.dtype), row_columns)),
            np.concatenate((old.indptr, [old.indptr[-1] + len(row)])),
        ),
        shape=(old.shape[0] + 1, n_words),
    )

    stats = training.statistics
    class_count = stats.class_count_.copy()
    class_count[class_index] += 1
    document_count = np.zeros((stats.n_classes, n_words), dtype=stats.document_count_.dtype)
    word_count = np.zeros((stats.n_classes, n_words), dtype=stats.word_count_.dtype)
    document_count[:, old_to_new] = stats.document_count_
    word_count[:, old_to_new] = stats.word_count_
    document_count[class_index, row_columns] += 1
    word_count[class_index, row_columns] += row_counts
    statistics = ClassStatistics(stats.classes, vocabulary, class_count, document_count, word_count)
    updated = TrainingSet(
        corpus=corpus_with_document(training.corpus, label, text),
        bag=new_bag,
        matrix=matrix,
        class_index=np.append(training.class_index, class_index),
        statistics=statistics,
    )
    return updated, old_to_new


def rebuilt_training_set(training: TrainingSet, label: str, text: str) -> TrainingSet:
    """The training set with the document added, by counting the whole new corpus again."""
    _check_document(training, label, text)
    return TrainingSet.build(
        corpus_with_document(training.corpus, label, text), training.bag.analyzer.options, training.bag.options
    )


def training_set_with_document(training: TrainingSet, label: str, text: str) -> tuple[TrainingSet, str]:
    """(new training set, "incremental" or "rebuild"): incremental whenever it is exact."""
    updated, method, _ = _with_document(training, label, text)
    return updated, method


def _with_document(training: TrainingSet, label: str, text: str):
    """(new training set, method, new column of every old word or None when it is not known)."""
    incremental = _incremental(training, label, text)
    if incremental is not None:
        return incremental[0], "incremental", incremental[1]
    return rebuilt_training_set(training, label, text), "rebuild", None


# -- exact comparison of two models -------------------------------------------------------------------------------


def _integer_parts(model: NaiveBayes) -> tuple[np.ndarray, np.ndarray]:
    """Every ψ_jk or θ_jk as numerator[k, j] / denominator[k], in whole numbers: with α = a/b,
    ψ = (b·n_jk + a)/(b·n_k + 2a) and θ = (b·c_jk + a)/(b·Σ_j c_jk + |V|·a)."""
    stats, alpha = model.statistics, model.alpha
    a, b = alpha.numerator, alpha.denominator
    if model.kind == "bernoulli":
        counts, totals, spread = stats.document_count_, stats.class_count_, 2
    else:
        counts, totals, spread = stats.feature_count(model.binary), stats.feature_total[model.binary], stats.n_words
    numerators = (
        counts.astype(np.int64) * b + a if b * max(int(counts.max(initial=0)), 1) + a < 2**62
        else counts.astype(object) * b + a
    )
    denominators = [int(t) * b + spread * a for t in totals]
    fits = max(denominators) < 2**62
    return numerators, np.array(denominators, dtype=np.int64 if fits else object)


def _differs(old: tuple[np.ndarray, np.ndarray], new: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Cells where num_old/den_old ≠ num_new/den_new, by exact cross-multiplication (in int64 when the
    products fit, else in Python integers)."""
    (num_old, den_old), (num_new, den_new) = old, new
    largest_numerator = max(int(num_old.max(initial=0)), int(num_new.max(initial=0)))
    largest_denominator = max(int(den_old.max()), int(den_new.max()))
    if largest_numerator * largest_denominator < 2**62:
        num_old, num_new = num_old.astype(np.int64, copy=False), num_new.astype(np.int64, copy=False)
        den_old, den_new = den_old.astype(np.int64, copy=False), den_new.astype(np.int64, copy=False)
    else:
        num_old, num_new = num_old.astype(object), num_new.astype(object)
    return np.asarray(num_old * den_new[:, None] != num_new * den_old[:, None], dtype=bool)


def _take_columns(table: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """``table[:, columns]``, without copying a table of 20 × 130,000 when ``columns`` takes every column in order."""
    if len(columns) == table.shape[1] and (len(columns) == 0 or (columns[0] == 0 and (np.diff(columns) == 1).all())):
        return table
    return table[:, columns]


def _breaking(model: NaiveBayes, parts) -> np.ndarray:
    """Cells that are exactly 0 (and for Bernoulli exactly 1): they veto a class whatever else a review says."""
    numerators, denominators = parts
    zero = numerators == 0
    if model.kind == "bernoulli":
        return np.asarray(zero | (numerators == denominators[:, None]), dtype=bool)
    return np.asarray(zero, dtype=bool)


# -- the record --------------------------------------------------------------------------------------------------


def _ratio_or_none(ratio):
    return ratio_text(ratio) if ratio is not None else None


@dataclass(frozen=True)
class ClassChange:
    """n_k and φ_k of one class before and after."""

    label: str
    documents_old: int
    documents_new: int
    prior_old: Fraction
    prior_new: Fraction
    prior_ratio_old: tuple | None  # (n_k, N) when the prior is learned
    prior_ratio_new: tuple | None
    prior_value_old: float
    prior_value_new: float
    changed: bool

    def to_dict(self) -> dict:
        return {
            "class": self.label,
            "documents": [self.documents_old, self.documents_new],
            "prior_exact": [fraction_text(self.prior_old), fraction_text(self.prior_new)],
            "prior_ratio": [_ratio_or_none(self.prior_ratio_old), _ratio_or_none(self.prior_ratio_new)],
            "prior": [number(self.prior_value_old), number(self.prior_value_new)],
            "changed": self.changed,
        }


@dataclass(frozen=True)
class WordCountChange:
    """One word of the document: its counts in the document's class k before and after."""

    word: str
    occurrences: int  # in the added document
    new_to_vocabulary: bool
    documents_old: int  # n_jk: documents of class k containing word j
    documents_new: int
    occurrences_old: int  # c_jk: occurrences of word j in class k
    occurrences_new: int

    def to_dict(self) -> dict:
        return {
            "word": self.word,
            "in_document": self.occurrences,
            "new_to_vocabulary": self.new_to_vocabulary,
            "n_jk": [self.documents_old, self.documents_new],
            "c_jk": [self.occurrences_old, self.occurrences_new],
        }


@dataclass(frozen=True)
class ParameterChange:
    """ψ_jk or θ_jk of one word and class before and after. The "old" side is None for a word that was
    not in the vocabulary; ratios and fractions are None under the ε-floor."""

    word: str
    label: str
    ratio_old: tuple | None
    ratio_new: tuple | None
    exact_old: Fraction | None
    exact_new: Fraction | None
    value_old: float | None
    value_new: float
    changed: bool
    breaking_old: bool
    breaking_new: bool

    @property
    def is_new(self) -> bool:
        return self.value_old is None

    def to_dict(self) -> dict:
        return {
            "word": self.word,
            "class": self.label,
            "ratio": [_ratio_or_none(self.ratio_old), _ratio_or_none(self.ratio_new)],
            "exact": [fraction_text(self.exact_old), fraction_text(self.exact_new)],
            "value": [number(self.value_old), number(self.value_new)],
            "changed": self.changed,
            "new": self.is_new,
            "breaking": [self.breaking_old, self.breaking_new],
        }


@dataclass(frozen=True)
class ExampleParameter:
    """One parameter of a word that is not in the document, to show the general formula with numbers.

    ``count``: n_jk (Bernoulli) or c_jk (multinomial); ``total``: n_k, or the class's word total Σ_j c_jk;
    ``vocabulary``: |V|, used by the multinomial denominator."""

    word: str
    label: str
    count: int
    total_old: int
    total_new: int
    vocabulary_old: int
    vocabulary_new: int
    ratio_old: tuple | None
    ratio_new: tuple | None
    value_old: float
    value_new: float

    def to_dict(self) -> dict:
        return {
            "word": self.word,
            "class": self.label,
            "count": self.count,
            "total": [self.total_old, self.total_new],
            "vocabulary_size": [self.vocabulary_old, self.vocabulary_new],
            "ratio": [_ratio_or_none(self.ratio_old), _ratio_or_none(self.ratio_new)],
            "value": [number(self.value_old), number(self.value_new)],
        }


@dataclass(frozen=True)
class Reason:
    """Why a group of parameters moved. ``kind`` is one of:

    "prior": n_k and N grew, so the learned priors moved;
    "class-size": Bernoulli, n_k grew, so every ψ of class k moves (not 0/n_k → 0/(n_k + 1) with α = 0);
    "class-total": multinomial, the word total of class k grew by the document's length;
    "vocabulary": multinomial with α > 0, |V| grew, so |V|·α grew in the denominator of every class.

    ``parameters``: how many moved among words outside the document (the document's words are in the
    table), counted by comparing the models. ``example``: one of them with its numbers."""

    kind: str
    label: str | None  # the class concerned; None for every class
    parameters: int
    example: ExampleParameter | None
    group: int = 0  # how many parameters outside the document this reason concerns (moved or not)

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "class": self.label,
            "parameters": self.parameters,
            "of": self.group,
            "example": self.example.to_dict() if self.example else None,
        }


@dataclass(frozen=True)
class BreakingCell:
    """A parameter that is, or was, exactly 0 (or exactly 1 for Bernoulli)."""

    word: str
    label: str
    value_old: float | None  # None: the word was not in the vocabulary
    value_new: float | None  # None: the word left the vocabulary

    def to_dict(self) -> dict:
        return {"word": self.word, "class": self.label, "value": [number(self.value_old), number(self.value_new)]}


@dataclass(frozen=True)
class ChangeCount:
    """How many of the K(d + 1) parameters of the new model differ from the old model's."""

    classes: int  # K
    vocabulary_old: int
    vocabulary_new: int  # d
    priors: int  # φ_k that changed
    document_words: int  # ψ/θ of the document's words, shared by both vocabularies, that changed
    other_words: int  # ψ/θ of the other shared words that changed
    new_parameters: int  # K for every word that entered the vocabulary
    removed_parameters: int  # K for every word that left it
    per_class: tuple[int, ...]  # changed ψ/θ of shared words, per class

    @property
    def total(self) -> int:
        return self.classes * (self.vocabulary_new + 1)

    @property
    def changed(self) -> int:
        """Parameters of the new model that are new or differ from before."""
        return self.priors + self.document_words + self.other_words + self.new_parameters

    @property
    def unchanged(self) -> int:
        return self.total - self.changed

    def to_dict(self) -> dict:
        return {
            "parameters": self.total,
            "changed": self.changed,
            "unchanged": self.unchanged,
            "priors": self.priors,
            "document_words": self.document_words,
            "other_words": self.other_words,
            "new_parameters": self.new_parameters,
            "removed_parameters": self.removed_parameters,
            "per_class": list(self.per_class),
            "vocabulary_size": [self.vocabulary_old, self.vocabulary_new],
        }


@dataclass(frozen=True)
class Addition:
    """Everything that changes when one labelled document joins the training set: what ``add_document`` returns.

    Parameters
    ----------
    label : str
        The document's class.
    class_index : int
        Its class number.
    text : str
        The document.
    kind : str
        "bernoulli" or "multinomial".
    model : dict
        The model's settings (``NaiveBayes.to_dict()``).
    method : {"incremental", "rebuild"}
        Whether the counts were updated or the corpus counted again.
    features : tuple of str
        The document's features in order, as the analysis produced them.
    dropped : tuple of DroppedWord
        What the analysis threw away.
    pruned : tuple of str
        Features that are not in the new vocabulary (min_df, max_df, max_features).
    document_length : int
        Features counted: Σ_j of the document's counts over the new vocabulary.
    entered, left : tuple of str
        Words new to the vocabulary, and words that left it (pruning options only).
    classes : tuple of ClassChange
        Per class: n_k and φ_k before and after.
    words : tuple of WordCountChange
        The document's distinct words in the new vocabulary, with their counts before and after.
    parameters : tuple of tuple of ParameterChange
        ``parameters[word][class]``: ψ or θ before and after, words as in ``words``.
    denominators : tuple of tuple
        Per class, the old and new denominators of the ratios.
    count : ChangeCount
        How many of the K(d + 1) parameters moved, found by comparing the two models cell by cell.
    reasons : tuple of Reason
        Why each group of parameters moved.
    repaired, appeared : tuple of BreakingCell
        Cells exactly 0 (or ψ = 1) that no longer are, and new ones (α = 0), listed up to ``MAX_LISTED_CELLS``.
    repaired_count, appeared_count : int
        How many of each there are.
    training : TrainingSet
        The new training set (not serialised).

    Attributes
    ----------
    exact : bool
        Whether parameters are exact fractions (not under the ε-floor).
    """

    label: str
    class_index: int
    text: str
    kind: str  # "bernoulli" or "multinomial"
    model: dict  # NaiveBayes.to_dict()
    method: str  # "incremental" or "rebuild"
    features: tuple[str, ...]  # the document's features in order, as the analysis produced them
    dropped: tuple[DroppedWord, ...]  # what the analysis threw away (one-letter words, stop words)
    pruned: tuple[str, ...]  # features that are not in the new vocabulary (min_df, max_df, max_features)
    document_length: int  # features counted: Σ_j of the document's counts over the new vocabulary
    entered: tuple[str, ...]  # words new to the vocabulary (all from the document)
    left: tuple[str, ...]  # words that left the vocabulary (pruning options only)
    classes: tuple[ClassChange, ...]
    words: tuple[WordCountChange, ...]  # the document's distinct words in the new vocabulary, alphabetical
    parameters: tuple[tuple[ParameterChange, ...], ...]  # [word][class], words as in ``words``
    denominators: tuple[tuple, ...]  # per class (old ratio denominator, new), for the formula
    count: ChangeCount
    reasons: tuple[Reason, ...]
    repaired: tuple[BreakingCell, ...]  # breaking cells that no longer break (α = 0)
    appeared: tuple[BreakingCell, ...]  # new breaking cells
    repaired_count: int
    appeared_count: int
    training: TrainingSet  # the new training set (not serialised)

    @property
    def exact(self) -> bool:
        """Whether parameters are exact fractions (not under the ε-floor)."""
        return self.model.get("epsilon") is None

    def to_dict(self) -> dict:
        return {
            "class": self.label,
            "text": self.text,
            "model": self.model,
            "method": self.method,
            "features": list(self.features),
            "dropped": [{"word": d.word, "reason": d.reason} for d in self.dropped],
            "pruned": list(self.pruned),
            "document_length": self.document_length,
            "entered_vocabulary": list(self.entered),
            "left_vocabulary": list(self.left),
            "classes": [c.to_dict() for c in self.classes],
            "words": [w.to_dict() for w in self.words],
            "parameters": [[p.to_dict() for p in row] for row in self.parameters],
            "count": self.count.to_dict(),
            "reasons": [r.to_dict() for r in self.reasons],
            "repaired": [c.to_dict() for c in self.repaired],
            "appeared": [c.to_dict() for c in self.appeared],
            "repaired_count": self.repaired_count,
            "appeared_count": self.appeared_count,
        }


# -- the comparison ----------------------------------------------------------------------------------------------


def add_document(training: TrainingSet, label: str, text: str, kind: str = "bernoulli", alpha=1, **options) -> Addition:
    """Add a document of class ``label`` to ``training`` and compare the models before and after.

    With the default vocabulary options the new counts are the old ones plus the document's (a few milliseconds);
    options that prune the vocabulary count the corpus again.

    Parameters
    ----------
    training : TrainingSet
        The training set; never changed.
    label : str
        The document's class, one of ``training.classes``.
    text : str
        The document.
    kind : {"bernoulli", "multinomial"}, default "bernoulli"
        The model compared.
    alpha : str, int, float or Fraction, default 1
        Its pseudo-count.
    **options
        ``binary``, ``fit_prior``, ``class_prior``, ``epsilon``: as ``TrainingSet.model`` takes them.

    Returns
    -------
    Addition
        The counts, priors and parameters before and after, how many moved and why, and the new training set.

    Raises
    ------
    AdditionError
        For an unknown label or an empty text.
    ValueError
        For settings ``TrainingSet.model`` refuses.
    CorpusError
        When the model cannot be made (a multinomial class with no words and α = 0), or the corpus counted again
        is refused (see ``TrainingSet.build``).

    Examples
    --------
    >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
    >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
    >>> addition = add_document(training, "Japan", "Osaka Japan", "multinomial", alpha=1)
    >>> addition.method, addition.entered, addition.count.changed, addition.count.total
    ('incremental', ('osaka',), 16, 16)
    """
    alpha = parse_alpha(alpha)
    class_index = _check_document(training, label, text)
    updated, method, old_to_new = _with_document(training, label, text)
    old_model = training.model(kind, alpha, **options)
    new_model = updated.model(kind, alpha, **options)
    return compare(training, updated, old_model, new_model, class_index, text, method, old_to_new)


def compare(
    training: TrainingSet,
    updated: TrainingSet,
    old_model: NaiveBayes,
    new_model: NaiveBayes,
    class_index: int,
    text: str,
    method: str,
    old_to_new: np.ndarray | None = None,
) -> Addition:
    """The ``Addition`` record for two models of the same kind, before and after one document of class
    ``class_index`` joined the training set. ``old_to_new[j]``, if known, is the new column of old word j
    (-1 if it left the vocabulary); otherwise it is found by looking every word up."""
    classes = training.classes
    old_stats, new_stats = old_model.statistics, new_model.statistics
    old_vocabulary, new_vocabulary = training.vocabulary, updated.vocabulary
    old_index, new_index = training.bag.index, updated.bag.index
    n_classes = len(classes)

    analysis = updated.bag.analyzer.explain(text)
    features = analysis.features
    in_document = Counter(word for word in features if word in new_index)
    document_words = sorted(in_document)
    pruned = tuple(dict.fromkeys(word for word in features if word not in new_index))

    # Words in both vocabularies, as old and new column numbers.
    if old_to_new is None:
        get = new_index.get
        old_to_new = np.fromiter((get(word, -1) for word in old_vocabulary), dtype=np.int64, count=len(old_vocabulary))
    mapped = old_to_new
    shared_old = np.flatnonzero(mapped >= 0)
    shared_new = mapped[shared_old]
    position_of_new = np.full(len(new_vocabulary), -1, dtype=np.int64)  # new column → position among shared words
    position_of_new[shared_new] = np.arange(len(shared_new))
    entered = tuple(new_vocabulary[j] for j in np.flatnonzero(position_of_new < 0).tolist())
    left = tuple(old_vocabulary[j] for j in np.flatnonzero(mapped < 0).tolist())

    exact = old_model.epsilon is None
    if exact:
        old_parts, new_parts = _integer_parts(old_model), _integer_parts(new_model)
        shared_old_parts = (_take_columns(old_parts[0], shared_old), old_parts[1])
        shared_new_parts = (_take_columns(new_parts[0], shared_new), new_parts[1])
        changed = _differs(shared_old_parts, shared_new_parts)
        breaking_old = _breaking(old_model, shared_old_parts)
        breaking_new_all = _breaking(new_model, new_parts)
        breaking_new_shared = _take_columns(breaking_new_all, shared_new)
    else:
        # Under the floor the model holds clipped floats, so those are what is compared.
        changed = old_model.feature_prob_[:, shared_old] != new_model.feature_prob_[:, shared_new]
        breaking_old = np.zeros(changed.shape, dtype=bool)
        breaking_new_shared = breaking_old
        breaking_new_all = np.zeros((n_classes, len(new_vocabulary)), dtype=bool)

    in_document_new = np.zeros(len(new_vocabulary), dtype=bool)
    in_document_new[[new_index[word] for word in document_words]] = True
    document_columns = in_document_new[shared_new]

    priors = tuple(
        ClassChange(
            label=label,
            documents_old=int(old_stats.class_count_[k]),
            documents_new=int(new_stats.class_count_[k]),
            prior_old=old_model.class_prior_exact[k],
            prior_new=new_model.class_prior_exact[k],
            prior_ratio_old=old_model.prior_ratio(k),
            prior_ratio_new=new_model.prior_ratio(k),
            prior_value_old=float(old_model.class_prior_[k]),
            prior_value_new=float(new_model.class_prior_[k]),
            changed=old_model.class_prior_exact[k] != new_model.class_prior_exact[k],
        )
        for k, label in enumerate(classes)
    )

    words = tuple(
        WordCountChange(
            word=word,
            occurrences=in_document[word],
            new_to_vocabulary=word not in old_index,
            documents_old=int(old_stats.document_count_[class_index, old_index[word]]) if word in old_index else 0,
            documents_new=int(new_stats.document_count_[class_index, new_index[word]]),
            occurrences_old=int(old_stats.word_count_[class_index, old_index[word]]) if word in old_index else 0,
            occurrences_new=int(new_stats.word_count_[class_index, new_index[word]]),
        )
        for word in document_words
    )

    new_columns = [new_index[word] for word in document_words]
    new_values = new_model.columns(new_columns)[0] if new_columns else np.empty((n_classes, 0))
    old_columns = [old_index[word] for word in document_words if word in old_index]
    old_values = old_model.columns(old_columns)[0] if old_columns else np.empty((n_classes, 0))
    old_column_of = {word: position for position, word in enumerate(w for w in document_words if w in old_index)}
    rows = []
    for position, word in enumerate(document_words):
        j_new = new_index[word]
        j_old = old_index.get(word)
        shared = int(position_of_new[j_new]) if position_of_new[j_new] >= 0 else None
        row = []
        for k, label in enumerate(classes):
            was = j_old is not None
            row.append(
                ParameterChange(
                    word=word,
                    label=label,
                    ratio_old=old_model.feature_ratio(k, j_old) if was and exact else None,
                    ratio_new=new_model.feature_ratio(k, j_new) if exact else None,
                    exact_old=old_model.exact_feature_prob(k, j_old) if was else None,
                    exact_new=new_model.exact_feature_prob(k, j_new),
                    value_old=float(old_values[k, old_column_of[word]]) if was else None,
                    value_new=float(new_values[k, position]),
                    changed=bool(changed[k, shared]) if shared is not None else True,
                    breaking_old=bool(breaking_old[k, shared]) if shared is not None else False,
                    breaking_new=bool(breaking_new_all[k, j_new]),
                )
            )
        rows.append(tuple(row))

    per_class = changed.sum(axis=1)
    count = ChangeCount(
        classes=n_classes,
        vocabulary_old=len(old_vocabulary),
        vocabulary_new=len(new_vocabulary),
        priors=sum(p.changed for p in priors),
        document_words=int(changed[:, document_columns].sum()),
        other_words=int(changed[:, ~document_columns].sum()),
        new_parameters=n_classes * len(entered),
        removed_parameters=n_classes * len(left),
        per_class=tuple(int(n) for n in per_class),
    )

    reasons = _reasons(
        training, updated, old_model, new_model, class_index, changed, shared_old, shared_new, document_columns, priors
    )

    repaired_mask = breaking_old & ~breaking_new_shared
    appeared_mask = breaking_new_shared & ~breaking_old
    repaired = _cells(repaired_mask, shared_new, new_vocabulary, classes, old_model, new_model, shared_old)
    entered_columns = np.array([new_index[word] for word in entered], dtype=np.int64)
    appeared_entered = breaking_new_all[:, entered_columns] if len(entered_columns) else np.zeros((n_classes, 0), bool)
    appeared = _cells(appeared_mask, shared_new, new_vocabulary, classes, old_model, new_model, shared_old)
    if len(appeared) < MAX_LISTED_CELLS:
        appeared += _cells(
            appeared_entered, entered_columns, new_vocabulary, classes, None, new_model, None,
            MAX_LISTED_CELLS - len(appeared),
        )

    denominators = tuple(
        (old_model.feature_ratio(k, 0)[1], new_model.feature_ratio(k, 0)[1]) if exact else (None, None)
        for k in range(n_classes)
    )

    return Addition(
        label=classes[class_index],
        class_index=class_index,
        text=text,
        kind=new_model.kind,
        model=new_model.to_dict(),
        method=method,
        features=tuple(features),
        dropped=analysis.dropped,
        pruned=pruned,
        document_length=sum(in_document.values()),
        entered=entered,
        left=left,
        classes=priors,
        words=words,
        parameters=tuple(rows),
        denominators=denominators,
        count=count,
        reasons=reasons,
        repaired=repaired,
        appeared=appeared,
        repaired_count=int(repaired_mask.sum()),
        appeared_count=int(appeared_mask.sum() + appeared_entered.sum()),
        training=updated,
    )


def _cells(mask, new_columns, vocabulary, classes, old_model, new_model, old_columns, limit=MAX_LISTED_CELLS):
    """Listed breaking cells, by word then class, at most ``limit``."""
    cells = []
    positions, class_numbers = np.nonzero(mask.T)
    for position, k in zip(positions.tolist()[:limit], class_numbers.tolist()[:limit], strict=True):
        j_new = int(new_columns[position])
        old_value = None
        if old_model is not None:
            old_value = float(old_model.columns([int(old_columns[position])])[0][k, 0])
        cells.append(
            BreakingCell(
                word=vocabulary[j_new],
                label=classes[k],
                value_old=old_value,
                value_new=float(new_model.columns([j_new])[0][k, 0]),
            )
        )
    return tuple(cells)


def _example(old_model, new_model, k, j_old, j_new, word) -> ExampleParameter:
    exact = old_model.epsilon is None
    old_stats, new_stats = old_model.statistics, new_model.statistics
    if new_model.kind == "bernoulli":
        count = int(new_stats.document_count_[k, j_new])
        total_old, total_new = int(old_stats.class_count_[k]), int(new_stats.class_count_[k])
    else:
        count = int(new_stats.feature_count(new_model.binary)[k, j_new])
        total_old = int(old_stats.feature_total[old_model.binary][k])
        total_new = int(new_stats.feature_total[new_model.binary][k])
    return ExampleParameter(
        word=word,
        label=new_model.classes[k],
        count=count,
        total_old=total_old,
        total_new=total_new,
        vocabulary_old=old_stats.n_words,
        vocabulary_new=new_stats.n_words,
        ratio_old=old_model.feature_ratio(k, j_old) if exact else None,
        ratio_new=new_model.feature_ratio(k, j_new) if exact else None,
        value_old=float(old_model.columns([j_old])[0][k, 0]),
        value_new=float(new_model.columns([j_new])[0][k, 0]),
    )


def _pick_example(changed_row, counts_row, outside_document):
    """A changed parameter of a word outside the document, preferring one the class has seen (a non-zero
    count reads better than 0 + α); the position among shared words, or None."""
    candidates = np.flatnonzero(changed_row & outside_document)
    if len(candidates) == 0:
        return None
    seen = candidates[counts_row[candidates] > 0]
    return int(seen[0] if len(seen) else candidates[0])


def _reasons(
    training, updated, old_model, new_model, class_index, changed, shared_old, shared_new, document_columns, priors
):
    reasons = []
    if any(p.changed for p in priors):
        reasons.append(Reason("prior", None, sum(p.changed for p in priors), None, len(priors)))
    outside = ~document_columns
    new_stats = new_model.statistics
    counts = new_stats.document_count_ if new_model.kind == "bernoulli" else new_stats.feature_count(new_model.binary)

    def example_for(k):
        position = _pick_example(changed[k], counts[k, shared_new], outside)
        if position is None:
            return None
        j_old, j_new = int(shared_old[position]), int(shared_new[position])
        return _example(old_model, new_model, k, j_old, j_new, training.vocabulary[j_old])

    k = class_index
    moved_in_class = int((changed[k] & outside).sum())
    n_outside = int(outside.sum())
    if new_model.kind == "bernoulli":
        reasons.append(Reason("class-size", new_model.classes[k], moved_in_class, example_for(k), n_outside))
    else:
        reasons.append(Reason("class-total", new_model.classes[k], moved_in_class, example_for(k), n_outside))
        others = [c for c in range(len(new_model.classes)) if c != k]
        moved_elsewhere = int(sum((changed[c] & outside).sum() for c in others))
        if moved_elsewhere or new_stats.n_words != old_model.statistics.n_words:
            example = next((example_for(c) for c in others if changed[c].any()), None)
            reasons.append(Reason("vocabulary", None, moved_elsewhere, example, len(others) * n_outside))
    return tuple(reasons)
