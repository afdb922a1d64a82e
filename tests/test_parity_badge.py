"""The scikit-learn parity badge: the engine's comparison, the view (fragment, page, JSON) and the lazy badge.

The engine's own agreement with scikit-learn is tested thoroughly in test_parity_sklearn.py; here the point is
that the badge reports it truthfully: "agrees" when everything agrees, "disagrees" with the right place when a
number is wrong, "not installed" and "not comparable" when there is nothing fair to compare.
"""
from __future__ import annotations

import sys
import warnings
from dataclasses import replace

import numpy as np
import pytest
from bs4 import BeautifulSoup
from conftest import soup_of
from flask import render_template_string

from webnb.engine import Corpus, TrainingSet, evaluate, read_corpus
from webnb.engine.evaluation.heldout import hold_out, on_training_documents
from webnb.engine.evaluation.parity import TOLERANCE, evaluation_parity, parameters_parity
from webnb.engine.shared.numbers import ExactNumber
from webnb.examples import load_example_corpus
from webnb.lesson.state import LessonState
from webnb.views.common import LARGE_CORPUS, load_lesson

BUILT_INS = ("match-reviews", "china-japan", "folgers-students", "spam-ham")
ALPHAS = ("1", "0.1", "0")


def settings():
    """Both models, α ∈ {1, 0.1, 0}, counts or presence, learned or uniform prior."""
    for model in ("bernoulli", "multinomial"):
        for alpha in ALPHAS:
            for binary in (False, True):
                for prior in ("learned", "uniform"):
                    yield LessonState(model=model, alpha=ExactNumber(alpha), binary=binary, prior=prior)


SETTINGS = [
    pytest.param(s, id=f"{s.model}-a{s.alpha}-{'binary' if s.binary else 'counts'}-{s.prior}") for s in settings()
]


@pytest.fixture(scope="module")
def built_in():
    return {corpus_id: TrainingSet.build(load_example_corpus(corpus_id)) for corpus_id in BUILT_INS}


def without_sklearn(monkeypatch):
    """Make every ``import sklearn…`` fail, as on an install without scikit-learn."""
    for name in [n for n in sys.modules if n == "sklearn" or n.startswith("sklearn.")] + ["sklearn"]:
        monkeypatch.setitem(sys.modules, name, None)


def expected_parameter_numbers(training: TrainingSet) -> int:
    """documents per class + counts per word and class + log priors + log ψ/θ + the matrix's non-zero counts."""
    k, d = len(training.classes), len(training.vocabulary)
    return k + k * d + k + k * d + training.matrix.nnz


# -- the engine: parameters ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("corpus_id", BUILT_INS)
@pytest.mark.parametrize("state", SETTINGS)
def test_parameters_agree_on_the_built_in_corpora(built_in, corpus_id, state):
    training = built_in[corpus_id]
    report = parameters_parity(training, state.model_options())
    assert report.status == "agrees" and report.agrees and report.available and report.comparable
    assert report.disagreeing == 0 and report.worst is None
    assert 0.0 <= report.largest_difference <= TOLERANCE
    assert report.recounted  # small corpora are counted again with CountVectorizer
    assert report.compared == expected_parameter_numbers(training)
    assert report.matched == {"words": len(training.vocabulary)}
    names = [check.name for check in report.checks]
    symbol = "ψ" if state.model == "bernoulli" else "θ"
    assert names[2:4] == ["log priors", f"log {symbol}"] and names[-2:] == ["vocabulary", "counts in the matrix"]


def test_alpha_zero_compares_minus_infinity_with_minus_infinity(built_in):
    training = built_in["match-reviews"]
    options = LessonState(model="bernoulli", alpha="0").model_options()
    model = training.model(**options)
    assert np.isneginf(model.feature_log_prob_).any()  # the case at hand: exact zeros
    report = parameters_parity(training, options)
    assert report.agrees and report.largest_difference == 0.0
    assert any("−∞" in note for note in report.notes)


