"""The calibration page (/corpora/<id>/calibration): its bins and expected calibration error against a direct
computation from scikit-learn's MultinomialNB.predict_proba, logistic regression beside Naive Bayes on the same
documents, the sentences of the page and of its slide against the JSON twin, the figures as SVG files, bad input,
the background fit on a large corpus, a hostile class label kept inert, and the chart geometry."""
from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from urllib.parse import quote_plus

import numpy as np
import pytest
from conftest import paste, pasted_id, soup_of
from sklearn.feature_extraction.text import CountVectorizer  # a test-only dependency, imported once at collection
from sklearn.naive_bayes import MultinomialNB

from webnb.engine import Corpus, read_corpus
from webnb.engine.evaluation.calibration import CalibrationBin, LengthGroup
from webnb.engine.evaluation.heldout import hold_out
from webnb.examples import load_example_corpus
from webnb.lesson.calibration_chart import DIAGONAL_LABEL, length_chart, reliability_chart
from webnb.lesson.formatting import percent

SVG = "{http://www.w3.org/2000/svg}"
HOSTILE = '<script>alert(1)</script> "&\''


def words(element) -> str:
    return " ".join(element.get_text(" ", strip=True).split())


def twin(client, address: str) -> dict:
    response = client.get(address + ("&" if "?" in address else "?") + "format=json")
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    return response.get_json()


# -- the numbers, against scikit-learn ------------------------------------------------------------------------------


def direct_calibration(train: Corpus, test: Corpus, alpha: float, n_bins: int) -> dict:
    """Bins, ECE and the documents above 0.99, straight from scikit-learn's MultinomialNB.predict_proba on
    CountVectorizer's counts (its defaults are webnb's), computed here without webnb's calibration code."""
    vectorizer = CountVectorizer()
    model = MultinomialNB(alpha=alpha).fit(vectorizer.fit_transform(train.texts), train.labels)
    proba = model.predict_proba(vectorizer.transform(test.texts))
    confidence = proba.max(axis=1)
    correct = model.classes_[proba.argmax(axis=1)] == np.asarray(test.labels)
    bins = []
    for b in range(n_bins):
        lower, upper = b / n_bins, (b + 1) / n_bins
        members = (confidence > lower) & (confidence <= upper) | ((confidence == 0) & (b == 0))
        count = int(members.sum())
        bins.append({"count": count, "confidence": confidence[members].mean() if count else None,
                     "accuracy": correct[members].mean() if count else None})
    n = len(confidence)
    ece = sum(b["count"] / n * abs(b["accuracy"] - b["confidence"]) for b in bins if b["count"])
    high = confidence > 0.99
    return {"bins": bins, "ece": ece, "share": high.mean(), "count": int(high.sum()),
            "accuracy": correct[high].mean() if high.any() else None, "correct": int(correct.sum())}


def assert_agrees(model: dict, expected: dict, n_test: int) -> None:
    assert model["decided"] == n_test and model["undecided"] == 0
    assert sum(b["count"] for b in model["bins"]) == n_test
    assert [b["count"] for b in model["bins"]] == [b["count"] for b in expected["bins"]]
    for got, want in zip(model["bins"], expected["bins"], strict=True):
        if want["count"]:
            assert got["confidence"] == pytest.approx(want["confidence"], rel=1e-9)
            assert got["accuracy"] == pytest.approx(want["accuracy"], abs=1e-12)
        else:
            assert got["confidence"] is None and got["accuracy"] is None
    assert model["ece"] == pytest.approx(expected["ece"], rel=1e-9, abs=1e-12)
    high = model["high_confidence"]
    assert (high["count"], high["threshold"]) == (expected["count"], 0.99)
    assert high["share"] == pytest.approx(expected["share"])
    assert (high["accuracy"] is None) == (expected["accuracy"] is None)
    if expected["accuracy"] is not None:
        assert high["accuracy"] == pytest.approx(expected["accuracy"])
    assert model["correct"] == expected["correct"]


