"""The slides of overconfidence, sampling, adding a document and the pages of a table of numbers (issue 24): in
presenter mode each page shows its slide (block slide), written from the same record as its JSON twin, with the
full tables one key away; the normal page has no slide; the density charts of a slide are drawn for the slide.
Read through the test client."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from conftest import soup_of

from webnb.engine.gaussian.model import GaussianStatistics
from webnb.engine.gaussian.table import NumericTable
from webnb.examples import load_example_table
from webnb.lesson.charts import SLIDE_DENSITY_TEXT, DensityFrame, _text_width, density_chart, slide_density_frames
from webnb.lesson.formatting import big_count, percent, probability, real

MATCH = "model=bernoulli&alpha=0&text=match+was+sharp"
SPAM = "model=bernoulli&alpha=1&text=Claim+your+free+prize+now"
CHINA = "model=multinomial&alpha=1&text=Chinese+Chinese+Chinese+Tokyo+Japan"


def text_of(element) -> str:
    return " ".join(element.get_text(" ", strip=True).split())


def slide(client, path: str, query: str = "", twin_status: int = 200):
    """The slide of the page at ``path`` in presenter mode, and the JSON twin of the same address."""
    address = f"{path}?{query}{'&' if query else ''}presenter=1"
    page = soup_of(client.get(address))
    section = page.find("section", class_="deck-slide")
    assert section is not None, path
    twin = client.get(f"{address}&format=json")
    assert twin.status_code == twin_status
    return section, twin.get_json()


def no_slide_on_the_normal_page(client, path: str, query: str = ""):
    page = soup_of(client.get(f"{path}?{query}"))
    assert page.find(class_="deck-slide") is None
    assert page.find(class_="deck-bar") is None
    return page


# -- overconfidence --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("corpus, query", [("match-reviews", MATCH), ("spam-ham", SPAM), ("china-japan", CHINA)])
def test_the_confidence_slide_draws_the_curve_beside_the_records_mean_confidence_and_accuracy(client, corpus, query):
    section, record = slide(client, f"/corpora/{corpus}/confidence", query)
    assert section["id"] == "slide-confidence"
    curve, calibration, held = record["overconfidence"], record["calibration"], record["held_out"]
    # The two numbers, as the page writes them.
    mean = calibration["mean_top_posterior"]
    assert text_of(section.find(id="slide-mean-confidence")) == f"{round(mean * 100, 1)} %"
    assert text_of(section.find(id="slide-accuracy")) == f"{round(calibration['decided_accuracy'] * 100, 1)} %"
    where = section.find("aside", class_="calibration")
    documents = "document" if calibration["n_test"] == 1 else "documents"
    own = held["source"] == "training"
    expected = f"On its {calibration['n_test']} training" if own else f"On {calibration['n_test']} test"
    assert text_of(where.find("h3")) == f"{expected} {documents}"
    # The chart: one line per plotted class, each named in the legend, and the verdict from the curve.
    chart = section.find("svg", class_="chart")
    lines = chart.find_all("polyline", class_="series")
    legend = [text_of(li) for li in section.find("ul", class_="legend").find_all("li") if li.find("svg")]
    assert [text_of(line.find("title")) for line in lines] == legend[:len(lines)]
    assert set(legend[:len(lines)]) <= set(curve["classes"])
    verdict = text_of(section.find("p", class_="verdict"))
    assert f"Counted once: {curve['decision']}" in verdict
    assert f"runs to {curve['converges_to']}" in verdict
    # The doubt and the table of posteriors are one key away.
    assert section.find("details", class_="full-table").find("table", class_="repeats") is not None
    no_slide_on_the_normal_page(client, f"/corpora/{corpus}/confidence", query)


def test_the_confidence_slide_says_when_float64_rounds_to_one(client):
    section, record = slide(client, "/corpora/spam-ham/confidence", SPAM)
    points = record["overconfidence"]["points"]
    # The first n where the top posterior is 1.0 in float64 while another class is still possible.
    rounded = next(p["repeats"] for p in points
                   if max(p["posteriors"]) == 1.0 and p["log_posteriors"].count("-inf") == 0)
    assert f"float64 says exactly 1 from n = {rounded}" in text_of(section.find("p", class_="verdict"))
    section, _ = slide(client, "/corpora/match-reviews/confidence", MATCH)
    assert "exactly 1 from the start" in text_of(section.find("p", class_="verdict"))


def test_the_confidence_slide_without_a_review_says_so(client):
    section, record = slide(client, "/corpora/match-reviews/confidence", "model=bernoulli&alpha=1&text=")
    assert record["overconfidence"] is None and record["messages"]
    assert section.find("svg", class_="chart") is None
    assert "No review yet" in text_of(section)
    # The model's scores on other documents do not need a review.
    assert section.find(id="slide-accuracy") is not None


# -- sampling --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("corpus, query", [("match-reviews", MATCH), ("spam-ham", SPAM), ("china-japan", CHINA)])
def test_the_sample_slide_shows_the_drawn_class_its_first_words_and_the_real_documents_folded(client, corpus, query):
    section, record = slide(client, f"/corpora/{corpus}/sample", query)
    assert section["id"] == "slide-sample"
    text = text_of(section)
    assert f"Draw {record['draw']}." in text
    assert f"<strong>{record['class']}</strong>" in str(section)
    drawn = next(p for p in record["priors"] if p["drawn"])
    assert f"(probability {probability(drawn['value'])})" in text
    # The words in their order, each over its probability.
    items = section.find(id="slide-sample-text").find_all("li", class_=lambda c: c != "more")
    assert items, "the sample has words"
    words = record["words"][:len(items)]
    assert [text_of(li.find(class_="token")) for li in items] == [w["word"] for w in words]
    for li, word in zip(items, words, strict=True):
        assert text_of(li.find(class_="num")).endswith(probability(word["probability"]))
    more = section.find(id="slide-sample-text").find("li", class_="more")
    assert (more is None) == (len(items) == len(record["words"]))
    # Read back, and the real documents of the class one key away.
    assert f"reads its own document back as {record['read_as']}" in text
    real = section.find_all("details", class_="full-table")[-1]
    assert text_of(real.find("summary")) == f"Real {record['class']} documents ({len(record['real_documents'])})"
    assert [text_of(li.find(class_="muted")) for li in real.find_all("li")] == [
        f"#{d['id']}:" for d in record["real_documents"]]
    no_slide_on_the_normal_page(client, f"/corpora/{corpus}/sample", query)


def test_a_long_sample_shows_its_first_words_and_every_word_folded(client):
    query = "model=multinomial&alpha=1&length=200&draw=3"
    section, record = slide(client, "/corpora/spam-ham/sample", query)
    shown = section.find(id="slide-sample-text").find_all("li", class_=lambda c: c != "more")
    assert 1 <= len(shown) < 200
    assert text_of(section.find(id="slide-sample-text").find("li", class_="more")) == f"+ {200 - len(shown)} more"
    every = section.find("details", class_="full-table")
    assert text_of(every.find("summary")) == "All 200 words drawn, with their θ"
    assert [text_of(t) for t in every.find_all(class_="token")] == [w["word"] for w in record["words"]]


# -- adding a document -----------------------------------------------------------------------------------------------


def test_arriving_at_the_add_slide_adds_the_review_and_its_twin_says_so(client):
    query = "model=bernoulli&alpha=0&text=match+was+sharp"
    section, record = slide(client, "/corpora/match-reviews/add", query)
    a = record["addition"]
    assert a["text"] == "match was sharp" and a["class"] == "negative"  # the form's first class
    assert section.find("input", id="slide-add-text")["value"] == "match was sharp"
    assert section.find("select", id="slide-add-label").find("option", selected=True)["value"] == "negative"
    assert "Counted as a negative document" in text_of(section.find("p", class_="add-verdict"))
    # A class asked for is kept; a document given, even an empty one, is never replaced.
    _, kept = slide(client, "/corpora/match-reviews/add", query + "&label=positive")
    assert kept["addition"]["class"] == "positive"
    _, empty = slide(client, "/corpora/match-reviews/add", query + "&document=", twin_status=400)
    assert empty["addition"] is None and empty["error"]
    # The normal page and its twin wait for a document.
    assert client.get(f"/corpora/match-reviews/add?{query}&format=json").get_json()["addition"] is None
    page = no_slide_on_the_normal_page(client, "/corpora/match-reviews/add", query)
    assert page.find("table", class_="add-params") is None


@pytest.mark.parametrize("corpus, query, label", [
    ("match-reviews", MATCH + "&document=match+was+sharp", "negative"),
    ("spam-ham", SPAM + "&document=win+a+free+prize+now", "spam"),
    ("china-japan", CHINA + "&document=Tokyo+Kyoto+Osaka", "not China"),
])
def test_the_add_slide_shows_what_changes_from_the_record(client, corpus, query, label):
    query = f"{query}&label={label.replace(' ', '+')}"
    section, record = slide(client, f"/corpora/{corpus}/add", query)
    assert section["id"] == "slide-add"
    a = record["addition"]
    count = a["count"]
    verdict = text_of(section.find("p", class_="add-verdict"))
    assert f"Counted as a {label} document" in verdict
    changed = count["priors"] + count["document_words"] + count["other_words"] + count["new_parameters"]
    assert f"{big_count(changed)} of {big_count(count['parameters'])} parameters move or are new" in verdict
    tables = section.find("div", class_="slide-add-tables").find_all("table")
    # The document's class first, its n_k and prior before → after.
    own = tables[0].find("tbody").find("tr")
    change = next(c for c in a["classes"] if c["class"] == label)
    assert text_of(own.find("th")) == label
    cells = [text_of(td) for td in own.find_all("td")]
    assert cells[0] == f"{change['documents'][0]} → {change['documents'][1]}"
    assert cells[1] == f"{probability(change['prior'][0])} → {probability(change['prior'][1])}"
    # The document's first words: their counts and parameters in its class.
    symbol = "n" if a["model"]["model"] == "bernoulli" else "c"
    rows = [r for r in tables[1].find("tbody").find_all("tr") if "more" not in (r.find("th").get("class") or [])]
    assert len(rows) == min(3, len(a["words"]))
    k = record["classes"].index(label)
    for row, word, params in zip(rows, a["words"], a["parameters"], strict=False):
        assert text_of(row.find("th")).split(" new")[0] == word["word"]
        old, new = word["n_jk" if symbol == "n" else "c_jk"]
        number, parameter = [text_of(td) for td in row.find_all("td")]
        assert number == (f"{old} → {new}" if old != new else str(new))
        p = params[k]
        if p["new"]:
            assert parameter == probability(p["value"][1])
        else:
            assert parameter == (f"{probability(p['value'][0])} → {probability(p['value'][1])}" if p["changed"]
                                 else probability(p["value"][1]))
    # Every table is one key away; the form takes no focus by itself.
    folded = section.find("details", class_="full-table")
    assert folded.find("table", class_="add-params") is not None and folded.find("table", class_="add-tally")
    assert section.find(attrs={"autofocus": True}) is None
    assert section.find("input", id="slide-add-text")["value"] == a["text"]


def test_the_add_slide_reports_an_empty_document(client):
    section, record = slide(client, "/corpora/match-reviews/add", MATCH + "&document=&label=negative", 400)
    assert record["error"] and record["error"] in text_of(section.find(id="slide-add-error"))
    assert section.find("div", class_="slide-add-tables") is None


# -- the pages of a table of numbers ---------------------------------------------------------------------------------


@pytest.mark.parametrize("corpus", ["iris", "match-ratings", "red-cards"])
def test_the_rows_slide_shows_the_counts_and_the_first_rows_of_each_class(client, corpus):
    section, record = slide(client, f"/corpora/{corpus}/gaussian")
    assert section["id"] == "slide-rows"
    counts = [(text_of(li.find(class_="label")), text_of(li.find(class_="num")))
              for li in section.find("ul", class_="slide-row-counts").find_all("li")]
    assert counts == [(label, big_count(n)) for label, n in record["class_counts"].items()]
    table = section.find("table", class_="condensed")
    assert [text_of(th) for th in table.find("thead").find_all("th")][2:] == record["features"]
    first = record["first_rows_of_each_class"]
    for group, label in zip(table.find_all("tbody"), record["class_counts"], strict=True):
        assert text_of(group.find("th")) == label
        rows = group.find_all("tr")
        assert len(rows) == 3
        for row, expected in zip(rows, first[label], strict=True):
            assert expected["label"] == label
            assert [text_of(td) for td in row.find_all("td")] == [expected["id"]] + [real(v, 6) for v in
                                                                                       expected["values"]]
    full = section.find("details", class_="full-table").find("table", class_="numeric-rows")
    assert [text_of(tr.find("th")) for tr in full.find("tbody").find_all("tr")] == [r["id"] for r in record["rows"]]
    no_slide_on_the_normal_page(client, f"/corpora/{corpus}/gaussian")


def test_the_first_rows_of_each_class_are_the_tables_own(client):
    table = load_example_table("iris")
    record = client.get("/corpora/iris/gaussian?format=json").get_json()
    for label, rows in record["first_rows_of_each_class"].items():
        positions = [i for i, other in enumerate(table.labels) if other == label][:3]
        assert [r["index"] for r in rows] == positions
        assert [r["values"] for r in rows] == [list(map(float, table.values[i])) for i in positions]


@pytest.mark.parametrize("corpus", ["iris", "match-ratings", "red-cards"])
def test_the_curves_slide_shows_means_and_variances_and_the_charts_that_fit(client, corpus):
    section, record = slide(client, f"/corpora/{corpus}/gaussian/parameters")
    assert section["id"] == "slide-curves"
    table = section.find("table", class_="slide-bells")
    rows = table.find("tbody").find_all("tr")
    assert [text_of(r.find("th")) for r in rows] == record["features"]
    for j, row in enumerate(rows):
        expected = []
        for bells in record["parameters"]:
            cell = bells["features"][j]
            expected += [real(cell["mean"]), real(cell["used"])]
        assert [text_of(td).replace(" σ = 0", "") for td in row.find_all("td")] == expected
    # As many charts as fit side by side, drawn for the slide; the others folded with every mean and variance.
    d = len(record["features"])
    on_slide = section.select(":scope > .density-grid figure.density > svg")
    assert len(on_slide) == min(2, d)
    assert all("slide-chart" in svg["class"] for svg in on_slide)
    folded = section.find("details", class_="full-table")
    assert len(folded.select(".density-grid svg.slide-chart")) == d - len(on_slide)
    assert len(folded.find("table", class_="gaussian-params").find("tbody").find_all("tr")) == d * len(
        record["classes"])
    page = no_slide_on_the_normal_page(client, f"/corpora/{corpus}/gaussian/parameters")
    assert len(page.select("figure.density > svg")) == d and not page.select("svg.slide-chart")


@pytest.mark.parametrize("corpus", ["iris", "match-ratings", "red-cards"])
def test_the_scores_slide_shows_the_accuracy_and_the_confusion_matrix(client, corpus):
    section, record = slide(client, f"/corpora/{corpus}/gaussian/evaluation")
    assert section["id"] == "slide-scores"
    result = record["evaluation"]
    assert text_of(section.find(id="slide-accuracy")) == percent(result["accuracy"])
    assert f"{result['correct']} of {result['n_test']} right" in text_of(section)
    assert f"tested on {record['n_test']} rows it never saw" in text_of(section)
    rows = section.find("table", class_="confusion").find("tbody").find_all("tr")
    assert [text_of(r.find("th")) for r in rows] == result["classes"]
    for row, counts in zip(rows, result["confusion"], strict=True):
        assert [text_of(td) for td in row.find_all("td")] == [big_count(c) for c in counts]
    assert section.find("details", class_="full-table").find("table", class_="scores") is not None
    no_slide_on_the_normal_page(client, f"/corpora/{corpus}/gaussian/evaluation")


def test_the_scores_slide_names_the_largest_mistakes(client):
    section, record = slide(client, "/corpora/iris/gaussian/evaluation")
    result = record["evaluation"]
    cells = sorted(((c, i, j) for i, row in enumerate(result["confusion"]) for j, c in enumerate(row) if c and i != j),
                   key=lambda cell: -cell[0])
    assert cells
    said = "; ".join(f"{c} {result['classes'][i]} taken for {result['classes'][j]}" for c, i, j in cells[:3])
    assert f"Wrong: {said}" in text_of(section)


# -- many classes and features ---------------------------------------------------------------------------------------


@pytest.fixture
def many(app) -> str:
    """A table of twelve classes and seven features, stored in the app's catalog."""
    rng = np.random.default_rng(1)
    classes = np.repeat(np.arange(12), 12)
    values = rng.normal(size=(len(classes), 7)) + classes[:, None] * 0.4
    table = NumericTable(tuple(f"measure {j}" for j in range(7)), values,
                         tuple(f"kind {k:02d}" for k in classes), tuple(map(str, range(len(classes)))))
    return app.extensions["webnb"]["catalog"].add(table, name="Twelve kinds", source="test")


