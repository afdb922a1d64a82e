"""Benchmark the webnb engine against scikit-learn on 20 Newsgroups (all 20 groups, 11,314 training documents).

    python scripts/benchmark.py [--repeat N] [--train PATH] [--json PATH] [--tracemalloc]

The records are read once (not timed). Then, for each measurement, our code and scikit-learn's run alternately
within every repeat (and swap who goes first from one repeat to the next), so that noise from other processes
affects both alike. Medians are reported, with PASS/FAIL against the targets:

  vectorise + fit      TrainingSet.build + model("multinomial", 1)   vs  CountVectorizer + MultinomialNB:
                       ratio ours / scikit-learn <= 0.7
  new alpha            model(kind, alpha) from kept counts, plus the per-model caches that scoring builds
                       (forced by scoring one row): median <= 20 ms per kind
  trace                explain(model, bag, review) for 20 short typed texts: median <= 5 ms per kind
  memory               RSS growth for the training set plus one model of each kind: <= 200 MB
  reading              read_corpus of the training file   vs  gunzip + json.loads of each line:
                       ratio ours / plain <= 1.5
  analysis growth      CPU time of analysing 100 KB over 10 KB of the texts that once made the e-mail and money
                       placeholders quadratic (tests/test_analysis_linear.py counts the work): <= 30 (linear ≈ 10)

Plain text on stdout; --json PATH also writes the figures (and the raw samples) as JSON.
"""
from __future__ import annotations

import argparse
import gc
import gzip
import hashlib
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

import numpy as np  # noqa: E402
import scipy  # noqa: E402
import scipy.sparse as sp  # noqa: E402
import sklearn  # noqa: E402
from sklearn.feature_extraction.text import CountVectorizer  # noqa: E402
from sklearn.naive_bayes import BernoulliNB, MultinomialNB  # noqa: E402

from webnb.engine import AnalysisOptions, Analyzer, TrainingSet, explain, read_corpus  # noqa: E402

DEFAULT_TRAIN = REPO_ROOT.parent / "shared" / "corpora" / "20newsgroups-bydate" / "train.jsonl.gz"

TARGET_FIT_RATIO = 0.7
TARGET_NEW_ALPHA_MS = 20.0
TARGET_TRACE_MEDIAN_MS = 5.0
TARGET_MEMORY_MB = 200.0
TARGET_READ_RATIO = 1.5
TARGET_ANALYSIS_GROWTH = 30.0

KINDS = ("bernoulli", "multinomial")
SKLEARN_MODELS = {"bernoulli": BernoulliNB, "multinomial": MultinomialNB}
ALPHAS_PER_REPEAT = 4

# Short texts as a user would type them (5 to 30 words), on 20 Newsgroups' topics; several contain words that
# 1990s Usenet never used, which the trace lists as outside the vocabulary.
REVIEWS = (
    "The new graphics card renders 3D scenes much faster than my old one.",
    "I think the Leafs will win the Stanley Cup this year, their goalie is amazing.",
    "My doctor says the medication has side effects, but the symptoms went away after a week.",
    "Does anyone know how to configure the X server for a dual monitor setup?",
    "The shuttle launch was delayed again because of a problem with the booster.",
    "Encryption keys should never be escrowed by the government; privacy matters more than convenience.",
    "Selling my bike, great condition, only 2000 miles, best offer takes it.",
    "Faith and reason are not opposites, and the Bible invites us to think.",
    "The engine makes a strange noise when I accelerate on the highway.",
    "Gun control laws do not stop criminals from getting weapons.",
    "I streamed the playoffs on my smartphone and the app kept buffering.",
    "The emoji-laden tweet about the vaccine went viral on Instagram yesterday.",
    "Great pitching, terrible hitting: the Mets lost again in extra innings.",
    "My Mac keeps crashing after the system update, any ideas?",
    "Quantum blockchain synergy will disrupt the cryptocurrency metaverse by next quarter.",
    "The soldering iron burned out the resistor on my circuit board.",
    "Atheists have morals too, just like everyone else does.",
    "The peace talks in the Middle East stalled again over the settlements.",
    "Windows crashed with a general protection fault while printing a long document from Word.",
    "Loved the podcast about covid lockdowns, zoom fatigue and remote work, honestly the best episode of the "
    "season so far and I cannot wait for the next one.",
)


