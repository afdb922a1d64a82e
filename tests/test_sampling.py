"""The sample page's story (``engine.text.sampling``): every number checked against fractions counted by hand from
the match reviews (seed 002) and China / not China (seed 001), not against the engine that produced them."""
from __future__ import annotations

import json
import math
from fractions import Fraction as F

import pytest

from webnb.engine import Corpus, TrainingSet
from webnb.engine.records.insights import sample_document
from webnb.engine.records.sampling import sample_story
from webnb.examples import load_example_corpus

# Match reviews: documents of each class containing each word (no word repeats within a review).
MATCH_DOCUMENTS = {
    "positive": {"and": 1, "brilliant": 1, "composed": 2, "keeper": 1, "match": 2, "not": 0, "sharp": 1, "was": 2},
    "negative": {"and": 0, "brilliant": 0, "composed": 1, "keeper": 0, "match": 2, "not": 2, "sharp": 1, "was": 2},
}
MATCH_CLASS_SIZES = {"positive": 3, "negative": 2}
# China / not China: word counts per class, 8 and 3 tokens, 6 words.
CHINA_COUNTS = {
    "China": {"chinese": 5, "beijing": 1, "shanghai": 1, "macao": 1, "tokyo": 0, "japan": 0},
    "not China": {"chinese": 1, "beijing": 0, "shanghai": 0, "macao": 0, "tokyo": 1, "japan": 1},
}
CHINA_TOKENS = {"China": 8, "not China": 3}


def psi(label: str, word: str, alpha: int = 1) -> F:
    return F(MATCH_DOCUMENTS[label][word] + alpha, MATCH_CLASS_SIZES[label] + 2 * alpha)


def theta(label: str, word: str, alpha: int = 1) -> F:
    return F(CHINA_COUNTS[label][word] + alpha, CHINA_TOKENS[label] + 6 * alpha)


def bernoulli_likelihood(label: str, present: set[str]) -> F:
    likelihood = F(1)
    for word in MATCH_DOCUMENTS[label]:
        likelihood *= psi(label, word) if word in present else 1 - psi(label, word)
    return likelihood


def test_a_bernoulli_story_by_hand(match_reviews):
    model = match_reviews.model("bernoulli", 1)
    story = sample_story(match_reviews, model, draw=4, label="positive")
    words = [w.word for w in story.words]
    assert story.label == "positive" and story.draw == 4 and story.class_drawn is False
    assert tuple(words) == sample_document(model, seed=4, label="positive").words
    assert words == sorted(words), "a Bernoulli document lists its words in vocabulary order"
    for word in story.words:
        assert F(*word.ratio) == psi("positive", word.word) and word.probability == float(psi("positive", word.word))
    # Every vocabulary word's coin, heads for the words drawn.
    assert [(c.word, c.present) for c in story.coins] == [(w, w in words) for w in sorted(MATCH_DOCUMENTS["positive"])]
    assert all(F(*c.ratio) == psi("positive", c.word) for c in story.coins)
    # Σ ψ = (2 + 2 + 3 + 2 + 3 + 1 + 2 + 3) / 5
    assert story.expected_present == pytest.approx(18 / 5, rel=1e-15)
    assert story.mean_length is None
    # log P(document | positive) counts the absent words too.
    likelihood = {label: bernoulli_likelihood(label, set(words)) for label in MATCH_DOCUMENTS}
    assert story.log_probability == pytest.approx(math.log(likelihood["positive"]), rel=1e-13)
    assert story.unseen == ("not" in words)  # "not" is the one word no positive review has
    # Read back with Bayes' rule: priors 3/5 and 2/5.
    joint = {"positive": F(3, 5) * likelihood["positive"], "negative": F(2, 5) * likelihood["negative"]}
    total = sum(joint.values())
    for row in story.read_back:
        assert row.posterior == pytest.approx(float(joint[row.label] / total), rel=1e-12)
        assert row.others == pytest.approx(float(1 - joint[row.label] / total), rel=1e-12, abs=1e-15)
    assert story.read_as == max(joint, key=joint.get)
    assert story.read_back_shown == story.read_back and story.read_back_hidden == 0
    assert [(p.label, p.exact, p.ratio, p.drawn) for p in story.priors] == [
        ("negative", F(2, 5), (2, 5), False), ("positive", F(3, 5), (3, 5), True)]


def test_a_multinomial_story_with_a_length_by_hand(china_japan):
    model = china_japan.model("multinomial", 1)
    story = sample_story(china_japan, model, draw=5, label="China", length=7)
    assert len(story.words) == 7 and story.coins is None and story.expected_present is None
    assert story.mean_length == 3  # 8 tokens in 3 documents
    for word in story.words:
        assert F(*word.ratio) == theta("China", word.word)
    # The words in their order: the sum of their log θ.
    expected = sum(math.log(theta("China", w.word)) for w in story.words)
    assert story.log_probability == pytest.approx(expected, rel=1e-13)
    assert story.unseen == sum(1 for w in story.words if CHINA_COUNTS["China"][w.word] == 0)
    joint = {"China": F(3, 4), "not China": F(1, 4)}
    for label in joint:
        for word in story.words:
            joint[label] *= theta(label, word.word)
    total = sum(joint.values())
    assert [row.posterior for row in story.read_back] == pytest.approx(
        [float(joint[label] / total) for label in ("China", "not China")], rel=1e-12)
    # Without a length, the class's mean.
    assert len(sample_story(china_japan, model, draw=5, label="China").words) == 3


