"""The ``webnb`` command: serve the app, evaluate a model on a corpus or a table of numbers, explain one
classification."""
from __future__ import annotations

import argparse
import contextlib
import functools
import json
import math
import sys
import textwrap
from fractions import Fraction
from pathlib import Path

from webnb.engine import (
    AnalysisOptions,
    CorpusError,
    TrainingSet,
    VocabularyOptions,
    evaluate,
    explain,
    read_corpus_bytes,
    stratified_split,
)
from webnb.engine.gaussian.lesson import GaussianSplit, TableEvaluation, evaluate_table, gaussian_parameters
from webnb.engine.gaussian.model import DEFAULT_VAR_SMOOTHING, GaussianExplanation, GaussianNB, GaussianStatistics
from webnb.engine.gaussian.model import explain as explain_values
from webnb.engine.gaussian.table import NumericTable
from webnb.engine.io.uploads import inspect_table, read_numeric_table
from webnb.engine.records.complement_steps import ComplementExplanation, explain_complement
from webnb.engine.shared.numbers import is_plain_decimal, is_whole, parse_decimal, parse_whole
from webnb.engine.shared.plain import fraction_text, ratio_text
from webnb.engine.text.analysis import PLACEHOLDERS, STEMMERS, STRIP_ACCENTS, TOKEN_PATTERNS
from webnb.lesson.notation import model_name
from webnb.lesson.seed_lessons import ARCHIVES, RECIPES, ClassCorpusRecipe, get_recipe
from webnb.lesson.state import MAX_FEATURES, MAX_SEED, MAX_VAR_SMOOTHING, counting_options, document_bound, preset_state
from webnb.lti import commands as lti_commands

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


def _add_corpus_options(parser: argparse.ArgumentParser, text_only: list) -> None:
    parser.add_argument(
        "--train", required=True, metavar="PATH",
        help="training corpus: JSON Lines, CSV or TSV (.gz too); with --model gaussian, a table of numbers: a header "
             "row, a label column and columns of numbers (CSV or TSV, .gz too)",
    )
    parser.add_argument(
        "--label-column", default=None,
        help="column or field holding the class (default: label; in a table of numbers, the one column that is not "
             "numbers, or the last when all are)",
    )
    text_only.append(parser.add_argument(
        "--text-column", default="text", help="column or field holding the text (text models; default: text)"
    ))


def _add_model_options(parser: argparse.ArgumentParser, text_only: list, table_only: list) -> None:
    """The model, text-analysis and vocabulary options. ``text_only`` and ``table_only`` collect the options that
    belong to one kind of model (the caller's first), so that one given with the other kind is refused rather than
    quietly ignored."""
    model = parser.add_argument_group("model")
    model.add_argument(
        "--model", choices=("bernoulli", "multinomial", "complement", "gaussian"), default="multinomial",
        help="bernoulli or multinomial for texts, gaussian for a table of numbers (default: multinomial)",
    )
    prior = model.add_mutually_exclusive_group()
    prior.add_argument("--uniform-prior", action="store_true", help="φ_k = 1/K instead of the class frequencies")
    text_only.append(prior.add_argument(
        "--class-prior", type=_word_list, metavar="P1,P2,...", help="given priors, in class order (text models)"
    ))

    text_model = parser.add_argument_group("text models (bernoulli, multinomial)")
    text_only.extend([
        text_model.add_argument(
            "--alpha", default="1", help="pseudo-count α ≥ 0; 0 is unsmoothed maximum likelihood (default 1)"
        ),
        text_model.add_argument("--binary", action="store_true", help="count each word once per document"),
        text_model.add_argument(
            "--epsilon", type=float, default=None,
            help="clip probabilities to [ε, 1 − ε] instead of (or besides) smoothing",
        ),
    ])

    table_model = parser.add_argument_group("tables of numbers (--model gaussian)")
    table_only.append(table_model.add_argument(
        "--var-smoothing", type=_var_smoothing, default=None, metavar="X",
        help=f"add X × the largest feature variance to every variance, as scikit-learn's GaussianNB "
             f"(default {DEFAULT_VAR_SMOOTHING:g}, as on the pages)",
    ))

    analysis = parser.add_argument_group("text analysis (as scikit-learn's CountVectorizer; text models)")
    vocabulary = parser.add_argument_group("vocabulary (text models)")
    text_only.extend([
        analysis.add_argument("--no-lowercase", dest="lowercase", action="store_false"),
        analysis.add_argument(
            "--token-pattern",
            default="default",
            help=f"a preset ({', '.join(TOKEN_PATTERNS)}) or a regular expression (default: words of 2+ characters)",
        ),
        analysis.add_argument("--strip-accents", choices=STRIP_ACCENTS, default=None),
        analysis.add_argument(
            "--stop-words", default=None, help="'english' for the built-in list, or a comma-separated list of words"
        ),
        analysis.add_argument("--stemmer", choices=STEMMERS, default=None),
        analysis.add_argument(
            "--normalize",
            type=_word_list,
            default=(),
            metavar="KINDS",
            help=f"replace these by placeholder tokens, comma-separated: {', '.join(PLACEHOLDERS)}",
        ),
        analysis.add_argument("--ngram-range", type=_ngram_range, default=(1, 1), metavar="MIN,MAX"),
        vocabulary.add_argument("--min-df", type=_document_bound("min_df"), default=1),
        vocabulary.add_argument("--max-df", type=_document_bound("max_df"), default=1.0),
        vocabulary.add_argument(
            "--max-features", type=_whole(1, MAX_FEATURES), default=None, help="keep the N most frequent words"
        ),
    ])

    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.set_defaults(text_options=_described(text_only), table_options=_described(table_only))


def _described(actions) -> tuple[tuple[str, str, object], ...]:
    """(option, destination, default) of each argparse action."""
    return tuple((action.option_strings[0], action.dest, action.default) for action in actions)


def _var_smoothing(text: str) -> float:
    """An argparse type for --var-smoothing, read as the Gaussian pages read it."""
    try:
        return parse_decimal(text, "var_smoothing", low=0.0, high=MAX_VAR_SMOOTHING,
                             expected="Give a number from 0 to 1,000,000, such as 1e-9 or 0.")
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


EVALUATE_EXAMPLES = """examples:
  webnb evaluate --train reviews.jsonl --model bernoulli --alpha 1 --test-size 0.25
  webnb evaluate --train iris.csv --model gaussian --test-size 0.25 --seed 0 --json

--json, for texts and tables alike: n_train, n_test, test (what was tested on, in words), classes,
class_prior and settings at the top, and the scores under evaluation (accuracy, correct, undecidable,
confusion, per_class, log_loss, ...); texts add vocabulary_size, tables their bells (parameters) and
the rows got wrong (mistakes)."""

EXPLAIN_EXAMPLES = """examples:
  webnb explain --train reviews.jsonl --model bernoulli --text "match was sharp"
  webnb explain --train iris.csv --model gaussian --value 5.1 --value 3.5 --value 1.4 --value 0.2"""


