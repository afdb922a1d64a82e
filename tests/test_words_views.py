"""The telling-words page: the most probable words, the unique ones, the discriminative ones and the effect
of word pairs, checked against counts by hand, the engine, and scikit-learn on the SMS spam corpus."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from conftest import slow_but_the_first, soup_of

from webnb.engine import AnalysisOptions, Corpus, VocabularyOptions, evaluate, read_corpus
from webnb.engine.evaluation.heldout import hold_out
from webnb.examples import load_example_corpus
from webnb.lesson.state import entry_defaults, parse_state

BUILTIN = ["match-reviews", "china-japan", "folgers-students", "spam-ham"]


def words_json(client, corpus_id: str, **query) -> dict:
    response = client.get(f"/corpora/{corpus_id}/words", query_string={**query, "format": "json"})
    assert response.status_code == 200
    text = response.get_data(as_text=True)
    assert "NaN" not in text and "Infinity" not in text  # infinities travel as "inf"
    return json.loads(text)


def list_of(column_data) -> list[str]:
    return [w["word"] for w in column_data["words"]]


def table_words(table) -> list[str]:
    return [th.get_text(strip=True) for th in table.select("tbody th[scope=row]")]


# -- pages, fragments, the JSON twin ---------------------------------------------------------------------------


@pytest.mark.parametrize("corpus_id", BUILTIN)
def test_full_page_and_fragment(client, corpus_id):
    page = client.get(f"/corpora/{corpus_id}/words")
    assert page.status_code == 200 and "HX-Request" in page.headers["Vary"]
    full = soup_of(page)
    assert full.find("html") is not None
    for section in ("words", "top-words", "unique-words", "discriminative", "bigrams"):
        assert full.find(id=section) is not None, section
    fragment = soup_of(client.get(f"/corpora/{corpus_id}/words", headers={"HX-Request": "true"}))
    assert fragment.find("html") is None and fragment.find("header") is None
    top = [element for element in fragment.contents if getattr(element, "name", None)]
    assert [(element.name, element.get("id")) for element in top] == [("section", "words")]


def test_unknown_corpus_is_404(client):
    assert client.get("/corpora/no-such-corpus/words").status_code == 404


def test_spam_ham_numbers_by_hand(client):
    """Bernoulli, α = 1. ham has 9 messages, 8 of them with "the"; spam has 7, none with "the" and 4 with "to"
    (messages 1, 4, 5 and 7). So ψ_the,ham = (8+1)/(9+2) = 9/11, ψ_the,spam = (0+1)/(7+2) = 1/9, and
    ψ_to,spam = (4+1)/(7+2) = 5/9."""
    data = words_json(client, "spam-ham", model="bernoulli", alpha="1")
    assert data["classes"] == ["ham", "spam"] and data["settings"]["k"] == 10
    ham, spam = data["top_words"]["per_class"]
    assert ham["words"][0] == {"word": "the", "probability": 9 / 11, "ratio": "9/11"}
    assert spam["words"][0] == {"word": "to", "probability": 5 / 9, "ratio": "5/9"}
    assert len(ham["words"]) == len(spam["words"]) == 10

    formula = data["discriminative"]["formula"]
    assert formula["word"] == "the" and formula["favoured_label"] == "ham" and formula["other_label"] == "spam"
    assert formula["favoured_parts"] == ["9", "11"] and formula["other_parts"] == ["1", "9"]
    assert formula["value"] == pytest.approx(81 / 11, rel=1e-15) and formula["exact"] == "81/11"
    first = data["discriminative"]["toward_positive"][0]
    assert first["ratio"] == pytest.approx(81 / 11) and first["difference"] == pytest.approx(9 / 11 - 1 / 9)

    soup = soup_of(client.get("/corpora/spam-ham/words", query_string={"model": "bernoulli", "alpha": "1"}))
    ham_table = soup.select("#top-words table")[0]
    assert ham_table.caption.get_text(strip=True) == "ham"
    assert ham_table.select_one("tbody tr td.num + th + td").get_text(" ", strip=True) == "9/11 ≈ 0.8182"
    written = soup.find(id="discriminative-formula").get_text(" ", strip=True)
    assert "81/11" in written and "7.364" in written


def test_alpha_zero_gives_infinite_ratios_never_nan(client):
    data = words_json(client, "spam-ham", model="bernoulli", alpha="0")
    formula = data["discriminative"]["formula"]
    # "the": 8 of 9 ham messages, 0 of 7 spam messages.
    assert formula["word"] == "the" and formula["favoured_parts"] == ["8", "9"] and formula["other_parts"] == ["0", "7"]
    assert formula["value"] == "inf" and formula["exact"] is None
    for row in data["discriminative"]["toward_positive"] + data["discriminative"]["toward_negative"]:
        # every listed word is missing on the other side
        assert row["ratio"] == "inf" and row["other_probability"] == 0.0
    soup = soup_of(client.get("/corpora/spam-ham/words", query_string={"model": "bernoulli", "alpha": "0"}))
    assert "∞" in soup.find(id="discriminative-formula").get_text()
    ratios = [row.select("td")[2].get_text(strip=True) for row in soup.select("#discriminative table tbody tr")]
    assert ratios and set(ratios) == {"∞"}
    assert "nan" not in soup.get_text().lower()


def test_multinomial_with_fractional_alpha(client):
    """Multinomial, α = 0.5. Both classes have 94 word occurrences and |V| = 125; "the" occurs 8 times in ham and
    never in spam. θ_the,ham = (8 + 0.5) / (94 + 0.5·125) = 8.5/156.5, θ_the,spam = 0.5/156.5, and the
    difference is 8/156.5 = 16/313. The parts are written as the lecture writes them: 8.5, not 17/2."""
    data = words_json(client, "spam-ham", model="multinomial", alpha="0.5", by="difference")
    formula = data["discriminative"]["formula"]
    assert formula["word"] == "the" and formula["by"] == "difference"
    assert formula["favoured_parts"] == ["8.5", "156.5"] and formula["other_parts"] == ["0.5", "156.5"]
    assert formula["exact"] == "16/313" and formula["value"] == pytest.approx(16 / 313, rel=1e-15)
    # The same, ranked by ratio: 8.5/0.5 = 17 exactly, a whole number, so no fraction is written.
    by_ratio = words_json(client, "spam-ham", model="multinomial", alpha="0.5")["discriminative"]["formula"]
    assert by_ratio["word"] == "the" and by_ratio["value"] == pytest.approx(17.0) and by_ratio["exact"] is None


def _training_of(corpus_id: str):
    from webnb.engine import TrainingSet

    return TrainingSet.build(load_example_corpus(corpus_id))


def test_unique_words_on_a_small_vocabulary(client):
    """spam-ham has 125 words: the seed's top 200 would hold them all, so the default is a quarter (31), and an
    explicit top of 200 says why no word can be unique."""
    data = words_json(client, "spam-ham", model="bernoulli", alpha="0")
    assert data["vocabulary_size"] == 125 and data["unique_words"]["top"] == 31
    training = _training_of("spam-ham")
    model = training.model("bernoulli", "0")
    psi = model.feature_prob_
    vocabulary = np.array(training.vocabulary)
    tops = [np.lexsort((vocabulary, -psi[k]))[:31] for k in range(2)]
    for k, column in enumerate(data["unique_words"]["per_class"]):
        unique = [j for j in tops[k] if j not in tops[1 - k]]
        assert list_of(column) == vocabulary[unique[:10]].tolist() and column["available"] == len(unique)

    everything = words_json(client, "spam-ham", top="200")
    assert everything["unique_words"]["every_word_a_candidate"] is True
    assert [c["words"] for c in everything["unique_words"]["per_class"]] == [[], []]
    soup = soup_of(client.get("/corpora/spam-ham/words", query_string={"top": "200"}))
    assert "no word can be unique" in soup.find(id="unique-words").get_text()


# -- agreement with scikit-learn on a real corpus ----------------------------------------------------------------


def _added(app, path, name):
    corpus = read_corpus(path)
    catalog = app.extensions["webnb"]["catalog"]
    corpus_id = catalog.add(corpus, name=name, source="test")
    entry = catalog.get(corpus_id)
    state = parse_state({}, entry_defaults(entry))
    return corpus_id, catalog.training_set(entry, state.analysis_options(), state.vocabulary_options())


def _ranked(values: np.ndarray, vocabulary: np.ndarray, candidates: np.ndarray,
            secondary: np.ndarray | None = None) -> np.ndarray:
    """Candidates by value (largest first), then by ``secondary`` (largest first), then alphabetically."""
    keys = [vocabulary[candidates]]
    if secondary is not None:
        keys.append(-secondary[candidates])
    keys.append(-values[candidates])
    return candidates[np.lexsort(keys)]


@pytest.mark.corpora
@pytest.mark.parametrize("kind", ["multinomial", "bernoulli"])
def test_lists_match_scikit_learn_on_sms_spam(app, client, shared_corpora, kind):
    from sklearn.naive_bayes import BernoulliNB, MultinomialNB

    corpus_id, training = _added(app, shared_corpora / "sms-spam-collection-v1" / "all.jsonl", "SMS")
    y = training.class_index
    fitted = (MultinomialNB(alpha=1.0) if kind == "multinomial" else BernoulliNB(alpha=1.0)).fit(training.matrix, y)
    probabilities = np.exp(fitted.feature_log_prob_)  # (n_classes, n_words)
    vocabulary = np.array(training.vocabulary)
    everything = np.arange(len(vocabulary))
    k, top = 15, 200

    data = words_json(client, corpus_id, model=kind, alpha="1", k=str(k), top=str(top))
    assert data["classes"] == list(training.classes) == ["ham", "spam"]
    assert data["vocabulary_size"] == len(vocabulary) == 8713

    tops = []
    for c, column in enumerate(data["top_words"]["per_class"]):
        ranked = _ranked(probabilities[c], vocabulary, everything)
        assert list_of(column) == vocabulary[ranked[:k]].tolist()
        np.testing.assert_allclose(
            [w["probability"] for w in column["words"]], probabilities[c, ranked[:k]], rtol=1e-12)
        tops.append(ranked[:top])
    for c, column in enumerate(data["unique_words"]["per_class"]):
        unique = tops[c][~np.isin(tops[c], tops[1 - c])]
        assert list_of(column) == vocabulary[unique[:k]].tolist() and column["available"] == len(unique)

    p, q = probabilities  # ham, spam: the default pair is (first class, second class)
    considered = np.flatnonzero((p > 1e-4) | (q > 1e-4))
    assert data["discriminative"]["considered"] == len(considered)
    for by in ("ratio", "difference"):
        if by == "ratio":
            found = data["discriminative"]
        else:
            found = words_json(client, corpus_id, model=kind, alpha="1", k=str(k), by=by)["discriminative"]
        for favoured, other, listed in ((p, q, found["toward_positive"]), (q, p, found["toward_negative"])):
            words = considered[favoured[considered] > other[considered]]
            score = favoured / other if by == "ratio" else favoured - other
            expected = _ranked(score, vocabulary, words, secondary=favoured)[:k]
            assert [w["word"] for w in listed] == vocabulary[expected].tolist(), by
            np.testing.assert_allclose([w["ratio"] for w in listed], (favoured / other)[expected], rtol=1e-9)
            np.testing.assert_allclose(
                [w["difference"] for w in listed], (favoured - other)[expected], rtol=1e-9, atol=1e-15)


# -- word pairs on and off ----------------------------------------------------------------------------------------


def _expected_comparison(corpus, *, kind, alpha, test_size=0.25, seed=0, **analysis):
    rows = []
    for ngrams in ((1, 1), (1, 2)):
        held = hold_out(corpus, AnalysisOptions(ngram_range=ngrams, **analysis), VocabularyOptions(),
                        test_size=test_size, seed=seed)
        scores = evaluate(held.training.model(kind, alpha), held.test_matrix, held.test_labels)
        rows.append(
            (held.training.statistics.n_words, scores.correct, scores.n_test, scores.accuracy, scores.undecidable))
    return rows


def _shown_comparison(bigrams: dict):
    return [
        (r["vocabulary_size"], r["correct"], r["n_test"], r["accuracy"], r["undecidable"])
        for r in bigrams["feature_sets"]
    ]


def test_bigram_comparison_matches_the_engine(client):
    corpus = load_example_corpus("spam-ham")
    for query, kind, alpha, analysis in (
        ({"model": "bernoulli", "alpha": "1"}, "bernoulli", "1", {}),
        ({"model": "multinomial", "alpha": "0.5", "stop_words": "english", "seed": "3", "test_size": "0.4"},
         "multinomial", "0.5", {"stop_words": "english"}),
    ):
        data = words_json(client, "spam-ham", **query)
        bigrams = data["bigrams"]
        assert bigrams["state"] == "done" and bigrams["test"] == "split"
        seed, test_size = int(query.get("seed", 0)), float(query.get("test_size", 0.25))
        expected = _expected_comparison(corpus, kind=kind, alpha=alpha, seed=seed, test_size=test_size, **analysis)
        assert _shown_comparison(bigrams) == expected
        for words in bigrams["discriminative_pairs"].values():
            assert all(" " in w for w in words)
    # By hand for the default split: 98 single words in the 12 training messages, 224 with their pairs.
    default = words_json(client, "spam-ham", model="bernoulli", alpha="1")["bigrams"]["feature_sets"]
    assert [r["vocabulary_size"] for r in default] == [98, 224] and [r["n_test"] for r in default] == [4, 4]


def test_pairs_among_discriminative_words_come_from_the_bigram_model(client):
    data = words_json(client, "spam-ham", model="multinomial", alpha="1", k="20")
    held = hold_out(load_example_corpus("spam-ham"), AnalysisOptions(ngram_range=(1, 2)), VocabularyOptions())
    from webnb.engine.records.insights import discriminative_words

    found = discriminative_words(held.training.model("multinomial", "1"), "ham", "spam", k=20)
    expected = {
        "ham": [w.word for w in found.toward_positive if " " in w.word],
        "spam": [w.word for w in found.toward_negative if " " in w.word],
    }
    assert data["bigrams"]["discriminative_pairs"] == expected and any(expected.values())
    soup = soup_of(
        client.get("/corpora/spam-ham/words", query_string={"model": "multinomial", "alpha": "1", "k": "20"}))
    shown = [t.get_text() for t in soup.select("#bigrams .pair-lists .token")]
    assert shown == expected["ham"] + expected["spam"]
    current = soup.select_one("#bigrams tr.chosen th").get_text(" ", strip=True)
    assert current.startswith("single words")


def test_the_word_pair_part_alone_for_htmx(client):
    # The "being computed" note polls for this part only: the section with the comparison, nothing else.
    response = client.get(
        "/corpora/spam-ham/words", query_string={"model": "bernoulli", "alpha": "1", "part": "bigrams"},
        headers={"HX-Request": "true"})
    part = soup_of(response)
    top = [element for element in part.contents if getattr(element, "name", None)]
    assert [(element.name, element.get("id")) for element in top] == [("section", "bigrams")]
    cells = [[td.get_text(strip=True) for td in row.select("td")] for row in top[0].select("table tbody tr")]
    # By hand for the default split: 98 single words in the 12 training messages, 224 with their pairs, 4 tested.
    assert [c[0] for c in cells] == ["98", "224"] and all(c[1].endswith("/ 4") for c in cells)


def test_the_json_twin_says_every_parameter_it_could_not_use(client):
    data = words_json(client, "spam-ham", alpha="x", k="4", by="log")
    assert set(data["errors"]) == {"alpha", "k", "by"}
    assert data["settings"] == {"k": 10, "top": 31, "by": "ratio", "positive": "ham", "negative": "spam"}
    assert "error" not in data


def test_a_lesson_without_words_answers_with_its_error(app, client):
    corpus_id = app.extensions["webnb"]["catalog"].add(
        Corpus.from_pairs([("a", "the and of"), ("b", "of the and")]), name="Stop words", source="test")
    data = words_json(client, corpus_id, stop_words="english")
    assert list(data) == ["error"] and data["error"].startswith("No words were found")
    soup = soup_of(client.get(f"/corpora/{corpus_id}/words", query_string={"stop_words": "english"}))
    assert "No words were found" in soup.get_text() and soup.find(id="top-words") is None


def test_a_split_too_small_is_a_message_in_its_section(client):
    """match-reviews with a 10 % split rounds every class's share of 5 reviews to 0 test documents."""
    response = client.get("/corpora/match-reviews/words", query_string={"test": "split", "test_size": "0.1"})
    assert response.status_code == 200
    section = soup_of(response).find(id="bigrams")
    assert "empty" in section.select_one(".errors").get_text()
    assert soup_of(response).select("#top-words table")  # the rest of the page is there


