"""When each job started: ``jobs.started_at``, the wall-clock time at which a worker took it (not when it was asked
for), so that a progress page served by any process can estimate the time left. One nullable column; the rows
written before it have none (their pages give no estimate), and a running job's row without it is still waiting.
Nothing stored changes. The downgrade drops the column.

Revision 0007, after 0006, written 2026-12-04.
"""
import sqlalchemy as sa
from alembic import op

revision, down_revision = "0007", "0006"  # what alembic reads (no branches)


def upgrade() -> None:
    with op.batch_alter_table("jobs") as batch:
        batch.add_column(sa.Column("started_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("jobs") as batch:
        batch.drop_column("started_at")
