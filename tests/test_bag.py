"""The bag of words: an alphabetical vocabulary and a sparse count matrix, pruned as scikit-learn prunes."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer

from webnb.engine.io.readers import read_corpus
from webnb.engine.shared.corpus import CorpusError
from webnb.engine.text.analysis import AnalysisOptions, Analyzer
from webnb.engine.text.bag import BagOfWords, EmptyVocabularyError, VocabularyOptions, document_frequency

SMALL = ("the cat sat on the mat", "the dog sat", "a cat and a dog", "")

# Totals: apple 5, banana 3, cherry 2, date 2, elder 1, fig 1.  Documents: apple 3, banana/cherry/date 2, elder/fig 1.
FRUIT = (
    "apple apple apple banana banana cherry",
    "apple banana date",
    "cherry date elder",
    "apple fig",
)


def fit(texts, analysis: AnalysisOptions | None = None, **vocabulary):
    return BagOfWords.fit_transform(texts, Analyzer(analysis), VocabularyOptions(**vocabulary))


def assert_is_sparse_counts(X, shape):
    assert isinstance(X, sp.csr_matrix)
    assert X.shape == shape
    assert X.dtype == np.int64
    assert X.has_canonical_format
    assert (X.data > 0).all()  # no stored zeros


def assert_same_as_sklearn(bag, X, vectorizer, X_sklearn):
    assert list(bag.vocabulary) == vectorizer.get_feature_names_out().tolist()
    assert bag.index == {word: int(j) for word, j in vectorizer.vocabulary_.items()}
    assert X.shape == X_sklearn.shape
    assert (X != sp.csr_matrix(X_sklearn)).nnz == 0


# --- fitting -----------------------------------------------------------------------------------


def test_fit_transform_counts_a_small_corpus():
    bag, X = fit(SMALL)
    assert bag.vocabulary == ("and", "cat", "dog", "mat", "on", "sat", "the")
    assert len(bag) == 7
    assert bag.index == {"and": 0, "cat": 1, "dog": 2, "mat": 3, "on": 4, "sat": 5, "the": 6}
    assert_is_sparse_counts(X, (4, 7))
    assert X.nnz == 11
    assert X.toarray().tolist() == [
        # and cat dog mat on sat the
        [0, 1, 0, 1, 1, 1, 2],
        [0, 0, 1, 0, 0, 1, 1],
        [1, 1, 1, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0],
    ]


def test_vocabulary_is_alphabetical_not_in_order_of_appearance():
    bag, X = fit(["zebra yak", "apple zebra", "mango"])
    assert bag.vocabulary == ("apple", "mango", "yak", "zebra")
    assert X.toarray().tolist() == [[0, 0, 1, 1], [1, 0, 0, 1], [0, 1, 0, 0]]


def test_fit_accepts_any_iterable_of_texts():
    bag, X = BagOfWords.fit_transform((t for t in FRUIT), Analyzer())
    assert bag.vocabulary == ("apple", "banana", "cherry", "date", "elder", "fig")
    assert X.shape == (4, 6)


def test_ngrams_are_columns_too():
    bag, X = fit(["match was sharp", "match was not"], AnalysisOptions(ngram_range=(1, 2)))
    assert bag.vocabulary == ("match", "match was", "not", "sharp", "was", "was not", "was sharp")
    assert X.toarray().tolist() == [[1, 1, 0, 1, 1, 0, 1], [1, 1, 1, 0, 1, 1, 0]]


# --- agreement with scikit-learn ------------------------------------------------------------

VOCABULARY_SETTINGS = [
    {},
    {"min_df": 2},
    {"min_df": 0.5},
    {"min_df": 0.3},
    {"max_df": 2},
    {"max_df": 0.5},
    {"max_df": 0.75},
    {"min_df": 2, "max_df": 0.75},
    {"min_df": 0.0, "max_df": 1.0},
    {"min_df": 1.0},
    {"min_df": 0.2, "max_df": 0.8},
]


@pytest.mark.parametrize("settings", VOCABULARY_SETTINGS, ids=str)
@pytest.mark.parametrize("texts", [SMALL, FRUIT], ids=["small", "fruit"])
def test_same_as_sklearn(texts, settings):
    try:
        vectorizer = CountVectorizer(**settings)
        X_sklearn = vectorizer.fit_transform(texts)
    except ValueError as error:  # scikit-learn prunes everything: so must we
        assert "no terms remain" in str(error)
        with pytest.raises(EmptyVocabularyError, match="no word remains"):
            fit(texts, **settings)
        return
    bag, X = fit(texts, **settings)
    assert_is_sparse_counts(X, (len(texts), len(bag)))
    assert_same_as_sklearn(bag, X, vectorizer, X_sklearn)


def totals_at_the_boundary(texts, settings):
    """The total counts of the last word kept and the first word left out by ``max_features``."""
    vectorizer = CountVectorizer(**{k: v for k, v in settings.items() if k != "max_features"})
    ranked = np.sort(np.asarray(vectorizer.fit_transform(texts).sum(axis=0)).ravel())[::-1]
    k = min(settings["max_features"], len(ranked))
    return ranked[k - 1], (ranked[k] if k < len(ranked) else 0)


# Each case has no tie at the boundary: scikit-learn breaks ties with an unstable sort, so only these compare.
@pytest.mark.parametrize(
    ("texts", "settings"),
    [
        (FRUIT, {"max_features": 1}),
        (FRUIT, {"max_features": 2}),
        (FRUIT, {"max_features": 4}),
        (FRUIT, {"max_features": 100}),
        (FRUIT, {"min_df": 2, "max_features": 1}),
        (FRUIT, {"max_df": 2, "max_features": 3}),
        (SMALL, {"max_features": 1}),
        (SMALL, {"max_features": 4}),
        (SMALL, {"min_df": 2, "max_features": 1}),
        (SMALL, {"max_df": 0.5, "max_features": 4}),
    ],
    ids=str,
)
def test_same_as_sklearn_with_max_features(texts, settings):
    last_kept, first_left_out = totals_at_the_boundary(texts, settings)
    assert last_kept > first_left_out
    vectorizer = CountVectorizer(**settings)
    X_sklearn = vectorizer.fit_transform(texts)
    bag, X = fit(texts, **settings)
    assert_same_as_sklearn(bag, X, vectorizer, X_sklearn)


@pytest.mark.parametrize(
    ("analysis", "sklearn_analysis"),
    [
        ({"stop_words": "english"}, {"stop_words": "english"}),
        ({"ngram_range": (1, 2)}, {"ngram_range": (1, 2)}),
        ({"ngram_range": (2, 2), "stop_words": "english"}, {"ngram_range": (2, 2), "stop_words": "english"}),
        ({"token_pattern": "words", "lowercase": False}, {"token_pattern": r"(?u)\b\w+\b", "lowercase": False}),
    ],
    ids=["stop", "ngram-1-2", "ngram-2-2-stop", "words-cased"],
)
@pytest.mark.parametrize("settings", [{}, {"min_df": 2}, {"max_df": 0.6}], ids=str)
def test_same_as_sklearn_with_analysis_options(analysis, sklearn_analysis, settings):
    texts = SMALL + FRUIT + ("The Cat and THE dog ate the apple", "a dog is not a cat")
    vectorizer = CountVectorizer(**sklearn_analysis, **settings)
    X_sklearn = vectorizer.fit_transform(texts)
    bag, X = fit(texts, AnalysisOptions(**analysis), **settings)
    assert_same_as_sklearn(bag, X, vectorizer, X_sklearn)


@pytest.fixture(scope="module")
def sms_texts(shared_corpora):
    return read_corpus(shared_corpora / "sms-spam-collection-v1" / "all.jsonl").texts


def untied_limit(totals: np.ndarray, at_least: int) -> int:
    """The smallest k >= at_least such that the k-th and (k+1)-th largest totals differ, so that the
    k most frequent words are the same whatever the tie-breaking (scikit-learn's is not stable)."""
    ranked = np.sort(totals)[::-1]
    k = at_least
    while ranked[k - 1] == ranked[k]:
        k += 1
    return k


@pytest.mark.corpora
def test_same_as_sklearn_on_sms(sms_texts):
    vectorizer = CountVectorizer()
    bag, X = fit(sms_texts)
    assert_same_as_sklearn(bag, X, vectorizer, vectorizer.fit_transform(sms_texts))
    assert X.shape == (5574, len(bag))

    totals = np.asarray(X.sum(axis=0)).ravel()
    limit = untied_limit(totals, 500)
    for settings in ({"min_df": 3, "max_df": 0.5}, {"min_df": 0.001, "max_df": 300}, {"max_features": limit}):
        vectorizer = CountVectorizer(**settings)
        X_sklearn = vectorizer.fit_transform(sms_texts)
        pruned_bag, pruned_X = fit(sms_texts, **settings)
        assert_same_as_sklearn(pruned_bag, pruned_X, vectorizer, X_sklearn)


# --- max_features ------------------------------------------------------------------------------


def test_max_features_keeps_the_most_frequent_words_ties_broken_alphabetically():
    # Totals: zebra 3; apple, mango, yak 2 each; kiwi 1. Three words fit: zebra, then two of the tied three.
    texts = ["zebra zebra zebra yak", "yak mango apple", "mango apple kiwi"]
    bag, X = fit(texts, max_features=3)
    assert bag.vocabulary == ("apple", "mango", "zebra")
    assert X.toarray().tolist() == [[0, 0, 3], [1, 1, 0], [1, 1, 0]]
    assert fit(texts, max_features=1)[0].vocabulary == ("zebra",)
    assert fit(texts, max_features=2)[0].vocabulary == ("apple", "zebra")
    assert fit(texts, max_features=4)[0].vocabulary == ("apple", "mango", "yak", "zebra")
    assert fit(texts, max_features=5)[0].vocabulary == ("apple", "kiwi", "mango", "yak", "zebra")


def test_max_features_ties_do_not_depend_on_document_order():
    texts = ["zebra zebra zebra yak", "yak mango apple", "mango apple kiwi"]
    for order in ([0, 1, 2], [2, 1, 0], [1, 2, 0]):
        assert fit([texts[i] for i in order], max_features=3)[0].vocabulary == ("apple", "mango", "zebra")


# Totals: spam 4, ham 3, eggs 2, toast 1.  Documents: ham 3, eggs 2, spam 1, toast 1.
BREAKFAST = ("spam spam spam spam ham", "ham eggs", "ham eggs toast")


def test_max_features_ranks_by_total_count():
    bag, X = fit(BREAKFAST, max_features=2)
    assert bag.vocabulary == ("ham", "spam")
    assert X.toarray().tolist() == [[1, 4], [1, 0], [1, 0]]


def test_binary_max_features_ranks_by_document_frequency():
    bag, X = fit(BREAKFAST, max_features=2, binary=True)
    assert bag.vocabulary == ("eggs", "ham")
    # binary only changes the ranking: X still holds counts.
    assert X.toarray().tolist() == [[0, 1], [1, 1], [1, 1]]


@pytest.mark.parametrize("binary", [False, True])
def test_max_features_ranking_matches_sklearn(binary):
    vectorizer = CountVectorizer(max_features=2, binary=binary)
    vectorizer.fit(BREAKFAST)
    bag, _ = fit(BREAKFAST, max_features=2, binary=binary)
    assert list(bag.vocabulary) == vectorizer.get_feature_names_out().tolist()


def test_max_features_applies_after_document_frequency_pruning():
    # Without pruning the two most frequent words are apple and banana; max_df=2 removes apple (3 documents).
    bag, _ = fit(FRUIT, max_df=2, max_features=2)
    assert bag.vocabulary == ("banana", "cherry")  # banana 3; cherry and date tie at 2, cherry first


def test_max_features_larger_than_the_vocabulary_keeps_everything():
    bag, X = fit(FRUIT, max_features=1000)
    assert len(bag) == 6
    assert X.sum() == 14


# --- min_df and max_df -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("settings", "vocabulary"),
    [
        ({"min_df": 2}, ("apple", "banana", "cherry", "date")),
        ({"min_df": 3}, ("apple",)),
        ({"min_df": 0.5}, ("apple", "banana", "cherry", "date")),  # at least 2 of 4 documents
        ({"min_df": 0.51}, ("apple",)),  # at least 2.04 documents
        ({"max_df": 1}, ("elder", "fig")),
        ({"max_df": 2}, ("banana", "cherry", "date", "elder", "fig")),
        ({"max_df": 0.5}, ("banana", "cherry", "date", "elder", "fig")),
        ({"max_df": 0.49}, ("elder", "fig")),
        ({"min_df": 2, "max_df": 2}, ("banana", "cherry", "date")),
    ],
    ids=str,
)
def test_document_frequency_bounds(settings, vocabulary):
    bag, X = fit(FRUIT, **settings)
    assert bag.vocabulary == vocabulary
    full_bag, full_X = fit(FRUIT)
    columns = [full_bag.index[word] for word in vocabulary]
    assert (X != full_X[:, columns]).nnz == 0


