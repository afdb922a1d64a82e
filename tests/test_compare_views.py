"""The "compare models" page: the five models' numbers in the page and its JSON twin, the form, bad input,
the background job for a large corpus, and user text kept inert."""
from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from conftest import slow_but_the_first, soup_of

from webnb.engine import Corpus
from webnb.engine.evaluation.comparison import PRECISE_STOPPING, compare_models, duration
from webnb.engine.evaluation.heldout import hold_out
from webnb.examples import load_example_corpus
from webnb.views.common import LARGE_CORPUS

PAGE = "/corpora/spam-ham/compare"
KEYS = ("bernoulli", "multinomial", "multinomial-binary", "complement", "logistic")


def row_cells(soup: BeautifulSoup, key: str) -> list[str]:
    row = soup.find("tr", id=f"model-{key}")
    return [" ".join(cell.get_text(" ", strip=True).split()) for cell in row.find_all(["th", "td"])]


def expected(test_size=0.25, seed=0, alpha=1, C=1.0):
    """The same comparison computed straight from the engine, for the page to match."""
    return compare_models(hold_out(load_example_corpus("spam-ham"), test_size=test_size, seed=seed), alpha, C)


# -- the numbers --------------------------------------------------------------------------------------------------


def test_the_page_shows_every_model_with_the_best_marked(client):
    response = client.get(PAGE)
    assert response.status_code == 200 and "HX-Request" in response.headers["Vary"]
    soup = soup_of(response)
    table = soup.find("table", class_="comparison")
    headers = [th.get_text(" ", strip=True) for th in table.thead.find_all("th")]
    assert headers == ["Model", "Features", "Accuracy", "Cannot decide", "Log loss", "Fit time", "Predict time"]
    assert [row["id"] for row in table.tbody.find_all("tr")] == [f"model-{key}" for key in KEYS]
    reference = expected()
    for key in KEYS:
        score = reference.score(key)
        cells = row_cells(soup, key)
        assert cells[0].startswith(score.name)
        assert cells[2].startswith(f"{score.accuracy * 100:.2f} %")
        assert f"{score.correct} of 4" in cells[2]
        assert cells[3] == str(score.undecidable)
        assert cells[4] == (f"{score.log_loss:.4f}" if key != "complement" else "— scores, not probabilities")
        assert cells[5].endswith(("µs", "ms", " s")) and cells[6].endswith(("µs", "ms", " s"))
    # 2, 4, 4, 4 and 3 of the 4 test messages: the two multinomial models and the complement one tie for best
    assert [row_cells(soup, key)[2].split(" %")[0] for key in KEYS] == ["50.00", "100.00", "100.00", "100.00", "75.00"]
    best = [row["id"] for row in table.find_all("tr", class_="best")]
    assert best == ["model-multinomial", "model-multinomial-binary", "model-complement"]
    assert all(soup.find("tr", id=f"model-{k}").find(class_="best-mark")
               for k in ("multinomial", "multinomial-binary", "complement"))
    assert soup.find("tr", id="model-logistic").find(class_="best-mark") is None
    logistic_iterations = reference.score("logistic").iterations
    assert f"{logistic_iterations} L-BFGS iterations" in row_cells(soup, "logistic")[0]
    # the generative / discriminative table
    families = soup.find("table", class_="families")
    assert [th.get_text(strip=True) for th in families.thead.find_all("th")][1:] == [
        "Naive Bayes: generative", "Logistic regression: discriminative"
    ]
    assert "P(x, y) = P(y) P(x | y)" in families.get_text()


