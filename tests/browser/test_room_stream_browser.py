"""A class in the room in two real browsers, followed by the class's event stream (webnb/room): the lecturer moves
three slides and asks a question, and the student's page follows each move as its stream says it, without asking
follow.json once; with the stream blocked, the page falls back to polling and still follows, and goes back to the
stream when it can reconnect; "Explore on my own" and "Follow the lecturer" work as before. The projector's
tally is redrawn by the stream's tally event. And with Redis as the broker, the move reaches the browser through
Redis.

No fixed waits: each step waits for what the page must show or for the request it must make."""
from __future__ import annotations

import re
import threading

import pytest
from conftest import serving
from playwright.sync_api import expect

from webnb import create_app

from .conftest import start_class

pytestmark = pytest.mark.browser

FOLLOWING = 15_000  # ms: at most this long for a student's page to catch up (the stream says a move at once)
SLIDE = "/corpora/match-reviews/inference?text=brilliant+match&model=multinomial&alpha=1&presenter=1"
FOLLOWED = "/corpora/match-reviews/inference?model=multinomial&alpha=1&text=brilliant+match&presenter=1"
STREAM = "**/classes/*/events"
STREAM_OPEN = ".class-bar[data-stream=open]"


def lecturers_page(lecturer, server_url: str) -> str:
    return server_url + lecturer.url.removeprefix(server_url)


class Requests:
    """The follow.json polls and the event streams a page asked for."""

    def __init__(self, page):
        self.polls: list[str] = []
        self.streams: list[str] = []
        page.on("request", self._seen)

    def _seen(self, request):
        if request.url.endswith("/follow.json"):
            self.polls.append(request.url)
        elif request.url.endswith("/events"):
            self.streams.append(request.url)


def move_on(lecturer) -> None:
    with lecturer.expect_navigation():
        lecturer.click(".deck-bar [data-step=next]")


def not_the_blocked_streams(errors: list[str]) -> list[str]:
    """The console errors other than a blocked stream's own: Chromium says each failed try ("Failed to load
    resource: net::ERR_FAILED", page.route's abort), and htmx logs the extension's error event ("[object Event]")."""
    return [e for e in errors if not e.endswith((": [object Event]", "net::ERR_FAILED"))]


