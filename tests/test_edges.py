"""What a student and a lecturer trip over (issue 26), in the views: vocabulary limits that clear, short addresses,
the test part of a lecture listed under its training corpus, the accuracy on a small test set with its Wilson
interval, a sweep that names a best α only when the test documents can tell, and refusals in webnb's own words
(a corpus of another workspace, too many requests in an htmx fragment)."""
from __future__ import annotations

import pytest
from conftest import soup_of
from scipy.stats import binomtest

from webnb.engine.evaluation.scores import wilson_interval
from webnb.engine.records.insights import AlphaSweep, SweepPoint
from webnb.engine.shared.corpus import Corpus
from webnb.lesson.state import counting_options
from webnb.store.database import PublishedCorpus

# Three groups of ten posts; the lecture's presets limit the vocabulary (max_features 6, min_df 2).
GROUPS = {
    "comp.graphics": ("opengl gpu render pixels", "shader texture polygon"),
    "rec.autos": ("engine brakes wheels", "gearbox clutch tyres"),
    "sci.space": ("orbit rocket launch", "moon lander telescope"),
}
POSTS = [(group, f"{words[n % 2]} post {n} about {group.split('.')[-1]}") for group, words in GROUPS.items()
         for n in range(10)]
PRESETS = (("model", "multinomial"), ("alpha", "1"), ("max_features", "6"), ("min_df", "2"),
           ("text", "opengl gpu"), ("test", "groups-test"))


def publish_groups(app, presets=PRESETS, with_test=True):
    corpus = Corpus.from_pairs(POSTS, name="Three groups")
    published = [PublishedCorpus("groups", "Three groups", "Posts of three groups.", "test", presets, corpus)]
    options = [counting_options(presets, len(corpus))]
    if with_test:
        test = Corpus.from_pairs(POSTS[::3], name="Three groups (test)")
        published.append(PublishedCorpus("groups-test", "Three groups (test)", "Posts of three groups.", "test", (),
                                          test))
        options.append(counting_options((), len(test)))
    app.extensions["webnb"]["catalog"].publish(published, options)


def vocabulary_size(client, query: str) -> int:
    return client.get(f"/corpora/groups/parameters?{query}&format=json").get_json()["vocabulary_size"]


# -- 3. options that clear --------------------------------------------------------------------------------------------


def test_an_empty_all_or_zero_limit_means_no_limit_and_overrides_the_preset(app, client):
    publish_groups(app)
    preset = vocabulary_size(client, "")
    full = vocabulary_size(client, "max_features=all&min_df=all")
    assert preset == 6 and full > 6
    for cleared in ("", "all", "ALL", "0", " "):
        no_limit = vocabulary_size(client, "max_features=100000&min_df=2")
        assert vocabulary_size(client, f"max_features={cleared}&min_df=2") == no_limit
    # min_df and max_df cleared: no bound on document frequency (min 1 document, max all of them).
    for cleared in ("", "all", "0"):
        assert vocabulary_size(client, f"max_features=all&min_df={cleared}") == full
        assert vocabulary_size(client, f"max_features=all&min_df=all&max_df={cleared}") == full
    # The form's fields say what is in force: the preset's numbers, or "all" once cleared.
    fields = soup_of(client.get("/corpora/groups"))
    assert fields.find(id="opt-max-features")["value"] == "6" and fields.find(id="opt-min-df")["value"] == "2"
    cleared = soup_of(client.get("/corpora/groups?max_features=&min_df="))
    assert cleared.find(id="opt-max-features")["value"] == "all" and cleared.find(id="opt-min-df")["value"] == "1"
    # A link from the cleared page keeps it cleared, in words.
    step = cleared.find("a", href=lambda href: href and href.startswith("/corpora/groups/parameters"))["href"]
    assert "max_features=all" in step and "min_df=1" in step
    assert vocabulary_size(client, step.split("?", 1)[1]) == full


def test_a_limit_that_cannot_be_read_says_how_to_clear_it(client):
    twin = client.get("/corpora/match-reviews/parameters?max_features=many&format=json").get_json()
    assert twin["errors"] == {"max_features": "max_features is a whole number of words, from 1 to 10,000,000, or all "
                                              "for no limit."}


# -- 4. short addresses -----------------------------------------------------------------------------------------------

# What the review form of Bayes' rule sends: every field, most of them at the corpus's defaults.
LONG = ("text=sharp+keeper&model=bernoulli&alpha=0&binary=0&prior=learned&floor=0&step=decision&notation=phi-psi"
        "&presenter=0&slide=&theme=&zoom=&repeats=&lowercase=1&tokens=default&accents=&stop_words=&stemmer="
        "&ngrams=1-1&min_df=1&max_df=1.0&max_features=all&test=training&test_size=0.25&seed=0&train=all")