def test_the_json_twin_has_the_same_numbers(client):
    data = client.get(PAGE, query_string={"format": "json"}).get_json()
    reference = expected().to_dict()
    comparison = data["comparison"]
    for ours, theirs in zip(comparison["models"], reference["models"], strict=True):
        for field in ("key", "correct", "accuracy", "undecidable", "log_loss", "iterations", "converged"):
            assert ours[field] == theirs[field], field
    assert comparison["best"] == ["multinomial", "multinomial-binary", "complement"]
    assert [pair["models"] for pair in comparison["pairs"]] == [
        [KEYS[i], KEYS[j]] for i in range(len(KEYS)) for j in range(i + 1, len(KEYS))]
    assert comparison["pairs"] == reference["pairs"]
    assert (comparison["n_train"], comparison["n_test"], comparison["alpha"], comparison["C"]) == (12, 4, 1, 1.0)
    assert data["held_out"] == {"source": "split", "test_size": 0.25, "seed": 0, "n_train": 12, "n_test": 4}
    assert data["error"] is None and data["errors"] == {}
    assert [row["question"] for row in data["contrasts"]][0] == "What is modelled"


def test_each_pair_of_models_says_whether_its_difference_is_real_as_the_twin_does(client):
    """McNemar's exact test per pair: the page's counts, p-values and verdicts are the twin's, on the page and on the
    slide (whose sentence is about the two most accurate models)."""
    data = client.get(PAGE, query_string={"format": "json"}).get_json()["comparison"]
    soup = soup_of(client.get(PAGE))
    rows = soup.find("table", class_="pair-tests").tbody.find_all("tr")
    assert len(rows) == len(data["pairs"]) == 10
    for row, pair in zip(rows, data["pairs"], strict=True):
        first, second = pair["models"]
        assert row["id"] == f"pair-{first}-{second}"
        cells = [td.get_text(" ", strip=True) for td in row.find_all("td")]
        assert cells[:2] == [str(pair["only_first_right"]), str(pair["only_second_right"])]
        assert float(row["data-p"]) == pair["p_value"]
        assert row["data-tells-apart"] == str(pair["tells_apart"]).lower()
        assert cells[3].startswith("yes") if pair["tells_apart"] else cells[3] == "cannot tell apart on these documents"
    # four test messages cannot tell any two models apart: Bernoulli's 2 right against multinomial's 4 is p = 1/2
    bernoulli_multinomial = data["pairs"][0]
    assert (bernoulli_multinomial["only_second_right"], bernoulli_multinomial["p_exact"]) == (2, "1/2")
    assert not any(pair["tells_apart"] for pair in data["pairs"])
    slide = soup_of(client.get(PAGE, query_string={"presenter": "1"}))
    verdict = slide.find("p", class_="pair-verdict")
    closest = next(p for p in data["pairs"] if p["models"] == ["multinomial", "multinomial-binary"])
    assert verdict["data-tells-apart"] == "false" and float(verdict["data-p"]) == closest["p_value"] == 1
    text = " ".join(verdict.get_text().split())
    assert text == ("Top two, Multinomial Naive Bayes and Multinomial Naive Bayes, binary: 0 against 0 documents only "
                    "one of them gets right, p = 1 (McNemar): too close to tell apart.")
    note = verdict.find_next_sibling("p").get_text(" ", strip=True)
    assert note == "Lower log loss is better; Complement Naive Bayes gives scores, not probabilities."


def test_alpha_comes_from_the_lesson_state(client):
    data = client.get(PAGE, query_string={"format": "json", "alpha": "0"}).get_json()["comparison"]
    reference = expected(alpha=0)
    multinomial = data["models"][1]
    assert multinomial["undecidable"] == reference.score("multinomial").undecidable > 0
    assert multinomial["log_loss"] == "inf" and data["alpha"] == 0
    soup = soup_of(client.get(PAGE, query_string={"alpha": "0"}))
    cells = row_cells(soup, "multinomial")
    assert cells[3] == str(reference.score("multinomial").undecidable)
    assert cells[4] == f"∞ {reference.score('multinomial').infinite_loss_documents} at P = 0"
    assert "breaks" in soup.find("tr", id="model-multinomial").find_all("td")[2]["class"]


