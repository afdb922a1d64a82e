"""Crash safety: ``kill -9`` the server at random points during uploads and fits, then check the database.

    python scripts/crash_trials.py [--trials 50] [--seed 0] [--database-url URL] [--instance DIR]
                                   [--server gunicorn|werkzeug] [--json PATH] [--no-restart-check]

Every trial starts the server as a separate process (gunicorn with two workers by default, as a lecture hall is
served; or the Werkzeug server of ``webnb serve``) on one instance folder shared by all trials, so the database
accumulates. Clients then upload corpora of varying size (small ones stored inside the request, large ones of
several MB read, counted and stored by a background job), paste small corpora, and ask for held-out evaluations
and comparisons of a stored corpus (fits, and job rows written to the database). After a seeded random delay
the server's whole process group gets SIGKILL. In some trials (``--aim-write``) the server is started with the
pause point ``WEBNB_PAUSE_AT=corpus-write:…`` (webnb/store/faults.py): its first corpus write stops after its first
batch of documents, inside the open transaction, and says so; the kill lands there, so the interesting moment is covered
for certain (SQLite: the write lock is held; PostgreSQL: an INSERT INTO documents is open).

Nothing is restarted before the checks, which read the database directly:

- SQLite: ``PRAGMA integrity_check`` is "ok" and ``PRAGMA foreign_key_check`` finds nothing;
- every corpora row has exactly n_documents documents, at positions 0..n-1, and its n_characters is the
  length of its texts; no documents row lacks its corpora row (0 partial corpora);
- every corpus uploaded in the trial is either absent or stored whole, exactly as sent;
- every upload the server acknowledged (a redirect to the corpus, or its job reported done) is stored.

The next trial's server start is the restart; after the last trial the server is started once more and must
list every stored corpus and serve a sample of them whole. Exits 1 on any violation.
"""
from __future__ import annotations

import argparse
import http.client
import io
import json
import os
import random
import secrets
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
# as webnb.store.database names it; not imported, the checks stand apart from the app
DATABASE_FILENAME = "webnb.sqlite3"
CLASSES = ("astro", "botany", "cuisine")
APPLICATION_NAME = "webnb-crash-trials"  # lets the checker find the server's PostgreSQL sessions

# Documents per upload: small ones are stored within the request (under 1 MB), the others by a background job.
DEFAULT_SIZES = {"small": (150, 900), "medium": (1_500, 4_000), "large": (8_000, 28_000)}
CI_SIZES = {"small": (100, 500), "medium": (1_200, 2_500), "large": (5_000, 9_000)}


# -- corpora to upload ---------------------------------------------------------------------------------------------


def _vocabulary(rng: random.Random, size: int) -> list[str]:
    syllables = ["ka", "lo", "mi", "ne", "ru", "ta", "vi", "zo", "é", "ïn", "sh", "qu", "dr", "om", "pa", "el"]
    return ["".join(rng.choices(syllables, k=rng.randint(2, 4))) for _ in range(size)]


@dataclass
class Payload:
    """One JSON Lines file and what must be stored if it is stored at all."""

    n_documents: int
    body: bytes
    n_characters: int  # characters of text, as the database's length() counts them
    last_id: str


_PAYLOADS: dict[int, Payload] = {}
_PAYLOAD_LOCK = threading.Lock()


def make_payload(n_documents: int) -> Payload:
    """A synthetic three-class corpus of ``n_documents`` (about 750 bytes each), the same for the same size."""
    with _PAYLOAD_LOCK:
        if n_documents in _PAYLOADS:
            return _PAYLOADS[n_documents]
    rng = random.Random(n_documents)
    shared = _vocabulary(rng, 3_000)
    own = {label: _vocabulary(rng, 1_500) for label in CLASSES}
    lines, characters = [], 0
    for i in range(n_documents):
        label = CLASSES[i % len(CLASSES)]
        words = rng.choices(shared, k=rng.randint(40, 90)) + rng.choices(own[label], k=rng.randint(10, 40))
        rng.shuffle(words)
        text = " ".join(words)
        characters += len(text)
        lines.append(json.dumps({"label": label, "text": text, "id": f"d{n_documents}-{i}"}, ensure_ascii=False))
    payload = Payload(n_documents, ("\n".join(lines) + "\n").encode(), characters, f"d{n_documents}-{n_documents - 1}")
    with _PAYLOAD_LOCK:
        _PAYLOADS[n_documents] = payload
    return payload


