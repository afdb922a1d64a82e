"""A lecture hall behind one NAT address: 600 browsers storing a few MB each in the hour are all admitted at the
defaults; tiny pastes never spend the address's new workspaces; one workspace may store only its share of the
address's hourly bytes; a per-minute limit makes the hour's budget take most of the hour to spend; the operator
raises the limits of the hall's network (WEBNB_SUBNET_LIMITS); ``webnb cleanup --created-by`` removes what one
address stored."""
from __future__ import annotations

import dataclasses
import io
import json

import pytest
import sqlalchemy as sa
from bs4 import BeautifulSoup
from conftest import browser_from, paste, stored_workspace_ids

from webnb.engine import CorpusError
from webnb.engine.io.uploads import parse_pasted
from webnb.hosting import admission
from webnb.hosting.admission import address_key, size_text
from webnb.hosting.jobs import Job
from webnb.hosting.workspaces import quota
from webnb.store.database import corpora, documents, jobs, shares, stored_size, workspaces

MB = 1_000_000
# An hour's start: the windows of the counts are aligned to the clock.
HOUR_START = 1_800_000_000 // 3600 * 3600
HALL = "203.0.113.7"
NEW_WORKSPACES = "new workspaces have already stored corpora from your network address this"
TINY = "pos\tgreat match and a sharp keeper\nneg\tdull match\npos\tbrilliant goal\nneg\tslow dull game"


class Clock:
    """A clock that moves only when the test moves it (seconds, as time.time)."""

    def __init__(self, now: float = HOUR_START):
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture()
def hosted_app(keyed_hosted_app):
    return keyed_hosted_app


def admission_for(app, address: str = HALL, clock: Clock | None = None) -> admission.Admission:
    """The admission a request from ``address`` gets, with the test's clock."""
    with app.test_request_context(environ_base={"REMOTE_ADDR": address}):
        found = quota().admission
    return found if clock is None else dataclasses.replace(found, clock=clock)


def big_paste(salt: str, lines: int = 1500) -> str:
    """A pasted corpus of its own (per ``salt``) of about 750 KB as stored_size counts it: past the 100 KB a
    workspace holds before it counts as new."""
    return "\n".join(f"{'pos' if i % 2 else 'neg'}\t{salt} review {i} " + "word " * 15 for i in range(lines))


BIG_BYTES = stored_size(parse_pasted(big_paste("any")))


def student(app, address: str = HALL):
    return browser_from(app, address)


def form_error(response) -> str:
    alert = BeautifulSoup(response.get_data(as_text=True), "html.parser").select_one("[role=alert]")
    assert alert is not None, response.get_data(as_text=True)[:500]
    return alert.get_text(" ", strip=True)


def storage_of(app):
    return app.extensions["webnb"]["storage"]


def count_rows(app, table, *where) -> int:
    with storage_of(app).engine.connect() as connection:
        return connection.execute(sa.select(sa.func.count()).select_from(table).where(*where)).scalar_one()


def workspace_of(client) -> str:
    with client.session_transaction() as session:
        return session["workspace"]


# -- the hall at the defaults -------------------------------------------------------------------------------------


@pytest.mark.slow  # 6-10 s on SQLite
def test_a_hall_of_300_students_with_two_browsers_storing_3_mb_each_is_admitted_at_the_defaults(hosted_app):
    """600 workspaces from one address, each storing 3 MB (as stored_size counts) within one clock hour, ten a
    minute: every one admitted (the defaults before refused past 500 workspaces and 1 GB)."""
    app = hosted_app()
    storage, clock = storage_of(app), Clock()
    hall = admission_for(app, clock=clock)
    for browser in range(600):
        hall.admit(storage, f"browser-{browser}", None, size=3 * MB).stored()
        clock.now += 6  # ten a minute, the whole hour
    assert clock.now - HOUR_START == 3600
    created_by = address_key(HALL, app.config["SECRET_KEY"])
    assert count_rows(app, workspaces, workspaces.c.created_by == created_by) == 600


@pytest.mark.slow  # 6-10 s on SQLite
def test_tiny_pastes_from_1000_fresh_workspaces_do_not_spend_the_new_workspace_budget(hosted_app):
    app = hosted_app(WEBNB_NEW_WORKSPACES_PER_HOUR=3)
    storage = storage_of(app)
    hall = admission_for(app, clock=Clock())
    tiny = parse_pasted(TINY)
    for browser in range(1000):
        hall.admit(storage, f"tiny-{browser}", tiny).stored()
    for browser in range(3):  # the budget is whole: three workspaces that store more than 100 KB
        hall.admit(storage, f"big-{browser}", None, size=3 * MB).stored()
    with pytest.raises(CorpusError, match=f"^3 {NEW_WORKSPACES} hour"):
        hall.admit(storage, "big-3", None, size=3 * MB)
    assert count_rows(app, workspaces) == 1003  # every one that stored has its row, for cleanup


