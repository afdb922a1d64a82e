"""The ``webnb`` command: serve the app, evaluate a model on a corpus, explain one classification."""
from __future__ import annotations

import argparse
import json
import math
import sys
from fractions import Fraction

from webnb.engine import (
    AnalysisOptions,
    CorpusError,
    TrainingSet,
    VocabularyOptions,
    evaluate,
    explain,
    read_corpus,
    stratified_split,
)
from webnb.engine.shared.numbers import is_plain_decimal, parse_whole
from webnb.engine.shared.plain import fraction_text, ratio_text
from webnb.engine.text.analysis import PLACEHOLDERS, STEMMERS, STRIP_ACCENTS, TOKEN_PATTERNS
from webnb.state import MAX_FEATURES, MAX_SEED, document_bound

# -- argument parsing ---------------------------------------------------------------------------

MAX_NGRAM = 9


def _document_bound(name: str):
    """An argparse type for min_df or max_df (``name``): "2" is a number of documents, "0.5" a fraction of them (as
    in scikit-learn), read as the lesson pages read them."""

    def bound(text: str):
        try:
            return document_bound(text, name)
        except ValueError as error:
            raise argparse.ArgumentTypeError(
                f"expected a whole number of documents or a fraction between 0 and 1, not {text[:40]!r} ({error})"
            ) from None

    return bound


def _whole(low: int, high: int):
    """An argparse type: a whole number from ``low`` to ``high``, of ASCII digits, read without converting a
    number thousands of digits long."""

    def whole(text: str) -> int:
        try:
            return parse_whole(text, low=low, high=high, what="it")
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected a whole number from {low:,} to {high:,}, not {text[:40]!r}"
            ) from None

    return whole


def _fraction_between_0_and_1(text: str) -> float:
    value = float(text) if is_plain_decimal(text.strip()) else math.nan
    if not 0.0 < value < 1.0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"expected a fraction between 0 and 1 such as 0.25, not {text[:40]!r}")
    return value


def _ngram_range(text: str) -> tuple[int, int]:
    try:
        low, high = (parse_whole(part, low=1, high=MAX_NGRAM, what="n") for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected MIN,MAX such as 1,2 (at most {MAX_NGRAM}), not {text[:40]!r}"
        ) from None
    return low, high


def _word_list(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


def _add_corpus_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--train", required=True, metavar="PATH", help="training corpus: JSON Lines, CSV or TSV (.gz too)"
    )
    parser.add_argument("--label-column", default="label", help="column or field holding the class (default: label)")
    parser.add_argument("--text-column", default="text", help="column or field holding the text (default: text)")


