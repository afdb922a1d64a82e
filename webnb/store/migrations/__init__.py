"""The database schema's history, as Alembic revisions (``versions/``), applied at every start by :func:`upgrade`.

A database with no ``alembic_version`` table is either empty or was written by a release from before Alembic; the
first revision ("baseline") brings both to that release's schema, so every database then follows the same path.
To add a revision, write ``versions/NNNN_what_it_does.py`` with ``down_revision`` the previous one (no alembic.ini is
needed: see :func:`config`).
"""
from __future__ import annotations

import functools
import sqlite3
import time
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

HERE = Path(__file__).resolve().parent

# Any constant, the same in every release: PostgreSQL's transaction-scoped advisory lock that serializes upgrades
# of one database (ASCII "webnb-mg").
ADVISORY_LOCK_KEY = 0x7765626E622D6D67
SQLITE_BUSY_TIMEOUT_MS = 60_000  # a process that starts while another upgrades a large database waits for it


def config() -> Config:
    """Alembic's configuration, made in code: the scripts are this package's folder (inside an installed wheel too)."""
    settings = Config()
    settings.set_main_option("script_location", str(HERE))
    return settings


@functools.cache
def head() -> str:
    """The newest revision, read from the scripts once in a process (they ship with the package and do not change
    while it runs)."""
    return ScriptDirectory.from_config(config()).get_current_head()


def current(engine: sa.Engine) -> str | None:
    """The database's revision; None if it has none (empty, or written by a release from before Alembic)."""
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def revision_module(revision: str):
    """A revision's module (e.g. to reach the frozen ``content_hash`` of revision 0002)."""
    return ScriptDirectory.from_config(config()).get_revision(revision).module


def upgrade(engine: sa.Engine) -> None:
    """Bring the database to the newest revision; nothing to do if it is there already.

    Safe at every start, and when several processes start at once on one database: the whole upgrade is one
    transaction that first takes a lock (PostgreSQL: an advisory lock; SQLite: BEGIN IMMEDIATE, its write lock), so
    one process upgrades and the others, once they have the lock, find the database at the head. DDL is
    transactional on both, so an upgrade that fails leaves the database as it was.
    """
    if current(engine) == head():
        # Most starts: nothing to upgrade, so no lock and no revision scripts to load. A database an older release
        # wrote is below the head, and goes on to the locked upgrade, which reads the revision again under the lock.
        return
    if engine.dialect.name == "sqlite" and engine.url.database not in (None, "", ":memory:"):
        _upgrade_sqlite(engine.url)
        return
    # PostgreSQL, or an in-memory SQLite database (one connection's own: nobody else to wait for).
    with engine.begin() as connection:
        if engine.dialect.name == "postgresql":
            connection.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": ADVISORY_LOCK_KEY})
        _run(connection)


def _upgrade_sqlite(url: sa.URL) -> None:
    # An engine of our own rather than the caller's, whose connections may be set up otherwise (its own BEGIN,
    # foreign keys on): here every transaction is BEGIN IMMEDIATE, and foreign keys are off, as SQLite asks for while
    # tables are rebuilt (https://www.sqlite.org/lang_altertable.html#otheralter).
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool,
                              connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000})

    @sa.event.listens_for(engine, "connect")
    def configure(dbapi_connection, connection_record):
        dbapi_connection.isolation_level = None  # pysqlite's own BEGINs off: DDL must run inside ours
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
            cursor.execute("PRAGMA foreign_keys = OFF")
            _write_ahead_log(cursor)
        finally:
            cursor.close()

    @sa.event.listens_for(engine, "begin")
    def begin_immediate(connection):
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    try:
        with engine.begin() as connection:
            _run(connection)
    finally:
        engine.dispose()


def _write_ahead_log(cursor) -> None:
    """Put the database in WAL mode, the mode the app runs in (it persists in the file), before taking the lock:
    once it is, the app's connections, which ask for WAL too, need no lock for it while an upgrade runs. Switching
    needs a moment alone with the file and fails at once ("database is locked"), without the busy timeout, when
    another process is switching or writing: tried again, for as long as the busy timeout."""
    deadline = time.monotonic() + SQLITE_BUSY_TIMEOUT_MS / 1000
    pause = 0.005
    while True:
        try:
            cursor.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.25)


def _run(connection: sa.Connection) -> None:
    settings = config()
    settings.attributes["connection"] = connection  # env.py runs the revisions inside this transaction
    command.upgrade(settings, "head")
