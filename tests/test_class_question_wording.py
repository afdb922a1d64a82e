"""Questions say what they ask (issue 36, part 4): each names the corpus, the model and α it is about (a tuning: what
its α is scored by, "held-out accuracy" only where documents are held out), on the page and in the JSON twin; a
tuning's α is read as the pages read numbers and with a decimal comma; a refused answer is answered on the question
page, which keeps the question and what was typed; a class that does not exist is a 404."""
from __future__ import annotations

import pytest

from tests.conftest import browser_from, soup_of
from tests.test_class_in_the_room import T0, set_clock, started
from tests.test_class_questions import SLIDE, answer, ask, lecture_on, storage_of, twin


def words(element) -> str:
    """An element's text as it reads: its words separated by one space."""
    return " ".join(element.get_text(" ").split())


def student_twin(student, code, number) -> dict:
    return student.get(f"/classes/{code}/questions/{number}", query_string={"format": "json"}).get_json()


@pytest.mark.parametrize("alpha, expected", [("0", "cannot decide"), ("0.01", "positive")])
def test_a_prediction_names_the_corpus_model_and_alpha_it_is_asked_at(app, alpha, expected):
    set_clock(app, T0)
    lecture, lecturer, student = lecture_on(app)
    slide = ("/corpora/match-reviews/inference?model=bernoulli&alpha=" + alpha
             + "&text=not+brilliant&step=decision&presenter=1")
    number = ask(lecturer, lecture.code, "predict", address=slide)
    for browser in (lecturer, student):
        about = soup_of(browser.get(f"/classes/{lecture.code}/questions/{number}")).select_one("#question-about")
        assert words(about) == f"Match reviews · Bernoulli Naive Bayes · α = {alpha}"
    assert student_twin(student, lecture.code, number)["about"] == {
        "corpus": "Match reviews", "model": "bernoulli", "pseudo_count": "α", "alpha": alpha, "floor": False,
        "scored_on": "training", "measure": "training accuracy", "test_share": None, "seed": None,
        "test_corpus": None}
    assert twin(lecturer, lecture.code, number)["question"]["about"]["alpha"] == alpha
    # The question's answer at that α, which the sentence on the page is about.
    lecturer.post(f"/classes/{lecture.code}/questions/{number}/reveal")
    assert twin(lecturer, lecture.code, number)["question"]["model_answer"] == expected


def test_the_notations_name_for_the_pseudo_count_and_the_floor_are_said(app):
    set_clock(app, T0)
    lecture, lecturer, student = lecture_on(app)
    slide = SLIDE.replace("alpha=1", "alpha=2") + "&notation=beta-alpha&floor=1"
    number = ask(lecturer, lecture.code, "challenge", address=slide, challenge="cannot-decide")
    page = soup_of(student.get(f"/classes/{lecture.code}/questions/{number}"))
    about = student_twin(student, lecture.code, number)["about"]
    symbol = about["pseudo_count"]
    assert symbol == "γ" and about["alpha"] == "2" and about["floor"] is True
    assert words(page.select_one("#question-about")) == (
        f"Match reviews · multinomial Naive Bayes · {symbol} = 2 · probabilities clipped to [10⁻¹⁴, 1 − 10⁻¹⁴]")
    assert words(page.h1).endswith(f"cannot decide at {symbol} = 0: every class gets probability 0.")


def test_tuning_on_a_slide_without_held_out_documents_says_training_accuracy_everywhere(app):
    set_clock(app, T0)
    lecture, lecturer, student = lecture_on(app)
    slide = "/corpora/match-reviews/evaluation?presenter=1"
    corner = soup_of(lecturer.get(slide)).select_one(".ask-class")
    assert words(corner.select_one("#ask-tune")) == "Tune: the best α by training accuracy"
    assert "holds no documents out" in corner.select_one("#ask-tune-training").get_text()
    number = ask(lecturer, lecture.code, "tune", address=slide)
    page = soup_of(student.get(f"/classes/{lecture.code}/questions/{number}"))
    assert words(page.h1) == "Question 1: Find the α with the best training accuracy."
    assert "held-out" not in page.get_text()
    assert words(page.select_one("#question-about")) == (
        "Match reviews · Bernoulli Naive Bayes · no documents held out")
    scored = answer(student, lecture.code, number, "1")
    own = soup_of(student.get(f"/classes/{lecture.code}/questions/{number}")).select_one("#own-answer")
    assert "training accuracy" in own.get_text() and "held-out" not in own.get_text()
    expected = lecturer.get("/corpora/match-reviews/evaluation", query_string={"alpha": "1", "format": "json"})
    assert scored["accuracy"] == expected.get_json()["accuracy"]
    assert "held-out" not in soup_of(lecturer.get(f"/classes/{lecture.code}/questions/{number}")).get_text()


