"""One student floods the background jobs while another works: what the other waits, and what the workers keep.

    python scripts/job_flood.py [--repo PATH] [--database-url URL] [--flood 150] [--flood-threads 4]
                                [--flood-seconds 150] [--victims 4] [--same-address] [--max-seconds 330]
                                [--setting NAME=VALUE] [--json PATH]

1. Makes a fresh schema in the PostgreSQL database (``--database-url``, on this machine; dropped at the end) and
   publishes two class corpora there with ``webnb corpora add``: 20 Newsgroups' training set (11,314 documents,
   the attacker's) and the sentence-polarity corpus (10,662 documents, the victim's).
2. Starts the app from ``--repo`` (default: this checkout; give a clone of an older commit to compare) as the
   README deploys hosted mode: gunicorn --preload, 2 workers × 4 threads, PostgreSQL, the rate limits in Redis
   (``--redis``), ``WEBNB_PROXIES=1``, ``WEBNB_CACHE_MB=512``, ``WEBNB_MAX_WORK_MB=300``.
3. The attacker, from one client address (``X-Forwarded-For``), asks for the evaluation of ``--flood`` new split
   seeds with costly analysis options (``--flood-options``, used in turn), each request from a fresh cookie, with
   ``--flood-threads`` at once; a seed refused (503 or 429) is asked again a second later, until every seed was
   accepted or ``--flood-seconds`` have passed. It never watches the progress pages.
4. Meanwhile ``--victims`` other students arrive, the first ``--victim-delay`` seconds after the flood started and
   then one every ``--victim-every`` seconds, each from an address of their own (``--same-address``: from the
   attacker's, as in a lecture hall behind one NAT address) with a cookie of their own. Each asks for the evaluation
   of a new split of their corpus, then for the comparison of the four models on it, each followed through its
   progress page until the page itself answers (a 503 is asked again after Retry-After, at most 5 s; a job that
   failed is asked again).
5. Samples each worker's resident memory (VmRSS in /proc/<pid>/status) every 2 seconds, and the jobs in the
   database. The run ends when the victims are done, the flood is over and no job waits any more, or after
   ``--max-seconds``.

Prints the victims' times to each result (and the median), the flood's answers by status (how many refused with
503), the jobs by outcome, and each worker's RSS before, after 100 finished jobs and at the end (with the peak).
No targets: figures to compare, e.g. the committed code (``git clone . /tmp/oldclone``, ``--repo /tmp/oldclone``)
against this one. Linux only (reads /proc).
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import secrets
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from loadtest import HOST, free_port, stop_process_group, wait_until_answering  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parents[1]
CORPORA = REPO_ROOT.parent / "shared" / "corpora"
ATTACKED = ("flood-news", CORPORA / "20newsgroups-bydate" / "train.jsonl.gz", "20 Newsgroups (training part)")
VICTIMS = ("victim-sentences", CORPORA / "sentence-polarity-v1.0" / "all.jsonl", "Sentence polarity")
ATTACKER_ADDRESS, WARM_UP_ADDRESS = "203.0.113.66", "192.0.2.1"
DEFAULT_FLOOD_OPTIONS = ("stop_words=english", "ngrams=1-2")
SAMPLE_EVERY_SECONDS = 2.0
POLL_EVERY_SECONDS = 0.5  # as the progress page's htmx polls
ACTION_PATIENCE_SECONDS = 240.0
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, default=REPO_ROOT, help="the checkout whose app is served")
    parser.add_argument("--database-url", default="postgresql+psycopg://root@127.0.0.1/test",
                        help="PostgreSQL on this machine; a fresh schema in it is used and dropped")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379", help="the rate limits' storage")
    parser.add_argument("--flood", type=int, default=150, help="distinct split seeds the attacker asks for")
    parser.add_argument("--flood-threads", type=int, default=4, help="the attacker's requests at once")
    parser.add_argument("--flood-seconds", type=float, default=150, help="how long the attacker keeps asking")
    parser.add_argument("--flood-options", action="append",
                        help=f"analysis options of the attacker's requests, used in turn (default: "
                             f"{' and '.join(DEFAULT_FLOOD_OPTIONS)})")
    parser.add_argument("--victims", type=int, default=4, help="students who each ask for an evaluation, then a "
                                                               "comparison, during the flood")
    parser.add_argument("--victim-delay", type=float, default=15, help="when the first arrives, in seconds after "
                                                                       "the flood started")
    parser.add_argument("--victim-every", type=float, default=20, help="seconds between the victims' arrivals")
    parser.add_argument("--same-address", action="store_true", help="the victims come from the attacker's address")
    parser.add_argument("--max-seconds", type=float, default=330, help="the longest the flood part may run")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--setting", action="append", default=[], metavar="NAME=VALUE",
                        help="more environment for the app (e.g. WEBNB_MAX_QUEUED_JOBS=8)")
    parser.add_argument("--label", help="the run's name in the output (default: the repo's commit)")
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    parser.add_argument("--keep-log", type=Path, help="copy gunicorn's log here")
    args = parser.parse_args(argv)
    host = urlsplit(args.database_url.replace("+psycopg", "")).hostname or "localhost"
    if host not in LOOPBACK_NAMES:
        parser.error("--database-url must name a database on this machine")
    if not 1 <= args.flood <= 2000 or not 1 <= args.flood_threads <= 32 or args.max_seconds > 1800:
        parser.error("--flood is 1 to 2,000, --flood-threads 1 to 32, --max-seconds at most 1,800")
    args.flood_options = tuple(args.flood_options or DEFAULT_FLOOD_OPTIONS)
    return args


# -- HTTP ------------------------------------------------------------------------------------------------------


def request(port: int, path: str, address: str, cookie: str | None = None, timeout: float = 120.0):
    """(status, headers, body) of one GET on a new connection, from ``address`` (through the trusted proxy)."""
    connection = http.client.HTTPConnection(HOST, port, timeout=timeout)
    headers = {"X-Forwarded-For": address, "Accept": "text/html"}
    if cookie:
        headers["Cookie"] = cookie
    try:
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read().decode("utf-8", "replace")
    finally:
        connection.close()


JOB_LINK = re.compile(r'id="job"[^>]*hx-get="(/jobs/[^"]+)"|hx-get="(/jobs/[^"]+)"[^>]*id="job"')


FORM_ERROR = re.compile(r'id="form-error"[^>]*>\s*<p>(.*?)</p>', re.S)


def job_path(body: str) -> str | None:
    found = JOB_LINK.search(body)
    return (found.group(1) or found.group(2)) if found else None


@dataclass
class Victim:
    port: int
    corpus: str
    address: str
    cookie: str | None = None
    refused: int = 0  # 503s the victim met
    failed_jobs: Counter = field(default_factory=Counter)  # what progress pages said failed (then asked again)
    results: list = field(default_factory=list)  # (action, seconds or None for gave up)

    def get(self, path: str):
        status, headers, body = request(self.port, path, self.address, self.cookie)
        cookie = headers.get("Set-Cookie")
        if cookie:
            self.cookie = cookie.split(";", 1)[0]
        return status, headers, body

    def until_answered(self, path: str, patience: float = ACTION_PATIENCE_SECONDS) -> float | None:
        """Seconds until ``path`` answers 200 itself, following progress pages; None when patience ran out."""
        started = time.monotonic()
        while time.monotonic() - started < patience:
            status, headers, body = self.get(path)
            if status == 200:
                return time.monotonic() - started
            if status in (429, 503):
                self.refused += status == 503
                time.sleep(min(float(headers.get("Retry-After", 5)), 5.0))
                continue
            progress = job_path(body) if status == 202 else None
            if progress is None:
                raise RuntimeError(f"{path} answered {status}: {body[:300]}")
            while time.monotonic() - started < patience:
                time.sleep(POLL_EVERY_SECONDS)
                status, headers, body = self.get(progress)
                if status == 303:
                    break  # done: the page itself again (it may need more work)
                if status == 400:
                    said = FORM_ERROR.search(body)
                    self.failed_jobs[" ".join(said.group(1).split())[:100] if said else "?"] += 1
                    break
                if status != 200:
                    raise RuntimeError(f"{progress} answered {status}")
        return None

    def run(self, delay: float, seed: int) -> None:
        time.sleep(delay)
        for action, path in (
            ("evaluation", f"/corpora/{self.corpus}/evaluation?test=split&seed={seed}"),
            ("compare", f"/corpora/{self.corpus}/compare?test=split&seed={seed}"),
        ):
            seconds = self.until_answered(path)
            self.results.append((action, seconds))
            shown = "gave up" if seconds is None else f"{seconds:.1f} s"
            print(f"  victim {seed}'s {action}: {shown}", flush=True)


class Flood:
    """The attacker: each seed asked from a fresh cookie until a job was accepted for it."""

    def __init__(self, port: int, corpus: str, seeds: int, threads: int, options: tuple[str, ...], seconds: float):
        self.port, self.corpus, self.options = port, corpus, options
        self.pending = list(range(seeds, 0, -1))
        self.deadline = time.monotonic() + seconds
        self.statuses: Counter = Counter()
        self.accepted = 0
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self._attack, daemon=True) for _ in range(threads)]

    def start(self) -> None:
        for thread in self.threads:
            thread.start()

    def done(self) -> bool:
        return not any(thread.is_alive() for thread in self.threads)

    def _attack(self) -> None:
        while time.monotonic() < self.deadline:
            with self.lock:
                if not self.pending:
                    return
                seed = self.pending.pop()
            options = self.options[seed % len(self.options)]
            path = f"/corpora/{self.corpus}/evaluation?test=split&seed={10_000 + seed}&{options}"
            try:
                status, _, _ = request(self.port, path, ATTACKER_ADDRESS)
            except OSError:
                status = "connection error"
            with self.lock:
                self.statuses[status] += 1
                if status in (200, 202):
                    self.accepted += 1
                else:
                    self.pending.append(seed)
            if status not in (200, 202):
                time.sleep(1.0)


# -- the server --------------------------------------------------------------------------------------------------


class Schema:
    """A schema of its own in the PostgreSQL database, dropped by ``close()``."""

    def __init__(self, url: str):
        import sqlalchemy as sa

        self.name = f"webnb_flood_{secrets.token_hex(4)}"
        self._admin = sa.create_engine(url)
        with self._admin.begin() as connection:
            connection.execute(sa.text(f'CREATE SCHEMA "{self.name}"'))
        self.url = sa.make_url(url).update_query_dict({"options": f"-csearch_path={self.name}"}).render_as_string(
            hide_password=False)

    def jobs(self) -> Counter:
        """The jobs in the database by outcome."""
        import sqlalchemy as sa

        with self._admin.connect() as connection:
            rows = connection.execute(sa.text(f'SELECT state, error FROM "{self.name}".jobs')).all()
        outcomes = Counter()
        for state, error in rows:
            if state == "failed" and error and ("replaced" in error or "make room" in error):
                outcomes["dropped before starting"] += 1
            else:
                outcomes[state] += 1
        return outcomes

    def close(self) -> None:
        import sqlalchemy as sa

        with self._admin.begin() as connection:
            connection.execute(sa.text(f'DROP SCHEMA "{self.name}" CASCADE'))
        self._admin.dispose()


def app_environment(args, database_url: str, secret: str) -> dict:
    settings = dict(setting.split("=", 1) for setting in args.setting)
    return dict(
        os.environ, **settings,
        WEBNB_MODE="hosted", WEBNB_SECRET_KEY=secret, WEBNB_PROXIES="1", WEBNB_DATABASE_URL=database_url,
        WEBNB_RATE_LIMIT_STORAGE=args.redis, WEBNB_CACHE_MB=settings.get("WEBNB_CACHE_MB", "512"),
        WEBNB_MAX_WORK_MB=settings.get("WEBNB_MAX_WORK_MB", "300"), WEBNB_COOKIE_SECURE="0",
        PYTHONPATH=os.pathsep.join(filter(None, [str(args.repo), os.environ.get("PYTHONPATH")])),
    )


def publish(env: dict, repo: Path, corpus_id: str, path: Path, name: str) -> None:
    command = [sys.executable, "-c", "import sys; from webnb.cli import main; sys.exit(main())",
               "corpora", "add", str(path), "--id", corpus_id, "--name", name]
    done = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"publishing {path.name} failed: {done.stderr or done.stdout}")


def start_gunicorn(args, env: dict, port: int, log) -> subprocess.Popen:
    command = [
        sys.executable, "-m", "gunicorn", "--preload", "--workers", str(args.workers), "--threads", str(args.threads),
        "--worker-class", "gthread", "--limit-request-line", "0", "--timeout", "120", "--graceful-timeout", "10",
        "--log-level", "warning", "--bind", f"{HOST}:{port}", "webnb:create_app()",
    ]
    return subprocess.Popen(command, cwd=args.repo, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)


def wait_until_ready(process: subprocess.Popen, port: int, timeout: float = 90.0) -> None:
    wait_until_answering(process, "gunicorn", lambda: request(port, "/corpora", WARM_UP_ADDRESS, timeout=5)[0] == 200,
                         timeout, every=0.3)


def stop(process: subprocess.Popen) -> None:
    stop_process_group(process, grace_seconds=20)


def worker_pids(master: int) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == master:
                pids.append(int(entry.name))
    return sorted(pids)


def memory_mb(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) of a process in MB, (0, 0) once it is gone."""
    values = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(("VmRSS:", "VmHWM:")):
                name, kilobytes = line.split()[:2]
                values[name] = int(kilobytes) / 1024
    except OSError:
        return 0.0, 0.0
    return values.get("VmRSS:", 0.0), values.get("VmHWM:", 0.0)


