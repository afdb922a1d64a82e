"""When each set of counted data was last used, so that only the few most recently used per content are kept.

One nullable column on ``counts``; rows written before it count as used when they were claimed. The downgrade drops
the column.

Revision 0004, after 0003, written 2026-12-02.
"""
import sqlalchemy as sa
from alembic import op

revision, down_revision = "0004", "0003"  # what alembic reads (no branches)


def upgrade() -> None:
    with op.batch_alter_table("counts") as batch:
        batch.add_column(sa.Column("used_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("counts") as batch:
        batch.drop_column("used_at")
