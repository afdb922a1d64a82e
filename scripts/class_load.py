"""A class in the room under load: 300 students join a class on 20 Newsgroups, follow the lecturer's slides, and
answer a prediction, a challenge and a tuning on a split no one has counted, while the projector polls the tally.

    python scripts/class_load.py [--students 300] [--database-url URL] [--json PATH]

1. A fresh database (a SQLite file, or with ``--database-url`` a fresh schema in a PostgreSQL database on this
   machine, dropped at the end) gets 20 Newsgroups' training set (11,314 documents, 20 classes) as the class
   corpus ``newsgroups-20`` (``webnb corpora add``), and a class on it (``webnb class start --json``).
2. Servers in hosted mode: gunicorn 2 workers × 4 threads on SQLite; on PostgreSQL two gunicorn instances of
   1 worker × 4 threads each, sharing the database and the secret key, every student's requests alternating
   between them (two machines behind a balancer). With ``--redis URL`` the rate limits count in Redis.
3. The lecturer opens the lecturer's link and the first slide (Bayes' rule in presenter mode on a review).
4. The students join within ``--join-seconds`` (60), one after the other, by the QR code's address, and land on the
   lecturer's slide. Each then polls ``follow.json`` once a second (from its own moment in the second) and opens
   the new address when the version changed, as webnb.js does.
5. The lecturer moves to the next step every 10 s, ``--steps`` times. For each move: the time until each student
   has opened the new page (the follow lag; the target is 2 s).
6. The lecturer asks a prediction; each student answers within 10 s (one answer, at a random moment). Then a
   challenge ("a review the model classifies as comp.graphics"); each student sends 1 to 3 attempts within 60 s,
   the last one standing. Meanwhile the projector polls the tally once a second; for each answer, the time until
   the tally counted it (the tally lag; the target is 2 s behind at most).
7. Then a tuning ("find the α with the best held-out accuracy") asked from the slide with a new split ``seed=``
   that no server has counted: each student sends 1 or 2 values of α within 10 s, the last one standing. Each is
   stored at once with its score pending, and one background job per server counts the split for the whole class
   (webnb/views/questions.py). While its answer is pending, a student's page asks for it once a second
   (``own-answer``, as htmx does) until it shows the score. Measured: the time from the question until the
   lecturer's JSON twin has no answer ``pending``, and per student until their own page showed the score.
8. The JSON twin's counts must equal the students' own last answers: 0 lost, 0 counted twice; for the tuning, the
   twin's ``points`` must be every student's last α, each scored, and each student's own answer (the question's
   JSON twin, as the student sees it) their last α with an accuracy.

Prints p50/p95/p99 of every kind of request, the lags, the counts and every worker's peak memory (VmHWM), with
PASS/FAIL per target (submit and follow p95 ≤ 250 ms, lags ≤ 2 s, no error, no answer lost, every tuning scored
within ``--score-seconds``); ``--json PATH``
writes the figures. Exits 1 if a target is missed.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlencode, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from loadtest import HOST, Database, Gunicorn, PeakMemory, free_port, is_loopback_url  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parents[1]
CORPUS = REPO_ROOT.parent / "shared" / "corpora" / "20newsgroups-bydate" / "train.jsonl.gz"
CORPUS_ID = "newsgroups-20"
REVIEW = "the graphics card and the gpu driver crash"
# The steps of Bayes' rule (webnb/lesson/pages.py): the lecturer goes from the first to the next ones.
STEPS = ("tokens", "vector", "factors", "product", "decision", "zeros", "smoothing", "underflow", "logspace")
TARGET = "comp.graphics"
CHALLENGE_WORDS = ("graphics", "image", "jpeg", "card", "driver", "space", "orbit", "god", "car", "engine",
                   "hockey", "game", "file", "format", "color", "screen", "polygon", "render", "the", "a")
TARGETS_MS = {"submit": 250.0, "submit (tune)": 250.0, "follow poll": 250.0, "follow page": 250.0}
ALPHAS = ("0", "0.001", "0.01", "0.05", "0.1", "0.2", "0.5", "1", "2", "5")
LAG_TARGET_S = 2.0
MAX_STUDENTS = 400
CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


class Timings:
    """Every request's duration by kind, and the errors, from every thread."""

    def __init__(self):
        self.lock = threading.Lock()
        self.times: dict[str, list[float]] = {}
        self.errors: list[str] = []

    def add(self, kind: str, seconds: float) -> None:
        with self.lock:
            self.times.setdefault(kind, []).append(seconds)

    def error(self, text: str) -> None:
        with self.lock:
            self.errors.append(text)

    def figures(self) -> dict:
        return {kind: summary(values) for kind, values in sorted(self.times.items())}


