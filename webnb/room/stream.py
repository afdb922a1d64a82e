"""The app's own event stream of a class, ``/classes/<code>/events`` (webnb/room/events.py says what it carries).

In local mode (``webnb serve``, the threaded development server) the app serves it itself: a laptop's class holds a
few dozen streams, a thread each. In hosted mode the reverse proxy sends this address to ``webnb events`` instead
(webnb/room/events_server.py), which holds thousands of streams without a gunicorn thread each; a stream request that
reaches the app there anyway (a proxy not set up for it) answers 503, and the page follows by polling.
``WEBNB_EVENTS_IN_APP`` (default: on in local mode, off in hosted mode) says which.
"""
from __future__ import annotations

import logging

from flask import Blueprint, Response, current_app, request, session

from webnb.answers import refusal
from webnb.hosting.workspaces import hosted
from webnb.room import events
from webnb.room.broker import BrokerUnavailable
from webnb.room.hall import now

bp = Blueprint("events", __name__)
logger = logging.getLogger("webnb.room")


def init_app(app) -> None:
    app.config.setdefault("WEBNB_EVENTS_IN_APP", app.config.get("WEBNB_MODE") != "hosted")
    app.config.setdefault("WEBNB_EVENTS_HEARTBEAT_SECONDS", events.HEARTBEAT_SECONDS)
    app.register_blueprint(bp)


@bp.get("/classes/<code>/events")
def class_events(code: str):
    """The class's events as server-sent events, for its lecturer and its members (anyone else: 404)."""
    storage = current_app.extensions["webnb"]["storage"]
    found = events.listener(session, code, storage, hosted=hosted())
    if found is None:
        return refusal("Not your class", events.NOT_YOUR_CLASS, 404)
    if not current_app.config["WEBNB_EVENTS_IN_APP"]:
        if not current_app.extensions["webnb"]["events_misrouted"]:
            current_app.extensions["webnb"]["events_misrouted"] = True
            logger.warning("A class's event stream reached the app, which does not serve them here (hosted mode): "
                           "route /classes/<code>/events to `webnb events` (README, Hosting a lecture hall). The "
                           "students' pages follow by polling meanwhile.")
        return _unavailable("This server's event streams are served by another process; this page follows the "
                            "lecturer by asking once a second.")
    record, role = found
    holder = events.listener_key(session, code, role, hosted=hosted())
    following = role == "student" and bool(session.get("following"))
    open_streams = current_app.extensions["webnb"]["open_streams"]
    if not open_streams.take(holder, role, following):
        response = refusal("Too many open pages", events.TOO_MANY_STREAMS, 429)
        response.headers["Retry-After"] = "30"
        return response
    broker = current_app.extensions["webnb"]["broker"]

    def closed():
        open_streams.give_back(holder, following)
        broker.record_presence(record.code, open_streams.presence(record.code))

    try:
        subscription = broker.subscribe(record.code)
    except BrokerUnavailable:
        open_streams.give_back(holder, following)
        return _unavailable("The class's events cannot be heard now; this page follows the lecturer by asking once "
                            "a second.")
    # Read again after subscribing, so that a move made in between is in the state sent first or heard after it.
    record = storage.get_class(record.code) or record
    broker.record_presence(record.code, open_streams.presence(record.code))
    opening = events.opening(record, now(), request.script_root)
    return Response(_stream(subscription, role, opening, request.script_root,
                            float(current_app.config["WEBNB_EVENTS_HEARTBEAT_SECONDS"]), closed),
                    mimetype="text/event-stream",
                    headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


def _stream(subscription, role: str, opening: bytes, root: str, heartbeat: float, closed):
    """The bytes of one stream, until the browser goes (the server closes this generator) or the broker ends the
    subscription. Holds no request context: the request is over once the stream starts."""
    try:
        yield opening
        while True:
            event = subscription.next_event(heartbeat)
            if subscription.ended:
                return
            if event is None:
                yield events.HEARTBEAT
            elif events.hears(role, event):
                yield events.wire(event, root)
    finally:
        subscription.end()
        closed()


def _unavailable(message: str):
    response = refusal("No event stream here", message, 503)
    response.headers["Retry-After"] = "30"
    return response
