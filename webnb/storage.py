"""Corpora that users added, kept in a database so that they survive a restart.

SQLAlchemy Core (no ORM) over SQLite by default, PostgreSQL when ``WEBNB_DATABASE_URL`` says so.
Two tables: ``corpora`` (one row per corpus) and ``documents`` (one row per document, in the
corpus's order). Every value travels as a bound parameter; no SQL is built from user data.
"""
from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import NamedTuple

import sqlalchemy as sa

from webnb.engine.corpus import Corpus, CorpusError

DATABASE_FILENAME = "webnb.sqlite3"
BATCH_SIZE = 1000  # documents per executemany

metadata = sa.MetaData()

corpora = sa.Table(
    "corpora",
    metadata,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("source", sa.Text, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("n_documents", sa.Integer, nullable=False),
    sa.Column("classes", sa.Text, nullable=False),  # a JSON list of the sorted distinct labels
    sa.Index("ix_corpora_created_at", "created_at"),
)

documents = sa.Table(
    "documents",
    metadata,
    sa.Column("corpus_id", sa.Text, sa.ForeignKey("corpora.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("position", sa.Integer, primary_key=True, autoincrement=False),  # 0-based
    sa.Column("doc_id", sa.Text, nullable=False),
    sa.Column("label", sa.Text, nullable=False),
    sa.Column("text", sa.Text, nullable=False),
    # Paging one class's documents and counting classes without reading the texts.
    sa.Index("ix_documents_corpus_label_position", "corpus_id", "label", "position"),
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


@dataclass(frozen=True)
class StoredCorpus(CorpusSummary):
    """A stored corpus with all its documents, in the order they were added."""

    corpus: Corpus


class DocumentRow(NamedTuple):
    position: int  # 0-based, the document's index in the corpus
    doc_id: str
    label: str
    text: str


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _utc(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes (stored as UTC); PostgreSQL aware ones in its time zone."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc)


def _enable_sqlite_foreign_keys(dbapi_connection, connection_record):
    # SQLite ignores ON DELETE CASCADE unless each connection asks for foreign keys.
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA foreign_keys = ON")
    finally:
        cursor.close()


class Storage:
    """The corpora table and its documents, behind a small API that never loads more than asked."""

    def __init__(self, url: str):
        url = sa.make_url(url)
        if url.get_backend_name() == "sqlite":
            # Flask serves requests from several threads; the pool hands a connection to one at a time.
            self.engine = sa.create_engine(url, connect_args={"check_same_thread": False})
            sa.event.listen(self.engine, "connect", _enable_sqlite_foreign_keys)
        else:
            self.engine = sa.create_engine(url, pool_pre_ping=True)

    def __enter__(self) -> "Storage":
        return self

    def __exit__(self, *exc_info) -> None:
        self.dispose()

    def create_schema(self) -> None:
        """Create the tables and indexes that do not exist yet (safe to call at every start)."""
        metadata.create_all(self.engine)

    def dispose(self) -> None:
        """Close the pooled connections."""
        self.engine.dispose()

    # --- writing --------------------------------------------------------------------------

    def add_corpus(self, corpus: Corpus, *, name: str, source: str) -> str:
        """Store the corpus and all its documents in one transaction; return its new random id.

        Either everything is stored or nothing is. Text containing a NUL character is refused
        (PostgreSQL cannot store it), naming the document.
        """
        if len(corpus) == 0:
            raise CorpusError("The corpus has no documents; nothing was stored.")
        _refuse_nul(corpus, name, source)
        corpus_id = secrets.token_urlsafe(16)  # 128 random bits: the id is also the corpus's URL
        with self.engine.begin() as connection:
            connection.execute(
                corpora.insert(),
                {
                    "id": corpus_id,
                    "name": name,
                    "source": source,
                    "created_at": _now(),
                    "n_documents": len(corpus),
                    "classes": json.dumps(list(corpus.classes)),
                },
            )
            rows = [
                {"corpus_id": corpus_id, "position": i, "doc_id": doc_id, "label": label, "text": text}
                for i, (doc_id, label, text) in enumerate(zip(corpus.ids, corpus.labels, corpus.texts))
            ]
            for start in range(0, len(rows), BATCH_SIZE):
                connection.execute(documents.insert(), rows[start:start + BATCH_SIZE])
        return corpus_id

    def delete_corpus(self, corpus_id: str) -> bool:
        """Delete the corpus and (by ON DELETE CASCADE) its documents; False if there was none."""
        with self.engine.begin() as connection:
            result = connection.execute(corpora.delete().where(corpora.c.id == corpus_id))
        return result.rowcount > 0

    # --- reading --------------------------------------------------------------------------

    def get_corpus(self, corpus_id: str) -> StoredCorpus | None:
        """The corpus with all its documents, or None if there is no corpus with this id."""
        with self.engine.connect() as connection:
            row = connection.execute(sa.select(corpora).where(corpora.c.id == corpus_id)).one_or_none()
            if row is None:
                return None
            docs = connection.execute(
                sa.select(documents.c.doc_id, documents.c.label, documents.c.text)
                .where(documents.c.corpus_id == corpus_id)
                .order_by(documents.c.position)
            ).all()
        summary = _summary(row)
        corpus = Corpus(
            texts=tuple(doc.text for doc in docs),
            labels=tuple(doc.label for doc in docs),
            ids=tuple(doc.doc_id for doc in docs),
            name=summary.name,
        )
        return StoredCorpus(
            id=summary.id,
            name=summary.name,
            source=summary.source,
            created_at=summary.created_at,
            n_documents=summary.n_documents,
            classes=summary.classes,
            corpus=corpus,
        )

    def list_corpora(self) -> list[CorpusSummary]:
        """Every stored corpus, newest first, without documents."""
        with self.engine.connect() as connection:
            rows = connection.execute(
                sa.select(corpora).order_by(corpora.c.created_at.desc(), corpora.c.id)
            ).all()
        return [_summary(row) for row in rows]

    def documents(self, corpus_id: str, offset: int = 0, limit: int = 50, label: str | None = None) -> list[DocumentRow]:
        """One page of documents in corpus order, optionally only those with ``label``."""
        offset, limit = int(offset), int(limit)
        if offset < 0 or limit < 0:
            raise ValueError(f"offset and limit must not be negative (got offset={offset}, limit={limit})")
        query = sa.select(documents.c.position, documents.c.doc_id, documents.c.label, documents.c.text).where(
            documents.c.corpus_id == corpus_id
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
            .where(documents.c.corpus_id == corpus_id)
            .group_by(documents.c.label)
        )
        with self.engine.connect() as connection:
            counts = dict(connection.execute(query).all())
        # Sorted in Python: a database's collation may order labels differently.
        return {label: counts[label] for label in sorted(counts)}


def _summary(row) -> CorpusSummary:
    return CorpusSummary(
        id=row.id,
        name=row.name,
        source=row.source,
        created_at=_utc(row.created_at),
        n_documents=row.n_documents,
        classes=tuple(json.loads(row.classes)),
    )


def _refuse_nul(corpus: Corpus, name: str, source: str) -> None:
    if "\x00" in name or "\x00" in source:
        raise CorpusError("The corpus name contains a NUL character (\\x00). Remove it; nothing was stored.")
    for position, (doc_id, label, text) in enumerate(zip(corpus.ids, corpus.labels, corpus.texts)):
        for field, value in (("text", text), ("label", label), ("id", doc_id)):
            if "\x00" in value:
                raise CorpusError(
                    f"Document {doc_id!r} (number {position + 1}): its {field} contains a NUL character "
                    "(\\x00), which is not text. Remove it from the file; nothing was stored."
                )
