"""A class's event stream, ``/classes/<code>/events`` (webnb/room): served by the app itself in local mode, by
``webnb events`` in hosted mode. It answers the class's lecturer and its members and 404s anyone else; it starts with
the class's state, then says each move of the lecturer (and, to the lecturer only, each new answer to tally), and the
class's end. ``webnb events`` reads the browser's signed session cookie and forwards what gunicorn's workers publish
through Redis."""
from __future__ import annotations

import contextlib
import http.client
import json
import socket
import threading
from datetime import datetime, timezone

import pytest
from bs4 import BeautifulSoup

from tests.conftest import browser_from
from webnb.room import lecture as lectures

SLIDE = "/corpora/match-reviews/inference?model=multinomial&alpha=1&text=brilliant+match&presenter=1"
# webnb's own link, as the lecturer's browser sends it (a navigation from another site must not move the class).
OWN_LINK = {"Sec-Fetch-Site": "same-origin"}
READ_TIMEOUT = 20.0  # seconds a read of a stream may block before the test fails (it returns as soon as data comes)


def start_lecture(app):
    """A class on the match reviews, its lecturer's browser and a student's browser that joined it."""
    started = lectures.start_class(app.extensions["webnb"]["storage"], "match-reviews",
                                   now=datetime.now(timezone.utc))
    lecturer, student = browser_from(app), browser_from(app)
    assert lecturer.get(f"/classes/{started.code}/lead/{started.secret}").status_code == 303
    assert student.get(f"/join/{started.code}").status_code == 303
    return started.code, lecturer, student


def a_student_and_strangers(app):
    """A lecture's code, a student's browser that joined it, the student's cookie (``name=value``), and what a
    stranger may try: (cookie, code asked) with no cookie, a forged one, and the genuine one for another lecture."""
    code, _, student = start_lecture(app)
    other_code, _, _ = start_lecture(app)
    name = app.config["SESSION_COOKIE_NAME"]
    genuine = student.get_cookie(name).value
    tries = [(None, code), (f"{name}={genuine[:-2]}xx", code), (f"{name}={genuine}", other_code)]
    return code, student, f"{name}={genuine}", tries


def parse(chunk: bytes) -> list[tuple[str, object]]:
    """(field, value) of each line of server-sent events: ("retry", ms), ("comment", text), (event, data)."""
    found, event = [], None
    for line in chunk.decode().splitlines():
        if line.startswith("retry: "):
            found.append(("retry", int(line[7:])))
        elif line.startswith(":"):
            found.append(("comment", line[1:].strip()))
        elif line.startswith("event: "):
            event = line[7:]
        elif line.startswith("data: "):
            found.append((event, json.loads(line[6:])))
    return found


class Stream:
    """A stream opened with the Flask test client, read one chunk (one write of the server) at a time."""

    def __init__(self, client, code: str):
        self.response = client.get(f"/classes/{code}/events")
        self.chunks = iter(self.response.response)

    def next(self) -> list[tuple[str, object]]:
        return parse(next(self.chunks))

    def close(self):
        self.response.close()


# --- the app's own stream (local mode) --------------------------------------------------------------------------------


def test_a_member_hears_the_present_state_then_each_move_and_the_end(app):
    code, lecturer, student = start_lecture(app)
    record = app.extensions["webnb"]["storage"].get_class(code)
    stream = Stream(student, code)
    try:
        assert stream.response.status_code == 200
        assert stream.response.mimetype == "text/event-stream"
        assert stream.response.headers["Cache-Control"] == "no-store"
        assert stream.response.headers["X-Accel-Buffering"] == "no"  # nginx must not hold the events back
        assert stream.next() == [("retry", 3000), ("move", {"version": record.state_version, "address": record.state,
                                                            "running": True})]
        # The lecturer opens a slide: the students hear the move (published by move_class).
        assert lecturer.get(SLIDE, headers=OWN_LINK).status_code == 200
        assert stream.next() == [("move", {"version": record.state_version + 1, "address": SLIDE, "running": True})]
        # Asking a question is a move too: to the question's page.
        asked = lecturer.post(f"/classes/{code}/questions", data={"kind": "predict", "address": SLIDE})
        assert asked.status_code == 303
        ((event, data),) = stream.next()
        assert event == "move" and data["address"] == asked.location and data["version"] == record.state_version + 2
        # The lecturer ends the class: the last move says so, and the pages stop following.
        assert lecturer.post(f"/classes/{code}/end").status_code == 303
        ((event, data),) = stream.next()
        assert event == "move" and data["running"] is False
    finally:
        stream.close()
    assert app.extensions["webnb"]["broker"].listening() == 0  # closing the stream ends its subscription


