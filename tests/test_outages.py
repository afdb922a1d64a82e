"""Faults of the services: with the rate-limit store (Redis) down the app keeps serving on per-process limits and
goes back to Redis when it returns; with the database cut, the pages that need it answer 503 in webnb's own words
(nothing stored, Retry-After) and everything works again once the connection is back.

The cuts are made by a TCP forwarder of the test's own, cut and restored synchronously: no sleeps, no timing."""
from __future__ import annotations

import io
import logging
import secrets
import socket
import struct
import threading
import time

import pytest
import sqlalchemy as sa
from bs4 import BeautifulSoup
from conftest import POSTGRES_URL, paste, skip_unless_ci

from webnb import create_app
from webnb.hosting.jobs import Jobs
from webnb.hosting.outages import RETRY_AFTER_SECONDS, STORAGE_UNAVAILABLE

SECRET = "s" * 40
PASTE = "pos\tgreat match and a sharp keeper\nneg\tdull match\npos\tbrilliant goal\nneg\tslow dull game"
REDIS_HOST, REDIS_PORT = "127.0.0.1", 6379
LIMITS_LOGGER, OUTAGE_LOGGER = "webnb.ratelimits", "webnb"


class Forwarder:
    """Forwards a local port to ``upstream``. ``cut()`` resets every open connection and every new one until
    ``restore()``; both return only when done."""

    def __init__(self, upstream: tuple[str, int]):
        self.upstream = upstream
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        self._cut = False
        self._closing = False
        self._acceptor = threading.Thread(target=self._accept, daemon=True)
        self._acceptor.start()

    def cut(self) -> None:
        with self._lock:
            self._cut = True
            doomed, self._open = self._open, set()
        for sock in doomed:
            _reset(sock)

    def restore(self) -> None:
        with self._lock:
            self._cut = False

    def close(self) -> None:
        self._closing = True
        self.cut()
        self._listener.shutdown(socket.SHUT_RDWR)  # wakes the accept() below (close() alone would not)
        self._acceptor.join()
        self._listener.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return  # closed
            with self._lock:
                refused = self._cut or self._closing
            if refused:
                _reset(client)
                continue
            try:
                server = socket.create_connection(self.upstream)
            except OSError:
                _reset(client)
                continue
            with self._lock:
                # A cut() between the check above and here has not seen this pair: reset it now.
                if self._cut:
                    _reset(client), _reset(server)
                    continue
                self._open.update((client, server))
            for source, target in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(source, target), daemon=True).start()

    def _pump(self, source: socket.socket, target: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                target.sendall(data)
        except OSError:
            pass  # reset by cut(), or by the other side
        for sock in (source, target):
            with self._lock:
                self._open.discard(sock)
            _reset(sock)


def _reset(sock: socket.socket) -> None:
    """Close with a TCP reset (linger 0), as a crashed server or a dropped route looks to the client."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.shutdown(socket.SHUT_RDWR)  # wakes a thread blocked in recv() on it
    except OSError:
        pass
    sock.close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture()
def hosted(make_hosted_app):
    """Makes hosted-mode apps, closing their connections (database and rate-limit store) afterwards."""
    return make_hosted_app


def warnings_from(caplog, logger: str) -> list[str]:
    return [record.getMessage() for record in caplog.records
            if record.levelno == logging.WARNING and record.name == logger]


# -- the rate-limit store -------------------------------------------------------------------------------------------


@pytest.mark.slow  # waits for the store, 1 s
def test_without_its_store_the_limits_count_in_memory_and_say_so_once(hosted, caplog):
    nothing_listens = free_port()
    app = hosted(WEBNB_RATE_LIMIT="3 per minute", RATELIMIT_STORAGE_URI=f"redis://127.0.0.1:{nothing_listens}")
    client = app.test_client()
    with caplog.at_level(logging.INFO):
        answers = [client.get(url).status_code for url in ("/", "/corpora", "/corpora/match-reviews/parameters")]
        refused = client.get("/corpora")
        other = app.test_client().get("/corpora")  # another workspace has a budget of its own
    assert answers == [200, 200, 200]
    assert refused.status_code == 429
    assert "Your workspace sent more requests than this server takes" in refused.get_data(as_text=True)
    assert other.status_code == 200
    warnings = warnings_from(caplog, LIMITS_LOGGER)
    assert len(warnings) == 1, warnings
    assert warnings[0].startswith(f"The rate-limit store redis://127.0.0.1:{nothing_listens} does not answer.")
    assert "its own memory" in warnings[0]
    assert not any(record.name == "flask-limiter" for record in caplog.records)  # said in the app's log, in its words


def test_a_password_in_the_store_address_stays_out_of_the_log(hosted, caplog):
    nothing_listens = free_port()
    app = hosted(RATELIMIT_STORAGE_URI=f"redis://:hunter2@127.0.0.1:{nothing_listens}/0")
    with caplog.at_level(logging.WARNING):
        assert app.test_client().get("/corpora").status_code == 200
    warnings = warnings_from(caplog, LIMITS_LOGGER)
    assert len(warnings) == 1 and f"redis://***@127.0.0.1:{nothing_listens}/0 does not answer" in warnings[0]
    assert "hunter2" not in caplog.text


@pytest.fixture()
def redis_client():
    import redis

    client = redis.Redis(host=REDIS_HOST, port=REDIS_PORT, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.ConnectionError as error:
        client.close()
        skip_unless_ci(f"Redis is not reachable at {REDIS_HOST}:{REDIS_PORT}: {error}")
    yield client
    client.close()


@pytest.fixture()
def redis_forwarder(redis_client):
    forwarder = Forwarder((REDIS_HOST, REDIS_PORT))
    yield forwarder
    forwarder.close()


def counted_in_redis(redis_client, workspace: str) -> int:
    """The requests Redis has counted for this workspace (one key per limit; the test sets one limit)."""
    keys = redis_client.keys(f"LIMITS:*workspace:{workspace}*")
    assert len(keys) <= 1, keys
    return int(redis_client.get(keys[0])) if keys else 0


@pytest.mark.slow  # waits for the store, 1 s
def test_the_limits_go_back_to_redis_when_it_returns(hosted, caplog, redis_client, redis_forwarder):
    app = hosted(WEBNB_RATE_LIMIT="1000 per minute", RATELIMIT_STORAGE_URI=f"redis://127.0.0.1:{redis_forwarder.port}")
    client = app.test_client()
    assert client.get("/corpora").status_code == 200
    with client.session_transaction() as session:
        workspace = session["workspace"]
    try:
        assert client.get("/corpora").status_code == 200
        assert counted_in_redis(redis_client, workspace) == 2

        redis_forwarder.cut()
        with caplog.at_level(logging.INFO):
            assert [client.get("/corpora").status_code for _ in range(5)] == [200] * 5
            assert counted_in_redis(redis_client, workspace) == 2  # counted in memory meanwhile
            assert len(warnings_from(caplog, LIMITS_LOGGER)) == 1

            redis_forwarder.restore()
            # Flask-Limiter asks Redis again from a request 1 s (then 2, 4 … 32 s) after its last try: wait for the
            # request that does, however long this machine takes to get there.
            deadline = time.monotonic() + 70
            requests = 0
            while counted_in_redis(redis_client, workspace) == 2:
                assert time.monotonic() < deadline, "the limits never went back to Redis"
                assert client.get("/corpora").status_code == 200
                requests += 1
                threading.Event().wait(0.05)  # pace the polling, not a condition
            back = counted_in_redis(redis_client, workspace)
            assert client.get("/corpora").status_code == 200
            assert client.get("/corpora").status_code == 200
            assert counted_in_redis(redis_client, workspace) == back + 2  # every request counted in Redis again
        warnings = warnings_from(caplog, LIMITS_LOGGER)
        assert len(warnings) == 2, warnings
        assert warnings[1] == (f"The rate-limit store redis://127.0.0.1:{redis_forwarder.port} answers again; "
                               "the limits are counted there.")
        print(f"back on Redis after {requests} requests")
    finally:
        for key in redis_client.keys(f"LIMITS:*workspace:{workspace}*"):
            redis_client.delete(key)


@pytest.mark.slow  # waits out a timeout, 2 s
def test_a_store_that_accepts_but_never_answers_costs_a_bounded_wait(hosted, caplog):
    """A hung Redis (it accepts the connection, then says nothing) must not hang the request."""
    with socket.create_server(("127.0.0.1", 0), backlog=16) as silent:
        app = hosted(RATELIMIT_STORAGE_URI=f"redis://127.0.0.1:{silent.getsockname()[1]}")
        client = app.test_client()
        answers = []
        with caplog.at_level(logging.WARNING):
            # In a thread, so that a hang fails the test instead of stopping the run.
            asking = threading.Thread(
                target=lambda: answers.extend(client.get("/corpora").status_code for _ in range(2)))
            asking.start()
            asking.join(timeout=60)
            assert not asking.is_alive(), "a request hangs on a rate-limit store that does not answer"
    assert answers == [200, 200]  # after the timeout, counted in memory
    assert len(warnings_from(caplog, LIMITS_LOGGER)) == 1
    assert app.config["RATELIMIT_STORAGE_OPTIONS"]["socket_timeout"] == 1.0


# -- the database ---------------------------------------------------------------------------------------------------


@pytest.fixture()
def postgres_schema(postgres_admin):
    """A schema of this test's own, as conftest's database_url makes them."""
    schema = f"webnb_test_{secrets.token_hex(8)}"  # made here, not user data
    with postgres_admin.begin() as connection:
        connection.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    yield schema
    with postgres_admin.begin() as connection:
        connection.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))


@pytest.fixture()
def postgres_forwarder(postgres_admin):
    url = sa.make_url(POSTGRES_URL)
    forwarder = Forwarder((url.host or "127.0.0.1", url.port or 5432))
    yield forwarder
    forwarder.close()


@pytest.fixture()
def app_behind_forwarder(hosted, postgres_schema, postgres_forwarder):
    url = sa.make_url(POSTGRES_URL).set(host="127.0.0.1", port=postgres_forwarder.port)
    url = url.update_query_dict({"options": f"-csearch_path={postgres_schema}"})
    return hosted(DATABASE_URL=url.render_as_string(hide_password=False))


def stored_directly(postgres_admin, schema: str) -> tuple[list[str], int]:
    """The corpora's names and the number of documents, read around the forwarder."""
    with postgres_admin.connect() as connection:
        names = connection.execute(sa.text(f'SELECT name FROM "{schema}".corpora ORDER BY name')).scalars().all()
        documents = connection.execute(sa.text(f'SELECT count(*) FROM "{schema}".documents')).scalar_one()
    return names, documents


def assert_retry_after(response) -> None:
    """In hosted mode Flask-Limiter puts the end of the rate-limit window there when it is later than webnb's."""
    if response.headers.get("X-RateLimit-Limit") is None:
        assert response.headers["Retry-After"] == str(RETRY_AFTER_SECONDS)
    else:
        assert int(response.headers["Retry-After"]) >= RETRY_AFTER_SECONDS


def assert_unavailable_page(response) -> None:
    assert response.status_code == 503
    assert_retry_after(response)
    page = response.get_data(as_text=True)
    alert = BeautifulSoup(page, "html.parser").find(role="alert")
    assert " ".join(alert.get_text().split()) == STORAGE_UNAVAILABLE
    assert "Internal Server Error" not in page and "Traceback" not in page and "psycopg" not in page


def assert_unavailable_json(response) -> None:
    assert response.status_code == 503 and response.is_json
    assert_retry_after(response)
    assert response.get_json() == {"error": STORAGE_UNAVAILABLE}


def test_a_cut_database_answers_503_and_the_app_recovers_by_itself(
    app_behind_forwarder, postgres_forwarder, postgres_admin, postgres_schema, caplog
):
    app, forwarder = app_behind_forwarder, postgres_forwarder
    client = app.test_client()
    assert paste(client, PASTE, "Before").status_code == 303
    assert client.get("/corpora").status_code == 200

    forwarder.cut()
    with caplog.at_level(logging.INFO):
        assert_unavailable_page(client.get("/corpora"))
        assert_unavailable_json(client.get("/corpora?format=json"))
        assert_unavailable_json(client.get("/corpora", headers={"Accept": "application/json"}))
        refused_paste = paste(client, PASTE, "During")
        assert_unavailable_page(refused_paste)
        assert "Back button" in refused_paste.get_data(as_text=True)
        assert_unavailable_json(paste(client, PASTE, "During too", query_string={"format": "json"}))
        # What needs no database keeps working: the home page and a built-in corpus's lesson.
        assert client.get("/").status_code == 200
        assert client.get("/corpora/match-reviews/parameters").status_code == 200
        during = warnings_from(caplog, OUTAGE_LOGGER)

        forwarder.restore()
        listed = client.get("/corpora")
        assert listed.status_code == 200
        assert paste(client, PASTE, "After").status_code == 303
        after = warnings_from(caplog, OUTAGE_LOGGER)

    assert len(during) == 1, during  # one warning for five refused requests
    assert during[0].startswith("The database cannot be reached (OperationalError: ")
    assert "Before" in listed.get_data(as_text=True) and "During" not in listed.get_data(as_text=True)
    assert after[1:] == ["The database answers again; 5 requests were answered 503 meanwhile."]
    # Nothing of the refused pastes reached the database, and both others whole.
    # The two pastes hold the same four documents: stored once, for both.
    assert stored_directly(postgres_admin, postgres_schema) == (["After", "Before"], 4)


def test_a_second_outage_is_logged_again(app_behind_forwarder, postgres_forwarder, caplog):
    client = app_behind_forwarder.test_client()
    with caplog.at_level(logging.WARNING):
        for _ in range(2):
            postgres_forwarder.cut()
            assert_unavailable_page(client.get("/corpora"))
            assert_unavailable_page(client.get("/corpora"))
            postgres_forwarder.restore()
            assert client.get("/corpora").status_code == 200
    warnings = warnings_from(caplog, OUTAGE_LOGGER)
    assert [message.split(" (")[0].split(";")[0] for message in warnings] == [
        "The database cannot be reached", "The database answers again"] * 2


def test_a_background_upload_while_the_database_is_cut(app_behind_forwarder, postgres_forwarder):
    """Uploads past WEBNB_BACKGROUND_UPLOAD_BYTES run as a job, whose progress is kept in the database."""
    app = app_behind_forwarder
    app.config["WEBNB_BACKGROUND_UPLOAD_BYTES"] = 10
    client = app.test_client()
    upload = {"file": (io.BytesIO(PASTE.replace("\t", ",").encode()), "small.csv")}
    postgres_forwarder.cut()
    assert_unavailable_page(client.post("/corpora/upload", data=upload, content_type="multipart/form-data"))
    postgres_forwarder.restore()
    upload = {"file": (io.BytesIO(PASTE.replace("\t", ",").encode()), "small.csv")}
    started = client.post("/corpora/upload", data=upload, content_type="multipart/form-data")
    assert started.status_code == 303 and "/jobs/" in started.headers["Location"]
    job_id = started.headers["Location"].rsplit("/", 1)[-1]
    job = app.extensions["webnb"]["jobs"].wait(job_id, timeout=30)
    assert job.state == "done", job.error


class FlakyStorage:
    """Saves jobs' progress, failing while ``down``."""

    def __init__(self):
        self.down = False

    def save_job(self, job) -> None:
        if self.down:
            raise sa.exc.OperationalError("UPDATE jobs …", {}, ConnectionResetError("connection reset by peer"))


def test_a_job_that_loses_the_database_says_so():
    storage = FlakyStorage()
    jobs = Jobs(workers=1, storage=storage)
    try:
        def work(job):
            storage.down = True
            job.saved = -1e9  # report at once, not half a second later
            job.report(1, 2)
            return "/nowhere"

        job = jobs.wait(jobs.start("Counting", work).id, timeout=30)
        assert job.state == "failed" and job.error == STORAGE_UNAVAILABLE
    finally:
        jobs.shutdown()


def test_a_job_refused_at_its_start_is_started_afresh_when_asked_again():
    """Keyed jobs are reused while running: one whose start failed must not be watched forever."""
    storage = FlakyStorage()
    jobs = Jobs(workers=1, storage=storage)
    try:
        storage.down = True
        with pytest.raises(sa.exc.OperationalError):
            jobs.start("Counting", lambda job: "/done", key="count")
        storage.down = False
        job = jobs.wait(jobs.start("Counting", lambda job: "/done", key="count").id, timeout=30)
        assert job.state == "done" and job.result_url == "/done"
    finally:
        jobs.shutdown()


def test_an_sqlite_database_that_cannot_be_opened_answers_503(tmp_path):
    """SQLite's outage: the file is replaced by something that is not a database (here a folder)."""
    database = tmp_path / "webnb.sqlite3"
    app = create_app({"TESTING": True, "WTF_CSRF_ENABLED": False, "DATABASE_URL": f"sqlite:///{database}"},
                     instance_path=str(tmp_path / "instance"))  # local mode: no rate-limit headers
    client = app.test_client()
    assert paste(client, PASTE, "Before").status_code == 303
    storage = app.extensions["webnb"]["storage"]
    storage.dispose()
    moved = tmp_path / "moved.sqlite3"
    database.rename(moved)
    database.mkdir()
    try:
        unavailable = client.get("/corpora")
        assert_unavailable_page(unavailable)
        assert unavailable.headers["Retry-After"] == str(RETRY_AFTER_SECONDS)
        assert_unavailable_json(paste(client, PASTE, "During", query_string={"format": "json"}))
    finally:
        storage.dispose()
        database.rmdir()
        moved.rename(database)
    listed = client.get("/corpora")
    assert listed.status_code == 200 and "Before" in listed.get_data(as_text=True)
    storage.dispose()


def test_a_bug_answers_in_webnbs_own_words_without_the_exception(tmp_path, monkeypatch):
    """An unexpected exception (here, injected into the parameters view) gives webnb's page or JSON, with no
    exception text; the log keeps the traceback."""
    def broken(*args, **kwargs):
        raise RuntimeError("secret internal detail")

    # not TESTING: no propagation
    app = create_app({"WTF_CSRF_ENABLED": False}, instance_path=str(tmp_path / "instance"))
    monkeypatch.setattr(app, "view_functions", {**app.view_functions, "parameters.show": broken})
    client = app.test_client()
    page = client.get("/corpora/match-reviews/parameters")
    assert page.status_code == 500
    body = page.get_data(as_text=True)
    assert "Something went wrong" in body and "Nothing was stored" in body
    assert "secret internal detail" not in body and "RuntimeError" not in body and "Traceback" not in body
    twin = client.get("/corpora/match-reviews/parameters?format=json")
    assert twin.status_code == 500 and "Something went wrong" in twin.get_json()["error"]
    assert "secret" not in twin.get_data(as_text=True)
