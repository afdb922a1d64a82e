"""Security headers on every response, cross-site state changes refused, and limits on request sizes.

``init_app(app)`` installs all three. The limits live in ``app.config`` (defaults below, set with
``setdefault`` so that a test or an instance ``config.py`` wins):

- ``WEBNB_MAX_QUERY_BYTES`` (65,536): the longest query string accepted. The lesson state, the review
  included, travels in the address, so this is what bounds a GET.
- ``MAX_FORM_MEMORY_SIZE`` (500,000, Flask's own setting): the largest form field. Werkzeug applies it to
  the text parts of multipart forms only; webnb applies it to a whole urlencoded form body too.
- ``MAX_CONTENT_LENGTH`` (set by create_app, 50 MB): the largest request body, that is the largest upload.
- ``WEBNB_PROXIES`` (0, or the environment variable of that name): how many reverse proxies stand in front of
  webnb. Behind them, webnb takes the client's address from X-Forwarded-For and the scheme from
  X-Forwarded-Proto: behind an HTTPS proxy the browser's ``Origin: https://…`` would not match ``http://…``
  otherwise, and every form would be refused.
- ``WEBNB_PROXY_HOST`` (off, or the environment variable of that name set to 1): also take the host and port from
  X-Forwarded-Host and X-Forwarded-Port. Off by default, because a proxy that passes these headers on from the
  client lets anyone choose the host of the absolute links webnb makes (share links). Turn it on only when the
  proxy sets both headers itself; a proxy that passes the browser's own ``Host`` on needs neither. Without
  ``WEBNB_PROXIES`` it means nothing.

Anything larger answers 413 before the body is read; the 413 handler (webnb/views/corpus.py) words its
message with ``too_large_message()``.
"""
from __future__ import annotations

import ipaddress
import os
import shlex
import sys
from pathlib import Path

from flask import Flask, abort, current_app, request

from webnb.answers import refusal

DEFAULT_MAX_QUERY_BYTES = 65_536  # 5,000 characters of any script, percent-encoded, fit
DEFAULT_MAX_FORM_MEMORY_SIZE = 500_000

# No inline code or styles anywhere, so 'self' is enough; the favicon is a data: URL (base.html). No other site may
# show webnb's pages in a frame, except the LMSs registered for LTI launches (``allow_framing_by``).
CSP_BEFORE_FRAMING = ["default-src 'self'", "img-src 'self' data:", "object-src 'none'", "base-uri 'none'"]
CONTENT_SECURITY_POLICY = "; ".join([*CSP_BEFORE_FRAMING, "frame-ancestors 'none'", "form-action 'self'"])

SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# "none" is a request the user started themselves (typed address, bookmark), not another site.
ALLOWED_FETCH_SITES = frozenset({"same-origin", "none"})


def init_app(app: Flask) -> None:
    app.config.setdefault("WEBNB_MAX_QUERY_BYTES", DEFAULT_MAX_QUERY_BYTES)
    app.config.setdefault("MAX_FORM_MEMORY_SIZE", DEFAULT_MAX_FORM_MEMORY_SIZE)
    proxies = int(app.config.setdefault("WEBNB_PROXIES", int(os.environ.get("WEBNB_PROXIES", "0"))))
    if proxies > 0:
        from werkzeug.middleware.proxy_fix import ProxyFix

        host = proxies if is_on(app.config.setdefault("WEBNB_PROXY_HOST", os.environ.get("WEBNB_PROXY_HOST"))) else 0
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=host, x_port=host)
        exposed = exposed_addresses(gunicorn_binds(sys.argv, os.environ.get("GUNICORN_CMD_ARGS", "")))
        if exposed:
            app.logger.warning(proxies_warning(exposed))
    # First in line, ahead of Flask-WTF's CSRF check: a refused request must not even have its body parsed.
    checks = app.before_request_funcs.setdefault(None, [])
    checks[0:0] = [refuse_long_query, refuse_cross_site, refuse_large_body]
    app.after_request(add_security_headers)


# --- trusting proxies only where they are the only way in -------------------------------------------------------------


def is_loopback(host: str) -> bool:
    host = host.strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a name or 0.0.0.0: reachable from elsewhere, as far as webnb can tell


def gunicorn_binds(argv: list[str], cmd_args: str = "") -> list[str]:
    """The addresses gunicorn was told to bind (``-b``/``--bind``, on its command line or in GUNICORN_CMD_ARGS);
    none when this is not gunicorn (gunicorn's own default, 127.0.0.1:8000, is loopback)."""
    if not argv or "gunicorn" not in Path(argv[0]).name:
        return []
    words, binds = [*argv[1:], *shlex.split(cmd_args)], []
    for index, word in enumerate(words):
        if word in ("-b", "--bind") and index + 1 < len(words):
            binds.append(words[index + 1])
        elif word.startswith("--bind="):
            binds.append(word.split("=", 1)[1])
        elif word.startswith("-b") and len(word) > 2:
            binds.append(word[2:])
    return binds


def exposed_addresses(binds: list[str]) -> list[str]:
    """The binds not on loopback: a host:port, [v6]:port or a bare host (a Unix socket is not exposed)."""
    exposed = []
    for bind in binds:
        if bind.startswith(("unix:", "fd://")):
            continue
        host = bind.rsplit(":", 1)[0] if bind.count(":") == 1 or bind.startswith("[") else bind
        if not is_loopback(host):
            exposed.append(bind)
    return exposed


