"""A lecture hall against webnb's hosted mode: gunicorn on loopback, simulated students from locust, then a burst.

    python scripts/loadtest.py [--users 200] [--spawn-rate 20] [--run-time 10m] [--workers N] [--threads 4]
                               [--database-url URL] [--burst 200] [--json PATH]
    python scripts/loadtest.py --scenario a|b|c|d|all [--database-url URL] [--users 200] [--run-time 2m]

1. Starts ``gunicorn 'webnb:create_app(...)'`` on 127.0.0.1 with WEBNB_MODE=hosted, a random secret key and a
   database: a fresh SQLite file in a temporary folder by default; with ``--database-url`` (PostgreSQL on this
   machine) a fresh schema in that database, dropped at the end, so nothing else in it is touched.
2. Waits until it answers, and sends each kind of request a few times so that every worker has compiled its
   templates (the server is up before the lecture starts).
3. Runs locust headless with scripts/locustfile.py (the students) for ``--run-time``.
4. Then fires ``--burst`` inference requests at the same instant, each from its own session (its own workspace
   cookie, its own connection), as when a lecturer says "now type your review" and the whole hall presses a key
   at once, and measures how long until the last one is answered.
5. Prints the requests, the errors, p50/p95/p99 per kind of request and the burst, with PASS/FAIL per target;
   ``--json PATH`` writes the same figures. Exits 1 if a target is missed.

The scenarios of issue 12 (``--scenario``; students from scripts/locust_scenarios.py; 2 workers × 4 threads,
2 minutes and no burst unless said otherwise). Before the students arrive, untimed, a teacher's workspace uploads a
real corpus through the upload form (following its progress page until it is stored and counted) and makes a
share link:

  a  200 students on one shared 20 Newsgroups training set (11,314 documents): each opens the share link and
     "Open my copy", then types on their copy and now and then opens its matrix.
  b  200 students on 50 copies of the movie-review corpus (2,000 documents): the first of every 4 opens the share
     link, the other 3 use the same workspace (its cookie); every student also pastes a small corpus of their own
     and sometimes works on it instead.
  c  b again right after restarting gunicorn (same database, same secret key): the same students continue with
     their cookies and corpora, on cold caches. ``--scenario c`` runs b first.
  d  b's workload on two gunicorn instances on one PostgreSQL database, each student's requests alternating
     between them (two machines behind a balancer); ``--workers`` is split between the two (1 × 4 threads each by
     default, so the machine serves with as many processes as in a–c). Needs ``--database-url``.
     ``--d-workload a``: a's students instead (one 20 Newsgroups content that both instances must share).
  all  a, b, c, d in that order (d only with PostgreSQL), then one summary table.

Targets: inference fragment p95 ≤ 250 ms, matrix page p95 ≤ 400 ms, no error, no content counted more than once
(``max(builds)`` of the ``counts`` table, reported as absent where the table does not exist yet), and every
gunicorn worker's peak RSS (VmHWM, sampled every second and at the end) ≤ 1.5 GiB. Settings for the app can be
passed in the environment (``WEBNB_STORED_BYTES_PER_HOUR=...``); in b–d a workspace stands for 4 students, so its
rate limit is 4 times the default unless ``WEBNB_RATE_LIMIT`` is set.

Bounded: the server listens on 127.0.0.1 only, a PostgreSQL URL must name this machine, at most
``MAX_USERS`` students for at most ``MAX_RUN_SECONDS`` per run. gunicorn is stopped at the end whatever happens
(Ctrl-C and SIGTERM included).
"""
from __future__ import annotations

import argparse
import csv
import http.client
import json
import os
import platform
import re
import resource
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import urlencode, urlsplit

REPO_ROOT = Path(__file__).resolve().parents[1]
LOCUSTFILE = Path(__file__).resolve().parent / "locustfile.py"
SCENARIO_LOCUSTFILE = Path(__file__).resolve().parent / "locust_scenarios.py"
HOST = "127.0.0.1"
BURST_CORPUS = "match-reviews"
BURST_REVIEWS = ("the keeper was sharp", "match was not composed", "a brilliant match", "not sharp at all")
# (request kind, percentile, limit in ms): the targets for a lecture hall.
DEFAULT_TARGETS = {"inference fragment": 100.0, "matrix page": 300.0}
DEFAULT_BURST_TARGET_S = 2.0
PERCENTILES = (50, 95, 99)
# What one run may ask of this machine.
MAX_USERS = 1000
MAX_RUN_SECONDS = 30 * 60
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")

# -- the scenarios of issue 12 --
CORPORA = REPO_ROOT.parent / "shared" / "corpora"  # as tests/conftest.py finds them
NEWSGROUPS = CORPORA / "20newsgroups-bydate" / "train.jsonl.gz"
MOVIE_REVIEWS = CORPORA / "movie-review-polarity-v2.0" / "all.jsonl"
SCENARIO_TARGETS = {"inference fragment": 250.0, "matrix page": 400.0}
MAX_WORKER_RSS_MB = 1.5 * 1024
SCENARIO_RUN_TIME = "2m"
SCENARIO_WORKERS = 2
STUDENTS_PER_COPY = 4  # in b, c and d
# webnb/hosting/ratelimits.py's, scaled per workspace in b–d
DEFAULT_RATE_LIMIT = "30 per 5 seconds; 900 per 10 minutes"
SETUP_PATIENCE_S = 600  # uploading and counting the teacher's corpus before the lecture
NEWSGROUP_TEXTS = (
    "my graphics card driver crashes when windows starts",
    "the pitcher threw a fastball in the ninth inning",
    "encryption keys and the clipper chip proposal",
    "god and the bible in the christian faith",
    "the shuttle launch to the space station was delayed",
    "selling my old motorcycle helmet cheap",
)
MOVIE_TEXTS = (
    "a brilliant film with a dull plot",
    "the acting was wooden and the script was worse",
    "one of the best movies of the year",
    "funny characters but the ending was boring",
    "a moving story and a great cast",
)


