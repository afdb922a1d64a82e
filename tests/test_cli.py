"""The webnb command line, run in-process and once as a real console script."""
from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa

from webnb import examples
from webnb.cli import build_parser, main
from webnb.examples import load_example_corpus

EXAMPLES_DIR = Path(examples.__file__).parent
MATCH = str(EXAMPLES_DIR / "match-reviews.jsonl")
CHINA = str(EXAMPLES_DIR / "china-japan.jsonl")


def run(*argv) -> tuple[int, str]:
    out = io.StringIO()
    code = main(list(argv), out=out)
    return code, out.getvalue()


def test_explain_json_match_was_sharp():
    code, text = run(
        "explain", "--train", MATCH, "--model", "bernoulli", "--alpha", "0", "--text", "match was sharp", "--json")
    assert code == 0
    report = json.loads(text)
    assert report["tokens"] == ["match", "was", "sharp"]
    assert report["unseen"] == []
    assert report["classes"] == ["negative", "positive"]
    assert report["decision"] == "positive"
    negative, positive = report["per_class"]
    assert positive["class"] == "positive" and positive["joint_exact"] == "32/3645"
    assert positive["prior"] == 0.6 and positive["posterior"] == 1.0
    assert negative["joint_exact"] == "0" and negative["joint"] == 0.0 and negative["log_joint"] == "-inf"
    assert negative["posterior"] == 0.0
    assert negative["zero_factors"] == [{"word": "not", "class": "negative", "present": False}]


def test_explain_json_cannot_decide():
    code, text = run(
        "explain", "--train", MATCH, "--model", "bernoulli", "--alpha", "0", "--text", "not sharp match", "--json")
    report = json.loads(text)
    assert report["decision"] is None and report["cannot_decide"] is True
    assert [c["posterior"] for c in report["per_class"]] == [None, None]
    assert [z["word"] for c in report["per_class"] for z in c["zero_factors"]] == ["was", "not"]


def test_explain_text_output_shows_the_factors():
    code, text = run("explain", "--train", CHINA, "--text", "Chinese Chinese Chinese Tokyo Japan Osaka")
    assert code == 0
    assert "θ(chinese)^3" in text and "= 6/14" in text
    assert "Not in the vocabulary, ignored: osaka" in text
    assert "Decision: China" in text


# What `evaluate --json` gives for texts and for tables alike (the README's "The command line"): the context at the
# top, every score under "evaluation". tests/test_cli_tables.py checks a table's report against the same keys.
SHARED_TOP_LEVEL = {"train", "n_train", "n_test", "test", "classes", "class_prior", "settings", "evaluation"}
SHARED_SCORES = {"n_test", "accuracy", "correct", "undecidable", "classes", "confusion", "undecidable_by_class",
                 "per_class", "log_loss", "infinite_loss_documents", "mean_confidence"}


def test_evaluate_json_on_the_training_corpus():
    code, text = run("evaluate", "--train", MATCH, "--model", "bernoulli", "--alpha", "1", "--json")
    report = json.loads(text)
    assert set(report) == SHARED_TOP_LEVEL | {"vocabulary_size"}
    assert SHARED_SCORES <= set(report["evaluation"])
    assert "accuracy" not in report  # one place for the scores: under "evaluation", as for a table
    assert report["train"] == MATCH
    assert report["n_train"] == report["n_test"] == 5
    assert report["classes"] == ["negative", "positive"] and report["class_prior"] == [0.4, 0.6]
    assert report["vocabulary_size"] == 8
    evaluation = report["evaluation"]
    assert evaluation["accuracy"] == 1.0 and evaluation["confusion"] == [[2, 0], [0, 3]]
    assert evaluation["undecidable"] == 0