def _add_model_options(parser: argparse.ArgumentParser) -> None:
    model = parser.add_argument_group("model")
    model.add_argument("--model", choices=("bernoulli", "multinomial"), default="multinomial")
    model.add_argument(
        "--alpha", default="1", help="pseudo-count α ≥ 0; 0 is unsmoothed maximum likelihood (default 1)"
    )
    model.add_argument("--binary", action="store_true", help="count each word once per document")
    model.add_argument(
        "--epsilon", type=float, default=None, help="clip probabilities to [ε, 1 − ε] instead of (or besides) smoothing"
    )
    prior = model.add_mutually_exclusive_group()
    prior.add_argument("--uniform-prior", action="store_true", help="φ_k = 1/K instead of the class frequencies")
    prior.add_argument("--class-prior", type=_word_list, metavar="P1,P2,...", help="given priors, in class order")

    analysis = parser.add_argument_group("text analysis (as scikit-learn's CountVectorizer)")
    analysis.add_argument("--no-lowercase", dest="lowercase", action="store_false")
    analysis.add_argument(
        "--token-pattern",
        default="default",
        help=f"a preset ({', '.join(TOKEN_PATTERNS)}) or a regular expression (default: words of 2+ characters)",
    )
    analysis.add_argument("--strip-accents", choices=STRIP_ACCENTS, default=None)
    analysis.add_argument(
        "--stop-words", default=None, help="'english' for the built-in list, or a comma-separated list of words"
    )
    analysis.add_argument("--stemmer", choices=STEMMERS, default=None)
    analysis.add_argument(
        "--normalize",
        type=_word_list,
        default=(),
        metavar="KINDS",
        help=f"replace these by placeholder tokens, comma-separated: {', '.join(PLACEHOLDERS)}",
    )
    analysis.add_argument("--ngram-range", type=_ngram_range, default=(1, 1), metavar="MIN,MAX")

    vocabulary = parser.add_argument_group("vocabulary")
    vocabulary.add_argument("--min-df", type=_document_bound("min_df"), default=1)
    vocabulary.add_argument("--max-df", type=_document_bound("max_df"), default=1.0)
    vocabulary.add_argument(
        "--max-features", type=_whole(1, MAX_FEATURES), default=None, help="keep the N most frequent words"
    )

    parser.add_argument("--json", action="store_true", help="print JSON instead of text")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="webnb", description="Naive Bayes text classification, every number shown.")
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="serve the web app")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=_whole(0, 65535), default=5000)
    serve.add_argument("--debug", action="store_true", help="reload on code changes (development only)")

    evaluate_parser = commands.add_parser("evaluate", help="accuracy, confusion matrix, precision/recall/F1")
    _add_corpus_options(evaluate_parser)
    test = evaluate_parser.add_mutually_exclusive_group()
    test.add_argument("--test", metavar="PATH", help="a separate test corpus")
    test.add_argument("--test-size", type=_fraction_between_0_and_1,
                      help="hold out this fraction of the training corpus, per class")
    evaluate_parser.add_argument(
        "--seed", type=_whole(0, MAX_SEED), default=0, help="seed of the held-out split (default 0)"
    )
    _add_model_options(evaluate_parser)

    explain_parser = commands.add_parser("explain", help="Bayes' rule step by step for one review")
    _add_corpus_options(explain_parser)
    explain_parser.add_argument("--text", required=True, help="the review to classify")
    _add_model_options(explain_parser)

    cleanup = commands.add_parser(
        "cleanup", help="remove hosted workspaces not seen for a while, with their corpora (for cron)")
    cleanup.add_argument("--days", type=_days, default=None,
                         help="remove workspaces idle longer than this (default: WEBNB_RETENTION_DAYS, 30)")
    cleanup.add_argument("--dry-run", action="store_true", help="list what would be removed, remove nothing")
    return parser


def _days(text: str) -> float:
    days = float(text) if is_plain_decimal(text.strip()) else math.nan
    if not 0 < days <= 100_000:  # also refuses nan
        raise argparse.ArgumentTypeError(f"expected a number of days above 0, such as 30, not {text[:40]!r}")
    return days


def _analysis_options(args) -> AnalysisOptions:
    stop_words = args.stop_words
    if stop_words is not None and stop_words != "english":
        stop_words = _word_list(stop_words)
    return AnalysisOptions(
        lowercase=args.lowercase,
        token_pattern=args.token_pattern,
        strip_accents=args.strip_accents,
        stop_words=stop_words,
        stemmer=args.stemmer,
        normalize=tuple(args.normalize),
        ngram_range=args.ngram_range,
    )


def _vocabulary_options(args) -> VocabularyOptions:
    return VocabularyOptions(
        min_df=args.min_df, max_df=args.max_df, max_features=args.max_features, binary=args.binary
    )


def _model(training: TrainingSet, args):
    return training.model(
        args.model,
        args.alpha,
        binary=args.binary,
        fit_prior=not args.uniform_prior,
        class_prior=args.class_prior,
        epsilon=args.epsilon,
    )


def _read(args, path: str):
    return read_corpus(path, label_column=args.label_column, text_column=args.text_column)


# -- commands -------------------------------------------------------------------------------------


def run_serve(args) -> int:
    from webnb import create_app

    create_app().run(host=args.host, port=args.port, debug=args.debug)
    return 0


def run_cleanup(args, out) -> int:
    """Remove the hosted workspaces idle longer than the retention time, each with its corpora, their documents and
    share links, and its jobs, in one transaction each; print what was removed. Corpora stored in local mode have
    no workspace and are never removed."""
    import sqlalchemy as sa

    from webnb import create_app

    try:
        app = create_app()
    except (RuntimeError, sa.exc.SQLAlchemyError) as error:  # hosted without a secret; no database
        print(f"webnb cleanup: {error} Nothing was removed.", file=sys.stderr)
        return 2
    storage = app.extensions["webnb"]["storage"]
    try:
        return _clean_up(storage, app.config, args, out)
    except sa.exc.SQLAlchemyError as error:
        print(f"webnb cleanup: the database failed ({type(error).__name__}); each workspace is removed whole or not "
              "at all, so run it again.", file=sys.stderr)
        return 1
    finally:
        storage.dispose()


