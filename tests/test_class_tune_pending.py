"""Issue 35, item 5: no tuning answer is lost while the held-out documents are counted.

A tune question asked on a slide whose held-out split no process has counted yet (a new ``seed``): every answer is
stored when it arrives, with its score pending; the whole class shares one background job for the split; when it
is done, every pending answer is scored at its own α as the evaluation page scores it. The student sees "scoring…"
then their score, the projector counts the answers at once, and a failed job loses nothing. On SQLite and
PostgreSQL; the job is held by the test (an event), never by sleeping."""
from __future__ import annotations

import random
import threading

import pytest

import webnb.hosting.catalog
from tests.conftest import browser_from, soup_of
from tests.test_class_in_the_room import T0, set_clock, started
from tests.test_class_questions import ask, twin
from webnb.engine import Corpus
from webnb.room import lecture as lectures
from webnb.store.database import PublishedCorpus, Storage
from webnb.views.common import LARGE_CORPUS

CORPUS = "big-reviews"
N_DOCUMENTS = LARGE_CORPUS + 100  # above LARGE_CORPUS: its held-out split is counted in the background
# A new seed: no process has counted this split.
SLIDE = f"/corpora/{CORPUS}/evaluation?seed=7&presenter=1"
ALPHAS = ("0", "0.01", "0.1", "0.5", "1", "2", "5", "10")
N_STUDENTS = 30


def reviews() -> Corpus:
    """Two classes whose words overlap, so that the held-out accuracy is below 1 and moves with α."""
    draw = random.Random(35)
    words = {"pos": [f"good{i}" for i in range(40)], "neg": [f"bad{i}" for i in range(40)]}
    shared = [f"match{i}" for i in range(60)]
    pairs = []
    for i in range(N_DOCUMENTS):
        label = ("pos", "neg")[i % 2]
        other = "neg" if label == "pos" else "pos"
        text = [draw.choice(words[label] if draw.random() < 0.55 else words[other]) for _ in range(3)]
        pairs.append((label, " ".join(text + draw.sample(shared, 3))))
    return Corpus.from_pairs(pairs)


class HeldSplit:
    """Holds every background count of a held-out split until ``release()``; ``fail_next()`` makes the next one
    crash instead. A count outside the background jobs (a JSON twin counts at once) is never held."""

    def __init__(self, monkeypatch):
        self.release_event, self.failing = threading.Event(), False
        counted = webnb.hosting.catalog.hold_out

        def hold_out(*args, **kwargs):
            if threading.current_thread().name.startswith("webnb-job-"):
                self.release_event.wait()
                if self.failing:
                    self.failing = False
                    raise RuntimeError("the machine ran out of something")
            return counted(*args, **kwargs)

        monkeypatch.setattr(webnb.hosting.catalog, "hold_out", hold_out)

    def release(self) -> None:
        self.release_event.set()

    def fail_next(self) -> None:
        self.failing = True


@pytest.fixture()
def hall(hosted_app, monkeypatch):
    """A hosted app with the class corpus, its split held, and a list of every job started; released at the end so
    that no job is left waiting."""
    app = hosted_app()
    set_clock(app, T0)
    app.extensions["webnb"]["storage"].add_class_corpora(
        [PublishedCorpus(CORPUS, "Big reviews", "", "test", (), reviews())])
    held = HeldSplit(monkeypatch)
    jobs = app.extensions["webnb"]["jobs"]
    app.started_jobs = []
    start = jobs.start

    def recorded(*args, **kwargs):
        job = start(*args, **kwargs)
        app.started_jobs.append(job)
        return job

    monkeypatch.setattr(jobs, "start", recorded)
    try:
        yield app, held
    finally:
        held.release()
        jobs.shutdown()


def tuning_lecture(app):
    """A class on the corpus, its lecturer (who counted the words: the twin counts at once) and a tune question."""
    lecture = started(app, CORPUS)
    lecturer = browser_from(app)
    assert lecturer.get(f"/classes/{lecture.code}/lead/{lecture.secret}").status_code == 303
    assert lecturer.get(f"/corpora/{CORPUS}", query_string={"format": "json"}).status_code == 200
    number = ask(lecturer, lecture.code, "tune", address=SLIDE)
    return lecture, lecturer, number


def joined(app, code: str, n: int) -> list:
    students = [browser_from(app) for _ in range(n)]
    for student in students:
        assert student.get(f"/join/{code}").status_code == 303
    return students


