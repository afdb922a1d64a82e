"""Exact ties: decided as exact arithmetic decides them, everywhere, and the engine's inputs checked.

Float sums of logs round differently per class, so two exactly equal joints can come out one unit in the last
place apart. The engine compares near ties exactly, and gives exactly tied classes the same score, so that the
first of them wins (as scikit-learn's argmax does for equal floats). A scan of every small corpus compares the
engine's decisions with decisions computed here from exact fractions, independently of the engine.
"""
from __future__ import annotations

import io
import itertools
import json
import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from bs4 import BeautifulSoup

from webnb.cli import main
from webnb.engine import ClassStatistics, Corpus, TrainingSet, evaluate, explain, fit_naive_bayes
from webnb.engine.evaluation.comparison import compare_models
from webnb.engine.evaluation.heldout import on_test_corpus

SPAM_PAIRS = [("A", "spam"), ("B", "spam spam")]


@pytest.fixture(scope="module")
def spam_training() -> TrainingSet:
    return TrainingSet.build(Corpus.from_pairs(SPAM_PAIRS))


# -- the case of the issue ---------------------------------------------------------------------------------------


def test_equal_joints_get_the_same_score_and_the_first_class(spam_training):
    model = spam_training.model("multinomial", 1)
    matrix = spam_training.transform(["spam"])
    jll = model.joint_log_likelihood(matrix)
    # θ_spam = 2/2 for A and 3/3 for B, priors 1/2 and 1/2: both joints are exactly 1/2.
    assert jll[0, 0] == jll[0, 1] == pytest.approx(math.log(0.5), abs=1e-15)
    # The float sums alone round B's joint up by one unit in the last place, and would decide B.
    floats = model.joint_log_likelihood(matrix, exact_bits=0)
    assert floats[0].tolist() == [-0.6931471805599453, -0.6931471805599452]
    assert model.predict(matrix) == ["A"]
    assert model.predict_index(matrix).tolist() == [0]
    log_posterior, decidable = model.predict_log_proba(matrix)
    assert decidable.tolist() == [True] and log_posterior[0, 0] == log_posterior[0, 1] == math.log(0.5)


def test_evaluation_predicts_the_first_tied_class(spam_training):
    model = spam_training.model("multinomial", 1)
    result = evaluate(model, spam_training.transform(["spam", "spam"]), ["A", "B"])
    assert result.predictions == ("A", "A")
    assert result.correct == 1 and result.confusion == ((1, 0), (1, 0))
    assert result.confidence == (0.5, 0.5)


def test_trace_reports_the_tie_and_the_rule(spam_training):
    model = spam_training.model("multinomial", 1)
    trace = explain(model, spam_training.bag, "spam")
    assert [c.joint_exact for c in trace.per_class] == [Fraction(1, 2), Fraction(1, 2)]
    assert trace.decision == "A" and trace.tied == ("A", "B")
    assert trace.per_class[0].log_joint == trace.per_class[1].log_joint
    assert trace.per_class[0].posterior == trace.per_class[1].posterior == 0.5
    assert trace.tie_note == "A and B are tied, with the same probability; a tie goes to the first class, A."
    data = trace.to_dict()
    assert data["decision"] == "A" and data["tied"] == ["A", "B"] and data["tie_note"] == trace.tie_note
    untied = explain(model, spam_training.bag, "ham")  # not in the vocabulary: the priors, 1/2 each, tie too
    assert untied.tied == ("A", "B")
    ahead = explain(spam_training.model("multinomial", 1, class_prior=["0.4", "0.6"]), spam_training.bag, "spam")
    assert ahead.decision == "B"
    assert ahead.tied == () and ahead.tie_note is None


