"""Storage bounded: new workspaces and bytes per client address and hour, the server's storage budget, and
``webnb cleanup`` removing idle workspaces with everything they stored."""
from __future__ import annotations

import hashlib
import io
import re
import secrets
from datetime import datetime, timedelta, timezone

import pytest
import sqlalchemy as sa
from bs4 import BeautifulSoup
from conftest import browser_from, paste, stored_workspace_ids

from webnb import create_app
from webnb.cli import main
from webnb.engine.io.uploads import parse_pasted
from webnb.hosting.admission import size_text
from webnb.store.database import corpora, documents, jobs, shares, stored_size, workspaces

PASTE = "pos\tgreat match and a sharp keeper\nneg\tdull match\npos\tbrilliant goal\nneg\tslow dull game"


def distinct_paste(name: str) -> str:
    """PASTE with a last word of its own per ``name``, of the same size: identical records are stored once (and
    cost nothing the second time), so each paste that should count is different."""
    return PASTE.replace("game", hashlib.sha256(name.encode()).hexdigest()[:4])


PASTE_BYTES = stored_size(parse_pasted(distinct_paste("any")))
NEW_WORKSPACES = "new workspaces have already stored corpora from your network address this hour"
BYTES_PER_HOUR = "Your network address may store"
FULL = "The server's storage for corpora is full"


@pytest.fixture()
def hosted_app(keyed_hosted_app):
    return keyed_hosted_app


student = browser_from


def paste_distinct(client, name="mine", corpus=None):
    """Pastes a text of its own for each name (the same text twice would be stored once)."""
    return paste(client, corpus or distinct_paste(name), name)


def form_error(response) -> str:
    alert = BeautifulSoup(response.get_data(as_text=True), "html.parser").select_one("[role=alert]")
    return alert.get_text(" ", strip=True)


def stored(app) -> list[str]:
    return sorted(summary.name for summary in app.extensions["webnb"]["storage"].list_corpora())


def count_rows(app, table, *where) -> int:
    with app.extensions["webnb"]["storage"].engine.connect() as connection:
        return connection.execute(sa.select(sa.func.count()).select_from(table).where(*where)).scalar_one()


def set_last_seen(app, workspace: str, moment: datetime) -> None:
    with app.extensions["webnb"]["storage"].engine.begin() as connection:
        assert connection.execute(workspaces.update().where(workspaces.c.id == workspace),
                                  {"last_seen_at": moment}).rowcount == 1


def last_seen(app, workspace: str) -> datetime | None:
    with app.extensions["webnb"]["storage"].engine.connect() as connection:
        moment = connection.execute(
            sa.select(workspaces.c.last_seen_at).where(workspaces.c.id == workspace)).scalar_one_or_none()
    return None if moment is None else (moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment)


def workspace_of(client) -> str:
    with client.session_transaction() as session:
        return session["workspace"]


# -- limits per client address ------------------------------------------------------------------------------------


@pytest.mark.slow  # about 1 s
def test_a_fresh_cookie_flood_is_refused_past_the_new_workspace_limit(hosted_app, monkeypatch):
    monkeypatch.setattr("webnb.hosting.admission.NEW_WORKSPACE_BYTES", 0)  # every paste makes a new workspace
    app = hosted_app(WEBNB_NEW_WORKSPACES_PER_HOUR=3, WEBNB_BACKGROUND_UPLOAD_BYTES=100)
    first = student(app)
    pasted = [paste_distinct(client, f"flood {i}").status_code for i, client in enumerate([first, student(app)])]
    assert pasted == [303, 303]
    # An upload read in the background (a thread with no request) counts from the same address.
    large = b"".join(b'{"label": "%s", "text": "document %d"}\n' % (b"pos" if i % 2 else b"neg", i) for i in range(20))
    response = student(app).post("/corpora/upload", data={"file": (io.BytesIO(large), "x.jsonl"), "name": "flood 2"})
    job = app.extensions["webnb"]["jobs"].wait(response.headers["Location"].rsplit("/", 1)[-1], timeout=60)
    assert job.state == "done", job.error
    for i in range(3, 6):  # every further fresh cookie from the same address
        response = paste_distinct(student(app), f"flood {i}")
        assert response.status_code == 400
        message = form_error(response)
        assert "3 new workspaces have already stored corpora from your network address this hour" in message
        assert "Nothing was stored." in message and re.search(r"Try again in (\d+ minutes|a minute)", message)
        assert "Traceback" not in response.get_data(as_text=True)
    assert stored(app) == ["flood 0", "flood 1", "flood 2"]
    assert count_rows(app, workspaces) == 3  # a refused workspace is not kept either
    # A workspace that already stored is not new; another address has a count of its own.
    assert paste_distinct(first, "first again").status_code == 303
    assert paste_distinct(student(app, "10.0.0.2"), "next door").status_code == 303
    assert len(stored(app)) == 5


