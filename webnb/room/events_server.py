"""``webnb events``: the classes' event streams in hosted mode, one small asynchronous process beside gunicorn.

Why a process of its own: an event stream stays open for the whole lecture, and gunicorn's threaded workers give each
open request a thread (2 workers × 4 threads serve 8 at once), so 300 students' streams would take every thread from
the pages. Here one asyncio event loop (uvicorn running a plain ASGI app, no framework) holds thousands of idle
streams for a few kilobytes each, and the pages keep gunicorn to themselves. The reverse proxy sends
``/classes/<code>/events`` here and everything else to gunicorn (README, "Hosting a lecture hall").

Each stream:

1. reads the browser's signed session cookie with the app's own serializer (``create_app()`` with the same settings,
   so the same secret, cookie name and lifetime: ``app.session_interface.get_signing_serializer(app)``);
2. hears the class's channel through this process's one Redis subscription (``webnb:room:*``, webnb/room/broker.py);
3. checks in the database, once per connection and in a worker thread (never on the event loop), that the browser
   is the class's lecturer or a member (webnb/room/events.py: the same rule as the app's own stream route), reading
   the class's state, which it sends first;
4. forwards the class's events until the browser goes, with a heartbeat comment every 15 s.

When Redis does not answer, a new stream answers 503 and the open ones end: the pages follow by polling
``follow.json`` until their stream reconnects.
"""
from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections import defaultdict
from datetime import datetime, timezone

from itsdangerous import BadSignature
from werkzeug.http import parse_cookie

from webnb.room import events
from webnb.room.broker import (
    CHANNEL_PREFIX,
    REDIS_TIMEOUT_SECONDS,
    WAITING_EVENTS_KEPT,
    RoomEvent,
    is_redis_url,
)

logger = logging.getLogger("webnb.room")

STREAM_PATH = re.compile(r"/classes/([0-9A-Za-z]{1,32})/events")
# Seconds uvicorn waits for open streams when stopping, before it closes them: the browsers reconnect elsewhere.
SHUTDOWN_SECONDS = 3
_END = object()  # what a stream's queue gets when its subscription ends


class Unavailable(Exception):
    """Redis does not answer: no stream can be heard now."""


class _Listeners:
    """The streams this process holds, by class: one queue each."""

    def __init__(self):
        self._by_code: dict[str, set[asyncio.Queue]] = defaultdict(set)

    def add(self, code: str) -> asyncio.Queue:
        waiting: asyncio.Queue = asyncio.Queue(maxsize=WAITING_EVENTS_KEPT)
        self._by_code[code].add(waiting)
        return waiting

    def remove(self, code: str, waiting: asyncio.Queue) -> None:
        listening = self._by_code.get(code)
        if listening is not None:
            listening.discard(waiting)
            if not listening:
                del self._by_code[code]

    def deliver(self, code: str, event: RoomEvent) -> None:
        for waiting in list(self._by_code.get(code, ())):
            try:
                waiting.put_nowait(event)
            except asyncio.QueueFull:  # a stream that fell this far behind ends; its browser reconnects
                self.remove(code, waiting)
                _end(waiting)

    def end_all(self) -> None:
        for code, listening in list(self._by_code.items()):
            for waiting in list(listening):
                self.remove(code, waiting)
                _end(waiting)

    def count(self) -> int:
        return sum(len(listening) for listening in self._by_code.values())


def _end(waiting: asyncio.Queue) -> None:
    while not waiting.empty():
        waiting.get_nowait()
    waiting.put_nowait(_END)


