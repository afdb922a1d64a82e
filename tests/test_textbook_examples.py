"""The textbooks' own worked examples, reproduced exactly by the engine: IIR's Example 13.2 (the Bernoulli model on
the China / not China documents, the built-in example, which decides the opposite of the multinomial) and the
sentiment example of Jurafsky & Martin's Speech and Language Processing (3rd ed., ch. 4)."""
from __future__ import annotations

from fractions import Fraction

import pytest

from webnb.engine import Corpus, TrainingSet, explain

D5 = "Chinese Chinese Chinese Tokyo Japan"
SLP3_SENTENCES = (
    ("negative", "just plain boring"),
    ("negative", "entirely predictable and lacks energy"),
    ("negative", "no surprises and very few laughs"),
    ("positive", "very powerful"),
    ("positive", "the most fun film of the summer"),
)
SLP3_REVIEW = "predictable with no fun"


@pytest.fixture(scope="module")
def slp3():
    return TrainingSet.build(Corpus.from_pairs(SLP3_SENTENCES))


def test_iir_example_13_2_bernoulli_says_not_china(china_japan):
    trace = explain(china_japan.model("bernoulli", 1), china_japan.bag, D5)
    china, not_china = trace.per_class
    # P̂(c|d5) ∝ 3/4 · 4/5 · 1/5 · 1/5 · (1 − 2/5)³ (chinese, japan, tokyo; beijing, macao, shanghai absent): a
    # vocabulary this small lists every word's factor, the absent ones as 1 − ψ.
    assert {f.word: (f.present, f.exact) for f in china.factors} == {
        "chinese": (True, Fraction(4, 5)), "japan": (True, Fraction(1, 5)), "tokyo": (True, Fraction(1, 5)),
        "beijing": (False, Fraction(3, 5)), "macao": (False, Fraction(3, 5)), "shanghai": (False, Fraction(3, 5)),
    }
    assert china.prior_exact == Fraction(3, 4)
    assert china.joint_exact == Fraction(3, 4) * Fraction(4, 5) * Fraction(1, 5) ** 2 * Fraction(3, 5) ** 3
    # P̂(c̄|d5) ∝ 1/4 · 2/3 · 2/3 · 2/3 · (1 − 1/3)³
    assert not_china.joint_exact == Fraction(1, 4) * Fraction(2, 3) ** 3 * Fraction(2, 3) ** 3
    assert round(float(china.joint_exact), 3) == 0.005 and round(float(not_china.joint_exact), 3) == 0.022
    assert trace.decision == "not China"
    assert explain(china_japan.model("multinomial", 1), china_japan.bag, D5).decision == "China"  # the flip


def test_slp3_sentiment_example_with_add_one_smoothing(slp3):
    trace = explain(slp3.model("multinomial", 1), slp3.bag, SLP3_REVIEW)
    assert trace.unseen == ("with",) and len(slp3.vocabulary) == 20
    negative, positive = trace.per_class
    # 3/5 · (2 · 2 · 1)/34³ against 2/5 · (1 · 1 · 2)/29³
    assert [f.word for f in negative.factors] == ["fun", "no", "predictable"]
    assert [f.ratio for f in negative.factors] == [(1, 34), (2, 34), (2, 34)]
    assert [f.ratio for f in positive.factors] == [(2, 29), (1, 29), (1, 29)]
    assert (negative.joint_exact, positive.joint_exact) == (Fraction(3, 49130), Fraction(4, 121945))
    assert trace.decision == "negative"


def test_slp3_without_smoothing_neither_class_survives(slp3):
    trace = explain(slp3.model("multinomial", 0), slp3.bag, SLP3_REVIEW)
    assert trace.cannot_decide and [c.joint_exact for c in trace.per_class] == [0, 0]
    assert {(z.word, z.label) for c in trace.per_class for z in c.zero_factors} == {
        ("fun", "negative"), ("no", "positive"), ("predictable", "positive")}


def test_slp3_binary_counts_each_word_once_per_document(slp3):
    trace = explain(slp3.model("multinomial", 1, binary=True), slp3.bag, SLP3_REVIEW)
    negative, positive = trace.per_class
    assert negative.joint_exact == Fraction(3, 49130)  # no negative sentence repeats a word
    assert positive.joint_exact == Fraction(2, 5) * Fraction(2 * 1 * 1, 28**3)  # "the" once: 8 presences + 20
    assert trace.decision == "negative"