@pytest.mark.slow  # about 1 s
def test_a_workspace_counts_as_new_once_it_holds_more_than_a_trivial_size(hosted_app):
    app = hosted_app(WEBNB_NEW_WORKSPACES_PER_HOUR=1)
    alice, bob = student(app), student(app)
    for client in (alice, bob, *(student(app) for _ in range(3))):
        assert paste(client, TINY).status_code == 303  # tiny pastes: no new workspace counted
    assert paste(alice, big_paste("alice")).status_code == 303  # alice's workspace is the hour's one new workspace
    refused = paste(bob, big_paste("bob"))
    assert refused.status_code == 400
    message = form_error(refused)
    assert message.startswith(f"1 {NEW_WORKSPACES} hour, the most it may start in an hour (a workspace counts once "
                              "it holds more than 100 KB). Nothing was stored. Try again in ")
    assert paste(alice, big_paste("alice again")).status_code == 303  # holds more than 100 KB already: not new


# -- one workspace's share ----------------------------------------------------------------------------------------


@pytest.mark.slow  # about 1 s
def test_one_workspace_past_its_share_is_refused_while_another_from_the_same_address_stores(hosted_app):
    app = hosted_app(WEBNB_STORED_BYTES_PER_HOUR=20 * MB)  # a workspace's share: 5%, 1 MB
    alice, bob = student(app), student(app)
    assert paste(alice, big_paste("one")).status_code == 303
    refused = paste(alice, big_paste("two"))
    assert refused.status_code == 400
    message = form_error(refused)
    assert message.startswith(
        "One workspace may store 1 MB of corpora an hour (5% of what your network address may store, so that no one "
        "browser uses up what everyone on your network shares); this workspace has stored "
        f"{size_text(BIG_BYTES)} this hour and this corpus takes {size_text(BIG_BYTES)}. Nothing was stored. "
        "Try again in ")
    assert message.endswith("or store a smaller corpus. (Other browsers on your network can still store theirs.)")
    assert paste(bob, big_paste("two")).status_code == 303
    assert sorted(s.workspace for s in storage_of(app).list_corpora()) == sorted(
        [workspace_of(alice), workspace_of(bob)])


def test_a_corpus_bigger_than_the_share_is_stored_alone_in_its_hour(hosted_app):
    app = hosted_app(WEBNB_STORED_BYTES_PER_HOUR=1000 * MB)  # share: 50 MB
    storage, clock = storage_of(app), Clock()
    hall = admission_for(app, clock=clock)
    hall.admit(storage, "alice", None, size=60 * MB).stored()  # a whole quota's worth, once
    with pytest.raises(CorpusError, match="^One workspace may store 50 MB of corpora an hour"):
        hall.admit(storage, "alice", None, size=MB)
    clock.now += 3600
    hall.admit(storage, "alice", None, size=MB).stored()


# -- per minute ---------------------------------------------------------------------------------------------------


def test_the_per_minute_limit_refuses_a_burst_of_bytes(hosted_app):
    app = hosted_app(WEBNB_STORED_BYTES_PER_MINUTE=10 * MB)
    storage, clock = storage_of(app), Clock(HOUR_START + 600)
    hall = admission_for(app, clock=clock)
    for browser in range(2):
        hall.admit(storage, f"burst-{browser}", None, size=4 * MB).stored()
    clock.now += 30
    with pytest.raises(CorpusError) as refused:
        hall.admit(storage, "burst-2", None, size=4 * MB)
    assert str(refused.value) == (
        "Your network address may store 10 MB of corpora a minute; it has stored 8 MB this minute and this corpus "
        "takes 4 MB. Nothing was stored. Try again in a minute, or store a smaller corpus.")
    clock.now += 30  # the next minute
    hall.admit(storage, "burst-2", None, size=4 * MB).stored()
    clock.now += 60
    hall.admit(storage, "burst-3", None, size=15 * MB).stored()  # bigger than a minute's bytes: alone in its minute
    with pytest.raises(CorpusError, match="a minute; it has stored 15 MB this minute"):
        hall.admit(storage, "burst-4", None, size=1000)


def test_the_per_minute_limit_refuses_a_burst_of_new_workspaces(hosted_app):
    app = hosted_app(WEBNB_NEW_WORKSPACES_PER_MINUTE=3)
    storage, clock = storage_of(app), Clock(HOUR_START + 600)
    hall = admission_for(app, clock=clock)
    for browser in range(3):
        hall.admit(storage, f"fresh-{browser}", None, size=200_000).stored()
    with pytest.raises(CorpusError) as refused:
        hall.admit(storage, "fresh-3", None, size=200_000)
    assert str(refused.value).startswith(f"3 {NEW_WORKSPACES} minute, the most it may start in a minute (a workspace "
                                         "counts once it holds more than 100 KB). Nothing was stored. Try again in a "
                                         "minute.")
    hall.admit(storage, "fresh-4", parse_pasted(TINY)).stored()  # a tiny paste is no new workspace
    clock.now += 60
    hall.admit(storage, "fresh-3", None, size=200_000).stored()


