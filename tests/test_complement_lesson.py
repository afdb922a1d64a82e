"""Complement Naive Bayes as a model of the lesson (model=complement): its weights on the parameters page, its steps
on Bayes' rule (the score as a sum of weights, the decision, and why the steps about probabilities do not apply),
the same numbers as scikit-learn's ComplementNB, every verdict sentence the twin's, and the pages about
probabilities saying where its numbers are instead of failing."""
from __future__ import annotations

import math

import pytest
from conftest import pasted_id, soup_of
from sklearn.naive_bayes import ComplementNB

from webnb.engine import TrainingSet
from webnb.examples import load_example_corpus
from webnb.lesson.pages import TEXT_PAGES
from webnb.lesson.state import STEPS

D5 = "Chinese Chinese Chinese Tokyo Japan"
FILM = "predictable with no fun"
NUMBER = r"[−-]?\d+(?:\.\d+)?(?: × 10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)?|∞"


def theirs(corpus_id: str, alpha: float):
    """scikit-learn's ComplementNB on the built-in corpus's counts, and the training set it was fitted on."""
    training = TrainingSet.build(load_example_corpus(corpus_id))
    model = ComplementNB(alpha=alpha, force_alpha=True).fit(training.matrix, training.class_index)
    return training, model


def twin(client, path: str, **query) -> dict:
    response = client.get(path, query_string={"format": "json", **query})
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    return response.get_json()