def test_bytes_per_hour_are_counted_per_address_not_per_workspace(hosted_app):
    app = hosted_app(WEBNB_STORED_BYTES_PER_HOUR=int(2.5 * PASTE_BYTES))
    alice, bob = student(app), student(app)
    assert paste_distinct(alice, "one").status_code == 303
    assert paste_distinct(bob, "two").status_code == 303
    for client in (alice, bob, student(app)):
        response = paste_distinct(client, "three")
        assert response.status_code == 400
        message = form_error(response)
        assert f"{BYTES_PER_HOUR} {size_text(int(2.5 * PASTE_BYTES))} of corpora an hour; it has stored " \
               f"{size_text(2 * PASTE_BYTES)} this hour and this corpus takes {size_text(PASTE_BYTES)}. " \
               "Nothing was stored." in message
    assert stored(app) == ["one", "two"]
    assert paste_distinct(student(app, "10.0.0.2"), "elsewhere").status_code == 303


def test_behind_a_trusted_proxy_each_forwarded_address_counts_apart(hosted_app, monkeypatch):
    monkeypatch.setattr("webnb.hosting.admission.NEW_WORKSPACE_BYTES", 0)  # every paste makes a new workspace
    app = hosted_app(WEBNB_NEW_WORKSPACES_PER_HOUR=1, WEBNB_PROXIES=1)

    def from_(address):
        return student(app).post("/corpora/paste", data={"corpus": PASTE}, headers={"X-Forwarded-For": address})

    assert from_("203.0.113.7").status_code == 303
    assert from_("203.0.113.8").status_code == 303
    assert NEW_WORKSPACES in form_error(from_("203.0.113.7"))
    assert count_rows(app, corpora) == 2
    # The rows keep a keyed hash of the address, never the address itself.
    with app.extensions["webnb"]["storage"].engine.connect() as connection:
        creators = connection.execute(sa.select(workspaces.c.created_by)).scalars().all()
    assert len(set(creators)) == 2 and all(re.fullmatch(r"[0-9a-f]{24}", c) for c in creators)


def test_the_counts_are_shared_by_processes_through_redis(hosted_app, redis_test_url, monkeypatch):
    monkeypatch.setattr("webnb.hosting.admission.NEW_WORKSPACE_BYTES", 0)  # every paste makes a new workspace
    url = redis_test_url
    key = secrets.token_urlsafe(40)  # the same secret: the same address keys, counted in the same Redis keys
    first, second = (hosted_app(SECRET_KEY=key, RATELIMIT_STORAGE_URI=url, WEBNB_NEW_WORKSPACES_PER_HOUR=2)
                     for _ in range(2))
    assert paste_distinct(student(first)).status_code == 303
    assert paste_distinct(student(second)).status_code == 303
    assert NEW_WORKSPACES in form_error(paste_distinct(student(first)))
    assert NEW_WORKSPACES in form_error(paste_distinct(student(second)))
    assert count_rows(first, corpora) == 2


