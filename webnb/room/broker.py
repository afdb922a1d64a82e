"""The broker of a class's events: the views publish, the open event streams subscribe.

Two brokers with one interface, ``publish(code, event, data)`` and ``subscribe(code)``:

- ``LocalBroker``, an in-process channel: ``webnb serve`` on a laptop, where one process serves every page and every
  stream, and no Redis is needed.
- ``RedisBroker``, Redis pub/sub: hosted mode, where gunicorn's workers publish and ``webnb events`` (or any other
  process) subscribes. Redis is already there for the rate limits, so the broker uses the same server by default.

``make_broker(app)`` picks one from ``WEBNB_BROKER_URL`` (default: the rate limits' store,
``WEBNB_RATE_LIMIT_STORAGE``): a ``redis://`` or ``rediss://`` URL gives Redis, anything else the in-process channel.
``create_app`` keeps it in ``app.extensions["webnb"]["broker"]``.

Publishing never fails the request that publishes: when Redis does not answer, the event is dropped, the log says so
once, and the students' pages follow by polling ``follow.json`` until it answers again.
"""
from __future__ import annotations

import json
import logging
import os
import queue
import socket
import threading
import time
from collections import defaultdict
from dataclasses import dataclass

from flask import current_app

logger = logging.getLogger("webnb.room")

# Every class's events go to the channel of its code; one pattern subscription per process hears them all.
CHANNEL_PREFIX = "webnb:room:"
# Events a listener may have waiting; one that falls this far behind is dropped (its browser reconnects and reads
# the class's state afresh), so that a stalled connection cannot grow the process without bound.
WAITING_EVENTS_KEPT = 256
# Seconds Redis may take to connect or answer: a lecturer's click must not wait longer on an absent Redis.
REDIS_TIMEOUT_SECONDS = 1.0
# After Redis failed, publishing is skipped for this long (doubling up to the last), so that an absent Redis costs
# one timeout now and then, not one per click.
RETRY_AFTER_SECONDS = (1, 2, 4, 8, 16, 32)


class BrokerUnavailable(Exception):
    """The broker cannot take a subscription now (Redis does not answer); the browser polls instead."""


@dataclass(frozen=True)
class RoomEvent:
    """One event of a class: its name (``move``, ``tally``) and its data (a small JSON object)."""

    event: str
    data: dict

    def encoded(self) -> bytes:
        return json.dumps({"event": self.event, "data": self.data}, separators=(",", ":")).encode()

    @classmethod
    def decoded(cls, raw: bytes | str) -> RoomEvent | None:
        """The event that ``encoded`` wrote, or None for anything else found on the channel."""
        try:
            message = json.loads(raw)
            event, data = message["event"], message["data"]
        except (ValueError, TypeError, KeyError):
            return None
        return cls(event, data) if isinstance(event, str) and isinstance(data, dict) else None


class Subscription:
    """The events of one class for one listener (an open stream), in the order they were published.

    ``next_event(timeout)`` waits for the next one: None when none came in that time (the stream sends a heartbeat)
    or when the subscription has ended (``ended``: the broker closed it, or the listener fell behind)."""

    _END = object()

    def __init__(self, code: str, forget):
        self.code = code
        self.ended = False
        self._waiting: queue.Queue = queue.Queue(maxsize=WAITING_EVENTS_KEPT)
        self._forget = forget

    def deliver(self, event: RoomEvent) -> None:
        try:
            self._waiting.put_nowait(event)
        except queue.Full:
            self.end()

    def next_event(self, timeout: float) -> RoomEvent | None:
        if self.ended:
            return None
        try:
            event = self._waiting.get(timeout=timeout)
        except queue.Empty:
            return None
        if event is self._END:
            self.ended = True
            return None
        return event

    def end(self) -> None:
        """Stop listening: the broker forgets this listener, and a ``next_event`` waiting now returns."""
        self._forget(self)
        try:
            self._waiting.put_nowait(self._END)
        except queue.Full:  # the listener has fallen behind: it is told by the queue it cannot empty in time
            while True:
                try:
                    self._waiting.get_nowait()
                except queue.Empty:
                    break
            self._waiting.put_nowait(self._END)