def _add_command(commands, name: str, *, help: str, description: str, examples: str) -> argparse.ArgumentParser:
    """A command whose help ends with ``examples`` and keeps their line breaks, and those of its ``description``."""
    return commands.add_parser(name, help=help, description=description, epilog=examples,
                               formatter_class=argparse.RawDescriptionHelpFormatter)


def _add_actions(commands, name: str, *, help: str, description: str, examples: str):
    """A command made of actions (``webnb NAME ACTION``), as :func:`_add_command` writes its help: where its
    actions are added, one required."""
    command = _add_command(commands, name, help=help, description=description, examples=examples)
    return command.add_subparsers(dest="action", required=True)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="webnb", description="Naive Bayes on texts and tables of numbers, every number shown."
    )
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="serve the web app")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=_whole(0, 65535), default=5000)
    serve.add_argument("--debug", action="store_true", help="reload on code changes (development only)")
    serve.add_argument(
        "--allow-workspaces", action="store_true",
        help="start in local mode on a database that holds hosted workspaces' corpora (refused otherwise); they stay "
             "unlisted. The same as WEBNB_ALLOW_WORKSPACES=1, for flask run and gunicorn",
    )

    events = commands.add_parser(
        "events", help="serve the classes' event streams in hosted mode, beside gunicorn (README, Hosting a lecture "
                       "hall)",
        description="Serve /classes/<code>/events, the event streams that move the students' pages, from one "
                    "asynchronous process, with the same WEBNB_* settings as gunicorn's workers (the secret, the "
                    "database, and Redis in WEBNB_RATE_LIMIT_STORAGE or WEBNB_BROKER_URL). The reverse proxy sends "
                    "that address here and every other to gunicorn.",
    )
    events.add_argument("--host", default="127.0.0.1")
    events.add_argument("--port", type=_whole(0, 65535), default=8001)

    evaluate_parser = _add_command(
        commands, "evaluate", help="accuracy, confusion matrix, precision/recall/F1 (and the bell curves of a table)",
        description="Train on a corpus of texts or a table of numbers and score the model: on a separate test\n"
                    "file, on a held-out share of each class, or (by default) on the training rows themselves.",
        examples=EVALUATE_EXAMPLES,
    )
    text_only: list[argparse.Action] = []
    _add_corpus_options(evaluate_parser, text_only)
    test = evaluate_parser.add_mutually_exclusive_group()
    test.add_argument("--test", metavar="PATH",
                      help="a separate test corpus (for a table: the same columns as the training table)")
    test.add_argument("--test-size", type=_fraction_between_0_and_1,
                      help="hold out this fraction of the training corpus, per class")
    evaluate_parser.add_argument(
        "--seed", type=_whole(0, MAX_SEED), default=0, help="seed of the held-out split (default 0)"
    )
    _add_model_options(evaluate_parser, text_only, [])

    explain_parser = _add_command(
        commands, "explain", help="Bayes' rule step by step for one review or one row of numbers",
        description="Bayes' rule step by step for one review (text models) or one row of numbers\n"
                    "(--model gaussian), with the model trained on the whole training file.",
        examples=EXPLAIN_EXAMPLES,
    )
    text_only = []
    _add_corpus_options(explain_parser, text_only)
    classified = explain_parser.add_argument_group("what to classify")
    text_only.append(classified.add_argument("--text", help="the review to classify (text models)"))
    table_only = [classified.add_argument(
        "--value", action="append", default=None, metavar="X",
        help="one number of the row to classify (--model gaussian): give it once per feature, in the table's column "
             "order",
    )]
    _add_model_options(explain_parser, text_only, table_only)

    cleanup = commands.add_parser(
        "cleanup", help="remove hosted workspaces not seen for a while, with their corpora (for cron)")
    which = cleanup.add_mutually_exclusive_group()
    which.add_argument("--days", type=_days, default=None,
                       help="remove workspaces idle longer than this (default: WEBNB_RETENTION_DAYS, 30)")
    which.add_argument("--created-by", type=_address, default=None, metavar="ADDRESS",
                       help="instead, remove every workspace first stored in from this client address (as the server "
                            "saw it, e.g. 203.0.113.7), however recently it was seen")
    cleanup.add_argument("--dry-run", action="store_true", help="list what would be removed, remove nothing")
    _add_corpora_commands(commands)
    _add_class_commands(commands)
    lti_commands.add_commands(commands, _add_command, _add_actions)
    return parser


CORPORA_EXAMPLES = """examples:
  webnb corpora add 20news-bydate.tar.gz --lesson newsgroups-4
  webnb corpora add SMSSpamCollection --lesson sms-spam
  webnb corpora add reviews.zip --id film-reviews --name "Film reviews" --model bernoulli --alpha 1 \\
      --max-features 2000 --review "a sharp and moving film"
  webnb corpora list
  webnb corpora remove film-reviews"""

# Where each original file webnb can publish comes from (webnb/lesson/seed_lessons.py), for the help of ``corpora add``.
ARCHIVE_SOURCES = "where the original files come from (webnb does not ship them):\n" + "\n".join(
    textwrap.fill(archive.credit, width=100, initial_indent="  ", subsequent_indent="    ", break_long_words=False,
                  break_on_hyphens=False) for archive in ARCHIVES)

# The lesson presets of ``corpora add``: option, the address parameter it sets, and its help.
PRESETS = (
    ("--model", "model", "bernoulli or multinomial (default: multinomial)"),
    ("--alpha", "alpha", "the pseudo-count α (default 1)"),
    ("--binary", "binary", "count each word once per document"),
    ("--max-features", "max_features", "keep the N most frequent words"),
    ("--min-df", "min_df", "keep words in at least this many documents (or this fraction of them)"),
    ("--stop-words", "stop_words", "'english' to leave out the built-in list of stop words"),
    ("--ngram-range", "ngrams", "1,1 single words, 1,2 words and pairs, 2,2 pairs"),
    ("--floor", "floor", "the ε-floor of 10⁻¹⁴ instead of exact zeros"),
    ("--review", "text", "the review the inference page classifies"),
)
FLAG_PRESETS = ("--binary", "--floor")


def _add_preset_options(parser: argparse.ArgumentParser, title: str) -> None:
    """The options of ``PRESETS``, in a group of their own: each sets its address parameter, or leaves it unset."""
    presets = parser.add_argument_group(title)
    for option, parameter, text in PRESETS:
        if option in FLAG_PRESETS:
            presets.add_argument(option, dest=parameter, action="store_const", const="1", default=None, help=text)
        else:
            presets.add_argument(option, dest=parameter, default=None, help=text)


