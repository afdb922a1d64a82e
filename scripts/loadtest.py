"""A lecture hall against webnb's hosted mode: gunicorn on loopback, simulated students from locust, then a burst.

    python scripts/loadtest.py [--users 200] [--spawn-rate 20] [--run-time 10m] [--workers N] [--threads 4]
                               [--database-url URL] [--burst 200] [--json PATH]

1. Starts ``gunicorn 'webnb:create_app(...)'`` on 127.0.0.1 with WEBNB_MODE=hosted, a random secret key and a
   database: a fresh SQLite file in a temporary folder by default; with ``--database-url`` (PostgreSQL) a fresh
   schema in that database, dropped at the end, so nothing else in it is touched.
2. Waits until it answers, and sends each kind of request a few times so that every worker has compiled its
   templates (the server is up before the lecture starts).
3. Runs locust headless with scripts/locustfile.py (the students) for ``--run-time``.
4. Then fires ``--burst`` inference requests at the same instant, each from its own session (its own workspace
   cookie, its own connection), as when a lecturer says "now type your review" and the whole hall presses a key
   at once, and measures how long until the last one is answered.
5. Prints the requests, the errors, p50/p95/p99 per kind of request and the burst, with PASS/FAIL per target;
   ``--json PATH`` writes the same figures. Exits 1 if a target is missed.

gunicorn is stopped at the end whatever happens (Ctrl-C and SIGTERM included).
"""
from __future__ import annotations

import argparse
import csv
import http.client
import json
import os
import platform
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
from pathlib import Path
from urllib.parse import urlencode

REPO_ROOT = Path(__file__).resolve().parents[1]
LOCUSTFILE = Path(__file__).resolve().parent / "locustfile.py"
HOST = "127.0.0.1"
BURST_CORPUS = "match-reviews"
BURST_REVIEWS = ("the keeper was sharp", "match was not composed", "a brilliant match", "not sharp at all")
# (request kind, percentile, limit in ms): the targets for a lecture hall.
DEFAULT_TARGETS = {"inference fragment": 100.0, "matrix page": 300.0}
DEFAULT_BURST_TARGET_S = 2.0
PERCENTILES = (50, 95, 99)


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=200, help="simulated students (default 200)")
    parser.add_argument("--spawn-rate", type=float, default=20, help="students arriving per second (default 20)")
    parser.add_argument("--run-time", default="10m", help="how long the students work, locust syntax (default 10m)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="gunicorn worker processes (default: the number of cores, here %(default)s)")
    parser.add_argument("--threads", type=int, default=4, help="threads per gunicorn worker (default 4)")
    parser.add_argument("--database-url", help="PostgreSQL URL; a fresh schema in it is used and dropped "
                                               "(default: SQLite in a temporary folder)")
    parser.add_argument("--burst", type=int, default=200, help="simultaneous inference requests (default 200; 0: none)")
    parser.add_argument("--burst-target", type=float, default=DEFAULT_BURST_TARGET_S,
                        help="seconds until the last burst request is answered (default 2)")
    parser.add_argument("--inference-p95-ms", type=float, default=DEFAULT_TARGETS["inference fragment"],
                        help="target p95 of the inference fragment (default 100)")
    parser.add_argument("--matrix-p95-ms", type=float, default=DEFAULT_TARGETS["matrix page"],
                        help="target p95 of the matrix page (default 300)")
    parser.add_argument("--preload", action=argparse.BooleanOptionalAction, default=True,
                        help="create the app once in gunicorn's master, then fork the workers (default); "
                             "--no-preload makes each worker create it")
    parser.add_argument("--port", type=int, default=0, help="port for gunicorn (default: a free one)")
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    parser.add_argument("--keep-logs", type=Path, help="copy gunicorn's and locust's logs into this folder")
    return parser.parse_args(argv)


# -- the server ---------------------------------------------------------------------------------------------------

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
    def __init__(self, *, port: int, workers: int, threads: int, preload: bool, database_url: str, folder: Path):
        self.port = port
        self.base = f"http://{HOST}:{port}"
        self.log_path = folder / "gunicorn.log"
        instance = folder / "instance"
        env = dict(
            os.environ,
            WEBNB_MODE="hosted",
            WEBNB_SECRET_KEY=secrets.token_urlsafe(48),
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
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                status, _, _ = http_get(self.port, "/corpora", timeout=5)
                if status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"gunicorn did not answer within {timeout:.0f} s:\n{self.log_tail()}")

    def stop(self) -> None:
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGTERM)
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
            except ProcessLookupError:
                pass
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

    def log_tail(self, lines: int = 30) -> str:
        self.log.flush()
        text = self.log_path.read_text(errors="replace").splitlines()
        return "\n".join(text[-lines:])


def http_get(port: int, path: str, headers: dict | None = None, timeout: float = 30.0):
    """(status, headers, body) of one GET on a new connection."""
    connection = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        connection.request("GET", path, headers=headers or {})
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

