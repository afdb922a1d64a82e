"""Peak resident memory of every page on one corpus, each page in a fresh process, in local and hosted mode.

    python scripts/hostile_corpus.py /tmp/hostile.jsonl
    python scripts/hostile_corpus.py /tmp/bomb.jsonl.gz --gzip-bomb
    python scripts/memory_pages.py /tmp/hostile.jsonl [--bomb /tmp/bomb.jsonl.gz] [--mode local|hosted|both]
        [--only WORD ...] [--jobs N]

The corpus is stored once per mode (straight into a temporary SQLite database, without counting it). Then each
page runs in a new Python process that creates the app, reads the corpus from the database, opens the same page
of a small built-in corpus (so that templates and modules are loaded), resets the kernel's peak counter
(/proc/self/clear_refs) and asks for the page, following its progress page until the work is done. The figure is
the peak resident memory (VmHWM) minus the resident memory just before the request. Uploads (the corpus itself and
the gzip bomb) are measured the same way. Linux only; no psutil.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import io
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

WORKSPACE = "memory-pages-workspace"
SECRET = "memory-pages-" + "x" * 40
REVIEW = "qab qac qad qae qaf qag qah qai"  # frequent words of the hostile corpus
STEPS = (
    "tokens", "vector", "factors", "product", "decision",
    "zeros", "smoothing", "underflow", "logspace", "contributions",
)
EXPORTS = (
    "matrix.csv", "parameters.csv", "priors.csv", "evaluation.csv",
    "confusion.csv", "predictions.csv", "notebook.ipynb",
)


def pages() -> list[tuple[str, str]]:
    """(name, address with {id} for the corpus) of every page measured."""
    listed = [
        ("corpus", "/corpora/{id}"),
        ("matrix", "/corpora/{id}/matrix"),
        ("parameters", "/corpora/{id}/parameters"),
        *[
            (f"inference {step}", f"/corpora/{{id}}/inference?step={step}&text={REVIEW.replace(' ', '+')}")
            for step in STEPS
        ],
        ("evaluation", "/corpora/{id}/evaluation"),
        ("sweep", "/corpora/{id}/evaluation/sweep"),
        ("compare", "/corpora/{id}/compare"),
        ("compare max_features=13000", "/corpora/{id}/compare?max_features=13000"),
        ("words", "/corpora/{id}/words"),
        ("confidence", "/corpora/{id}/confidence"),
        ("sample", "/corpora/{id}/sample"),
        ("add", f"/corpora/{{id}}/add?label=c000&document={REVIEW.replace(' ', '+')}"),
        *[(f"export {name}", f"/corpora/{{id}}/export/{name}") for name in EXPORTS],
    ]
    return listed


def _config(instance: Path, mode: str, max_work_mb: float | None = None) -> dict:
    config = {"TESTING": True, "WTF_CSRF_ENABLED": False, "DATABASE_URL": f"sqlite:///{instance / 'memory.sqlite'}"}
    if max_work_mb is not None:
        config["WEBNB_MAX_WORK_MB"] = max_work_mb
    if mode == "hosted":
        config.update(WEBNB_MODE="hosted", SECRET_KEY=SECRET, WEBNB_COOKIE_SECURE=False, RATELIMIT_ENABLED=False)
    return config


def _status_value(name: str) -> int:
    """A /proc/self/status figure in bytes (VmRSS, VmHWM)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(name + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"{name} not in /proc/self/status")


def _reset_peak() -> None:
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")  # resets VmHWM to the current resident size


def _client(app, mode: str):
    client = app.test_client()
    if mode == "hosted":
        with client.session_transaction() as session:
            session["workspace"] = WORKSPACE
    return client


def _finish(app, client, response, method, url, **kwargs):
    """Follow a progress page (202) or a redirect to one until the work is done, then ask again."""
    jobs = app.extensions["webnb"]["jobs"]
    for _ in range(6):
        location = response.headers.get("Location", "")
        if response.status_code == 202 or "/jobs/" in location:
            for job_id in list(jobs._futures):
                jobs.wait(job_id)
            failed = [job for job in jobs._jobs.values() if job.state == "failed"]
            if failed:  # the progress page now says why
                return client.get(f"/jobs/{failed[-1].id}")
            if "/jobs/" in location:
                response = client.get(location)
                if response.status_code in (302, 303):
                    response = client.get(response.headers["Location"])
                continue
            response = client.open(url, method=method, **kwargs)
            continue
        return response
    return response


def _message(response) -> str:
    """What the page said went wrong, if anything (its alert, or a JSON error), in one short line."""
    text = response.get_data(as_text=True)
    if response.mimetype == "application/json":
        try:
            return str(json.loads(text).get("error") or "")[:160]
        except ValueError:
            return ""
    if response.mimetype != "text/html":
        return ""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(text, "html.parser")
    alerts = [" ".join(alert.get_text().split()) for alert in soup.find_all(role="alert")]
    return " | ".join(a for a in alerts if a)[:160]


