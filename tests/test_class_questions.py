"""A class in the room, parts 3 to 5 of issue 25: students follow the lecturer's slide (or explore on their own), the
lecturer asks questions (predict, challenge, tune) that the students answer on their own screens, the projector
tallies the answers and reveals them; only the lecturer controls the class, a student reads no other class, and
students' texts are shown escaped, only after the reveal, and never when hidden."""
from __future__ import annotations

import csv
import io
import json
import threading
from datetime import timedelta

import pytest

from tests.conftest import browser_from, soup_of
from tests.test_class_in_the_room import T0, set_clock, started
from tests.test_naughty_strings import STRINGS, inert
from webnb.room import lecture as lectures
from webnb.store.database import Storage

SLIDE = "/corpora/match-reviews/inference?model=multinomial&alpha=1&text=brilliant+match&step=decision&presenter=1"


def storage_of(app) -> Storage:
    return app.extensions["webnb"]["storage"]


def lecture_on(app, corpus="match-reviews"):
    """A class on ``corpus`` started at T0, its lecturer's browser, and a student's browser that joined it."""
    lecture = started(app, corpus)
    lecturer, student = browser_from(app), browser_from(app)
    assert lecturer.get(f"/classes/{lecture.code}/lead/{lecture.secret}").status_code == 303
    assert student.get(f"/join/{lecture.code}").status_code == 303
    return lecture, lecturer, student


def ask(lecturer, code, kind, address=SLIDE, **form):
    response = lecturer.post(f"/classes/{code}/questions", data={"kind": kind, "address": address, **form})
    assert response.status_code == 303, response.get_data(as_text=True)[:500]
    return int(response.location.rsplit("/", 1)[1])


def answer(student, code, number, text, status=200):
    response = student.post(f"/classes/{code}/questions/{number}/answers", data={"answer": text},
                            headers={"Accept": "application/json"})
    assert response.status_code == status, response.get_data(as_text=True)[:500]
    return response.get_json()


def twin(lecturer, code, number) -> dict:
    return lecturer.get(f"/classes/{code}/questions/{number}", query_string={"format": "json"}).get_json()


# --- following the lecturer ---------------------------------------------------------------------------------------


def test_the_lecturers_lesson_pages_move_the_class_without_the_projectors_settings(app):
    set_clock(app, T0)
    lecture, lecturer, student = lecture_on(app)
    before = storage_of(app).get_class(lecture.code).state_version
    assert lecturer.get(SLIDE + "&theme=dark&zoom=150").status_code == 200
    record = storage_of(app).get_class(lecture.code)
    assert record.state == SLIDE and record.state_version == before + 1
    # The same page again (a reload) is no change; an htmx swap of the review is one.
    lecturer.get(SLIDE)
    assert storage_of(app).get_class(lecture.code).state_version == before + 1
    swapped = SLIDE.replace("brilliant+match", "match+was+not+sharp")
    assert lecturer.get(swapped, headers={"HX-Request": "true"}).status_code == 200
    assert storage_of(app).get_class(lecture.code) .state == swapped
    # The form's every field, as htmx sends it when the lecturer types: the class follows the short address, the
    # one the lecturer's address bar shows (X-Webnb-Address), and a follower's request for it reads back the same.
    long_form = (swapped + "&lowercase=1&tokens=default&accents=&stop_words=&min_df=&max_df=&max_features=all"
                 "&repeats=&prior=&theme=dark")
    response = lecturer.get(long_form, headers={"HX-Request": "true"})
    assert response.headers["X-Webnb-Address"] == swapped + "&theme=dark"  # the projector's look stays its own
    assert storage_of(app).get_class(lecture.code).state == swapped
    assert lecturer.get(swapped, headers={"HX-Request": "true"}).headers["X-Webnb-Address"] == swapped
    # Another corpus, the JSON twin, a download and a student's own pages move nothing.
    for page in ("/corpora/spam-ham/inference?text=win", SLIDE.replace("alpha=1", "alpha=2") + "&format=json",
                 "/corpora/match-reviews/matrix.csv"):
        lecturer.get(page)
    student.get(SLIDE.replace("alpha=1", "alpha=5"))
    assert storage_of(app).get_class(lecture.code).state == swapped
    # Once the class has ended, nothing moves it.
    lecturer.post(f"/classes/{lecture.code}/end")
    lecturer.get(SLIDE)
    assert storage_of(app).get_class(lecture.code).state == swapped


