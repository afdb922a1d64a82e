"""What webnb keeps of the LMSs that launch it (LTI 1.3), in the app's database: the platforms and their deployments,
webnb's own keys, the logins that launches used, the workspace of each launched user, and the tickets that open a
launch in a window of its own. SQLAlchemy Core, every value a bound parameter, as in webnb/store/database.py.

Nothing here knows the LTI library: webnb/lti/adapter.py reads these records for it. The tables' history is revision
0008 (webnb/store/migrations/versions/0008_lti.py).
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

import sqlalchemy as sa

from webnb.store.database import Storage, as_utc, insert_ignoring_duplicate, metadata, moment

# A login the platform began must come back as a launch within this time (the platform redirects at once).
LOGIN_MINUTES = 10
# A ticket that opens a launch in a window of its own: long enough to read the page and click, short enough that a
# copied address is worth little.
WINDOW_MINUTES = 15
# An instructor choosing a lesson for the course (deep linking) has this long to choose.
DEEP_LINK_MINUTES = 60

platforms = sa.Table(
    "lti_platforms",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("issuer", sa.Text, nullable=False),
    sa.Column("client_id", sa.Text, nullable=False),
    sa.Column("login_url", sa.Text, nullable=False),
    sa.Column("token_url", sa.Text, nullable=False),
    sa.Column("keyset_url", sa.Text, nullable=False),
    moment("created_at"),
    sa.UniqueConstraint("issuer", "client_id", name="lti_platforms_issuer_client"),
)

deployments = sa.Table(
    "lti_deployments",
    metadata,
    sa.Column("platform", sa.Integer, sa.ForeignKey("lti_platforms.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("deployment_id", sa.Text, primary_key=True),
)

keys = sa.Table(
    "lti_keys",
    metadata,
    # The newest key signs; the older ones stay in the key set until withdrawn, so that a platform that cached the
    # key set before a rotation still verifies what was signed with them.
    sa.Column("kid", sa.Text, primary_key=True),
    sa.Column("private_pem", sa.Text, nullable=False),
    moment("created_at"),
)

logins = sa.Table(
    "lti_logins",
    metadata,
    # The logins that a launch used, each once: a row is written by a launch that passed every check (a login
    # itself is signed and kept nowhere, webnb/lti/adapter.py), and a second launch with the same state is a replay.
    sa.Column("state", sa.Text, primary_key=True),
    sa.Column("nonce", sa.Text, nullable=False),
    sa.Column("platform", sa.Integer, sa.ForeignKey("lti_platforms.id", ondelete="CASCADE"), nullable=False),
    sa.Column("target_link_uri", sa.Text, nullable=False),
    moment("expires_at"),
    moment("used_at", nullable=True),
)

users = sa.Table(
    "lti_users",
    metadata,
    sa.Column("issuer", sa.Text, primary_key=True),
    sa.Column("deployment_id", sa.Text, primary_key=True),
    sa.Column("subject", sa.Text, primary_key=True),  # the id_token's ``sub``
    sa.Column("workspace", sa.Text, nullable=False, unique=True),
    moment("created_at"),
    moment("last_launch_at"),
    # Their last launch's platform, gradebook column (AGS line item), its maximum and course: what their answers grade.
    sa.Column("platform", sa.Integer, nullable=True),
    sa.Column("lineitem", sa.Text, nullable=True),
    sa.Column("score_maximum", sa.Float, nullable=True),
    sa.Column("context_id", sa.Text, nullable=True),
)

scores = sa.Table(
    "lti_scores",
    metadata,
    # One grade per student and gradebook column: a better answer replaces it and it is sent again.
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("platform", sa.Integer, sa.ForeignKey("lti_platforms.id", ondelete="CASCADE"), nullable=False),
    sa.Column("subject", sa.Text, nullable=False),
    sa.Column("lineitem", sa.Text, nullable=False),
    sa.Column("context_id", sa.Text, nullable=True),
    sa.Column("workspace", sa.Text, nullable=False),
    sa.Column("score_given", sa.Float, nullable=False),
    sa.Column("score_maximum", sa.Float, nullable=False),
    moment("scored_at"),
    sa.Column("state", sa.Text, nullable=False),  # waiting, sent or failed
    sa.Column("tries", sa.Integer, nullable=False),
    moment("next_try_at", nullable=True),
    sa.Column("last_error", sa.Text, nullable=True),
    sa.UniqueConstraint("platform", "subject", "lineitem", name="lti_scores_student_lineitem"),
)

tickets = sa.Table(
    "lti_tickets",
    metadata,
    # A short-lived, single-use ticket, stored as a hash (the ticket itself is a credential), with what it opens:
    # a launch in a window of its own ("window"), an instructor's choice of a lesson ("deep-link"), or an LMS's
    # registration of itself ("registration").
    sa.Column("ticket_hash", sa.Text, primary_key=True),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("payload", sa.Text, nullable=False),  # JSON
    moment("expires_at"),
    moment("used_at", nullable=True),
)


@dataclass(frozen=True)
class Platform:
    """One registration: the platform ``issuer`` gave webnb ``client_id``; it launches from ``deployments``."""

    id: int
    issuer: str
    client_id: str
    login_url: str
    token_url: str
    keyset_url: str
    deployments: tuple[str, ...]


@dataclass(frozen=True)
class Login:
    """A login the platform began, as its signed ``state`` says (webnb/lti/adapter.py, ``LoginStates``): the
    ``nonce`` webnb sent with it, for ``platform``, until ``expires_at``."""

    state: str
    nonce: str
    platform: int
    expires_at: datetime


@dataclass(frozen=True)
class Window:
    """What a window ticket opens: ``target`` in ``workspace``, as an instructor (of ``course``) or not."""

    workspace: str
    instructor: bool
    target: str
    course: dict | None = None  # an instructor's: {"platform": id, "context": the LMS's course id, "title": ...}
    activity: dict | None = None  # a student's graded question of its own (webnb/lti/activity.py), as a dict


@dataclass(frozen=True)
class Grading:
    """What a launch says about grades: the gradebook column (AGS line item) its student's answers go to, out of
    ``score_maximum``, in the course ``context_id``."""

    lineitem: str
    score_maximum: float
    context_id: str | None


@dataclass(frozen=True)
class GradeLink:
    """Where a workspace's answers are graded: its user at ``platform`` and their last launch's column."""

    platform: int
    subject: str
    workspace: str
    grading: Grading


@dataclass(frozen=True)
class Score:
    """A grade going back to a course, and how its sending went."""

    id: int
    platform: int
    subject: str
    lineitem: str
    context_id: str | None
    workspace: str
    score_given: float
    score_maximum: float
    scored_at: datetime
    state: str
    tries: int
    last_error: str | None


@dataclass(frozen=True)
class DeepLinking:
    """An instructor's pending choice for ``platform``'s ``deployment_id``: the platform's deep_linking_settings
    (where the answer goes back, what it accepts, its opaque ``data``)."""

    platform: int
    deployment_id: str
    settings: dict


@dataclass(frozen=True)
class Invitation:
    """An address through which one LMS may register itself (dynamic registration)."""


# What each kind of ticket opens, its name in ``lti_tickets`` and how long it is valid (an invitation: as long as the
# operator says).
TICKET_KINDS = {
    Window: ("window", timedelta(minutes=WINDOW_MINUTES)),
    DeepLinking: ("deep-link", timedelta(minutes=DEEP_LINK_MINUTES)),
    Invitation: ("registration", timedelta(hours=24)),
}


class Registry:
    """The LTI tables of one database (the app's ``Storage``)."""

    def __init__(self, storage: Storage):
        self.storage = storage

    # --- platforms ----------------------------------------------------------------------------------------------

    def add_platform(self, *, issuer: str, client_id: str, deployment_id: str, login_url: str, token_url: str,
                     keyset_url: str) -> tuple[Platform, bool]:
        """Register ``deployment_id`` of (``issuer``, ``client_id``), making the registration if it is new and
        taking these addresses for it. True with it if anything changed."""
        addresses = {"login_url": login_url, "token_url": token_url, "keyset_url": keyset_url}
        with self.storage.writing() as connection:
            row = connection.execute(sa.select(platforms).where(
                platforms.c.issuer == issuer, platforms.c.client_id == client_id)).mappings().first()
            if row is None:
                platform_id = connection.execute(platforms.insert().values(
                    issuer=issuer, client_id=client_id, created_at=_now(), **addresses)).inserted_primary_key[0]
                changed = True
            else:
                platform_id = row["id"]
                changed = any(row[name] != value for name, value in addresses.items())
                if changed:
                    connection.execute(platforms.update().where(platforms.c.id == platform_id).values(**addresses))
            added = insert_ignoring_duplicate(connection, deployments, ("platform", "deployment_id"),
                                               {"platform": platform_id, "deployment_id": deployment_id})
            return self._platform(connection, platform_id), changed or added

    def platforms(self) -> list[Platform]:
        with self.storage.engine.connect() as connection:
            ids = connection.execute(sa.select(platforms.c.id).order_by(platforms.c.issuer, platforms.c.client_id))
            return [self._platform(connection, platform_id) for platform_id in ids.scalars()]

    def find(self, issuer: str, client_id: str | None) -> Platform | None:
        """The registration of ``client_id`` at ``issuer``; without a client id, the issuer's only one (None when it
        has several: then the platform must say which)."""
        with self.storage.engine.connect() as connection:
            query = sa.select(platforms.c.id).where(platforms.c.issuer == issuer)
            if client_id is not None:
                query = query.where(platforms.c.client_id == client_id)
            found = connection.execute(query.limit(2)).scalars().all()
            return self._platform(connection, found[0]) if len(found) == 1 else None

    def platform(self, platform_id: int) -> Platform | None:
        with self.storage.engine.connect() as connection:
            return self._platform(connection, platform_id)

    def remove(self, issuer: str, client_id: str | None = None, deployment_id: str | None = None) -> list[str]:
        """Remove a deployment (with ``deployment_id``), a registration (with ``client_id``), or every registration
        of ``issuer``. What was removed, one line each; empty if nothing matched."""
        removed = []
        with self.storage.writing() as connection:
            query = sa.select(platforms.c.id, platforms.c.client_id).where(platforms.c.issuer == issuer)
            if client_id is not None:
                query = query.where(platforms.c.client_id == client_id)
            for platform_id, client in connection.execute(query).all():
                if deployment_id is not None:
                    gone = connection.execute(deployments.delete().where(
                        deployments.c.platform == platform_id, deployments.c.deployment_id == deployment_id))
                    if gone.rowcount:
                        removed.append(f"deployment {deployment_id} of client {client} at {issuer}")
                    continue
                connection.execute(logins.delete().where(logins.c.platform == platform_id))
                connection.execute(scores.delete().where(scores.c.platform == platform_id))
                connection.execute(deployments.delete().where(deployments.c.platform == platform_id))
                connection.execute(platforms.delete().where(platforms.c.id == platform_id))
                removed.append(f"client {client} at {issuer}, with its deployments")
        return removed

    def frame_origins(self) -> tuple[str, ...]:
        """The origins of the registered platforms, which may show webnb's pages in their own (an iframe)."""
        from urllib.parse import urlsplit

        with self.storage.engine.connect() as connection:
            rows = connection.execute(sa.select(platforms.c.issuer, platforms.c.login_url)).all()
        origins = set()
        for address in (address for row in rows for address in row):
            parts = urlsplit(address)
            if parts.scheme in ("https", "http") and parts.netloc:
                origins.add(f"{parts.scheme}://{parts.netloc}")
        return tuple(sorted(origins))

    @staticmethod
    def _platform(connection, platform_id: int) -> Platform | None:
        row = connection.execute(sa.select(platforms).where(platforms.c.id == platform_id)).mappings().first()
        if row is None:
            return None
        ids = connection.execute(sa.select(deployments.c.deployment_id).where(deployments.c.platform == platform_id)
                                 .order_by(deployments.c.deployment_id)).scalars()
        return Platform(row["id"], row["issuer"], row["client_id"], row["login_url"], row["token_url"],
                        row["keyset_url"], tuple(ids))

    # --- webnb's keys -------------------------------------------------------------------------------------------

    def keys(self) -> list[tuple[str, str]]:
        """(kid, private key in PEM) of every published key, the signing one (the newest) first."""
        with self.storage.engine.connect() as connection:
            return [tuple(row) for row in connection.execute(
                sa.select(keys.c.kid, keys.c.private_pem).order_by(keys.c.created_at.desc(), keys.c.kid))]

    def add_key(self, kid: str, private_pem: str) -> None:
        with self.storage.writing() as connection:
            insert_ignoring_duplicate(connection, keys, "kid",
                                       {"kid": kid, "private_pem": private_pem, "created_at": _now()})

    def withdraw_key(self, kid: str) -> bool:
        """Stop publishing an older key; the signing key cannot be withdrawn (rotate first). True if it went."""
        with self.storage.writing() as connection:
            newest = connection.execute(sa.select(keys.c.kid).order_by(keys.c.created_at.desc(), keys.c.kid)
                                        .limit(1)).scalar()
            if kid == newest:
                return False
            return connection.execute(keys.delete().where(keys.c.kid == kid)).rowcount > 0

    # --- logins used ---------------------------------------------------------------------------------------------

    def use_login(self, login: Login, target_link_uri: str, *, now: datetime | None = None) -> bool:
        """Keep that a launch (to ``target_link_uri``) used ``login``, once: False if one did already (a replay).
        Only a launch that passed every other check comes here, so a row stands for a real launch; a login itself
        keeps nothing."""
        now = now or _now()
        with self.storage.writing() as connection:
            # A used login that has expired cannot be replayed (its state says so): they go as new ones come.
            connection.execute(logins.delete().where(logins.c.expires_at < now - timedelta(days=1)))
            return insert_ignoring_duplicate(connection, logins, "state", {
                "state": login.state, "nonce": login.nonce, "platform": login.platform,
                "target_link_uri": target_link_uri, "expires_at": login.expires_at, "used_at": now})

    # --- launched users -----------------------------------------------------------------------------------------

    def workspace_for(self, platform: Platform, deployment_id: str, subject: str, *, grading: Grading | None = None,
                      now: datetime | None = None) -> str:
        """The workspace of this user of this deployment: made at their first launch, the same at every later one.
        The launch's ``grading`` (None: this launch grades nothing) is what their answers grade from now on."""
        now = now or _now()
        key = (users.c.issuer == platform.issuer, users.c.deployment_id == deployment_id, users.c.subject == subject)
        with self.storage.writing() as connection:
            insert_ignoring_duplicate(connection, users, ("issuer", "deployment_id", "subject"), {
                "issuer": platform.issuer, "deployment_id": deployment_id, "subject": subject,
                "workspace": secrets.token_urlsafe(16), "created_at": now, "last_launch_at": now})
            connection.execute(users.update().where(*key).values(
                last_launch_at=now, platform=platform.id, lineitem=grading and grading.lineitem,
                score_maximum=grading and grading.score_maximum, context_id=grading and grading.context_id))
            return connection.execute(sa.select(users.c.workspace).where(*key)).scalar_one()

    def workspaces_of(self, issuer: str, deployment_id: str) -> dict[str, str]:
        """The workspaces of a deployment's launched users, by their ``sub``."""
        with self.storage.engine.connect() as connection:
            rows = connection.execute(sa.select(users.c.subject, users.c.workspace).where(
                users.c.issuer == issuer, users.c.deployment_id == deployment_id)).all()
        return {subject: workspace for subject, workspace in rows}

    def grade_link(self, workspace: str) -> GradeLink | None:
        """Where this workspace's answers are graded, if its user's last launch was of a graded activity."""
        with self.storage.engine.connect() as connection:
            row = connection.execute(sa.select(users).where(users.c.workspace == workspace,
                                                            users.c.lineitem.is_not(None))).mappings().first()
        if row is None or row["platform"] is None:
            return None
        return GradeLink(row["platform"], row["subject"], workspace,
                         Grading(row["lineitem"], row["score_maximum"], row["context_id"]))

    # --- grades ---------------------------------------------------------------------------------------------------

    def save_score(self, link: GradeLink, score_given: float, *, now: datetime | None = None) -> bool:
        """The student's grade in their column, to be sent: kept if it is their first or better than the one kept
        (or that one failed to go). True if it is to be sent."""
        now = now or _now()
        waiting = {"score_given": score_given, "score_maximum": link.grading.score_maximum, "scored_at": now,
                   "state": "waiting", "tries": 0, "next_try_at": now, "last_error": None,
                   "context_id": link.grading.context_id, "workspace": link.workspace}
        key = (scores.c.platform == link.platform, scores.c.subject == link.subject,
               scores.c.lineitem == link.grading.lineitem)
        with self.storage.writing() as connection:
            if insert_ignoring_duplicate(connection, scores, ("platform", "subject", "lineitem"), {
                    "platform": link.platform, "subject": link.subject, "lineitem": link.grading.lineitem, **waiting}):
                return True
            better = connection.execute(scores.update().where(
                *key, sa.or_(scores.c.score_given < score_given, scores.c.state == "failed")).values(**waiting))
            return better.rowcount == 1

    def claim_due_scores(self, *, now: datetime | None = None, lease: timedelta = timedelta(minutes=1)) -> list[Score]:
        """The grades due to be sent, each claimed by this process for ``lease`` (another process leaves them be)."""
        now = now or _now()
        claimed = []
        with self.storage.writing() as connection:
            due = connection.execute(sa.select(scores.c.id).where(
                scores.c.state == "waiting", scores.c.next_try_at <= now).order_by(scores.c.next_try_at)).scalars()
            for score_id in list(due):
                taken = connection.execute(scores.update().where(
                    scores.c.id == score_id, scores.c.state == "waiting", scores.c.next_try_at <= now)
                    .values(next_try_at=now + lease))
                if taken.rowcount == 1:
                    claimed.append(score_id)
        return [score for score in self.scores() if score.id in claimed]

    def next_due(self) -> datetime | None:
        """When the next grade waiting is due to be sent."""
        with self.storage.engine.connect() as connection:
            due = connection.execute(sa.select(sa.func.min(scores.c.next_try_at))
                                     .where(scores.c.state == "waiting")).scalar()
        return None if due is None else as_utc(due)

    def score_sent(self, score: Score) -> None:
        """Sent: unless a better grade replaced it meanwhile (then that one is still to go)."""
        with self.storage.writing() as connection:
            connection.execute(scores.update().where(scores.c.id == score.id,
                                                     scores.c.score_given == score.score_given)
                               .values(state="sent", tries=score.tries + 1, next_try_at=None, last_error=None))

    def score_not_sent(self, score: Score, error: str, *, retry_at: datetime | None) -> None:
        """A try that failed: tried again at ``retry_at``, or failed for good (None)."""
        with self.storage.writing() as connection:
            connection.execute(scores.update().where(scores.c.id == score.id,
                                                     scores.c.score_given == score.score_given).values(
                state="waiting" if retry_at else "failed", tries=score.tries + 1, next_try_at=retry_at,
                last_error=error[:500]))

    def scores(self, *, platform: int | None = None, context_id: str | None = None,
               link: GradeLink | None = None) -> list[Score]:
        """The grades kept, all, a course's or the one of a student's column (``link``), in the order they were
        made."""
        query = sa.select(scores).order_by(scores.c.id)
        if platform is not None:
            query = query.where(scores.c.platform == platform, scores.c.context_id == context_id)
        if link is not None:
            query = query.where(scores.c.platform == link.platform, scores.c.subject == link.subject,
                                scores.c.lineitem == link.grading.lineitem)
        with self.storage.engine.connect() as connection:
            rows = connection.execute(query).mappings().all()
        return [Score(row["id"], row["platform"], row["subject"], row["lineitem"], row["context_id"],
                      row["workspace"], row["score_given"], row["score_maximum"], as_utc(row["scored_at"]),
                      row["state"], row["tries"], row["last_error"]) for row in rows]

    # --- tickets -----------------------------------------------------------------------------------------------

    def open_ticket(self, kind: str, payload: dict, lifetime: timedelta, *, now: datetime | None = None) -> str:
        """A new single-use ticket of ``kind`` for ``payload``, valid for ``lifetime``."""
        now = now or _now()
        ticket = secrets.token_urlsafe(24)
        with self.storage.writing() as connection:
            # The tickets of a day ago are of no use to anyone: they go as new ones come.
            connection.execute(tickets.delete().where(tickets.c.expires_at < now - timedelta(days=1)))
            connection.execute(tickets.insert().values(ticket_hash=_ticket_hash(ticket), kind=kind,
                                                       payload=json.dumps(payload), expires_at=now + lifetime))
        return ticket

    def peek_ticket(self, kind: str, ticket: str, *, now: datetime | None = None) -> dict | None:
        """What the ticket opens, if it is of ``kind``, unused and unexpired; it stays so."""
        with self.storage.engine.connect() as connection:
            payload = connection.execute(sa.select(tickets.c.payload).where(*_valid(kind, ticket, now))).scalar()
        return None if payload is None else json.loads(payload)

    def take_ticket(self, kind: str, ticket: str, *, now: datetime | None = None) -> dict | None:
        """What the ticket opens, used up: a second use (also at the same moment) finds nothing."""
        with self.storage.writing() as connection:
            payload = connection.execute(tickets.update().where(*_valid(kind, ticket, now))
                                         .values(used_at=now or _now()).returning(tickets.c.payload)).scalar()
        return None if payload is None else json.loads(payload)

    def release(self, record_type: type, ticket: str) -> None:
        """The ticket's use failed: it may be used again while it is valid."""
        with self.storage.writing() as connection:
            connection.execute(tickets.update().where(tickets.c.ticket_hash == _ticket_hash(ticket),
                                                      tickets.c.kind == TICKET_KINDS[record_type][0])
                               .values(used_at=None))

    def open(self, record, lifetime: timedelta | None = None) -> str:
        """A ticket for ``record`` (a :class:`Window`, :class:`DeepLinking` or :class:`Invitation`), valid for its
        kind's lifetime or ``lifetime``."""
        kind, kept_for = TICKET_KINDS[type(record)]
        return self.open_ticket(kind, dataclasses.asdict(record), lifetime or kept_for)

    def peek(self, record_type: type, ticket: str):
        """What the ticket opens, as a ``record_type``, while it is unused and valid; it stays so."""
        payload = self.peek_ticket(TICKET_KINDS[record_type][0], ticket)
        return None if payload is None else record_type(**payload)

    def take(self, record_type: type, ticket: str):
        """What the ticket opens, as a ``record_type``, used up."""
        payload = self.take_ticket(TICKET_KINDS[record_type][0], ticket)
        return None if payload is None else record_type(**payload)


def _valid(kind: str, ticket: str, now: datetime | None) -> tuple:
    return (tickets.c.ticket_hash == _ticket_hash(ticket), tickets.c.kind == kind, tickets.c.used_at.is_(None),
            tickets.c.expires_at >= (now or _now()))


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _ticket_hash(ticket: str) -> str:
    return hashlib.sha256(ticket.encode()).hexdigest()
