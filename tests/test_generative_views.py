"""The generative pages: a document sampled from the model, and the overconfidence of repeated evidence.

Values are checked against fractions counted by hand from the two worked examples (seed 002's match reviews,
seed 001's China / not China), not against the engine that produced them."""
from __future__ import annotations

import math
from fractions import Fraction as F
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest
from bs4 import BeautifulSoup
from conftest import slow_but_the_first, soup_of

from webnb.engine import Corpus, evaluate
from webnb.engine.evaluation.heldout import hold_out
from webnb.examples import load_example_corpus

# -- counts by hand --------------------------------------------------------------------------------------------------
#
# Match reviews (seed 002): positive = "keeper was sharp and composed", "match was composed", "brilliant match";
# negative = "match was not sharp", "match was not composed". No word repeats within a review, so the number of
# documents containing a word is also its number of occurrences.
MATCH_COUNTS = {
    "positive": {"keeper": 1, "was": 2, "sharp": 1, "and": 1, "composed": 2, "match": 2, "brilliant": 1, "not": 0},
    "negative": {"keeper": 0, "was": 2, "sharp": 1, "and": 0, "composed": 1, "match": 2, "brilliant": 0, "not": 2},
}
MATCH_DOCUMENTS = {"positive": 3, "negative": 2}
MATCH_TOKENS = {"positive": 10, "negative": 8}
MATCH_VOCABULARY = 8
# China / not China (seed 001): China = "Chinese Beijing Chinese", "Chinese Chinese Shanghai", "Chinese Macao";
# not China = "Tokyo Japan Chinese". Vocabulary of 6 words (lowercased).
CHINA_COUNTS = {
    "China": {"chinese": 5, "beijing": 1, "shanghai": 1, "macao": 1, "tokyo": 0, "japan": 0},
    "not China": {"chinese": 1, "beijing": 0, "shanghai": 0, "macao": 0, "tokyo": 1, "japan": 1},
}
CHINA_TOKENS = {"China": 8, "not China": 3}

HOSTILE = '<script>alert(1)</script>" onmouseover="x'


def theta(counts, tokens, label, word, alpha, vocabulary):
    return F(counts[label][word] + alpha, tokens[label] + vocabulary * alpha)


def psi(label, word, alpha):
    return F(MATCH_COUNTS[label][word] + alpha, MATCH_DOCUMENTS[label] + 2 * alpha)


def alerts(soup) -> str:
    return " ".join(element.get_text(" ", strip=True) for element in soup.select('[role="alert"]'))


def log10_of(value: F) -> float:
    """log₁₀ of an exact fraction, however small (a float would underflow)."""
    return math.log10(value.numerator) - math.log10(value.denominator)


# -- pages and fragments ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("corpus_id", ["match-reviews"] + [  # both pages of one corpus in the fast run
    pytest.param(name, marks=pytest.mark.slow) for name in ("china-japan", "folgers-students", "spam-ham")])
@pytest.mark.parametrize("page, block", [("sample", "sample"), ("confidence", "confidence")])
def test_full_page_and_fragment(client, corpus_id, page, block):
    url = f"/corpora/{corpus_id}/{page}"
    full = soup_of(client.get(url))
    assert full.find("html") is not None and full.find("section", id=block) is not None
    fragment = client.get(url, headers={"HX-Request": "true"})
    assert "HX-Request" in fragment.headers["Vary"]
    part = soup_of(fragment)
    assert part.find("html") is None and part.find("header") is None
    top = [element for element in part.contents if getattr(element, "name", None)]
    assert [(element.name, element.get("id")) for element in top] == [("section", block)]


def test_unknown_corpus_is_404(client):
    assert client.get("/corpora/nothing-here/sample").status_code == 404
    assert client.get("/corpora/nothing-here/confidence").status_code == 404


# -- 1. sampling -----------------------------------------------------------------------------------------------------