def test_the_class_is_drawn_from_the_prior_when_not_given(china_japan):
    model = china_japan.model("multinomial", 1)
    stories = [sample_story(china_japan, model, draw=draw) for draw in range(40)]
    assert all(story.class_drawn for story in stories)
    assert {story.label for story in stories} == {"China", "not China"}
    for story in stories:
        assert story.label == sample_document(model, seed=story.draw).label
        assert [p.label for p in story.priors if p.drawn] == [story.label]


def test_real_documents_are_of_the_class_and_fixed_by_the_draw(match_reviews):
    corpus = load_example_corpus("match-reviews")
    label_of = dict(zip(corpus.ids, corpus.labels, strict=True))
    text_of = dict(zip(corpus.ids, corpus.texts, strict=True))
    model = match_reviews.model("bernoulli", 1)
    for draw in range(6):
        real = sample_story(match_reviews, model, draw=draw, label="negative").real
        assert len(real) == 2 and len({r.id for r in real}) == 2  # the class has only two documents
        assert all(label_of[r.id] == "negative" and text_of[r.id] == r.text for r in real)
        assert real == sample_story(match_reviews, model, draw=draw, label="negative").real
        positive = sample_story(match_reviews, model, draw=draw, label="positive", real_documents=2).real
        assert len(positive) == 2 and {label_of[r.id] for r in positive} == {"positive"}


def test_with_many_classes_the_most_probable_and_the_own_class_are_shown():
    # Eight classes of two documents "ownC shared": θ of a class's own word and of "shared" is (2 + 1)/(4 + 9),
    # of any other word 1/13. The read-back shows the five most probable classes (ties: the first class first)
    # and the sample's own class, in class order.
    corpus = Corpus.from_pairs([(f"c{i}", f"own{i} shared") for i in range(8) for _ in range(2)])
    training = TrainingSet.build(corpus)
    story = sample_story(training, training.model("multinomial", 1), draw=1, label="c7", length=2, read_back_rows=5)
    joint = []
    for c in range(8):
        product = F(1, 8)
        for word in story.words:
            product *= F(3, 13) if word.word in (f"own{c}", "shared") else F(1, 13)
        joint.append(product)
    assert [row.posterior for row in story.read_back] == pytest.approx([float(j / sum(joint)) for j in joint])
    most_probable = sorted(range(8), key=lambda c: (-joint[c], c))[:5]
    expected = sorted(set(most_probable) | {7})
    assert [row.label for row in story.read_back_shown] == [f"c{c}" for c in expected]
    assert story.read_back_hidden == 8 - len(expected) >= 2


def test_a_small_vocabulary_only_lists_every_coin(match_reviews):
    model = match_reviews.model("bernoulli", 1)
    assert sample_story(match_reviews, model, draw=0, coins_up_to=7).coins is None  # 8 words
    assert len(sample_story(match_reviews, model, draw=0, coins_up_to=8).coins) == 8


def test_a_floor_has_no_exact_ratios(match_reviews):
    model = match_reviews.model("bernoulli", 0, epsilon=1e-14)
    story = sample_story(match_reviews, model, draw=2, label="positive")
    assert all(w.ratio is None for w in story.words) and all(c.ratio is None for c in story.coins)
    assert all(w.to_dict()["ratio"] is None for w in story.words)


def test_an_empty_bernoulli_sample_counts_its_absent_words():
    # α = 0: ψ_apple,a = ψ_pear,a = 1/2 and ψ_plum,a = 0, so a document of class a can come out empty, with
    # log P = log(1 − 1/2) + log(1 − 1/2) + log(1 − 0). Class b always has "plum", so the empty document is a's.
    corpus = Corpus.from_pairs([("a", "apple"), ("a", "pear"), ("b", "plum"), ("b", "plum")])
    training = TrainingSet.build(corpus)
    model = training.model("bernoulli", 0)
    empty = next(s for s in (sample_story(training, model, draw=d, label="a") for d in range(50)) if not s.words)
    assert empty.log_probability == pytest.approx(2 * math.log(0.5), rel=1e-15)
    assert empty.text == "" and empty.unseen == 0
    assert empty.read_as == "a" and [row.posterior for row in empty.read_back] == [1.0, 0.0]


def test_plain_data(match_reviews):
    model = match_reviews.model("multinomial", 0)
    story = sample_story(match_reviews, model, draw=3, label="positive", length=4)
    data = story.to_dict()
    json.dumps(data, allow_nan=False)
    assert set(data) == {
        "model", "draw", "class_drawn", "class", "priors", "length", "mean_length", "unseen_in_class", "words",
        "text", "log_probability", "read_back", "read_as", "real_documents",
    }
    assert data["model"] == model.to_dict() and data["draw"] == 3 and data["class"] == "positive"
    assert data["class_drawn"] is False and data["length"] == 4 and data["mean_length"] == 3  # 10 tokens, 3 reviews
    assert data["priors"] == [
        {"class": "negative", "value": 0.4, "exact": "2/5", "drawn": False},
        {"class": "positive", "value": 0.6, "exact": "3/5", "drawn": True},
    ]
    # α = 0: "not" is impossible in positive, so it is never drawn; every drawn word has a ratio c/10.
    for word in data["words"]:
        numerator, denominator = map(int, word["ratio"].split("/"))
        assert denominator == 10 and numerator > 0 and word["probability"] == numerator / 10
    assert data["text"] == " ".join(w["word"] for w in data["words"])
    assert data["unseen_in_class"] == 0
    assert [r["class"] for r in data["read_back"]] == ["negative", "positive"]
    assert all(set(r) == {"id", "text"} for r in data["real_documents"]) and len(data["real_documents"]) == 3
    assert sum(r["posterior"] for r in data["read_back"]) == pytest.approx(1.0, rel=1e-14)