def test_an_unreachable_rate_limit_store_still_counts_in_the_process(hosted_app, monkeypatch):
    monkeypatch.setattr("webnb.hosting.admission.NEW_WORKSPACE_BYTES", 0)  # every paste makes a new workspace
    app = hosted_app(RATELIMIT_STORAGE_URI="redis://127.0.0.1:9/0", WEBNB_NEW_WORKSPACES_PER_HOUR=1)
    assert paste_distinct(student(app)).status_code == 303
    refused = paste_distinct(student(app))
    assert refused.status_code == 400 and NEW_WORKSPACES in form_error(refused)
    assert count_rows(app, corpora) == 1


# -- the server's storage budget -----------------------------------------------------------------------------------


@pytest.mark.slow  # about 1 s
def test_the_budget_refuses_every_way_of_storing(hosted_app):
    """Paste, upload (read at once and in the background), a shared link's copy and a kept addition all store
    through the same check."""
    app = hosted_app(WEBNB_MAX_STORED_BYTES=PASTE_BYTES + 10, WEBNB_BACKGROUND_UPLOAD_BYTES=100)
    alice, bob = student(app), student(app)
    assert paste_distinct(alice, "fits").status_code == 303
    message = form_error(paste_distinct(bob, "too much"))
    assert (f"{FULL}: it holds {size_text(PASTE_BYTES)} of the {size_text(PASTE_BYTES + 10)} it keeps, "
            f"and this corpus takes {size_text(PASTE_BYTES)}. Nothing was stored.") in message

    small = b'{"label": "pos", "text": "great"}\n{"label": "neg", "text": "dull"}\n'
    response = bob.post("/corpora/upload", data={"file": (io.BytesIO(small), "small.jsonl")})
    assert response.status_code == 400 and FULL in form_error(response)

    large = b"".join(b'{"label": "%s", "text": "document %d"}\n' % (b"pos" if i % 2 else b"neg", i) for i in range(20))
    response = bob.post("/corpora/upload", data={"file": (io.BytesIO(large), "large.jsonl")})
    assert response.status_code == 303
    job_id = response.headers["Location"].rsplit("/", 1)[-1]
    job = app.extensions["webnb"]["jobs"].wait(job_id, timeout=60)
    assert job.state == "failed" and job.error.startswith(f"large.jsonl: {FULL}")

    response = alice.post("/corpora/match-reviews/add/keep", data={"label": "negative", "document": "not sharp"})
    assert response.status_code == 400 and FULL in form_error(response)

    # A shared link's copy costs nothing more; the same records pasted again are charged in full (whether they
    # are stored already must not show), so the full budget refuses them too.
    corpus_id = stored_id(app, "fits")
    link = BeautifulSoup(alice.post(f"/corpora/{corpus_id}/share").get_data(as_text=True), "html.parser")
    token = link.select_one("#share-link")["value"].rsplit("/", 1)[-1]
    assert bob.post(f"/shared/{token}").status_code == 303
    response = paste_distinct(student(app), "fits again", corpus=distinct_paste("fits"))
    assert response.status_code == 400 and FULL in form_error(response)

    assert stored(app) == ["fits", "fits"]
    assert app.extensions["webnb"]["storage"].stored_bytes() == PASTE_BYTES


def stored_id(app, name: str) -> str:
    return next(s.id for s in app.extensions["webnb"]["storage"].list_corpora() if s.name == name)


def test_local_mode_has_no_limits_but_a_budget_when_one_is_set(tmp_path, monkeypatch):
    monkeypatch.delenv("WEBNB_MAX_STORED_BYTES", raising=False)
    app = create_app({"TESTING": True, "WTF_CSRF_ENABLED": False,
                      "WEBNB_NEW_WORKSPACES_PER_HOUR": 1, "WEBNB_STORED_BYTES_PER_HOUR": 1},
                     instance_path=str(tmp_path / "laptop"))
    assert [paste_distinct(app.test_client(), f"n{i}").status_code for i in range(3)] == [303, 303, 303]
    budgeted = create_app({"TESTING": True, "WTF_CSRF_ENABLED": False, "WEBNB_MAX_STORED_BYTES": PASTE_BYTES},
                          instance_path=str(tmp_path / "budgeted"))
    assert paste_distinct(budgeted.test_client(), "fits").status_code == 303
    assert FULL in form_error(paste_distinct(budgeted.test_client(), "does not"))
    assert stored(budgeted) == ["fits"]


