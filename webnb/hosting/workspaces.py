"""Who owns what. In local mode (the instructor's laptop) there is one user and every corpus stored in local mode is
theirs. In hosted mode each browser gets an anonymous workspace: a random id of 128 bits in the signed session cookie
(Secure, HttpOnly, SameSite=Lax). A stored corpus belongs to the workspace that added it, and to no other; the
built-in corpora are shared, read-only.

A local-mode server refuses to start on a database where hosted workspaces stored corpora (``check_database``),
unless told to (``WEBNB_ALLOW_WORKSPACES``, ``webnb serve --allow-workspaces``); even then it lists only the corpora
stored in local mode (``ScopedCatalog.stored``), never a workspace's."""
from __future__ import annotations

import itertools
import logging
import os
import secrets
import threading
import time
from datetime import timedelta

import sqlalchemy as sa
from flask import current_app, g, request, session

from webnb.hosting import admission
from webnb.hosting.catalog import Quota
from webnb.store.database import ANY_WORKSPACE

logger = logging.getLogger(__name__)

MODES = ("local", "hosted")
MIN_SECRET_BYTES = 32
# What a workspace may store in hosted mode, unless the config says otherwise (documented in the README).
HOSTED_QUOTA = {
    "WEBNB_QUOTA_CORPORA": 20,
    "WEBNB_QUOTA_DOCUMENTS": 50_000,
    "WEBNB_QUOTA_CHARACTERS": 60_000_000,
    "WEBNB_QUOTA_VOCABULARY": 500_000,
}
# Workspaces not seen for this many days are removed by ``webnb cleanup``, with everything they stored.
RETENTION_DAYS = 30
# A workspace's last visit is written at most this often per workspace and process: 300 students must not
# make a database write each per request, and a day's precision is all that retention needs.
SEEN_EVERY_SECONDS = 3600
# How a configuration or the environment says yes (WEBNB_ALLOW_WORKSPACES=1).
YES = ("1", "true", "yes", "on")


def init_app(app) -> None:
    mode = app.config.setdefault("WEBNB_MODE", os.environ.get("WEBNB_MODE", "local"))
    if mode not in MODES:
        raise RuntimeError(f"WEBNB_MODE is {mode!r}; it must be one of {', '.join(MODES)}.")
    app.config.setdefault("WEBNB_RETENTION_DAYS", float(os.environ.get("WEBNB_RETENTION_DAYS", RETENTION_DAYS)))
    if mode != "hosted":
        # Whether local mode may start on a database where hosted workspaces stored corpora (see check_database).
        app.config.setdefault("WEBNB_ALLOW_WORKSPACES", os.environ.get("WEBNB_ALLOW_WORKSPACES", ""))
        # The laptop's owner decides what to store; a storage budget applies only if they set one.
        if "WEBNB_MAX_STORED_BYTES" in os.environ:
            app.config.setdefault("WEBNB_MAX_STORED_BYTES", int(os.environ["WEBNB_MAX_STORED_BYTES"]))
        return
    key = app.config.get("SECRET_KEY") or ""
    if key == "dev" or len(key.encode() if isinstance(key, str) else key) < MIN_SECRET_BYTES:
        raise RuntimeError(
            f"Hosted mode signs every workspace cookie: set WEBNB_SECRET_KEY to a random secret of at least "
            f"{MIN_SECRET_BYTES} bytes, for example the output of: "
            "python -c 'import secrets; print(secrets.token_urlsafe(48))'"
        )
    for name, default in {**HOSTED_QUOTA, **admission.SETTINGS}.items():
        app.config.setdefault(name, type(default)(os.environ.get(name, default)))
    share = app.config["WEBNB_WORKSPACE_SHARE"]
    if not 0 <= share <= 1:
        raise RuntimeError(f"WEBNB_WORKSPACE_SHARE is {share!r}: it is the fraction of an address's hourly bytes one "
                           "workspace may store, between 0 and 1, such as 0.05 (0 switches it off).")
    # Read once, here: a value that cannot be used stops the start with a message rather than a request later.
    app.config.setdefault("WEBNB_SUBNET_LIMITS", os.environ.get("WEBNB_SUBNET_LIMITS"))
    app.extensions["webnb_subnet_limits"] = admission.SubnetLimits.parse(app.config["WEBNB_SUBNET_LIMITS"])
    # How long storing takes in this process, so that storing records stored already takes as long.
    app.extensions["webnb_store_pace"] = admission.StorePace()
    # Flask's defaults are replaced; a value the deployment set itself is kept.
    # Secure unless the deployment says WEBNB_COOKIE_SECURE = False (only for a closed network served over http).
    app.config["SESSION_COOKIE_SECURE"] = bool(app.config.get("WEBNB_COOKIE_SECURE", True))
    for name, value in (
        ("SESSION_COOKIE_NAME", "webnb"),
        ("SESSION_COOKIE_HTTPONLY", True),
        ("SESSION_COOKIE_SAMESITE", "Lax"),
        ("PERMANENT_SESSION_LIFETIME", timedelta(days=120)),  # a term, and then some
    ):
        if app.config.get(name) == app.default_config.get(name):
            app.config[name] = value
    app.before_request(_ensure_workspace)
    app.extensions["webnb_last_seen"] = LastSeen()
    app.before_request(_note_seen)