def child(args) -> dict:
    """One measurement, in this (fresh) process."""
    from webnb import create_app

    instance = Path(args.instance)
    app = create_app(_config(instance, args.mode, args.max_work_mb), instance_path=str(instance))
    catalog = app.extensions["webnb"]["catalog"]
    client = _client(app, args.mode)
    if args.upload:
        data = Path(args.upload).read_bytes()
        path = "/corpora/upload/inspect" if args.inspect else "/corpora/upload"
        client.post(path, data={"file": (io.BytesIO(b"label,text\na,b\n"), "warm.csv")})  # modules, templates
        kwargs = {"data": {"file": (io.BytesIO(data), Path(args.upload).name)}}
        url, method = path, "POST"
    else:
        # Its documents read from the database and cached, as a worker keeps them.
        _ = catalog.get(args.corpus_id).corpus
        url, method = args.url.format(id=args.corpus_id), "GET"
        warm = args.url.format(id="match-reviews").replace("max_features=13000", "")
        client.get(warm)
        kwargs = {}
    before = _status_value("VmRSS")
    _reset_peak()
    started = time.perf_counter()
    if args.upload:
        kwargs["data"]["file"] = (io.BytesIO(data), Path(args.upload).name)
    response = client.open(url, method=method, **kwargs)
    response = _finish(app, client, response, method, url, **({} if args.upload else kwargs))
    seconds = time.perf_counter() - started
    peak = _status_value("VmHWM")
    return {
        "status": response.status_code,
        "growth_mb": (peak - before) / 1e6,
        "seconds": seconds,
        "message": _message(response),
    }


def _store(corpus_path: Path, instance: Path, mode: str) -> str:
    """Store the corpus without counting it (the measured processes do that), owned by the measuring workspace."""
    from webnb.engine import read_corpus
    from webnb.store.database import Storage

    corpus = read_corpus(corpus_path)
    storage = Storage(_config(instance, mode)["DATABASE_URL"])
    storage.create_schema()
    corpus_id = storage.add_corpus(corpus, name=corpus_path.name, source="memory_pages.py",
                                   workspace=WORKSPACE if mode == "hosted" else None)
    storage.dispose()
    return corpus_id


def _run_child(extra: list[str]) -> dict:
    command = [sys.executable, __file__, "--child", *extra]
    done = subprocess.run(command, capture_output=True, text=True, cwd=REPO_ROOT)
    if done.returncode != 0:
        return {"status": "crash", "growth_mb": float("nan"), "seconds": float("nan"),
                "message": (done.stderr.strip().splitlines() or ["?"])[-1][:160]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", nargs="?", type=Path)
    parser.add_argument("--bomb", type=Path, help="a gzip bomb to upload (scripts/hostile_corpus.py --gzip-bomb)")
    parser.add_argument("--mode", choices=("local", "hosted", "both"), default="both")
    parser.add_argument("--only", action="append", default=[],
                        help="measure only the pages whose name contains this (given again: or that)")
    parser.add_argument("--upload-corpus", action="store_true", help="also measure uploading the corpus itself")
    parser.add_argument("--jobs", type=int, default=1, help="pages measured at once, each in its own process")
    parser.add_argument("--max-work-mb", type=float, help="WEBNB_MAX_WORK_MB (default: the mode's own)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--instance", help=argparse.SUPPRESS)
    parser.add_argument("--corpus-id", help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--upload", help=argparse.SUPPRESS)
    parser.add_argument("--inspect", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args)))
        return 0
    modes = ("local", "hosted") if args.mode == "both" else (args.mode,)
    print(f"{'mode':7} {'page':34} {'status':>6} {'growth MB':>10} {'seconds':>8}  message")
    worst = 0.0
    with tempfile.TemporaryDirectory(prefix="webnb-memory-") as scratch:
        for mode in modes:
            instance = Path(scratch) / mode
            instance.mkdir()
            rows = []
            if args.corpus is not None:
                corpus_id = _store(args.corpus, instance, mode)
                rows += [(name, ["--url", url, f"--corpus-id={corpus_id}"]) for name, url in pages()]
                if args.upload_corpus:
                    rows.append(("upload corpus", ["--upload", str(args.corpus)]))
            if args.bomb is not None:
                rows.append(("upload gzip bomb", ["--upload", str(args.bomb)]))
                rows.append(("inspect gzip bomb", ["--upload", str(args.bomb), "--inspect"]))
            cap = [] if args.max_work_mb is None else ["--max-work-mb", str(args.max_work_mb)]
            chosen = [(name, ["--instance", str(instance), "--mode", mode, *cap, *extra])
                      for name, extra in rows if not args.only or any(word in name for word in args.only)]
            # Each page's figure is its own process's peak, so pages measured side by side do not change each other's.
            with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
                results = pool.map(_run_child, [command for _, command in chosen])
                for (name, _), result in zip(chosen, results, strict=True):
                    worst = max(worst, result["growth_mb"]) if result["growth_mb"] == result["growth_mb"] else worst
                    print(f"{mode:7} {name:34} {result['status']!s:>6} {result['growth_mb']:10.1f} "
                          f"{result['seconds']:8.2f}  {result['message']}", flush=True)
    print(f"largest growth: {worst:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
