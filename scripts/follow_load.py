"""2,000 followers of one class on one machine: the lecturer's moves pushed through Redis to ``webnb events``
(issue 35, item 8).

    python scripts/follow_load.py [--followers 2000] [--moves 6] [--hostile] [--database-url URL] [--redis URL]
                                  [--json PATH]

1. A fresh schema in PostgreSQL (``--database-url``, this machine; dropped at the end) gets 20 Newsgroups' training
   set as the class corpus ``newsgroups-20`` (``webnb corpora add``) and a class on it (``webnb class start
   --json``), as ``scripts/class_load.py`` does.
2. Servers as "Hosting a lecture hall" runs them: gunicorn 2 workers × 4 threads in hosted mode (``--preload``,
   ``--keep-alive 30``, ``--backlog 2048``), the rate limits and the broker in Redis (``--redis``, default database
   10 of this machine's Redis, emptied first), and ``webnb events`` on a port of its own, with the same settings.
3. The lecturer opens the lecturer's link and the first slide (Bayes' rule in presenter mode on a review).
4. ``--followers`` students join by the QR code's address ``/join/CODE`` through gunicorn, each with a fresh cookie
   (all from 127.0.0.1: a right code never needs a budget), then each opens the class's event stream on
   ``webnb events`` with its cookie (raw asyncio streams reading the server-sent events: 2,000 streams from one
   process). Measured: the joins' statuses and times, the streams' opening, and the RSS of the ``webnb events``
   process before and after the streams opened (per stream: the difference divided by their number).
5. The lecturer moves to the next step every 10 s, ``--moves`` times. For each move, the time from the lecturer's
   click (the request sent) until each follower's stream carried the ``move`` event to that step (the move lag;
   targets p95 ≤ 1 s and max ≤ 2 s), and the lecturer's request time (target p95 ≤ 250 ms).
6. ``--fetchers`` of the followers (100) then do what a real page does on a ``move``: close the stream, open the
   new address from gunicorn, and open the stream again (it starts with the class's state). Measured: the page's
   time from the event and the stream's reopening. (All 2,000 fetching a 20 Newsgroups slide within the same
   second is what a 2-core machine may not keep up with: ``--fetchers 2000`` measures it.)
7. ``--hostile`` (scenario B): the same while a hostile client (a process of its own) holds ``--hostile-connections``
   (2,000) more kept-alive connections and polls ``follow.json`` flat out on each: half as a member of the class
   from one cookie, half as non-members, each request with no cookie (a fresh browser). The polls go where the
   proxy of "Hosting a lecture hall" sends ``follow.json``, to ``webnb events`` (``--hostile-at gunicorn``: to
   gunicorn, which answers the same address when reached directly). Target: the honest followers' move lag p95
   ≤ 2 s; printed: the hostile requests' statuses (429, 404, …) and rates.

Prints the figures (p50/p95/max) with PASS/FAIL per target; ``--json PATH`` writes them. Exits 1 if a target is
missed. Linux only (reads /proc). Raises this process's open-file limit to its hard limit.
"""
from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlencode, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from class_load import CORPUS, CORPUS_ID, REVIEW, STEPS, report, summary  # noqa: E402
from loadtest import (  # noqa: E402
    HOST,
    Database,
    Gunicorn,
    PeakMemory,
    free_port,
    is_loopback_url,
    stop_process_group,
    wait_until_answering,
)

REPO_ROOT = Path(__file__).resolve().parents[1]
MOVE_EVERY_S = 10.0
LAG_P95_S, LAG_MAX_S, HOSTILE_LAG_P95_S = 1.0, 2.0, 2.0
LECTURER_P95_MS = 250.0
JOINS_AT_ONCE = 16  # joins in flight at once (gunicorn serves 8)
STREAMS_OPENING_AT_ONCE = 100
REQUEST_TIMEOUT_S = 60.0


def set_cookie_values(head: bytes) -> dict[str, str]:
    cookies = {}
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"set-cookie":
            pair = value.decode("latin-1").strip().split(";", 1)[0]
            key, _, val = pair.partition("=")
            cookies[key] = val
    return cookies


