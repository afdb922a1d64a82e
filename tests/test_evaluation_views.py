"""The evaluation page, its α sweep and its downloads: numbers checked against the engine and scikit-learn."""
from __future__ import annotations

import csv
import io
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest
from conftest import slow_but_the_first, soup_of
from sklearn.naive_bayes import BernoulliNB, MultinomialNB

from webnb.engine import Corpus, evaluate
from webnb.engine.evaluation.heldout import hold_out
from webnb.engine.evaluation.scores import stratified_split
from webnb.engine.records.insights import DEFAULT_ALPHAS, alpha_sweep
from webnb.examples import load_example_corpus

HOSTILE = '<script>alert(1)</script>" onmouseover="x'


def catalog(app):
    return app.extensions["webnb"]["catalog"]


def test_split_scores_match_scikit_learn(client):
    corpus = load_example_corpus("spam-ham")
    held = hold_out(corpus, test_size=0.25, seed=0)
    for kind, estimator in (("multinomial", MultinomialNB(alpha=0.5)), ("bernoulli", BernoulliNB(alpha=0.5))):
        data = client.get("/corpora/spam-ham/evaluation",
                          query_string={"model": kind, "alpha": "0.5", "format": "json"}).get_json()
        estimator.fit(held.training.matrix, held.training.corpus.labels)
        theirs = estimator.predict(held.test_matrix)
        right = int((theirs == np.array(held.test.labels)).sum())
        assert data["n_test"] == 4 and data["test"]["n_train"] == 12
        assert data["correct"] == right and data["accuracy"] == right / 4
        confusion = np.zeros((2, 2), dtype=int)
        for truth, said in zip(held.test.labels, theirs, strict=True):
            confusion[list(estimator.classes_).index(truth), list(estimator.classes_).index(said)] += 1
        assert data["confusion"] == confusion.tolist()
        log_loss = -np.mean(estimator.predict_log_proba(held.test_matrix)[
            np.arange(4), [list(estimator.classes_).index(t) for t in held.test.labels]])
        assert data["log_loss"] == pytest.approx(log_loss, rel=1e-9)


def test_page_shows_the_numbers_of_the_json_twin(client):
    query = {"model": "multinomial", "alpha": "1", "test_size": "0.5", "seed": "3"}
    data = client.get("/corpora/spam-ham/evaluation", query_string={**query, "format": "json"}).get_json()
    soup = soup_of(client.get("/corpora/spam-ham/evaluation", query_string=query))
    assert soup.select_one("#accuracy").text == f"{data['accuracy'] * 100:.1f} %"
    assert soup.select_one("#undecidable").text == str(data["undecidable"])
    assert data["n_test"] == 8
    assert data["test"] == {"source": "split", "test_size": 0.5, "seed": 3, "n_train": 8, "n_test": 8}
    cells = [[td.text for td in row.select("td")] for row in soup.select("table.confusion tbody tr")]
    assert cells == [
        [str(v) for v in row] + [str(u)]
        for row, u in zip(data["confusion"], data["undecidable_by_class"], strict=True)
    ]
    # the same seed gives the same split as the engine's
    _, test_index = stratified_split(load_example_corpus("spam-ham").labels, 0.5, 3)
    wrong = data["misclassified"]["documents"]
    assert {d["position"] for d in wrong} <= set(test_index.tolist())


def test_alpha_zero_shows_the_documents_it_cannot_decide(client):
    data = client.get("/corpora/spam-ham/evaluation",
                      query_string={"model": "bernoulli", "alpha": "0", "format": "json"}).get_json()
    assert data["undecidable"] == 3 and data["correct"] == 1 and data["decided_accuracy"] == 1.0
    assert data["log_loss"] == "inf" and data["infinite_loss_documents"] == 3
    soup = soup_of(client.get("/corpora/spam-ham/evaluation", query_string={"model": "bernoulli", "alpha": "0"}))
    assert soup.select_one("#undecidable").text == "3"
    assert "cannot decide" in soup.select_one(".warning:not(.small-test-set)").text
    said = [row.select("td")[2].text.strip() for row in soup.select("table.mistakes tbody tr")]
    assert said == ["cannot decide"] * 3