@pytest.mark.corpora
def test_large_corpus_counts_pairs_in_the_background(app, client, shared_corpora):
    corpus_id, training = _added(app, shared_corpora / "sms-spam-collection-v1" / "all.jsonl", "SMS")
    query = {"model": "multinomial", "alpha": "1"}
    page = client.get(f"/corpora/{corpus_id}/words", query_string=query)
    assert page.status_code == 200
    soup = soup_of(page)
    assert soup.select("#top-words table") and soup.select("#discriminative table")  # the rest did not wait
    section = soup.find(id="bigrams")
    assert "Being computed" in section.get_text() and section.find("table") is None
    poll = section["hx-get"]
    assert "part=bigrams" in poll and "bigram_job=" in poll and section["hx-trigger"].startswith("every")
    assert section.select_one(".computing a")["href"].endswith("#bigrams")

    job_id = poll.split("bigram_job=")[1].split("&")[0]
    app.extensions["webnb"]["jobs"].wait(job_id, timeout=120)
    fragment = client.get(poll, headers={"HX-Request": "true"})
    part = soup_of(fragment)
    top = [element for element in part.contents if getattr(element, "name", None)]
    assert [(element.name, element.get("id")) for element in top] == [("section", "bigrams")]
    done = top[0]
    assert not done.has_attr("hx-get")  # no more polling
    cells = [[td.get_text(strip=True) for td in row.select("td")] for row in done.select("table tbody tr")]
    sms_spam = read_corpus(shared_corpora / "sms-spam-collection-v1" / "all.jsonl")
    expected = _expected_comparison(sms_spam, kind="multinomial", alpha="1")
    assert [(int(c[0].replace(",", "")), c[1]) for c in cells] == [
        (v, f"{ok:,} / {n:,}") for v, ok, n, _, _ in expected]
    assert [c[2] for c in cells] == [f"{100 * a:.1f} %" for _, _, _, a, _ in expected]
    # Once done, the whole page shows the results straight away.
    again = soup_of(client.get(f"/corpora/{corpus_id}/words", query_string=query)).find(id="bigrams")
    assert again.find("table") is not None and not again.has_attr("hx-get")



