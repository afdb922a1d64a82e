"""A lecture hall behind one address joins while one student in it floods the joining (issue 35, finding 1).

    python scripts/hostile_hall.py [--students 300] [--database-url URL] [--redis URL] [--json PATH]

1. A fresh database (a SQLite file, or a schema of its own in PostgreSQL with ``--database-url``) gets 20 Newsgroups'
   training set as the class corpus ``newsgroups-20`` and a class on it, as ``scripts/class_load.py`` does.
2. gunicorn 2 workers × 4 threads in hosted mode, its rate limits (and so the wrong-code counts) in Redis
   (``--redis``, default database 14 of this machine's Redis, emptied first), an instructor key set.
3. Every request comes from 127.0.0.1: the hall's one NAT address. One hostile student, from the start to the end,
   floods as fast as four threads can: wrong codes from fresh cookies (never paying the proof of work), wrong
   instructor keys from fresh cookies (five from each), and rejoins of the right code from one cookie (which the
   per-workspace rate limit brakes, 429); a fifth thread guesses codes paying every proof of work, as an enumeration
   would have to.
4. 300 honest students arrive evenly over ``--arrive-seconds`` (30), each a fresh browser: it opens the QR code's
   address; asked for the proof of work, it finds it (here in Python, as the browser's join.js does with WebCrypto)
   and sends the code again; then it opens the lecturer's page it is sent to. Measured: the time from arriving to
   the lecturer's page, per student.
5. Target: all 300 in, each within 60 s of arriving, and the class's members in the database are those 300 plus the
   rejoiner. Printed too: the hostile requests answered per second, and the proven guesses per second (what a
   code enumeration gets: with 25⁶ codes, years per running class).

Exits 1 if the target is missed.
"""
from __future__ import annotations

import argparse
import hashlib
import http.client
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlencode, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from class_load import CORPUS, CORPUS_ID, summary  # noqa: E402
from loadtest import HOST, Database, Gunicorn, free_port  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parents[1]
INSTRUCTOR_KEY = "the operator's key for lecturers, long and secret"
CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
DATA_PROOF = re.compile(r'data-proof="([^"]+)" data-proof-bits="(\d+)"')
TARGET_SECONDS = 60.0


def leading_zero_bits(digest: bytes) -> int:
    return len(digest) * 8 - int.from_bytes(digest, "big").bit_length()


def solve(challenge: str, bits: int) -> str:
    """What join.js computes: the first nonce whose SHA-256 with the challenge has ``bits`` leading zero bits."""
    nonce = 0
    while leading_zero_bits(hashlib.sha256(f"{challenge}:{nonce}".encode()).digest()) < bits:
        nonce += 1
    return str(nonce)


class Browser:
    """One browser's cookies and kept-alive connection."""

    def __init__(self, port: int):
        self.port = port
        self.cookies: dict[str, str] = {}
        self.connection: http.client.HTTPConnection | None = None

    def get(self, path: str, **headers) -> tuple[int, dict, bytes]:
        return self.request("GET", path, None, headers)

    def post(self, path: str, form: dict) -> tuple[int, dict, bytes]:
        return self.request("POST", path, urlencode(form).encode(),
                            {"Content-Type": "application/x-www-form-urlencoded",
                             "Origin": f"http://{HOST}:{self.port}", "Sec-Fetch-Site": "same-origin"})

    def request(self, method, path, body, headers):
        headers = dict(headers)
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        for attempt in (1, 2):
            if self.connection is None:
                self.connection = http.client.HTTPConnection(HOST, self.port, timeout=60)
            try:
                self.connection.request(method, path, body=body, headers=headers)
                response = self.connection.getresponse()
                data = response.read()
            except (http.client.HTTPException, OSError):
                self.connection.close()
                self.connection = None
                if attempt == 2:
                    return 0, {}, b""
                continue
            for header in response.headers.get_all("Set-Cookie") or []:
                name, _, value = header.split(";", 1)[0].partition("=")
                self.cookies[name] = value
            return response.status, dict(response.headers), data
        return 0, {}, b""

    def close(self):
        if self.connection is not None:
            self.connection.close()


def join(browser: Browser, code: str) -> tuple[int, str]:
    """A student's join as the browser makes it: (status of the last answer, where it sends them)."""
    status, headers, body = browser.get(f"/join/{code}")
    if status == 429:
        found = DATA_PROOF.search(body.decode("utf-8", "replace"))
        if found is None:
            return status, ""
        challenge, bits = found.group(1), int(found.group(2))
        status, headers, body = browser.get("/join?" + urlencode(
            {"code": code, "proof": challenge, "nonce": solve(challenge, bits)}))
    return status, headers.get("Location", "")