def test_a_student_polls_the_state_and_follows_or_explores(app):
    set_clock(app, T0)
    lecture, lecturer, student = lecture_on(app)
    lecturer.get(SLIDE)
    version = storage_of(app).get_class(lecture.code).state_version
    polled = student.get(f"/classes/{lecture.code}/follow.json")
    assert polled.status_code == 200 and polled.headers["Cache-Control"] == "no-store"
    assert polled.get_json() == {"version": version, "address": SLIDE, "running": True}
    page = soup_of(student.get("/corpora/match-reviews"))
    bar = page.select_one(".class-bar")
    assert bar["data-follow-url"] == f"/classes/{lecture.code}/follow.json" and bar.has_attr("data-following")
    assert bar["data-follow-version"] == str(version) and "following the lecturer" in bar.get_text()
    # Explore on my own: the page stays and stops following; it still hears the class (its end).
    away = student.post(f"/classes/{lecture.code}/follow",
                        data={"follow": "0", "back": "/corpora/match-reviews/matrix"})
    assert away.status_code == 303 and away.location == "/corpora/match-reviews/matrix"
    bar = soup_of(student.get(away.location)).select_one(".class-bar")
    assert not bar.has_attr("data-following") and "exploring on my own" in bar.get_text()
    assert bar["data-follow-url"] == f"/classes/{lecture.code}/follow.json"
    assert bar.select_one("#follow").get_text() == "Follow the lecturer"
    # Follow the lecturer: straight to the lecturer's slide.
    back = student.post(f"/classes/{lecture.code}/follow", data={"follow": "1"})
    assert back.status_code == 303 and back.location == SLIDE
    # A link elsewhere is not followed out of the site.
    away = student.post(f"/classes/{lecture.code}/follow", data={"follow": "0", "back": "//evil.example/x"})
    assert away.location == "/"


def test_the_lecturer_sees_the_code_in_a_corner_and_a_stranger_reads_no_state(app):
    set_clock(app, T0)
    lecture, lecturer, student = lecture_on(app)
    corner = soup_of(lecturer.get(SLIDE)).select_one(".class-corner")
    assert corner.select_one(".class-corner-code").get_text() == lecture.code
    assert corner.select_one(".class-corner-address").get_text() == "localhost/join"
    stranger = browser_from(app)
    assert stranger.get(f"/classes/{lecture.code}/follow.json").status_code == 404
    assert soup_of(stranger.get("/corpora/match-reviews")).select_one(".class-bar, .class-corner") is None
    other = started(app, "spam-ham")
    assert student.get(f"/classes/{other.code}/follow.json").status_code == 404
    # An ended class leaves the pages.
    lecturer.post(f"/classes/{lecture.code}/end")
    assert student.get(f"/classes/{lecture.code}/follow.json").get_json()["running"] is False
    assert soup_of(student.get("/corpora/match-reviews")).select_one(".class-bar") is None


# --- predict ------------------------------------------------------------------------------------------------------