def test_three_tied_classes_go_to_the_first():
    training = TrainingSet.build(Corpus.from_pairs([("c", "spam"), ("a", "spam spam"), ("b", "spam spam spam")]))
    model = training.model("multinomial", 1)
    trace = explain(model, training.bag, "spam")
    assert trace.decision == "a" and trace.tied == ("a", "b", "c")
    assert trace.tie_note.startswith("a, b and c are tied")
    assert model.predict(training.transform(["spam"])) == ["a"]


def test_comparison_scores_the_first_tied_class(spam_training):
    right = compare_models(on_test_corpus(spam_training, Corpus.from_pairs([("A", "spam")])))
    wrong = compare_models(on_test_corpus(spam_training, Corpus.from_pairs([("B", "spam")])))
    assert right.score("multinomial").correct == 1 and wrong.score("multinomial").correct == 0
    # multinomial on presence: θ = 1 for both classes as well
    assert right.score("multinomial-binary").correct == 1


def test_command_line_decides_the_first_tied_class(tmp_path):
    path = tmp_path / "spam.jsonl"
    path.write_text("".join(json.dumps({"label": label, "text": text}) + "\n" for label, text in SPAM_PAIRS))
    command = ["explain", "--train", str(path), "--model", "multinomial", "--alpha", "1", "--text", "spam"]
    out = io.StringIO()
    assert main(command, out=out) == 0
    assert "Decision: A" in out.getvalue()
    out = io.StringIO()
    assert main([*command, "--json"], out=out) == 0
    report = json.loads(out.getvalue())
    assert report["decision"] == "A" and report["tied"] == ["A", "B"]


def test_lesson_page_says_the_tie_goes_to_the_first_class(client):
    response = client.post("/corpora/paste", data={"corpus": "A\tspam\nB\tspam spam", "name": "Ties"})
    assert response.status_code == 303
    query = {"model": "multinomial", "alpha": "1", "text": "spam", "step": "decision"}
    inference = client.get(response.headers["Location"] + "/inference", query_string=query)
    page = BeautifulSoup(inference.data, "html.parser")
    verdict = page.find(class_="verdict")
    assert verdict.strong.get_text() == "A"
    assert "a tie goes to the first class, A" in verdict.get_text(" ", strip=True)


# -- the scan of small corpora --------------------------------------------------------------------------------------

ALPHAS = (Fraction(0), Fraction(1, 2), Fraction(1))
KINDS = ("bernoulli", "multinomial")


def documents(alphabet, lengths):
    """Every document (as a sorted tuple of words: the order does not matter to a bag of words)."""
    return [d for n in lengths for d in itertools.combinations_with_replacement(alphabet, n)]


def classes_of(docs, sizes):
    return [c for n in sizes for c in itertools.combinations_with_replacement(docs, n)]


def small_corpora(alphabet, lengths, sizes):
    """(documents of A, documents of B) for every choice of documents per class."""
    per_class = classes_of(documents(alphabet, lengths), sizes)
    return [(a, b) for a in per_class for b in per_class]