@pytest.mark.slow  # about 1 s
def test_spending_the_hour_s_bytes_alone_takes_most_of_the_hour_at_the_defaults(hosted_app):
    """A script that stores as fast as it is let through, each corpus in a fresh workspace, as the red team did:
    the hour's bytes took it 164 s; now it needs at least half an hour, and is refused in between."""
    app = hosted_app()
    storage, clock = storage_of(app), Clock()
    hall = admission_for(app, clock=clock)
    stored, refused, browser = 0, 0, 0
    while stored + 20 * MB <= admission.STORED_BYTES_PER_HOUR:
        try:
            hall.admit(storage, f"script-{browser}", None, size=20 * MB).stored()
        except CorpusError:
            refused += 1
            clock.now += 10
            continue
        stored += 20 * MB
        browser += 1
    assert clock.now - HOUR_START >= 30 * 60 and refused > 0


# -- limits per network --------------------------------------------------------------------------------------------

SUBNETS = {"10.20.0.0/16": 4, "192.0.2.7/32": {"WEBNB_STORED_BYTES_PER_HOUR": 0}}


@pytest.mark.parametrize("given", ["config", "environment"])
def test_a_subnet_setting_raises_the_limits_inside_it_and_not_outside(hosted_app, monkeypatch, given):
    if given == "environment":
        monkeypatch.setenv("WEBNB_SUBNET_LIMITS", json.dumps(SUBNETS))
        app = hosted_app()
    else:
        app = hosted_app(WEBNB_SUBNET_LIMITS=SUBNETS)
    defaults = admission_for(app, "10.21.0.1")
    assert (defaults.new_workspaces_per_hour, defaults.new_workspaces_per_minute, defaults.stored_bytes_per_hour,
            defaults.stored_bytes_per_minute) == (800, 30, 2_500_000_000, 80_000_000)
    for inside in ("10.20.0.1", "10.20.255.254", "::ffff:10.20.3.4"):
        hall = admission_for(app, inside)
        assert (hall.new_workspaces_per_hour, hall.new_workspaces_per_minute, hall.stored_bytes_per_hour,
                hall.stored_bytes_per_minute) == (3200, 120, 10_000_000_000, 320_000_000), inside
        assert hall.workspace_bytes_per_hour == 500_000_000
    explicit = admission_for(app, "192.0.2.7")
    assert (explicit.stored_bytes_per_hour, explicit.new_workspaces_per_hour) == (0, 800)
    assert admission_for(app, "192.0.2.8").stored_bytes_per_hour == 2_500_000_000


@pytest.mark.slow  # 5-15 s on SQLite
def test_with_its_network_raised_a_hall_storing_all_at_once_is_admitted(hosted_app):
    """The hall's 600 browsers storing within ten minutes, one a second: all admitted with its network's limits four
    times the defaults; at the defaults, refused past 26 in each minute (80 MB of 3 MB corpora)."""
    app = hosted_app(WEBNB_SUBNET_LIMITS={"10.20.0.0/16": 4})
    storage = storage_of(app)
    for address, browsers in (("10.20.0.9", 600), ("10.30.0.9", 120)):
        clock = Clock()
        hall = admission_for(app, address, clock)
        refused = 0
        for browser in range(browsers):
            try:
                hall.admit(storage, f"{address}-{browser}", None, size=3 * MB).stored()
            except CorpusError as error:
                assert "a minute" in str(error)
                refused += 1
            clock.now += 1  # all within ten minutes
        if address.startswith("10.20."):
            assert refused == 0
        else:  # 30 new workspaces and 80 MB a minute: 26 of each minute's 60
            assert refused == 120 - 2 * 26


