"""What a workspace sees when it stores a corpus (status, message, admission, time, progress) does not depend on
whether another workspace stores the same records: admission charges the full size always, and storing records
stored already waits as long as storing them anew would take in this process, reporting the same progress."""
from __future__ import annotations

import hashlib

import pytest
from bs4 import BeautifulSoup
from conftest import browser_from, paste

from webnb.engine import Corpus
from webnb.engine.io.uploads import parse_pasted
from webnb.hosting.admission import StorePace, size_text
from webnb.hosting.catalog import ScopedCatalog
from webnb.hosting.workspaces import quota
from webnb.store.database import content_hash, stored_size

PASTE = "pos\tgreat match and a sharp keeper\nneg\tdull match\npos\tbrilliant goal\nneg\tslow dull game"


def distinct_paste(name: str) -> str:
    """PASTE with a last word of its own per ``name``, of the same size."""
    return PASTE.replace("game", hashlib.sha256(name.encode()).hexdigest()[:4])


PASTE_BYTES = stored_size(parse_pasted(distinct_paste("any")))


@pytest.fixture()
def hosted_app(keyed_hosted_app):
    return keyed_hosted_app


student = browser_from


def outcome(response) -> tuple[int, str | None]:
    """What the student sees: the status and the form's message (None when it was stored)."""
    alert = BeautifulSoup(response.get_data(as_text=True), "html.parser").select_one("[role=alert]")
    return response.status_code, None if alert is None else alert.get_text(" ", strip=True)


class Recorder:
    """The padding's sleep, recorded instead of slept, and a clock that moves only by those sleeps and when told."""

    def __init__(self):
        self.sleeps: list[float] = []
        self.now = 100.0

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    def clock(self) -> float:
        return self.now


@pytest.fixture()
def recorded(monkeypatch):
    """Makes an app's StorePace record its sleeps and use the recorder's clock."""

    def record(app) -> Recorder:
        recorder = Recorder()
        pace = app.extensions["webnb_store_pace"]
        monkeypatch.setattr(pace, "sleep", recorder.sleep)
        monkeypatch.setattr(pace, "clock", recorder.clock)
        return recorder

    return record


# -- admission ----------------------------------------------------------------------------------------------------


def test_content_another_workspace_stored_is_charged_its_full_size(hosted_app, recorded):
    app = hosted_app(WEBNB_STORED_BYTES_PER_HOUR=int(2.5 * PASTE_BYTES))
    recorded(app)
    assert outcome(paste(student(app), distinct_paste("alice"))) == (303, None)
    # The same records again, from another workspace: charged in full as well (before: nothing).
    assert outcome(paste(student(app), distinct_paste("alice"))) == (303, None)
    # The address's hour is spent now: stored content and new content are refused alike.
    known, new = paste(student(app), distinct_paste("alice")), paste(student(app), distinct_paste("carol"))
    assert outcome(known) == outcome(new)
    status, message = outcome(known)
    assert status == 400 and message.startswith(
        f"Your network address may store {size_text(int(2.5 * PASTE_BYTES))} of corpora an hour; it has stored "
        f"{size_text(2 * PASTE_BYTES)} this hour and this corpus takes {size_text(PASTE_BYTES)}. Nothing was stored.")


def test_with_the_server_full_stored_and_new_content_are_refused_alike(hosted_app, recorded):
    app = hosted_app(WEBNB_MAX_STORED_BYTES=PASTE_BYTES + 10)
    recorded(app)
    assert outcome(paste(student(app), distinct_paste("alice"))) == (303, None)
    known, new = paste(student(app), distinct_paste("alice")), paste(student(app), distinct_paste("bob"))
    assert outcome(known) == outcome(new)
    status, message = outcome(known)
    assert status == 400 and message.startswith("The server's storage for corpora is full")
    assert len(app.extensions["webnb"]["storage"].list_corpora()) == 1


# -- time -----------------------------------------------------------------------------------------------------------