def test_predict_from_ask_to_reveal(app):
    set_clock(app, T0)
    lecture, lecturer, first = lecture_on(app)
    others = [browser_from(app) for _ in range(4)]
    for student in others:
        student.get(f"/join/{lecture.code}")
    lecturer.get(SLIDE)
    form = soup_of(lecturer.get(SLIDE)).select_one(".ask-class form")
    assert form.select_one("input[name=address]")["value"] == SLIDE
    assert [o["value"] for o in form.select("select[name=challenge] option")] == [
        "class:negative", "class:positive", "cannot-decide", "flips"]
    number = ask(lecturer, lecture.code, "predict")
    # The class moves to the question; the student's page asks it, with the classes and "cannot decide".
    assert storage_of(app).get_class(lecture.code).state == f"/classes/{lecture.code}/questions/{number}"
    page = soup_of(first.get(f"/classes/{lecture.code}/questions/{number}"))
    assert [i["value"] for i in page.select("input[name=answer]")] == ["negative", "positive", "cannot decide"]
    assert page.select_one(".question-review q").get_text() == "brilliant match"
    for student, choice in zip([first, *others], ["positive", "negative", "positive", "cannot decide", "positive"],
                              strict=True):
        answer(student, lecture.code, number, choice)
    answer(others[0], lecture.code, number, "positive")  # a new answer replaces the old
    answer(first, lecture.code, number, "spam", status=400)
    data = twin(lecturer, lecture.code, number)
    assert data["question"]["counts"] == {"negative": 0, "positive": 4, "cannot decide": 1}
    assert data["question"]["answers"] == 5 and "model_answer" not in data["question"]
    assert data["questions"] == [{"number": number, "kind": "predict",
                                  "prompt": "Which class will the model choose for this review?", "answers": 5,
                                  "revealed": False}]
    tally = soup_of(lecturer.get(f"/classes/{lecture.code}/questions/{number}/tally"))
    assert {n["data-option"]: n.get_text() for n in tally.select(".tally-n")} == {
        "negative": "0", "positive": "4", "cannot decide": "1"}
    assert tally.select_one("#tally")["hx-trigger"] == "sse:tally, every 5s"  # an answer's event, a slow poll behind
    # The student's JSON twin holds their own answer only.
    mine = first.get(f"/classes/{lecture.code}/questions/{number}?format=json").get_json()
    assert mine["own_answer"] == {"answer": "positive", "success": None, "accuracy": None}
    assert "counts" not in mine and "model_answer" not in mine
    # Reveal: the model's answer (the lesson's own verdict for the review) on both screens, and no more answers.
    expected = lecturer.get(SLIDE + "&format=json").get_json()["trace"]["decision"]
    assert expected == "positive"
    assert lecturer.post(f"/classes/{lecture.code}/questions/{number}/reveal").status_code == 303
    assert storage_of(app).get_class(lecture.code).state.endswith("?revealed=1")
    projector = soup_of(lecturer.get(f"/classes/{lecture.code}/questions/{number}"))
    assert projector.select_one("#model-answer").get_text() == "positive"
    assert projector.select_one(".tally-right .tally-label").get_text().startswith("positive")
    assert projector.select_one("#tally").get("hx-trigger") is None  # the tally stops polling
    assert projector.select_one("#decision-step")["href"].split("?")[1].split("&").count("step=decision") == 1
    assert twin(lecturer, lecture.code, number)["question"]["model_answer"] == "positive"
    student_view = soup_of(first.get(f"/classes/{lecture.code}/questions/{number}"))
    assert "you were right" in student_view.select_one(".tally-answer").get_text()
    answer(others[1], lecture.code, number, "positive", status=409)
    assert twin(lecturer, lecture.code, number)["question"]["counts"]["negative"] == 0


def test_a_prediction_needs_a_review_and_a_bayes_rule_slide(app):
    set_clock(app, T0)
    lecture, lecturer, _ = lecture_on(app)
    for address in ("/corpora/match-reviews/inference?text=", "/corpora/match-reviews/matrix?text=match",
                    "/corpora/spam-ham/inference?text=win", "https://evil.example/corpora/match-reviews/inference"):
        response = lecturer.post(f"/classes/{lecture.code}/questions", data={"kind": "predict", "address": address})
        assert response.status_code == 400, address
    response = lecturer.post(f"/classes/{lecture.code}/questions", data={"kind": "poll", "address": SLIDE})
    assert response.status_code == 400 and storage_of(app).questions(lecture.code) == []


