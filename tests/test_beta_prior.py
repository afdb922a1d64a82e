"""Smoothing as a Beta prior: the engine's record (the three estimates exact, the curves sampled in log space), the
chart's geometry, and the page with its JSON twin, its errors and its links from the ψ cells and the smoothing step."""
from __future__ import annotations

import math
from fractions import Fraction
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest
from conftest import slow_but_the_first, soup_of

from webnb.engine.records.beta_prior import beta_curve, beta_prior
from webnb.lesson.beta_chart import BOTTOM, HEIGHT, LEFT, RIGHT, TOP, WIDTH, beta_chart

PATH = "/corpora/match-reviews/parameters/prior"
ALPHAS = ("0", "0.5", "1", "2")
HTMX = {"HX-Request": "true"}


def cells(model):
    return [(j, k) for j in range(len(model.vocabulary)) for k in range(len(model.classes))]


def area(curve) -> float:
    return float(np.trapezoid(curve.densities, curve.xs))


def peak_position(curve) -> float:
    return curve.xs[int(np.argmax(curve.densities))]


# -- the engine ------------------------------------------------------------------------------------------------------


def test_the_seed_cell_at_alpha_one_in_numbers(match_reviews):
    """"not" is in none of the 3 positive reviews: likelihood Beta(1, 4), prior Beta(2, 2), posterior Beta(2, 5)."""
    model = match_reviews.model("bernoulli", Fraction(1))
    data = beta_prior(model, match_reviews.bag.index["not"], model.classes.index("positive")).to_dict()
    assert (data["word"], data["class"], data["count"], data["total"], data["prior_parameter"]) == (
        "not", "positive", 0, 3, "2")
    assert data["estimates"] == {
        "mle": {"ratio": "0/3", "exact": "0", "value": 0.0},
        "map": {"ratio": "1/5", "exact": "1/5", "value": 0.2},
        "posterior_mean": {"ratio": "2/7", "exact": "2/7", "value": 2 / 7},
    }
    assert data["table"] == {"ratio": "1/5", "value": 0.2, "floored": False}
    shapes = {name: (c["a"], c["b"], c["mode"], c["mean"]) for name, c in data["curves"].items()}
    assert shapes == {"likelihood": ("1", "4", "0", "1/5"), "prior": ("2", "2", "1/2", "1/2"),
                      "posterior": ("2", "5", "1/5", "2/7")}
    assert data["curves"]["likelihood"]["peak_density"] == pytest.approx(4.0)  # Beta(1, 4) at 0: b
    assert data["curves"]["prior"]["peak_density"] == pytest.approx(1.5)
    assert data["x_max"] == 1.0


@pytest.mark.parametrize("alpha", ALPHAS)
def test_map_is_the_table_value_and_the_posterior_peak_in_every_cell(match_reviews, alpha):
    model = match_reviews.model("bernoulli", alpha)
    a = Fraction(alpha)
    for j, k in cells(model):
        view = beta_prior(model, j, k)
        count, total = view.cell.count, view.cell.total
        numerator, denominator = model.feature_ratio(k, j)
        assert view.map.exact == Fraction(numerator) / Fraction(denominator) == Fraction(count + a, total + 2 * a)
        assert float(view.map.exact) == model.feature_prob_[k, j]
        assert view.mle.exact == Fraction(count, total)
        assert view.posterior_mean.exact == Fraction(count + a + 1, total + 2 * a + 2)
        likelihood, prior, posterior = view.curves
        assert (likelihood.a, likelihood.b) == (count + 1, total - count + 1)
        assert (prior.a, prior.b) == (a + 1, a + 1)
        assert (posterior.a, posterior.b) == (count + a + 1, total - count + a + 1)
        # Each curve's highest sample is at its mode: the likelihood's at the MLE, the posterior's at the MAP.
        assert likelihood.mode == view.mle.exact and peak_position(likelihood) == float(view.mle.exact)
        assert posterior.mode == view.map.exact and peak_position(posterior) == float(view.map.exact)
        assert posterior.mean == view.posterior_mean.exact
        # The posterior mean, read off the drawn density, agrees with the exact one.
        drawn_mean = np.trapezoid(np.array(posterior.xs) * posterior.densities, posterior.xs)
        assert drawn_mean == pytest.approx(float(view.posterior_mean.exact), abs=1e-3)
        for curve in view.curves:
            assert curve.xs[0] == 0.0 and curve.xs[-1] == 1.0
            assert area(curve) == pytest.approx(1.0, abs=1e-3)


