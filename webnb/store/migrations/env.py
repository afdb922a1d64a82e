"""Alembic's entry point: runs the revisions on the connection that :func:`webnb.store.migrations.upgrade` passes,
inside the transaction it has begun (and locked), so that Alembic neither commits nor opens another."""
from alembic import context

connection = context.config.attributes.get("connection")
if connection is None or context.is_offline_mode():
    raise RuntimeError("Run webnb's migrations with webnb.store.migrations.upgrade(engine), not the alembic command.")

context.configure(connection=connection, target_metadata=None)
with context.begin_transaction():  # the caller's transaction: no new one
    context.run_migrations()