def test_a_misclassified_document_opens_in_bayes_rule_with_the_same_model(client):
    query = {"model": "bernoulli", "alpha": "1"}
    soup = soup_of(client.get("/corpora/spam-ham/evaluation", query_string=query))
    evaluation = client.get("/corpora/spam-ham/evaluation", query_string={**query, "format": "json"}).get_json()
    links = [a["href"] for a in soup.select("table.mistakes a")]
    assert len(links) == evaluation["misclassified"]["count"] == 2
    corpus = load_example_corpus("spam-ham")
    for link, wrong in zip(links, evaluation["misclassified"]["documents"], strict=True):
        args = parse_qs(urlsplit(link).query)
        assert args["document"] == [str(wrong["position"])]
        assert args["train"] == ["split"] and args["step"] == ["decision"]
        opened = client.get(link + "&format=json").get_json()
        assert opened["trace"]["text"] == corpus.texts[wrong["position"]]
        assert opened["trace"]["decision"] == wrong["predicted"] != wrong["true"]
        inference = soup_of(client.get(link))
        assert "trained on the 12 training documents" in inference.select_one(".notice").text.lower()
        assert inference.select_one("#review").text == corpus.texts[wrong["position"]]


def test_training_documents_and_another_corpus_as_test_documents(app, client):
    data = client.get("/corpora/china-japan/evaluation", query_string={"format": "json"}).get_json()
    assert data["test"]["source"] == "training" and data["n_test"] == 4 and data["accuracy"] == 1.0
    corpus = load_example_corpus("spam-ham")
    test_id = catalog(app).add(corpus.subset(range(0, 16, 2)), name="every other message", source="test")
    data = client.get("/corpora/spam-ham/evaluation", query_string={"test": test_id, "format": "json"}).get_json()
    assert data["test"] == {"source": "corpus", "test_size": None, "seed": None, "n_train": 16, "n_test": 8}
    from webnb.engine import TrainingSet

    training = TrainingSet.build(corpus)
    expected = evaluate(training.model("bernoulli", 1), training.transform(corpus.texts[0:16:2]), corpus.labels[0:16:2])
    assert data["correct"] == expected.correct and data["confusion"] == [list(r) for r in expected.confusion]
    # a misclassified document of the test corpus opens from that corpus
    soup = soup_of(client.get("/corpora/spam-ham/evaluation", query_string={"test": test_id, "alpha": "0"}))
    for link in [a["href"] for a in soup.select("table.mistakes a")]:
        assert "from=test" in link and "train=all" in link
        assert client.get(link + "&format=json").get_json()["trace"]["text"] in corpus.texts[0:16:2]
    other = catalog(app).add(Corpus.from_pairs([("news", "rates rise"), ("sport", "cup final")]), name="x", source="t")
    response = client.get("/corpora/spam-ham/evaluation", query_string={"test": other})
    assert "classes the training corpus does not" in soup_of(response).select_one(".errors").text
    assert "There is no test corpus" in soup_of(client.get("/corpora/spam-ham/evaluation?test=nosuch")).text


def test_the_wrong_documents_come_a_page_at_a_time(app, client):
    pairs = [pair for i in range(25) for pair in (("spam", f"win cash prize{i}"), ("ham", f"lunch at noon friend{i}"))]
    corpus_id = catalog(app).add(Corpus.from_pairs(pairs), name="messages", source="test")
    flipped = [("ham" if label == "spam" else "spam", text) for label, text in pairs]
    test_id = catalog(app).add(Corpus.from_pairs(flipped), name="flipped labels", source="test")
    url = f"/corpora/{corpus_id}/evaluation"

    def shown(page):
        return client.get(url, query_string={"test": test_id, "wrong_page": page, "format": "json"}).get_json()

    data = shown("3")
    assert data["correct"] == 0 and data["misclassified"]["count"] == 50
    assert (data["misclassified"]["page"], data["misclassified"]["pages"]) == (3, 3)
    assert [d["position"] for d in data["misclassified"]["documents"]] == list(range(40, 50))
    first = data["misclassified"]["documents"][0]
    assert {k: first[k] for k in ("position", "id", "true", "predicted")} == {
        "position": 40, "id": "41", "true": "ham", "predicted": "spam"}
    assert 0.5 < first["confidence"] <= 1.0
    assert shown("9")["misclassified"]["page"] == 3 and shown("x")["misclassified"]["page"] == 1
    soup = soup_of(client.get(url, query_string={"test": test_id, "wrong_page": "2"}))
    rows = soup.select("table.mistakes tbody tr")
    assert len(rows) == 20 and rows[0].select_one(".snippet").text == "win cash prize10"
    link = parse_qs(urlsplit(rows[0].a["href"]).query)
    assert link["document"] == ["20"] and link["from"] == ["test"] and link.get("train", ["all"]) == ["all"]


@pytest.mark.parametrize("name, value", slow_but_the_first(2, [("test_size", "2"), ("test_size", "x"), ("seed", "-1"),
                                                        ("test", "<b>")]))