# -- the run -----------------------------------------------------------------------------------------------------


def measure(args, port: int, master: int, schema: Schema) -> dict:
    workers = worker_pids(master)
    for corpus in (ATTACKED[0], VICTIMS[0]):  # every worker has its templates and the corpora's statistics
        for _ in range(2 * len(workers)):
            request(port, f"/corpora/{corpus}/parameters", WARM_UP_ADDRESS)
    before = {pid: memory_mb(pid)[0] for pid in workers}
    print(f"workers {workers}, RSS before: " + ", ".join(f"{mb:.0f} MB" for mb in before.values()), flush=True)
    started = time.monotonic()
    flood = Flood(port, ATTACKED[0], args.flood, args.flood_threads, args.flood_options, args.flood_seconds)
    flood.start()
    victims = [Victim(port, VICTIMS[0], ATTACKER_ADDRESS if args.same_address else f"198.51.100.{n}")
               for n in range(1, args.victims + 1)]
    victim_threads = [
        threading.Thread(target=victim.run, args=(args.victim_delay + n * args.victim_every, n + 1), daemon=True)
        for n, victim in enumerate(victims)
    ]
    for thread in victim_threads:
        thread.start()
    samples, after_100 = [], None
    while True:
        time.sleep(SAMPLE_EVERY_SECONDS)
        elapsed = time.monotonic() - started
        jobs = schema.jobs()
        finished = jobs["done"] + jobs["failed"]
        sample = {"seconds": round(elapsed, 1), "finished_jobs": finished, "waiting_or_running": jobs["running"],
                  "rss_mb": {pid: round(memory_mb(pid)[0]) for pid in workers}}
        samples.append(sample)
        if after_100 is None and finished >= 100:
            after_100 = sample
        print(f"  {elapsed:5.0f} s: {finished} jobs finished, {jobs['running']} waiting or running, flood "
              f"{dict(flood.statuses)}, RSS " + ", ".join(f"{mb} MB" for mb in sample["rss_mb"].values()), flush=True)
        quiet = flood.done() and not any(t.is_alive() for t in victim_threads) and jobs["running"] == 0
        if quiet or elapsed > args.max_seconds:
            break
    end = {pid: memory_mb(pid) for pid in workers}
    results = [result for victim in victims for result in victim.results]
    return {
        "label": args.label, "workers": workers, "seconds": round(time.monotonic() - started, 1),
        "victim": {
            action: [None if s is None else round(s, 1) for a, s in results if a == action]
            for action in ("evaluation", "compare")
        },
        "victim_refused_503": sum(victim.refused for victim in victims),
        "victim_failed_jobs": sum((victim.failed_jobs for victim in victims), Counter()),
        "victim_finished": not any(thread.is_alive() for thread in victim_threads),
        "same_address": args.same_address,
        "flood_statuses": {str(k): v for k, v in flood.statuses.items()}, "flood_accepted": flood.accepted,
        "flood_requests": sum(flood.statuses.values()), "jobs": dict(schema.jobs()),
        "rss_before_mb": {pid: round(mb) for pid, mb in before.items()},
        "rss_after_100_jobs_mb": after_100 and after_100["rss_mb"],
        "after_100_jobs_at_seconds": after_100 and after_100["seconds"],
        "rss_end_mb": {pid: round(rss) for pid, (rss, _) in end.items()},
        "peak_rss_mb": {pid: round(peak) for pid, (_, peak) in end.items()},
        "samples": samples,
    }


