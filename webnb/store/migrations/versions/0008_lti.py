"""The LMS (LTI 1.3): ``lti_platforms`` (one row per platform registration: its issuer, the client id it gave webnb,
and its login, token and key-set addresses) with their ``lti_deployments``; ``lti_keys`` (webnb's own RSA keys, the
newest signing, the older ones still published after a rotation); ``lti_logins`` (the state and nonce of each login
that the platform began, kept on the server so that no cookie is needed, used once); ``lti_users`` (the workspace of
each (issuer, deployment, subject) the platform launched, and what their last launch grades); ``lti_tickets``
(short-lived single-use tickets, as hashes: a launch opened in a window of its own, an instructor's choice of a
lesson, an LMS registering itself); ``lti_scores`` (the grades going back to the courses: one per student and
gradebook column, with how their sending went). Nothing stored changes. The downgrade drops the tables.

Revision 0008, after 0007, written 2026-12-07.
"""
import sqlalchemy as sa
from alembic import op

revision, down_revision = "0008", "0007"  # what alembic reads (no branches)


def upgrade() -> None:
    op.create_table(
        "lti_platforms",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("issuer", sa.Text, nullable=False),
        sa.Column("client_id", sa.Text, nullable=False),
        sa.Column("login_url", sa.Text, nullable=False),
        sa.Column("token_url", sa.Text, nullable=False),
        sa.Column("keyset_url", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("issuer", "client_id", name="lti_platforms_issuer_client"),
    )
    op.create_table(
        "lti_deployments",
        sa.Column("platform", sa.Integer, sa.ForeignKey("lti_platforms.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("deployment_id", sa.Text, primary_key=True),
    )
    op.create_table(
        "lti_keys",
        sa.Column("kid", sa.Text, primary_key=True),
        sa.Column("private_pem", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "lti_logins",
        sa.Column("state", sa.Text, primary_key=True),
        sa.Column("nonce", sa.Text, nullable=False),
        sa.Column("platform", sa.Integer, sa.ForeignKey("lti_platforms.id", ondelete="CASCADE"), nullable=False),
        sa.Column("target_link_uri", sa.Text, nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "lti_users",
        sa.Column("issuer", sa.Text, primary_key=True),
        sa.Column("deployment_id", sa.Text, primary_key=True),
        sa.Column("subject", sa.Text, primary_key=True),
        sa.Column("workspace", sa.Text, nullable=False, unique=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_launch_at", sa.DateTime(timezone=True), nullable=False),
        # Their last launch's platform, gradebook column (AGS line item), its maximum and course: what their answers
        # grade.
        sa.Column("platform", sa.Integer, nullable=True),
        sa.Column("lineitem", sa.Text, nullable=True),
        sa.Column("score_maximum", sa.Float, nullable=True),
        sa.Column("context_id", sa.Text, nullable=True),
    )
    op.create_table(
        "lti_tickets",
        sa.Column("ticket_hash", sa.Text, primary_key=True),
        sa.Column("kind", sa.Text, nullable=False),  # window, deep-link or registration
        sa.Column("payload", sa.Text, nullable=False),  # JSON
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "lti_scores",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("platform", sa.Integer, sa.ForeignKey("lti_platforms.id", ondelete="CASCADE"), nullable=False),
        sa.Column("subject", sa.Text, nullable=False),
        sa.Column("lineitem", sa.Text, nullable=False),
        sa.Column("context_id", sa.Text, nullable=True),
        sa.Column("workspace", sa.Text, nullable=False),
        sa.Column("score_given", sa.Float, nullable=False),
        sa.Column("score_maximum", sa.Float, nullable=False),
        sa.Column("scored_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("state", sa.Text, nullable=False),  # waiting, sent or failed
        sa.Column("tries", sa.Integer, nullable=False),
        sa.Column("next_try_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.Text, nullable=True),
        sa.UniqueConstraint("platform", "subject", "lineitem", name="lti_scores_student_lineitem"),
    )


def downgrade() -> None:
    for table in ("lti_scores", "lti_tickets", "lti_users", "lti_logins", "lti_keys", "lti_deployments",
                  "lti_platforms"):
        op.drop_table(table)
