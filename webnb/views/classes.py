"""A class in the room: starting one from the browser, the lecturer's join slide (the code in large type and its QR
code), ending it, and students joining by the code (``/join``) or the QR code's address (``/join/<code>``).

Who may start a class: in local mode the app's owner (anyone at the laptop); in hosted mode a browser that gave the
operator's instructor key (``WEBNB_INSTRUCTOR_KEY``; without it, hosted mode offers no control). Who leads a class:
the browser that started it or opened the lecturer's link, whose secret only the lecturer has.

Following the lecturer: each lesson page the lecturer opens while leading a running class becomes the class's state
(``follow_the_lecturer``, after the request); a student's page polls ``/classes/<code>/follow.json`` (one row read)
about once a second and opens the new state when its version changed, unless the student chose to explore on their
own. The projector's theme and zoom stay the lecturer's.

Guessing codes is braked in hosted mode, where the rate limits apply (webnb/ratelimits.py), never the hall: past
``WRONG_CODES_PER_WORKSPACE`` wrong codes of a workspace or ``WRONG_CODES_PER_ADDRESS`` of its client address, every
try from there carries a proof of work (webnb/room/proof.py) before its code is looked at, and a right code with its
proof always gets in. Joining again a class this browser is in counts nothing. Instructor keys have counts of their
own.
"""
from __future__ import annotations

import hmac
import secrets
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from urllib.parse import parse_qsl, urlencode, urlsplit

import segno
from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    g,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_wtf.csrf import generate_csrf
from limits import parse as parse_limit
from limits import parse_many
from limits.strategies import FixedWindowRateLimiter

from webnb import classes as lectures
from webnb import pages
from webnb.admission import address_key
from webnb.errors import refusal
from webnb.room import broker as room_broker
from webnb.room import proof
from webnb.security import wants_json
from webnb.views.common import catalog
from webnb.workspaces import current_workspace, hosted

bp = Blueprint("classes", __name__)

WRONG_CODES_PER_WORKSPACE = "10 per minute"
WRONG_CODES_PER_ADDRESS = "60 per minute"
# Instructor keys are guessed apart from codes: a flood of keys never touches the hall's joining.
WRONG_KEYS_PER_WORKSPACE = "5 per minute"
WRONG_KEYS_PER_ADDRESS = "30 per minute"
# The proof of work asked past the wrong-code budget: 2^16 hashes on average, about 0.3 s in a phone's browser.
PROOF_BITS = 16
WRONG_CODE = ("No running class has this code. Check the code on the projector (six letters and digits, such as "
              "3X9KQR) and type it again.")
PROOF_ASKED = ("Many wrong codes came from this network in the last minute, so your browser does a moment's work "
               "before the code is checked. This takes a second; your code is kept.")


def now() -> datetime:
    """The time classes start and end by; tests put a clock of their own in ``app.extensions["webnb_clock"]``."""
    clock = current_app.extensions.get("webnb_clock")
    return clock() if clock else datetime.now(timezone.utc)


def _storage():
    return current_app.extensions["webnb"]["storage"]


# --- who may do what ----------------------------------------------------------------------------------------------


def may_start() -> bool:
    """Whether this browser may start a class: the owner in local mode; in hosted mode one that gave the key."""
    return not hosted() or (bool(_instructor_key()) and session.get("instructor") is True)


def offers_start() -> bool:
    """Whether the home page offers "Start a class" here at all (hosted mode without a key offers nothing)."""
    return not hosted() or bool(_instructor_key())


def _instructor_key() -> str:
    return current_app.config.get("WEBNB_INSTRUCTOR_KEY") or ""


def leads(code: str) -> bool:
    return code in session.get("lecturer", [])


def _make_lecturer(code: str) -> None:
    # At most the last 20 classes: the signed cookie must stay small.
    session["lecturer"] = [c for c in session.get("lecturer", []) if c != code][-19:] + [code]
    session["leading"] = code  # the class the lecturer's lesson pages move