def test_a_corrupted_parameter_disagrees_at_its_word_and_class(built_in, monkeypatch):
    training = built_in["match-reviews"]
    fit = TrainingSet.model
    word = training.vocabulary.index("sharp")
    positive = training.classes.index("positive")

    def corrupted(self, *args, **kwargs):
        model = fit(self, *args, **kwargs)
        model.feature_log_prob_[positive, word] += 3e-6  # the dense table is cached, so this sticks
        return model

    monkeypatch.setattr(TrainingSet, "model", corrupted)
    report = parameters_parity(training, LessonState(model="multinomial", alpha="1").model_options())
    assert report.status == "disagrees" and not report.agrees
    assert report.disagreeing == 1
    assert report.failing.name == "log θ"
    where = report.worst
    assert (where.what, where.word, where.label) == ("log θ", "sharp", "positive")
    assert where.ours - where.theirs == pytest.approx(3e-6, abs=1e-12)
    assert report.largest_difference == pytest.approx(3e-6, abs=1e-12)
    assert report.to_dict()["worst"] == {"what": "log θ", "word": "sharp", "class": "positive", "document": None,
                                         "ours": where.ours, "theirs": where.theirs}


def test_a_miscounted_document_disagrees_at_its_word_and_document(built_in):
    training = built_in["spam-ham"]
    matrix = training.matrix.copy()
    matrix.data[0] += 1  # the first document has one occurrence too many of its first word
    miscounted = TrainingSet(training.corpus, training.bag, matrix, training.class_index, training.statistics)
    report = parameters_parity(miscounted, LessonState(model="multinomial", alpha="1").model_options())
    assert report.status == "disagrees"
    counts = next(check for check in report.checks if check.name == "counts in the matrix")
    assert counts.disagreeing == 1 and counts.largest_difference == 1.0
    word = training.vocabulary[matrix.indices[0]]
    assert (counts.where.word, counts.where.document) == (word, training.corpus.ids[0])
    assert counts.where.ours == counts.where.theirs + 1


def test_without_sklearn_the_report_says_not_installed(built_in, monkeypatch):
    without_sklearn(monkeypatch)
    training = built_in["spam-ham"]
    for report in (parameters_parity(training, LessonState().model_options()),
                   evaluation_parity(on_training_documents(training), LessonState().model_options())):
        assert report.status == "not installed" and not report.available and not report.agrees
        assert report.version is None and report.checks == () and report.compared == 0
        assert report.to_dict()["status"] == "not installed"


def test_the_floor_is_not_comparable_but_the_rest_is_checked(built_in):
    training = built_in["spam-ham"]
    options = LessonState(model="bernoulli", alpha="0", floor=True).model_options()
    report = parameters_parity(training, options)
    assert report.status == "not comparable" and not report.comparable and not report.agrees
    assert report.disagreeing == 0
    assert "log ψ" not in [check.name for check in report.checks]
    k, d = len(training.classes), len(training.vocabulary)
    assert report.compared == k + k * d + k + training.matrix.nnz
    assert any("ε-floor" in note for note in report.notes)
    evaluation = evaluation_parity(on_training_documents(training), options)
    assert evaluation.status == "not comparable" and evaluation.checks == ()


def test_options_countvectorizer_lacks_skip_the_recount():
    corpus = load_example_corpus("spam-ham")
    for analysis in (LessonState(stemmer="porter"), LessonState(normalize=("url", "number"))):
        training = TrainingSet.build(corpus, analysis.analysis_options())
        report = parameters_parity(training, analysis.model_options())
        assert report.agrees and not report.recounted
        assert "vocabulary" not in [check.name for check in report.checks]
        assert any("not a CountVectorizer option" in note for note in report.notes)


@pytest.mark.parametrize("state", [LessonState(stop_words="english", ngrams="1-2"),
                                   LessonState(tokens="words", min_df="2"),
                                   LessonState(binary=True, model="multinomial", max_features="3"),
                                   LessonState(lowercase=False, accents="unicode", max_df="0.5")])
def test_options_countvectorizer_has_are_recounted(state):
    training = TrainingSet.build(load_example_corpus("spam-ham"), state.analysis_options(), state.vocabulary_options())
    report = parameters_parity(training, state.model_options())
    assert report.agrees and report.recounted and report.notes == ()
    assert report.matched == {"words": len(training.vocabulary)}