@pytest.mark.parametrize("query, bins", [("test=training", 10), ("test=split&test_size=0.5&seed=3", 5)])
def test_bins_and_ece_agree_with_scikit_learns_multinomial_nb_on_a_built_in_corpus(client, query, bins):
    corpus = load_example_corpus("spam-ham")
    data = twin(client, f"/corpora/spam-ham/calibration?model=multinomial&alpha=1&bins={bins}&{query}")
    if "split" in query:
        held = hold_out(corpus, test_size=0.5, seed=3)
        train, test = held.training.corpus, held.test
    else:
        train = test = corpus
    nb, logistic = data["models"]
    assert (nb["key"], nb["name"], logistic["key"]) == ("naive-bayes", "Multinomial Naive Bayes", "logistic")
    assert data["n_test"] == len(test) == nb["n_test"] == logistic["n_test"] and data["n_bins"] == bins
    assert_agrees(nb, direct_calibration(train, test, 1.0, bins), len(test))
    # Logistic regression on the same documents: every one decided, in the same bins.
    assert sum(b["count"] for b in logistic["bins"]) == len(test) and logistic["undecided"] == 0
    assert [(b["lower"], b["upper"]) for b in logistic["bins"]] == [(b["lower"], b["upper"]) for b in nb["bins"]]


@pytest.mark.corpora
@pytest.mark.slow
def test_bins_and_ece_agree_with_scikit_learn_on_the_sms_spam_collection(app, client, sms_spam):
    corpus = sms_spam
    corpus_id = app.extensions["webnb"]["catalog"].add(corpus, name="SMS spam", source="test")
    data = twin(client, f"/corpora/{corpus_id}/calibration?model=multinomial&alpha=1")  # counted in its request
    held = hold_out(corpus, test_size=0.25, seed=0)
    test = held.test
    nb, logistic = data["models"]
    assert data["n_test"] == len(test) == 1394
    assert_agrees(nb, direct_calibration(held.training.corpus, test, 1.0, 10), len(test))
    assert logistic["converged"] and sum(b["count"] for b in logistic["bins"]) == len(test)


@pytest.mark.corpora
@pytest.mark.slow
def test_20_newsgroups_by_date_gives_the_lessons_figures(app, client, shared_corpora):
    """Multinomial NB, α = 1, CountVectorizer's defaults, trained on the 11,314 posts and tested on the 7,532 of the
    by-date test set: 88.9 % of them above 0.99, 82.7 % of those right (issue 38)."""
    catalog = app.extensions["webnb"]["catalog"]
    train = catalog.add(read_corpus(shared_corpora / "20newsgroups-bydate" / "train.jsonl.gz"), name="20NG train",
                        source="test")
    test = catalog.add(read_corpus(shared_corpora / "20newsgroups-bydate" / "test.jsonl"), name="20NG test",
                       source="test")
    data = twin(client, f"/corpora/{train}/calibration?model=multinomial&alpha=1&test={test}")
    nb, logistic = data["models"]
    assert data["n_test"] == 7532 and round(nb["accuracy"], 4) == 0.7728
    high = nb["high_confidence"]
    assert round(high["share"], 3) == 0.889 and round(high["accuracy"], 3) == 0.827
    assert nb["says"] == "overconfident" and logistic["ece"] < nb["ece"]
    statement = next(s for s in data["statements"] if s["about"] == "naive-bayes-high")["text"]
    assert statement == ("Multinomial Naive Bayes decides 88.9 % of the 7,532 test documents (6,695) with confidence "
                         "above 0.99; 82.7 % of those are right.")


def test_documents_no_class_can_explain_are_counted_apart_from_the_bins(client):
    """Bernoulli at α = 0: a review with "not" and without "was" has probability 0 in both classes."""
    test_id = pasted_id(client, "positive\tnot sharp match\nnegative\tdull match was\npositive\tsharp match was",
                        "tests")
    data = twin(client, f"/corpora/match-reviews/calibration?model=bernoulli&alpha=0&test={test_id}")
    nb = data["models"][0]
    assert (nb["n_test"], nb["decided"], nb["undecided"]) == (3, 2, 1)
    assert sum(b["count"] for b in nb["bins"]) + nb["undecided"] == nb["n_test"]
    assert data["models"][1]["undecided"] == 0  # logistic regression decides every document
    verdict = next(s for s in data["statements"] if s["about"] == "naive-bayes-verdict")
    assert "on the 2 test documents it can decide" in verdict["text"]
    page = soup_of(client.get(f"/corpora/match-reviews/calibration?model=bernoulli&alpha=0&test={test_id}"))
    assert "cannot decide 1 of the test documents" in words(page.find("table", class_="calibration-bins").tfoot)