def _add_corpora_commands(commands) -> None:
    actions = _add_actions(
        commands, "corpora", help="publish corpora to every workspace, read-only like the built-ins (class corpora)",
        description="Class corpora: corpora the operator publishes to every workspace, in local and hosted mode.\n"
                    "Listed with the built-ins, opened with their presets, read-only, stored and counted once.",
        examples=CORPORA_EXAMPLES,
    )
    add = _add_command(
        actions, "add", help="publish a corpus", examples=CORPORA_EXAMPLES + "\n\n" + ARCHIVE_SOURCES,
        description="Publish the corpus in PATH, read as an upload is (CSV, TSV, JSON Lines, label<TAB>text lines,\n"
                    "gzipped too, or an archive with one folder per class). An archive with a training part and a\n"
                    "test part (20 Newsgroups by date) publishes its training part as ID; give --test-id to publish\n"
                    "its test part too, as the corpus ID is evaluated on.")
    add.add_argument("path", metavar="PATH")
    add.add_argument("--lesson", choices=[recipe.id for recipe in RECIPES], default=None,
                     help="publish a lecture's corpus with the lecture's id, title, description, classes and presets "
                          "(" + "; ".join(f"{recipe.id}: from {recipe.source}" for recipe in RECIPES) + "); the "
                          "options below change what they name; where each file comes from is said below)")
    add.add_argument("--id", dest="corpus_id", default=None,
                     help="its id in page addresses: lowercase letters, digits and hyphens, as the built-ins' "
                          "(required without --lesson)")
    add.add_argument("--name", default=None, help="its title in the lists (required without --lesson)")
    add.add_argument("--description", default=None, help="a sentence or two for the home page")
    add.add_argument("--test-id", default=None, help="the id of the archive's test part, published as well")
    add.add_argument("--labels", type=_word_list, default=None, metavar="A,B,C",
                     help="keep only these classes' documents")
    add.add_argument("--replace", action="store_true",
                     help="replace the class corpus already published under this id (and under the test part's id) "
                          "in one step: students see the old one or the new one, never a part of either")
    _add_preset_options(add, "lesson presets (what its pages open with, as in their addresses)")
    listing = actions.add_parser("list", help="the published class corpora")
    listing.add_argument("--json", action="store_true", help="print JSON instead of text")
    remove = actions.add_parser("remove", help="withdraw a class corpus (its stored records stay while others "
                                               "use them)")
    remove.add_argument("corpus_id", metavar="ID")


CLASS_EXAMPLES = """examples:
  webnb class start
  webnb class start --corpus sms-spam --model bernoulli --alpha 1 --hours 2 --json
  webnb class start --base-url https://webnb.example.org
  webnb class end 3X9KQR"""


def _add_class_commands(commands) -> None:
    from webnb.room.lecture import DEFAULT_HOURS

    actions = _add_actions(
        commands, "class", help="start or end a class in the room: students join by a short code or a QR code",
        description="A class in the room: students join by its code at /join (or the QR code of its join address)\n"
                    "and land on the lecturer's lesson page. It ends when the lecturer ends it or after --hours.",
        examples=CLASS_EXAMPLES,
    )
    start = _add_command(
        actions, "start", help="start a class and print its join code, join address and the lecturer's link",
        examples=CLASS_EXAMPLES,
        description="Start a class on the database the app serves. Prints its join code, its join address\n"
                    "(/join/CODE) and the lecturer's link: opening that link makes the browser the class's lecturer,\n"
                    "so keep it to yourself. Only a hash of its secret is stored; it is shown this once.")
    start.add_argument("--corpus", dest="corpus_id", default=None, metavar="ID",
                       help="the corpus the class opens on: a built-in or a class corpus (default: the first built-in, "
                            "match-reviews)")
    start.add_argument("--hours", type=_hours, default=DEFAULT_HOURS,
                       help=f"the class ends by itself after this many hours (default {DEFAULT_HOURS})")
    start.add_argument("--base-url", default="http://127.0.0.1:5000",
                       help="the address students reach the app at, for the absolute join and lecturer links "
                            "(default http://127.0.0.1:5000, that of `webnb serve`)")
    start.add_argument("--json", action="store_true", help="print JSON (code, join_url, lecturer_url, ends_at)")
    _add_preset_options(start, "lesson presets (what the class's pages open with, as for `corpora add`)")
    end = actions.add_parser("end", help="end a class now: nobody can join it any more")
    end.add_argument("code", metavar="CODE")


def _hours(text: str) -> float:
    from webnb.room.lecture import MAX_HOURS

    hours = float(text) if is_plain_decimal(text.strip()) else math.nan
    if not 0 < hours <= MAX_HOURS:  # also refuses nan
        raise argparse.ArgumentTypeError(f"give a number of hours above 0 and at most {MAX_HOURS}, such as 4")
    return hours


def run_class(args, out, now=None) -> int:
    """``webnb class start|end`` on the database the app serves (its configuration, as ``cleanup``). ``now`` (a
    timezone-aware datetime) stands in for the clock in tests."""
    work = functools.partial(_start_class if args.action == "start" else _end_class, now=now)
    return _on_the_served_database("class", work, args, out, nothing_done="Nothing was changed.",
                                   failed="nothing was changed.")


def run_lti(args, out) -> int:
    """``webnb lti ...`` on the database the app serves (webnb/lti/commands.py)."""
    return _on_the_served_database("lti", lti_commands.run, args, out, nothing_done="Nothing was changed.",
                                   failed="nothing was changed.")


def _start_class(app, args, out, *, now=None) -> int:
    from webnb.room.lecture import join_path, lecturer_path, start_class

    corpus_id = args.corpus_id or app.extensions["webnb"]["catalog"].builtin()[0].id
    entry = next((entry for entry in app.extensions["webnb"]["catalog"].builtin() if entry.id == corpus_id), None)
    if entry is None:
        raise CorpusError(f"there is no built-in or class corpus {corpus_id!r}; `webnb corpora list` lists the class "
                          "corpora, and the home page the built-ins.")
    presets = tuple((parameter, _preset_text(option, getattr(args, parameter)))
                    for option, parameter, _ in PRESETS if getattr(args, parameter) is not None)
    if presets and not entry.is_table:
        problems = preset_state(entry.presets + presets, entry.n_documents).errors
        if problems:
            options = {parameter: option for option, parameter, _ in PRESETS}
            raise ValueError("; ".join(f"{options.get(name, name)}: {message}" for name, message in problems.items()))
    elif presets:
        raise CorpusError(f"{corpus_id} is a table of numbers; the lesson presets are for corpora of texts.")
    started = start_class(app.extensions["webnb"]["storage"], entry.id, presets, hours=args.hours, now=now)
    base = args.base_url.rstrip("/")
    links = {"code": started.code, "join_url": base + join_path(started.code),
             "lecturer_url": base + lecturer_path(started.code, started.secret),
             "ends_at": started.record.ends_at.isoformat(timespec="seconds")}
    if args.json:
        _print_json(links, out)
        return 0
    print(f"Started a class on {entry.name} ({entry.id}) until {started.record.ends_at:%Y-%m-%d %H:%M} UTC.\n"
          f"Join code: {links['code']}\n"
          f"Students join at: {links['join_url']} (or type the code at {base}/join)\n"
          f"Lecturer's link (keep it to yourself; opening it makes that browser the lecturer):\n"
          f"  {links['lecturer_url']}", file=out)
    return 0


