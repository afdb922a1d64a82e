"""A progress page estimates the time left: elapsed × (total − done) / done, the elapsed time counted from when a
worker took the job (``Job.started_at``), read with one fixed clock here (no sleeps, no wall clock). The page and its
JSON twin say the same; a job read back from the database (as another process serving the app reads it) is
estimated alike; a job whose start is not known (a row written before migration 0007) gets no estimate."""
from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone

import pytest
from conftest import soup_of
from test_job_fairness import hold_a_worker
from test_progress_and_sharing_views import three_of_twelve_steps_done

from webnb import create_app
from webnb.hosting import jobs as jobs_module
from webnb.hosting.jobs import Job, Jobs
from webnb.store.database import Storage
from webnb.views import jobs as job_views
from webnb.views.jobs import Progress, duration

STARTED = datetime(2026, 3, 1, 9, 30, 15, 250_000, tzinfo=timezone.utc)
NOW = STARTED + timedelta(seconds=8)


def running(done: int, total: int, started_at=STARTED, **fields) -> Job:
    return Job(id="abc", title="Counting", done=done, total=total, started_at=started_at, **fields)


# --- the arithmetic and the words -------------------------------------------------------------------------------------

def test_the_time_left_is_the_pace_so_far_times_the_work_left():
    progress = Progress.of(running(250, 1000), NOW)
    assert (progress.elapsed_seconds, progress.remaining_seconds) == (8.0, 24.0)  # 8 s × 750 / 250
    assert progress.estimate == "About 24 seconds left (8 seconds so far)."
    halfway = Progress.of(running(3, 12), STARTED + timedelta(seconds=1.5))
    assert halfway.remaining_seconds == pytest.approx(4.5)
    assert halfway.estimate == "About 5 seconds left (2 seconds so far)."  # whole seconds, rounded half up
    nearly = Progress.of(running(999, 1000), NOW)
    assert nearly.remaining_seconds == pytest.approx(8 / 999)
    assert nearly.estimate == "Less than a second left."
    slow = Progress.of(running(10, 1000), STARTED + timedelta(seconds=90))
    assert slow.remaining_seconds == pytest.approx(8910)
    assert slow.estimate == "About 2 hours 29 minutes left (2 minutes so far)."  # 148.5 minutes


def test_the_clock_is_read_once_per_reading(monkeypatch):
    readings = []

    def clock():
        readings.append(1)
        return NOW

    monkeypatch.setattr(job_views, "clock", clock)
    job = running(250, 1000)
    progress = Progress.of(job)
    job.done = 1000  # the worker goes on; the reading does not
    assert readings == [1]
    assert progress.to_dict() == {
        "id": "abc", "title": "Counting", "state": "running", "unit": "documents", "done": 250, "total": 1000,
        "fraction": 0.25, "waiting": False, "elapsed_seconds": 8.0, "remaining_seconds": 24.0,
        "estimate": "About 24 seconds left (8 seconds so far).", "error": None}


@pytest.mark.parametrize("job, estimate", [
    (running(0, 1000), "Working for 8 seconds; the time left can be estimated once the first documents are done."),
    (running(0, 0), "Working for 8 seconds; the time left cannot be estimated from this work."),
    (running(5, 0), "Working for 8 seconds; the time left cannot be estimated from this work."),
    (running(3, 12, started_at=None), None),  # its start is not known (written before 0007)
    (running(3, 12, state="failed", error="No."), None),  # over: nothing left
    (running(0, 0, started_at=None, waiting=True),
     "Waiting for a free slot: this starts when the work ahead of it is done."),
])
def test_no_estimate_without_work_done_a_total_or_a_start(job, estimate):
    progress = Progress.of(job, NOW)
    assert progress.remaining_seconds is None
    assert progress.elapsed_seconds == (8.0 if job.started_at is not None and job.state == "running" else None)
    assert progress.estimate == estimate


def test_a_clock_behind_the_one_that_started_the_job_gives_no_negative_time():
    progress = Progress.of(running(3, 12), STARTED - timedelta(seconds=2))
    assert (progress.elapsed_seconds, progress.remaining_seconds) == (0.0, 0.0)
    assert progress.estimate == "Less than a second left."


@pytest.mark.parametrize("seconds, words", [
    (0, "less than a second"), (0.99, "less than a second"), (1, "1 second"), (1.4, "1 second"),
    (12.4, "12 seconds"), (59.4, "59 seconds"), (59.6, "1 minute"), (89, "1 minute"), (91, "2 minutes"),
    (3569, "59 minutes"), (3571, "1 hour"), (3600 + 60, "1 hour 1 minute"), (7 * 3600 + 30 * 60, "7 hours 30 minutes"),
])
def test_durations_are_rounded_as_a_person_says_them(seconds, words):
    assert duration(seconds) == words