def test_C_and_the_split_are_page_settings(client):
    query = {"C": "0.05", "test_size": "0.5", "seed": "3"}
    data = client.get(PAGE, query_string={**query, "format": "json"}).get_json()
    reference = expected(test_size=0.5, seed=3, C=0.05)
    assert data["C"] == 0.05 and data["comparison"]["C"] == 0.05
    assert data["held_out"]["n_test"] == reference.n_test == 8 and data["held_out"]["seed"] == 3
    assert [m["correct"] for m in data["comparison"]["models"]] == [s.correct for s in reference.models]
    soup = soup_of(client.get(PAGE, query_string=query))
    form = soup.find("form", class_="compare-form")
    values = {field["name"]: field["value"] for field in form.find_all("input") if field.get("type") != "hidden"}
    assert values == {"alpha": "1", "C": "0.05", "test_size": "0.5", "seed": "3", "splits": ""}  # blank: one split
    hidden = [field["name"] for field in form.find_all("input", type="hidden")]
    assert not {"alpha", "C", "test_size", "seed"} & set(hidden) and "model" in hidden
    assert form["method"] == "get" and form["hx-target"] == "#compare" and form["hx-push-url"] == "true"
    assert form.find("button", class_="no-js-only")


def test_an_htmx_request_gets_only_the_section(client):
    response = client.get(PAGE, query_string={"C": "2"}, headers={"HX-Request": "true"})
    text = response.get_data(as_text=True)
    assert "<html" not in text and text.lstrip().startswith("<section id=\"compare\"")
    assert soup_of(response).find("table", class_="comparison")


def test_the_training_documents_as_test_set(client):
    soup = soup_of(client.get(PAGE, query_string={"test": "training"}))
    assert "flatters" in soup.find(id="compare").get_text()
    assert soup.find("input", id="compare-seed") is None
    assert "16 of 16" in row_cells(soup, "multinomial")[2]


def test_testing_on_the_training_documents_keeps_the_split_in_hidden_fields(client):
    """The split's inputs are hidden while the training documents are the test set; the split comes back with them."""
    soup = soup_of(client.get(PAGE, query_string={"test": "training", "test_size": "0.5", "seed": "3"}))
    form = soup.find("form", class_="compare-form")
    hidden = [(field["name"], field["value"]) for field in form.find_all("input", type="hidden")]
    assert [pair for pair in hidden if pair[0] in ("test_size", "seed")] == [("test_size", "0.5"), ("seed", "3")]
    assert ("test", "training") in hidden


def test_a_fit_stopped_by_the_iteration_cap_is_flagged(client, monkeypatch):
    from webnb.engine.evaluation import comparison

    monkeypatch.setattr(comparison, "PRECISE_STOPPING", comparison.StoppingRule(1e-4, 2))
    soup = soup_of(client.get(PAGE, query_string={"C": "1000"}))
    note = soup.find("tr", id="model-logistic").find(class_="not-converged")
    assert note.get_text(" ", strip=True) == "2 L-BFGS iterations: stopped before converging"
    assert "stopped at the 2-iteration limit" in soup.find("p", class_="warning").get_text()
    data = client.get(PAGE, query_string={"C": "1000", "format": "json"}).get_json()["comparison"]
    assert data["models"][4]["converged"] is False and data["max_iterations"] == 2


# -- bad input ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["0", "abc"] + [  # two in the fast run
    pytest.param(bad, marks=pytest.mark.slow) for bad in ("-2", "1e9", "nan", "inf", "1,5")])
def test_a_bad_C_gives_a_message_and_the_default(client, bad):
    response = client.get(PAGE, query_string={"C": bad})
    assert response.status_code == 200
    soup = soup_of(response)
    error = soup.find(id="compare-C-error")
    assert "C" in error.get_text() and "Showing C = 1." in error.get_text()
    field = soup.find("input", id="compare-C")
    assert field["value"] == bad and field["aria-invalid"] == "true"
    assert soup.find("table", class_="comparison")  # still compared, with C = 1, and says so
    assert "logistic regression uses C = 1." in soup.find(id="compare").get_text()
    assert soup.find(class_="settings-summary").get_text() == "α = 1, C = 1"
    data = client.get(PAGE, query_string={"C": bad, "format": "json"}).get_json()
    assert data["C"] == 1.0 and "C" in data["errors"]


