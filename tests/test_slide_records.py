"""A slide is a record: what a slide (or a page) keeps of a long list, and why, is chosen in Python by the rules of
webnb/lesson/slides.py, never by a number typed into a template; a slide's JSON twin (``presenter=1&format=json``)
lists every part it kept (``shown_on_slide``), made by the very calls that draw the slide."""
from __future__ import annotations

import re

import pytest
from bs4 import BeautifulSoup

from tests.conftest import REPO_ROOT, pasted_id, soup_of
from webnb.lesson import slides

TEMPLATES = REPO_ROOT / "templates"
# A number of two or more where a template slices a list, compares a length or a loop's place with a number,
# counts a range or sets a variable to a number: the template would be choosing what a part shows.
CHOOSING = re.compile(
    r"\[\s*-?\d*\s*:\s*([2-9]|\d{2,})\s*\]"  # items[:12]
    r"|\[\s*([2-9]|\d{2,})\s*:"  # items[3:]
    r"|\|\s*length\s*[<>]=?\s*([2-9]|\d{2,})\b"  # items|length > 6
    r"|loop\.index0?\s*[<>]=?\s*([2-9]|\d{2,})\b"  # loop.index <= 8
    r"|\brange\(\s*([2-9]|\d{2,})\b"
    r"|\bbatch\(\s*([2-9]|\d{2,})\b"
    r"|\b[A-Za-z_]+\s*[<>]=?\s*([3-9]|\d{2,})\b"  # K <= 4 (2 is the lesson's "two classes", not a cut)
    r"|\{%-?\s*set\s+\w+(\s*,\s*\w+)*\s*=\s*[\d.,\s]+%\}"  # {% set per_class = 5 %}
)


def template_logic(text: str) -> list[str]:
    """The template's statements and expressions ({% … %} and {{ … }}), without comments and string literals."""
    text = re.sub(r"\{#.*?#\}", "", text, flags=re.S)
    parts = re.findall(r"\{%.*?%\}|\{\{.*?\}\}", text, flags=re.S)
    return [re.sub(r'"[^"]*"|\'[^\']*\'', '""', part) for part in parts]


def test_no_template_chooses_what_a_part_shows():
    choosing = []
    for path in sorted(TEMPLATES.rglob("*.html")):
        for part in template_logic(path.read_text(encoding="utf-8")):
            if CHOOSING.search(part):
                choosing.append(f"{path.relative_to(TEMPLATES)}: {part[:120]}")
    assert choosing == []


def test_the_check_finds_a_cut_typed_into_a_template():
    for typed in ("{% for w in words[:12] %}", "{% if items|length > 6 %}", "{% set per_class = 5 %}",
                  "{% if loop.index <= 8 %}", "{% set shown = x if K <= 4 else y %}"):
        assert any(CHOOSING.search(part) for part in template_logic(typed)), typed
    for allowed in ('{% if kept("a.b", items).more %}', "{% if items|length > 1 %}", "{{ x[:columns] }}",
                    '{% set label = "top 10" %}', "{% if model.classes|length == 2 %}"):
        assert not any(CHOOSING.search(part) for part in template_logic(allowed)), allowed


# -- the rules --------------------------------------------------------------------------------------------------