def median_text(values: list) -> str:
    known = [v for v in values if v is not None]
    gave_up = len(values) - len(known)
    if not known:
        return f"none answered ({gave_up} gave up after {ACTION_PATIENCE_SECONDS:.0f} s)"
    text = f"median {statistics.median(known):.1f} s of {', '.join(f'{v:.1f}' for v in known)}"
    return text + (f"; {gave_up} gave up after {ACTION_PATIENCE_SECONDS:.0f} s" if gave_up else "")


def report(figures: dict) -> None:
    print(f"\n== {figures['label']} ({figures['seconds']:.0f} s) ==")
    where = "the attacker's address" if figures["same_address"] else "addresses of their own"
    for action, values in figures["victim"].items():
        print(f"victims' {action} (from {where}): {median_text(values)}")
    failed = figures["victim_failed_jobs"]
    print(f"victims met {figures['victim_refused_503']} × 503, {sum(failed.values())} failed job(s) {dict(failed)}"
          + ("" if figures["victim_finished"] else "; not all finished"))
    statuses = figures["flood_statuses"]
    print(f"flood: {figures['flood_requests']} requests, {figures['flood_accepted']} accepted (jobs queued), "
          f"{statuses.get('503', 0)} refused with 503, answers {statuses}")
    print(f"jobs in the database: {figures['jobs']}")
    after = figures["rss_after_100_jobs_mb"] or {}
    at = figures["after_100_jobs_at_seconds"]
    for pid in figures["workers"]:
        when = f" (at {at:.0f} s)" if at else ""
        print(f"worker {pid}: RSS before {figures['rss_before_mb'][pid]} MB, after 100 jobs {after.get(pid, '—')} MB"
              f"{when}, at the end {figures['rss_end_mb'][pid]} MB, peak {figures['peak_rss_mb'][pid]} MB")


