"""Who is in the room, as a request sees it: whether this browser leads a class or joined one, the class's state as
polled (a moment old at most), moving it, and what a page shows of it (``Room``, the ``class_room()`` global).

Every other module of the room asks here: the join and lead views (webnb/room/joining.py), following the lecturer
(webnb/room/following.py), questions (webnb/room/questions.py) and the event streams (webnb/room/stream.py).
"""
from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from urllib.parse import parse_qsl, urlencode, urlsplit

from flask import current_app, request, session
from werkzeug.datastructures import MultiDict

from webnb.answers import refusal
from webnb.engine.shared.forwarding import forwarded
from webnb.engine.shared.plain import plain
from webnb.hosting.workspaces import current_workspace, hosted, may_start
from webnb.lesson import pages
from webnb.lesson.notation import NOTATIONS
from webnb.lesson.state import entry_defaults, parse_state
from webnb.room import broker as room_broker
from webnb.room import lecture
from webnb.views.common import catalog


def now() -> datetime:
    """The time classes start and end by; tests put a clock of their own in ``app.extensions["webnb_clock"]``."""
    clock = current_app.extensions.get("webnb_clock")
    return clock() if clock else datetime.now(timezone.utc)


def room_storage():
    return current_app.extensions["webnb"]["storage"]


# --- who may do what ----------------------------------------------------------------------------------------------


def leads(code: str) -> bool:
    return code in session.get("lecturer", [])


def make_lecturer(code: str) -> None:
    # At most the last 20 classes: the signed cookie must stay small.
    session["lecturer"] = [c for c in session.get("lecturer", []) if c != code][-19:] + [code]
    session["leading"] = code  # the class the lecturer's lesson pages move


def led_class(code: str):
    """The class with this code when this browser leads it, else None: what every lecturer-only view asks first."""
    if not leads(code):  # the session first: a student's requests read no class for this
        return None
    return room_storage().get_class(code)


def not_the_lecturer(what: str = "This page belongs to the class's lecturer."):
    return refusal("Only the lecturer can do this", f"{what} Nothing was changed. To join the class, type its code "
                   "on the join page.", 403)


def student_id() -> str:
    """Who this browser is in a class: its workspace in hosted mode; in local mode a random name kept in the
    session (all browsers share the one local workspace). Never shown: answers are numbered instead."""
    if hosted():
        return current_workspace()
    if not session.get("class_student"):
        session["class_student"] = secrets.token_urlsafe(16)
    return session["class_student"]


def member_of(code: str):
    """The class with this code when this browser joined it (and is not its lecturer), else None."""
    if session.get("class") != code:
        return None
    record = polled_class(code)
    return record if record is not None and room_storage().is_member(record.code, student_id()) else None


# --- the class's state --------------------------------------------------------------------------------------------

# A poll may read a class this many seconds old (kept per process, in ``app.extensions["webnb"]["polled_classes"]``):
# 300 students poll 300 times a second, and the state changes every few seconds. This process forgets it at once
# when it moves or ends the class itself.
STATE_KEPT_SECONDS = 0.25


def _polled_states() -> dict:
    return current_app.extensions["webnb"]["polled_classes"]


def move_class(code: str, address: str) -> None:
    """Move the class to the lesson address ``address``: its followers open it when their event stream says so
    (webnb/room/stream.py), or at their next poll."""
    version = room_storage().set_class_state(code, address)
    _polled_states().pop(code, None)
    room_broker.publish(code, "move", {"version": version, "address": address, "running": True})


def forget_state(code: str) -> None:
    """Read the class afresh at its next poll (it ended)."""
    _polled_states().pop(code, None)


def polled_class(code: str):
    kept = _polled_states().get(code)
    if kept is not None and time.monotonic() - kept[0] < STATE_KEPT_SECONDS:
        return kept[1]
    record = room_storage().get_class(code)
    if record is not None:
        _polled_states()[code] = (time.monotonic(), record)
    return record


# The projector's own settings: a student's phone keeps its own look.
NOT_FOLLOWED = frozenset({"theme", "zoom"})


def followed_address(address: str | None = None) -> str:
    """This request's lesson address as students follow it: its path and query without the projector's settings,
    written as a student's request for it reads back. ``address``: the page's own, short, address
    (``Linking.short_address``) instead of the request's, which may carry every field of a form."""
    if address is None:
        path, parameters = request.path, request.args.items(multi=True)
    else:
        parts = urlsplit(address)
        path, parameters = parts.path, parse_qsl(parts.query, keep_blank_values=True)
    query = urlencode([(k, v) for k, v in parameters if k not in NOT_FOLLOWED])
    return path + (f"?{query}" if query else "")