# --- jobs: when they start, not when they were asked for ------------------------------------------------------------

def test_a_job_starts_when_a_worker_takes_it_and_says_so_while_it_waits(monkeypatch):
    clock = iter([STARTED, STARTED + timedelta(seconds=30)])
    monkeypatch.setattr(jobs_module, "utc_now", lambda: next(clock))
    jobs = Jobs(workers=1)
    release = threading.Event()
    holder = hold_a_worker(jobs, "Holding the worker", release)
    waiting = jobs.start("Counting", lambda job: "/counted", key="count")
    try:
        assert holder.started_at == STARTED and not holder.waiting
        assert waiting.waiting and waiting.started_at is None
        progress = Progress.of(waiting, NOW)
        assert (progress.waiting, progress.elapsed_seconds, progress.remaining_seconds) == (True, None, None)
        assert progress.estimate == "Waiting for a free slot: this starts when the work ahead of it is done."
    finally:
        release.set()
    assert jobs.wait(waiting.id, timeout=30).started_at == STARTED + timedelta(seconds=30)
    assert not waiting.waiting
    jobs.shutdown()


# --- the page, its JSON twin, and another process --------------------------------------------------------------------

@pytest.fixture()
def two_processes(tmp_path, database_url):
    """Two apps on one database, as two of gunicorn's workers: jobs started by one are watched through the other."""
    made = [create_app({"TESTING": True, "WTF_CSRF_ENABLED": False, "DATABASE_URL": database_url},
                       instance_path=str(tmp_path / name)) for name in ("one", "two")]
    yield made
    for app in made:
        app.extensions["webnb"]["jobs"].shutdown()
        app.extensions["webnb"]["storage"].dispose()


def page_and_twin(client, job_id: str):
    page = soup_of(client.get(f"/jobs/{job_id}"))
    twin = client.get(f"/jobs/{job_id}", query_string={"format": "json"}).get_json()
    estimate = page.find(id="job-estimate")
    return (None if estimate is None else estimate.text), twin


def test_the_page_and_its_json_twin_agree_in_this_process_and_another(two_processes, monkeypatch):
    one, two = two_processes
    monkeypatch.setattr(jobs_module, "utc_now", lambda: STARTED)
    monkeypatch.setattr(jobs_module, "SAVE_EVERY_SECONDS", 0)  # every report is written at once
    monkeypatch.setattr(job_views, "clock", lambda: NOW)
    release = threading.Event()
    job = three_of_twelve_steps_done(one.extensions["webnb"]["jobs"], "Counting the words of 12 documents", release)
    try:
        here, there = page_and_twin(one.test_client(), job.id), page_and_twin(two.test_client(), job.id)
        read_back = two.extensions["webnb"]["jobs"].get(job.id)
        assert read_back is not job and read_back.started_at == STARTED and not read_back.waiting
    finally:
        release.set()
    assert here == there
    sentence, twin = here
    assert sentence == twin["estimate"] == "About 24 seconds left (8 seconds so far)."  # 8 s × 9 / 3
    assert (twin["done"], twin["total"], twin["elapsed_seconds"], twin["remaining_seconds"]) == (3, 12, 8.0, 24.0)
    assert Progress.of(read_back, NOW) == Progress.of(job, NOW)


def test_a_row_without_a_start_gives_no_estimate(two_processes, monkeypatch):
    one, two = two_processes
    monkeypatch.setattr(job_views, "clock", lambda: NOW)
    storage = one.extensions["webnb"]["storage"]
    # As a release before 0007 wrote them: a job counting, and one not counting yet.
    storage.save_job(Job(id="counting", title="Counting", done=3, total=12))
    storage.save_job(Job(id="not-yet", title="Counting"))
    client = two.test_client()
    sentence, twin = page_and_twin(client, "counting")
    assert sentence is None and "3 of 12 documents so far." in soup_of(client.get("/jobs/counting")).text
    assert (twin["waiting"], twin["elapsed_seconds"], twin["remaining_seconds"], twin["estimate"]) == (
        False, None, None, None)
    sentence, twin = page_and_twin(client, "not-yet")  # as a waiting job's row is (none has a start)
    assert sentence == twin["estimate"] == "Waiting for a free slot: this starts when the work ahead of it is done."
    assert (twin["waiting"], twin["elapsed_seconds"], twin["remaining_seconds"]) == (True, None, None)


def test_a_start_is_stored_to_the_microsecond(database_url):
    with Storage(database_url) as storage:
        storage.create_schema()
        storage.save_job(running(3, 12))
        saved = storage.load_job("abc")
        assert saved["started_at"] == STARTED and saved["started_at"].tzinfo is not None
        storage.save_job(running(3, 12, started_at=None))
        assert storage.load_job("abc")["started_at"] is None
