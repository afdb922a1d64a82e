"""Adding one document to the training set: the counts, the exact parameters before and after, and the
number of parameters that moved, checked against a brute-force comparison of two engine models."""
from __future__ import annotations

import json
from fractions import Fraction as F

import numpy as np
import pytest

from webnb.engine import AnalysisOptions, Corpus, TrainingSet, VocabularyOptions
from webnb.engine.records.additions import (
    AdditionError,
    add_document,
    added_document_id,
    can_update_incrementally,
    compare,
    corpus_with_document,
    document_problem,
    incremental_training_set,
    rebuilt_training_set,
)
from webnb.examples import load_example_corpus


def parameter(addition, word, label):
    for row in addition.parameters:
        for cell in row:
            if cell.word == word and cell.label == label:
                return cell
    raise KeyError((word, label))


def brute_force(old_training, new_training, kind, alpha, **options):
    """Every parameter of the new model that is new or differs from the old model's, found cell by cell
    with the models' exact fractions: {(word or None for a prior, class)}."""
    old, new = old_training.model(kind, alpha, **options), new_training.model(kind, alpha, **options)
    changed = {
        (None, label) for k, label in enumerate(new.classes) if old.class_prior_exact[k] != new.class_prior_exact[k]
    }
    old_index = old_training.bag.index
    for j, word in enumerate(new.vocabulary):
        for k, label in enumerate(new.classes):
            if word not in old_index:
                changed.add((word, label))
                continue
            if options.get("epsilon") is None:
                before, after = old.exact_feature_prob(k, old_index[word]), new.exact_feature_prob(k, j)
            else:
                before, after = old.feature_prob_[k, old_index[word]], new.feature_prob_[k, j]
            if before != after:
                changed.add((word, label))
    return changed


# -- seed 002: a negative review "not sharp" -----------------------------------------------------------------------


def test_bernoulli_without_smoothing_matches_the_hand_computation(match_reviews):
    addition = add_document(match_reviews, "negative", "not sharp", "bernoulli", 0)
    # n_negative: 2 → 3, N: 5 → 6.
    priors = {c.label: c for c in addition.classes}
    assert (priors["negative"].documents_old, priors["negative"].documents_new) == (2, 3)
    assert (priors["negative"].prior_old, priors["negative"].prior_new) == (F(2, 5), F(1, 2))
    assert (priors["positive"].prior_old, priors["positive"].prior_new) == (F(3, 5), F(1, 2))
    assert priors["negative"].prior_ratio_new == (3, 6) and priors["positive"].prior_ratio_new == (3, 6)
    # The seed's ψ table, negative column, before and after (n_jk / n_k with α = 0).
    assert [
        (w.word, w.documents_old, w.documents_new, w.occurrences_old, w.occurrences_new, w.new_to_vocabulary)
        for w in addition.words
    ] == [
        ("not", 2, 3, 2, 3, False),
        ("sharp", 1, 2, 1, 2, False),
    ]
    sharp = parameter(addition, "sharp", "negative")
    assert (sharp.ratio_old, sharp.ratio_new) == ((1, 2), (2, 3))
    assert (sharp.exact_old, sharp.exact_new) == (F(1, 2), F(2, 3)) and sharp.changed
    not_negative = parameter(addition, "not", "negative")
    assert (not_negative.ratio_old, not_negative.ratio_new) == ((2, 2), (3, 3))
    assert not not_negative.changed and not_negative.breaking_old and not_negative.breaking_new  # still 1
    not_positive = parameter(addition, "not", "positive")
    assert (not_positive.exact_old, not_positive.exact_new) == (0, 0) and not not_positive.changed
    assert not parameter(addition, "sharp", "positive").changed
    # Outside the document: was 2/2 → 2/3, match 2/2 → 2/3, composed 1/2 → 1/3; keeper, and, brilliant 0/2 → 0/3 = 0.
    count = addition.count
    assert (count.total, count.priors, count.document_words, count.other_words, count.new_parameters) == (
        18, 2, 1, 3, 0)
    assert count.changed == 6 and count.unchanged == 12 and count.per_class == (4, 0)
    class_size = next(r for r in addition.reasons if r.kind == "class-size")
    assert (class_size.label, class_size.parameters, class_size.group) == ("negative", 3, 6)
    example = class_size.example
    assert example.word == "composed" and (example.ratio_old, example.ratio_new) == ((1, 2), (1, 3))
    assert (example.total_old, example.total_new, example.count) == (2, 3, 1)
    # "match" and "was" were in every negative review (ψ = 1); now they are not.
    assert [(c.word, c.label, c.value_old, c.value_new) for c in addition.repaired] == [
        ("match", "negative", 1.0, pytest.approx(2 / 3)),
        ("was", "negative", 1.0, pytest.approx(2 / 3)),
    ]
    assert addition.repaired_count == 2 and addition.appeared_count == 0
    assert addition.method == "incremental"


