"""Students follow the lecturer: the lesson pages the lecturer opens move the class, and a followed slide is drawn
once per process for every follower who asks for the same bytes.

The one seam between the room and the lesson: ``follow_lesson_pages(app)`` wraps the view of every page of the lesson
(the list in webnb/lesson/pages.py) in ``followed``, which

1. gives a following student the drawing another follower's identical request made (``drawing_key``), with their own
   CSRF token, before the page is computed;
2. keeps the page it drew for the next follower;
3. moves the class when its lecturer opened the page by their own click (not from another site's link).

A student's page hears the moves on its event stream (webnb/room/stream.py); while that is down, it polls
``/classes/<code>/follow.json``. "Explore on my own" stops following; "Follow the lecturer" opens the lecturer's page.
"""
from __future__ import annotations

from functools import wraps
from urllib.parse import urlsplit

from flask import Blueprint, Response, current_app, g, jsonify, make_response, redirect, request, session, url_for
from flask_wtf.csrf import generate_csrf
from limits import parse_many
from limits.strategies import FixedWindowRateLimiter

from webnb.answers import refusal, wants_json
from webnb.lesson import pages
from webnb.room import events
from webnb.room.hall import (
    came_from_elsewhere,
    followed_address,
    leads,
    led_class,
    member_of,
    move_class,
    not_the_lecturer,
    now,
    polled_class,
    room_storage,
    student_id,
)

bp = Blueprint("following", __name__)


# --- the seam -------------------------------------------------------------------------------------------------------


def follow_lesson_pages(app) -> None:
    """Wrap the view of every lesson page (texts and tables) in ``followed``: the room's one hook into the lesson."""
    for kind in ("text", "table"):
        for page in pages.PAGES[kind]:
            app.view_functions[page.endpoint] = followed(app.view_functions[page.endpoint])


def followed(view):
    """A lesson page (or a question's page) as the room sees it: shared with the followers who ask for the same
    bytes, and moving the class when its lecturer opened it."""

    @wraps(view)
    def page(**arguments):
        key = _drawing_of_this_request()
        if key is not None:
            kept = current_app.extensions["webnb"]["followed_pages"].get(key)
            if kept is not None:
                body, headers = kept
                return Response(body.replace(CSRF_PLACEHOLDER, generate_csrf()), mimetype="text/html", headers=headers)
        response = make_response(view(**arguments))
        if key is not None:
            _keep(key, response)
        _follow_the_lecturer(response)
        return response

    page.followed_by_the_room = True  # what the test of the seam looks for
    return page


def _follow_the_lecturer(response) -> None:
    """A lesson page of the class's corpus that its lecturer opened (or swapped in with htmx) becomes the class's
    state, for its students to follow; one opened from another site's link does not (it offers to)."""
    # A browser without a session cookie leads nothing; its session is not looked at, since looking marks a
    # response "Vary: Cookie" (a fragment's content does not depend on the cookie).
    if (request.method != "GET" or response.status_code != 200 or response.mimetype != "text/html"
            or request.endpoint == "questions.show"
            or current_app.config["SESSION_COOKIE_NAME"] not in request.cookies or not session.get("leading")):
        return
    if came_from_elsewhere():
        return  # a link from another site: the page offers "Show this to the class" instead
    record = led_class(session["leading"])
    linking = g.get("linking")  # the page's lesson: its short address is what the lecturer's address bar shows
    address = followed_address(linking.short_address() if linking is not None else None)
    if (record is not None and record.running(now()) and record.state != address
            and (request.view_args or {}).get("corpus_id") == record.corpus_id):
        move_class(record.code, address)  # a write only when the lecturer moved, not on every page they open


# --- a followed page, drawn once per process -------------------------------------------------------------------------
#
# When the lecturer moves, every following student opens the same address within about a second: 300 students would
# draw the same slide 300 times at once. Each process draws it once, for the first student, and keeps it with that
# student's CSRF token taken out; the others get a copy with their own token. Only what is the same for every student
# is kept: a lesson page of the class's corpus (shared by every workspace), never the evaluation page (its test
# choices list the student's own corpora) nor a page that names another corpus or document of one.

FOLLOWED_PAGES_KEPT = 32
CSRF_PLACEHOLDER = "webnb-followed-page-csrf-token"
NOT_SHARED_ENDPOINTS = frozenset({"evaluation.show"})
NOT_SHARED_PARAMETERS = frozenset({"document", "from"})


