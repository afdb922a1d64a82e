"""Long work shows its progress: counting a big corpus, storing a big upload."""
from __future__ import annotations

import io
import json
import threading

import pytest
from bs4 import BeautifulSoup

from webnb.engine import Corpus
from webnb.hosting.jobs import Jobs
from webnb.views.common import LARGE_CORPUS

# A low threshold keeps test uploads small: the test client spools bigger bodies to temporary files.
pytestmark = pytest.mark.app_config(WEBNB_BACKGROUND_UPLOAD_BYTES=50_000)


def big_corpus(n: int) -> Corpus:
    return Corpus.from_pairs(
        ("spam", f"win cash prize number{i} now") if i % 2 else ("ham", f"lunch at noon with friend{i}")
        for i in range(n)
    )


def test_a_big_corpus_page_shows_progress_then_itself(app):
    catalog = app.extensions["webnb"]["storage"]
    corpus_id = catalog.add_corpus(big_corpus(LARGE_CORPUS + 500), name="Big", source="test")
    client = app.test_client()
    first = client.get(f"/corpora/{corpus_id}/matrix")
    assert first.status_code == 202
    soup = BeautifulSoup(first.get_data(as_text=True), "html.parser")
    assert "Counting the words of 2,500 documents" in soup.h1.get_text()
    job_url = soup.find(id="job")["hx-get"]
    job_id = job_url.rsplit("/", 1)[1]
    job = app.extensions["webnb"]["jobs"].wait(job_id, timeout=30)
    assert job.state == "done" and (job.done, job.total) == (2000, 2500)
    done = client.get(job_url)
    assert done.status_code == 303 and done.headers["Location"].endswith(f"/corpora/{corpus_id}/matrix")
    assert client.get(job_url, headers={"HX-Request": "true"}).headers["HX-Redirect"] == job.result_url
    second = client.get(f"/corpora/{corpus_id}/matrix")
    assert second.status_code == 200
    # The JSON twin never makes its caller poll.
    assert client.get(f"/corpora/{corpus_id}/parameters?stop_words=english&format=json").status_code == 200


def test_a_slide_that_computes_shows_its_progress_inside_the_deck(app):
    """Issue 36, part 2: in presenter mode the progress is a slide, in the deck's theme and zoom, with a bar whose ←
    goes back to the slide before and whose Exit leaves presenter mode; a page outside the deck keeps the plain one."""
    catalog = app.extensions["webnb"]["storage"]
    corpus_id = catalog.add_corpus(big_corpus(LARGE_CORPUS + 500), name="Big", source="test")
    client = app.test_client()
    before = f"http://localhost/corpora/{corpus_id}?presenter=1&theme=dark&zoom=150"
    first = client.get(f"/corpora/{corpus_id}/matrix?presenter=1&theme=dark&zoom=150&model=bernoulli",
                       headers={"Referer": before})
    assert first.status_code == 202
    soup = BeautifulSoup(first.get_data(as_text=True), "html.parser")
    assert soup.body["class"] == ["presenter", "slide", "theme-dark", "zoom-150"]
    bar = soup.select_one("nav.deck-bar")
    assert bar.select_one("[data-step=prev]")["href"] == f"/corpora/{corpus_id}?presenter=1&theme=dark&zoom=150"
    assert bar.select_one(".deck-exit")["href"] == f"/corpora/{corpus_id}/matrix?theme=dark&zoom=150&model=bernoulli"
    assert "Counting the words" in bar.select_one(".deck-position").get_text()
    keys = [" ".join(row.th.get_text().split()) for row in soup.select("#deck-keys tr")]
    assert keys == ["←", "p", "Esc", "?"] and bar.select_one("[data-keys-toggle]")
    job_url = soup.find(id="job")["hx-get"]
    # Another site's page is no slide to go back to (other options: counted anew, so the progress again).
    for elsewhere, option in (("https://elsewhere.example/x", "stop_words=english"),
                              ("http://localhost//elsewhere.example/x", "lowercase=0")):
        answer = client.get(f"/corpora/{corpus_id}/matrix?presenter=1&theme=dark&{option}",
                            headers={"Referer": elsewhere})
        assert answer.status_code == 202
        drawn = BeautifulSoup(answer.get_data(as_text=True), "html.parser")
        assert drawn.select_one("nav.deck-bar .deck-exit") and not drawn.select("nav.deck-bar [data-step=prev]")
    # The job's own page, asked for again, is drawn in the deck too (from the slide's address it will open).
    again = BeautifulSoup(client.get(job_url).get_data(as_text=True), "html.parser")
    if again.body is not None and again.body.get("class"):
        assert again.body["class"][:2] == ["presenter", "slide"]
    app.extensions["webnb"]["jobs"].wait(job_url.rsplit("/", 1)[1], timeout=30)
    other = catalog.add_corpus(big_corpus(LARGE_CORPUS + 501), name="Big too", source="test")
    plain = BeautifulSoup(client.get(f"/corpora/{other}/matrix").get_data(as_text=True), "html.parser")
    assert plain.select_one("nav.deck-bar") is None and not plain.body.get("class")


