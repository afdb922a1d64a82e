"""Agreement with scikit-learn on the real corpora in ../shared/corpora.

For every corpus the engine must count the same words as ``CountVectorizer``, derive the same parameters as
``BernoulliNB`` / ``MultinomialNB`` (to 1e-10) and make the same predictions on held-out documents, with the
same log posteriors (to 1e-8, widened for very long documents: see LOG_POSTERIOR_ATOL), accuracy and
confusion matrix.

Held-out documents: the 20 Newsgroups test split for 20 Newsgroups (4 categories or all 20), and
``stratified_split(labels, 0.25, seed=0)`` for the other corpora. Everything is fitted on the training part only.

Each corpus is read once and vectorised once per analysis setting (by us and by scikit-learn); the cache lives
as long as this module's tests. Models are cheap to fit, so each test fits its own.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.metrics import accuracy_score, confusion_matrix
from sklearn.naive_bayes import BernoulliNB, MultinomialNB

from webnb.engine import (
    AnalysisOptions,
    Corpus,
    TrainingSet,
    VocabularyOptions,
    evaluate,
    read_corpus,
    stratified_split,
)

pytestmark = pytest.mark.corpora

NEWSGROUPS_4 = ("alt.atheism", "comp.graphics", "sci.med", "soc.religion.christian")

# Corpus name -> marks. 20 Newsgroups takes seconds to vectorise, the others a fraction of a second.
CORPORA = {
    "20ng-4": (pytest.mark.slow,),
    "20ng-20": (pytest.mark.slow,),
    "sms": (),
    "movie-reviews": (),
    "sentence-polarity": (),
}
SINGLE_FILE_CORPORA = {
    "sms": "sms-spam-collection-v1/all.jsonl",
    "movie-reviews": "movie-review-polarity-v2.0/all.jsonl",
    "sentence-polarity": "sentence-polarity-v1.0/all.jsonl",
}


@dataclass(frozen=True)
class Setting:
    """One analysis setting, written for both libraries."""

    analysis: AnalysisOptions
    vocabulary: VocabularyOptions
    count_vectorizer: dict  # CountVectorizer's keyword arguments
    binary: bool = False  # the multinomial model on presence (0/1) features


SETTINGS = {
    "default": Setting(AnalysisOptions(), VocabularyOptions(), {}),
    "binary": Setting(AnalysisOptions(), VocabularyOptions(), {"binary": True}, binary=True),
    "pruned": Setting(AnalysisOptions(), VocabularyOptions(min_df=2, max_df=0.5), {"min_df": 2, "max_df": 0.5}),
    "stop-bigrams": Setting(
        AnalysisOptions(stop_words="english", ngram_range=(1, 2)),
        VocabularyOptions(),
        {"stop_words": "english", "ngram_range": (1, 2)},
    ),
}
# Which settings are compared on which corpora. Each setting costs a vectorisation by both libraries, so the
# slowest ones (pruning all of 20 Newsgroups, bigrams of the long movie reviews) are left out: 20ng-4 prunes and
# makes bigrams of a long-document corpus already.
SETTINGS_BY_CORPUS = {
    "20ng-4": ("default", "binary", "pruned", "stop-bigrams"),
    "20ng-20": ("default", "binary"),
    "sms": ("default", "binary", "pruned", "stop-bigrams"),
    "movie-reviews": ("default", "binary", "pruned"),
    "sentence-polarity": ("default", "binary", "pruned", "stop-bigrams"),
}
ALPHAS = (1, 0.1)


# -- the data, read and vectorised once --------------------------------------------------------------------------


@dataclass(frozen=True)
class Split:
    train: Corpus
    test: Corpus


@dataclass(frozen=True)
class Ours:
    training_set: TrainingSet
    test_matrix: sp.csr_matrix


@dataclass(frozen=True)
class Theirs:
    vectorizer: CountVectorizer
    train_matrix: sp.csr_matrix
    test_matrix: sp.csr_matrix


def _only(corpus: Corpus, labels) -> Corpus:
    wanted = set(labels)
    return corpus.subset(i for i, label in enumerate(corpus.labels) if label in wanted)


class Bench:
    """Corpora, splits and matrices, each made on first use and kept."""

    def __init__(self, root: Path):
        self.root = root
        self._files: dict[str, Corpus] = {}
        self._splits: dict[str, Split] = {}
        self._ours: dict[tuple, Ours] = {}
        self._theirs: dict[tuple, Theirs] = {}

    def _read(self, relative: str) -> Corpus:
        if relative not in self._files:
            self._files[relative] = read_corpus(self.root / relative)
        return self._files[relative]

    def split(self, name: str) -> Split:
        if name not in self._splits:
            if name.startswith("20ng"):
                train = self._read("20newsgroups-bydate/train.jsonl.gz")
                test = self._read("20newsgroups-bydate/test.jsonl")
                if name == "20ng-4":
                    train, test = _only(train, NEWSGROUPS_4), _only(test, NEWSGROUPS_4)
            else:
                corpus = self._read(SINGLE_FILE_CORPORA[name])
                train_index, test_index = stratified_split(corpus.labels, 0.25, seed=0)
                train, test = corpus.subset(train_index), corpus.subset(test_index)
            self._splits[name] = Split(train, test)
        return self._splits[name]

    def ours(self, name: str, setting: str) -> Ours:
        options = SETTINGS[setting]
        key = (name, options.analysis, options.vocabulary)  # "binary" counts like "default": the model binarises
        if key not in self._ours:
            split = self.split(name)
            training_set = TrainingSet.build(split.train, options.analysis, options.vocabulary)
            self._ours[key] = Ours(training_set, training_set.transform(split.test.texts))
        return self._ours[key]

    def theirs(self, name: str, setting: str) -> Theirs:
        key = (name, setting)
        if key not in self._theirs:
            split = self.split(name)
            vectorizer = CountVectorizer(**SETTINGS[setting].count_vectorizer)
            train_matrix = vectorizer.fit_transform(split.train.texts)
            self._theirs[key] = Theirs(vectorizer, train_matrix, vectorizer.transform(split.test.texts))
        return self._theirs[key]


@pytest.fixture(scope="module")
def bench(shared_corpora) -> Bench:
    return Bench(shared_corpora)


# -- the combinations ----------------------------------------------------------------------------------------------


def _param(*values, corpus: str):
    return pytest.param(*values, id="-".join(str(v) for v in values), marks=CORPORA[corpus])


VECTORISATIONS = [
    _param(name, setting, corpus=name) for name, settings in SETTINGS_BY_CORPUS.items() for setting in settings
]


@dataclass(frozen=True)
class Combination:
    corpus: str
    setting: str
    kind: str
    alpha: float
    prior: str = "learned"  # "learned", "uniform" (fit_prior=False) or "given" (class_prior)

    def __str__(self) -> str:
        return f"{self.corpus}-{self.setting}-{self.kind}-alpha{self.alpha}-{self.prior}"


def _combinations():
    for name, settings in SETTINGS_BY_CORPUS.items():
        for setting in settings:
            kinds = ("multinomial",) if SETTINGS[setting].binary else ("bernoulli", "multinomial")
            for kind in kinds:
                for alpha in ALPHAS:
                    yield Combination(name, setting, kind, alpha)
        for kind in ("bernoulli", "multinomial"):
            for prior in ("uniform", "given"):
                yield Combination(name, "default", kind, 1, prior)


COMBINATIONS = [pytest.param(c, id=str(c), marks=CORPORA[c.corpus]) for c in _combinations()]


def _given_prior(n_classes: int) -> list[float]:
    """A class prior far from the learned one: 1 : 2 : … : K, normalised."""
    weights = np.arange(1, n_classes + 1, dtype=np.float64)
    return (weights / weights.sum()).tolist()


def fit_both(bench: Bench, combination: Combination):
    """Our model and scikit-learn's, fitted on the same training part."""
    setting = SETTINGS[combination.setting]
    ours = bench.ours(combination.corpus, combination.setting)
    theirs = bench.theirs(combination.corpus, combination.setting)
    labels = np.asarray(bench.split(combination.corpus).train.labels)
    classes = ours.training_set.classes
    prior = {}
    if combination.prior == "uniform":
        prior = {"fit_prior": False}
    elif combination.prior == "given":
        prior = {"class_prior": _given_prior(len(classes))}

    if combination.kind == "bernoulli":
        our_model = ours.training_set.model("bernoulli", combination.alpha, **prior)
        their_model = BernoulliNB(alpha=combination.alpha, force_alpha=True, **prior)
    else:
        our_model = ours.training_set.model("multinomial", combination.alpha, binary=setting.binary, **prior)
        their_model = MultinomialNB(alpha=combination.alpha, force_alpha=True, **prior)
    their_model.fit(theirs.train_matrix, labels)
    return ours, our_model, theirs, their_model