def test_a_rule_keeps_all_up_to_its_limit_and_folds_the_rest():
    scores = (0.1, 0.5, None, 0.3, float("nan"), 0.2)
    classes = [{"label": c, "score": s} for c, s in zip("abcdef", scores, strict=True)]
    four = slides.keep("inference.classes", classes[:4], by="score")
    assert (four.positions, four.more) == ((0, 1, 2, 3), 0)  # four fit: all, in their order
    six = slides.keep("inference.classes", classes, by="score")
    assert ([c["label"] for c in six], six.more, six.total) == (["b", "d", "f"], 3, 6)  # the three best, in order
    at_150 = slides.keep("inference.classes", classes, zoom="150", by="score")
    assert [c["label"] for c in at_150] == ["b", "d"] and at_150.more == 4  # larger type: fewer
    priors = slides.keep("parameters.priors", classes, by="score", score_order=True)
    assert [c["label"] for c in priors] == list("abcdef") and priors.more == 0  # up to eight: all, in their order
    nine = [{"label": str(k), "score": k % 5} for k in range(9)]
    largest = slides.keep("parameters.priors", nine, by="score", score_order=True)
    assert [c["score"] for c in largest] == [4, 3, 3, 2, 2, 1] and largest.more == 3  # the six largest, largest first
    assert slides.keep("inference.product.factors", range(20)).positions == tuple(range(12))
    also = slides.keep("inference.classes", classes, by="score", also=(0,), also_why="and the one named")
    assert [c["label"] for c in also] == ["a", "b", "d"] and also.more == 3  # "a" in place of the lowest kept, "f"
    assert also.why == f"{six.why}, and the one named"
    kept_anyway = slides.keep("inference.classes", classes, by="score", also=(1,), also_why="and the one named")
    assert kept_anyway.positions == six.positions and kept_anyway.why == six.why  # among the best already


def test_a_slide_of_documents_shows_one_of_each_class_first():
    class Doc:
        def __init__(self, label):
            self.label = label

    documents = [Doc(label) for label in "aaab"]
    chosen = slides.keep_one_of_each_first("corpus.slide.documents", documents, "label")
    assert chosen.positions == (0, 3, 1) and chosen.more == 1


def test_every_rule_says_why_and_keeps_at_least_one():
    for part, cut in slides.CUTS.items():
        assert cut.why and cut.part == part
        for zoom in ("", "125", "150"):
            limit, keep = cut.at_zoom(zoom)
            assert 1 <= keep <= limit, (part, zoom)


# -- the twin says what the slide shows -----------------------------------------------------------------------------

SIX_CLASSES = "\n".join(f"{label}\t{text}" for label, text in [
    ("alpha", "match brilliant keeper"), ("beta", "match dull"), ("gamma", "keeper sharp"),
    ("delta", "brilliant sharp match"), ("epsilon", "dull dull keeper"), ("zeta", "composed match"),
])


@pytest.fixture()
def six_classes(client):
    return pasted_id(client, SIX_CLASSES, "six classes")


def slide_and_twin(client, address: str):
    page = BeautifulSoup(client.get(address).get_data(as_text=True), "html.parser")
    twin = client.get(address + "&format=json").get_json()
    return page, {part["part"]: part for part in twin["shown_on_slide"]}


def test_the_decision_slide_and_its_twin_keep_the_same_classes(client, six_classes):
    address = f"/corpora/{six_classes}/inference?text=brilliant+match&step=decision&presenter=1"
    page, shown = slide_and_twin(client, address)
    classes = shown["inference.classes"]
    assert (classes["total"], classes["more"], len(classes["positions"])) == (6, 3, 3)
    trace = client.get(address + "&format=json").get_json()["trace"]
    joints = [c["log_joint"] for c in trace["per_class"]]
    best = sorted(range(6), key=lambda k: joints[k], reverse=True)[:3]
    assert classes["positions"] == sorted(best)
    folded = page.select_one("table.decision")  # the slide's table, before the full one folded below
    rows = [th.get_text(strip=True) for th in folded.select("tbody th[scope=row]")]
    labels = [trace["per_class"][k]["class"] for k in classes["positions"]]
    assert classes["shown"] == labels
    assert rows == [*labels, f"+ {classes['more']} more classes, each less probable"]


FILLER = " ".join(f"filler{letter}" for letter in "abcdefghijklmnopqrst")
# Five classes rich in "red" and "blue" but without "green"; zeta has all three in one long document: smoothing
# ranks zeta last, and the ε-floor, which leaves every nonzero estimate as it is, decides zeta.
FLOOR_DECIDES_THE_LAST = "\n".join(f"{label}\t{text}" for label, text in [
    ("alpha", "red red red blue blue blue"), ("beta", "red red red blue blue blue"),
    ("gamma", "red red blue blue blue blue"), ("delta", "red red red blue blue"), ("epsilon", "red blue blue blue"),
    ("zeta", f"red blue green {FILLER}"),
])


