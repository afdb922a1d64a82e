"""The inference lesson: the zero-probability failure and its fixes, underflow, log space and the
per-word contributions, on the lecture examples and on 20 Newsgroups."""
from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest

from webnb.engine import SEED_EPSILON, AnalysisOptions, Corpus, TrainingSet, explain, read_corpus
from webnb.engine.records import explanation as lesson_module
from webnb.engine.records.explanation import (
    REPEAT_CAP,
    RepeatedProducts,
    _first_true,
    explain_review,
    find_underflow,
    repeated,
)
from webnb.engine.text import training as training_module
from webnb.engine.text.trace import LISTED_ABSENT_LIMIT
from webnb.examples import load_example_corpus
from webnb.lesson.seed_lessons import NEWSGROUPS_4

log = math.log


def by_class(trace):
    return {c.label: c for c in trace.per_class}


def all_numbers(lesson_data) -> list:
    """Every float in a nested plain-data structure."""
    if isinstance(lesson_data, dict):
        return [x for v in lesson_data.values() for x in all_numbers(v)]
    if isinstance(lesson_data, list):
        return [x for v in lesson_data for x in all_numbers(v)]
    return [lesson_data] if isinstance(lesson_data, float) else []


# -- the zero-probability failure and its two fixes -------------------------------------------------------


def test_not_sharp_match_culprits_and_both_fixes(match_reviews):
    lesson = explain_review(match_reviews, "not sharp match", kind="bernoulli", alpha="0")
    assert lesson.unsmoothed_cannot_decide and lesson.unsmoothed.decision is None
    assert [(c.word, c.label, c.present) for c in lesson.culprits] == [
        ("not", "positive", True),
        ("was", "negative", False),
    ]
    not_positive, was_negative = lesson.culprits
    # Unsmoothed: exactly 0, written as the notes write it.
    assert not_positive.unsmoothed.probability == 0.0 and not_positive.unsmoothed.ratio == (0, 3)
    assert was_negative.unsmoothed.probability == 0.0 and was_negative.unsmoothed.ratio == (0, 2)
    assert not_positive.unsmoothed.log_value == -math.inf
    # Laplace, α = 1: ψ(not | positive) = (0 + 1)/(3 + 2); 1 − ψ(was | negative) = (0 + 1)/(2 + 2).
    assert lesson.smoothing_alpha == 1
    assert not_positive.smoothed.exact == Fraction(1, 5) and not_positive.smoothed.probability == 0.2
    assert was_negative.smoothed.exact == Fraction(1, 4)
    # The floor: ψ = 0 becomes ε; ψ = 1 becomes 1 − ε, so 1 − ψ is what float64 makes of 1 − (1 − ε).
    assert not_positive.floored.probability == SEED_EPSILON and not_positive.floored.exact is None
    assert was_negative.floored.probability == 1.0 - (1.0 - SEED_EPSILON)
    assert was_negative.floored.probability == pytest.approx(1e-14, rel=1e-3)
    assert was_negative.floored.log_value == pytest.approx(log(1.0 - (1.0 - SEED_EPSILON)), rel=1e-12)

    assert [(z.label, z.zeroed, z.present_words, z.absent_words) for z in lesson.zero_summary] == [
        ("negative", True, (), ("was",)),
        ("positive", True, ("not",), ()),
    ]


def test_not_sharp_match_smoothed_and_floored_decide(match_reviews):
    lesson = explain_review(match_reviews, "not sharp match")
    smoothed = by_class(lesson.smoothed)
    assert lesson.smoothed.decision == "negative"
    assert math.fsum(c.posterior for c in lesson.smoothed.per_class) == pytest.approx(1.0, abs=1e-15)
    positive, negative = smoothed["positive"].joint_exact, smoothed["negative"].joint_exact
    exact_positive = positive / (positive + negative)
    assert smoothed["positive"].posterior == pytest.approx(float(exact_positive), rel=1e-12)

    # Floored, by hand: positive keeps 3/5 · 2/3 · 1/3 · 1/3 · 2/3 · 1/3 · 2/3 · 2/3 and ε for "not";
    # negative keeps 2/5 · 1/2 · 1/2 and 1 − (1 − ε) for "was" (its other factors are 1 − ε, about 1).
    floored = by_class(lesson.floored)
    assert lesson.floored.decision == "negative" and not lesson.floored.cannot_decide
    positive_log = log(Fraction(3, 5) * Fraction(16, 2187)) + log(SEED_EPSILON)
    negative_log = log(Fraction(1, 10)) + log(1.0 - (1.0 - SEED_EPSILON))
    assert floored["positive"].log_joint == pytest.approx(positive_log, rel=1e-12)
    assert floored["negative"].log_joint == pytest.approx(negative_log, rel=1e-12)