class RoomEventsServer:
    """The ASGI app of ``webnb events``: ``GET /classes/<code>/events`` and nothing else. ``app``: webnb's Flask
    app, made with the settings gunicorn's workers have (its session serializer, database and broker URL)."""

    def __init__(self, app, *, heartbeat: float | None = None):
        url = app.config.get("WEBNB_BROKER_URL")
        if not is_redis_url(url):
            raise RuntimeError("webnb events hears the classes' events through Redis, as gunicorn's workers publish "
                               "them: set WEBNB_RATE_LIMIT_STORAGE (or WEBNB_BROKER_URL) to a redis:// URL, the same "
                               "as theirs.")
        self.serializer = app.session_interface.get_signing_serializer(app)
        if self.serializer is None:
            raise RuntimeError("webnb events reads the signed session cookie: set WEBNB_SECRET_KEY, as for gunicorn.")
        self.cookie_name = app.config["SESSION_COOKIE_NAME"]
        self.max_age = int(app.permanent_session_lifetime.total_seconds())
        self.storage = app.extensions["webnb"]["storage"]
        self.hosted = app.config.get("WEBNB_MODE") == "hosted"
        self.clock = app.extensions.get("webnb_clock")
        self.heartbeat = float(heartbeat if heartbeat is not None
                               else app.config.get("WEBNB_EVENTS_HEARTBEAT_SECONDS", events.HEARTBEAT_SECONDS))
        self.url = url
        self.listeners = _Listeners()
        self.open_streams = events.OpenStreams()  # per listener: one member cannot hold a thousand streams
        self._redis = None
        self._reader: asyncio.Task | None = None
        self._starting: asyncio.Lock | None = None

    # --- ASGI ---

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        root = scope.get("root_path", "")
        path = scope["path"]
        if root and path.startswith(root):  # uvicorn gives the path with its --root-path before it
            path = path[len(root):]
        matched = STREAM_PATH.fullmatch(path)
        if scope["method"] != "GET" or matched is None:
            await _answer(send, 404, {"error": "There is no page at this address."})
            return
        await self._stream(scope, receive, send, matched[1], root)

    async def _lifespan(self, receive, send):
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.close()
                await send({"type": "lifespan.shutdown.complete"})
                return

    # --- one stream ---

    async def _stream(self, scope, receive, send, code: str, root: str):
        try:
            await self._hear_redis()
        except Unavailable:
            await _answer(send, 503, {"error": "The class's events cannot be heard now; the page asks once a second "
                                               "instead."}, retry_after=30)
            return
        # Listening before the state is read: a move made in between is in that state or heard after it.
        waiting = self.listeners.add(code)
        gone = taken = None
        try:
            session = self._session(scope)
            found = await asyncio.to_thread(events.listener, session, code, self.storage, hosted=self.hosted)
            if found is None:
                await _answer(send, 404, {"error": events.NOT_YOUR_CLASS})
                return
            record, role = found
            holder = events.listener_key(session, code, role, hosted=self.hosted)
            if not self.open_streams.take(holder, role):
                await _answer(send, 429, {"error": events.TOO_MANY_STREAMS}, retry_after=30)
                return
            taken = holder
            await send({"type": "http.response.start", "status": 200, "headers": [
                (b"content-type", b"text/event-stream; charset=utf-8"), (b"cache-control", b"no-store"),
                (b"x-accel-buffering", b"no")]})
            await send({"type": "http.response.body", "body": events.opening(record, self._now(), root),
                        "more_body": True})
            gone = asyncio.ensure_future(_until_disconnect(receive))
            await self._forward(send, waiting, gone, role, root)
        finally:
            self.listeners.remove(code, waiting)
            if taken is not None:
                self.open_streams.give_back(taken)
            if gone is not None:
                gone.cancel()

    async def _forward(self, send, waiting: asyncio.Queue, gone: asyncio.Future, role: str, root: str):
        while True:
            getter = asyncio.ensure_future(waiting.get())
            done, _ = await asyncio.wait({getter, gone}, timeout=self.heartbeat, return_when=asyncio.FIRST_COMPLETED)
            if gone in done:
                getter.cancel()
                return
            if getter not in done:
                getter.cancel()
                body = events.HEARTBEAT
            else:
                event = getter.result()
                if event is _END:
                    await send({"type": "http.response.body", "body": b"", "more_body": False})
                    return
                if not events.hears(role, event):
                    continue
                body = events.wire(event, root)
            await send({"type": "http.response.body", "body": body, "more_body": True})

    def _session(self, scope) -> dict:
        """The signed session's data, or {} when the cookie is missing, forged, or older than its lifetime."""
        header = b"; ".join(value for name, value in scope.get("headers", ()) if name == b"cookie")
        value = parse_cookie(header.decode("latin-1")).get(self.cookie_name)
        if not value:
            return {}
        try:
            data = self.serializer.loads(value, max_age=self.max_age)
        except BadSignature:
            return {}
        return data if isinstance(data, dict) else {}

    def _now(self) -> datetime:
        return self.clock() if self.clock else datetime.now(timezone.utc)

    # --- Redis: one pattern subscription for every class ---

    async def _hear_redis(self) -> None:
        if self._reader is not None and not self._reader.done():
            return
        if self._starting is None:
            self._starting = asyncio.Lock()
        async with self._starting:
            if self._reader is not None and not self._reader.done():
                return
            import redis.asyncio as aioredis
            from redis.exceptions import RedisError

            if self._redis is None:
                self._redis = aioredis.Redis.from_url(self.url, socket_connect_timeout=REDIS_TIMEOUT_SECONDS,
                                                      health_check_interval=30)
            pubsub = self._redis.pubsub()
            try:
                await pubsub.psubscribe(CHANNEL_PREFIX + "*")
                deadline = time.monotonic() + REDIS_TIMEOUT_SECONDS * 5
                while True:  # confirmed before any stream listens: nothing published after is missed
                    message = await pubsub.get_message(timeout=REDIS_TIMEOUT_SECONDS)
                    if message is not None and message["type"] == "psubscribe":
                        break
                    if time.monotonic() > deadline:
                        raise TimeoutError("no confirmation of the subscription")
            except (RedisError, OSError) as error:
                await pubsub.aclose()
                logger.warning("webnb events: the broker does not answer (%s); streams answer 503 until it does.",
                               type(error).__name__)
                raise Unavailable() from None
            self._reader = asyncio.ensure_future(self._read(pubsub))

    async def _read(self, pubsub) -> None:
        from redis.exceptions import RedisError

        try:
            while True:
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=self.heartbeat)
                if message is None or message["type"] != "pmessage":
                    continue
                event = RoomEvent.decoded(message["data"])
                if event is not None:
                    self.listeners.deliver(message["channel"].decode().removeprefix(CHANNEL_PREFIX), event)
        except (RedisError, OSError) as error:
            logger.warning("webnb events: the broker stopped answering (%s); the open streams end, and the pages "
                           "poll until they reconnect.", type(error).__name__)
        finally:
            self.listeners.end_all()
            await pubsub.aclose()

    async def close(self) -> None:
        """End every stream and the Redis subscription (uvicorn's shutdown)."""
        if self._reader is not None:
            self._reader.cancel()
            try:
                await self._reader
            except asyncio.CancelledError:
                pass
        self.listeners.end_all()
        if self._redis is not None:
            await self._redis.aclose()
            self._redis = None


async def _until_disconnect(receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def _answer(send, status: int, body: dict, *, retry_after: int | None = None) -> None:
    headers = [(b"content-type", b"application/json"), (b"cache-control", b"no-store")]
    if retry_after is not None:
        headers.append((b"retry-after", str(retry_after).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": json.dumps(body).encode()})


def uvicorn_server(app, host: str = "127.0.0.1", port: int = 8001, **options):
    """A uvicorn server of ``RoomEventsServer(app)``; ``server.run()`` serves until stopped."""
    import uvicorn

    config = uvicorn.Config(RoomEventsServer(app), host=host, port=port, log_level="warning", lifespan="on",
                            timeout_graceful_shutdown=SHUTDOWN_SECONDS, **options)
    return uvicorn.Server(config)
