"""The slides of the evaluation, the α sweep, the models side by side and the telling words (issue 24): in presenter
mode each page shows its slide (block slide), written from the same record as its JSON twin, with the full tables
folded one key away; the normal page has no slide. Read through the test client."""
from __future__ import annotations

import pytest
from conftest import soup_of

from webnb.lesson.formatting import big_count, logarithm, loss, percent, probability

MATCH = "model=bernoulli&alpha=0&text=match+was+sharp"
SPAM = "model=bernoulli&alpha=1&text=Claim+your+free+prize+now"
CHINA = "model=multinomial&alpha=1&text=Chinese+Chinese+Chinese+Tokyo+Japan"


def slide(client, path: str, query: str, key: str | None = None):
    """The slide ``key`` of the page at ``path`` in presenter mode, and the page's JSON twin with the same settings."""
    address = f"{path}?{query}&presenter=1" + (f"&slide={key}" if key else "")
    page = soup_of(client.get(address))
    section = page.find("section", class_="deck-slide")
    assert section is not None, address
    if key:
        assert section["id"] == f"slide-{key}"
    twin = client.get(f"{path}?{query}&format=json")
    assert twin.status_code == 200
    return section, twin.get_json()


def text_of(element) -> str:
    return " ".join(element.get_text(" ", strip=True).split())


# -- the evaluation --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("corpus, query", [("match-reviews", MATCH), ("spam-ham", SPAM), ("china-japan", CHINA)])
def test_the_scores_slide_shows_the_records_headline_numbers_and_whole_matrix(client, corpus, query):
    section, record = slide(client, f"/corpora/{corpus}/evaluation", query, "scores")
    assert text_of(section.find(id="slide-accuracy")) == percent(record["accuracy"])
    assert text_of(section.find(id="slide-undecidable")) == big_count(record["undecidable"])
    assert text_of(section.find(id="slide-log-loss")) == loss(record["log_loss"])
    assert f"{record['correct']} of {record['n_test']} right" in text_of(section)
    # Two classes: the whole confusion matrix on the slide, its cells the record's.
    table = section.find("table", class_="slide-confusion")
    rows = table.find("tbody").find_all("tr")
    assert [text_of(r.find("th")) for r in rows] == record["classes"]
    for row, counts, undecided in zip(rows, record["confusion"], record["undecidable_by_class"], strict=True):
        assert [text_of(td) for td in row.find_all("td")] == [big_count(c) for c in [*counts, undecided]]
    # The scikit-learn check stays on the normal page.
    assert section.find(class_="parity") is None and section.find(class_="warning") is None


def test_the_scores_slide_says_what_it_was_tested_on(client):
    section, record = slide(client, "/corpora/spam-ham/evaluation", SPAM, "scores")
    test = record["test"]
    assert test["source"] == "split"
    assert f"Trained on {test['n_train']} documents, tested on the {test['n_test']} held out" in text_of(section)
    section, _ = slide(client, "/corpora/match-reviews/evaluation", MATCH, "scores")
    assert "Tested on the same 5 documents it learnt from" in text_of(section)