@dataclass(frozen=True)
class Scenario:
    letter: str
    title: str
    corpus: Path
    reviews: tuple[str, ...]
    group_size: int  # students sharing one copy (one workspace)
    paste: bool  # every student also pastes a corpus of their own
    instances: int = 1
    restart_of: str | None = None  # the scenario whose database and students this one continues after a restart


SCENARIOS = {
    "a": Scenario("a", "one shared 20 Newsgroups training set, a copy each", NEWSGROUPS, NEWSGROUP_TEXTS, 1, False),
    "b": Scenario("b", "movie reviews, a copy per 4 students, and a pasted corpus each", MOVIE_REVIEWS, MOVIE_TEXTS,
                  STUDENTS_PER_COPY, True),
    "c": Scenario("c", "b again after restarting the workers (cold caches)", MOVIE_REVIEWS, MOVIE_TEXTS,
                  STUDENTS_PER_COPY, True, restart_of="b"),
    "d": Scenario("d", "b's workload on two gunicorn instances, requests alternating", MOVIE_REVIEWS, MOVIE_TEXTS,
                  STUDENTS_PER_COPY, True, instances=2),
}


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", choices=["default", *SCENARIOS, "all"], default="default",
                        help="default: students on the built-ins (then a burst); a-d: the lecture scenarios of "
                             "issue 12 (see above); all: a, b, c and d in order")
    parser.add_argument("--d-workload", choices=("a", "b"), default="b",
                        help="the students of d: b's (default: many contents, copies shared by groups, pastes) or "
                             "a's (one large content that both instances must share)")
    parser.add_argument("--users", type=int, default=200, help="simulated students (default 200)")
    parser.add_argument("--spawn-rate", type=float, default=20, help="students arriving per second (default 20)")
    parser.add_argument("--run-time", help=f"how long the students work, locust syntax (default 10m; "
                                           f"{SCENARIO_RUN_TIME} for the scenarios)")
    parser.add_argument("--workers", type=int,
                        help=f"gunicorn worker processes (default: the number of cores, here {os.cpu_count() or 1}; "
                             f"{SCENARIO_WORKERS} for the scenarios, split between the two instances in d)")
    parser.add_argument("--threads", type=int, default=4, help="threads per gunicorn worker (default 4)")
    parser.add_argument("--database-url", help="PostgreSQL URL on this machine; a fresh schema in it is used and "
                                               "dropped (default: SQLite in a temporary folder)")
    parser.add_argument("--burst", type=int, help="simultaneous inference requests (default 200; 0: none; "
                                                  "none for the scenarios)")
    parser.add_argument("--burst-target", type=float, default=DEFAULT_BURST_TARGET_S,
                        help="seconds until the last burst request is answered (default 2)")
    parser.add_argument("--inference-p95-ms", type=float,
                        help="target p95 of the inference fragment "
                             f"(default {DEFAULT_TARGETS['inference fragment']:g}; "
                             f"{SCENARIO_TARGETS['inference fragment']:g} for the scenarios)")
    parser.add_argument("--matrix-p95-ms", type=float,
                        help=f"target p95 of the matrix page (default {DEFAULT_TARGETS['matrix page']:g}; "
                             f"{SCENARIO_TARGETS['matrix page']:g} for the scenarios)")
    parser.add_argument("--preload", action=argparse.BooleanOptionalAction, default=True,
                        help="create the app once in gunicorn's master, then fork the workers (default); "
                             "--no-preload makes each worker create it")
    parser.add_argument("--port", type=int, default=0, help="port for gunicorn (default: a free one)")
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    parser.add_argument("--keep-logs", type=Path, help="copy gunicorn's and locust's logs into this folder")
    args = parser.parse_args(argv)
    scenarios = args.scenario != "default"
    if args.run_time is None:
        args.run_time = SCENARIO_RUN_TIME if scenarios else "10m"
    if args.workers is None:
        args.workers = SCENARIO_WORKERS if scenarios else os.cpu_count() or 1
    if args.burst is None:
        args.burst = 0 if scenarios else 200
    targets = SCENARIO_TARGETS if scenarios else DEFAULT_TARGETS
    if args.inference_p95_ms is None:
        args.inference_p95_ms = targets["inference fragment"]
    if args.matrix_p95_ms is None:
        args.matrix_p95_ms = targets["matrix page"]
    try:
        seconds = run_time_seconds(args.run_time)
    except ValueError as error:
        parser.error(str(error))
    if not 0 < seconds <= MAX_RUN_SECONDS:
        parser.error(f"--run-time {args.run_time} is outside 1 s to {MAX_RUN_SECONDS // 60} minutes")
    if not 0 < args.users <= MAX_USERS:
        parser.error(f"--users must be between 1 and {MAX_USERS}")
    if args.database_url and not is_loopback_url(args.database_url):
        parser.error("--database-url must name a database on this machine (localhost, 127.0.0.1 or a local socket)")
    return args


def run_time_seconds(text: str) -> int:
    """Seconds in locust's run-time syntax: ``90``, ``20s``, ``2m``, ``1h30m``."""
    if text.isdigit():
        return int(text)
    parts = re.fullmatch(r"(?:(\d+)h)?\s*(?:(\d+)m)?\s*(?:(\d+)s)?", text.strip())
    if not text.strip() or parts is None:
        raise ValueError(f"--run-time {text!r} is not a duration like 90, 20s, 2m or 1h30m")
    hours, minutes, seconds = (int(part or 0) for part in parts.groups())
    return 3600 * hours + 60 * minutes + seconds


def is_loopback_url(url: str) -> bool:
    import sqlalchemy as sa

    host = sa.make_url(url).host
    return host is None or host in LOOPBACK_NAMES or host.startswith("127.") or host.startswith("/")


# -- the server ---------------------------------------------------------------------------------------------------

