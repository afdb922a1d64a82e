"""Shared fixtures and helpers; those of the browser tests are in tests/browser/conftest.py.

Tests that need something outside the repository (the shared corpora, Chromium) skip with a reason on a
machine that lacks it, but fail in CI (``CI=true``), where a missing dependency is a broken setup.
"""
from __future__ import annotations

import io
import logging
import os
import secrets
import shutil
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import sqlalchemy as sa

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_CORPORA = REPO_ROOT.parent / "shared" / "corpora"


def worker_number() -> int:
    """This process's number among pytest-xdist's workers (0 without xdist): what it may keep to itself."""
    return int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def skip_unless_ci(reason: str):
    """Skip here, fail in CI."""
    if in_ci():
        pytest.fail(f"{reason} (required in CI)")
    pytest.skip(reason)


# Fixtures that reach a service outside the process; the tests that use them are marked `services`.
SERVICE_FIXTURES = frozenset({"postgres_admin", "redis_test_url"})


def pytest_collection_modifyitems(items):
    """Marks `services` every test that needs PostgreSQL or Redis: the PostgreSQL case of ``database_url`` (so of
    every fixture made on it) and any test that uses ``postgres_admin`` or ``redis_test_url``. Their SQLite twins
    stay unmarked, so ``-m "not services"`` still runs every view and storage test once."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        on_postgres = callspec is not None and callspec.params.get("database_url") == "postgresql"
        if on_postgres or SERVICE_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.services)


# -- the one-second rule: a test of the fast run (README, Development) takes less than a second ---------------------

ONE_SECOND = 1.0
MARKED_OUT_OF_THE_FAST_RUN = frozenset({"slow", "browser", "corpora", "services"})
_seconds_taken: dict[str, float] = {}


# The tests that ran in this process (an xdist worker runs some of the session's tests, the controller none).
RAN_IN_THIS_PROCESS: set[str] = set()


def pytest_runtest_logreport(report):
    """Adds up each test's set-up, call and tear-down (on the controller, from every xdist worker's reports) for
    those the fast run keeps; notes each test that ran here."""
    if report.when == "call":
        RAN_IN_THIS_PROCESS.add(report.nodeid)
    if MARKED_OUT_OF_THE_FAST_RUN.isdisjoint(report.keywords):
        _seconds_taken[report.nodeid] = _seconds_taken.get(report.nodeid, 0.0) + report.duration


def _over_one_second() -> list[tuple[float, str]]:
    return sorted(((seconds, nodeid) for nodeid, seconds in _seconds_taken.items() if seconds >= ONE_SECOND),
                  reverse=True)


def pytest_sessionfinish(session, exitstatus):
    """Timing is not asserted in a normal run, where a busy machine would fail it by luck;
    ``WEBNB_ONE_SECOND_RULE=enforce`` (README, Development) fails a run with a test over the rule, on an idle
    machine. (The controller decides: an xdist worker sees only its own tests.)"""
    enforced = os.environ.get("WEBNB_ONE_SECOND_RULE") == "enforce"
    if enforced and exitstatus == 0 and not hasattr(session.config, "workerinput") and _over_one_second():
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter):
    """Lists the fast run's tests that took a second or more: mark them slow, or make them quicker."""
    over = _over_one_second()
    if over:
        terminalreporter.section("the one-second rule")
        terminalreporter.write_line(f"{len(over)} test(s) kept in the fast run took a second or more:")
        for seconds, nodeid in over:
            terminalreporter.write_line(f"  {seconds:5.2f} s  {nodeid}")


def slow_but_the_first(count: int, cases: list) -> list:
    """A family's parametrisation with every case after the first ``count`` marked slow: the first ones stay in the
    fast run (README, Development), the full run has them all. Cases of several arguments are tuples."""
    return [case if index < count else pytest.param(*(case if isinstance(case, tuple) else (case,)),
                                                    marks=pytest.mark.slow)
            for index, case in enumerate(cases)]


@pytest.fixture(autouse=True, scope="session")
def _templates_compiled_once_per_run():
    """Every app of the run shares one cache of compiled templates. Tests make a fresh app by the thousand and each
    compiled every template it rendered anew, nearly half the time of a view test. Jinja keys the cache by the
    template's file and checks the source's checksum, so an edited template is compiled again."""
    import jinja2
    from flask import Flask

    class InMemory(jinja2.BytecodeCache):
        def __init__(self):
            self.code = {}

        def load_bytecode(self, bucket):
            if bucket.key in self.code:
                bucket.bytecode_from_string(self.code[bucket.key])

        def dump_bytecode(self, bucket):
            self.code[bucket.key] = bucket.bytecode_to_string()

    original = Flask.jinja_options
    Flask.jinja_options = {**original, "bytecode_cache": InMemory()}
    yield
    Flask.jinja_options = original