def _multipart(fields: dict[str, str], filename: str, data: bytes) -> tuple[str, bytes]:
    boundary = uuid.uuid4().hex
    out = io.BytesIO()
    for name, value in fields.items():
        out.write(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
    out.write(
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{filename}"\r\n'
        f"Content-Type: application/x-ndjson\r\n\r\n".encode()
    )
    out.write(data)
    out.write(f"\r\n--{boundary}--\r\n".encode())
    return f"multipart/form-data; boundary={boundary}", out.getvalue()


# -- the server ----------------------------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def write_instance_config(instance: Path, database_url: str | None) -> None:
    """create_app reads config.py from the instance folder: CSRF off for the scripted clients."""
    instance.mkdir(parents=True, exist_ok=True)
    lines = ["WTF_CSRF_ENABLED = False", f"SECRET_KEY = {secrets.token_urlsafe(32)!r}"]
    if database_url:
        lines.append(f"DATABASE_URL = {database_url!r}")
    (instance / "config.py").write_text("\n".join(lines) + "\n")


class Server:
    """The app in a process group of its own, so that one SIGKILL takes the master and all its workers."""

    def __init__(
        self, instance: Path, kind: str = "gunicorn", log: Path | None = None, pause_marker: Path | None = None,
        pause_point: str = "corpus-write",
    ):
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        app = f"webnb:create_app(instance_path={str(instance)!r})"
        if kind == "gunicorn":
            command = [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{self.port}", "--workers", "2",
                       "--worker-class", "gthread", "--threads", "4", "--timeout", "300", "--log-level", "warning",
                       app]
        else:  # what `webnb serve` runs, with the instance folder given
            command = [sys.executable, "-c",
                       f"import webnb; webnb.{app}.run(host='127.0.0.1', port={self.port}, threaded=True)"]
        self.log = open(log or os.devnull, "ab")
        env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "WEBNB_MODE": "local"}
        env.pop("WEBNB_DATABASE_URL", None)  # the instance config says which database
        env.pop("WEBNB_PAUSE_AT", None)
        if pause_marker is not None:
            # The first corpus write (or another named point) stops and says so (webnb/store/faults.py): the kill
            # lands there.
            env["WEBNB_PAUSE_AT"] = f"{pause_point}:{pause_marker}"
        self.process = subprocess.Popen(command, cwd=str(REPO_ROOT), env=env, stdout=self.log, stderr=self.log,
                                        start_new_session=True)

    def wait_ready(self, timeout: float = 60.0) -> float:
        started = time.monotonic()
        while time.monotonic() - started < timeout:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode} before it was ready")
            try:
                status, _, _ = request("GET", self.base + "/corpora", timeout=5)
                if status == 200:
                    return time.monotonic() - started
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"the server did not answer within {timeout} s")

    def kill(self) -> None:
        """SIGKILL to the whole group: no handler runs, no transaction is finished, nothing is flushed."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()
        # The workers were killed with the master; wait until none of the group is still running.
        deadline = time.monotonic() + 10
        while _live_members(self.process.pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        self.log.close()


def _live_members(group: int) -> list[int]:
    """Processes of the group that are not yet dead (zombies are dead: they only wait to be reaped)."""
    live = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if int(fields[2]) == group and fields[0] not in "ZX":
            live.append(int(stat.parent.name))
    return live


def request(method: str, url: str, body: bytes | None = None, headers: dict | None = None, timeout: float = 60.0,
            progress=None):
    """(status, headers, body) without following redirects. ``progress(n)`` is told the bytes sent so far."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        connection.putrequest(method, path)
        for name, value in (headers or {}).items():
            connection.putheader(name, value)
        if body is not None:
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders()
        if body is not None:
            view = memoryview(body)
            for start in range(0, len(body), 64 * 1024):
                connection.send(view[start:start + 64 * 1024])
                if progress:
                    progress(min(len(body), start + 64 * 1024))
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


