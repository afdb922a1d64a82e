"""When each set of counted data was last used, so that only the few most recently used per content are kept.

One nullable column on ``counts``; rows written before it count as used when they were claimed. The downgrade drops
the column.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02
"""
import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("counts") as batch:
        batch.add_column(sa.Column("used_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("counts") as batch:
        batch.drop_column("used_at")