def stop_process_group(process: subprocess.Popen, grace_seconds: float = 15.0) -> None:
    """Stop a server started with ``start_new_session=True``, its children with it: SIGTERM, then SIGKILL after
    ``grace_seconds``."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=grace_seconds)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        except ProcessLookupError:
            pass


def wait_until_answering(process: subprocess.Popen, name: str, answers, timeout: float, every: float = 0.2,
                         log_tail=lambda: "") -> None:
    """Ask ``answers()`` every ``every`` seconds until it is true (an OSError counts as no answer yet).

    Raises RuntimeError, ending with ``log_tail()``, when ``process`` (the server called ``name``) exits first or
    ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited with {process.returncode}{log_tail()}")
        try:
            if answers():
                return
        except OSError:
            pass
        time.sleep(every)
    raise RuntimeError(f"{name} did not answer within {timeout:.0f} s{log_tail()}")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


class Database:
    """A SQLite file in ``folder``, or a schema of its own in a PostgreSQL database, dropped by ``close()``."""

    def __init__(self, url: str | None, folder: Path):
        self.schema = None
        if url is None:
            self.url = f"sqlite:///{folder / 'webnb.sqlite3'}"
            self.kind = "sqlite"
            return
        import sqlalchemy as sa

        self.kind = sa.make_url(url).get_backend_name()
        if self.kind != "postgresql":
            self.url = url
            return
        self.schema = f"webnb_load_{secrets.token_hex(4)}"
        self._admin = sa.create_engine(url)
        with self._admin.begin() as connection:
            connection.execute(sa.text(f'CREATE SCHEMA "{self.schema}"'))
        # Every connection of every worker starts with this schema first on its search path.
        self.url = sa.make_url(url).update_query_dict({"options": f"-csearch_path={self.schema}"}).render_as_string(
            hide_password=False
        )

    def close(self) -> None:
        if self.schema is None:
            return
        import sqlalchemy as sa

        with self._admin.begin() as connection:
            connection.execute(sa.text(f'DROP SCHEMA "{self.schema}" CASCADE'))
        self._admin.dispose()
        self.schema = None


class Gunicorn:
    def __init__(self, *, port: int, workers: int, threads: int, preload: bool, database_url: str, folder: Path,
                 secret: str | None = None, log_name: str = "gunicorn.log", settings: dict | None = None):
        """``secret``: the key that signs the cookies (a new random one by default; the same one for a restarted or
        a second server, so that the students' cookies stay valid). ``settings``: more environment for the app."""
        self.port = port
        self.base = f"http://{HOST}:{port}"
        self.log_path = folder / log_name
        instance = folder / "instance"
        env = dict(
            os.environ,
            **(settings or {}),
            WEBNB_MODE="hosted",
            WEBNB_SECRET_KEY=secret or secrets.token_urlsafe(48),
            WEBNB_DATABASE_URL=database_url,
            PYTHONPATH=os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")])),
        )
        command = [
            sys.executable, "-m", "gunicorn",
            "--bind", f"{HOST}:{port}",
            "--workers", str(workers),
            "--threads", str(threads),
            "--worker-class", "gthread",
            # A lecture's browsers keep their connections open between keystrokes, as behind a reverse proxy.
            "--keep-alive", "30",
            "--backlog", "2048",
            "--timeout", "60",
            "--log-level", "warning",
            # Preloaded, the tables are created once before the fork. Without it every worker creates them at the
            # same moment, and on a fresh SQLite file a worker can fail with "database is locked" and take the
            # whole server down ("Worker failed to boot").
            *(["--preload"] if preload else []),
            f"webnb:create_app(instance_path={str(instance)!r})",
        ]
        self.log = open(self.log_path, "wb")
        # Its own process group: stopping it stops the workers too.
        self.process = subprocess.Popen(command, cwd=REPO_ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT,
                                        start_new_session=True)

    def wait_until_ready(self, timeout: float = 60.0) -> None:
        wait_until_answering(self.process, "gunicorn", lambda: http_get(self.port, "/corpora", timeout=5)[0] == 200,
                             timeout, log_tail=lambda: f":\n{self.log_tail()}")

    def stop(self) -> None:
        stop_process_group(self.process)
        self.log.close()

    def cpu_seconds(self) -> float:
        """CPU time used so far by gunicorn's master and workers (user + system)."""
        import psutil  # a dependency of locust

        total = 0.0
        try:
            master = psutil.Process(self.process.pid)
            for process in [master, *master.children(recursive=True)]:
                times = process.cpu_times()
                total += times.user + times.system
        except psutil.Error:
            pass
        return total

    def worker_pids(self) -> list[int]:
        import psutil

        try:
            return [child.pid for child in psutil.Process(self.process.pid).children()]
        except psutil.Error:
            return []

    def log_tail(self, lines: int = 30) -> str:
        self.log.flush()
        text = self.log_path.read_text(errors="replace").splitlines()
        return "\n".join(text[-lines:])


def http_get(port: int, path: str, headers: dict | None = None, timeout: float = 30.0):
    """(status, headers, body) of one GET on a new connection."""
    return http_request(port, "GET", path, headers=headers, timeout=timeout)


def http_request(port: int, method: str, path: str, body: bytes | None = None, headers: dict | None = None,
                 timeout: float = 30.0):
    """(status, headers, body) of one request on a new connection."""
    connection = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.headers, response.read()
    finally:
        connection.close()


def session_cookie(headers) -> str:
    """The ``name=value`` of the session cookie a response set (it is Secure; we are on loopback)."""
    for header in headers.get_all("Set-Cookie") or []:
        return header.split(";", 1)[0]
    raise RuntimeError("the server set no session cookie: is it in hosted mode?")