def test_storing_content_stored_already_waits_as_long_as_a_real_store(hosted_app, recorded, monkeypatch):
    app = hosted_app()
    recorder = recorded(app)
    storage = app.extensions["webnb"]["storage"]
    add_corpus = storage.add_corpus

    def writing_takes_half_a_second(corpus, **kwargs):
        if not storage.has_content(content_hash(corpus)):
            recorder.now += 0.5  # documents written: a real store's time
        return add_corpus(corpus, **kwargs)

    monkeypatch.setattr(storage, "add_corpus", writing_takes_half_a_second)
    pace = app.extensions["webnb_store_pace"]
    assert outcome(paste(student(app), distinct_paste("alice"))) == (303, None)
    assert recorder.sleeps == []  # written: measured, not padded
    assert pace.estimate("texts", PASTE_BYTES) == pytest.approx(0.5)
    assert outcome(paste(student(app), distinct_paste("alice"))) == (303, None)
    assert sum(recorder.sleeps) == pytest.approx(0.5)  # nothing written: the time writing would have taken
    recorder.sleeps.clear()
    assert outcome(paste(student(app), distinct_paste("bob"))) == (303, None)
    assert recorder.sleeps == []


def test_the_store_time_is_a_line_fitted_to_the_recent_stores():
    pace = StorePace(sleep=None, clock=None)
    assert pace.estimate("texts", 10_000_000) == pytest.approx(0.025 + 1.5)  # measured beforehand on PostgreSQL
    for size, seconds in ((1_000_000, 0.2), (5_000_000, 0.6), (9_000_000, 1.0)):
        pace.measured("texts", size, seconds)
    assert pace.estimate("texts", 3_000_000) == pytest.approx(0.4)  # 0.1 s, then 0.1 s a megabyte
    assert pace.estimate("table", 3_000_000) == pytest.approx(0.025 + 0.45)  # each kind its own
    # Pastes all alike teach the fixed time, not the time per byte; one slow store does not make minutes.
    pace = StorePace(sleep=None, clock=None)
    for _ in range(50):
        pace.measured("texts", 1_700, 0.03)
    pace.measured("texts", 1_800, 60.0)
    assert pace.estimate("texts", 1_700) <= 5 + 1e-6 * 1_700
    assert pace.estimate("texts", 20_000_000) <= 5 + 1e-6 * 20_000_000


# -- progress ---------------------------------------------------------------------------------------------------


def test_a_background_store_reports_the_same_progress_either_way(hosted_app, recorded):
    app = hosted_app()
    recorder = recorded(app)
    corpus = Corpus(texts=tuple(f"review number {i} of the match" for i in range(2500)),
                    labels=tuple("pos" if i % 2 else "neg" for i in range(2500)), ids=tuple(map(str, range(2500))))
    reports = {}
    for workspace in ("first", "second"):
        with app.test_request_context(environ_base={"REMOTE_ADDR": "127.0.0.1"}):
            shared = ScopedCatalog(app.extensions["webnb"]["catalog"], workspace, quota())
            reports[workspace] = []
            shared.add(corpus, name="reviews", source="uploaded reviews.txt",
                       progress=lambda done, total, seen=reports[workspace]: seen.append((done, total)))
    assert reports["first"] == reports["second"] == [(1000, 2500), (2000, 2500)]
    # The time a store of its size takes, spread evenly around the reports.
    size = stored_size(corpus)
    assert sum(recorder.sleeps) == pytest.approx(app.extensions["webnb_store_pace"].estimate("texts", size))
    assert len(recorder.sleeps) == 3 and recorder.sleeps[0] == recorder.sleeps[1] == recorder.sleeps[2]


def test_a_copy_from_a_share_link_stays_quick(hosted_app, recorded):
    app = hosted_app()
    recorder = recorded(app)
    alice, bob = student(app), student(app)
    assert paste(alice, distinct_paste("alice")).status_code == 303
    corpus_id = app.extensions["webnb"]["storage"].list_corpora()[0].id
    link = BeautifulSoup(alice.post(f"/corpora/{corpus_id}/share").get_data(as_text=True), "html.parser")
    token = link.select_one("#share-link")["value"].rsplit("/", 1)[-1]
    assert bob.post(f"/shared/{token}").status_code == 303
    assert recorder.sleeps == []
