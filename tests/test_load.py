"""A small lecture hall against the hosted mode, as it is served: scripts/loadtest.py with 20 students for 20 s
(gunicorn on loopback, locust), then 200 inference requests at the same instant.

Asserted: no request failed (locust checks every answer's content, not only its status: a fragment must be the
fragment, a paste must redirect to the new corpus), each student's first requests were made as the script says,
the 200 simultaneous requests were all answered, and the script judged every target by its figures and said so.

Nothing here depends on how fast the machine is: a shared 2-core CI runner running the students, the server and
other tests at once is slower by a varying factor, and a test must not fail because the machine was busy. So the
percentiles and the burst's slowest answer are printed against the benchmark's targets (inference fragment p95 <
100 ms, matrix page p95 < 300 ms, burst within 2 s, for 200 students on a quiet machine), which the full
benchmark checks: ``python scripts/loadtest.py`` (10 minutes, 200 students). And only the requests a student
makes on arrival, before any pause, are counted: after that locust draws each student's tasks at random, between
pauses of 3 to 10 s, until the 20 s are over, so how many of each kind fit in varies with the draw and with the
machine's speed; they are printed, and every one made must have succeeded.

Then issue 12's scenario b, small: 20 students, 5 copies of the uploaded movie-review corpus (4 students to a
copy), each student pasting a corpus of their own, 20 s on SQLite. Asserted: no request failed, each student set
up as the scenario says, and no content was counted twice (``max(builds)`` of the ``counts`` table). The full
scenarios: ``python scripts/loadtest.py --scenario all`` (see its docstring).

The script's own helpers (its bounds, how it reads the counts table, the verdict when that table is absent) are
tested without starting a server.
"""
from __future__ import annotations

import importlib.util
import json
import signal
import subprocess
import sys
from argparse import Namespace
from pathlib import Path

import pytest
import sqlalchemy as sa
from conftest import SHARED_CORPORA, skip_unless_ci

REPO_ROOT = Path(__file__).resolve().parents[1]
LOADTEST = REPO_ROOT / "scripts" / "loadtest.py"
KINDS = ("corpus list", "corpus page", "paste corpus", "inference fragment", "parameters fragment", "matrix page")
CI_SLACK_MS = {"inference fragment": 500, "matrix page": 1000}  # the script's targets in this short run
STRICT_MS = {"inference fragment": 100, "matrix page": 300}  # the full benchmark's
TIMED_TARGETS = {"inference fragment p95 ms", "matrix page p95 ms", "burst max s"}
BURST = 200
BURST_LIMIT_S = 2.0
STUDENTS = 20
STUDENTS_PER_COPY = 4
SCENARIO_KINDS = ("corpus list", "shared link page", "open my copy", "paste corpus", "corpus page", "matrix page",
                  "inference fragment", "parameters fragment")


def run_loadtest(arguments: list[str], output: Path) -> dict:
    """scripts/loadtest.py with ``arguments``: the figures it wrote to ``output``, its report and exit code."""
    for module in ("gunicorn", "locust"):
        if importlib.util.find_spec(module) is None:
            skip_unless_ci(f"{module} is not installed (pip install -e '.[test]')")
    command = [sys.executable, str(LOADTEST), *arguments, "--json", str(output)]
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


@pytest.fixture(scope="module")
def figures(tmp_path_factory):
    return run_loadtest([
        "--users", "20", "--spawn-rate", "20", "--run-time", "20s",
        "--burst", str(BURST), "--burst-target", str(BURST_LIMIT_S),
        "--inference-p95-ms", str(CI_SLACK_MS["inference fragment"]),
        "--matrix-p95-ms", str(CI_SLACK_MS["matrix page"]),
    ], tmp_path_factory.mktemp("load") / "figures.json")


@pytest.fixture(scope="module")
def lecture(tmp_path_factory):
    """Scenario b with 20 students: its figures."""
    if not (SHARED_CORPORA / "movie-review-polarity-v2.0" / "all.jsonl").is_file():
        skip_unless_ci(f"the movie-review corpus is not in {SHARED_CORPORA}")
    data = run_loadtest([
        "--scenario", "b", "--users", str(STUDENTS), "--spawn-rate", "20", "--run-time", "20s",
    ], tmp_path_factory.mktemp("lecture") / "figures.json")
    assert [scenario["scenario"] for scenario in data["scenarios"]] == ["b"]
    scenario = data["scenarios"][0]
    assert "error" not in scenario, f"{scenario.get('error')}\n{data['report']}"
    scenario["report"] = data["report"]
    return scenario


@pytest.mark.slow
def test_no_request_failed(figures):
    kinds = figures["locust"]["kinds"]
    assert kinds["all requests"]["errors"] == 0, figures["locust"]["failures"]
    assert figures["burst"]["errors"] == 0, figures["burst"]["error_samples"]


def print_drawn_tasks(kinds: dict, expected: tuple[str, ...]) -> None:
    """How many requests of each kind the students made in all, the random tasks included."""
    print(", ".join(f"{kind}: {kinds.get(kind, {}).get('requests', 0)}" for kind in expected))