def header_value(head: bytes, wanted: bytes) -> str | None:
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == wanted:
            return value.decode("latin-1").strip()
    return None


def status_of(head: bytes) -> int:
    return int(head.split(b" ", 2)[1])


def request_bytes(method: str, path: str, port: int, cookie: str | None, *, keep_alive: bool,
                  accept: str = "text/html") -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"Host: {HOST}:{port}", f"Accept: {accept}",
             f"Connection: {'keep-alive' if keep_alive else 'close'}"]
    if cookie:
        lines.append(f"Cookie: {cookie}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


async def fetch(port: int, path: str, cookie: str | None = None, accept: str = "text/html") -> tuple[int, bytes, int]:
    """One request on a new connection: (status, the response's head, the body's length); status 0 on failure."""
    writer = None
    try:
        reader, writer = await asyncio.open_connection(HOST, port)
        writer.write(request_bytes("GET", path, port, cookie, keep_alive=False, accept=accept))
        data = await asyncio.wait_for(reader.read(-1), REQUEST_TIMEOUT_S)
        head, _, body = data.partition(b"\r\n\r\n")
        return status_of(head), head, len(body)
    except (OSError, asyncio.TimeoutError, ValueError, IndexError):
        return 0, b"", 0
    finally:
        if writer is not None:
            writer.close()


# --- the followers -------------------------------------------------------------------------------------------------


class Follower:
    """One student's browser: its cookie, and its stream of the class's events."""

    def __init__(self, index: int):
        self.index = index
        self.cookie: str | None = None
        self.arrivals: dict[str, float] = {}  # step -> when its move event came (the first time)
        self.opened = asyncio.Event()
        self.open_status = 0
        self.connections = 0
        self.ended_early = 0
        self.chunked = False
        self.reopen_from: float | None = None  # when a fetcher, having opened the new page, reopens its stream


class Hall:
    """Every follower, the lecturer's moves, and the fetchers' figures."""

    def __init__(self, args, gunicorn_port: int, events_port: int, code: str):
        self.args, self.gunicorn_port, self.events_port, self.code = args, gunicorn_port, events_port, code
        self.followers = [Follower(i) for i in range(args.followers)]
        self.moves: list[tuple[str, float, float]] = []  # (step, click, the lecturer's answer)
        self.page_fetches: list[float] = []
        self.page_statuses: dict[int, int] = {}
        self.reopenings: list[float] = []
        self.stop = asyncio.Event()
        self.tasks: list[asyncio.Task] = []
        self.gunicorn_pid = 0
        self.answered_at: dict[str, float] = {}

    async def join(self, follower: Follower, limit: asyncio.Semaphore, times: list, statuses: dict) -> None:
        async with limit:
            started = time.monotonic()
            status, head, _ = await fetch(self.gunicorn_port, f"/join/{self.code}")
            times.append(time.monotonic() - started)
            statuses[status] = statuses.get(status, 0) + 1
            if status == 303:
                follower.cookie = "; ".join(f"{k}={v}" for k, v in set_cookie_values(head).items())

    async def follow(self, follower: Follower, limit: asyncio.Semaphore | None, fetcher: bool) -> None:
        """Hold the follower's stream until the run ends; a fetcher reopens it after each move, as a page does."""
        first = True
        while not self.stop.is_set():
            if limit is not None and first:
                async with limit:
                    writer, reader = await self._open(follower)
            else:
                writer, reader = await self._open(follower)
            if writer is None:
                follower.opened.set()
                return
            try:
                moved_to = await self._hear(follower, reader, fetcher)
            finally:
                writer.close()
            first = False
            if moved_to is None:
                if not self.stop.is_set():
                    follower.ended_early += 1
                    await asyncio.sleep(3)  # the browser's retry
                continue
            heard = time.monotonic()
            status, _, _ = await fetch(self.gunicorn_port, moved_to, follower.cookie)
            self.page_fetches.append(time.monotonic() - heard)
            self.page_statuses[status] = self.page_statuses.get(status, 0) + 1
            follower.reopen_from = time.monotonic()

    async def _open(self, follower: Follower):
        try:
            reader, writer = await asyncio.open_connection(HOST, self.events_port, limit=2**20)
            writer.write(request_bytes("GET", f"/classes/{self.code}/events", self.events_port, follower.cookie,
                                       keep_alive=True, accept="text/event-stream"))
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), REQUEST_TIMEOUT_S)
        except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            follower.open_status = 0
            return None, None
        follower.open_status = status_of(head)
        follower.connections += 1
        if follower.open_status != 200:
            writer.close()
            return None, None
        follower.chunked = (header_value(head, b"transfer-encoding") or "").lower() == "chunked"
        return writer, reader

    async def _hear(self, follower: Follower, reader: asyncio.StreamReader, fetcher: bool) -> str | None:
        """Read the stream's events; for a fetcher, the address of the first move after the stream's opening."""
        buffer, opening = b"", True
        stopping = asyncio.ensure_future(self.stop.wait())
        try:
            while True:
                reading = asyncio.ensure_future(self._read(follower, reader))
                done, _ = await asyncio.wait({reading, stopping}, return_when=asyncio.FIRST_COMPLETED)
                if reading not in done:
                    reading.cancel()
                    return None
                data = reading.result()
                if not data:
                    return None
                buffer += data.replace(b"\r\n", b"\n")
                while b"\n\n" in buffer:
                    block, buffer = buffer.split(b"\n\n", 1)
                    event, payload = "message", None
                    for line in block.split(b"\n"):
                        if line.startswith(b"event:"):
                            event = line[6:].strip().decode()
                        elif line.startswith(b"data:"):
                            payload = line[5:].strip()
                    if event != "move" or payload is None:
                        continue
                    moment = time.monotonic()
                    address = json.loads(payload).get("address", "")
                    if opening:
                        opening = False
                        follower.opened.set()
                        if follower.reopen_from is not None:
                            self.reopenings.append(moment - follower.reopen_from)
                            follower.reopen_from = None
                        continue
                    step = step_of(address)
                    follower.arrivals.setdefault(step, moment)
                    if fetcher:
                        return address
        finally:
            stopping.cancel()

    async def _read(self, follower: Follower, reader: asyncio.StreamReader) -> bytes:
        try:
            if not follower.chunked:
                return await reader.read(65536)
            size = int((await reader.readline()).strip() or b"0", 16)
            if size == 0:
                return b""
            data = await reader.readexactly(size)
            await reader.readexactly(2)
            return data
        except (OSError, ValueError, asyncio.IncompleteReadError):
            return b""