def test_evaluate_with_a_test_file_counts_undecidable(tmp_path):
    test_file = tmp_path / "test.csv"
    test_file.write_text(
        'label,text\npositive,brilliant keeper\nnegative,not sharp match\npositive,"match was sharp"\n')
    code, text = run(
        "evaluate", "--train", MATCH, "--test", str(test_file), "--model", "bernoulli", "--alpha", "0", "--json")
    report = json.loads(text)
    evaluation = report["evaluation"]
    assert report["n_test"] == evaluation["n_test"] == 3 and evaluation["undecidable"] == 1
    assert evaluation["confusion"] == [[0, 0], [0, 2]] and evaluation["undecidable_by_class"] == [1, 0]
    assert evaluation["accuracy"] == pytest.approx(2 / 3)


def test_evaluate_held_out_split(tmp_path):
    corpus = tmp_path / "c.tsv"
    rows = [f"{'pos' if i % 2 else 'neg'}\t{'good great' if i % 2 else 'bad awful'} doc{i}" for i in range(40)]
    corpus.write_text("label\ttext\n" + "\n".join(rows) + "\n")
    code, text = run("evaluate", "--train", str(corpus), "--test-size", "0.25", "--seed", "3", "--json")
    report = json.loads(text)
    assert report["n_train"] == 30 and report["n_test"] == 10 and report["evaluation"]["accuracy"] == 1.0


def test_analysis_options_reach_the_engine():
    code, text = run("explain", "--train", MATCH, "--text", "the keepers were composed", "--stop-words", "english",
                     "--stemmer", "porter", "--ngram-range", "1,2", "--json")
    report = json.loads(text)
    assert report["tokens"] == ["keeper", "compos", "keeper compos"]
    assert [d["word"] for d in report["dropped"]] == ["the", "were"]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["explain", "--train", MATCH, "--alpha", "-1", "--text", "x"], "α must be 0 or more"),
        (["evaluate", "--train", "/nonexistent/file.jsonl"], "Cannot read"),
        (["evaluate", "--train", MATCH, "--class-prior", "0.5,0.6"], "add up to 1"),
        (["evaluate", "--train", MATCH, "--min-df", "9"], "at least 9 documents, but the corpus has 5"),
        (["explain", "--train", MATCH], "Give the review to classify with --text"),
    ],
)
def test_errors_are_messages_not_tracebacks(argv, message, capsys):
    code = main(argv, out=io.StringIO())
    assert code == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("option, value, words", [
    ("--min-df", "1.5", "(min_df as a fraction must be between 0 and 1, not 1.5)"),
    ("--max-df", "half", "(write it as 2 (documents) or 0.5 (a fraction of them))"),
    ("--max-df", "9" * 41, "(A number of documents must be a whole number from 0 to 1,000,000,000.)"),
])
def test_document_bounds_are_read_as_the_lesson_pages_read_them(option, value, words, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["evaluate", "--train", MATCH, option, value], out=io.StringIO())
    assert exit_.value.code == 2
    error = capsys.readouterr().err
    assert f"argument {option}: expected a whole number of documents or a fraction between 0 and 1" in error
    assert words in error
    args = build_parser().parse_args(["evaluate", "--train", MATCH, "--min-df", " 2", "--max-df", "0.5"])
    assert (args.min_df, args.max_df) == (2, 0.5) and isinstance(args.min_df, int)


def test_single_class_corpus_is_refused(tmp_path, capsys):
    path = tmp_path / "one.jsonl"
    path.write_text('{"label": "spam", "text": "win money"}\n{"label": "spam", "text": "free prize"}\n')
    assert main(["evaluate", "--train", str(path)], out=io.StringIO()) == 2
    assert "at least two classes" in capsys.readouterr().err


def test_serve_options_parse():
    args = build_parser().parse_args(["serve", "--host", "0.0.0.0", "--port", "8123"])
    assert (args.command, args.host, args.port, args.allow_workspaces) == ("serve", "0.0.0.0", 8123, False)
    assert build_parser().parse_args(["serve", "--allow-workspaces"]).allow_workspaces is True


