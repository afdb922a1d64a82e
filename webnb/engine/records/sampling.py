"""The model run forwards, as the sample page tells it: the class drawn from φ, the words drawn from ψ or θ, how
probable the model finds the document it wrote, how it reads that document back, and real training documents of
the class beside it.

Notation as in ``models``: φ_k the class prior, ψ_jk (Bernoulli) the probability that word j appears in a document
of class k, θ_jk (multinomial) the probability that a drawn word is word j.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from webnb.engine.records.insights import SampledDocument, mean_document_length, sample_document
from webnb.engine.shared.forwarding import forwarded
from webnb.engine.shared.plain import fraction_text, number, plain, ratio_text
from webnb.engine.text.models import NaiveBayes
from webnb.engine.text.training import TrainingSet

READ_BACK_ROWS = 5  # with many classes, the most probable ones and the sample's own class tell the story
REAL_DOCUMENTS = 3  # training documents of the sample's class shown beside it
COINS_UP_TO = 40  # a Bernoulli vocabulary this small has every word's coin listed


@dataclass(frozen=True)
class ClassPrior:
    label: str
    value: float  # φ_k
    ratio: tuple[int, int] | None  # (documents of the class, all documents) when the prior is learned
    exact: Fraction
    drawn: bool  # the class of the sample

    def to_dict(self) -> dict:
        return {"class": self.label, "value": self.value, "exact": fraction_text(self.exact), "drawn": self.drawn}


@dataclass(frozen=True)
class DrawnWord:
    word: str
    probability: float  # ψ_jk or θ_jk of the sample's class
    ratio: tuple | None  # the same as the lecture's unreduced ratio; None under an ε-floor

    def to_dict(self) -> dict:
        return {"word": self.word, "probability": number(self.probability), "ratio": ratio_text(self.ratio)}


@dataclass(frozen=True)
class Coin:
    """One vocabulary word's coin in a Bernoulli sample: heads (present) with probability ψ_jk."""

    word: str
    probability: float
    ratio: tuple | None
    present: bool


@dataclass(frozen=True)
class ReadBack:
    label: str
    posterior: float  # P(k | sample)
    others: float  # the other classes' posteriors summed: near 1, "1 − others" keeps digits the posterior lost

    def to_dict(self) -> dict:
        return {"class": self.label, "posterior": number(self.posterior)}


@dataclass(frozen=True)
class RealDocument:
    id: str
    text: str

    def to_dict(self) -> dict:
        return plain(self)


