"""When the database cannot be reached: a 503 in webnb's own words instead of Flask's bare 500.

A cut connection, a database server that is restarting or refusing connections, a pool that stays exhausted or
an SQLite file that cannot be opened all surface as one of the SQLAlchemy errors in ``STORAGE_ERRORS``. Each
request that meets one answers 503 with a page (or, for a JSON client, ``{"error": …}``) that says the storage is
unavailable and that nothing was stored, and a ``Retry-After`` header. Every write is one transaction, so a
request cut short leaves nothing behind. The pages of corpora already in memory keep working.

The log gets one warning when an outage starts (no traceback: the cause is outside webnb) and one line when a
statement succeeds again, not one per refused request. Recovery needs nothing from webnb: PostgreSQL's pool
pings a connection before handing it out (``pool_pre_ping``) and replaces the dead ones.
"""
from __future__ import annotations

import threading

import sqlalchemy as sa
from flask import jsonify, make_response, render_template

from webnb import security

RETRY_AFTER_SECONDS = 30
STORAGE_UNAVAILABLE = (
    "The storage is unavailable: webnb cannot reach its database just now. Nothing was stored. "
    "Wait a minute and try again."
)
# Raised for connection trouble: the driver's own (OperationalError, InterfaceError), a connection the pool found
# dead (DisconnectionError), or no connection free in time (TimeoutError). Errors in webnb's own SQL are
# ProgrammingError or IntegrityError and stay 500s, to be fixed.
STORAGE_ERRORS = (sa.exc.OperationalError, sa.exc.InterfaceError, sa.exc.DisconnectionError, sa.exc.TimeoutError)


def init_app(app) -> None:
    outage = Outage(app.logger)
    app.extensions["webnb"]["outage"] = outage
    # A statement that went through ends the outage; listening on the engine also catches the background jobs'.
    sa.event.listen(app.extensions["webnb"]["storage"].engine, "after_cursor_execute", outage.statement_succeeded)
    for error_class in STORAGE_ERRORS:
        app.register_error_handler(error_class, outage.respond)
    app.register_error_handler(500, server_error)


SERVER_ERROR = ("Something went wrong on the server, so this request was not completed. Nothing was stored. "
                "Try again; if it happens again, the page's address helps whoever runs this server find out why.")


def server_error(_error):
    """A bug of webnb's own: its own page (or JSON), never Flask's bare one and never the exception's text, which
    the log keeps (Flask logs it before this runs)."""
    if security.wants_json():
        return make_response(jsonify({"error": SERVER_ERROR}), 500)
    return make_response(render_template("refused.html", title="Something went wrong", message=SERVER_ERROR), 500)


class Outage:
    """Whether the database is failing, so that an outage is logged once rather than once per request."""

    def __init__(self, logger):
        self._logger = logger
        self._lock = threading.Lock()
        self.failing = False
        self.refused = 0  # requests answered 503 during the current outage

    def respond(self, error):
        self.failed(error)
        if security.wants_json():
            response = make_response(jsonify({"error": STORAGE_UNAVAILABLE}), 503)
        else:
            response = make_response(
                render_template("unavailable.html", title="Storage unavailable", message=STORAGE_UNAVAILABLE), 503
            )
        response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response

    def failed(self, error) -> None:
        with self._lock:
            self.refused += 1
            if self.failing:
                return
            self.failing = True
        self._logger.warning(
            "The database cannot be reached (%s); requests that need it answer 503 until it can. "
            "This is said once per outage.", describe(error),
        )

    def statement_succeeded(self, *_event_arguments) -> None:
        if not self.failing:  # the common case, without the lock
            return
        with self._lock:
            if not self.failing:
                return
            refused, self.failing, self.refused = self.refused, False, 0
        self._logger.warning("The database answers again; %d requests were answered 503 meanwhile.", refused)


def describe(error) -> str:
    """The driver's first line (host and port, never the statement or its parameters, which hold user text)."""
    cause = getattr(error, "orig", None) or error
    lines = str(cause).strip().splitlines()
    return f"{type(cause).__name__}: {lines[0]}" if lines else type(cause).__name__
