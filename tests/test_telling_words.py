"""The telling-words page's lists (``engine.text.telling_words``), checked against probabilities counted by hand on
the match reviews (seed 002) and the small spam / ham corpus."""
from __future__ import annotations

import json
import math

import pytest

from webnb.engine import AnalysisOptions, TrainingSet, VocabularyOptions, evaluate
from webnb.engine.evaluation.heldout import hold_out
from webnb.engine.records.insights import discriminative_words
from webnb.engine.records.telling_words import compare_pairs, default_top, telling_words
from webnb.examples import load_example_corpus

# Match reviews, multinomial, α = 1: θ(positive) = (c + 1)/18, θ(negative) = (c + 1)/16.
#   and, brilliant, keeper: 2/18 against 1/16; composed 3/18 against 2/16       → toward positive
#   not: 3/16 against 1/18; match, was: 3/16 against 3/18; sharp 2/16 against 2/18 → toward negative


@pytest.mark.parametrize("n_words, top", [(10_000, 200), (800, 200), (799, 199), (100, 25), (20, 5), (3, 5)])
def test_default_top_is_the_seeds_200_or_a_quarter_of_a_small_vocabulary(n_words, top):
    assert default_top(n_words) == top


def test_both_measures_for_every_word_by_hand(match_reviews):
    told = telling_words(match_reviews.model("multinomial", 1), "positive", "negative", k=5)
    rows = {w.word: w for w in told.toward_positive + told.toward_negative}
    assert [w.word for w in told.toward_positive] == ["and", "brilliant", "keeper", "composed"]
    keeper = rows["keeper"]
    assert (keeper.favoured, keeper.other) == pytest.approx((2 / 18, 1 / 16), rel=1e-15)
    assert keeper.ratio == pytest.approx(16 / 9, rel=1e-15) and keeper.difference == pytest.approx(7 / 144, rel=1e-13)
    assert [w.word for w in told.toward_negative] == ["not", "match", "was", "sharp"]
    not_ = rows["not"]
    assert (not_.favoured, not_.other) == pytest.approx((3 / 16, 1 / 18), rel=1e-15)
    assert not_.ratio == pytest.approx(27 / 8, rel=1e-15) and not_.difference == pytest.approx(19 / 144, rel=1e-13)
    assert not any(w.is_pair for w in rows.values())


def test_the_top_word_worked_out_by_ratio(match_reviews):
    formula = telling_words(match_reviews.model("multinomial", 1), "positive", "negative").formula
    assert (formula.word, formula.by, formula.favoured_label, formula.other_label) == (
        "and", "ratio", "positive", "negative")
    assert formula.favoured_parts == ("2", "18") and formula.other_parts == ("1", "16")
    assert formula.value == pytest.approx(16 / 9, rel=1e-15) and formula.exact == "16/9"


def test_the_top_word_worked_out_by_difference(match_reviews):
    # Bernoulli, α = 1: ψ(positive) = (n + 1)/5, ψ(negative) = (n + 1)/4; "and": 2/5 − 1/4 = 3/20, ratio 8/5.
    told = telling_words(match_reviews.model("bernoulli", 1), "positive", "negative", by="difference", k=3)
    formula = told.formula
    assert formula.word == "and" and formula.favoured_parts == ("2", "5") and formula.other_parts == ("1", "4")
    assert formula.value == pytest.approx(0.15, rel=1e-12) and formula.exact == "3/20"
    assert told.toward_positive[0].ratio == pytest.approx(1.6, rel=1e-15)
    # The other way round the lists point to negative first: "not", 3/4 − 1/5 = 11/20.
    swapped = telling_words(match_reviews.model("bernoulli", 1), "negative", "positive", by="difference").formula
    assert (swapped.word, swapped.favoured_label, swapped.exact) == ("not", "negative", "11/20")


def test_a_zero_on_the_other_side_is_an_infinite_ratio(match_reviews):
    # Multinomial, α = 0: θ(positive) = c/10, θ(negative) = c/8; "and" occurs once in positive, never in negative.
    told = telling_words(match_reviews.model("multinomial", 0), "positive", "negative")
    formula = told.formula
    assert formula.word == "and" and formula.value == math.inf and formula.exact is None
    assert formula.favoured_parts == ("1", "10") and formula.other_parts == ("0", "8")
    assert [w.ratio for w in told.toward_positive[:3]] == [math.inf] * 3
    assert told.toward_positive[0].difference == pytest.approx(0.1, rel=1e-15)
    assert told.to_dict()["discriminative"]["formula"]["value"] == "inf"


