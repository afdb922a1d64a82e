"""Content-addressed corpora and persisted counts.

A corpus's documents are stored once per distinct content: ``contents`` has one row per content (keyed by the
hash of its records, in order) and ``documents`` is keyed by content, so that copies and identical uploads share
one set of document rows; ``corpora`` keeps its per-entry columns and names its content. ``counts`` holds what
counting a content under given options produced, for every process to load instead of counting again.

Every existing corpus is read once, in position order and streamed (a corpus may be 20,000 documents of 5 KB), to
hash it; its documents are copied by the database itself (INSERT ... SELECT), only for the first corpus with that
content. There is no downgrade: going back would need a copy of the documents per corpus; restore a backup instead.

Revision 0002, after 0001, written 2026-12-01.
"""
import hashlib
import json

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0002", "0001"  # what alembic reads (no branches)

DOCUMENT_OVERHEAD_BYTES = 200  # as webnb/store/database.py's stored_size counted it at this revision
STREAM_DOCUMENTS = 500  # documents fetched at a time while hashing


def content_hash(records) -> str:
    """The content's key: SHA-256 over each record's (doc_id, label, text) in order, each value as its UTF-8
    length (8 bytes, big-endian) then its bytes, so that no two different record lists give the same stream.
    Frozen here: webnb/store/database.py computes the same with its own copy (a test checks they agree)."""
    digest = hashlib.sha256()
    for record in records:
        for value in record:
            encoded = value.encode("utf-8")
            digest.update(len(encoded).to_bytes(8, "big"))
            digest.update(encoded)
    return digest.hexdigest()


class Tally:
    """What the contents row records about a content, gathered while the records stream past to be hashed."""

    def __init__(self):
        self.n_documents = self.n_characters = self.n_bytes = 0
        self.labels: set[str] = set()

    def counting(self, records):
        for doc_id, label, text in records:
            self.n_documents += 1
            self.n_characters += len(text)
            self.n_bytes += (len(text.encode("utf-8")) + len(label.encode("utf-8")) + len(doc_id.encode("utf-8"))
                             + DOCUMENT_OVERHEAD_BYTES)
            self.labels.add(label)
            yield doc_id, label, text

    @property
    def classes(self) -> str:
        return json.dumps(sorted(self.labels))


# The tables as this revision reads and writes them.
corpora = sa.table(
    "corpora", sa.column("id", sa.Text), sa.column("created_at", sa.DateTime(timezone=True)),
    sa.column("n_characters", sa.BigInteger), sa.column("n_bytes", sa.BigInteger), sa.column("content", sa.Text),
)
documents_by_corpus = sa.table(
    "documents", sa.column("corpus_id", sa.Text), sa.column("position", sa.Integer),
    sa.column("doc_id", sa.Text), sa.column("label", sa.Text), sa.column("text", sa.Text),
)
contents = sa.table(
    "contents", sa.column("hash", sa.Text), sa.column("n_documents", sa.Integer),
    sa.column("n_characters", sa.BigInteger), sa.column("n_bytes", sa.BigInteger), sa.column("classes", sa.Text),
    sa.column("created_at", sa.DateTime(timezone=True)),
)
documents_by_content = sa.table(
    "documents_by_content", sa.column("content", sa.Text), sa.column("position", sa.Integer),
    sa.column("doc_id", sa.Text), sa.column("label", sa.Text), sa.column("text", sa.Text),
)