def _end_class(app, args, out, *, now=None) -> int:
    from webnb.room.lecture import normalise_code

    storage = app.extensions["webnb"]["storage"]
    code = normalise_code(args.code)
    record = None if code is None else storage.get_class(code)
    if record is None:
        print(f"webnb class: no class has the code {args.code!r}. Nothing was changed.", file=sys.stderr)
        return 2
    if storage.end_class(code, now=now):
        print(f"Ended the class {code}. Nobody can join it any more.", file=out)
    else:
        print(f"The class {code} had already ended. Nothing was changed.", file=out)
    return 0


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
    """The corpus of texts in ``path``; a table of numbers is refused with a pointer to --model gaussian."""
    data = _file_bytes(path)
    shape = _table_shape(data, path)
    if shape is not None and shape.numeric_features:
        features = ", ".join(map(repr, shape.numeric_features))
        raise CorpusError(
            f"{path} is a table of numbers (labels in {shape.suggested_label!r}, features {features}): a "
            f"{args.model} model classifies texts. Add --model gaussian to learn a bell curve per class and feature."
        )
    return read_corpus_bytes(
        data, filename=Path(path).name, label_column=args.label_column or "label", text_column=args.text_column
    )


def _file_bytes(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as err:
        raise CorpusError(f"Cannot read {path}: {err.strerror or err}") from err


def _table_shape(data: bytes, path: str):
    """The layout of ``data`` as the upload form guesses it (``numeric_features`` set for a table of numbers), or
    None when it is no table at all."""
    try:
        return inspect_table(data, Path(path).name)
    except CorpusError:  # empty, or not text: reading it will say what is wrong
        return None


def _read_numbers(args, path: str) -> NumericTable:
    """The table of numbers in ``path``, read as an upload is: a header row, one label column (--label-column, else
    the one the upload form finds) and columns of plain numbers on every row."""
    data = _file_bytes(path)
    shape = inspect_table(data, Path(path).name)
    label_column = args.label_column
    if label_column is None:
        if not shape.numeric_features:
            raise CorpusError(
                f"{path} is not a table of numbers: Gaussian Naive Bayes needs a header row naming the columns, one "
                "label column and columns of plain numbers on every row (as in iris.csv). For a corpus of texts, "
                "use --model bernoulli or multinomial."
            )
        label_column = shape.suggested_label
    return read_numeric_table(data, delimiter=shape.delimiter, label_column=label_column, filename=Path(path).name)


# -- commands -------------------------------------------------------------------------------------


def _address(text: str) -> str:
    import ipaddress

    try:
        return str(ipaddress.ip_address(text.strip()))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a client address such as 203.0.113.7 or 2001:db8::7, not {text[:60]!r}") from None


def run_serve(args) -> int:
    import os

    from webnb import create_app

    if args.allow_workspaces:
        # Through the environment, so that the reloader's process (--debug) is allowed as well.
        os.environ["WEBNB_ALLOW_WORKSPACES"] = "1"
    try:
        app = create_app()
    except RuntimeError as error:  # hosted without a secret; local mode on hosted workspaces' database
        print(f"webnb serve: {error}", file=sys.stderr)
        return 2
    warn_when_exposed_with_proxies(app, args.host)
    app.run(host=args.host, port=args.port, debug=args.debug)
    return 0


def warn_when_exposed_with_proxies(app, host: str) -> None:
    """Say so on standard error when proxies are trusted (WEBNB_PROXIES) and the server listens beyond loopback."""
    from webnb.hosting.security import exposed_addresses, proxies_warning

    if int(app.config.get("WEBNB_PROXIES", 0)) > 0 and exposed_addresses([host]):
        print(f"webnb: warning: {proxies_warning([host])}", file=sys.stderr)


def run_events(args) -> int:
    """``webnb events``: the classes' event streams (webnb/room/events_server.py), until stopped."""
    from webnb import create_app

    try:
        from webnb.room.events_server import uvicorn_server

        server = uvicorn_server(create_app(), host=args.host, port=args.port)
    except ImportError as error:  # uvicorn comes with the hosted extra
        print(f"webnb events: {error.name} is not installed: pip install -e '.[hosted]'", file=sys.stderr)
        return 2
    except RuntimeError as error:  # no secret, no Redis
        print(f"webnb events: {error}", file=sys.stderr)
        return 2
    server.run()
    return 0


def run_cleanup(args, out) -> int:
    """Remove the hosted workspaces idle longer than the retention time (or, with ``--created-by``, those first
    stored in from one client address), each with its corpora, their documents and share links, and its jobs, in
    one transaction each; print what was removed. Corpora stored in local mode have no workspace and are never
    removed."""
    return _on_the_served_database(
        "cleanup", lambda app, args, out: _clean_up(app.extensions["webnb"]["storage"], app.config, args, out),
        args, out, nothing_done="Nothing was removed.",
        failed="each workspace is removed whole or not at all, so run it again.")


def _on_the_served_database(command: str, work, args, out, *, nothing_done: str, failed: str) -> int:
    """``work(app, args, out)`` with the app the server would make (its configuration and database), which is closed
    after; a configuration or database that fails is said on stderr, ``nothing_done`` or ``failed`` added."""
    import sqlalchemy as sa

    from webnb import create_app

    try:
        # Not a server: nothing is listed to anyone, so a hosted database is no reason to refuse
        # (webnb/hosting/workspaces.py).
        with _allowing_workspaces():
            app = create_app()
    except (RuntimeError, sa.exc.SQLAlchemyError) as error:  # hosted without a secret; no database
        print(f"webnb {command}: {error} {nothing_done}", file=sys.stderr)
        return 2
    storage = app.extensions["webnb"]["storage"]
    try:
        return work(app, args, out)
    except sa.exc.SQLAlchemyError as error:
        print(f"webnb {command}: the database failed ({type(error).__name__}); {failed}", file=sys.stderr)
        return 1
    finally:
        storage.dispose()


@contextlib.contextmanager
def _allowing_workspaces():
    """WEBNB_ALLOW_WORKSPACES=1 while the app of a maintenance command (cleanup, corpora, class) is made: it may
    open the server's database in local mode even when hosted workspaces stored in it."""
    import os

    before = os.environ.get("WEBNB_ALLOW_WORKSPACES")
    os.environ["WEBNB_ALLOW_WORKSPACES"] = "1"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("WEBNB_ALLOW_WORKSPACES", None)
        else:
            os.environ["WEBNB_ALLOW_WORKSPACES"] = before


def _clean_up(storage, config, args, out) -> int:
    from datetime import datetime, timedelta, timezone

    from webnb.hosting.admission import address_key, size_text

    verb = "Would remove" if args.dry_run else "Removed"
    if args.created_by is not None:
        # The workspaces' rows keep the address's keyed hash, never the address: the same key finds them.
        found = storage.workspaces_created_by(address_key(args.created_by, config["SECRET_KEY"]))
        removed = _remove_workspaces(found, lambda w: storage.remove_workspace_now(w.workspace), args, out)
        print(f"{verb} {_count(len(removed), 'workspace')} first stored in from {args.created_by} "
              f"({_count(sum(w.corpora for w in removed), 'corpus', 'corpora')}, "
              f"{size_text(sum(w.bytes for w in removed))}); the server now holds {size_text(storage.stored_bytes())} "
              "of corpora.", file=out)
        return 0
    days = args.days if args.days is not None else float(config["WEBNB_RETENTION_DAYS"])
    before = datetime.now(timezone.utc) - timedelta(days=days)
    removed = _remove_workspaces(storage.idle_workspaces(before),
                                 lambda w: storage.remove_workspace(w.workspace, before), args, out)
    jobs = 0 if args.dry_run else storage.remove_old_jobs(before)
    lectures = 0 if args.dry_run else storage.remove_old_classes(before)
    print(f"{verb} {_count(len(removed), 'workspace')} idle for more than {days:g} days "
          f"({_count(sum(w.corpora for w in removed), 'corpus', 'corpora')}, "
          f"{size_text(sum(w.bytes for w in removed))}); the server now holds {size_text(storage.stored_bytes())} of "
          f"corpora." + (f" Also removed the progress of {_count(jobs, 'old job')}." if jobs else "")
          + (f" Also removed {_count(lectures, 'class', 'classes')} that ended before then, with who joined them."
             if lectures else ""), file=out)
    return 0


def _remove_workspaces(listed, remove, args, out) -> list:
    """``remove(workspace)`` each listed workspace (none with ``--dry-run``), printing a line for each; what was
    (or would be) removed."""
    from webnb.hosting.admission import size_text

    verb = "Would remove" if args.dry_run else "Removed"
    removed = []
    for workspace in listed:
        gone = workspace if args.dry_run else remove(workspace)
        if gone is None:
            continue  # seen again since it was listed, or removed meanwhile
        removed.append(gone)
        print(f"{verb} workspace {gone.workspace[:8]}… (last seen {gone.last_seen:%Y-%m-%d %H:%M} UTC): "
              f"{_count(gone.corpora, 'corpus', 'corpora')}, {_count(gone.documents, 'document')}, "
              f"{size_text(gone.bytes)}, {_count(gone.shares, 'share link')}, {_count(gone.jobs, 'job')}", file=out)
    return removed


def run_corpora(args, out) -> int:
    """``webnb corpora add|list|remove``, on the database the app serves (its configuration, as ``cleanup``)."""
    if args.action == "add":
        # The file, the labels and the presets are checked before the database is opened.
        work = functools.partial(_publish, published=_published(args))
    else:
        work = {"list": _list_class_corpora, "remove": _withdraw}[args.action]
    return _on_the_served_database("corpora", work, args, out, nothing_done="Nothing was changed.",
                                   failed="nothing was changed.")


def _published(args) -> list:
    """The corpora to publish: the training part, and the test part with --test-id, restricted to --labels, with
    their presets as (address parameter, text) pairs, checked by the pages' parser."""
    from webnb.engine.gaussian.table import NumericTable
    from webnb.engine.io.uploads import read_upload
    from webnb.store.database import PublishedCorpus

    recipe = _recipe_with_options(args)
    path = Path(args.path)
    read = read_upload(_file_bytes(args.path), filename=path.name)
    if isinstance(read.corpus, NumericTable):
        raise CorpusError(f"{args.path} is a table of numbers; a class corpus is a corpus of texts.")
    corpus, test = read.corpus, read.test_corpus
    test_id = args.test_id if args.test_id is not None else (recipe.test_id if test is not None else None)
    if test_id is not None and test is None:
        raise CorpusError(f"{args.path} has no test part (a -test folder beside a -train one): leave out --test-id.")
    if recipe.labels is not None:
        corpus, test = _only_labels(corpus, recipe.labels, args.path), test and _only_labels(test, recipe.labels)
    options = {parameter: option for option, parameter, _ in PRESETS} | {"test": "--test-id"}
    training_presets = recipe.presets + ((("test", test_id),) if test_id else ())
    problems = preset_state(training_presets, len(corpus)).errors
    if problems:
        raise ValueError("; ".join(f"{options[name]}: {message}" for name, message in problems.items()))
    source = f"published by the operator from {path.name}"
    published = [PublishedCorpus(recipe.id, recipe.name, recipe.description, source, training_presets, corpus)]
    if test_id is not None:
        published.append(PublishedCorpus(test_id, f"{recipe.name} (test)", recipe.description, source,
                                          recipe.presets, test))
    elif test is not None:
        print(f"webnb corpora: {path.name} has a test part too ({_count(len(test), 'document')}); only the training "
              "part is published. Give --test-id to publish it as well, as the corpus's test set.", file=sys.stderr)
    return published


def _recipe_with_options(args) -> ClassCorpusRecipe:
    """What to publish: the --lesson's recipe (or nothing) with the command line's own options in its place; without
    --lesson, --id and --name are required."""
    recipe = get_recipe(args.lesson) if args.lesson else None
    if recipe is None and (args.corpus_id is None or args.name is None):
        raise CorpusError("give --id and --name (or --lesson, which names the corpus itself).")
    given = tuple((parameter, _preset_text(option, getattr(args, parameter)))
                  for option, parameter, _ in PRESETS if getattr(args, parameter) is not None)
    kept = tuple((name, text) for name, text in (recipe.presets if recipe else ()) if name not in dict(given))
    return ClassCorpusRecipe(
        id=args.corpus_id or recipe.id,
        name=args.name or recipe.name,
        description=args.description if args.description is not None else (recipe.description if recipe else ""),
        source=args.path,
        presets=kept + given,
        labels=args.labels if args.labels is not None else (recipe.labels if recipe else None),
        test_id=recipe.test_id if recipe and args.corpus_id is None else None,
    )


def _preset_text(option: str, text: str) -> str:
    """The command line's spelling of a preset as the address spells it: --ngram-range 1,2 is ngrams=1-2."""
    return text.replace(",", "-") if option == "--ngram-range" else text


def _only_labels(corpus, labels: tuple[str, ...], path: str | None = None):
    """The documents of ``labels`` only; every label must be a class of the corpus (checked on the training part)."""
    if path is not None:
        unknown = [label for label in labels if label not in corpus.classes]
        if unknown:
            raise CorpusError(f"{path} has no class {', '.join(map(repr, unknown))}; its classes are "
                              f"{', '.join(corpus.classes)}.")
        if len(set(labels)) < 2:
            raise CorpusError("--labels keeps too few classes: a classifier needs at least two.")
    kept = set(labels)
    return corpus.subset([i for i, label in enumerate(corpus.labels) if label in kept])


def _publish(app, args, out, *, published) -> int:
    from webnb.hosting.catalog import check_class_corpus_id
    from webnb.store.database import StoredCorpusId

    catalog = app.extensions["webnb"]["catalog"]
    for entry in published:
        check_class_corpus_id(entry.id)
        if _route_of(app, entry.id):
            raise CorpusError(f"/corpora/{entry.id} is the address of another page, not a free corpus id. Choose "
                              "another.")
        if catalog.storage.summary(entry.id) is not None:
            raise CorpusError(users_corpus(entry.id))
    in_use = [entry.id for entry in published if catalog.storage.class_corpus(entry.id) is not None]
    if in_use and not args.replace:
        raise CorpusError(id_in_use(in_use))
    options = [counting_options(entry.presets, len(entry.corpus)) for entry in published]
    try:
        catalog.publish(published, options, replace=args.replace)
    except StoredCorpusId as refused:  # stored meanwhile: refused in the transaction, in the same words
        raise CorpusError(users_corpus(refused.corpus_id)) from None
    for entry in published:
        verb = "Replaced" if entry.id in in_use else "Published"
        print(f"{verb} {entry.id}: {entry.name}, {_count(len(entry.corpus), 'document')} in "
              f"{_count(len(entry.corpus.classes), 'class', 'classes')}, for every workspace.", file=out)
    return 0


def id_in_use(ids: list[str]) -> str:
    """The refusal of ``corpora add`` when class corpora are published under ``ids`` already, saying both ways on."""
    named = " and ".join(repr(corpus_id) for corpus_id in ids)
    removes = " and then ".join(f"`webnb corpora remove {corpus_id}`" for corpus_id in ids)
    if len(ids) == 1:
        return (f"The id {named} is taken already. Nothing was stored. It is in use by a class corpus: to replace "
                f"that, run the same command with --replace, or remove it first with {removes}.")
    return (f"The ids {named} are taken already. Nothing was stored. They are in use by class corpora: to replace "
            f"those, run the same command with --replace, or remove them first with {removes}.")


def users_corpus(corpus_id: str) -> str:
    """The refusal of an id that a corpus stored by a user has (whatever the options: --replace never replaces one)."""
    return (f"The id {corpus_id!r} is taken already. Nothing was stored. It is in use by a corpus a user stored, not "
            "a class corpus, which --replace never replaces: choose another id.")


def _route_of(app, corpus_id: str) -> bool:
    """Whether /corpora/ID is another page's address (the upload and paste forms post there) besides a corpus's."""
    from werkzeug.exceptions import HTTPException

    adapter = app.url_map.bind("localhost")
    endpoints = []
    for method in ("GET", "POST"):
        try:
            endpoints.append(adapter.match(f"/corpora/{corpus_id}", method=method)[0])
        except HTTPException:  # 405: no page of this method at that address
            pass
    return endpoints != ["corpus.show"]


def _list_class_corpora(app, args, out) -> int:
    entries = [entry for entry in app.extensions["webnb"]["catalog"].builtin() if entry.class_corpus]
    if args.json:
        _print_json([{"id": entry.id, "name": entry.name, "description": entry.description, "source": entry.source,
                      "documents": entry.n_documents, "class_counts": dict(entry.class_counts),
                      "presets": dict(entry.presets)} for entry in entries], out)
        return 0
    if not entries:
        print("No class corpora are published. `webnb corpora add PATH --id ID --name NAME` publishes one.", file=out)
    for entry in entries:
        print(f"{entry.id}: {entry.name}, {_count(entry.n_documents, 'document')} "
              f"({', '.join(f'{label} {count:,}' for label, count in entry.class_counts)})", file=out)
        if entry.presets:
            print(f"  opens with {', '.join(entry.preset_phrases)}", file=out)
    return 0


def _withdraw(app, args, out) -> int:
    entry = app.extensions["webnb"]["catalog"].withdraw(args.corpus_id)
    print(f"Removed {entry.id}: {entry.name}. Workspaces no longer see it.", file=out)
    return 0


def _count(n: int, singular: str, plural: str | None = None) -> str:
    return f"{n:,} {singular if n == 1 else plural or singular + 's'}"


def run_evaluate(args, out) -> int:
    _refuse_options_of_the_other_model(args)
    if args.model == "gaussian":
        return run_evaluate_table(args, out)
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
            "train": args.train,
            "n_train": len(train),
            "n_test": result.n_test,
            "test": source,
            "classes": list(model.classes),
            "class_prior": [float(p) for p in model.class_prior_exact],
            "vocabulary_size": len(training.vocabulary),
            "settings": {
                **model.to_dict(), **_analysis_options(args).to_dict(), **_vocabulary_options(args).to_dict()
            },
            # The scores under "evaluation", as for a table of numbers (and on the Gaussian evaluation page).
            "evaluation": result.to_dict(),
        }
        _print_json(report, out)
        return 0

    print(f"Training: {args.train}: {len(train)} documents, {len(model.classes)} classes", file=out)
    print(f"Tested on: {source}: {result.n_test} documents", file=out)
    print(f"Model: {_model_line(model)}; vocabulary of {len(training.vocabulary)} words", file=out)
    _print_scores(result, out)
    return 0