@dataclass(frozen=True, eq=False)
class SampleStory:
    """A document the model wrote (``document``), with every number of its story.

    ``log_probability`` is log P(document | class): the words in their order for the multinomial model, every
    vocabulary word present or absent for Bernoulli. ``unseen`` counts the drawn words that the class never had in
    training (smoothing gave them their probability). ``read_back`` has every class's posterior for the sample;
    ``read_back_shown`` the most probable ones and the sample's own class, in class order. ``coins`` lists every
    vocabulary word's coin for a small Bernoulli vocabulary (None otherwise). ``real`` are training documents of
    the class, picked with the same draw.

    Parameters
    ----------
    model : NaiveBayes
        The model that wrote it.
    document : SampledDocument
        The class and the words drawn.
    class_drawn : bool
        False when the class was chosen rather than drawn from φ.
    priors : tuple of ClassPrior
        Every class's φ_k, the drawn one marked.
    words : tuple of DrawnWord
        The drawn words, in the document's order, with ψ or θ.
    unseen : int
        Drawn words the class never had in training.
    log_probability : float
        log P(document | class).
    mean_length : int or None
        The mean length of the class's training documents (multinomial).
    expected_present : float or None
        Σ_j ψ_jk, the number of present words to expect (Bernoulli).
    coins : tuple of Coin or None
        Every word's coin, for a small Bernoulli vocabulary.
    read_back, read_back_shown : tuple of ReadBack
        The posteriors of the classes for the sample.
    read_as : str or None
        The class the model decides for its own document; None when every class is impossible.
    real : tuple of RealDocument
        Training documents of the class.
    """

    model: NaiveBayes
    document: SampledDocument
    class_drawn: bool  # False when the class was chosen rather than drawn from φ
    priors: tuple[ClassPrior, ...]
    words: tuple[DrawnWord, ...]  # in the document's order
    unseen: int
    log_probability: float
    mean_length: int | None  # of the class's training documents (multinomial)
    expected_present: float | None  # Σ_j ψ_jk, the number of present words to expect (Bernoulli)
    coins: tuple[Coin, ...] | None
    read_back: tuple[ReadBack, ...]
    read_back_shown: tuple[ReadBack, ...]
    read_as: str | None  # the class the model decides for its own document; None when every class is impossible
    real: tuple[RealDocument, ...]

    draw = forwarded("document.seed", "The random seed of the sample.")
    label = forwarded("document.label")
    text = forwarded("document.text")

    @property
    def vocabulary_size(self) -> int:
        return len(self.model.vocabulary)

    @property
    def read_back_hidden(self) -> int:
        return len(self.read_back) - len(self.read_back_shown)

    def to_dict(self) -> dict:
        return {
            "model": self.model.to_dict(),
            "draw": self.draw,
            "class_drawn": self.class_drawn,
            "class": self.label,
            "priors": [p.to_dict() for p in self.priors],
            "length": len(self.words) if self.model.kind == "multinomial" else None,
            "mean_length": self.mean_length,
            "unseen_in_class": self.unseen,
            "words": [w.to_dict() for w in self.words],
            "text": self.text,
            "log_probability": number(self.log_probability),
            "read_back": [r.to_dict() for r in self.read_back],
            "read_as": self.read_as,
            "real_documents": [r.to_dict() for r in self.real],
        }


def _exact_ratio(model: NaiveBayes, k: int, j: int):
    return model.feature_ratio(k, j) if model.epsilon is None else None


def _count_vector(columns: list[int], n_words: int) -> sp.csr_matrix:
    """The sample as a count vector, shape (1, n_words), built from the columns of the drawn words themselves
    (counting its text again could split an n-gram differently)."""
    columns = np.array(columns, dtype=np.int64)
    counts = np.bincount(columns, minlength=n_words) if len(columns) else np.zeros(n_words)
    return sp.csr_matrix(counts.reshape(1, -1).astype(np.float64))


def _log_probability(model: NaiveBayes, k: int, words: tuple[DrawnWord, ...], columns: list[int]) -> float:
    log_probability = float(sum(math.log(w.probability) for w in words)) if words else 0.0
    if model.kind == "bernoulli":
        # Absent words are part of the Bernoulli story too: each was left out with probability 1 − ψ.
        present = np.zeros(len(model.vocabulary), dtype=bool)
        present[columns] = True
        with np.errstate(divide="ignore"):
            log_probability += float(np.log1p(-model.feature_prob_[k, ~present]).sum())
    return log_probability


def _read_back(model: NaiveBayes, columns: list[int], k: int, rows: int):
    """(every class's posterior for the sample, the rows to show, the class decided)."""
    log_posterior, decidable = model.predict_log_proba(_count_vector(columns, len(model.vocabulary)))
    posteriors = np.exp(log_posterior[0])
    read_back = tuple(
        ReadBack(label, float(posteriors[c]), float(posteriors.sum() - float(posteriors[c])))
        for c, label in enumerate(model.classes)
    )
    read_as = model.classes[int(log_posterior[0].argmax())] if decidable[0] else None
    most_probable = sorted(range(len(read_back)), key=lambda c: -log_posterior[0, c])[:rows]
    shown = tuple(read_back[c] for c in sorted(set(most_probable) | {k}))
    return read_back, shown, read_as


def _real_documents(training: TrainingSet, k: int, draw: int, n: int) -> tuple[RealDocument, ...]:
    members = np.flatnonzero(training.class_index == k)
    picked = np.random.default_rng(draw).choice(members, size=min(n, len(members)), replace=False)
    corpus = training.corpus
    return tuple(RealDocument(corpus.ids[i], corpus.texts[i]) for i in picked.tolist())


