"""Background jobs under a flood: few wait (one per workspace, a bound per process), they start in turn across
client addresses and workspaces, and a finished job leaves no memory behind (webnb/hosting/jobs.py).

No sleeps: one worker is held by a job that waits for an event, the others queue behind it, and the order in
which they then run is recorded."""
from __future__ import annotations

import gc
import logging
import threading
import weakref
from contextlib import contextmanager

import numpy as np
import pytest
from bs4 import BeautifulSoup

from webnb import create_app
from webnb.engine import Corpus
from webnb.hosting import jobs as jobs_module
from webnb.hosting.jobs import CROWDED, QUEUE_FULL, REPLACED, Jobs
from webnb.hosting.work import Busy, HeavyWork
from webnb.lesson.state import counting_options
from webnb.store.database import PublishedCorpus
from webnb.views.common import LARGE_CORPUS


def hold_a_worker(jobs, title: str, release: threading.Event, **where):
    """Start a job titled ``title`` (``where``: its workspace, its address) that holds its worker, and the slot for
    heavy work if it takes one, until ``release`` is set; return the job once it runs."""
    started = threading.Event()

    def hold(job):
        started.set()
        release.wait(timeout=30)
        return "/held"

    job = jobs.start(title, hold, **where)
    assert started.wait(timeout=30)
    return job


@contextmanager
def one_busy_worker(max_queued=None, workspace="holder", address="holder's address"):
    """Jobs with one worker, held by a job of ``workspace`` until the block ends; then every job runs out."""
    jobs = Jobs(workers=1, max_queued=max_queued)
    release = threading.Event()
    hold_a_worker(jobs, "Holding the worker", release, workspace=workspace, address=address)
    try:
        yield jobs
    finally:
        release.set()
        jobs.shutdown()


def recorder(ran: list, name: str):
    def work(job):
        ran.append(name)
        return f"/{name}"

    return work


@pytest.mark.slow  # 1.5-2.5 s
def test_a_workspaces_jobs_take_turns_with_another_workspaces():
    ran = []
    with one_busy_worker() as jobs:
        for name in ("a1", "a2", "a3"):  # uploads: never replaced, all wait
            jobs.start(f"Storing {name}", recorder(ran, name), workspace="A")
        jobs.start("Storing b1", recorder(ran, "b1"), workspace="B")
    assert ran == ["a1", "b1", "a2", "a3"]  # first come, first served would run b1 last


@pytest.mark.slow  # about 1 s
def test_a_workspace_that_was_just_served_waits_behind_one_that_was_not():
    ran = []
    with one_busy_worker(workspace="A") as jobs:  # A's own work holds the worker
        jobs.start("Splitting", recorder(ran, "a1"), key="seed 1", workspace="A")
        jobs.start("Splitting", recorder(ran, "b1"), key="seed 1", workspace="B")
    assert ran == ["b1", "a1"]


@pytest.mark.slow  # 1.5-2.5 s
def test_jobs_take_turns_across_client_addresses_before_workspaces():
    """A flood from one address in fresh workspaces (fresh cookies) lets another address's job through next."""
    ran = []
    with one_busy_worker() as jobs:
        for name in ("x1", "x2", "x3"):
            jobs.start("Splitting", recorder(ran, name), key=name, workspace=f"fresh {name}", address="X")
        jobs.start("Splitting", recorder(ran, "y1"), key="y1", workspace="Y's", address="Y")
    assert ran == ["x1", "y1", "x2", "x3"]


@pytest.mark.slow  # 1-2 s
def test_a_workspaces_newer_computation_replaces_its_waiting_one():
    ran = []
    with one_busy_worker() as jobs:
        first = jobs.start("Splitting with seed 1", recorder(ran, "seed 1"), key="seed 1", workspace="A")
        upload = jobs.start("Storing", recorder(ran, "upload"), workspace="A")  # without a key: never replaced
        other = jobs.start("Splitting", recorder(ran, "other's"), key="seed 1", workspace="B")
        assert jobs.start("Splitting with seed 1", recorder(ran, "again"), key="seed 1", workspace="A") is first
        second = jobs.start("Splitting with seed 2", recorder(ran, "seed 2"), key="seed 2", workspace="A")
        assert jobs.wait(first.id, timeout=0).state == "failed" and first.error == REPLACED
        assert "newer request" in REPLACED and "Nothing was stored" in REPLACED
        assert (upload.state, other.state, second.state) == ("running", "running", "running")
    assert sorted(ran) == ["other's", "seed 2", "upload"]  # the replaced one never ran
    assert [jobs.wait(job.id).state for job in (upload, other, second)] == ["done"] * 3