def _refuse_options_of_the_other_model(args) -> None:
    """Refuse an option of the text models with --model gaussian, and one of tables with a text model: each would
    be quietly ignored."""
    gaussian = args.model == "gaussian"
    options = args.text_options if gaussian else args.table_options
    given = [option for option, dest, default in options if getattr(args, dest) != default]
    if not given:
        return
    named = f"{', '.join(given)} {'is' if len(given) == 1 else 'are'}"
    if gaussian:
        raise ValueError(
            f"{named} for text models (bernoulli, multinomial). A Gaussian model on a table of numbers takes "
            "--var-smoothing and --uniform-prior."
        )
    raise ValueError(f"{named} for a table of numbers: add --model gaussian.")


def _print_scores(result, out) -> None:
    """Accuracy, the confusion matrix and each class's precision, recall and F1 of an ``Evaluation``."""
    print(f"Accuracy: {result.accuracy:.4f} ({result.correct} of {result.n_test} correct)", file=out)
    if result.log_loss is None:  # Complement Naive Bayes: scores, not probabilities
        print(f"Cannot decide (two or more classes scoring +∞): {result.undecidable}", file=out)
        print("Log loss: none (the scores are sums of weights, not probabilities)", file=out)
    else:
        print(f"Cannot decide (every class at probability 0): {result.undecidable}", file=out)
    classes = result.classes
    width = max(len(c) for c in classes)
    print("\nConfusion matrix (rows: true class; columns: predicted class, then undecided):", file=out)
    for label, row, undecided in zip(classes, result.confusion, result.undecidable_by_class, strict=True):
        print(f"  {label:<{width}}  " + " ".join(f"{v:>6}" for v in row) + f"  {undecided:>6}", file=out)
    print(f"\n  {'class':<{width}}  precision  recall      F1  support", file=out)
    for scores in result.per_class:
        cells = [_score(scores.precision), _score(scores.recall), _score(scores.f1)]
        print(f"  {scores.label:<{width}}  {cells[0]:>9}  {cells[1]:>6}  {cells[2]:>6}  {scores.support:>7}", file=out)