def test_alpha_zero_with_a_zero_count_gives_exactly_zero(match_reviews):
    model = match_reviews.model("bernoulli", 0)
    view = beta_prior(model, match_reviews.bag.index["not"], model.classes.index("positive"))
    assert view.mle.exact == view.map.exact == 0 and view.cell.zero
    prior = view.prior
    assert prior.mode is None and set(prior.densities) == {1.0}  # Beta(1, 1): flat, every ψ equally believed
    assert view.posterior.a == view.likelihood.a == 1 and view.posterior.b == view.likelihood.b == 4
    assert view.posterior.densities[0] == pytest.approx(4.0) and view.posterior.densities[-1] == 0.0
    certain = beta_prior(model, match_reviews.bag.index["not"], model.classes.index("negative"))
    assert certain.map.exact == 1 and certain.posterior.densities[-1] == pytest.approx(3.0)  # Beta(3, 1) at 1


@pytest.mark.parametrize("a, b", [(1, 10_001), (10_001, 1), (1001, 11_001), (2001, 1001), (1, 1_000_001),
                                  (Fraction(1001, 2), Fraction(1001, 2)), (3, 1)])
def test_large_counts_and_alphas_neither_overflow_nor_lose_the_peak(a, b):
    """α = 1000 or n = 10,000: densities in the thousands, computed through their logs, sampled densely enough
    around a narrow peak that the area is still 1."""
    curve = beta_curve("posterior", Fraction(a), Fraction(b))
    densities = np.array(curve.densities)
    assert np.isfinite(densities).all() and (densities >= 0).all()
    assert peak_position(curve) == pytest.approx(float(curve.mode), abs=1e-12)
    assert curve.peak == pytest.approx(max(densities))
    assert area(curve) == pytest.approx(1.0, abs=5e-3)
    expected_at_zero = float(b) if a == 1 else 0.0  # a parameter of 1 gives a finite endpoint
    assert curve.densities[0] == pytest.approx(expected_at_zero)


@pytest.mark.parametrize("alpha", ["0.5", "1", "2"])
def test_multinomial_theta_and_its_dirichlet(china_japan, alpha):
    """θ: MLE c/Σc, MAP (c + α)/(Σc + |V|α) (the θ table), posterior mean (c + α + 1)/(Σc + |V|(α + 1)), and θ_jk's
    marginal Betas, whose posterior peaks a little below the MAP."""
    model = china_japan.model("multinomial", alpha)
    a, size = Fraction(alpha), len(model.vocabulary)
    for j, k in cells(model):
        view = beta_prior(model, j, k)
        c, total = view.cell.count, view.cell.total
        assert view.mle.exact == Fraction(c, total)
        assert view.map.exact == Fraction(c + a, total + size * a) == Fraction(*model.feature_ratio(k, j))
        assert float(view.map.exact) == model.feature_prob_[k, j]
        assert view.posterior_mean.exact == Fraction(c + a + 1, total + size * (a + 1))
        likelihood, prior, posterior = view.curves
        assert (prior.a, prior.b) == (a + 1, (size - 1) * (a + 1))
        assert (posterior.a, posterior.b) == (c + a + 1, total - c + (size - 1) * (a + 1))
        assert likelihood.mode == view.mle.exact and posterior.mean == view.posterior_mean.exact
        assert posterior.mode < view.map.exact
        assert peak_position(posterior) == float(posterior.mode)
        for curve in view.curves:
            assert area(curve) == pytest.approx(1.0, abs=1e-3)
    chinese = beta_prior(model, china_japan.bag.index["chinese"], model.classes.index("China")).to_dict()
    if alpha == "1":
        assert [chinese["estimates"][name]["exact"] for name in ("mle", "map", "posterior_mean")] == [
            "5/8", "3/7", "7/20"]
        assert chinese["estimates"]["map"]["ratio"] == "6/14"


def test_a_theta_near_zero_gets_a_shorter_axis():
    """A large vocabulary puts θ near 0: the axis ends just past the curves, at a round number."""
    from webnb.engine import TrainingSet
    from webnb.engine.shared.corpus import Corpus

    words = [f"w{i:03d}" for i in range(400)]
    corpus = Corpus(texts=(" ".join(words), " ".join(words[:200])), labels=("a", "b"), ids=("1", "2"))
    training = TrainingSet.build(corpus)
    model = training.model("multinomial", 1)
    view = beta_prior(model, training.bag.index["w000"], 0)
    assert view.x_max in (0.01, 0.02, 0.05) and view.x_max >= float(view.posterior_mean.exact)
    for curve in view.curves:
        assert curve.xs[-1] == view.x_max and area(curve) == pytest.approx(1.0, abs=5e-3)


