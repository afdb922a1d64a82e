"""A class in the room: ``classes`` (one row per class a lecturer started: its join code, a hash of the lecturer's
secret, the corpus and lesson presets it opened with, the lecturer's current state as a lesson address, when it
started and when it ends) and ``class_members`` (which workspaces joined which class). Nothing stored changes. The
downgrade drops both tables.

Revision 0005, after 0004, written 2026-12-03.
"""
import sqlalchemy as sa
from alembic import op

revision, down_revision = "0005", "0004"  # what alembic reads (no branches)


def upgrade() -> None:
    op.create_table(
        "classes",
        sa.Column("code", sa.Text, primary_key=True),
        sa.Column("secret_hash", sa.Text, nullable=False),
        sa.Column("corpus_id", sa.Text, nullable=False),
        sa.Column("presets", sa.Text, nullable=False),  # a JSON object of address parameters and their texts
        sa.Column("state", sa.Text, nullable=False),  # the lecturer's current lesson address (path and query)
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ends_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("state_version", sa.Integer, nullable=False, server_default="0"),
    )
    op.create_table(
        "class_members",
        sa.Column("code", sa.Text, sa.ForeignKey("classes.code", ondelete="CASCADE"), primary_key=True),
        sa.Column("workspace", sa.Text, primary_key=True),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("class_members")
    op.drop_table("classes")