@pytest.fixture(scope="session")
def shared_corpora() -> Path:
    if not SHARED_CORPORA.is_dir():
        skip_unless_ci(f"the shared corpora are not at {SHARED_CORPORA}")
    return SHARED_CORPORA


@pytest.fixture(scope="session")
def sms_spam(shared_corpora):
    """The SMS Spam Collection (5,574 messages), read once."""
    from webnb.engine import read_corpus

    return read_corpus(shared_corpora / "sms-spam-collection-v1" / "all.jsonl")


@dataclass(frozen=True)
class HeldOut:
    """A corpus split as the evaluation page splits it by default: the training part counted, the test part and
    its matrix over the training vocabulary."""

    train: object  # Corpus
    test: object  # Corpus
    training: object  # TrainingSet
    test_matrix: object  # scipy.sparse matrix


@pytest.fixture(scope="session")
def sms_spam_held_out(sms_spam) -> HeldOut:
    """The SMS Spam Collection with a quarter held out (stratified, seed 0), counted once."""
    from webnb.engine import TrainingSet, stratified_split

    train_index, test_index = stratified_split(sms_spam.labels, 0.25, seed=0)
    train, test = sms_spam.subset(train_index), sms_spam.subset(test_index)
    training = TrainingSet.build(train)
    return HeldOut(train, test, training, training.transform(test.texts))


def _closing_bodies(app):
    """``app`` with each response body closed as soon as it is sent or abandoned. Werkzeug's development server closes
    it only after draining the request, and skips that when the browser has dropped the connection meanwhile: a static
    file then stays open until garbage collection, which pytest reports in whichever test runs then."""

    def wsgi(environ, start_response):
        body = app(environ, start_response)

        def sent():
            try:
                yield from body
            finally:
                if hasattr(body, "close"):
                    body.close()

        return sent()

    return wsgi


@contextmanager
def serving(app):
    """``app`` served over real HTTP from a background thread, as a browser needs; yields its base URL."""
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, _closing_bodies(app), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    # One line per request on stderr would bury a failure's output.
    werkzeug_logger = logging.getLogger("werkzeug")
    level = werkzeug_logger.level
    werkzeug_logger.setLevel(logging.WARNING)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        # A class's open event streams end first: closing, the server waits for every request's thread.
        broker = getattr(app, "extensions", {}).get("webnb", {}).get("broker")
        if broker is not None:
            broker.close()
        server.shutdown()
        thread.join()
        server.server_close()
        werkzeug_logger.setLevel(level)


@pytest.fixture(scope="session")
def match_reviews():
    """The match-reviews example (seed 002), counted with the default analysis."""
    from webnb.engine import TrainingSet
    from webnb.examples import load_example_corpus

    return TrainingSet.build(load_example_corpus("match-reviews"))


@pytest.fixture(scope="session")
def spam_ham():
    """The sixteen text messages of the spam-or-ham example, counted with the default analysis."""
    from webnb.engine import TrainingSet
    from webnb.examples import load_example_corpus

    return TrainingSet.build(load_example_corpus("spam-ham"))


@pytest.fixture(scope="session")
def folgers_students():
    """The two sentences of the Folgers-and-students example, counted with the default analysis."""
    from webnb.engine import TrainingSet
    from webnb.examples import load_example_corpus

    return TrainingSet.build(load_example_corpus("folgers-students"))


@pytest.fixture(scope="session")
def iris():
    """Fisher's iris table (a table of numbers: Gaussian Naive Bayes)."""
    from webnb.examples import load_example_table

    return load_example_table("iris")


@pytest.fixture(scope="session")
def match_ratings():
    """The opponent's rating in eighteen matches, won or lost (one feature)."""
    from webnb.examples import load_example_table

    return load_example_table("match-ratings")


@pytest.fixture(scope="session")
def red_cards():
    """Rating and red cards in fourteen matches: red cards have variance 0 among the lost ones."""
    from webnb.examples import load_example_table

    return load_example_table("red-cards")


@pytest.fixture(scope="session")
def china_japan():
    """The China / not China example (seed 001), counted with the default analysis."""
    from webnb.engine import TrainingSet
    from webnb.examples import load_example_corpus

    return TrainingSet.build(load_example_corpus("china-japan"))


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory) -> Path:
    """An empty SQLite database at the newest schema, made once per process by the migrations: each app's fresh
    database starts as a copy of it (the app finds it at the head and has nothing to upgrade), instead of
    running every revision again for every test. tests/test_migrations.py runs the revisions themselves."""
    from webnb.store import migrations

    path = tmp_path_factory.mktemp("migrated") / "webnb.sqlite3"
    engine = sa.create_engine(f"sqlite:///{path}")
    try:
        migrations.upgrade(engine)
    finally:
        engine.dispose()
    return path