def test_bernoulli_sample_shows_the_drawn_class_and_each_words_psi(client):
    # match-reviews starts as Bernoulli with α = 0.
    data = client.get("/corpora/match-reviews/sample?draw=0&format=json").get_json()
    assert data["model"]["model"] == "bernoulli" and data["draw"] == 0 and data["class_drawn"] is True
    assert {p["class"]: p["exact"] for p in data["priors"]} == {"negative": "2/5", "positive": "3/5"}
    label = data["class"]
    assert [p["class"] for p in data["priors"] if p["drawn"]] == [label]
    assert data["length"] is None and data["parameter"] == "ψ"
    assert data["words"], "a Bernoulli positive or negative document of this corpus always has some word"
    for word in data["words"]:
        expected = psi(label, word["word"], 0)
        assert word["probability"] == pytest.approx(float(expected), abs=1e-15)
        assert F(*map(int, word["ratio"].split("/"))) == expected and expected > 0
    assert data["text"] == " ".join(w["word"] for w in data["words"])
    # Words are listed in vocabulary (alphabetical) order.
    assert [w["word"] for w in data["words"]] == sorted(w["word"] for w in data["words"])

    soup = soup_of(client.get("/corpora/match-reviews/sample?draw=0"))
    assert soup.find(id="sample-text").get_text(strip=True) == data["text"]
    shown = [
        (li.find(class_="token").get_text(), li.find(class_="num").get_text(" ", strip=True))
        for li in soup.select("ol.drawn-words > li")
    ]
    assert [word for word, _ in shown] == [w["word"] for w in data["words"]]
    for (_, number), word in zip(shown, data["words"], strict=True):
        assert number.startswith(word["ratio"] + " =")
    drawn_row = soup.select_one("table.priors tr.chosen th").get_text()
    assert drawn_row.startswith(label)


def test_multinomial_sample_with_a_chosen_class_and_length(client):
    url = "/corpora/china-japan/sample?model=multinomial&alpha=1&draw=5&class=China&length=7"
    data = client.get(url + "&format=json").get_json()
    assert data["class"] == "China" and data["class_drawn"] is False and data["length"] == 7
    assert len(data["words"]) == 7 and data["mean_length"] == 3  # (3 + 3 + 2) / 3 rounds to 3
    for word in data["words"]:
        expected = theta(CHINA_COUNTS, CHINA_TOKENS, "China", word["word"], 1, 6)
        assert F(*map(int, word["ratio"].split("/"))) == expected
        assert word["probability"] == pytest.approx(float(expected), abs=1e-15)
    # The log-probability of the words in their order is the sum of their log θ.
    expected_log = sum(math.log(theta(CHINA_COUNTS, CHINA_TOKENS, "China", w["word"], 1, 6)) for w in data["words"])
    assert data["log_probability"] == pytest.approx(expected_log, abs=1e-12)
    # The default length is the class's mean training length.
    default = client.get(
        "/corpora/china-japan/sample?model=multinomial&alpha=1&draw=5&class=China&format=json").get_json()
    assert len(default["words"]) == 3

    soup = soup_of(client.get(url))
    assert soup.find("select", id="sample-class").find("option", selected=True)["value"] == "China"
    assert soup.find("input", id="sample-length")["value"] == "7"
    assert len(soup.select("ol.drawn-words > li")) == 7


def test_read_back_posterior_equals_bayes_rule_by_hand(client):
    data = client.get("/corpora/china-japan/sample?model=multinomial&alpha=1&draw=2&format=json").get_json()
    joint = {}
    for label, prior in (("China", F(3, 4)), ("not China", F(1, 4))):
        joint[label] = prior
        for word in data["text"].split():
            joint[label] *= theta(CHINA_COUNTS, CHINA_TOKENS, label, word, 1, 6)
    total = sum(joint.values())
    for row in data["read_back"]:
        assert row["posterior"] == pytest.approx(float(joint[row["class"]] / total), rel=1e-12)
    assert data["read_as"] == max(joint, key=joint.get)


def test_same_draw_same_sample_and_other_draws_differ(client):
    base = "/corpora/spam-ham/sample?model=multinomial&alpha=1&format=json&draw="
    first, again = client.get(base + "3").get_json(), client.get(base + "3").get_json()
    assert first == again
    texts = {(d["class"], d["text"]) for d in (client.get(base + str(s)).get_json() for s in range(8))}
    assert len(texts) == 8
    # The real documents are picked with the same draw too, all of the drawn class.
    corpus = load_example_corpus("spam-ham")
    by_id = dict(zip(corpus.ids, corpus.labels, strict=True))
    assert first["real_documents"] == again["real_documents"] and len(first["real_documents"]) == 3
    assert {by_id[d["id"]] for d in first["real_documents"]} == {first["class"]}