# -- the chart -------------------------------------------------------------------------------------------------------


def test_each_curve_reaches_the_top_at_its_peak_and_the_estimates_stand_where_they_are(match_reviews):
    model = match_reviews.model("bernoulli", 1)
    view = beta_prior(model, match_reviews.bag.index["composed"], model.classes.index("positive"))  # 2 of 3
    chart = beta_chart(view)
    assert (chart.width, chart.height, chart.left, chart.right, chart.top, chart.bottom) == (
        WIDTH, HEIGHT, LEFT, WIDTH - RIGHT, TOP, HEIGHT - BOTTOM)
    plot_w = chart.right - chart.left
    for line, curve in zip(chart.lines, view.curves, strict=True):
        points = [tuple(map(float, p.split(","))) for p in line.points.split()]
        at_mode = round(chart.left + float(curve.mode) * plot_w, 1)
        assert (at_mode, chart.top) in points  # the peak, at the top
        assert all(chart.top <= y <= chart.bottom for _, y in points)
        assert points[0][0] == chart.left and points[-1][0] == chart.right
    where = {m.name: m.x for m in chart.markers}
    assert where == {"mle": round(LEFT + 2 / 3 * plot_w, 1), "map": round(LEFT + 3 / 5 * plot_w, 1),
                     "posterior_mean": round(LEFT + 4 / 7 * plot_w, 1)}
    assert len({m.label_y for m in chart.markers}) == 3  # one row each: close estimates keep readable labels
    assert [t.label for t in chart.x_ticks] == ["0", "0.25", "0.5", "0.75", "1"]


# -- the page --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("alpha", slow_but_the_first(1, ALPHAS))
def test_the_page_twin_agrees_with_the_parameters_table_in_every_cell(client, alpha):
    state = {"model": "bernoulli", "alpha": alpha}
    table = client.get("/corpora/match-reviews/parameters", query_string={**state, "format": "json"}).get_json()
    a = Fraction(alpha)
    for word in table["words"]:
        for label, expected in zip(table["classes"], word["per_class"], strict=True):
            response = client.get(PATH, query_string={**state, "word": word["word"], "class": label,
                                                      "format": "json"})
            data = response.get_json()
            assert response.status_code == 200
            assert data["estimates"]["map"]["ratio"] == data["table"]["ratio"] == expected["ratio"]
            assert data["estimates"]["map"]["value"] == data["table"]["value"] == expected["value"]
            count, total = data["count"], data["total"]
            assert Fraction(data["estimates"]["posterior_mean"]["exact"]) == Fraction(count + a + 1, total + 2 * a + 2)


def test_the_page_shows_the_formulas_filled_in(client):
    soup = soup_of(client.get(PATH, query_string={"word": "composed", "class": "positive", "model": "bernoulli",
                                                  "alpha": "0.5"}))
    assert soup.find("h1") is not None
    rows = {row.th.contents[0].strip(): [row.find(class_="formula-general").get_text(" ", strip=True),
                                         row.find(class_="formula-filled").get_text(" ", strip=True),
                                         row.find(class_="num").get_text(" ", strip=True)]
            for row in soup.find("table", class_="beta-estimates").tbody.find_all("tr")}
    assert rows == {
        "MLE": ["n jk / n k", "= 2/3", "2/3 ≈ 0.6667"],
        "MAP": ["(n jk + α) / (n k + 2α)", "= (2 + 0.5) / (3 + 2 × 0.5) = 2.5/4", "5/8 ≈ 0.625"],
        "Posterior mean": ["(n jk + α + 1) / (n k + 2α + 2)", "= (2 + 0.5 + 1) / (3 + 2 × 0.5 + 2) = 3.5/6",
                           "7/12 ≈ 0.5833"],
    }
    chosen = soup.find("table", class_="beta-estimates").find("tr", class_="chosen")
    assert chosen.th.get_text(" ", strip=True) == "MAP the posterior's peak: the ψ table's value"
    svg = soup.find("svg", class_="beta-chart")
    assert svg["role"] == "img" and svg.title.get_text().startswith("Likelihood, prior and posterior of ψ")
    assert "each scaled to its own peak" in svg.title.get_text()
    assert [p["class"] for p in svg.find_all("polyline")] == [
        ["curve", "curve-likelihood"], ["curve", "curve-prior"], ["curve", "curve-posterior"]]
    curves = {row.th.get_text(): row.td.get_text() for row in soup.find("table", class_="beta-curves").tbody("tr")}
    assert curves == {"likelihood": "Beta(3, 2)", "prior": "Beta(1.5, 1.5)", "posterior": "Beta(3.5, 2.5)"}
    assert "scaled to its own peak, not drawn as a density" in soup.find("figure").get_text(" ")
    assert soup.find(class_="warning") is None