def test_a_big_upload_is_stored_in_the_background(app):
    client = app.test_client()
    lines = [
        json.dumps({"label": "spam" if i % 2 else "ham", "text": f"message number {i} " + "filler " * 3})
        for i in range(3000)
    ]
    payload = ("\n".join(lines) + "\n").encode()
    assert 50_000 < len(payload) < 400_000
    response = client.post(
        "/corpora/upload", data={"file": (io.BytesIO(payload), "big.jsonl")}, content_type="multipart/form-data")
    assert response.status_code == 303 and "/jobs/" in response.headers["Location"]
    job_id = response.headers["Location"].rsplit("/", 1)[1]
    job = app.extensions["webnb"]["jobs"].wait(job_id, timeout=60)
    assert job.state == "done", job.error
    assert len(app.extensions["webnb"]["storage"].list_corpora()) == 1
    corpus_page = client.get(job.result_url, query_string={"format": "json"}).get_json()
    assert corpus_page["corpus"]["documents"] == 3000


def test_a_big_upload_says_it_is_done_before_it_stores_its_counts(app, monkeypatch):
    from webnb.hosting.catalog import Catalog

    storage, jobs = app.extensions["webnb"]["storage"], app.extensions["webnb"]["jobs"]
    seen, claims, saved_key = [], [], []
    save = Catalog._save

    def observed_save(self, content, options, training):
        # The job's state as its progress page reads it, and whether any process could load the counts yet.
        seen.append((jobs._jobs[job_ids[0]].state, storage.counted(content, options)))
        claims.append(storage.counting_state(content, options)[0])
        saved_key.append((content, options))
        save(self, content, options, training)

    monkeypatch.setattr(Catalog, "_save", observed_save)
    job_ids = []
    original_start = jobs.start

    def start(*args, **kwargs):
        job = original_start(*args, **kwargs)
        job_ids.append(job.id)
        return job

    monkeypatch.setattr(jobs, "start", start)
    payload = b"".join(json.dumps({"label": "spam" if i % 2 else "ham", "text": f"message {i} " + "filler " * 3})
                       .encode() + b"\n" for i in range(3000))
    client = app.test_client()
    response = client.post(
        "/corpora/upload", data={"file": (io.BytesIO(payload), "big.jsonl")}, content_type="multipart/form-data")
    job = jobs.wait(response.headers["Location"].rsplit("/", 1)[1], timeout=60)
    assert job.state == "done" and job.after_done == []
    assert seen == [("done", None)]  # said done first, then stored the counts, once
    # Meanwhile the counts were claimed: another process opening the corpus waited for them instead of counting.
    assert claims == ["counting"] and storage.counting_state(*saved_key[0])[0] == "done"
    assert list(storage.count_builds().values()) == [1]
    # The page opens from what this process kept, without counting the corpus again.
    catalog = app.extensions["webnb"]["catalog"]
    counted = len(catalog.counted_here)
    assert client.get(job.result_url).status_code == 200 and len(catalog.counted_here) == counted


