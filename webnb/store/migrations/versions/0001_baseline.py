"""Baseline: the schema of the last release before Alembic, made where missing.

On an empty database this creates every table. On a database of an earlier release it creates the tables and
indexes it lacks and adds the columns added to ``corpora`` after the first release, as that release's
``create_schema`` did at every start; anything present is left as it is.

Revision 0001, written 2026-12-01.
"""
import sqlalchemy as sa
from alembic import op
from sqlalchemy.schema import CreateIndex

revision, down_revision = "0001", None  # what alembic reads (no branches)

# A frozen copy of the schema as webnb/store/database.py defined it then (later revisions change it; this must not).
metadata = sa.MetaData()

sa.Table(
    "corpora",
    metadata,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("source", sa.Text, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("n_documents", sa.Integer, nullable=False),
    sa.Column("classes", sa.Text, nullable=False),
    sa.Column("workspace", sa.Text, nullable=True),
    sa.Column("n_characters", sa.BigInteger, nullable=True),
    sa.Column("features", sa.Text, nullable=True),
    sa.Column("n_bytes", sa.BigInteger, nullable=True),
    sa.Index("ix_corpora_created_at", "created_at"),
    sa.Index("ix_corpora_workspace", "workspace"),
)

# Columns added to corpora after the first release.
LATER_COLUMNS = {"workspace": "TEXT", "n_characters": "BIGINT", "features": "TEXT", "n_bytes": "BIGINT"}

sa.Table(
    "documents",
    metadata,
    sa.Column("corpus_id", sa.Text, sa.ForeignKey("corpora.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("position", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("doc_id", sa.Text, nullable=False),
    sa.Column("label", sa.Text, nullable=False),
    sa.Column("text", sa.Text, nullable=False),
    sa.Index("ix_documents_corpus_label_position", "corpus_id", "label", "position"),
)

sa.Table(
    "shares",
    metadata,
    sa.Column("token", sa.Text, primary_key=True),
    sa.Column("corpus_id", sa.Text, sa.ForeignKey("corpora.id", ondelete="CASCADE"), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)

sa.Table(
    "jobs",
    metadata,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("workspace", sa.Text, nullable=True),
    sa.Column("title", sa.Text, nullable=False),
    sa.Column("unit", sa.Text, nullable=False),
    sa.Column("done", sa.BigInteger, nullable=False),
    sa.Column("total", sa.BigInteger, nullable=False),
    sa.Column("state", sa.Text, nullable=False),
    sa.Column("result_url", sa.Text, nullable=True),
    sa.Column("error", sa.Text, nullable=True),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
)

sa.Table(
    "workspaces",
    metadata,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("created_by", sa.Text, nullable=True),
    sa.Index("ix_workspaces_last_seen_at", "last_seen_at"),
)


def upgrade() -> None:
    connection = op.get_bind()
    metadata.create_all(connection, checkfirst=True)  # the missing tables, with their indexes
    present = {column["name"] for column in sa.inspect(connection).get_columns("corpora")}
    for name, kind in LATER_COLUMNS.items():
        if name not in present:
            op.execute(f"ALTER TABLE corpora ADD COLUMN {name} {kind}")  # names and types are ours
    # A table that existed may lack indexes added later (the first release had none).
    for table in metadata.sorted_tables:
        for index in table.indexes:
            connection.execute(CreateIndex(index, if_not_exists=True))


def downgrade() -> None:
    """Nothing: the baseline is where the history starts, and its tables hold the data."""