@pytest.mark.slow  # about 1 s
def test_past_the_bound_a_new_job_is_refused():
    ran = []
    with one_busy_worker(max_queued=2) as jobs:
        kept = [jobs.start("Splitting", recorder(ran, n), key=n, workspace=f"fresh {n}", address="X") for n in "ab"]
        with pytest.raises(Busy, match="too many computations waiting"):
            jobs.start("Splitting", recorder(ran, "c"), key="c", workspace="fresh c", address="X")
        with pytest.raises(Busy):  # an upload too
            jobs.start("Storing", recorder(ran, "upload"), workspace="fresh d", address="X")
        # The workspace's own replacement takes its old place, so it is never refused.
        replacement = jobs.start("Splitting", recorder(ran, "a2"), key="a2", workspace="fresh a", address="X")
    assert kept[0].error == REPLACED and ran == ["b", "a2"] and replacement.state == "done"
    assert str(Busy(QUEUE_FULL)).endswith("please try again in a few seconds.")


@pytest.mark.slow  # 1-2 s
def test_an_address_over_its_share_makes_room_for_another():
    """X filled the queue alone; Y's job takes X's newest place, and then neither may take more."""
    ran = []
    with one_busy_worker(max_queued=3) as jobs:
        xs = [jobs.start("Splitting", recorder(ran, n), key=n, workspace=n, address="X") for n in ("x1", "x2", "x3")]
        y1 = jobs.start("Splitting", recorder(ran, "y1"), key="y1", workspace="y1", address="Y")
        assert xs[2].state == "failed" and xs[2].error == CROWDED and y1.state == "running"
        for name, address in (("x4", "X"), ("y2", "Y")):  # X has 2 waiting, Y 1: nobody is over a fair share
            with pytest.raises(Busy):
                jobs.start("Splitting", recorder(ran, name), key=name, workspace=name, address=address)
    assert ran == ["x1", "y1", "x2"]


class SavedRows:
    """A storage that records every job row written: (job id, state)."""

    def __init__(self):
        self.rows = []

    def save_job(self, job):
        self.rows.append((job.id, job.state))

    def load_job(self, job_id):
        return None


@pytest.mark.slow  # about 1 s
def test_a_waiting_jobs_row_is_written_again_so_that_no_process_takes_it_for_stopped(monkeypatch):
    monkeypatch.setattr(jobs_module, "REFRESH_WAITING_SECONDS", 0)  # every time a job ends
    storage, release = SavedRows(), threading.Event()
    jobs = Jobs(workers=1, storage=storage)
    hold_a_worker(jobs, "Holding the worker", release, workspace="holder")
    waiting = jobs.start("Splitting", lambda job: "/split", key="seed 1", workspace="A")
    assert storage.rows[-1] == (waiting.id, "running")
    release.set()
    jobs.shutdown()
    # Written when it waits, again while it waits, when a worker takes it (its start, for the estimate), when done.
    assert [state for job_id, state in storage.rows if job_id == waiting.id] == ["running", "running", "running",
                                                                                "done"]


def test_a_waiting_jobs_row_stays_fresh_while_another_job_runs_long(monkeypatch):
    """A job may wait minutes behind a long one; the thread waiting for the slot for heavy work keeps its row
    fresh meanwhile, or another process's progress page would call it stopped after STALE_AFTER_SECONDS."""
    monkeypatch.setattr(jobs_module, "REFRESH_WAITING_SECONDS", 0.01)
    refreshed, release = threading.Event(), threading.Event()

    class Rows(SavedRows):
        def save_job(self, job):
            super().save_job(job)
            if job.title == "Splitting" and len([row for row in self.rows if row[0] == job.id]) >= 3:
                refreshed.set()

    storage = Rows()
    jobs = Jobs(workers=2, storage=storage)
    jobs.heavy_work = HeavyWork(1)
    hold_a_worker(jobs, "Holding the slot", release, workspace="holder")
    waiting = jobs.start("Splitting", lambda job: "/split", key="seed 1", workspace="A")
    try:
        assert refreshed.wait(timeout=30)  # written again while the long job still holds the slot
        assert not release.is_set() and jobs.get(waiting.id).state == "running"
    finally:
        release.set()
        jobs.shutdown()
    assert jobs.get(waiting.id).state == "done"


# -- memory and errors ---------------------------------------------------------------------------------------------