# --- challenge ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("goal, tries", [
    # At α = 1 (the slide's), "brilliant" is a positive word and "not" a negative one.
    ("class:positive", [("match was not composed", False), ("brilliant match", True)]),
    # At α = 0, "brilliant" is never seen in a negative review and "not" never in a positive one: both classes 0.
    ("cannot-decide", [("brilliant match", False), ("brilliant not", True)]),
    # Multinomial: "was match" is negative at α = 0 and positive at α = 1.
    ("flips", [("brilliant match", False), ("was match", True)]),
])
def test_a_challenge_is_checked_by_the_engine_and_revealed_by_the_lecturers_pick(app, goal, tries):
    set_clock(app, T0)
    lecture, lecturer, student = lecture_on(app)
    number = ask(lecturer, lecture.code, "challenge", challenge=goal)
    question = storage_of(app).question(lecture.code, number)
    assert (question.goal, question.target) == (goal.partition(":")[0], goal.partition(":")[2] or None)
    for text, success in tries:
        assert answer(student, lecture.code, number, text)["success"] is success, text
        page = soup_of(student.get(f"/classes/{lecture.code}/questions/{number}"))
        assert page.select_one(".answer-success" if success else ".answer-failure")
    second = browser_from(app)
    second.get(f"/join/{lecture.code}")
    answer(second, lecture.code, number, tries[1][0])
    data = twin(lecturer, lecture.code, number)["question"]
    assert data["counts"] == {"succeeded": 2, "failed": 0} and data["shown"] == []
    # No text reaches the projector before the reveal.
    before = lecturer.get(f"/classes/{lecture.code}/questions/{number}").get_data(as_text=True)
    assert tries[1][0] not in before
    lecturer.post(f"/classes/{lecture.code}/questions/{number}/reveal")
    assert twin(lecturer, lecture.code, number)["question"]["shown"] == [tries[1][0], tries[1][0]]
    page = soup_of(lecturer.get(f"/classes/{lecture.code}/questions/{number}"))
    numbers = [f.select_one("input[name=student]")["value"] for f in page.select(".revealed-reviews form")]
    assert numbers == ["1", "2"]
    assert lecturer.post(f"/classes/{lecture.code}/questions/{number}/hide", data={"student": "1"}).status_code == 303
    assert len(twin(lecturer, lecture.code, number)["question"]["shown"]) == 1
    assert lecturer.post(f"/classes/{lecture.code}/questions/{number}/hide", data={"student": "9"}).status_code == 404


def test_revealed_reviews_show_escaped_and_the_hidden_never(app):
    set_clock(app, T0)
    lecture, lecturer, _ = lecture_on(app)
    number = ask(lecturer, lecture.code, "challenge", challenge="class:positive")
    naughty = [s for s in STRINGS if s.strip() and len(s) <= lectures.MAX_ANSWER_LENGTH][:40]
    for joined, text in enumerate(naughty, 1):
        # A second apart: students are numbered in the order they joined (ties go by their random ids), and
        # student 2 is the first of these, not the one lecture_on joined, who does not answer.
        set_clock(app, T0 + timedelta(seconds=joined))
        student = browser_from(app)
        student.get(f"/join/{lecture.code}")
        answer(student, lecture.code, number, "brilliant " + text)
        inert(student.get(f"/classes/{lecture.code}/questions/{number}").get_data(as_text=True),
              where=f"own answer {text!r}")
    lecturer.post(f"/classes/{lecture.code}/questions/{number}/reveal")
    shown = twin(lecturer, lecture.code, number)["question"]["shown"]
    assert len(shown) == lectures.REVEALED_SHOWN
    for _ in range(3):  # hide the first shown three times: the next ones move up
        hidden = lecturer.post(f"/classes/{lecture.code}/questions/{number}/hide", data={"student": "2"})
        assert hidden.status_code == 303
    page = lecturer.get(f"/classes/{lecture.code}/questions/{number}").get_data(as_text=True)
    inert(page, where="the reveal")
    shown = twin(lecturer, lecture.code, number)["question"]["shown"]
    answers = storage_of(app).answers(storage_of(app).question(lecture.code, number))
    hidden = [a.answer for a in answers if a.hidden]
    assert len(hidden) == 1 and hidden[0] not in shown
    assert shown == [a.answer for a in answers if a.success and not a.hidden][:lectures.REVEALED_SHOWN]