# -- the clients ---------------------------------------------------------------------------------------------------


@dataclass
class Upload:
    """One corpus sent to the server, and what became of it."""

    name: str
    kind: str  # "upload" (multipart file) or "paste" (form field)
    n_documents: int
    n_bytes: int
    n_characters: int
    last_id: str
    bytes_sent: int = 0
    status: int | None = None  # of the POST, None if no answer came
    job_state: str | None = None  # the last state of its background job the client saw
    acknowledged: bool = False  # the server said it is stored (a redirect to it, or its job done)
    corpus_id: str | None = None
    error: str | None = None
    outcome: str | None = None  # after the kill: "stored", "absent", or a violation


def _corpus_id_from(location: str) -> str | None:
    path = urllib.parse.urlsplit(location).path.rstrip("/")
    head, _, tail = path.rpartition("/")
    return tail if head.endswith("/corpora") and tail else None


def upload_client(base: str, upload: Upload, body: bytes, content_type: str, stop: threading.Event) -> None:
    path = "/corpora/upload" if upload.kind == "upload" else "/corpora/paste"

    def sent(n: int) -> None:
        upload.bytes_sent = n

    try:
        status, headers, _ = request("POST", base + path, body, {"Content-Type": content_type}, progress=sent)
        upload.status = status
        location = headers.get("Location", "")
        if status == 303 and "/jobs/" in location:
            upload.job_state = "running"
            while not stop.is_set():
                status, headers, _ = request("GET", urllib.parse.urljoin(base + "/", location), timeout=30)
                if status == 303:
                    upload.job_state = "done"
                    location = headers.get("Location", "")
                    break
                if status != 200:
                    upload.job_state = f"failed ({status})"
                    return
                time.sleep(0.1)
        if status == 303:
            upload.corpus_id = _corpus_id_from(location)
            upload.acknowledged = upload.corpus_id is not None
    except (OSError, http.client.HTTPException) as error:  # the server died under it: expected
        upload.error = type(error).__name__


def fit_client(base: str, corpus_id: str, rng: random.Random, stop: threading.Event, tally: dict) -> None:
    """Ask for held-out evaluations and comparisons with new settings each time, so each is a new fit."""
    while not stop.is_set():
        alpha = rng.choice(["0", "0.5", "1", "2"])
        query = urllib.parse.urlencode({"alpha": alpha, "test": "split", "test_size": rng.choice(["0.2", "0.3"]),
                                        "seed": rng.randint(0, 10_000),
                                        "model": rng.choice(["multinomial", "bernoulli"])})
        page = rng.choice(["evaluation", "compare"])
        url = f"{base}/corpora/{corpus_id}/{page}?{query}"
        try:
            for _ in range(300):  # a 202 progress page: the fit runs in a job; ask again until it is done
                status, _, _ = request("GET", url, timeout=60)
                if status != 202 or stop.is_set():
                    break
                time.sleep(0.1)
            tally[f"{page} {status}"] = tally.get(f"{page} {status}", 0) + 1
        except (OSError, http.client.HTTPException):
            return


# -- the database checks -------------------------------------------------------------------------------------------