def test_another_sample_link_moves_the_draw_and_keeps_the_class(client):
    soup = soup_of(client.get("/corpora/spam-ham/sample?draw=4&class=spam&model=multinomial&alpha=1"))
    following = soup.find("a", attrs={"data-step": "next"})
    previous = soup.find("a", attrs={"data-step": "prev"})
    assert query_of(following["href"])["draw"] == ["5"] and "class=spam" in following["href"]
    assert following["hx-get"] == following["href"]
    assert query_of(previous["href"])["draw"] == ["3"]
    data = client.get(following["href"] + "&format=json").get_json()
    assert data["draw"] == 5 and data["class"] == "spam"
    # Draw 0 has no previous one; the last possible draw has no next one.
    first = soup_of(client.get("/corpora/spam-ham/sample?draw=0"))
    assert first.find("a", attrs={"data-step": "prev"}) is None
    assert first.find("a", attrs={"data-step": "next"}) is not None
    last = soup_of(client.get(f"/corpora/spam-ham/sample?draw={2**32 - 1}"))
    assert last.find("a", attrs={"data-step": "next"}) is None
    assert last.find(id="sample-draw")["value"] == str(2**32 - 1)


def query_of(url: str) -> dict:
    return parse_qs(urlsplit(url).query)


def test_paging_through_samples_leaves_the_split_seed_alone(client):
    # The lesson's seed fixes the held-out split of the evaluation pages; a sample has its own number, the draw.
    url = "/corpora/spam-ham/sample?model=multinomial&alpha=1&test=split&test_size=0.5&seed=7&draw=2"
    for _ in range(3):  # next, next, next: the seed stays 7 everywhere while the draw counts up
        soup = soup_of(client.get(url))
        draw = int(query_of(url)["draw"][0])
        assert soup.find(id="sample-draw")["value"] == str(draw)
        for form in soup.select("#sample form"):
            seeds = [field["value"] for field in form.find_all("input", attrs={"name": "seed"})]
            assert seeds == ["7"], form.get("aria-label")
        for link in soup.select(".step-buttons a[href], .lesson-nav a[href]"):
            assert query_of(link["href"])["seed"] == ["7"], link["href"]
        assert soup.select_one("#sample-keep input[name=draw]")["value"] == str(draw)  # a model change keeps the draw
        url = soup.find("a", attrs={"data-step": "next"})["href"]
        assert query_of(url)["draw"] == [str(draw + 1)] and query_of(url)["test_size"] == ["0.5"]
    # The split seed does not change the sample, and the draw does not change the split.
    base = "/corpora/spam-ham/sample?model=multinomial&alpha=1&draw=3&format=json&seed="
    assert client.get(base + "0").get_json() == client.get(base + "99").get_json()
    evaluation = "/corpora/spam-ham/evaluation?model=multinomial&alpha=1&test=split&test_size=0.25&seed=7&format=json"
    assert client.get(evaluation + "&draw=1").get_json() == client.get(evaluation + "&draw=2").get_json()


def test_alpha_zero_never_samples_a_zero_probability_word(client):
    for kind in ("multinomial", "bernoulli"):
        for draw in range(40):
            data = client.get(f"/corpora/match-reviews/sample?model={kind}&alpha=0&draw={draw}&format=json").get_json()
            label = data["class"]
            for word in data["words"]:
                assert MATCH_COUNTS[label][word["word"]] > 0, (kind, draw, word)
                assert word["probability"] > 0
            if label == "positive":
                assert "not" not in data["text"].split()


def test_bernoulli_length_gives_a_clear_message(client):
    response = client.get("/corpora/match-reviews/sample?draw=1&length=9")
    soup = soup_of(response)
    assert "Bernoulli document has no length" in alerts(soup)
    assert soup.find(id="sample-text") is not None  # the sample is still drawn
    data = client.get("/corpora/match-reviews/sample?draw=1&length=9&format=json").get_json()
    assert any("no length" in m for m in data["messages"]) and data["length"] is None