def test_answers_are_length_limited_and_a_student_cannot_flood_a_question(app):
    set_clock(app, T0)
    lecture, lecturer, student = lecture_on(app)
    number = ask(lecturer, lecture.code, "challenge", challenge="flips")
    answer(student, lecture.code, number, "x" * (lectures.MAX_ANSWER_LENGTH + 1), status=400)
    answer(student, lecture.code, number, "", status=400)
    for i in range(28):  # 30 attempts a minute, the two refused ones counted
        answer(student, lecture.code, number, f"match {i}")
    answer(student, lecture.code, number, "one too many", status=429)
    question = storage_of(app).question(lecture.code, number)
    assert [a.answer for a in storage_of(app).answers(question)] == ["match 27"]


# --- tune -----------------------------------------------------------------------------------------------------------


def test_tune_scores_each_alpha_as_the_evaluation_page_does_and_draws_it_on_the_sweep(app):
    set_clock(app, T0)
    lecture, lecturer, student = lecture_on(app, "spam-ham")
    slide = "/corpora/spam-ham/evaluation?presenter=1"
    lecturer.get(slide)
    number = ask(lecturer, lecture.code, "tune", address=slide)
    second = browser_from(app)
    second.get(f"/join/{lecture.code}")
    for browser, alpha in ((student, "0.5"), (second, "0")):
        scored = answer(browser, lecture.code, number, alpha)
        expected = lecturer.get("/corpora/spam-ham/evaluation", query_string={"alpha": alpha, "format": "json"})
        assert scored["accuracy"] == expected.get_json()["accuracy"] and scored["answer"] == alpha
    answer(student, lecture.code, number, "-1", status=400)
    answer(student, lecture.code, number, "lots", status=400)
    data = twin(lecturer, lecture.code, number)["question"]
    assert sorted(p["alpha"] for p in data["points"]) == ["0", "0.5"]
    page = soup_of(lecturer.get(f"/classes/{lecture.code}/questions/{number}"))
    assert len(page.select(".sweep-chart .student-mark")) == 2
    own = soup_of(student.get(f"/classes/{lecture.code}/questions/{number}")).select_one("#own-answer")
    assert "0.5" in own.get_text() and "held-out accuracy" in own.get_text()
    # Revealed: the marks stay on the sweep, and the question takes no more answers.
    assert lecturer.post(f"/classes/{lecture.code}/questions/{number}/reveal").status_code == 303
    assert len(soup_of(lecturer.get(f"/classes/{lecture.code}/questions/{number}")).select(".student-mark")) == 2
    assert twin(lecturer, lecture.code, number)["question"]["revealed"] is True
    answer(student, lecture.code, number, "1", status=409)


# --- who may do what --------------------------------------------------------------------------------------------------


def test_only_the_lecturer_asks_reveals_hides_and_downloads(app):
    set_clock(app, T0)
    lecture, lecturer, student = lecture_on(app)
    number = ask(lecturer, lecture.code, "challenge", challenge="class:positive")
    answer(student, lecture.code, number, "brilliant match")
    base = f"/classes/{lecture.code}/questions"
    for browser in (student, browser_from(app)):
        assert browser.post(base, data={"kind": "predict", "address": SLIDE}).status_code == 403
        assert browser.post(f"{base}/{number}/reveal").status_code == 403
        assert browser.post(f"{base}/{number}/hide", data={"student": "1"}).status_code == 403
        assert browser.get(f"{base}/{number}/answers.csv").status_code == 403
        assert browser.get(f"{base}/{number}/tally").status_code == 403
    assert storage_of(app).question(lecture.code, number).revealed_at is None
    # A stranger neither reads nor answers; a student of another class neither.
    stranger = browser_from(app)
    assert stranger.get(f"{base}/{number}").status_code == 404
    assert stranger.post(f"{base}/{number}/answers", data={"answer": "x"}).status_code == 404
    other = started(app, "match-reviews")
    elsewhere = browser_from(app)
    elsewhere.get(f"/join/{other.code}")
    assert elsewhere.get(f"{base}/{number}").status_code == 404
    assert elsewhere.get(f"{base}/{number}?format=json").status_code == 404
    # The lecturer's own browser cannot answer as a student.
    assert lecturer.post(f"{base}/{number}/answers", data={"answer": "x"}).status_code == 404