def test_documents_emptied_by_pruning_stay_as_zero_rows():
    texts = FRUIT + ("kiwi lime", "")
    bag, X = fit(texts, min_df=2)
    assert bag.vocabulary == ("apple", "banana", "cherry", "date")
    assert_is_sparse_counts(X, (6, 4))
    assert X.toarray().tolist() == [[3, 2, 1, 0], [1, 1, 0, 1], [0, 0, 1, 1], [1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]
    assert X.indptr.tolist() == [0, 3, 6, 8, 9, 9, 9]


def test_document_count_bounds():
    assert VocabularyOptions(min_df=2, max_df=0.5).document_count_bounds(10) == (2, 5.0)
    assert VocabularyOptions(min_df=0.25, max_df=7).document_count_bounds(10) == (2.5, 7)


# --- transform ---------------------------------------------------------------------------------


def test_transform_ignores_unknown_words():
    bag, _ = fit(SMALL)
    X = bag.transform(["the zebra", "cat cat unknown dog", "", "!!! ???", "zebra yak", "mat"])
    assert_is_sparse_counts(X, (6, 7))
    assert X.toarray().tolist() == [
        [0, 0, 0, 0, 0, 0, 1],
        [0, 2, 1, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 1, 0, 0, 0],
    ]
    assert X.indptr.tolist() == [0, 1, 3, 3, 3, 3, 4]


def test_transform_matches_sklearn():
    texts = ["the zebra", "cat cat unknown dog", "", "the the the mat on a dog"]
    bag, _ = fit(SMALL)
    vectorizer = CountVectorizer().fit(SMALL)
    assert (bag.transform(texts) != sp.csr_matrix(vectorizer.transform(texts))).nnz == 0


def test_transform_of_the_training_texts_gives_the_training_matrix():
    bag, X = fit(FRUIT + SMALL, min_df=2)
    assert (bag.transform(FRUIT + SMALL) != X).nnz == 0


def test_transform_of_nothing():
    bag, _ = fit(SMALL)
    X = bag.transform([])
    assert_is_sparse_counts(X, (0, 7))
    X = bag.transform(["", "zzz"])
    assert_is_sparse_counts(X, (2, 7))
    assert X.nnz == 0


def test_transform_uses_the_fitted_analysis():
    bag, _ = fit(["Running ponies", "the runner"], AnalysisOptions(stemmer="porter", stop_words="english"))
    assert bag.vocabulary == ("poni", "run", "runner")
    assert bag.transform(["RUNS pony the"]).toarray().tolist() == [[1, 1, 0]]


# --- errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("texts", "analysis"),
    [
        ([], None),
        (["", "   ", "\n"], None),
        (["!!!", "?? -- ..."], None),
        (["The and of", "it is not"], AnalysisOptions(stop_words="english")),
        (["a b c", "I x y"], None),
        (["one two", "three"], AnalysisOptions(ngram_range=(3, 3))),
    ],
    ids=["no-documents", "empty", "punctuation", "stop-words", "one-letter-words", "too-short-for-trigrams"],
)
def test_empty_vocabulary(texts, analysis):
    with pytest.raises(EmptyVocabularyError, match=r"No words were found.*relax the analysis options"):
        BagOfWords.fit_transform(texts, Analyzer(analysis))