def test_match_was_sharp_has_one_culprit_and_an_infinite_contribution(match_reviews):
    lesson = explain_review(match_reviews, "match was sharp")
    assert not lesson.unsmoothed_cannot_decide and lesson.trace.decision == "positive"
    assert [(c.word, c.label, c.present) for c in lesson.culprits] == [("not", "negative", False)]
    assert lesson.culprits[0].smoothed.exact == Fraction(1, 4)
    assert [(z.label, z.zeroed) for z in lesson.zero_summary] == [("negative", True), ("positive", False)]

    chart = lesson.contributions
    assert (chart.decided, chart.runner_up, chart.from_smoothed, chart.alpha) == ("positive", "negative", False, 0)
    absent = chart.entries[0]  # +∞ sorts first
    assert absent.kind == "absent" and absent.count == 5 and absent.zero_words == ("not",)
    # Σ log(1 − ψ | positive) over keeper, and, composed, brilliant, not: 2/3 · 2/3 · 1/3 · 2/3 · 3/3.
    assert absent.decided_log == pytest.approx(log(Fraction(8, 81)), rel=1e-12)
    assert absent.runner_up_log == -math.inf and absent.log_ratio == math.inf and absent.favours == "positive"
    ratios = {e.word or e.kind: e.log_ratio for e in chart.entries}
    assert ratios == pytest.approx(
        {
            "absent": math.inf,
            "prior": log(3 / 5) - log(2 / 5),
            "match": log(2 / 3) - log(2 / 2),
            "sharp": log(1 / 3) - log(1 / 2),
            "was": log(2 / 3) - log(2 / 2),
        },
        rel=1e-12,
    )
    favours = {e.word: e.favours for e in chart.entries if e.kind == "word"}
    assert favours == {"match": "negative", "sharp": "negative", "was": "negative"}
    assert chart.total == math.inf == chart.log_joint_difference
    magnitudes = [abs(e.log_ratio) for e in chart.entries]
    assert magnitudes == sorted(magnitudes, reverse=True)
    assert not any(math.isnan(e.log_ratio) for e in chart.entries)


def test_contributions_come_from_the_smoothed_trace_when_alpha_zero_cannot_decide(match_reviews):
    lesson = explain_review(match_reviews, "not sharp match")
    chart = lesson.contributions
    assert chart.from_smoothed and chart.alpha == 1
    assert (chart.decided, chart.runner_up) == ("negative", "positive")
    ratio = {e.word: e.log_ratio for e in chart.entries if e.kind == "word"}
    # ψ(not | negative) = (2 + 1)/(2 + 2), ψ(not | positive) = 1/5.
    assert ratio["not"] == pytest.approx(log(3 / 4) - log(1 / 5), rel=1e-12)
    smoothed = by_class(lesson.smoothed)
    assert chart.log_joint_difference == smoothed["negative"].log_joint - smoothed["positive"].log_joint
    assert chart.total == pytest.approx(chart.log_joint_difference, rel=1e-12)


def test_a_user_alpha_above_zero_is_the_smoothing_shown(match_reviews):
    lesson = explain_review(match_reviews, "not sharp match", alpha="0.5")
    assert lesson.smoothing_alpha == Fraction(1, 2) and lesson.smoothed is lesson.trace
    assert lesson.culprits[0].smoothed.exact == Fraction(1, 8)  # (0 + 1/2)/(3 + 1)
    assert lesson.unsmoothed_cannot_decide and lesson.contributions.from_smoothed is False


def test_smoothing_alpha_must_be_positive(match_reviews):
    with pytest.raises(ValueError, match="smoothing_alpha must be more than 0"):
        explain_review(match_reviews, "not sharp match", smoothing_alpha="0")


def test_absent_culprit_of_a_large_vocabulary_is_named_and_valued():
    """Above LISTED_ABSENT_LIMIT a Bernoulli trace aggregates absent words; the culprit is still valued."""
    corpus = Corpus.from_pairs(
        [("a", f"common a{j} a{j + 1}") for j in range(40)] + [("b", f"b{j} b{j + 1}") for j in range(40)]
    )
    training = TrainingSet.build(corpus)
    assert len(training.vocabulary) > LISTED_ABSENT_LIMIT
    lesson = explain_review(training, "b3 b4")
    assert [(c.word, c.label, c.present) for c in lesson.culprits] == [
        ("b3", "a", True),
        ("b4", "a", True),
        ("common", "a", False),
    ]
    common = lesson.culprits[-1]
    assert common.unsmoothed.probability == 0.0 and common.unsmoothed.exact == 0
    assert common.smoothed.exact == Fraction(1, 42)  # (40 − 40 + 1)/(40 + 2)
    assert common.floored.probability == 1.0 - (1.0 - SEED_EPSILON)
    absent = next(e for e in lesson.contributions.entries if e.kind == "absent")
    assert (lesson.contributions.decided, absent.log_ratio, absent.zero_words) == ("b", math.inf, ("common",))
    assert absent.count == len(training.vocabulary) - 2