def test_counts_left_for_after_the_job_are_claimed_and_let_go_if_never_stored(app, monkeypatch):
    from webnb.engine import AnalysisOptions, VocabularyOptions
    from webnb.engine.io import persist
    from webnb.store.database import content_hash

    catalog, storage = app.extensions["webnb"]["catalog"], app.extensions["webnb"]["storage"]
    options = persist.options_key(AnalysisOptions(), VocabularyOptions())
    left = []

    def add(corpus):
        catalog.add(corpus, name="later", source="test", later=lambda work, if_failed: left.append((work, if_failed)))
        return content_hash(corpus)

    # The job failed after storing: the claim goes, and the next process to need the counts makes them.
    failed = add(big_corpus(40))
    assert storage.counting_state(failed, options)[0] == "counting" and storage.counted(failed, options) is None
    left[-1][1]()
    assert storage.counting_state(failed, options) is None
    # Storing the counts failed: the claim goes as well, and the error is the job's log's to show.
    broken = add(big_corpus(41))

    def full_disk(*args, **kwargs):
        raise OSError("disk full")

    with monkeypatch.context() as patch:
        patch.setattr(storage, "save_counted", full_disk)
        with pytest.raises(OSError, match="disk full"):
            left[-1][0]()
    assert storage.counting_state(broken, options) is None
    # Stored: the claim becomes the counts.
    stored = add(big_corpus(42))
    left[-1][0]()
    assert storage.counting_state(stored, options)[0] == "done" and storage.counted(stored, options) is not None


def test_work_after_a_job_runs_once_it_is_done_and_never_after_a_failure():
    jobs = Jobs(workers=1)
    events = []

    def work(job):
        job.later(lambda: events.append(("later", job.state)))
        job.later(lambda: 1 / 0)  # a failure after the job: logged, the outcome stands
        job.later(lambda: events.append(("after the failure", job.state)))
        return "/done"

    def failing(job):
        job.later(lambda: events.append(("never", job.state)), if_failed=lambda: events.append(("instead", job.state)))
        raise ValueError("no")

    try:
        done = jobs.wait(jobs.start("fine", work).id, timeout=30)
        failed = jobs.wait(jobs.start("failing", failing).id, timeout=30)
    finally:
        jobs.shutdown()
    assert (done.state, done.result_url, done.error) == ("done", "/done", None)
    assert (failed.state, failed.error) == ("failed", "no")
    assert events == [("later", "done"), ("after the failure", "done"), ("instead", "failed")]
    assert done.after_done == [] and failed.after_done == []


def test_a_failed_background_upload_says_why_and_stores_nothing(app):
    client = app.test_client()
    payload = b'{"label": "spam", "text": "x"}\n' * 4000
    response = client.post(
        "/corpora/upload", data={"file": (io.BytesIO(payload), "one-class.jsonl")}, content_type="multipart/form-data")
    job_id = response.headers["Location"].rsplit("/", 1)[1]
    job = app.extensions["webnb"]["jobs"].wait(job_id, timeout=60)
    assert job.state == "failed" and "one-class.jsonl" in job.error and "two classes" in job.error
    page = client.get(f"/jobs/{job_id}")
    assert page.status_code == 400
    assert "two classes" in BeautifulSoup(page.get_data(as_text=True), "html.parser").find(id="form-error").get_text()
    assert app.extensions["webnb"]["storage"].list_corpora() == []


def test_unknown_job_is_404(app):
    assert app.test_client().get("/jobs/nope").status_code == 404


@pytest.mark.slow  # about 1 s
def test_the_same_work_is_started_once():
    jobs = Jobs(workers=1)
    started, release = threading.Event(), threading.Event()
    runs = []

    def work(job):
        runs.append(job.id)
        started.set()
        release.wait(timeout=5)
        return "/done"

    first = jobs.start("count", work, key="same corpus")
    again = jobs.start("count", work, key="same corpus")
    assert started.wait(timeout=5)  # running: another key waits behind it (it would replace it while waiting)
    other = jobs.start("count", work, key="another corpus")
    release.set()
    assert again is first and other is not first
    assert jobs.wait(first.id, timeout=5).result_url == "/done"
    jobs.wait(other.id, timeout=5)
    assert sorted(runs) == sorted([first.id, other.id])
    jobs.shutdown()