def test_many_classes_and_features_are_condensed_with_the_rest_one_key_away(client, many):
    section, record = slide(client, f"/corpora/{many}/gaussian")
    assert text_of(section.find("ul", class_="slide-row-counts").find("li", class_="more")) == "+ 6 more classes"
    table = section.find("table", class_="condensed")
    assert len(table.find_all("tbody")) == 5 and all(len(g.find_all("tr")) == 1 for g in table.find_all("tbody"))
    assert text_of(table.find("thead").find("th", class_="more")) == "+ 4 more"
    assert "The first rows of 7 more classes are in the full table." in text_of(section)
    folded = section.find("details", class_="full-table")
    assert len(folded.find("table", class_="class-counts").find("tbody").find_all("tr")) == 12
    section, record = slide(client, f"/corpora/{many}/gaussian/parameters")
    bells = section.find("table", class_="slide-bells")
    assert text_of(bells.find("tbody").find_all("tr")[-1]) == "+ 4 more features · + 10 more classes"
    assert len(bells.find("thead").find_all("th", class_="num")) == 2 + 4  # two classes, each μ and σ²
    section, record = slide(client, f"/corpora/{many}/gaussian/evaluation", "test=training")
    window = section.find("table", class_="confusion")
    assert len(window.find("tbody").find_all("tr")) == 6
    folded = section.find("details", class_="full-table").find("table", class_="confusion")
    assert len(folded.find("tbody").find_all("tr")) == 12


