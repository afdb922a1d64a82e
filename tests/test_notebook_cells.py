"""The notebooks' code cells as Python files: each one is the cell the notebook holds, imports on its own (running on
the lecture's example, as the notebook would), and its functions compute what the engine computes.

The files are read by the notebook builders as text; here they are imported as modules. A cell's functions read
the settings from their module, so a test changes a setting with ``monkeypatch.setattr`` on that module.
"""
from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
from fractions import Fraction
from importlib import resources
from types import SimpleNamespace

import numpy as np
import pytest

from webnb.engine import AnalysisOptions, Analyzer, TrainingSet, VocabularyOptions, evaluate, explain
from webnb.engine.evaluation.scores import stratified_split
from webnb.engine.export import gaussian_notebook, lesson_notebook
from webnb.engine.export.jupyter import CELL_MARKER, cell_source
from webnb.engine.gaussian.model import GaussianStatistics
from webnb.engine.gaussian.model import explain as explain_gaussian
from webnb.examples import load_example_corpus, load_example_table

CELLS = "webnb.engine.export.cells"
TEXT_CELLS = ("imports", "settings", "corpus", "analysis", "vocabulary", "ratios", "model", "trace", "posterior",
              "split", "accuracy", "summary")
COMPLEMENT_CELLS = ("complement_model", "complement_trace", "complement_accuracy", "complement_summary")
# The code cells of each text notebook after its corpus cell: a tuple is one cell made of several files, in order.
NAIVE_BAYES_CODE = ("analysis", "vocabulary", ("ratios", "model"), "trace", "posterior", ("split", "accuracy"),
                    "summary")
COMPLEMENT_CODE = ("analysis", "vocabulary", ("ratios", "complement_model"), "complement_trace",
                   ("split", "complement_accuracy"), "complement_summary")
GAUSSIAN_CELLS = ("imports", "settings", "data", "fit", "naive", "log_space", "evaluation", "summary")

# The settings that cells/settings.py and cells/gaussian/settings.py stand for.
TEXT_EXAMPLE = dict(kind="bernoulli", alpha=0, review="match was sharp")
GAUSSIAN_EXAMPLE = dict(var_smoothing=1e-9, prior="learned", values=(6.0,), test_size=None)


def imported(package: str, names) -> SimpleNamespace:
    """The cell modules of ``package``, imported."""
    return SimpleNamespace(**{name: importlib.import_module(f"{package}.{name}") for name in names})


@pytest.fixture(scope="module")
def text_cells():
    return imported(CELLS, TEXT_CELLS)


@pytest.fixture(scope="module")
def complement_cells(text_cells):
    return imported(CELLS, COMPLEMENT_CELLS)


@pytest.fixture(scope="module")
def gaussian_cells():
    return imported(f"{CELLS}.gaussian", GAUSSIAN_CELLS)


def code_of(notebook: dict) -> list[str]:
    return [cell["source"] for cell in notebook["cells"] if cell["cell_type"] == "code"]


# -- the files are the notebooks' cells ------------------------------------------------------------------------


def joined_source(entry) -> str:
    """The source of one code cell: a cell file, or several joined by two blank lines."""
    return "\n\n\n".join(cell_source(name) for name in ((entry,) if isinstance(entry, str) else entry))


@pytest.mark.parametrize("kind, cells", [("bernoulli", NAIVE_BAYES_CODE), ("complement", COMPLEMENT_CODE)])
def test_the_text_notebook_is_made_of_the_cell_files(text_cells, kind, cells):
    example = {**TEXT_EXAMPLE, "kind": kind}
    code = code_of(lesson_notebook(load_example_corpus("match-reviews"), **example))
    # The settings file is exactly what the builder writes for the example it stands for (bar the model's name).
    settings = cell_source("settings").replace('MODEL = "bernoulli"', f'MODEL = "{kind}"')
    assert code[:2] == [cell_source("imports"), settings]
    corpus_json, cell = code[2].split("\n\n", 1)
    namespace: dict = {}
    exec(corpus_json, namespace)
    assert namespace["CORPUS_JSON"] == text_cells.corpus.CORPUS_JSON
    assert cell == cell_source("corpus")
    assert code[3:] == [joined_source(entry) for entry in cells]


def test_the_gaussian_notebook_is_made_of_the_cell_files(gaussian_cells):
    cells = gaussian_cells
    code = code_of(gaussian_notebook(load_example_table("match-ratings"), **GAUSSIAN_EXAMPLE))
    assert code[0] == cell_source("gaussian/imports") + "\n\n" + cell_source("gaussian/settings")
    table_line, cell = code[1].split("\n\n", 1)
    namespace: dict = {"json": json}
    exec(table_line, namespace)
    assert namespace["TABLE"] == cells.data.TABLE
    assert cell == cell_source("gaussian/data")
    assert code[2:] == [cell_source(f"gaussian/{name}") for name in GAUSSIAN_CELLS[3:]]