# -- last seen, and cleanup ---------------------------------------------------------------------------------------


def test_a_request_notes_when_a_workspace_was_last_seen_at_most_once_an_hour(hosted_app):
    app = hosted_app()
    now = [0.0]
    app.extensions["webnb_last_seen"].clock = lambda: now[0]
    alice = student(app)
    assert paste_distinct(alice).status_code == 303
    workspace = workspace_of(alice)
    assert alice.get("/corpora").status_code == 200  # noted by this process (the database has it as just now)
    long_ago = datetime.now(timezone.utc) - timedelta(days=40)
    set_last_seen(app, workspace, long_ago)
    assert alice.get("/corpora").status_code == 200
    assert last_seen(app, workspace) == long_ago  # noted less than an hour ago by this process: no write
    now[0] += 3601
    before = datetime.now(timezone.utc)
    assert alice.get("/corpora").status_code == 200
    # Noted during that request (databases keep microseconds at most).
    assert before - timedelta(milliseconds=1) <= last_seen(app, workspace) <= datetime.now(timezone.utc)
    # Another process has its own memory, and the database says the visit was just noted: no write either.
    other = hosted_app(SECRET_KEY=app.config["SECRET_KEY"]).test_client()
    with other.session_transaction() as session:
        session["workspace"] = workspace
    noted = last_seen(app, workspace)
    assert other.get("/corpora").status_code == 200 and last_seen(app, workspace) == noted
    # A workspace that never stored anything costs nothing: no row.
    visitor = student(app)
    assert visitor.get("/corpora/match-reviews").status_code == 200
    assert count_rows(app, workspaces) == 1


