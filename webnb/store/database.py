"""Corpora that users added, kept in a database so that they survive a restart.

SQLAlchemy Core (no ORM) over SQLite by default, PostgreSQL when ``WEBNB_DATABASE_URL`` says so.
The tables: ``corpora`` (one row per corpus entry: its name, owner and sizes), ``contents`` (one row per distinct
content, named by a hash of its records) with its ``documents`` (one row per document, in order) and its ``counts``
(the counted data under given analysis options, persisted the first time any process counts it), ``shares`` and
``jobs``, ``workspaces`` (the hosted mode's workspaces that stored something, with when they
were last seen, so that ``webnb cleanup`` can remove the idle ones), ``class_corpora`` (the corpora the operator
published to every workspace with ``webnb corpora add``, read-only like the built-ins), and ``classes`` with their
``class_members`` (a class in the room: its join code, its lecturer's state, the workspaces that joined) with its
``class_questions`` and their ``class_answers``. Every
value travels as a bound parameter; no SQL is built from user data.
"""
from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import secrets
import threading
import weakref
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import NamedTuple

import sqlalchemy as sa
import sqlalchemy.dialects.postgresql
import sqlalchemy.dialects.sqlite

from webnb.engine.shared.corpus import Corpus, CorpusError
from webnb.store.faults import pause_at

DATABASE_FILENAME = "webnb.sqlite3"
BATCH_SIZE = 1000  # documents per executemany

metadata = sa.MetaData()


def moment(name: str, *, nullable: bool = False) -> sa.Column:
    """A column of moments in time, each kept with its time zone (UTC), as every moment webnb keeps is (read back
    through :func:`as_utc`)."""
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


contents = sa.Table(
    "contents",
    metadata,
    # A corpus's records stored once, however many entries (copies, identical uploads) refer to them.
    sa.Column("hash", sa.Text, primary_key=True),  # content_hash(): SHA-256 of the records, in order
    sa.Column("n_documents", sa.Integer, nullable=False),
    sa.Column("n_characters", sa.BigInteger, nullable=False),
    sa.Column("n_bytes", sa.BigInteger, nullable=False),  # stored_size()
    sa.Column("classes", sa.Text, nullable=False),  # a JSON list of the sorted distinct labels
    moment("created_at"),
)

corpora = sa.Table(
    "corpora",
    metadata,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("source", sa.Text, nullable=False),
    moment("created_at"),
    sa.Column("n_documents", sa.Integer, nullable=False),
    sa.Column("classes", sa.Text, nullable=False),  # a JSON list of the sorted distinct labels
    # The hosted mode's anonymous workspace that owns the corpus; NULL for a corpus added in local mode.
    sa.Column("workspace", sa.Text, nullable=True),
    # Characters of text in the corpus, for the per-workspace quotas.
    sa.Column("n_characters", sa.BigInteger, nullable=True),
    # A table of numbers (for Gaussian NB): a JSON list of its feature columns, each document one row of numbers.
    # NULL for a corpus of texts.
    sa.Column("features", sa.Text, nullable=True),
    # The bytes the corpus takes (see stored_size), for the server's storage budget. NULL for a corpus stored
    # before this was counted (its characters stand in).
    sa.Column("n_bytes", sa.BigInteger, nullable=True),
    # Its records (set for every entry since migration 0002).
    sa.Column("content", sa.Text, sa.ForeignKey("contents.hash"), nullable=True),
    sa.Index("ix_corpora_created_at", "created_at"),
    sa.Index("ix_corpora_workspace", "workspace"),
    sa.Index("ix_corpora_content", "content"),
)

ANY_WORKSPACE = object()  # list_corpora(): every corpus, whoever owns it (local mode)

class_corpora = sa.Table(
    "class_corpora",
    metadata,
    # A corpus the operator published to every workspace (``webnb corpora add``): read-only, never copied into a
    # workspace, its records stored and counted once like any other content. Its id is chosen by the operator, as
    # readable as a built-in's.
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("description", sa.Text, nullable=False),
    sa.Column("source", sa.Text, nullable=False),
    # The lesson settings its pages open with: a JSON object of address parameters and their texts, in the order given.
    sa.Column("presets", sa.Text, nullable=False),
    sa.Column("n_documents", sa.Integer, nullable=False),
    sa.Column("class_counts", sa.Text, nullable=False),  # a JSON object: documents per label, labels sorted
    moment("created_at"),
    sa.Column("content", sa.Text, sa.ForeignKey("contents.hash"), nullable=False),
    sa.Index("ix_class_corpora_content", "content"),
)

documents = sa.Table(
    "documents",
    metadata,
    sa.Column("content", sa.Text, sa.ForeignKey("contents.hash", ondelete="CASCADE"), primary_key=True),
    sa.Column("position", sa.Integer, primary_key=True, autoincrement=False),  # 0-based
    sa.Column("doc_id", sa.Text, nullable=False),
    sa.Column("label", sa.Text, nullable=False),
    sa.Column("text", sa.Text, nullable=False),
    # Paging one class's documents and counting classes without reading the texts.
    sa.Index("ix_documents_content_label_position", "content", "label", "position"),
)

counts = sa.Table(
    "counts",
    metadata,
    # A content counted under one set of analysis and vocabulary options (``options``: their canonical JSON). The
    # first process to need it claims the row ('counting'), counts, and stores the result ('done'); every other
    # process, on any machine, waits for it and loads the arrays instead of counting again.
    sa.Column("content", sa.Text, sa.ForeignKey("contents.hash", ondelete="CASCADE"), primary_key=True),
    sa.Column("options", sa.Text, primary_key=True),
    sa.Column("state", sa.Text, nullable=False),
    moment("claimed_at"),
    sa.Column("builds", sa.Integer, nullable=False, server_default="0"),  # times any process counted it
    sa.Column("n_words", sa.Integer, nullable=True),
    sa.Column("vocabulary", sa.LargeBinary, nullable=True),
    sa.Column("statistics", sa.LargeBinary, nullable=True),  # the per-class counts: all that inference needs
    sa.Column("matrix", sa.LargeBinary, nullable=True),  # the document × word counts and each document's class
    sa.Column("n_bytes", sa.BigInteger, nullable=True),
    # When a process last loaded or saved it: only the most recently used few per content are kept (migration 0004).
    moment("used_at", nullable=True),
)
# Counted data of one content under this many sets of options at most (a set of 20 Newsgroups' four groups with
# bigrams takes 4.6 MB): whoever varies an option without end replaces the least recently used set, and the
# database never grows beyond what the contents' own budgets allow times this.
COUNTED_OPTION_SETS_PER_CONTENT = 8
# A load marks a set used only when its mark is older than this: recency to the minute is enough, and reads stay reads.
USED_AT_RESOLUTION = timedelta(minutes=10)


shares = sa.Table(
    "shares",
    metadata,
    # An unguessable token (128 random bits) that lets anyone holding the link copy the corpus into their workspace.
    sa.Column("token", sa.Text, primary_key=True),
    sa.Column("corpus_id", sa.Text, sa.ForeignKey("corpora.id", ondelete="CASCADE"), nullable=False),
    moment("created_at"),
)


jobs = sa.Table(
    "jobs",
    metadata,
    # The progress of background work, so that any process serving the app can show it.
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("workspace", sa.Text, nullable=True),
    sa.Column("title", sa.Text, nullable=False),
    sa.Column("unit", sa.Text, nullable=False),
    sa.Column("done", sa.BigInteger, nullable=False),
    sa.Column("total", sa.BigInteger, nullable=False),
    sa.Column("state", sa.Text, nullable=False),
    sa.Column("result_url", sa.Text, nullable=True),
    sa.Column("error", sa.Text, nullable=True),
    moment("updated_at"),
    # When a worker took the job (None: waiting still, or written before migration 0007): for the estimate of the
    # time left on any process's progress page.
    moment("started_at", nullable=True),
)
JOB_FIELDS = ("workspace", "title", "unit", "done", "total", "state", "result_url", "error", "started_at")