def test_on_a_large_corpus_neither_the_page_nor_its_twin_waits_for_word_pairs(app, client, monkeypatch):
    """Past LARGE_CORPUS documents the word pairs are counted in the background for the JSON twin too: it answers at
    once with the telling words and a job to poll. The finished comparison is kept, so the page shows it even once the
    counts with pairs are gone from the cache (20 Newsgroups' never fit), without counting again."""
    import webnb.views.words as words_view

    monkeypatch.setattr(words_view, "LARGE_CORPUS", 5)  # spam-ham's 16 messages count as a large corpus
    started, start_job = [], words_view.start_job
    monkeypatch.setattr(words_view, "start_job", lambda *args, **kwargs: started.append(args[0]) or start_job(
        *args, **kwargs))
    query = {"model": "multinomial", "alpha": "1", "k": "20"}
    data = words_json(client, "spam-ham", **query)
    assert data["top_words"]["per_class"] and data["discriminative"]["toward_positive"]  # did not wait
    running = data["bigrams"]
    assert running["state"] == "running" and running["error"] is None and running["job"]
    assert "format=json" in running["poll"] and f"bigram_job={running['job']}" in running["poll"]
    jobs = app.extensions["webnb"]["jobs"]
    jobs.wait(running["job"], timeout=60)

    done = client.get(running["poll"]).get_json()["bigrams"]
    expected = _expected_comparison(load_example_corpus("spam-ham"), kind="multinomial", alpha="1")
    assert done["state"] == "done" and _shown_comparison(done) == expected

    catalog = app.extensions["webnb"]["catalog"]
    for key in catalog.cache.keys():
        if key[0] == "held out":
            catalog.cache.discard(key)
    assert len(started) == 1
    assert words_json(client, "spam-ham", **query)["bigrams"] == done
    section = soup_of(client.get("/corpora/spam-ham/words", query_string=query)).find(id="bigrams")
    assert section.find("table") is not None and not section.has_attr("hx-get")
    assert len(started) == 1  # nothing counted again
    # Other settings are another comparison: counted in the background again.
    assert words_json(client, "spam-ham", **{**query, "by": "difference"})["bigrams"]["state"] == "running"
    assert len(started) == 2