def test_many_classes_condense_the_matrix_to_its_largest_confusions_with_the_full_matrix_folded(client):
    from webnb.views.evaluation import SLIDE_MATRIX_CLASSES

    labels = [f"class{n}" for n in range(SLIDE_MATRIX_CLASSES + 2)]
    # Each class has words of its own, and two of its documents speak only of the next class: those are confused.
    lines = []
    for n, label in enumerate(labels):
        following = labels[(n + 1) % len(labels)]
        lines += [f"{label},{label} {label} own{n} word{i}" for i in range(4)]
        lines += [f"{label},{following} {following} own{(n + 1) % len(labels)}"] * (1 + n % 2)
    pasted = client.post("/corpora/paste", data={"corpus": "\n".join(lines), "name": "Six classes"})
    corpus_id = pasted.headers["Location"].rsplit("/", 1)[1]
    query = "model=multinomial&alpha=1&test=training"
    section, record = slide(client, f"/corpora/{corpus_id}/evaluation", query, "scores")
    assert len(record["classes"]) == len(labels)
    assert section.find("table", class_="slide-confusion") is None
    cells = sorted(((count, i, j) for i, row in enumerate(record["confusion"]) for j, count in enumerate(row)
                    if i != j and count), key=lambda cell: -cell[0])[:5]
    confused = section.find("table", class_="slide-confused")
    rows = confused.find("tbody").find_all("tr")
    assert rows, "the corpus was made to confuse some classes"
    assert [[text_of(td) for td in row.find_all("td")][:2] for row in rows] == [
        [record["classes"][i], record["classes"][j]] for _, i, j in cells]
    assert [text_of(row.find_all("td")[2]).split(" of ")[0] for row in rows] == [big_count(c) for c, _, _ in cells]
    # The whole matrix, folded.
    folded = section.find("details", class_="full-table")
    assert folded is not None and folded.find("table", class_="confusion") is not None
    assert len(folded.find("table", class_="confusion").find("tbody").find_all("tr")) == len(labels)


def test_the_mistakes_slide_shows_a_few_wrong_documents_cut_at_a_word_and_their_count(client):
    section, record = slide(client, "/corpora/spam-ham/evaluation", SPAM, "mistakes")
    wrong = record["misclassified"]
    assert wrong["count"] == 2
    assert text_of(section.find(id="slide-mistakes-count")) == big_count(wrong["count"])
    items = section.find("ol", class_="slide-mistakes").find_all("li")
    assert len(items) == min(3, wrong["count"])
    for item, document in zip(items, wrong["documents"], strict=False):
        said = text_of(item.find(class_="said")).replace(" ,", ",")
        assert said.startswith(f"{document['true']}, said {document['predicted']}")
        assert probability(document["confidence"]) in said
        assert text_of(item.find(class_="doc-text"))


def test_a_long_wrong_document_is_cut_short_at_a_word(client):
    long_text = " ".join(["bravo charlie delta"] * 20)  # a document of class a in the words of b
    lines = ["a,alpha one", "a,alpha two", "a,alpha three", *["b,bravo charlie delta"] * 6, f"a,{long_text}"]
    corpus_id = client.post("/corpora/paste", data={"corpus": "\n".join(lines)}).headers["Location"].rsplit("/", 1)[1]
    section, record = slide(client, f"/corpora/{corpus_id}/evaluation", "model=bernoulli&alpha=1&test=training",
                            "mistakes")
    assert record["misclassified"]["count"] >= 1
    texts = [text_of(t) for t in section.find("ol", class_="slide-mistakes").find_all(class_="doc-text")]
    shown = next(t for t in texts if t.startswith("bravo"))
    assert shown.endswith("…") and len(shown) <= 111
    kept = shown[:-1].rstrip()
    assert long_text.startswith(kept) and long_text[len(kept)] == " "  # cut between two words


def test_no_mistakes_says_so_from_the_record(client):
    section, record = slide(client, "/corpora/match-reviews/evaluation", MATCH, "mistakes")
    assert record["misclassified"]["count"] == 0
    assert section.find("ol", class_="slide-mistakes") is None
    assert "every one was classified correctly, but these are the documents it learnt from" in text_of(section)


# -- the α sweep -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("corpus, query", [("spam-ham", SPAM), ("china-japan", CHINA)])
def test_the_sweep_slide_draws_the_chart_and_names_the_best_and_the_current_alpha(client, corpus, query):
    section, record = slide(client, f"/corpora/{corpus}/evaluation/sweep", query)
    assert section["id"] == "slide-sweep"
    chart = section.find("svg", class_="sweep-chart")
    assert chart is not None and len(chart.find_all("g", class_="panel")) == 2
    assert chart.find("desc").get_text().count(";") == len(record["points"]) - 1
    best, current = record["best"], record["current"]
    assert text_of(section.find(id="slide-best-alpha")) == probability(best["alpha"])
    # What the slide says of the best α is the record's: named only when no other value is within its interval.
    tied = section.find(id="slide-tied-alphas")
    if record["best_is_clear"]:
        assert tied is None and "the best is the most accurate" in text_of(section)
    else:
        assert text_of(tied) == f"{len(record['tied_alphas'])} values"
    numbers = text_of(section.find("dl", class_="slide-sweep-numbers"))
    assert f"{percent(best['accuracy'])} right" in numbers and f"{percent(current['accuracy'])} right" in numbers
    assert f"log loss {loss(current['log_loss'])}" in numbers
    assert float(text_of(section.find(id="slide-current-alpha"))) == current["alpha"]
    rows = section.find("details", class_="full-table").find("tbody").find_all("tr")
    assert [text_of(r.find("td")) for r in rows] == [probability(p["alpha"]) for p in record["points"]]