def led_class(code: str):
    """The class with this code when this browser leads it, else None: what every lecturer-only view asks first."""
    if not leads(code):  # the session first: a student's requests read no class for this
        return None
    return _storage().get_class(code)


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
    record = _polled_class(code)
    return record if record is not None and _storage().is_member(record.code, student_id()) else None


# --- guessing codes -------------------------------------------------------------------------------------------------


class _Budget:
    """Wrong tries of one kind (class codes, instructor keys) per workspace and per client address, counted in the
    rate limiter's storage (shared by every process when it is Redis); nothing is counted where the rate limits are
    off (local mode). Only wrong tries are counted: a right one never spends what the hall shares."""

    def __init__(self, name: str, per_workspace: str, per_address: str):
        limiter = current_app.extensions.get("webnb_limiter")
        self.enabled = bool(limiter and limiter.enabled)
        if self.enabled:
            self.store = limiter.limiter.storage
            self.counter = FixedWindowRateLimiter(self.store)
            address = address_key(request.remote_addr, current_app.config["SECRET_KEY"])
            self.limits = [(parse_limit(per_workspace), name, "workspace", current_workspace()),
                           (parse_limit(per_address), name, "address", address)]

    def spent(self) -> bool:
        """True when this workspace or its address has used up its wrong tries of the moment."""
        return self.enabled and not all(self.counter.test(*limit) for limit in self.limits)

    def missed(self) -> None:
        if self.enabled:
            for limit in self.limits:
                self.counter.hit(*limit)

    def spend_proof(self, challenge_id: str) -> bool:
        """Record a proof of work as used; False when it was used already (a proof buys one try)."""
        return self.store.incr(f"webnb-proof/{challenge_id}", proof.LIFETIME_SECONDS) == 1


def _code_guesses() -> _Budget:
    return _Budget("webnb-wrong-code", WRONG_CODES_PER_WORKSPACE, WRONG_CODES_PER_ADDRESS)


def _proof_bits() -> int:
    return int(current_app.config.get("WEBNB_JOIN_PROOF_BITS", PROOF_BITS))


def _proven(guesses: _Budget) -> bool:
    """Whether this request carries a fresh, unspent proof of work (``proof`` and ``nonce``)."""
    source = request.form if request.method == "POST" else request.args
    challenge = proof.verify(current_app.config["SECRET_KEY"].encode("utf-8"), source.get("proof", ""),
                             source.get("nonce", ""), min_bits=_proof_bits())
    return challenge is not None and guesses.spend_proof(challenge.id)


def _proof_asked(typed: str):
    """The join form with a challenge: the browser solves it and sends the code again (static/webnb.js)."""
    challenge = proof.make(current_app.config["SECRET_KEY"].encode("utf-8"), _proof_bits())
    if wants_json():
        response = jsonify(error=PROOF_ASKED, proof=challenge.text, bits=challenge.bits)
    else:
        response = Response(render_template("classes/join.html", typed=typed[:100], message=PROOF_ASKED,
                                            challenge=challenge), mimetype="text/html")
    response.status_code = 429
    response.headers["Cache-Control"] = "no-store"
    return response


# --- joining ----------------------------------------------------------------------------------------------------------


@bp.get("/join")
def join_form():
    """One field for the code; the form sends it here as ``?code=``, which joins as ``/join/<code>`` does."""
    if "code" not in request.args:
        return render_template("classes/join.html", typed="", message=None)
    return _join(request.args.get("code", ""))


@bp.get("/join/<path:typed>")
def join(typed: str):
    """What the QR code opens."""
    return _join(typed)