def test_alpha_zero_and_a_zero_count_on_the_page(client):
    soup = soup_of(client.get(PATH, query_string={"word": "not", "class": "positive", "model": "bernoulli",
                                                  "alpha": "0"}))
    warning = soup.find(class_="warning").get_text(" ", strip=True)
    assert "the MAP is the MLE" in warning and "0 of 3 gives ψ = 0 exactly" in warning
    assert {m.get_text() for m in soup.find("svg").find_all("text", class_="estimate-label")} == {
        "MLE", "MAP", "posterior mean"}
    current = soup.find("nav", class_="beta-choices").find("a", attrs={"aria-current": "page"})
    assert current.get_text() == "0"


def test_the_multinomial_page_speaks_of_a_dirichlet(client):
    soup = soup_of(client.get("/corpora/china-japan/parameters/prior",
                              query_string={"word": "chinese", "class": "China", "model": "multinomial", "alpha": "1"}))
    text = " ".join(soup.find(id="prior").get_text(" ").split())
    assert "Dirichlet(α + 1, …, α + 1)" in text and "6 parameters each 2" in text
    rows = [(row.find(class_="formula-filled").get_text(" ", strip=True), row.find(class_="num").get_text())
            for row in soup.find("table", class_="beta-estimates").tbody.find_all("tr")]
    assert rows == [("= 5/8", "5/8 ≈ 0.625"), ("= (5 + 1) / (8 + 6 × 1) = 6/14", "3/7 ≈ 0.4286"),
                    ("= (5 + 1 + 1) / (8 + 6 × (1 + 1)) = 7/20", "7/20 ≈ 0.35")]
    curves = {row.th.get_text(): row.td.get_text() for row in soup.find("table", class_="beta-curves").tbody("tr")}
    assert curves == {"likelihood": "Beta(6, 4)", "prior": "Beta(2, 10)", "posterior": "Beta(7, 13)"}


def test_the_fragment_is_the_block_alone(client):
    response = client.get(PATH, headers=HTMX, query_string={"word": "not", "class": "positive", "alpha": "1"})
    body = response.get_data(as_text=True)
    assert response.status_code == 200 and "<html" not in body and response.headers["Vary"] == "HX-Request"
    soup = soup_of(response)
    assert soup.find("section")["id"] == "prior" and soup.find("svg", class_="beta-chart") is not None
    links = soup.find("nav", class_="beta-choices").find_all("a")
    assert [a.get_text() for a in links] == ["0", "0.5", "1", "2", "negative"]
    assert all(a["hx-target"] == "#prior" and a["hx-get"] == a["href"] for a in links)
    query = parse_qs(urlsplit(links[0]["href"]).query)
    assert (query["alpha"], query["word"], query["class"]) == (["0"], ["not"], ["positive"])


def test_a_hostile_word_and_class_are_escaped(client):
    hostile = "<script>alert(1)</script>"
    pasted = client.post("/corpora/paste", data={"corpus": f"<b>x</b>,{hostile} two\nok,three four"})
    corpus_id = pasted.headers["Location"].rsplit("/", 1)[1]
    query = {"word": hostile, "class": "<b>x</b>", "tokens": "whitespace", "lowercase": "0"}
    response = client.get(f"/corpora/{corpus_id}/parameters/prior", query_string=query)
    body = response.get_data(as_text=True)
    assert response.status_code == 200, body[:300]
    assert hostile not in body and "<b>x</b>" not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body and "&lt;b&gt;x&lt;/b&gt;" in body
    data = client.get(f"/corpora/{corpus_id}/parameters/prior", query_string={**query, "format": "json"}).get_json()
    assert (data["word"], data["class"], data["count"]) == (hostile, "<b>x</b>", 1)