def test_htmx_answers_carry_the_short_address_which_means_the_same(client):
    path = "/corpora/match-reviews/inference"
    fragment = client.get(f"{path}?{LONG}", headers={"HX-Request": "true"})
    assert fragment.status_code == 200
    short = fragment.headers["X-Webnb-Address"]
    assert short == f"{path}?model=bernoulli&alpha=0&text=sharp+keeper&step=decision"
    assert client.get(f"{short}&format=json").get_json() == client.get(f"{path}?{LONG}&format=json").get_json()
    # A page's own parameters stay; a full page (the old long address too) still answers.
    words = client.get("/corpora/match-reviews/words?k=7&by=difference&model=bernoulli&alpha=1&presenter=0",
                       headers={"HX-Request": "true"})
    assert words.headers["X-Webnb-Address"] == "/corpora/match-reviews/words?model=bernoulli&alpha=1&k=7&by=difference"
    assert client.get(f"{path}?{LONG}").status_code == 200
    # A Gaussian page too; JSON twins and full pages carry no such header.
    table = client.get("/corpora/iris/gaussian/inference?var_smoothing=1e-9&step=normalise&presenter=0&value=5&value=3"
                       "&value=1&value=0.2", headers={"HX-Request": "true"})
    assert table.headers["X-Webnb-Address"] == ("/corpora/iris/gaussian/inference?var_smoothing=1e-9&value=5&value=3"
                                                "&value=1&value=0.2&step=normalise")
    assert "X-Webnb-Address" not in client.get(f"{path}?{LONG}&format=json").headers


def test_a_preset_review_is_left_out_and_an_empty_one_is_written(app, client):
    publish_groups(app)
    fragment = client.get("/corpora/groups/inference?text=opengl+gpu&max_features=6", headers={"HX-Request": "true"})
    assert fragment.headers["X-Webnb-Address"] == "/corpora/groups/inference?model=multinomial&alpha=1"
    emptied = client.get("/corpora/groups/inference?text=&max_features=", headers={"HX-Request": "true"})
    assert emptied.headers["X-Webnb-Address"] == ("/corpora/groups/inference?model=multinomial&alpha=1&text="
                                                  "&max_features=all")


# -- 5. honest lists and scores ---------------------------------------------------------------------------------------


def test_the_test_part_is_listed_under_its_training_corpus(app, client):
    publish_groups(app)
    home = soup_of(client.get("/"))
    assert home.find(id="example-groups") is not None and home.find(id="example-groups-test") is None
    test_set = home.find(id="example-groups").find(id="test-set-groups-test")
    assert "Its test set: Three groups (test), 10 documents" in " ".join(test_set.get_text(" ").split())
    assert test_set.a["href"] == "/corpora/groups/evaluation?test=groups-test"
    twin = client.get("/?format=json").get_json()["class_corpora"]
    assert [entry["id"] for entry in twin] == ["groups"]
    assert twin[0]["test_set"] == {"id": "groups-test", "name": "Three groups (test)", "documents": 10}
    listing = soup_of(client.get("/corpora"))
    items = listing.find(id="class-corpora-title").find_parent("section").find_all("li")
    assert len(items) == 1 and items[0].find(id="test-set-groups-test") is not None
    listed = {entry["id"]: entry for entry in client.get("/corpora?format=json").get_json()["corpora"]}
    assert listed["groups-test"]["test_set_of"] == "groups" and "test_set_of" not in listed["groups"]
    # "Type a corpus" and "Upload" come before the lists.
    text = str(listing)
    assert text.index('id="paste-title"') < text.index('id="upload-title"') < text.index('id="builtin-title"')


def test_a_class_never_starts_on_a_test_part(app, client):
    publish_groups(app)
    offered = [option["value"] for option in soup_of(client.get("/")).select("#class-corpus option")]
    assert "groups" in offered and "groups-test" not in offered


@pytest.mark.parametrize("correct, n", [(0, 1), (1, 2), (3, 4), (2, 4), (0, 29), (29, 29), (81, 100), (7532, 7532)])
def test_the_wilson_interval_is_scipys(correct, n):
    expected = binomtest(correct, n).proportion_ci(confidence_level=0.95, method="wilson")
    low, high = wilson_interval(correct, n)
    assert low == pytest.approx(expected.low, abs=1e-12) and high == pytest.approx(expected.high, abs=1e-12)
    assert 0.0 <= low <= correct / n <= high <= 1.0
    assert (low == 0.0) == (correct == 0) and (high == 1.0) == (correct == n)


def test_a_small_test_set_says_so_with_its_interval(client):
    twin = client.get("/corpora/spam-ham/evaluation?format=json").get_json()
    n, correct = twin["n_test"], twin["correct"]
    assert n < 30 and twin["few_test_documents"] is True
    low, high = wilson_interval(correct, n)
    assert twin["accuracy_interval"] == [low, high]
    page = soup_of(client.get("/corpora/spam-ham/evaluation"))
    said = " ".join(page.find(id="small-test-set").get_text(" ").split())
    assert f"Only {n} test documents" in said
    assert f"between {low * 100:.1f} % and {high * 100:.1f} %" in said