def check_database(app, storage) -> None:
    """Refuse to start in local mode on a database where hosted workspaces stored corpora (local mode has no
    workspaces: everything would be one user's), unless WEBNB_ALLOW_WORKSPACES says so. RuntimeError says how many,
    and the ways on."""
    if app.config.get("WEBNB_MODE") == "hosted" or _yes(app.config.get("WEBNB_ALLOW_WORKSPACES")):
        return
    workspaces, corpora = hosted_contents(storage)
    if not workspaces:
        return
    held = f"{workspaces:,} hosted workspace{'s' if workspaces != 1 else ''}"
    stored = f"{corpora:,} corpus" if corpora == 1 else f"{corpora:,} corpora"
    raise RuntimeError(
        f"This database holds {held} ({stored} that students stored in hosted mode), and webnb is starting in local "
        "mode, where everything stored would be one user's. Nothing was started. To serve the students, start in "
        "hosted mode (WEBNB_MODE=hosted, with its WEBNB_SECRET_KEY); to start afresh, give another database "
        "(WEBNB_DATABASE_URL); to start in local mode on this database anyway, showing only the corpora stored in "
        "local mode, the built-ins and the class corpora, run `webnb serve --allow-workspaces`, or set "
        "WEBNB_ALLOW_WORKSPACES=1 in the environment (flask run, gunicorn) or WEBNB_ALLOW_WORKSPACES = True in "
        "instance/config.py."
    )


def hosted_contents(storage) -> tuple[int, int]:
    """(workspaces, corpora): how many hosted workspaces hold corpora in ``storage``, and how many corpora they hold
    (the corpora name their workspace; a workspace's row alone, its corpora gone, holds nothing to show)."""
    from webnb.store.database import corpora

    query = sa.select(sa.func.count(sa.distinct(corpora.c.workspace)), sa.func.count()).where(
        corpora.c.workspace.is_not(None))
    with storage.engine.connect() as connection:
        workspaces, stored = connection.execute(query).one()
    return int(workspaces), int(stored)


def _yes(value) -> bool:
    return value is True or (isinstance(value, (str, int)) and str(value).strip().lower() in YES)


def _ensure_workspace() -> None:
    if "workspace" not in session:
        session["workspace"] = secrets.token_urlsafe(16)  # 128 random bits
        session.permanent = True
        g.new_workspace = True  # nothing stored in it yet: nothing to note as seen


def hosted() -> bool:
    return current_app.config.get("WEBNB_MODE") == "hosted"


def current_workspace():
    """This browser's workspace id in hosted mode; ANY_WORKSPACE in local mode, where everything is shared."""
    if not hosted():
        return ANY_WORKSPACE
    if "workspace" not in session:
        _ensure_workspace()
    return session["workspace"]