def test_empty_vocabulary_error_is_a_corpus_error():
    assert issubclass(EmptyVocabularyError, CorpusError)
    assert issubclass(EmptyVocabularyError, ValueError)


@pytest.mark.parametrize(
    "settings",
    [{"min_df": 4}, {"min_df": 0.9}, {"min_df": 0, "max_df": 0.2}, {"min_df": 0.8, "max_df": 0.9},
     {"min_df": 4, "max_df": 10}],
    ids=str,
)
def test_pruning_away_every_word(settings):
    with pytest.raises(EmptyVocabularyError, match=r"After pruning no word remains.*Lower min_df or raise max_df"):
        fit(FRUIT, **settings)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"min_df": 3, "max_df": 2}, r"max_df \(2\) allows fewer documents than min_df \(3\)"),
        ({"min_df": 0.8, "max_df": 0.5}, r"max_df \(0.5\) allows fewer documents than min_df \(0.8\)"),
        ({"min_df": 3, "max_df": 0.5}, r"max_df \(0.5\) allows fewer documents than min_df \(3\)"),  # 2 < 3 of 4
    ],
)
def test_max_df_below_min_df(settings, message):
    with pytest.raises(CorpusError, match=message + r": no word could be kept\. Lower min_df or raise max_df\."):
        fit(FRUIT, **settings)