@pytest.mark.parametrize(
    "query, message",
    slow_but_the_first(2, [
        ("class=sports", "not a class of this corpus"),
        ("model=multinomial&length=0", "length is a whole number of words"),
        ("model=multinomial&length=abc", "length is a whole number of words"),
        ("model=multinomial&length=100000", "length is a whole number of words"),
        ("model=multinomial&length=%C2%B2", "length is a whole number of words"),  # "²" passes str.isdigit
    ]),
)
def test_bad_sample_parameters_give_a_message(client, query, message):
    soup = soup_of(client.get(f"/corpora/match-reviews/sample?{query}"))
    assert message in alerts(soup)
    assert soup.find(id="sample-text") is not None
    data = client.get(f"/corpora/match-reviews/sample?{query}&format=json").get_json()
    assert data["words"] is not None


@pytest.mark.parametrize("raw", slow_but_the_first(2, ["abc", "-1", "1.5", str(2**32), "99999999999", "%C2%B2"]))
def test_a_bad_draw_is_explained_beside_its_input_and_draw_0_is_shown(client, raw):
    response = client.get(f"/corpora/match-reviews/sample?seed=3&draw={raw}")
    soup = soup_of(response)
    field = soup.find(id="sample-draw")
    assert field["value"] == "0" and field["aria-invalid"] == "true"
    error = soup.find(id=field["aria-describedby"])
    assert "draw is a whole number from 0 to 4,294,967,295" in error.get_text()
    assert error.find_parent("form") is field.find_parent("form")  # next to the input, not at the top of the page
    assert soup.find(id="sample-text") is not None
    assert soup.select_one("form.sample-options input[name=seed]")["value"] == "3"  # the split seed is untouched
    data = client.get(f"/corpora/match-reviews/sample?seed=3&draw={raw}&format=json").get_json()
    assert data["draw"] == 0 and any("draw is a whole number" in m for m in data["messages"])
    draw_zero = client.get("/corpora/match-reviews/sample?draw=0&format=json").get_json()
    assert data == {**draw_zero, "messages": data["messages"]}


def test_many_classes_read_back_the_most_probable_and_the_sample_s_own(app, client):
    # Eight classes of two documents "ownC shared": θ of a class's own word and of "shared" is (2 + 1)/(4 + 9), of
    # any other word 1/13. The table shows the five most probable classes (ties: the first first) and the sample's.
    corpus = Corpus.from_pairs([(f"c{i}", f"own{i} shared") for i in range(8) for _ in range(2)])
    corpus_id = app.extensions["webnb"]["catalog"].add(corpus, name="Eight", source="test")
    url = f"/corpora/{corpus_id}/sample?model=multinomial&alpha=1&class=c7&length=2&draw=1"
    data = client.get(url + "&format=json").get_json()
    joint = []
    for c in range(8):
        product = F(1, 8)
        for word in data["text"].split():
            product *= F(3, 13) if word in (f"own{c}", "shared") else F(1, 13)
        joint.append(product)
    assert [r["posterior"] for r in data["read_back"]] == pytest.approx([float(j / sum(joint)) for j in joint])
    shown = sorted(set(sorted(range(8), key=lambda c: (-joint[c], c))[:5]) | {7})
    soup = soup_of(client.get(url))
    rows = soup.select("table.decision tbody tr")
    assert [row.th.get_text() for row in rows] == [f"c{c}" for c in shown]
    assert [row.td.get_text() for row in rows] == [f"{float(joint[c] / sum(joint)):.4g}" for c in shown]
    hidden = soup.find("p", string=lambda text: text and "less probable" in text).get_text()
    assert hidden == f"The other {8 - len(shown)} classes are less probable."