def test_bad_lesson_settings_are_named_not_a_500(client):
    response = client.get(PAGE, query_string={"alpha": "-1", "test_size": "2", "seed": "x"})
    assert response.status_code == 200
    soup = soup_of(response)
    errors = soup.find("div", class_="errors").get_text()
    assert "alpha" in errors and "test_size" in errors and "seed" in errors
    assert soup.find(id="compare-alpha-error")
    assert soup.find("table", class_="comparison")


def test_a_missing_test_corpus_is_a_message(client):
    response = client.get(PAGE, query_string={"test": "nosuchcorpus"})
    assert response.status_code == 200
    soup = soup_of(response)
    assert soup.find("div", class_="errors") and soup.find("table", class_="comparison") is None
    assert soup.find("table", class_="families")  # the explanation stays
    data = client.get(PAGE, query_string={"test": "nosuchcorpus", "format": "json"}).get_json()
    assert data["error"] and "comparison" not in data


def test_unknown_corpus_is_404(client):
    assert client.get("/corpora/nope/compare").status_code == 404


HOSTILE = ["<script>alert(1)</script>", '"><img src=x onerror=alert(1)>', "' onmouseover='alert(1)"]


@pytest.mark.parametrize("hostile", slow_but_the_first(1, HOSTILE))
def test_hostile_labels_names_and_settings_are_escaped(app, client, hostile):
    corpus = Corpus.from_pairs([(hostile if i % 2 else "plain", f"{hostile} word{i % 5} text{i}") for i in range(12)])
    corpus_id = app.extensions["webnb"]["catalog"].add(corpus, name=hostile, source="test")
    for headers in ({}, {"HX-Request": "true"}):
        response = client.get(f"/corpora/{corpus_id}/compare", query_string={"C": hostile}, headers=headers)
        assert response.status_code == 200
        soup = soup_of(response)
        assert soup.find("img") is None
        assert all(script.get("src", "").startswith("/static/") for script in soup.find_all("script"))
        assert not any(name.startswith("on") for element in soup.find_all(True) for name in element.attrs)
        labels = [span.get_text() for span in soup.find_all("span", class_="class-name")]
        assert sorted(labels) == sorted(["plain", hostile])
        assert soup.find("input", id="compare-C")["value"] == hostile[:20]


# -- a large corpus: a background job, then the cached result ------------------------------------------------------


def big_corpus(n: int) -> Corpus:
    return Corpus.from_pairs(
        (("spam", f"win cash prize{i % 7} now call") if i % 2 else ("ham", f"lunch at noon with friend{i % 11}"))
        for i in range(n)
    )


def follow_job(app, response) -> object:
    """Wait for the job behind a 202 progress page; return it."""
    job_url = soup_of(response, status=202).find(id="job")["hx-get"]
    return app.extensions["webnb"]["jobs"].wait(job_url.rsplit("/", 1)[1], timeout=120)


@pytest.mark.slow  # about 1 s
def test_a_large_corpus_is_compared_in_the_background(app, client):
    n = 2_100
    assert n > LARGE_CORPUS
    corpus_id = app.extensions["webnb"]["catalog"].add(big_corpus(n), name="Big", source="test")
    url = f"/corpora/{corpus_id}/compare"
    query = {"C": "0.5", "seed": "1"}
    first = client.get(url, query_string=query)
    if "Counting the training part" in soup_of(first, status=202).h1.get_text():  # the split is counted first
        assert follow_job(app, first).state == "done"
        first = client.get(url, query_string=query)
    assert "Fitting 5 models on 1,576 documents" in soup_of(first, status=202).h1.get_text()
    job = follow_job(app, first)
    assert job.state == "done", job.error
    assert job.result_url.startswith(url) and "C=0.5" in job.result_url
    assert job.total == 4 + PRECISE_STOPPING.max_iterations and job.done == job.total
    assert client.get(job.result_url).status_code == 200

    page = client.get(url, query_string=query)
    assert page.status_code == 200
    soup = soup_of(page)
    assert row_cells(soup, "logistic")[2].startswith("100.00 %")  # the two kinds of message never share a word
    # the cached comparison answers the JSON twin too, with the same timings
    data = client.get(url, query_string={**query, "format": "json"}).get_json()
    assert data["comparison"]["n_test"] == 524 and data["comparison"]["C"] == 0.5
    assert [m["accuracy"] for m in data["comparison"]["models"]] == [1.0] * 5
    assert row_cells(soup, "logistic")[5] == duration(data["comparison"]["models"][4]["fit_seconds"])
    # other settings, asked as JSON, are computed there and then: no job, no progress page
    other = client.get(url, query_string={**query, "C": "3", "format": "json"})
    assert other.status_code == 200 and other.get_json()["comparison"]["C"] == 3.0


