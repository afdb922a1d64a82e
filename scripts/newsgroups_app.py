"""What the page benchmarks start from: an app in a fresh instance folder (local mode, SQLite, CSRF off, as in the
tests) with the 20 Newsgroups training posts stored, then counted through a JSON twin, which counts in its request (a
page would show progress instead). Imported by scripts/benchmark_pages.py and scripts/benchmark_waits.py; the
20 Newsgroups paths also by scripts/benchmark_compare.py and scripts/benchmark_evaluation.py."""
from __future__ import annotations

import json
import platform
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from webnb import create_app
from webnb.engine import read_corpus

REPO_ROOT = Path(__file__).resolve().parents[1]
NEWSGROUPS = REPO_ROOT.parent / "shared" / "corpora" / "20newsgroups-bydate"
TRAIN = NEWSGROUPS / "train.jsonl.gz"
TEST = NEWSGROUPS / "test.jsonl"


@dataclass
class CountedApp:
    app: object
    client: object
    corpus_id: str
    storing_s: float  # storing the posts (Catalog.add: read aside, it counts them once as well)
    counting_s: float  # the JSON twin that follows (counted already: it loads what was kept)

    @property
    def catalog(self):
        return self.app.extensions["webnb"]["catalog"]

    @property
    def jobs(self):
        return self.app.extensions["webnb"]["jobs"]


def counted_app(train: Path, prefix: str) -> CountedApp:
    app = create_app({"TESTING": True, "WTF_CSRF_ENABLED": False}, instance_path=tempfile.mkdtemp(prefix=prefix))
    client = app.test_client()
    corpus = read_corpus(train)
    start = time.perf_counter()
    corpus_id = app.extensions["webnb"]["catalog"].add(corpus, name="20 Newsgroups, training", source="benchmark")
    storing = time.perf_counter() - start
    start = time.perf_counter()
    counted = client.get(f"/corpora/{corpus_id}/parameters", query_string={"format": "json"})
    counting = time.perf_counter() - start
    assert counted.status_code == 200 and counted.get_json().get("error") is None, counted.get_data(as_text=True)[:300]
    return CountedApp(app, client, corpus_id, storing, counting)


def write_figures(json_path: str, figures: dict) -> None:
    """--json PATH: ``figures`` after the Python version and the machine they were measured on."""
    figures = {"python": platform.python_version(), "machine": platform.machine(), **figures}
    Path(json_path).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