def test_bernoulli_with_laplace_smoothing_moves_every_psi_of_the_class(match_reviews):
    addition = add_document(match_reviews, "negative", "not sharp", "bernoulli", 1)
    # ψ = (n_jk + 1)/(n_k + 2): negative 4 → 5 below the line.
    sharp = parameter(addition, "sharp", "negative")
    assert (sharp.exact_old, sharp.exact_new) == (F(2, 4), F(3, 5))
    assert parameter(addition, "not", "negative").ratio_new == (4, 5)
    not_positive = parameter(addition, "not", "positive")
    assert not_positive.ratio_new == (1, 5) and not not_positive.changed
    example = next(r for r in addition.reasons if r.kind == "class-size").example
    assert example.ratio_old[1] == 4 and example.ratio_new[1] == 5
    assert addition.count.per_class == (8, 0) and addition.count.changed == 10
    assert addition.repaired_count == addition.appeared_count == 0


def test_bernoulli_with_a_fractional_alpha_keeps_exact_fractions(match_reviews):
    addition = add_document(match_reviews, "negative", "not sharp", "bernoulli", "0.5")
    sharp = parameter(addition, "sharp", "negative")
    assert (sharp.exact_old, sharp.exact_new) == (F(3, 2) / 3, F(5, 2) / 4) == (F(1, 2), F(5, 8))


def test_multinomial_with_laplace_smoothing(match_reviews):
    addition = add_document(match_reviews, "negative", "not sharp", "multinomial", 1)
    # Negative words: match 2, was 2, not 2, sharp 1, composed 1 → 8, plus |V|·α = 8; after: 10 + 8.
    not_negative = parameter(addition, "not", "negative")
    assert (not_negative.ratio_old, not_negative.ratio_new) == ((3, 16), (4, 18))
    assert parameter(addition, "sharp", "negative").exact_new == F(3, 18)
    total = next(r for r in addition.reasons if r.kind == "class-total")
    assert (total.example.total_old, total.example.total_new) == (8, 10) and total.parameters == total.group == 6
    # No new word: the positive class keeps its denominator.
    assert addition.count.per_class == (8, 0) and addition.count.changed == 10
    assert not any(r.kind == "vocabulary" for r in addition.reasons)


def test_a_new_word_moves_every_theta_of_every_class(match_reviews):
    addition = add_document(match_reviews, "positive", "superb keeper superb", "multinomial", 1)
    assert addition.entered == ("superb",) and addition.document_length == 3
    superb = next(w for w in addition.words if w.word == "superb")
    assert superb.new_to_vocabulary and (superb.documents_new, superb.occurrences_new, superb.occurrences) == (1, 2, 2)
    # Positive: 10 words + 8α → 13 words + 9α; negative: 8 + 8α → 8 + 9α.
    keeper = parameter(addition, "keeper", "positive")
    assert (keeper.ratio_old, keeper.ratio_new) == ((2, 18), (3, 22))
    superb = parameter(addition, "superb", "positive")
    assert superb.ratio_new == (3, 22) and superb.is_new
    assert parameter(addition, "superb", "negative").exact_new == F(1, 17)
    keeper_negative = parameter(addition, "keeper", "negative")
    assert keeper_negative.ratio_old == (1, 16) and keeper_negative.ratio_new == (1, 17)
    count = addition.count
    assert (count.vocabulary_old, count.vocabulary_new, count.total) == (8, 9, 20)
    assert count.changed == 20 and count.new_parameters == 2
    vocabulary = next(r for r in addition.reasons if r.kind == "vocabulary")
    assert vocabulary.parameters == vocabulary.group == 7
    # composed: c = 1 in negative
    assert (vocabulary.example.ratio_old, vocabulary.example.ratio_new) == ((2, 16), (2, 17))