def commit_of(repo: Path) -> str:
    done = subprocess.run(["git", "-C", str(repo), "log", "-1", "--format=%h"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(repo), "status", "--short", "webnb"], capture_output=True, text=True)
    return done.stdout.strip() + (" + working tree" if dirty.stdout.strip() else "")


def main(argv=None) -> int:
    args = parse_args(argv)
    for _, path, _ in (ATTACKED, VICTIMS):
        if not path.is_file():
            print(f"{path} is missing (the shared corpora)", file=sys.stderr)
            return 2
    args.repo = args.repo.resolve()
    args.label = args.label or f"{args.repo} at {commit_of(args.repo)}"
    schema = Schema(args.database_url)
    folder = Path(tempfile.mkdtemp(prefix="job-flood-"))
    process = None
    try:
        env = app_environment(args, schema.url, secrets.token_urlsafe(48))
        imported = subprocess.run([sys.executable, "-c", "import webnb; print(webnb.__file__)"], cwd=args.repo, env=env,
                                  capture_output=True, text=True).stdout.strip()
        print(f"serving {imported}", flush=True)
        for corpus_id, path, name in (ATTACKED, VICTIMS):
            publish(env, args.repo, corpus_id, path, name)
        port = free_port()
        log_path = folder / "gunicorn.log"
        with open(log_path, "wb") as log:
            process = start_gunicorn(args, env, port, log)
            try:
                wait_until_ready(process, port)
                figures = measure(args, port, process.pid, schema)
            finally:
                stop(process)
        if args.keep_log:
            args.keep_log.write_bytes(log_path.read_bytes())
        errors = [line for line in log_path.read_text(errors="replace").splitlines() if "Traceback" in line]
        figures["server_tracebacks"] = len(errors)
        report(figures)
        if args.json:
            args.json.write_text(json.dumps(figures, indent=2, default=str))
        return 0
    finally:
        if process is not None:
            stop(process)
        schema.close()


if __name__ == "__main__":
    sys.exit(main())
