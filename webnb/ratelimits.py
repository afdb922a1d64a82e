"""Rate limits in hosted mode, per workspace rather than per IP address: a lecture hall shares one address.

Flask-Limiter counts the requests. With one process the counts can live in memory; with several (gunicorn's
workers, or several hosts) they must be shared: set WEBNB_RATE_LIMIT_STORAGE to a Redis URL
(``redis://127.0.0.1:6379``), which every process then reads and writes.
"""
from __future__ import annotations

import os

from flask import current_app, jsonify, make_response, render_template, request
from flask_limiter import Limiter
from flask_limiter.errors import RateLimitExceeded

from webnb.workspaces import current_workspace

# Typing a review sends a request per pause (debounced), moving α one per change: a busy student makes a few
# a second at most.
DEFAULT_LIMIT = "30 per 5 seconds; 900 per 10 minutes"


def _workspace_key() -> str:
    return f"workspace:{current_workspace()}"


# Application limits: one budget per workspace for all pages together (default limits would count each page
# separately).
limiter = Limiter(
    key_func=_workspace_key,
    application_limits=[lambda: _default_limits()],
    application_limits_exempt_when=lambda: request.endpoint == "static",  # a page's stylesheet and scripts are free
)


def _default_limits() -> str:
    return current_app.config["WEBNB_RATE_LIMIT"]


def init_app(app) -> None:
    app.config.setdefault("WEBNB_RATE_LIMIT", os.environ.get("WEBNB_RATE_LIMIT", DEFAULT_LIMIT))
    app.config.setdefault(
        "RATELIMIT_STORAGE_URI", os.environ.get("WEBNB_RATE_LIMIT_STORAGE", app.config.get("WEBNB_RATE_LIMIT_STORAGE", "memory://"))
    )
    # Only a shared, hosted server limits anyone; the instructor's own laptop never does.
    app.config.setdefault("RATELIMIT_ENABLED", app.config.get("WEBNB_MODE") == "hosted")
    app.config.setdefault("RATELIMIT_HEADERS_ENABLED", True)
    limiter.init_app(app)
    app.register_error_handler(RateLimitExceeded, _too_many)


def _too_many(error):
    message = (f"Too many requests from your workspace ({error.description}). Wait a moment and try again; "
               "nothing was changed.")
    if request.args.get("format") == "json" or request.accept_mimetypes.best == "application/json":
        response = make_response(jsonify({"error": message}), 429)
    else:
        response = make_response(render_template("refused.html", title="Too many requests", message=message), 429)
    retry = error.limit and getattr(error, "retry_after", None)
    if retry:
        response.headers["Retry-After"] = str(int(retry))
    return response