def test_evaluate_help_says_where_the_scores_are(capsys):
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "--json, for texts and tables alike:" in help_text and "the scores under evaluation (accuracy," in help_text


# -- corpora add: an id in use, and --replace -------------------------------------------------------------------------

FIRST = "pos\tgreat match and a sharp keeper\nneg\tdull match\npos\tbrilliant goal\nneg\tslow dull game\n"
SECOND = "pos\tzyxnew splendid final\nneg\tzyxnew awful replay\npos\tsuperb save\nneg\tdreary draw\n"


def published(app, corpus_id):
    return app.extensions["webnb"]["storage"].class_corpus(corpus_id)


def test_an_id_in_use_is_refused_saying_how_to_replace_it(app, webnb, tmp_path):
    (tmp_path / "first.txt").write_text(FIRST, encoding="utf-8")
    (tmp_path / "second.txt").write_text(SECOND, encoding="utf-8")
    code, out, err = webnb(app, "corpora", "add", tmp_path / "first.txt", "--id", "matches", "--name", "Matches")
    assert (code, out) == (0, "Published matches: Matches, 4 documents in 2 classes, for every workspace.\n")
    before = published(app, "matches")

    code, out, err = webnb(app, "corpora", "add", tmp_path / "second.txt", "--id", "matches", "--name", "New")
    assert (code, out) == (2, "")
    assert err == (
        "webnb: The id 'matches' is taken already. Nothing was stored. It is in use by a class corpus: to replace "
        "that, run the same command with --replace, or remove it first with `webnb corpora remove matches`.\n")
    assert published(app, "matches") == before


def test_replace_puts_the_new_corpus_in_the_old_ones_place(app, webnb, tmp_path):
    from webnb.store.database import contents

    (tmp_path / "first.txt").write_text(FIRST, encoding="utf-8")
    (tmp_path / "second.txt").write_text(SECOND, encoding="utf-8")
    assert webnb(app, "corpora", "add", tmp_path / "first.txt", "--id", "matches", "--name", "Matches")[0] == 0
    old = published(app, "matches")
    client = app.test_client()
    assert "sharp keeper" in client.get("/corpora/matches").get_data(as_text=True)

    code, out, err = webnb(app, "corpora", "add", tmp_path / "second.txt", "--id", "matches", "--name", "Replayed",
                           "--alpha", "2", "--replace")
    assert (code, err) == (0, "")
    assert out == "Replaced matches: Replayed, 4 documents in 2 classes, for every workspace.\n"
    new = published(app, "matches")
    assert (new.name, new.presets, new.created_at) == ("Replayed", (("alpha", "2"),), old.created_at)
    assert new.content != old.content
    page = client.get("/corpora/matches").get_data(as_text=True)
    assert "zyxnew splendid final" in page and "sharp keeper" not in page
    assert "Replayed" in client.get("/").get_data(as_text=True)
    with app.extensions["webnb"]["storage"].engine.connect() as connection:  # the old records went with it
        assert connection.execute(sa.select(contents.c.hash)).scalars().all() == [new.content]
    # --replace with a free id simply publishes.
    code, out, _ = webnb(app, "corpora", "add", tmp_path / "first.txt", "--id", "other", "--name", "O", "--replace")
    assert (code, out) == (0, "Published other: O, 4 documents in 2 classes, for every workspace.\n")


