"""Time what goes beyond the seeds' lessons on 20 Newsgroups (11,314 training posts, the 7,532 by-date test posts):

    python scripts/benchmark_beyond_seeds.py [--repeat N] [--json PATH]

- Complement Naive Bayes' fit from the kept class statistics against the multinomial model's from the same statistics
  (target: within 1.2×), and scikit-learn's ComplementNB fitted on the same count matrix, for scale;
- McNemar's exact test for every pair of four models (Bernoulli, multinomial, binary multinomial, Complement) on the
  test posts (target: 0.2 s);
- the feature-selection page (its htmx fragment; the accuracy curves come from a background job and are waited for
  first) and one word's 2 × 2 table (target: 0.5 s);
- the calibration page once the logistic regression it sets beside Naive Bayes is fitted and kept (target: 0.5 s).

Every figure is the median of ``--repeat`` runs, measured in this one run on this machine (machines are noisy:
compare within a run). Plain text on stdout; --json PATH also writes the figures.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from scripts.newsgroups_app import TEST, TRAIN, counted_app, write_figures  # noqa: E402
from webnb.engine import TrainingSet, read_corpus  # noqa: E402
from webnb.engine.evaluation.comparison import pair_tests  # noqa: E402
from webnb.engine.evaluation.heldout import on_test_corpus  # noqa: E402
from webnb.engine.text.complement import fit_complement_naive_bayes  # noqa: E402
from webnb.engine.text.models import fit_naive_bayes  # noqa: E402
from webnb.engine.text.statistics import ClassStatistics  # noqa: E402

TARGETS = {"complement_fit_ratio": 1.2, "mcnemar_s": 0.2, "selection_s": 0.5, "cell_s": 0.5, "calibration_s": 0.5}
HTMX = {"HX-Request": "true"}


def median_seconds(work, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def settled_twin(client, path: str, query: dict, timeout: float = 600.0) -> dict:
    """The page's JSON twin once no part of it is still computed by a background job: a twin computes the held-out
    split and the logistic regression in its own request, and says "running" with a job to wait for while the
    selection's curves are drawn."""
    data = client.get(path, query_string={**query, "format": "json"}).get_json()
    job = (data.get("curves") or {}).get("job") if isinstance(data.get("curves"), dict) else None
    if job is not None:
        client.application.extensions["webnb"]["jobs"].wait(job, timeout=timeout)
        data = client.get(path, query_string={**query, "format": "json"}).get_json()
    return data


def engine_figures(repeat: int) -> dict:
    from sklearn.naive_bayes import ComplementNB

    training = TrainingSet.build(read_corpus(TRAIN))
    held = on_test_corpus(training, read_corpus(TEST))
    stats = training.statistics
    complement = median_seconds(lambda: fit_complement_naive_bayes(stats, 1), repeat)
    multinomial = median_seconds(lambda: fit_naive_bayes(stats, "multinomial", 1), repeat)
    matrix, y = training.matrix, training.class_index
    theirs = median_seconds(lambda: ComplementNB(alpha=1.0).fit(matrix, y), repeat)
    # like for like with scikit-learn, which starts from the count matrix: counting the class statistics, then fitting
    from_matrix = median_seconds(lambda: fit_complement_naive_bayes(
        ClassStatistics.from_matrix(matrix, y, training.classes, training.vocabulary), 1), repeat)
    models = {
        "bernoulli": training.model("bernoulli", 1),
        "multinomial": training.model("multinomial", 1),
        "multinomial-binary": training.model("multinomial", 1, binary=True),
        "complement": training.model("complement", 1),
    }
    true = held.true_class
    correct = [model.predict_index(held.test_matrix) == true for model in models.values()]
    mcnemar = median_seconds(lambda: pair_tests(tuple(models), correct), repeat)
    accuracy = {key: float(right.mean()) for key, right in zip(models, correct, strict=True)}
    return {
        "complement_fit_s": complement, "multinomial_fit_s": multinomial, "sklearn_complement_fit_s": theirs,
        "complement_from_matrix_s": from_matrix,
        "complement_fit_ratio": complement / multinomial, "complement_vs_sklearn": from_matrix / theirs,
        "mcnemar_s": mcnemar, "accuracy": accuracy,
        "pairs": [pair.to_dict() for pair in pair_tests(tuple(models), correct)],
    }


def page_figures(repeat: int) -> dict:
    counted = counted_app(TRAIN, "webnb-beyond-")
    client, corpus_id = counted.client, counted.corpus_id

    def get(path: str, **query):
        response = client.get(f"/corpora/{corpus_id}{path}", query_string=query, headers=HTMX)
        assert response.status_code in (200, 202), response.get_data(as_text=True)[:300]
        return response

    # warm: the held-out split, the selection's curves and the logistic regression, computed once and kept
    for path, query in (("/selection", {"class": "sci.med", "sort": "chi2"}), ("/calibration", {})):
        data = settled_twin(client, f"/corpora/{corpus_id}{path}", query)
        assert data.get("error") is None, data.get("error")
        get(path, **query)
    selection = median_seconds(lambda: get("/selection", **{"class": "sci.med", "sort": "chi2"}), repeat)
    cell = median_seconds(lambda: get("/selection/cell", word="doctor", **{"class": "sci.med"}), repeat)
    calibration = median_seconds(lambda: get("/calibration"), repeat)
    return {"selection_s": selection, "cell_s": cell, "calibration_s": calibration}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=11)
    parser.add_argument("--json", dest="json_path")
    args = parser.parse_args(argv)

    figures = {**engine_figures(args.repeat), **page_figures(args.repeat)}
    print(f"20 Newsgroups, medians of {args.repeat}")
    print(f"Complement NB fit {figures['complement_fit_s'] * 1000:.2f} ms, multinomial NB fit "
          f"{figures['multinomial_fit_s'] * 1000:.2f} ms: ratio {figures['complement_fit_ratio']:.2f} "
          f"(target ≤ {TARGETS['complement_fit_ratio']})")
    print(f"From the count matrix (counting, then fitting): webnb {figures['complement_from_matrix_s'] * 1000:.2f} ms, "
          f"scikit-learn's ComplementNB.fit {figures['sklearn_complement_fit_s'] * 1000:.2f} ms "
          f"(webnb / scikit-learn {figures['complement_vs_sklearn']:.2f})")
    print("accuracy on the test posts: " + ", ".join(f"{k} {v:.4f}" for k, v in figures["accuracy"].items()))
    print(f"McNemar, every pair of four models: {figures['mcnemar_s'] * 1000:.2f} ms "
          f"(target ≤ {TARGETS['mcnemar_s'] * 1000:.0f} ms)")
    for pair in figures["pairs"]:
        print(f"  {pair['models'][0]} / {pair['models'][1]}: {pair['only_first_right']} against "
              f"{pair['only_second_right']}, p = {pair['p_value']}")
    for name in ("selection_s", "cell_s", "calibration_s"):
        print(f"{name.removesuffix('_s')} page: {figures[name] * 1000:.1f} ms (target ≤ {TARGETS[name] * 1000:.0f} ms)")
    passed = {name: (figures[name] <= target) for name, target in TARGETS.items()}
    print("PASS" if all(passed.values()) else "FAIL: " + ", ".join(name for name, ok in passed.items() if not ok))
    if args.json_path:
        write_figures(args.json_path, {"repeat": args.repeat, "targets": TARGETS, "passed": passed, **figures})
    return 0 if all(passed.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