@pytest.fixture()
def app(request, tmp_path, migrated_sqlite):
    """A fresh app with its own instance folder (and database); CSRF off, as forms are tested apart. A test (or a
    module's ``pytestmark``) changes its configuration with ``@pytest.mark.app_config(NAME=value, ...)``, and runs
    on SQLite and on PostgreSQL (a schema of its own) with ``@pytest.mark.on_both_databases``."""
    from webnb import create_app
    from webnb.store.database import DATABASE_FILENAME

    marker = request.node.get_closest_marker("app_config")
    config = {"TESTING": True, "WTF_CSRF_ENABLED": False, **(marker.kwargs if marker else {})}
    if request.node.get_closest_marker("on_both_databases"):
        config["DATABASE_URL"] = request.getfixturevalue("database_url")
    instance = tmp_path / "instance"
    if "DATABASE_URL" not in config:  # the instance folder's own SQLite database, as a fresh one is after migrating
        instance.mkdir()
        shutil.copyfile(migrated_sqlite, instance / DATABASE_FILENAME)
    application = create_app(config, instance_path=str(instance))
    yield application
    application.extensions["webnb"]["jobs"].shutdown()
    application.extensions["webnb"]["storage"].dispose()


def pytest_generate_tests(metafunc):
    """``on_both_databases``: the test's ``app`` needs ``database_url``, whose two values (SQLite, PostgreSQL) make
    the test twice. Added to the test's fixtures here, before pytest parametrises them."""
    if "app" in metafunc.fixturenames and metafunc.definition.get_closest_marker("on_both_databases"):
        if "database_url" not in metafunc.fixturenames:
            metafunc.fixturenames.append("database_url")
            metafunc.parametrize("database_url", ["sqlite", "postgresql"], indirect=True)


@pytest.fixture()
def client(app):
    return app.test_client()


def paste(client, text: str, name: str = "mine", *, form: dict | None = None, **request):
    """Pastes ``text`` as a corpus named ``name`` through the paste form, as a browser sends it (``form``: more
    fields, e.g. the CSRF token; ``request``: the client's ``headers=``, ``query_string=``): the response."""
    return client.post("/corpora/paste", data={"corpus": text, "name": name, **(form or {})}, **request)


def pasted_id(client, text: str, name: str = "mine") -> str:
    """Pastes ``text`` (as ``paste``) and returns the new corpus's id, once the paste was accepted."""
    response = paste(client, text, name)
    assert response.status_code == 303, response.get_data(as_text=True)[:300]
    return response.headers["Location"].rsplit("/", 1)[-1]


def soup_of(response, status: int | None = 200):
    """A test client's HTML response, parsed, once its status is the expected one (``status=None`` takes any)."""
    from bs4 import BeautifulSoup

    text = response.get_data(as_text=True)
    if status is not None:
        assert response.status_code == status, f"status {response.status_code}, not {status}: {text[:500]}"
    return BeautifulSoup(text, "html.parser")


# -- PostgreSQL: the storage and view tests run against it as well as SQLite -----------------------------------------

POSTGRES_URL = os.environ.get("WEBNB_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")

SHOWN_URL = sa.make_url(POSTGRES_URL).render_as_string(hide_password=True)


@pytest.fixture(scope="session")
def postgres_admin():
    try:
        import psycopg  # noqa: F401
    except ImportError:
        skip_unless_ci('psycopg is not installed (pip install "psycopg[binary]")')
    engine = sa.create_engine(POSTGRES_URL)
    try:
        with engine.connect() as connection:
            connection.execute(sa.text("SELECT 1"))
    except sa.exc.OperationalError as err:
        engine.dispose()
        skip_unless_ci(f"PostgreSQL is not reachable at {SHOWN_URL}: {err.orig}")
    yield engine
    engine.dispose()


def stored_workspace_ids(storage) -> set[str]:
    """The ids of every workspace ``storage`` keeps, read on a connection closed before it returns: a connection
    left open holds its transaction's locks, and a PostgreSQL schema's teardown (DROP SCHEMA) would wait for it
    forever in the same process."""
    from webnb.store.database import workspaces

    with storage.engine.connect() as connection:
        return set(connection.execute(sa.select(workspaces.c.id)).scalars())


@pytest.fixture()
def postgres_schema_url(postgres_admin):
    """The address of a PostgreSQL schema of its own, dropped after the test."""
    schema = f"webnb_test_{secrets.token_hex(8)}"  # made here, not user data
    with postgres_admin.begin() as connection:
        connection.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    url = sa.make_url(POSTGRES_URL).update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with postgres_admin.begin() as connection:
            connection.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'webnb.sqlite3'}"
    return request.getfixturevalue("postgres_schema_url")