def test_a_whole_number_is_not_written_as_a_fraction(match_reviews):
    # Bernoulli, α = 0: ψ(negative) = n/2, ψ(positive) = n/3. Ranked by difference, "not" leads: 2/2 − 0/3 = 1.
    told = telling_words(match_reviews.model("bernoulli", 0), "negative", "positive", by="difference")
    assert told.formula.word == "not" and told.formula.value == 1.0 and told.formula.exact is None


def test_long_ratios_are_left_out(match_reviews):
    # α = 0.0001234: θ = (c + 0.0001234)/(10 + 0.0009872) is "1.0001234/10.0009872", longer than 16 characters.
    told = telling_words(match_reviews.model("multinomial", "0.0001234"), "positive", "negative")
    assert all(w.ratio is None for column in told.most_probable_columns for w in column.words)
    assert told.formula.favoured_parts is None and told.formula.other_parts is None
    short = telling_words(match_reviews.model("multinomial", "0.5"), "positive", "negative")
    # θ(composed | positive) = (2 + 0.5)/(10 + 4)
    assert short.most_probable_columns[1].words[0].ratio == "2.5/14"
    floored = telling_words(match_reviews.model("bernoulli", 0, epsilon=1e-14), "positive", "negative")
    assert all(w.ratio is None for column in floored.most_probable_columns for w in column.words)
    assert floored.formula.exact is None and floored.formula.favoured_parts is None


def test_unique_words_and_a_top_as_large_as_the_vocabulary(match_reviews):
    model = match_reviews.model("multinomial", 1)
    # Top 3: positive {composed, match, was}, negative {match, not, was}.
    told = telling_words(model, "positive", "negative", k=5, top=3)
    assert told.every_word_a_candidate is False
    assert [(c.label, [w.word for w in c.words], c.available) for c in told.unique_columns] == [
        ("negative", ["not"], 1), ("positive", ["composed"], 1)]
    everything = telling_words(model, "positive", "negative", top=8)
    assert everything.every_word_a_candidate is True and everything.vocabulary_size == 8
    assert [c.words for c in everything.unique_columns] == [(), ()]


def test_plain_data(match_reviews):
    model = match_reviews.model("multinomial", 1)
    data = telling_words(model, "positive", "negative", k=5, top=3).to_dict()
    json.dumps(data, allow_nan=False)
    assert data["model"] == model.to_dict() and data["classes"] == ["negative", "positive"]
    assert data["vocabulary_size"] == 8
    assert data["settings"] == {"k": 5, "top": 3, "by": "ratio", "positive": "positive", "negative": "negative"}
    top = data["top_words"]
    assert top["parameter"] == "θ" and top["k"] == 5
    assert top["per_class"][1]["words"][0] == {"word": "composed", "probability": 3 / 18, "ratio": "3/18"}
    unique = data["unique_words"]
    assert (unique["top"], unique["every_word_a_candidate"]) == (3, False)
    assert unique["per_class"][0] == {
        "class": "negative", "available": 1, "words": [{"word": "not", "probability": 3 / 16, "ratio": "3/16"}]}
    found = data["discriminative"]
    assert (found["positive"], found["negative"], found["by"], found["threshold"], found["considered"]) == (
        "positive", "negative", "ratio", 1e-4, 8)
    assert found["toward_negative"][0] == {
        "word": "not", "favoured_probability": 3 / 16, "other_probability": 1 / 18,
        "ratio": pytest.approx(27 / 8, rel=1e-15), "difference": pytest.approx(19 / 144, rel=1e-13)}
    assert found["formula"] == {
        "word": "and", "by": "ratio", "favoured_label": "positive", "other_label": "negative",
        "favoured": 2 / 18, "other": 1 / 16, "favoured_parts": ["2", "18"], "other_parts": ["1", "16"],
        "value": pytest.approx(16 / 9, rel=1e-15), "exact": "16/9"}


def _held_outs(corpus, **split):
    return {
        name: hold_out(corpus, AnalysisOptions(ngram_range=ngrams), VocabularyOptions(), **split)
        for name, ngrams in (("words", (1, 1)), ("pairs", (1, 2)))
    }