PARTIAL_CORPORA = """
    SELECT c.id, c.n_documents, COUNT(d.position), MIN(d.position), MAX(d.position)
    FROM corpora c LEFT JOIN documents d ON d.content = c.content
    GROUP BY c.id, c.n_documents
    HAVING c.n_documents < 1 OR COUNT(d.position) <> c.n_documents
        OR MIN(d.position) <> 0 OR MAX(d.position) <> c.n_documents - 1
"""
ORPHAN_DOCUMENTS = """
    SELECT COUNT(*) FROM documents d WHERE NOT EXISTS (SELECT 1 FROM corpora c WHERE c.content = d.content)
"""
ORPHAN_SHARES = "SELECT COUNT(*) FROM shares s WHERE NOT EXISTS (SELECT 1 FROM corpora c WHERE c.id = s.corpus_id)"
COUNTS = "SELECT (SELECT COUNT(*) FROM corpora), (SELECT COUNT(*) FROM documents)"
STALE_JOBS = "SELECT COUNT(*) FROM jobs WHERE state = 'running'"
BY_NAME = """
    SELECT c.id, c.n_documents, c.n_characters,
           (SELECT COUNT(*) FROM documents d WHERE d.content = c.content),
           (SELECT SUM(LENGTH(d.text)) FROM documents d WHERE d.content = c.content),
           (SELECT d.doc_id FROM documents d WHERE d.content = c.content AND d.position = c.n_documents - 1)
    FROM corpora c WHERE c.name = :name
"""
# Characters counted once the rest holds (n_characters is NULL for corpora stored before it was counted).
WRONG_CHARACTERS = """
    SELECT c.id FROM corpora c
    WHERE c.id IN ({ids}) AND c.n_characters IS NOT NULL
      AND c.n_characters <> (SELECT COALESCE(SUM(LENGTH(d.text)), 0) FROM documents d WHERE d.content = c.content)
"""


class Database:
    """Read-only checks straight on the database: stdlib sqlite3 for SQLite, SQLAlchemy for PostgreSQL."""

    def __init__(self, sqlite_path: Path | None = None, url: str | None = None):
        self.sqlite_path, self.url = sqlite_path, url
        self._engine = None

    def dispose(self) -> None:
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None

    def _rows(self, statements: list[tuple[str, dict]]) -> list[list[tuple]]:
        if self.sqlite_path is not None:
            if not self.sqlite_path.exists():
                return [[] for _ in statements]
            # Opening replays the WAL that the killed server left, as the next server start would.
            connection = sqlite3.connect(self.sqlite_path, timeout=30)
            try:
                return [[tuple(row) for row in connection.execute(sql, params)] for sql, params in statements]
            finally:
                connection.close()
        import sqlalchemy as sa

        if self._engine is None:
            self._engine = sa.create_engine(self.url)
        with self._engine.connect() as connection:
            return [[tuple(row) for row in connection.execute(sa.text(sql), params)] for sql, params in statements]

    def tables_exist(self) -> bool:
        if self.sqlite_path is not None:
            if not self.sqlite_path.exists():
                return False
            sql = "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'corpora'"
        else:
            sql = "SELECT COUNT(*) FROM information_schema.tables WHERE table_name = 'corpora' " \
                  "AND table_schema = current_schema()"
        return self._rows([(sql, {})])[0][0][0] == 1

    def check(self, new_ids: list[str] | None = None) -> dict:
        """The invariants; ``new_ids``: corpora whose texts are also summed (the ones a trial may have touched)."""
        statements = []
        if self.sqlite_path is not None:
            statements += [("PRAGMA integrity_check", {}), ("PRAGMA foreign_key_check", {})]
        statements += [(PARTIAL_CORPORA, {}), (ORPHAN_DOCUMENTS, {}), (ORPHAN_SHARES, {}), (COUNTS, {}),
                       (STALE_JOBS, {})]
        if new_ids:
            placeholders = ", ".join(f":id{i}" for i in range(len(new_ids)))
            statements.append((WRONG_CHARACTERS.format(ids=placeholders),
                               {f"id{i}": corpus_id for i, corpus_id in enumerate(new_ids)}))
        results = self._rows(statements)
        report = {}
        if self.sqlite_path is not None:
            integrity, foreign_keys, *results = results
            report["integrity_check"] = "; ".join(str(row[0]) for row in integrity)
            report["foreign_key_check"] = [list(row) for row in foreign_keys]
        partial, orphans, orphan_shares, counts, stale, *characters = results
        report.update(
            partial_corpora=[list(row) for row in partial],
            orphan_documents=orphans[0][0],
            orphan_shares=orphan_shares[0][0],
            corpora=counts[0][0],
            documents=counts[0][1],
            jobs_left_running=stale[0][0],
            wrong_characters=[row[0] for row in characters[0]] if characters else [],
        )
        return report

    def corpus_ids(self) -> list[tuple[str, int]]:
        return [(row[0], row[1]) for row in self._rows([("SELECT id, n_documents FROM corpora ORDER BY id", {})])[0]]

    def stored_as(self, upload: Upload) -> list[tuple]:
        return self._rows([(BY_NAME, {"name": upload.name})])[0]

    def write_in_progress(self) -> bool:
        """Whether the server is inside a write transaction on the corpora right now."""
        if self.sqlite_path is not None:
            # The only way to ask SQLite: try to take the write lock without waiting, and give it straight back.
            connection = sqlite3.connect(self.sqlite_path, timeout=0, isolation_level=None)
            try:
                connection.execute("BEGIN IMMEDIATE")
                connection.execute("ROLLBACK")
                return False
            except sqlite3.OperationalError as error:
                return "locked" in str(error) or "busy" in str(error)
            finally:
                connection.close()
        rows = self._rows([(
            "SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = :name AND xact_start IS NOT NULL "
            "AND query ILIKE 'INSERT INTO documents%'", {"name": APPLICATION_NAME})])[0]
        return rows[0][0] > 0

    def server_sessions(self) -> int:
        """PostgreSQL: sessions of the killed server that the database has not yet closed (and rolled back)."""
        if self.sqlite_path is not None:
            return 0
        rows = self._rows([("SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = :name",
                            {"name": APPLICATION_NAME})])[0]
        return rows[0][0]


