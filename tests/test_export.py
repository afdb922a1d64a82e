"""Exports: CSV that a spreadsheet cannot be tricked into running, and a notebook that recomputes the lesson.

The notebook is checked the way an instructor would use it: generated, validated against nbformat's schema,
run top to bottom in a real Jupyter kernel, and its printed numbers compared with the engine's. The same
comparison also runs in-process (``exec`` of the code cells) over many more settings, which is fast.
"""
from __future__ import annotations

import ast
import contextlib
import csv
import io
import json
import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from conftest import skip_unless_ci

from webnb.engine import (
    AnalysisOptions,
    Corpus,
    CorpusError,
    TrainingSet,
    VocabularyOptions,
    evaluate,
    explain,
    stratified_split,
)
from webnb.engine.export import (
    confusion_table,
    csv_text,
    documents_table,
    evaluation_table,
    lesson_notebook,
    matrix_table,
    parameters_table,
    priors_table,
)
from webnb.engine.export import notebook as export
from webnb.engine.shared.plain import fraction_text, ratio_text
from webnb.examples import load_example_corpus

try:
    import nbformat
except ImportError:  # a test-only dependency
    nbformat = None

# -- CSV -----------------------------------------------------------------------------------------------

INJECTIONS = ['=HYPERLINK("http://x")', "+1", "-2+3", "@SUM(A1)", "\tx", "\rx", "\nx"]