def summary(values: list[float], scale: float = 1000.0) -> dict:
    ordered = sorted(values)

    def at(fraction: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] * scale, 1)

    return {"n": len(ordered), "p50": at(0.50), "p95": at(0.95), "p99": at(0.99), "max": round(ordered[-1] * scale, 1)}


class Client:
    """One browser: its cookies and a kept-alive connection per server, requests alternating between servers."""

    def __init__(self, ports: list[int], timings: Timings, name: str):
        self.ports, self.timings, self.name = ports, timings, name
        self.cookies: dict[str, str] = {}
        self.connections: dict[int, http.client.HTTPConnection] = {}
        self.turn = 0
        # A student's answers go out from a thread of their own while the page goes on polling: one request at a
        # time on the connections (the time waited for the other is not counted).
        self.lock = threading.Lock()

    def request(self, kind: str, method: str, path: str, body: bytes | None = None, headers: dict | None = None):
        with self.lock:
            return self._request(kind, method, path, body, headers)

    def _request(self, kind: str, method: str, path: str, body: bytes | None, headers: dict | None):
        port = self.ports[self.turn % len(self.ports)]
        self.turn += 1
        headers = dict(headers or {})
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        for attempt in (1, 2):
            connection = self.connections.get(port) or http.client.HTTPConnection(HOST, port, timeout=60)
            self.connections[port] = connection
            started = time.monotonic()
            try:
                connection.request(method, path, body=body, headers=headers)
                response = connection.getresponse()
                data = response.read()
            except (http.client.HTTPException, OSError) as error:
                connection.close()
                self.connections.pop(port, None)
                if attempt == 2:
                    self.timings.error(f"{self.name} {kind} {path}: {error!r}")
                    return None, b""
                continue
            self.timings.add(kind, time.monotonic() - started)
            for header in response.headers.get_all("Set-Cookie") or []:
                name, _, value = header.split(";", 1)[0].partition("=")
                self.cookies[name] = value
            if response.status >= 400:
                self.timings.error(f"{self.name} {kind} {path}: HTTP {response.status} {data[:200]!r}")
            return response, data
        return None, b""

    def get(self, kind: str, path: str, **headers):
        return self.request(kind, "GET", path, headers=headers)

    def post(self, kind: str, path: str, form: dict, **headers):
        return self.request(kind, "POST", path, urlencode(form).encode(),
                            {"Content-Type": "application/x-www-form-urlencoded", **headers})


def csrf_of(data: bytes) -> str:
    found = CSRF.search(data.decode("utf-8", "replace"))
    if not found:
        raise RuntimeError("no CSRF token on the page")
    return found.group(1)


