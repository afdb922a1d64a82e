"""The broker of a class's events (webnb/room/broker.py): what is published reaches every subscriber of that class
and no other, in process and through Redis; an absent Redis never fails the publisher (said once in the log) and
refuses a subscription; ``create_app`` picks the broker from the settings."""
from __future__ import annotations

import logging
import socket

import pytest

from webnb.room.broker import BrokerUnavailable, LocalBroker, RedisBroker, RoomEvent

WAIT = 10.0  # seconds a subscriber waits for an event that must come (it returns as soon as it does)


def closed_port() -> int:
    """A port on this machine where nothing listens."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_an_event_reaches_every_subscriber_of_its_class_and_no_other():
    broker = LocalBroker()
    first, second, elsewhere = broker.subscribe("3X9KQR"), broker.subscribe("3X9KQR"), broker.subscribe("AAAAAA")
    broker.publish("3X9KQR", "move", {"version": 2, "address": "/corpora/iris"})
    for subscription in (first, second):
        assert subscription.next_event(WAIT) == RoomEvent("move", {"version": 2, "address": "/corpora/iris"})
    assert elsewhere.next_event(0) is None and not elsewhere.ended
    assert broker.listening() == 3
    first.end()
    assert broker.listening() == 2 and first.next_event(WAIT) is None and first.ended
    broker.close()
    assert second.next_event(WAIT) is None and second.ended and broker.listening() == 0


def test_events_arrive_in_the_order_published():
    broker = LocalBroker()
    subscription = broker.subscribe("3X9KQR")
    for version in range(1, 6):
        broker.publish("3X9KQR", "move", {"version": version})
    assert [subscription.next_event(WAIT).data["version"] for _ in range(5)] == [1, 2, 3, 4, 5]


def test_a_subscriber_that_falls_behind_is_ended_not_grown(monkeypatch):
    monkeypatch.setattr("webnb.room.broker.WAITING_EVENTS_KEPT", 3)
    broker = LocalBroker()
    slow = broker.subscribe("3X9KQR")
    for version in range(10):
        broker.publish("3X9KQR", "tally", {"number": version})
    assert slow.next_event(WAIT) is None and slow.ended and broker.listening() == 0


def test_an_event_reads_back_as_written_and_anything_else_is_ignored():
    event = RoomEvent("move", {"version": 3, "address": "/corpora/iris?alpha=1", "running": True})
    assert RoomEvent.decoded(event.encoded()) == event
    for raw in (b"", b"nonsense", b"[]", b'{"event": "move"}', b'{"event": 1, "data": {}}',
                b'{"event": "x", "data": 2}'):
        assert RoomEvent.decoded(raw) is None


def test_redis_carries_an_event_from_one_process_broker_to_another(redis_test_url):
    publisher, subscriber = RedisBroker(redis_test_url), RedisBroker(redis_test_url)
    try:
        ours, other_class = subscriber.subscribe("3X9KQR"), subscriber.subscribe("AAAAAA")
        publisher.publish("3X9KQR", "move", {"version": 7, "address": "/corpora/spam-ham", "running": True})
        publisher.publish("3X9KQR", "tally", {"number": 1})
        assert ours.next_event(WAIT) == RoomEvent("move", {"version": 7, "address": "/corpora/spam-ham",
                                                           "running": True})
        assert ours.next_event(WAIT) == RoomEvent("tally", {"number": 1})
        assert other_class.next_event(0) is None and not other_class.ended
    finally:
        publisher.close()
        subscriber.close()
    assert ours.next_event(WAIT) is None and ours.ended  # closing the broker ends its subscriptions


def test_an_absent_redis_never_fails_the_publisher_and_is_logged_once(caplog):
    broker = RedisBroker(f"redis://127.0.0.1:{closed_port()}/0")
    try:
        with caplog.at_level(logging.WARNING, logger="webnb.room"):
            for version in range(5):
                broker.publish("3X9KQR", "move", {"version": version})  # the lecturer's click goes on
        said = [record.getMessage() for record in caplog.records if record.name == "webnb.room"]
        assert len(said) == 1 and "does not answer" in said[0] and "polling" in said[0]
        with pytest.raises(BrokerUnavailable):
            broker.subscribe("3X9KQR")  # the stream answers 503 and the page polls
    finally:
        broker.close()


@pytest.mark.parametrize(("config", "kind"), [
    ({}, "in-process"),
    ({"WEBNB_RATE_LIMIT_STORAGE": "redis://127.0.0.1:6379/15"}, "redis"),
    ({"WEBNB_RATE_LIMIT_STORAGE": "redis://127.0.0.1:6379/15", "WEBNB_BROKER_URL": "memory://"}, "in-process"),
    ({"WEBNB_BROKER_URL": "redis://127.0.0.1:6379/15"}, "redis"),
])
def test_the_app_makes_its_broker_from_its_settings(tmp_path, monkeypatch, config, kind):
    from webnb import create_app

    monkeypatch.delenv("WEBNB_RATE_LIMIT_STORAGE", raising=False)
    monkeypatch.delenv("WEBNB_BROKER_URL", raising=False)
    app = create_app({"TESTING": True, **config}, instance_path=str(tmp_path / "instance"))
    broker = app.extensions["webnb"]["broker"]
    try:
        assert broker.kind == kind  # made, not connected: no Redis is reached until something is published
    finally:
        broker.close()
        app.extensions["webnb"]["storage"].dispose()