def test_bad_split_settings_fall_back_with_a_message(client, name, value):
    soup = soup_of(client.get("/corpora/spam-ham/evaluation", query_string={name: value}))
    assert name in soup.select_one(".errors").text
    assert soup.select_one("#accuracy").text == "50.0 %"  # the default split, seed 0, α = 1


def test_a_split_that_leaves_nothing_to_test_says_so(client):
    soup = soup_of(client.get("/corpora/folgers-students/evaluation", query_string={"test": "split"}))
    assert "test on the training documents" in soup.select_one(".errors").text
    assert soup.select_one("#accuracy") is None


def test_sweep_is_computed_from_kept_counts_and_marks_the_best_and_current_alpha(client):
    corpus = load_example_corpus("spam-ham")
    held = hold_out(corpus, test_size=0.25, seed=0)
    expected = alpha_sweep(held.training, held.test_matrix, held.test.labels, kind="bernoulli")
    data = client.get("/corpora/spam-ham/evaluation/sweep",
                      query_string={"model": "bernoulli", "alpha": "0", "format": "json"}).get_json()
    assert [p["alpha"] for p in data["points"]] == list(DEFAULT_ALPHAS) and len(data["points"]) == 20
    assert data["points"] == [p.to_dict() for p in expected.points]
    assert data["best"]["alpha"] == expected.best.alpha == 0.001 and data["best"]["accuracy"] == 1.0
    assert data["points"][0]["log_loss"] == "inf" and data["points"][0]["undecidable"] == 3
    assert data["current"] == {"alpha": 0.0, "accuracy": 0.25, "log_loss": "inf"}

    def marker(alpha):
        soup = soup_of(client.get("/corpora/spam-ham/evaluation/sweep",
                                  query_string={"model": "bernoulli", "alpha": alpha}, headers={"HX-Request": "true"}))
        assert soup.select_one("html") is None  # a fragment
        # Four test documents cannot tell the most accurate α from the others near it: none is called the best.
        assert soup.select_one("#best-alpha") is None
        return soup.select_one("line.current-line")["x1"], soup.select_one("#most-accurate-alpha").text

    at_one, at_tenth = marker("1"), marker("0.1")
    assert at_one[0] != at_tenth[0] and at_one[1] == at_tenth[1] == "0.001"


def test_exports_of_the_evaluation(app, client):
    labels = ["=cmd|' /C calc'!A0", "+ham"]
    pairs = [(labels[i % 2], f"word{i % 2} filler text {i}") for i in range(12)]
    corpus_id = catalog(app).add(Corpus.from_pairs(pairs), name="formulas", source="test")

    def rows(table):
        response = client.get(f"/corpora/{corpus_id}/export/{table}.csv")
        assert response.status_code == 200 and response.headers["Content-Disposition"].startswith("attachment;")
        return list(csv.reader(io.StringIO(response.get_data(as_text=True))))

    data = client.get(f"/corpora/{corpus_id}/evaluation?format=json").get_json()
    scores = rows("evaluation")
    assert scores[0] == ["class", "precision", "recall", "F1", "support"]
    assert [r[0] for r in scores[1:]] == ["'+ham", "'=cmd|' /C calc'!A0"]
    assert [int(r[4]) for r in scores[1:]] == [s["support"] for s in data["per_class"]]
    confusion = rows("confusion")
    assert [[int(v) for v in r[1:]] for r in confusion[1:]] == [
        row + [u] for row, u in zip(data["confusion"], data["undecidable_by_class"], strict=True)]
    predictions = rows("predictions")
    assert len(predictions) == 1 + data["n_test"] and all(r[1].startswith("'") for r in predictions[1:])
    assert sum(r[4] == "yes" for r in predictions[1:]) == data["correct"]


def test_hostile_labels_and_texts_are_escaped(app, client):
    pairs = [(HOSTILE if i % 2 else "plain", f"{HOSTILE} text {i % 2}") for i in range(12)]
    corpus_id = catalog(app).add(Corpus.from_pairs(pairs), name=HOSTILE, source="test")
    for url, headers in ((f"/corpora/{corpus_id}/evaluation?alpha=0", {}),
                         (f"/corpora/{corpus_id}/evaluation?alpha=0", {"HX-Request": "true"}),
                         (f"/corpora/{corpus_id}/evaluation/sweep", {}),
                         (f"/corpora/{corpus_id}/evaluation/sweep", {"HX-Request": "true"})):
        soup = soup_of(client.get(url, headers=headers))
        assert soup.find("script", string=lambda s: s and "alert" in s) is None
        assert not [tag for tag in soup.find_all(True) if any(a.startswith("on") for a in tag.attrs)]
        assert HOSTILE in soup.text or (url.endswith("sweep") and headers)  # the sweep fragment shows no user text