class Class:
    """What every student thread reads: the class's code, the clock of the lecturer's moves and the answers."""

    def __init__(self, code: str):
        self.code = code
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.moves: list[tuple[str, float]] = []  # (address, when the lecturer's move to it was stored)
        self.arrivals: list[tuple[str, float]] = []  # (address, when a following student had opened it)
        self.joined = 0
        self.answers: dict[int, dict[str, tuple[float, str, bool | None]]] = {}  # question -> student -> last
        self.questions: dict[str, int] = {}  # question page address -> number
        self.kinds: dict[int, str] = {}
        self.options: dict[int, list[str]] = {}
        self.clients: dict[str, Client] = {}  # student -> their browser, for looking at their own answers after
        self.scored_seen: dict[int, dict[str, float]] = {}  # tuning -> student -> when their page showed the score
        self.closed: set[int] = set()  # questions whose answering is over (the students stop asking)
        self.in_flight = 0  # answers sent and not answered yet

    def moved(self, address: str) -> None:
        with self.lock:
            self.moves.append((address, time.monotonic()))

    def arrived(self, address: str, moment: float) -> None:
        with self.lock:
            self.arrivals.append((address, moment))

    def lags(self) -> list[tuple[str, float]]:
        """For each page a student opened because the lecturer moved: (the page, the time since that move)."""
        lags = []
        for address, moment in self.arrivals:
            before = [at for moved, at in self.moves if moved == address and at <= moment]
            if before:
                lags.append((address, moment - max(before)))
        return lags

    def answered(self, number: int, student: str, moment: float, answer: str, success) -> None:
        with self.lock:
            self.answers.setdefault(number, {})[student] = (moment, answer, success)


def student(index: int, room: Class, ports: list[int], timings: Timings, join_at: float, rng: random.Random):
    client = Client(ports, timings, f"student {index}")
    room.clients[f"student {index}"] = client
    time.sleep(max(0.0, join_at - time.monotonic()))
    response, _ = client.get("join", f"/join/{room.code}")
    if response is None or response.status != 303:
        timings.error(f"student {index}: join answered {response and response.status}")
        return
    address = urlsplit(response.headers["Location"]).path + (
        "?" + urlsplit(response.headers["Location"]).query if urlsplit(response.headers["Location"]).query else "")
    version = None
    response, page = client.get("join page", address)
    if response is not None and response.status == 200:
        with room.lock:
            room.joined += 1
    polled = client.get("follow poll", f"/classes/{room.code}/follow.json", Accept="application/json")
    if polled[0] is not None and polled[0].status == 200:
        version = json.loads(polled[1])["version"]
    answered: set[int] = set()
    next_poll = time.monotonic() + rng.random()
    while not room.stop.is_set():
        time.sleep(max(0.0, next_poll - time.monotonic()))
        response, data = client.get("follow poll", f"/classes/{room.code}/follow.json", Accept="application/json")
        # As webnb.js: the next poll a second after this one's answer, or after Retry-After past the budget.
        next_poll = time.monotonic() + 1.0
        if response is not None and response.status == 429:
            next_poll = time.monotonic() + float(response.headers.get("Retry-After") or 5)
        if response is None or response.status != 200:
            continue
        state = json.loads(data)
        if state["version"] != version:
            version = state["version"]
            if state["address"] != address:
                address = state["address"]
                page = open_page(client, room, address, "follow page")
        number = room.questions.get(address.split("?")[0])
        if number is not None and number not in answered and page:
            answered.add(number)
            threading.Thread(target=answer, args=(client, room, number, page, index, rng), daemon=True).start()


def open_page(client: Client, room: Class, address: str, kind: str) -> bytes:
    response, data = client.get(kind, address)
    if response is not None and response.status == 200:
        room.arrived(address, time.monotonic())
        return data
    return b""