def test_a_large_enough_test_set_says_nothing_of_the_kind(app, client):
    publish_groups(app, presets=(("test", "training"),), with_test=False)
    twin = client.get("/corpora/groups/evaluation?format=json").get_json()
    assert twin["n_test"] == 30 and twin["few_test_documents"] is False
    assert soup_of(client.get("/corpora/groups/evaluation")).find(id="small-test-set") is None


def test_the_sweep_names_a_best_alpha_only_when_the_test_documents_tell(client):
    twin = client.get("/corpora/spam-ham/evaluation/sweep?format=json").get_json()
    low, high = twin["best_interval"]
    assert [low, high] == list(wilson_interval(twin["best"]["correct"], twin["n_test"]))
    tied = [p["alpha"] for p in twin["points"] if low <= p["accuracy"] <= high]
    assert twin["tied_alphas"] == tied and len(tied) > 1 and twin["best_is_clear"] is False
    page = soup_of(client.get("/corpora/spam-ham/evaluation/sweep"))
    assert page.find(id="best-alpha") is None  # no α is called the best
    assert page.find(id="tied-alphas").get_text(strip=True) == f"{len(tied)} values"
    assert "none of them is the best" in page.find(id="sweep").get_text(" ", strip=True)


def _point(alpha: float, correct: int, n: int) -> SweepPoint:
    return SweepPoint(alpha, correct / n, correct, 0.5, 0, 0)


def test_a_best_alpha_is_named_when_every_other_scores_outside_its_interval():
    n = 1000
    clear = AlphaSweep("multinomial", False, ("a", "b"), n, (_point(0.1, 700, n), _point(1.0, 950, n)),
                       _point(1.0, 950, n))
    assert clear.best_is_clear and [p.alpha for p in clear.tied] == [1.0]
    close = AlphaSweep("multinomial", False, ("a", "b"), n, (_point(0.1, 945, n), _point(1.0, 950, n)),
                       _point(1.0, 950, n))
    assert not close.best_is_clear and [p.alpha for p in close.tied] == [0.1, 1.0]
    assert close.to_dict()["tied_alphas"] == [0.1, 1.0]


# -- 2. refusals in webnb's words -------------------------------------------------------------------------------------


def test_another_workspaces_corpus_says_why_and_how_to_get_a_copy(make_hosted_app):
    app = make_hosted_app()
    alice, bob = app.test_client(), app.test_client()
    alice.get("/")
    added = alice.post("/corpora/paste", data={"name": "Alice's", "corpus": "pos\tgreat match\nneg\tdull match"})
    corpus_path = added.headers["Location"]
    for path in (corpus_path, f"{corpus_path}/inference", f"{corpus_path}/evaluation"):
        refused = bob.get(path)
        assert refused.status_code == 404
        text = soup_of(refused, 404).get_text(" ", strip=True)
        assert "belongs to another workspace" in text and "Share a copy" in text and "Alice" not in text
        assert "check your spelling" not in text
        twin = bob.get(f"{path}?format=json")
        assert twin.status_code == 404 and "Share a copy" in twin.get_json()["error"]
    assert "There is no corpus “nope” here" in soup_of(bob.get("/corpora/nope"), 404).get_text(" ", strip=True)


def test_too_many_requests_in_a_fragment_say_what_happened_and_when(make_hosted_app):
    app = make_hosted_app(WEBNB_RATE_LIMIT="2 per 30 seconds")
    student = app.test_client()
    student.get("/corpora/match-reviews")
    student.get("/corpora/match-reviews/inference", headers={"HX-Request": "true"})
    refused = student.get("/corpora/match-reviews/inference?step=product", headers={"HX-Request": "true"})
    assert refused.status_code == 429 and refused.headers["X-Webnb-Refusal"] == "1"
    retry = int(refused.headers["Retry-After"])
    assert 1 <= retry <= 30  # at most the window
    fragment = soup_of(refused, 429)
    assert fragment.find("html") is None  # the message alone, for the part of the page that asked
    note = fragment.find(class_="refusal-note")
    assert note["role"] == "alert"
    said = note.get_text(" ", strip=True)
    assert said.startswith("Too many requests.") and f"Wait {retry} second" in said and "tries again" in said
    # A full page says the same on webnb's page, and JSON in its own shape.
    page = student.get("/corpora/match-reviews/inference?step=product")
    assert page.status_code == 429 and "Wait" in soup_of(page, 429).find(role="alert").get_text()
    assert "Wait" in student.get("/corpora/match-reviews/inference?format=json").get_json()["error"]