# -- the page and its sentences ---------------------------------------------------------------------------------


def test_the_page_shows_the_diagram_the_figures_and_every_sentence_of_its_twin(client):
    address = "/corpora/spam-ham/calibration?model=multinomial&alpha=1&test=training"
    response = client.get(address)
    assert response.status_code == 200 and "HX-Request" in response.headers["Vary"]
    page, data = soup_of(response), twin(client, address)
    section = page.find("section", id="calibration")
    said = [(p["data-about"], p["data-says"], words(p)) for p in section.select(".calibration-statements [data-about]")]
    assert said == [(s["about"], s["says"], s["text"]) for s in data["statements"]]
    abouts = [s["about"] for s in data["statements"]]
    assert abouts[:4] == ["naive-bayes-verdict", "naive-bayes-high", "logistic-verdict", "logistic-high"]
    assert "comparison" in abouts and "length" in abouts
    # Each model's row of figures, as the twin has them.
    for model in data["models"]:
        cells = [words(td) for td in section.find("tr", id=f"figures-{model['key']}").find_all("td")]
        assert cells[:3] == [percent(model["accuracy"]), percent(model["mean_confidence"]), f"{model['ece']:.3f}"]
        high = model["high_confidence"]
        assert cells[3] == f"{percent(high['share'])} ({high['count']})"
        assert cells[4] == percent(high["accuracy"])
    # One line and one marker per non-empty bin and model.
    chart = section.find("svg", attrs={"data-figure": "reliability"})
    lines = chart.find_all("polyline", class_="series")
    assert [words(line.title) for line in lines] == [m["name"] for m in data["models"]]
    for line, model in zip(lines, data["models"], strict=True):
        assert len(line["points"].split()) == sum(1 for b in model["bins"] if b["count"])
    assert len(chart.find_all(["circle", "rect"])) == sum(1 for m in data["models"] for b in m["bins"] if b["count"])
    legend = [words(li) for li in section.find("figure").select("ul.legend li")]
    assert legend == [m["name"] for m in data["models"]] + [DIAGONAL_LABEL]
    # The classes, by their true class.
    rows = section.find("table", class_="calibration-classes").tbody.find_all("tr")
    assert [words(row.th) for row in rows] == ["ham", "spam"]
    assert [int(row.find("td").get_text()) for row in rows] == [c["count"] for c in data["models"][0]["by_class"]]


def test_the_verdicts_say_what_the_numbers_say(client):
    data = twin(client, "/corpora/spam-ham/calibration?model=multinomial&alpha=1&test=training")
    for model in data["models"]:
        gap = model["mean_confidence"] - model["correct"] / model["decided"]
        expected = "overconfident" if gap > 0.01 else "underconfident" if gap < -0.01 else "calibrated"
        assert model["says"] == expected
        verdict = next(s for s in data["statements"] if s["about"] == f"{model['key']}-verdict")
        assert verdict["says"] == expected
        assert f"{percent(model['mean_confidence'])} sure" in verdict["text"]
    comparison = next(s for s in data["statements"] if s["about"] == "comparison")
    nb, logistic = data["models"]
    assert comparison["says"] == ("logistic" if logistic["ece"] < nb["ece"] else "naive-bayes")
    assert f"{nb['ece']:.3f} for Multinomial Naive Bayes, {logistic['ece']:.3f} for logistic regression" in (
        comparison["text"])