def _join(typed: str):
    code = lectures.normalise_code(typed)
    if code is not None and session.get("class") == code:
        # Joined already (a reload, the QR code scanned again): nothing to guess, nothing counted.
        record = member_of(code)
        if record is not None and record.running(now()):
            session["following"] = True
            return redirect(request.script_root + record.state, 303)
    guesses = _code_guesses()
    # Past the budget, a try is looked at only with a proof of work, whatever its code: a right code then always
    # gets in, and each wrong one costs the guesser the same work again.
    if guesses.spent() and not _proven(guesses):
        return _proof_asked(typed)
    record = None if code is None else _storage().get_class(code)
    if record is None:
        guesses.missed()
        # The same words and status for a code that cannot be one and a code no class has.
        if wants_json():
            return refusal("No class has this code", WRONG_CODE, 404)
        # Past the budget, the form comes with the next try's challenge, so that it need not be asked for first.
        challenge = proof.make(current_app.config["SECRET_KEY"].encode("utf-8"), _proof_bits()) \
            if guesses.spent() else None
        return render_template("classes/join.html", typed=typed[:100], message=WRONG_CODE, challenge=challenge), 404
    if not record.running(now()):
        return refusal("This class has ended", f"The class {record.code} has ended, so nobody can join it any more. "
                       "Ask your lecturer for the code of today's class.", 410)
    _storage().join_class(record.code, student_id(), now=now())
    session["class"], session["following"] = record.code, True
    return redirect(request.script_root + record.state, 303)


# --- starting, leading, ending ------------------------------------------------------------------------------------


def _too_many_keys():
    response = refusal("Too many instructor keys tried", "Many wrong instructor keys were sent from this browser or "
                       "this network in the last minute, so no key is checked until the minute is over. Wait a "
                       "minute, then type the key the server's operator gave you.", 429)
    response.headers["Retry-After"] = "60"
    return response


@bp.post("/classes")
def start():
    """Start a class from the browser (the form on the home page), which becomes its lecturer."""
    if hosted():
        key, given = _instructor_key(), request.form.get("instructor_key", "")
        if not key:
            abort(404)
        if session.get("instructor") is not True:
            guesses = _Budget("webnb-wrong-key", WRONG_KEYS_PER_WORKSPACE, WRONG_KEYS_PER_ADDRESS)
            if guesses.spent():
                return _too_many_keys()
            if not hmac.compare_digest(given.encode("utf-8", "surrogatepass"), key.encode("utf-8", "surrogatepass")):
                guesses.missed()
                return refusal("Wrong instructor key", "This is not the instructor key of this server, so no class "
                               "was started. The server's operator gives it to lecturers.", 403)
            session["instructor"] = True
    corpus_id = request.form.get("corpus", "")
    entry = next((entry for entry in catalog().builtin() if entry.id == corpus_id), None)
    if entry is None:
        return refusal("No such corpus", "A class opens on one of the corpora listed on the home page; choose one "
                       "there. No class was started.", 400)
    started = lectures.start_class(_storage(), entry.id, now=now())
    _make_lecturer(started.code)
    # Started from a slide of the deck: the class opens on that slide.
    address = request.form.get("address", "")
    if address.startswith(f"/corpora/{entry.id}") and not address.startswith("//"):
        move_class(started.code, address)
    return render_template("classes/started.html", record=started.record, entry=entry,
                           links=_links(started.code, started.secret))


@bp.get("/classes/<code>/lead/<secret>")
def lead(code: str, secret: str):
    """The lecturer's link: makes this browser the class's lecturer, then shows the join slide (without the secret
    in the address bar)."""
    record = _storage().get_class(code)
    if record is None or not lectures.holds_secret(record, secret):
        return refusal("Not this class's lecturer's link", "This link does not lead any class: it may have been "
                       "copied incompletely. The lecturer's link is printed when the class starts.", 403)
    _make_lecturer(record.code)
    return redirect(url_for("classes.slide", code=record.code), 303)


@bp.get("/classes/<code>")
def slide(code: str):
    """The join slide for the projector: the code in very large type and the QR code of the join address."""
    record = led_class(code)
    if record is None:
        return not_the_lecturer()
    session["leading"] = record.code
    entry = catalog().get(record.corpus_id)
    join_url = request.host_url.rstrip("/") + request.script_root + lectures.join_path(record.code)
    return render_template("classes/slide.html", record=record, entry=entry, join_url=join_url,
                           qr=qr_code(join_url), running=record.running(now()))