def answer_at_once(students, code: str, number: int) -> list:
    """Every student answers at the same moment (threads at a barrier), each an α of ALPHAS in turn."""
    barrier, responses = threading.Barrier(len(students)), [None] * len(students)

    def send(i: int) -> None:
        barrier.wait()
        responses[i] = students[i].post(f"/classes/{code}/questions/{number}/answers",
                                        data={"answer": ALPHAS[i % len(ALPHAS)]},
                                        headers={"Accept": "application/json"})

    threads = [threading.Thread(target=send, args=(i,)) for i in range(len(students))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return responses


def evaluation_accuracy(browser, alpha: str) -> float:
    page = browser.get(f"/corpora/{CORPUS}/evaluation", query_string={"seed": "7", "alpha": alpha, "format": "json"})
    return page.get_json()["accuracy"]


def test_30_answers_on_an_uncounted_split_are_stored_at_once_and_scored_by_one_job(hall):
    app, held = hall
    storage = app.extensions["webnb"]["storage"]
    lecture, lecturer, number = tuning_lecture(app)
    question = storage.question(lecture.code, number)
    students = joined(app, lecture.code, N_STUDENTS)
    assert app.started_jobs == []

    responses = answer_at_once(students, lecture.code, number)

    # Stored at once, every one, with its score pending: no progress page, no refusal.
    assert [r.status_code for r in responses] == [200] * N_STUDENTS
    assert all(r.get_json()["pending"] is True and r.get_json()["accuracy"] is None for r in responses)
    answers = storage.answers(question)
    assert len(answers) == N_STUDENTS and all(a.pending for a in answers)
    # One job for the whole class, still counting.
    assert len({job.id for job in app.started_jobs}) == 1
    job = app.started_jobs[0]
    assert job.state == "running" and job.workspace == f"class {lecture.code}"

    # A browser without JSON is sent back to the question's page, never to a progress page.
    late = joined(app, lecture.code, 1)[0]
    sent = late.post(f"/classes/{lecture.code}/questions/{number}/answers", data={"answer": "1"})
    assert sent.status_code == 303 and sent.location.endswith(f"/classes/{lecture.code}/questions/{number}")

    # The student sees "scoring…", on a page that polls its own answer; the poll answers the same while counting.
    page = soup_of(late.get(sent.location))
    own = page.select_one("#own-answer")
    assert "scoring…" in own.get_text() and own["hx-trigger"] == "every 1s"
    poll = late.get(own["hx-get"])
    assert poll.status_code == 200 and "scoring…" in poll.get_data(as_text=True)
    mine = late.get(sent.location, query_string={"format": "json"}).get_json()["own_answer"]
    assert mine == {"answer": "1", "success": None, "accuracy": None, "pending": True}

    # The projector counts every answer before any score is known, and says how many are being scored.
    data = twin(lecturer, lecture.code, number)["question"]
    assert (data["answers"], data["pending"], data["points"]) == (N_STUDENTS + 1, N_STUDENTS + 1, [])
    projector = soup_of(lecturer.get(f"/classes/{lecture.code}/questions/{number}"))
    assert projector.select_one("#answer-count").get_text() == str(N_STUDENTS + 1)
    assert projector.select_one("#scoring").get_text() == str(N_STUDENTS + 1) and projector.select_one("#counting")
    assert soup_of(lecturer.get(f"/classes/{lecture.code}/questions/{number}/tally")).select_one("#scoring")
    # Still the one job: the class's pages and polls join it.
    assert len({job.id for job in app.started_jobs}) == 1

    held.release()
    assert app.extensions["webnb"]["jobs"].wait(job.id).state == "done"

    # Every answer scored at its own α, as the evaluation page scores it.
    answers = storage.answers(question)
    assert len(answers) == N_STUDENTS + 1 and not any(a.pending for a in answers)
    expected = {alpha: evaluation_accuracy(lecturer, alpha) for alpha in ALPHAS}
    assert all(a.score == expected[a.answer] for a in answers)
    assert len(set(expected.values())) > 1  # the accuracies differ: each answer got its own α's
    # The student's poll now shows the score and stops.
    poll = soup_of(late.get(own["hx-get"]))
    assert "held-out accuracy" in poll.get_text() and "scoring" not in poll.get_text()
    assert not poll.select_one("#own-answer").has_attr("hx-get")
    data = twin(lecturer, lecture.code, number)["question"]
    assert data["pending"] == 0 and len(data["points"]) == N_STUDENTS + 1
    assert sorted(p["accuracy"] for p in data["points"]) == sorted(a.score for a in answers)
    projector = soup_of(lecturer.get(f"/classes/{lecture.code}/questions/{number}"))
    assert len(projector.select(".sweep-chart .student-mark")) == N_STUDENTS + 1 and not projector.select("#scoring")
    # A new answer now is scored at once; and still no other job was started.
    again = late.post(f"/classes/{lecture.code}/questions/{number}/answers", data={"answer": "0.5"},
                      headers={"Accept": "application/json"}).get_json()
    assert again == {"answer": "0.5", "success": None, "accuracy": expected["0.5"], "pending": False}
    assert len({job.id for job in app.started_jobs}) == 1


def test_a_failed_job_loses_no_answer_and_the_next_page_scores_them(hall):
    app, held = hall
    storage = app.extensions["webnb"]["storage"]
    jobs = app.extensions["webnb"]["jobs"]
    lecture, lecturer, number = tuning_lecture(app)
    question = storage.question(lecture.code, number)
    students = joined(app, lecture.code, 3)
    for student, alpha in zip(students, ("0", "1", "1"), strict=True):
        sent = student.post(f"/classes/{lecture.code}/questions/{number}/answers", data={"answer": alpha},
                            headers={"Accept": "application/json"})
        assert sent.status_code == 200 and sent.get_json()["pending"] is True
    held.fail_next()
    held.release()
    first = app.started_jobs[0]
    assert jobs.wait(first.id).state == "failed"
    # The answers stay, waiting; the projector's next look starts the job again, which scores them.
    assert [a.pending for a in storage.answers(question)] == [True] * 3
    assert twin(lecturer, lecture.code, number)["question"]["pending"] == 3
    second = app.started_jobs[-1]
    assert second.id != first.id and jobs.wait(second.id).state == "done"
    scores = {a.answer: a.score for a in storage.answers(question)}
    assert scores == {alpha: evaluation_accuracy(lecturer, alpha) for alpha in ("0", "1")}


def test_a_process_that_has_the_split_scores_what_another_stored(hall, hosted_app):
    """Two processes on one database (two apps): the first stores the answers while its job is held; the second,
    whose lecturer's page finds the split counted there, scores them; the first job, released, changes nothing."""
    first, held = hall
    lecture, _, number = tuning_lecture(first)
    student = joined(first, lecture.code, 1)[0]
    sent = student.post(f"/classes/{lecture.code}/questions/{number}/answers", data={"answer": "0.5"},
                        headers={"Accept": "application/json"})
    assert sent.get_json()["pending"] is True
    second = hosted_app()
    set_clock(second, T0)
    lecturer = browser_from(second)
    assert lecturer.get(f"/classes/{lecture.code}/lead/{lecture.secret}").status_code == 303
    accuracy = evaluation_accuracy(lecturer, "0.5")  # the second process counts the split (its JSON twin, at once)
    data = twin(lecturer, lecture.code, number)["question"]
    assert data["pending"] == 0 and data["points"] == [{"alpha": "0.5", "accuracy": accuracy}]
    held.release()
    assert first.extensions["webnb"]["jobs"].wait(first.started_jobs[0].id).state == "done"
    storage = first.extensions["webnb"]["storage"]
    assert [(a.answer, a.score) for a in storage.answers(storage.question(lecture.code, number))] == [
        ("0.5", accuracy)]


def test_scoring_writes_only_answers_still_waiting_at_that_alpha(database_url):
    with Storage(database_url) as storage:
        storage.create_schema()
        lecture = lectures.start_class(storage, "spam-ham", now=T0)
        for student in ("ann", "bob", "cy"):
            storage.join_class(lecture.code, student, now=T0)
        question = storage.ask_question(lecture.code, kind="tune", address="/corpora/spam-ham", now=T0)
        for student, alpha in (("ann", "1"), ("bob", "1"), ("cy", "0.5")):
            storage.answer_question(question.id, student, alpha, now=T0)
        assert storage.pending_tunings(question.id) == ["0.5", "1"]
        assert storage.score_tunings(question.id, "1", 0.75) == 2
        assert storage.score_tunings(question.id, "1", 0.5) == 0  # scored already: another process's run is a no-op
        # Cy replaced their answer while 0.5 was being scored: the new α waits for its own score.
        storage.answer_question(question.id, "cy", "2", now=T0)
        assert storage.score_tunings(question.id, "0.5", 0.7) == 0
        assert storage.pending_tunings(question.id) == ["2"]
        assert storage.score_tunings(question.id, "2", None) == 1  # cannot be scored: said so, no longer waiting
        answers = {a.answer: (a.score, a.success, a.pending) for a in storage.answers(question)}
        assert answers == {"1": (0.75, None, False), "2": (None, False, False)}
        assert storage.pending_tunings(question.id) == []