def _drawing_of_this_request():
    """The key of this request's page among the kept drawings, or None when it is not a page every follower shares:
    a lesson page of the class's corpus, or a question not yet answered by this student nor revealed."""
    question_page = request.endpoint == "questions.show"
    if (request.method != "GET" or wants_json() or request.endpoint in NOT_SHARED_ENDPOINTS
            or current_app.config["SESSION_COOKIE_NAME"] not in request.cookies):
        return None
    code = session.get("class")
    if not code or not session.get("following") or leads(code):
        return None
    if NOT_SHARED_PARAMETERS & request.args.keys() or request.args.get("test", "") not in ("split", "training", ""):
        return None
    record = polled_class(code)  # a state a moment old at most: an older version only means drawing the page
    if record is None or not record.running(now()) or record.state != followed_address():
        return None
    if question_page and not _unanswered(record, request.view_args["number"]):
        return None
    if not question_page and request.view_args.get("corpus_id") != record.corpus_id:
        return None
    return (record.code, record.state_version) + drawing_key()


def drawing_key() -> tuple:
    """Everything of this request that can change the bytes of its page, so that two followers share a drawing only
    when each would have got the same bytes alone: the path, every parameter as given (the projector's theme and
    zoom too, which the class's state leaves out), and every htmx header (whether it is a fragment, which part)."""
    return (request.path, tuple(sorted(request.args.items(multi=True))),
            tuple(sorted((name.lower(), value) for name, value in request.headers.items()
                         if name.lower().startswith("hx-"))))


def _unanswered(record, number: int) -> bool:
    """Whether this student (a member of the class) has not answered its open question ``number``."""
    storage = room_storage()
    question = storage.question(record.code, number)
    return (question is not None and question.revealed_at is None and storage.is_member(record.code, student_id())
            and storage.own_answer(question.id, student_id()) is None)


def _keep(key, response) -> None:
    if response.status_code != 200 or response.mimetype != "text/html" or response.direct_passthrough:
        return
    kept = current_app.extensions["webnb"]["followed_pages"]
    if key not in kept:
        token = generate_csrf()
        body = response.get_data(as_text=True)
        if token in body:
            vary = response.headers.get("Vary")
            kept.put(key, (body.replace(token, CSRF_PLACEHOLDER), {"Vary": vary} if vary else {}))


# --- following and exploring ------------------------------------------------------------------------------------------


@bp.get("/classes/<code>/follow.json")
def follow_state(code: str):
    """What a student's page polls while its event stream is down: the class's state and its version (one row read
    at most every ``STATE_KEPT_SECONDS`` per process; no page drawn). Only for a member of the class or its
    lecturer, known from the signed session alone: anyone else gets the same 404 without any read, so that a running
    code and an unknown one answer alike and in the same time. A member polls within a budget of their own.
    ``webnb events`` answers the same in hosted mode (webnb/room/events_server.py)."""
    if not events.may_poll(session, code):
        return refusal("Not your class", events.NOT_YOUR_CLASS, 404)
    if _polls_spent():
        response = refusal("Too many polls", events.TOO_MANY_POLLS, 429)
        response.headers["Retry-After"] = str(events.POLL_RETRY_SECONDS)
        return response
    record = polled_class(code)
    if record is None:
        return refusal("Not your class", events.NOT_YOUR_CLASS, 404)
    response = jsonify(events.polled_state(record.state_version, record.state, record.running(now()),
                                           request.script_root))
    response.headers["Cache-Control"] = "no-store"
    return response


def _polls_spent() -> bool:
    limiter = current_app.extensions.get("webnb_limiter")
    if not (limiter and limiter.enabled):
        return False
    counter = FixedWindowRateLimiter(limiter.limiter.storage)
    budget = current_app.config.get("WEBNB_FOLLOW_POLLS", events.POLLS_PER_MEMBER)
    return not all(counter.hit(limit, "webnb-follow-poll", student_id()) for limit in parse_many(budget))


@bp.post("/classes/<code>/follow")
def follow(code: str):
    """"Follow the lecturer" (opens the lecturer's state now) or "Explore on my own" (stays, and stops following)."""
    record = member_of(code)
    if record is None:
        return refusal("Not your class", "This browser has not joined this class; join it with its code.", 404)
    session["following"] = request.form.get("follow") == "1"
    if session["following"]:
        return redirect(request.script_root + record.state, 303)
    back = request.form.get("back", "")
    return redirect(back if back.startswith("/") and not back.startswith("//") else url_for("home.index"), 303)


@bp.post("/classes/<code>/show")
def show_to_class(code: str):
    """"Show this to the class": the lecturer moves the class to a page they opened from another site's link."""
    record = led_class(code)
    if record is None:
        return not_the_lecturer("Only the class's lecturer moves it.")
    if not record.running(now()):
        return refusal("This class has ended", "The class has ended, so nothing moves it any more.", 410)
    address = request.form.get("address", "")
    parts = urlsplit(address)
    corpus = f"/corpora/{record.corpus_id}"
    if (parts.scheme or parts.netloc or not address.startswith("/")
            or not (parts.path == corpus or parts.path.startswith(corpus + "/"))):
        return refusal("Not a page of this class", "Only a lesson page of the class's corpus can be shown to the "
                       "class. Nothing was moved.", 400)
    move_class(record.code, followed_address(address))
    return redirect(request.script_root + address, 303)