def number(text: str) -> float:
    text = text.replace("−", "-")
    if text == "∞":
        return math.inf
    if "× 10" in text:
        mantissa, exponent = text.split(" × 10")
        return float(mantissa) * 10 ** int(exponent.translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")))
    return float(text)


# -- the parameters page: the weights, as scikit-learn computes them ---------------------------------------------------


@pytest.mark.parametrize("corpus_id, alpha", [("china-japan", 1.0), ("film-sentiment", 1.0), ("film-sentiment", 0.5)])
def test_the_parameters_page_shows_scikit_learns_weights(client, corpus_id, alpha):
    training, model = theirs(corpus_id, alpha)
    data = twin(client, f"/corpora/{corpus_id}/parameters", model="complement", alpha=str(alpha))
    assert data["model"] == "complement" and data["classes"] == list(training.classes)
    for row in data["words"]:
        j = training.bag.index[row["word"]]
        for k, cell in enumerate(row["cells"]):
            assert cell["weight"] == pytest.approx(model.feature_log_prob_[k, j], rel=1e-12)
    # the page's cells say the twin's numbers: θ̃ as its ratio and w to four digits
    soup = soup_of(client.get(f"/corpora/{corpus_id}/parameters", query_string={"model": "complement",
                                                                                "alpha": str(alpha)}))
    table = soup.find("table", class_="complement-weights")
    for tr, row in zip(table.tbody.find_all("tr"), data["words"], strict=True):
        assert tr.th.get_text(strip=True) == row["word"]
        cells = tr.find_all("td")[1:]
        for td, cell in zip(cells, row["cells"], strict=True):
            assert td.find(class_="frac").get_text() == cell["ratio"]
            shown = td.find(class_="weight").get_text().removeprefix("w = ")
            assert number(shown) == pytest.approx(cell["weight"], rel=1e-3)


def test_without_smoothing_a_word_of_one_class_weighs_infinitely_and_the_page_says_how_often(client):
    data = twin(client, "/corpora/china-japan/parameters", model="complement", alpha="0")
    # beijing, macao, shanghai only in China; japan, tokyo only in not China: five cells of weight +∞
    assert data["infinite_cells"] == 5
    infinite = {(row["word"], data["classes"][k]) for row in data["words"] for k, cell in enumerate(row["cells"])
                if cell["weight"] == "inf"}
    assert infinite == {("beijing", "China"), ("macao", "China"), ("shanghai", "China"), ("japan", "not China"),
                        ("tokyo", "not China")}
    warning = soup_of(client.get("/corpora/china-japan/parameters?model=complement&alpha=0")).find(class_="warning")
    assert warning.get_text(" ", strip=True).startswith("5 cells of the table have θ̃ = 0 and weight +∞")


# -- Bayes' rule: the scores and the decision, as scikit-learn computes them -------------------------------------------


@pytest.mark.parametrize("corpus_id, text, alpha", [
    ("china-japan", D5, 1.0), ("film-sentiment", FILM, 1.0), ("film-sentiment", FILM, 0.5),
    ("spam-ham", "free prize call", 1.0)])
def test_the_scores_and_the_decision_are_scikit_learns(client, corpus_id, text, alpha):
    training, model = theirs(corpus_id, alpha)
    data = twin(client, f"/corpora/{corpus_id}/inference", model="complement", alpha=str(alpha), text=text)
    x = training.transform([text])
    expected = (x @ model.feature_log_prob_.T)[0]
    scores = [entry["score"] for entry in data["decided"]["per_class"]]
    assert scores == pytest.approx(expected.tolist(), rel=1e-12)
    assert data["decided"]["decision"] == training.classes[model.predict(x)[0]]
    normalised = model.predict_proba(x)[0]
    assert list(data["decided"]["normalised"].values()) == pytest.approx(normalised.tolist(), rel=1e-9)


def test_d5_goes_to_not_china_for_the_complement_model_and_each_term_is_a_weight_of_the_review(client):
    data = twin(client, "/corpora/china-japan/inference", model="complement", alpha="1", text=D5)
    china, not_china = data["decided"]["per_class"]
    # not China's θ̃ come from China's 8 words + 6: chinese 5 + 1 over 14, japan and tokyo 0 + 1 over 14
    assert [(t["word"], t["count"], t["ratio"]) for t in not_china["terms"]] == [
        ("chinese", 3, "6/14"), ("japan", 1, "1/14"), ("tokyo", 1, "1/14")]
    assert not_china["score"] == pytest.approx(-3 * math.log(6 / 14) - 2 * math.log(1 / 14))
    assert [(t["word"], t["ratio"]) for t in china["terms"]] == [("chinese", "2/9"), ("japan", "2/9"),
                                                                 ("tokyo", "2/9")]
    assert data["decided"]["decision"] == "not China" and data["runner_up"] == "China"
    pulls = {c["word"]: c["difference"] for c in data["contributions"]}
    assert sum(pulls.values()) == pytest.approx(not_china["score"] - china["score"])


def test_without_smoothing_both_film_classes_score_infinity_and_cannot_be_compared(client):
    data = twin(client, "/corpora/film-sentiment/inference", model="complement", alpha="0", text=FILM)
    decided = data["decided"]
    assert decided["cannot_decide"] and decided["says"] == "cannot-decide" and decided["decision"] is None
    assert decided["infinite_classes"] == ["negative", "positive"]
    assert data["smoothed"]["says"] == "decided" and data["smoothing_alpha"] == "1"
    soup = soup_of(client.get("/corpora/film-sentiment/inference",
                              query_string={"model": "complement", "alpha": "0", "text": FILM, "step": "smoothing"}))
    said = {p["data-about"]: (p["data-says"], p["data-class"]) for p in soup.select(".verdict")}
    assert said == {"unsmoothed": ("cannot-decide", ""), "smoothed": ("decided", data["smoothed"]["decision"])}


@pytest.mark.parametrize("presenter", ["0", "1"])
@pytest.mark.parametrize("corpus_id, text, alpha", [("china-japan", D5, "1"), ("film-sentiment", FILM, "0"),
                                                    ("match-reviews", "nothing known here", "1")])
def test_every_step_says_the_twins_verdict(client, presenter, corpus_id, text, alpha):
    """Every verdict sentence on every step, on the page and on the slide, is the twin's record for what it is
    about (the lesson's α, α = 0, the smoothing α)."""
    query = {"model": "complement", "alpha": alpha, "text": text, "presenter": presenter}
    data = twin(client, f"/corpora/{corpus_id}/inference", **query)
    records = {"lesson": data["decided"], "unsmoothed": data["unsmoothed"], "smoothed": data["smoothed"]}
    seen = set()
    for step in STEPS:
        soup = soup_of(client.get(f"/corpora/{corpus_id}/inference", query_string={**query, "step": step}))
        for sentence in soup.select("main .verdict"):
            record = records[sentence["data-about"]]
            assert (sentence["data-says"], sentence["data-class"]) == (record["says"], record["decision"] or "")
            seen.add(sentence["data-about"])
    assert seen == {"lesson", "unsmoothed", "smoothed"}


def test_the_steps_about_probabilities_say_why_they_do_not_apply(client):
    query = {"model": "complement", "alpha": "1", "text": D5}
    said = {}
    for step in ("factors", "product", "underflow", "logspace"):
        soup = soup_of(client.get("/corpora/china-japan/inference", query_string={**query, "step": step}))
        said[step] = " ".join(soup.find(class_="step").get_text(" ", strip=True).split())
    assert "multiplies no factors" in said["factors"]
    assert "There is no product" in said["product"]
    assert "nothing to underflow" in said["underflow"]
    assert "log space from the start" in said["logspace"]
    decision = soup_of(client.get("/corpora/china-japan/inference", query_string={**query, "step": "decision"}))
    assert "not P(class | review)" in decision.find(class_="step").get_text(" ")


# -- the other pages: nothing fails, the ones about probabilities say where to look --------------------------------


def test_every_page_answers_complement_and_the_ones_about_probabilities_say_where_to_look(client):
    for page in TEXT_PAGES:
        path = f"/corpora/china-japan{page.path}"
        query = {"model": "complement", "word": "chinese", "class": "China"}
        html = client.get(path, query_string=query)
        assert html.status_code in (200, 400, 404), (page.key, html.status_code)
        data = client.get(path, query_string={**query, "format": "json"}).get_json()
        error = (data or {}).get("error") or ""
        if "complement" in page.models:
            assert "Complement Naive Bayes has weights, not probabilities" not in error, page.key
        else:
            assert "Complement Naive Bayes has weights, not probabilities" in error, page.key
            assert "“Parameters”" in error and "“Bayes' rule”" in error and "“Models side by side”" in error
            assert "Complement Naive Bayes has weights" in html.get_data(as_text=True)
    # Every download serves it (tests/test_complement_exports.py checks their numbers), and the pages link them.
    for download in ("notebook.ipynb", "parameters.csv", "priors.csv", "evaluation.csv", "matrix.csv"):
        response = client.get(f"/corpora/china-japan/export/{download}", query_string={"model": "complement"})
        assert response.status_code == 200, download
    for path in ("inference", "evaluation"):
        for model in ("complement", "multinomial"):
            page = soup_of(client.get(f"/corpora/china-japan/{path}", query_string={"model": model}))
            links = page.select('a[href*="/export/notebook.ipynb"]')
            assert links and all(f"model={model}" in link["href"] for link in links), (path, model)


def test_a_floor_asked_of_complement_is_refused_on_the_page(client):
    data = twin(client, "/corpora/china-japan/inference", model="complement", floor="1", text=D5)
    assert "nothing to floor" in data["error"] and "decided" not in data
    page = client.get("/corpora/china-japan/parameters?model=complement&floor=1")
    assert page.status_code == 200 and "nothing to floor" in page.get_data(as_text=True)


def test_the_model_form_and_the_slides_key_go_through_the_three_models(client):
    soup = soup_of(client.get("/corpora/china-japan/parameters?model=complement"))
    options = [o["value"] for o in soup.select("#model-kind option")]
    assert options == ["bernoulli", "multinomial", "complement"]
    assert soup.select_one("#model-kind option[selected]")["value"] == "complement"
    assert soup.select_one("#model-prior") is None  # no prior and no floor to set for it
    for model, then in (("bernoulli", "multinomial"), ("multinomial", "complement"), ("complement", "bernoulli")):
        slide = soup_of(client.get(f"/corpora/china-japan/inference?model={model}&presenter=1&step=decision"))
        link = slide.select_one('[data-control="model"]')
        assert f"model={then}" in link["href"] and link.get_text(strip=True).lower() == then


def test_hostile_labels_and_words_stay_text_on_complements_pages(client):
    hostile = "<script>alert(1)</script>"
    corpus_id = pasted_id(client, f"{hostile}\tred <b>blue</b>\nplain\tgreen blue", "hostile")
    for presenter in ("0", "1"):
        pages = [f"/corpora/{corpus_id}/parameters?model=complement&presenter={presenter}&slide=table&text=red"]
        pages += [f"/corpora/{corpus_id}/inference?model=complement&text=red+green&step={step}&presenter={presenter}"
                  for step in STEPS]
        for path in pages:
            raw = client.get(path).get_data(as_text=True)
            assert "<script>alert(1)" not in raw and "<b>blue" not in raw, path
            if "step=tokens" not in path and "step=vector" not in path:  # the steps that name the classes
                assert "&lt;script&gt;" in raw, path


def test_the_slides_twin_says_which_classes_and_words_it_kept(client):
    """Twenty-one classes: the weights' slide keeps the three with the largest scores and folds the others into
    "+ 18 more"; its twin lists the same classes, in the classes' order."""
    lines = "\n".join(f"c{k:02d}\tword{k} common{k % 3} shared" for k in range(21))
    corpus_id = pasted_id(client, lines, "many classes")
    query = {"model": "complement", "text": "word3 shared common0", "presenter": "1", "step": "factors"}
    data = twin(client, f"/corpora/{corpus_id}/inference", **query)
    kept = {part["part"]: part for part in data["shown_on_slide"]}
    classes = kept["inference.complement.classes"]
    assert (classes["total"], len(classes["shown"]), classes["more"]) == (21, 3, 18)
    scores = {c["class"]: c["score"] for c in data["decided"]["per_class"]}
    leading = sorted(scores, key=lambda label: -scores[label])[:3]
    assert set(classes["shown"]) == set(leading) and data["decided"]["decision"] in classes["shown"]
    assert classes["shown"] == [label for label in scores if label in leading]  # in the classes' order
    soup = soup_of(client.get(f"/corpora/{corpus_id}/inference", query_string=query))
    heads = [th.get_text("", strip=True) for th in soup.select("main table.complement-weights thead th")]
    assert heads[2:5] == classes["shown"] and heads[5] == "+ 18 more"


# -- evaluation, the α sweep, the check against scikit-learn and the command line ----------------------------------


def test_the_evaluation_scores_complement_as_scikit_learn_does_and_gives_no_log_loss(client):
    """The spam-ham split the lesson uses (a quarter of each class held out, seed 0): the same predictions as
    ComplementNB; no log loss and no posterior, since the scores are not probabilities."""
    from webnb.engine.evaluation.heldout import hold_out

    held = hold_out(load_example_corpus("spam-ham"), test_size=0.25, seed=0)
    training = held.training
    theirs_model = ComplementNB(alpha=1.0).fit(training.matrix, training.class_index)
    expected = int((theirs_model.predict(held.test_matrix) == held.true_class).sum())
    data = twin(client, "/corpora/spam-ham/evaluation", model="complement", test="split")
    assert data["correct"] == expected and data["n_test"] == len(held.true_class)
    assert data["log_loss"] is None and data["infinite_loss_documents"] is None and data["mean_confidence"] is None
    soup = soup_of(client.get("/corpora/spam-ham/evaluation", query_string={"model": "complement", "test": "split"}))
    log_loss = soup.find(id="log-loss").parent.get_text(" ", strip=True)
    assert log_loss == "– none: its scores are not probabilities"


def test_the_alpha_sweep_of_complement_has_accuracy_only(client):
    data = twin(client, "/corpora/spam-ham/evaluation/sweep", model="complement")
    points = data["sweep"]["points"] if "sweep" in data else data["points"]
    assert all(point["log_loss"] is None and point["infinite_loss_documents"] is None for point in points)
    soup = soup_of(client.get("/corpora/spam-ham/evaluation/sweep", query_string={"model": "complement"}))
    assert [t.get_text() for t in soup.select("svg.sweep-chart g.panel .axis-title")] == ["accuracy"]
    assert "Its scores are not probabilities, so there is no log loss to draw." in soup.get_text(" ")


@pytest.mark.parametrize("of", ["parameters", "evaluation"])
@pytest.mark.parametrize("query", [{"alpha": "1"}, {"alpha": "0"}, {"alpha": "0.5", "binary": "1"}])
def test_the_check_against_scikit_learn_agrees_for_complement(client, of, query):
    data = twin(client, "/corpora/spam-ham/parity", model="complement", of=of, **query)
    assert data["status"] == "agrees", data
    if of == "parameters":
        assert "weights w = −log θ̃" in [check["name"] for check in data["checks"]]
        assert any(call.startswith("ComplementNB(") for call in data["calls"])


def test_the_command_line_explains_and_evaluates_complement(tmp_path, app, webnb):
    path = tmp_path / "film.jsonl"
    corpus = load_example_corpus("film-sentiment")
    path.write_text("".join(f'{{"label": "{label}", "text": "{text}"}}\n'
                            for label, text in zip(corpus.labels, corpus.texts, strict=True)), encoding="utf-8")
    code, out, err = webnb(app, "explain", "--train", path, "--model", "complement", "--text", FILM)
    assert (code, err) == (0, "")
    assert "  predictable: x = 1, θ̃ = 2/34, w = −log θ̃ = 2.83321" in out
    assert "Decision: negative: the largest score. The scores are not probabilities." in out
    code, out, err = webnb(app, "explain", "--train", path, "--model", "complement", "--alpha", "0", "--text", FILM,
                           "--json")
    assert code == 0 and '"cannot_decide": true' in out
    code, out, err = webnb(app, "evaluate", "--train", path, "--model", "complement")
    assert code == 0 and "Log loss: none (the scores are sums of weights, not probabilities)" in out
    code, out, err = webnb(app, "evaluate", "--train", path, "--model", "complement", "--epsilon", "1e-14")
    assert code != 0 and "nothing to floor" in err


@pytest.mark.slow  # seven pages in presenter mode
def test_a_slide_says_why_it_shows_nothing_once(client):
    """In presenter mode the page's header states the lesson's error above the slide, and the slide points to it; a
    handout's slide, which has no header, states it itself."""
    refused = "Complement Naive Bayes has weights, not probabilities"
    pages = [page for page in TEXT_PAGES if page.slide_parameter == "slide" and "complement" not in page.models]
    assert pages  # the pages about probabilities
    for page in pages:
        html = client.get(f"/corpora/china-japan{page.path}", query_string={
            "model": "complement", "presenter": "1", "text": D5}).get_data(as_text=True)
        assert html.count(refused) == 1, page.key


@pytest.mark.slow  # the whole lecture: 30 slides
def test_a_handout_slide_says_why_it_shows_nothing(client):
    refused = "Complement Naive Bayes has weights, not probabilities"
    pages = [page for page in TEXT_PAGES if page.slide_parameter == "slide" and "complement" not in page.models]
    handout = client.get("/corpora/china-japan/lecture", query_string={"model": "complement", "text": D5})
    said = [slide["aria-label"] for slide in soup_of(handout).select("article.handout-slide")
            if slide.get_text(" ", strip=True).count(refused) == 1]
    assert len(said) == len(pages), said
