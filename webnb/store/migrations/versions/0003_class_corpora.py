"""Class corpora: the corpora an operator publishes to every workspace (``webnb corpora add``).

One new table, ``class_corpora``, whose rows name a stored content as a workspace's corpus entries do; nothing that
is stored changes. The downgrade drops the table: the contents only class corpora used stay behind, unused, until
restored from a backup or removed by hand.

Revision 0003, after 0002, written 2026-12-02.
"""
import sqlalchemy as sa
from alembic import op

revision, down_revision = "0003", "0002"  # what alembic reads (no branches)


def upgrade() -> None:
    op.create_table(
        "class_corpora",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("description", sa.Text, nullable=False),
        sa.Column("source", sa.Text, nullable=False),
        sa.Column("presets", sa.Text, nullable=False),  # a JSON object of address parameters and their texts
        sa.Column("n_documents", sa.Integer, nullable=False),
        sa.Column("class_counts", sa.Text, nullable=False),  # a JSON object: documents per label
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("content", sa.Text, sa.ForeignKey("contents.hash"), nullable=False),
    )
    op.create_index("ix_class_corpora_content", "class_corpora", ["content"])


def downgrade() -> None:
    op.drop_index("ix_class_corpora_content", table_name="class_corpora")
    op.drop_table("class_corpora")
