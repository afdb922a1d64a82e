"""Serving many users at once: workspaces and who owns what, admission and rate limits, security headers and
request limits, background jobs and the heavy-work slots, the bounded caches, and what happens when the database
fails (outages, and the named points where a test injects a fault)."""