@pytest.mark.parametrize("binary", [False, True])
def test_words_tied_at_the_max_features_cut_are_not_a_disagreement(binary):
    """spam-ham's 20 most frequent words end among words of frequency 2, of which scikit-learn keeps others
    than the app (its argsort is not stable). The other 18 words are compared."""
    state = LessonState(model="multinomial", binary=binary, max_features="20")
    training = TrainingSet.build(load_example_corpus("spam-ham"), state.analysis_options(), state.vocabulary_options())
    report = parameters_parity(training, state.model_options())
    assert report.agrees
    if report.matched == {"words": 20}:  # pragma: no cover - a numpy whose argsort happens to keep the same words
        assert report.notes == ()
        return
    assert report.matched == {"words": 18}
    assert report.notes == ("max_features keeps 20 words and cuts through words of equal frequency (2): scikit-learn "
                            "keeps some of them in no fixed order, the app the first alphabetically, so 2 words "
                            "differ. The 18 words both keep were compared.",)


# -- the engine: evaluation ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("state", SETTINGS)
def test_evaluation_agrees_on_a_split(state):
    held = hold_out(load_example_corpus("spam-ham"), test_size=0.5, seed=0)
    options = state.model_options()
    report = evaluation_parity(held, options)
    ours = evaluate(held.training.model(**options), held.test_matrix, held.test_labels)
    assert report.status in ("agrees", "not comparable") and report.disagreeing == 0
    assert report.undecidable == ours.undecidable
    if report.status == "agrees":
        assert report.matched == {"predictions": ours.n_test - report.left_out}
        assert report.compared == 1 + len(ours.classes) ** 2  # the accuracy and the confusion matrix
    if state.alpha != 0:
        assert report.status == "agrees" and report.left_out == 0 and report.notes == ()
        assert [check.name for check in report.checks] == ["predictions", "accuracy", "confusion matrix"]


def test_alpha_zero_leaves_out_what_cannot_be_decided_or_scored():
    held = hold_out(load_example_corpus("spam-ham"), test_size=0.5, seed=0)
    for model in ("multinomial", "bernoulli"):
        options = LessonState(model=model, alpha="0").model_options()
        ours = evaluate(held.training.model(**options), held.test_matrix, held.test_labels)
        assert ours.undecidable == 2  # the app says "cannot decide" for two test messages
        report = evaluation_parity(held, options)
        assert report.agrees and report.undecidable == 2
        assert report.left_out == 2  # here scikit-learn scores the others without NaN
        assert report.matched == {"predictions": ours.n_test - 2}
        assert "accuracy on the 6 documents both decide" in [check.name for check in report.checks]
        assert any("cannot decide 2 of the 8" in note for note in report.notes)


def test_nan_scores_of_sklearn_are_left_out_not_counted_as_disagreements(built_in):
    """Bernoulli with α = 0 on match-reviews: some ψ are exactly 0 or 1, and scikit-learn's joint
    log-likelihood adds +∞ and −∞ (NaN) for every review; the app decides them all."""
    from sklearn.naive_bayes import BernoulliNB

    training = built_in["match-reviews"]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        scores = BernoulliNB(alpha=0.0, force_alpha=True).fit(training.matrix, training.class_index) \
            .predict_joint_log_proba(training.matrix)
    nan_rows = int(np.isnan(scores).any(axis=1).sum())
    assert nan_rows == 5
    options = LessonState(model="bernoulli", alpha="0").model_options()
    report = evaluation_parity(on_training_documents(training), options)
    assert report.status == "not comparable" and report.disagreeing == 0
    assert report.undecidable == 0 and report.left_out == nan_rows
    assert any("NaN" in note for note in report.notes)


