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

``follow.json``, that poll, is answered here too (the proxy sends it here with the streams): a page polls it while
its stream is not open, and a script can poll it flat out from thousands of connections. Here such a flood costs
a few microseconds of this loop per request and never takes a thread from the lecturer's pages. The answer is the
app's (webnb/room/following.py): the same 404 from the session alone for anyone but a member or the lecturer, a
budget per member (``WEBNB_FOLLOW_POLLS``, counted in this process: every poll of the hall comes here), and the
class's state, kept from the moves heard on Redis and otherwise read at most every ``STATE_KEPT_SECONDS``.
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
from limits import parse_many
from limits.storage import MemoryStorage
from limits.strategies import FixedWindowRateLimiter
from werkzeug.http import parse_cookie

from webnb.room import events
from webnb.room.broker import (
    CHANNEL_PREFIX,
    PRESENCE_PREFIX,
    PRESENCE_TTL_SECONDS,
    REDIS_TIMEOUT_SECONDS,
    WAITING_EVENTS_KEPT,
    RoomEvent,
    is_redis_url,
    presence_field,
)
from webnb.room.hall import STATE_KEPT_SECONDS

logger = logging.getLogger("webnb.room")

STREAM_PATH = re.compile(r"/classes/([0-9A-Za-z]{1,32})/events")
POLL_PATH = re.compile(r"/classes/([0-9A-Za-z]{1,32})/follow\.json")
# Seconds uvicorn waits for open streams when stopping, before it closes them: the browsers reconnect elsewhere.
SHUTDOWN_SECONDS = 3
# After Redis failed to answer, new streams answer 503 at once for this long before it is asked again.
RETRY_BROKER_AFTER_SECONDS = 5.0
# How often the students present (open streams) are written to Redis for the lecturer's pages, at most.
PRESENCE_WRITE_SECONDS = 1.0
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
        heard = _Heard(event)
        for waiting in list(self._by_code.get(code, ())):
            try:
                waiting.put_nowait(heard)
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


class _PolledStates:
    """Each polled class's state as follow.json gives it: (version, address, running), from the last move heard
    or a read at most ``STATE_KEPT_SECONDS`` old; one read at a time per class, in a worker thread."""

    def __init__(self, storage, clock):
        self.storage = storage
        self.clock = clock
        self._kept: dict[str, tuple[float, tuple | None]] = {}
        self._reading: dict[str, asyncio.Future] = {}

    async def get(self, code: str) -> tuple | None:
        kept = self._kept.get(code)
        if kept is not None and time.monotonic() - kept[0] < STATE_KEPT_SECONDS:
            return kept[1]
        reading = self._reading.get(code)
        if reading is None:  # the first poll reads; the others of that moment wait for its answer
            reading = self._reading[code] = asyncio.ensure_future(asyncio.to_thread(self._read, code))
            reading.add_done_callback(lambda _: self._reading.pop(code, None))
        state = await asyncio.shield(reading)
        self._keep(code, state)
        return state

    def _read(self, code: str) -> tuple | None:
        record = self.storage.get_class(code)
        return None if record is None else (record.state_version, record.state, record.running(self.clock()))

    def heard(self, code: str, event: RoomEvent) -> None:
        data = event.data
        if event.event == "move" and isinstance(data.get("version"), int) and isinstance(data.get("address"), str):
            self._keep(code, (data["version"], data["address"], bool(data.get("running", True))))

    def _keep(self, code: str, state: tuple | None) -> None:
        kept = self._kept.get(code)
        if state is not None and kept is not None and kept[1] is not None and kept[1][0] > state[0]:
            return  # a read that began before a move was heard never takes the class back
        self._kept[code] = (time.monotonic(), state)
        if len(self._kept) > 10_000:  # codes polled long ago; a flood of unknown codes never reaches here
            self._kept.pop(next(iter(self._kept)))