def test_the_lecturer_hears_each_answer_and_the_students_do_not(app):
    code, lecturer, student = start_lecture(app)
    asked = lecturer.post(f"/classes/{code}/questions", data={"kind": "predict", "address": SLIDE})
    number = int(asked.location.rsplit("/", 1)[1])
    projector, follower = Stream(lecturer, code), Stream(student, code)
    try:
        assert projector.next()[1][0] == "move" and follower.next()[1][0] == "move"
        answered = student.post(f"/classes/{code}/questions/{number}/answers", data={"answer": "positive"})
        assert answered.status_code == 303
        assert projector.next() == [("tally", {"number": number})]
        # A student's stream leaves the tally out: the next thing it says is the next move.
        lecturer.get(SLIDE.replace("alpha=1", "alpha=2"), headers=OWN_LINK)
        ((event, _),) = follower.next()
        assert event == "move"
        assert projector.next()[0][0] == "move"
    finally:
        projector.close()
        follower.close()


def test_an_idle_stream_sends_a_heartbeat(app):
    app.config["WEBNB_EVENTS_HEARTBEAT_SECONDS"] = 0.01
    code, _, student = start_lecture(app)
    stream = Stream(student, code)
    try:
        stream.next()
        assert stream.next() == [("comment", "heartbeat")]
    finally:
        stream.close()


def test_only_the_lecturer_and_members_hear_a_class(app):
    code, lecturer, student = start_lecture(app)
    other_code, _, _ = start_lecture(app)
    stranger = browser_from(app)
    for client, wanted in ((lecturer, 200), (student, 200), (stranger, 404)):
        response = client.get(f"/classes/{code}/events")
        assert response.status_code == wanted
        response.close()
    # The same 404 as follow.json: for a stranger, a member of another class, an unknown code and a non-code.
    follow = stranger.get(f"/classes/{code}/follow.json", headers={"Accept": "application/json"})
    for client, asked in ((stranger, code), (student, other_code), (student, "AAAAAA"), (student, "x" * 80)):
        response = client.get(f"/classes/{asked}/events", headers={"Accept": "application/json"})
        assert (response.status_code, response.get_json()) == (404, follow.get_json())
    # A browser whose session names the class but who is not among its members (a forged or stale session) neither.
    with stranger.session_transaction() as session:
        session["class"], session["class_student"] = code, "not-a-member"
    assert stranger.get(f"/classes/{code}/events").status_code == 404


def test_a_following_students_bar_hears_the_stream_and_the_extension_is_loaded_only_in_a_class(app):
    code, _, student = start_lecture(app)
    page = BeautifulSoup(student.get("/corpora/match-reviews").get_data(as_text=True), "html.parser")
    bar = page.select_one(".class-bar")
    assert bar["hx-ext"] == "sse" and bar["sse-connect"] == f"/classes/{code}/events"
    assert bar["data-follow-url"] == f"/classes/{code}/follow.json"  # the fallback while the stream is not open
    scripts = [script["src"] for script in page.find_all("script", src=True)]
    assert "/static/vendor/sse-extension.min.js" in scripts
    assert scripts.index("/static/vendor/htmx.min.js") < scripts.index("/static/vendor/sse-extension.min.js")
    student.post(f"/classes/{code}/follow", data={"follow": "0", "back": "/corpora/match-reviews"})
    exploring = BeautifulSoup(student.get("/corpora/match-reviews").get_data(as_text=True), "html.parser")
    # Exploring: the page still hears the stream, for the end of the class alone (issue 36, part 3).
    bar = exploring.select_one(".class-bar")
    assert bar["sse-connect"] == f"/classes/{code}/events" and not bar.has_attr("data-following")
    outside = BeautifulSoup(browser_from(app).get("/").get_data(as_text=True), "html.parser")
    assert "/static/vendor/sse-extension.min.js" not in [s["src"] for s in outside.find_all("script", src=True)]