def answer(client: Client, room: Class, number: int, page: bytes, index: int, rng: random.Random) -> None:
    """A student's answers to a question: a prediction within 10 s; 1 to 3 attempts at a challenge within 60 s."""
    token = csrf_of(page)
    if room.kinds[number] == "predict":
        attempts = [(rng.uniform(0.5, 9.0), rng.choice(room.options[number]))]
    elif room.kinds[number] == "tune":
        attempts = [(t, rng.choice(ALPHAS)) for t in sorted(rng.uniform(0.5, 9.0) for _ in range(rng.randint(1, 2)))]
    else:
        times = sorted(rng.uniform(1.0, 55.0) for _ in range(rng.randint(1, 3)))
        attempts = [(t, " ".join(rng.choice(CHALLENGE_WORDS) for _ in range(rng.randint(2, 6)))) for t in times]
    asked = time.monotonic()
    kind = "submit (tune)" if room.kinds[number] == "tune" else "submit"
    for delay, text in attempts:
        time.sleep(max(0.0, asked + delay - time.monotonic()))
        with room.lock:
            room.in_flight += 1
        try:
            response, data = client.post(kind, f"/classes/{room.code}/questions/{number}/answers",
                                         {"csrf_token": token, "answer": text}, Accept="application/json")
            if response is not None and response.status == 200:
                room.answered(number, f"student {index}", time.monotonic(), text, json.loads(data)["success"])
        finally:
            with room.lock:
                room.in_flight -= 1
    if room.kinds[number] == "tune":
        own_score(client, room, number, index)


def own_score(client: Client, room: Class, number: int, index: int) -> None:
    """A tuning's page while its answer is scored: it asks for the answer once a second until the score shows."""
    path = f"/classes/{room.code}/questions/{number}/own-answer"
    while not room.stop.is_set() and number not in room.closed:
        started = time.monotonic()
        response, data = client.get("own answer", path, **{"HX-Request": "true"})
        if response is not None and response.status == 200 and b"answer-scoring" not in data:
            room.scored_seen.setdefault(number, {})[f"student {index}"] = time.monotonic()
            return
        time.sleep(max(0.0, started + 1.0 - time.monotonic()))


def projector(lecturer: Client, room: Class, number: int, until: threading.Event, seen: list) -> None:
    """The projector's tally, polled once a second as htmx does: (when it was drawn, the count it showed)."""
    path = f"/classes/{room.code}/questions/{number}/tally"
    while not until.is_set():
        started = time.monotonic()
        response, data = lecturer.get("tally", path, **{"HX-Request": "true"})
        if response is not None and response.status == 200:
            found = re.search(rb'id="answer-count">(\d+)<', data)
            if found:
                seen.append((time.monotonic(), int(found.group(1))))
        until.wait(max(0.0, started + 1.0 - time.monotonic()))


def tally_lags(answers: dict, seen: list) -> list[float]:
    """For each answer (a student's first, in the order they arrived), the time until a tally counted it."""
    firsts = sorted(moment for moment, _, _ in answers.values())
    lags = []
    for k, moment in enumerate(firsts, 1):
        shown = next((at for at, count in seen if at >= moment and count >= k), None)
        lags.append((shown - moment) if shown is not None else float("inf"))
    return lags


def tuning_scored(lecturer: Client, room: Class, number: int, twin_path: str, twin: dict, asked: float,
                  patience: float) -> tuple[dict, dict]:
    """Wait (the projector's JSON twin once a second) until no tuning answer is pending, for at most ``patience`` s
    after the question was asked: (figures, the last twin)."""
    first_pending = twin["question"].get("pending")
    while twin["question"].get("pending") and time.monotonic() < asked + patience:
        time.sleep(1.0)
        twin = json.loads(lecturer.get("lecturer", twin_path)[1])
    done = time.monotonic()
    time.sleep(3)  # the students' pages ask once a second: the last ones see their score
    seen = room.scored_seen.get(number, {})
    answers = room.answers.get(number, {})
    waits = [seen[s] - answers[s][0] for s in answers if s in seen]
    return {"pending after the answers": first_pending, "pending at the end": twin["question"].get("pending"),
            "seconds from the question until every answer was scored": round(done - asked, 1),
            "students whose page showed their score": len(seen),
            "own page showed the score s after the last answer": summary(waits, scale=1.0) if waits else None}, twin