# -- bad page parameters and hostile text ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "query, field, message",
    slow_but_the_first(3, [
        *[({"k": k}, "k", "from 5 to 50") for k in ("abc", "4", "51", "-3", "²", "１０")],
        *[({"top": top}, "top", "from 1 to 10,000") for top in ("0", "1e9")],
        ({"by": "log"}, "by", "ratio or by the difference"),
        ({"positive": "nope"}, "positive", "no class 'nope'"),
        ({"positive": "spam", "negative": "spam"}, "negative", "two different classes"),
    ]),
)
def test_bad_page_settings_give_a_message_and_the_default(client, query, field, message):
    response = client.get("/corpora/spam-ham/words", query_string=query)
    assert response.status_code == 200
    errors = soup_of(response).select_one("#words .errors")
    assert errors is not None and field in errors.get_text() and message in errors.get_text()
    data = words_json(client, "spam-ham", **query)
    assert message in data["errors"][field]
    defaults = words_json(client, "spam-ham")["settings"]
    assert data["settings"][field] == (defaults[field] if field != "negative" else "ham")


def test_a_setting_sent_twice_is_read_from_its_last_value(client):
    """The page's form may send a setting twice (its own field and the state's); the last one counts."""
    data = words_json(client, "spam-ham", k=["abc", " 12 "], top=["0", "30"], by=["log", "difference"])
    assert data["errors"] == {}
    assert {name: data["settings"][name] for name in ("k", "top", "by")} == {"k": 12, "top": 30, "by": "difference"}
    refused = words_json(client, "spam-ham", k=["12", "abc"])
    assert refused["settings"]["k"] == 10 and refused["errors"] == {"k": "k is a whole number of words from 5 to 50."}