# (placeholder, head, repeated unit): texts on which the placeholders' patterns were quadratic before they were made
# linear ("a." repeated under email, "1" then ",111" repeated under money), analysed at 10 KB and at 100 KB.
CRAFTED_TEXTS = (("email", "", "a."), ("money", "1", ",111"))
ANALYSIS_SIZES = (10_000, 100_000)


# -- small helpers -------------------------------------------------------------------------------------------------


def timed(function, *args, collect: bool = False, **kwargs):
    """(seconds, result) of one call; ``collect`` runs the garbage collector first (outside the timing)."""
    if collect:
        gc.collect()
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return time.perf_counter() - start, result


def median(samples) -> float:
    return float(statistics.median(samples))


def p90(samples) -> float:
    return float(np.percentile(samples, 90))


def alternating(repeat_index: int, first, second):
    """The two runs of one repeat, the order swapped on odd repeats."""
    return (first, second) if repeat_index % 2 == 0 else (second, first)


def proc_status_mb(field: str) -> float | None:
    """A memory figure of /proc/self/status (VmRSS, VmHWM) in MB, or None where there is no /proc."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024 / 1e6
    except OSError:
        pass
    return None


def reset_peak_rss() -> bool:
    """Reset VmHWM to the current RSS (Linux: write 5 to /proc/self/clear_refs)."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as clear_refs:
            clear_refs.write("5")
        return True
    except OSError:
        return False


def array_mb(*arrays) -> float:
    return sum(a.nbytes for a in arrays) / 1e6


def owned_array_mb(owner, exclude=()) -> float:
    """Size of the numpy arrays an engine object holds, looking into its attributes (including lazily cached
    ones), sparse matrices, tuples, dicts and nested engine objects; objects in ``exclude`` are not counted."""
    seen = {id(e) for e in exclude}
    total = 0

    def visit(value, depth: int) -> None:
        nonlocal total
        if id(value) in seen or isinstance(value, (str, bytes, int, float)):
            return
        seen.add(id(value))
        if isinstance(value, np.ndarray):
            total += value.nbytes
            return
        for item, item_depth in held_values(value, depth):
            visit(item, item_depth)

    visit(owner, 0)
    return total / 1e6


def held_values(value, depth: int):
    """(value, depth) of what ``value`` holds that owned_array_mb looks into: a sparse matrix's arrays, a tuple's,
    list's or dict's items, and (three levels deep at most) the attributes of an engine object."""
    if sp.issparse(value):
        for part in ("data", "indices", "indptr", "row", "col", "offsets"):
            if isinstance(getattr(value, part, None), np.ndarray):
                yield getattr(value, part), depth
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield item, depth
    elif isinstance(value, dict):
        for item in value.values():
            yield item, depth
    elif depth < 3 and type(value).__module__.startswith("webnb.") and hasattr(value, "__dict__"):
        for item in vars(value).values():
            yield item, depth + 1


def vocabulary_mb(bag) -> float:
    """Approximate size of the vocabulary strings, their tuple and the word -> column dict."""
    strings = sum(sys.getsizeof(word) for word in bag.vocabulary)
    return (strings + sys.getsizeof(bag.vocabulary) + sys.getsizeof(bag.index)) / 1e6


def force_scoring_caches(model, one_row: sp.csr_matrix) -> None:
    """Model properties are computed lazily on first use; scoring one row builds all that scoring needs."""
    model.joint_log_likelihood(one_row)


# -- the measurements ----------------------------------------------------------------------------------------------


def engine_version() -> dict:
    """The commit checked out (if this is a git work tree) and a digest of the engine's sources as they are now,
    so that figures can be tied to the code measured even when it has uncommitted changes."""
    digest = hashlib.sha256()
    for source in sorted((REPO_ROOT / "webnb" / "engine").glob("*.py")):
        digest.update(source.name.encode() + b"\0" + source.read_bytes() + b"\0")
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = None
    return {"commit": commit, "engine_sources_sha256": digest.hexdigest()[:16]}


