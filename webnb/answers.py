"""How webnb answers a request: the one rule that decides JSON or HTML, and the refusal every error uses.

Pages, htmx fragments, downloads' errors and the class layer all ask :func:`wants_json`, so a page and its errors
always answer in the same kind. Nothing here imports a view: views, the room and the error handlers import this.
"""
from __future__ import annotations

from flask import jsonify, make_response, render_template, request
from jinja2_fragments.flask import render_block


def wants_json() -> bool:
    """JSON for ``?format=json`` (every page's JSON twin), for a request whose body is JSON, and for a client that
    prefers ``application/json`` to ``text/html`` (a browser, htmx and ``*/*`` get HTML)."""
    if request.args.get("format") == "json" or request.is_json:
        return True
    return request.accept_mimetypes.best_match(["text/html", "application/json"]) == "application/json"


def is_htmx() -> bool:
    """An htmx request for a part of a page (not htmx restoring its history, which needs the whole page)."""
    return request.headers.get("HX-Request") == "true" and request.headers.get("HX-History-Restore-Request") != "true"


def refusal(title: str, message: str, status: int, template: str = "refused.html"):
    """``message`` on webnb's own page (``template``, which shows ``title`` and ``message``), or as
    ``{"error": message}`` for a client that asked for JSON: how every error a request meets is answered.

    An htmx request gets the message alone (the ``refusal`` block), marked ``X-Webnb-Refusal``: static/webnb.js
    shows it at the top of the part of the page that asked, which keeps what it showed (htmx swaps no error)."""
    if wants_json():
        return make_response(jsonify({"error": message}), status)
    if is_htmx():
        response = make_response(render_block("refused.html", "refusal", title=title, message=message, fragment=True),
                                 status)
        response.headers["X-Webnb-Refusal"] = "1"
        response.headers["Vary"] = "HX-Request"
        return response
    return make_response(render_template(template, title=title, message=message), status)