@pytest.mark.slow
def test_each_student_arrives_as_the_script_says(figures):
    kinds = figures["locust"]["kinds"]
    # On arrival, before any pause: each of the 20 students opens the corpus list, every fifth pastes a corpus, and
    # each opens the corpus's documents and then its matrix.
    assert kinds["corpus list"]["requests"] == 20
    assert kinds["paste corpus"]["requests"] == 4
    assert kinds["corpus page"]["requests"] >= 20 and kinds["matrix page"]["requests"] >= 20
    # Then the tasks drawn at random: only kinds the script knows.
    print_drawn_tasks(kinds, KINDS)
    assert set(kinds) - {"all requests"} <= set(KINDS)
    total = sum(row["requests"] for kind, row in kinds.items() if kind != "all requests")
    assert kinds["all requests"]["requests"] == total


@pytest.mark.slow
def test_the_burst_is_answered_in_full(figures):
    burst = figures["burst"]
    assert burst["requests"] == BURST and burst["errors"] == 0 and burst["error_samples"] == []
    assert 0 < burst["p50_s"] <= burst["max_s"]
    verdict = "meets" if burst["max_s"] <= BURST_LIMIT_S else "misses"
    print(f"burst: last answer after {burst['max_s']:.2f} s, {verdict} the benchmark's target of {BURST_LIMIT_S:g} s")


@pytest.mark.slow
def test_percentiles_are_reported_in_order(figures):
    kinds = figures["locust"]["kinds"]
    for kind, strict in STRICT_MS.items():
        row = kinds[kind]
        assert 0 < row["p50_ms"] <= row["p95_ms"] <= row["p99_ms"] <= row["max_ms"] * 1.1  # locust rounds above 100 ms
        verdict = "meets" if row["p95_ms"] < strict else "misses"
        print(f"{kind}: p95 {row['p95_ms']:.0f} ms {verdict} the benchmark's target of {strict} ms")


@pytest.mark.slow
def test_the_script_judges_every_target_and_says_so(figures):
    checks = {check["target"]: check for check in figures["checks"]}
    assert set(checks) == TIMED_TARGETS | {"errors (locust)", "errors (burst)"}
    # What does not depend on the machine's speed must pass.
    assert all(check["passed"] is True for target, check in checks.items() if target not in TIMED_TARGETS)
    # The timed targets are judged by their figures, against the limits this test gave.
    limits = {"inference fragment p95 ms": CI_SLACK_MS["inference fragment"],
              "matrix page p95 ms": CI_SLACK_MS["matrix page"], "burst max s": BURST_LIMIT_S}
    for target in TIMED_TARGETS:
        check = checks[target]
        assert check["limit"] == limits[target] and check["value"] is not None
        assert check["passed"] is (check["value"] <= check["limit"]), check
    # And the verdict is theirs: PASS and exit code 0 exactly when every target is met.
    passed = all(check["passed"] for check in checks.values())
    assert figures["passed"] is passed
    assert figures["exit_code"] == (0 if passed else 1)
    assert figures["report"].rstrip().endswith("PASS" if passed else "FAIL")
    assert figures["server"]["database"] == "sqlite"


# -- issue 12's scenario b, small --------------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.corpora
def test_lecture_no_request_failed(lecture):
    kinds = lecture["locust"]["kinds"]
    assert kinds["all requests"]["errors"] == 0, lecture["locust"]["failures"]


@pytest.mark.slow
@pytest.mark.corpora
def test_lecture_each_student_sets_up_as_the_scenario_says(lecture):
    kinds = lecture["locust"]["kinds"]
    copies = STUDENTS // STUDENTS_PER_COPY
    # Before any pause: the first of every 4 students opens the share link and makes the group's copy; every student
    # opens the corpus list once, pastes a corpus of their own and opens the copy's documents.
    assert kinds["shared link page"]["requests"] == copies
    assert kinds["open my copy"]["requests"] == copies
    assert kinds["corpus list"]["requests"] == STUDENTS
    assert kinds["paste corpus"]["requests"] == STUDENTS
    assert kinds["corpus page"]["requests"] >= STUDENTS
    # Then, after a pause, the matrix and the tasks drawn at random: only kinds the scenario knows.
    print_drawn_tasks(kinds, SCENARIO_KINDS)
    assert set(kinds) - {"all requests"} <= set(SCENARIO_KINDS)
    total = sum(row["requests"] for kind, row in kinds.items() if kind != "all requests")
    assert kinds["all requests"]["requests"] == total
    setup = lecture["setup"]
    assert setup["share_path"].startswith("/shared/")
    assert Path(setup["corpus"]).name == "all.jsonl"
    assert lecture["server"] == {"instances": 1, "workers": 2, "threads": 4, "preload": True, "database": "sqlite",
                                 "settings": {"WEBNB_RATE_LIMIT": "120 per 5 seconds; 3600 per 10 minutes"}}