def test_tuning_on_a_split_says_the_share_and_seed_it_holds_out(app):
    set_clock(app, T0)
    lecture, lecturer, student = lecture_on(app, "spam-ham")
    slide = "/corpora/spam-ham/evaluation?presenter=1&test=split&test_size=0.5&seed=3"
    corner = soup_of(lecturer.get(slide)).select_one(".ask-class")
    assert words(corner.select_one("#ask-tune")) == "Tune: the best α by held-out accuracy"
    assert corner.select_one("#ask-tune-training") is None
    number = ask(lecturer, lecture.code, "tune", address=slide)
    page = soup_of(student.get(f"/classes/{lecture.code}/questions/{number}"))
    assert words(page.h1) == "Question 1: Find the α with the best held-out accuracy."
    assert words(page.select_one("#question-about")) == (
        "Spam or ham · Bernoulli Naive Bayes · 50 % of each class held out, seed 3")
    about = student_twin(student, lecture.code, number)["about"]
    assert (about["scored_on"], about["test_share"], about["seed"]) == ("held-out", "50 %", "3")


@pytest.mark.parametrize("typed, stored", [("0,5", "0.5"), (" 0,25 ", "0.25"), (",5", "0.5"), ("1/2", "0.5"),
                                           ("5e-1", "0.5"), ("1/3", "1/3")])
def test_a_tuning_reads_alpha_as_the_pages_do_and_with_a_decimal_comma(app, typed, stored):
    set_clock(app, T0)
    lecture, lecturer, student = lecture_on(app, "spam-ham")
    number = ask(lecturer, lecture.code, "tune", address="/corpora/spam-ham/evaluation?presenter=1")
    scored = answer(student, lecture.code, number, typed)
    assert scored["answer"] == stored
    page_alpha = stored
    expected = lecturer.get("/corpora/spam-ham/evaluation", query_string={"alpha": page_alpha, "format": "json"})
    assert scored["accuracy"] == expected.get_json()["accuracy"]


@pytest.mark.parametrize("typed, message", [
    ("lots", "α must be a number such as 1, 0.5, 1e-3 or 1/3, not 'lots'. Your answer was not stored."),
    ("1,000,5", "not '1,000,5'. Your answer was not stored."),
    ("2000", "use a value between 0 and 1000. Your answer was not stored."),
    ("-1", "α must be 0 or more, not -1. Your answer was not stored."),
])
def test_a_refused_tuning_is_answered_on_the_question_page_with_the_question_and_what_was_typed(app, typed, message):
    set_clock(app, T0)
    lecture, lecturer, student = lecture_on(app, "spam-ham")
    number = ask(lecturer, lecture.code, "tune", address="/corpora/spam-ham/evaluation?presenter=1")
    response = student.post(f"/classes/{lecture.code}/questions/{number}/answers", data={"answer": typed})
    page = soup_of(response, 400)
    assert words(page.h1) == "Question 1: Find the α with the best held-out accuracy."
    refused = words(page.select_one("#answer-refused"))
    assert refused.startswith("Not a value of α.") and refused.endswith(message) and ".." not in refused
    field = page.select_one("#answer-alpha")
    assert field["value"] == typed and field["aria-invalid"] == "true"
    assert page.select_one("form.answer-form button#send-answer")  # the question is still there to answer
    assert storage_of(app).answers(storage_of(app).question(lecture.code, number)) == []
    # The JSON twin of a refusal: the message alone.
    assert answer(student, lecture.code, number, typed, status=400) == {"error": refused.removeprefix(
        "Not a value of α. ")}


def test_a_refused_prediction_and_challenge_keep_the_question(app):
    set_clock(app, T0)
    lecture, lecturer, student = lecture_on(app)
    predict = ask(lecturer, lecture.code, "predict")
    page = soup_of(student.post(f"/classes/{lecture.code}/questions/{predict}/answers", data={"answer": "spam"}),
                   400)
    assert words(page.select_one("#answer-refused")).startswith("Choose one of the answers.")
    assert [i["value"] for i in page.select("input[name=answer]")] == ["negative", "positive", "cannot decide"]
    challenge = ask(lecturer, lecture.code, "challenge", challenge="class:positive")
    too_long = "match " * 200
    page = soup_of(student.post(f"/classes/{lecture.code}/questions/{challenge}/answers",
                                data={"answer": too_long}), 400)
    assert words(page.select_one("#answer-refused")).startswith("This answer is too long.")
    assert page.select_one("#answer-text").get_text() == too_long[:1000]
    # Too many answers: the page, with Retry-After.
    for i in range(28):  # 30 attempts a minute, the two refused ones counted
        answer(student, lecture.code, challenge, f"brilliant {i}")
    flooded = student.post(f"/classes/{lecture.code}/questions/{challenge}/answers", data={"answer": "one more"})
    assert soup_of(flooded, 429).select_one("#answer-refused") and flooded.headers["Retry-After"] == "60"


def test_a_class_that_does_not_exist_is_a_404_like_one_this_browser_does_not_lead(app):
    set_clock(app, T0)
    lecture = started(app)
    stranger = browser_from(app)
    unknown = stranger.get("/classes/ACDEFG")
    existing = stranger.get(f"/classes/{lecture.code}")
    assert unknown.status_code == existing.status_code == 404
    assert soup_of(unknown, 404).h1.get_text() == "No such class here"
    assert unknown.get_data() == existing.get_data().replace(lecture.code.encode(), b"ACDEFG")
