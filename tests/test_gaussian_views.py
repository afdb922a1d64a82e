"""The pages of a table of numbers: rows, bell curves, Bayes' rule step by step, evaluation, JSON and CSV."""
from __future__ import annotations

import csv
import html
import io
import math
import re

import numpy as np
import pytest
from test_export_views import assert_an_attachment

from webnb.engine.evaluation.scores import stratified_split
from webnb.engine.gaussian.model import GaussianStatistics
from webnb.examples import load_example_table
from webnb.lesson.state import GAUSSIAN_STEPS

TABLES = ("iris", "match-ratings", "red-cards")
FAR_IRIS = "value=5.9&value=3&value=40&value=1.8"


def _text(response) -> str:
    """The page's visible text, tags dropped and entities decoded."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", response.get_data(as_text=True))).split())


def _numbers(value):
    if isinstance(value, dict):
        for v in value.values():
            yield from _numbers(v)
    elif isinstance(value, list):
        for v in value:
            yield from _numbers(v)
    elif isinstance(value, float):
        yield value


@pytest.mark.parametrize("corpus_id", TABLES)
def test_every_page_and_step_answers(client, corpus_id):
    for path in ("", "/parameters", "/evaluation", *(f"/inference?step={step}" for step in GAUSSIAN_STEPS)):
        for suffix in ("", "&format=json" if "?" in path else "?format=json"):
            response = client.get(f"/corpora/{corpus_id}/gaussian{path}{suffix}")
            assert response.status_code == 200, (path, suffix)
            if suffix:
                assert not any(math.isnan(v) for v in _numbers(response.get_json()))


def test_text_pages_send_a_table_to_its_own_pages_and_back(client):
    assert client.get("/corpora/iris").headers["Location"] == "/corpora/iris/gaussian"
    assert client.get("/corpora/iris/parameters").headers["Location"] == "/corpora/iris/gaussian/parameters"
    assert client.get("/corpora/iris/inference").headers["Location"] == "/corpora/iris/gaussian/inference"
    assert client.get("/corpora/iris/evaluation").headers["Location"] == "/corpora/iris/gaussian/evaluation"
    assert client.get("/corpora/iris/words").headers["Location"] == "/corpora/iris/gaussian"
    assert client.get("/corpora/match-reviews/gaussian/parameters").headers["Location"] == "/corpora/match-reviews"
    assert client.get("/corpora/no-such-table/gaussian").status_code == 404


def test_parameters_page_states_the_estimates_and_epsilon(client):
    iris = load_example_table("iris")
    response = client.get("/corpora/iris/gaussian/parameters")
    text = _text(response)
    assert "population" in text and "n k − 1" in text
    largest = float(np.var(iris.values[:, 2]))
    assert f"{largest:.4g}" in text and "petal length (cm)" in text
    data = client.get("/corpora/iris/gaussian/parameters?format=json").get_json()
    assert data["epsilon"] == pytest.approx(1e-9 * largest, rel=1e-12)
    setosa = data["parameters"][0]
    assert setosa["class"] == "setosa" and setosa["rows"] == 50 and setosa["prior"] == pytest.approx(1 / 3)
    assert setosa["features"][0]["mean"] == pytest.approx(5.006)
    # One bell-curve chart per feature, each with one curve per class.
    page = response.get_data(as_text=True)
    assert page.count('<figure class="density">') == 4
    assert page.count("<polyline class=\"curve") == 12


def test_var_smoothing_changes_epsilon_without_touching_the_means(client):
    zero = client.get("/corpora/red-cards/gaussian/parameters?format=json&var_smoothing=0").get_json()
    big = client.get("/corpora/red-cards/gaussian/parameters?format=json&var_smoothing=0.5").get_json()
    assert zero["epsilon"] == 0
    assert big["epsilon"] == pytest.approx(0.5 * float(np.var(load_example_table("red-cards").values[:, 0])))
    assert [f["mean"] for f in zero["parameters"][0]["features"]] == [
        f["mean"] for f in big["parameters"][0]["features"]]
    page = _text(client.get("/corpora/red-cards/gaussian/parameters?var_smoothing=0"))
    assert "σ = 0" in page and "exactly 0 before smoothing" in page


def test_the_underflow_story_step_by_step(client):
    base = f"/corpora/iris/gaussian/inference?{FAR_IRIS}"
    densities = _text(client.get(f"{base}&step=densities"))
    assert "underflow" in densities
    normalise = _text(client.get(f"{base}&step=normalise"))
    assert "Cannot decide" in normalise and "0 / 0" in normalise
    underflow = _text(client.get(f"{base}&step=underflow"))
    assert "RuntimeWarning: divide by zero encountered in log" in underflow and "−∞" in underflow
    logspace = _text(client.get(f"{base}&step=logspace"))
    assert re.search(r"Decision:\s+virginica\s+— where plain floats could not decide", logspace)
    data = client.get(f"{base}&format=json").get_json()["explanation"]
    assert data["naive_decision"] is None and data["decision"] == "virginica"
    assert data["naive_warnings"] == ["RuntimeWarning: divide by zero encountered in log"]
    assert [c["naive_log_joint"] for c in data["classes"]] == ["-inf"] * 3
    assert all(isinstance(c["log_joint"], float) for c in data["classes"])


def test_a_typical_row_needs_no_rescue(client):
    text = _text(client.get("/corpora/iris/gaussian/inference?step=underflow"))
    assert "Nothing underflows" in text and "RuntimeWarning" not in text
    data = client.get("/corpora/iris/gaussian/inference?format=json").get_json()["explanation"]
    assert data["decision"] == data["naive_decision"] == "setosa"


def test_zero_variance_step_with_and_without_smoothing(client):
    without = _text(
        client.get("/corpora/red-cards/gaussian/inference?step=zero-width&var_smoothing=0&value=7.5&value=1"))
    assert "the class is impossible" in without and "var_smoothing is 0" in without
    data = client.get("/corpora/red-cards/gaussian/inference?format=json&var_smoothing=0&value=7.5&value=1").get_json()
    assert data["explanation"]["decision"] == "won"
    lost = data["explanation"]["classes"][0]
    assert lost["class"] == "lost" and lost["log_joint"] == "-inf" and lost["posterior"] == 0.0
    smoothed = _text(client.get("/corpora/red-cards/gaussian/inference?step=zero-width&value=7.5&value=1"))
    assert "very narrow bell" in smoothed and "underflows to 0.0" in smoothed
    iris = _text(client.get("/corpora/iris/gaussian/inference?step=zero-width"))
    assert "no feature is constant within a class" in iris


def test_bad_settings_are_named_and_replaced(client):
    for query, name in [("var_smoothing=-1", "var_smoothing"), ("var_smoothing=nan", "var_smoothing"),
                        ("value=1&value=2", "value"), ("value=a&value=1&value=1&value=1", "value"),
                        ("step=nope", "step"), ("seed=²", "seed"), ("test_size=2", "test_size"), ("prior=x", "prior")]:
        response = client.get(f"/corpora/iris/gaussian/inference?{query}")
        assert response.status_code == 200, query
        assert re.search(rf"<strong>{name}</strong>", response.get_data(as_text=True)), query
    too_few = client.get("/corpora/iris/gaussian/inference?format=json&value=1&value=2").get_json()
    assert too_few["explanation"]["values"] == [5.1, 3.5, 1.4, 0.2]


def test_htmx_gets_only_the_step(client):
    response = client.get("/corpora/iris/gaussian/inference?step=logspace", headers={"HX-Request": "true"})
    page = response.get_data(as_text=True)
    assert page.lstrip().startswith('<section id="inference"') and "<html" not in page
    assert response.headers["Vary"] == "HX-Request"


def test_evaluation_matches_a_refit_on_the_same_split(client):
    data = client.get("/corpora/iris/gaussian/evaluation?format=json&test_size=0.4&seed=3").get_json()
    iris = load_example_table("iris")
    train, test = stratified_split(iris.labels, 0.4, 3)
    model = GaussianStatistics.fit(iris.subset(train)).model()
    predicted = model.predict(iris.values[test])
    expected = np.mean(np.array(predicted) == np.array(iris.subset(test).labels))
    assert data["n_train"] == len(train) and data["n_test"] == len(test) == 60
    assert data["evaluation"]["accuracy"] == pytest.approx(expected)
    assert sum(map(sum, data["evaluation"]["confusion"])) == 60


def test_a_wrong_row_opens_in_bayes_rule_with_the_model_that_got_it_wrong(client):
    page = client.get("/corpora/iris/gaussian/evaluation").get_data(as_text=True)
    data = client.get("/corpora/iris/gaussian/evaluation?format=json").get_json()
    assert data["mistakes"], "iris at the default split has wrong rows"
    links = re.findall(r'<th scope="row"><a href="([^"]+)">', page)
    assert len(links) == len(data["mistakes"])
    opened = client.get(html.unescape(links[0]) + "&format=json").get_json()
    assert opened["explanation"]["decision"] == data["mistakes"][0]["predicted"]
    assert opened["state"]["train"] == "split"
    banner = _text(client.get(html.unescape(links[0])))
    assert f"Trained on the {data['n_train']} training rows of the split ({data['n_test']} held out, seed 0)" in banner


def test_training_rows_and_cannot_decide(client):
    data = client.get("/corpora/red-cards/gaussian/evaluation?format=json&test=training&var_smoothing=0").get_json()
    assert data["n_test"] == 14 and data["evaluation"]["n_test"] == 14
    assert not any(math.isnan(v) for v in _numbers(data))


def test_downloads(client):
    rows = list(csv.reader(io.StringIO(client.get("/corpora/iris/gaussian/parameters.csv").get_data(as_text=True))))
    assert rows[0][:5] == ["class", "feature", "rows", "prior", "mean"] and len(rows) == 1 + 3 * 4
    assert rows[1][:2] == ["setosa", "sepal length (cm)"] and float(rows[1][4]) == pytest.approx(5.006)
    table_rows = list(csv.reader(io.StringIO(client.get("/corpora/iris/gaussian/rows.csv").get_data(as_text=True))))
    # Each row's id is its line in the file (line 1 is the header).
    assert len(table_rows) == 151 and table_rows[1] == ["2", "5.1", "3.5", "1.4", "0.2", "setosa"]
    predictions_csv = client.get("/corpora/iris/gaussian/predictions.csv").get_data(as_text=True)
    predictions = list(csv.reader(io.StringIO(predictions_csv)))
    data = client.get("/corpora/iris/gaussian/evaluation?format=json").get_json()
    assert len(predictions) == 1 + data["n_test"] and "petal width (cm)" in predictions[0]
    confusion = list(csv.reader(io.StringIO(client.get("/corpora/iris/gaussian/confusion.csv").get_data(as_text=True))))
    assert [list(map(int, row[1:4])) for row in confusion[1:]] == data["evaluation"]["confusion"]
    response = client.get("/corpora/iris/gaussian/evaluation.csv")
    assert response.headers["Content-Disposition"] == 'attachment; filename="iris-evaluation.csv"'


# Each download of a table's lesson: its path after /corpora/iris/gaussian/, and the name it is saved as.
TABLE_DOWNLOADS = {
    "rows.csv": "iris-rows.csv",
    "parameters.csv": "iris-gaussian-parameters.csv",
    "evaluation.csv": "iris-evaluation.csv",
    "confusion.csv": "iris-confusion.csv",
    "predictions.csv": "iris-predictions.csv",
    "notebook.ipynb": "iris-gaussian.ipynb",
}


@pytest.mark.parametrize("download, name", TABLE_DOWNLOADS.items())
def test_every_download_is_an_attachment_never_sniffed(client, download, name):
    assert_an_attachment(client.get(f"/corpora/iris/gaussian/{download}?var_smoothing=1e-3"), name)


@pytest.mark.parametrize("download", ["parameters.csv", "evaluation.csv", "confusion.csv", "predictions.csv",
                                      "notebook.ipynb"])
def test_a_download_with_unusable_settings_says_which(client, download):
    response = client.get(f"/corpora/iris/gaussian/{download}?var_smoothing=-1")
    assert response.status_code == 400
    assert "var_smoothing is a number from 0" in response.get_data(as_text=True)


def test_every_page_keeps_its_address_and_endpoint(app):
    routes = {rule.endpoint: rule.rule for rule in app.url_map.iter_rules() if rule.endpoint.startswith("gaussian.")}
    base = "/corpora/<corpus_id>/gaussian"
    assert routes == {
        "gaussian.rows": base, "gaussian.parameters": f"{base}/parameters", "gaussian.inference": f"{base}/inference",
        "gaussian.evaluation": f"{base}/evaluation", "gaussian.parity": f"{base}/parity",
        "gaussian.rows_csv": f"{base}/rows.csv", "gaussian.parameters_csv": f"{base}/parameters.csv",
        "gaussian.evaluation_csv": f"{base}/evaluation.csv", "gaussian.confusion_csv": f"{base}/confusion.csv",
        "gaussian.predictions_csv": f"{base}/predictions.csv", "gaussian.notebook": f"{base}/notebook.ipynb",
    }


def test_the_rows_a_page_at_a_time(client):
    data = client.get("/corpora/iris/gaussian?page=2&format=json").get_json()
    assert data["corpus"] == {"id": "iris", "name": "Iris flowers", "rows": 150}
    assert (data["page"], data["pages"], data["errors"]) == (2, 3, {})
    assert data["rows"][0] == {"index": 50, "id": "52", "label": "versicolor", "values": [7.0, 3.2, 4.7, 1.4]}
    assert data["class_counts"] == {"setosa": 50, "versicolor": 50, "virginica": 50}
    past = client.get("/corpora/iris/gaussian?page=9&format=json").get_json()
    assert past["page"] == 3 and past["errors"] == {"page": "There are only 3 pages; the last is shown."}
    fragment = client.get("/corpora/iris/gaussian?page=3", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert fragment.lstrip().startswith('<section id="rows"') and "<html" not in fragment
    assert "Rows 101–150 of 150" in fragment and "page 3 of 3" in fragment


def test_the_json_twins_carry_the_settings_and_the_page(client):
    parameters = client.get("/corpora/red-cards/gaussian/parameters?format=json&prior=uniform").get_json()
    assert parameters["corpus"] == {"id": "red-cards", "name": "Rating and red cards"}
    assert parameters["state"] == {"var_smoothing": "1e-9", "prior": "uniform", "values": [7.5, 1.0],
                                   "test": "split", "test_size": "0.25", "seed": "0", "train": "all",
                                   "errors": {}}
    assert parameters["error"] is None and [c["prior"] for c in parameters["parameters"]] == [0.5, 0.5]
    inference = client.get("/corpora/red-cards/gaussian/inference?format=json&step=product").get_json()
    assert inference["step"] == "product" and inference["error"] is None
    assert [c["prior"] for c in inference["explanation"]["classes"]] == [6 / 14, 8 / 14]
    # Six and eight rows hold out none at 1 %: the page says why there is no evaluation.
    query = "test=split&test_size=0.01"
    evaluation = client.get(f"/corpora/red-cards/gaussian/evaluation?format=json&{query}").get_json()
    assert evaluation["error"].startswith("The test set would be empty") and "n_test" not in evaluation
    assert evaluation["state"]["test_size"] == "0.01"
    page = _text(client.get(f"/corpora/red-cards/gaussian/evaluation?{query}"))
    assert "The test set would be empty" in page and "Accuracy" not in page


def test_a_bad_check_is_refused_with_its_reason(client):
    response = client.get("/corpora/iris/gaussian/parity?of=words&format=json")
    assert response.status_code == 400
    data = response.get_json()
    assert data["status"] == "error" and data["of"] == "parameters" and data["errors"] == {}
    assert data["error"] == "A check is of the parameters or of the evaluation (of=parameters or of=evaluation)."


def test_the_scikit_learn_badge(client):
    pytest.importorskip("sklearn")
    page = client.get("/corpora/iris/gaussian/parameters").get_data(as_text=True)
    assert 'hx-get="/corpora/iris/gaussian/parity?var_smoothing=1e-9&amp;of=parameters"' in page
    parameters = client.get("/corpora/iris/gaussian/parity?of=parameters&format=json").get_json()
    assert parameters["status"] == "agrees" and parameters["compared"] == 3 + 12 + 12 + 1
    evaluation = client.get("/corpora/iris/gaussian/parity?of=evaluation&format=json&test_size=0.4&seed=2").get_json()
    assert evaluation["status"] == "agrees" and evaluation["matched"] == {"predictions": 60}
    assert {c["name"] for c in evaluation["checks"]} == {
        "predictions", "log posteriors", "accuracy", "confusion matrix"}
    far = client.get("/corpora/match-ratings/gaussian/parity?of=parameters&var_smoothing=0.3&prior=uniform&format=json")
    assert far.get_json()["status"] == "agrees"
    # With var_smoothing = 0 and a variance of 0, scikit-learn's scores are NaN: said, not hidden.
    zero = client.get(
        "/corpora/red-cards/gaussian/parity?of=evaluation&test=training&var_smoothing=0&format=json").get_json()
    assert zero["status"] == "not comparable" and zero["left_out"] == 14
    fragment = client.get("/corpora/iris/gaussian/parity?of=parameters", headers={"HX-Request": "true"})
    assert fragment.get_data(as_text=True).lstrip().startswith('<div class="parity parity-agrees"')
    assert client.get("/corpora/iris/gaussian/parity?of=words").status_code == 400


def test_the_density_charts_and_the_sample_deviation(client):
    from webnb.lesson.charts import density_chart

    iris = load_example_table("iris")
    model = GaussianStatistics.fit(iris).model()
    chart = density_chart(model, 2, 40.0)
    assert chart["peak"] == 1 / math.sqrt(2 * math.pi * model.smoothed_variances[:, 2].min())
    assert chart["peak_label"] == f"{chart['peak']:.3g}" == "2.32"
    assert chart["marker"] == {"x": chart["right"] - 4, "inside": False, "right": True, "label": "x = 40 →"}
    page = client.get("/corpora/iris/gaussian/parameters").get_data(as_text=True)
    assert ">2.32</text>" in page
    data = client.get("/corpora/iris/gaussian/parameters?format=json").get_json()
    setosa_rows = iris.values[np.array(iris.labels) == "setosa"]
    for j, cell in enumerate(data["parameters"][0]["features"]):
        assert cell["sd"] == pytest.approx(float(np.std(setosa_rows[:, j])), rel=1e-14)
        assert cell["sample_sd"] == pytest.approx(float(np.std(setosa_rows[:, j], ddof=1)), rel=1e-14)
        assert cell["used"] == pytest.approx(float(np.var(setosa_rows[:, j])) + data["epsilon"], rel=1e-15)


def test_the_zero_variance_step_numbers(client):
    table = load_example_table("red-cards")
    page = _text(client.get("/corpora/red-cards/gaussian/inference?step=zero-width&var_smoothing=0&value=7.5&value=1"))
    epsilon = 1e-9 * float(np.var(table.values[:, 0]))
    expected = -1.0 / (2 * epsilon) - 0.5 * math.log(2 * math.pi * epsilon)
    assert f"with var_smoothing = 1.000 × 10⁻⁹: ε = {epsilon:.3e}".replace("e-09", " × 10⁻⁹") in page
    assert "log-density " + f"{expected:.0f}".replace("-", "−") in page