@pytest.mark.slow
@pytest.mark.corpora
def test_lecture_counts_every_content_once(lecture):
    counts = lecture["counts"]
    assert counts["table"], counts
    # The teacher's corpus, its 5 copies (one content) and 20 different pasted corpora, each counted by one process.
    assert counts["max_builds"] == 1, counts
    assert counts["rows"] >= 1 + STUDENTS


@pytest.mark.slow
@pytest.mark.corpora
def test_lecture_memory_and_verdict(lecture):
    memory = lecture["memory"]
    assert memory["workers"] == 2
    assert 0 < memory["max_mb"] <= 1.5 * 1024
    checks = {check["target"]: check for check in lecture["checks"]}
    assert set(checks) == {"errors (locust)", "inference fragment p95 ms", "matrix page p95 ms",
                           "times a content was counted, max(builds)", "peak RSS of a worker MB"}
    assert "== summary (sqlite)" in lecture["report"]


# -- the script's helpers, without a server ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def loadtest():
    spec = importlib.util.spec_from_file_location("loadtest", LOADTEST)
    module = importlib.util.module_from_spec(spec)
    sys.modules["loadtest"] = module  # its dataclasses look their module up there
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules["loadtest"]


@pytest.mark.parametrize(("text", "seconds"), [("90", 90), ("20s", 20), ("2m", 120), ("1h30m", 5400), ("1m30s", 90)])
def test_run_time_is_read_as_locust_reads_it(loadtest, text, seconds):
    assert loadtest.run_time_seconds(text) == seconds


@pytest.mark.parametrize(("argv", "message"), [
    (["--run-time", "31m"], "outside 1 s to 30 minutes"),
    (["--run-time", "0s"], "outside 1 s to 30 minutes"),
    (["--run-time", "soon"], "not a duration"),
    (["--users", "1001"], "--users must be between 1 and 1000"),
    (["--scenario", "b", "--database-url", "postgresql+psycopg://postgres@db.example.org/test"],
     "must name a database on this machine"),
])
def test_the_script_refuses_what_is_not_bounded_or_not_local(loadtest, capsys, argv, message):
    with pytest.raises(SystemExit):
        loadtest.parse_args(argv)
    assert message in capsys.readouterr().err


def test_the_scenarios_have_their_own_defaults(loadtest):
    args = loadtest.parse_args(["--scenario", "all", "--database-url", "postgresql+psycopg://postgres@127.0.0.1/test"])
    assert (args.run_time, args.workers, args.threads, args.burst) == ("2m", 2, 4, 0)
    assert (args.inference_p95_ms, args.matrix_p95_ms) == (250, 400)
    default = loadtest.parse_args([])
    assert (default.run_time, default.burst, default.inference_p95_ms, default.matrix_p95_ms) == ("10m", 200, 100, 300)


def test_counting_evidence_when_the_table_is_absent_and_present(loadtest, tmp_path):
    url = f"sqlite:///{tmp_path / 'webnb.sqlite3'}"
    engine = sa.create_engine(url)
    with engine.begin() as connection:
        connection.execute(sa.text("CREATE TABLE corpora (id TEXT)"))
    assert loadtest.counting_evidence(url) == {"table": False, "max_builds": None, "rows": None}
    with engine.begin() as connection:
        connection.execute(sa.text("CREATE TABLE counts (content TEXT, options TEXT, builds INTEGER)"))
        connection.execute(sa.text("INSERT INTO counts VALUES ('a', 'x', 1), ('b', 'x', 2), ('a', 'y', 1)"))
    engine.dispose()
    assert loadtest.counting_evidence(url) == {"table": True, "max_builds": 2, "rows": 3}


def scenario_figures(counts: dict, errors: int = 0) -> dict:
    row = {"requests": 10, "errors": errors, "p50_ms": 10.0, "p95_ms": 20.0}
    return {"locust": {"kinds": {"all requests": row, "inference fragment": row, "matrix page": row}},
            "counts": counts, "memory": {"max_mb": 300.0}}


@pytest.mark.parametrize(("counts", "verdict"), [
    ({"table": False, "max_builds": None, "rows": None}, None),
    ({"table": True, "max_builds": 1, "rows": 21}, True),
    ({"table": True, "max_builds": 2, "rows": 21}, False),
])
def test_a_missing_counts_table_is_reported_not_failed(loadtest, counts, verdict):
    args = Namespace(inference_p95_ms=250.0, matrix_p95_ms=400.0, burst_target=2.0)
    checks = {check["target"]: check for check in loadtest.evaluate(scenario_figures(counts), args)}
    counted = checks["times a content was counted, max(builds)"]
    assert counted["passed"] is verdict
    line = loadtest._check_line(counted)
    assert line.startswith({None: "N/A", True: "PASS", False: "FAIL"}[verdict])
    if verdict is None:
        assert "counts table absent" in line
    assert all(check["passed"] for target, check in checks.items() if target != counted["target"])
