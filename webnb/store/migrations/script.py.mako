"""${message}

Revision ${up_revision}, after ${down_revision | comma,n}, written ${create_date}.
"""
import sqlalchemy as sa
from alembic import op
${imports if imports else ""}
revision, down_revision = ${repr(up_revision)}, ${repr(down_revision)}  # what alembic reads (no branches)


def upgrade() -> None:
    ${upgrades if upgrades else "pass"}


def downgrade() -> None:
    ${downgrades if downgrades else "pass"}