def upgrade() -> None:
    connection = op.get_bind()
    postgresql = connection.dialect.name == "postgresql"
    op.create_table(
        "contents",
        sa.Column("hash", sa.Text, primary_key=True),
        sa.Column("n_documents", sa.Integer, nullable=False),
        sa.Column("n_characters", sa.BigInteger, nullable=False),
        sa.Column("n_bytes", sa.BigInteger, nullable=False),
        sa.Column("classes", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    # The new documents table beside the old one, renamed into its place once filled. PostgreSQL names constraints
    # after the table they were made in, so they are named for their final table (and renamed to it below).
    op.create_table(
        "documents_by_content",
        sa.Column("content", sa.Text, nullable=False),
        sa.Column("position", sa.Integer, nullable=False, autoincrement=False),
        sa.Column("doc_id", sa.Text, nullable=False),
        sa.Column("label", sa.Text, nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("content", "position", name="documents_by_content_pkey" if postgresql else None),
        sa.ForeignKeyConstraint(["content"], ["contents.hash"], ondelete="CASCADE",
                                name="documents_by_content_content_fkey" if postgresql else None),
    )
    # Raw DDL: SQLite adds a column with a REFERENCES clause, but not a constraint afterwards (Alembic's way).
    op.execute("ALTER TABLE corpora ADD COLUMN content TEXT REFERENCES contents (hash)")

    for corpus_id, created_at, n_characters, n_bytes in connection.execute(
        sa.select(corpora.c.id, corpora.c.created_at, corpora.c.n_characters, corpora.c.n_bytes)
        .order_by(corpora.c.created_at, corpora.c.id)  # a content is as old as its first corpus
    ).all():
        tally = Tally()
        with connection.execute(  # closed even on failure: on PostgreSQL a server-side cursor
            sa.select(documents_by_corpus.c.doc_id, documents_by_corpus.c.label, documents_by_corpus.c.text)
            .where(documents_by_corpus.c.corpus_id == corpus_id)
            .order_by(documents_by_corpus.c.position)
            .execution_options(yield_per=STREAM_DOCUMENTS)
        ) as records:
            key = content_hash(tally.counting(records))
        stored = connection.execute(sa.select(contents.c.hash).where(contents.c.hash == key)).first()
        if stored is None:
            connection.execute(contents.insert().values(
                hash=key, n_documents=tally.n_documents, n_characters=tally.n_characters, n_bytes=tally.n_bytes,
                classes=tally.classes, created_at=created_at))
            # Positions renumbered from 0 in corpus order, as the hash read them.
            position = sa.func.row_number().over(order_by=documents_by_corpus.c.position) - 1
            connection.execute(documents_by_content.insert().from_select(
                ["content", "position", "doc_id", "label", "text"],
                sa.select(sa.literal(key, sa.Text), position, documents_by_corpus.c.doc_id,
                          documents_by_corpus.c.label, documents_by_corpus.c.text)
                .where(documents_by_corpus.c.corpus_id == corpus_id)))
        connection.execute(corpora.update().where(corpora.c.id == corpus_id).values(
            content=key,
            n_characters=tally.n_characters if n_characters is None else n_characters,
            n_bytes=tally.n_bytes if n_bytes is None else n_bytes,
        ))

    op.drop_table("documents")  # and its index
    op.rename_table("documents_by_content", "documents")
    if postgresql:
        op.execute("ALTER TABLE documents RENAME CONSTRAINT documents_by_content_pkey TO documents_pkey")
        op.execute("ALTER TABLE documents RENAME CONSTRAINT documents_by_content_content_fkey "
                   "TO documents_content_fkey")
    # Paging one class's documents and counting classes without reading the texts.
    op.create_index("ix_documents_content_label_position", "documents", ["content", "label", "position"])
    op.create_index("ix_corpora_content", "corpora", ["content"])

    op.create_table(
        "counts",
        sa.Column("content", sa.Text, sa.ForeignKey("contents.hash", ondelete="CASCADE"), nullable=False),
        sa.Column("options", sa.Text, nullable=False),
        sa.Column("state", sa.Text, nullable=False),  # 'counting' or 'done'
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("builds", sa.Integer, nullable=False, server_default=sa.text("0")),
        sa.Column("n_words", sa.Integer, nullable=True),
        sa.Column("vocabulary", sa.LargeBinary, nullable=True),
        sa.Column("statistics", sa.LargeBinary, nullable=True),
        sa.Column("matrix", sa.LargeBinary, nullable=True),
        sa.Column("n_bytes", sa.BigInteger, nullable=True),
        sa.PrimaryKeyConstraint("content", "options"),
    )


def downgrade() -> None:
    raise NotImplementedError("Revision 0002 (content-addressed corpora) has no downgrade: restore a backup taken "
                              "before the upgrade.")