def test_without_smoothing_a_new_word_adds_a_zero_and_the_other_class_does_not_move(match_reviews):
    addition = add_document(match_reviews, "positive", "superb keeper", "multinomial", 0)
    # |V|·α = 0: the negative θ keep 8 below the line; positive 10 → 12.
    assert parameter(addition, "keeper", "positive").ratio_new == (2, 12)
    assert parameter(addition, "superb", "negative").exact_new == 0
    assert addition.count.per_class == (0, 7)  # "not" stays 0/10 → 0/12
    assert addition.count.changed == 2 + 7 + 2
    assert addition.appeared_count == 1
    assert [(c.word, c.label, c.value_old) for c in addition.appeared] == [("superb", "negative", None)]
    assert addition.repaired_count == 0
    vocabulary = next(r for r in addition.reasons if r.kind == "vocabulary")
    assert vocabulary.parameters == 0 and vocabulary.group == 7


def test_without_smoothing_a_zero_is_repaired(match_reviews):
    addition = add_document(match_reviews, "positive", "not superb", "multinomial", 0)
    not_positive = parameter(addition, "not", "positive")
    assert (not_positive.ratio_old, not_positive.ratio_new) == ((0, 10), (1, 12))
    assert not_positive.breaking_old and not not_positive.breaking_new and not_positive.changed
    assert [(c.word, c.label) for c in addition.repaired] == [("not", "positive")]
    assert [(c.word, c.label) for c in addition.appeared] == [("superb", "negative")]


def test_a_document_without_counted_words_still_moves_the_bernoulli_class(match_reviews):
    addition = add_document(match_reviews, "positive", "a I ! .", "bernoulli", 1)
    assert addition.features == () and addition.words == ()
    assert [d.reason for d in addition.dropped] == ["one-letter word", "one-letter word"]
    assert addition.count.per_class == (0, 8) and addition.count.changed == 10
    multinomial = add_document(match_reviews, "positive", "a I ! .", "multinomial", 1)
    assert multinomial.count.changed == 2  # only the priors: the class's word total did not grow


# -- the count is the brute-force comparison of two models ---------------------------------------------------------


CASES = [
    ("match-reviews", "negative", "not sharp", "bernoulli", "0", {}),
    ("match-reviews", "negative", "not sharp", "multinomial", "1", {}),
    ("match-reviews", "positive", "superb keeper superb was", "multinomial", "0", {}),
    ("match-reviews", "positive", "superb keeper", "bernoulli", "0.1", {"fit_prior": False}),
    ("match-reviews", "negative", "dull dull match", "multinomial", "1", {"binary": True}),
    ("match-reviews", "negative", "keeper not sharp", "bernoulli", "1", {"epsilon": 1e-14}),
    ("match-reviews", "negative", "keeper not", "bernoulli", "0", {"epsilon": 1e-14}),
    ("china-japan", "China", "Chinese Chinese Tokyo Osaka", "multinomial", "1", {}),
    ("china-japan", "not China", "Chinese Chinese", "multinomial", "0", {}),
    ("china-japan", "not China", "Tokyo Japan Chinese", "bernoulli", "1", {}),
    ("spam-ham", "spam", "Claim your FREE prize now! Call 0800 555 0199", "bernoulli", "1", {}),
    ("spam-ham", "ham", "see you at lunch, free now", "multinomial", "0.01", {}),
    # α with a huge denominator: the exact comparison needs Python integers.
    ("match-reviews", "negative", "not sharp sharp", "multinomial", "0.0000000000000000001", {}),
]