workspaces = sa.Table(
    "workspaces",
    metadata,
    # A hosted-mode workspace that has stored a corpus (one that never stored anything has no row: it costs
    # nothing). Corpora name their workspace without a foreign key: rows of older versions have none.
    sa.Column("id", sa.Text, primary_key=True),
    moment("created_at"),
    # Updated at most about once an hour while the workspace is used; ``webnb cleanup`` removes the idle ones.
    moment("last_seen_at"),
    # A keyed hash of the client address that first stored in it (never the address itself), for the operator.
    sa.Column("created_by", sa.Text, nullable=True),
    sa.Index("ix_workspaces_last_seen_at", "last_seen_at"),
)


classes = sa.Table(
    "classes",
    metadata,
    # A class in the room (migration 0005): students join it by its code; only the holder of the lecturer's secret,
    # of which only a SHA-256 hash is kept, leads it. ``state`` is the lecturer's current lesson address (path and
    # query), where a student who joins lands; ``state_version`` grows each time it changes, for followers to poll.
    sa.Column("code", sa.Text, primary_key=True),
    sa.Column("secret_hash", sa.Text, nullable=False),
    sa.Column("corpus_id", sa.Text, nullable=False),
    sa.Column("presets", sa.Text, nullable=False),  # a JSON object of address parameters and their texts, in order
    sa.Column("state", sa.Text, nullable=False),
    moment("created_at"),
    moment("ends_at"),  # when it ends by itself (``--hours``)
    moment("ended_at", nullable=True),  # when the lecturer ended it, if they did
    sa.Column("state_version", sa.Integer, nullable=False, server_default="0"),
)

class_members = sa.Table(
    "class_members",
    metadata,
    # The workspaces that joined a class (a workspace joins once; joining again keeps the first time).
    sa.Column("code", sa.Text, sa.ForeignKey("classes.code", ondelete="CASCADE"), primary_key=True),
    sa.Column("workspace", sa.Text, primary_key=True),
    moment("joined_at"),
)

class_questions = sa.Table(
    "class_questions",
    metadata,
    # A question the lecturer asked the class (migration 0006), numbered within its class. ``address`` is the lesson
    # address of the slide it was asked from (model, α, review); ``answer`` a prediction's right answer.
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("code", sa.Text, sa.ForeignKey("classes.code", ondelete="CASCADE"), nullable=False),
    sa.Column("number", sa.Integer, nullable=False),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("goal", sa.Text, nullable=True),
    sa.Column("target", sa.Text, nullable=True),
    sa.Column("address", sa.Text, nullable=False),
    sa.Column("answer", sa.Text, nullable=True),
    moment("asked_at"),
    moment("revealed_at", nullable=True),
    sa.UniqueConstraint("code", "number", name="uq_class_questions_code_number"),
)