def test_the_slide_says_what_its_twin_says_and_folds_the_tables(client):
    address = "/corpora/spam-ham/calibration?model=multinomial&alpha=1&presenter=1"
    page, data = soup_of(client.get(address)), twin(client, address)
    slide = page.find("section", class_="deck-slide")
    assert slide["id"] == "slide-calibration" and words(slide.find(id="slide-title")) == "Is it as sure as it is right?"
    folded = slide.find("details", class_="full-table")
    shown = [e for e in slide.select("[data-about]") if folded not in e.parents]
    assert [(e["data-about"], e["data-says"], words(e)) for e in shown] == [
        (s["about"], s["says"], s["text"]) for s in data["slide"]["statements"]]
    assert data["slide"]["models"] == [m["name"] for m in data["models"]]
    assert data["slide"]["figures"] == [{"model": m["key"], "ece": m["ece"]} for m in data["models"]]
    for model in data["models"]:
        assert words(slide.find(id=f"slide-ece-{model['key']}")) == f"{model['ece']:.3f}"
    assert slide.find("svg", attrs={"data-figure": "reliability"}) is not None
    assert folded.find("table", class_="calibration-bins") and folded.find("table", class_="calibration-classes")
    assert not slide.select(".figure-download")  # no downloads on a slide
    # The normal page has no slide, and the twin of the page no slide's part.
    normal = "/corpora/spam-ham/calibration?model=multinomial&alpha=1"
    assert soup_of(client.get(normal)).find(class_="deck-slide") is None and "slide" not in twin(client, normal)


def test_the_htmx_fragment_is_the_section_alone(client):
    response = client.get("/corpora/china-japan/calibration?bins=4", headers={"HX-Request": "true"})
    part = soup_of(response)
    assert part.find("html") is None and [(e.name, e.get("id")) for e in part.contents if e.name] == [
        ("section", "calibration")]
    assert response.headers["X-Webnb-Address"].endswith("bins=4")


def test_the_page_is_in_the_menu_after_overconfidence(client):
    page = soup_of(client.get("/corpora/match-reviews/calibration"))
    titles = [words(a) for a in page.select(".lesson-nav a")]
    at = next(i for i, title in enumerate(titles) if title.endswith("Overconfidence"))
    assert titles[at + 1].endswith("Calibration")
    assert page.select_one(".lesson-nav a[aria-current=page]").get_text().endswith("Calibration")


# -- the figures as files -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["reliability", "length"])
def test_each_chart_downloads_as_the_drawing_of_the_page(client, name):
    page = soup_of(client.get("/corpora/spam-ham/calibration?model=multinomial&alpha=1&bins=5"))
    drawn = page.find("svg", attrs={"data-figure": name})
    link = drawn.find_next("p", class_="figure-download").a
    assert link["href"].startswith(f"/corpora/spam-ham/figures/calibration/{name}.svg?") and "bins=5" in link["href"]
    assert drawn.find_next("p", class_="figure-download").find("button", attrs={"data-png-of": link["href"]})
    response = client.get(link["href"])
    assert response.status_code == 200 and response.mimetype == "image/svg+xml"
    root = ET.fromstring(response.data)
    nested = next(e for e in root.iter(f"{SVG}svg") if e.get("data-figure") == name)
    assert nested.get("viewBox") == drawn["viewbox"]
    assert [e.tag.removeprefix(SVG) for e in nested.iter() if e is not nested] == [t.name for t in drawn.find_all(True)]
    legend = [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "figure-legend"]
    assert legend == [words(li) for li in drawn.find_parent("figure").select("ul.legend li")]


# -- bad input ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("query, name, message", [
    ("bins=abc", "bins", "The number of bins is a whole number from 2 to 20, not “abc”; 10 bins are shown."),
    ("bins=1", "bins", "not “1”; 10 bins are shown."),
    ("bins=１０", "bins", "10 bins are shown."),
    ("C=0", "C", "C must be a positive number such as 1 or 0.1, not 0.0. Showing C = 1."),
    ("C=nan", "C", "Showing C = 1."),
    ("alpha=nan", "alpha", "α must be a number"),
])
def test_a_setting_that_cannot_be_used_is_named_and_the_default_drawn(client, query, name, message):
    address = f"/corpora/china-japan/calibration?{query}"
    data = twin(client, address)
    assert message in data["errors"][name] and len(data["models"]) == 2
    if name == "bins":
        assert data["n_bins"] == 10
    page = soup_of(client.get(address))
    shown = words(page.find(id=f"calibration-{name}-error")) if name != "alpha" else words(page.find(class_="errors"))
    assert message in shown