# -- contributions on the China / Japan example ---------------------------------------------------------------


def test_china_japan_contributions_are_exact_log_ratios(china_japan):
    lesson = explain_review(china_japan, "Chinese Chinese Chinese Tokyo Japan", kind="multinomial", alpha=1)
    chart = lesson.contributions
    assert (chart.decided, chart.runner_up, chart.from_smoothed) == ("China", "not China", False)
    assert all(e.kind != "absent" for e in chart.entries)  # multinomial: absent words have no factor
    ratios = {e.word or e.kind: e.log_ratio for e in chart.entries}
    expected = {
        "chinese": 3 * (log(3 / 7) - log(2 / 9)),
        "tokyo": log(1 / 14) - log(2 / 9),
        "japan": log(1 / 14) - log(2 / 9),
        "prior": log(3 / 4) - log(1 / 4),
    }
    assert ratios == pytest.approx(expected, rel=1e-12)
    assert [e.word or e.kind for e in chart.entries] == ["chinese", "japan", "tokyo", "prior"]  # log 28/9 > log 3
    assert {e.word: e.count for e in chart.entries if e.word} == {"chinese": 3, "tokyo": 1, "japan": 1}
    assert {e.word or e.kind: e.favours for e in chart.entries} == {
        "chinese": "China", "prior": "China", "japan": "not China", "tokyo": "not China",
    }
    classes = by_class(lesson.trace)
    assert chart.log_joint_difference == classes["China"].log_joint - classes["not China"].log_joint
    assert chart.total == pytest.approx(chart.log_joint_difference, rel=1e-12)
    # And against the exact joints of the notes.
    exact_ratio = (Fraction(3, 4) * Fraction(3, 7) ** 3 * Fraction(1, 14) ** 2) / (Fraction(1, 4) * Fraction(2, 9) ** 5)
    assert chart.total == pytest.approx(log(exact_ratio), rel=1e-12)


# -- underflow ------------------------------------------------------------------------------------------------


def assert_minimal_underflow(model, bag, text, underflow):
    """The chosen count zeroes every float64 product, as explain() computes it; one fewer does not;
    and each class's first zero is minimal too."""
    repeats = underflow.repeats
    at = explain(model, bag, repeated(text, repeats))
    assert underflow.text == at.text
    assert [c.joint for c in at.per_class] == list(underflow.naive_products) == [0.0] * len(at.classes)
    assert [c.log_joint for c in at.per_class] == list(underflow.log_joints)
    assert any(math.isfinite(v) for v in underflow.log_joints) and at.decision is not None
    before = explain(model, bag, repeated(text, repeats - 1))
    assert any(c.joint > 0.0 for c in before.per_class)
    assert repeats == max(underflow.first_zero_repeats)
    for k, first in enumerate(underflow.first_zero_repeats):
        assert explain(model, bag, repeated(text, first)).per_class[k].joint == 0.0
        if first > 1:
            assert explain(model, bag, repeated(text, first - 1)).per_class[k].joint > 0.0


def test_chinese_tokyo_japan_underflows_at_a_minimal_repeat_count(china_japan):
    text = "Chinese Tokyo Japan"
    lesson = explain_review(china_japan, text, kind="multinomial", alpha=1)
    underflow = lesson.underflow
    assert_minimal_underflow(china_japan.model("multinomial", 1), china_japan.bag, text, underflow)
    assert underflow.first_zero_repeats == (122, 165)
    assert underflow.trace.decision == "not China"
    # Log space, by hand: r · (log of one copy's factors) + log prior.
    r = underflow.repeats
    china = log(3 / 4) + r * (log(3 / 7) + 2 * log(1 / 14))
    assert underflow.log_joints[0] == pytest.approx(china, rel=1e-12)
    assert underflow.log_joints[1] == pytest.approx(log(1 / 4) + 3 * r * log(2 / 9), rel=1e-12)
    limits = underflow.float_limits
    assert underflow.log_joints[1] < limits.log_smallest_subnormal < limits.log_smallest_normal
    assert (limits.smallest_normal, limits.smallest_subnormal) == (2.2250738585072014e-308, 5e-324)
    assert limits.log_smallest_normal == pytest.approx(-708.3964185322641, rel=1e-15)
    assert limits.log_smallest_subnormal == pytest.approx(-744.4400719213812, rel=1e-15)
    assert limits.largest == 1.7976931348623157e308


