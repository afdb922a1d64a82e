"""Benchmark the compare page's logistic regression on 20 Newsgroups (all 20 groups) against scikit-learn.

    python scripts/benchmark_compare.py [--repeats N] [--C C] [--sklearn-max-iter N] [--train PATH] [--test PATH]
                                        [--json PATH]

The 11,314 training documents are counted as the compare page counts them (``TrainingSet.build``, 130,107 words)
and the 7,532 test documents with the same vocabulary (``on_test_corpus``). On these same count matrices, in every
repeat (who goes first swaps each repeat), medians reported:

  webnb          fit_softmax_regression with the stopping rule compare picks for the problem's size
                 (``stopping_rule``: for 20 Newsgroups ‖∇‖ ≤ 2 × 10⁻³ ‖∇ at 0‖, at most 100 iterations).
                 Timed from the count matrix, so its conversion to float64 is included.   target <= 10 s
  scikit-learn   LogisticRegression(C=C) with its defaults (lbfgs, tol 10⁻⁴, max_iter 100 unless
                 --sklearn-max-iter), on the float64 matrix.

Both run on one core: BLAS and OpenMP are limited to one thread (threadpoolctl) for the whole run. Test accuracy of
both, and their difference in points, must be within 1 point. Plain text on stdout; --json PATH also writes the
figures. Exit status 1 when webnb's median fit exceeds 10 s or the accuracies differ by more than 1 point.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
import warnings
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

import numpy as np  # noqa: E402
import sklearn  # noqa: E402
from sklearn.exceptions import ConvergenceWarning  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from scripts.newsgroups_app import TEST, TRAIN  # noqa: E402
from webnb.engine import TrainingSet, read_corpus  # noqa: E402
from webnb.engine.evaluation.comparison import stopping_rule  # noqa: E402
from webnb.engine.evaluation.heldout import on_test_corpus  # noqa: E402
from webnb.engine.text.discriminative import fit_softmax_regression  # noqa: E402

TARGET_FIT_S = 10.0
TARGET_ACCURACY_POINTS = 1.0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--C", type=float, default=1.0, help="inverse penalty strength, for both (default 1)")
    parser.add_argument("--sklearn-max-iter", type=int, default=100,
                        help="scikit-learn's iteration cap (default 100, its own default; 1000 runs it to tol)")
    parser.add_argument("--train", default=str(TRAIN))
    parser.add_argument("--test", default=str(TEST))
    parser.add_argument("--json", dest="json_path")
    args = parser.parse_args(argv)

    start = time.perf_counter()
    training = TrainingSet.build(read_corpus(args.train))
    held = on_test_corpus(training, read_corpus(args.test))
    counting = time.perf_counter() - start
    X_train, y_train = training.matrix, training.class_index
    X_test, y_test = held.test_matrix, held.true_class
    X_train_float, X_test_float = X_train.astype(np.float64), X_test.astype(np.float64)
    rule = stopping_rule(len(training.vocabulary), len(training.classes))

    ours_times, theirs_times, ours_runs, theirs_runs = [], [], [], []

    def ours():
        started = time.perf_counter()
        model = fit_softmax_regression(
            X_train, y_train, training.classes, C=args.C,
            tol=rule.tolerance, relative_tol=rule.relative_tolerance, max_iterations=rule.max_iterations,
        )
        ours_times.append(time.perf_counter() - started)
        ours_runs.append({"iterations": model.n_iterations, "converged": model.converged,
                          "accuracy": float(np.mean(model.predict_index(X_test) == y_test)),
                          "objective": model.objective_})

    def theirs():
        estimator = LogisticRegression(C=args.C, max_iter=args.sklearn_max_iter)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            started = time.perf_counter()
            estimator.fit(X_train_float, y_train)
            theirs_times.append(time.perf_counter() - started)
        theirs_runs.append({"iterations": int(estimator.n_iter_.max()),
                            "converged": not any(issubclass(w.category, ConvergenceWarning) for w in caught),
                            "accuracy": float(np.mean(estimator.predict(X_test_float) == y_test))})

    with threadpool_limits(1):  # one core: numpy's BLAS (and any OpenMP) on one thread for both libraries
        for repeat in range(args.repeats):
            order = (ours, theirs) if repeat % 2 == 0 else (theirs, ours)
            for work in order:
                work()

    ours_median, theirs_median = statistics.median(ours_times), statistics.median(theirs_times)
    ours_accuracy = statistics.median(run["accuracy"] for run in ours_runs)
    theirs_accuracy = statistics.median(run["accuracy"] for run in theirs_runs)
    difference_points = 100 * (ours_accuracy - theirs_accuracy)
    fast_enough = ours_median <= TARGET_FIT_S
    close_enough = abs(difference_points) <= TARGET_ACCURACY_POINTS
    figures = {
        "machine": {"python": platform.python_version(), "sklearn": sklearn.__version__, "cpus": os.cpu_count(),
                    "load": os.getloadavg()[0], "threads": 1},
        "documents": {"train": X_train.shape[0], "test": X_test.shape[0], "vocabulary": X_train.shape[1],
                      "classes": len(training.classes)},
        "C": args.C,
        "stopping_rule": {"tolerance": rule.tolerance, "relative_tolerance": rule.relative_tolerance,
                          "max_iterations": rule.max_iterations},
        "sklearn_max_iter": args.sklearn_max_iter,
        "counting_s": counting,
        "webnb_fit_s": ours_median,
        "sklearn_fit_s": theirs_median,
        "ratio": ours_median / theirs_median,
        "webnb_accuracy": ours_accuracy,
        "sklearn_accuracy": theirs_accuracy,
        "difference_points": difference_points,
        "samples": {"webnb_fit_s": ours_times, "sklearn_fit_s": theirs_times, "webnb": ours_runs,
                    "sklearn": theirs_runs},
    }
    print(f"20 Newsgroups: {X_train.shape[0]:,} training and {X_test.shape[0]:,} test documents, "
          f"{X_train.shape[1]:,} words, {len(training.classes)} classes; C = {args.C:g}; one thread; "
          f"scikit-learn {sklearn.__version__}; load {figures['machine']['load']:.2f}")
    print(f"counting both corpora: {counting:.2f} s (not timed below); {args.repeats} repeats, medians")
    relative = "off" if rule.relative_tolerance is None else f"{rule.relative_tolerance:g} of the first gradient"
    print(f"webnb         fit {ours_median:6.2f} s   iterations {[run['iterations'] for run in ours_runs]}   "
          f"converged {all(run['converged'] for run in ours_runs)}   (max entry {rule.tolerance:g}, length {relative}, "
          f"at most {rule.max_iterations})")
    print(f"scikit-learn  fit {theirs_median:6.2f} s   iterations {[run['iterations'] for run in theirs_runs]}   "
          f"converged {all(run['converged'] for run in theirs_runs)}   (lbfgs, tol 1e-4, max_iter "
          f"{args.sklearn_max_iter})")
    print(f"ratio webnb / scikit-learn {figures['ratio']:.2f}   "
          f"{'PASS' if fast_enough else 'FAIL'} (webnb <= {TARGET_FIT_S:g} s)")
    print(f"test accuracy: webnb {ours_accuracy:.4f}, scikit-learn {theirs_accuracy:.4f}, "
          f"difference {difference_points:+.2f} points   "
          f"{'PASS' if close_enough else 'FAIL'} (within {TARGET_ACCURACY_POINTS:g} point)")
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(figures, indent=2))
    return 0 if fast_enough and close_enough else 1


if __name__ == "__main__":
    sys.exit(main())