def in_the_deck(address: str) -> str:
    """A lesson address in presenter mode: where the join slide's "Go to the lesson" takes the lecturer."""
    parts = urlsplit(address)
    parameters = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "presenter"]
    return parts.path + "?" + urlencode([*parameters, ("presenter", "1")])


def question_setting(corpus_id: str, address: str):
    """What a question asked from the lesson address ``address`` of the class's corpus is about (lecture.Setting),
    read from the address alone: nothing is counted."""
    entry = catalog().get(corpus_id)
    args = MultiDict(parse_qsl(urlsplit(address).query, keep_blank_values=True))
    if entry is None:  # the class's corpus was removed since: the address still says the model and α
        return setting_at(corpus_id, parse_state(args))
    return setting_at(entry.name, parse_state(args, entry_defaults(entry)))


def setting_at(corpus_name: str, state):
    """lecture.Setting of a question asked at the lesson state ``state`` of the corpus called ``corpus_name``."""
    test_entry = catalog().get(state.test) if state.test not in ("split", "training") else None
    return lecture.setting_of(corpus_name, state, NOTATIONS[state.notation].pseudo_count,
                              test_entry.name if test_entry is not None else state.test)


@dataclass(frozen=True)
class Headcount:
    """The lecturer's view of the room: how many joined the class, how many of them have one of its pages open now
    (an event stream) and how many of those follow the lecturer."""

    joined: int
    listening: int
    following: int

    def to_dict(self) -> dict:
        return plain(self)


def headcount(code: str) -> Headcount:
    webnb = current_app.extensions["webnb"]
    present = webnb["broker"].presence(code, webnb["open_streams"].presence(code))
    return Headcount(room_storage().class_member_count(code), present.listening, present.following)


def is_lesson_page() -> bool:
    return any(pages.page_of(kind, request.endpoint) is not None for kind in ("text", "table"))


def came_from_elsewhere() -> bool:
    """Whether this request was sent from a page of another site (a link, a form, a script), as the browser tells:
    ``Sec-Fetch-Site``, or where a browser does not send it, an ``Origin`` or ``Referer`` that is not webnb's. An
    address typed or opened from a bookmark (``none``) and webnb's own links are the lecturer's own clicks."""
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None:
        return site not in ("same-origin", "none")
    own = request.host_url.rstrip("/")
    origin = request.headers.get("Origin")
    if origin is not None:
        return origin != own
    referer = request.headers.get("Referer")
    return referer is not None and referer != own and not referer.startswith(own + "/")


# --- what a page shows of the room ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Room:
    """What a page shows of the class this browser is in: its lecturer's corner (the code and the join address) or
    a student's bar (following or exploring, and the state version their page shows)."""

    record: object
    role: str  # "lecturer" or "student"
    following: bool
    join_address: str

    code = forwarded("record.code")

    @property
    def asks_here(self) -> str | None:
        """What the lecturer may ask on this page: "any" on Bayes' rule (predict, challenge, tune), "tune" on the
        lesson's other pages of texts, None elsewhere."""
        if self.role != "lecturer" or (request.view_args or {}).get("corpus_id") != self.record.corpus_id:
            return None
        if request.endpoint == "inference.show":
            return "any"
        return "tune" if pages.page_of("text", request.endpoint) is not None else None

    @property
    def headcount(self) -> Headcount:
        return headcount(self.record.code)

    @property
    def tune_setting(self):
        """What a tuning asked from this page would be scored by (the ask form says it before it is asked)."""
        return question_setting(self.record.corpus_id, self.here)

    @property
    def shows_elsewhere(self) -> bool:
        """Whether this lecturer's page was opened from another site, so did not move the class: it offers to."""
        return (self.role == "lecturer" and is_lesson_page() and came_from_elsewhere()
                and (request.view_args or {}).get("corpus_id") == self.record.corpus_id)

    @property
    def here(self) -> str:
        return followed_address()

    @property
    def classes(self) -> tuple[str, ...]:
        entry = catalog().get(self.record.corpus_id)
        return () if entry is None or entry.is_table else entry.corpus.classes


def class_room() -> Room | None:
    """The class this browser leads or joined, while it runs (None for everyone else, without a database read)."""
    code = session.get("leading") or session.get("class")
    if not code:
        return None
    record = polled_class(code)
    if record is None or not record.running(now()):
        return None
    role = "lecturer" if leads(record.code) else "student"
    return Room(record, role, bool(session.get("following")), request.host + request.script_root + "/join")


def init_app(app) -> None:
    app.extensions["webnb"]["polled_classes"] = {}
    app.add_template_global(class_room)
    app.add_template_global(may_start, "may_start_class")
    app.add_template_global(followed_address)