def test_the_smoothing_slide_shows_the_class_the_floor_decides_among_its_columns(client):
    corpus_id = pasted_id(client, FLOOR_DECIDES_THE_LAST, "the floor decides the last")
    address = f"/corpora/{corpus_id}/inference?text=red+blue+green&model=multinomial&alpha=1&step=smoothing&presenter=1"
    page, shown = slide_and_twin(client, address)
    twin = client.get(address + "&format=json").get_json()
    assert (twin["statements"]["smoothed"]["decision"], twin["statements"]["floored"]["decision"]) == ("alpha", "zeta")
    classes = shown["inference.classes"]
    assert classes["shown"] == ["alpha", "beta", "zeta"] and classes["more"] == 3  # zeta in place of gamma, 3rd
    assert classes["why"].endswith("and the class the ε-floor decides")
    header = [th.get_text(strip=True) for th in page.select("table.both-fixes thead th")]
    assert header == ["P(class | review)", "alpha", "beta", "zeta", "+ 3 more"]
    chosen = [td.find_previous_sibling("th").get_text(strip=True) for td in page.select("table.both-fixes td.chosen")]
    assert chosen == ["smoothed", "with the ε-floor"]  # each row's decision is a column of the slide


def test_the_matrix_slide_and_its_twin_keep_the_same_rows_and_words(client):
    address = "/corpora/spam-ham/matrix?text=free+prize&presenter=1&zoom=150"
    page, shown = slide_and_twin(client, address)
    rows, words = shown["matrix.rows"], shown["matrix.words"]
    assert (rows["total"], len(rows["positions"])) == (16, 4)  # six rows at 100 %, four at 150 %
    assert len(words["positions"]) == 4
    header = [th.get_text(" ", strip=True) for th in page.select("table.slide-matrix thead th")]
    assert [word for word in words["shown"] if word in header] == words["shown"]  # every word the twin names
    ids = [th.get_text(strip=True) for th in page.select("table.slide-matrix tbody th")]
    assert ids == rows["shown"]


def test_a_page_outside_presenter_mode_has_no_slide_in_its_twin(client):
    assert "shown_on_slide" not in client.get("/corpora/spam-ham/matrix?format=json").get_json()


def test_a_label_broken_after_its_dots_is_still_escaped_text(client):
    """breakable (a join with a <wbr> that is markup) escapes each part of the label it breaks."""
    hostile = "sci.<script>alert(1)</script>"
    corpus_id = pasted_id(client, f"{hostile}\tred blue\nplain\tgreen blue", "hostile labels")
    for presenter in ("0", "1"):
        page = client.get(f"/corpora/{corpus_id}/inference?text=red+green&model=multinomial&alpha=0&step=smoothing"
                          f"&presenter={presenter}")
        raw = page.get_data(as_text=True)
        assert page.status_code == 200 and "<script>alert(1)" not in raw
        assert "sci.<wbr>&lt;script&gt;alert(1)&lt;/script&gt;" in raw  # a culprit's row and the slide's columns


def test_the_smoothing_page_lists_a_long_screenful_of_zero_factors_and_the_twin_every_one(client):
    """Twenty-one classes, each with its own words: a review of three of them meets sixty zero factors at α = 0. The
    page lists the first forty (the rule inference.smoothing.page.culprits) and says how many more; the twin has all
    sixty."""
    lines = "\n".join(f"c{k:02d}\tword{k} other{k}" for k in range(21))
    corpus_id = pasted_id(client, lines, "own words")
    query = {"model": "multinomial", "alpha": "0", "text": "word1 word2 word3", "step": "smoothing"}
    data = client.get(f"/corpora/{corpus_id}/inference", query_string={**query, "format": "json"}).get_json()
    assert len(data["culprits"]) == 60
    soup = soup_of(client.get(f"/corpora/{corpus_id}/inference", query_string=query))
    rows = soup.select("table.culprits tbody tr")
    assert len(rows) == 41 and rows[-1].get_text(" ", strip=True) == "+ 20 more zero factors, each lifted the same way"
    assert slides.how_many("inference.smoothing.page.culprits") == 40
