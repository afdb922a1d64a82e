"""Complement Naive Bayes' downloads: its table of weights and its priors as CSV, equal to the parameters page cell
for cell, and a notebook that recomputes its weights, a review's scores, the decision and the accuracy with numpy
alone, compared here with the engine's."""
from __future__ import annotations

import csv
import io
import math

import numpy as np
import pytest
from test_export import SPAM_ANALYSIS, make_notebook, notebook_evaluation, run_in_kernel, run_in_process, settings

from webnb.engine import TrainingSet
from webnb.engine.export import parameters_table, priors_table
from webnb.examples import load_example_corpus

D5 = "Chinese Chinese Chinese Tokyo Japan"

CASES = {
    "china-japan": ("china-japan", None, None, settings("complement", 1, D5)),
    # α = 0: "great film but boring" holds a word of each class only, and both classes score +∞.
    "both infinite": ("film-sentiment", None, None, settings("complement", 0, "great film but boring")),
    "one infinite": ("film-sentiment", None, None, settings("complement", 0, "the plot was fine")),
    "fractional alpha": ("match-reviews", None, None, settings("complement", "1/2", "not sharp match")),
    "binary, held out": ("spam-ham", SPAM_ANALYSIS, None,
                         settings("complement", 1, "Claim your free prize now, call 0800 555 0199", binary=True,
                                  test_size=0.3, seed=3)),
    "alpha=0, held out": ("spam-ham", None, None, settings("complement", 0, "free cash today", test_size=0.5,
                                                           seed=1)),
}


def engine_numbers(case) -> dict:
    """The weights, the review's scores, the decision and the accuracy, as the engine computes them."""
    name, analysis, vocabulary, options = case
    corpus = load_example_corpus(name)
    training = TrainingSet.build(corpus, analysis, vocabulary)
    model = training.model("complement", options["alpha"], binary=options["binary"])
    review = training.transform([options["review"]])
    decided = int(model.predict_index(review)[0])
    evaluation = notebook_evaluation(corpus, analysis, vocabulary, options,
                                     lambda counted: counted.model("complement", options["alpha"],
                                                                   binary=options["binary"]))
    return {"classes": list(model.classes), "vocabulary": list(training.vocabulary),
            "weights": model.feature_log_prob_, "scores": model.joint_log_likelihood(review)[0],
            "decision": None if decided < 0 else model.classes[decided], "evaluation": evaluation}


def printed_numbers(values) -> np.ndarray:
    """The summary's numbers, with "inf" read back as +∞."""
    return np.array([math.inf if v == "inf" else -math.inf if v == "-inf" else v for v in values], dtype=float)


def assert_matches_engine(summary: dict, expected: dict) -> None:
    assert summary["classes"] == expected["classes"]
    assert summary["vocabulary"] == expected["vocabulary"]
    weights = np.array([printed_numbers(row) for row in summary["weights"]])
    np.testing.assert_allclose(weights, expected["weights"], rtol=0, atol=1e-12)
    assert [c["class"] for c in summary["trace"]["per_class"]] == expected["classes"]
    scores = printed_numbers([c["score"] for c in summary["trace"]["per_class"]])
    np.testing.assert_allclose(scores, expected["scores"], rtol=0, atol=1e-9)
    assert summary["trace"]["decision"] == expected["decision"]
    evaluation = expected["evaluation"]
    assert (summary["correct"], summary["n_test"]) == (evaluation.correct, evaluation.n_test)
    assert summary["accuracy"] == evaluation.accuracy


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_the_notebook_computes_what_the_engine_computes(case):
    assert_matches_engine(run_in_process(make_notebook(case)), engine_numbers(case))


def test_the_notebook_gives_the_worked_example_s_scores_and_says_when_it_cannot_decide():
    summary = run_in_process(make_notebook(CASES["china-japan"]))
    # d5 against China's complement (document 4: "tokyo japan chinese", 3 words + 6 pseudo-counts = 9) and
    # against the other class's (documents 1–3: 8 words + 6 = 14): Japan's complement never says tokyo or japan.
    china, japan = (c["score"] for c in summary["trace"]["per_class"])
    assert china == pytest.approx(3 * math.log(9 / 2) + 2 * math.log(9 / 2), abs=1e-12)
    assert japan == pytest.approx(3 * math.log(14 / 6) + 2 * math.log(14 / 1), abs=1e-12)
    assert summary["trace"]["decision"] == "not China"
    undecided = run_in_process(make_notebook(CASES["both infinite"]))
    assert [c["score"] for c in undecided["trace"]["per_class"]] == ["inf", "inf"]
    assert undecided["trace"]["decision"] is None