def test_a_wrong_prediction_disagrees_at_its_document(monkeypatch):
    held = hold_out(load_example_corpus("spam-ham"), test_size=0.5, seed=0)
    import webnb.engine.evaluation.parity as parity

    def wrong_first(model, matrix, labels):
        right = evaluate(model, matrix, labels)
        flipped = [label for label in model.classes if label != right.predictions[0]][0]
        return replace(right, predictions=(flipped, *right.predictions[1:]))

    monkeypatch.setattr(parity, "evaluate", wrong_first)
    report = evaluation_parity(held, LessonState(model="multinomial", alpha="1").model_options())
    assert report.status == "disagrees" and report.failing.name == "predictions"
    assert report.failing.disagreeing == 1
    assert report.worst.what == "prediction" and report.worst.document == held.test.ids[0]
    assert report.worst.ours != report.worst.theirs


# -- a shared corpus ----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sms(sms_spam):
    corpus = sms_spam
    return TrainingSet.build(corpus), hold_out(corpus, test_size=0.25, seed=0)


@pytest.mark.corpora
@pytest.mark.parametrize("state", SETTINGS)
def test_sms_spam_collection_agrees(sms, state):
    training, held = sms
    options = state.model_options()
    report = parameters_parity(training, options)
    assert report.agrees and report.recounted
    assert report.compared == expected_parameter_numbers(training)
    evaluation = evaluation_parity(held, options)
    assert evaluation.agrees and evaluation.disagreeing == 0
    ours = evaluate(held.training.model(**options), held.test_matrix, held.test_labels)
    assert evaluation.undecidable == ours.undecidable
    assert evaluation.matched["predictions"] == ours.n_test - evaluation.left_out
    if state.alpha != 0:
        assert evaluation.left_out == 0


@pytest.mark.corpora
@pytest.mark.slow
def test_20_newsgroups_parameters_are_checked_from_kept_counts(shared_corpora):
    training = TrainingSet.build(read_corpus(shared_corpora / "20newsgroups-bydate" / "train.jsonl.gz"))
    parameters_parity(training, LessonState().model_options())  # scikit-learn's import is not the check's cost
    for model in ("bernoulli", "multinomial"):
        report = parameters_parity(training, LessonState(model=model).model_options())
        assert report.agrees and not report.recounted  # 23 million characters are not counted again
        assert report.compared == 20 + 2 * 20 * len(training.vocabulary) + 20


# -- the view -----------------------------------------------------------------------------------------------------


def test_the_fragment_is_the_badge_alone(client):
    response = client.get("/corpora/spam-ham/parity?of=parameters&model=multinomial&alpha=1",
                          headers={"HX-Request": "true"})
    assert response.status_code == 200 and "HX-Request" in response.headers["Vary"]
    soup = soup_of(response)
    assert soup.find("html") is None
    top = [element for element in soup.contents if getattr(element, "name", None)]
    assert [(element.name, element.get("id")) for element in top] == [("div", "parity-parameters")]
    badge = top[0]
    assert "parity-agrees" in badge["class"] and badge["role"] == "status"
    training = TrainingSet.build(load_example_corpus("spam-ham"))
    numbers = expected_parameter_numbers(training)
    headline = " ".join(badge.find(class_="parity-headline").get_text().split())
    assert headline == (f"✓ scikit-learn {sklearn_version()} agrees: {numbers} numbers within 1e-10, "
                        f"the same {len(training.vocabulary)} words")
    assert not badge.find("details").has_attr("open")  # folded inside another page


def sklearn_version() -> str:
    import sklearn

    return sklearn.__version__


def test_the_page_shows_the_lesson_and_every_check(client):
    response = client.get("/corpora/match-reviews/parity?of=parameters&alpha=1")
    assert response.status_code == 200
    soup = soup_of(response)
    assert soup.find("html") is not None and soup.find(class_="lesson-header") is not None
    badge = soup.find(id="parity-parameters")
    assert "parity-agrees" in badge["class"] and badge.find("details").has_attr("open")
    rows = [row.find("th").get_text() for row in badge.select("table.parity-checks tbody tr")]
    assert rows == ["documents per class", "documents per word and class", "log priors", "log ψ", "vocabulary",
                    "counts in the matrix"]
    back = soup.find("a", string="Back to the parameters")
    assert back is not None
    assert back["href"].startswith("/corpora/match-reviews/parameters?") and "alpha=1" in back["href"]


