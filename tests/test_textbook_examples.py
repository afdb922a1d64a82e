"""The textbooks' own worked examples, reproduced exactly by the engine: IIR's Example 13.2 (the Bernoulli model on
the China / not China documents, the built-in example, which decides the opposite of the multinomial) and the
sentiment example of Jurafsky & Martin's Speech and Language Processing (3rd ed., ch. 4)."""
from __future__ import annotations

from fractions import Fraction

import pytest
from test_seed_lessons import lesson_links

from webnb.engine import Corpus, TrainingSet, explain
from webnb.lesson.seed_lessons import TEXTBOOK_LESSONS

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


# -- one click each from the home page: the same fractions on the pages and in their JSON twins -----------------------


def textbook_links(client) -> dict[str, str]:
    """Textbook lesson id → the address its home-page link opens."""
    return lesson_links(client, ".textbook-lessons")


def twin_of(client, href: str, **extra) -> dict:
    from urllib.parse import urlencode

    response = client.get(f"{href}&{urlencode({'format': 'json', **extra})}")
    assert response.status_code == 200
    return response.get_json()


def exact_joints(trace: dict) -> dict[str, str]:
    return {entry["class"]: entry["joint_exact"] for entry in trace["per_class"]}


def test_the_home_page_links_each_textbook_example_with_its_source(client):
    links = textbook_links(client)
    assert list(links) == [lesson.id for lesson in TEXTBOOK_LESSONS]
    listed = client.get("/?format=json").get_json()["textbook_lessons"]
    assert [(entry["id"], entry["href"]) for entry in listed] == list(links.items())
    assert listed[0]["book"].endswith("Introduction to Information Retrieval (2008), Example 13.2")
    assert all("Speech and Language Processing" in entry["book"] for entry in listed[1:])
    # what each summary states is what its page computes (the fractions, below, are the page's own)
    for lesson in TEXTBOOK_LESSONS:
        trace = twin_of(client, links[lesson.id])["trace"]
        for fraction in exact_joints(trace).values():
            if fraction != "0":
                assert fraction in lesson.summary, (lesson.id, fraction)


def test_iir_example_13_2_one_click_gives_the_books_fractions_and_not_china(client):
    trace = twin_of(client, textbook_links(client)["iir-13-2"])["trace"]
    assert trace["model"]["model"] == "bernoulli" and trace["model"]["alpha"] == 1
    assert exact_joints(trace) == {"China": "81/15625", "not China": "16/729"}
    assert trace["decision"] == "not China"
    china = trace["per_class"][0]
    # the book's factors: 4/5 (Chinese), 1/5 (Japan), 1/5 (Tokyo), then 1 − 2/5 for each absent city
    factors = {(f["word"], f["present"]): f["exact"] for f in china["factors"]}
    assert factors == {("chinese", True): "4/5", ("japan", True): "1/5", ("tokyo", True): "1/5",
                       ("beijing", False): "3/5", ("macao", False): "3/5", ("shanghai", False): "3/5"}
    # and the multinomial model, one setting away, says China: the flip
    multinomial = twin_of(client, textbook_links(client)["iir-13-2"], model="multinomial")["trace"]
    assert multinomial["decision"] == "China"


def test_slp3_one_click_is_a_built_in_corpus_with_the_books_numbers(client):
    links = textbook_links(client)
    page = twin_of(client, links["slp3-sentiment"])
    trace = page["trace"]
    assert trace["unseen"] == ["with"]
    assert exact_joints(trace) == {"negative": "3/49130", "positive": "4/121945"}
    assert trace["decision"] == "negative"
    binary = twin_of(client, links["slp3-binary"])["trace"]
    assert exact_joints(binary) == {"negative": "3/49130", "positive": "1/27440"} and binary["decision"] == "negative"
    unsmoothed = twin_of(client, links["slp3-no-smoothing"])
    assert exact_joints(unsmoothed["trace"]) == {"negative": "0", "positive": "0"}
    assert unsmoothed["trace"]["cannot_decide"] and unsmoothed["trace"]["decision"] is None
    # the corpus is built in: on the home page of a fresh database, with its five sentences, nothing published
    examples = {entry["id"]: entry for entry in client.get("/?format=json").get_json()["examples"]}
    film = examples["film-sentiment"]
    assert [(d["label"], d["text"]) for d in film["documents"]] == list(SLP3_SENTENCES)
    assert film["sample_review"] == SLP3_REVIEW