@pytest.mark.parametrize("ngram_range", [(1, 1), (1, 2)])
def test_repeated_products_equal_the_trace_bit_for_bit(ngram_range):
    """The products multiplied without a trace per repeat count are Trace.joint exactly, also in the
    subnormal range, and with bigrams, where two copies meet in "japan chinese" (a word of document 4)."""
    training = TrainingSet.build(load_example_corpus("china-japan"), AnalysisOptions(ngram_range=ngram_range))
    text = "Chinese Tokyo Japan"
    model = training.model("multinomial", 1)
    products = RepeatedProducts.of_review(model, training.bag, text)
    if ngram_range == (1, 2):
        assert "japan chinese" in training.vocabulary
        assert "japan chinese" not in explain(model, training.bag, text).tokens
    underflow = find_underflow(model, training.bag, text)
    assert_minimal_underflow(model, training.bag, text, underflow)
    # Up to each class's first zero, through the subnormal products just before it.
    near_zero = {r for first in underflow.first_zero_repeats for r in range(first - 5, first + 2)}
    checked = []
    for repeats in sorted({1, 2, 3, 10, 40} | near_zero):
        expected = [c.joint for c in explain(model, training.bag, repeated(text, repeats)).per_class]
        assert list(products.at(repeats)) == expected, repeats
        checked += expected
    assert sum(0.0 < p < 2.2250738585072014e-308 for p in checked) >= 4


def test_a_class_zeroed_at_alpha_zero_has_its_first_zero_at_one_copy(china_japan):
    text = "Chinese Tokyo Japan"
    lesson = explain_review(china_japan, text, kind="multinomial", alpha=0)
    assert [c.word for c in lesson.culprits] == ["japan", "tokyo"]  # never seen in China
    underflow = lesson.underflow
    assert underflow.first_zero_repeats[0] == 1
    assert_minimal_underflow(china_japan.model("multinomial", 0), china_japan.bag, text, underflow)
    assert underflow.log_joints[0] == -math.inf and underflow.trace.decision == "not China"


@pytest.mark.parametrize(
    "corpus, text, options",
    [
        ("china-japan", "", {"kind": "multinomial", "alpha": 1}),  # an empty review is just the prior
        ("match-reviews", "match was sharp", {"alpha": 1}),  # Bernoulli: repeating changes nothing
        ("match-reviews", "not sharp match", {"alpha": 0}),  # 0.0 at once, but log space cannot decide either
    ],
)
def test_no_underflow_lesson_is_invented(corpus, text, options):
    training = TrainingSet.build(load_example_corpus(corpus))
    underflow = explain_review(training, text, **options).underflow
    assert underflow.repeats is None and underflow.trace is None and underflow.naive_products is None
    assert underflow.cap == REPEAT_CAP


def test_no_underflow_first_zeros(match_reviews, china_japan):
    assert explain_review(china_japan, "", kind="multinomial", alpha=1).underflow.first_zero_repeats == (None, None)
    assert explain_review(match_reviews, "not sharp match").underflow.first_zero_repeats == (1, 1)


def test_given_repeats_are_shown_as_they_are(china_japan):
    lesson = explain_review(china_japan, "Chinese Tokyo Japan", kind="multinomial", alpha=1, repeats=3)
    underflow = lesson.underflow
    at = explain(china_japan.model("multinomial", 1), china_japan.bag, repeated("Chinese Tokyo Japan", 3))
    assert underflow.repeats == 3 and underflow.naive_products == tuple(c.joint for c in at.per_class)
    assert all(p > 0.0 for p in underflow.naive_products)
    assert underflow.first_zero_repeats == (122, 165)
    with pytest.raises(ValueError, match="repeats must be between 1 and 5000"):
        explain_review(china_japan, "Chinese", kind="multinomial", alpha=1, repeats=0)


# -- log space ----------------------------------------------------------------------------------------------------


def test_naive_exp_underflows_where_the_shift_does_not(china_japan):
    underflow = explain_review(china_japan, "Chinese Tokyo Japan", kind="multinomial", alpha=1).underflow
    space = underflow.log_space
    assert space.naive.exps == (0.0, 0.0) and space.naive.total == 0.0
    assert space.naive.posteriors is None and space.naive.underflowed
    assert space.shift == max(underflow.log_joints)
    assert [c.shifted for c in space.per_class] == [v - space.shift for v in underflow.log_joints]
    assert max(c.exp_shifted for c in space.per_class) == 1.0
    assert space.sum_exp_shifted == pytest.approx(math.fsum(c.exp_shifted for c in space.per_class), rel=1e-15)
    assert space.log_evidence == pytest.approx(space.shift + log(space.sum_exp_shifted), rel=1e-15)
    posteriors = [c.posterior for c in space.per_class]
    assert all(math.isfinite(p) for p in posteriors) and math.fsum(posteriors) == pytest.approx(1.0, abs=1e-15)
    assert posteriors[1] > 0.99  # not China, by about e^{−(china − not china)}
    assert posteriors[0] == pytest.approx(math.exp(underflow.log_joints[0] - space.log_evidence), rel=1e-12)


