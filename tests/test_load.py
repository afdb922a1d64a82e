"""A small lecture hall against the hosted mode, as it is served: scripts/loadtest.py with 20 students for 20 s
(gunicorn on loopback, locust), then 200 inference requests at the same instant.

Asserted: no request failed (locust checks every answer's content, not only its status: a fragment must be the
fragment, a paste must redirect to the new corpus), every kind of request was made, and the 200 simultaneous
requests were all answered within 2 s. The percentile targets of the full benchmark (inference fragment p95 <
100 ms, matrix page p95 < 300 ms) are for 200 students on a quiet machine; a shared 2-core CI runner running
the students, the server and other tests at once is slower by a varying factor, so here they are asserted with
slack (500 ms and 1 s: a regression of an order of magnitude fails, noise does not) and the strict comparison
is printed. The full benchmark: ``python scripts/loadtest.py`` (10 minutes, 200 students).
"""
from __future__ import annotations

import importlib.util
import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import skip_unless_ci

REPO_ROOT = Path(__file__).resolve().parents[1]
LOADTEST = REPO_ROOT / "scripts" / "loadtest.py"
KINDS = ("corpus list", "corpus page", "paste corpus", "inference fragment", "parameters fragment", "matrix page")
CI_SLACK_MS = {"inference fragment": 500, "matrix page": 1000}
BURST = 200
BURST_LIMIT_S = 2.0


@pytest.fixture(scope="module")
def figures(tmp_path_factory):
    for module in ("gunicorn", "locust"):
        if importlib.util.find_spec(module) is None:
            skip_unless_ci(f"{module} is not installed (pip install -e '.[test]')")
    output = tmp_path_factory.mktemp("load") / "figures.json"
    command = [
        sys.executable, str(LOADTEST),
        "--users", "20", "--spawn-rate", "20", "--run-time", "20s",
        "--burst", str(BURST), "--burst-target", str(BURST_LIMIT_S),
        "--inference-p95-ms", str(CI_SLACK_MS["inference fragment"]),
        "--matrix-p95-ms", str(CI_SLACK_MS["matrix page"]),
        "--json", str(output),
    ]
    process = subprocess.Popen(command, cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        report, _ = process.communicate(timeout=150)
    except subprocess.TimeoutExpired:
        # SIGTERM, not SIGKILL: the script then stops its gunicorn on the way out.
        process.send_signal(signal.SIGTERM)
        report, _ = process.communicate(timeout=30)
        pytest.fail(f"the load test took more than 150 s:\n{report}")
    print(report)
    assert output.exists(), f"loadtest.py exited with {process.returncode} before writing its figures:\n{report}"
    data = json.loads(output.read_text())
    data["report"], data["exit_code"] = report, process.returncode
    return data


@pytest.mark.slow
def test_no_request_failed(figures):
    kinds = figures["locust"]["kinds"]
    assert kinds["all requests"]["errors"] == 0, figures["locust"]["failures"]
    assert figures["burst"]["errors"] == 0, figures["burst"]["error_samples"]


@pytest.mark.slow
def test_every_kind_of_request_was_made(figures):
    kinds = figures["locust"]["kinds"]
    for kind in KINDS:
        assert kinds.get(kind, {}).get("requests", 0) > 0, f"no {kind!r} requests"
    # Each of the 20 students opens the corpus list once, and every fifth pastes a corpus.
    assert kinds["corpus list"]["requests"] == 20
    assert kinds["paste corpus"]["requests"] == 4
    # Typing a review sends several fragments; they are most of the traffic.
    assert kinds["inference fragment"]["requests"] > kinds["corpus list"]["requests"]
    total = sum(row["requests"] for kind, row in kinds.items() if kind != "all requests")
    assert kinds["all requests"]["requests"] == total


@pytest.mark.slow
def test_the_burst_is_answered_within_two_seconds(figures):
    burst = figures["burst"]
    assert burst["requests"] == BURST
    assert 0 < burst["p50_s"] <= burst["max_s"] <= BURST_LIMIT_S


@pytest.mark.slow
def test_percentiles_within_ci_slack(figures):
    kinds = figures["locust"]["kinds"]
    for kind, limit in CI_SLACK_MS.items():
        row = kinds[kind]
        assert row["p50_ms"] <= row["p95_ms"] <= row["p99_ms"] <= row["max_ms"] * 1.1  # locust rounds above 100 ms
        assert row["p95_ms"] < limit, f"{kind}: p95 {row['p95_ms']} ms (CI limit {limit} ms)"
        strict = {"inference fragment": 100, "matrix page": 300}[kind]
        verdict = "meets" if row["p95_ms"] < strict else "misses"
        print(f"{kind}: p95 {row['p95_ms']:.0f} ms {verdict} the benchmark's target of {strict} ms")


@pytest.mark.slow
def test_the_script_passes_and_says_so(figures):
    assert figures["passed"] is True
    assert figures["exit_code"] == 0
    assert figures["report"].rstrip().endswith("PASS")
    assert all(check["passed"] for check in figures["checks"])
    assert figures["server"]["database"] == "sqlite"