def test_an_unknown_class_on_either_side_compares_the_first_two_classes(client):
    defaults = words_json(client, "spam-ham")["settings"]
    for query, field in (({"negative": "nope"}, "negative"), ({"positive": "ham", "negative": "Spam"}, "negative"),
                         ({"positive": "x" * 50, "negative": "ham"}, "positive")):
        data = words_json(client, "spam-ham", **query)
        shown = query[field] if len(query[field]) <= 40 else query[field][:40] + "…"
        assert data["errors"] == {field: f"There is no class {shown!r} in this corpus."}
        assert (data["settings"]["positive"], data["settings"]["negative"]) == (
            defaults["positive"], defaults["negative"])


@pytest.mark.parametrize(
    "query",
    slow_but_the_first(2, [
        {"floor": "1", "model": "bernoulli", "alpha": "0"},
        {"floor": "1", "model": "multinomial", "alpha": "0", "notation": "p-hat"},
        {"model": "multinomial", "binary": "1", "alpha": "0.001", "prior": "uniform", "notation": "beta-alpha",
         "ngrams": "2-2"},
        {"test": "training", "k": "50", "top": "10000", "by": "difference"},
        {"test": "no-such-corpus"},
    ]),
)
def test_other_settings_render(client, query):
    response = client.get("/corpora/spam-ham/words", query_string=query)
    assert response.status_code == 200
    soup = soup_of(response)
    assert soup.select("#top-words table") and soup.find(id="bigrams") is not None
    assert "nan" not in soup.get_text().lower()
    words_json(client, "spam-ham", **query)