def test_an_ended_class_accepts_nothing(app):
    set_clock(app, T0)
    lecture, lecturer, student = lecture_on(app)
    number = ask(lecturer, lecture.code, "predict")
    set_clock(app, T0 + timedelta(hours=5))  # past its four hours
    answer(student, lecture.code, number, "positive", status=410)
    response = lecturer.post(f"/classes/{lecture.code}/questions", data={"kind": "predict", "address": SLIDE})
    assert response.status_code == 410 and len(storage_of(app).questions(lecture.code)) == 1


def test_the_csv_numbers_students_and_names_nobody(hosted_app):
    app = hosted_app(WEBNB_INSTRUCTOR_KEY="k" * 32)
    set_clock(app, T0)
    lecture, lecturer, student = lecture_on(app)
    number = ask(lecturer, lecture.code, "challenge", challenge="class:positive")
    set_clock(app, T0 + timedelta(minutes=1))  # the second student joins a minute after the first
    second = browser_from(app)
    second.get(f"/join/{lecture.code}")
    answer(second, lecture.code, number, "=HYPERLINK(\"http://evil.example\") brilliant")
    answer(student, lecture.code, number, "not composed")
    response = lecturer.get(f"/classes/{lecture.code}/questions/{number}/answers.csv")
    assert response.status_code == 200 and response.mimetype == "text/csv"
    assert f"class-{lecture.code}-question-{number}.csv" in response.headers["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(response.get_data(as_text=True))))
    assert rows[0] == ["student", "answer", "success", "accuracy", "answered_at"]
    # Answered at the same moment: in the order the students joined.
    assert [(r[0], r[1], r[2]) for r in rows[1:]] == [
        ("1", "not composed", "false"), ("2", "'=HYPERLINK(\"http://evil.example\") brilliant", "true")]
    body = response.get_data(as_text=True)
    for browser in (student, second):
        with browser.session_transaction() as session:
            assert session["workspace"] not in body


# --- counted exactly under concurrency ----------------------------------------------------------------------------


def test_300_students_answering_at_once_are_counted_exactly(database_url):
    with Storage(database_url) as storage:
        storage.create_schema()
        lecture = lectures.start_class(storage, "match-reviews", now=T0)
        students = [f"student-{i}" for i in range(300)]
        for student in students:
            storage.join_class(lecture.code, student, now=T0)
        question = storage.ask_question(lecture.code, kind="predict", address=SLIDE, answer="positive", now=T0)
        choices = ("positive", "negative", lectures.CANNOT_DECIDE)
        start = threading.Barrier(30)

        def answer_all(part: list[str], index: int) -> None:
            start.wait()
            for i, student in enumerate(part):
                # Each student answers twice at once-ish: the second answer replaces the first.
                storage.answer_question(question.id, student, choices[(index + i) % 3], now=T0)
                storage.answer_question(question.id, student, choices[(index + i + 1) % 3], now=T0)

        threads = [threading.Thread(target=answer_all, args=(students[k::30], k)) for k in range(30)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        answers = storage.answers(question)
        assert len(answers) == 300 and sorted(a.student for a in answers) == list(range(1, 301))
        expected = {choice: 0 for choice in choices}
        for k in range(30):
            for i in range(len(students[k::30])):
                expected[choices[(k + i + 1) % 3]] += 1
        setting = lectures.Setting("Match reviews", "bernoulli", "α", "0", False, "training")
        tally = lectures.tally(question, answers, ("negative", "positive"), "brilliant match", setting)
        assert tally.counts == expected and sum(tally.counts.values()) == 300


def test_the_deck_starts_a_class_on_the_slide_it_shows(app, client):
    set_clock(app, T0)
    form = soup_of(client.get(SLIDE)).select_one("form.deck-start-class")
    fields = {i["name"]: i["value"] for i in form.select("input[type=hidden]") if i["name"] != "csrf_token"}
    assert fields == {"corpus": "match-reviews", "address": SLIDE}
    started_page = soup_of(client.post(form["action"], data=fields))
    code = started_page.select_one("#class-code").get_text()
    assert storage_of(app).get_class(code).state == SLIDE
    # While the class runs, the deck offers no second one; its slide shows the code instead.
    page = soup_of(client.get(SLIDE))
    assert page.select_one("form.deck-start-class") is None
    assert page.select_one(".class-corner-code").get_text() == code


def test_followers_share_one_drawing_of_the_slide_each_with_their_own_token(hosted_app):
    app = hosted_app()
    set_clock(app, T0)
    lecture, lecturer, first = lecture_on(app)
    lecturer.get(SLIDE)
    second = browser_from(app)
    second.get(f"/join/{lecture.code}")
    kept = app.extensions["webnb"]["followed_pages"]
    pages = [first.get(SLIDE).get_data(as_text=True), second.get(SLIDE).get_data(as_text=True)]
    assert len(kept) == 1
    tokens = []
    for browser, page in zip((first, second), pages, strict=True):
        token = json.loads(soup_of_text(page).body["hx-headers"])["X-CSRFToken"]
        with browser.session_transaction() as session:
            assert session["workspace"] not in page
        tokens.append(token)
    assert tokens[0] != tokens[1] and pages[0].replace(tokens[0], "") == pages[1].replace(tokens[1], "")
    # What is not the same for every student is drawn for each: the evaluation page (its test choices list the
    # student's own corpora), an address that is not the class's state, and an explorer's page.
    first.get("/corpora/match-reviews/evaluation?presenter=1")
    lecturer.get("/corpora/match-reviews/evaluation?presenter=1")
    second.get("/corpora/match-reviews/evaluation?presenter=1")
    second.get(SLIDE.replace("alpha=1", "alpha=2"))
    assert len(kept) == 1
    second.post(f"/classes/{lecture.code}/follow", data={"follow": "0"})
    lecturer.get(SLIDE.replace("step=decision", "step=zero"))
    moved = storage_of(app).get_class(lecture.code).state  # the first step is the default: "step" is left out
    assert moved == SLIDE.replace("&step=decision", "")
    second.get(moved)
    assert len(kept) == 1
    first.get(moved)
    assert len(kept) == 2


def soup_of_text(text: str):
    from bs4 import BeautifulSoup

    return BeautifulSoup(text, "html.parser")


def test_an_open_question_is_drawn_once_for_the_students_who_have_not_answered(app):
    set_clock(app, T0)
    lecture, lecturer, first = lecture_on(app)
    second = browser_from(app)
    second.get(f"/join/{lecture.code}")
    number = ask(lecturer, lecture.code, "challenge", challenge="class:positive")
    kept = app.extensions["webnb"]["followed_pages"]
    address = f"/classes/{lecture.code}/questions/{number}"
    pages = [first.get(address).get_data(as_text=True), second.get(address).get_data(as_text=True)]
    assert len(kept) == 1 and "Your answer" not in pages[1]
    # An answer makes the page the student's own: their text never goes to the others' copies.
    answer(first, lecture.code, number, "brilliant <i>match</i>")
    own = first.get(address).get_data(as_text=True)
    assert "brilliant &lt;i&gt;match&lt;/i&gt;" in own
    assert "brilliant" not in second.get(address).get_data(as_text=True)
    assert len(kept) == 1