def test_parameters_the_page_does_not_know_change_nothing(client):
    plain = twin(client, "/corpora/china-japan/calibration")
    odd = twin(client, "/corpora/china-japan/calibration?colour=red&bins_extra=3&presenterx=1")
    assert odd == plain and odd["errors"] == {}


def test_a_table_of_numbers_is_refused_with_where_its_own_scores_are(client):
    for address in ("/corpora/iris/calibration", "/corpora/iris/calibration?format=json"):
        response = client.get(address)
        assert response.status_code == 404
    assert "is a table of numbers" in client.get("/corpora/iris/calibration?format=json").get_json()["error"]
    page = soup_of(client.get("/corpora/iris/calibration"), 404)
    assert "/corpora/iris/gaussian/evaluation" in words(page.find(class_="errors"))
    assert client.get("/corpora/no-such-corpus/calibration").status_code == 404


def test_a_corpus_of_one_class_never_reaches_the_page(client):
    """A classifier needs two classes: the paste is refused, saying so, so no calibration of one class exists."""
    response = paste(client, "good\tnice match\ngood\tgreat game", "one class")
    assert response.status_code == 400
    assert "a classifier needs at least two classes" in words(soup_of(response, 400).find(class_="errors"))


def test_complement_naive_bayes_has_weights_not_probabilities_and_the_page_says_so(client):
    data = twin(client, "/corpora/spam-ham/calibration?model=complement")
    assert "weights, not probabilities" in data["error"] and "models" not in data
    page = soup_of(client.get("/corpora/spam-ham/calibration?model=complement"))
    assert "weights, not probabilities" in words(page.find(class_="errors"))
    assert page.find("svg", attrs={"data-figure": True}) is None


def test_a_test_corpus_with_a_class_the_model_never_saw_is_said_on_the_page(client):
    other = pasted_id(client, "positive\tsharp match\nelsewhere\tdull match", "odd classes")
    address = f"/corpora/match-reviews/calibration?test={other}"
    data = twin(client, address)
    assert "elsewhere" in data["error"] and "models" not in data
    page = soup_of(client.get(address))
    assert "elsewhere" in words(page.find(class_="errors")) and page.find("svg", attrs={"data-figure": True}) is None
    slide = soup_of(client.get(address + "&presenter=1")).find("section", class_="deck-slide")
    assert "No calibration:" in words(slide)


def test_a_hostile_class_label_stays_text(client):
    corpus = pasted_id(client, f"{HOSTILE}\tbrilliant keeper\n{HOSTILE}\tsharp match\nplain\tdull game\n"
                               "plain\tslow match", "hostile")
    for address in (f"/corpora/{corpus}/calibration?test=training",
                    f"/corpora/{corpus}/calibration?test=training&presenter=1"):
        response = client.get(address)
        body = response.get_data(as_text=True)
        assert response.status_code == 200 and "<script>alert(1)" not in body
        rows = soup_of(response).find("table", class_="calibration-classes").tbody.find_all("tr")
        assert [words(row.th) for row in rows] == sorted([HOSTILE, "plain"])
    data = twin(client, f"/corpora/{corpus}/calibration?test=training")
    assert [c["class"] for c in data["models"][0]["by_class"]] == sorted([HOSTILE, "plain"])
    # The review in the SVG file's state line is text too.
    svg = client.get(f"/corpora/{corpus}/figures/calibration/reliability.svg?test=training&text={quote_plus(HOSTILE)}")
    assert svg.status_code == 200 and b"<script>" not in svg.data
    assert HOSTILE in ET.fromstring(svg.data).find(f"{SVG}desc").text