def run_locust(base: str, args, folder: Path) -> tuple[dict, list, float]:
    """(statistics per request kind, failures, seconds) from a headless locust run."""
    prefix = folder / "locust"
    stats_path = folder / "locust.json"  # locust adds the ".json" to what --json-file says
    log_path = folder / "locust.log"
    command = [
        sys.executable, "-m", "locust",
        "-f", str(LOCUSTFILE),
        "--headless",
        "--host", base,
        "--users", str(args.users),
        "--spawn-rate", str(args.spawn_rate),
        "--run-time", args.run_time,
        # The JSON is written after the last student stopped (the CSV statistics may miss the last requests);
        # the CSV files are read only for the messages of failures and exceptions.
        "--json-file", str(folder / "locust"),
        "--csv", str(prefix),
        "--loglevel", "WARNING",
    ]
    started = time.monotonic()
    with open(log_path, "wb") as log:
        # locust exits 1 when a request failed; the failures are counted from its statistics and reported.
        completed = subprocess.run(command, cwd=REPO_ROOT, stdout=log, stderr=subprocess.STDOUT, check=False)
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


# -- the report --------------------------------------------------------------------------------------------------------

def evaluate(figures: dict, args) -> list[dict]:
    """Every target with its measured value and whether it was met."""
    kinds = figures["locust"]["kinds"]
    total_errors = figures["locust"]["kinds"].get("all requests", {}).get("errors", 0)
    checks = [{"target": "errors (locust)", "limit": 0, "value": total_errors, "passed": total_errors == 0}]
    for kind, limit in (("inference fragment", args.inference_p95_ms), ("matrix page", args.matrix_p95_ms)):
        value = kinds.get(kind, {}).get("p95_ms")
        checks.append({"target": f"{kind} p95 ms", "limit": limit, "value": value,
                       "passed": value is not None and value < limit})
    if figures.get("burst"):
        burst_figures = figures["burst"]
        checks.append({"target": "errors (burst)", "limit": 0, "value": burst_figures["errors"],
                       "passed": burst_figures["errors"] == 0})
        checks.append({"target": "burst max s", "limit": args.burst_target, "value": burst_figures["max_s"],
                       "passed": burst_figures["max_s"] is not None and burst_figures["max_s"] <= args.burst_target})
    return checks


def print_report(figures: dict) -> None:
    server, machine = figures["server"], figures["machine"]
    print(f"\nwebnb hosted, gunicorn {server['workers']} workers × {server['threads']} threads, {server['database']}, "
          f"{machine['cores']} cores\n(load average of the machine, 1/5/15 min, before: {machine['load_before']}; "
          f"when the students stopped: {machine['load_after']})")
    run = figures["locust"]
    print(f"{run['users']} students for {run['run_time']} ({run['seconds']:.0f} s with start and stop); gunicorn used "
          f"{run['server_cpu_s']:.0f} CPU s = {run['server_cpu_ms_per_request']:.1f} ms per request, "
          f"{run['server_cores_busy']:.2f} cores on average (locust itself: {run['locust_cpu_s']:.0f} CPU s)")
    alone = figures["alone"]
    print(f"one inference fragment at a time, before the students: median {alone['p50_ms']:.1f} ms, "
          f"max {alone['max_ms']:.1f} ms\n")
    print(f"{'request kind':<22}{'requests':>10}{'errors':>8}{'req/s':>8}"
          + "".join(f"{heading:>9}" for heading in ("p50 ms", "p95 ms", "p99 ms", "max ms")))
    for kind, row in sorted(run["kinds"].items(), key=lambda item: (item[0] == "all requests", item[0])):
        cells = [_cell(row[key]) for key in ("p50_ms", "p95_ms", "p99_ms", "max_ms")]
        print(f"{kind:<22}{row['requests']:>10}{row['errors']:>8}{row['requests_per_s']:>8.1f}"
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
    print()
    for check in figures["checks"]:
        value = check["value"]
        shown = "—" if value is None else (f"{value:.3f}" if isinstance(value, float) else str(value))
        target = check["target"]
        relation = "≤" if target.startswith("burst") else "=" if target.startswith("errors") else "<"
        print(f"{'PASS' if check['passed'] else 'FAIL'}  {target}: {shown} (target {relation} {check['limit']:g})")
    print("\nPASS" if figures["passed"] else "\nFAIL")


def _cell(value, unit: str = "") -> str:
    if value is None:
        return "—"
    return f"{value:.2f} {unit}".strip() if unit else f"{value:.0f}"


def main(argv=None) -> int:
    args = parse_args(argv)
    # SIGTERM (a CI timeout, kill) unwinds like Ctrl-C, through the finally that stops gunicorn.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    folder = Path(tempfile.mkdtemp(prefix="webnb-load-"))
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
        if args.keep_logs:
            args.keep_logs.mkdir(parents=True, exist_ok=True)
            for log in folder.glob("*.log"):
                shutil.copy(log, args.keep_logs / log.name)
        if database is not None:
            database.close()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