def test_the_json_twin(client):
    data = client.get("/corpora/match-reviews/parity?of=parameters&alpha=0&model=bernoulli&format=json").get_json()
    training = TrainingSet.build(load_example_corpus("match-reviews"))
    assert data["status"] == "agrees" and data["agrees"] is True and data["error"] is None
    assert data["compared"] == expected_parameter_numbers(training)
    assert data["largest_difference"] == 0.0 and data["tolerance"] == 1e-10
    assert data["sklearn_version"] == sklearn_version()
    assert [check["name"] for check in data["checks"]][:4] == ["documents per class", "documents per word and class",
                                                              "log priors", "log ψ"]

    evaluation = client.get("/corpora/spam-ham/parity?of=evaluation&model=multinomial&alpha=1&test=split"
                            "&test_size=0.5&format=json").get_json()
    assert evaluation["status"] == "agrees" and evaluation["matched"] == {"predictions": 8}
    assert evaluation["compared"] == 5


def test_the_evaluation_badge_on_a_split(client):
    response = client.get("/corpora/spam-ham/parity?of=evaluation&model=multinomial&alpha=0&test_size=0.5",
                          headers={"HX-Request": "true"})
    badge = soup_of(response).find(id="parity-evaluation")
    assert "parity-agrees" in badge["class"]
    headline = " ".join(badge.find(class_="parity-headline").get_text().split())
    assert headline.endswith("agrees: 5 numbers within 1e-10, the same 6 predictions")
    left_out = " ".join(badge.find(class_="parity-left-out").get_text().split())
    assert left_out == "2 test documents were left out, 2 of them because the app cannot decide them."


def test_a_disagreement_is_shown_with_its_place(client, monkeypatch):
    fit = TrainingSet.model

    def corrupted(self, *args, **kwargs):
        model = fit(self, *args, **kwargs)
        model.feature_log_prob_[1, self.vocabulary.index("brilliant")] -= 0.5
        return model

    monkeypatch.setattr(TrainingSet, "model", corrupted)
    response = client.get("/corpora/match-reviews/parity?of=parameters&model=multinomial&alpha=1",
                          headers={"HX-Request": "true"})
    badge = soup_of(response).find(id="parity-parameters")
    assert "parity-disagrees" in badge["class"]
    headline = " ".join(badge.find(class_="parity-headline").get_text().split())
    training = TrainingSet.build(load_example_corpus("match-reviews"))
    values = expected_parameter_numbers(training) + len(training.vocabulary)
    model = fit(training, "multinomial", 1)
    right = model.feature_log_prob_[1, training.vocabulary.index("brilliant")]
    ours, theirs = (f"{value:.12g}".replace("-", "−") for value in (right - 0.5, right))
    assert headline == (f"✗ scikit-learn {sklearn_version()} disagrees: 1 of {values} values differ; "
                        f"largest difference 0.5 at log θ of “brilliant” in class “positive”: "
                        f"the app {ours}, scikit-learn {theirs}")
    assert badge.find("tr", class_="differs").find("th").get_text() == "log θ"


def test_without_sklearn_the_badge_says_so(client, monkeypatch):
    without_sklearn(monkeypatch)
    response = client.get("/corpora/spam-ham/parity?of=parameters", headers={"HX-Request": "true"})
    assert response.status_code == 200
    badge = soup_of(response).find(id="parity-parameters")
    # One quiet line, not a warning box: nothing went wrong.
    assert badge.name == "p" and badge["class"] == ["parity-quiet", "parity-not-installed", "muted"]
    assert badge.get_text(" ", strip=True) == ("Not checked against scikit-learn, which is not installed here "
                                               "( pip install scikit-learn adds the check).")
    assert badge.find(["details", "table", "strong"]) is None
    assert client.get("/corpora/spam-ham/parity?of=evaluation&format=json").get_json()["status"] == "not installed"