# -- helpers that report a difference briefly (pytest's own diff of 100k-element lists is slow and long) -------


def assert_same_sequence(ours, theirs, what: str) -> None:
    ours, theirs = list(ours), list(theirs)
    if ours == theirs:
        return
    # Not strict: the lengths may differ, and that difference is what gets reported.
    pairs = list(zip(ours, theirs, strict=False))
    n_differ = sum(a != b for a, b in pairs) + abs(len(ours) - len(theirs))
    first = next((i for i, (a, b) in enumerate(pairs) if a != b), len(pairs))
    pytest.fail(
        f"{what}: {n_differ} of {max(len(ours), len(theirs))} differ (lengths {len(ours)} vs {len(theirs)}); "
        f"first at {first}: ours {ours[first:first + 3]!r}, scikit-learn {theirs[first:first + 3]!r}"
    )


def assert_same_matrix(ours: sp.spmatrix, theirs: sp.spmatrix, what: str) -> None:
    assert ours.shape == theirs.shape, f"{what}: shape {ours.shape} vs scikit-learn's {theirs.shape}"
    difference = sp.csr_matrix(ours) - sp.csr_matrix(theirs)
    difference.eliminate_zeros()
    assert difference.nnz == 0, f"{what}: {difference.nnz} entries differ"