def test_min_df_above_the_number_of_documents_says_so():
    with pytest.raises(EmptyVocabularyError, match=r"min_df \(9\) keeps only words found in at least 9 documents, "
                                                     r"but the corpus has 4\. Lower min_df\."):
        fit(FRUIT, min_df=9)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"min_df": -1}, "min_df must not be negative"),
        ({"max_df": -2}, "max_df must not be negative"),
        ({"min_df": 1.5}, "min_df as a fraction must be between 0 and 1, not 1.5"),
        ({"max_df": -0.1}, "max_df as a fraction must be between 0 and 1, not -0.1"),
        ({"min_df": float("nan")}, "min_df as a fraction must be between 0 and 1, not nan"),
        ({"min_df": True}, "min_df must be a number, not True"),
        ({"max_df": False}, "max_df must be a number, not False"),
        ({"min_df": "2"}, "min_df must be a number, not '2'"),
        ({"max_df": None}, "max_df must be a number, not None"),
        ({"max_features": 0}, "max_features must be a positive whole number, not 0"),
        ({"max_features": -3}, "max_features must be a positive whole number, not -3"),
        ({"max_features": True}, "max_features must be a positive whole number, not True"),
        ({"max_features": 2.5}, "max_features must be a positive whole number, not 2.5"),
        ({"max_features": "10"}, "max_features must be a positive whole number, not '10'"),
    ],
    ids=str,
)
def test_invalid_vocabulary_options(settings, message):
    with pytest.raises(ValueError, match=message):
        VocabularyOptions(**settings)