def _print_json(report: dict, out) -> None:
    json.dump(report, out, indent=2, ensure_ascii=False)
    out.write("\n")


# -- tables of numbers ----------------------------------------------------------------------------------------


def held_rows(args, table: NumericTable) -> tuple[GaussianSplit, str]:
    """The test rows the options ask for (a test file, a stratified split or the training rows themselves), and what
    they are, in words."""
    if args.test:
        test = _read_numbers(args, args.test)
        if test.features != table.features:
            raise CorpusError(
                f"The test table's features ({', '.join(map(repr, test.features))}) are not the training table's "
                f"({', '.join(map(repr, table.features))}): give the same columns, in the same order."
            )
        return GaussianSplit.tested_on(table, test), f"test table {args.test}"
    if args.test_size is not None:
        return (GaussianSplit.of(table, "split", args.test_size, args.seed),
                f"held out {args.test_size:g} of each class (seed {args.seed})")
    return GaussianSplit.of(table, "training"), "the training rows themselves (training accuracy)"


def _gaussian_settings(args) -> tuple[float, str]:
    """(var_smoothing, prior) as the Gaussian pages name them."""
    smoothing = DEFAULT_VAR_SMOOTHING if args.var_smoothing is None else args.var_smoothing
    return smoothing, "uniform" if args.uniform_prior else "learned"