def test_word_pairs_compared_on_the_same_documents():
    corpus = load_example_corpus("spam-ham")
    held = _held_outs(corpus, test_size=0.25, seed=0)
    options = {"kind": "bernoulli", "alpha": 1}
    comparison = compare_pairs(held, options, current=(1, 1), positive="ham", negative="spam", k=20)
    # The default split: 12 training messages with 98 words, 224 with their pairs; 4 test messages.
    assert [r.vocabulary_size for r in comparison.rows] == [98, 224]
    assert [(r.n_train, r.n_test) for r in comparison.rows] == [(12, 4), (12, 4)]
    assert [r.current for r in comparison.rows] == [True, False] and comparison.source == "split"
    for row, part in zip(comparison.rows, held.values(), strict=True):
        scores = evaluate(part.training.model("bernoulli", 1), part.test_matrix, part.test_labels)
        assert (row.correct, row.accuracy, row.undecidable) == (scores.correct, scores.accuracy, scores.undecidable)
    found = discriminative_words(held["pairs"].training.model("bernoulli", 1), "ham", "spam", k=20)
    expected = {
        "ham": [w.word for w in found.toward_positive if " " in w.word],
        "spam": [w.word for w in found.toward_negative if " " in w.word],
    }
    assert {label: [w.word for w in words] for label, words in comparison.pairs} == expected
    assert any(expected.values())
    data = comparison.to_dict()
    json.dumps(data, allow_nan=False)
    assert data["state"] == "done" and data["test"] == "split" and data["discriminative_pairs"] == expected
    assert [(s["features"], s["ngrams"], s["vocabulary_size"]) for s in data["feature_sets"]] == [
        ("single words", "1-1", 98), ("words and word pairs", "1-2", 224)]
    pairs_now = compare_pairs(held, options, current=(1, 2), positive="ham", negative="spam", k=20)
    assert [r.current for r in pairs_now.rows] == [False, True]


# -- the fast ranking against a plain one ----------------------------------------------------------------------------
# The lists are read off the model's class tables with numpy (a cutoff, then only the words above it and the few
# needed from its tie group are ordered). Here they are compared with the plainest computation there is: every word
# sorted by Python, ties alphabetical, on corpora full of ties.


def _reference(model, positive, negative, *, k, top, by, threshold=1e-4):
    """(top words, unique words with how many there were, both discriminative lists), as (word, probability) pairs
    and (word, P(w|positive), P(w|negative), score) rows, by a full Python sort of every word."""
    table, vocabulary = model.feature_prob_, model.vocabulary
    n_classes, n_words = table.shape

    def ranked(c):
        return sorted(range(n_words), key=lambda j: (-float(table[c, j]), vocabulary[j]))

    orders = [ranked(c) for c in range(n_classes)]
    most = [[(vocabulary[j], float(table[c, j])) for j in orders[c][:k]] for c in range(n_classes)]
    tops = [orders[c][:top] for c in range(n_classes)]
    unique = []
    for c in range(n_classes):
        others = set().union(*(set(tops[o]) for o in range(n_classes) if o != c))
        kept = [j for j in tops[c] if j not in others]
        unique.append(([(vocabulary[j], float(table[c, j])) for j in kept[:k]], len(kept)))
    p = [float(v) for v in table[model.classes.index(positive)]]
    q = [float(v) for v in table[model.classes.index(negative)]]

    def direction(favoured, other):
        rows = []
        for j in range(n_words):
            if (p[j] > threshold or q[j] > threshold) and favoured[j] > other[j]:
                if by == "ratio":
                    score = math.inf if other[j] == 0 else favoured[j] / other[j]
                else:
                    score = favoured[j] - other[j]
                rows.append((-score, -favoured[j], vocabulary[j], j, score))
        rows.sort()
        return [(vocabulary[j], p[j], q[j], score) for *_, j, score in rows[:k]]

    considered = sum(1 for j in range(n_words) if p[j] > threshold or q[j] > threshold)
    return most, unique, (direction(p, q), direction(q, p)), considered


def _assert_equal_to_reference(model, positive, negative, *, k, top, by):
    told = telling_words(model, positive, negative, k=k, top=top, by=by)
    most, unique, (toward_positive, toward_negative), considered = _reference(
        model, positive, negative, k=k, top=top, by=by)
    assert [[(w.word, w.probability) for w in c.words] for c in told.most_probable.per_class] == most
    assert [([(w.word, w.probability) for w in c.words], c.available) for c in told.unique.per_class] == unique
    found = told.found
    assert found.considered == considered
    for listed, expected in ((found.toward_positive, toward_positive), (found.toward_negative, toward_negative)):
        assert [(w.word, w.positive_probability, w.negative_probability, w.score) for w in listed] == expected
    # The page's rows and columns are the same lists.
    assert [w.word for w in told.toward_positive] == [row[0] for row in toward_positive]
    assert [[w.word for w in c.words] for c in told.most_probable_columns] == [[w for w, _ in c] for c in most]


