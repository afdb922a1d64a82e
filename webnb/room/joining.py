"""A class starts, and students join it: starting one from the browser, the lecturer's link and join slide (the code
in large type and its QR code), ending it, and students joining by the code (``/join``) or the QR code's address
(``/join/<code>``).

Who may start a class: in local mode the app's owner (anyone at the laptop); in hosted mode a browser that gave the
operator's instructor key (``WEBNB_INSTRUCTOR_KEY``; without it, hosted mode offers no control). Who leads a class:
the browser that started it or opened the lecturer's link, whose secret only the lecturer has.

Guessing codes is braked in hosted mode, where the rate limits apply (webnb/hosting/ratelimits.py), never the hall: past
``WRONG_CODES_PER_WORKSPACE`` wrong codes of a workspace or ``WRONG_CODES_PER_ADDRESS`` of its client address, every
try from there carries a proof of work (webnb/room/proof.py) before its code is looked at, and a right code with its
proof always gets in. Joining again a class this browser is in counts nothing. Instructor keys have counts of their
own.
"""
from __future__ import annotations

import hmac
from dataclasses import dataclass

import segno
from flask import Blueprint, Response, abort, current_app, jsonify, redirect, render_template, request, session, url_for
from jinja2_fragments.flask import render_block
from limits import parse as parse_limit
from limits.strategies import FixedWindowRateLimiter

from webnb.answers import refusal, wants_json
from webnb.hosting.admission import address_key
from webnb.hosting.workspaces import current_workspace, hosted, instructor_key
from webnb.room import broker as room_broker
from webnb.room import lecture, proof
from webnb.room.hall import (
    forget_state,
    headcount,
    in_the_deck,
    led_class,
    make_lecturer,
    member_of,
    move_class,
    not_the_lecturer,
    now,
    room_storage,
    student_id,
)
from webnb.views.common import catalog

bp = Blueprint("joining", __name__)

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
        response = Response(render_template("room/join.html", typed=typed[:100], message=PROOF_ASKED,
                                            challenge=challenge), mimetype="text/html")
    response.status_code = 429
    response.headers["Cache-Control"] = "no-store"
    return response


# --- joining ----------------------------------------------------------------------------------------------------------


@bp.get("/join")
def join_form():
    """One field for the code; the form sends it here as ``?code=``, which joins as ``/join/<code>`` does."""
    if "code" not in request.args:
        if wants_json():  # what the form asks, for a client that reads JSON
            return jsonify(join=url_for("joining.join_form"), field="code", message=None)
        return render_template("room/join.html", typed="", message=None)
    return _join(request.args.get("code", ""))


@bp.get("/join/<path:typed>")
def join(typed: str):
    """What the QR code opens."""
    return _join(typed)


def _join(typed: str):
    code = lecture.normalise_code(typed)
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
    record = None if code is None else room_storage().get_class(code)
    if record is None:
        guesses.missed()
        # The same words and status for a code that cannot be one and a code no class has.
        if wants_json():
            return refusal("No class has this code", WRONG_CODE, 404)
        # Past the budget, the form comes with the next try's challenge, so that it need not be asked for first.
        challenge = proof.make(current_app.config["SECRET_KEY"].encode("utf-8"), _proof_bits()) \
            if guesses.spent() else None
        return render_template("room/join.html", typed=typed[:100], message=WRONG_CODE, challenge=challenge), 404
    if not record.running(now()):
        return refusal("This class has ended", f"The class {record.code} has ended, so nobody can join it any more. "
                       "Ask your lecturer for the code of today's class.", 410)
    room_storage().join_class(record.code, student_id(), now=now())
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
    """Start a class from the browser (the form on the home page), which becomes its lecturer: in hosted mode, one
    that gives the operator's instructor key, or a course's instructor launched from the LMS (webnb/lti)."""
    if hosted() and session.get("lti_instructor") is not True:
        key, given = instructor_key(), request.form.get("instructor_key", "")
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
    started = lecture.start_class(room_storage(), entry.id, now=now())
    make_lecturer(started.code)
    # Started from a slide of the deck: the class opens on that slide.
    address = request.form.get("address", "")
    if address.startswith(f"/corpora/{entry.id}") and not address.startswith("//"):
        move_class(started.code, address)
    return render_template("room/started.html", record=started.record, entry=entry,
                           links=_links(started.code, started.secret))


@bp.get("/classes/<code>/lead/<secret>")
def lead(code: str, secret: str):
    """The lecturer's link: makes this browser the class's lecturer, then shows the join slide (without the secret
    in the address bar)."""
    record = room_storage().get_class(code)
    if record is None or not lecture.holds_secret(record, secret):
        return refusal("Not this class's lecturer's link", "This link does not lead any class: it may have been "
                       "copied incompletely. The lecturer's link is printed when the class starts.", 403)
    make_lecturer(record.code)
    return redirect(url_for("joining.slide", code=record.code), 303)


@bp.get("/classes/<code>")
def slide(code: str):
    """The join slide for the projector: the code in very large type and the QR code of the join address."""
    record = led_class(code)
    if record is None:
        # The same 404 for a code no class has and for a class this browser does not lead: the join slide tells
        # nothing of which codes exist (joining does, braked for wrong codes).
        return refusal("No such class here", "No class with this code is led from this browser. To join a class, "
                       "type its code on the join page; a lecturer opens this slide with the lecturer's link.", 404)
    session["leading"] = record.code
    entry = catalog().get(record.corpus_id)
    join_url = request.host_url.rstrip("/") + request.script_root + lecture.join_path(record.code)
    if wants_json():
        return {"class": record.code, "corpus": record.corpus_id, "join": join_url, "running": record.running(now()),
                "lesson": request.script_root + in_the_deck(record.state),
                "headcount": headcount(record.code).to_dict()}
    return render_template("room/slide.html", record=record, entry=entry, join_url=join_url,
                           lesson_address=request.script_root + in_the_deck(record.state),
                           qr=qr_code(join_url), running=record.running(now()))


@bp.get("/classes/<code>/headcount")
def headcount_now(code: str):
    """How many joined and follow now, for the lecturer's pages, which ask every few seconds (htmx), and as JSON."""
    record = led_class(code)
    if record is None:
        return refusal("No such class here", "No class with this code is led from this browser.", 404)
    counted = headcount(record.code)
    if wants_json():
        return counted.to_dict()
    return render_block("room/_headcount.html", "headcount", code=record.code, headcount=counted)


@bp.post("/classes/<code>/end")
def end(code: str):
    record = led_class(code)
    if record is None:
        return not_the_lecturer("Only the class's lecturer can end it.")
    room_storage().end_class(record.code, now=now())
    forget_state(record.code)
    # The followers' pages stop following (webnb/room: the event streams).
    room_broker.publish(record.code, "move", {"version": record.state_version, "address": record.state,
                                              "running": False})
    return redirect(url_for("joining.slide", code=record.code), 303)


def _links(code: str, secret: str) -> dict:
    base = request.host_url.rstrip("/") + request.script_root
    return {"code": code, "join_url": base + lecture.join_path(code),
            "lecturer_url": base + lecture.lecturer_path(code, secret), "join_form_url": base + "/join"}


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