class _Listeners:
    """Who listens to which class in this process, and handing each an event."""

    def __init__(self):
        self._lock = threading.Lock()
        self._by_code: dict[str, set[Subscription]] = defaultdict(set)

    def add(self, code: str) -> Subscription:
        subscription = Subscription(code, self.remove)
        with self._lock:
            self._by_code[code].add(subscription)
        return subscription

    def remove(self, subscription: Subscription) -> None:
        with self._lock:
            listening = self._by_code.get(subscription.code)
            if listening is not None:
                listening.discard(subscription)
                if not listening:
                    del self._by_code[subscription.code]

    def deliver(self, code: str, event: RoomEvent) -> None:
        with self._lock:
            listening = list(self._by_code.get(code, ()))
        for subscription in listening:
            subscription.deliver(event)

    def end_all(self) -> None:
        with self._lock:
            listening = [s for subscriptions in self._by_code.values() for s in subscriptions]
        for subscription in listening:
            subscription.end()

    def count(self) -> int:
        with self._lock:
            return sum(len(subscriptions) for subscriptions in self._by_code.values())


@dataclass(frozen=True)
class Presence:
    """The students of a class with one of its pages open now (a stream open), and how many of them follow."""

    following: int = 0
    listening: int = 0

    def __add__(self, other: Presence) -> Presence:
        return Presence(self.following + other.following, self.listening + other.listening)

    def encoded(self) -> str:
        return f"{self.following} {self.listening}"

    @classmethod
    def decoded(cls, raw) -> Presence:
        try:
            following, listening = (int(part) for part in (raw.decode() if isinstance(raw, bytes) else raw).split())
        except (ValueError, AttributeError):
            return cls()
        return cls(following, listening)


# Where each process that holds streams says how many students of a class it holds, when the broker is Redis: the
# hash ``PRESENCE_PREFIX + code``, a field per process ("following listening"), gone PRESENCE_TTL_SECONDS after its
# last write, so that a process that stopped counts no more.
PRESENCE_PREFIX = "webnb:presence:"
PRESENCE_TTL_SECONDS = 60


def presence_field() -> str:
    """This process's name in the presence hashes."""
    return f"{socket.gethostname()}:{os.getpid()}"


class LocalBroker:
    """An in-process channel: what one process publishes reaches the streams this process serves."""

    kind = "in-process"

    def __init__(self):
        self._listeners = _Listeners()

    def publish(self, code: str, event: str, data: dict) -> None:
        self._listeners.deliver(code, RoomEvent(event, data))

    def subscribe(self, code: str) -> Subscription:
        return self._listeners.add(code)

    def listening(self) -> int:
        return self._listeners.count()

    def record_presence(self, code: str, presence: Presence) -> None:
        """Nothing to record: this process alone holds the streams."""

    def presence(self, code: str, here: Presence) -> Presence:
        return here

    def close(self) -> None:
        self._listeners.end_all()