def violations_of(check: dict) -> list[str]:
    found = []
    if "integrity_check" in check and check["integrity_check"] != "ok":
        found.append(f"integrity_check: {check['integrity_check']}")
    if check.get("foreign_key_check"):
        found.append(f"foreign_key_check: {check['foreign_key_check'][:5]}")
    if check["partial_corpora"]:
        found.append(f"{len(check['partial_corpora'])} partial corpora (id, n_documents, rows, min, max): "
                     f"{check['partial_corpora'][:5]}")
    if check["orphan_documents"]:
        found.append(f"{check['orphan_documents']} documents rows without their corpus")
    if check["orphan_shares"]:
        found.append(f"{check['orphan_shares']} shares without their corpus")
    if check["wrong_characters"]:
        found.append(f"n_characters differs from the texts for {check['wrong_characters']}")
    return found


def judge_upload(upload: Upload, rows: list[tuple]) -> str | None:
    """Record what became of the upload; a violation's description, or None."""
    if not rows:
        upload.outcome = "absent"
        return f"{upload.name}: acknowledged as {upload.corpus_id} but not stored" if upload.acknowledged else None
    if len(rows) > 1:
        upload.outcome = "stored twice"
        return f"{upload.name}: stored {len(rows)} times"
    corpus_id, n_documents, n_characters, count, characters, last_id = rows[0]
    expected = (upload.n_documents, upload.n_documents, upload.n_characters, upload.last_id)
    if (n_documents, count, characters, last_id) != expected:
        upload.outcome = "stored wrong"
        return (f"{upload.name}: stored as (n_documents, rows, characters, last id) = "
                f"{(n_documents, count, characters, last_id)}, sent {expected}")
    if upload.corpus_id is not None and upload.corpus_id != corpus_id:
        upload.outcome = "stored wrong"
        return f"{upload.name}: acknowledged as {upload.corpus_id}, stored as {corpus_id}"
    upload.outcome = "stored"
    upload.corpus_id = corpus_id
    return None


# -- a trial -------------------------------------------------------------------------------------------------------


@dataclass
class Trial:
    number: int
    aim: str  # "random": after a random delay; "write": once a corpus is being written
    planned_delay: float
    killed_after: float = 0.0  # seconds from the first request to the kill
    startup_seconds: float = 0.0
    write_in_progress: bool | None = None  # probed just before the kill
    uploads: list[Upload] = field(default_factory=list)
    fits: dict = field(default_factory=dict)
    check: dict = field(default_factory=dict)
    check_seconds: float = 0.0
    violations: list[str] = field(default_factory=list)