class Flood:
    """The hostile student's threads and their counts."""

    def __init__(self, port: int, code: str):
        self.port, self.code = port, code
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.counts: dict[str, dict[int, int]] = {}
        self.started = time.monotonic()

    def count(self, kind: str, status: int) -> None:
        with self.lock:
            by_status = self.counts.setdefault(kind, {})
            by_status[status] = by_status.get(status, 0) + 1

    def wrong_codes(self) -> None:
        while not self.stop.is_set():
            browser = Browser(self.port)
            self.count("wrong code, fresh cookie", browser.get("/join/3X9KQR")[0])
            browser.close()

    def instructor_keys(self) -> None:
        n = 0
        while not self.stop.is_set():
            browser = Browser(self.port)  # a fresh cookie, and the CSRF token its home page gives
            token = CSRF.search(browser.get("/")[2].decode("utf-8", "replace"))
            for _ in range(5):
                n += 1
                form = {"corpus": "spam-ham", "instructor_key": f"guess {n}", "csrf_token": token and token.group(1)}
                self.count("instructor key, fresh cookie (5 each)", browser.post("/classes", form)[0])
            browser.close()

    def rejoins(self) -> None:
        browser = Browser(self.port)
        while not self.stop.is_set():
            self.count("rejoin, one cookie", join(browser, self.code)[0])

    def proven_guesses(self) -> None:
        guess = 0
        while not self.stop.is_set():
            browser = Browser(self.port)
            guess += 1
            code = "".join("34679ACDEFGHJKMNPQRTUVWXY"[(guess * 7 + i) % 25] for i in range(6))
            self.count("guess with proof of work", join(browser, code)[0])
            browser.close()

    def start(self) -> list[threading.Thread]:
        threads = [threading.Thread(target=work, daemon=True)
                   for work in (self.wrong_codes, self.wrong_codes, self.instructor_keys, self.rejoins,
                                self.proven_guesses)]
        for thread in threads:
            thread.start()
        return threads

    def rates(self) -> dict:
        seconds = time.monotonic() - self.started
        return {kind: {"per_second": round(sum(by.values()) / seconds, 1), "statuses": by}
                for kind, by in sorted(self.counts.items())}


def run(args, folder: Path) -> dict:
    database = Database(args.database_url, folder)
    import redis

    redis.Redis.from_url(args.redis).flushdb()
    server = None
    try:
        env = dict(os.environ, WEBNB_MODE="hosted", WEBNB_DATABASE_URL=database.url,
                   WEBNB_SECRET_KEY="hostile-hall-" + "k" * 40,
                   PYTHONPATH=os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")])))
        settings = {"WEBNB_RATE_LIMIT_STORAGE": args.redis, "WEBNB_INSTRUCTOR_KEY": INSTRUCTOR_KEY}
        cli = [sys.executable, "-c", "import sys; from webnb.cli import main; sys.exit(main())"]
        subprocess.run([*cli, "corpora", "add", str(args.corpus), "--id", CORPUS_ID, "--name", "20 Newsgroups"],
                       cwd=folder, env={**env, **settings}, check=True, capture_output=True, timeout=900)
        server = Gunicorn(port=free_port(), workers=2, threads=4, preload=True, database_url=database.url,
                          folder=folder, secret=env["WEBNB_SECRET_KEY"], settings=settings)
        server.wait_until_ready(120)
        started = json.loads(subprocess.run(
            [*cli, "class", "start", "--corpus", CORPUS_ID, "--json", "--base-url", server.base],
            cwd=folder, env={**env, **settings}, check=True, capture_output=True, text=True, timeout=120).stdout)
        code = started["code"]
        warm = Browser(server.port)
        for _ in range(4):  # every worker counts the corpus before the hall arrives (untimed)
            warm.get(f"/corpora/{CORPUS_ID}")

        flood = Flood(server.port, code)
        flood.start()
        time.sleep(3)  # the address's budget is spent before the first honest student arrives
        results: list[tuple[int, float, int]] = []
        lock = threading.Lock()

        def student(index: int, arrive_at: float) -> None:
            time.sleep(max(0.0, arrive_at - time.monotonic()))
            arrived = time.monotonic()
            browser = Browser(server.port)
            status, location = join(browser, code)
            landed = 0
            if status == 303:
                parts = urlsplit(location)
                landed = browser.get(parts.path + (f"?{parts.query}" if parts.query else ""))[0]
            browser.close()
            with lock:
                results.append((status, time.monotonic() - arrived, landed))

        begin = time.monotonic() + 0.5
        threads = [threading.Thread(target=student, args=(i, begin + args.arrive_seconds * i / args.students),
                                    daemon=True) for i in range(args.students)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(args.arrive_seconds + TARGET_SECONDS + 30)
        flood.stop.set()
        rates = flood.rates()
        from webnb import create_app

        os.environ.update(WEBNB_DATABASE_URL=database.url, WEBNB_MODE="hosted",
                          WEBNB_SECRET_KEY=env["WEBNB_SECRET_KEY"])
        app = create_app(instance_path=str(folder / "instance"))
        members = len(app.extensions["webnb"]["storage"].class_members(code))
        app.extensions["webnb"]["storage"].dispose()
        joined = [seconds for status, seconds, landed in results if status == 303 and landed == 200]
        return {"database": database.kind, "students": args.students, "joined": len(joined),
                "members_in_database": members, "seconds_to_the_lecturers_page": summary(joined, scale=1.0),
                "statuses": {str(s): sum(1 for r in results if r[0] == s) for s in sorted({r[0] for r in results})},
                "hostile": rates}
    finally:
        if server is not None:
            server.stop()
        database.close()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=300)
    parser.add_argument("--arrive-seconds", type=float, default=30.0)
    parser.add_argument("--database-url")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/14")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        figures = run(args, Path(folder))
    print(json.dumps(figures, indent=2))
    slowest = figures["seconds_to_the_lecturers_page"]["max"] if figures["joined"] else float("inf")
    passed = (figures["joined"] == args.students and slowest <= TARGET_SECONDS
              and figures["members_in_database"] == args.students + 1)
    print(f"{'PASS' if passed else 'FAIL'}: {figures['joined']} of {args.students} students in, the slowest after "
          f"{slowest:.2f} s (target: all, each within {TARGET_SECONDS:.0f} s); {figures['members_in_database']} "
          "members in the database (the students and the rejoiner)")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