def test_log_space_sums_the_trace_terms_per_class(match_reviews, china_japan):
    short = explain_review(china_japan, "Chinese Chinese Chinese Tokyo Japan", kind="multinomial", alpha=1).log_space
    for c in short.per_class:
        assert [t.word for t in c.terms] == ["chinese", "japan", "tokyo"] and c.log_absent_words is None
        assert math.fsum([c.log_prior, *(t.log_value for t in c.terms)]) == pytest.approx(c.log_joint, rel=1e-12)
    # A short review needs no shift: the naive posteriors are the shifted ones.
    assert not short.naive.underflowed
    assert list(short.naive.posteriors) == pytest.approx([c.posterior for c in short.per_class], rel=1e-12)

    bernoulli = explain_review(match_reviews, "match was sharp").log_space
    positive, negative = bernoulli.per_class[1], bernoulli.per_class[0]
    assert len(positive.terms) == len(match_reviews.vocabulary)  # a small vocabulary lists absent words too
    assert math.fsum([positive.log_prior, *(t.log_value for t in positive.terms)]) == pytest.approx(positive.log_joint)
    assert negative.log_joint == -math.inf and negative.exp_shifted == 0.0 and positive.exp_shifted == 1.0
    assert bernoulli.naive.posteriors == (0.0, 1.0)


# -- JSON --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "corpus, text, options",
    [
        ("match-reviews", "not sharp match", {}),
        ("match-reviews", "match was sharp", {"epsilon": SEED_EPSILON}),
        ("china-japan", "Chinese Tokyo Japan", {"kind": "multinomial", "alpha": 1}),
        ("china-japan", "", {"kind": "multinomial", "alpha": "0.5"}),
    ],
)
def test_lesson_to_dict_is_strict_json(corpus, text, options):
    lesson = explain_review(TrainingSet.build(load_example_corpus(corpus)), text, **options)
    data = lesson.to_dict()
    assert json.loads(json.dumps(data, allow_nan=False)) == data
    assert all(math.isfinite(x) for x in all_numbers(data))


def test_lesson_to_dict_writes_infinities_as_strings(match_reviews):
    data = explain_review(match_reviews, "match was sharp").to_dict()
    absent = data["contributions"]["entries"][0]
    assert (absent["kind"], absent["log_ratio"], absent["runner_up_log"]) == ("absent", "inf", "-inf")
    assert data["contributions"]["total"] == "inf"
    assert data["culprits"][0]["unsmoothed"]["log"] == "-inf" and data["culprits"][0]["smoothed"]["exact"] == "1/4"
    assert data["log_space"]["per_class"][0]["log_joint"] == "-inf"
    assert data["underflow"]["repeats"] is None and data["underflow"]["float_limits"]["smallest_subnormal"] == 5e-324


# -- 20 Newsgroups --------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def newsgroups(shared_corpora):
    return TrainingSet.build(read_corpus(shared_corpora / "20newsgroups-bydate" / "train.jsonl.gz"))


def count_explained(monkeypatch) -> list[str]:
    """The texts the lesson explains (a trace each), in order."""
    explained = []

    def explaining(model, bag, text):
        explained.append(text)
        return explain(model, bag, text)

    monkeypatch.setattr(lesson_module, "explain", explaining)
    return explained


@pytest.mark.corpora
def test_newsgroups_repeat_count_is_found_in_few_steps(newsgroups, monkeypatch):
    """Found from two traces, without a trace per repeat count, and each class's search starts at the guess from
    its logs: a few products per class instead of the 8 or so of a search from 1."""
    text = "OpenGL on the GPU is fast"
    model = newsgroups.model("multinomial", 1)
    trace = explain(model, newsgroups.bag, text)
    explained = count_explained(monkeypatch)
    products = []
    of_class = RepeatedProducts.of_class

    def product(self, k, repeats):
        products.append((k, repeats))
        return of_class(self, k, repeats)

    monkeypatch.setattr(RepeatedProducts, "of_class", product)
    underflow = find_underflow(model, newsgroups.bag, text, trace=trace)
    assert explained == [repeated(text, 2), repeated(text, underflow.repeats)]
    assert len(products) <= 4 * 20
    assert len(underflow.first_zero_repeats) == 20
    assert_minimal_underflow(model, newsgroups.bag, text, underflow)
    assert underflow.trace.decision == "comp.graphics"
    assert underflow.log_space.naive.underflowed