class RepeatedBytes(io.RawIOBase):
    """A stream of ``size`` bytes, all ``fill``, made as it is read: a large entry without holding it in memory."""

    def __init__(self, size: int, fill: bytes = b"\0"):
        self.left, self.fill = size, fill

    def readable(self):
        return True

    def readinto(self, buffer):
        n = min(len(buffer), self.left)
        buffer[:n] = self.fill * n
        self.left -= n
        return n



@pytest.fixture()
def app_on_both_databases(tmp_path, database_url):
    """The app on SQLite and on PostgreSQL (a schema of its own): for the view tests that store corpora."""
    from webnb import create_app

    application = create_app({"TESTING": True, "WTF_CSRF_ENABLED": False, "DATABASE_URL": database_url},
                             instance_path=str(tmp_path / "instance"))
    yield application
    application.extensions["webnb"]["storage"].dispose()


# -- hosted mode ---------------------------------------------------------------------------------------------------

HOSTED_SECRET = "s" * 40


@pytest.fixture()
def make_hosted_app(tmp_path):
    """Makes hosted-mode apps (``make(**config)``, SQLite unless ``DATABASE_URL`` is given), closing their database
    connections and any Redis connections of their rate-limit store afterwards."""
    from limits.storage import RedisStorage

    from webnb import create_app

    made = []

    def make(**config):
        settings = {"TESTING": True, "WTF_CSRF_ENABLED": False, "WEBNB_MODE": "hosted", "SECRET_KEY": HOSTED_SECRET,
                    "WEBNB_RATE_LIMIT": "100000 per minute", **config}
        application = create_app(settings, instance_path=str(tmp_path / "instance"))
        made.append(application)
        return application

    yield make
    for application in made:
        application.extensions["webnb"]["storage"].dispose()
        application.extensions["webnb"]["broker"].close()  # its Redis connections, when Redis is the broker
        limits_store = application.extensions["webnb_limiter"].storage
        if isinstance(limits_store, RedisStorage):
            limits_store.storage.connection_pool.disconnect()


@pytest.fixture()
def hosted_app(make_hosted_app, database_url):
    """Makes hosted-mode apps on SQLite and on PostgreSQL (as ``database_url`` is parametrised), closing their
    connections afterwards."""
    return lambda **config: make_hosted_app(**{"DATABASE_URL": database_url, **config})


@pytest.fixture()
def keyed_hosted_app(make_hosted_app, database_url):
    """As ``hosted_app``, each app with a secret of its own, so its own address keys: the counts per address that
    one app made (in a shared Redis) are not another's."""
    import secrets

    return lambda **config: make_hosted_app(
        **{"DATABASE_URL": database_url, "SECRET_KEY": secrets.token_urlsafe(40), **config})


def browser_from(app, address: str = "127.0.0.1"):
    """A browser with a cookie of its own (a fresh workspace), its requests coming from ``address``."""
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


@pytest.fixture()
def redis_test_url():
    """A Redis database of this test worker's own on this machine (15 for the first, 14 for the second, ...),
    emptied before and after, for tests of counts shared between processes."""
    redis = pytest.importorskip("redis") if not in_ci() else __import__("redis")
    url = f"redis://127.0.0.1:6379/{15 - worker_number()}"
    client = redis.Redis.from_url(url)
    try:
        client.flushdb()
    except redis.exceptions.ConnectionError as error:
        client.close()
        skip_unless_ci(f"Redis is not reachable at {url}: {error}")
    yield url
    client.flushdb()
    client.close()


@pytest.fixture()
def webnb(monkeypatch, capsys):
    """Runs ``webnb ...`` (the CLI's main) on ``app``'s database and configuration, as the operator would on the
    server: (exit code, standard output, standard error)."""
    from webnb.cli import main

    def run(app, *argv):
        monkeypatch.setattr("webnb.create_app", lambda: app)
        out = io.StringIO()
        code = main([str(arg) for arg in argv], out=out)
        return code, out.getvalue(), capsys.readouterr().err

    return run


def publish_lecture_corpora(app, shared_corpora: Path, directory: Path) -> None:
    """The SMS Spam Collection in its original form and the 20 Newsgroups training posts, published on ``app`` with
    ``webnb corpora add PATH --lesson ID`` as an instructor would (sms-spam, newsgroups-4)."""
    import json

    from webnb.cli import main

    sms = directory / "SMSSpamCollection"
    with open(shared_corpora / "sms-spam-collection-v1" / "all.jsonl", encoding="utf-8") as source:
        sms.write_text("".join(f"{r['label']}\t{r['text']}\n" for r in map(json.loads, source)), encoding="utf-8")
    newsgroups = shared_corpora / "20newsgroups-bydate" / "train.jsonl.gz"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("webnb.create_app", lambda: app)
        for path, lesson in ((sms, "sms-spam"), (newsgroups, "newsgroups-4")):
            assert main(["corpora", "add", str(path), "--lesson", lesson], out=io.StringIO()) == 0
