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
from webnb.engine.text.analysis import AnalysisOptions
from webnb.engine.text.bag import VocabularyOptions
from webnb.engine.text.training import TrainingSet


@dataclass(frozen=True, eq=False)
class HeldOut:
    """``training`` is counted from the training documents; ``test_matrix`` (counts, shape (n_test, n_words))
    holds the ``test`` documents over its vocabulary. ``positions[i]`` is the number of test document i in
    the corpus it came from (the split corpus, or the separate test corpus)."""

    training: TrainingSet
    test: Corpus
    test_matrix: sp.csr_matrix
    positions: np.ndarray
    source: str  # "split", "training" or "corpus"
    test_size: float | None = None
    seed: int | None = None

    @property
    def test_labels(self) -> tuple[str, ...]:
        return self.test.labels

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
    """A stratified split (see ``stratified_split``): train on the rest, count the held-out part."""
    train_index, test_index = stratified_split(corpus.labels, test_size, seed)
    training = TrainingSet.build(corpus.subset(train_index), analysis, vocabulary, progress)
    test = corpus.subset(test_index)
    return HeldOut(training, test, training.transform(test.texts), test_index, "split", test_size, seed)


def on_training_documents(training: TrainingSet) -> HeldOut:
    """Score the model on the documents it learned from: the training accuracy, which flatters it."""
    corpus = training.corpus
    return HeldOut(training, corpus, training.matrix, np.arange(len(corpus)), "training")


def on_test_corpus(training: TrainingSet, test: Corpus) -> HeldOut:
    """Train on all of ``training``'s corpus and test on a separate corpus with the same classes."""
    if len(test) == 0:
        raise CorpusError("The test corpus has no documents.")
    unknown = sorted(set(test.labels) - set(training.classes))
    if unknown:
        raise CorpusError(
            "The test corpus has classes the training corpus does not: "
            f"{', '.join(map(repr, unknown))}. Pick a test corpus with the same labels."
        )
    return HeldOut(training, test, training.transform(test.texts), np.arange(len(test)), "corpus")