def warm_up(port: int, workers: int, threads: int) -> None:
    """Each kind of request a few times per worker thread, in parallel so that every worker gets some."""
    corpora = ("match-reviews", "spam-ham", "china-japan")
    paths = [
        "/corpora",
        *(f"/corpora/{corpus}" for corpus in corpora),
        *(f"/corpora/{corpus}/matrix" for corpus in corpora),
        *(f"/corpora/{corpus}/inference?text=warm+up&step=tokens" for corpus in corpora),
        *(f"/corpora/{corpus}/parameters?alpha=0.5" for corpus in corpora),
    ]

    problems = []

    def visit():
        for path in paths:
            try:
                status, _, _ = http_get(port, path, {"HX-Request": "true"} if "?" in path else None)
                if status != 200:
                    problems.append(f"{path}: status {status}")
            except OSError as error:
                problems.append(f"{path}: {type(error).__name__}: {error}")

    pool = [threading.Thread(target=visit) for _ in range(2 * workers * threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    if problems:
        raise RuntimeError(f"{len(problems)} warm-up requests failed, for example {problems[0]}")


def service_time(port: int, requests: int = 30) -> dict:
    """Inference fragments one at a time, nobody else asking: what a request costs without any queue."""
    times = []
    for number in range(requests):
        text = f"{BURST_REVIEWS[number % len(BURST_REVIEWS)]} {number}"
        path = f"/corpora/{BURST_CORPUS}/inference?" + urlencode({"text": text, "step": "decision"})
        started = time.perf_counter()
        http_get(port, path, {"HX-Request": "true"})
        times.append(1000 * (time.perf_counter() - started))
    return {"requests": requests, "p50_ms": statistics.median(times), "max_ms": max(times)}


# -- the students ---------------------------------------------------------------------------------------------------

def run_locust(base: str, args, folder: Path, *, locustfile: Path = LOCUSTFILE, user_class: str | None = None,
               plan: Path | None = None, name: str = "locust") -> tuple[dict, list, float]:
    """(statistics per request kind, failures, seconds) from a headless locust run. ``plan``: the scenario's plan
    for scripts/locust_scenarios.py; ``name``: the prefix of this run's files in ``folder``."""
    prefix = folder / name
    stats_path = folder / f"{name}.json"  # locust adds the ".json" to what --json-file says
    log_path = folder / f"{name}.log"
    command = [
        sys.executable, "-m", "locust",
        "-f", str(locustfile),
        "--headless",
        "--host", base,
        "--users", str(args.users),
        "--spawn-rate", str(args.spawn_rate),
        "--run-time", args.run_time,
        # The JSON is written after the last student stopped (the CSV statistics may miss the last requests);
        # the CSV files are read only for the messages of failures and exceptions.
        "--json-file", str(prefix),
        "--csv", str(prefix),
        "--loglevel", "WARNING",
        *([user_class] if user_class else []),
    ]
    env = dict(os.environ, **({"WEBNB_LOAD_PLAN": str(plan)} if plan else {}))
    started = time.monotonic()
    with open(log_path, "wb") as log:
        # locust exits 1 when a request failed; the failures are counted from its statistics and reported.
        completed = subprocess.run(command, cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                                   check=False)
    seconds = time.monotonic() - started
    if not stats_path.exists():
        raise RuntimeError(f"locust exited with {completed.returncode} and wrote no statistics:\n"
                           + log_path.read_text(errors="replace")[-3000:])
    entries = json.loads(stats_path.read_text())
    if not entries:
        raise RuntimeError("locust made no requests:\n" + log_path.read_text(errors="replace")[-3000:])
    # Rates over the whole run, as locust computes them: from its first request to its last.
    first = min(entry["start_time"] for entry in entries)
    last = max(entry["last_request_timestamp"] or entry["start_time"] for entry in entries)
    duration = max(last - first, 1e-9)
    kinds = {entry["name"]: kind_figures([entry], duration) for entry in entries}
    kinds["all requests"] = kind_figures(entries, duration)
    failures = read_csv_rows(Path(f"{prefix}_failures.csv"), ("Name", "Error", "Occurrences"))
    exceptions = read_csv_rows(Path(f"{prefix}_exceptions.csv"), ("Count", "Message", "Traceback"))
    problems = [{"kind": kind, "error": error, "occurrences": int(count)} for kind, error, count in failures]
    problems += [{"kind": "exception in locustfile", "error": f"{message}\n{trace}", "occurrences": int(count)}
                 for count, message, trace in exceptions]
    # An exception in a student's task is a broken test, counted as an error too.
    kinds["all requests"]["errors"] += sum(int(count) for count, _, _ in exceptions)
    return kinds, problems, seconds


def kind_figures(entries: list[dict], duration: float) -> dict:
    """Requests, errors and percentiles of one or several locust statistics entries (merged)."""
    times: dict[int, int] = {}
    for entry in entries:
        for response_time, count in entry["response_times"].items():
            times[int(float(response_time))] = times.get(int(float(response_time)), 0) + count
    requests = sum(entry["num_requests"] for entry in entries)
    figures = {
        "requests": requests,
        "errors": sum(entry["num_failures"] for entry in entries),
        "requests_per_s": requests / duration,
    }
    for percentile in PERCENTILES:
        figures[f"p{percentile}_ms"] = percentile_of(times, percentile / 100)
    figures["max_ms"] = max((entry["max_response_time"] for entry in entries), default=None)
    return figures


def percentile_of(times: dict[int, int], fraction: float):
    """Locust's own percentile of its response-time histogram (whole ms below 100 ms, then rounded to 2 digits):
    the smallest time that at most (1 - fraction) of the requests exceed."""
    total = sum(times.values())
    if total == 0:
        return None
    allowed_above = total - int(total * fraction)
    above = 0
    for response_time in sorted(times, reverse=True):
        above += times[response_time]
        if above >= allowed_above:
            return float(response_time)
    return float(min(times))


def read_csv_rows(path: Path, columns: tuple[str, ...]) -> list[tuple]:
    if not path.exists():
        return []
    with open(path, newline="") as file:
        return [tuple(row[column] for column in columns) for row in csv.DictReader(file)]


# -- the burst --------------------------------------------------------------------------------------------------------

def burst(port: int, size: int) -> dict:
    """``size`` inference fragments requested at the same instant, each by its own session on its own connection.

    The sessions are made first (one GET /corpora each for its workspace cookie); then every thread waits at a
    barrier and, once released, connects and sends. The latency of each is from the release to the last byte of
    its answer; ``max_s`` is how long the hall waited for its last answer."""
    cookies = []
    for _ in range(size):
        status, headers, _ = http_get(port, "/corpora")
        if status != 200:
            raise RuntimeError(f"GET /corpora answered {status} while making the burst's sessions")
        cookies.append(session_cookie(headers))
    barrier = threading.Barrier(size + 1)
    results: list = [None] * size

    def student(number: int) -> None:
        text = f"{BURST_REVIEWS[number % len(BURST_REVIEWS)]} {number}"
        path = f"/corpora/{BURST_CORPUS}/inference?" + urlencode({"text": text, "step": "decision"})
        headers = {"HX-Request": "true", "Cookie": cookies[number]}
        barrier.wait()
        try:
            status, _, body = http_get(port, path, headers, timeout=60)
            ok = status == 200 and b'id="inference"' in body and b"<html" not in body
            results[number] = (time.perf_counter(), None if ok else f"status {status}")
        except OSError as error:
            results[number] = (time.perf_counter(), f"{type(error).__name__}: {error}")

    threads = [threading.Thread(target=student, args=(n,), daemon=True) for n in range(size)]
    for thread in threads:
        thread.start()
    time.sleep(0.2)  # every thread is at the barrier; their start-up is not part of what is measured
    barrier.wait()
    released = time.perf_counter()
    for thread in threads:
        thread.join(timeout=90)
    latencies = sorted(result[0] - released for result in results if result is not None)
    errors = [result[1] for result in results if result is None or result[1] is not None]
    errors += ["no answer within 90 s"] * sum(result is None for result in results)
    return {
        "requests": size,
        "errors": len(errors),
        "error_samples": sorted(set(errors))[:5],
        "p50_s": statistics.median(latencies) if latencies else None,
        "max_s": max(latencies) if latencies else None,
    }


# -- the scenarios of issue 12 ------------------------------------------------------------------------------------

CSRF_TOKEN = re.compile(r'"X-CSRFToken":\s*"([^"]+)"')
JOB_LINK = re.compile(r"/jobs/([A-Za-z0-9_-]+)")
SHARE_LINK = re.compile(r'value="[^"]*(/shared/[A-Za-z0-9_-]+)"')


class Browser:
    """One workspace seen from this script (the teacher's): its session cookie, carried from answer to answer."""

    def __init__(self, port: int):
        self.port = port
        self.cookie = None

    def request(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None):
        headers = dict(headers or {}, **({"Cookie": self.cookie} if self.cookie else {}))
        status, answer_headers, answer = http_request(self.port, method, path, body, headers, timeout=120)
        for header in answer_headers.get_all("Set-Cookie") or []:
            self.cookie = header.split(";", 1)[0]
        return status, answer_headers, answer.decode("utf-8", errors="replace")

    def open(self, path: str, deadline: float) -> tuple[str, str]:
        """GET ``path`` as a browser without JavaScript does: follow redirects and progress pages (a corpus being
        stored or counted) until a page answers 200. (final path, page)."""
        while time.monotonic() < deadline:
            status, headers, page = self.request("GET", path)
            if status in (301, 302, 303):
                location = urlsplit(headers["Location"])
                path = location.path + (f"?{location.query}" if location.query else "")
            elif status == 202 or (status == 200 and path.startswith("/jobs/")):
                job = JOB_LINK.search(page)
                if job is None:
                    raise RuntimeError(f"{path} answered {status} without a job to follow:\n{page[:1000]}")
                path = f"/jobs/{job.group(1)}"
                time.sleep(0.5)  # as the progress page polls
            elif status == 200:
                return path, page
            else:
                raise RuntimeError(f"GET {path} answered {status}:\n{page[:1000]}")
        raise RuntimeError(f"{path} was still not ready after {SETUP_PATIENCE_S} s")


def multipart(fields: dict, file_field: str, filename: str, data: bytes) -> tuple[bytes, str]:
    """A multipart/form-data body with ``fields`` and one file, and its Content-Type."""
    boundary = secrets.token_hex(16)
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
             for name, value in fields.items()]
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{file_field}"; filename="{filename}"\r\n'
                 f"Content-Type: application/octet-stream\r\n\r\n".encode() + data + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def prepare_lecture(port: int, corpus: Path) -> dict:
    """Before the lecture, as a teacher would: upload ``corpus`` through the upload form, wait until it is stored
    and counted (its page and its matrix open), and make a share link."""
    started = time.monotonic()
    deadline = started + SETUP_PATIENCE_S
    teacher = Browser(port)
    _, page = teacher.open("/corpora", deadline)
    csrf = CSRF_TOKEN.search(page)
    if csrf is None:
        raise RuntimeError("no CSRF token in the corpus list's <body hx-headers>")
    body, content_type = multipart({"csrf_token": csrf.group(1), "name": corpus.parent.name}, "file", corpus.name,
                                   corpus.read_bytes())
    status, headers, page = teacher.request("POST", "/corpora/upload", body, {"Content-Type": content_type})
    if status != 303:
        raise RuntimeError(f"the upload of {corpus.name} answered {status}:\n{page[:1000]}")
    corpus_path, _ = teacher.open(urlsplit(headers["Location"]).path, deadline)
    match = re.fullmatch(r"/corpora/([^/?#]+)", corpus_path)
    if match is None:
        raise RuntimeError(f"the upload of {corpus.name} ended on {corpus_path}, not on a corpus page")
    corpus_id = match.group(1)
    teacher.open(f"/corpora/{corpus_id}/matrix", deadline)
    status, _, page = teacher.request(
        "POST", f"/corpora/{corpus_id}/share", b"",
        {"X-CSRFToken": csrf.group(1), "Content-Type": "application/x-www-form-urlencoded"},
    )
    link = SHARE_LINK.search(page) if status == 200 else None
    if link is None:
        raise RuntimeError(f"sharing {corpus_id} answered {status} without a link:\n{page[:1000]}")
    return {"corpus": str(corpus), "corpus_id": corpus_id, "share_path": link.group(1),
            "seconds": time.monotonic() - started}


class PeakMemory:
    """The peak resident memory (VmHWM) of every gunicorn worker, sampled every second while the servers run and
    once more at the end; a worker that was replaced keeps its own entry."""

    def __init__(self):
        self.servers: list[Gunicorn] = []
        self.peaks_kb: dict[int, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def watch(self, server: Gunicorn) -> None:
        self.servers.append(server)
        self.sample()

    def sample(self) -> None:
        for server in list(self.servers):
            for pid in server.worker_pids():
                peak = vm_hwm_kb(pid)
                if peak is not None:
                    self.peaks_kb[pid] = max(peak, self.peaks_kb.get(pid, 0))

    def _run(self) -> None:
        while not self._stop.wait(1.0):
            self.sample()

    def stop(self) -> dict:
        if not self._stop.is_set():
            self.sample()
            self._stop.set()
            self._thread.join()
        peaks = [kb / 1024 for kb in self.peaks_kb.values()]
        return {"workers": len(peaks), "max_mb": max(peaks, default=None),
                "per_worker_mb": sorted(round(mb, 1) for mb in peaks)}


def vm_hwm_kb(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return None


def counting_evidence(database_url: str) -> dict:
    """``max(builds)`` and the rows of the ``counts`` table (one row per content and options counted; ``builds``:
    how many times any process counted it), or ``table: False`` where that table does not exist."""
    import sqlalchemy as sa

    engine = sa.create_engine(database_url)
    try:
        with engine.connect() as connection:
            if not sa.inspect(connection).has_table("counts"):
                return {"table": False, "max_builds": None, "rows": None}
            max_builds, rows = connection.execute(sa.text("SELECT max(builds), count(*) FROM counts")).one()
            return {"table": True, "max_builds": max_builds, "rows": rows}
    finally:
        engine.dispose()


def run_scenarios(args, folder: Path) -> int:
    """The scenarios ``args.scenario`` names, one after the other, each on its own fresh database (c continues b's);
    then one summary table."""
    letters = list(SCENARIOS) if args.scenario == "all" else ["b", "c"] if args.scenario == "c" else [args.scenario]
    kind = "sqlite" if args.database_url is None else _backend(args.database_url)
    results, kept = [], {}  # kept: letter -> (database, secret, students file) for the scenario that restarts it
    try:
        for letter in letters:
            scenario = SCENARIOS[letter]
            if letter == "d" and args.d_workload == "a":
                scenario = replace(SCENARIOS["a"], letter="d", instances=2,
                                   title="a's workload on two gunicorn instances, requests alternating")
            if scenario.instances > 1 and kind != "postgresql":
                results.append({"scenario": letter, "skipped": "two instances need one PostgreSQL database: "
                                                              "give --database-url"})
                continue
            if scenario.restart_of and scenario.restart_of not in kept:
                results.append({"scenario": letter, "skipped": f"{scenario.restart_of} did not finish"})
                continue
            if scenario.restart_of:
                database, secret, resume_from = kept.pop(scenario.restart_of)
            else:
                scenario_folder = folder / letter
                scenario_folder.mkdir()
                database, secret, resume_from = (
                    Database(args.database_url, scenario_folder), secrets.token_urlsafe(48), None
                )
            continues = any(other.restart_of == letter for other in map(SCENARIOS.get, letters))
            students = folder / f"students-{letter}.json"
            try:
                figures = run_lecture(scenario, args, folder, database, secret, resume_from, students)
            except Exception as error:  # one broken scenario must not hide the others' figures
                figures = {"scenario": letter, "error": f"{type(error).__name__}: {error}"}
                print(f"\n({letter}) did not run to the end: {figures['error']}")
                continues = False
            results.append(figures)
            if continues:
                kept[letter] = (database, secret, students)
            else:
                database.close()
    finally:
        for database, _, _ in kept.values():
            database.close()
    print_summary(results, kind)
    passed = all(result.get("passed") for result in results if "skipped" not in result)
    if args.json:
        args.json.write_text(json.dumps({"scenarios": results, "passed": passed}, indent=2) + "\n")
    return 0 if passed else 1


def _backend(url: str) -> str:
    import sqlalchemy as sa

    return sa.make_url(url).get_backend_name()


def run_lecture(scenario: Scenario, args, folder: Path, database: "Database", secret: str, resume_from: Path | None,
                save_to: Path) -> dict:
    """One scenario: start its server(s), set up the lecture (unless it continues one), let the students work,
    and gather the figures."""
    if resume_from is None and not scenario.corpus.is_file():
        raise RuntimeError(f"{scenario.corpus} is missing: the scenarios upload the shared corpora")
    workers = max(1, args.workers // scenario.instances)
    settings = {}
    if scenario.group_size > 1 and "WEBNB_RATE_LIMIT" not in os.environ:
        # A workspace here stands for several students: its budget is theirs together.
        settings["WEBNB_RATE_LIMIT"] = "; ".join(
            f"{int(count) * scenario.group_size} per {period}"
            for count, period in (part.strip().split(" per ") for part in DEFAULT_RATE_LIMIT.split(";"))
        )
    servers: list[Gunicorn] = []
    memory = PeakMemory()
    try:
        load_before = " ".join(f"{value:.2f}" for value in os.getloadavg())
        for number in range(scenario.instances):
            port = args.port + number if args.port else free_port()
            servers.append(Gunicorn(port=port, workers=workers, threads=args.threads, preload=args.preload,
                                    database_url=database.url, folder=folder, secret=secret, settings=settings,
                                    log_name=f"gunicorn-{scenario.letter}{number + 1}.log"))
        for server in servers:
            server.wait_until_ready()
            memory.watch(server)
            warm_up(server.port, workers, args.threads)
        alone = service_time(servers[0].port)
        setup = None if resume_from else prepare_lecture(servers[0].port, scenario.corpus)
        plan = {
            "share_path": setup and setup["share_path"],
            "group_size": scenario.group_size,
            "paste": scenario.paste,
            "reviews": list(scenario.reviews),
            "hosts": [server.base for server in servers],
            "resume_from": json.loads(resume_from.read_text()) if resume_from else {},
            "save_to": str(save_to),
        }
        plan_path = folder / f"plan-{scenario.letter}.json"
        plan_path.write_text(json.dumps(plan))
        cpu_before = sum(server.cpu_seconds() for server in servers)
        children_before = resource.getrusage(resource.RUSAGE_CHILDREN)
        kinds, failures, seconds = run_locust(servers[0].base, args, folder, locustfile=SCENARIO_LOCUSTFILE,
                                              user_class="ScenarioStudent", plan=plan_path,
                                              name=f"locust-{scenario.letter}")
        server_cpu = sum(server.cpu_seconds() for server in servers) - cpu_before
        children_after = resource.getrusage(resource.RUSAGE_CHILDREN)
        locust_cpu = sum(getattr(children_after, field) - getattr(children_before, field)
                         for field in ("ru_utime", "ru_stime"))
        for server in servers:
            if server.process.poll() is not None:
                raise RuntimeError(f"gunicorn died during the run:\n{server.log_tail()}")
        figures = {
            "scenario": scenario.letter,
            "title": scenario.title,
            "machine": {"cores": os.cpu_count(), "load_before": load_before,
                        "load_after": " ".join(f"{value:.2f}" for value in os.getloadavg()),
                        "python": platform.python_version()},
            "server": {"instances": scenario.instances, "workers": workers, "threads": args.threads,
                       "preload": args.preload, "database": database.kind, "settings": settings},
            "setup": setup,
            "locust": {"users": args.users, "spawn_rate": args.spawn_rate, "run_time": args.run_time,
                       "seconds": seconds, "kinds": kinds, "failures": failures, "server_cpu_s": server_cpu,
                       "server_cpu_ms_per_request": 1000 * server_cpu / max(kinds["all requests"]["requests"], 1),
                       "server_cores_busy": server_cpu / seconds, "locust_cpu_s": locust_cpu},
            "alone": alone,
            "burst": None,
            "memory": memory.stop(),
            "counts": counting_evidence(database.url),
        }
        figures["checks"] = evaluate(figures, args)
        figures["passed"] = all(check["passed"] is not False for check in figures["checks"])
        print_report(figures)
        return figures
    finally:
        memory.stop()
        for server in servers:
            server.stop()


# -- the report --------------------------------------------------------------------------------------------------------

def evaluate(figures: dict, args) -> list[dict]:
    """Every target with its measured value and whether it was met (None: it could not be measured here)."""
    kinds = figures["locust"]["kinds"]
    total_errors = figures["locust"]["kinds"].get("all requests", {}).get("errors", 0)
    checks = [{"target": "errors (locust)", "limit": 0, "value": total_errors, "passed": total_errors == 0}]
    for kind, limit in (("inference fragment", args.inference_p95_ms), ("matrix page", args.matrix_p95_ms)):
        value = kinds.get(kind, {}).get("p95_ms")
        # None: no such request was made (a short run), so the target could not be judged.
        checks.append({"target": f"{kind} p95 ms", "limit": limit, "value": value,
                       "passed": None if value is None else value <= limit,
                       "note": None if value is not None else f"no {kind} requests"})
    if figures.get("burst"):
        burst_figures = figures["burst"]
        checks.append({"target": "errors (burst)", "limit": 0, "value": burst_figures["errors"],
                       "passed": burst_figures["errors"] == 0})
        checks.append({"target": "burst max s", "limit": args.burst_target, "value": burst_figures["max_s"],
                       "passed": burst_figures["max_s"] is not None and burst_figures["max_s"] <= args.burst_target})
    if figures.get("counts"):
        counts = figures["counts"]
        checks.append({"target": "times a content was counted, max(builds)", "limit": 1, "value": counts["max_builds"],
                       "passed": None if not counts["table"] else (counts["max_builds"] or 0) <= 1,
                       "note": None if counts["table"] else "counts table absent"})
    if figures.get("memory"):
        peak = figures["memory"]["max_mb"]
        checks.append({"target": "peak RSS of a worker MB", "limit": MAX_WORKER_RSS_MB, "value": peak,
                       "passed": peak is not None and peak <= MAX_WORKER_RSS_MB})
    return checks


def print_report(figures: dict) -> None:
    server, machine = figures["server"], figures["machine"]
    if figures.get("scenario"):
        print(f"\n== ({figures['scenario']}) {figures['title']}")
    instances = f"{server['instances']} instances × " if server.get("instances", 1) > 1 else ""
    print(f"\nwebnb hosted, gunicorn {instances}{server['workers']} workers × {server['threads']} threads, "
          f"{server['database']}, {machine['cores']} cores\n(load average of the machine, 1/5/15 min, before: "
          f"{machine['load_before']}; when the students stopped: {machine['load_after']})")
    if figures.get("setup"):
        setup = figures["setup"]
        print(f"before the lecture: the teacher uploaded {Path(setup['corpus']).name}, stored and counted it and "
              f"shared it in {setup['seconds']:.1f} s")
    run = figures["locust"]
    print(f"{run['users']} students for {run['run_time']} ({run['seconds']:.0f} s with start and stop); gunicorn used "
          f"{run['server_cpu_s']:.0f} CPU s = {run['server_cpu_ms_per_request']:.1f} ms per request, "
          f"{run['server_cores_busy']:.2f} cores on average (locust itself: {run['locust_cpu_s']:.0f} CPU s)")
    alone = figures["alone"]
    print(f"one inference fragment at a time, before the students: median {alone['p50_ms']:.1f} ms, "
          f"max {alone['max_ms']:.1f} ms\n")
    print(f"{'request kind':<34}{'requests':>10}{'errors':>8}{'req/s':>8}"
          + "".join(f"{heading:>9}" for heading in ("p50 ms", "p95 ms", "p99 ms", "max ms")))
    for kind, row in sorted(run["kinds"].items(), key=lambda item: (item[0] == "all requests", item[0])):
        cells = [_cell(row[key]) for key in ("p50_ms", "p95_ms", "p99_ms", "max_ms")]
        print(f"{kind:<34}{row['requests']:>10}{row['errors']:>8}{row['requests_per_s']:>8.1f}"
              + "".join(f"{cell:>9}" for cell in cells))
    for failure in run["failures"][:10]:
        print(f"  error: {failure['kind']}: {failure['error']} (×{failure['occurrences']})")
    if figures.get("burst"):
        burst_figures = figures["burst"]
        print(f"\nburst: {burst_figures['requests']} simultaneous inference requests, "
              f"{burst_figures['errors']} errors, "
              f"median {_cell(burst_figures['p50_s'], 's')}, last answered after {_cell(burst_figures['max_s'], 's')}")
        for sample in burst_figures["error_samples"]:
            print(f"  error: {sample}")
    if figures.get("counts"):
        counts = figures["counts"]
        print("\ncounted: counts table absent" if not counts["table"] else
              f"\ncounted: {counts['rows']} contents × options, max(builds) = {counts['max_builds']}")
    if figures.get("memory"):
        memory = figures["memory"]
        print(f"peak RSS of the {memory['workers']} workers (MB): {memory['per_worker_mb']}")
    print()
    for check in figures["checks"]:
        print(_check_line(check))
    print("\nPASS" if figures["passed"] else "\nFAIL")


def _check_line(check: dict) -> str:
    value = check["value"]
    shown = check.get("note") or ("—" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value))
    relation = "=" if check["target"].startswith("errors") else "≤"
    verdict = {True: "PASS", False: "FAIL", None: "N/A "}[check["passed"]]
    return f"{verdict}  {check['target']}: {shown} (target {relation} {check['limit']:g})"


def print_summary(results: list[dict], database: str) -> None:
    """One line per scenario: the figures the issue's closing note tabulates."""
    print(f"\n== summary ({database})\n")
    headings = ("scenario", "students", "requests", "errors", "inference p50/p95 ms", "matrix p95 ms",
                "progress pages", "max(builds) / rows", "peak worker RSS MB", "verdict")
    widths = (10, 10, 10, 8, 22, 15, 16, 20, 20, 8)
    print("".join(f"{heading:<{width}}" for heading, width in zip(headings, widths, strict=True)))
    for result in results:
        if "skipped" in result or "error" in result:
            note = f"skipped: {result['skipped']}" if "skipped" in result else f"FAIL: {result['error'][:200]}"
            print(f"{result['scenario']:<{widths[0]}}{note}")
            continue
        kinds = result["locust"]["kinds"]
        inference, matrix = kinds.get("inference fragment", {}), kinds.get("matrix page", {})
        progress = sum(row["requests"] for kind, row in kinds.items() if kind.startswith("progress instead of"))
        counts = result["counts"]
        counted = "table absent" if not counts["table"] else f"{counts['max_builds']} / {counts['rows']}"
        cells = (
            result["scenario"], result["locust"]["users"], kinds["all requests"]["requests"],
            kinds["all requests"]["errors"],
            f"{_cell(inference.get('p50_ms'))} / {_cell(inference.get('p95_ms'))}", _cell(matrix.get("p95_ms")),
            progress, counted, _cell(result["memory"]["max_mb"]), "PASS" if result["passed"] else "FAIL",
        )
        print("".join(f"{str(cell):<{width}}" for cell, width in zip(cells, widths, strict=True)))
    print()


def _cell(value, unit: str = "") -> str:
    if value is None:
        return "—"
    return f"{value:.2f} {unit}".strip() if unit else f"{value:.0f}"


def keep_logs(folder: Path, destination: Path | None) -> None:
    if destination:
        destination.mkdir(parents=True, exist_ok=True)
        for log in folder.glob("*.log"):
            shutil.copy(log, destination / log.name)


def main(argv=None) -> int:
    args = parse_args(argv)
    # SIGTERM (a CI timeout, kill) unwinds like Ctrl-C, through the finally that stops gunicorn.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    folder = Path(tempfile.mkdtemp(prefix="webnb-load-"))
    if args.scenario != "default":
        try:
            return run_scenarios(args, folder)
        finally:
            keep_logs(folder, args.keep_logs)
            shutil.rmtree(folder, ignore_errors=True)
    server = database = None
    try:
        database = Database(args.database_url, folder)
        port = args.port or free_port()
        load_before = " ".join(f"{value:.2f}" for value in os.getloadavg())
        server = Gunicorn(port=port, workers=args.workers, threads=args.threads, preload=args.preload,
                          database_url=database.url, folder=folder)
        server.wait_until_ready()
        warm_up(port, args.workers, args.threads)
        alone = service_time(port)
        cpu_before, children_before = server.cpu_seconds(), resource.getrusage(resource.RUSAGE_CHILDREN)
        kinds, failures, seconds = run_locust(server.base, args, folder)
        server_cpu = server.cpu_seconds() - cpu_before
        load_after = " ".join(f"{value:.2f}" for value in os.getloadavg())
        children_after = resource.getrusage(resource.RUSAGE_CHILDREN)
        # locust is the only child that finished in between (gunicorn runs on).
        locust_cpu = sum(getattr(children_after, field) - getattr(children_before, field)
                         for field in ("ru_utime", "ru_stime"))
        figures = {
            "machine": {"cores": os.cpu_count(), "load_before": load_before, "load_after": load_after,
                        "python": platform.python_version()},
            "server": {"workers": args.workers, "threads": args.threads, "preload": args.preload,
                       "database": database.kind},
            "locust": {"users": args.users, "spawn_rate": args.spawn_rate, "run_time": args.run_time,
                       "seconds": seconds, "kinds": kinds, "failures": failures,
                       # What the machine can serve: the server's CPU per request, and its share of the cores.
                       "server_cpu_s": server_cpu,
                       "server_cpu_ms_per_request": 1000 * server_cpu / max(kinds["all requests"]["requests"], 1),
                       "server_cores_busy": server_cpu / seconds,
                       "locust_cpu_s": locust_cpu},
            "alone": alone,
            "burst": burst(port, args.burst) if args.burst > 0 else None,
        }
        if server.process.poll() is not None:
            raise RuntimeError(f"gunicorn died during the run:\n{server.log_tail()}")
        figures["checks"] = evaluate(figures, args)
        figures["passed"] = all(check["passed"] for check in figures["checks"])
        print_report(figures)
        if args.json:
            args.json.write_text(json.dumps(figures, indent=2) + "\n")
        return 0 if figures["passed"] else 1
    finally:
        if server is not None:
            server.stop()
        keep_logs(folder, args.keep_logs)
        if database is not None:
            database.close()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