def step_of(address: str) -> str:
    query = urlsplit(address).query
    for part in query.split("&"):
        if part.startswith("step="):
            return part[5:]
    return ""


# --- the hostile client: a process of its own ---------------------------------------------------------------------


async def hostile_connection(port: int, path: str, cookie: str | None, until: float, counts: dict,
                             start_by: float) -> None:
    """One kept-alive connection polling ``path`` flat out until ``until``; reconnects when the server closes it."""
    await asyncio.sleep(max(0.0, start_by - time.monotonic()))
    request = request_bytes("GET", path, port, cookie, keep_alive=True, accept="application/json")
    writer = None
    while time.monotonic() < until:
        try:
            if writer is None:
                reader, writer = await asyncio.wait_for(asyncio.open_connection(HOST, port), 30)
            writer.write(request)
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
            length = int(header_value(head, b"content-length") or 0)
            await asyncio.wait_for(reader.readexactly(length), 30)
            status = status_of(head)
            counts[status] = counts.get(status, 0) + 1
            if (header_value(head, b"connection") or "").lower() == "close":
                writer.close()
                writer = None
        except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError, ValueError, IndexError) as error:
            kind = "timeout" if isinstance(error, asyncio.TimeoutError) else type(error).__name__
            counts[kind] = counts.get(kind, 0) + 1
            if writer is not None:
                writer.close()
            writer = None
            await asyncio.sleep(0.1)
    if writer is not None:
        writer.close()


