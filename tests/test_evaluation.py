"""Evaluation: the stratified split, and accuracy, confusion matrix and per-class scores, with the documents a
model with α = 0 cannot decide counted on their own."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, confusion_matrix, precision_recall_fscore_support

from webnb.engine.evaluation.heldout import hold_out, on_test_corpus
from webnb.engine.evaluation.mistakes import Mistake, misclassified, mistake_pages, snippet
from webnb.engine.evaluation.scores import ClassScores, Score, evaluate, stratified_split
from webnb.engine.evaluation.sweep import MarkedSweep
from webnb.engine.records.insights import alpha_sweep
from webnb.engine.shared.corpus import Corpus, CorpusError
from webnb.engine.text.training import TrainingSet
from webnb.examples import load_example_corpus

# 10 of "a", 6 of "b", 3 of "c" and 1 of "d", interleaved so that a class is not a block of indices.
LABELS = np.array(list("abacabcabaabdabcabaa"))


def class_sizes(labels) -> dict[str, int]:
    values, counts = np.unique(labels, return_counts=True)
    return dict(zip(values.tolist(), counts.tolist(), strict=True))


# --- stratified_split ---------------------------------------------------------------------------


def test_the_labels_have_classes_of_several_sizes():
    assert class_sizes(LABELS) == {"a": 10, "b": 6, "c": 3, "d": 1}


def test_split_is_deterministic_for_a_seed():
    first_train, first_test = stratified_split(LABELS, 0.3, seed=7)
    again_train, again_test = stratified_split(LABELS, 0.3, seed=7)
    np.testing.assert_array_equal(first_train, again_train)
    np.testing.assert_array_equal(first_test, again_test)


def test_another_seed_gives_another_split():
    splits = {tuple(stratified_split(LABELS, 0.3, seed=seed)[1].tolist()) for seed in range(5)}
    assert len(splits) == 5


@pytest.mark.parametrize("test_size", [0.1, 0.2, 0.25, 0.3, 0.5, 0.75, 0.9])
@pytest.mark.parametrize("seed", [0, 1, 12345])
def test_split_is_a_stratified_partition(test_size, seed):
    train, test = stratified_split(LABELS, test_size, seed=seed)
    # disjoint, covering, sorted, integer indices
    assert np.intersect1d(train, test).size == 0
    np.testing.assert_array_equal(np.union1d(train, test), np.arange(len(LABELS)))
    assert len(train) + len(test) == len(LABELS)
    assert (np.diff(train) > 0).all() and (np.diff(test) > 0).all()
    assert train.dtype.kind == test.dtype.kind == "i"
    # every class in the same proportion, keeping at least one training document
    test_sizes, train_sizes = class_sizes(LABELS[test]), class_sizes(LABELS[train])
    for label, n in class_sizes(LABELS).items():
        expected = min(round(n * test_size), n - 1)
        assert test_sizes.get(label, 0) == expected, label
        assert train_sizes[label] == n - expected >= 1


@pytest.mark.parametrize(
    ("test_size", "expected"),
    [
        # a: 10, b: 6, c: 3, d: 1 documents
        (0.2, {"a": 2, "b": 1, "c": 1}),
        (0.5, {"a": 5, "b": 3, "c": 2}),  # c: round(1.5) = 2
        (0.9, {"a": 9, "b": 5, "c": 2}),  # c: round(2.7) = 3 would leave no training document
    ],
)
def test_per_class_test_counts(test_size, expected):
    labels = np.array(["a"] * 10 + ["b"] * 6 + ["c"] * 3 + ["d"])
    _, test = stratified_split(labels, test_size, seed=0)
    assert class_sizes(labels[test]) == expected


def test_split_accepts_a_list_of_strings():
    labels = ["spam", "ham", "ham", "spam", "ham", "ham", "ham", "ham"]
    train, test = stratified_split(labels, 0.5, seed=3)
    assert [labels[i] for i in test].count("spam") == 1
    assert [labels[i] for i in test].count("ham") == 3
    assert len(train) == 4


@pytest.mark.parametrize("test_size", [0, 0.0, 1, 1.0, -0.25, 1.5, float("nan")])
def test_test_size_must_be_a_fraction(test_size):
    with pytest.raises(ValueError, match=r"test size must be a fraction between 0 and 1, not"):
        stratified_split(LABELS, test_size)


@pytest.mark.parametrize(
    ("labels", "test_size"),
    [
        (["spam", "ham"], 0.5),  # each class keeps its only document for training
        (["spam", "spam", "ham", "ham"], 0.2),  # round(0.4) = 0 per class
        ([], 0.25),
    ],
)
def test_empty_test_set(labels, test_size):
    with pytest.raises(CorpusError, match=r"The test set would be empty: every class is too small"):
        stratified_split(labels, test_size)


# --- evaluate on the match reviews, by hand -----------------------------------------------------
#
# Training reviews (positive: "keeper was sharp and composed", "match was composed", "brilliant match";
# negative: "match was not sharp", "match was not composed"). Bernoulli with α = 0:
#   ψ(not | positive) = 0/3, so a review containing "not" is never positive;
#   ψ(was | negative) = ψ(match | negative) = ψ(not | negative) = 2/2, so a review lacking any of them is
#   never negative; ψ(brilliant | negative) = ψ(keeper | negative) = 0/2.
# A review with "not" but without "was" or "match" is impossible in both classes: undecidable.


def test_match_reviews_model(match_reviews):
    assert match_reviews.classes == ("negative", "positive")
    assert match_reviews.vocabulary == ("and", "brilliant", "composed", "keeper", "match", "not", "sharp", "was")


HAND_TEXTS = (
    "match was sharp",  # positive → positive (not negative: "not" is missing)
    "brilliant match",  # positive → positive
    "not sharp match",  # positive → undecidable ("not": not positive; no "was": not negative)
    "match was not sharp",  # negative → negative
    "keeper was not sharp",  # negative → undecidable ("not": not positive; "keeper": not negative)
    "match was composed",  # negative → positive (wrong)
)
HAND_LABELS = ("positive", "positive", "positive", "negative", "negative", "negative")


def test_evaluate_by_hand_with_undecidable_documents(match_reviews):
    model = match_reviews.model("bernoulli", 0)
    result = evaluate(model, match_reviews.transform(HAND_TEXTS), HAND_LABELS)

    assert result.classes == ("negative", "positive")
    assert result.predictions == ("positive", "positive", None, "negative", None, "positive")
    assert result.n_test == 6
    assert result.undecidable == 2
    assert result.undecidable_by_class == (1, 1)
    # Undecidable documents are in no column: each row sums to its class's decided documents only.
    assert result.confusion == ((1, 1), (0, 2))
    assert result.correct == 3
    assert result.accuracy == 3 / 6  # undecidable documents count as wrong
    assert result.decided_accuracy == 3 / 4

    negative, positive = result.per_class
    # negative: 3 documents, 1 predicted negative (rightly); the undecidable one is a miss for recall.
    assert negative == ClassScores("negative", support=3, predicted=1, correct=1, precision=1.0, recall=1 / 3, f1=0.5)
    # positive: 3 documents, 3 predicted positive of which 2 rightly.
    assert positive.label == "positive"
    assert (positive.support, positive.predicted, positive.correct) == (3, 3, 2)
    assert positive.precision == pytest.approx(2 / 3)
    assert positive.recall == pytest.approx(2 / 3)
    assert positive.f1 == pytest.approx(2 / 3)


def test_every_document_undecidable(match_reviews):
    model = match_reviews.model("bernoulli", 0)
    texts = ("not sharp match", "keeper was not sharp", "not")
    result = evaluate(model, match_reviews.transform(texts), ("positive", "negative", "negative"))
    assert result.predictions == (None, None, None)
    assert result.undecidable == 3
    assert result.undecidable_by_class == (2, 1)
    assert result.confusion == ((0, 0), (0, 0))
    assert result.correct == 0
    assert result.accuracy == 0.0
    assert result.decided_accuracy is None
    assert [(s.precision, s.recall, s.f1) for s in result.per_class] == [(None, 0.0, None), (None, 0.0, None)]


def test_precision_is_none_when_nothing_is_predicted_for_a_class(match_reviews):
    model = match_reviews.model("bernoulli", 0)
    texts = ("brilliant match", "not sharp match", "match was composed")
    result = evaluate(model, match_reviews.transform(texts), ("positive", "negative", "positive"))
    assert result.predictions == ("positive", None, "positive")
    negative, positive = result.per_class
    assert negative == ClassScores("negative", support=1, predicted=0, correct=0, precision=None, recall=0.0, f1=None)
    assert positive == ClassScores("positive", support=2, predicted=2, correct=2, precision=1.0, recall=1.0, f1=1.0)
    assert result.accuracy == 2 / 3


def test_recall_is_none_for_a_class_without_test_documents(match_reviews):
    model = match_reviews.model("bernoulli", 0)
    result = evaluate(model, match_reviews.transform(["match was sharp", "match was not sharp"]), ["positive"] * 2)
    negative, positive = result.per_class
    # "match was not sharp" is predicted negative: precision 0/1 is defined, recall has no documents.
    assert negative == ClassScores("negative", support=0, predicted=1, correct=0, precision=0.0, recall=None, f1=None)
    assert positive == ClassScores("positive", support=2, predicted=1, correct=1, precision=1.0, recall=0.5, f1=2 / 3)
    assert result.confusion == ((0, 0), (1, 1))


def test_f1_is_zero_when_precision_and_recall_are_zero(match_reviews):
    model = match_reviews.model("bernoulli", 0)
    result = evaluate(
        model, match_reviews.transform(["match was sharp", "match was not sharp"]), ["negative", "positive"]
    )
    assert result.correct == 0
    assert [(s.precision, s.recall, s.f1) for s in result.per_class] == [(0.0, 0.0, 0.0), (0.0, 0.0, 0.0)]


def test_describe(match_reviews):
    result = evaluate(match_reviews.model("bernoulli", 0), match_reviews.transform(HAND_TEXTS), HAND_LABELS)
    described = result.to_dict()
    assert described["n_test"] == 6
    assert described["accuracy"] == 0.5
    assert described["undecidable"] == 2
    assert described["confusion"] == [[1, 1], [0, 2]]
    assert described["undecidable_by_class"] == [1, 1]
    assert described["per_class"][0] == {
        "class": "negative", "support": 3, "precision": 1.0, "recall": 1 / 3, "f1": 0.5}


# --- a score with its held-out documents, the documents it got wrong, the sweep beside it -------


@pytest.fixture(scope="module")
def hand_score(match_reviews) -> Score:
    """The hand-worked reviews as a test corpus of their own, scored by Bernoulli with α = 0."""
    held = on_test_corpus(match_reviews, Corpus.from_pairs(zip(HAND_LABELS, HAND_TEXTS, strict=True)))
    model = match_reviews.model("bernoulli", 0)
    return Score(held, model, evaluate(model, held.test_matrix, held.test_labels))


def test_a_score_knows_what_it_got_wrong_and_says_it_all(hand_score):
    assert hand_score.wrong == (2, 4, 5)  # two it cannot decide, one positive said of a negative review
    data = hand_score.to_dict()
    assert data["model"] == {"model": "bernoulli", "alpha": 0, "epsilon": None, "binary": True, "prior": "learned"}
    assert data["test"] == {"source": "corpus", "test_size": None, "seed": None, "n_train": 5, "n_test": 6}
    assert (data["n_test"], data["correct"], data["accuracy"], data["undecidable"]) == (6, 3, 0.5, 2)
    assert data["confusion"] == [[1, 1], [0, 2]] and data["decided_accuracy"] == 0.75


def test_the_wrong_documents_a_page_at_a_time(hand_score):
    assert mistake_pages(hand_score, per_page=2) == 2 and mistake_pages(hand_score) == 1
    first = misclassified(hand_score, 1, per_page=2)
    assert (first.count, first.page, first.pages) == (3, 1, 2)
    assert first.documents == (
        Mistake(position=2, id="3", true="positive", predicted=None, confidence=0.0, snippet="not sharp match"),
        Mistake(position=4, id="5", true="negative", predicted=None, confidence=0.0, snippet="keeper was not sharp"),
    )
    # "match was composed" lacks "not", which every negative review has (ψ = 2/2): certainly positive
    second = misclassified(hand_score, 2, per_page=2)
    assert second.to_dict() == {
        "count": 3, "page": 2, "pages": 2,
        "documents": [{"position": 5, "id": "6", "true": "negative", "predicted": "positive", "confidence": 1.0}],
    }
    with pytest.raises(ValueError, match="There are 2 pages of wrong documents, not 3"):
        misclassified(hand_score, 3, per_page=2)


def test_no_wrong_document_is_one_empty_page(match_reviews):
    held = on_test_corpus(match_reviews, Corpus.from_pairs([("positive", "brilliant match")]))
    model = match_reviews.model("bernoulli", 1)
    score = Score(held, model, evaluate(model, held.test_matrix, held.test_labels))
    assert score.wrong == () and misclassified(score, 1).to_dict() == {"count": 0, "page": 1, "pages": 1,
                                                                       "documents": []}


def test_a_snippet_is_the_beginning_on_one_line():
    assert snippet("free  prize\n\tcall now ") == "free prize call now"
    assert snippet("x" * 160) == "x" * 160
    assert snippet("x" * 161) == "x" * 159 + "…" and len(snippet("y " * 200)) == 160
    assert snippet("one two three", length=6) == "one t…"


def test_the_sweep_marks_the_score_it_was_made_for():
    held = hold_out(load_example_corpus("spam-ham"), test_size=0.25, seed=0)
    model = held.training.model("bernoulli", 0)
    score = Score(held, model, evaluate(model, held.test_matrix, held.test_labels))
    sweep = alpha_sweep(held.training, held.test_matrix, held.test_labels, kind="bernoulli")
    marked = MarkedSweep(sweep, score)
    assert marked.alpha == 0.0
    data = marked.to_dict()
    assert data["current"] == {"alpha": 0.0, "accuracy": 0.25, "log_loss": "inf"}
    assert {k: v for k, v in data.items() if k not in ("current", "versus_best")} == sweep.to_dict()
    assert data["versus_best"] is None  # made without the test against the best α
    assert data["points"][0] == {"alpha": 0.0, "accuracy": 0.25, "correct": 1, "log_loss": "inf", "undecidable": 3,
                                 "infinite_loss_documents": 3}


# --- agreement with scikit-learn's metrics ------------------------------------------------------


def assert_same_as_sklearn_metrics(result, labels):
    assert result.undecidable == 0
    predictions = list(result.predictions)
    classes = list(result.classes)
    assert result.accuracy == pytest.approx(accuracy_score(labels, predictions), abs=1e-15)
    assert result.confusion == tuple(map(tuple, confusion_matrix(labels, predictions, labels=classes).tolist()))
    # Every class is predicted and present, so scikit-learn has no zero division to warn about.
    assert all(s.predicted > 0 and s.support > 0 for s in result.per_class)
    precision, recall, f1, support = precision_recall_fscore_support(labels, predictions, labels=classes)
    assert [s.precision for s in result.per_class] == pytest.approx(precision.tolist(), abs=1e-15)
    assert [s.recall for s in result.per_class] == pytest.approx(recall.tolist(), abs=1e-15)
    assert [s.f1 for s in result.per_class] == pytest.approx(f1.tolist(), abs=1e-15)
    assert [s.support for s in result.per_class] == support.tolist()


@pytest.mark.parametrize("kind", ["bernoulli", "multinomial"])
def test_metrics_agree_with_sklearn_on_match_reviews(match_reviews, kind):
    texts = HAND_TEXTS + ("keeper was brilliant", "not composed", "sharp and composed match", "was not")
    labels = HAND_LABELS + ("positive", "negative", "positive", "negative")
    result = evaluate(match_reviews.model(kind, 1), match_reviews.transform(texts), labels)
    assert result.correct < result.n_test  # some mistakes, so the scores are not all 1
    assert_same_as_sklearn_metrics(result, labels)


@pytest.mark.corpora
@pytest.mark.parametrize("kind", ["bernoulli", "multinomial"])
def test_metrics_agree_with_sklearn_on_sms(sms_spam, kind):
    corpus = sms_spam
    train, test = stratified_split(corpus.labels, 0.25, seed=0)
    assert len(test) == round(4827 * 0.25) + round(747 * 0.25)
    training = TrainingSet.build(corpus.subset(train))
    held_out = corpus.subset(test)
    result = evaluate(training.model(kind, 1), training.transform(held_out.texts), held_out.labels)
    assert result.accuracy > 0.9
    assert_same_as_sklearn_metrics(result, list(held_out.labels))


# --- bad input ----------------------------------------------------------------------------------


def test_unknown_test_labels(match_reviews):
    model = match_reviews.model("bernoulli", 1)
    with pytest.raises(CorpusError, match=r"classes the model never saw in training: 'mixed', 'neutral'\."):
        evaluate(model, match_reviews.transform(["a", "b", "c"]), ["neutral", "positive", "mixed"])


def test_as_many_labels_as_documents(match_reviews):
    model = match_reviews.model("bernoulli", 1)
    with pytest.raises(CorpusError, match=r"The test matrix has 3 documents but 2 labels were given"):
        evaluate(model, match_reviews.transform(["a", "b", "c"]), ["positive", "negative"])