# Log posteriors agree to 1e-8, widened by 1e-12 of the row's largest |log joint likelihood|. A long document
# (20 Newsgroups has posts of 13,000 words) has log joint likelihoods near -1e5, where float64 rounding in the
# sum over its words alone reaches 1e-8 and depends on the order of summation. Checked against a long-double
# reference on 20ng-4 with bigrams: both libraries stay within 3e-8 of it (the engine within 4e-9), and the
# largest difference between them is 1.4e-13 of the row's magnitude; rows with |log joint| < 1e3 differ by < 2e-12.
LOG_POSTERIOR_ATOL = 1e-8
LOG_POSTERIOR_RTOL_OF_JOINT = 1e-12


def assert_same_log_posteriors(ours: np.ndarray, theirs: np.ndarray, their_joint: np.ndarray) -> None:
    assert ours.shape == theirs.shape
    scale = np.abs(their_joint).max(axis=1, keepdims=True)
    allowed = LOG_POSTERIOR_ATOL + LOG_POSTERIOR_RTOL_OF_JOINT * scale
    difference = np.abs(ours - theirs)
    outside = difference > allowed
    if outside.any():
        row, column = np.unravel_index(np.argmax(difference - allowed), difference.shape)
        pytest.fail(
            f"log posteriors: {outside.sum()} of {outside.size} differ by more than {LOG_POSTERIOR_ATOL:g} + "
            f"{LOG_POSTERIOR_RTOL_OF_JOINT:g}·max|log joint|; worst at document {row}, class {column}: "
            f"ours {ours[row, column]!r}, scikit-learn {theirs[row, column]!r} "
            f"(allowed {allowed[row, 0]:.3g}, max|log joint| {scale[row, 0]:.3g})"
        )


# -- the tests -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("corpus, setting", VECTORISATIONS)
def test_same_vocabulary_and_counts(bench, corpus, setting):
    ours, theirs = bench.ours(corpus, setting), bench.theirs(corpus, setting)
    assert_same_sequence(ours.training_set.vocabulary, theirs.vectorizer.get_feature_names_out(), "vocabulary")
    train_matrix, test_matrix = ours.training_set.matrix, ours.test_matrix
    if SETTINGS[setting].binary:
        # We keep counts and binarise in the model; CountVectorizer(binary=True) binarises the matrix.
        train_matrix, test_matrix = (m.sign() for m in (train_matrix, test_matrix))
    assert_same_matrix(train_matrix, theirs.train_matrix, "training matrix")
    assert_same_matrix(test_matrix, theirs.test_matrix, "test matrix (transform)")


@pytest.mark.parametrize("combination", COMBINATIONS)
def test_same_parameters(bench, combination):
    ours, our_model, theirs, their_model = fit_both(bench, combination)
    assert list(their_model.classes_) == list(our_model.classes)
    assert list(our_model.classes) == sorted(set(bench.split(combination.corpus).train.labels))

    statistics = ours.training_set.statistics
    np.testing.assert_array_equal(statistics.class_count_, their_model.class_count_)
    if combination.kind == "bernoulli":
        expected_counts = statistics.document_count_
    else:
        expected_counts = statistics.feature_count(SETTINGS[combination.setting].binary)
    np.testing.assert_array_equal(expected_counts, their_model.feature_count_)

    np.testing.assert_allclose(our_model.class_log_prior_, their_model.class_log_prior_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(our_model.feature_log_prob_, their_model.feature_log_prob_, rtol=0, atol=1e-10)


@pytest.mark.parametrize("combination", COMBINATIONS)
def test_same_predictions(bench, combination):
    ours, our_model, theirs, their_model = fit_both(bench, combination)
    test_labels = list(bench.split(combination.corpus).test.labels)
    classes = list(our_model.classes)

    their_predictions = their_model.predict(theirs.test_matrix).tolist()
    assert_same_sequence(our_model.predict(ours.test_matrix), their_predictions, "predictions")

    log_posterior, decidable = our_model.predict_log_proba(ours.test_matrix)
    assert decidable.all()
    assert_same_log_posteriors(
        log_posterior,
        their_model.predict_log_proba(theirs.test_matrix),
        their_model.predict_joint_log_proba(theirs.test_matrix),
    )

    evaluation = evaluate(our_model, ours.test_matrix, test_labels)
    assert evaluation.undecidable == 0
    assert evaluation.n_test == len(test_labels)
    assert evaluation.accuracy == accuracy_score(test_labels, their_predictions)
    np.testing.assert_array_equal(
        np.array(evaluation.confusion), confusion_matrix(test_labels, their_predictions, labels=classes)
    )