def test_notebook_link_carries_the_split(client):
    soup = soup_of(client.get("/corpora/spam-ham/evaluation", query_string={"seed": "5"}))
    link = [a["href"] for a in soup.select(".downloads a") if "notebook" in a["href"]][0]
    notebook = client.get(link).get_json()
    assert notebook["metadata"]["webnb"]["test_size"] == 0.25 and notebook["metadata"]["webnb"]["seed"] == 5
    response = client.get("/corpora/spam-ham/export/notebook.ipynb", query_string={"test": "match-reviews"})
    assert response.status_code == 400


@pytest.mark.slow
def test_the_notebook_of_the_evaluation_page_reproduces_the_pages(client):
    """The notebook linked from the evaluation page, run in a Jupyter kernel, prints the φ and ψ of the parameters
    page, the trace of the Bayes' rule page and the accuracy of the evaluation page."""
    from test_export import run_in_kernel

    query = {"model": "bernoulli", "alpha": "0.5", "seed": "2", "text": "free prize, call now"}
    soup = soup_of(client.get("/corpora/spam-ham/evaluation", query_string=query))
    link = [a["href"] for a in soup.select(".downloads a") if "notebook" in a["href"]][0]
    summary, _ = run_in_kernel(client.get(link).get_json())

    evaluation = client.get("/corpora/spam-ham/evaluation", query_string={**query, "format": "json"}).get_json()
    assert (summary["correct"], summary["n_test"], summary["accuracy"]) == (
        evaluation["correct"], evaluation["n_test"], evaluation["accuracy"])
    parameters = client.get("/corpora/spam-ham/parameters", query_string={**query, "format": "json"}).get_json()
    assert summary["class_prior"] == [p["value"] for p in parameters["priors"]]
    column = {word: j for j, word in enumerate(summary["vocabulary"])}
    for pages in range(1, parameters["pages"] + 1):
        shown = client.get(
            "/corpora/spam-ham/parameters", query_string={**query, "page": pages, "format": "json"}).get_json()
        for row in shown["words"]:
            j = column[row["word"]]
            assert [c["value"] for c in row["per_class"]] == pytest.approx(
                [summary["feature_prob"][k][j] for k in range(2)], abs=1e-15)
    inference = client.get("/corpora/spam-ham/inference", query_string={**query, "format": "json"}).get_json()
    assert summary["trace"]["decision"] == inference["trace"]["decision"]
    for printed, shown in zip(summary["trace"]["per_class"], inference["trace"]["per_class"], strict=True):
        assert printed["posterior"] == pytest.approx(shown["posterior"], abs=1e-12)


def test_the_sweep_tests_your_alpha_against_the_most_accurate_one_on_the_same_documents(client):
    """McNemar's exact test of the page's α (0: the engine's exact zeros) against the sweep's best (scikit-learn's
    predictions), document by document, and the exact binomial p-value."""
    from math import comb

    held = hold_out(load_example_corpus("spam-ham"), test_size=0.25, seed=0)
    address = "/corpora/spam-ham/evaluation/sweep?model=bernoulli&alpha=0"
    data = client.get(address + "&format=json").get_json()
    best = data["best"]["alpha"]
    current_right = held.training.model("bernoulli", 0).predict_index(held.test_matrix) == held.true_class
    sklearn = BernoulliNB(alpha=best).fit(held.training.matrix, held.training.corpus.labels)
    best_right = sklearn.predict(held.test_matrix) == np.array(held.test_labels)
    b, c = int((current_right & ~best_right).sum()), int((best_right & ~current_right).sum())
    versus = data["versus_best"]
    assert (versus["only_current_right"], versus["only_best_right"]) == (b, c) == (0, 3)
    p = min(1, 2 * sum(comb(b + c, i) for i in range(min(b, c) + 1)) / 2 ** (b + c))
    assert versus["p_value"] == p == 0.25 and versus["tells_apart"] is False
    text = " ".join(soup_of(client.get(address)).select_one(".versus-best").get_text().split())
    assert f"{b} only yours gets right, {c} only α = 0.001; McNemar's exact p = 0.25: too close to tell apart" in text
    # The most accurate α itself: nothing to test it against.
    data = client.get("/corpora/match-reviews/evaluation/sweep?format=json").get_json()
    assert data["current"]["alpha"] == data["best"]["alpha"] and data["versus_best"] is None
    text = soup_of(client.get("/corpora/match-reviews/evaluation/sweep")).select_one(".versus-best").get_text()
    assert text == "Your α is the most accurate of these."