class RedisBroker:
    """Redis pub/sub: an event published by any process reaches every process's subscribers.

    A process subscribes once, to every class's channel (``webnb:room:*``), from a thread of its own started at its
    first subscription, and hands each event to the subscriptions of that class; the events of a class are few (a
    move every few seconds, an answer per student), so every process hearing every class's costs little. When the
    connection to Redis breaks, every subscription ends: the browsers reconnect, and read the class's state afresh."""

    kind = "redis"

    def __init__(self, url: str):
        import redis

        self.url = url
        self._redis = redis
        # Timeouts in the URL win over these (redis-py reads the URL's query after its arguments).
        self._client = redis.Redis.from_url(url, socket_connect_timeout=REDIS_TIMEOUT_SECONDS,
                                            socket_timeout=REDIS_TIMEOUT_SECONDS)
        self._listeners = _Listeners()
        self._lock = threading.Lock()
        self._reader: threading.Thread | None = None
        self._stopping = threading.Event()
        self._failures = 0
        self._skip_until = 0.0

    # --- publishing ---

    def publish(self, code: str, event: str, data: dict) -> None:
        """Publish on the class's channel; when Redis does not answer, drop the event (the log says so once)."""
        if time.monotonic() < self._skip_until:
            return  # Redis failed a moment ago: the students poll meanwhile
        try:
            self._client.publish(CHANNEL_PREFIX + code, RoomEvent(event, data).encoded())
        except (self._redis.RedisError, OSError) as error:
            self._note_failure(error)
            return
        if self._failures:
            self._failures = 0
            logger.warning("The broker %s answers again; the class's events reach the browsers.", _shown(self.url))

    def _note_failure(self, error: Exception) -> None:
        if not self._failures:
            logger.warning("The broker %s does not answer (%s): the students' pages follow the lecturer by polling "
                           "until it answers again.", _shown(self.url), type(error).__name__)
        self._skip_until = time.monotonic() + RETRY_AFTER_SECONDS[min(self._failures, len(RETRY_AFTER_SECONDS) - 1)]
        self._failures += 1

    # --- subscribing ---

    def subscribe(self, code: str) -> Subscription:
        """A subscription to the class's events, heard from now on; BrokerUnavailable when Redis does not answer."""
        self._start_reading()
        return self._listeners.add(code)

    def listening(self) -> int:
        return self._listeners.count()

    # --- who is in the room: each process that holds streams writes its counts, any process reads their sum ---

    def record_presence(self, code: str, presence: Presence) -> None:
        """This process's students of the class (a field of the class's hash, named by the process)."""
        if time.monotonic() < self._skip_until:
            return
        key = PRESENCE_PREFIX + code
        try:
            with self._client.pipeline() as pipe:
                pipe.hset(key, presence_field(), presence.encoded())
                pipe.expire(key, PRESENCE_TTL_SECONDS)
                pipe.execute()
        except (self._redis.RedisError, OSError) as error:
            self._note_failure(error)

    def presence(self, code: str, here: Presence) -> Presence:
        """Every process's students of the class; ``here`` (this process's) when Redis does not answer."""
        try:
            fields = self._client.hgetall(PRESENCE_PREFIX + code)
        except (self._redis.RedisError, OSError):
            return here
        return sum((Presence.decoded(raw) for raw in fields.values()), Presence())

    def _start_reading(self) -> None:
        with self._lock:
            if self._reader is not None and self._reader.is_alive():
                return
            pubsub = self._client.pubsub()
            try:
                pubsub.psubscribe(CHANNEL_PREFIX + "*")
                # Confirmed before the first subscriber is told it listens: nothing published after is missed.
                deadline = time.monotonic() + REDIS_TIMEOUT_SECONDS * 5
                while (message := pubsub.get_message(timeout=REDIS_TIMEOUT_SECONDS)) is None \
                        or message["type"] != "psubscribe":
                    if time.monotonic() > deadline:
                        raise self._redis.TimeoutError("no confirmation of the subscription")
            except (self._redis.RedisError, OSError) as error:
                pubsub.close()
                problem = f"the broker {_shown(self.url)} does not answer ({type(error).__name__})"
                raise BrokerUnavailable(problem) from None
            self._stopping.clear()
            self._reader = threading.Thread(target=self._read, args=(pubsub,), name="webnb-room-broker", daemon=True)
            self._reader.start()

    def _read(self, pubsub) -> None:
        try:
            while not self._stopping.is_set():
                message = pubsub.get_message(timeout=REDIS_TIMEOUT_SECONDS)
                if message is None or message["type"] != "pmessage":
                    continue
                channel = message["channel"].decode()
                event = RoomEvent.decoded(message["data"])
                if event is not None:
                    self._listeners.deliver(channel.removeprefix(CHANNEL_PREFIX), event)
        except (self._redis.RedisError, OSError) as error:
            logger.warning("The broker %s stopped answering (%s): the open event streams end, and the browsers poll "
                           "until they reconnect.", _shown(self.url), type(error).__name__)
        finally:
            pubsub.close()
            self._listeners.end_all()  # the browsers reconnect and read the class's state afresh

    def close(self) -> None:
        self._stopping.set()
        reader = self._reader
        if reader is not None:
            reader.join()
        self._listeners.end_all()
        self._client.close()


def _shown(url: str) -> str:
    """The URL without its password, for the log."""
    scheme, separator, rest = url.partition("://")
    _credentials, at, host = rest.rpartition("@")
    return f"{scheme}{separator}{'***@' if at else ''}{host}"


def is_redis_url(url: str | None) -> bool:
    return bool(url) and url.startswith(("redis://", "rediss://"))


def broker_url(config) -> str:
    """``WEBNB_BROKER_URL`` (config, then environment), else where the rate limits are counted."""
    return (config.get("WEBNB_BROKER_URL") or os.environ.get("WEBNB_BROKER_URL")
            or config.get("RATELIMIT_STORAGE_URI") or "memory://")


def make_broker(app) -> LocalBroker | RedisBroker:
    url = app.config["WEBNB_BROKER_URL"] = broker_url(app.config)
    return RedisBroker(url) if is_redis_url(url) else LocalBroker()


def publish(code: str, event: str, data: dict) -> None:
    """Tell the class's open event streams (the app's broker); never fails the request that publishes."""
    current_app.extensions["webnb"]["broker"].publish(code, event, data)