def machine_facts() -> dict:
    cpu_model = None
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            cpu_model = next((line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name")), None)
    except OSError:
        pass
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    return {
        "cpu_count": os.cpu_count(),
        "cpus_usable": usable,
        "cpu_model": cpu_model,
        "load_average_at_start": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "sklearn": sklearn.__version__,
        **engine_version(),
    }


def measure_memory(corpus, with_tracemalloc: bool) -> dict:
    """RSS growth for the training set and one model of each kind (caches forced), and the main array sizes."""
    gc.collect()
    can_reset_peak = reset_peak_rss()
    before = proc_status_mb("VmRSS")
    training_set = TrainingSet.build(corpus)
    peak_build = proc_status_mb("VmHWM") if can_reset_peak else None
    gc.collect()
    after_build = proc_status_mb("VmRSS")
    reset_peak_rss()
    one_row = training_set.matrix[:1]
    models = {kind: training_set.model(kind, 1.0) for kind in KINDS}
    for model in models.values():
        force_scoring_caches(model, one_row)
    peak_models = proc_status_mb("VmHWM") if can_reset_peak else None
    gc.collect()
    after_models = proc_status_mb("VmRSS")

    matrix, stats = training_set.matrix, training_set.statistics
    figures = {
        "n_documents": matrix.shape[0],
        "n_words": matrix.shape[1],
        "n_classes": stats.n_classes,
        "matrix_nnz": int(matrix.nnz),
        "rss_before_mb": before,
        "rss_after_build_mb": after_build,
        "rss_after_models_mb": after_models,
        "growth_build_mb": None if before is None else after_build - before,
        "growth_total_mb": None if before is None else after_models - before,
        "peak_build_growth_mb": None if peak_build is None else peak_build - before,
        "peak_models_growth_mb": None if peak_models is None else peak_models - before,
        "arrays_mb": {
            "matrix (data+indices+indptr)": array_mb(matrix.data, matrix.indices, matrix.indptr),
            "class_index": array_mb(training_set.class_index),
            "statistics (all arrays, incl. cached)": owned_array_mb(stats),
            **{
                f"model {kind} (incl. scoring caches)": owned_array_mb(model, exclude=(stats,))
                for kind, model in models.items()
            },
            "vocabulary strings + index dict (approx.)": vocabulary_mb(training_set.bag),
        },
    }
    del training_set, models, one_row, matrix, stats
    gc.collect()

    figures["tracemalloc_peak_mb"] = None
    if with_tracemalloc:
        tracemalloc.start()
        training_set = TrainingSet.build(corpus)
        for kind in KINDS:
            force_scoring_caches(training_set.model(kind, 1.0), training_set.matrix[:1])
        figures["tracemalloc_peak_mb"] = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
        del training_set
        gc.collect()
    return figures


def measure_fit(corpus, repeat: int):
    """Vectorise + fit a multinomial model, ours and scikit-learn's alternately. Returns the figures and the last
    fitted objects of both (reused by the later measurements)."""
    texts, labels = list(corpus.texts), np.asarray(corpus.labels)
    samples = {"ours": [], "sklearn": []}
    kept = {}

    def ours():
        training_set = TrainingSet.build(corpus)
        return training_set, training_set.model("multinomial", 1.0)

    def theirs():
        vectorizer = CountVectorizer()
        matrix = vectorizer.fit_transform(texts)
        return vectorizer, matrix, MultinomialNB(alpha=1.0, force_alpha=True).fit(matrix, labels)

    for r in range(repeat):
        for name, run in alternating(r, ("ours", ours), ("sklearn", theirs)):
            kept.pop(name, None)  # free the previous run's result before timing the next
            seconds, kept[name] = timed(run, collect=True)
            samples[name].append(seconds)

    ours_median, theirs_median = median(samples["ours"]), median(samples["sklearn"])
    figures = {
        "ours_s": ours_median,
        "sklearn_s": theirs_median,
        "ratio": ours_median / theirs_median,
        "samples_s": samples,
    }
    training_set, _ = kept["ours"]
    vectorizer, matrix, _ = kept["sklearn"]
    return figures, training_set, vectorizer, matrix, labels


def measure_new_alpha(training_set, matrix, labels, repeat: int) -> dict:
    """Parameters for a fresh alpha from kept counts (ours, caches forced) vs scikit-learn re-fitting on kept X."""
    one_row = training_set.matrix[:1]
    samples = {f"{side}_{kind}": [] for side in ("ours", "sklearn") for kind in KINDS}
    alphas = []

    def ours(kind, alpha):
        model = training_set.model(kind, alpha)
        force_scoring_caches(model, one_row)

    def theirs(kind, alpha):
        SKLEARN_MODELS[kind](alpha=alpha, force_alpha=True).fit(matrix, labels)

    for r in range(repeat):
        for i in range(ALPHAS_PER_REPEAT):
            alpha = (1 + r * ALPHAS_PER_REPEAT + i) / 20  # 0.05, 0.1, 0.15, ...: never the same twice
            alphas.append(alpha)
            for kind in KINDS:
                for side, run in alternating(r + i, ("ours", ours), ("sklearn", theirs)):
                    seconds, _ = timed(run, kind, alpha)
                    samples[f"{side}_{kind}"].append(seconds * 1e3)
    figures = {f"{key}_ms": median(values) for key, values in samples.items()}
    figures["alphas"] = alphas
    figures["samples_ms"] = samples
    return figures


def measure_trace(training_set, vectorizer, matrix, labels, repeat: int) -> dict:
    """explain() of one typed text per call, vs scikit-learn's transform + predict_proba of that text."""
    bag = training_set.bag
    ours_models = {kind: training_set.model(kind, 1.0) for kind in KINDS}
    theirs_models = {kind: SKLEARN_MODELS[kind](alpha=1.0, force_alpha=True).fit(matrix, labels) for kind in KINDS}
    figures = {"n_reviews": len(REVIEWS), "words_per_review": [len(review.split()) for review in REVIEWS]}

    # Untimed first pass: builds the models' lazy caches, and checks both sides decide alike.
    traces = {kind: [explain(ours_models[kind], bag, review) for review in REVIEWS] for kind in KINDS}
    first = traces[KINDS[0]]
    figures["reviews_with_unseen_words"] = sum(1 for trace in first if trace.unseen)
    figures["unseen_words"] = sorted({word for trace in first for word in trace.unseen})
    for kind in KINDS:
        theirs = theirs_models[kind].predict(vectorizer.transform(REVIEWS)).tolist()
        figures[f"decisions_agree_{kind}"] = sum(t.decision == d for t, d in zip(traces[kind], theirs, strict=True))
    del traces, first

    def ours(kind, review):
        explain(ours_models[kind], bag, review)

    def theirs(kind, review):
        theirs_models[kind].predict_proba(vectorizer.transform([review]))

    samples = {f"{side}_{kind}": [] for side in ("ours", "sklearn") for kind in KINDS}
    for r in range(repeat):
        for i, review in enumerate(REVIEWS):
            for kind in KINDS:
                for side, run in alternating(r + i, ("ours", ours), ("sklearn", theirs)):
                    seconds, _ = timed(run, kind, review)
                    samples[f"{side}_{kind}"].append(seconds * 1e3)
    for key, values in samples.items():
        figures[f"{key}_median_ms"] = median(values)
        figures[f"{key}_p90_ms"] = p90(values)
    figures["samples_ms"] = samples
    return figures


def measure_reading(train: Path, repeat: int) -> dict:
    """read_corpus of the training file vs the least any reader does (gunzip if it is gzip, split the lines,
    json.loads each), alternately."""

    def ours():
        return read_corpus(train)

    def plain():
        data = train.read_bytes()
        text = (gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data).decode("utf-8")
        return [json.loads(line) for line in text.split("\n") if line.strip()]

    samples = {"ours": [], "plain": []}
    for r in range(repeat):
        for name, run in alternating(r, ("ours", ours), ("plain", plain)):
            seconds, _ = timed(run, collect=True)
            samples[name].append(seconds)
    ours_median, plain_median = median(samples["ours"]), median(samples["plain"])
    return {"ours_s": ours_median, "plain_s": plain_median, "ratio": ours_median / plain_median, "samples_s": samples}


def measure_analysis_growth(repeat: int) -> dict:
    """For each crafted text, the CPU time of this thread for one analysis at each size (best of ``repeat``), and
    the growth: the time at 100 KB over the time at 10 KB."""
    texts = {}
    for kind, head, unit in CRAFTED_TEXTS:
        analyzer = Analyzer(AnalysisOptions(normalize=(kind,)))
        best = {}
        for size in ANALYSIS_SIZES:
            text = head + unit * ((size - len(head)) // len(unit))
            samples = []
            for _ in range(repeat):
                gc.collect()
                start = time.thread_time()
                analyzer(text)
                samples.append(time.thread_time() - start)
            best[size] = min(samples)
        small, large = ANALYSIS_SIZES
        texts[f"{kind}: {head}{unit}…"] = {
            "small_ms": best[small] * 1e3, "large_ms": best[large] * 1e3, "growth": best[large] / best[small],
        }
    return {"texts": texts, "largest_growth": max(figures["growth"] for figures in texts.values())}


# -- report --------------------------------------------------------------------------------------------------------


def verdict(value, limit) -> str:
    if value is None:
        return "n/a"
    return "PASS" if value <= limit else "FAIL"


def print_machine(facts: dict, train: Path, corpus) -> None:
    print("== machine")
    print(f"cpu: {facts['cpu_count']} logical ({facts['cpus_usable']} usable), {facts['cpu_model']}")
    load = facts["load_average_at_start"]
    if load:
        print(f"load average at start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(f"platform: {facts['platform']}, Python {facts['python']}")
    print(f"numpy {facts['numpy']}, scipy {facts['scipy']}, scikit-learn {facts['sklearn']}")
    print(f"code: commit {facts['commit']}, engine sources sha256 {facts['engine_sources_sha256']}")
    print(f"corpus: {train} ({len(corpus)} documents, {len(corpus.classes)} classes)")
    print()


def print_memory(memory: dict) -> None:
    print("== memory of the fitted corpus (training set + one model of each kind, scoring caches built)")
    print(
        f"documents x words: {memory['n_documents']} x {memory['n_words']}, {memory['n_classes']} classes, "
        f"{memory['matrix_nnz']} non-zeros"
    )
    if memory["rss_before_mb"] is not None:
        print(
            f"RSS: {memory['rss_before_mb']:.1f} MB before, {memory['rss_after_build_mb']:.1f} MB after the "
            f"training set, {memory['rss_after_models_mb']:.1f} MB after the models"
        )
        print(f"growth: {memory['growth_build_mb']:.1f} MB training set, {memory['growth_total_mb']:.1f} MB in all")
        if memory["peak_build_growth_mb"] is not None:
            print(
                f"peak RSS above the start: +{memory['peak_build_growth_mb']:.1f} MB while building, "
                f"+{memory['peak_models_growth_mb']:.1f} MB while making the models"
            )
    else:
        print("RSS: /proc/self/status is not available on this system")
    if memory["tracemalloc_peak_mb"] is not None:
        print(f"tracemalloc peak (build + models): {memory['tracemalloc_peak_mb']:.1f} MB")
    print("array sizes:")
    for name, megabytes in memory["arrays_mb"].items():
        print(f"  {name:<45} {megabytes:8.1f} MB")
    print()


def print_fit(fit: dict) -> None:
    print("== vectorise + fit (multinomial, alpha = 1)")
    print(f"ours    TrainingSet.build + model:           median {fit['ours_s']:.3f} s  "
          f"[{', '.join(f'{s:.3f}' for s in fit['samples_s']['ours'])}]")
    print(f"sklearn CountVectorizer + MultinomialNB.fit: median {fit['sklearn_s']:.3f} s  "
          f"[{', '.join(f'{s:.3f}' for s in fit['samples_s']['sklearn'])}]")
    print(f"ratio ours / sklearn: {fit['ratio']:.2f} (target <= {TARGET_FIT_RATIO})")
    print()


def print_new_alpha(alpha: dict) -> None:
    n = len(alpha["alphas"])
    print(f"== new alpha -> new parameters ({n} fresh alphas from {alpha['alphas'][0]} to {alpha['alphas'][-1]})")
    for kind in KINDS:
        print(
            f"{kind:<12} ours (model + scoring caches) median {alpha[f'ours_{kind}_ms']:7.2f} ms   "
            f"sklearn re-fit on kept X median {alpha[f'sklearn_{kind}_ms']:7.2f} ms"
        )
    print(f"target: ours <= {TARGET_NEW_ALPHA_MS:g} ms")
    print()


def print_trace(trace: dict) -> None:
    words = trace["words_per_review"]
    print(
        f"== one typed text -> full trace ({trace['n_reviews']} texts of {min(words)}-{max(words)} words, "
        f"{trace['reviews_with_unseen_words']} with words outside the vocabulary)"
    )
    print(f"words outside the vocabulary: {', '.join(trace['unseen_words']) or '(none)'}")
    for kind in KINDS:
        print(
            f"{kind:<12} ours explain()  median {trace[f'ours_{kind}_median_ms']:6.2f} ms, "
            f"p90 {trace[f'ours_{kind}_p90_ms']:6.2f} ms   "
            f"sklearn transform+predict_proba median {trace[f'sklearn_{kind}_median_ms']:6.2f} ms, "
            f"p90 {trace[f'sklearn_{kind}_p90_ms']:6.2f} ms"
        )
        print(f"{'':<12} decisions equal to sklearn's predict: {trace[f'decisions_agree_{kind}']}/{trace['n_reviews']}")
    print(f"target: ours median <= {TARGET_TRACE_MEDIAN_MS:g} ms")
    print()


def print_reading(reading: dict) -> None:
    print("== reading the training file")
    print(f"ours  read_corpus:                      median {reading['ours_s']:.3f} s  "
          f"[{', '.join(f'{s:.3f}' for s in reading['samples_s']['ours'])}]")
    print(f"plain gunzip + json.loads of each line: median {reading['plain_s']:.3f} s  "
          f"[{', '.join(f'{s:.3f}' for s in reading['samples_s']['plain'])}]")
    print(f"ratio ours / plain: {reading['ratio']:.2f} (target <= {TARGET_READ_RATIO})")
    print()


def print_analysis_growth(growth: dict) -> None:
    small, large = (f"{size // 1000} KB" for size in ANALYSIS_SIZES)
    print(f"== text analysis of crafted texts, {small} and {large} (CPU time, best of the repeats)")
    for name, figures in growth["texts"].items():
        print(f"{name:<16} {small} {figures['small_ms']:8.2f} ms   {large} {figures['large_ms']:8.2f} ms   "
              f"growth {figures['growth']:5.1f}")
    print(f"target: growth <= {TARGET_ANALYSIS_GROWTH:g} for 10 times the text (linear ≈ 10, quadratic ≈ 100)")
    print()


def summary_rows(fit: dict, alpha: dict, trace: dict, memory: dict) -> list[tuple]:
    """(measure, ours, sklearn, target, result) rows of the final table."""
    rows = [(
        "vectorise + fit (s)", f"{fit['ours_s']:.3f}", f"{fit['sklearn_s']:.3f}",
        f"ratio {fit['ratio']:.2f} <= {TARGET_FIT_RATIO}", verdict(fit["ratio"], TARGET_FIT_RATIO),
    )]
    for kind in KINDS:
        ours = alpha[f"ours_{kind}_ms"]
        rows.append((
            f"new alpha, {kind} (ms)", f"{ours:.2f}", f"{alpha[f'sklearn_{kind}_ms']:.2f}",
            f"<= {TARGET_NEW_ALPHA_MS:g} ms", verdict(ours, TARGET_NEW_ALPHA_MS),
        ))
    for kind in KINDS:
        ours = trace[f"ours_{kind}_median_ms"]
        rows.append((
            f"trace, {kind} (ms)", f"{ours:.2f}", f"{trace[f'sklearn_{kind}_median_ms']:.2f}",
            f"<= {TARGET_TRACE_MEDIAN_MS:g} ms", verdict(ours, TARGET_TRACE_MEDIAN_MS),
        ))
    growth = memory["growth_total_mb"]
    rows.append((
        "memory growth (MB)", "n/a" if growth is None else f"{growth:.1f}", "-",
        f"<= {TARGET_MEMORY_MB:g} MB", verdict(growth, TARGET_MEMORY_MB),
    ))
    return rows


def print_summary(rows: list[tuple]) -> None:
    header = ("measure (median)", "ours", "sklearn", "target", "result")
    widths = [max(len(str(row[i])) for row in (header, *rows)) for i in range(len(header))]
    print("== summary")
    for row in (header, *rows):
        print("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
    failed = sum(row[-1] == "FAIL" for row in rows)
    print(f"{len(rows) - failed} of {len(rows)} targets met")


# -- main ----------------------------------------------------------------------------------------------------------


def parse_arguments(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="repeats of each measurement (default 5)")
    parser.add_argument("--train", type=Path, default=DEFAULT_TRAIN, help=f"training corpus (default {DEFAULT_TRAIN})")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the figures as JSON to PATH")
    parser.add_argument("--tracemalloc", action="store_true", help="also measure the tracemalloc peak (slower)")
    arguments = parser.parse_args(argv)
    if arguments.repeat < 1:
        parser.error("--repeat must be at least 1")
    if not arguments.train.is_file():
        parser.error(f"no training corpus at {arguments.train}")
    return arguments


def main(argv=None) -> int:
    arguments = parse_arguments(argv)
    facts = machine_facts()
    corpus = read_corpus(arguments.train)  # read once, not timed
    print_machine(facts, arguments.train, corpus)

    # Memory first, while the process has allocated little else: freed memory that the allocator keeps would
    # otherwise hide part of the growth.
    memory = measure_memory(corpus, arguments.tracemalloc)
    print_memory(memory)

    fit, training_set, vectorizer, matrix, labels = measure_fit(corpus, arguments.repeat)
    print_fit(fit)

    alpha = measure_new_alpha(training_set, matrix, labels, arguments.repeat)
    print_new_alpha(alpha)

    trace = measure_trace(training_set, vectorizer, matrix, labels, arguments.repeat)
    print_trace(trace)

    reading = measure_reading(arguments.train, arguments.repeat)
    print_reading(reading)

    growth = measure_analysis_growth(arguments.repeat)
    print_analysis_growth(growth)

    rows = summary_rows(fit, alpha, trace, memory)
    rows.append((
        "read the corpus (s)", f"{reading['ours_s']:.3f}", "-",
        f"ratio {reading['ratio']:.2f} to plain <= {TARGET_READ_RATIO}", verdict(reading["ratio"], TARGET_READ_RATIO),
    ))
    rows.append((
        "analysis growth, 10x text", f"{growth['largest_growth']:.1f}", "-",
        f"<= {TARGET_ANALYSIS_GROWTH:g}", verdict(growth["largest_growth"], TARGET_ANALYSIS_GROWTH),
    ))
    print_summary(rows)
    facts["load_average_at_end"] = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    if facts["load_average_at_end"]:
        print("load average at end: " + " ".join(f"{v:.2f}" for v in facts["load_average_at_end"]))

    if arguments.json:
        report = {
            "machine": facts,
            "train": str(arguments.train),
            "repeat": arguments.repeat,
            "targets": {
                "fit_ratio": TARGET_FIT_RATIO,
                "new_alpha_ms": TARGET_NEW_ALPHA_MS,
                "trace_median_ms": TARGET_TRACE_MEDIAN_MS,
                "memory_mb": TARGET_MEMORY_MB,
                "read_ratio": TARGET_READ_RATIO,
                "analysis_growth": TARGET_ANALYSIS_GROWTH,
            },
            "memory": memory,
            "vectorise_fit": fit,
            "new_alpha": alpha,
            "trace": trace,
            "reading": reading,
            "analysis_growth": growth,
            "summary": [
                dict(zip(("measure", "ours", "sklearn", "target", "result"), row, strict=True)) for row in rows
            ],
        }
        arguments.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        print(f"figures written to {arguments.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