def test_a_student_follows_by_the_stream_falls_back_to_polling_and_comes_back(browsing, new_browsing, server_url,
                                                                             shot):
    lecturer = browsing.new_page()
    code = start_class(lecturer, server_url)
    lecturer.goto(server_url + SLIDE)

    student_browsing = new_browsing()
    student = student_browsing.new_page()
    asked = Requests(student)
    student.goto(f"{server_url}/join/{code}")
    expect(student).to_have_url(server_url + FOLLOWED)
    expect(student.locator(STREAM_OPEN)).to_have_count(1)

    # Three moves and a question, each heard on the stream: not one poll.
    for _ in range(3):
        move_on(lecturer)
        expect(student).to_have_url(lecturers_page(lecturer, server_url), timeout=FOLLOWING)
        expect(student.locator(STREAM_OPEN)).to_have_count(1)
    lecturer.click(".ask-class summary")
    lecturer.click("#ask-predict")
    expect(lecturer.locator("h1")).to_contain_text("Which class will the model choose")
    expect(student.locator("h1")).to_contain_text("Which class will the model choose", timeout=FOLLOWING)
    expect(student.locator(STREAM_OPEN)).to_have_count(1)
    assert asked.polls == [] and len(asked.streams) == 5  # a stream per page, and no follow.json
    assert student_browsing.errors == []
    shot(student, "class-student-following-by-stream")

    # The projector's tally is redrawn by the stream's tally event when the student answers.
    lecturer.evaluate("() => { window.tallyEvents = 0; document.body.addEventListener('htmx:sseMessage', "
                      "e => { if (e.detail && e.detail.type === 'tally') window.tallyEvents += 1; }); }")
    student.check("input[value=positive]")
    student.click("#send-answer")
    expect(student.locator("#own-answer")).to_contain_text("positive")
    lecturer.wait_for_function("() => window.tallyEvents >= 1")
    expect(lecturer.locator("#answer-count")).to_have_text("1")

    # The stream blocked (a proxy that does not pass it): the page polls follow.json, and still follows.
    student.route(STREAM, lambda route: route.abort())
    with student.expect_request(lambda request: request.url.endswith("/follow.json")):
        student.reload()
    expect(student.locator(STREAM_OPEN)).to_have_count(0)
    lecturer.click("#back-to-slide")
    expect(lecturer.locator(".deck-bar")).to_be_visible()
    expect(student).to_have_url(lecturers_page(lecturer, server_url), timeout=FOLLOWING)
    move_on(lecturer)
    expect(student).to_have_url(lecturers_page(lecturer, server_url), timeout=FOLLOWING)
    assert asked.polls
    # Let through again, the same page reconnects (htmx's extension tries again, less often the longer it failed).
    student.unroute(STREAM)
    expect(student.locator(STREAM_OPEN)).to_have_count(1, timeout=60_000)

    # Exploring: the page stays where the student is; it hears the stream for the end of the class alone.
    student.click("#explore")
    expect(student.locator(".class-bar")).to_contain_text("exploring on my own")
    assert student.locator(".class-bar").get_attribute("data-following") is None
    explored = student.url
    move_on(lecturer)
    assert student.url == explored

    # Following again: to the lecturer's page, on the stream.
    student.click("#follow")
    expect(student).to_have_url(lecturers_page(lecturer, server_url))
    expect(student.locator(".class-bar")).to_contain_text("following the lecturer")
    expect(student.locator(STREAM_OPEN)).to_have_count(1)
    polled = len(asked.polls)
    move_on(lecturer)
    expect(student).to_have_url(lecturers_page(lecturer, server_url), timeout=FOLLOWING)
    expect(student.locator(STREAM_OPEN)).to_have_count(1)
    assert len(asked.polls) == polled  # the stream again, no poll
    assert browsing.errors == []
    assert not_the_blocked_streams(student_browsing.errors) == []


def test_with_redis_as_the_broker_the_move_reaches_the_browser_through_redis(new_browsing, redis_test_url,
                                                                            tmp_path_factory):
    import redis

    app = create_app({"TESTING": True, "SECRET_KEY": "test", "WEBNB_BROKER_URL": redis_test_url},
                     instance_path=str(tmp_path_factory.mktemp("instance")))
    assert app.extensions["webnb"]["broker"].kind == "redis"
    # What goes through Redis, heard beside the app: the move must be there.
    heard, moves = threading.Event(), []
    listener = redis.Redis.from_url(redis_test_url).pubsub()
    listener.psubscribe(**{"webnb:room:*": lambda message: (moves.append(message["data"]), heard.set())})
    reading = listener.run_in_thread(sleep_time=0.05, daemon=True)
    try:
        with serving(app) as server_url:
            lecturer = new_browsing().new_page()
            code = start_class(lecturer, server_url)
            student_browsing = new_browsing()
            student = student_browsing.new_page()
            asked = Requests(student)
            student.goto(f"{server_url}/join/{code}")
            expect(student.locator(STREAM_OPEN)).to_have_count(1)
            lecturer.goto(server_url + SLIDE)
            expect(student).to_have_url(server_url + FOLLOWED, timeout=FOLLOWING)
            assert heard.wait(FOLLOWING / 1000)
            assert any(re.search(rb'"event":"move".*"address":"/corpora/match-reviews/inference', m) for m in moves)
            expect(student.locator(STREAM_OPEN)).to_have_count(1)
            assert asked.polls == []
            assert student_browsing.errors == []
    finally:
        reading.stop()
        reading.join()
        listener.close()
        app.extensions["webnb"]["storage"].dispose()