def exact_decider(kind: str, alpha: Fraction, classes):
    """The textbook joints in exact arithmetic, as a function of the review: the class number of the largest joint
    (the first of equal ones), or −1 when every joint is 0. Written from the formulas, not from the engine; each
    class's prior and per-word estimates are worked out once, for every review of the scan.

    With α = p/q every estimate is a ratio of whole numbers, (q·count + p) / (q·total + …), so each joint is kept as
    a whole numerator over a whole denominator and two joints are compared by cross-multiplying: exact, like
    Fractions, without reducing every product by its gcd (which cost most of the scan)."""
    p, q = alpha.numerator, alpha.denominator
    vocabulary = sorted({w for docs in classes for d in docs for w in d})
    # The priors share the denominator (the number of documents), so each class's count of documents stands for it.
    priors = [len(docs) for docs in classes]
    if kind == "multinomial":
        denominators = [q * sum(len(d) for d in docs) + len(vocabulary) * p for docs in classes]
        numerators = [{w: q * sum(d.count(w) for d in docs) + p for w in vocabulary} for docs in classes]
    else:
        denominators = [q * len(docs) + 2 * p for docs in classes]
        present = [{w: q * sum(w in d for d in docs) + p for w in vocabulary} for docs in classes]
        absent = [{w: q * len(docs) + 2 * p - seen for w, seen in counts.items()}
                  for docs, counts in zip(classes, present, strict=True)]

    def joint(k: int, review) -> tuple[int, int]:
        """Class k's joint as (numerator, denominator), the denominator positive."""
        numerator, factors = priors[k], 0
        if kind == "multinomial":
            for word in review:
                if word in numerators[k]:
                    numerator *= numerators[k][word]
                    factors += 1
        else:
            words = set(review)
            for word in vocabulary:
                numerator *= present[k][word] if word in words else absent[k][word]
            factors = len(vocabulary)
        return numerator, denominators[k] ** factors

    def decide(review) -> int:
        best, (best_numerator, best_denominator) = 0, joint(0, review)
        for k in range(1, len(classes)):
            numerator, denominator = joint(k, review)
            if numerator * best_denominator > best_numerator * denominator:
                best, best_numerator, best_denominator = k, numerator, denominator
        return -1 if best_numerator == 0 else best

    return decide


def exact_decision(kind: str, alpha: Fraction, classes, review) -> int:
    """:func:`exact_decider` for one review."""
    return exact_decider(kind, alpha, classes)(review)


def count_rows(docs, index) -> sp.csr_matrix:
    data, columns, indptr = [], [], [0]
    for d in docs:
        for j, n in sorted(Counter(index[w] for w in d if w in index).items()):
            columns.append(j)
            data.append(n)
        indptr.append(len(columns))
    arrays = (np.array(data, dtype=np.int64), np.array(columns, dtype=np.int64), indptr)
    return sp.csr_matrix(arrays, shape=(len(docs), len(index)))


def scan(corpora, *, with_evaluation: bool = False):
    """(cases, disagreements, first few disagreements) of predict_index (and evaluate) against exact_decision,
    for every corpus, model, α and one- or two-word review over the corpus's words."""
    cases, wrong = 0, []
    for a_docs, b_docs in corpora:
        vocabulary = sorted({w for d in a_docs + b_docs for w in d})
        index = {w: j for j, w in enumerate(vocabulary)}
        class_index = np.array([0] * len(a_docs) + [1] * len(b_docs))
        stats = ClassStatistics.from_matrix(count_rows(a_docs + b_docs, index), class_index, ("A", "B"), vocabulary)
        reviews = documents(vocabulary, (1, 2))
        matrix = count_rows(reviews, index)
        for kind in KINDS:
            for alpha in ALPHAS:
                model = fit_naive_bayes(stats, kind, alpha)
                decided = model.predict_index(matrix).tolist()
                if with_evaluation:
                    predictions = evaluate(model, matrix, ["A"] * len(reviews)).predictions
                    assert [("A", "B").index(p) if p else -1 for p in predictions] == decided
                exact = exact_decider(kind, alpha, (a_docs, b_docs))
                for review, got in zip(reviews, decided, strict=True):
                    cases += 1
                    want = exact(review)
                    if got != want:
                        wrong.append((kind, str(alpha), a_docs, b_docs, review, got, want))
    return cases, len(wrong), wrong[:5]


@pytest.mark.slow  # 2.1 million cases, 25-40 s
def test_every_small_corpus_is_decided_as_exact_fractions_decide():
    corpora = small_corpora(("eggs", "spam"), (1, 2, 3), (1, 2))  # two words, 1–2 documents of 1–3 words
    corpora += small_corpora(("eggs", "ham", "spam"), (1, 2, 3), (1,))  # three words, one document per class
    cases, disagreements, examples = scan(corpora, with_evaluation=True)
    assert cases == 98_388
    assert disagreements == 0, examples


