"""Training and test documents kept apart, so a model is scored on documents it never saw.

The vocabulary is learned from the training documents only; the test documents are counted over that
vocabulary (their other words are dropped, as they would be for any new review).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from webnb.engine.evaluation.scores import stratified_split, true_class_numbers
from webnb.engine.shared.corpus import Corpus, CorpusError
from webnb.engine.shared.forwarding import forwarded
from webnb.engine.text.analysis import AnalysisOptions
from webnb.engine.text.bag import VocabularyOptions
from webnb.engine.text.training import TrainingSet


@dataclass(frozen=True, eq=False)
class HeldOut:
    """Training documents and test documents kept apart, the test ones counted over the training vocabulary.

    ``training`` is counted from the training documents; ``test_matrix`` (counts, shape (n_test, n_words))
    holds the ``test`` documents over its vocabulary. ``positions[i]`` is the number of test document i in
    the corpus it came from (the split corpus, or the separate test corpus).

    Parameters
    ----------
    training : TrainingSet
        What the model learns from.
    test : Corpus
        The test documents.
    test_matrix : scipy.sparse.csr_matrix of shape (n_test, n_words)
        Their counts over ``training``'s vocabulary; other words are dropped.
    positions : numpy.ndarray of int, shape (n_test,)
        Where each test document is in the corpus it came from.
    source : {"split", "training", "corpus"}
        A stratified split, the training documents themselves, or a separate test corpus.
    test_size, seed : float and int, optional
        Those of a split; None otherwise.

    Attributes
    ----------
    test_labels : tuple of str
        The true classes of the test documents.
    true_class : numpy.ndarray of int, shape (n_test,)
        The same as class numbers of ``training.classes``.
    """

    training: TrainingSet
    test: Corpus
    test_matrix: sp.csr_matrix
    positions: np.ndarray
    source: str  # "split", "training" or "corpus"
    test_size: float | None = None
    seed: int | None = None

    test_labels = forwarded("test.labels")

    @property
    def true_class(self) -> np.ndarray:
        return true_class_numbers(self.training.classes, self.test.labels, self.test_matrix.shape[0])

    def to_dict(self) -> dict:
        return {
            "source": self.source,
            "test_size": self.test_size,
            "seed": self.seed,
            "n_train": len(self.training.corpus),
            "n_test": len(self.test),
        }


def hold_out(
    corpus: Corpus,
    analysis: AnalysisOptions | None = None,
    vocabulary: VocabularyOptions | None = None,
    *,
    test_size: float = 0.25,
    seed: int = 0,
    progress=None,
) -> HeldOut:
    """A stratified split (see ``stratified_split``): train on the rest, count the held-out part.

    The vocabulary is learned from the training documents only; the words of the test documents that are not in it
    are dropped, as they would be for any new review.

    Parameters
    ----------
    corpus : Corpus
        All the documents.
    analysis : AnalysisOptions, optional
        How texts become features (defaults when None).
    vocabulary : VocabularyOptions, optional
        Which words are kept (all when None).
    test_size : float, default 0.25
        The share of each class held out.
    seed : int, default 0
        The split's random seed: the same seed, the same split.
    progress : callable, optional
        ``progress(done, total)`` while the training documents are counted.

    Returns
    -------
    HeldOut
        ``source`` "split".

    Raises
    ------
    ValueError
        If ``test_size`` is not strictly between 0 and 1.
    CorpusError
        If the test set would be empty, or the training part cannot be trained on (see ``TrainingSet.build``,
        which may also raise ``EmptyVocabularyError`` and ``WorkTooLarge``).

    Examples
    --------
    >>> from webnb.engine import Corpus, evaluate
    >>> pairs = [("pos", "keeper was sharp and composed"), ("pos", "match was composed"), ("pos", "brilliant match"),
    ...          ("pos", "sharp brilliant keeper"), ("neg", "match was not sharp"), ("neg", "match was not composed"),
    ...          ("neg", "dull match"), ("neg", "not brilliant")]
    >>> held = hold_out(Corpus.from_pairs(pairs), test_size=0.25, seed=0)
    >>> held.positions.tolist(), held.test.texts, held.test_matrix.shape
    ([3, 6], ('sharp brilliant keeper', 'dull match'), (2, 8))
    >>> "dull" in held.training.vocabulary  # only in a test document: not counted
    False
    >>> result = evaluate(held.training.model("multinomial", 1), held.test_matrix, held.test_labels)
    >>> result.predictions, result.accuracy
    (('pos', 'neg'), 1.0)
    """
    train_index, test_index = stratified_split(corpus.labels, test_size, seed)
    training = TrainingSet.build(corpus.subset(train_index), analysis, vocabulary, progress)
    test = corpus.subset(test_index)
    return HeldOut(training, test, training.transform(test.texts), test_index, "split", test_size, seed)


def on_training_documents(training: TrainingSet) -> HeldOut:
    """Score the model on the documents it learned from: the training accuracy, which flatters it.

    Parameters
    ----------
    training : TrainingSet
        The training set, whose own documents are the test documents.

    Returns
    -------
    HeldOut
        ``source`` "training"; ``test_matrix`` is ``training.matrix``.
    """
    corpus = training.corpus
    return HeldOut(training, corpus, training.matrix, np.arange(len(corpus)), "training")


def on_test_corpus(training: TrainingSet, test: Corpus) -> HeldOut:
    """Train on all of ``training``'s corpus and test on a separate corpus with the same classes.

    Parameters
    ----------
    training : TrainingSet
        The counted corpus to train on, all of it.
    test : Corpus
        The test documents, counted over ``training``'s vocabulary.

    Returns
    -------
    HeldOut
        ``source`` "corpus".

    Raises
    ------
    CorpusError
        If ``test`` has no documents, or has a class that ``training`` does not.
    """
    if len(test) == 0:
        raise CorpusError("The test corpus has no documents.")
    unknown = sorted(set(test.labels) - set(training.classes))
    if unknown:
        raise CorpusError(
            "The test corpus has classes the training corpus does not: "
            f"{', '.join(map(repr, unknown))}. Pick a test corpus with the same labels."
        )
    return HeldOut(training, test, training.transform(test.texts), np.arange(len(test)), "corpus")