def plan_uploads(rng: random.Random, number: int, sizes: dict) -> list[Upload]:
    """One large or medium upload always, sometimes a second one, and a couple of small pastes."""
    plans = [("upload", rng.choice(["large", "large", "medium"]))]
    if rng.random() < 0.5:
        plans.append(("upload", rng.choice(["medium", "small"])))
    plans += [("paste", "small")] * rng.randint(1, 2)
    uploads = []
    for i, (kind, size) in enumerate(plans):
        low, high = sizes[size]
        n = rng.randint(low, high) if kind == "upload" else rng.randint(20, 200)
        payload = make_payload(n)
        name = f"crash trial {number} #{i} ({size} {kind}) {secrets.token_hex(3)}"
        body_bytes = len(payload.body)
        uploads.append(Upload(name=name, kind=kind, n_documents=n, n_bytes=body_bytes,
                              n_characters=payload.n_characters, last_id=payload.last_id))
    return uploads


def _paste_body(payload: Payload, name: str) -> tuple[str, bytes]:
    lines = []
    for line in payload.body.decode().splitlines():
        record = json.loads(line)
        lines.append(f"{record['label']}\t{record['text']}")
    form = urllib.parse.urlencode({"corpus": "\n".join(lines), "name": name})
    return "application/x-www-form-urlencoded", form.encode()


def run_trial(number: int, rng: random.Random, instance: Path, database: Database, *, kind: str, sizes: dict,
              aim_write: float, max_delay: float, log: Path | None) -> Trial:
    aim = "write" if rng.random() < aim_write else "random"
    trial = Trial(number=number, aim=aim, planned_delay=round(rng.uniform(0.05, max_delay), 3))
    fit_targets = [corpus_id for corpus_id, n in database.corpus_ids() if n <= 5_000] if database.tables_exist() else []
    fit_corpus = rng.choice(fit_targets) if fit_targets else "spam-ham"
    trial.uploads = plan_uploads(rng, number, sizes)
    bodies = []
    for upload in trial.uploads:
        payload = make_payload(upload.n_documents)
        if upload.kind == "paste":
            content_type, body = _paste_body(payload, upload.name)
            upload.last_id = str(upload.n_documents)  # a pasted document's id is its line number
        else:
            content_type, body = _multipart({"name": upload.name}, f"trial{number}.jsonl", payload.body)
        upload.n_bytes = len(body)
        bodies.append((content_type, body))

    pause_marker = Path(tempfile.mkdtemp(prefix="webnb-pause-")) / "paused" if aim == "write" else None
    server = Server(instance, kind, log, pause_marker=pause_marker)
    try:
        trial.startup_seconds = round(server.wait_ready(), 2)
        stop = threading.Event()
        threads = [threading.Thread(target=upload_client, args=(server.base, upload, body, content_type, stop))
                   for upload, (content_type, body) in zip(trial.uploads, bodies, strict=True)]
        threads.append(threading.Thread(target=fit_client,
                                        args=(server.base, fit_corpus, random.Random(rng.random()), stop, trial.fits)))
        started = time.monotonic()
        for thread in threads:
            thread.daemon = True
            thread.start()
        if aim == "write":
            # The server holds still inside the first corpus write (after its first batch of documents) and writes
            # the marker: the kill lands there for certain, not by luck. The uploads always include a write.
            deadline = started + 60.0
            while not pause_marker.exists() and time.monotonic() < deadline and server.process.poll() is None:
                time.sleep(0.01)
        else:
            time.sleep(trial.planned_delay)
        trial.write_in_progress = database.write_in_progress()
        trial.killed_after = round(time.monotonic() - started, 3)
        server.kill()
        stop.set()
    finally:
        if server.process.poll() is None:
            server.kill()
    for thread in threads:
        thread.join(timeout=5)

    # PostgreSQL rolls back the killed server's transactions once it notices the closed connections.
    deadline = time.monotonic() + 15
    while database.server_sessions() and time.monotonic() < deadline:
        time.sleep(0.05)

    checked = time.monotonic()
    for upload in trial.uploads:
        problem = judge_upload(upload, database.stored_as(upload) if database.tables_exist() else [])
        if problem:
            trial.violations.append(problem)
    new_ids = [upload.corpus_id for upload in trial.uploads if upload.outcome == "stored"]
    trial.check = database.check(new_ids)
    trial.check_seconds = round(time.monotonic() - checked, 2)
    trial.violations += violations_of(trial.check)
    return trial