@pytest.mark.slow
def test_every_small_corpus_over_three_words_is_decided_as_exact_fractions_decide():
    corpora = small_corpora(("eggs", "ham", "spam"), (1, 2, 3), (1, 2))  # 43,681 corpora
    cases, disagreements, examples = scan(corpora)
    assert cases == 2_150_280
    assert disagreements == 0, examples


@pytest.mark.slow  # 8-13 s
def test_the_trace_decides_small_corpora_as_exact_fractions_decide():
    texts = [" ".join(d) for d in documents(("eggs", "ham", "spam"), (1, 2, 3))]
    reviews = [" ".join(d) for d in documents(("eggs", "ham", "spam"), (1, 2))]
    cases = ties = 0
    for a_text, b_text in itertools.product(texts, repeat=2):
        training = TrainingSet.build(Corpus.from_pairs([("A", a_text), ("B", b_text)]))
        classes = ((tuple(a_text.split()),), (tuple(b_text.split()),))
        for kind, alpha in itertools.product(KINDS, (Fraction(0), Fraction(1))):
            model = training.model(kind, alpha)
            for review in reviews:
                trace = explain(model, training.bag, review)
                want = exact_decision(kind, alpha, classes, review.split())
                got = -1 if trace.decision is None else training.classes.index(trace.decision)
                assert got == want, (kind, alpha, a_text, b_text, review)
                top = max(c.joint_exact for c in trace.per_class)
                exact_tie = sum(c.joint_exact == top for c in trace.per_class) == 2
                assert bool(trace.tied) == (exact_tie and not trace.cannot_decide)
                cases += 1
                ties += bool(trace.tied)
    assert cases == 19 * 19 * 4 * 9 and ties > 1000


# -- near ties that are not ties, and the bound on exact work --------------------------------------------------------


def test_a_long_document_is_compared_exactly_within_the_bound(spam_training):
    model = spam_training.model("multinomial", 1)
    long_review = sp.csr_matrix(np.array([[300_000]]))  # θ = 2/2 and 3/3: the joints stay 1/2 and 1/2
    jll = model.joint_log_likelihood(long_review)
    assert jll[0, 0] == jll[0, 1] and model.predict(long_review) == ["A"]
    # Without exact work the float sums are left as they are: 300,000 roundings apart, within the near-tie slack.
    floats = model.joint_log_likelihood(long_review, exact_bits=0)
    assert floats[0, 0] != floats[0, 1] and abs(floats[0, 0] - floats[0, 1]) < 1e-9
    assert jll[0, 0] == floats[0].max()


def test_exact_order_replaces_a_float_order_that_is_wrong_in_the_last_place(spam_training):
    model = spam_training.model("multinomial", 1)
    jll = np.array([[-0.6931471805599453, -0.6931471805599452]])  # as the old scoring gave for "spam"
    model._settle_near_ties(jll, spam_training.transform(["spam"]), np.array([1]), None)
    assert jll[0, 0] == jll[0, 1]


# -- inputs the engine refuses ---------------------------------------------------------------------------------------

BAD_COUNTS = [
    (np.array([[1, -1]]), "negative count"),
    (np.array([[1.0, np.nan]]), "not finite"),
    (np.array([[np.inf, 1.0]]), "not finite"),
    (np.array([[0.5, 1.0]]), "not a whole number"),
    (np.array([[1e300, 1.0]]), "count above 1,000,000,000,000,000"),
    (np.array([[1, 2, 3]]), "3 columns but the vocabulary has 2 words"),
    (np.array([["a", "b"]]), "must hold numbers"),
    ("spam", "matrix of word counts"),
    (np.array([[1 + 1j, 0]]), "must hold numbers"),
]


@pytest.fixture(scope="module")
def two_word_training() -> TrainingSet:
    return TrainingSet.build(Corpus.from_pairs([("A", "eggs spam"), ("B", "spam")]))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("matrix, message", BAD_COUNTS)
