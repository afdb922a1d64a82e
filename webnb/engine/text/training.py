"""A corpus made ready for Naive Bayes: analysed, counted into a sparse matrix, and summarised per class."""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Callable

import numpy as np
import scipy.sparse as sp

from webnb.engine.shared import budget
from webnb.engine.shared.classes import class_numbers
from webnb.engine.shared.corpus import Corpus
from webnb.engine.shared.forwarding import forwarded
from webnb.engine.text.analysis import AnalysisOptions, Analyzer
from webnb.engine.text.bag import BagOfWords, VocabularyOptions
from webnb.engine.text.complement import ComplementNaiveBayes, fit_complement_naive_bayes
from webnb.engine.text.models import ModelOptions, NaiveBayes, fit_naive_bayes, parse_alpha
from webnb.engine.text.statistics import ClassStatistics


class TrainingSet:
    """Everything learned from reading a corpus once.

    ``matrix`` holds counts, shape (n_docs, n_words); ``class_index[i]`` is the class number of document i.
    Models are derived from ``statistics`` only, so they are cheap to make for any α or prior.

    A training set loaded from stored counts (:meth:`deferred`) holds only its vocabulary and statistics; its
    documents and its matrix are asked from their loaders each time they are used (the loaders keep them in a
    cache bounded in bytes), so the inference and parameters pages never load them.

    Made by :meth:`build` (or :meth:`deferred`); it cannot be changed once made.

    Parameters
    ----------
    corpus : Corpus
        The training documents.
    bag : BagOfWords
        The vocabulary learned from them.
    matrix : scipy.sparse.csr_matrix of shape (n_documents, n_words)
        Their counts.
    class_index : numpy.ndarray of shape (n_documents,)
        Each document's class number.
    statistics : ClassStatistics
        The counts per class.

    Attributes
    ----------
    classes, vocabulary : tuple of str
        The classes (sorted) and the words (alphabetical).
    deferred_matrix : bool
        Whether the matrix comes from a loader.

    Examples
    --------
    >>> from webnb.engine.shared.corpus import CHINA_JAPAN, Corpus
    >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
    >>> training.classes, training.vocabulary
    (('China', 'Japan'), ('beijing', 'chinese', 'japan', 'macao', 'shanghai', 'tokyo'))
    >>> training.matrix.shape, training.class_index.tolist()
    ((4, 6), [0, 0, 0, 1])
    """

    __slots__ = ("bag", "statistics", "_corpus", "_matrix", "_class_index", "_documents", "_rows",
                 "_models", "_models_lock", "__weakref__")

    def __init__(self, corpus: Corpus, bag: BagOfWords, matrix: sp.csr_matrix, class_index: np.ndarray,
                 statistics: ClassStatistics):
        self.bag, self.statistics = bag, statistics
        self._corpus, self._matrix, self._class_index = corpus, matrix, class_index
        self._documents = self._rows = None
        # The few models most recently derived from these counts: moving between steps, or several students on
        # one corpus at the same α, derives a model's K × V parameter tables once instead of on every request.
        self._models: OrderedDict = OrderedDict()
        self._models_lock = threading.Lock()

    @classmethod
    def deferred(cls, bag: BagOfWords, statistics: ClassStatistics, *, documents: Callable[[], Corpus],
                 rows: Callable[[], tuple[sp.csr_matrix, np.ndarray]]) -> "TrainingSet":
        """A training set whose corpus comes from ``documents()`` and whose matrix and class numbers come from
        ``rows()``, when first needed and every time after (the callables cache them as they see fit).

        Parameters
        ----------
        bag : BagOfWords
            The vocabulary.
        statistics : ClassStatistics
            The counts per class, all that models need.
        documents : callable
            ``documents()`` returns the training ``Corpus``.
        rows : callable
            ``rows()`` returns (matrix, class_index) as :meth:`build` would make them.

        Returns
        -------
        TrainingSet
            The training set; its ``corpus``, ``matrix`` and ``class_index`` call the loaders when read.
        """
        training = cls(None, bag, None, None, statistics)
        object.__setattr__(training, "_documents", documents)
        object.__setattr__(training, "_rows", rows)
        return training

    def __setattr__(self, name, value):
        if hasattr(self, "_models_lock"):  # set once in __init__, never changed after
            raise AttributeError(f"a TrainingSet cannot be changed (tried to set {name!r})")
        object.__setattr__(self, name, value)

    @property
    def corpus(self) -> Corpus:
        return self._corpus if self._corpus is not None else self._documents()

    @property
    def matrix(self) -> sp.csr_matrix:
        return self._matrix if self._matrix is not None else self._rows()[0]

    @property
    def class_index(self) -> np.ndarray:
        return self._class_index if self._class_index is not None else self._rows()[1]

    @property
    def deferred_matrix(self) -> bool:
        """Whether the matrix comes from a loader (see :meth:`deferred`) rather than being held here."""
        return self._matrix is None

    @classmethod
    def build(
        cls,
        corpus: Corpus,
        analysis: AnalysisOptions | None = None,
        vocabulary: VocabularyOptions | None = None,
        progress=None,
    ) -> "TrainingSet":
        """Read ``corpus`` once: analyse and count its documents, then sum the counts per class.

        Parameters
        ----------
        corpus : Corpus
            The training documents, of at least two classes.
        analysis : AnalysisOptions, optional
            How texts become features; scikit-learn's ``CountVectorizer`` defaults when None.
        vocabulary : VocabularyOptions, optional
            Which words are kept; all when None.
        progress : callable, optional
            ``progress(done, total)`` is told how many documents have been counted (see bag._count).

        Returns
        -------
        TrainingSet
            The corpus, its vocabulary, its counts and its class statistics.

        Raises
        ------
        CorpusError
            If the corpus has no documents or a single class, or if ``vocabulary``'s ``max_df`` allows fewer documents
            than its ``min_df``.
        EmptyVocabularyError
            If no word is left to count.
        WorkTooLarge
            If the app set a memory cap (see ``budget``) and counting, or the class tables, would exceed it; refused
            before the work where the sizes are known.

        Examples
        --------
        >>> from webnb.engine.shared.corpus import Corpus
        >>> from webnb.engine.text.analysis import AnalysisOptions
        >>> pairs = [("pos", "keeper was sharp and composed"), ("neg", "match was not sharp")]
        >>> TrainingSet.build(Corpus.from_pairs(pairs), AnalysisOptions(stop_words="english")).vocabulary
        ('composed', 'keeper', 'match', 'sharp')
        """
        corpus.require_trainable()
        # Refused before the work, when the app set a memory cap (see budget): counting, then the class tables.
        budget.require_counting(len(corpus), sum(map(len, corpus.texts)))
        classes = corpus.classes
        bag, matrix = BagOfWords.fit_transform(
            corpus.texts, Analyzer(analysis), vocabulary, progress, _class_tables_guard(corpus, classes, vocabulary)
        )
        budget.require_class_tables(len(classes), len(bag.vocabulary), matrix.nnz)
        class_index = class_numbers(classes, corpus.labels)
        statistics = ClassStatistics.from_matrix(matrix, class_index, classes, bag.vocabulary)
        return cls(corpus, bag, matrix, class_index, statistics)

    classes = forwarded("statistics.classes")
    vocabulary = forwarded("bag.vocabulary")

    def model_with(self, options: ModelOptions) -> NaiveBayes:
        """The model of these counts for the settings ``options`` (see ``model``).

        Parameters
        ----------
        options : ModelOptions
            The model's settings, as one value.

        Returns
        -------
        NaiveBayes
            ``model(**options)``: the same object for the same settings while it is kept.

        Examples
        --------
        >>> from webnb.engine.shared.corpus import CHINA_JAPAN, Corpus
        >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
        >>> model = training.model_with(ModelOptions("multinomial", "1"))
        >>> model.kind, model.alpha, model is training.model_with(ModelOptions("multinomial", 1))
        ('multinomial', Fraction(1, 1), True)
        """
        return self.model(**options)

    def model(self, kind: str = "bernoulli", alpha=1, **options) -> NaiveBayes | ComplementNaiveBayes:
        """The model of these counts for ``kind``, α and ``options``, derived once and kept among the ``KEPT_MODELS``
        most recently asked for.

        Parameters
        ----------
        kind : {"bernoulli", "multinomial", "complement"}, default "bernoulli"
            The model.
        alpha : str, int, float or Fraction, default 1
            The pseudo-count (see ``parse_alpha``); 0 is maximum likelihood, with exact zeros.
        **options
            ``binary``, ``fit_prior``, ``class_prior`` and ``epsilon``, as ``fit_naive_bayes`` takes them
            (``fit_complement_naive_bayes`` for "complement", which takes no ``epsilon``).

        Returns
        -------
        NaiveBayes or ComplementNaiveBayes
            The same object for the same settings while it is kept.

        Raises
        ------
        ValueError, CorpusError
            As ``fit_naive_bayes`` (or ``fit_complement_naive_bayes``) raises them; ValueError for a floor asked of
            Complement Naive Bayes.

        Examples
        --------
        >>> from webnb.engine.shared.corpus import CHINA_JAPAN, Corpus
        >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
        >>> model = training.model("multinomial", "1")
        >>> model.kind, model.alpha, model is training.model("multinomial", 1)
        ('multinomial', Fraction(1, 1), True)
        """
        key = (kind, parse_alpha(alpha), _hashable(options))
        with self._models_lock:
            model = self._models.get(key)
            if model is not None:
                self._models.move_to_end(key)
                return model
        model = _fit(self.statistics, kind, alpha, options)
        with self._models_lock:
            self._models[key] = model
            while len(self._models) > KEPT_MODELS:
                self._models.popitem(last=False)
        return model

    def transform(self, texts) -> sp.csr_matrix:
        """Count new texts over this vocabulary (words outside it are ignored), as models score them.

        Parameters
        ----------
        texts
            As in ``BagOfWords.transform``, which this calls.

        Returns
        -------
        scipy.sparse.csr_matrix of shape (n_texts, n_words)
            Their counts.
        """
        return self.bag.transform(texts)