def restart_check(instance: Path, database: Database, kind: str, rng: random.Random, sample: int,
                  log: Path | None) -> dict:
    """Start the server again: it must list every stored corpus and serve a sample of them whole."""
    stored = database.corpus_ids()
    server = Server(instance, kind, log)
    report = {"corpora": len(stored), "listed": 0, "served": [], "violations": []}
    try:
        server.wait_ready()
        status, _, body = request("GET", server.base + "/corpora")
        page = body.decode()
        report["listed"] = sum(1 for corpus_id, _ in stored if f"/corpora/{corpus_id}" in page)
        if status != 200 or report["listed"] != len(stored):
            report["violations"].append(f"/corpora ({status}) lists {report['listed']} of {len(stored)} corpora")
        for corpus_id, n_documents in rng.sample(stored, min(sample, len(stored))):
            url = f"{server.base}/corpora/{corpus_id}?format=json"
            for _ in range(600):  # a large corpus is counted first (202), then served
                status, _, body = request("GET", url)
                if status != 202:
                    break
                time.sleep(0.1)
            served = json.loads(body)["corpus"]["documents"] if status == 200 else None
            report["served"].append({"id": corpus_id, "n_documents": n_documents, "status": status, "served": served})
            if served != n_documents:
                report["violations"].append(f"{corpus_id}: {status}, served {served} of {n_documents} documents")
    finally:
        server.kill()
    return report


def run_trials(trials: int = 50, seed: int = 0, instance: Path | None = None, database_url: str | None = None, *,
               kind: str = "gunicorn", sizes: dict | None = None, aim_write: float = 0.4, max_delay: float = 3.5,
               restart: bool = True, restart_sample: int = 5, log: Path | None = None, echo=print) -> dict:
    """Run the trials; a report with every trial, the totals and the violations (empty if all held)."""
    sizes = sizes or DEFAULT_SIZES
    temporary = None
    if instance is None:
        temporary = tempfile.mkdtemp(prefix="webnb-crash-")
        instance = Path(temporary) / "instance"
    instance = Path(instance)
    server_url = None
    if database_url:
        import sqlalchemy as sa

        server_url = sa.make_url(database_url).update_query_dict({"application_name": APPLICATION_NAME})
        server_url = server_url.render_as_string(hide_password=False)
        database = Database(url=database_url)
    else:
        database = Database(sqlite_path=instance / DATABASE_FILENAME)
    write_instance_config(instance, server_url)
    rng = random.Random(seed)
    started = time.monotonic()
    results: list[Trial] = []
    try:
        for number in range(1, trials + 1):
            trial = run_trial(number, random.Random(rng.random()), instance, database, kind=kind, sizes=sizes,
                              aim_write=aim_write, max_delay=max_delay, log=log)
            results.append(trial)
            echo(describe(trial))
        restart_report = restart_check(instance, database, kind, rng, restart_sample, log) if restart else None
    finally:
        database.dispose()
        if temporary:
            shutil.rmtree(temporary, ignore_errors=True)
    uploads = [upload for trial in results for upload in trial.uploads]
    violations = [f"trial {trial.number}: {v}" for trial in results for v in trial.violations]
    if restart_report:
        violations += [f"after restart: {v}" for v in restart_report["violations"]]
    final = results[-1].check if results else {}
    totals = {
        "trials": len(results),
        "database": "postgresql" if database_url else "sqlite",
        "server": kind,
        "seconds": round(time.monotonic() - started, 1),
        "killed_during_corpus_write": sum(1 for t in results if t.write_in_progress),
        "integrity_ok": sum(1 for t in results if t.check.get("integrity_check", "ok") == "ok"),
        "partial_corpora": sum(len(t.check.get("partial_corpora", [])) for t in results),
        "orphan_documents": sum(t.check.get("orphan_documents", 0) for t in results),
        "uploads": len(uploads),
        "uploads_stored": sum(1 for u in uploads if u.outcome == "stored"),
        "uploads_absent": sum(1 for u in uploads if u.outcome == "absent"),
        "uploads_acknowledged": sum(1 for u in uploads if u.acknowledged),
        "acknowledged_but_lost": sum(1 for u in uploads if u.acknowledged and u.outcome != "stored"),
        "stored_before_acknowledged": sum(1 for u in uploads if u.outcome == "stored" and not u.acknowledged),
        "uploads_cut_off_while_sending": sum(1 for u in uploads if u.bytes_sent < u.n_bytes),
        "fits_answered": sum(n for t in results for n in t.fits.values()),
        "corpora_at_end": final.get("corpora"),
        "documents_at_end": final.get("documents"),
        "jobs_left_running_at_end": final.get("jobs_left_running"),
        "violations": len(violations),
    }
    return {"totals": totals, "violations": violations, "restart": restart_report,
            "trials": [asdict(trial) for trial in results]}


