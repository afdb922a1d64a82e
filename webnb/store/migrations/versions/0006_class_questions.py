"""Questions in a class: ``class_questions`` (one row per question a lecturer asked a class: its kind, what it asks
for, the lesson address of the slide it was asked from, the model's own answer, when it was asked and revealed) and
``class_answers`` (one row per student and question: a new answer replaces the old). Nothing stored changes. The
downgrade drops both tables.

Revision 0006, after 0005, written 2026-12-03.
"""
import sqlalchemy as sa
from alembic import op

revision, down_revision = "0006", "0005"  # what alembic reads (no branches)


def upgrade() -> None:
    op.create_table(
        "class_questions",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("code", sa.Text, sa.ForeignKey("classes.code", ondelete="CASCADE"), nullable=False),
        sa.Column("number", sa.Integer, nullable=False),  # 1, 2, … within its class
        sa.Column("kind", sa.Text, nullable=False),  # predict, challenge or tune
        sa.Column("goal", sa.Text, nullable=True),  # a challenge's: class, cannot-decide or flips
        sa.Column("target", sa.Text, nullable=True),  # the class a "class" challenge asks for
        sa.Column("address", sa.Text, nullable=False),  # the lesson address of the slide it was asked from
        sa.Column("answer", sa.Text, nullable=True),  # a prediction's right answer: a class or "cannot decide"
        sa.Column("asked_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revealed_at", sa.DateTime(timezone=True), nullable=True),
        sa.UniqueConstraint("code", "number", name="uq_class_questions_code_number"),
    )
    op.create_table(
        "class_answers",
        sa.Column("question_id", sa.Integer, sa.ForeignKey("class_questions.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("student", sa.Text, primary_key=True),
        sa.Column("answer", sa.Text, nullable=False),
        sa.Column("success", sa.Boolean, nullable=True),
        sa.Column("score", sa.Float, nullable=True),
        sa.Column("hidden", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("answered_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("class_answers")
    op.drop_table("class_questions")