def test_the_projectors_tally_redraws_on_a_tally_event_with_a_slow_poll_behind(app):
    code, lecturer, _ = start_lecture(app)
    asked = lecturer.post(f"/classes/{code}/questions", data={"kind": "predict", "address": SLIDE})
    page = BeautifulSoup(lecturer.get(asked.location).get_data(as_text=True), "html.parser")
    section = page.select_one("section.class-question")
    assert section["hx-ext"] == "sse" and section["sse-connect"] == f"/classes/{code}/events"
    assert page.select_one("#tally")["hx-trigger"] == "sse:tally, every 5s"


def test_the_extension_is_pinned_as_htmx_is():
    from tests.test_vendor import vendor_assets

    pins = {pin.destination: pin for pin in vendor_assets.PINS}
    for destination in ("static/vendor/sse-extension.min.js", "static/vendor/sse-extension.LICENSE"):
        assert pins[destination].package == "htmx-ext-sse" and pins[destination].version == "2.2.4"
    assert vendor_assets.check() == []


# --- hosted mode: the app leaves the streams to webnb events ----------------------------------------------------------


def test_in_hosted_mode_the_app_sends_a_stream_request_away_and_the_page_polls(make_hosted_app, caplog):
    app = make_hosted_app()
    code, lecturer, student = start_lecture(app)
    for _ in range(2):
        response = student.get(f"/classes/{code}/events")
        assert response.status_code == 503 and response.headers["Retry-After"] == "30"
    assert sum("route /classes/<code>/events to `webnb events`" in r.getMessage() for r in caplog.records) == 1
    assert browser_from(app).get(f"/classes/{code}/events").status_code == 404
    assert student.get(f"/classes/{code}/follow.json").status_code == 200


# --- webnb events: the stream server of hosted mode ------------------------------------------------------------------


@contextlib.contextmanager
def serving(events_app):
    """``events_app`` (a RoomEventsServer) served by uvicorn from a thread on a free port: yields the port."""
    import uvicorn

    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    listening.listen()  # connections wait in the backlog until uvicorn takes them: no wait for it to start
    server = uvicorn.Server(uvicorn.Config(events_app, log_level="warning", lifespan="on",
                                           timeout_graceful_shutdown=1))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listening]}, daemon=True)
    thread.start()
    try:
        yield listening.getsockname()[1]
    finally:
        server.should_exit = True
        thread.join()
        listening.close()


@pytest.fixture()
def events_server(make_hosted_app, redis_test_url):
    """A hosted app on Redis (as gunicorn's workers run it) and ``webnb events`` for it: (app, port)."""
    from webnb.room.events_server import RoomEventsServer

    app = make_hosted_app(WEBNB_RATE_LIMIT_STORAGE=redis_test_url)
    with serving(RoomEventsServer(app)) as port:
        yield app, port


class RemoteStream:
    """A stream of ``webnb events`` read over HTTP with the browser's cookie, one event (up to a blank line) at a
    time."""

    def __init__(self, port: int, code: str, cookie: str | None):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=READ_TIMEOUT)
        headers = {"Accept": "text/event-stream"} | ({"Cookie": cookie} if cookie else {})
        self.connection.request("GET", f"/classes/{code}/events", headers=headers)
        self.response = self.connection.getresponse()

    def next(self) -> list[tuple[str, object]]:
        lines = []
        while (line := self.response.readline()) not in (b"\n", b""):
            lines.append(line)
        return parse(b"".join(lines))

    def close(self):
        self.connection.close()


def cookie_of(client, app) -> str:
    name = app.config["SESSION_COOKIE_NAME"]
    return f"{name}={client.get_cookie(name).value}"


