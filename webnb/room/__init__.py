"""The class in the room, live: who may join (``guesses``, ``proof``), and the events a lecturer's moves publish.

- ``broker``: where the views publish a class's events (a move of the lecturer, a new answer to tally) and where the
  event streams subscribe to them: Redis pub/sub when several processes serve, an in-process channel on a laptop.
- ``events``: what both stream servers share: who may listen to a class, and how an event is written on the wire.
- ``stream``: the app's own stream route, ``/classes/<code>/events`` (local mode: the development server serves it).
- ``events_server``: ``webnb events``, a small asynchronous server for the same route in hosted mode, so that open
  streams do not hold a gunicorn thread each.
"""