def run_evaluate_table(args, out) -> int:
    """The evaluation page of a table on the command line: the scores, the bells learned and the rows got wrong."""
    held, tested_on = held_rows(args, _read_numbers(args, args.train))
    evaluated = evaluate_table(held, *_gaussian_settings(args))
    model = evaluated.score.model
    if args.json:
        # The parameters page's and the evaluation page's JSON twins, beside the same context as for texts: the
        # scores under "evaluation", as for texts.
        _print_json({"train": args.train, "test": tested_on, "class_prior": [float(p) for p in model.class_prior_],
                     "settings": model.to_dict(), **gaussian_parameters(model).to_dict(), **evaluated.to_dict()},
                    out)
        return 0
    training = held.training
    print(f"Training: {args.train}: {_count(len(training), 'row')}, {_count(len(model.classes), 'class', 'classes')}, "
          f"{_count(len(model.features), 'feature')}", file=out)
    print(f"Tested on: {tested_on}: {_count(len(held.test), 'row')}", file=out)
    print(f"Model: {_gaussian_model_line(model)}", file=out)
    _print_scores(evaluated.score.result, out)
    _print_bells(model, out)
    _print_mistakes(evaluated, out)
    return 0


def _gaussian_model_line(model: GaussianNB) -> str:
    statistics = model.statistics
    largest = statistics.largest_variance_feature
    return (
        f"Gaussian Naive Bayes, var_smoothing = {model.var_smoothing:g}, so ε = {model.var_smoothing:g} × "
        f"{float(statistics.feature_variances[largest]):.6g} (the variance of {model.features[largest]!r}, the "
        f"largest) = {model.epsilon:.6g} is added to every variance; {model.prior_mode} prior"
    )


def _print_bells(model: GaussianNB, out) -> None:
    """Each class's prior and, per feature, the bell's mean and variance (with ε) learned from the training rows."""
    learned = gaussian_parameters(model)
    width = max(len(feature) for feature in model.features)
    print("\nBell curves learned (mean μ, variance σ² + ε and standard deviation of each feature):", file=out)
    for bells in learned.classes:
        print(f"  {bells.label}: {_count(bells.count, 'row')}, prior φ = {fraction_text(bells.exact_prior)} "
              f"≈ {bells.prior:.6g}", file=out)
        for cell in bells.cells:
            flag = "   ← variance 0 before ε" if cell.zero else ""
            print(f"    {cell.feature:<{width}}  μ = {cell.mean:<12.6g} σ² + ε = {cell.used:<12.6g} "
                  f"σ = {cell.used_sd:.6g}{flag}", file=out)


MISTAKES_SHOWN = 20  # in the text output; --json lists every one


def _print_mistakes(evaluated: TableEvaluation, out) -> None:
    mistakes = evaluated.mistakes
    if not mistakes:
        print("\nNo test row was classified wrongly.", file=out)
        return
    print(f"\nWrong: {_count(len(mistakes), 'test row')} (true class → predicted, with its posterior):",
          file=out)
    for mistake in mistakes[:MISTAKES_SHOWN]:
        predicted = "cannot decide" if mistake.predicted is None else f"{mistake.predicted} ({mistake.confidence:.4f})"
        values = ", ".join(f"{v:g}" for v in mistake.values)
        where = f"line {mistake.id}" if is_whole(mistake.id) else f"row {mistake.id!r}"
        print(f"  {where}: {mistake.label} → {predicted}; values {values}", file=out)
    if len(mistakes) > MISTAKES_SHOWN:
        print(f"  … and {len(mistakes) - MISTAKES_SHOWN:,} more (--json lists them all)", file=out)


def run_explain(args, out) -> int:
    _refuse_options_of_the_other_model(args)
    if args.model == "gaussian":
        return run_explain_table(args, out)
    if args.text is None:
        raise ValueError(
            "Give the review to classify with --text '...' (or, for a table of numbers, --model gaussian and "
            "--value once per feature)."
        )
    corpus = _read(args, args.train)
    training = TrainingSet.build(corpus, _analysis_options(args), _vocabulary_options(args))
    model = _model(training, args)
    if model.kind == "complement":
        explained = explain_complement(training, args.text, model.alpha, binary=model.binary,
                                       fit_prior=not args.uniform_prior)
        if args.json:
            _print_json(explained.to_dict(), out)
        else:
            _print_complement(explained, out)
        return 0
    trace = explain(model, training.bag, args.text)
    if args.json:
        _print_json(trace.to_dict(), out)
        return 0
    _print_trace(trace, model, out)
    return 0


def _print_complement(explained: ComplementExplanation, out) -> None:
    """Complement Naive Bayes' steps for one review: each word's weight in each class, the scores, the decision."""
    reading, decided = explained.reading, explained.decided
    print(f"Review: {explained.text}", file=out)
    print(f"Words counted: {' '.join(reading.tokens) or '(none)'}", file=out)
    if reading.unseen:
        print(f"Not in the vocabulary (no weight, ignored): {', '.join(reading.unseen)}", file=out)
    print(f"Model: {_model_line(explained.model)}", file=out)
    for entry in decided.per_class:
        print(f"\nClass {entry.label}: score = Σ x_j · w_jk = {_log(entry.score)}", file=out)
        for term in entry.terms:
            print(f"  {term.word}: x = {term.count}, θ̃ = {ratio_text(term.ratio)}, w = −log θ̃ = {_log(term.weight)}",
                  file=out)
    if decided.cannot_decide:
        print(f"\nCannot decide: {', '.join(decided.infinite_classes)} all score +∞.", file=out)
    else:
        tie = f" (tied with {', '.join(c for c in decided.tied if c != decided.decision)})" if decided.tied else ""
        print(f"\nDecision: {decided.decision}{tie}: the largest score. The scores are not probabilities.", file=out)