@pytest.mark.parametrize("name", [*TEXT_CELLS, *COMPLEMENT_CELLS, *(f"gaussian/{name}" for name in GAUSSIAN_CELLS)])
def test_each_cell_file_has_one_marker_and_runs_on_python_3_9(name):
    path = resources.files(CELLS).joinpath(f"{name}.py")
    text = path.read_text(encoding="utf-8")
    assert text.count(f"\n{CELL_MARKER}\n") == 1
    source = cell_source(name)
    assert source == text.split(f"\n{CELL_MARKER}\n")[1].strip("\n") and source
    ast.parse(source, feature_version=(3, 9))  # the reader's Jupyter may be older than webnb's Python


@pytest.mark.slow  # a fresh interpreter
def test_importing_the_cells_runs_them_on_the_lecture_example_and_prints_nothing(text_cells, gaussian_cells):
    printed = importlib.import_module(f"{CELLS}.output").OUTPUT.getvalue().splitlines()
    assert "  = 32/3645 ≈ 0.00877915" in printed
    assert json.dumps(text_cells.summary.summary, ensure_ascii=False) in printed
    summaries = [json.loads(line) for line in printed if line.startswith('{"classes": ["lost", "won"]')]
    assert [summary["decision"] for summary in summaries] == ["won"]
    # Whatever imports every module of the engine (its tests do) reads a standard output that the cells left alone.
    finished = subprocess.run([sys.executable, "-c", f"import {CELLS}.summary, {CELLS}.gaussian.summary"],
                              capture_output=True, text=True, timeout=120, check=True)
    assert finished.stdout == ""


# -- the text notebook's functions ---------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["Keeper was SHARP, and composed!", "a b cd 12 x9 naïve café", "", "won't stop"])
def test_analyze_reads_text_as_the_engine_does(text_cells, text):
    assert text_cells.analysis.analyze(text) == Analyzer(AnalysisOptions())(text)


def test_analyze_follows_its_settings(text_cells, monkeypatch):
    analysis = text_cells.analysis
    monkeypatch.setattr(analysis, "NGRAM_RANGE", (1, 2))
    monkeypatch.setattr(analysis, "STRIP_ACCENTS", "unicode")
    monkeypatch.setattr(analysis, "STOP_WORDS", frozenset({"was"}))
    options = AnalysisOptions(ngram_range=(1, 2), strip_accents="unicode", stop_words=("was",))
    text = "The naïve keeper was sharp"
    assert analysis.analyze(text) == Analyzer(options)(text) == [
        "the", "naive", "keeper", "sharp", "the naive", "naive keeper", "keeper sharp"]


def test_the_vocabulary_and_the_bag_of_words_are_the_engine_s(text_cells, match_reviews, monkeypatch):
    cells = text_cells
    assert cells.vocabulary.vocabulary == list(match_reviews.vocabulary)
    np.testing.assert_array_equal(cells.vocabulary.X, match_reviews.matrix.toarray())
    monkeypatch.setattr(cells.vocabulary, "MIN_DF", 2)
    monkeypatch.setattr(cells.vocabulary, "MAX_FEATURES", 3)
    pruned = TrainingSet.build(match_reviews.corpus, None, VocabularyOptions(min_df=2, max_features=3))
    assert cells.vocabulary.build_vocabulary(cells.analysis.features) == list(pruned.vocabulary) == [
        "composed", "match", "was"]


def test_fit_and_ratio_give_the_lecture_s_32_over_3645(text_cells, match_reviews):
    cells = text_cells
    fitted = cells.model.fit(cells.vocabulary.X, cells.corpus.y)
    engine = match_reviews.model("bernoulli", 0)
    np.testing.assert_array_equal(fitted["prob"], engine.feature_prob_)
    np.testing.assert_array_equal(fitted["prior"], engine.class_prior_)
    negative, positive = cells.corpus.CLASSES.index("negative"), cells.corpus.CLASSES.index("positive")
    word = cells.vocabulary.vocabulary.index
    assert cells.model.show(cells.model.ratio(fitted, positive, word("sharp"))) == "1/3"
    assert cells.model.show(cells.model.ratio(fitted, negative, word("not"), absent=True)) == "0/2"
    assert cells.model.prior_exact(fitted, positive) == Fraction(3, 5)
    review = cells.vocabulary.count_matrix([cells.analysis.analyze("match was sharp")], cells.vocabulary.vocabulary)[0]
    joints = []
    for k in (negative, positive):
        joint = cells.model.prior_exact(fitted, k)
        for _, _, ratio, _, power in cells.trace.factors(fitted, k, review):
            joint *= Fraction(*ratio) ** power
        joints.append(joint)
    assert joints == [0, Fraction(32, 3645)]


