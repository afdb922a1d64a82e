"""The room's size on the lecturer's screen (issue 36, part 3): how many joined the class, and of them how many have
one of its pages open now (an event stream) and follow the lecturer. Counted by the process that holds the streams:
the app itself in local mode, ``webnb events`` in hosted mode, which writes its counts to Redis for the app to read."""
from __future__ import annotations

import time

import pytest

from tests.conftest import browser_from, soup_of
from tests.test_room_events import RemoteStream, cookie_of, events_server, start_lecture  # noqa: F401 (a fixture)
from webnb.room.broker import PRESENCE_PREFIX, Presence

JSON = {"Accept": "application/json"}


def headcount(lecturer, code) -> dict:
    response = lecturer.get(f"/classes/{code}/headcount", headers=JSON)
    assert response.status_code == 200
    return response.get_json()


def open_stream(browser, code):
    """A stream of the app's own route, started (its first bytes read) as a server starts it."""
    response = browser.get(f"/classes/{code}/events", buffered=False)
    assert response.status_code == 200
    next(response.response)
    return response


def test_the_lecturer_sees_who_joined_who_has_a_page_open_and_who_follows(app):
    code, lecturer, follower = start_lecture(app)
    explorer = browser_from(app)
    assert explorer.get(f"/join/{code}").status_code == 303
    explorer.post(f"/classes/{code}/follow", data={"follow": "0", "back": "/corpora/match-reviews"})
    assert headcount(lecturer, code) == {"joined": 2, "listening": 0, "following": 0}

    following = open_stream(follower, code)
    also_following = open_stream(follower, code)  # a second tab of the same student counts once
    exploring = open_stream(explorer, code)
    assert headcount(lecturer, code) == {"joined": 2, "listening": 2, "following": 1}
    corner = soup_of(lecturer.get("/corpora/match-reviews")).select_one(".class-corner #class-headcount")
    assert " ".join(corner.get_text().split()) == "2 joined · 1 following"
    assert corner["hx-get"] == f"/classes/{code}/headcount" and corner["hx-trigger"] == "every 5s"
    slide = soup_of(lecturer.get(f"/classes/{code}"))  # the join slide: in its corner, once
    assert [" ".join(c.get_text().split()) for c in slide.select("#class-headcount")] == ["2 joined · 1 following"]

    following.close()
    assert headcount(lecturer, code)["following"] == 1  # the other tab still follows
    also_following.close()
    exploring.close()
    assert headcount(lecturer, code) == {"joined": 2, "listening": 0, "following": 0}
    # The HTML twin is the block the corner redraws.
    block = soup_of(lecturer.get(f"/classes/{code}/headcount"))
    assert " ".join(block.select_one("#class-headcount").get_text().split()) == "2 joined · 0 following"


def test_only_the_lecturer_reads_the_headcount(app):
    code, _, student = start_lecture(app)
    for browser in (student, browser_from(app)):
        assert browser.get(f"/classes/{code}/headcount", headers=JSON).status_code == 404
        assert browser.get("/classes/ACDEFG/headcount", headers=JSON).status_code == 404
    assert soup_of(student.get("/corpora/match-reviews")).select_one("#class-headcount") is None


def until(condition, seconds: float = 15.0):
    """Ask ``condition`` again until it holds; the figures webnb events writes reach Redis within a second."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail("the headcount did not change in time")
        time.sleep(0.05)


@pytest.mark.services
def test_webnb_events_counts_its_streams_in_redis_for_the_apps_pages(events_server, redis_test_url):  # noqa: F811
    import redis

    app, port = events_server
    code, lecturer, student = start_lecture(app)
    stream = RemoteStream(port, code, cookie_of(student, app))
    try:
        assert stream.response.status == 200
        until(lambda: headcount(lecturer, code) == {"joined": 1, "listening": 1, "following": 1})
        # Another process holding streams of the class adds its own; the app reads the sum.
        client = redis.Redis.from_url(redis_test_url)
        client.hset(PRESENCE_PREFIX + code, "another-host:4242", Presence(5, 7).encoded())
        client.close()
        assert headcount(lecturer, code) == {"joined": 1, "listening": 8, "following": 6}
    finally:
        stream.close()
    until(lambda: headcount(lecturer, code) == {"joined": 1, "listening": 7, "following": 5})