def test_an_htmx_request_for_a_large_corpus_gets_the_progress_fragment(app, client):
    corpus_id = app.extensions["webnb"]["catalog"].add(big_corpus(2_100), name="Big", source="test")
    response = client.get(f"/corpora/{corpus_id}/compare", headers={"HX-Request": "true"})
    text = response.get_data(as_text=True)
    assert "<html" not in text and soup_of(response, status=202).find(id="job")
    follow_job(app, response)



def test_the_sweep_of_a_large_corpus_is_scored_in_the_background(app, client):
    corpus_id = app.extensions["webnb"]["catalog"].add(big_corpus(2_100), name="Big", source="test")
    url = f"/corpora/{corpus_id}/evaluation/sweep"
    first = client.get(url)
    if "Counting the training part" in soup_of(first, status=202).h1.get_text():  # the split is counted first
        assert follow_job(app, first).state == "done"
        first = client.get(url)
    assert "Scoring 20 values of α on 524 test documents" in soup_of(first, status=202).h1.get_text()
    job = follow_job(app, first)
    assert job.state == "done", job.error
    assert (job.done, job.total, job.unit) == (20, 20, "values of α") and job.result_url == url + "?"
    page = soup_of(client.get(url))
    data = client.get(url, query_string={"format": "json"}).get_json()
    assert len(data["points"]) == 20 and data["kind"] == "multinomial"
    assert page.find(id="sweep").find("svg") is not None  # the chart, drawn from the kept sweep
    # another model's sweep, asked as JSON, is scored there and then: no job
    other = client.get(url, query_string={"model": "bernoulli", "format": "json"})
    assert other.status_code == 200 and other.get_json()["kind"] == "bernoulli"


def test_a_difference_beyond_chance_is_called_real_on_the_page_and_in_the_twin(client):
    """Ten documents of each class with the same two words, told apart only by how often each occurs: every model of
    presence (Bernoulli, binary multinomial) sees twenty identical documents and gets half right, the models of counts
    get all twenty. Ten documents only one side gets right: p = 2/2¹⁰ = 1/512, below 1/20."""
    from conftest import pasted_id

    lines = ["alpha\tred red red blue"] * 10 + ["beta\tred blue blue blue"] * 10
    corpus_id = pasted_id(client, "\n".join(lines), "counts matter")
    query = {"test": "training"}
    data = client.get(f"/corpora/{corpus_id}/compare", query_string={**query, "format": "json"}).get_json()
    pairs = {tuple(pair["models"]): pair for pair in data["comparison"]["pairs"]}
    real = pairs[("bernoulli", "multinomial")]
    assert (real["only_first_right"], real["only_second_right"], real["p_exact"]) == (0, 10, "1/512")
    assert real["tells_apart"] is True and real["level"] == "1/20"
    soup = soup_of(client.get(f"/corpora/{corpus_id}/compare", query_string=query))
    row = soup.find("tr", id="pair-bernoulli-multinomial")
    assert row["data-tells-apart"] == "true"
    assert row.find_all("td")[3].get_text(" ", strip=True) == "yes : p below 1/20"
    assert row.find_all("td")[2].get_text(strip=True) == "0.00195"


# -- several splits ----------------------------------------------------------------------------------------------