@pytest.mark.parametrize("kind, alpha, options", [
    ("multinomial", 1, {}), ("multinomial", 0, {}), ("bernoulli", 1, {}), ("bernoulli", 0, {}),
    ("multinomial", "0.5", {"binary": True}), ("bernoulli", 0, {"epsilon": 1e-14}),
])
@pytest.mark.parametrize("by", ["ratio", "difference"])
def test_the_lists_equal_a_plain_sort_on_a_small_corpus(kind, alpha, options, by):
    training = TrainingSet.build(load_example_corpus("spam-ham"))
    model = training.model(kind, alpha, **options)
    for k, top in ((5, 31), (10, 5), (50, 125), (3, 200)):
        _assert_equal_to_reference(model, "ham", "spam", k=k, top=top, by=by)
        _assert_equal_to_reference(model, "spam", "ham", k=k, top=top, by=by)


def _random_counts(seed: int, *, sorted_vocabulary: bool):
    """A sparse count matrix of 4 classes full of ties: small counts (mostly 0 and 1), a class of two short documents
    (so a top of 40 reaches into the words it never saw, which all share one probability), and a vocabulary that is
    alphabetical or shuffled."""
    import numpy as np
    import scipy.sparse as sp

    from webnb.engine.text.statistics import ClassStatistics

    rng = np.random.default_rng(seed)
    n_words = 400
    words = set()
    while len(words) < n_words:
        words.add("".join(rng.choice(list("abcdeé"), size=int(rng.integers(1, 6)))))
    vocabulary = sorted(words)
    if not sorted_vocabulary:
        rng.shuffle(vocabulary)
    sizes = (30, 25, 20, 2)
    class_index = np.repeat(np.arange(len(sizes)), sizes)
    rows = []
    for c in class_index:
        density = 0.003 if c == 3 else 0.05
        row = sp.random(1, n_words, density=density, random_state=rng, data_rvs=lambda n: rng.integers(1, 3, n))
        rows.append(row)
    matrix = sp.vstack(rows).tocsr().astype(np.int64)
    return ClassStatistics.from_matrix(matrix, class_index, ("a", "b", "c", "d"), tuple(vocabulary))


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("sorted_vocabulary", [True, False])
def test_the_lists_equal_a_plain_sort_on_random_counts_with_ties(seed, sorted_vocabulary):
    from webnb.engine.text.models import fit_naive_bayes

    statistics = _random_counts(seed, sorted_vocabulary=sorted_vocabulary)
    assert (statistics.document_count_[3] > 0).sum() < 40  # class d's top of 40 reaches its unseen words
    for kind, alpha, options in (("multinomial", 1, {}), ("bernoulli", 0, {}), ("multinomial", 0, {}),
                                 ("bernoulli", "0.5", {}), ("multinomial", 0, {"epsilon": 1e-14})):
        model = fit_naive_bayes(statistics, kind, alpha, **options)
        for by in ("ratio", "difference"):
            for positive, negative in (("a", "b"), ("d", "a"), ("c", "d")):
                for k, top in ((10, 40), (5, 400), (50, 3)):
                    _assert_equal_to_reference(model, positive, negative, k=k, top=top, by=by)


def test_the_lists_are_kept_per_model_and_settings(match_reviews):
    import gc
    import weakref

    from webnb.engine.records.telling_words import ToldLists

    model, told = match_reviews.model("multinomial", 1), ToldLists()
    first = telling_words(model, "positive", "negative", k=5, top=3, told=told)
    again = telling_words(model, "positive", "negative", k=5, top=3, told=told)
    assert again.found is first.found and again.model is model  # kept, not ranked again
    assert telling_words(model, "positive", "negative", k=5, top=3).found is not first.found  # nothing kept without
    other = telling_words(model, "positive", "negative", k=6, top=3, by="difference", told=told)
    assert other.found is not first.found and other.found.by == "difference" and other.found.k == 6
    telling_words(model, "positive", "negative", k=1, top=3, told=told)
    with pytest.raises(ValueError):  # True is not a k, even where 1 was kept
        telling_words(model, "positive", "negative", k=True, top=3, told=told)
    # The kept lists never keep their model alive.
    fresh = match_reviews.model("multinomial", "0.37")
    telling_words(fresh, "positive", "negative", told=told)
    watch = weakref.ref(fresh)
    match_reviews._models.clear()
    del fresh
    gc.collect()
    assert watch() is None


def test_the_ranking_never_reads_the_documents(match_reviews):
    """Made from the kept counts alone: a training set whose documents and rows cannot be loaded still ranks."""
    def unavailable():
        raise AssertionError("the telling words read the documents")

    kept_only = TrainingSet.deferred(
        match_reviews.bag, match_reviews.statistics, documents=unavailable, rows=unavailable)
    told = telling_words(kept_only.model("multinomial", 1), "positive", "negative", k=5)
    reference = telling_words(match_reviews.model("multinomial", 1), "positive", "negative", k=5)
    assert told.to_dict() == reference.to_dict()