def test_webnb_events_reads_the_session_cookie_and_forwards_a_move_published_through_redis(events_server):
    app, port = events_server
    code, lecturer, student = start_lecture(app)
    record = app.extensions["webnb"]["storage"].get_class(code)

    stream = RemoteStream(port, code, cookie_of(student, app))
    try:
        assert stream.response.status == 200
        assert stream.response.getheader("Content-Type").startswith("text/event-stream")
        assert stream.next() == [("retry", 3000)]
        assert stream.next() == [("move", {"version": record.state_version, "address": record.state,
                                           "running": True})]
        # The lecturer's page, served by the app (a gunicorn worker): move_class publishes through Redis.
        assert lecturer.get(SLIDE, headers=OWN_LINK).status_code == 200
        assert stream.next() == [("move", {"version": record.state_version + 1, "address": SLIDE, "running": True})]
    finally:
        stream.close()

    projector = RemoteStream(port, code, cookie_of(lecturer, app))
    try:
        assert projector.response.status == 200
    finally:
        projector.close()


def test_webnb_events_refuses_a_missing_forged_or_foreign_cookie(events_server, make_hosted_app):
    app, port = events_server
    code, student, own, tries = a_student_and_strangers(app)
    name = app.config["SESSION_COOKIE_NAME"]
    # Signed with another secret: the same data, another server's cookie.
    foreign_app = make_hosted_app(SECRET_KEY="another secret of at least thirty-two bytes")
    with foreign_app.test_request_context():
        session_data = app.session_interface.get_signing_serializer(app).loads(student.get_cookie(name).value)
        foreign = foreign_app.session_interface.get_signing_serializer(foreign_app).dumps(session_data)
    for cookie, asked in (*tries, (f"{name}={foreign}", code), (own, "x" * 80)):
        stream = RemoteStream(port, asked, cookie)
        try:
            assert stream.response.status == 404, (cookie, asked)
        finally:
            stream.close()


def test_webnb_events_needs_redis(make_hosted_app):
    from webnb.room.events_server import RoomEventsServer

    with pytest.raises(RuntimeError, match="through Redis"):
        RoomEventsServer(make_hosted_app())  # the rate limits counted in memory: nothing to hear


def test_webnb_events_is_a_subcommand(webnb, app):
    code, _, error = webnb(app, "events", "--port", "0")
    assert code == 2 and "redis://" in error


# --- one member cannot hold many streams ------------------------------------------------------------------------------


def test_a_member_holds_a_few_streams_at_most_in_the_app(app):
    from webnb.room.events import STREAMS_PER_STUDENT

    code, lecturer, student = start_lecture(app)
    streams = [Stream(student, code) for _ in range(STREAMS_PER_STUDENT)]
    try:
        assert [s.response.status_code for s in streams] == [200] * STREAMS_PER_STUDENT
        refused = student.get(f"/classes/{code}/events", headers={"Accept": "application/json"})
        assert refused.status_code == 429 and refused.headers["Retry-After"] == "30"
        # Another member and the lecturer are not held up by this one.
        neighbour = browser_from(app)
        assert neighbour.get(f"/join/{code}").status_code == 303
        others = [Stream(neighbour, code), Stream(lecturer, code)]
        assert [s.response.status_code for s in others] == [200, 200]
        for stream in others:
            stream.close()
        # A stream closed gives its place back.
        streams.pop().close()
        again = Stream(student, code)
        assert again.response.status_code == 200
        streams.append(again)
    finally:
        for stream in streams:
            stream.close()


def test_a_member_holds_a_few_streams_at_most_in_webnb_events(events_server):
    from webnb.room.events import STREAMS_PER_STUDENT

    app, port = events_server
    code, lecturer, student = start_lecture(app)
    cookie = cookie_of(student, app)
    streams = [RemoteStream(port, code, cookie) for _ in range(STREAMS_PER_STUDENT)]
    try:
        assert [s.response.status for s in streams] == [200] * STREAMS_PER_STUDENT
        for stream in streams:
            stream.next()  # each is counted once its answer has started
        refused = RemoteStream(port, code, cookie)
        assert refused.response.status == 429 and refused.response.getheader("Retry-After") == "30"
        refused.close()
        projector = RemoteStream(port, code, cookie_of(lecturer, app))
        assert projector.response.status == 200
        projector.close()
    finally:
        for stream in streams:
            stream.close()


# --- follow.json from webnb events ------------------------------------------------------------------------------------


