"""webnb as a tool in a learning management system (LTI 1.3): an LMS course launches a student into a lesson at its
state, in a workspace of their own that every later launch finds again.

- ``registry``: what the database keeps (platforms, deployments, webnb's keys, logins used, launched users);
- ``adapter``: the one module that speaks to the LTI library, with the checks every launch must pass;
- ``views``: the login, the launch, webnb's key set and the window step;
- ``grades``: the grades sent back to the courses, in the background;
- ``addresses``: webnb's addresses that an LMS is given;
- ``commands``: ``webnb lti`` (register a platform, list, remove, rotate the key).

The library is an extra (``pip install -e '.[lti]'``): without it the app runs with no LTI routes.
"""
from __future__ import annotations

import importlib.util
import threading
import time
from dataclasses import dataclass, field

# Logins the platforms begin for one user (the LMS's login_hint) from one client address. A login stores nothing (its
# state is signed, webnb/lti/adapter.py), but each one costs a lookup and a signature: counted per user, not per
# address, so that one student behind the hall's address who floods them brakes themself and never locks out the
# others; a real user launches a few times.
LOGINS_PER_USER = "60 per 10 minutes"

# How long a process keeps the registered platforms' origins (the pages' frame-ancestors) before it reads them again:
# a platform registered by `webnb lti add-platform`, another process, is framed within this time.
FRAME_ORIGINS_SECONDS = 60


def available() -> bool:
    """Whether the LTI library is installed (the ``lti`` extra)."""
    return importlib.util.find_spec("pylti1p3") is not None


@dataclass
class FrameOrigins:
    """The registered platforms' origins, read at most every ``FRAME_ORIGINS_SECONDS``."""

    registry: object
    clock: object = time.monotonic
    _kept: tuple | None = None
    _read_at: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self) -> tuple[str, ...]:
        import sqlalchemy as sa

        with self._lock:
            if self._kept is None or self.clock() - self._read_at >= FRAME_ORIGINS_SECONDS:
                try:
                    self._kept = self.registry.frame_origins()
                except sa.exc.SQLAlchemyError:  # the database is away: frame as before, or nowhere, and ask later
                    self._kept = self._kept or ()
                self._read_at = self.clock()
            return self._kept

    def forget(self) -> None:
        with self._lock:
            self._kept = None


@dataclass(frozen=True)
class Lti:
    """What the LTI routes use, made by ``create_app``."""

    registry: object
    logins: object  # signs each login's state (webnb/lti/adapter.py, LoginStates)
    keysets: object
    frame_origins: FrameOrigins
    courier: object  # sends the grades (webnb/lti/grades.py)

    def grade(self, workspace: str, kind: str, *, success, accuracy) -> None:
        """Keep the grade of a workspace's answer for its course, if its user launched a graded activity, and have
        the courier send it."""
        from webnb.lti.grades import grade_answer

        if grade_answer(self.registry, workspace, kind, success=success, accuracy=accuracy):
            self.courier.wake()


def init_app(app) -> None:
    """The LTI routes, when the library is installed: the login and the launch exempt from the CSRF and cross-site
    checks (they are the platform's cross-site posts, trusted by their signed token), and the platforms' origins
    allowed to frame webnb's pages."""
    if not available():
        return
    import requests

    from webnb.hosting import security
    from webnb.lti import views
    from webnb.lti.adapter import KeySets, LoginStates
    from webnb.lti.grades import Courier
    from webnb.lti.registry import Registry

    registry = Registry(app.extensions["webnb"]["storage"])
    http = requests.Session()  # the platforms' key sets, tokens and gradebooks
    # Tests send the grades themselves, at a time they choose (``courier.send_due(now)``).
    background = app.config.setdefault("WEBNB_LTI_GRADES_IN_BACKGROUND", True)
    courier = Courier(registry, http, in_background=background)
    lti = app.extensions["webnb_lti"] = Lti(registry, LoginStates(app.secret_key), KeySets(http),
                                              FrameOrigins(registry), courier)
    app.extensions.setdefault("webnb_answer_graders", []).append(lti.grade)
    app.register_blueprint(views.bp)
    limiter = app.extensions.get("webnb_limiter")
    if limiter is not None:  # a login comes before any workspace: counted by its user and the client's address
        app.view_functions["lti.login"] = limiter.limit(
            lambda: app.config.get("WEBNB_LTI_LOGIN_LIMIT", LOGINS_PER_USER), key_func=views.login_key,
            scope="lti-login")(views.login)
    csrf = app.extensions["csrf"]
    csrf.exempt(views.login)
    csrf.exempt(views.launch)
    security.allow_cross_site(app, "lti.login", "lti.launch")
    security.allow_framing_by(app, app.extensions["webnb_lti"].frame_origins)
    app.context_processor(views.window_offer)
