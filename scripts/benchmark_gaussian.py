"""Benchmark Gaussian Naive Bayes against scikit-learn's GaussianNB on a large generated table.

    python scripts/benchmark_gaussian.py [--rows N] [--features D] [--classes K] [--repeat R] [--json PATH]

The table has N rows of D features in K classes (seeded normal data, a tenth of the test rows moved 60 standard
deviations out so their densities underflow). In every repeat webnb and scikit-learn alternate (who goes first swaps
each repeat); medians are reported, with the ratio webnb / scikit-learn:

  fit               GaussianStatistics.fit(table) + .model(var_smoothing)   vs  GaussianNB().fit(X, y)
  new var_smoothing .model(v) from the kept statistics                      vs  GaussianNB(var_smoothing=v).fit(X, y)
  predict           predict_log_proba on the test rows                       vs  GaussianNB.predict_log_proba
  evaluation page   GET /corpora/<id>/gaussian/evaluation (split, fit, score, render), a new var_smoothing each time
  peak memory       tracemalloc peak of one fit + predict                    vs  the same for scikit-learn

It also checks that both give the same predictions. Plain text on stdout; --json PATH also writes the figures.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

import numpy as np  # noqa: E402
from sklearn.naive_bayes import GaussianNB as SklearnGaussianNB  # noqa: E402

from webnb.engine.gaussian.model import GaussianStatistics  # noqa: E402
from webnb.engine.gaussian.table import NumericTable  # noqa: E402


def make_table(rows: int, features: int, classes: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(0, 3, size=(classes, features))
    scales = rng.uniform(0.5, 4, size=(classes, features))
    labels = rng.integers(0, classes, size=rows)
    values = centres[labels] + rng.normal(size=(rows, features)) * scales[labels]
    names = tuple(f"feature {j + 1}" for j in range(features))
    table = NumericTable(names, values, tuple(f"class {k}" for k in labels), tuple(str(i) for i in range(rows)))
    test = values[: rows // 4].copy()
    test[::10, 0] += 60 * scales.max()  # far from every mean: every density of that feature underflows
    return table, test


def timed(work) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def peak_bytes(work) -> int:
    tracemalloc.start()
    work()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--classes", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)

    table, test = make_table(args.rows, args.features, args.classes)
    labels = np.array(table.labels)
    smoothings = [10.0 ** -e for e in range(2, 2 + args.repeat * 2)]
    ours, theirs = {"fit": [], "smoothing": [], "predict": []}, {"fit": [], "smoothing": [], "predict": []}

    def our_fit():
        return GaussianStatistics.fit(table).model(1e-9)

    def their_fit():
        return SklearnGaussianNB().fit(table.values, labels)

    statistics_kept = GaussianStatistics.fit(table)
    model, reference = our_fit(), their_fit()
    for repeat in range(args.repeat):
        smoothing = smoothings[repeat]
        # The smoothing is bound as a default: every round is timed within this repeat.
        rounds = [
            ("ours", lambda: our_fit(), lambda smoothing=smoothing: statistics_kept.model(smoothing),
             lambda: model.predict_log_proba(test)),
            ("theirs", their_fit,
             lambda smoothing=smoothing: SklearnGaussianNB(var_smoothing=smoothing).fit(table.values, labels),
             lambda: reference.predict_log_proba(test)),
        ]
        if repeat % 2:
            rounds.reverse()
        for who, fit, smooth, predict in rounds:
            target = ours if who == "ours" else theirs
            target["fit"].append(timed(fit))
            target["smoothing"].append(timed(smooth))
            target["predict"].append(timed(predict))

    same = model.predict(test) == list(reference.predict(test))
    our_peak = peak_bytes(lambda: GaussianStatistics.fit(table).model(1e-9).predict_log_proba(test))
    their_peak = peak_bytes(lambda: SklearnGaussianNB().fit(table.values, labels).predict_log_proba(test))

    page_times = page_benchmark(table, args.repeat)

    results = {
        "rows": args.rows, "features": args.features, "classes": args.classes, "test_rows": len(test),
        "same_predictions": same,
        "median_seconds": {
            name: {"webnb": statistics.median(ours[name]), "scikit-learn": statistics.median(theirs[name])}
            for name in ours
        },
        "peak_bytes": {"webnb": our_peak, "scikit-learn": their_peak},
        "evaluation_page_median_seconds": statistics.median(page_times),
    }
    print(f"Gaussian NB: {args.rows:,} rows × {args.features} features, {args.classes} classes; "
          f"{len(test):,} test rows (a tenth far from every mean); medians of {args.repeat}")
    for name, title in (("fit", "fit"), ("smoothing", "new var_smoothing"), ("predict", "predict_log_proba")):
        mine, sk = results["median_seconds"][name]["webnb"], results["median_seconds"][name]["scikit-learn"]
        print(f"  {title:<20} webnb {mine * 1000:9.2f} ms   scikit-learn {sk * 1000:9.2f} ms   ratio {mine / sk:6.3f}")
    print(f"  {'peak memory':<20} webnb {our_peak / 2**20:9.1f} MB   scikit-learn {their_peak / 2**20:9.1f} MB   "
          f"ratio {our_peak / their_peak:6.3f}")
    print(f"  {'evaluation page':<20} {results['evaluation_page_median_seconds'] * 1000:.0f} ms "
          "(split, fit, score, HTML)")
    print(f"  same predictions: {same}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return results


def page_benchmark(table: NumericTable, repeat: int) -> list[float]:
    """The evaluation page of the table stored as a user's upload would be, a new var_smoothing each time."""
    from webnb import create_app

    with tempfile.TemporaryDirectory() as instance:
        app = create_app({"TESTING": True, "WTF_CSRF_ENABLED": False}, instance_path=instance)
        corpus_id = app.extensions["webnb"]["catalog"].add(table, name="benchmark", source="generated")
        client = app.test_client()
        client.get(f"/corpora/{corpus_id}/gaussian/evaluation")  # the stored table read once
        times = []
        for i in range(repeat):
            start = time.perf_counter()
            response = client.get(f"/corpora/{corpus_id}/gaussian/evaluation?var_smoothing={10.0 ** -(3 + i)}")
            times.append(time.perf_counter() - start)
            assert response.status_code == 200
        return times


if __name__ == "__main__":
    main()
