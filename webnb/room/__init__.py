"""The class in the room: a lecturer leads, students join with a code, follow the lecturer's slides and answer
questions, live. Everything about a class as a lecture room lives here (a "class" elsewhere in webnb is a label).

- ``lecture``: classes, codes, secrets and questions' tallies, without Flask (the command line shares it).
- ``hall``: who this browser is in a class (lecturer, member), the class's state as polled, moving it.
- ``joining``: starting, leading and ending a class, and joining it; ``proof``: the work asked of a guesser.
- ``following``: the one seam into the lesson pages (a followed slide drawn once, the lecturer's clicks moving the
  class), ``follow.json`` and "Show this to the class".
- ``questions``: predict, challenge and tune, their answers and the projector's tally.
- ``broker``: where the views publish a class's events (a move of the lecturer, a new answer to tally) and where the
  event streams subscribe to them: Redis pub/sub when several processes serve, an in-process channel on a laptop.
- ``events``: what both stream servers share: who may listen to a class, and how an event is written on the wire.
- ``stream``: the app's own stream route, ``/classes/<code>/events`` (local mode: the development server serves it).
- ``events_server``: ``webnb events``, a small asynchronous server for the same route in hosted mode, so that open
  streams do not hold a gunicorn thread each.

``init_app(app)``, called by ``create_app`` once the lesson's blueprints are registered, makes the room's broker and
caches, registers its views and wraps the lesson pages (``following.follow_lesson_pages``).
"""
from __future__ import annotations


def init_app(app) -> None:
    # Imported here: importing one module of the room (lecture, for the command line) must not load every view.
    from limits.storage import MemoryStorage

    from webnb.hosting.cache import Cache
    from webnb.room import broker, events, following, hall, joining, questions, stream

    room = app.extensions["webnb"]
    # A class's events, published by the views and heard by the open event streams: Redis pub/sub when the rate
    # limits are counted there (or WEBNB_BROKER_URL says so), else in-process.
    room["broker"] = broker.make_broker(app)
    room["followed_pages"] = Cache(max_entries=following.FOLLOWED_PAGES_KEPT)  # a followed slide, drawn once
    room["answer_counts"] = MemoryStorage()  # answers per student, where the rate limits are off (local mode)
    room["events_misrouted"] = False  # said once in the log (webnb/room/stream.py)
    room["open_streams"] = events.OpenStreams()  # per listener, for the app's own stream route
    hall.init_app(app)
    for blueprint in (joining.bp, following.bp, questions.bp):
        app.register_blueprint(blueprint)
    stream.init_app(app)  # /classes/<code>/events, served here in local mode
    following.follow_lesson_pages(app)
