"""Many processes and threads reading then writing one database at once, as gunicorn's workers do under a class.

    python scripts/stress_storage.py [--url URL] [--processes 4] [--clients 50] [--seconds 60]

Without --url a fresh SQLite file in a temporary folder is used. The Storage is opened in the parent and then
the workers are forked (as gunicorn forks them after loading the app), so each must open its own connections.
Every client loops: list the corpora (a read), then store a small corpus (a write in one transaction). Prints
the reads, the writes, the errors by kind (the target for "database is locked" is 0) and checks that every
write that succeeded is in the database, whole.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from webnb.engine import Corpus  # noqa: E402
from webnb.store.database import ANY_WORKSPACE, Storage  # noqa: E402


def _client(storage: Storage, deadline: float, number: int, tally: Counter, lock: threading.Lock) -> None:
    corpus = Corpus(texts=("a good match", "a dull match"), labels=("pos", "neg"), ids=("1", "2"))
    while time.monotonic() < deadline:
        step, started = "read", time.monotonic()
        try:
            storage.list_corpora(ANY_WORKSPACE)
            step, started = "write", time.monotonic()
            storage.add_corpus(corpus, name=f"client {number}", source="stress", workspace=f"w{number}")
            with lock:
                tally["writes"] += 1
        except Exception as error:  # noqa: BLE001 - counted and reported: the point of the exercise
            kind = "database is locked" if "database is locked" in str(error) else type(error).__name__
            waited = time.monotonic() - started
            with lock:
                tally[f"error: {kind} ({step}, after {waited:.0f} s)"] += 1


def _worker(storage: Storage, clients: int, seconds: float, process: int, results) -> None:
    tally, lock = Counter(), threading.Lock()
    deadline = time.monotonic() + seconds
    threads = [
        threading.Thread(target=_client, args=(storage, deadline, process * 1000 + i, tally, lock))
        for i in range(clients)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    results.put(dict(tally))


def run(url: str, processes: int = 4, clients: int = 50, seconds: float = 60.0) -> dict:
    storage = Storage(url)
    storage.create_schema()
    storage.list_corpora()  # the parent holds a pooled connection when it forks, as a loaded app does
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    workers = [context.Process(target=_worker, args=(storage, clients, seconds, p, results)) for p in range(processes)]
    started = time.monotonic()
    for worker in workers:
        worker.start()
    totals: Counter = Counter()
    for _ in workers:
        totals.update(results.get(timeout=seconds + 120))
    for worker in workers:
        worker.join()
    elapsed = time.monotonic() - started
    stored = storage.list_corpora(ANY_WORKSPACE)
    whole = all(storage.get_corpus(s.id).n_documents == 2 for s in stored[:200])
    storage.dispose()
    return {
        "processes": processes,
        "clients_per_process": clients,
        "seconds": round(elapsed, 1),
        "writes": totals.pop("writes", 0),
        "errors": dict(totals),
        "stored": len(stored),
        "sampled_corpora_whole": whole,
        "exit_codes": [w.exitcode for w in workers],
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url")
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    args = parser.parse_args(argv)
    url = args.url or f"sqlite:///{Path(tempfile.mkdtemp(prefix='webnb-stress-')) / 'webnb.sqlite3'}"
    report = run(url, args.processes, args.clients, args.seconds)
    print(json.dumps({"url": url.split("@")[-1], **report}, indent=2))
    ok = not report["errors"] and report["stored"] == report["writes"] and report["sampled_corpora_whole"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