def test_in_a_hosted_hall_a_fit_longer_than_the_limit_leaves_naive_bayes_alone_and_says_why(make_hosted_app):
    client = make_hosted_app(WEBNB_MAX_WORK_SECONDS=1e-9).test_client()
    data = twin(client, "/corpora/spam-ham/calibration")
    assert [m["key"] for m in data["models"]] == ["naive-bayes"]
    assert "this server allows 1e-09 s of work per request, so only Naive Bayes is shown" in data["logistic_problem"]
    assert "comparison" not in [s["about"] for s in data["statements"]]
    page = soup_of(client.get("/corpora/spam-ham/calibration"))
    assert "only Naive Bayes is shown" in words(page.find("section", id="calibration").find(class_="errors"))
    assert [words(line.title) for line in page.select('svg[data-figure="reliability"] polyline')] == [
        "Bernoulli Naive Bayes"]


# -- a large corpus: logistic regression is fitted in the background ------------------------------------------------


@pytest.mark.slow  # a job and two pages: about a second
def test_a_large_corpus_fits_logistic_regression_behind_a_progress_page_once(app, client, monkeypatch):
    monkeypatch.setattr("webnb.views.calibration.LARGE_CORPUS", 1)
    address = "/corpora/spam-ham/calibration?model=multinomial&alpha=1"
    first = client.get(address)
    assert first.status_code == 202
    job = soup_of(first, 202).select_one('a[href^="/jobs/"]')["href"].rsplit("/", 1)[-1]
    app.extensions["webnb"]["jobs"].wait(job, timeout=60)
    page = soup_of(client.get(address))
    assert page.find("svg", attrs={"data-figure": "reliability"}) is not None
    # Kept: another number of bins, the slide and the twin draw at once; another C fits again.
    assert client.get(address + "&bins=4").status_code == 200
    assert client.get(address + "&presenter=1").status_code == 200
    assert client.get(address + "&C=0.5").status_code == 202
    assert twin(client, address + "&C=0.25")["models"][1]["converged"]  # a twin fits in its request


# -- the chart geometry ---------------------------------------------------------------------------------------------


def test_the_reliability_diagram_puts_each_bin_at_its_confidence_and_accuracy():
    bins = (CalibrationBin(0.0, 0.5, 0, None, None), CalibrationBin(0.5, 1.0, 3, 0.75, 0.5))
    other = (CalibrationBin(0.0, 0.5, 1, 0.25, 1.0), CalibrationBin(0.5, 1.0, 3, 1.0, 1.0))
    chart = reliability_chart([("NB", bins), ("LR", other)], 2)
    plot_w, plot_h = chart.right - chart.left, chart.bottom - chart.top
    (nb,), lr = chart.series[0].markers, chart.series[1].markers
    assert (nb.x, nb.y) == (round(chart.left + 0.75 * plot_w, 1), round(chart.bottom - 0.5 * plot_h, 1))
    assert nb.radius > lr[0].radius  # three of three documents against one of four
    assert [s.shape for s in chart.series] == ["circle", "square"] and len(chart.series[0].points.split()) == 1
    assert chart.diagonal == (chart.left, chart.bottom, chart.right, chart.top)
    assert [e.label for e in chart.legend] == ["NB", "LR", DIAGONAL_LABEL]
    assert [t.label for t in chart.x_ticks] == ["0", "0.5", "1"]
    ten = reliability_chart([("NB", bins)], 10)
    assert [t.label for t in ten.x_ticks] == ["0", "", "0.2", "", "0.4", "", "0.6", "", "0.8", "", "1"]


def test_confidence_against_length_runs_on_a_log_scale_to_the_next_power_of_ten():
    groups = (LengthGroup(0, 9, 2, 0.6, 0.5, 0.0), LengthGroup(10, 250, 2, 0.99, 0.75, 0.5))
    chart = length_chart([("NB", groups)])
    assert [t.label for t in chart.x_ticks] == ["0", "1", "10", "100", "1,000"]
    first, second = chart.series[0].points
    assert chart.left == first.x_from and first.x < second.x < chart.right
    assert second.x == pytest.approx((second.x_from + second.x_to) / 2, abs=0.1)
    assert math.isclose(chart.x_ticks[-1].at, chart.right, abs_tol=0.1)
    # The y axis starts a tenth below the lowest value: 0.5 → 0.4.
    assert chart.y_ticks[0].label == "1" and chart.y_ticks[-1].label == "0.4"
    assert [e.label for e in chart.legend] == ["NB: mean confidence", "NB: accuracy"]