@pytest.mark.parametrize("corpus_id, label, text, kind, alpha, options", CASES)
def test_the_changed_count_is_the_brute_force_comparison(corpus_id, label, text, kind, alpha, options):
    training = TrainingSet.build(load_example_corpus(corpus_id))
    addition = add_document(training, label, text, kind, alpha, **options)
    expected = brute_force(training, addition.training, kind, alpha, **options)
    count = addition.count
    assert count.changed == len(expected)
    assert count.priors == sum(1 for word, _ in expected if word is None)
    assert count.total == len(training.classes) * (len(addition.training.vocabulary) + 1)
    for k, label_k in enumerate(training.classes):
        shared = {(w, c) for w, c in expected if w is not None and c == label_k and w in training.bag.index}
        assert count.per_class[k] == len(shared)
    # The table's flags agree with the brute force, cell by cell.
    for row in addition.parameters:
        for cell in row:
            assert cell.changed == ((cell.word, cell.label) in expected), (cell.word, cell.label)
    json.dumps(addition.to_dict(), allow_nan=False)


def test_under_the_floor_values_are_compared_as_the_model_holds_them(match_reviews):
    addition = add_document(match_reviews, "negative", "keeper not", "bernoulli", 0, epsilon=1e-14)
    cell = parameter(addition, "not", "positive")
    assert cell.ratio_new is None and cell.exact_new is None and cell.value_new == 1e-14 and not cell.changed
    keeper = parameter(addition, "keeper", "negative")
    assert keeper.value_old == 1e-14 and keeper.value_new == pytest.approx(1 / 3) and keeper.changed
    assert not addition.exact and addition.repaired_count == addition.appeared_count == 0


# -- incremental counting equals counting again --------------------------------------------------------------------


def assert_same_training(left: TrainingSet, right: TrainingSet) -> None:
    assert left.vocabulary == right.vocabulary and left.classes == right.classes
    assert left.corpus == right.corpus
    assert left.matrix.shape == right.matrix.shape and (left.matrix != right.matrix).nnz == 0
    assert left.matrix.has_sorted_indices and np.array_equal(left.matrix.indptr, right.matrix.indptr)
    assert np.array_equal(left.class_index, right.class_index)
    for name in ("class_count_", "document_count_", "word_count_"):
        assert np.array_equal(getattr(left.statistics, name), getattr(right.statistics, name)), name
    assert left.statistics.document_count_.dtype == right.statistics.document_count_.dtype


ANALYSES = [
    AnalysisOptions(),
    AnalysisOptions(stop_words="english", stemmer="porter"),
    AnalysisOptions(ngram_range=(1, 2), token_pattern="words"),
    AnalysisOptions(normalize=("url", "money", "phone", "number"), lowercase=False),
]


@pytest.mark.parametrize("analysis", ANALYSES)
@pytest.mark.parametrize("text", ["not sharp", "Zebra aardvark MATCH match, mid-table £5 www.example.com", "a ."])
def test_incremental_equals_rebuild_on_the_examples(analysis, text):
    training = TrainingSet.build(load_example_corpus("spam-ham"), analysis)
    incremental = incremental_training_set(training, "ham", text)
    assert incremental is not None
    assert_same_training(incremental, rebuilt_training_set(training, "ham", text))