async def hostile_main(port: int, code: str, cookie: str, connections: int, seconds: float) -> dict:
    started = time.monotonic()
    until = started + seconds
    path = f"/classes/{code}/follow.json"
    member: dict = {}
    stranger: dict = {}
    tasks = []
    for n in range(connections):
        member_side = n % 2 == 0
        tasks.append(asyncio.ensure_future(hostile_connection(
            port, path, cookie if member_side else None, until, member if member_side else stranger,
            started + 5.0 * n / connections)))  # all open within 5 s
    await asyncio.gather(*tasks)
    elapsed = time.monotonic() - started
    return {kind: {"statuses": {str(k): v for k, v in sorted(counts.items(), key=str)},
                   "requests_per_second": round(sum(v for k, v in counts.items() if isinstance(k, int)) / elapsed, 1)}
            for kind, counts in (("member, one cookie", member), ("non-members, no cookie", stranger))}


def run_hostile(argv: list[str]) -> int:
    port, code, cookie, connections, seconds = argv
    raise_file_limit()
    figures = asyncio.run(hostile_main(int(port), code, cookie, int(connections), float(seconds)))
    print(json.dumps(figures))
    return 0


# --- the run -------------------------------------------------------------------------------------------------------


def raise_file_limit() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard if hard != resource.RLIM_INFINITY else 65536,) * 2)
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def rss_mb(pid: int, field: str = "VmRSS") -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        pass
    return None


def cpu_seconds(pid: int) -> float:
    import psutil

    try:
        process = psutil.Process(pid)
        total = 0.0
        for each in [process, *process.children(recursive=True)]:
            times = each.cpu_times()
            total += times.user + times.system
        return total
    except psutil.Error:
        return 0.0


class Lecturer:
    """The lecturer's browser: its cookies and a kept-alive connection to gunicorn."""

    def __init__(self, port: int):
        self.port = port
        self.cookies: dict[str, str] = {}
        self.connection = http.client.HTTPConnection(HOST, port, timeout=REQUEST_TIMEOUT_S)
        self.times: list[float] = []

    def get(self, path: str) -> tuple[int, float]:
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())} if self.cookies else {}
        started = time.monotonic()
        for attempt in (1, 2):
            try:
                self.connection.request("GET", path, headers=headers)
                response = self.connection.getresponse()
                response.read()
                break
            except (http.client.HTTPException, OSError):
                self.connection.close()
                self.connection = http.client.HTTPConnection(HOST, self.port, timeout=REQUEST_TIMEOUT_S)
                if attempt == 2:
                    return 0, started
        for header in response.headers.get_all("Set-Cookie") or []:
            name, _, value = header.split(";", 1)[0].partition("=")
            self.cookies[name] = value
        return response.status, started