def tuning_counts(room: Class, number: int, twin: dict, answers: dict) -> tuple[dict, dict]:
    """(what the twin counted, what the students sent) for a tuning: the α of every scored point, and every
    student's own answer as their question's JSON twin shows it, against their last α sent."""
    points = sorted(float(p["alpha"]) for p in twin["question"].get("points", []) if p["accuracy"] is not None)
    sent = sorted(float(text) for _, text, _ in answers.values())
    own_ok = 0
    for student, (_, text, _) in answers.items():
        client = room.clients.get(student)
        if client is None:
            continue
        response, data = client.get("own answer (check)", f"/classes/{room.code}/questions/{number}?format=json",
                                    Accept="application/json")
        if response is not None and response.status == 200:
            own = json.loads(data).get("own_answer") or {}
            if own.get("answer") is not None and float(own["answer"]) == float(text) \
                    and own.get("accuracy") is not None and not own.get("pending"):
                own_ok += 1
    return ({"scored points": points, "own answers scored": own_ok},
            {"scored points": sent, "own answers scored": len(answers)})


def run(args, folder: Path) -> dict:
    database = Database(args.database_url, folder)
    timings = Timings()
    servers: list[Gunicorn] = []
    memory = PeakMemory()
    try:
        env = dict(os.environ, WEBNB_MODE="hosted", WEBNB_DATABASE_URL=database.url,
                   WEBNB_SECRET_KEY="class-load-" + "k" * 40,
                   PYTHONPATH=os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")])))
        cli = [sys.executable, "-c", "import sys; from webnb.cli import main; sys.exit(main())"]
        settings = {"WEBNB_RATE_LIMIT_STORAGE": args.redis} if args.redis else {}
        subprocess.run([*cli, "corpora", "add", str(args.corpus), "--id", CORPUS_ID, "--name", "20 Newsgroups"],
                       cwd=folder, env={**env, **settings}, check=True, capture_output=True, timeout=900)
        instances = 2 if database.kind == "postgresql" else 1
        for n in range(instances):
            server = Gunicorn(port=free_port(), workers=args.workers // instances, threads=args.threads, preload=True,
                              database_url=database.url, folder=folder, secret=env["WEBNB_SECRET_KEY"],
                              log_name=f"gunicorn-{n}.log", settings=settings)
            servers.append(server)
        for server in servers:
            server.wait_until_ready(120)
            memory.watch(server)
        ports = [server.port for server in servers]
        started = json.loads(subprocess.run(
            [*cli, "class", "start", "--corpus", CORPUS_ID, "--json", "--base-url", servers[0].base],
            cwd=folder, env={**env, **settings}, check=True, capture_output=True, text=True, timeout=120).stdout)
        room = Class(started["code"])
        lecturer = Client(ports, timings, "lecturer")
        lecturer.get("lecturer", urlsplit(started["lecturer_url"]).path)
        slide = f"/corpora/{CORPUS_ID}/inference?" + urlencode({"text": REVIEW, "presenter": "1", "step": STEPS[0]})
        for _ in range(2 * len(ports)):  # every server counts the corpus once before the students arrive (untimed)
            lecturer.get("lecturer", slide)
        cpu_before = sum(server.cpu_seconds() for server in servers)
        client_before = resource.getrusage(resource.RUSAGE_SELF)
        rng = random.Random(args.seed)
        begin = time.monotonic() + 1.0
        threads = [threading.Thread(target=student, daemon=True, args=(
            i, room, ports, timings, begin + args.join_seconds * i / args.students, random.Random(rng.random())))
            for i in range(args.students)]
        for thread in threads:
            thread.start()
        time.sleep(max(0.0, begin + args.join_seconds + 3 - time.monotonic()))
        joined = room.joined
        print(f"{joined} of {args.students} students joined and opened the slide", flush=True)

        for step in STEPS[1:args.steps + 1]:
            address = f"/corpora/{CORPUS_ID}/inference?" + urlencode({"text": REVIEW, "presenter": "1", "step": step})
            lecturer.get("lecturer", address)
            room.moved(address)
            time.sleep(10)
        slide = address

        figures_questions = {}
        # The tuning's slide: a split seed that no server has counted (the lecturer's slides never split).
        tuned = slide + "&" + urlencode({"seed": str(rng.randrange(10**6, 10**7))})
        for kind, extra, seconds in (("predict", {}, 12), ("challenge", {"challenge": f"class:{TARGET}"}, 62),
                                     ("tune", {}, 12)):
            _, page = lecturer.get("lecturer", slide)
            room.moved(slide)
            asked = time.monotonic()
            response, _ = lecturer.post("lecturer", f"/classes/{room.code}/questions", {
                "csrf_token": csrf_of(page), "kind": kind, "address": tuned if kind == "tune" else slide, **extra})
            number = int(response.headers["Location"].rsplit("/", 1)[1])
            room.moved(f"/classes/{room.code}/questions/{number}")
            room.kinds[number] = kind
            twin_path = f"/classes/{room.code}/questions/{number}?format=json"
            twin_before = json.loads(lecturer.get("lecturer", twin_path)[1])
            room.options[number] = list(twin_before["question"]["counts"]) if kind == "predict" else []
            room.questions[f"/classes/{room.code}/questions/{number}"] = number
            done, seen = threading.Event(), []
            watcher = threading.Thread(target=projector, args=(lecturer, room, number, done, seen), daemon=True)
            watcher.start()
            time.sleep(seconds)
            waited_from = time.monotonic()
            while room.in_flight and time.monotonic() < waited_from + 60:  # answers sent and not answered yet
                time.sleep(0.2)
            time.sleep(3)  # the last answers reach the tally
            done.set()
            watcher.join()
            twin = json.loads(lecturer.get("lecturer", twin_path)[1])
            answers = room.answers.get(number, {})
            scoring = None
            if kind == "tune":
                scoring, twin = tuning_scored(lecturer, room, number, twin_path, twin, asked, args.score_seconds)
                room.closed.add(number)
                counted, expected = tuning_counts(room, number, twin, answers)
            else:
                expected: dict[str, int] = {}
                for _, text, success in answers.values():
                    key = text if kind == "predict" else ("succeeded" if success else "failed")
                    expected[key] = expected.get(key, 0) + 1
                counted = {k: v for k, v in twin["question"]["counts"].items() if v}
            lags = tally_lags(answers, seen)
            figures_questions[kind] = {
                "answers sent by students": len(answers), "answers counted": twin["question"]["answers"],
                "counts agree": counted == expected, "lost": len(answers) - twin["question"]["answers"],
                "tally lag s": summary(lags, scale=1.0) if lags else None, **(scoring or {})}
            lecturer.post("lecturer", f"/classes/{room.code}/questions/{number}/reveal",
                          {"csrf_token": csrf_of(page)})
            room.moved(f"/classes/{room.code}/questions/{number}?revealed=1")
            time.sleep(5)  # the students see the reveal
        room.stop.set()
        cpu = sum(server.cpu_seconds() for server in servers) - cpu_before
        client_after = resource.getrusage(resource.RUSAGE_SELF)
        client_cpu = (client_after.ru_utime + client_after.ru_stime) - (client_before.ru_utime + client_before.ru_stime)
        lags_by_page: dict[str, list[float]] = {}
        for address, lag in room.lags():
            page = re.sub(r"^/classes/\w+/", "/classes/CODE/", address.split("&")[0] if "step=" not in address
                          else address.split("?")[0] + "?step=" + address.split("step=")[1].split("&")[0])
            lags_by_page.setdefault(page, []).append(lag)
        all_lags = [lag for lags in lags_by_page.values() for lag in lags]
        return {
            "database": database.kind, "servers": len(servers), "workers": args.workers, "threads": args.threads,
            "students": args.students, "joined": joined, "requests": timings.figures(),
            "follow lag s": summary(all_lags, scale=1.0) if all_lags else None,
            "lecturer's moves": len(room.moves), "pages opened by following": len(all_lags),
            "follow lag by page s": {page: summary(lags, scale=1.0) for page, lags in lags_by_page.items()},
            "questions": figures_questions, "errors": len(timings.errors), "first errors": timings.errors[:10],
            "server cpu s": round(cpu, 1), "students' cpu s (this script, on the same cores)": round(client_cpu, 1),
            "memory": memory.stop(),
        }
    finally:
        memory.stop()
        for server in servers:
            server.stop()
        database.close()


def checks(figures: dict) -> list[tuple[str, bool, str]]:
    results = []
    for kind, limit in TARGETS_MS.items():
        p95 = figures["requests"].get(kind, {}).get("p95")
        results.append((f"{kind} p95 ≤ {limit:g} ms", p95 is not None and p95 <= limit, f"{p95} ms"))
    lag = figures["follow lag s"]
    results.append((f"follow lag max ≤ {LAG_TARGET_S:g} s", lag is not None and lag["max"] <= LAG_TARGET_S,
                    f"p95 {lag and lag['p95']} s, max {lag and lag['max']} s"))
    for kind, question in figures["questions"].items():
        results.append((f"{kind}: every answer counted" + (", stored and scored" if kind == "tune" else ""),
                        question["lost"] == 0 and question["counts agree"],
                        f"{question['answers counted']} of {question['answers sent by students']}"
                        + (f", scored {question['seconds from the question until every answer was scored']} s after "
                           f"the question, {question['pending at the end']} pending" if kind == "tune" else "")))
        tally = question["tally lag s"]
        results.append((f"{kind}: tally ≤ {LAG_TARGET_S:g} s behind",
                        tally is not None and tally["max"] <= LAG_TARGET_S,
                        f"p95 {tally and tally['p95']} s, max {tally and tally['max']} s"))
    results.append(("all students joined", figures["joined"] == figures["students"], f"{figures['joined']}"))
    results.append(("no error", figures["errors"] == 0, f"{figures['errors']}"))
    return results


def report(figures: dict, results: list[tuple[str, bool | None, str]], json_path: Path | None) -> None:
    """Print the figures, then each check (``ok`` None: a figure shown, not judged); write both to ``json_path``.

    scripts/follow_load.py reports the same way."""
    figures["checks"] = [{"check": name, "pass": ok, "value": value} for name, ok, value in results]
    print(json.dumps({k: v for k, v in figures.items() if k != "checks"}, indent=2, ensure_ascii=False))
    for name, ok, value in results:
        print(f"{'INFO' if ok is None else 'PASS' if ok else 'FAIL'}  {name}: {value}")
    if json_path:
        json_path.write_text(json.dumps(figures, indent=2, ensure_ascii=False))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=300)
    parser.add_argument("--join-seconds", type=float, default=60.0)
    parser.add_argument("--steps", type=int, default=6, help="the lecturer's moves, 10 s apart (default 6)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--database-url", help="PostgreSQL on this machine: two instances share a fresh schema")
    parser.add_argument("--redis", help="a Redis URL on this machine for the rate limits' counts")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--score-seconds", type=float, default=300.0,
                        help="how long the tuning's answers may wait for their scores (counting the new split)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    if not 1 <= args.students <= MAX_STUDENTS:
        parser.error(f"--students: 1 to {MAX_STUDENTS}")
    if args.database_url and not is_loopback_url(args.database_url):
        parser.error("--database-url must name this machine")
    if not args.corpus.is_file():
        parser.error(f"{args.corpus} is missing (the shared corpora)")
    with tempfile.TemporaryDirectory(prefix="webnb-class-load-") as folder:
        figures = run(args, Path(folder))
    results = checks(figures)
    report(figures, results, args.json)
    return 0 if all(ok for _, ok, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