def test_cleanup_removes_exactly_the_idle_workspaces(hosted_app, monkeypatch):
    from webnb.hosting.jobs import Job

    app = hosted_app()
    storage = app.extensions["webnb"]["storage"]
    idle, active = student(app), student(app)
    for name in ("idle one", "idle two"):
        assert paste_distinct(idle, name).status_code == 303
    assert paste_distinct(active, "active").status_code == 303
    idle_id, active_id = workspace_of(idle), workspace_of(active)
    idle_corpora = [s.id for s in storage.list_corpora(idle_id)]
    idle.post(f"/corpora/{idle_corpora[0]}/share")
    active.post(f"/corpora/{stored_id(app, 'active')}/share")
    storage.save_job(Job(id="idle-job", title="Reading", workspace=idle_id, state="done"))
    storage.save_job(Job(id="active-job", title="Reading", workspace=active_id, state="done"))
    # local mode: no workspace
    local_id = storage.add_corpus(parse_pasted(distinct_paste("local")), name="local", source="typed in")
    # A workspace that stored before workspaces had rows, long ago: its newest corpus stands for its last visit.
    legacy_id = storage.add_corpus(parse_pasted(distinct_paste("legacy")), name="legacy", source="typed in",
                                    workspace="legacy-workspace")
    with storage.engine.begin() as connection:
        connection.execute(workspaces.delete().where(workspaces.c.id == "legacy-workspace"))
        connection.execute(corpora.update().where(corpora.c.id.in_([legacy_id, local_id])),
                           {"created_at": datetime.now(timezone.utc) - timedelta(days=400)})
    set_last_seen(app, idle_id, datetime.now(timezone.utc) - timedelta(days=40))
    set_last_seen(app, active_id, datetime.now(timezone.utc) - timedelta(days=20))
    monkeypatch.setattr("webnb.create_app", lambda: app)
    before = {table.name: count_rows(app, table) for table in (corpora, documents, shares, jobs, workspaces)}
    assert before == {"corpora": 5, "documents": 20, "shares": 2, "jobs": 2, "workspaces": 2}

    out = io.StringIO()
    assert main(["cleanup", "--dry-run"], out=out) == 0
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("Would remove workspace legacy-w… (last seen ")
    assert lines[0].endswith(f": 1 corpus, 4 documents, {size_text(PASTE_BYTES)}, 0 share links, 0 jobs")
    assert lines[1].startswith(f"Would remove workspace {idle_id[:8]}… (last seen ")
    assert lines[1].endswith(f": 2 corpora, 8 documents, {size_text(2 * PASTE_BYTES)}, 1 share link, 1 job")
    assert lines[2].startswith("Would remove 2 workspaces idle for more than 30 days (3 corpora, ")
    assert {table.name: count_rows(app, table) for table in (corpora, documents, shares, jobs, workspaces)} == before

    out = io.StringIO()
    assert main(["cleanup", "--days", "50"], out=out) == 0  # the idle workspace is 40 days idle: kept
    lines = out.getvalue().splitlines()
    assert len(lines) == 2 and lines[0].startswith("Removed workspace legacy-w… (last seen ")
    assert lines[1] == (f"Removed 1 workspace idle for more than 50 days (1 corpus, {size_text(PASTE_BYTES)}); "
                        f"the server now holds {size_text(4 * PASTE_BYTES)} of corpora.")
    assert count_rows(app, corpora) == 4

    idle_contents = [storage.content_of(corpus_id) for corpus_id in idle_corpora]
    out = io.StringIO()
    assert main(["cleanup"], out=out) == 0
    assert out.getvalue().splitlines()[0].startswith(f"Removed workspace {idle_id[:8]}…")
    assert f"Removed 1 workspace idle for more than 30 days (2 corpora, {size_text(2 * PASTE_BYTES)})" in out.getvalue()
    assert stored(app) == ["active", "local"]
    assert count_rows(app, documents, documents.c.content.in_(idle_contents)) == 0
    assert count_rows(app, documents) == 8
    assert count_rows(app, shares) == 1 and count_rows(app, jobs) == 1
    assert stored_workspace_ids(storage) == {active_id}
    assert storage.stored_bytes() == 2 * PASTE_BYTES
    # The active student still has everything; the idle one's corpora are gone for them too.
    assert active.get(f"/corpora/{stored_id(app, 'active')}").status_code == 200
    assert idle.get(f"/corpora/{idle_corpora[1]}?format=json").status_code == 404
    out = io.StringIO()
    assert main(["cleanup"], out=out) == 0 and out.getvalue().startswith("Removed 0 workspaces")


def test_a_workspace_seen_again_after_listing_is_not_removed(hosted_app):
    app = hosted_app()
    storage = app.extensions["webnb"]["storage"]
    alice = student(app)
    paste_distinct(alice)
    workspace = workspace_of(alice)
    set_last_seen(app, workspace, datetime.now(timezone.utc) - timedelta(days=40))
    cutoff = datetime.now(timezone.utc) - timedelta(days=30)
    assert [w.workspace for w in storage.idle_workspaces(cutoff)] == [workspace]
    assert storage.touch_workspace(workspace)  # the student comes back while cleanup runs
    assert storage.remove_workspace(workspace, cutoff) is None
    assert stored(app) == ["mine"]


@pytest.mark.parametrize("days", ["0", "-3", "nan", "inf", "thirty", "1e-100000", "1_0", "9" * 10_000])
def test_cleanup_refuses_a_number_of_days_it_cannot_use(days, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["cleanup", "--days", days], out=io.StringIO())
    assert exit_info.value.code == 2
    assert "expected a number of days above 0" in capsys.readouterr().err


def test_the_memory_of_visits_is_bounded_and_forgets_the_longest_seen_first():
    from webnb.hosting.workspaces import LastSeen

    now = [0.0]
    seen = LastSeen(every=3600, clock=lambda: now[0], most=1000)
    assert all(seen.due(f"w{i}") for i in range(5000))  # a flood of fresh cookies
    assert len(seen._seen) <= 1000
    assert not seen.due("w4999")  # the latest are remembered
    assert seen.due("w0")  # the earliest were forgotten (and are due again)
    now[0] += 3600
    assert seen.due("w4999")
