"""A server killed while it counts a corpus: how long until another process serves those settings?

    python scripts/claim_takeover.py [--corpus PATH.jsonl[.gz]] [--database-url URL] [--server gunicorn|werkzeug]

Stores a real corpus (the movie reviews by default: 2,000 documents), then starts server A with the pause point
``counting`` (webnb/store/faults.py): the first count stops right after claiming it, and A is killed there with
SIGKILL, holding the claim. Server B is then asked for the same page and settings again and again, as a student who
reloads would; the script prints each answer's status and time and how long after the kill B first served the page.
Before claims had a heartbeat, B waited ten minutes; now a claim not renewed for ``STALE_CLAIM`` is taken over, and
meanwhile each request waits at most ``CLAIM_WAIT_SECONDS`` and answers 503.

Prints figures; asserts nothing about time.
"""
from __future__ import annotations

import argparse
import gzip
import json
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "scripts"))

from crash_trials import Server, request, write_instance_config  # noqa: E402

from webnb.engine import Corpus  # noqa: E402
from webnb.store.database import DATABASE_FILENAME, Storage  # noqa: E402

DEFAULT_CORPUS = REPO_ROOT.parent / "shared" / "corpora" / "movie-review-polarity-v2.0" / "all.jsonl"
# Bigrams make the count last long enough to be caught inside it.
PAGE = "/corpora/{id}/parameters?format=json&ngrams=2"


def read_corpus(path: Path) -> Corpus:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines]
    return Corpus(texts=tuple(r["text"] for r in records), labels=tuple(r["label"] for r in records),
                  ids=tuple(r["id"] for r in records), name=path.stem)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--database-url", default=None, help="default: SQLite in a temporary instance folder")
    parser.add_argument("--server", choices=("gunicorn", "werkzeug"), default="gunicorn")
    args = parser.parse_args(argv)

    instance = Path(tempfile.mkdtemp(prefix="webnb-claim-"))
    write_instance_config(instance, args.database_url)
    url = args.database_url or f"sqlite:///{instance / DATABASE_FILENAME}"
    with Storage(url) as storage:
        storage.create_schema()
        corpus = read_corpus(args.corpus)
        corpus_id = storage.add_corpus(corpus, name=corpus.name, source="claim takeover")
    print(f"stored {len(corpus):,} documents of {args.corpus.name} as {corpus_id}")
    page = PAGE.format(id=corpus_id)

    marker = instance / "counting.pid"
    first = Server(instance, args.server, log=instance / "a.log", pause_marker=marker, pause_point="counting")
    first.wait_ready()
    threading.Thread(target=lambda: _quietly(first.base + page), daemon=True).start()
    while not marker.exists():
        time.sleep(0.05)
    first.kill()
    killed = time.monotonic()
    print(f"server A claimed the count and was killed inside it (pid {marker.read_text()})")

    second = Server(instance, args.server, log=instance / "b.log")
    second.wait_ready()
    answers = []
    while True:
        asked = time.monotonic()
        status, headers, _ = request("GET", second.base + page, timeout=900)
        answers.append((asked - killed, status, time.monotonic() - asked))
        print(f"  {asked - killed:6.1f} s after the kill: {status} in {time.monotonic() - asked:5.2f} s"
              + (f" (Retry-After {headers.get('Retry-After')})" if status == 503 else ""))
        if status == 200:
            break
        time.sleep(1)  # a student reloading
    second.kill()
    longest = max(seconds for _, _, seconds in answers)
    print(f"served {answers[-1][0] + answers[-1][2]:.1f} s after the kill; {len(answers) - 1} answers of 503 before; "
          f"the longest single wait {longest:.2f} s")
    return 0


def _quietly(url: str) -> None:
    try:
        request("GET", url, timeout=900)
    except OSError:
        pass  # the server is killed under this request


if __name__ == "__main__":
    sys.exit(main())
