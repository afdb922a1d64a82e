"""A corpus made ready for Naive Bayes: analysed, counted into a sparse matrix, and summarised per class."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from . import budget
from .analysis import AnalysisOptions, Analyzer
from .bag import BagOfWords, VocabularyOptions
from .corpus import Corpus
from .models import NaiveBayes, fit_naive_bayes
from .statistics import ClassStatistics


@dataclass(frozen=True, eq=False)
class TrainingSet:
    """Everything learned from reading a corpus once.

    ``matrix`` holds counts, shape (n_docs, n_words); ``class_index[i]`` is the class number of document i.
    Models are derived from ``statistics`` only, so they are cheap to make for any α or prior.
    """

    corpus: Corpus
    bag: BagOfWords
    matrix: sp.csr_matrix
    class_index: np.ndarray
    statistics: ClassStatistics

    @classmethod
    def build(
        cls,
        corpus: Corpus,
        analysis: AnalysisOptions | None = None,
        vocabulary: VocabularyOptions | None = None,
        progress=None,
    ) -> "TrainingSet":
        """``progress(done, total)`` is told how many documents have been counted (see bag._count)."""
        corpus.require_trainable()
        # Refused before the work, when the app set a memory cap (see budget): counting, then the class tables.
        budget.require_counting(len(corpus), sum(map(len, corpus.texts)))
        bag, matrix = BagOfWords.fit_transform(corpus.texts, Analyzer(analysis), vocabulary, progress)
        classes = corpus.classes
        budget.require_class_tables(len(classes), len(bag.vocabulary), matrix.nnz)
        number_of = {label: k for k, label in enumerate(classes)}
        class_index = np.fromiter((number_of[label] for label in corpus.labels), dtype=np.int64, count=len(corpus))
        statistics = ClassStatistics.from_matrix(matrix, class_index, classes, bag.vocabulary)
        return cls(corpus, bag, matrix, class_index, statistics)

    @property
    def classes(self) -> tuple[str, ...]:
        return self.statistics.classes

    @property
    def vocabulary(self) -> tuple[str, ...]:
        return self.bag.vocabulary

    def model(self, kind: str = "bernoulli", alpha=1, **options) -> NaiveBayes:
        return fit_naive_bayes(self.statistics, kind, alpha, **options)

    def transform(self, texts) -> sp.csr_matrix:
        return self.bag.transform(texts)