def describe(trial: Trial) -> str:
    parts = []
    for upload in trial.uploads:
        sent = 100 * upload.bytes_sent / upload.n_bytes if upload.n_bytes else 0
        answer = "no answer" if upload.status is None else f"{upload.status}"
        if upload.job_state:
            answer += f", job {upload.job_state}"
        parts.append(f"{upload.kind} {upload.n_documents} docs {upload.n_bytes / 1e6:.1f} MB sent {sent:.0f}% "
                     f"[{answer}] -> {upload.outcome}{' (acknowledged)' if upload.acknowledged else ''}")
    check = trial.check
    verdict = "OK" if not trial.violations else "VIOLATION: " + "; ".join(trial.violations)
    return (f"trial {trial.number:>2}: aim {trial.aim:<6} killed after {trial.killed_after:.2f} s, "
            f"write in progress: {'yes' if trial.write_in_progress else 'no'}; fits {sum(trial.fits.values())}; "
            + "; ".join(parts)
            + f"; db: {check.get('corpora')} corpora, {check.get('documents')} documents, "
            f"integrity {check.get('integrity_check', 'n/a')}; {verdict}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--instance", type=Path, help="instance folder shared by the trials (default: a temporary one)")
    parser.add_argument("--database-url", help="PostgreSQL URL (default: SQLite in the instance folder)")
    parser.add_argument("--server", choices=("gunicorn", "werkzeug"), default="gunicorn")
    parser.add_argument("--aim-write", type=float, default=0.4,
                        help="fraction of trials that wait for a corpus write before the kill (default 0.4)")
    parser.add_argument("--max-delay", type=float, default=3.5, help="longest random delay before a kill, seconds")
    parser.add_argument("--ci-sizes", action="store_true", help="smaller uploads, for a quick run")
    parser.add_argument("--no-restart-check", dest="restart", action="store_false")
    parser.add_argument("--server-log", type=Path, help="append the servers' output to this file")
    parser.add_argument("--json", type=Path, metavar="PATH", help="write the full report as JSON")
    args = parser.parse_args(argv)
    report = run_trials(args.trials, args.seed, args.instance, args.database_url, kind=args.server,
                        sizes=CI_SIZES if args.ci_sizes else DEFAULT_SIZES, aim_write=args.aim_write,
                        max_delay=args.max_delay, restart=args.restart, log=args.server_log)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, default=str))
    print(json.dumps(report["totals"], indent=2))
    if report["restart"]:
        restart = report["restart"]
        print(f"after restart: {restart['listed']} of {restart['corpora']} corpora listed, "
              f"{len(restart['served'])} served whole of {len(restart['served'])} sampled"
              if not restart["violations"] else f"after restart: {restart['violations']}")
    for violation in report["violations"]:
        print("VIOLATION:", violation)
    return 1 if report["violations"] else 0


if __name__ == "__main__":
    sys.exit(main())