@pytest.mark.parametrize("threshold", [1, 2, 3, 7, 64, 65, 999, REPEAT_CAP, None])
def test_first_true_finds_the_same_count_from_any_hint(threshold):
    """The search for the first repeat count that underflows starts from a guess; the guess changes only the
    steps, never the answer, and every step stays within 1..cap."""
    for hint in (None, 0, 1, 2, 5, 63, 64, 65, 66, 1000, REPEAT_CAP - 1, REPEAT_CAP, REPEAT_CAP + 1):
        found, asked = _search_first_true(threshold, hint)
        assert found == threshold, hint
        assert all(1 <= r <= REPEAT_CAP for r in asked)


def _search_first_true(threshold: int | None, hint: int | None) -> tuple[int | None, list[int]]:
    """What _first_true finds when counts from ``threshold`` on underflow, and every count it asked about."""
    asked = []

    def reaches(r: int) -> bool:
        asked.append(r)
        return threshold is not None and r >= threshold

    return _first_true(reaches, REPEAT_CAP, hint=hint), asked


@pytest.mark.corpora
@pytest.mark.parametrize("text", ["OpenGL on the GPU is fast", "the graphics card renders OpenGL fast",
                                  "God and the church in the bible"])
def test_newsgroups_first_zeros_are_guessed_from_the_logs(newsgroups, text):
    """Each class's first zero, searched from where its log says the product leaves float64, is the one a search
    from 1 finds; the guess is off by at most a couple of copies (rounding in the subnormal range)."""
    model = newsgroups.model("multinomial", 1)
    products = RepeatedProducts.of_review(model, newsgroups.bag, text)
    for k in range(len(model.classes)):
        reaches = lambda r, k=k: products.of_class(k, r) == 0.0  # noqa: E731
        plain = _first_true(reaches, REPEAT_CAP)
        guess = products.estimated_first_zero(k)
        assert plain is not None and guess is not None and abs(guess - plain) <= 2, (k, guess, plain)
        assert _first_true(reaches, REPEAT_CAP, hint=guess) == plain


@pytest.mark.corpora
def test_newsgroups_lesson(newsgroups, monkeypatch):
    text = "OpenGL on the GPU is fast"
    explained = count_explained(monkeypatch)
    fitted = []
    fit = training_module.fit_naive_bayes

    def fitting(statistics, kind, alpha, **options):
        fitted.append(alpha)
        return fit(statistics, kind, alpha, **options)

    monkeypatch.setattr(training_module, "fit_naive_bayes", fitting)
    lesson = explain_review(newsgroups, text, kind="multinomial", alpha=0)
    # At α = 0 some word of the review is unseen in every class: every class is impossible.
    assert lesson.unsmoothed_cannot_decide and all(z.zeroed for z in lesson.zero_summary)
    assert lesson.underflow.repeats is None and lesson.underflow.first_zero_repeats == (1,) * 20
    chart = lesson.contributions
    assert chart.from_smoothed and chart.decided == lesson.smoothed.decision == "comp.graphics"
    assert chart.total == pytest.approx(chart.log_joint_difference, rel=1e-9)
    # What it cost: at most the two models shown (α = 0, and α = 1 to smooth), a trace of the review for each,
    # and the underflow search's two (two copies, then the count it settled on).
    assert len(fitted) <= 2 and set(fitted) <= {0, 1}
    assert len(explained) <= 4 and set(explained) == {text, repeated(text, 2)}
    # Bernoulli: repetition never changes a presence vector, so no count underflows.
    bernoulli = find_underflow(newsgroups.model("bernoulli", 1), newsgroups.bag, "OpenGL on the GPU is fast")
    assert bernoulli.repeats is None and set(bernoulli.first_zero_repeats) == {None}


# -- the factors worth showing on a slide (presenter mode) ------------------------------------------------------------


def slide_product_is_the_joint(trace, slide) -> None:
    """Nothing is lost: per class, the prior, the rows' factors, the review's other words, the other absent words
    and the absent words' product multiply to the whole product (exactly where the trace has fractions)."""
    for k, c in enumerate(trace.per_class):
        product = c.prior_exact if c.prior_ratio is not None or trace.exact else c.prior
        for row in slide.rows:
            f = row.factors[k]
            product *= f.exact ** f.power if trace.exact else f.probability ** f.power
        for group in (slide.rest, slide.others):
            if group is not None:
                product *= group.products[k]
        if c.absent_words is not None:
            product *= c.absent_words.product
        if trace.exact:
            assert product == c.joint_exact
        else:
            assert product == pytest.approx(c.joint, rel=1e-12)


