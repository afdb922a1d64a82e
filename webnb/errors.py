"""Every error a request can meet, answered in one place and in webnb's own words: on webnb's page (``refused.html``,
or ``unavailable.html`` for the storage) or, for a client that asked for JSON, as ``{"error": message}``. Never
Flask's bare page, never an exception's text (the log keeps it).

- 400, 403, 404, 405 and every other 4xx that Flask, Werkzeug or an ``abort(…)`` raised (``client_error``), the
  words of ``abort(code, words)`` when it has them;
- 413, a request over one of the limits of webnb/hosting/security.py: the address, a form field or a file;
- 429, too many requests from one workspace (webnb/hosting/ratelimits.py);
- 503 when every slot for heavy work is taken, and 422 for work over the memory cap (webnb/hosting/work.py);
- 503 when the database cannot be reached, 507 when its disk is full (webnb/hosting/outages.py);
- 500, a bug of webnb's own;
- 202, not an error: a page whose numbers are still being computed shows their progress (webnb/views/jobs.py).
"""
from __future__ import annotations

import math
import time

from flask import current_app, jsonify, render_template, request
from flask_limiter.errors import RateLimitExceeded
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException

from webnb.answers import is_htmx, refusal, wants_json
from webnb.engine.shared.budget import WorkTooLarge
from webnb.hosting import outages, security
from webnb.hosting.work import RETRY_AFTER_SECONDS, Busy
from webnb.views import corpus as corpus_views
from webnb.views import jobs as job_views
from webnb.views.common import WorkInProgress


def init_app(app) -> None:
    for error_class in outages.STORAGE_ERRORS:
        app.register_error_handler(error_class, storage_failed)
    app.register_error_handler(500, server_error)
    app.register_error_handler(413, too_large)
    app.register_error_handler(RateLimitExceeded, too_many)
    app.register_error_handler(Busy, busy)
    app.register_error_handler(WorkTooLarge, work_too_large)
    app.register_error_handler(WorkInProgress, work_in_progress)
    # The least specific handler: the handlers above for a status (413) or an exception class (429) win.
    app.register_error_handler(HTTPException, client_error)


# -- 4xx --------------------------------------------------------------------------------------------------------------

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


def too_large(_error):
    """A request over one of the limits of webnb/hosting/security.py: a long address, a large form field or a large
    file. A form comes back with its message where it was sent from."""
    kind, message = security.too_large_message()
    if wants_json():
        return jsonify({"error": message}), 413
    if kind == "address":
        return render_template("refused.html", title="The address is too long", message=message), 413
    return corpus_views.form_error(message, {"kind": "upload" if kind == "file" else "paste"}, 413)


def too_many(error: RateLimitExceeded):
    retry = retry_after_seconds()
    wait = f"Wait {retry} second{'s' if retry != 1 else ''}" if retry else "Wait a moment"
    # The LMS logins are counted per LMS user and network address (webnb/lti); everything else by workspace.
    who = "This user of your LMS" if getattr(error.limit, "scope", "") == "lti-login" else "Your workspace"
    message = (f"{who} sent more requests than this server takes ({error.description}), so this one was "
               f"not answered and nothing was changed. {wait} and try again"
               f"{'; this page tries again by itself then' if is_htmx() and request.method == 'GET' else ''}.")
    response = refusal("Too many requests", message, 429)
    if retry:
        response.headers["Retry-After"] = str(retry)
    return response


def retry_after_seconds() -> int | None:
    """When the workspace may ask again, in whole seconds (at least 1), from the limit the request broke."""
    limiter = current_app.extensions.get("webnb_limiter")
    reset = getattr(limiter, "current_limit", None)
    if reset is None or not getattr(reset, "reset_at", None):
        return None
    window = reset.limit.get_expiry()  # the reset is whole seconds away at most a window's length
    return max(1, min(window, math.ceil(reset.reset_at - time.time())))


# -- the server's limits and faults -------------------------------------------------------------------------------


def busy(error: Busy):
    response = refusal("The server is busy", str(error), 503)
    response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def work_too_large(error: WorkTooLarge):
    """Pages catch CorpusError themselves; this is for work refused outside their try blocks."""
    return refusal("Too large for this server", str(error), 422)


def work_in_progress(error: WorkInProgress):
    """A page whose numbers are still being computed shows the progress, then itself."""
    return job_views.progress_of(error.job)


def storage_failed(error):
    """The database failed under a request: 507 when its disk is full (each time logged), else 503 with
    ``Retry-After`` (the outage logged once)."""
    if outages.is_disk_full(error):
        current_app.logger.warning("The database's disk is full (%s): a write was refused.", outages.describe(error))
        return refusal("The server's disk is full", outages.DISK_FULL, 507, "unavailable.html")
    current_app.extensions["webnb"]["outage"].failed(error)
    response = refusal("Storage unavailable", outages.STORAGE_UNAVAILABLE, 503, "unavailable.html")
    response.headers["Retry-After"] = str(outages.RETRY_AFTER_SECONDS)
    return response


SERVER_ERROR = ("Something went wrong on the server, so this request was not completed. Nothing was stored. "
                "Try again; if it happens again, the page's address helps whoever runs this server find out why.")


def server_error(_error):
    """A bug of webnb's own: its own page (or JSON), never Flask's bare one and never the exception's text, which
    the log keeps (Flask logs it before this runs)."""
    return refusal("Something went wrong", SERVER_ERROR, 500)
