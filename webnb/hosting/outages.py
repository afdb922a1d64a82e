"""When the database cannot be reached: what webnb knows of it (which errors mean it, whether an outage is on, how
to log it once); webnb/errors.py answers the requests that meet it with a 503 in webnb's own words.

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


class Outage:
    """Whether the database is failing, so that an outage is logged once rather than once per request."""

    def __init__(self, logger):
        self._logger = logger
        self._lock = threading.Lock()
        self.failing = False
        self.refused = 0  # requests answered 503 during the current outage

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

