"""When each job started: ``jobs.started_at``, the wall-clock time at which a worker took it (not when it was asked
for), so that a progress page served by any process can estimate the time left. One nullable column; the rows
written before it have none (their pages give no estimate), and a running job's row without it is still waiting.
Nothing stored changes. The downgrade drops the column.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-04
"""
import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("jobs") as batch:
        batch.add_column(sa.Column("started_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("jobs") as batch:
        batch.drop_column("started_at")
