"""What the two stream servers share (the app's own route, webnb/room/stream.py, and ``webnb events``,
webnb/room/events_server.py): who may listen to a class, the first event of a stream, and the wire format.

A stream answers a class's lecturer (the class's code is among the lecturer's in the signed session) and its
members (the session names the class, and the database has this browser's workspace, or its local student name,
among those who joined). Everyone else gets the same 404 as ``follow.json``.

Each stream starts with ``retry:`` (how long the browser waits before reconnecting) and a ``move`` event with the
class's present state, so that a browser that reconnects catches up on what it missed. A student's stream carries
only ``move`` events; the lecturer's carries ``tally`` events too (an answer came in: the projector redraws its
tally). A comment line every ``HEARTBEAT_SECONDS`` keeps proxies from closing an idle stream and tells the server when
the browser has gone.
"""
from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Mapping
from datetime import datetime

from webnb.room.broker import Presence, RoomEvent

HEARTBEAT_SECONDS = 15.0
# Open streams of one listener in one process: a student's page and a reload or two, a lecturer's projector and
# laptop. Past it a new stream answers 429, so that one member cannot hold a thousand connections.
STREAMS_PER_STUDENT = 3
STREAMS_PER_LECTURER = 8
RECONNECT_AFTER_MS = 3000
STUDENTS_HEAR = frozenset({"move"})
NOT_YOUR_CLASS = "This browser has not joined this class."
# follow.json, the poll of a page whose stream is not open (served by the app, webnb/room/following.py, and by
# ``webnb events``): a page polls once a second (twice when a poll fails), which leaves room for a reload or two and
# stops a script that polls flat out.
POLLS_PER_MEMBER = "3 per second; 100 per minute"
POLL_RETRY_SECONDS = 5
TOO_MANY_POLLS = ("This page asked for the lecturer's slide many times in the last minute; it asks again in a few "
                  "seconds.")


def listener(session: Mapping, code: str, storage, *, hosted: bool):
    """(the class, "lecturer" or "student") when this session may listen to the class with this code, else None.
    ``session``: the signed session's data; one or two row reads."""
    if code in session.get("lecturer", []):
        record = storage.get_class(code)
        return None if record is None else (record, "lecturer")
    if session.get("class") != code:
        return None  # no database read for a browser that never joined this class
    student = session.get("workspace") if hosted else session.get("class_student")
    if not isinstance(student, str) or not storage.is_member(code, student):
        return None
    record = storage.get_class(code)
    return None if record is None else (record, "student")


def may_poll(session: Mapping, code: str) -> bool:
    """Whether this session may poll the class's state: a member or the lecturer, told from the signed session
    alone (no read), so that a running code and an unknown one answer a stranger alike and in the same time."""
    return session.get("class") == code or code in session.get("lecturer", [])


def poller_key(session: Mapping, *, hosted: bool) -> str | None:
    """Whose poll budget a poll spends: the browser's workspace (hosted mode) or its name in the class."""
    return session.get("workspace") if hosted else session.get("class_student")


def polled_state(version: int, address: str, running: bool, root: str) -> dict:
    """follow.json's answer."""
    return {"version": version, "address": root + address, "running": running}


def listener_key(session: Mapping, code: str, role: str, *, hosted: bool) -> tuple:
    """Who holds a stream, for counting their open streams: the class's lecturer, or one student."""
    if role == "lecturer":
        return (code, "lecturer")
    return (code, session.get("workspace") if hosted else session.get("class_student"))


class OpenStreams:
    """How many streams each listener holds open in this process (thread-safe: the app's route runs in threads), and
    of each class the students who hold one, following the lecturer or exploring."""

    def __init__(self):
        self._lock = threading.Lock()
        self._open: Counter = Counter()
        self._students: dict[str, Counter] = {}  # code -> (student, following) -> open streams

    def take(self, key: tuple, role: str, following: bool = False) -> bool:
        """Count one more stream of ``key``; False (nothing counted) when it holds its share already."""
        most = STREAMS_PER_LECTURER if role == "lecturer" else STREAMS_PER_STUDENT
        with self._lock:
            if self._open[key] >= most:
                return False
            self._open[key] += 1
            if role != "lecturer":
                self._students.setdefault(key[0], Counter())[(key[1], bool(following))] += 1
            return True

    def give_back(self, key: tuple, following: bool = False) -> None:
        with self._lock:
            self._open[key] -= 1
            if self._open[key] <= 0:
                del self._open[key]
            students = self._students.get(key[0])
            if students is not None and key[1] != "lecturer":
                students[(key[1], bool(following))] -= 1
                if students[(key[1], bool(following))] <= 0:
                    del students[(key[1], bool(following))]
                if not students:
                    del self._students[key[0]]

    def presence(self, code: str) -> Presence:
        """Of the class's students with a stream open here: how many follow (one following page is enough), how many
        in all."""
        with self._lock:
            held = list(self._students.get(code, ()))
        following = {student for student, follows in held if follows}
        return Presence(len(following), len({student for student, _ in held}))

    def classes(self) -> list[str]:
        with self._lock:
            return list(self._students)


TOO_MANY_STREAMS = ("This browser has many pages of the class open already; this one follows the lecturer by "
                    "asking once a second.")


def hears(role: str, event: RoomEvent) -> bool:
    return role == "lecturer" or event.event in STUDENTS_HEAR


def present_state(record, now: datetime) -> RoomEvent:
    """The class's state as a ``move`` event: what a stream sends first."""
    return RoomEvent("move", {"version": record.state_version, "address": record.state,
                              "running": record.running(now)})


def opening(record, now: datetime, root: str) -> bytes:
    """The first bytes of a stream: the reconnection delay and the class's present state."""
    return f"retry: {RECONNECT_AFTER_MS}\n\n".encode() + wire(present_state(record, now), root)


def wire(event: RoomEvent, root: str) -> bytes:
    """One event as server-sent events write it. ``root``: the app's script root, put before a move's address (the
    broker carries the address as stored, the same for every server)."""
    data = event.data
    if event.event == "move" and isinstance(data.get("address"), str):
        data = {**data, "address": root + data["address"]}
    return f"event: {event.event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


HEARTBEAT = b": heartbeat\n\n"