class_answers = sa.Table(
    "class_answers",
    metadata,
    # One answer per student and question: answering again replaces it (an upsert, so that two answers sent at the
    # same moment leave one row, never two). ``student`` is who joined (class_members.workspace), never shown.
    sa.Column("question_id", sa.Integer, sa.ForeignKey("class_questions.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("student", sa.Text, primary_key=True),
    sa.Column("answer", sa.Text, nullable=False),
    # A challenge's: whether the engine found it did what was asked; a tuning's: False when it cannot be scored.
    sa.Column("success", sa.Boolean, nullable=True),
    # A tuning's: the held-out accuracy at the α answered; NULL (with success NULL) while it waits for its held-out
    # set to be counted: a tuning answer is stored when it arrives and scored later (webnb/room/questions.py).
    sa.Column("score", sa.Float, nullable=True),
    sa.Column("hidden", sa.Boolean, nullable=False, server_default=sa.false()),  # the lecturer hid it from the reveal
    moment("answered_at"),
)


def default_url(instance_path) -> str:
    """The SQLite database in the app's instance folder (which must exist)."""
    return f"sqlite:///{Path(instance_path) / DATABASE_FILENAME}"


@dataclass(frozen=True)
class CorpusSummary:
    """A stored corpus without its documents, for lists."""

    id: str
    name: str
    source: str
    created_at: datetime  # UTC, timezone-aware
    n_documents: int
    classes: tuple[str, ...]
    workspace: str | None  # the hosted mode's owner; None in local mode
    n_characters: int | None  # None for a corpus stored before this was counted
    # The feature columns of a table of numbers; None for texts. Keyword-only with a default, so that it comes
    # after StoredCorpus's ``corpus`` and the positional fields above keep their places.
    features: tuple[str, ...] | None = field(default=None, kw_only=True)
    content: str | None = field(default=None, kw_only=True)  # the hash of its records (see content_hash)


@dataclass(frozen=True)
class StoredCorpus(CorpusSummary):
    """A stored corpus with all its documents, in the order they were added."""

    corpus: Corpus


@dataclass(frozen=True)
class PublishedCorpus:
    """A class corpus to publish: its records and what the lists say of it. ``presets``: (address parameter, text)
    pairs, the lesson settings its pages open with."""

    id: str
    name: str
    description: str
    source: str
    presets: tuple[tuple[str, str], ...]
    corpus: Corpus
    content: str | None = None  # its content_hash, when the caller has it


class StoredCorpusId(CorpusError):
    """Refusal to replace a class corpus under ``corpus_id``: that id is a corpus's a user stored, never replaced."""

    def __init__(self, corpus_id: str):
        super().__init__(f"The id {corpus_id!r} is taken already, by a corpus a user stored, which is never "
                         "replaced. Nothing was stored.")
        self.corpus_id = corpus_id


@dataclass(frozen=True)
class ClassCorpusSummary:
    """A published class corpus without its documents."""

    id: str
    name: str
    description: str
    source: str
    presets: tuple[tuple[str, str], ...]
    n_documents: int
    class_counts: tuple[tuple[str, int], ...]  # labels sorted
    created_at: datetime  # UTC
    content: str

    @property
    def classes(self) -> tuple[str, ...]:
        return tuple(label for label, _ in self.class_counts)


@dataclass(frozen=True)
class ClassRecord:
    """A class in the room as stored: everything but the lecturer's secret, of which only its hash is kept."""

    code: str
    secret_hash: str
    corpus_id: str
    presets: tuple[tuple[str, str], ...]
    state: str
    created_at: datetime
    ends_at: datetime
    ended_at: datetime | None
    state_version: int

    def running(self, now: datetime) -> bool:
        """Whether students may join at ``now``: not ended by the lecturer, and not past its hours."""
        return self.ended_at is None and now < self.ends_at


@dataclass(frozen=True)
class QuestionRecord:
    """A question asked in a class, as stored."""

    id: int
    code: str
    number: int
    kind: str  # predict, challenge or tune
    goal: str | None  # a challenge's: class, cannot-decide or flips
    target: str | None  # the class a "class" challenge asks for
    address: str
    answer: str | None  # a prediction's right answer
    asked_at: datetime
    revealed_at: datetime | None


@dataclass(frozen=True)
class AnswerRecord:
    """One student's answer to a question. ``student`` is their number in the class (1 for the first to join),
    never who they are."""

    student: int
    answer: str
    success: bool | None
    score: float | None
    hidden: bool
    answered_at: datetime

    @property
    def pending(self) -> bool:
        """A tuning answer's: stored, its score not known yet (its held-out set is being counted). Meaningless for
        the other kinds of question, which have no score."""
        return self.score is None and self.success is None


class DocumentRow(NamedTuple):
    position: int  # 0-based, the document's index in the corpus
    doc_id: str
    label: str
    text: str


def _now() -> datetime:
    return datetime.now(timezone.utc)


def as_utc(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes (stored as UTC); PostgreSQL aware ones in its time zone."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc)


SQLITE_BUSY_TIMEOUT_MS = 15_000


def _configure_sqlite(dbapi_connection, connection_record):
    # SQLite ignores ON DELETE CASCADE unless each connection asks for foreign keys. WAL lets readers go on while
    # one process writes; the busy timeout makes a writer wait for the lock instead of failing with "database is
    # locked". pysqlite's own transaction handling is switched off: _begin below starts every transaction itself.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")  # with WAL: durable at checkpoints, never corrupt
    finally:
        cursor.close()


def _begin_sqlite(connection):
    """BEGIN IMMEDIATE for a write: the write lock is taken up front, where the busy timeout applies, rather than
    when a read transaction first writes, where SQLite can only fail (a deadlock it refuses to wait out)."""
    immediate = connection.get_execution_options().get("sqlite_immediate", False)
    connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


class Storage:
    """The corpora table and its documents, behind a small API that never loads more than asked."""

    def __init__(self, url: str):
        url = sa.make_url(url)
        if url.get_backend_name() == "sqlite":
            # Flask serves requests from several threads; the pool hands a connection to one at a time.
            self.engine = sa.create_engine(
                url, connect_args={"check_same_thread": False, "timeout": SQLITE_BUSY_TIMEOUT_MS / 1000}
            )
            sa.event.listen(self.engine, "connect", _configure_sqlite)
            sa.event.listen(self.engine, "begin", _begin_sqlite)
            self._writer = self.engine.execution_options(sqlite_immediate=True)
            # One writer per process at a time: the threads of a process queue here, in order, and only one of
            # them waits on SQLite's busy handler, which is not first-come first-served. With hundreds of threads
            # all polling it, one could wait out the busy timeout and fail with "database is locked".
            self._write_lock = threading.Lock()
        else:
            self.engine = sa.create_engine(url, pool_pre_ping=True)
            self._writer = self.engine
            self._write_lock = contextlib.nullcontext()  # PostgreSQL queues writers itself, by row
        # A process forked from this one (gunicorn's workers) opens its own connections instead of sharing the
        # parent's sockets and file handles; the parent's stay the parent's.
        myself = weakref.ref(self)
        os.register_at_fork(after_in_child=lambda: myself() is not None and myself()._after_fork())

    def _after_fork(self) -> None:
        self.engine.dispose(close=False)
        if isinstance(self._write_lock, type(threading.Lock())):
            self._write_lock = threading.Lock()  # a thread of the parent may have held it at the fork

    @contextlib.contextmanager
    def _writing(self):
        """A write transaction: BEGIN IMMEDIATE on SQLite, after this process's other writers."""
        with self._write_lock, self._writer.begin() as connection:
            yield connection

    def writing(self):
        """A write transaction, as this class's own writes take it, for the tables other modules keep in this
        database (webnb/lti/registry.py)."""
        return self._writing()

    def __enter__(self) -> "Storage":
        return self

    def __exit__(self, *exc_info) -> None:
        self.dispose()

    def create_schema(self) -> None:
        """Bring the database to the newest schema by its migrations (webnb/store/migrations): creates a new database,
        upgrades one written by an earlier release in place. Safe at every start, and when several processes start
        at once (the migrations run one process at a time)."""
        from webnb.store.migrations import upgrade

        with self._write_lock:  # this process's other writers wait (the migrations take the database's own lock)
            upgrade(self.engine)
        with self.engine.connect():  # the pool's first connection, opened now rather than by the first request
            pass

    def dispose(self) -> None:
        """Close the pooled connections."""
        self.engine.dispose()

    # --- writing --------------------------------------------------------------------------

    def add_corpus(
        self, corpus: Corpus, *, name: str, source: str, workspace: str | None = None, features=None,
        content: str | None = None,
    ) -> str:
        """Store the corpus in one transaction; return its new random id.

        Its records are stored once per distinct content: when an identical corpus is stored already (a copy, the
        same file uploaded again), the new entry refers to those records and no document is written again.
        ``features`` names the columns when the corpus is a table of numbers written out one row per document
        (see :meth:`NumericTable.to_corpus`); None for texts. Either everything is stored or nothing is. Text
        containing a NUL character is refused (PostgreSQL cannot store it), naming the document. ``content``:
        its ``content_hash``, when the caller has it already.
        """
        _refuse_empty_or_nul(corpus, name, source)
        content = content or content_hash(corpus)
        n_characters, n_bytes = sum(map(len, corpus.texts)), stored_size(corpus)
        now = _now()
        with self._writing() as connection:
            _store_content(connection, corpus, content, n_characters=n_characters, n_bytes=n_bytes, now=now)
            return self._insert_entry(connection, content, name=name, source=source, workspace=workspace,
                                      features=features, n_documents=len(corpus), classes=corpus.classes,
                                      n_characters=n_characters, n_bytes=n_bytes, now=now)

    def add_class_corpora(self, published: list[PublishedCorpus], *, replace: bool = False) -> None:
        """Publish corpora to every workspace (a training part and its test part together), all in one transaction
        or none. Records stored already (the same corpus in a workspace) are not stored again. Refuses an id that a
        class corpus or a stored corpus has already.

        ``replace``: the class corpora under these ids (if any) are replaced in the same transaction instead, so that
        every workspace sees the old corpora or the new ones, never a part, and a failure leaves the old ones as they
        were. A replaced corpus keeps its place in the lists (its ``created_at``); its old records (and their counted
        data) go when no other entry uses them. An id that a stored corpus has is still refused
        (:class:`StoredCorpusId`): a user's corpus is never replaced."""
        now = _now()
        for entry in published:
            _refuse_empty_or_nul(entry.corpus, entry.name, entry.source)
        with self._writing() as connection:
            replaced = []
            for entry in published:
                created_at = now
                if replace:
                    if connection.execute(sa.select(sa.exists().where(corpora.c.id == entry.id))).scalar():
                        raise StoredCorpusId(entry.id)
                    old = connection.execute(sa.select(class_corpora.c.content, class_corpora.c.created_at)
                                             .where(class_corpora.c.id == entry.id)).one_or_none()
                    if old is not None:
                        connection.execute(class_corpora.delete().where(class_corpora.c.id == entry.id))
                        replaced.append(old.content)
                        created_at = old.created_at
                else:
                    taken = connection.execute(sa.select(
                        sa.exists().where(class_corpora.c.id == entry.id)
                        | sa.exists().where(corpora.c.id == entry.id))).scalar()
                    if taken:
                        raise CorpusError(f"The id {entry.id!r} is taken already. Nothing was stored.")
                corpus = entry.corpus
                content = entry.content or content_hash(corpus)
                _store_content(connection, corpus, content, n_characters=sum(map(len, corpus.texts)),
                               n_bytes=stored_size(corpus), now=now)
                connection.execute(class_corpora.insert(), {
                    "id": entry.id, "name": entry.name, "description": entry.description, "source": entry.source,
                    "presets": json.dumps(dict(entry.presets)), "n_documents": len(corpus),
                    "class_counts": json.dumps(corpus.class_counts()), "created_at": created_at, "content": content,
                })
            _remove_unused_contents(connection, replaced)
            pause_at("class-corpora-write")  # a test's fault lands here: every row written, nothing committed

    def add_entry(self, content: str, *, name: str, source: str, workspace: str | None = None,
                  features=None) -> str | None:
        """A new corpus entry for records stored already (a copy of another entry): no document is read or written.
        None if there is no such content (any more)."""
        now = _now()
        with self._writing() as connection:
            row = _lock_content(connection, content)
            if row is None:
                return None
            return self._insert_entry(connection, content, name=name, source=source, workspace=workspace,
                                      features=features, n_documents=row.n_documents,
                                      classes=tuple(json.loads(row.classes)), n_characters=row.n_characters,
                                      n_bytes=row.n_bytes, now=now)

    @staticmethod
    def _insert_entry(connection, content, *, name, source, workspace, features, n_documents, classes,
                      n_characters, n_bytes, now) -> str:
        corpus_id = secrets.token_urlsafe(16)  # 128 random bits: the id is also the corpus's URL
        if workspace is not None:
            # Every workspace that holds a corpus has a row, so that cleanup finds it when it falls idle.
            _insert_workspace(connection, workspace, created_at=now, last_seen_at=now)
        connection.execute(corpora.insert(), {
            "id": corpus_id, "name": name, "source": source, "created_at": now, "n_documents": n_documents,
            "classes": json.dumps(list(classes)), "workspace": workspace, "n_characters": n_characters,
            "features": None if features is None else json.dumps(list(features)), "n_bytes": n_bytes,
            "content": content,
        })
        return corpus_id

    def content_of(self, corpus_id: str) -> str | None:
        with self.engine.connect() as connection:
            return connection.execute(
                sa.select(corpora.c.content).where(corpora.c.id == corpus_id)).scalar_one_or_none()

    def has_content(self, content: str) -> bool:
        with self.engine.connect() as connection:
            return connection.execute(
                sa.select(contents.c.hash).where(contents.c.hash == content)).first() is not None

    def share(self, corpus_id: str) -> str:
        """A new share token for the corpus (each call makes another; any of them opens a copy)."""
        token = secrets.token_urlsafe(16)
        with self._writing() as connection:
            connection.execute(shares.insert(), {"token": token, "corpus_id": corpus_id, "created_at": _now()})
        return token

    def shared_corpus_id(self, token: str) -> str | None:
        with self.engine.connect() as connection:
            return connection.execute(sa.select(shares.c.corpus_id).where(shares.c.token == token)).scalar_one_or_none()

    def save_job(self, job) -> None:
        """Write a job's progress (insert the first time, update after)."""
        values = {name: getattr(job, name) for name in JOB_FIELDS}
        values["workspace"] = values["workspace"] if isinstance(values["workspace"], str) else None
        values["updated_at"] = _now()
        with self._writing() as connection:
            updated = connection.execute(jobs.update().where(jobs.c.id == job.id), values).rowcount
            if not updated:
                connection.execute(jobs.insert(), {"id": job.id, **values})

    def load_job(self, job_id: str) -> dict | None:
        with self.engine.connect() as connection:
            row = connection.execute(sa.select(jobs).where(jobs.c.id == job_id)).one_or_none()
        if row is None:
            return None
        saved = {"id": row.id, "updated_at": as_utc(row.updated_at),
                 **{name: getattr(row, name) for name in JOB_FIELDS}}
        if saved["started_at"] is not None:
            saved["started_at"] = as_utc(saved["started_at"])
        return saved

    def delete_corpus(self, corpus_id: str) -> bool:
        """Delete the corpus entry, its share links, and its records and counted data when no other entry uses
        them; False if there was none."""
        with self._writing() as connection:
            content = connection.execute(
                sa.select(corpora.c.content).where(corpora.c.id == corpus_id)).scalar_one_or_none()
            connection.execute(shares.delete().where(shares.c.corpus_id == corpus_id))
            deleted = connection.execute(corpora.delete().where(corpora.c.id == corpus_id)).rowcount
            _remove_unused_contents(connection, [content])
        return deleted > 0

    def remove_class_corpus(self, corpus_id: str) -> bool:
        """Withdraw a class corpus, and its records and counted data when no other entry uses them; False if there
        was none."""
        with self._writing() as connection:
            content = connection.execute(
                sa.select(class_corpora.c.content).where(class_corpora.c.id == corpus_id)).scalar_one_or_none()
            deleted = connection.execute(class_corpora.delete().where(class_corpora.c.id == corpus_id)).rowcount
            _remove_unused_contents(connection, [content])
        return deleted > 0

    def class_corpora(self) -> list[ClassCorpusSummary]:
        """The published class corpora, oldest first (the order the operator added them)."""
        with self.engine.connect() as connection:
            rows = connection.execute(
                sa.select(class_corpora).order_by(class_corpora.c.created_at, class_corpora.c.id)).all()
        return [_class_summary(row) for row in rows]

    def class_corpus(self, corpus_id: str) -> ClassCorpusSummary | None:
        """One class corpus without its documents, or None."""
        with self.engine.connect() as connection:
            row = connection.execute(_CLASS_SUMMARY, {"corpus_id": corpus_id}).one_or_none()
        return None if row is None else _class_summary(row)

    # --- classes in the room --------------------------------------------------------------

    def add_class(self, *, code: str, secret_hash: str, corpus_id: str, presets, state: str, ends_at: datetime,
                  now: datetime | None = None) -> bool:
        """Store a new class under ``code``; False (and nothing stored) when a class, running or ended, already has
        this code, so that the caller draws another."""
        now = now or _now()
        with self._writing() as connection:
            return insert_ignoring_duplicate(connection, classes, "code", {
                "code": code, "secret_hash": secret_hash, "corpus_id": corpus_id, "presets": json.dumps(dict(presets)),
                "state": state, "created_at": now, "ends_at": ends_at, "ended_at": None, "state_version": 0})

    def get_class(self, code: str) -> ClassRecord | None:
        """The class with this code (running or not), or None."""
        with self.engine.connect() as connection:
            row = connection.execute(sa.select(classes).where(classes.c.code == code)).one_or_none()
        if row is None:
            return None
        return ClassRecord(
            code=row.code, secret_hash=row.secret_hash, corpus_id=row.corpus_id,
            presets=tuple(json.loads(row.presets).items()), state=row.state, created_at=as_utc(row.created_at),
            ends_at=as_utc(row.ends_at), ended_at=None if row.ended_at is None else as_utc(row.ended_at),
            state_version=row.state_version)

    def end_class(self, code: str, now: datetime | None = None) -> bool:
        """End the class now; False when there is no such class or it had ended already (by the lecturer or its
        hours)."""
        now = now or _now()
        with self._writing() as connection:
            return connection.execute(classes.update().where(
                classes.c.code == code, classes.c.ended_at.is_(None), classes.c.ends_at > now),
                {"ended_at": now}).rowcount == 1

    def join_class(self, code: str, workspace: str, now: datetime | None = None) -> bool:
        """Note that ``workspace`` joined the class; True the first time, False when it had joined before."""
        now = now or _now()
        with self._writing() as connection:
            return insert_ignoring_duplicate(connection, class_members, ("code", "workspace"), {
                "code": code, "workspace": workspace, "joined_at": now})

    def remove_old_classes(self, before: datetime) -> int:
        """Delete the classes that ended before ``before`` (by the lecturer or their hours), with who joined them;
        how many were removed."""
        with self._writing() as connection:
            old = sa.select(classes.c.code).where(sa.func.coalesce(classes.c.ended_at, classes.c.ends_at) < before)
            codes = connection.execute(old).scalars().all()
            # Spelled out rather than left to ON DELETE CASCADE, which a SQLite connection without foreign keys
            # would not do.
            asked = sa.select(class_questions.c.id).where(class_questions.c.code.in_(codes))
            connection.execute(class_answers.delete().where(class_answers.c.question_id.in_(asked)))
            connection.execute(class_questions.delete().where(class_questions.c.code.in_(codes)))
            connection.execute(class_members.delete().where(class_members.c.code.in_(codes)))
            return connection.execute(classes.delete().where(classes.c.code.in_(codes))).rowcount

    def class_members(self, code: str) -> list[str]:
        """The workspaces that joined the class, in the order they joined."""
        with self.engine.connect() as connection:
            return list(connection.execute(
                sa.select(class_members.c.workspace).where(class_members.c.code == code)
                .order_by(class_members.c.joined_at, class_members.c.workspace)).scalars())

    def class_member_count(self, code: str) -> int:
        """How many joined the class (one count, for the lecturer's pages)."""
        with self.engine.connect() as connection:
            return connection.execute(sa.select(sa.func.count()).select_from(class_members)
                                      .where(class_members.c.code == code)).scalar_one()

    def set_class_state(self, code: str, state: str) -> int | None:
        """Move the class to the lesson address ``state``; its new state version (the old one when the state was
        this already), or None when there is no such class."""
        with self._writing() as connection:
            connection.execute(classes.update().where(classes.c.code == code, classes.c.state != state).values(
                state=state, state_version=classes.c.state_version + 1))
            return connection.execute(
                sa.select(classes.c.state_version).where(classes.c.code == code)).scalar_one_or_none()

    def is_member(self, code: str, student: str) -> bool:
        with self.engine.connect() as connection:
            return connection.execute(sa.select(class_members.c.code).where(
                class_members.c.code == code, class_members.c.workspace == student)).first() is not None

    def ask_question(self, code: str, *, kind: str, address: str, goal: str | None = None, target: str | None = None,
                     answer: str | None = None, now: datetime | None = None) -> QuestionRecord:
        """Add the class's next question (numbered after its last)."""
        now = now or _now()
        with self._writing() as connection:
            last = connection.execute(sa.select(sa.func.max(class_questions.c.number))
                                      .where(class_questions.c.code == code)).scalar_one()
            row = connection.execute(class_questions.insert().values(
                code=code, number=(last or 0) + 1, kind=kind, goal=goal, target=target, address=address,
                answer=answer, asked_at=now, revealed_at=None).returning(*class_questions.c)).one()
        return _question(row)

    def question(self, code: str, number: int) -> QuestionRecord | None:
        with self.engine.connect() as connection:
            row = connection.execute(sa.select(class_questions).where(
                class_questions.c.code == code, class_questions.c.number == number)).one_or_none()
        return None if row is None else _question(row)

    def questions(self, code: str) -> list[QuestionRecord]:
        """The class's questions, first asked first."""
        with self.engine.connect() as connection:
            rows = connection.execute(sa.select(class_questions).where(class_questions.c.code == code)
                                      .order_by(class_questions.c.number)).all()
        return [_question(row) for row in rows]

    def reveal_question(self, question_id: int, now: datetime | None = None) -> bool:
        """Reveal the question's answers (once); False when it was revealed already."""
        with self._writing() as connection:
            return connection.execute(class_questions.update().where(
                class_questions.c.id == question_id, class_questions.c.revealed_at.is_(None)),
                {"revealed_at": now or _now()}).rowcount == 1

    def answer_question(self, question_id: int, student: str, answer: str, *, success: bool | None = None,
                        score: float | None = None, now: datetime | None = None) -> None:
        """Store the student's answer, replacing their earlier one: one row per student and question, also when
        answers of the same student arrive at once."""
        values = {"question_id": question_id, "student": student, "answer": answer, "success": success,
                  "score": score, "hidden": False, "answered_at": now or _now()}
        with self._writing() as connection:
            dialect = connection.dialect.name
            insert = (sa.dialects.postgresql.insert if dialect == "postgresql" else sa.dialects.sqlite.insert)(
                class_answers).values(values)
            connection.execute(insert.on_conflict_do_update(
                index_elements=["question_id", "student"],
                set_={name: insert.excluded[name] for name in ("answer", "success", "score", "hidden", "answered_at")}))

    def answers(self, question: QuestionRecord) -> list[AnswerRecord]:
        """Every answer to the question, numbered by student (their order of joining the class), first answered
        first."""
        numbers = (sa.select(class_members.c.workspace, sa.func.row_number().over(
            order_by=(class_members.c.joined_at, class_members.c.workspace)).label("number"))
            .where(class_members.c.code == question.code).subquery())
        with self.engine.connect() as connection:
            rows = connection.execute(
                sa.select(numbers.c.number, class_answers).select_from(
                    class_answers.join(numbers, numbers.c.workspace == class_answers.c.student))
                .where(class_answers.c.question_id == question.id)
                .order_by(class_answers.c.answered_at, numbers.c.number)).all()
        return [AnswerRecord(row.number, row.answer, row.success, row.score, row.hidden, as_utc(row.answered_at))
                for row in rows]

    def own_answer(self, question_id: int, student: str) -> AnswerRecord | None:
        """The student's own answer (numbered 0: a student is never told their number)."""
        with self.engine.connect() as connection:
            row = connection.execute(sa.select(class_answers).where(
                class_answers.c.question_id == question_id, class_answers.c.student == student)).one_or_none()
        return None if row is None else AnswerRecord(0, row.answer, row.success, row.score, row.hidden,
                                                     as_utc(row.answered_at))

    def pending_tunings(self, question_id: int) -> list[str]:
        """The values of α that answers to the tuning question wait to be scored at, each once."""
        with self.engine.connect() as connection:
            return list(connection.execute(
                sa.select(class_answers.c.answer).distinct().where(*_pending(question_id))
                .order_by(class_answers.c.answer)).scalars())

    def score_tunings(self, question_id: int, alpha: str, score: float | None) -> int:
        """Give every answer to the tuning question that waits at ``alpha`` its held-out accuracy ``score`` (None:
        the model cannot be scored at it, which ``success`` False says); how many were scored. Only answers still
        waiting are written, so scoring again (another process, a retried job) changes nothing, and an answer that
        a student replaced meanwhile by another α keeps waiting for its own score."""
        with self._writing() as connection:
            return connection.execute(
                class_answers.update().where(*_pending(question_id), class_answers.c.answer == alpha),
                {"score": score, "success": None if score is not None else False}).rowcount

    def answers_per_student(self, code: str) -> dict[str, int]:
        """How many of the class's questions each student answered, by workspace."""
        with self.engine.connect() as connection:
            rows = connection.execute(
                sa.select(class_answers.c.student, sa.func.count()).select_from(
                    class_answers.join(class_questions, class_questions.c.id == class_answers.c.question_id))
                .where(class_questions.c.code == code).group_by(class_answers.c.student)).all()
        return {student: count for student, count in rows}

    def students_at(self, question_id: int, answer: str) -> list[str]:
        """The students whose answer to the question is ``answer`` (a tuning's α), first answered first."""
        with self.engine.connect() as connection:
            return list(connection.execute(
                sa.select(class_answers.c.student).where(class_answers.c.question_id == question_id,
                                                         class_answers.c.answer == answer)
                .order_by(class_answers.c.answered_at, class_answers.c.student)).scalars())

    def hide_answer(self, question: QuestionRecord, student_number: int) -> bool:
        """Hide the answer of the class's student ``student_number`` from the question's reveal; False when that
        student did not answer it."""
        students = self.class_members(question.code)
        if not 1 <= student_number <= len(students):
            return False
        with self._writing() as connection:
            return connection.execute(class_answers.update().where(
                class_answers.c.question_id == question.id,
                class_answers.c.student == students[student_number - 1]), {"hidden": True}).rowcount == 1

    # --- counted data ---------------------------------------------------------------------

    def counted(self, content: str, options: str, parts: tuple[str, ...] = ("vocabulary", "statistics")) -> dict | None:
        """The stored ``parts`` (columns of ``counts``) of ``content`` counted under ``options``, or None when it
        has not been counted (or is being counted now, or was replaced by more recently used options). Loading it
        marks it used."""
        columns = [counts.c[part] for part in parts]
        where = (counts.c.content == content, counts.c.options == options, counts.c.state == "done")
        with self.engine.connect() as connection:
            row = connection.execute(sa.select(counts.c.used_at, *columns).where(*where)).one_or_none()
        if row is None:
            return None
        now = _now()
        if row.used_at is None or as_utc(row.used_at) < now - USED_AT_RESOLUTION:
            with self._writing() as connection:  # rare: a process loads each set once, then keeps it
                connection.execute(counts.update().where(*where), {"used_at": now})
        return dict(zip(parts, row[1:], strict=True))

    def counting_state(self, content: str, options: str) -> tuple[str, datetime] | None:
        """('counting' or 'done', when it was claimed or its claim last renewed), or None when nobody has counted
        or claimed it."""
        with self.engine.connect() as connection:
            row = connection.execute(
                sa.select(counts.c.state, counts.c.claimed_at)
                .where(counts.c.content == content, counts.c.options == options)).one_or_none()
        return None if row is None else (row.state, as_utc(row.claimed_at))

    def claim_counting(self, content: str, options: str, stale_after: timedelta) -> bool:
        """Claim the counting of ``content`` under ``options`` for this process: True when nobody had claimed it,
        or when the claim of another has not been renewed (:meth:`renew_claim`) for ``stale_after``: that process
        stopped."""
        now = _now()
        with self._writing() as connection:
            if insert_ignoring_duplicate(connection, counts, ("content", "options"), {
                    "content": content, "options": options, "state": "counting", "claimed_at": now, "builds": 0}):
                return True
            row = connection.execute(
                sa.select(counts.c.state, counts.c.claimed_at)
                .where(counts.c.content == content, counts.c.options == options)).one_or_none()
            if row is None or row.state != "counting" or as_utc(row.claimed_at) > now - stale_after:
                return False
            return connection.execute(
                counts.update().where(counts.c.content == content, counts.c.options == options,
                                      counts.c.claimed_at == row.claimed_at), {"claimed_at": now}).rowcount == 1

    def renew_claim(self, content: str, options: str) -> bool:
        """Say that the process counting ``content`` under ``options`` is still at it (its heartbeat); False when
        there is no claim to renew any more."""
        with self._writing() as connection:
            return connection.execute(
                counts.update().where(counts.c.content == content, counts.c.options == options,
                                      counts.c.state == "counting"), {"claimed_at": _now()}).rowcount == 1

    def release_claim(self, content: str, options: str) -> None:
        """Give up a claim (counting failed): the next process to need it counts it."""
        with self._writing() as connection:
            connection.execute(counts.delete().where(counts.c.content == content, counts.c.options == options,
                                                     counts.c.state == "counting"))

    def save_counted(self, content: str, options: str, *, n_words: int, vocabulary: bytes, statistics: bytes,
                     matrix: bytes) -> None:
        """Store what counting ``content`` under ``options`` gave, and that it was counted once more. Claimed or
        not (a corpus counted as it was stored is saved directly). Beyond ``COUNTED_OPTION_SETS_PER_CONTENT`` sets
        of this content, the least recently used are removed."""
        now = _now()
        values = {"state": "done", "claimed_at": now, "used_at": now, "n_words": n_words, "vocabulary": vocabulary,
                  "statistics": statistics, "matrix": matrix,
                  "n_bytes": len(vocabulary) + len(statistics) + len(matrix)}
        with self._writing() as connection:
            updated = connection.execute(
                counts.update().where(counts.c.content == content, counts.c.options == options)
                .values(**values, builds=counts.c.builds + 1)).rowcount
            if not updated and connection.execute(
                    sa.select(contents.c.hash).where(contents.c.hash == content)).first() is not None:
                insert_ignoring_duplicate(connection, counts, ("content", "options"),
                                           {"content": content, "options": options, "builds": 1, **values})
            _keep_recent_counts(connection, content, options)

    def count_builds(self) -> dict[tuple[str, str], int]:
        """How many times each (content, options) was counted, by any process: 1 when counted once for all."""
        with self.engine.connect() as connection:
            rows = connection.execute(sa.select(counts.c.content, counts.c.options, counts.c.builds)).all()
        return {(row.content, row.options): row.builds for row in rows}

    def content_corpus(self, content: str) -> Corpus | None:
        """The records of ``content``, in order (without a name: entries that share it name it each their way);
        None if there are none (the content was removed)."""
        with self.engine.connect() as connection:
            corpus = _records(connection, content)
        return corpus if len(corpus) else None

    def summary(self, corpus_id: str) -> CorpusSummary | None:
        """The corpus entry without its documents, or None."""
        with self.engine.connect() as connection:
            row = connection.execute(_SUMMARY, {"corpus_id": corpus_id}).one_or_none()
        return None if row is None else _summary(row)

    # --- workspaces and retention ----------------------------------------------------------

    def register_workspace(self, workspace: str, created_by: str | None = None) -> bool:
        """Give ``workspace`` its row (first seen now, by ``created_by``) unless it has one; True if it was new."""
        now = _now()
        with self._writing() as connection:
            return _insert_workspace(connection, workspace, created_at=now, last_seen_at=now, created_by=created_by)

    def has_workspace(self, workspace: str) -> bool:
        """Whether ``workspace`` has stored something before (has a row, or a corpus from before rows were kept)."""
        with self.engine.connect() as connection:
            return _last_seen(connection, workspace) is not None

    def touch_workspace(
        self, workspace: str, now: datetime | None = None, every: timedelta = timedelta(hours=1)
    ) -> bool:
        """Mark ``workspace`` as seen ``now``, unless it was marked less than ``every`` ago (by any process) or has
        never stored anything. True if it wrote. One read, and at most one write an hour per workspace."""
        now = now or _now()
        with self.engine.connect() as connection:
            last_seen = connection.execute(
                sa.select(workspaces.c.last_seen_at).where(workspaces.c.id == workspace)).scalar_one_or_none()
            has_row = last_seen is not None
            if not has_row:
                last_seen = connection.execute(
                    sa.select(sa.func.min(corpora.c.created_at)).where(corpora.c.workspace == workspace)).scalar_one()
        if last_seen is None or (has_row and as_utc(last_seen) > now - every):
            return False
        with self._writing() as connection:
            if has_row:
                connection.execute(workspaces.update().where(workspaces.c.id == workspace), {"last_seen_at": now})
            else:
                # A workspace that stored before this version kept rows: it gets one now that it is seen.
                _insert_workspace(connection, workspace, created_at=as_utc(last_seen), last_seen_at=now)
        return True

    def stored_bytes(self) -> int:
        """The bytes the stored records take (see ``stored_size``), each distinct content once, however many
        entries use it. Their counted data (about a fifth more on real corpora) is derived and not counted."""
        with self.engine.connect() as connection:
            return int(connection.execute(sa.select(sa.func.coalesce(sa.func.sum(contents.c.n_bytes), 0))).scalar_one())

    def idle_workspaces(self, before: datetime) -> list[WorkspaceContents]:
        """The hosted workspaces last seen before ``before``, oldest first, with what they hold. A workspace that
        stored before rows were kept counts as seen when it stored its newest corpus. Local corpora have none."""
        with self.engine.connect() as connection:
            seen = connection.execute(
                sa.select(workspaces.c.id, workspaces.c.last_seen_at).where(workspaces.c.last_seen_at < before)).all()
            without_row = connection.execute(
                sa.select(corpora.c.workspace, sa.func.max(corpora.c.created_at))
                .where(corpora.c.workspace.is_not(None))
                .where(~sa.exists().where(workspaces.c.id == corpora.c.workspace))
                .group_by(corpora.c.workspace)
                .having(sa.func.max(corpora.c.created_at) < before)
            ).all()
            idle = sorted(((as_utc(seen_at), workspace) for workspace, seen_at in [*seen, *without_row]))
            return [_contents(connection, workspace, last_seen) for last_seen, workspace in idle]

    def remove_workspace(self, workspace: str, idle_before: datetime) -> WorkspaceContents | None:
        """Delete the workspace with its corpora, their documents and share links, and its jobs, in one
        transaction, if it is still idle (last seen before ``idle_before``); what was removed, or None."""
        with self._writing() as connection:
            last_seen = _last_seen(connection, workspace)
            if last_seen is None or last_seen >= idle_before:
                return None  # seen again since it was listed, or already removed
            removed = _contents(connection, workspace, last_seen)
            owned = sa.select(corpora.c.id).where(corpora.c.workspace == workspace).scalar_subquery()
            used = connection.execute(
                sa.select(corpora.c.content).where(corpora.c.workspace == workspace).distinct()).scalars().all()
            # Spelled out rather than left to ON DELETE CASCADE, which a SQLite connection without foreign keys
            # would not do.
            connection.execute(shares.delete().where(shares.c.corpus_id.in_(owned)))
            connection.execute(corpora.delete().where(corpora.c.workspace == workspace))
            _remove_unused_contents(connection, used)
            connection.execute(jobs.delete().where(jobs.c.workspace == workspace))
            connection.execute(workspaces.delete().where(workspaces.c.id == workspace))
        return removed

    def workspaces_created_by(self, created_by: str) -> list[WorkspaceContents]:
        """The hosted workspaces first stored in from the client address whose keyed hash is ``created_by``
        (``admission.address_key``), oldest first, with what they hold."""
        with self.engine.connect() as connection:
            rows = connection.execute(
                sa.select(workspaces.c.id, workspaces.c.last_seen_at).where(workspaces.c.created_by == created_by)
                .order_by(workspaces.c.created_at, workspaces.c.id)).all()
            return [_contents(connection, row.id, as_utc(row.last_seen_at)) for row in rows]

    def remove_workspace_now(self, workspace: str) -> WorkspaceContents | None:
        """Delete the workspace with everything it holds as ``remove_workspace`` does, however recently it was
        seen; what was removed, or None if it was gone already."""
        return self.remove_workspace(workspace, idle_before=datetime.max.replace(tzinfo=timezone.utc))

    def workspace_bytes(self, workspace: str) -> int:
        """The bytes the corpora of ``workspace`` take (as ``stored_size`` counts them), each entry in full even
        when its records are another's too: what the workspace holds, for the limits per address."""
        with self.engine.connect() as connection:
            return int(connection.execute(
                sa.select(sa.func.coalesce(sa.func.sum(_size()), 0)).where(corpora.c.workspace == workspace)
            ).scalar_one())

    def remove_old_jobs(self, before: datetime) -> int:
        """Delete the progress of jobs last reported before ``before`` (pages forget a job after an hour)."""
        with self._writing() as connection:
            return connection.execute(jobs.delete().where(jobs.c.updated_at < before)).rowcount

    # --- reading --------------------------------------------------------------------------

    def get_corpus(self, corpus_id: str) -> StoredCorpus | None:
        """The corpus with all its documents, or None if there is no corpus with this id."""
        with self.engine.connect() as connection:
            row = connection.execute(sa.select(corpora).where(corpora.c.id == corpus_id)).one_or_none()
            if row is None:
                return None
            summary = _summary(row)
            corpus = dataclasses.replace(_records(connection, row.content), name=summary.name)
        return StoredCorpus(**{f.name: getattr(summary, f.name) for f in dataclasses.fields(summary)}, corpus=corpus)

    def list_corpora(self, workspace=ANY_WORKSPACE) -> list[CorpusSummary]:
        """The stored corpora of ``workspace`` (every one by default), newest first, without documents."""
        query = sa.select(corpora).order_by(corpora.c.created_at.desc(), corpora.c.id)
        if workspace is not ANY_WORKSPACE:
            query = query.where(
                corpora.c.workspace.is_(None) if workspace is None else corpora.c.workspace == workspace
            )
        with self.engine.connect() as connection:
            rows = connection.execute(query).all()
        return [_summary(row) for row in rows]

    def usage(self, workspace: str | None) -> tuple[int, int, int]:
        """(corpora, documents, characters of text) stored by ``workspace``, for its quotas."""
        query = sa.select(
            sa.func.count(), sa.func.coalesce(sa.func.sum(corpora.c.n_documents), 0),
            sa.func.coalesce(sa.func.sum(corpora.c.n_characters), 0),
        ).where(corpora.c.workspace.is_(None) if workspace is None else corpora.c.workspace == workspace)
        with self.engine.connect() as connection:
            count, n_documents, n_characters = connection.execute(query).one()
        return int(count), int(n_documents), int(n_characters)

    def documents(
        self, corpus_id: str, offset: int = 0, limit: int = 50, label: str | None = None
    ) -> list[DocumentRow]:
        """One page of documents in corpus order, optionally only those with ``label``."""
        offset, limit = int(offset), int(limit)
        if offset < 0 or limit < 0:
            raise ValueError(f"offset and limit must not be negative (got offset={offset}, limit={limit})")
        query = sa.select(documents.c.position, documents.c.doc_id, documents.c.label, documents.c.text).where(
            documents.c.content == _content_of(corpus_id)
        )
        if label is not None:
            query = query.where(documents.c.label == label)
        query = query.order_by(documents.c.position).offset(offset).limit(limit)
        with self.engine.connect() as connection:
            return [DocumentRow(*row) for row in connection.execute(query)]

    def class_counts(self, corpus_id: str) -> dict[str, int]:
        """Documents per label, labels sorted as :attr:`Corpus.classes` sorts them; {} if no corpus."""
        query = (
            sa.select(documents.c.label, sa.func.count())
            .where(documents.c.content == _content_of(corpus_id))
            .group_by(documents.c.label)
        )
        with self.engine.connect() as connection:
            counts = dict(connection.execute(query).all())
        # Sorted in Python: a database's collation may order labels differently.
        return {label: counts[label] for label in sorted(counts)}


@dataclass(frozen=True)
class WorkspaceContents:
    """A hosted workspace's stored content, as cleanup lists and removes it."""

    workspace: str
    last_seen: datetime  # UTC
    corpora: int
    documents: int
    shares: int
    jobs: int
    bytes: int


# What a document's row and its two index entries take besides its content, so that the storage limits count real
# bytes: a million one-letter documents are not a megabyte. Measured (the growth of pg_total_relation_size of the
# tables, or of the SQLite file, against the counted size): 325 to 405 bytes a short document on PostgreSQL, whose
# rows and indexes each repeat the 64-character content hash; 260 on SQLite. With 400, what is counted is 0.7 to 1.15
# times the growth on disk on either, from 50,000 one-word documents to 20 Newsgroups (long texts are compressed by
# PostgreSQL, spill into overflow pages on SQLite). The counted data (a tenth to a fifth more) is not counted.
DOCUMENT_OVERHEAD_BYTES = 400


def stored_size(corpus: Corpus) -> int:
    """The bytes a corpus takes in the database, for the storage limits: its texts, labels and ids in UTF-8, and
    ``DOCUMENT_OVERHEAD_BYTES`` for each document."""
    return sum(len(text.encode()) + len(label.encode()) + len(doc_id.encode()) + DOCUMENT_OVERHEAD_BYTES
               for text, label, doc_id in zip(corpus.texts, corpus.labels, corpus.ids, strict=True))


def content_hash(corpus: Corpus) -> str:
    """The name of a corpus's records: SHA-256 over each document's id, label and text, in order, each as its
    UTF-8 bytes after their length (8 bytes, big-endian), so that no two different corpora run together alike."""
    digest = hashlib.sha256()
    for doc_id, label, text in zip(corpus.ids, corpus.labels, corpus.texts, strict=True):
        for value in (doc_id, label, text):
            data = value.encode("utf-8")
            digest.update(len(data).to_bytes(8, "big"))
            digest.update(data)
    return digest.hexdigest()


def _records(connection, content: str | None) -> Corpus:
    docs = connection.execute(
        sa.select(documents.c.doc_id, documents.c.label, documents.c.text)
        .where(documents.c.content == content).order_by(documents.c.position)).all()
    return Corpus(texts=tuple(doc.text for doc in docs), labels=tuple(doc.label for doc in docs),
                  ids=tuple(doc.doc_id for doc in docs))


def _content_of(corpus_id: str):
    return sa.select(corpora.c.content).where(corpora.c.id == corpus_id).scalar_subquery()


def _remove_unused_contents(connection, hashes) -> None:
    """Delete the records (and counted data) of the contents in ``hashes`` that no corpus entry (a workspace's or a
    class corpus) uses any more."""
    for content in {h for h in hashes if h is not None}:
        # Locked first: an upload of the same records that found them (and locked them) commits its entry before
        # this looks whether any entry uses them; one that comes after finds them gone and stores them again.
        connection.execute(sa.select(contents.c.hash).where(contents.c.hash == content).with_for_update())
        in_use = sa.exists().where(corpora.c.content == content) | sa.exists().where(class_corpora.c.content == content)
        if connection.execute(sa.select(in_use)).scalar():
            continue
        # Spelled out for the same reason as in remove_workspace.
        connection.execute(counts.delete().where(counts.c.content == content))
        connection.execute(documents.delete().where(documents.c.content == content))
        connection.execute(contents.delete().where(contents.c.hash == content))


def _keep_recent_counts(connection, content: str, kept: str) -> None:
    """Remove the least recently used counted sets of ``content`` beyond the bound (never ``kept``, just saved, nor
    a set being counted now)."""
    used = sa.func.coalesce(counts.c.used_at, counts.c.claimed_at)
    recent = connection.execute(
        sa.select(counts.c.options).where(counts.c.content == content, counts.c.state == "done")
        .order_by(used.desc(), counts.c.options)).scalars().all()
    stale = [options for options in recent[COUNTED_OPTION_SETS_PER_CONTENT:] if options != kept]
    if stale:
        connection.execute(counts.delete().where(counts.c.content == content, counts.c.state == "done",
                                                 counts.c.options.in_(stale)))


def _store_content(connection, corpus: Corpus, content: str, *, n_characters: int, n_bytes: int, now) -> None:
    """The content's row and its documents, unless that content is stored already (then it is locked until this
    transaction ends, so that a cleanup cannot remove it under the entry about to name it)."""
    while True:
        new_content = insert_ignoring_duplicate(connection, contents, "hash", {
            "hash": content, "n_documents": len(corpus), "n_characters": n_characters, "n_bytes": n_bytes,
            "classes": json.dumps(list(corpus.classes)), "created_at": now})
        if new_content:
            break
        if _lock_content(connection, content):
            return
        # A cleanup removed it between the two statements, and committed: store it again.
    if connection.dialect.paramstyle == "qmark":
        # SQLite: the rows go to the driver's executemany as tuples, without SQLAlchemy making a dict of parameters
        # per row (a third of the time of storing 20 Newsgroups' 11,314 documents).
        rows = [(content, i, doc_id, label, text)
                for i, (doc_id, label, text) in enumerate(zip(corpus.ids, corpus.labels, corpus.texts, strict=True))]

        def insert(batch):
            connection.exec_driver_sql(_INSERT_DOCUMENTS, batch)
    else:
        rows = [
            {"content": content, "position": i, "doc_id": doc_id, "label": label, "text": text}
            for i, (doc_id, label, text) in enumerate(zip(corpus.ids, corpus.labels, corpus.texts, strict=True))
        ]

        def insert(batch):
            connection.execute(documents.insert(), batch)
    for start in range(0, len(rows), BATCH_SIZE):
        insert(rows[start:start + BATCH_SIZE])
        if start == 0:
            pause_at("corpus-write")  # a test's kill lands here, with documents written and not committed


_INSERT_DOCUMENTS = "INSERT INTO documents (content, position, doc_id, label, text) VALUES (?, ?, ?, ?, ?)"


def _lock_content(connection, content: str):
    """The content's row, locked against removal until the transaction ends (PostgreSQL; SQLite has one writer at a
    time), or None when there is none."""
    return connection.execute(
        sa.select(contents).where(contents.c.hash == content).with_for_update(key_share=True)).one_or_none()


def insert_ignoring_duplicate(connection, table, key, values: dict) -> bool:
    """Insert the row unless one with the same ``key`` exists (also when another process inserts it at the same
    moment: PostgreSQL makes this one wait for the other's commit); True if it inserted."""
    dialect = connection.dialect.name
    insert = (sa.dialects.postgresql.insert if dialect == "postgresql" else sa.dialects.sqlite.insert)(table)
    keys = [key] if isinstance(key, str) else list(key)
    statement = insert.values(values).on_conflict_do_nothing(index_elements=keys).returning(table.c[keys[0]])
    return connection.execute(statement).first() is not None


def _size():
    """A stored corpus's size in SQL (its characters for a corpus stored before sizes were kept)."""
    return sa.func.coalesce(corpora.c.n_bytes,
                            corpora.c.n_characters + DOCUMENT_OVERHEAD_BYTES * corpora.c.n_documents, 0)


def _insert_workspace(connection, workspace: str, *, created_at, last_seen_at, created_by=None) -> bool:
    """Insert the workspace's row unless it exists (also when another process inserts it at the same moment)."""
    return insert_ignoring_duplicate(connection, workspaces, "id", {
        "id": workspace, "created_at": created_at, "last_seen_at": last_seen_at, "created_by": created_by})


def _last_seen(connection, workspace: str) -> datetime | None:
    """When the workspace was last seen: its row's time, else (stored before rows were kept) its newest corpus."""
    seen = connection.execute(
        sa.select(workspaces.c.last_seen_at).where(workspaces.c.id == workspace)).scalar_one_or_none()
    if seen is None:
        seen = connection.execute(
            sa.select(sa.func.max(corpora.c.created_at)).where(corpora.c.workspace == workspace)).scalar_one()
    return None if seen is None else as_utc(seen)


def _contents(connection, workspace: str, last_seen: datetime) -> WorkspaceContents:
    size = _size()
    n_corpora, n_documents, n_bytes = connection.execute(
        sa.select(sa.func.count(), sa.func.coalesce(sa.func.sum(corpora.c.n_documents), 0),
                  sa.func.coalesce(sa.func.sum(size), 0)).where(corpora.c.workspace == workspace)).one()
    n_shares = connection.execute(
        sa.select(sa.func.count()).select_from(shares.join(corpora, shares.c.corpus_id == corpora.c.id))
        .where(corpora.c.workspace == workspace)).scalar_one()
    n_jobs = connection.execute(sa.select(sa.func.count()).where(jobs.c.workspace == workspace)).scalar_one()
    return WorkspaceContents(workspace, last_seen, int(n_corpora), int(n_documents), int(n_shares), int(n_jobs),
                             int(n_bytes))


# Read on every request that opens a stored corpus: built once, so a request pays for the query and not for
# constructing it again.
_SUMMARY = sa.select(corpora).where(corpora.c.id == sa.bindparam("corpus_id"))


def _summary(row) -> CorpusSummary:
    return CorpusSummary(
        id=row.id,
        name=row.name,
        source=row.source,
        created_at=as_utc(row.created_at),
        n_documents=row.n_documents,
        classes=tuple(json.loads(row.classes)),
        workspace=row.workspace,
        n_characters=row.n_characters,
        features=None if row.features is None else tuple(json.loads(row.features)),
        content=row.content,
    )


_CLASS_SUMMARY = sa.select(class_corpora).where(class_corpora.c.id == sa.bindparam("corpus_id"))


def _question(row) -> QuestionRecord:
    return QuestionRecord(row.id, row.code, row.number, row.kind, row.goal, row.target, row.address, row.answer,
                          as_utc(row.asked_at), None if row.revealed_at is None else as_utc(row.revealed_at))


def _pending(question_id: int) -> tuple:
    """Where a tuning question's answers that wait for their score are: no score yet, and not found unscorable."""
    return (class_answers.c.question_id == question_id, class_answers.c.score.is_(None),
            class_answers.c.success.is_(None))


def _class_summary(row) -> ClassCorpusSummary:
    return ClassCorpusSummary(
        id=row.id,
        name=row.name,
        description=row.description,
        source=row.source,
        presets=tuple(json.loads(row.presets).items()),
        n_documents=row.n_documents,
        class_counts=tuple(json.loads(row.class_counts).items()),
        created_at=as_utc(row.created_at),
        content=row.content,
    )


def _refuse_empty_or_nul(corpus: Corpus, name: str, source: str) -> None:
    if len(corpus) == 0:
        raise CorpusError("The corpus has no documents; nothing was stored.")
    _refuse_nul(corpus, name, source)


def _refuse_nul(corpus: Corpus, name: str, source: str) -> None:
    if "\x00" in name or "\x00" in source:
        raise CorpusError("The corpus name contains a NUL character (\\x00). Remove it; nothing was stored.")
    for position, (doc_id, label, text) in enumerate(zip(corpus.ids, corpus.labels, corpus.texts, strict=True)):
        for part, value in (("text", text), ("label", label), ("id", doc_id)):
            if "\x00" in value:
                raise CorpusError(
                    f"Document {doc_id!r} (number {position + 1}): its {part} contains a NUL character "
                    "(\\x00), which is not text. Remove it from the file; nothing was stored."
                )