def warm_up(port: int, slide: str) -> None:
    """Every worker counts the corpus and draws the first slide before the students arrive (untimed): new
    connections from 8 threads at once, since one kept-alive connection stays with one worker."""
    def visit():
        for _ in range(2):
            connection = http.client.HTTPConnection(HOST, port, timeout=REQUEST_TIMEOUT_S)
            connection.request("GET", slide)
            connection.getresponse().read()
            connection.close()

    threads = [threading.Thread(target=visit) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


class EventsServer:
    """``webnb events`` in a process group of its own."""

    def __init__(self, port: int, env: dict, folder: Path):
        self.port = port
        self.log = open(folder / "events.log", "wb")
        self.process = subprocess.Popen(
            [sys.executable, "-c", "import sys; from webnb.cli import main; sys.exit(main())", "events",
             "--host", HOST, "--port", str(port)],
            cwd=folder, env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)

    def wait_until_ready(self, timeout: float = 60.0) -> None:
        wait_until_answering(self.process, "webnb events", self.answers, timeout)

    def answers(self) -> bool:
        """Any answer to a GET of / will do: the server is listening."""
        connection = http.client.HTTPConnection(HOST, self.port, timeout=5)
        connection.request("GET", "/")
        connection.getresponse().read()
        connection.close()
        return True

    def stop(self) -> None:
        stop_process_group(self.process)
        self.log.close()


async def lecture(hall: Hall, lecturer: Lecturer, events: EventsServer, hostile_argv: list[str] | None,
                  env: dict) -> dict:
    args = hall.args
    figures: dict = {}
    limit = asyncio.Semaphore(JOINS_AT_ONCE)
    join_times: list[float] = []
    join_statuses: dict[int, int] = {}
    started = time.monotonic()
    await asyncio.gather(*(hall.join(f, limit, join_times, join_statuses) for f in hall.followers))
    figures["joins"] = {"seconds": round(time.monotonic() - started, 1), "statuses": join_statuses,
                        "request ms": summary(join_times)}
    print(f"joined: {figures['joins']}", flush=True)

    rss_before = rss_mb(events.process.pid)
    cpu_before_streams = cpu_seconds(events.process.pid)
    opening = asyncio.Semaphore(STREAMS_OPENING_AT_ONCE)
    fetchers = set(range(0, args.followers, max(1, args.followers // max(1, args.fetchers)))[:args.fetchers])
    started = time.monotonic()
    hall.tasks = [asyncio.ensure_future(hall.follow(f, opening, f.index in fetchers)) for f in hall.followers]
    await asyncio.wait_for(asyncio.gather(*(f.opened.wait() for f in hall.followers)), 300)
    opened_in = time.monotonic() - started
    await asyncio.sleep(2)
    rss_after = rss_mb(events.process.pid)
    open_statuses: dict[int, int] = {}
    for follower in hall.followers:
        open_statuses[follower.open_status] = open_statuses.get(follower.open_status, 0) + 1
    streams = open_statuses.get(200, 0)
    figures["streams"] = {
        "open": streams, "statuses": open_statuses, "seconds to open all": round(opened_in, 1),
        "events server cpu s to open them": round(cpu_seconds(events.process.pid) - cpu_before_streams, 1),
        "events server rss mb before": rss_before and round(rss_before, 1),
        "events server rss mb with the streams": rss_after and round(rss_after, 1),
        "kb per stream": round((rss_after - rss_before) * 1024 / streams, 1) if streams and rss_after else None}
    print(f"streams: {figures['streams']}", flush=True)

    hostile = None
    if hostile_argv is not None:
        hostile = await asyncio.create_subprocess_exec(
            sys.executable, str(Path(__file__).resolve()), "--hostile-worker", *hostile_argv,
            stdout=asyncio.subprocess.PIPE, env=env)
        await asyncio.sleep(10)  # every hostile connection open and polling

    client_cpu_before = resource.getrusage(resource.RUSAGE_SELF)
    server_cpu_before = cpu_seconds(hall.gunicorn_pid), cpu_seconds(events.process.pid)
    for step in STEPS[1:args.moves + 1]:
        address = f"/corpora/{CORPUS_ID}/inference?" + urlencode({"text": REVIEW, "presenter": "1", "step": step})
        status, click = await asyncio.to_thread(lecturer.get, address)
        answered = time.monotonic()
        lecturer.times.append(answered - click)
        hall.answered_at[step] = answered
        hall.moves.append((step, click, answered))
        print(f"move to {step}: lecturer {status} in {1000 * (answered - click):.0f} ms", flush=True)
        await asyncio.sleep(max(0.0, click + MOVE_EVERY_S - time.monotonic()))
    client_cpu_after = resource.getrusage(resource.RUSAGE_SELF)
    figures["cpu s during the moves"] = {
        "gunicorn": round(cpu_seconds(hall.gunicorn_pid) - server_cpu_before[0], 1),
        "webnb events": round(cpu_seconds(events.process.pid) - server_cpu_before[1], 1),
        "this script (the followers)": round(client_cpu_after.ru_utime + client_cpu_after.ru_stime
                                             - client_cpu_before.ru_utime - client_cpu_before.ru_stime, 1),
        "seconds": round(MOVE_EVERY_S * len(hall.moves), 1)}
    figures["events server rss mb at the end"] = round(rss_mb(events.process.pid) or 0, 1)
    figures["events server peak rss mb"] = round(rss_mb(events.process.pid, "VmHWM") or 0, 1)
    hall.stop.set()
    await asyncio.wait(hall.tasks, timeout=30)
    if hostile is not None:
        out, _ = await hostile.communicate()
        figures["hostile"] = json.loads(out.decode() or "{}")
    figures["streams ended early (reconnected)"] = sum(f.ended_early for f in hall.followers)
    return figures


def run(args, folder: Path) -> dict:
    import redis

    redis.Redis.from_url(args.redis).flushdb()
    database = Database(args.database_url, folder)
    server = events = None
    memory = PeakMemory()
    try:
        env = dict(os.environ, WEBNB_MODE="hosted", WEBNB_DATABASE_URL=database.url,
                   WEBNB_SECRET_KEY="follow-load-" + "k" * 40, WEBNB_RATE_LIMIT_STORAGE=args.redis,
                   PYTHONPATH=os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")])))
        cli = [sys.executable, "-c", "import sys; from webnb.cli import main; sys.exit(main())"]
        subprocess.run([*cli, "corpora", "add", str(args.corpus), "--id", CORPUS_ID, "--name", "20 Newsgroups"],
                       cwd=folder, env=env, check=True, capture_output=True, timeout=900)
        server = Gunicorn(port=free_port(), workers=2, threads=4, preload=True, database_url=database.url,
                          folder=folder, secret=env["WEBNB_SECRET_KEY"],
                          settings={"WEBNB_RATE_LIMIT_STORAGE": args.redis})
        events = EventsServer(free_port(), env, folder)
        server.wait_until_ready(120)
        events.wait_until_ready(60)
        memory.watch(server)
        started = json.loads(subprocess.run(
            [*cli, "class", "start", "--corpus", CORPUS_ID, "--json", "--base-url", server.base],
            cwd=folder, env=env, check=True, capture_output=True, text=True, timeout=120).stdout)
        code = started["code"]
        lecturer = Lecturer(server.port)
        lecturer.get(urlsplit(started["lecturer_url"]).path)
        slide = f"/corpora/{CORPUS_ID}/inference?" + urlencode({"text": REVIEW, "presenter": "1", "step": STEPS[0]})
        warm_up(server.port, slide)
        hostile_argv = None
        if args.hostile:
            member = Lecturer(server.port)  # the hostile student joins first, as any member
            member.get(f"/join/{code}")
            cookie = "; ".join(f"{k}={v}" for k, v in member.cookies.items())
            seconds = 10 + MOVE_EVERY_S * args.moves + 5
            target = events.port if args.hostile_at == "events" else server.port
            hostile_argv = [str(target), code, cookie, str(args.hostile_connections), str(seconds)]
        hall = Hall(args, server.port, events.port, code)
        hall.gunicorn_pid = server.process.pid
        figures = asyncio.run(lecture(hall, lecturer, events, hostile_argv, env))

        lags_by_move = {}
        all_lags, after_answer, missed = [], [], 0
        for step, click, _ in hall.moves:
            lags = [f.arrivals[step] - click for f in hall.followers if step in f.arrivals]
            missed += len(hall.followers) - len(lags)
            lags_by_move[step] = {**summary(lags), "missed": len(hall.followers) - len(lags)} \
                if lags else {"n": 0, "missed": len(hall.followers)}
            all_lags.extend(lags)
            after_answer.extend(f.arrivals[step] - hall.answered_at[step] for f in hall.followers
                                if step in f.arrivals)
        return {
            "scenario": f"B (hostile, polling {args.hostile_at})" if args.hostile else "A",
            "database": database.kind,
            "followers": args.followers, "moves": len(hall.moves), **figures,
            "move lag ms": summary(all_lags) if all_lags else None,
            "move lag after the lecturer's page was answered ms (negative: before)":
                summary(after_answer) if after_answer else None, "moves missed": missed,
            "move lag by step ms": lags_by_move,
            "lecturer's requests ms": summary(lecturer.times),
            "page fetches by the fetchers": {
                "fetchers": args.fetchers, "statuses": hall.page_statuses,
                "page ms from the event": summary(hall.page_fetches) if hall.page_fetches else None,
                "stream reopened ms": summary(hall.reopenings) if hall.reopenings else None},
            "gunicorn workers' peak memory": memory.stop(),
        }
    finally:
        memory.stop()
        if events is not None:
            events.stop()
        if server is not None:
            server.stop()
        database.close()


def checks(figures: dict, hostile: bool) -> list[tuple[str, bool | None, str]]:
    """(target, passed or None for a figure only, value)."""
    lag = {k: v / 1000 for k, v in (figures["move lag ms"] or {"p95": float("inf"), "max": float("inf")}).items()}
    lecturer = figures["lecturer's requests ms"]
    results = [
        ("every follower joined and opened a stream", figures["streams"]["open"] == figures["followers"],
         f"{figures['streams']['open']} of {figures['followers']}"),
        ("every move reached every follower", figures["moves missed"] == 0, f"{figures['moves missed']} missed"),
    ]
    if hostile:
        results += [(f"move lag p95 ≤ {HOSTILE_LAG_P95_S:g} s", lag["p95"] <= HOSTILE_LAG_P95_S,
                     f"p95 {lag['p95']:.3f} s, max {lag['max']:.3f} s"),
                    (f"lecturer's request p95 ≤ {LECTURER_P95_MS:g} ms (scenario A's target)", None,
                     f"p95 {lecturer['p95']} ms, max {lecturer['max']} ms")]
    else:
        results += [(f"move lag p95 ≤ {LAG_P95_S:g} s", lag["p95"] <= LAG_P95_S, f"{lag['p95']:.3f} s"),
                    (f"move lag max ≤ {LAG_MAX_S:g} s", lag["max"] <= LAG_MAX_S, f"{lag['max']:.3f} s"),
                    (f"lecturer's request p95 ≤ {LECTURER_P95_MS:g} ms", lecturer["p95"] <= LECTURER_P95_MS,
                     f"p95 {lecturer['p95']} ms, max {lecturer['max']} ms")]
    return results


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--hostile-worker"]:
        return run_hostile(argv[1:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--followers", type=int, default=2000)
    parser.add_argument("--moves", type=int, default=6,
                        help=f"the lecturer's moves, 10 s apart (1 to {len(STEPS) - 1})")
    parser.add_argument("--fetchers", type=int, default=100, help="followers that open each new page, as a page does")
    parser.add_argument("--hostile", action="store_true", help="scenario B: a hostile client polls flat out")
    parser.add_argument("--hostile-connections", type=int, default=2000)
    parser.add_argument("--hostile-at", choices=("events", "gunicorn"), default="events",
                        help="where the hostile polls go: webnb events, where the proxy of 'Hosting a lecture hall' "
                             "sends follow.json (default), or gunicorn, which answers it too when reached directly")
    parser.add_argument("--database-url", default="postgresql+psycopg://postgres@127.0.0.1/test",
                        help="PostgreSQL on this machine (a fresh schema, dropped at the end)")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/10", help="emptied first")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    if not 1 <= args.moves <= len(STEPS) - 1:
        parser.error(f"--moves: 1 to {len(STEPS) - 1}")
    if not 0 <= args.fetchers <= args.followers:
        parser.error("--fetchers: 0 to --followers")
    if not is_loopback_url(args.database_url) or urlsplit(args.redis).hostname not in ("127.0.0.1", "localhost"):
        parser.error("--database-url and --redis must name this machine")
    if not args.corpus.is_file():
        parser.error(f"{args.corpus} is missing (the shared corpora)")
    files = raise_file_limit()
    if files < args.followers + 200:
        parser.error(f"this process may open {files} files: too few for {args.followers} streams")
    with tempfile.TemporaryDirectory(prefix="webnb-follow-load-") as folder:
        figures = run(args, Path(folder))
    results = checks(figures, args.hostile)
    report(figures, results, args.json)
    return 0 if all(ok is not False for _, ok, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
