"""Server time of hostile numbers: every numeric parameter of every lesson page (texts and tables) with values such
as 1e-100000, 10,000 digits, nan or fullwidth digits, in-process, after one warm-up request per page.

    python scripts/hostile_numbers.py [--repeats 3]

Prints, per parameter, the median and the slowest answer (the best of ``repeats`` for each request) and the same
for ordinary values, so the two can be compared in one run; timings are not asserted by the tests.
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time

HOSTILE = ["1e-100000", "1e-1000000", "1e1000000", "9" * 10_000, "1" + ",111" * 2000, "nan", "inf", "-1", "0x10",
           "１", "1_000", "1/0", "0." + "0" * 4000 + "1"]
ORDINARY = ["1", "0.5", "2"]
TEXT_PAGES = {
    "": ["page"], "matrix": ["rows", "cols"], "parameters": ["page"], "inference": ["document", "repeats"],
    "evaluation": ["wrong_page"], "evaluation/sweep": [], "compare": ["C"], "words": ["k", "top"],
    "confidence": ["repeats"], "sample": ["draw", "length"], "add": [], "export/predictions.csv": [],
}
TEXT_STATE = ["alpha", "min_df", "max_df", "max_features", "test_size", "seed"]
TABLE_PAGES = {"": ["page"], "parameters": [], "inference": ["value"], "evaluation": ["page"], "parameters.csv": []}
TABLE_STATE = ["var_smoothing", "test_size", "seed"]


def measure(client, url, query, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        response = client.get(url, query_string=query)
        best = min(best, time.perf_counter() - started)
        assert response.status_code < 500, (url, query)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    from webnb import create_app

    app = create_app({"TESTING": True, "WTF_CSRF_ENABLED": False}, instance_path=tempfile.mkdtemp())
    client = app.test_client()
    plans = [("match-reviews", TEXT_PAGES, TEXT_STATE, ""), ("iris", TABLE_PAGES, TABLE_STATE, "gaussian/")]
    timings: dict[tuple[str, str], list[float]] = {}
    for corpus, pages, state, prefix in plans:
        for page, own in pages.items():
            url = f"/corpora/{corpus}/{prefix}{page}".rstrip("/")
            for suffix in ({}, {"format": "json"}):
                client.get(url, query_string=suffix)  # warm: templates compiled, corpus counted
                for name in [*state, *own]:
                    for kind, values in (("hostile", HOSTILE), ("ordinary", ORDINARY)):
                        for value in values:
                            timings.setdefault((name, kind), []).append(
                                measure(client, url, {name: value, **suffix}, args.repeats))
    print(f"{'parameter':<14} {'hostile median':>15} {'hostile slowest':>16} "
          f"{'ordinary median':>16} {'ordinary slowest':>17}")
    for name in sorted({name for name, _ in timings}):
        hostile, ordinary = timings[(name, "hostile")], timings[(name, "ordinary")]
        print(f"{name:<14} {statistics.median(hostile) * 1e3:>12.2f} ms {max(hostile) * 1e3:>13.2f} ms "
              f"{statistics.median(ordinary) * 1e3:>13.2f} ms {max(ordinary) * 1e3:>14.2f} ms")
    everything = [t for (_, kind), values in timings.items() if kind == "hostile" for t in values]
    print(f"hostile requests: {len(everything):,}; median {statistics.median(everything) * 1e3:.2f} ms, "
          f"slowest {max(everything) * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