@contextmanager
def collector_off():
    """No automatic collection: what a job leaves in a reference cycle stays unless the jobs collect it."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def test_a_finished_jobs_arrays_are_freed_at_once():
    jobs, refs = Jobs(workers=1), []

    def count(job):
        vocabulary = {"big": np.ones(2_000_000)}  # 16 MB
        vocabulary["self"] = vocabulary  # a reference cycle, as counting's growing vocabulary makes
        refs.append(weakref.ref(vocabulary["big"]))
        return "/done"

    with collector_off():
        job = jobs.wait(jobs.start("Counting", count).id, timeout=30)
        assert job.state == "done" and refs[0]() is None
    jobs.shutdown()


def test_a_failed_jobs_frames_let_go_of_their_arrays(caplog):
    jobs, refs = Jobs(workers=1), []

    def count(job):
        matrix = np.ones(2_000_000)
        refs.append(weakref.ref(matrix))
        try:
            raise RuntimeError("the disk is full")
        except RuntimeError as error:
            kept = error  # the error, its traceback, this frame and the error again: a cycle
            raise kept from None

    with collector_off(), caplog.at_level(logging.ERROR, logger="webnb.hosting.jobs"):
        job = jobs.wait(jobs.start("Counting 12,000 documents", count).id, timeout=30)
        assert refs[0]() is None
    jobs.shutdown()
    assert job.state == "failed" and job.error == "Something went wrong: RuntimeError. Nothing was stored."
    [record] = [r for r in caplog.records if r.name == "webnb.hosting.jobs"]
    assert record.levelno == logging.ERROR and "Counting 12,000 documents" in record.getMessage()
    assert record.exc_info[0] is RuntimeError
    assert "Traceback" in caplog.text and "the disk is full" in caplog.text and "in count" in caplog.text


def test_an_expected_failure_is_not_logged_as_an_error(caplog):
    jobs = Jobs(workers=1)

    def count(job):
        raise ValueError("Every class needs at least one document; 'spam' has none")

    with caplog.at_level(logging.ERROR, logger="webnb.hosting.jobs"):
        job = jobs.wait(jobs.start("Counting", count).id, timeout=30)
    jobs.shutdown()
    assert job.error.startswith("Every class needs")
    assert not [r for r in caplog.records if r.name == "webnb.hosting.jobs"]


# -- through the pages ---------------------------------------------------------------------------------------------


@contextmanager
def held(gate):
    """Holds the app's only slot for heavy work from another thread: its jobs wait, none starts."""
    taken, done = threading.Event(), threading.Event()

    def hold():
        with gate.slot(wait=True):
            taken.set()
            done.wait(timeout=60)

    thread = threading.Thread(target=hold)
    thread.start()
    assert taken.wait(timeout=30)
    try:
        yield
    finally:
        done.set()
        thread.join()


@pytest.fixture()
def hosted(tmp_path):
    app = create_app({
        "TESTING": True, "WTF_CSRF_ENABLED": False, "WEBNB_MODE": "hosted", "SECRET_KEY": "s" * 40,
        "WEBNB_COOKIE_SECURE": False, "RATELIMIT_ENABLED": False, "WEBNB_MAX_QUEUED_JOBS": 1,
    }, instance_path=str(tmp_path))
    corpus = Corpus.from_pairs(
        ("spam", f"win cash prize number{i} now") if i % 2 else ("ham", f"lunch at noon with friend{i}")
        for i in range(LARGE_CORPUS + 100)
    )
    app.extensions["webnb"]["catalog"].publish([PublishedCorpus("class-big", "Big", "For the class.", "test", (),
                                                                corpus)], [counting_options((), len(corpus))])
    yield app
    app.extensions["webnb"]["jobs"].shutdown()


def job_id_of(response) -> str:
    return BeautifulSoup(response.get_data(as_text=True), "html.parser").find(id="job")["hx-get"].rsplit("/", 1)[1]


def test_a_page_past_the_bound_answers_503_and_a_newer_page_replaces_the_waiting_one(hosted):
    jobs, gate = hosted.extensions["webnb"]["jobs"], hosted.extensions["webnb"]["heavy_work"]
    alice, mallory = hosted.test_client(), hosted.test_client()
    with held(gate):
        first = alice.get("/corpora/class-big/evaluation?test=split&seed=1")
        assert first.status_code == 202
        refused = mallory.get("/corpora/class-big/evaluation?test=split&seed=2")  # a fresh cookie: another workspace
        assert refused.status_code == 503 and refused.headers["Retry-After"] == "10"
        message = BeautifulSoup(refused.get_data(as_text=True), "html.parser").find(role="alert").get_text()
        assert " ".join(message.split()) == QUEUE_FULL
        alice_again = alice.get("/corpora/class-big/evaluation?test=split&seed=3")  # replaces seed 1's split
        assert alice_again.status_code == 202
        replaced = alice.get(f"/jobs/{job_id_of(first)}")
        assert replaced.status_code == 400 and "replaced by the newer request" in replaced.get_data(as_text=True)
    done = jobs.wait(job_id_of(alice_again), timeout=60)
    assert done.state == "done" and done.result_url.endswith("seed=3")
    assert alice.get(done.result_url).status_code == 200