@pytest.mark.parametrize("query, status, message", [
    ({"class": "positive"}, 400, "Which word? Name it with word=…"),
    ({"word": "not"}, 400, "Which class? Name it with class=…"),
    ({"word": "zebra", "class": "positive"}, 404, "“zebra” is not a word of this vocabulary."),
    ({"word": "not", "class": "neutral"}, 404, "“neutral” is not a class of this corpus."),
    ({"word": "not", "class": ""}, 404, "“” is not a class of this corpus."),
])
def test_a_missing_or_unknown_word_or_class(client, query, status, message):
    response = client.get(PATH, query_string=query)
    soup = soup_of(response, status)
    alerts = [alert.get_text(" ", strip=True) for alert in soup.find_all(role="alert")]
    assert len(alerts) == 1 and alerts[0].startswith(message)
    data = client.get(PATH, query_string={**query, "format": "json"})
    assert data.status_code == status and data.get_json()["error"].startswith(message.rstrip("…"))


def test_an_unknown_corpus_is_a_404(client):
    assert client.get("/corpora/no-such-corpus/parameters/prior", query_string={"word": "not"}).status_code == 404


def test_a_class_without_words_has_no_mle_and_one_word_has_no_curve(client):
    """α = 1 makes a model of a class with no word of the vocabulary: its MLE is 0/0. A vocabulary of one word makes
    θ = 1 whatever the counts, and no Beta can be drawn."""
    base = client.post("/corpora/paste", data={"corpus": "silent,x y\nsilent,a b\nloud,keeper match\nloud,match"}
                       ).headers["Location"]
    query = {"word": "match", "class": "silent", "model": "multinomial", "alpha": "1"}
    data = client.get(f"{base}/parameters/prior", query_string={**query, "format": "json"}).get_json()
    assert data["estimates"]["mle"] == {"ratio": None, "exact": None, "value": None}
    assert (data["estimates"]["map"]["ratio"], data["estimates"]["posterior_mean"]["ratio"]) == ("1/2", "2/4")
    assert data["curves"]["likelihood"]["mode"] is None  # flat: nothing was counted
    soup = soup_of(client.get(f"{base}/parameters/prior", query_string=query))
    assert soup.find("svg").desc.get_text().startswith("The likelihood is flat: the class has no words")
    assert "none: the class has no words" in soup.find("table", class_="beta-estimates").get_text()
    one_word = client.get(f"{base}/parameters/prior", query_string={**query, "min_df": "2", "format": "json"})
    assert one_word.get_json()["curves"] == {} and one_word.get_json()["estimates"]["map"]["exact"] == "1"
    page = soup_of(client.get(f"{base}/parameters/prior", query_string={**query, "min_df": "2"}))
    assert page.find("svg", class_="beta-chart") is None and "there is nothing to draw" in page.get_text()


def test_a_model_that_cannot_be_made_is_said(client):
    pasted = client.post("/corpora/paste", data={"corpus": "silent,x y\nsilent,a b\nloud,keeper match\nloud,match"})
    base = pasted.headers["Location"]
    query = {"word": "match", "class": "loud", "model": "multinomial", "alpha": "0", "min_df": "2"}
    data = client.get(f"{base}/parameters/prior", query_string={**query, "format": "json"}).get_json()
    assert data["error"].startswith("Class 'silent' has no words in the vocabulary")


# -- the links to it -------------------------------------------------------------------------------------------------


def test_every_opened_cell_links_to_its_prior(client):
    soup = soup_of(client.get("/corpora/match-reviews/parameters/cell",
                              query_string={"word": "not", "model": "bernoulli", "alpha": "0"}))
    links = [f.find("p", class_="prior-link").a["href"] for f in soup.find_all(class_="cell-formula")]
    assert [parse_qs(urlsplit(href).query)["class"] for href in links] == [["negative"], ["positive"]]
    for href in links:
        assert urlsplit(href).path == PATH and parse_qs(urlsplit(href).query)["alpha"] == ["0"]
        assert client.get(href).status_code == 200


def test_the_smoothing_step_links_to_its_first_zero_factor(client):
    query = {"text": "not sharp match", "model": "bernoulli", "alpha": "0", "step": "smoothing"}
    soup = soup_of(client.get("/corpora/match-reviews/inference", query_string=query))
    href = soup.find(class_="prior-link").a["href"]
    linked = parse_qs(urlsplit(href).query)
    assert urlsplit(href).path == PATH
    assert (linked["word"], linked["class"], linked["alpha"], linked["text"]) == (
        ["not"], ["positive"], ["0"], ["not sharp match"])
    data = client.get(href + "&format=json").get_json()
    assert data["estimates"]["map"]["exact"] == "0" and math.isclose(data["curves"]["prior"]["peak_density"], 1.0)