def test_numpy_numbers_are_accepted():
    options = VocabularyOptions(min_df=np.int64(2), max_df=np.float64(0.75), max_features=np.int32(3))
    bag, _ = BagOfWords.fit_transform(FRUIT, Analyzer(), options)
    assert bag.vocabulary == ("apple", "banana", "cherry")  # cherry and date tie at 2 total; cherry first


def test_describe():
    assert VocabularyOptions(min_df=2, max_df=0.5, max_features=10, binary=True).to_dict() == {
        "min_df": 2, "max_df": 0.5, "max_features": 10, "binary": True,
    }


# --- document frequency -----------------------------------------------------------------------


def brute_force(texts, analyzer):
    """(document frequency, total count) of every feature, by counting sets and lists in plain Python."""
    document_frequency_, totals = Counter(), Counter()
    for text in texts:
        features = analyzer(text)
        document_frequency_.update(set(features))
        totals.update(features)
    return document_frequency_, totals


def assert_frequencies_match(texts, analyzer):
    bag, X = BagOfWords.fit_transform(texts, analyzer)
    expected_df, expected_totals = brute_force(texts, analyzer)
    assert sorted(expected_df) == list(bag.vocabulary)
    df = document_frequency(X)
    assert df.shape == (len(bag),)
    assert dict(zip(bag.vocabulary, df.tolist(), strict=True)) == dict(expected_df)
    assert dict(zip(bag.vocabulary, np.asarray(X.sum(axis=0)).ravel().tolist(), strict=True)) == dict(expected_totals)


