"""When the database cannot be reached: a 503 in webnb's own words instead of Flask's bare 500; and every other
error a request meets (a 4xx of Flask's or Werkzeug's, a bug of webnb's own) on webnb's own page too.

A cut connection, a database server that is restarting or refusing connections, a pool that stays exhausted or
an SQLite file that cannot be opened all surface as one of the SQLAlchemy errors in ``STORAGE_ERRORS``. Each
request that meets one answers 503 with a page (or, for a JSON client, ``{"error": …}``) that says the storage is
unavailable and that nothing was stored, and a ``Retry-After`` header. Every write is one transaction, so a
request cut short leaves nothing behind. The pages of corpora already in memory keep working.

A full disk is not an outage: waiting does not help, so it answers 507 with ``DISK_FULL`` and asks for whoever runs
the server (``describe_storage_error`` tells the two apart, for the background jobs too), and each refused write is
logged.

The log gets one warning when an outage starts (no traceback: the cause is outside webnb) and one line when a
statement succeeds again, not one per refused request. Recovery needs nothing from webnb: PostgreSQL's pool
pings a connection before handing it out (``pool_pre_ping``) and replaces the dead ones.
"""
from __future__ import annotations

import sqlite3
import threading

import sqlalchemy as sa
from flask import jsonify, make_response, render_template, request
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException

from webnb import security

RETRY_AFTER_SECONDS = 30
STORAGE_UNAVAILABLE = (
    "The storage is unavailable: webnb cannot reach its database just now. Nothing was stored. "
    "Wait a minute and try again."
)
DISK_FULL = "The server's disk is full, so nothing was stored. Tell whoever runs this server."
POSTGRES_DISK_FULL = "53100"  # the SQLSTATE of PostgreSQL's disk_full
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
    # The least specific handler: a page's own handler for a status (413) or an exception class (rate limits) wins.
    app.register_error_handler(HTTPException, client_error)


SERVER_ERROR = ("Something went wrong on the server, so this request was not completed. Nothing was stored. "
                "Try again; if it happens again, the page's address helps whoever runs this server find out why.")


def refusal(title: str, message: str, status: int, template: str = "refused.html"):
    """``message`` on webnb's own page (``template``, which shows ``title`` and ``message``), or as
    ``{"error": message}`` for a client that asked for JSON: how every error a request meets is answered."""
    if security.wants_json():
        return make_response(jsonify({"error": message}), status)
    return make_response(render_template(template, title=title, message=message), status)


def server_error(_error):
    """A bug of webnb's own: its own page (or JSON), never Flask's bare one and never the exception's text, which
    the log keeps (Flask logs it before this runs)."""
    return refusal("Something went wrong", SERVER_ERROR, 500)


# Per status, a title and what to tell the user when the error came without words of webnb's own.
CLIENT_ERRORS = {
    400: ("This request cannot be used", "The request could not be used as it was sent, so nothing was changed. "
                                         "Go back, correct the address or the form, and try again."),
    403: ("Not allowed", "This request is not allowed, so nothing was changed. Use webnb's own pages and forms."),
    404: ("Page not found", "There is no page at this address. Check the address for a typo, or start again from "
                            "the list of corpora."),
}


def client_error(error: HTTPException):
    """A 4xx that Flask, Werkzeug or an ``abort(…)`` raised, on webnb's own page (or as ``{"error": …}``): what was
    wrong and what to do, with the headers the status needs (``Allow`` of a 405). Other statuses pass through."""
    if error.code is None or not 400 <= error.code < 500:
        return error.get_response()
    title, message = _client_error_words(error)
    response = refusal(title, message, error.code)
    for name, value in error.get_headers():
        if name.lower() != "content-type":
            response.headers[name] = value
    return response


def _client_error_words(error: HTTPException) -> tuple[str, str]:
    if isinstance(error, CSRFError):
        return "The form could not be accepted", (
            f"The form was sent without a valid security token ({error.description.rstrip('.')}), so nothing was "
            "changed. Reload the page and send the form again.")
    if error.code == 405:
        allowed = f" (only {', '.join(error.valid_methods)})" if getattr(error, "valid_methods", None) else ""
        return "Not a request this address takes", (
            f"This address does not take a {request.method} request{allowed}. Nothing was changed. Use the links "
            "and forms of webnb's own pages.")
    title, generic = CLIENT_ERRORS.get(error.code, (error.name, f"{error.name}: this request was refused, so nothing "
                                                                "was changed. Go back and try again."))
    said = error.description if error.description != type(error).description else None  # words of abort(code, …)
    return title, said or generic


class Outage:
    """Whether the database is failing, so that an outage is logged once rather than once per request."""

    def __init__(self, logger):
        self._logger = logger
        self._lock = threading.Lock()
        self.failing = False
        self.refused = 0  # requests answered 503 during the current outage

    def respond(self, error):
        if is_disk_full(error):
            self._logger.warning("The database's disk is full (%s): a write was refused.", describe(error))
            return refusal("The server's disk is full", DISK_FULL, 507, "unavailable.html")
        self.failed(error)
        response = refusal("Storage unavailable", STORAGE_UNAVAILABLE, 503, "unavailable.html")
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


def is_disk_full(error) -> bool:
    """Whether the database refused a write because its disk is full: SQLite's SQLITE_FULL ("database or disk is
    full") or PostgreSQL's disk_full (SQLSTATE 53100), as the driver raised it or wrapped by SQLAlchemy."""
    cause = getattr(error, "orig", None) or error
    if getattr(cause, "sqlstate", None) == POSTGRES_DISK_FULL or getattr(cause, "pgcode", None) == POSTGRES_DISK_FULL:
        return True
    if isinstance(cause, sqlite3.Error):
        code = getattr(cause, "sqlite_errorcode", None)  # set by sqlite3 itself; the message says it too
        return (code is not None and code & 0xFF == sqlite3.SQLITE_FULL) or "database or disk is full" in str(cause)
    return False


def describe_storage_error(error) -> str:
    """What to tell the user about one of ``STORAGE_ERRORS``: ``DISK_FULL`` or ``STORAGE_UNAVAILABLE``."""
    return DISK_FULL if is_disk_full(error) else STORAGE_UNAVAILABLE

