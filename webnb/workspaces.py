"""Who owns what. In local mode (the instructor's laptop) there is one user and every corpus is theirs. In hosted
mode each browser gets an anonymous workspace: a random id of 128 bits in the signed session cookie (Secure,
HttpOnly, SameSite=Lax). A stored corpus belongs to the workspace that added it, and to no other; the built-in
corpora are shared, read-only."""
from __future__ import annotations

import os
import secrets
from datetime import timedelta

from flask import current_app, session

from webnb.catalog import Quota
from webnb.storage import ANY_WORKSPACE

MODES = ("local", "hosted")
MIN_SECRET_BYTES = 32
# What a workspace may store in hosted mode, unless the config says otherwise (documented in the README).
HOSTED_QUOTA = {
    "WEBNB_QUOTA_CORPORA": 20,
    "WEBNB_QUOTA_DOCUMENTS": 50_000,
    "WEBNB_QUOTA_CHARACTERS": 60_000_000,
    "WEBNB_QUOTA_VOCABULARY": 500_000,
}


def init_app(app) -> None:
    mode = app.config.setdefault("WEBNB_MODE", os.environ.get("WEBNB_MODE", "local"))
    if mode not in MODES:
        raise RuntimeError(f"WEBNB_MODE is {mode!r}; it must be one of {', '.join(MODES)}.")
    if mode != "hosted":
        return
    key = app.config.get("SECRET_KEY") or ""
    if key == "dev" or len(key.encode() if isinstance(key, str) else key) < MIN_SECRET_BYTES:
        raise RuntimeError(
            f"Hosted mode signs every workspace cookie: set WEBNB_SECRET_KEY to a random secret of at least "
            f"{MIN_SECRET_BYTES} bytes, for example the output of: python -c 'import secrets; print(secrets.token_urlsafe(48))'"
        )
    for name, default in HOSTED_QUOTA.items():
        app.config.setdefault(name, int(os.environ.get(name, default)))
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


def _ensure_workspace() -> None:
    if "workspace" not in session:
        session["workspace"] = secrets.token_urlsafe(16)  # 128 random bits
        session.permanent = True


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
    """The per-workspace limits in hosted mode (None in local mode: the laptop's owner decides)."""
    if not hosted():
        return None
    config = current_app.config
    return Quota(
        corpora=config["WEBNB_QUOTA_CORPORA"],
        documents=config["WEBNB_QUOTA_DOCUMENTS"],
        characters=config["WEBNB_QUOTA_CHARACTERS"],
        vocabulary=config["WEBNB_QUOTA_VOCABULARY"],
    )