def test_the_notebook_explains_complement_naive_bayes_in_its_own_sections():
    notebook = make_notebook(CASES["china-japan"])
    text = "".join("".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "markdown")
    assert "Complement Naive Bayes" in text and "θ̃" in text
    # The Naive Bayes sections' probabilities and posteriors are not the complement model's.
    code = "".join("".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "code")
    assert "def fit_complement" in code and "def posterior" not in code and "def fit(" not in code
    assert notebook["metadata"]["webnb"]["model"] == "complement"


def test_the_notebook_refuses_a_floor_as_the_model_does():
    name, analysis, vocabulary, options = CASES["china-japan"]
    with pytest.raises(ValueError, match="floor"):
        make_notebook((name, analysis, vocabulary, {**options, "epsilon": 1e-9}))


@pytest.mark.slow
def test_the_notebook_runs_in_a_kernel():
    case = CASES["both infinite"]
    summary, cells = run_in_kernel(make_notebook(case))
    assert_matches_engine(summary, engine_numbers(case))
    assert [o for c in cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"] == []


# -- the CSV tables ---------------------------------------------------------------------------------------------


def csv_rows(response) -> list[list[str]]:
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    return list(csv.reader(io.StringIO(response.get_data(as_text=True))))


@pytest.mark.parametrize("corpus_id, query", [
    ("china-japan", {"alpha": "1"}),
    ("film-sentiment", {"alpha": "0"}),
    ("match-reviews", {"alpha": "1/2", "binary": "1"}),
])
def test_the_weights_csv_is_the_parameters_page_cell_for_cell(client, corpus_id, query):
    query = {"model": "complement", **query}
    rows = csv_rows(client.get(f"/corpora/{corpus_id}/export/parameters.csv", query_string=query))
    page = client.get(f"/corpora/{corpus_id}/parameters", query_string={**query, "format": "json"}).get_json()
    classes = page["classes"]
    assert rows[0] == ["word", "count (every class)", *[heading for label in classes for heading in (
        f"count in {label}", f"θ̃ without {label}", f"θ̃ without {label} (ratio)", f"weight for {label}")]]
    assert len(rows) - 1 == page["vocabulary_size"] == len(page["words"])
    for row, word in zip(rows[1:], page["words"], strict=True):
        assert row[:2] == [word["word"], str(word["total"])]
        for k, cell in enumerate(word["cells"]):
            count, theta, ratio, weight = row[2 + 4 * k:6 + 4 * k]
            assert (int(count), float(theta), ratio) == (cell["count"], cell["theta"], cell["ratio"])
            # the same bits: the page's number and the download's are one float
            assert float(weight) == (math.inf if cell["weight"] == "inf" else cell["weight"])


def test_the_weights_csv_shows_the_infinite_weights_of_alpha_0(client):
    rows = csv_rows(client.get("/corpora/film-sentiment/export/parameters.csv",
                               query_string={"model": "complement", "alpha": "0"}))
    boring = next(row for row in rows if row[0] == "boring")
    # "boring" is in one negative review only: nothing else says it, so it is infinitely negative
    assert boring == ["boring", "1", "1", "0.0", "0/9", "inf", "0", str(1 / 14), "1/14",
                      str(-math.log(1 / 14))]


def test_the_priors_csv_says_complement_naive_bayes_does_not_use_them(client):
    rows = csv_rows(client.get("/corpora/china-japan/export/priors.csv", query_string={"model": "complement"}))
    assert rows == [["class", "documents", "φ (not used by Complement Naive Bayes)", "φ (ratio)"],
                    ["China", "3", "0.75", "3/4"], ["not China", "1", "0.25", "1/4"]]


def test_the_engine_s_tables_read_the_chosen_words_only(china_japan):
    model = china_japan.model("complement", 1)
    header, rows = parameters_table(model, words=[1])
    assert header[:3] == ["word", "count (every class)", "count in China"]
    assert [row[:6] for row in rows] == [["chinese", 6, 5, 2 / 9, "2/9", -math.log(2 / 9)]]
    assert priors_table(model)[1] == [["China", 3, 0.75, "3/4"], ["not China", 1, 0.25, "1/4"]]


def test_the_parameters_page_links_the_weights_of_the_words_it_lists(client):
    from bs4 import BeautifulSoup

    query = {"model": "complement", "alpha": "1", "q": "chin"}
    page = BeautifulSoup(client.get("/corpora/china-japan/parameters", query_string=query).get_data(as_text=True),
                         "html.parser")
    link = page.select_one('p.downloads a[href*="/export/parameters.csv"]')
    assert link.get_text(" ", strip=True) == "counts, θ̃ and weights of the 1 word containing “chin”"
    rows = csv_rows(client.get(link["href"]))
    assert [row[0] for row in rows[1:]] == ["chinese"]
    everything = BeautifulSoup(client.get("/corpora/china-japan/parameters", query_string={**query, "q": ""})
                               .get_data(as_text=True), "html.parser")
    assert everything.select_one("p.downloads a").get_text(strip=True) == "counts, θ̃ and weights of all 6 words"