def test_the_sweep_slide_says_when_alpha_zero_cannot_decide(client):
    section, record = slide(client, "/corpora/spam-ham/evaluation/sweep", SPAM)
    zero = record["points"][0]
    assert zero["alpha"] == 0 and zero["undecidable"] == 3
    assert f"{zero['undecidable']} undecidable, infinite log loss" in text_of(section.find(class_="zero-alpha"))


# -- models side by side ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("corpus, query", [("match-reviews", MATCH), ("spam-ham", SPAM)])
def test_the_compare_slide_lists_each_models_accuracy_and_log_loss(client, corpus, query):
    section, record = slide(client, f"/corpora/{corpus}/compare", query)
    comparison = record["comparison"]
    rows = section.find("table", class_="slide-comparison").find("tbody").find_all("tr")
    assert [text_of(r.find("th")) for r in rows] == [m["name"] for m in comparison["models"]]
    for row, model in zip(rows, comparison["models"], strict=True):
        accuracy, log_loss = (text_of(td) for td in row.find_all("td"))
        assert accuracy.startswith(f"{model['accuracy'] * 100:.2f} %")
        assert ("best" in accuracy) == (model["key"] in comparison["best"])
        value = float("inf") if model["log_loss"] == "inf" else model["log_loss"]
        assert log_loss == logarithm(value)
    lead = text_of(section.find(class_="slide-lead"))
    assert f"{big_count(comparison['n_train'])} training and {big_count(comparison['n_test'])} test documents" in lead
    # The rest (features, times) is folded.
    folded = section.find_all("details", class_="full-table")
    assert folded and "Fit time" in text_of(folded[0])


# -- telling words ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("corpus, query", [("match-reviews", MATCH), ("spam-ham", SPAM), ("china-japan", CHINA)])
def test_the_words_slide_shows_a_few_own_words_per_class_from_the_record(client, corpus, query):
    section, record = slide(client, f"/corpora/{corpus}/words", query)
    columns = record["unique_words"]["per_class"]
    rows = section.find("table", class_="slide-words").find("tbody").find_all("tr")
    assert [text_of(r.find("th")) for r in rows] == [c["class"] for c in columns]
    for row, column in zip(rows, columns, strict=True):
        tokens = [text_of(t) for t in row.find_all(class_="token")]
        assert tokens == [w["word"] for w in column["words"][:5]]
    assert f"top {record['unique_words']['top']} by probability" in text_of(section.find(class_="slide-lead"))
    # Two classes: the largest ratio each way, as the record ranks them.
    discriminative = record["discriminative"]
    pointing = text_of(section.find(class_="slide-pointing"))
    for side, favoured in (("toward_positive", "positive"), ("toward_negative", "negative")):
        if discriminative[side]:
            assert f"{discriminative[side][0]['word']} toward {discriminative[favoured]}" in pointing
    folded = section.find("details", class_="full-table")
    assert len(folded.find("tbody").find_all("tr")) == len(columns)


# -- the normal pages ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["evaluation", "evaluation/sweep", "compare", "words"])
def test_the_normal_pages_have_no_slide(client, path):
    page = soup_of(client.get(f"/corpora/spam-ham/{path}?{SPAM}"))
    assert page.find(class_="deck-slide") is None and page.find(class_="deck-bar") is None