def test_match_was_sharp_slide_shows_the_words_and_the_zero_and_one_row_for_the_other_absent_words(match_reviews):
    """Bernoulli α = 0 lists a factor for each of the 8 words; a slide shows the review's 3 words and the zero
    (1 − ψ of "not" in negative) in a row per word, a column per class, and the other 4 absent words in one row."""
    from webnb.engine.text.trace import FactorSlide, factor_slide

    trace = explain_review(match_reviews, "match was sharp", kind="bernoulli", alpha="0").trace
    slide = trace.factor_slide
    assert trace.classes == ("negative", "positive")
    assert [(r.word, r.present, r.has_zero) for r in slide.rows] == [
        ("match", True, False), ("not", False, True), ("sharp", True, False), ("was", True, False)]
    assert [[f.exact for f in r.factors] for r in slide.rows] == [
        [1, Fraction(2, 3)], [0, 1], [Fraction(1, 2), Fraction(1, 3)], [1, Fraction(2, 3)]]
    assert slide.rest is None
    assert slide.others.words == ("and", "brilliant", "composed", "keeper")
    # negative: 1 · 1 · 1/2 · 1; positive: (1 − 1/3)(1 − 1/3)(1 − 2/3)(1 − 1/3) = 8/81
    assert slide.others.products == (Fraction(1, 2), Fraction(8, 81))
    slide_product_is_the_joint(trace, slide)
    assert isinstance(slide, FactorSlide) and slide == factor_slide(trace.per_class)
    # The twin of the lesson is unchanged by it: the slide is read by presenter mode, not part of the plain data.
    assert "factor_slide" not in json.dumps(trace.to_dict()) and "others" not in json.dumps(trace.to_dict())


def test_a_long_review_shows_its_first_words_and_one_row_for_the_rest(china_japan):
    """A slide has room for so many rows: the review's words beyond them become one row with their product per
    class."""
    from webnb.engine.text.trace import factor_slide

    review = "Chinese Beijing Shanghai Macao Tokyo Japan Chinese"
    trace = explain_review(china_japan, review, kind="multinomial", alpha="1").trace
    slide = factor_slide(trace.per_class, rows=4)
    assert [r.word for r in slide.rows] == ["beijing", "chinese", "japan"]
    assert [r.factors[0].power for r in slide.rows] == [1, 2, 1]
    assert slide.rest.words == ("macao", "shanghai", "tokyo") and slide.others is None
    # China: θ_macao = θ_shanghai = (1 + 1)/(8 + 6), θ_tokyo = 1/14; not China: (0 + 1)/(3 + 6) each, θ_tokyo 2/9.
    assert slide.rest.products == (Fraction(2, 14) ** 2 * Fraction(1, 14), Fraction(1, 9) ** 2 * Fraction(2, 9))
    slide_product_is_the_joint(trace, slide)
    assert trace.factor_slide.rest is None  # 6 words fit the slide's 8 rows


def test_a_slide_keeps_every_zero_even_past_its_rows(match_reviews):
    from webnb.engine.text.trace import factor_slide

    trace = explain_review(match_reviews, "not sharp match", kind="bernoulli", alpha="0").trace
    slide = factor_slide(trace.per_class, rows=1)
    assert [r.word for r in slide.rows] == ["not", "was"]  # zero in positive, zero in negative
    assert all(r.has_zero for r in slide.rows)
    assert slide.rest.words == ("match", "sharp")
    slide_product_is_the_joint(trace, slide)


def test_under_the_floor_the_floored_factor_keeps_its_row(match_reviews):
    """Under the ε-floor nothing is 0, but the factor the floor made is what the slide is about."""
    floored = explain_review(match_reviews, "match was sharp", kind="bernoulli", alpha=0, epsilon=SEED_EPSILON).trace
    slide = floored.factor_slide
    assert [r.word for r in slide.rows] == ["match", "not", "sharp", "was"]
    assert slide.rows[1].factors[0].probability == floored_not(floored)
    assert slide.others.words == ("and", "brilliant", "composed", "keeper")
    slide_product_is_the_joint(floored, slide)


@pytest.mark.slow  # about 1 s
def test_a_large_vocabulary_slide_has_the_absent_words_product(shared_corpora):
    """Bernoulli on 20 Newsgroups lists the review's words, and its 996 absent words as one product per class, 0 at
    α = 0 in every class (a header word such as "from" is in every post)."""
    from webnb.engine import TrainingSet, VocabularyOptions
    from webnb.engine.io.readers import read_corpus_bytes

    data = (shared_corpora / "20newsgroups-bydate" / "train.jsonl.gz").read_bytes()
    corpus = read_corpus_bytes(data, filename="train.jsonl.gz")
    four = corpus.subset([i for i, label in enumerate(corpus.labels) if label in NEWSGROUPS_4])
    training = TrainingSet.build(four, vocabulary=VocabularyOptions(max_features=1000, binary=True))
    trace = explain_review(training, "OpenGL on the GPU is fast", kind="bernoulli", alpha="0").trace
    slide = trace.factor_slide
    assert [r.word for r in slide.rows] == ["fast", "is", "on", "the"]
    assert slide.others is None and slide.rest is None
    assert [c.absent_words.count for c in trace.per_class] == [996] * 4
    assert [c.absent_words.product for c in trace.per_class] == [0.0] * 4
    slide_product_is_the_joint(trace, slide)


