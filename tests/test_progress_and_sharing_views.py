"""The progress page of background work and the pages of a share link: each a page, an htmx fragment of it and a
JSON twin made from one record."""
from __future__ import annotations

import threading

import pytest
from conftest import soup_of

from webnb.engine import CorpusError
from webnb.hosting.jobs import Job
from webnb.views.jobs import Progress

PASTE = "pos\tgreat match and a sharp keeper\nneg\tdull match\npos\tbrilliant goal\nneg\tslow dull game"


def test_progress_is_one_reading_of_a_job():
    job = Job(id="abc", title="Counting", unit="documents", done=500, total=2000)
    progress = Progress.of(job)
    job.done, job.state = 2000, "done"  # the worker goes on; the reading does not
    assert progress.to_dict() == {"id": "abc", "title": "Counting", "state": "running", "unit": "documents",
                                  "done": 500, "total": 2000, "fraction": 0.25, "error": None, "waiting": False,
                                  "elapsed_seconds": None, "remaining_seconds": None, "estimate": None}
    assert Progress.of(Job(id="x", title="Starting")).fraction is None  # nothing counted yet: no fraction


def three_of_twelve_steps_done(jobs, title: str, release: threading.Event):
    """Start a job titled ``title`` that reports 3 of 12 steps done and then waits for ``release`` (until then, what
    its progress page shows is fixed); return it once it has reported. Done, it leads to /corpora."""
    reported = threading.Event()

    def work(job):
        job.report(3, 12)
        reported.set()
        release.wait(timeout=30)
        return "/corpora"

    job = jobs.start(title, work, unit="steps")
    assert reported.wait(timeout=30)
    return job


def test_a_running_job_as_page_fragment_and_json(app, client):
    release = threading.Event()
    jobs = app.extensions["webnb"]["jobs"]
    job = three_of_twelve_steps_done(jobs, "Waiting for the test", release)
    try:
        page = soup_of(client.get(f"/jobs/{job.id}"))
        assert page.find("html") and page.h1.text == "Waiting for the test"
        assert page.find("progress")["value"] == "3" and "3 of 12 steps so far." in page.text
        fragment = client.get(f"/jobs/{job.id}", headers={"HX-Request": "true"})
        part = soup_of(fragment)
        assert part.find("html") is None and part.section["id"] == "job"
        assert part.section["hx-get"] == f"/jobs/{job.id}" and "HX-Request" in fragment.headers["Vary"]
        data = client.get(f"/jobs/{job.id}", query_string={"format": "json"}).get_json()
        elapsed, remaining = data.pop("elapsed_seconds"), data.pop("remaining_seconds")
        assert data.pop("estimate").startswith(("About", "Less than a second"))
        assert data == {"id": job.id, "title": "Waiting for the test", "state": "running", "unit": "steps", "done": 3,
                        "total": 12, "fraction": 0.25, "error": None, "waiting": False}
        assert elapsed >= 0 and remaining == pytest.approx(elapsed * (12 - 3) / 3)  # three times as long again
    finally:
        release.set()
    jobs.wait(job.id, timeout=30)
    assert client.get(f"/jobs/{job.id}").headers["Location"] == "/corpora"
    assert client.get(f"/jobs/{job.id}", headers={"HX-Request": "true"}).headers["HX-Redirect"] == "/corpora"


def test_a_failed_job_says_why_with_status_400(app, client):
    def work(job):
        raise CorpusError("Every class needs at least one document.")

    jobs = app.extensions["webnb"]["jobs"]
    job = jobs.start("Storing", work)
    jobs.wait(job.id, timeout=30)
    response = client.get(f"/jobs/{job.id}")
    assert soup_of(response, status=400).find(id="form-error").text == "Every class needs at least one document."
    assert soup_of(response, status=400).section.get("hx-get") is None  # nothing more to poll
    data = client.get(f"/jobs/{job.id}", query_string={"format": "json"})
    assert data.status_code == 400 and data.get_json()["state"] == "failed"
    assert data.get_json()["error"] == "Every class needs at least one document."
    assert client.get("/jobs/no-such-job").status_code == 404


def test_a_share_link_and_the_page_it_opens(client):
    corpus_id = client.post("/corpora/paste", data={"corpus": PASTE, "name": "Match notes"}).headers["Location"]
    corpus_id = corpus_id.rsplit("/", 1)[-1]
    made = soup_of(client.post(f"/corpora/{corpus_id}/share"))
    link = made.select_one("#share-link")["value"]
    assert "Share “Match notes”" in made.h1.text and "/shared/" in link
    twin = client.post(f"/corpora/{corpus_id}/share", query_string={"format": "json"}).get_json()
    assert twin["corpus"] == {"id": corpus_id, "name": "Match notes", "documents": 4} and "/shared/" in twin["link"]
    token = link.rsplit("/", 1)[-1]
    opened = soup_of(client.get(f"/shared/{token}"))
    assert opened.h1.text == "A shared corpus: “Match notes”" and opened.find("form")["method"] == "post"
    shared = client.get(f"/shared/{token}", query_string={"format": "json"}).get_json()
    # what the owner's corpus is called and holds, never its id
    assert shared == {"corpus": {"name": "Match notes", "documents": 4, "classes": {"neg": 2, "pos": 2}}, "error": None}
    assert client.get("/shared/" + "A" * 22, query_string={"format": "json"}).status_code == 404
    assert client.post("/corpora/match-reviews/share").status_code == 404  # a built-in needs no link