def test_floor_shows_decimals_only(client):
    """Under the ε-floor the probabilities are clipped, so there is no exact ratio to show."""
    data = words_json(client, "spam-ham", floor="1", model="bernoulli", alpha="0")
    assert all(w["ratio"] is None for c in data["top_words"]["per_class"] for w in c["words"])
    formula = data["discriminative"]["formula"]
    assert formula["favoured_parts"] is None and formula["exact"] is None
    # "the": 8 of 9 ham messages, none of spam, floored to 10⁻¹⁴
    assert formula["value"] == pytest.approx((8 / 9) / 1e-14)


def test_unknown_test_corpus_is_a_message(client):
    section = soup_of(client.get("/corpora/spam-ham/words", query_string={"test": "no-such-corpus"})).find(id="bigrams")
    assert "no-such-corpus" in section.select_one(".errors").get_text()


def test_bad_lesson_state_still_renders(client):
    response = client.get(
        "/corpora/spam-ham/words", query_string={"alpha": "-1", "model": "gaussian", "seed": "x", "test_size": "2"})
    assert response.status_code == 200
    text = soup_of(response).select_one(".errors").get_text()
    assert "alpha" in text and "model" in text and "seed" in text and "test_size" in text


HOSTILE_LABELS = ["<script>alert(1)</script>", '" onmouseover="x', "ham"]