def _coins(model: NaiveBayes, k: int, drawn: tuple[str, ...]) -> tuple[Coin, ...]:
    present = set(drawn)
    return tuple(
        Coin(w, float(model.feature_prob_[k, j]), _exact_ratio(model, k, j), w in present)
        for j, w in enumerate(model.vocabulary)
    )


def sample_story(
    training: TrainingSet,
    model: NaiveBayes,
    *,
    draw: int,
    label=None,
    length: int | None = None,
    read_back_rows: int = READ_BACK_ROWS,
    real_documents: int = REAL_DOCUMENTS,
    coins_up_to: int = COINS_UP_TO,
) -> SampleStory:
    """Draw a document with ``sample_document(model, seed=draw, label=label, length=length)`` and tell its story
    (see ``SampleStory``). The same draw gives the same document and the same real documents.

    Parameters
    ----------
    training : TrainingSet
        The training set.
    model : NaiveBayes
        One of ``training.model``.
    draw : int
        The random seed, 0 or more.
    label : str, optional
        The class to write a document of; drawn from φ when None.
    length : int, optional
        Multinomial only: the number of words (default: the class's mean document length).
    read_back_rows : int, default ``READ_BACK_ROWS``
        The most probable classes to show in the read-back.
    real_documents : int, default ``REAL_DOCUMENTS``
        Training documents of the class to show beside it.
    coins_up_to : int, default ``COINS_UP_TO``
        The largest Bernoulli vocabulary whose every coin is listed.

    Returns
    -------
    SampleStory
        The document and every number of its story.

    Raises
    ------
    ValueError
        If ``draw`` is not a whole number of at least 0, ``label`` is not a class of the model, or a length is given
        for a Bernoulli model or is not a whole number.
    WorkTooLarge
        If the app's memory cap refuses the dense ψ or θ table the story is drawn from.

    Examples
    --------
    >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
    >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
    >>> story = sample_story(training, training.model("multinomial", 1), draw=3, label="Japan", length=4)
    >>> story.document.words, story.unseen  # "beijing" and "macao" only by smoothing
    (('beijing', 'chinese', 'tokyo', 'macao'), 2)
    >>> round(story.log_probability, 6), story.read_as  # the model reads its own Japanese document as China
    (-7.402604, 'China')
    """
    document = sample_document(model, seed=draw, label=label, length=length)
    k = model.classes.index(document.label)
    priors = tuple(
        ClassPrior(name, float(model.class_prior_[c]), model.prior_ratio(c), model.class_prior_exact[c], c == k)
        for c, name in enumerate(model.classes)
    )
    columns = [training.bag.index[w] for w in document.words]
    words = tuple(
        DrawnWord(w, float(model.feature_prob_[k, j]), _exact_ratio(model, k, j))
        for w, j in zip(document.words, columns, strict=True)
    )
    # Words the class never used in training can still be drawn: smoothing gave each a little probability.
    counts = model.statistics.document_count_ if model.uses_presence else model.statistics.word_count_
    unseen = sum(1 for j in columns if counts[k, j] == 0)
    read_back, shown, read_as = _read_back(model, columns, k, read_back_rows)
    bernoulli = model.kind == "bernoulli"
    return SampleStory(
        model=model,
        document=document,
        class_drawn=label is None,
        priors=priors,
        words=words,
        unseen=unseen,
        log_probability=_log_probability(model, k, words, columns),
        mean_length=None if bernoulli else mean_document_length(model, k),
        expected_present=float(model.feature_prob_[k].sum()) if bernoulli else None,
        coins=_coins(model, k, document.words) if bernoulli and len(model.vocabulary) <= coins_up_to else None,
        read_back=read_back,
        read_back_shown=shown,
        read_as=read_as,
        real=_real_documents(training, k, draw, real_documents),
    )


__all__ = [
    "READ_BACK_ROWS", "REAL_DOCUMENTS", "COINS_UP_TO",
    "ClassPrior", "DrawnWord", "Coin", "ReadBack", "RealDocument", "SampleStory", "sample_story",
]
