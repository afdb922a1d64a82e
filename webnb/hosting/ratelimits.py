"""Rate limits in hosted mode, per workspace rather than per IP address: a lecture hall shares one address.

Flask-Limiter counts the requests. With one process the counts can live in memory; with several (gunicorn's
workers, or several hosts) they must be shared: set WEBNB_RATE_LIMIT_STORAGE to a Redis URL
(``redis://127.0.0.1:6379``), which every process then reads and writes.

When Redis cannot be reached, each process counts in its own memory instead (Flask-Limiter's in-memory fallback),
so a student may get up to N times the limit from N processes, and webnb keeps serving. The log says so once per
outage. Flask-Limiter 4.1 asks Redis again from a request 1, 2, 4, 8, 16 and 32 seconds after the previous
attempt (then 1 s again), and goes back to it as soon as it answers. A Redis that accepts connections but never
answers costs at most ``REDIS_TIMEOUT_SECONDS`` per attempt.
"""
from __future__ import annotations

import logging
import os

from flask import current_app, request
from flask_limiter import Limiter

from webnb.hosting.workspaces import current_workspace

# Typing a review sends a request per pause (debounced), moving α one per change: a busy student makes a few
# a second at most.
DEFAULT_LIMIT = "30 per 5 seconds; 900 per 10 minutes"


POLLED_FREELY = frozenset({"static", "following.follow_state", "questions.tally"})

REDIS_TIMEOUT_SECONDS = 1.0
# Flask-Limiter's own words when it switches store, replaced by webnb's (see _SwitchReport).
_FELL_BACK = "Rate limit storage unreachable"
_RECOVERED = "Rate limit storage recovered"


def _workspace_key() -> str:
    return f"workspace:{current_workspace()}"


def _default_limits() -> str:
    return current_app.config["WEBNB_RATE_LIMIT"]


def init_app(app) -> None:
    app.config.setdefault("WEBNB_RATE_LIMIT", os.environ.get("WEBNB_RATE_LIMIT", DEFAULT_LIMIT))
    storage_uri = app.config.setdefault(
        "RATELIMIT_STORAGE_URI", os.environ.get("WEBNB_RATE_LIMIT_STORAGE", app.config.get("WEBNB_RATE_LIMIT_STORAGE", "memory://"))
    )
    # Only a shared, hosted server limits anyone; the instructor's own laptop never does.
    app.config.setdefault("RATELIMIT_ENABLED", app.config.get("WEBNB_MODE") == "hosted")
    app.config.setdefault("RATELIMIT_HEADERS_ENABLED", True)
    # Retry-After is webnb's own (webnb/errors.py): the whole seconds its message names, rounded up. Flask-Limiter
    # would overwrite it with its own, rounded down (0 in the last second of a window).
    app.config.setdefault("RATELIMIT_HEADER_RETRY_AFTER", "X-RateLimit-Retry-After")
    app.config.setdefault("RATELIMIT_IN_MEMORY_FALLBACK_ENABLED", True)  # a Redis restart must not take the app down
    if storage_uri.startswith(("redis", "rediss", "valkey")):
        # Without timeouts a Redis that hangs would hang every request with it. (Options in the URL win.)
        app.config.setdefault("RATELIMIT_STORAGE_OPTIONS", {
            "socket_connect_timeout": REDIS_TIMEOUT_SECONDS, "socket_timeout": REDIS_TIMEOUT_SECONDS,
        })
    # One limiter per app, not one per module: whether the store is down is the app's own state (tests make many).
    # Application limits: one budget per workspace for all pages together (default limits would count each page
    # separately).
    limiter = Limiter(
        key_func=_workspace_key,
        application_limits=[_default_limits],
        # A page's stylesheet and scripts are free, and so is what a class's pages poll once a second (one row read):
        # a student following a whole lecture would otherwise spend the budget meant for their own work.
        application_limits_exempt_when=lambda: request.endpoint in POLLED_FREELY,
    )
    # Flask-Limiter logs to a logger of its own, which nothing prints under gunicorn; the app's logger is printed.
    limiter.logger = _SwitchReport(app.logger.getChild("ratelimits"), storage_uri)
    limiter.init_app(app)
    app.extensions["webnb_limiter"] = limiter


class _SwitchReport(logging.LoggerAdapter):
    """Flask-Limiter's log, where its switches between stores are said in webnb's words, once per switch (two
    threads that find Redis down at the same moment both report it)."""

    def __init__(self, logger: logging.Logger, storage_uri: str):
        super().__init__(logger, {})
        self._where = _without_password(storage_uri)
        self._on_memory = False

    def log(self, level, msg, *args, **kwargs):
        text = str(msg)
        if text.startswith(_FELL_BACK):
            if self._on_memory:
                return
            self._on_memory = True
            level, msg, args = logging.WARNING, (
                "The rate-limit store %s does not answer. Each process now counts requests in its own memory, so "
                "a workspace may get the limit once per process, until the store answers again (asked again "
                "within a minute)."), (self._where,)
        elif text.startswith(_RECOVERED):
            self._on_memory = False
            # As visible as the outage was (Flask-Limiter says it at INFO, which is not printed by default).
            level, msg = logging.WARNING, "The rate-limit store %s answers again; the limits are counted there."
            args = (self._where,)
        super().log(level, msg, *args, **kwargs)


def _without_password(uri: str) -> str:
    scheme, separator, rest = uri.partition("://")
    _credentials, at, host = rest.rpartition("@")
    return f"{scheme}{separator}{'***@' if at else ''}{host}"