def test_document_frequency_of_a_small_corpus():
    _, X = fit(FRUIT)
    assert document_frequency(X).tolist() == [3, 2, 2, 2, 1, 1]


def test_document_frequency_against_brute_force_on_random_texts():
    rng = np.random.default_rng(0)
    words = np.array([f"w{i:02d}" for i in range(60)])
    # Zipf-like word choice so that frequencies vary; lengths 0 to 30 so that some documents are empty.
    weights = 1.0 / np.arange(1, 61)
    texts = [
        " ".join(rng.choice(words, size=rng.integers(0, 31), p=weights / weights.sum())) for _ in range(300)
    ]
    assert "" in texts
    assert_frequencies_match(texts, Analyzer())
    assert_frequencies_match(texts, Analyzer(AnalysisOptions(ngram_range=(1, 2))))


@pytest.mark.corpora
def test_document_frequency_against_brute_force_on_sms(sms_texts):
    assert_frequencies_match(sms_texts, Analyzer())


@pytest.mark.parametrize("chunk", [1, 2, 3, 1000])
@pytest.mark.parametrize("max_features", [None, 1, 2, 3])
def test_counting_in_chunks_gives_scikit_learns_matrix(monkeypatch, chunk, max_features):
    """Counts are summed per chunk of documents (so counting takes memory by stored counts, not tokens); empty
    documents at the start, middle and end, and pruning across chunk boundaries, change nothing."""

    import webnb.engine.text.bag as bag_module

    monkeypatch.setattr(bag_module, "COUNT_CHUNK", chunk)
    texts = ["", "..", "aa bb aa", "", "cc dd aa aa", "bb", "", "zz", ""]
    bag, X = BagOfWords.fit_transform(texts, Analyzer(AnalysisOptions()), VocabularyOptions(max_features=max_features))
    reference = CountVectorizer(max_features=max_features)
    Y = reference.fit_transform(texts)
    assert bag.vocabulary == tuple(reference.get_feature_names_out())
    assert X.dtype == np.int64 and X.has_sorted_indices
    assert np.array_equal(X.indptr, Y.indptr) and np.array_equal(X.indices, Y.indices)
    assert np.array_equal(X.data, Y.data)
    Z = bag.transform(["zz aa qq", "", "aa"])
    assert np.array_equal(Z.toarray(), reference.transform(["zz aa qq", "", "aa"]).toarray())