def parse(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


def unquote(cell: str) -> str:
    """A cell as the exporter was given it: without the quote added in front of a formula."""
    return cell[1:] if cell.startswith("'") and cell[1:].lstrip()[:1] in ("=", "+", "-", "@", "\t", "\r", "\n") \
        or cell[1:2] in ("\t", "\r", "\n") else cell


def assert_safe(text: str) -> list[list[str]]:
    """No cell of ``text`` starts with a character a spreadsheet reads as a formula, unless it is a number."""
    rows = parse(text)
    for row in rows:
        for cell in row:
            if is_formula(cell):
                float(cell)  # only a number may start with "-": raises ValueError otherwise
    return rows


def is_formula(cell: str) -> bool:
    """Whether a spreadsheet could read ``cell`` as a formula: its first character, or its first after white space,
    is one of OWASP's list or their full-width forms."""
    starts = ("=", "+", "-", "@", "\t", "\r", "\n", "\uff1d", "\uff0b", "\uff0d", "\uff20")
    return cell.startswith(starts) or cell.lstrip().startswith(starts)


# OWASP's CSV-injection examples, and the same behind white space.
OWASP = ['=cmd|\' /C calc\'!A0', '=HYPERLINK("http://evil.example","x")', "+1+1", "-1+1", "@SUM(1+1)*cmd|' /C calc'!A0",
         "\t=1+1", "\r=1+1"]
VARIANTS = [" =1+1", "  +1", "\n=1+1", "\r\n@x", " \t-1+1", "\u00a0=1+1", "\u3000=1+1", "\uff1d1+1", " \uff0b1",
            "\uff0d1", "\uff20SUM(A1)"]


@pytest.mark.parametrize("value", OWASP + VARIANTS)
def test_owasp_and_its_variants_get_a_quote_in_front(value):
    assert parse(csv_text(["x"], [[value]]))[1] == ["'" + value]
    assert not is_formula(parse(csv_text(["x"], [[value]]))[1][0])


@pytest.mark.parametrize("value", INJECTIONS)
def test_a_formula_gets_a_quote_in_front(value):
    rows = parse(csv_text(["name", value], [[value, 1]]))
    assert rows == [["name", "'" + value], ["'" + value, "1"]]


@pytest.mark.parametrize("value", ["\uff1dSUM(A1)", "\uff0b1", "\uff0d1", "\uff20SUM(A1)"])
def test_full_width_formula_characters_are_neutralised_too(value):
    assert parse(csv_text(["x"], [[value]]))[1] == ["'" + value]


@pytest.mark.parametrize("value", ["plain", "a=b", "1+1", "'quoted", "", " a=1", "ψ", "2/3", "  "])
def test_harmless_text_is_left_alone(value):
    assert parse(csv_text(["x"], [[value]]))[1] == [value]


def test_numbers_stay_numbers():
    values = [-0.5, -math.inf, math.inf, 3, -7, 0.1, -1e-20, np.float64(-0.25), np.int64(-3), Decimal("-1.25"), None]
    text = csv_text(["values"], [values])
    row = parse(text)[1]
    assert row == ["-0.5", "-inf", "inf", "3", "-7", "0.1", "-1e-20", "-0.25", "-3", "-1.25", ""]
    assert [float(cell) for cell in row[:-1]] == [float(v) for v in values[:-1]]
    # The same text given as a string is text, and a spreadsheet must not compute it.
    assert parse(csv_text(["x"], [["-0.5", "-inf"]]))[1] == ["'-0.5", "'-inf"]


def test_quoting_and_line_ends_follow_rfc_4180():
    cells = ["a,b", 'say "hi"', "two\nlines", "crlf\r\nend", "café ☕", "=1,2"]
    text = csv_text(["one", "two"], [cells])
    assert text.endswith("\r\n") and text.count("\r\n") == 3  # two records and the one inside a cell
    assert text.startswith("one,two\r\n")
    assert '"a,b"' in text and '"say ""hi"""' in text and "\"'=1,2\"" in text
    assert [unquote(cell) for cell in parse(text)[1]] == cells
    assert text.encode("utf-8").decode("utf-8") == text


@pytest.fixture(scope="module")
def hostile():
    """A corpus whose labels, ids, texts and words all try to be formulas."""
    corpus = Corpus(
        texts=(
            '=HYPERLINK("http://x") +1 good',
            "\tx -2+3 @SUM(A1) good",
            "\rx bad =cmd|'/c calc'!A0",
            "\nx bad -2+3",
        ),
        labels=('=HYPERLINK("http://x")', '=HYPERLINK("http://x")', "+1", "@SUM(A1)"),
        ids=("-2+3", "\tx", "\rx", "\nx"),
    )
    # Split on white space so that "=hyperlink(...)", "+1", "-2+3" and "@sum(a1)" become words.
    return TrainingSet.build(corpus, AnalysisOptions(token_pattern="whitespace"))


def test_every_table_of_a_hostile_corpus_is_safe(hostile):
    model = hostile.model("bernoulli", 0)
    evaluation = evaluate(model, hostile.matrix, hostile.corpus.labels)
    tables = {
        "documents": documents_table(hostile.corpus),
        "matrix": matrix_table(hostile, presence=False),
        "parameters": parameters_table(model),
        "priors": priors_table(model),
        "evaluation": evaluation_table(evaluation),
        "confusion": confusion_table(evaluation),
    }
    for name, (header, rows) in tables.items():
        rows = list(rows)
        parsed = assert_safe(csv_text(header, rows))
        assert len(parsed) == len(rows) + 1, name
        for original, back in zip([header, *rows], parsed, strict=True):
            assert [unquote(cell) for cell in back] == [_written(value) for value in original], name
    assert {"=hyperlink(\"http://x\")", "+1", "-2+3", "@sum(a1)"} <= set(hostile.vocabulary)
    # The neutralised cells are the ones that needed it, wherever they are.
    documents = parse(csv_text(*documents_table(hostile.corpus)))
    assert [row[0] for row in documents[1:]] == ["'-2+3", "'\tx", "'\rx", "'\nx"]
    assert documents[1][1] == "'=HYPERLINK(\"http://x\")" and documents[4][1] == "'@SUM(A1)"
    assert documents[4][2] == "'\nx bad -2+3"
    parameters = parse(csv_text(*parameters_table(model)))
    assert "'+1" in [row[0] for row in parameters] and "'@sum(a1)" in [row[0] for row in parameters]
    assert parse(csv_text(*priors_table(model)))[1][0] == "'+1"


def _written(value) -> str:
    if value is None:
        return ""
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    return str(value)


def test_parameters_table_of_the_match_reviews(match_reviews):
    model = match_reviews.model("bernoulli", 0)
    header, rows = parameters_table(model)
    assert header == [
        "word", "ψ given negative", "ψ given negative (ratio)", "ψ given positive", "ψ given positive (ratio)"]
    parsed = parse(csv_text(header, rows))
    by_word = {row[0]: row[1:] for row in parsed[1:]}
    assert by_word["not"] == ["1.0", "2/2", "0.0", "0/3"]
    assert by_word["sharp"] == ["0.5", "1/2", repr(1 / 3), "1/3"]
    assert list(by_word) == list(match_reviews.vocabulary)


def test_parameters_table_of_a_multinomial_model_and_an_epsilon_floor(china_japan):
    header, rows = parameters_table(china_japan.model("multinomial", 1))
    assert header[1] == "θ given China"
    assert dict((row[0], row[1:3]) for row in rows)["chinese"] == [6 / 14, "6/14"]
    floored = china_japan.model("multinomial", 0, epsilon=1e-14)
    rows = parse(csv_text(*parameters_table(floored)))
    assert dict((row[0], row[3:5]) for row in rows)["beijing"] == ["1e-14", ""]  # clipped, and no ratio


@pytest.mark.parametrize(("kind", "alpha", "binary"), [("bernoulli", 0, False), ("multinomial", 1, False),
                                                      ("multinomial", Fraction(1, 2), True)])
def test_parameters_table_made_by_blocks_agrees_with_each_cell(china_japan, monkeypatch, kind, alpha, binary):
    from webnb.engine.export import tables

    monkeypatch.setattr(tables, "ROWS_PER_PIECE", 2)  # six words: three blocks
    model = china_japan.model(kind, alpha, binary=binary)
    header, rows = parameters_table(model)
    rows = list(rows)
    assert [row[0] for row in rows] == list(china_japan.vocabulary)
    for j, row in enumerate(rows):
        for k in range(len(model.classes)):
            assert row[1 + 2 * k] == float(model.feature_prob_[k, j])
            assert row[2 + 2 * k] == ratio_text(model.feature_ratio(k, j))
    # only the words asked for, in their order
    assert [row[0] for row in parameters_table(model, [4, 0, 2])[1]] == [china_japan.vocabulary[j] for j in (4, 0, 2)]


def test_priors_table(match_reviews):
    assert priors_table(match_reviews.model("bernoulli", 0)) == (
        ["class", "documents", "φ", "φ (ratio)"],
        [["negative", 2, 0.4, "2/5"], ["positive", 3, 0.6, "3/5"]],
    )
    uniform = priors_table(match_reviews.model("bernoulli", 0, fit_prior=False))[1]
    assert [row[2:] for row in uniform] == [[0.5, "1/2"], [0.5, "1/2"]]


def test_matrix_table_is_the_window_asked_for(china_japan):
    vocabulary = china_japan.vocabulary
    columns = [vocabulary.index("chinese"), vocabulary.index("tokyo")]
    header, rows = matrix_table(china_japan, [0, 3], columns, presence=False)
    assert header == ["id", "label", "chinese", "tokyo"]
    assert rows == [["1", "China", 2, 0], ["4", "not China", 1, 1]]
    assert matrix_table(china_japan, [0, 3], columns, presence=True)[1] == [
        ["1", "China", 1, 0], ["4", "not China", 1, 1]]
    assert parse(csv_text(header, rows))[1] == ["1", "China", "2", "0"]


def test_evaluation_and_confusion_tables_count_what_cannot_be_decided(match_reviews):
    model = match_reviews.model("bernoulli", 0)
    texts = ["not sharp match", "keeper was sharp", "match was not sharp"]
    evaluation = evaluate(model, match_reviews.transform(texts), ["positive", "positive", "negative"])
    assert evaluation.undecidable == 1
    header, rows = confusion_table(evaluation)
    assert header == ["true class", "predicted negative", "predicted positive", "cannot decide"]
    assert rows == [["negative", 1, 0, 0], ["positive", 0, 1, 1]]
    header, rows = evaluation_table(evaluation)
    assert header == ["class", "precision", "recall", "F1", "support"]
    assert rows == [["negative", 1.0, 1.0, 1.0, 1], ["positive", 1.0, 0.5, 2 / 3, 2]]
    nothing_predicted = evaluate(model, match_reviews.transform(["not sharp match"]), ["negative"])
    assert parse(csv_text(*evaluation_table(nothing_predicted)))[1:] == [
        ["negative", "", "0.0", "", "1"],  # nothing was predicted negative: no precision, so no F1
        ["positive", "", "", "", "0"],
    ]


# -- the notebook ------------------------------------------------------------------------------------------


def settings(kind, alpha, review, *, binary=False, fit_prior=True, epsilon=None, test_size=None, seed=0) -> dict:
    return dict(kind=kind, alpha=alpha, review=review, binary=binary, fit_prior=fit_prior, epsilon=epsilon,
                test_size=test_size, seed=seed)


SPAM_ANALYSIS = AnalysisOptions(stop_words="english", ngram_range=(1, 2))
SPAM_REVIEW = "Claim your free prize now, call 0800 555 0199"

# The cases the kernel runs: the lecture's examples as the lesson opens them, and a held-out split.
KERNEL_CASES = {
    "match-reviews alpha=0": ("match-reviews", None, None, settings("bernoulli", 0, "not sharp match")),
    "match-reviews alpha=1": ("match-reviews", None, None, settings("bernoulli", 1, "not sharp match")),
    "china-japan": ("china-japan", None, None, settings("multinomial", 1, "Chinese Chinese Chinese Tokyo Japan")),
    "spam-ham held out": ("spam-ham", SPAM_ANALYSIS, None,
                          settings("bernoulli", 1, SPAM_REVIEW, test_size=0.3, seed=3)),
}

# More settings, run in-process: every option the notebook implements.
MORE_CASES = {
    "match was sharp": ("match-reviews", None, None, settings("bernoulli", 0, "match was sharp")),
    "fractional alpha": ("match-reviews", None, None, settings("bernoulli", "0.5", "not sharp match")),
    "uniform prior": ("china-japan", None, None, settings("multinomial", 1, "Tokyo Japan", fit_prior=False)),
    "bernoulli epsilon-floor": ("match-reviews", None, None,
                                settings("bernoulli", 0, "not sharp match", epsilon=1e-14)),
    "multinomial epsilon-floor": ("china-japan", None, None,
                                  settings("multinomial", 0, "Chinese Tokyo", epsilon=1e-14)),
    "multinomial alpha=0 undecided": ("china-japan", None, None, settings("multinomial", 0, "Tokyo Beijing")),
    "binary multinomial": ("folgers-students", None, None,
                           settings("multinomial", 1, "Fill your cup, great great students students", binary=True)),
    "placeholders": ("spam-ham", AnalysisOptions(normalize=("url", "email", "money", "phone", "number")), None,
                     settings("multinomial", 1, "WIN $100now at www.win.example or call 0800 555 0199")),
    "trigrams only": ("spam-ham", AnalysisOptions(ngram_range=(2, 3)), None,
                      settings("bernoulli", 1, "free cash today")),
    "accents and case": ("spam-ham", AnalysisOptions(lowercase=False, strip_accents="ascii"), None,
                         settings("multinomial", "1/3", "Café Crème at NOON")),
    "unicode accents": ("spam-ham", AnalysisOptions(strip_accents="unicode"), None,
                        settings("bernoulli", 1, "naïve café")),
    "own pattern and stop words": ("spam-ham", AnalysisOptions(token_pattern=r"(?u)\b(\w)\w*", stop_words=("c", "w")),
                                   None, settings("multinomial", 1, "Can we win cash")),
    "pruned vocabulary": ("spam-ham", SPAM_ANALYSIS, VocabularyOptions(min_df=2, max_df=0.5),
                          settings("bernoulli", 0, SPAM_REVIEW)),
    "most frequent words": ("spam-ham", None, VocabularyOptions(max_features=12, binary=True),
                            settings("multinomial", 1, SPAM_REVIEW, test_size=0.25, seed=11)),
    "held out, alpha=0": ("spam-ham", None, None, settings("bernoulli", 0, SPAM_REVIEW, test_size=0.5, seed=1)),
    # Equal log joints: the first class wins, as in the engine.
    "tie": ("tie", None, None, settings("multinomial", 1, "same words", fit_prior=False)),
    # "alpha" occurs most often, "beta" and "gamma" are in most documents.
    "ranked by occurrences": ("ranking", None, VocabularyOptions(max_features=1),
                              settings("multinomial", 1, "alpha beta")),
    "ranked by documents": ("ranking", None, VocabularyOptions(max_features=1, binary=True),
                            settings("multinomial", 1, "alpha beta")),
}

SMALL_CORPORA = {
    "tie": [("x", "same words"), ("y", "same words")],
    # Unequal classes, so that no document is an exact tie (which rounding could break either way).
    "ranking": [("a", "alpha alpha alpha beta"), ("b", "beta gamma"), ("a", "gamma delta"), ("b", "delta beta"),
                ("a", "epsilon")],
}


def tricky_corpus() -> Corpus:
    """Text that could break out of the string the corpus travels in, or that Jupyter might act on."""
    return Corpus(
        texts=(
            "it''' ends ''' here \\ and \\' too",
            '"""quoted""" back\\slash\\',
            "%magic !shell ?help ok?",
            ">>> prompt\nIn [1]: more",
            "line\u2028separator\x85next\ttab café 🍵 \U000e0001",
            "plain words here",
        ),
        labels=("=x'", "=x'", "=x'", "b\\", "b\\", "b\\"),
        ids=("1", "2", "3", "4", "5", "6"),
        name="Tricky * _ [names] <b>",
    )


def corpus_of(name):
    if name == "tricky":
        return tricky_corpus()
    if name in SMALL_CORPORA:
        return Corpus.from_pairs(SMALL_CORPORA[name], name=name)
    return load_example_corpus(name)


TRICKY_CASE = ("tricky", None, None, settings("multinomial", 1, "it''' ends \\' with ?help\n%magic"))


def notebook_evaluation(corpus, analysis, vocabulary, options, model_of):
    """The accuracy a notebook must print: of ``model_of(training)`` on its own documents, or, with a test size, of
    the model of the split's training part on its test part."""
    if options["test_size"] is None:
        training = TrainingSet.build(corpus, analysis, vocabulary)
        return evaluate(model_of(training), training.matrix, corpus.labels)
    train, test = stratified_split(corpus.labels, options["test_size"], options["seed"])
    held_out = TrainingSet.build(corpus.subset(train), analysis, vocabulary)
    tested = corpus.subset(test)
    return evaluate(model_of(held_out), held_out.transform(tested.texts), tested.labels)


def engine_numbers(corpus, analysis, vocabulary, options) -> dict:
    """What the notebook must print, computed by the engine."""
    model_options = dict(binary=options["binary"], fit_prior=options["fit_prior"], epsilon=options["epsilon"])
    training = TrainingSet.build(corpus, analysis, vocabulary)
    model = training.model(options["kind"], options["alpha"], **model_options)
    trace = explain(model, training.bag, options["review"])
    evaluation = notebook_evaluation(corpus, analysis, vocabulary, options,
                                     lambda counted: counted.model(options["kind"], options["alpha"], **model_options))
    return {"model": model, "training": training, "trace": trace, "evaluation": evaluation}


def assert_matches_engine(summary: dict, expected: dict) -> None:
    model, trace, evaluation = expected["model"], expected["trace"], expected["evaluation"]
    assert summary["classes"] == list(model.classes)
    assert summary["vocabulary"] == list(expected["training"].vocabulary)
    np.testing.assert_allclose(summary["class_prior"], model.class_prior_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(np.array(summary["feature_prob"]), model.feature_prob_, rtol=0, atol=1e-12)
    assert summary["trace"]["features"] == list(trace.analysis.features)
    assert [c["class"] for c in summary["trace"]["per_class"]] == [c.label for c in trace.per_class]
    for printed, engine in zip(summary["trace"]["per_class"], trace.per_class, strict=True):
        if engine.log_joint == -math.inf:
            assert printed["log_joint"] == "-inf"
        else:
            assert printed["log_joint"] == pytest.approx(engine.log_joint, rel=0, abs=1e-9)
        if engine.posterior is None:
            assert printed["posterior"] is None
        else:
            assert printed["posterior"] == pytest.approx(engine.posterior, rel=0, abs=1e-12)
        assert printed["joint_exact"] == fraction_text(engine.joint_exact)
    assert summary["trace"]["decision"] == trace.decision
    assert (summary["correct"], summary["n_test"]) == (evaluation.correct, evaluation.n_test)
    assert summary["accuracy"] == evaluation.accuracy


def make_notebook(case) -> dict:
    name, analysis, vocabulary, options = case
    return lesson_notebook(corpus_of(name), analysis, vocabulary, **options)


def code_of(notebook: dict) -> list[str]:
    return [cell["source"] for cell in notebook["cells"] if cell["cell_type"] == "code"]


def run_in_process(notebook: dict) -> dict:
    """Run the code cells top to bottom in a fresh namespace, as a kernel would, and read the summary."""
    namespace: dict = {"__name__": "__main__"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for source in code_of(notebook):
            exec(compile(source, "<notebook cell>", "exec"), namespace)
    return json.loads(out.getvalue().strip().splitlines()[-1])


ALL_CASES = {**KERNEL_CASES, **MORE_CASES, "tricky corpus": TRICKY_CASE}


@pytest.mark.parametrize("case", ALL_CASES.values(), ids=ALL_CASES.keys())
def test_notebook_code_reproduces_the_engine(case):
    name, analysis, vocabulary, options = case
    summary = run_in_process(make_notebook(case))
    assert_matches_engine(summary, engine_numbers(corpus_of(name), analysis, vocabulary, options))


def test_the_lecture_numbers_come_out_of_the_notebook():
    summary = run_in_process(make_notebook(MORE_CASES["match was sharp"]))
    positive = summary["trace"]["per_class"][1]
    assert positive["class"] == "positive" and positive["joint_exact"] == "32/3645"
    assert summary["trace"]["decision"] == "positive"
    assert run_in_process(make_notebook(KERNEL_CASES["match-reviews alpha=0"]))["trace"]["decision"] is None
    assert run_in_process(make_notebook(KERNEL_CASES["match-reviews alpha=1"]))["trace"]["decision"] == "negative"
    china = run_in_process(make_notebook(KERNEL_CASES["china-japan"]))["trace"]
    assert china["decision"] == "China"
    assert china["per_class"][0]["joint_exact"] == str(Fraction(3, 4) * Fraction(3, 7) ** 3 * Fraction(1, 14) ** 2)


@pytest.mark.parametrize("case", [*KERNEL_CASES.values(), TRICKY_CASE], ids=[*KERNEL_CASES, "tricky corpus"])
def test_notebook_is_valid_nbformat_4(case):
    if nbformat is None:
        skip_unless_ci("nbformat is not installed")
    notebook = make_notebook(case)
    assert json.loads(json.dumps(notebook)) == notebook  # plain JSON data
    nbformat.validate(nbformat.from_dict(notebook))
    assert notebook["nbformat"] == 4
    assert notebook["metadata"]["kernelspec"]["name"] == "python3"
    assert all(cell["cell_type"] in ("markdown", "code") for cell in notebook["cells"])
    assert notebook["cells"][-1]["cell_type"] == "code" and "json.dumps(summary" in notebook["cells"][-1]["source"]


def test_notebook_needs_only_numpy_and_the_standard_library():
    notebook = make_notebook(KERNEL_CASES["spam-ham held out"])
    imported = set()
    for source in code_of(notebook):
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                imported.add(node.module.split(".")[0])
    assert imported == {"json", "math", "re", "unicodedata", "fractions", "numpy"}


def test_the_corpus_travels_as_json_in_the_notebook():
    corpus = tricky_corpus()
    notebook = make_notebook(TRICKY_CASE)
    namespace: dict = {}
    corpus_cell = next(source for source in code_of(notebook) if "CORPUS_JSON = " in source)
    exec(corpus_cell.split("\ndocuments = ")[0], namespace)
    documents = json.loads(namespace["CORPUS_JSON"])
    assert [(d["id"], d["label"], d["text"]) for d in documents] == list(
        zip(corpus.ids, corpus.labels, corpus.texts, strict=True))


def test_english_stop_words_travel_with_the_notebook():
    from webnb.engine.text.stopwords import ENGLISH_STOP_WORDS

    notebook = make_notebook(KERNEL_CASES["spam-ham held out"])
    namespace: dict = {}
    exec(code_of(notebook)[0], namespace)
    exec(code_of(notebook)[1], namespace)
    assert namespace["STOP_WORDS"] == ENGLISH_STOP_WORDS
    assert namespace["NGRAM_RANGE"] == (1, 2)


def test_markdown_explains_each_step():
    notebook = make_notebook(KERNEL_CASES["match-reviews alpha=0"])
    headings = [cell["source"].splitlines()[0] for cell in notebook["cells"] if cell["cell_type"] == "markdown"]
    assert headings[0] == "# Naive Bayes, every number: Match reviews"
    for step in ("text to words", "vocabulary", "priors φ", "probabilities ψ", "Classifying the review",
                 "posterior", "Accuracy", "Summary"):
        assert any(step in heading for heading in headings), step
    multinomial = [cell["source"] for cell in make_notebook(KERNEL_CASES["china-japan"])["cells"]]
    assert any(
        source.startswith("## 4. The word probabilities θ") and "multinomial" in source for source in multinomial)


def test_stemming_is_refused_with_the_reason():
    with pytest.raises(ValueError, match="cannot reproduce these analysis options: stemmer"):
        lesson_notebook(load_example_corpus("match-reviews"), AnalysisOptions(stemmer="porter"), None,
                        **settings("bernoulli", 1, "match"))


@pytest.mark.parametrize(
    "options, message",
    [
        (settings("gaussian", 1, "x"), "model must be one of"),
        (settings("bernoulli", -1, "x"), "α must be 0 or more"),
        (settings("bernoulli", 1, "x", epsilon=0.7), "ε-floor must be between 0 and 0.5"),
        (settings("bernoulli", 1, "x", test_size=1.5), "test size must be a fraction"),
    ],
)
def test_settings_the_engine_refuses_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        lesson_notebook(load_example_corpus("match-reviews"), None, None, **options)


def test_a_class_without_words_is_refused_as_the_engine_refuses_it():
    corpus = Corpus.from_pairs([("a", "some words"), ("b", "x y z")])
    with pytest.raises(CorpusError, match="has no words in the vocabulary"):
        lesson_notebook(corpus, None, None, **settings("multinomial", 0, "words"))


def test_a_corpus_too_big_for_a_dense_table_is_refused(monkeypatch):
    monkeypatch.setattr(export, "NOTEBOOK_CELL_LIMIT", 20)
    with pytest.raises(ValueError, match="Raise min_df or set max_features"):
        lesson_notebook(load_example_corpus("match-reviews"), None, None, **settings("bernoulli", 1, "x"))


# -- running the notebook in a Jupyter kernel ----------------------------------------------------------------


def run_in_kernel(notebook: dict) -> tuple[dict, list]:
    """Execute the notebook headlessly; return the printed summary and the executed cells."""
    if nbformat is None:
        skip_unless_ci("nbformat is not installed")
    try:
        from jupyter_client.kernelspec import NoSuchKernel
        from nbclient import NotebookClient
        from nbclient.exceptions import CellExecutionError
    except ImportError:
        skip_unless_ci("nbclient is not installed")
    node = nbformat.from_dict(notebook)
    try:
        NotebookClient(node, timeout=120, kernel_name="python3").execute()
    except CellExecutionError:
        raise
    except (NoSuchKernel, RuntimeError) as error:
        skip_unless_ci(f"no Jupyter kernel could start here: {error}")
    last = node.cells[-1]
    printed = "".join(output.get("text", "") for output in last.outputs if output.output_type == "stream")
    return json.loads(printed), node.cells


@pytest.mark.slow
@pytest.mark.parametrize("case", [*KERNEL_CASES.values(), TRICKY_CASE], ids=[*KERNEL_CASES, "tricky corpus"])
def test_notebook_runs_in_a_kernel_and_reproduces_the_engine(case):
    name, analysis, vocabulary, options = case
    summary, cells = run_in_kernel(make_notebook(case))
    assert_matches_engine(summary, engine_numbers(corpus_of(name), analysis, vocabulary, options))
    errors = [o for c in cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert errors == []
    # Every step after the imports and the settings shows its numbers, not only the summary.
    code = [cell for cell in cells if cell.cell_type == "code"]
    assert all(cell.outputs for cell in code[2:])


@pytest.mark.parametrize(
    "text", ["plain", r"(?u)\b\w\w+\b", 'say "hi"', "it's", "both ' and \"", "ends with \\", "new\nline", "\u2028", ""]
)
def test_settings_are_written_as_python_literals_of_the_same_text(text):
    assert ast.literal_eval(export._literal(text)) == text


def test_numpy_numbers_in_the_settings_still_make_a_plain_json_notebook():
    notebook = lesson_notebook(
        load_example_corpus("spam-ham"), None, VocabularyOptions(min_df=np.int64(1)),
        **settings("bernoulli", 1, SPAM_REVIEW, epsilon=np.float64(1e-9), test_size=np.float64(0.25), seed=np.int64(2)),
    )
    assert json.loads(json.dumps(notebook)) == notebook
    assert notebook["metadata"]["webnb"]["seed"] == 2
    assert run_in_process(notebook)["n_test"] == 4