def floored_not(trace) -> float:
    (factor,) = [f for f in by_class(trace)["negative"].factors if f.word == "not"]
    assert 0 < factor.probability < 1e-13
    return factor.probability


def test_bernoulli_contributions_name_the_absent_words_that_weigh_most(match_reviews):
    """The "all absent words" bar told apart: the three absent words whose factors differ most between the two
    classes, by name (the zero factor first), then the other absent words, adding up to the same log ratio."""
    chart = explain_review(match_reviews, "match was sharp").contributions
    named = [(e.kind, e.word, e.count) for e in chart.absent_named]
    assert named == [("absent-word", "not", 1), ("absent-word", "and", 1), ("absent-word", "brilliant", 1),
                     ("absent", None, 2)]
    assert chart.absent_named[0].log_ratio == math.inf and chart.absent_named[0].favours == "positive"
    # 1 − ψ(and | positive) = 2/3 against 1 − ψ(and | negative) = 2/2.
    assert chart.absent_named[1].log_ratio == pytest.approx(log(2 / 3) - log(1), rel=1e-12)
    whole = next(e for e in chart.entries if e.kind == "absent")
    assert math.fsum(e.decided_log for e in chart.absent_named) == pytest.approx(whole.decided_log, rel=1e-12)
    multinomial = explain_review(match_reviews, "match was sharp", kind="multinomial", alpha=1).contributions
    assert multinomial.absent_named == ()


def brute_force_absent_named(model, review_words: set[int], k: int, other: int) -> list[tuple]:
    """Every absent word's two factors read from the model's dense parameters, ranked as the chart ranks them."""
    logs = model.absent_log_prob_row(k), model.absent_log_prob_row(other)
    absent = [j for j in range(model.statistics.n_words) if j not in review_words]

    def weight(j):
        a, b = logs[0][j], logs[1][j]
        return -1.0 if a == b == -math.inf else abs(a - b)

    ranked = sorted(absent, key=lambda j: -weight(j))  # stable: ties by word index
    named, rest = ranked[:3], ranked[3:]
    return ([(model.vocabulary[j], float(logs[0][j]), float(logs[1][j])) for j in named],
            (len(rest), math.fsum(logs[0][j] for j in rest), math.fsum(logs[1][j] for j in rest)))


@pytest.mark.parametrize("ranked_kept", [64, 4])  # 4: a review holding the ranked words is ranked afresh
@pytest.mark.parametrize("text", ["match was sharp", "not sharp match", "the keeper was brilliant and not fast",
                                  "unknownword"])
@pytest.mark.parametrize("alpha", ["0", "1", "0.5"])
def test_the_named_absent_words_are_those_a_full_ranking_names(match_reviews, monkeypatch, ranked_kept, text, alpha):
    """The model ranks each pair of classes once and a review leaves out its own words (see absent_ranking): the
    same words, factors and remainder as ranking every absent word of the vocabulary for this review."""
    from webnb.engine.text.models import BernoulliNaiveBayes

    monkeypatch.setattr(BernoulliNaiveBayes, "ABSENT_RANKED", ranked_kept)
    explanation = explain_review(match_reviews, text, alpha=alpha)
    chart = explanation.contributions
    # A review that α cannot decide is charted with the smoothed model, as the page does.
    trace = explanation.smoothed if chart.from_smoothed else explanation.trace
    model = (explanation.variants.model(explanation.smoothing_alpha, None) if chart.from_smoothed
             else explanation.variants.model(explanation.alpha, explanation.user_epsilon))
    model.__dict__.pop("_absent_rankings", None)  # ranked again under this test's ABSENT_RANKED
    k, other = model.classes.index(chart.decided), model.classes.index(chart.runner_up)
    named, (count, decided_rest, runner_up_rest) = brute_force_absent_named(
        model, {f.index for f in trace.features}, k, other)
    entries = lesson_module._absent_named(model, trace, chart.decided, chart.runner_up)
    assert entries == chart.absent_named
    assert [(e.word, e.decided_log, e.runner_up_log) for e in entries[:3]] == named
    if not count:  # every absent word is named: no bar for the others
        assert len(entries) == len(named)
        return
    rest = entries[3]
    assert rest.count == count
    assert rest.decided_log == pytest.approx(decided_rest, rel=1e-12, abs=1e-12)
    assert rest.runner_up_log == pytest.approx(runner_up_rest, rel=1e-12, abs=1e-12)