def test_the_floor_badge_says_not_comparable(client):
    response = client.get("/corpora/spam-ham/parity?of=parameters&floor=1", headers={"HX-Request": "true"})
    badge = soup_of(response).find(id="parity-parameters")
    assert "parity-not-comparable" in badge["class"]
    training = TrainingSet.build(load_example_corpus("spam-ham"))
    k, d = len(training.classes), len(training.vocabulary)
    headline = " ".join(badge.find(class_="parity-headline").get_text().split())
    assert headline == (f"– scikit-learn {sklearn_version()} not comparable: the ε-floor is not a scikit-learn option; "
                        f"the {k + k * d + k + training.matrix.nnz} numbers it can check agree within 1e-10")
    assert "ε-floor" in badge.find(class_="parity-notes").get_text()


@pytest.mark.parametrize("url, status, message", [
    ("/corpora/spam-ham/parity?of=words", 400, "of=parameters or of=evaluation"),
    ("/corpora/spam-ham/parity?of=evaluation&test=no-such-corpus", 200, "There is no test corpus 'no-such-corpus'"),
    ("/corpora/spam-ham/parity?min_df=17", 200, "min_df (17) keeps only words found in at least 17 documents"),
])
def test_bad_requests_get_a_message_not_a_500(client, url, status, message):
    response = client.get(url, headers={"HX-Request": "true"})
    badge = soup_of(response, status=status).find(class_="parity-error")
    assert badge is not None and message in badge.get_text()
    twin = client.get(url + "&format=json")
    assert twin.status_code == status
    data = twin.get_json()
    assert (data["status"], data["of"]) == ("error", "evaluation" if "of=evaluation" in url else "parameters")
    assert message in data["error"]
    assert client.get("/corpora/no-such-corpus/parity").status_code == 404


@pytest.mark.slow  # about 1 s
def test_a_corpus_still_being_counted_makes_the_badge_wait(app, client):
    corpus = Corpus.from_pairs(("spam" if i % 2 else "ham", f"win cash now {i}" if i % 2 else f"lunch at noon {i}")
                               for i in range(LARGE_CORPUS + 100))
    corpus_id = app.extensions["webnb"]["storage"].add_corpus(corpus, name="Big", source="test")
    url = f"/corpora/{corpus_id}/parity?of=parameters&model=multinomial&alpha=1"
    first = client.get(url, headers={"HX-Request": "true"})
    assert first.status_code == 200
    waiting = soup_of(first).find(id="parity-parameters")
    assert "parity-pending" in waiting["class"]
    assert waiting["hx-get"] == url and waiting["hx-trigger"] == "load delay:1s" and waiting["hx-swap"] == "outerHTML"
    jobs = app.extensions["webnb"]["jobs"]
    for job in list(jobs._jobs.values()):
        jobs.wait(job.id, timeout=60)
    second = client.get(url, headers={"HX-Request": "true"})
    assert "parity-agrees" in soup_of(second).find(id="parity-parameters")["class"]


# -- the macro the pages call -------------------------------------------------------------------------------------


@pytest.mark.parametrize("of", ["parameters", "evaluation"])
def test_the_macro_loads_the_badge_lazily_with_a_link_for_no_js(app, of):
    with app.test_request_context("/corpora/spam-ham/parameters?model=multinomial&alpha=0.5&text=<b>hi</b>"):
        lesson = load_lesson("spam-ham")
        html = render_template_string(
            '{% from "parity/badge.html" import parity_badge %}{{ parity_badge(lesson, of) }}', lesson=lesson, of=of)
    placeholder = BeautifulSoup(html, "html.parser").find(id=f"parity-{of}")
    url = placeholder["hx-get"]
    assert url.startswith("/corpora/spam-ham/parity?") and f"of={of}" in url and "alpha=0.5" in url
    assert "model=multinomial" in url and "text=%3Cb%3Ehi%3C%2Fb%3E" in url  # the review travels, escaped
    assert placeholder["hx-trigger"] == "load" and placeholder["hx-swap"] == "outerHTML"
    link = placeholder.find("a")
    assert link.get_text() == "check against scikit-learn" and link["href"] == url
    assert "<b>" not in html