def test_scoring_refuses_what_is_not_counts(two_word_training, kind, matrix, message):
    model = two_word_training.model(kind, 1)
    for score in (model.joint_log_likelihood, model.predict, model.predict_index, model.predict_log_proba):
        with pytest.raises(ValueError, match=message):
            score(matrix)
    with pytest.raises(ValueError, match=message):
        evaluate(model, matrix, ["A"])


@pytest.mark.parametrize("matrix, message", BAD_COUNTS)
def test_fitting_refuses_what_is_not_counts(matrix, message):
    rows = np.atleast_2d(matrix) if not isinstance(matrix, str) else matrix
    n_docs = 1 if isinstance(matrix, str) else rows.shape[0]
    with pytest.raises(ValueError, match=message):
        ClassStatistics.from_matrix(matrix, np.zeros(n_docs, dtype=np.int64), ("A", "B"), ("eggs", "spam"))


@pytest.mark.parametrize(
    "class_index, message",
    [
        (np.array([0]), "one class number per document: 2 documents, 1 class numbers"),
        (np.array([0, 2]), "between 0 and 1"),
        (np.array([0, -1]), "between 0 and 1"),
        (np.array([0.0, 1.0]), "whole numbers"),
    ],
)
def test_fitting_refuses_bad_class_numbers(class_index, message):
    with pytest.raises(ValueError, match=message):
        ClassStatistics.from_matrix(np.array([[1, 0], [0, 1]]), class_index, ("A", "B"), ("eggs", "spam"))


def test_a_stored_zero_is_not_a_present_word(two_word_training):
    # CSR with an explicit 0 for "eggs" in the second row: the same documents as without it.
    stored_zero = sp.csr_matrix((np.array([1, 1, 0, 1]), np.array([0, 1, 0, 1]), np.array([0, 2, 4])), shape=(2, 2))
    clean = sp.csr_matrix(np.array([[1, 1], [0, 1]]))
    original_data = stored_zero.data.copy()
    for kind in KINDS:
        model = two_word_training.model(kind, 1)
        np.testing.assert_array_equal(model.joint_log_likelihood(stored_zero), model.joint_log_likelihood(clean))
    stats = ClassStatistics.from_matrix(stored_zero, np.array([0, 1]), ("A", "B"), ("eggs", "spam"))
    assert stats.document_count_.tolist() == [[1, 1], [0, 1]]
    np.testing.assert_array_equal(stored_zero.data, original_data)  # the caller's matrix is left as it was


def test_a_duplicate_entry_counts_once_as_present(two_word_training):
    # "spam" stored twice in one row (1 + 1): two occurrences, but present once.
    duplicated = sp.csr_matrix((np.array([1, 1]), np.array([1, 1]), np.array([0, 2])), shape=(1, 2))
    model = two_word_training.model("bernoulli", 1)
    np.testing.assert_array_equal(
        model.joint_log_likelihood(duplicated), model.joint_log_likelihood(sp.csr_matrix(np.array([[0, 2]])))
    )
    multinomial = two_word_training.model("multinomial", 1)
    np.testing.assert_array_equal(
        multinomial.joint_log_likelihood(duplicated), multinomial.joint_log_likelihood(np.array([[0, 2]]))
    )


def test_duplicates_adding_up_beyond_the_largest_count_are_refused(two_word_training):
    twice = sp.csr_matrix((np.array([10**15, 10**15]), np.array([1, 1]), np.array([0, 2])), shape=(1, 2))
    with pytest.raises(ValueError, match="count above"):
        two_word_training.model("multinomial", 1).joint_log_likelihood(twice)


def test_whole_float_counts_are_accepted(two_word_training):
    model = two_word_training.model("multinomial", 1)
    np.testing.assert_array_equal(
        model.joint_log_likelihood(np.array([[1.0, 2.0]])), model.joint_log_likelihood(np.array([[1, 2]]))
    )