def test_a_replace_that_fails_leaves_the_old_corpus_whole(app, webnb, tmp_path, monkeypatch):
    from webnb.store import database as storage_module

    (tmp_path / "first.txt").write_text(FIRST, encoding="utf-8")
    (tmp_path / "second.txt").write_text(SECOND, encoding="utf-8")
    assert webnb(app, "corpora", "add", tmp_path / "first.txt", "--id", "matches", "--name", "Matches")[0] == 0
    old = published(app, "matches")
    reached = []

    def fail(point):  # the old row and its records are deleted by now, the new ones written, in the same transaction
        if point == "class-corpora-write":
            reached.append(point)
            raise sa.exc.OperationalError("COMMIT", {}, Exception("disk I/O error"))

    monkeypatch.setattr(storage_module, "pause_at", fail)
    code, _, err = webnb(app, "corpora", "add", tmp_path / "second.txt", "--id", "matches", "--name", "New",
                         "--replace")
    assert reached == ["class-corpora-write"]
    assert code == 1 and "nothing was changed" in err
    assert published(app, "matches") == old
    storage = app.extensions["webnb"]["storage"]
    with storage.engine.connect() as connection:  # the old records whole, the new ones never stored
        assert connection.execute(sa.select(storage_module.contents.c.hash)).scalars().all() == [old.content]
    assert storage.content_corpus(old.content).texts == tuple(line.split("\t")[1] for line in FIRST.splitlines())
    assert "sharp keeper" in app.test_client().get("/corpora/matches").get_data(as_text=True)


def test_replace_never_replaces_a_users_corpus(app, webnb, tmp_path):
    from webnb.engine.io.uploads import read_upload
    from webnb.store.database import corpora

    (tmp_path / "first.txt").write_text(FIRST, encoding="utf-8")
    storage = app.extensions["webnb"]["storage"]
    corpus_id = storage.add_corpus(read_upload(FIRST.encode(), filename="f.txt").corpus, name="mine", source="typed")
    with storage.engine.begin() as connection:  # an id such as a class corpus has (a random one rarely is)
        connection.execute(corpora.update().where(corpora.c.id == corpus_id).values(id="mine"))
    code, _, err = webnb(app, "corpora", "add", tmp_path / "first.txt", "--id", "mine", "--name", "X", "--replace")
    assert code == 2
    assert err == ("webnb: The id 'mine' is taken already. Nothing was stored. It is in use by a corpus a user stored, "
                   "not a class corpus, which --replace never replaces: choose another id.\n")
    assert storage.summary("mine").name == "mine" and published(app, "mine") is None


def test_a_users_corpus_stored_meanwhile_is_refused_inside_the_transaction(app, webnb, tmp_path, monkeypatch):
    from webnb.engine.io.uploads import read_upload
    from webnb.store.database import corpora

    (tmp_path / "first.txt").write_text(FIRST, encoding="utf-8")
    storage = app.extensions["webnb"]["storage"]
    corpus_id = storage.add_corpus(read_upload(FIRST.encode(), filename="f.txt").corpus, name="mine", source="typed")
    with storage.engine.begin() as connection:
        connection.execute(corpora.update().where(corpora.c.id == corpus_id).values(id="mine"))
    monkeypatch.setattr(storage, "summary", lambda corpus_id: None)  # as if stored after the command looked
    code, _, err = webnb(app, "corpora", "add", tmp_path / "first.txt", "--id", "mine", "--name", "X", "--replace")
    assert code == 2
    assert err == ("webnb: The id 'mine' is taken already. Nothing was stored. It is in use by a corpus a user stored, "
                   "not a class corpus, which --replace never replaces: choose another id.\n")
    assert published(app, "mine") is None


@pytest.mark.slow  # runs the installed script
def test_console_script_is_installed():
    # The script sits beside the interpreter running the tests, whether or not the venv is activated.
    executable = shutil.which("webnb", path=str(Path(sys.executable).parent)) or shutil.which("webnb")
    if executable is None:
        pytest.fail("the webnb console script is not on PATH: install the project (pip install -e .)")
    result = subprocess.run([executable, "explain", "--train", CHINA, "--text", "Tokyo Japan", "--json"],
                            capture_output=True, text=True, check=True)
    assert json.loads(result.stdout)["decision"] == "not China"
    assert load_example_corpus("china-japan").classes == ("China", "not China")