def test_splits_show_each_model_over_the_splits_as_the_twin_says(client):
    from webnb.engine.evaluation.comparison import compare_over_splits

    query = {"splits": "5", "seed": "2", "alpha": "1"}
    soup = soup_of(client.get(PAGE, query_string=query))
    data = client.get(PAGE, query_string={**query, "format": "json"}).get_json()
    corpus = load_example_corpus("spam-ham")
    reference = compare_over_splits(lambda seed: hold_out(corpus, test_size=0.25, seed=seed), range(2, 7), 1, 1.0)
    assert data["splits"] == reference.to_dict() and data["splits"]["seeds"] == [2, 3, 4, 5, 6]
    for model, entry in zip(reference.models, data["comparison"]["models"], strict=True):
        assert entry["key"] == model.key and entry["interval"] == list(model.interval)
        cells = [c.get_text(" ", strip=True) for c in soup.find("tr", id=f"splits-{model.key}").find_all(["th", "td"])]
        low, high = model.interval
        assert cells[1:] == [f"{model.mean * 100:.2f} %", f"{low * 100:.2f}–{high * 100:.2f} %", f"{model.wins} of 5"]
    verdict = soup.find("p", class_="splits-verdict")
    assert verdict["data-always-best"] == "|".join(data["splits"]["always_best"])
    names = data["splits"]["always_best"]
    assert verdict.get_text(" ", strip=True).startswith("; ".join(names) if len(names) > 1 else names[0] if names
                                                        else "No model came out best on every split")
    assert soup.find("input", id="compare-splits")["value"] == "5"
    # the slide keeps the splits' table and verdict one key away (the slide itself has no room for them)
    slide = soup_of(client.get(PAGE, query_string={**query, "presenter": "1"}))
    assert slide.select_one("details.full-table summary").get_text(" ", strip=True).endswith("; 5 splits")
    assert slide.select_one("details.full-table table.splits-table")
    assert slide.select_one("details.full-table p.splits-verdict").get_text(" ", strip=True) == verdict.get_text(
        " ", strip=True)


def test_without_splits_the_page_compares_one_split(client):
    soup = soup_of(client.get(PAGE))
    assert soup.find("table", class_="splits-table") is None and soup.find(class_="splits-verdict") is None
    data = client.get(PAGE, query_string={"format": "json"}).get_json()
    assert "splits" not in data and all("interval" not in m for m in data["comparison"]["models"])


@pytest.mark.parametrize("query, message", [
    ({"splits": "1"}, "Repeated splits are a whole number from 2 to 30, not “1”; this comparison is on one split."),
    ({"splits": "many"}, "not “many”"),
    ({"splits": "31"}, "not “31”"),
    ({"splits": "3", "test": "training"}, "Repeated splits need a share of the corpus held out; this comparison tests "
                                          "on the training documents"),
])
def test_splits_that_cannot_be_used_are_named_and_one_split_shown(client, query, message):
    data = client.get(PAGE, query_string={**query, "format": "json"}).get_json()
    assert message in data["errors"]["splits"] and "splits" not in data and data["comparison"]
    soup = soup_of(client.get(PAGE, query_string=query))
    assert message in soup.find(id="compare-splits-error").get_text() if query.get("test") != "training" else (
        message in soup.get_text(" ", strip=True))
    assert soup.find("table", class_="splits-table") is None


@pytest.mark.slow  # a few seconds: two splits of 2,100 documents
def test_splits_of_a_large_corpus_are_compared_in_the_background(app, client):
    corpus_id = app.extensions["webnb"]["catalog"].add(big_corpus(2_100), name="Big", source="test")
    url, query = f"/corpora/{corpus_id}/compare", {"splits": "2"}
    titles = []
    response = client.get(url, query_string=query)
    while response.status_code == 202:  # the split's counts, the comparison on it, then the two splits
        titles.append(soup_of(response, status=202).h1.get_text(" ", strip=True))
        assert follow_job(app, response).state == "done"
        response = client.get(url, query_string=query)
    assert titles[-1].startswith("Fitting 5 models on each of 2 splits of 2,100 documents")
    soup = soup_of(response)
    data = client.get(url, query_string={**query, "format": "json"}).get_json()  # the kept result, at once
    assert data["splits"]["seeds"] == [0, 1] and [m["wins"] for m in data["splits"]["models"]] == [
        int(row["data-wins"]) for row in soup.select("table.splits-table tbody tr")]