def quota() -> Quota | None:
    """The per-workspace limits in hosted mode, with the limits per client address and the server's storage
    budget. None in local mode (the laptop's owner decides), unless a storage budget is set there."""
    config = current_app.config
    if not hosted():
        budget = config.get("WEBNB_MAX_STORED_BYTES")
        return Quota.unlimited(admission.Admission(address=None, max_stored_bytes=budget)) if budget else None
    # ProxyFix has put the client's own address here when WEBNB_PROXIES says how many proxies to trust.
    address = request.remote_addr
    limits = current_app.extensions["webnb_subnet_limits"].limits(
        address, {name: config[name] for name in admission.PER_ADDRESS})
    return Quota(
        corpora=config["WEBNB_QUOTA_CORPORA"],
        documents=config["WEBNB_QUOTA_DOCUMENTS"],
        characters=config["WEBNB_QUOTA_CHARACTERS"],
        vocabulary=config["WEBNB_QUOTA_VOCABULARY"],
        admission=admission.Admission(
            address=admission.address_key(address, config["SECRET_KEY"]),
            new_workspaces_per_hour=limits["WEBNB_NEW_WORKSPACES_PER_HOUR"],
            new_workspaces_per_minute=limits["WEBNB_NEW_WORKSPACES_PER_MINUTE"],
            stored_bytes_per_hour=limits["WEBNB_STORED_BYTES_PER_HOUR"],
            stored_bytes_per_minute=limits["WEBNB_STORED_BYTES_PER_MINUTE"],
            workspace_share=config["WEBNB_WORKSPACE_SHARE"],
            new_workspace_bytes=admission.NEW_WORKSPACE_BYTES,
            max_stored_bytes=config["WEBNB_MAX_STORED_BYTES"],
            limiter=admission.app_limiter(current_app),
            pace=current_app.extensions["webnb_store_pace"],
        ),
    )


class LastSeen:
    """Which workspaces this process marked as seen, and when (by ``clock``, in seconds): a workspace is due
    again ``every`` seconds later. Holds at most ``most`` workspaces, forgetting the longest-seen first."""

    def __init__(self, every: float = SEEN_EVERY_SECONDS, clock=time.monotonic, most: int = 100_000):
        self.every, self.clock, self.most = every, clock, most
        self._seen: dict[str, float] = {}
        self._lock = threading.Lock()

    def due(self, workspace: str) -> bool:
        """True (and noted) if ``workspace`` was not marked in the last ``every`` seconds."""
        now = self.clock()
        with self._lock:
            marked = self._seen.get(workspace)
            if marked is not None and now - marked < self.every:
                return False
            self._seen.pop(workspace, None)  # re-inserted at the end: the dict stays in order of marking
            self._seen[workspace] = now
            if len(self._seen) > self.most:
                # A tenth at a time, so that a flood of fresh cookies does not copy the keys on every request.
                for old in list(itertools.islice(self._seen, self.most // 10 + 1)):
                    del self._seen[old]
            return True


def _note_seen() -> None:
    """Keep the workspace's last visit for retention (a write at most once an hour per workspace and process,
    and only for a workspace that stored something)."""
    workspace = session.get("workspace")
    if workspace is None or g.get("new_workspace") or request.endpoint == "static":
        return
    if not current_app.extensions["webnb_last_seen"].due(workspace):
        return
    storage = current_app.extensions["webnb"]["storage"]
    try:
        storage.touch_workspace(workspace, every=timedelta(seconds=SEEN_EVERY_SECONDS))
    except sa.exc.SQLAlchemyError as error:
        # The page itself decides what a database outage means; the visit is noted next hour.
        logger.warning("Could not note that a workspace was seen: %s", type(error).__name__)


# --- who may start a class: the owner in local mode; in hosted mode whoever gave the operator's instructor key, or
# whom the LMS launched as a course's instructor (webnb/lti/views.py) ---


def may_start() -> bool:
    """Whether this browser may start a class: the owner in local mode; in hosted mode one that gave the key, or one
    that a course launched as its instructor."""
    return (not hosted() or (bool(instructor_key()) and session.get("instructor") is True)
            or session.get("lti_instructor") is True)


def offers_start() -> bool:
    """Whether the home page offers "Start a class" here at all (hosted mode without a key offers nothing, except to
    a course's instructor launched from the LMS)."""
    return not hosted() or bool(instructor_key()) or session.get("lti_instructor") is True


def instructor_key() -> str:
    return current_app.config.get("WEBNB_INSTRUCTOR_KEY") or ""