def test_the_confusion_window_keeps_the_classes_most_confused():
    from types import SimpleNamespace

    from webnb.views.gaussian.evaluation import slide_classes

    confusion = [[5 if i == j else 0 for j in range(8)] for i in range(8)]
    confusion[6][2] = 3  # 6 taken for 2
    confusion[7][1] = 1
    result = SimpleNamespace(classes=tuple("abcdefgh"), confusion=confusion, undecidable_by_class=(0,) * 7 + (2,))
    assert slide_classes(result, most=3) == (2, 6, 7)
    assert slide_classes(result, most=8) == tuple(range(8))


# -- the density charts of a slide -----------------------------------------------------------------------------------


def test_a_slide_density_chart_has_room_for_its_labels_at_slide_size():
    iris = load_example_table("iris")
    model = GaussianStatistics.fit(iris).model()
    frame, across = slide_density_frames(4, 2, 150)
    assert across == 2 and frame.width == 483 and frame.text == SLIDE_DENSITY_TEXT
    for j, value in enumerate((5.1, 3.5, 1.4, 0.2)):
        chart = density_chart(model, j, value, frame)
        assert (chart["width"], chart["height"], chart["text"]) == (483, 150, SLIDE_DENSITY_TEXT)
        # The peak's label fits left of the axis, right of the word "density".
        assert chart["left"] - 8 - _text_width(chart["peak_label"], chart["text"]) >= chart["density_title"]["x"]
        ticks = chart["ticks"]
        widest = max(_text_width(t.label, chart["text"]) for t in ticks)
        assert all(b.position - a.position >= widest for a, b in zip(ticks, ticks[1:], strict=False))
        assert chart["top_label_y"] < chart["top"]  # the typed value's label above the plot
        assert chart["tick_label_y"] < chart["height"]
    # The page's chart is the page's.
    page = density_chart(model, 2, 1.4)
    assert (page["width"], page["height"], page["left"], page["text"]) == (460, 210, 72, None)
    assert page["tick_label_y"] == page["bottom"] + 20 and page["turn_at"] == page["right"] - 80