def test_hostile_labels_and_texts_are_escaped(app, client):
    lines = [
        f"{HOSTILE_LABELS[0]}\t<script>alert(1)</script> free prize",
        f"{HOSTILE_LABELS[0]}\tfree prize now",
        f'{HOSTILE_LABELS[1]}\t" onmouseover="x lunch today',
        f"{HOSTILE_LABELS[1]}\tlunch today please",
        "ham\tsee you at noon",
        "ham\tnoon lunch is fine",
    ]
    response = client.post("/corpora/paste", data={"corpus": "\n".join(lines), "name": "<b>bold</b>"})
    assert response.status_code == 303
    url = response.headers["Location"] + "/words"
    query = {"positive": HOSTILE_LABELS[1], "negative": HOSTILE_LABELS[0], "alpha": "1"}
    for headers in ({}, {"HX-Request": "true"}):
        page = client.get(url, query_string=query, headers=headers)
        assert page.status_code == 200
        raw = page.get_data(as_text=True)
        assert "<script>alert(1)</script>" not in raw and '" onmouseover="x' not in raw
        soup = soup_of(page)
        assert all(script.get("src", "").startswith("/static/") for script in soup.find_all("script"))
        for element in soup.find_all(True):
            assert not any(attribute.startswith("on") for attribute in element.attrs), element.name
        captions = [c.get_text(" ", strip=True) for c in soup.select("#top-words caption")]
        assert captions == sorted(HOSTILE_LABELS)  # the labels, shown as text
        assert soup.find(id="discriminative-title").get_text() == (
            f"3. Words that tell {HOSTILE_LABELS[1]} from {HOSTILE_LABELS[0]}")
        options = [o["value"] for o in soup.select("#words-positive option")]
        assert options == sorted(HOSTILE_LABELS)
        assert soup.select_one("#words-positive option[selected]")["value"] == HOSTILE_LABELS[1]


def test_more_than_two_classes_compare_the_chosen_pair(app, client):
    text = "a\tred apple red\na\tred cherry\nb\tgreen apple\nb\tgreen lime\nc\tyellow lemon\nc\tyellow banana"
    url = client.post("/corpora/paste", data={"corpus": text, "name": "Colours"}).headers["Location"]
    corpus_id = url.rsplit("/", 1)[1]
    data = words_json(client, corpus_id, positive="c", negative="a", model="bernoulli", alpha="1")
    found = data["discriminative"]
    assert (found["positive"], found["negative"]) == ("c", "a")
    # ψ_yellow,c = (2+1)/(2+2) = 3/4 against ψ_yellow,a = (0+1)/(2+2) = 1/4: ratio 3, tied with nothing above it.
    top_positive, top_negative = found["toward_positive"][0], found["toward_negative"][0]
    assert top_positive["word"] == "yellow" and top_positive["ratio"] == pytest.approx(3.0)
    assert top_negative["word"] == "red" and top_negative["ratio"] == pytest.approx(3.0)
    # 3 is 3: no fraction to show
    assert math.isclose(found["formula"]["value"], 3.0) and found["formula"]["exact"] is None