def test_a_lesson_without_words_answers_with_its_error(app, client):
    corpus = Corpus.from_pairs([("a", "the and of"), ("b", "of the and")])
    corpus_id = app.extensions["webnb"]["catalog"].add(corpus, name="Stop words", source="test")
    for page in ("sample", "confidence"):
        url = f"/corpora/{corpus_id}/{page}?stop_words=english"
        data = client.get(url + "&format=json").get_json()
        assert list(data) == ["error"] and data["error"].startswith("No words were found")
        soup = soup_of(client.get(url))
        assert "No words were found" in soup.get_text() and soup.select("svg.chart, #sample-text") == []


# -- 2. overconfidence -----------------------------------------------------------------------------------------------


def multinomial_match_posteriors(n: int) -> dict:
    """P(class | "match was sharp" counted n times), multinomial, α = 1, by hand."""
    joint = {}
    for label, prior in (("positive", F(3, 5)), ("negative", F(2, 5))):
        likelihood = F(1)
        for word in ("match", "was", "sharp"):
            likelihood *= theta(MATCH_COUNTS, MATCH_TOKENS, label, word, 1, MATCH_VOCABULARY)
        joint[label] = prior * likelihood**n
    total = sum(joint.values())
    return {label: value / total for label, value in joint.items()}


def bernoulli_match_posteriors(text_words: set, n: int, alpha: int = 1) -> dict:
    joint = {}
    for label, prior in (("positive", F(3, 5)), ("negative", F(2, 5))):
        likelihood = F(1)
        for word in MATCH_COUNTS[label]:
            p = psi(label, word, alpha)
            likelihood *= p if word in text_words else 1 - p
        joint[label] = prior * likelihood**n
    total = sum(joint.values())
    return {label: value / total for label, value in joint.items()}


def test_multinomial_posterior_after_n_repeats_by_hand(client):
    url = "/corpora/match-reviews/confidence?model=multinomial&alpha=1&text=match+was+sharp&repeats=200"
    data = client.get(url + "&format=json").get_json()
    curve = data["overconfidence"]
    assert data["repeats"] == 200 and len(curve["points"]) == 200 and curve["classes"] == ["negative", "positive"]
    for n in (1, 2, 10, 50, 107, 108, 200):
        exact = multinomial_match_posteriors(n)
        point = curve["points"][n - 1]
        assert point["repeats"] == n
        for k, label in enumerate(curve["classes"]):
            assert point["posteriors"][k] == pytest.approx(float(exact[label]), rel=1e-11, abs=1e-300)
        top = max(exact.values())
        assert curve["log10_doubt"][n - 1] == pytest.approx(log10_of(1 - top), abs=1e-9)
    # The prior decides the single review; the words (1/4096 > 1/5832 per copy) win when it repeats.
    assert curve["decision"] == "positive" and curve["converges_to"] == "negative"
    saturates = next(n for n in range(1, 201) if float(max(multinomial_match_posteriors(n).values())) == 1.0)
    assert curve["saturates_at"] == saturates == 108

    soup = soup_of(client.get(url))
    verdict = soup.select_one("p.verdict").get_text(" ", strip=True)
    assert "Once: positive" in verdict and "runs to negative" in verdict and "From 108 repeats" in verdict
    rows = {
        row.th.get_text(strip=True): [td.get_text(" ", strip=True) for td in row.find_all("td")]
        for row in soup.select("table.repeats tbody tr")
    }
    assert rows["108"][0] == "1.0 in float64" and "chosen" in soup.find("th", string="108").parent["class"]
    one = multinomial_match_posteriors(1)
    assert rows["1"][0] == f"{float(one['negative']):.4g}" and rows["1"][1] == f"{float(one['positive']):.4g}"
    # Close to 1, the top posterior is written as 1 − the doubt, from the exact doubt.
    doubt_50 = 1 - max(multinomial_match_posteriors(50).values())
    exponent = math.floor(log10_of(doubt_50))
    superscript = str(-exponent).translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))
    assert rows["50"][0].startswith("1 − ") and rows["50"][0].endswith("10⁻" + superscript)