def run_explain_table(args, out) -> int:
    """The inference page of a table on the command line: Bayes' rule for the typed row, in plain floats and in log
    space, with the model trained on every row of the table."""
    table = _read_numbers(args, args.train)
    values = typed_row(args.value or [], table.features)
    model = GaussianStatistics.fit(table).model(*_gaussian_settings(args))
    explained = explain_values(model, values)
    if args.json:
        # "explanation" is the inference page's; the rest is the context the evaluation gives too.
        _print_json({"train": args.train, "n_train": len(table), "classes": list(model.classes),
                     "features": list(model.features), "settings": model.to_dict(),
                     "explanation": explained.to_dict()}, out)
        return 0
    print("Values: " + ", ".join(f"{f} = {v:g}" for f, v in zip(model.features, values, strict=True)), file=out)
    print(f"Model: {_gaussian_model_line(model)}; trained on {_count(len(table), 'row')}", file=out)
    _print_gaussian_trace(explained, out)
    return 0


VALUE_EXPECTED = "Give one plain decimal number per feature, such as 5.1 or -0.25e3."


def typed_row(typed: list[str], features: tuple[str, ...]) -> tuple[float, ...]:
    """The --value numbers, one per feature in the table's order; a wrong count or a non-number is a ValueError
    naming the feature, in the words of the inference page."""
    order = ", ".join(map(repr, features))
    if not typed:
        raise ValueError(f"Give the row to classify with --value once per feature, in this order: {order}.")
    if len(typed) != len(features):
        raise ValueError(
            f"{_count(len(typed), 'value was', 'values were')} given with --value; the table has "
            f"{_count(len(features), 'feature')}: give --value once for each, in this order: {order}."
        )
    return tuple(
        parse_decimal(raw, f"The value for {feature!r}", expected=VALUE_EXPECTED)
        for raw, feature in zip(typed, features, strict=True)
    )


def _print_gaussian_trace(explained: GaussianExplanation, out) -> None:
    width = max(len(term.feature) for term in explained.classes[0].terms)
    for cls in explained.classes:
        print(f"\nClass {cls.label}: prior φ = {fraction_text(cls.exact_prior)} ≈ {cls.prior:.6g}, "
              f"log = {_log(cls.log_prior)}", file=out)
        for term in cls.terms:
            print(f"  {term.feature:<{width}}  {_density_line(term)}", file=out)
        print(f"  product = prior × densities = {cls.product:.6g} (float64, one factor at a time)", file=out)
        print(f"  sum of logs = log prior + Σ log-densities = {_log(cls.log_joint)}", file=out)
    print(file=out)
    _print_plain_floats(explained, out)
    _print_log_space(explained, out)


def _density_line(term) -> str:
    """x, the bell, and the density in float64 beside its log computed directly, flagged where they part."""
    bell = f"x = {term.value:<10g} μ = {term.mean:<10.6g} σ² = {term.variance:<10.6g}"
    if term.zero_width:
        spike = "+∞ (x is the mean)" if term.log_density == math.inf else "0 (x is not the mean)"
        return f"{bell} density = {spike}   ← variance 0: a bell of no width"
    line = f"{bell} z = {term.z:<8.4g} density = {term.density:<11.6g} log-density = {_log(term.log_density)}"
    if term.underflowed:
        line += "   ← the density underflowed to 0.0; its log did not"
    return line


def _print_plain_floats(explained: GaussianExplanation, out) -> None:
    print(f"In plain floats: P(x) = Σ products = {explained.evidence:.6g}", file=out)
    if explained.naive_decision is None:
        why = (
            "every product is 0.0, and 0/0 has no value" if explained.product_underflow
            else "a product is infinite (a bell of width 0 at its mean), and ∞/∞ has no value"
        )
        print(f"  Bayes' rule in plain floats cannot decide: {why}.", file=out)
    else:
        for cls in explained.classes:
            print(f"  P({cls.label} | x) = product / P(x) = {cls.naive_posterior:.6g}", file=out)
    for warning in explained.naive_warnings:
        print(f"  numpy, taking the log of a density: {warning}", file=out)


def _print_log_space(explained: GaussianExplanation, out) -> None:
    if explained.shift is not None:
        print(f"In log space: log-sum-exp, shift by the largest sum of logs, {_log(explained.shift)}", file=out)
        print(f"  log P(x) = {_log(explained.log_evidence)}", file=out)
    elif explained.decidable:
        print("In log space: one class has a bell of width 0 exactly at its value (sum of logs +∞): it takes all "
              "the probability.", file=out)
    if not explained.decidable:
        infinite = sum(cls.log_joint == math.inf for cls in explained.classes)
        reason = (
            "two classes put infinite density on these values (each has a feature with variance 0 exactly at "
            "its mean)" if infinite > 1 else
            "every class is impossible (each has a feature with variance 0 and a value away from its mean)"
        )
        print(f"Cannot decide: {reason}. Only a zero variance does this; --var-smoothing above 0 prevents it.",
              file=out)
        return
    for cls in explained.classes:
        print(f"  P({cls.label} | x) = {cls.posterior:.6g}", file=out)
    print(f"Decision: {explained.decision}", file=out)


def _model_line(model) -> str:
    parts = [f"{model_name(model.kind)} Naive Bayes", f"α = {fraction_text(model.alpha)}"]
    if getattr(model, "epsilon", None) is not None:
        parts.append(f"ε-floor {model.epsilon:g}")
    if model.kind != "bernoulli" and model.binary:
        parts.append("binary features")
    if model.kind == "complement":
        parts.append("weights from the other classes' counts")
    else:
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


def _joined_values(argv: list[str]) -> list[str]:
    """``--value -1e3`` as ``--value=-1e3``: argparse takes "-1e3" for an unknown option, knowing only numbers such
    as -5 and -0.5, so a negative value in exponent notation would not reach the table. Likewise a kid beginning
    with "-" after ``withdraw-key``."""
    joined, arguments = [], iter(argv)
    for argument in arguments:
        if argument == "--value":
            following = next(arguments, None)
            if following is not None and following.startswith("-") and following[1:2] not in ("", "-", "h"):
                joined.append(f"--value={following}")
                continue
            joined.extend([argument] if following is None else [argument, following])
            continue
        if argument == "withdraw-key":
            # A key's kid is a base64url thumbprint and may begin with "-", which argparse takes for an option.
            following = next(arguments, None)
            joined.append(argument)
            if following is not None:
                joined.extend(["--", following] if following.startswith("-") and following not in ("-h", "--help", "--")
                              else [following])
            continue
        joined.append(argument)
    return joined


def main(argv=None, out=None) -> int:
    out = out or sys.stdout
    args = build_parser().parse_args(_joined_values(sys.argv[1:] if argv is None else list(argv)))
    try:
        if args.command == "serve":
            return run_serve(args)
        if args.command == "evaluate":
            return run_evaluate(args, out)
        if args.command == "cleanup":
            return run_cleanup(args, out)
        if args.command == "corpora":
            return run_corpora(args, out)
        if args.command == "class":
            return run_class(args, out)
        if args.command == "lti":
            return run_lti(args, out)
        if args.command == "events":
            return run_events(args)
        return run_explain(args, out)
    except ValueError as error:
        print(f"webnb: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