def _clean_up(storage, config, args, out) -> int:
    from datetime import datetime, timedelta, timezone

    from webnb.admission import size_text

    days = args.days if args.days is not None else float(config["WEBNB_RETENTION_DAYS"])
    before = datetime.now(timezone.utc) - timedelta(days=days)
    verb = "Would remove" if args.dry_run else "Removed"
    removed = []
    for idle in storage.idle_workspaces(before):
        gone = idle if args.dry_run else storage.remove_workspace(idle.workspace, before)
        if gone is None:
            continue  # seen again since it was listed
        removed.append(gone)
        print(f"{verb} workspace {gone.workspace[:8]}… (last seen {gone.last_seen:%Y-%m-%d %H:%M} UTC): "
              f"{_count(gone.corpora, 'corpus', 'corpora')}, {_count(gone.documents, 'document')}, "
              f"{size_text(gone.bytes)}, {_count(gone.shares, 'share link')}, {_count(gone.jobs, 'job')}", file=out)
    jobs = 0 if args.dry_run else storage.remove_old_jobs(before)
    print(f"{verb} {_count(len(removed), 'workspace')} idle for more than {days:g} days "
          f"({_count(sum(w.corpora for w in removed), 'corpus', 'corpora')}, "
          f"{size_text(sum(w.bytes for w in removed))}); the server now holds {size_text(storage.stored_bytes())} of "
          f"corpora." + (f" Also removed the progress of {_count(jobs, 'old job')}." if jobs else ""), file=out)
    return 0


def _count(n: int, singular: str, plural: str | None = None) -> str:
    return f"{n:,} {singular if n == 1 else plural or singular + 's'}"


def run_evaluate(args, out) -> int:
    corpus = _read(args, args.train)
    if args.test:
        train, test = corpus, _read(args, args.test)
        source = f"test corpus {args.test}"
    elif args.test_size is not None:
        train_index, test_index = stratified_split(corpus.labels, args.test_size, args.seed)
        train, test = corpus.subset(train_index), corpus.subset(test_index)
        source = f"held out {args.test_size:g} of each class (seed {args.seed})"
    else:
        train, test = corpus, corpus
        source = "the training corpus itself (training accuracy)"
    training = TrainingSet.build(train, _analysis_options(args), _vocabulary_options(args))
    model = _model(training, args)
    result = evaluate(model, training.transform(test.texts), test.labels)

    if args.json:
        report = {
            "n_train": len(train),
            "n_test": result.n_test,
            "test": source,
            "classes": list(model.classes),
            "class_prior": [float(p) for p in model.class_prior_],
            "vocabulary_size": len(training.vocabulary),
            "settings": {
                **model.to_dict(), **_analysis_options(args).to_dict(), **_vocabulary_options(args).to_dict()
            },
            **result.to_dict(),
        }
        json.dump(report, out, indent=2, ensure_ascii=False)
        out.write("\n")
        return 0

    print(f"Training: {args.train}: {len(train)} documents, {len(model.classes)} classes", file=out)
    print(f"Tested on: {source}: {result.n_test} documents", file=out)
    print(f"Model: {_model_line(model)}; vocabulary of {len(training.vocabulary)} words", file=out)
    print(f"Accuracy: {result.accuracy:.4f} ({result.correct} of {result.n_test} correct)", file=out)
    print(f"Cannot decide (every class at probability 0): {result.undecidable}", file=out)
    width = max(len(c) for c in model.classes)
    print("\nConfusion matrix (rows: true class; columns: predicted class, then undecided):", file=out)
    for label, row, undecided in zip(model.classes, result.confusion, result.undecidable_by_class, strict=True):
        print(f"  {label:<{width}}  " + " ".join(f"{v:>6}" for v in row) + f"  {undecided:>6}", file=out)
    print(f"\n  {'class':<{width}}  precision  recall      F1  support", file=out)
    for scores in result.per_class:
        cells = [_score(scores.precision), _score(scores.recall), _score(scores.f1)]
        print(f"  {scores.label:<{width}}  {cells[0]:>9}  {cells[1]:>6}  {cells[2]:>6}  {scores.support:>7}", file=out)
    return 0