# Models kept per training set: the lesson's own α with its α = 0, smoothed and floored variants, for both kinds.
KEPT_MODELS = 8

# Why a floor is refused for Complement Naive Bayes: said on the page that asked for it.
NO_FLOOR_FOR_WEIGHTS = ("The ε-floor keeps probabilities away from 0 and 1; Complement Naive Bayes has weights, not "
                        "probabilities, so it has nothing to floor. Turn the floor off to see its weights.")


def _fit(statistics: ClassStatistics, kind: str, alpha, options: dict) -> NaiveBayes | ComplementNaiveBayes:
    """``fit_naive_bayes``, or ``fit_complement_naive_bayes`` for "complement" (which takes no floor)."""
    if kind != ComplementNaiveBayes.kind:
        return fit_naive_bayes(statistics, kind, alpha, **options)
    options = dict(options)
    if options.pop("epsilon", None) is not None:
        raise ValueError(NO_FLOOR_FOR_WEIGHTS)
    return fit_complement_naive_bayes(statistics, alpha, **options)


def _hashable(options: dict) -> tuple:
    """``options`` as a cache key (a class prior given as a list becomes a tuple)."""
    return tuple(sorted((name, tuple(value) if isinstance(value, list) else value) for name, value in options.items()))


def _class_tables_guard(corpus: Corpus, classes, vocabulary: VocabularyOptions | None):
    """While counting, refuse as soon as the words found so far make the class tables too large for the cap: without
    document-frequency pruning the vocabulary only grows (up to ``max_features``), so a corpus of many classes and
    words is refused before it is counted to the end. None (check after counting only) when min_df or max_df may
    still remove words."""
    options = vocabulary or VocabularyOptions()
    low, high = options.document_count_bounds(len(corpus))
    if low > 1 or high < len(corpus):
        return None
    cap = options.max_features

    def guard(n_words: int) -> None:
        budget.require_class_tables(len(classes), n_words if cap is None else min(n_words, cap), at_least=True)

    return guard