@bp.post("/classes/<code>/end")
def end(code: str):
    record = led_class(code)
    if record is None:
        return not_the_lecturer("Only the class's lecturer can end it.")
    _storage().end_class(record.code, now=now())
    _polled_states().pop(record.code, None)
    # The followers' pages stop following (webnb/room: the event streams).
    room_broker.publish(record.code, "move", {"version": record.state_version, "address": record.state,
                                              "running": False})
    return redirect(url_for("classes.slide", code=record.code), 303)


# --- following the lecturer -------------------------------------------------------------------------------------

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


def is_lesson_page() -> bool:
    return any(pages.page_of(kind, request.endpoint) is not None for kind in ("text", "table"))


@bp.after_app_request
def follow_the_lecturer(response):
    """A lesson page of the class's corpus that its lecturer opened (or swapped in with htmx) becomes the class's
    state, for its students to follow."""
    # A browser without a session cookie leads nothing; its session is not looked at, since looking marks a
    # response "Vary: Cookie" (a fragment's content does not depend on the cookie).
    if (request.method != "GET" or response.status_code != 200 or response.mimetype != "text/html"
            or not is_lesson_page() or current_app.config["SESSION_COOKIE_NAME"] not in request.cookies
            or not session.get("leading")):
        return response
    if came_from_elsewhere():
        return response  # a link from another site: the page offers "Show this to the class" instead
    record = led_class(session["leading"])
    linking = g.get("linking")  # the page's lesson: its short address is what the lecturer's address bar shows
    address = followed_address(linking.short_address() if linking is not None else None)
    if (record is not None and record.running(now()) and record.state != address
            and (request.view_args or {}).get("corpus_id") == record.corpus_id):
        move_class(record.code, address)  # a write only when the lecturer moved, not on every page they open
    return response


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


def _followed_page_key():
    """The key of this request's page in the followed pages, or None when it is not a page every follower shares:
    a lesson page of the class's corpus, or a question not yet answered by this student nor revealed."""
    question_page = request.endpoint == "questions.show"
    if (request.method != "GET" or wants_json() or not (is_lesson_page() or question_page)
            or request.endpoint in NOT_SHARED_ENDPOINTS
            or current_app.config["SESSION_COOKIE_NAME"] not in request.cookies):
        return None
    code = session.get("class")
    if not code or not session.get("following") or leads(code):
        return None
    if NOT_SHARED_PARAMETERS & request.args.keys() or request.args.get("test", "") not in ("split", "training", ""):
        return None
    record = _polled_class(code)  # a state a moment old at most: an older version only means drawing the page
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
    question = _storage().question(record.code, number)
    return (question is not None and question.revealed_at is None and _storage().is_member(record.code, student_id())
            and _storage().own_answer(question.id, student_id()) is None)


@bp.before_app_request
def shared_followed_page():
    key = g.followed_page_key = _followed_page_key()
    if key is None:
        return None
    kept = current_app.extensions["webnb"]["followed_pages"].get(key)
    if kept is None:
        return None
    body, headers = kept
    return Response(body.replace(CSRF_PLACEHOLDER, generate_csrf()), mimetype="text/html", headers=headers)


@bp.after_app_request
def keep_followed_page(response):
    key = g.pop("followed_page_key", None)
    if key is None or response.status_code != 200 or response.mimetype != "text/html" or response.direct_passthrough:
        return response
    pages_kept = current_app.extensions["webnb"]["followed_pages"]
    if key not in pages_kept:
        token = generate_csrf()
        body = response.get_data(as_text=True)
        if token in body:
            vary = response.headers.get("Vary")
            pages_kept.put(key, (body.replace(token, CSRF_PLACEHOLDER), {"Vary": vary} if vary else {}))
    return response


# A poll may read a class this many seconds old (kept per process): 300 students poll 300 times a second, and the
# state changes every few seconds. This process forgets it at once when it moves or ends the class itself.
STATE_KEPT_SECONDS = 0.25


def _polled_states() -> dict:
    return current_app.extensions.setdefault("webnb_polled_classes", {})


def move_class(code: str, address: str) -> None:
    """Move the class to the lesson address ``address``: its followers open it when their event stream says so
    (webnb/room), or at their next poll."""
    version = _storage().set_class_state(code, address)
    _polled_states().pop(code, None)
    room_broker.publish(code, "move", {"version": version, "address": address, "running": True})