@pytest.mark.parametrize(("value", "message"), [
    ("10.20.0.0/16=4", "WEBNB_SUBNET_LIMITS is not valid JSON"),
    ('["10.20.0.0/16"]', "WEBNB_SUBNET_LIMITS must map networks to their limits, like"),
    ('{"10.20.0.1/16": 4}', r"'10.20.0.1/16' is not a network \(10.20.0.1/16 has host bits set\)"),
    ('{"the hall": 4}', "'the hall' is not a network"),
    ('{"10.20.0.0/16": 0}', "the multiplier of 10.20.0.0/16 must be a number above 0, such as 4; it is 0"),
    ('{"10.20.0.0/16": true}', "the limits of 10.20.0.0/16 must be a multiplier"),
    ('{"10.20.0.0/16": "x4"}', "the limits of 10.20.0.0/16 must be a multiplier"),
    ('{"10.20.0.0/16": {"WEBNB_QUOTA_CORPORA": 50}}', "10.20.0.0/16 names 'WEBNB_QUOTA_CORPORA'; its explicit"),
    ('{"10.20.0.0/16": {"WEBNB_STORED_BYTES_PER_HOUR": -1}}', "WEBNB_STORED_BYTES_PER_HOUR of 10.20.0.0/16 must be"),
    ('{"10.20.0.0/16": 2, "10.20.0.0/16": 3}', "10.20.0.0/16 given twice"),
])
def test_a_malformed_subnet_setting_stops_the_start_with_a_message(make_hosted_app, monkeypatch, value, message):
    monkeypatch.setenv("WEBNB_SUBNET_LIMITS", value)
    with pytest.raises(RuntimeError, match=message):
        make_hosted_app()


@pytest.mark.parametrize("share", [-0.1, 1.5])
def test_a_share_that_is_no_fraction_stops_the_start(make_hosted_app, share):
    with pytest.raises(RuntimeError, match="WEBNB_WORKSPACE_SHARE is .*between 0 and 1"):
        make_hosted_app(WEBNB_WORKSPACE_SHARE=share)


# -- removing what one address stored ------------------------------------------------------------------------------

HOSTILE = "198.51.100.66"


def test_cleanup_created_by_removes_exactly_that_address_s_workspaces_and_corpora(hosted_app, webnb):
    app = hosted_app()
    storage = storage_of(app)
    hostile = [student(app, HOSTILE) for _ in range(3)]
    neighbours = [student(app, HALL) for _ in range(2)]
    for i, client in enumerate(hostile):
        assert paste(client, TINY.replace("game", f"flood{i}"), name=f"flood {i}").status_code == 303
    assert paste(neighbours[0], TINY.replace("game", "flood0"), name="same as a flood").status_code == 303
    assert paste(neighbours[1], TINY.replace("game", "own"), name="own").status_code == 303
    hostile_ids = [workspace_of(client) for client in hostile]
    flood = next(s for s in storage.list_corpora() if s.name == "flood 1")
    hostile[1].post(f"/corpora/{flood.id}/share")
    storage.save_job(Job(id="hostile-job", title="Reading", workspace=hostile_ids[2], state="done"))
    flood_contents = {s.content for s in storage.list_corpora() if s.name.startswith("flood")}
    before = {table.name: count_rows(app, table) for table in (corpora, documents, shares, jobs, workspaces)}
    assert before == {"corpora": 5, "documents": 16, "shares": 1, "jobs": 1, "workspaces": 5}

    code, out, err = webnb(app, "cleanup", "--created-by", HOSTILE, "--dry-run")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert [line.split("…")[0] for line in lines[:3]] == [f"Would remove workspace {w[:8]}" for w in hostile_ids]
    flood_bytes = stored_size(parse_pasted(TINY.replace("game", "flood1")))
    assert lines[1].endswith(f": 1 corpus, 4 documents, {size_text(flood_bytes)}, 1 share link, 0 jobs")
    assert lines[3].startswith(f"Would remove 3 workspaces first stored in from {HOSTILE} (3 corpora, ")
    assert {table.name: count_rows(app, table) for table in (corpora, documents, shares, jobs, workspaces)} == before

    code, out, err = webnb(app, "cleanup", "--created-by", HOSTILE)
    assert (code, err) == (0, "")
    assert out.splitlines()[3].startswith(f"Removed 3 workspaces first stored in from {HOSTILE} (3 corpora, ")
    assert sorted(s.name for s in storage.list_corpora()) == ["own", "same as a flood"]
    assert stored_workspace_ids(storage) == {workspace_of(client) for client in neighbours}
    assert (count_rows(app, shares), count_rows(app, jobs)) == (0, 0)
    # The records a neighbour stores too stay; the others are gone.
    assert count_rows(app, documents) == 8
    assert count_rows(app, documents, documents.c.content.in_(flood_contents)) == 4
    for client in neighbours:
        assert client.get("/corpora").status_code == 200
    code, out, _ = webnb(app, "cleanup", "--created-by", HOSTILE)
    assert code == 0 and out.startswith(f"Removed 0 workspaces first stored in from {HOSTILE}")


@pytest.mark.parametrize("argv", [["--created-by", "the hall"], ["--created-by", "10.0.0.0/8"],
                                  ["--created-by", HOSTILE, "--days", "3"]])
def test_cleanup_refuses_what_is_no_client_address(argv, capsys):
    from webnb.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main(["cleanup", *argv], out=io.StringIO())
    assert exit_info.value.code == 2
    error = capsys.readouterr().err
    assert "expected a client address such as 203.0.113.7" in error or "not allowed with argument" in error