def test_slide_frames_share_the_slide_width():
    assert slide_density_frames(1, 2, 100)[0] == DensityFrame(980, 100)
    assert slide_density_frames(3, 2, 100) == (DensityFrame(483, 100), 2)


def test_the_densities_step_on_a_slide_draws_two_charts_and_folds_the_others(client):
    page = soup_of(client.get("/corpora/iris/gaussian/inference?step=densities&presenter=1"))
    step = page.find(id="step-densities")
    assert len(step.select(".density-grid.across:not(.more) svg.slide-chart")) == 2
    folded = step.find("details", class_="more-densities")
    assert text_of(folded.find("summary")) == "The bell curves of the other 2 features"
    assert [text_of(f.find("strong")) for f in folded.find_all("figure")] == ["petal length (cm)", "petal width (cm)"]
    normal = soup_of(client.get("/corpora/iris/gaussian/inference?step=densities"))
    assert len(normal.select("#step-densities figure.density > svg")) == 4
    assert not normal.select("svg.slide-chart") and normal.find("details", class_="more-densities") is None
    # Chart text is set for the slide's size (presenter.css), the number the charts are drawn for.
    css = (Path(__file__).parent.parent / "static" / "presenter.css").read_text(encoding="utf-8")
    assert re.search(rf"svg\.slide-chart text \{{ font-size: {SLIDE_DENSITY_TEXT}px; \}}", css)