def _polled_class(code: str):
    kept = _polled_states().get(code)
    if kept is not None and time.monotonic() - kept[0] < STATE_KEPT_SECONDS:
        return kept[1]
    record = _storage().get_class(code)
    if record is not None:
        _polled_states()[code] = (time.monotonic(), record)
    return record


@bp.get("/classes/<code>/follow.json")
def follow_state(code: str):
    """What a student's page polls while its event stream is down: the class's state and its version (one row read
    at most every ``STATE_KEPT_SECONDS`` per process; no page drawn). Only for a member of the class or its
    lecturer, known from the signed session alone: anyone else gets the same 404 without any read, so that a running
    code and an unknown one answer alike and in the same time. A member polls within a budget of their own."""
    if session.get("class") != code and not leads(code):
        return refusal("Not your class", "This browser has not joined this class.", 404)
    if _polls_spent():
        response = refusal("Too many polls", "This page asked for the lecturer's slide many times in the last "
                           "minute; it asks again in a few seconds.", 429)
        response.headers["Retry-After"] = str(POLL_RETRY_SECONDS)
        return response
    record = _polled_class(code)
    if record is None:
        return refusal("Not your class", "This browser has not joined this class.", 404)
    response = jsonify(version=record.state_version, address=request.script_root + record.state,
                       running=record.running(now()))
    response.headers["Cache-Control"] = "no-store"
    return response


# A page polls once a second while its stream is down (twice when a poll fails): this leaves room for a reload or
# two, and stops a script that polls flat out.
POLLS_PER_MEMBER = "3 per second; 100 per minute"
POLL_RETRY_SECONDS = 5


def _polls_spent() -> bool:
    limiter = current_app.extensions.get("webnb_limiter")
    if not (limiter and limiter.enabled):
        return False
    counter = FixedWindowRateLimiter(limiter.limiter.storage)
    budget = current_app.config.get("WEBNB_FOLLOW_POLLS", POLLS_PER_MEMBER)
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


@dataclass(frozen=True)
class Room:
    """What a page shows of the class this browser is in: its lecturer's corner (the code and the join address) or
    a student's bar (following or exploring, and the state version their page shows)."""

    record: object
    role: str  # "lecturer" or "student"
    following: bool
    join_address: str

    @property
    def code(self) -> str:
        return self.record.code

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


@bp.app_template_global()
def class_room() -> Room | None:
    """The class this browser leads or joined, while it runs (None for everyone else, without a database read)."""
    code = session.get("leading") or session.get("class")
    if not code:
        return None
    record = _polled_class(code)
    if record is None or not record.running(now()):
        return None
    role = "lecturer" if leads(record.code) else "student"
    return Room(record, role, bool(session.get("following")), request.host + request.script_root + "/join")


bp.add_app_template_global(may_start, "may_start_class")
bp.add_app_template_global(followed_address)


def _links(code: str, secret: str) -> dict:
    base = request.host_url.rstrip("/") + request.script_root
    return {"code": code, "join_url": base + lectures.join_path(code),
            "lecturer_url": base + lectures.lecturer_path(code, secret), "join_form_url": base + "/join"}


@dataclass(frozen=True)
class QRCode:
    """The QR code of ``url`` as segno encodes it (error correction M, the quiet zone of 4 modules), drawn by the
    template as one SVG path of ``size`` × ``size`` modules: ``path`` fills each run of dark modules of a row."""

    url: str
    size: int
    path: str


def qr_code(url: str) -> QRCode:
    rows = list(segno.make(url, error="m").matrix_iter(scale=1, border=4))
    runs = []
    for y, row in enumerate(rows):
        x = 0
        while x < len(row):
            if row[x]:
                start = x
                while x < len(row) and row[x]:
                    x += 1
                runs.append(f"M{start} {y}h{x - start}v1h-{x - start}z")
            else:
                x += 1
    return QRCode(url, len(rows), "".join(runs))