def proxies_warning(exposed: list[str]) -> str:
    return (f"WEBNB_PROXIES is set, so webnb takes each client's address from X-Forwarded-For, but it listens on "
            f"{', '.join(exposed)}, which is not loopback. Anyone who reaches that port directly can forge the header "
            "and escape every limit per address. Bind to 127.0.0.1 (or a Unix socket) and let only the proxy in.")


def is_on(setting) -> bool:
    """A switch from the config (True/False) or the environment ("1", "true", "yes", "on"; anything else is off)."""
    if isinstance(setting, str):
        return setting.strip().lower() in {"1", "true", "yes", "on"}
    return bool(setting)


def add_security_headers(response):
    origins = current_app.extensions.get("webnb_frame_origins", tuple)()
    if origins:
        response.headers.setdefault("Content-Security-Policy", content_security_policy(origins))
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    return response


def content_security_policy(frame_origins: tuple[str, ...], *, form_targets: tuple[str, ...] = ()) -> str:
    """The policy with these origins (and webnb itself) allowed to show its pages in a frame, and the page's forms
    allowed to go to ``form_targets`` as well as to webnb (the answer an LMS asked for)."""
    ancestors = " ".join(("'self'", *frame_origins)) if frame_origins else "'none'"
    return "; ".join([*CSP_BEFORE_FRAMING, f"frame-ancestors {ancestors}", " ".join(("form-action 'self'",
                                                                                   *form_targets))])


def allow_cross_site(app: Flask, *endpoints: str) -> None:
    """Let these endpoints take state changes from other sites: only the LMS's login and launch, whose requests are
    trusted by the signed token they carry, never by where they came from."""
    app.extensions.setdefault("webnb_cross_site", set()).update(endpoints)


def allow_framing_by(app: Flask, origins) -> None:
    """``origins()`` (a tuple of origins, read per response) may show webnb's pages in a frame."""
    app.extensions["webnb_frame_origins"] = origins


def refuse_long_query():
    if len(request.query_string) > query_limit():
        abort(413)


def refuse_cross_site():
    """403 for a state change that another site started, whatever the CSRF token says."""
    if request.method in SAFE_METHODS or request.endpoint in current_app.extensions.get("webnb_cross_site", ()):
        return None
    fetch_site = request.headers.get("Sec-Fetch-Site")
    origin = request.headers.get("Origin")
    if fetch_site is not None and fetch_site.lower() not in ALLOWED_FETCH_SITES:
        reason = f"the browser says it came from another site (Sec-Fetch-Site: {fetch_site})"
    elif origin is not None and origin.rstrip("/").lower() != own_origin():
        reason = f"it came from {origin}, not from {own_origin()}"
    else:
        return None
    message = f"This change was refused because {reason}. Nothing was changed. Make changes from webnb's own pages."
    return refusal("Refused: not from this site", message, 403)


def refuse_large_body():
    """413 from the Content-Length header alone, before a byte of the body is read."""
    length = request.content_length
    if length is None or request.method in SAFE_METHODS:
        return
    body_limit = request.max_content_length
    if body_limit is not None and length > body_limit:
        abort(413)
    # Werkzeug leaves urlencoded bodies to MAX_CONTENT_LENGTH; a form without files gets the field limit.
    field_limit = request.max_form_memory_size
    if request.mimetype == "application/x-www-form-urlencoded" and field_limit is not None and length > field_limit:
        abort(413)


def own_origin() -> str:
    return f"{request.scheme}://{request.host}".lower()


def query_limit() -> int:
    return int(current_app.config["WEBNB_MAX_QUERY_BYTES"])


def too_large_message() -> tuple[str, str]:
    """What was too large for this request, as (kind, message): kind is "address", "file" or "field"."""
    query_bytes = len(request.query_string)
    if query_bytes > query_limit():
        return "address", (
            f"The address of this page is {query_bytes:,} bytes long; the server takes at most {query_limit():,}. "
            "Shorten the review (or the other text in the address) and try again."
        )
    body_limit = request.max_content_length
    length = request.content_length
    if request.mimetype == "multipart/form-data" and body_limit is not None and (length is None or length > body_limit):
        return "file", f"The file is larger than the limit of {size_text(body_limit)}."
    if (body_limit is not None and length is not None and length > body_limit
            and request.mimetype != "application/x-www-form-urlencoded"):
        return "file", f"The request is larger than the limit of {size_text(body_limit)}."
    field_limit = request.max_form_memory_size
    limit = f" of {size_text(field_limit)}" if field_limit is not None else ""
    return "field", (
        f"The text sent with the form is larger than the limit{limit}. To add a bigger corpus, upload it as a file."
    )


def size_text(size: int) -> str:
    """50 × 2²⁰ → "50 MB", 500,000 → "500 KB": as people say sizes, with at most one decimal."""
    for unit, factor in (("MB", 1024 * 1024), ("KB", 1000)):
        if size >= factor:
            return f"{size / factor:,.1f}".removesuffix(".0") + f" {unit}"
    return f"{size:,} bytes"