class _Heard:
    """An event heard once and sent on every stream of its class: written as bytes once per script root, not once per
    stream (2,000 streams of one class hear each move)."""

    __slots__ = ("event", "_written")

    def __init__(self, event: RoomEvent):
        self.event = event
        self._written: dict[str, bytes] = {}

    def wire(self, root: str) -> bytes:
        written = self._written.get(root)
        if written is None:
            written = self._written[root] = events.wire(self.event, root)
        return written


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
        self.polled = _PolledStates(self.storage, self._now)
        self.poll_budget = parse_many(app.config.get("WEBNB_FOLLOW_POLLS", events.POLLS_PER_MEMBER))
        self.polls = FixedWindowRateLimiter(MemoryStorage())
        self._redis = None
        self._reader: asyncio.Task | None = None
        self._starting: asyncio.Lock | None = None
        self._quiet_until = 0.0
        self._presence_changed: set[str] = set()
        self._presence_writer: asyncio.Task | None = None
        self._presence_field = presence_field()

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
        stream, poll = STREAM_PATH.fullmatch(path), POLL_PATH.fullmatch(path)
        if scope["method"] != "GET" or not (stream or poll):
            await _answer(send, 404, {"error": "There is no page at this address."})
        elif poll:
            await self._poll(scope, send, poll[1], root)
        else:
            await self._stream(scope, receive, send, stream[1], root)

    async def _lifespan(self, receive, send):
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.close()
                await send({"type": "lifespan.shutdown.complete"})
                return

    # --- follow.json ---

    async def _poll(self, scope, send, code: str, root: str):
        session = self._session(scope)
        if not events.may_poll(session, code):
            await _answer(send, 404, {"error": events.NOT_YOUR_CLASS})
            return
        poller = events.poller_key(session, hosted=self.hosted) or f"lecturer of {code}"
        if not all(self.polls.hit(limit, "webnb-follow-poll", poller) for limit in self.poll_budget):
            await _answer(send, 429, {"error": events.TOO_MANY_POLLS}, retry_after=events.POLL_RETRY_SECONDS)
            return
        try:
            await self._hear_redis()  # the moves heard are the answers' freshest state
        except Unavailable:
            pass  # the state read from the database does as well
        state = await self.polled.get(code)
        if state is None:
            await _answer(send, 404, {"error": events.NOT_YOUR_CLASS})
            return
        await _answer(send, 200, events.polled_state(*state, root))

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
        following = False
        try:
            session = self._session(scope)
            found = await asyncio.to_thread(events.listener, session, code, self.storage, hosted=self.hosted)
            if found is None:
                await _answer(send, 404, {"error": events.NOT_YOUR_CLASS})
                return
            record, role = found
            holder = events.listener_key(session, code, role, hosted=self.hosted)
            following = role == "student" and bool(session.get("following"))
            if not self.open_streams.take(holder, role, following):
                await _answer(send, 429, {"error": events.TOO_MANY_STREAMS}, retry_after=30)
                return
            taken = holder
            self._present(code)
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
                self.open_streams.give_back(taken, following)
                self._present(code)
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
                heard = getter.result()
                if heard is _END:
                    await send({"type": "http.response.body", "body": b"", "more_body": False})
                    return
                if not events.hears(role, heard.event):
                    continue
                body = heard.wire(root)
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

    # --- who is in the room, written to Redis for the lecturer's pages (gunicorn reads it) ---

    def _present(self, code: str) -> None:
        """The class's students here changed: written within PRESENCE_WRITE_SECONDS, once however many changed."""
        self._presence_changed.add(code)
        if self._presence_writer is None or self._presence_writer.done():
            self._presence_writer = asyncio.ensure_future(self._write_presence())

    async def _write_presence(self) -> None:
        """Write the changed classes' counts every PRESENCE_WRITE_SECONDS, and every class's again before its hash
        expires; ends when no stream is open."""
        from redis.exceptions import RedisError

        rewritten = time.monotonic()
        while True:
            await asyncio.sleep(PRESENCE_WRITE_SECONDS)
            if time.monotonic() - rewritten > PRESENCE_TTL_SECONDS / 3:
                self._presence_changed.update(self.open_streams.classes())
                rewritten = time.monotonic()
            changed, self._presence_changed = self._presence_changed, set()
            if self._redis is None:
                continue
            try:
                async with self._redis.pipeline(transaction=False) as pipe:
                    for code in changed:
                        key = PRESENCE_PREFIX + code
                        pipe.hset(key, self._presence_field, self.open_streams.presence(code).encoded())
                        pipe.expire(key, PRESENCE_TTL_SECONDS)
                    await pipe.execute()
            except (RedisError, OSError):
                self._presence_changed |= changed  # written with the next ones
            if not changed and not self.open_streams.classes():
                return

    # --- Redis: one pattern subscription for every class ---

    async def _hear_redis(self) -> None:
        if self._reader is not None and not self._reader.done():
            return
        if time.monotonic() < self._quiet_until:
            raise Unavailable()  # asked a moment ago: requests meanwhile do not queue behind another try
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
                self._quiet_until = time.monotonic() + RETRY_BROKER_AFTER_SECONDS
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
                    code = message["channel"].decode().removeprefix(CHANNEL_PREFIX)
                    self.polled.heard(code, event)
                    self.listeners.deliver(code, event)
        except (RedisError, OSError) as error:
            logger.warning("webnb events: the broker stopped answering (%s); the open streams end, and the pages "
                           "poll until they reconnect.", type(error).__name__)
        finally:
            self.listeners.end_all()
            await pubsub.aclose()

    async def close(self) -> None:
        """End every stream and the Redis subscription (uvicorn's shutdown)."""
        if self._presence_writer is not None:
            self._presence_writer.cancel()
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
    content = json.dumps(body).encode()
    headers = [(b"content-type", b"application/json"), (b"cache-control", b"no-store"),
               (b"content-length", str(len(content)).encode())]  # not chunked: the connection stays for the next
    if retry_after is not None:
        headers.append((b"retry-after", str(retry_after).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": content})


def uvicorn_server(app, host: str = "127.0.0.1", port: int = 8001, **options):
    """A uvicorn server of ``RoomEventsServer(app)``; ``server.run()`` serves until stopped."""
    import uvicorn

    config = uvicorn.Config(RoomEventsServer(app), host=host, port=port, log_level="warning", lifespan="on",
                            timeout_graceful_shutdown=SHUTDOWN_SECONDS, **options)
    return uvicorn.Server(config)