def test_bernoulli_posterior_after_n_repeats_by_hand(client):
    data = client.get(
        "/corpora/match-reviews/confidence?model=bernoulli&alpha=1&text=match+was+sharp&format=json").get_json()
    curve = data["overconfidence"]
    assert data["repeats"] == 50 and len(curve["points"]) == 50
    for n in (1, 5, 25, 50):
        exact = bernoulli_match_posteriors({"match", "was", "sharp"}, n)
        for k, label in enumerate(curve["classes"]):
            assert curve["points"][n - 1]["posteriors"][k] == pytest.approx(float(exact[label]), rel=1e-11)
        assert curve["log10_doubt"][n - 1] == pytest.approx(log10_of(1 - max(exact.values())), abs=1e-9)
    assert curve["known_words"] == 3


def test_china_japan_matches_the_textbook_example(client):
    data = client.get("/corpora/china-japan/confidence?format=json&repeats=3").get_json()
    curve = data["overconfidence"]
    assert curve["text"] == "Chinese Chinese Chinese Tokyo Japan" and curve["classes"] == ["China", "not China"]
    for n in (1, 2, 3):
        china = F(3, 4) * (F(3, 7) ** 3 * F(1, 14) * F(1, 14)) ** n
        other = F(1, 4) * (F(2, 9) ** 3 * F(2, 9) * F(2, 9)) ** n
        assert curve["points"][n - 1]["posteriors"][0] == pytest.approx(float(china / (china + other)), rel=1e-12)
    assert curve["points"][0]["posteriors"][0] == pytest.approx(0.6897, abs=1e-4)  # the textbook's 0.0003 vs 0.0001


def test_the_svg_plots_the_curves(client):
    soup = soup_of(
        client.get("/corpora/match-reviews/confidence?model=multinomial&alpha=1&text=match+was+sharp&repeats=200"))
    charts = soup.select("svg.chart")
    assert len(charts) == 2
    for svg in charts:
        assert svg["role"] == "img" and svg.find("title").get_text() and svg.find("desc").get_text()
        assert svg["aria-labelledby"].split() == [svg.find("title")["id"], svg.find("desc")["id"]]
        titles = [t.get_text() for t in svg.select("text.axis-title")]
        assert "times the review is counted (n)" in titles and len(titles) == 2
    posterior_chart = charts[0]
    lines = posterior_chart.select("polyline.series")
    assert [line.title.get_text() for line in lines] == ["negative", "positive"]
    for line in lines:
        assert len(line["points"].split()) == 200
    # The positive line starts at P ≈ 0.513 and the negative line ends at 1 (y = top of the plot).
    top, bottom = 20, 350
    start = float(lines[1]["points"].split()[0].split(",")[1])
    once_positive = float(multinomial_match_posteriors(1)["positive"])
    assert (bottom - start) / (bottom - top) == pytest.approx(once_positive, abs=0.002)
    assert float(lines[0]["points"].split()[-1].split(",")[1]) == pytest.approx(top, abs=0.1)
    assert len(posterior_chart.select("line.saturation")) == 1
    assert [t.get_text() for t in posterior_chart.select("text.tick")][-1] == "200"
    doubt_chart = charts[1]
    assert len(doubt_chart.select("polyline.doubt")) == 1 and doubt_chart.select_one("line.precision") is not None
    assert "108 repeats" in doubt_chart.find("desc").get_text()


def test_a_posterior_below_the_smallest_float64_is_not_written_as_impossible(client):
    # "not not not", multinomial, α = 1: θ_not is 1/18 for positive and 3/16 for negative, so each copy multiplies
    # the odds for positive by (16/54)³. Counted 300 times its posterior is about 10⁻⁴⁷⁵: 0.0 in float64, yet the
    # class is still possible, and the doubt left for negative is that same number.
    url = "/corpora/match-reviews/confidence?model=multinomial&alpha=1&text=not+not+not&repeats=300"
    soup = soup_of(client.get(url))
    rows = {
        row.th.get_text(strip=True): [td.get_text(" ", strip=True) for td in row.find_all("td")]
        for row in soup.select("table.repeats tbody tr")
    }
    once = F(3, 2) * F(16, 54) ** 3
    assert rows["1"][:2] == [f"{float(1 / (1 + once)):.4g}", f"{float(once / (1 + once)):.4g}"]
    log10_positive = log10_of(F(3, 2)) + 300 * log10_of(F(16, 54) ** 3)
    exponent = math.floor(log10_positive)
    superscript = str(-exponent).translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))
    assert rows["300"][:2] == ["1.0 in float64", "0.0 in float64"]
    assert rows["300"][2] == f"{10 ** (log10_positive - exponent):.3f} × 10⁻{superscript}"


