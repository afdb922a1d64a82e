"""Time the inference fragments and the parameters page on 20 Newsgroups against the built-in match reviews.

    python scripts/benchmark_pages.py [--repeat N] [--train PATH] [--json PATH] [--text TEXT] [--judge wall|cpu]

The app is created as a user runs it (local mode, a temporary instance folder). The 11,314 training documents of
20 Newsgroups are stored once as a corpus and counted once (timed apart: not part of any page). Every URL is asked
for once to warm the caches (counts, models). Then, in every repeat, each inference step's htmx fragment
(``HX-Request: true``) and the parameters page's fragment are asked for on both corpora, one right after the other
(who goes first swaps each repeat), for three models: multinomial α = 1, Bernoulli α = 0 and Bernoulli α = 1.

Reported: the median of each, and the ratio 20 Newsgroups / match reviews, PASS when it is at most 2 (issue 12).
Each request is timed twice: wall-clock time, and the CPU time of the thread that served it (``--judge cpu``), which
is what the request costs when other work shares the machine's cores (the wall-clock time then includes waiting).
The step ``factors`` lists a factor per vocabulary word for Bernoulli (tens of thousands of rows on 20 Newsgroups),
so it is shown but exempt from the target. Plain text on stdout; --json PATH also writes the figures.

The review holds words of both vocabularies ("keeper", "sharp" and "was" are match-review words), so that both
fragments teach the same lesson: a review whose every word is unseen in the match reviews leaves them nothing to
multiply, zero, smooth or underflow, and the comparison would set a whole lesson against an empty one.
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

from scripts.newsgroups_app import TRAIN, counted_app, write_figures  # noqa: E402
from webnb.lesson.state import STEPS  # noqa: E402

BUILT_IN = "match-reviews"
TARGET_RATIO = 2.0
EXEMPT = {"factors"}  # a factor per vocabulary word: the one step whose work grows with the vocabulary by design
MODELS = (
    ("multinomial α=1", {"model": "multinomial", "alpha": "1"}),
    ("bernoulli α=0", {"model": "bernoulli", "alpha": "0"}),
    ("bernoulli α=1", {"model": "bernoulli", "alpha": "1"}),
)
HTMX = {"HX-Request": "true"}


def pages(text: str) -> list[tuple[str, str, str, dict]]:
    """(model, page, step, query) for every fragment timed: each inference step, then the parameters page."""
    asked = []
    for model_name, model in MODELS:
        for step in STEPS:
            asked.append((model_name, "inference", step, {**model, "text": text, "step": step}))
        asked.append((model_name, "parameters", "", dict(model)))
    return asked


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--train", default=str(TRAIN))
    parser.add_argument("--text", default="the keeper was sharp and the graphics card renders OpenGL fast")
    parser.add_argument("--json", dest="json_path")
    parser.add_argument("--judge", choices=("wall", "cpu"), default="wall", help="the clock PASS/FAIL is read from")
    args = parser.parse_args(argv)

    counted = counted_app(Path(args.train), "webnb-pages-")
    client, newsgroups = counted.client, counted.corpus_id
    storing, counting = counted.storing_s, counted.counting_s

    asked = pages(args.text)

    def fetch(corpus_id: str, page: str, query: dict) -> tuple[float, float]:
        """(wall-clock, CPU) seconds of one request; the test client serves it in this thread."""
        wall, cpu = time.perf_counter(), time.thread_time()
        response = client.get(f"/corpora/{corpus_id}/{page}", query_string=query, headers=HTMX)
        cpu, wall = time.thread_time() - cpu, time.perf_counter() - wall
        body = response.get_data(as_text=True)
        assert response.status_code == 200 and "<html" not in body and 'role="alert"' not in body, body[:300]
        return wall, cpu

    for corpus_id in (newsgroups, BUILT_IN):  # warm: counts, models, templates
        for _, page, _, query in asked:
            fetch(corpus_id, page, query)

    times = {(model, page, step): {"20ng": [], BUILT_IN: []} for model, page, step, _ in asked}
    for repeat in range(args.repeat):
        order = [(newsgroups, "20ng"), (BUILT_IN, BUILT_IN)]
        if repeat % 2:
            order.reverse()
        for model, page, step, query in asked:
            for corpus_id, name in order:
                times[(model, page, step)][name].append(fetch(corpus_id, page, query))

    rows = []
    for (model, page, step), measured in times.items():
        row = {"model": model, "page": page, "step": step, "exempt": step in EXEMPT}
        for clock, position in (("wall", 0), ("cpu", 1)):
            big = statistics.median(t[position] for t in measured["20ng"])
            small = statistics.median(t[position] for t in measured[BUILT_IN])
            row[clock] = {
                "ms_20ng": round(big * 1000, 2),
                f"ms_{BUILT_IN}": round(small * 1000, 2),
                "ratio": round(big / small, 2),
            }
        row["pass"] = row[args.judge]["ratio"] <= TARGET_RATIO
        rows.append(row)

    print(f"20 Newsgroups stored in {storing:.1f} s, counted in {counting:.1f} s; {args.repeat} repeats, medians")
    print(f"review: {args.text!r}; verdict on {args.judge} time")
    print(f"{'':<43}{'wall-clock':^27}{'CPU (thread)':^27}")
    print(
        f"{'model':<16} {'page':<11} {'step':<14}" + f" {'20NG ms':>9} {'match ms':>9} {'ratio':>6}" * 2 + "  verdict"
    )
    for r in rows:
        verdict = ("pass" if r["pass"] else "over") + " (exempt)" if r["exempt"] else ("PASS" if r["pass"] else "FAIL")
        figures = "".join(
            f" {r[clock]['ms_20ng']:>9.2f} {r[clock][f'ms_{BUILT_IN}']:>9.2f} {r[clock]['ratio']:>6.2f}"
            for clock in ("wall", "cpu")
        )
        print(f"{r['model']:<16} {r['page']:<11} {r['step'] or '-':<14}{figures}  {verdict}")
    judged = [r for r in rows if not r["exempt"]]
    failed = [r for r in judged if not r["pass"]]
    print(f"{len(judged) - len(failed)} of {len(judged)} within {TARGET_RATIO:g}× ({'PASS' if not failed else 'FAIL'})")

    if args.json_path:
        write_figures(args.json_path, {
            "repeat": args.repeat,
            "text": args.text,
            "storing_s": storing,
            "counting_s": counting,
            "target_ratio": TARGET_RATIO,
            "judged_on": args.judge,
            "rows": rows,
            "pass": not failed,
        })
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