@pytest.mark.corpora
def test_incremental_equals_rebuild_on_a_shared_corpus(sms_spam):
    corpus = sms_spam
    training = TrainingSet.build(corpus)
    text = "URGENT! zzyzx-prize winner: call 09061701461 now to claim your £900 cash, or text STOP. Quokka."
    incremental = incremental_training_set(training, "spam", text)
    rebuilt = rebuilt_training_set(training, "spam", text)
    assert_same_training(incremental, rebuilt)
    assert set(incremental.vocabulary) - set(training.vocabulary) == {"quokka", "zzyzx"}
    # The comparison is the same whichever way the new counts were made.
    addition = add_document(training, "spam", text, "multinomial", 1)
    assert addition.method == "incremental"
    assert addition.count.changed == len(brute_force(training, rebuilt, "multinomial", 1))
    old_model, new_model = training.model("multinomial", 1), rebuilt.model("multinomial", 1)
    looked_up = compare(training, rebuilt, old_model, new_model, training.classes.index("spam"), text, "rebuild")
    assert looked_up.count == addition.count and looked_up.entered == addition.entered


def test_pruning_options_count_the_corpus_again():
    training = TrainingSet.build(load_example_corpus("match-reviews"), vocabulary=VocabularyOptions(min_df=2))
    assert not can_update_incrementally(training) and "keeper" not in training.bag.index
    assert incremental_training_set(training, "positive", "keeper brilliant superb") is None
    addition = add_document(training, "positive", "keeper brilliant superb", "bernoulli", 1)
    assert addition.method == "rebuild"
    # keeper and brilliant are now in two documents; superb in one, so it is pruned.
    assert addition.entered == ("brilliant", "keeper") and addition.pruned == ("superb",)
    assert addition.count.new_parameters == 4
    assert addition.count.changed == len(brute_force(training, addition.training, "bernoulli", 1))
    fraction = TrainingSet.build(load_example_corpus("match-reviews"), vocabulary=VocabularyOptions(max_df=0.5))
    assert not can_update_incrementally(fraction)
    left = add_document(fraction, "negative", "keeper brilliant", "multinomial", 1)
    assert left.count.changed == len(brute_force(fraction, left.training, "multinomial", 1))


@pytest.mark.parametrize(
    "options, incremental",
    [(VocabularyOptions(), True), (VocabularyOptions(min_df=0.1), True), (VocabularyOptions(max_df=100), True),
     (VocabularyOptions(min_df=0.5), False), (VocabularyOptions(max_df=5), False),
     (VocabularyOptions(max_features=50), False)],
)
def test_when_counting_can_be_incremental(options, incremental):
    training = TrainingSet.build(load_example_corpus("match-reviews"), vocabulary=options)
    assert can_update_incrementally(training) is incremental


# -- the corpus and bad input --------------------------------------------------------------------------------------


def test_the_new_corpus_is_a_copy_with_the_document_at_the_end():
    corpus = load_example_corpus("match-reviews")
    added = corpus_with_document(corpus, "negative", "not sharp")
    assert len(corpus) == 5 and len(added) == 6
    assert (added.texts[-1], added.labels[-1], added.ids[-1]) == ("not sharp", "negative", "added-1")
    assert added.texts[:5] == corpus.texts and added.ids[:5] == corpus.ids
    assert added_document_id(added) == "added-2"
    assert added_document_id(Corpus(("a b", "c d"), ("x", "y"), ("added-1", "added-2"))) == "added-3"


@pytest.mark.parametrize(
    "label, text, message",
    [("neutral", "fine match", "not a class of this corpus.*negative, positive"), ("positive", "   ", "empty")],
)
def test_bad_documents_are_refused(match_reviews, label, text, message):
    with pytest.raises(AdditionError, match=message):
        add_document(match_reviews, label, text)
    assert len(match_reviews.corpus) == 5


@pytest.mark.parametrize(
    "label, text, problem",
    [
        ("positive", "x" * 11, "The document is 11 characters long; the limit is 10. Shorten it."),
        ("neutral", "fine match", "Choose the document's class from the list (negative, positive)."),
        ("", "fine match", "Choose the document's class from the list (negative, positive)."),
        ("positive", " \n\t", "Type the text of the document to add."),
        ("positive", "x" * 10, None),
    ],
)
def test_what_is_wrong_with_a_typed_document_is_said_before_counting(label, text, problem):
    assert document_problem(("negative", "positive"), label, text, max_length=10) == problem