def test_alpha_zero_certainty_is_not_rounding(client):
    # match-reviews starts Bernoulli with α = 0. "not" is in every negative review (ψ = 2/2), so a review
    # without it, such as "match was sharp", is impossible for negative: certainty, not rounding.
    data = client.get("/corpora/match-reviews/confidence?format=json").get_json()
    curve = data["overconfidence"]
    assert curve["log10_doubt"] == ["-inf"] * 50 and curve["points"][0]["posteriors"] == [0.0, 1.0]
    soup = soup_of(client.get("/corpora/match-reviews/confidence"))
    warning = soup.select_one("p.warning").get_text(" ", strip=True)
    assert "probability exactly 0" in warning
    assert soup.select("line.saturation") == [] and len(soup.select("svg.chart")) == 1
    assert "alpha=1" in soup.select_one("p.warning a")["href"]


@pytest.mark.parametrize(
    "query, message",
    slow_but_the_first(1, [("repeats=0", "between 1 and"), ("repeats=abc", "between 1 and"),
                           ("repeats=600", "up to 500 repeats")]),
)
def test_bad_repeats_give_a_message(client, query, message):
    url = f"/corpora/match-reviews/confidence?model=multinomial&alpha=1&{query}"
    soup = soup_of(client.get(url))
    assert message in alerts(soup)
    data = client.get(url + "&format=json").get_json()
    assert len(data["overconfidence"]["points"]) == (500 if query == "repeats=600" else 50)


def test_an_empty_review_asks_for_one(client):
    soup = soup_of(client.get("/corpora/match-reviews/confidence?text="))
    assert "Type a review" in alerts(soup) and soup.select("svg.chart") == []
    assert soup.select_one(".calibration") is not None  # the held-out comparison does not need a review


def test_held_out_accuracy_and_mean_confidence(client):
    url = "/corpora/spam-ham/confidence?model=multinomial&alpha=1&test=split&test_size=0.25&seed=0"
    data = client.get(url + "&format=json").get_json()
    held = hold_out(load_example_corpus("spam-ham"), test_size=0.25, seed=0)
    model = held.training.model("multinomial", 1)
    evaluation = evaluate(model, held.test_matrix, held.test_labels)
    log_posterior, _ = model.predict_log_proba(held.test_matrix)
    mean_top = float(np.exp(log_posterior).max(axis=1).mean())
    cal = data["calibration"]
    assert data["held_out"]["source"] == "split" and cal["n_test"] == evaluation.n_test == 4
    assert cal["accuracy"] == evaluation.accuracy and cal["correct"] == evaluation.correct
    assert cal["mean_top_posterior"] == pytest.approx(mean_top, rel=1e-12)
    assert cal["gap"] == pytest.approx(mean_top - evaluation.accuracy, rel=1e-12)
    soup = soup_of(client.get(url))
    figures = {div.dt.get_text(): div.dd.get_text(strip=True) for div in soup.select(".calibration dl.figures > div")}
    assert figures["Mean top posterior"] == f"{round(mean_top * 100, 1)} %"
    assert figures["Accuracy"] == f"{round(evaluation.accuracy * 100, 1)} %"


def test_json_twins_have_no_bare_infinities(client):
    for url in ("/corpora/match-reviews/confidence?format=json", "/corpora/match-reviews/sample?format=json&alpha=0"):
        response = client.get(url)
        assert response.status_code == 200 and response.is_json
        text = response.get_data(as_text=True)
        assert "Infinity" not in text and "NaN" not in text


# -- hostile text ------------------------------------------------------------------------------------------------------


@pytest.fixture()
def hostile_corpus(app) -> str:
    corpus = Corpus.from_pairs(
        [
            (HOSTILE, "good great fine lovely"),
            (HOSTILE, "great fine superb"),
            ("calm", "bad awful poor dull"),
            ("calm", "awful dull boring"),
        ]
    )
    return app.extensions["webnb"]["catalog"].add(corpus, name=HOSTILE, source="test")


