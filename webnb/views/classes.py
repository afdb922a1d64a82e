"""A class in the room: starting one from the browser, the lecturer's join slide (the code in large type and its QR
code), ending it, and students joining by the code (``/join``) or the QR code's address (``/join/<code>``).

Who may start a class: in local mode the app's owner (anyone at the laptop); in hosted mode a browser that gave the
operator's instructor key (``WEBNB_INSTRUCTOR_KEY``; without it, hosted mode offers no control). Who leads a class:
the browser that started it or opened the lecturer's link, whose secret only the lecturer has.

Guessing codes is limited in hosted mode, where the rate limits apply (webnb/ratelimits.py): at most
``WRONG_CODES_PER_WORKSPACE`` wrong codes per workspace and ``WRONG_CODES_PER_ADDRESS`` per client address, and
``JOINS_PER_ADDRESS`` joins per address in all (a lecture hall of 300 behind one NAT joins within two minutes).
"""
from __future__ import annotations

import hmac
from dataclasses import dataclass
from datetime import datetime, timezone

import segno
from flask import Blueprint, abort, current_app, redirect, render_template, request, session, url_for
from limits import parse as parse_limit
from limits.strategies import FixedWindowRateLimiter

from webnb import classes as lectures
from webnb.admission import address_key
from webnb.errors import refusal
from webnb.security import wants_json
from webnb.views.common import catalog
from webnb.workspaces import current_workspace, hosted

bp = Blueprint("classes", __name__)

WRONG_CODES_PER_WORKSPACE = "10 per minute"
WRONG_CODES_PER_ADDRESS = "60 per minute"
JOINS_PER_ADDRESS = "600 per 2 minutes"
WRONG_CODE = ("No running class has this code. Check the code on the projector (six letters and digits, such as "
              "3X9KQR) and type it again.")


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


# --- guessing codes -------------------------------------------------------------------------------------------------


class _Guesses:
    """The counts of wrong codes and joins, in the rate limiter's storage (shared by every process when it is Redis);
    nothing is counted where the rate limits are off (local mode)."""

    def __init__(self):
        limiter = current_app.extensions.get("webnb_limiter")
        self.enabled = bool(limiter and limiter.enabled)
        if self.enabled:
            self.counter = FixedWindowRateLimiter(limiter.limiter.storage)
            address = address_key(request.remote_addr, current_app.config["SECRET_KEY"])
            workspace = current_workspace()
            self.wrong = [(parse_limit(WRONG_CODES_PER_WORKSPACE), "webnb-wrong-code", "workspace", workspace),
                          (parse_limit(WRONG_CODES_PER_ADDRESS), "webnb-wrong-code", "address", address)]
            self.joins = [(parse_limit(JOINS_PER_ADDRESS), "webnb-join", "address", address)]

    def refused(self) -> bool:
        """True when this workspace or address may not try another code now."""
        return self.enabled and not all(self.counter.test(*limit) for limit in self.wrong + self.joins)

    def joined(self) -> None:
        if self.enabled:
            for limit in self.joins:
                self.counter.hit(*limit)

    def missed(self) -> None:
        if self.enabled:
            for limit in self.wrong + self.joins:
                self.counter.hit(*limit)


def _too_many():
    response = refusal("Too many codes tried", "Too many codes were tried from this browser or this network in the "
                       "last minute. Wait a minute, check the code on the projector, and try again.", 429)
    response.headers["Retry-After"] = "60"
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
    guesses = _Guesses()
    if guesses.refused():
        return _too_many()
    code = lectures.normalise_code(typed)
    record = None if code is None else _storage().get_class(code)
    if record is None:
        guesses.missed()
        # The same words and status for a code that cannot be one and a code no class has.
        if wants_json():
            return refusal("No class has this code", WRONG_CODE, 404)
        return render_template("classes/join.html", typed=typed[:100], message=WRONG_CODE), 404
    guesses.joined()
    if not record.running(now()):
        return refusal("This class has ended", f"The class {record.code} has ended, so nobody can join it any more. "
                       "Ask your lecturer for the code of today's class.", 410)
    if hosted():
        _storage().join_class(record.code, current_workspace(), now=now())
    session["class"] = record.code
    return redirect(request.script_root + record.state, 303)


# --- starting, leading, ending ------------------------------------------------------------------------------------


@bp.post("/classes")
def start():
    """Start a class from the browser (the form on the home page), which becomes its lecturer."""
    if hosted():
        key, given = _instructor_key(), request.form.get("instructor_key", "")
        if not key:
            abort(404)
        if session.get("instructor") is not True:
            guesses = _Guesses()
            if guesses.refused():
                return _too_many()
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
    record = _storage().get_class(code)
    if record is None or not leads(record.code):
        return refusal("Only the lecturer sees this page", "This page belongs to the class's lecturer. To join the "
                       "class, type its code on the join page.", 403)
    entry = catalog().get(record.corpus_id)
    join_url = request.host_url.rstrip("/") + request.script_root + lectures.join_path(record.code)
    return render_template("classes/slide.html", record=record, entry=entry, join_url=join_url,
                           qr=qr_code(join_url), running=record.running(now()))


@bp.post("/classes/<code>/end")
def end(code: str):
    record = _storage().get_class(code)
    if record is None or not leads(record.code):
        return refusal("Only the lecturer can end this class", "Only the class's lecturer can end it; nothing was "
                       "changed.", 403)
    _storage().end_class(record.code, now=now())
    return redirect(url_for("classes.slide", code=record.code), 303)


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