def poll(port: int, code: str, cookie: str | None) -> tuple[int, dict, dict]:
    """GET follow.json from ``webnb events``: (status, headers, JSON body)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=READ_TIMEOUT)
    try:
        connection.request("GET", f"/classes/{code}/follow.json", headers={"Cookie": cookie} if cookie else {})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), json.loads(response.read())
    finally:
        connection.close()


def test_webnb_events_answers_follow_json_as_the_app_does(events_server):
    app, port = events_server
    code, lecturer, student = start_lecture(app)
    record = app.extensions["webnb"]["storage"].get_class(code)
    own = student.get(f"/classes/{code}/follow.json").get_json()  # the app's own answer

    status, headers, body = poll(port, code, cookie_of(student, app))
    assert status == 200 and headers["cache-control"] == "no-store"
    assert body == own == {"version": record.state_version, "address": record.state, "running": True}
    assert poll(port, code, cookie_of(lecturer, app))[2] == own

    # A move published through Redis is the next poll's answer, without a read of the class: the process heard it
    # (the stream open beside shows when; the state read by the poll above is still fresh).
    stream = RemoteStream(port, code, cookie_of(student, app))
    try:
        stream.next(), stream.next()
        assert lecturer.get(SLIDE, headers=OWN_LINK).status_code == 200
        moved = {"version": record.state_version + 1, "address": SLIDE, "running": True}
        assert stream.next() == [("move", moved)]
    finally:
        stream.close()
    own = student.get(f"/classes/{code}/follow.json").get_json()
    assert poll(port, code, cookie_of(student, app))[2] == moved == own

    # The class ends: the poll says so.
    assert lecturer.post(f"/classes/{code}/end", data={}).status_code in (200, 303)
    assert poll(port, code, cookie_of(student, app))[2]["running"] is False


def test_webnb_events_tells_a_stranger_nothing_from_follow_json(events_server, make_hosted_app):
    app, port = events_server
    _, _, own, tries = a_student_and_strangers(app)
    answers = [poll(port, asked, cookie) for cookie, asked in (*tries, (own, "ZZZZZZ"), (None, "ZZZZZZ"))]
    assert {status for status, _, _ in answers} == {404}
    assert len({json.dumps(body) for _, _, body in answers}) == 1  # a running code and an unknown one alike


def test_webnb_events_brakes_a_member_who_polls_flat_out_and_no_one_else(events_server):
    from webnb.room.events import POLL_RETRY_SECONDS

    app, port = events_server
    code, lecturer, student = start_lecture(app)
    neighbour = browser_from(app)
    assert neighbour.get(f"/join/{code}").status_code == 303
    flooding = cookie_of(student, app)
    # A fixed window: the budget of a second may straddle two windows, so at most twice 3 polls pass.
    statuses = [poll(port, code, flooding)[0] for _ in range(12)]
    assert statuses.count(200) <= 6 and statuses[-1] == 429
    status, headers, body = poll(port, code, flooding)
    assert status == 429 and headers["retry-after"] == str(POLL_RETRY_SECONDS) and "few seconds" in body["error"]
    assert poll(port, code, cookie_of(neighbour, app))[0] == 200
    assert poll(port, code, cookie_of(lecturer, app))[0] == 200


def test_without_redis_webnb_events_refuses_streams_at_once_and_answers_polls_from_the_database(events_server):
    from webnb.room.events_server import RoomEventsServer

    app, _ = events_server
    code, _, student = start_lecture(app)
    record = app.extensions["webnb"]["storage"].get_class(code)
    unheard = RoomEventsServer(app)
    with socket.socket() as closed:  # a port that nothing listens on: the broker does not answer
        closed.bind(("127.0.0.1", 0))
        unheard.url = f"redis://127.0.0.1:{closed.getsockname()[1]}"
    with serving(unheard) as port:
        streams = [RemoteStream(port, code, cookie_of(student, app)) for _ in range(2)]
        try:
            assert [(s.response.status, s.response.getheader("Retry-After")) for s in streams] == [(503, "30")] * 2
        finally:
            for stream in streams:
                stream.close()
        assert unheard._quiet_until > 0  # Redis is left alone a few seconds: requests do not queue behind tries
        assert poll(port, code, cookie_of(student, app))[:3:2] == (
            200, {"version": record.state_version, "address": record.state, "running": True})