def assert_nothing_injected(response):
    html = response.get_data(as_text=True)
    assert "<script>alert" not in html and 'onmouseover="x' not in html
    soup = BeautifulSoup(html, "html.parser")
    assert all(script.get("src") for script in soup.find_all("script"))
    assert not any(name.startswith("on") for tag in soup.find_all(True) for name in tag.attrs)
    return soup


@pytest.mark.parametrize("fragment", [False, True])
def test_hostile_review_and_labels_are_escaped(client, hostile_corpus, fragment):
    headers = {"HX-Request": "true"} if fragment else {}
    query = {"model": "multinomial", "alpha": "1", "text": "great fine " + HOSTILE}
    response = client.get(f"/corpora/{hostile_corpus}/confidence", query_string=query, headers=headers)
    soup = assert_nothing_injected(response)
    legend = [li.get_text(" ", strip=True) for li in soup.select("ul.legend li")]
    assert HOSTILE in legend
    line_titles = [line.title.get_text() for line in soup.select("polyline.series") if line.title]
    assert HOSTILE in line_titles
    assert HOSTILE in soup.find("desc").get_text()
    if not fragment:
        assert soup.find("textarea", id="review").get_text().endswith(HOSTILE)

    query = {"model": "multinomial", "alpha": "1", "class": HOSTILE}
    sample = client.get(f"/corpora/{hostile_corpus}/sample", query_string=query, headers=headers)
    soup = assert_nothing_injected(sample)
    assert soup.find("select", id="sample-class").find("option", selected=True)["value"] == HOSTILE
    assert soup.select_one("figure.sampled figcaption strong").get_text() == HOSTILE


def test_hostile_unknown_class_is_escaped_in_the_message(client):
    response = client.get("/corpora/match-reviews/sample", query_string={"class": HOSTILE})
    soup = assert_nothing_injected(response)
    assert HOSTILE in alerts(soup)
    fragment = client.get(
        "/corpora/match-reviews/sample", query_string={"class": HOSTILE}, headers={"HX-Request": "true"})
    assert HOSTILE in alerts(assert_nothing_injected(fragment))


# -- a real corpus ---------------------------------------------------------------------------------------------------


@pytest.mark.corpora
def test_20_newsgroups_is_more_sure_than_right(app, client, shared_corpora):
    from webnb.engine import read_corpus
    from webnb.engine.records.insights import mean_document_length

    corpus = read_corpus(shared_corpora / "20newsgroups-bydate" / "train.jsonl.gz")
    corpus_id = app.extensions["webnb"]["catalog"].add(corpus, name="20 Newsgroups", source="test")
    data = client.get(
        f"/corpora/{corpus_id}/confidence",
        query_string={"text": "the space shuttle launch orbit nasa", "format": "json"},
    ).get_json()
    held = hold_out(corpus, test_size=0.25, seed=0)
    model = held.training.model("multinomial", 1)
    evaluation = evaluate(model, held.test_matrix, held.test_labels)
    cal = data["calibration"]
    assert cal["n_test"] == evaluation.n_test and cal["accuracy"] == evaluation.accuracy
    # The lesson's point: about 98 % sure on average, right about 84 % of the time.
    assert cal["mean_top_posterior"] > 0.95 and cal["gap"] > 0.1
    curve = data["overconfidence"]
    assert curve["decision"] == "sci.space" and curve["saturates_at"] is not None and curve["saturates_at"] <= 10

    sample = client.get(
        f"/corpora/{corpus_id}/sample", query_string={"draw": "7", "class": "sci.space", "format": "json"}).get_json()
    full = client.application.extensions["webnb"]["catalog"].get(corpus_id)
    training = client.application.extensions["webnb"]["catalog"].cached_training_set(full, *_default_options())
    space = training.classes.index("sci.space")
    assert len(sample["words"]) == mean_document_length(training.model("multinomial", 1), space)
    assert all(word["probability"] > 0 for word in sample["words"])


def _default_options():
    from webnb.engine import AnalysisOptions, VocabularyOptions

    return AnalysisOptions(), VocabularyOptions()