def run_explain(args, out) -> int:
    corpus = _read(args, args.train)
    training = TrainingSet.build(corpus, _analysis_options(args), _vocabulary_options(args))
    model = _model(training, args)
    trace = explain(model, training.bag, args.text)
    if args.json:
        json.dump(trace.to_dict(), out, indent=2, ensure_ascii=False)
        out.write("\n")
        return 0
    _print_trace(trace, model, out)
    return 0


def _model_line(model) -> str:
    parts = [f"{model.kind} Naive Bayes", f"α = {fraction_text(model.alpha)}"]
    if model.epsilon is not None:
        parts.append(f"ε-floor {model.epsilon:g}")
    if model.kind == "multinomial" and model.binary:
        parts.append("binary features")
    parts.append(f"{model.prior_mode} prior")
    return ", ".join(parts)


def _score(value) -> str:
    return "—" if value is None else f"{value:.4f}"


def _value(exact: Fraction | None, approximate: float) -> str:
    decimal = f"{approximate:.6g}"
    return f"{fraction_text(exact)} ≈ {decimal}" if exact is not None and Fraction(exact).denominator != 1 else decimal


def _print_trace(trace, model, out) -> None:
    analysis = trace.analysis
    symbol = "ψ" if model.kind == "bernoulli" else "θ"
    print(f"Review: {trace.text}", file=out)
    print(f"Model: {_model_line(model)}; vocabulary of {trace.vocabulary_size} words", file=out)
    print(f"Tokens: {' '.join(analysis.features) or '(none)'}", file=out)
    if analysis.dropped:
        print("Dropped: " + ", ".join(f"{d.word} ({d.reason})" for d in analysis.dropped), file=out)
    if trace.unseen:
        print(f"Not in the vocabulary, ignored: {' '.join(trace.unseen)}", file=out)
    for cls in trace.per_class:
        prior = ratio_text(cls.prior_ratio) if cls.prior_ratio else fraction_text(cls.prior_exact)
        print(f"\nClass {cls.label}: prior φ = {prior} ≈ {cls.prior:.6g}", file=out)
        for factor in cls.factors:
            if model.kind == "bernoulli":
                name = f"{symbol}({factor.word})" if factor.present else f"1 − {symbol}({factor.word})"
            else:
                name = f"{symbol}({factor.word})" + (f"^{factor.power}" if factor.power > 1 else "")
            value = ratio_text(factor.ratio) if factor.ratio else f"{factor.probability:.6g}"
            flag = "   ← zero" if factor.is_zero else ""
            print(f"  {name:<28} = {value:<12} log = {_log(factor.log_value)}{flag}", file=out)
        if cls.absent_words is not None:
            absent = cls.absent_words
            print(
                f"  {absent.count} absent words: Π (1 − {symbol}) = {absent.product:.6g}, "
                f"log = {_log(absent.log_product)}",
                file=out,
            )
        exact = f"{fraction_text(cls.joint_exact)} ≈ " if cls.joint_exact not in (None, 0) else ""
        print(f"  product = {exact}{cls.joint:.6g} (float64, one factor at a time)", file=out)
        print(f"  sum of logs = {_log(cls.log_joint)}", file=out)
        for zero in cls.zero_factors:
            how = (
                "is in the review but never in" if zero.present
                else "is missing from the review but in every document of"
            )
            print(f"  zero: '{zero.word}' {how} class {zero.label}", file=out)
    print(file=out)
    if trace.cannot_decide:
        print("Every class has probability 0: the classifier cannot decide.", file=out)
        return
    print(f"log-sum-exp: shift by the largest sum of logs, {_log(trace.log_shift)}", file=out)
    print(f"  log P(x) = {_log(trace.log_shift)} + log {trace.sum_shifted:.6g} = {_log(trace.log_evidence)}", file=out)
    for cls in trace.per_class:
        print(f"  P({cls.label} | x) = {cls.posterior:.6g}", file=out)
    tie = f" (tied with {', '.join(trace.tied[1:])})" if trace.tied else ""
    print(f"Decision: {trace.decision}{tie}", file=out)


def _log(value: float) -> str:
    return "−∞" if value == -math.inf else f"{value:.6g}"


def main(argv=None, out=None) -> int:
    out = out or sys.stdout
    args = build_parser().parse_args(argv)
    try:
        if args.command == "serve":
            return run_serve(args)
        if args.command == "evaluate":
            return run_evaluate(args, out)
        if args.command == "cleanup":
            return run_cleanup(args, out)
        return run_explain(args, out)
    except (CorpusError, ValueError) as error:
        print(f"webnb: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