def test_show_writes_a_fractional_part_in_brackets(text_cells):
    assert text_cells.ratios.show((Fraction(3, 2), 3)) == "(3/2)/3"


def test_fit_of_a_smoothed_multinomial_model(text_cells, china_japan, monkeypatch):
    cells = text_cells
    for name, value in {"MODEL": "multinomial", "ALPHA": Fraction(1), "ALPHA_F": 1.0,
                        "CLASSES": list(china_japan.model("multinomial", 1).classes)}.items():
        monkeypatch.setattr(cells.model, name, value)
    features = [cells.analysis.analyze(text) for text in china_japan.corpus.texts]
    vocabulary = cells.vocabulary.build_vocabulary(features)
    y = np.array([cells.model.CLASSES.index(label) for label in china_japan.corpus.labels])
    fitted = cells.model.fit(cells.vocabulary.count_matrix(features, vocabulary), y)
    np.testing.assert_allclose(fitted["prob"], china_japan.model("multinomial", 1).feature_prob_, rtol=1e-15)
    assert cells.model.show(cells.model.ratio(fitted, 0, vocabulary.index("chinese"))) == "6/14"
    assert fitted["log_absent"] is None


def test_trace_and_posterior_decide_as_the_engine_does(text_cells, match_reviews):
    cells = text_cells
    trace = explain(match_reviews.model("bernoulli", 0), match_reviews.bag, "match was sharp")
    assert cells.trace.review_features == list(trace.analysis.features)
    assert list(cells.trace.review_log_joint) == [c.log_joint for c in trace.per_class]
    assert cells.trace.joint_exact == [0, Fraction(32, 3645)] == [c.joint_exact for c in trace.per_class]
    assert cells.posterior.posterior == [c.posterior for c in trace.per_class] == [0.0, 1.0]
    assert cells.posterior.decision == trace.decision == "positive"


def test_predict_cannot_decide_where_every_class_is_ruled_out(text_cells):
    cells = text_cells
    rows = cells.vocabulary.count_matrix([["not", "sharp", "match"], ["match", "was", "sharp"]],
                                         cells.vocabulary.vocabulary)
    assert cells.accuracy.predict(cells.model.model, rows) == [None, cells.corpus.CLASSES.index("positive")]
    assert cells.accuracy.predictions == cells.corpus.y.tolist() and cells.accuracy.accuracy == 1.0


@pytest.mark.parametrize("seed", range(6))
def test_stratified_split_holds_out_the_engine_s_documents(text_cells, seed):
    cells = text_cells
    train, test = cells.split.stratified_split(cells.corpus.y, 0.4, seed)
    engine_train, engine_test = stratified_split(cells.corpus.labels, 0.4, seed)
    assert (train.tolist(), test.tolist()) == (engine_train.tolist(), engine_test.tolist())


# -- the Gaussian notebook's cells ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def gaussian_model():
    table = load_example_table("match-ratings")
    return table, GaussianStatistics.fit(table).model(GAUSSIAN_EXAMPLE["var_smoothing"], GAUSSIAN_EXAMPLE["prior"])


def test_the_bell_curves_are_the_engine_s(gaussian_cells, gaussian_model):
    cells, (_, model) = gaussian_cells, gaussian_model
    assert cells.fit.CLASSES == list(model.classes)
    np.testing.assert_allclose(cells.fit.means, model.means, rtol=1e-15)
    np.testing.assert_allclose(cells.fit.variances, model.smoothed_variances, rtol=1e-14)
    np.testing.assert_allclose(cells.fit.prior, model.class_prior_, rtol=1e-15)
    assert cells.fit.epsilon == pytest.approx(model.epsilon, rel=1e-14)


def test_bayes_rule_in_floats_and_in_logs_is_the_engine_s(gaussian_cells, gaussian_model):
    cells, (_, model) = gaussian_cells, gaussian_model
    explained = explain_gaussian(model, GAUSSIAN_EXAMPLE["values"])
    np.testing.assert_allclose(cells.naive.products, [c.product for c in explained.classes], rtol=1e-13)
    np.testing.assert_allclose(cells.naive.naive_posterior, [c.naive_posterior for c in explained.classes], rtol=1e-13)
    np.testing.assert_allclose(cells.log_space.log_joint, [c.log_joint for c in explained.classes], rtol=1e-13)
    np.testing.assert_allclose(cells.log_space.posterior, [c.posterior for c in explained.classes], rtol=1e-13)
    assert cells.log_space.decision == explained.naive_decision == "won"


def test_the_accuracy_on_the_test_rows_is_the_engine_s(gaussian_cells, gaussian_model):
    cells, (table, model) = gaussian_cells, gaussian_model
    evaluation = evaluate(model, table.values, table.labels)
    assert cells.evaluation.accuracy == evaluation.accuracy == 17 / 18
    assert cells.evaluation.confusion == [list(row) for row in evaluation.confusion] == [[8, 0], [1, 9]]
