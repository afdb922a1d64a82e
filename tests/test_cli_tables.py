"""``webnb evaluate`` and ``webnb explain`` on a table of numbers (--model gaussian): scikit-learn's GaussianNB gives
the same numbers, the JSON is the pages' own, and every bad input is a message with exit code 2."""
from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import confusion_matrix
from sklearn.naive_bayes import GaussianNB

from webnb import examples
from webnb.cli import build_parser, main
from webnb.engine.evaluation.scores import stratified_split
from webnb.examples import load_example_table

EXAMPLES_DIR = Path(examples.__file__).parent
IRIS = str(EXAMPLES_DIR / "iris.csv")
MATCH = str(EXAMPLES_DIR / "match-reviews.jsonl")
RED_CARDS = str(EXAMPLES_DIR / "red-cards.csv")
TYPICAL = ("5.1", "3.5", "1.4", "0.2")
BETWEEN = ("6.0", "2.9", "4.9", "1.6")  # between versicolor and virginica: neither posterior is close to 1
FAR = ("5.9", "3", "40", "1.8")  # petal length 40 cm: every density of that feature underflows to 0.0


def run(*argv) -> tuple[int, str]:
    out = io.StringIO()
    code = main(list(argv), out=out)
    return code, out.getvalue()


def run_json(*argv) -> dict:
    code, text = run(*argv, "--json")
    assert code == 0
    return json.loads(text)


def values(row) -> list[str]:
    return [argument for value in row for argument in ("--value", value)]


def fitted(rows, var_smoothing=1e-9, priors=None) -> GaussianNB:
    iris = load_example_table("iris")
    return GaussianNB(var_smoothing=var_smoothing, priors=priors).fit(iris.values[rows], np.array(iris.labels)[rows])


# -- the same numbers as scikit-learn ------------------------------------------------------------------------------


@pytest.mark.parametrize("var_smoothing, uniform", [("1e-9", False), ("0.01", False), ("1e-9", True)])
def test_iris_split_scores_and_bells_equal_scikit_learns(var_smoothing, uniform):
    iris = load_example_table("iris")
    train, test = stratified_split(iris.labels, 0.25, 0)
    prior = ["--uniform-prior"] if uniform else []
    report = run_json("evaluate", "--train", IRIS, "--model", "gaussian", "--test-size", "0.25", "--seed", "0",
                      "--var-smoothing", var_smoothing, *prior)
    sk = fitted(train, float(var_smoothing), [1 / 3] * 3 if uniform else None)
    y_test = np.array(iris.labels)[test]
    predicted = sk.predict(iris.values[test])

    assert (report["n_train"], report["n_test"]) == (len(train), len(test)) == (114, 36)
    assert report["classes"] == list(sk.classes_)
    evaluation = report["evaluation"]
    assert evaluation["accuracy"] == sk.score(iris.values[test], y_test)
    assert evaluation["confusion"] == confusion_matrix(y_test, predicted, labels=sk.classes_).tolist()
    assert report["class_prior"] == sk.class_prior_.tolist()
    assert report["epsilon"] == report["settings"]["epsilon"] == sk.epsilon_
    for k, bells in enumerate(report["parameters"]):
        assert bells["class"] == sk.classes_[k] and bells["rows"] == sk.class_count_[k]
        assert bells["prior"] == sk.class_prior_[k]
        # To the last bit: the engine sums in scikit-learn's order.
        assert [cell["mean"] for cell in bells["features"]] == sk.theta_[k].tolist()
        assert [cell["used"] for cell in bells["features"]] == sk.var_[k].tolist()
        assert [cell["variance"] for cell in bells["features"]] == pytest.approx(sk.var_[k] - sk.epsilon_, rel=1e-9)
    wrong = np.flatnonzero(predicted != y_test)
    assert [m["position"] for m in report["mistakes"]] == test[wrong].tolist()
    assert [m["predicted"] for m in report["mistakes"]] == predicted[wrong].tolist()


def test_evaluate_json_has_the_shape_of_the_texts_one():
    from test_cli import SHARED_SCORES, SHARED_TOP_LEVEL

    table = run_json("evaluate", "--train", IRIS, "--model", "gaussian", "--test-size", "0.25")
    texts = run_json("evaluate", "--train", MATCH, "--model", "bernoulli")
    assert SHARED_TOP_LEVEL <= set(table) and SHARED_TOP_LEVEL <= set(texts)
    assert set(table["evaluation"]) == set(texts["evaluation"]) >= SHARED_SCORES
    assert "accuracy" not in table and "accuracy" not in texts  # the scores are in one place, "evaluation"
    assert table["evaluation"]["accuracy"] == table["evaluation"]["correct"] / table["n_test"]
    assert table["train"] == IRIS and texts["train"] == MATCH


def test_training_accuracy_is_on_every_row():
    iris = load_example_table("iris")
    report = run_json("evaluate", "--train", IRIS, "--model", "gaussian")
    sk = fitted(np.arange(len(iris)))
    assert report["n_train"] == report["n_test"] == 150
    assert report["test"] == "the training rows themselves (training accuracy)"
    assert report["evaluation"]["accuracy"] == sk.score(iris.values, np.array(iris.labels)) == 0.96


def test_a_separate_test_table_scores_as_the_same_split(tmp_path):
    text = Path(IRIS).read_text(encoding="utf-8").splitlines()
    header, rows = text[0], text[1:]
    train, test = stratified_split(load_example_table("iris").labels, 0.25, 0)
    (tmp_path / "train.csv").write_text("\n".join([header, *(rows[i] for i in train)]) + "\n", encoding="utf-8")
    (tmp_path / "test.csv").write_text("\n".join([header, *(rows[i] for i in test)]) + "\n", encoding="utf-8")
    held_out = run_json("evaluate", "--train", IRIS, "--model", "gaussian", "--test-size", "0.25")
    separate = run_json("evaluate", "--train", str(tmp_path / "train.csv"), "--test", str(tmp_path / "test.csv"),
                        "--model", "gaussian")
    assert separate["test"] == f"test table {tmp_path / 'test.csv'}"
    assert separate["evaluation"] == held_out["evaluation"]
    assert separate["parameters"] == held_out["parameters"]
    # Places in the test file now: the test rows are its rows 0 to 35.
    assert [m["values"] for m in separate["mistakes"]] == [m["values"] for m in held_out["mistakes"]]
    assert [m["position"] for m in separate["mistakes"]] == [
        int(np.searchsorted(test, m["position"])) for m in held_out["mistakes"]]


@pytest.mark.parametrize("row", [TYPICAL, BETWEEN, FAR])
def test_explain_posteriors_equal_predict_proba(row):
    report = run_json("explain", "--train", IRIS, "--model", "gaussian", *values(row))
    sk = fitted(np.arange(150))
    expected = sk.predict_proba(np.array([[float(v) for v in row]]))[0]
    explanation = report["explanation"]
    assert explanation["values"] == [float(v) for v in row]
    assert [c["class"] for c in explanation["classes"]] == list(sk.classes_)
    assert [c["posterior"] for c in explanation["classes"]] == pytest.approx(expected, rel=1e-12, abs=1e-300)
    assert explanation["decision"] == sk.predict(np.array([[float(v) for v in row]]))[0]
    assert [c["log_joint"] for c in explanation["classes"]] == pytest.approx(
        sk.predict_joint_log_proba(np.array([[float(v) for v in row]]))[0], rel=1e-12)


def test_a_negative_value_with_an_exponent_reaches_the_table():
    report = run_json("explain", "--train", IRIS, "--model", "gaussian", "--value", "-1e1", "--value", "-.5",
                      "--value", "1.4", "--value", "0.2")
    assert report["explanation"]["values"] == [-10.0, -0.5, 1.4, 0.2]


# -- the JSON twins of the pages -----------------------------------------------------------------------------------


def test_evaluate_json_is_the_evaluation_and_parameters_pages_json(client):
    settings = "test=split&test_size=0.2&seed=4&var_smoothing=0.001&prior=uniform"
    report = run_json("evaluate", "--train", IRIS, "--model", "gaussian", "--test-size", "0.2", "--seed", "4",
                      "--var-smoothing", "0.001", "--uniform-prior")
    page = client.get(f"/corpora/iris/gaussian/evaluation?{settings}&format=json").get_json()
    for key in ("n_train", "n_test", "evaluation", "mistakes"):
        assert report[key] == page[key], key
    assert page["mistakes"]  # so that the rows got wrong are compared too
    # The parameters page shows the bells of the same training rows with train=split.
    page = client.get(f"/corpora/iris/gaussian/parameters?{settings}&train=split&format=json").get_json()
    for key in ("classes", "features", "epsilon", "largest_variance_feature", "parameters"):
        assert report[key] == page[key], key
    assert report["settings"] == {"model": "gaussian", "var_smoothing": 0.001, "epsilon": page["epsilon"],
                                  "prior": "uniform"}


@pytest.mark.parametrize("row, settings", [(TYPICAL, []), (FAR, ["--var-smoothing", "0.5", "--uniform-prior"])])
def test_explain_json_is_the_inference_pages_explanation(client, row, settings):
    report = run_json("explain", "--train", IRIS, "--model", "gaussian", *values(row), *settings)
    query = "&".join(f"value={v}" for v in row)
    if settings:
        query += "&var_smoothing=0.5&prior=uniform"
    page = client.get(f"/corpora/iris/gaussian/inference?{query}&format=json").get_json()
    assert page["state"]["errors"] == {}
    assert report["explanation"] == page["explanation"]
    assert report["features"] == [f["feature"] for f in page["explanation"]["classes"][0]["features"]]


def test_a_zero_variance_prints_as_the_pages_print_it():
    # 'opponent red cards' is 0 in every lost match: with var_smoothing 0 its bell has no width.
    report = run_json("explain", "--train", RED_CARDS, "--model", "gaussian", "--var-smoothing", "0",
                      "--value", "8", "--value", "0")
    explanation = report["explanation"]
    lost, won = explanation["classes"]
    assert lost["log_joint"] == "inf" and lost["posterior"] == 1.0 and won["posterior"] == 0.0
    assert explanation["evidence"] == "inf" and explanation["naive_decision"] is None
    assert explanation["decision"] == "lost"


# -- the text output -----------------------------------------------------------------------------------------------


def test_evaluate_text_shows_the_scores_the_bells_and_the_rows_got_wrong():
    iris = load_example_table("iris")
    train, test = stratified_split(iris.labels, 0.25, 0)
    sk = fitted(train)
    y_test = np.array(iris.labels)[test]
    correct = int((sk.predict(iris.values[test]) == y_test).sum())
    code, text = run("evaluate", "--train", IRIS, "--model", "gaussian", "--test-size", "0.25")
    assert code == 0
    lines = text.splitlines()
    assert lines[0] == f"Training: {IRIS}: 114 rows, 3 classes, 4 features"
    assert lines[1] == "Tested on: held out 0.25 of each class (seed 0): 36 rows"
    assert lines[2].startswith("Model: Gaussian Naive Bayes, var_smoothing = 1e-09, so ε = 1e-09 × ")
    assert f"Accuracy: {correct / 36:.4f} ({correct} of 36 correct)" in lines
    for k, label in enumerate(sk.classes_):
        assert f"  {label}: 38 rows, prior φ = 1/3 ≈ 0.333333" in lines
        mean = f"μ = {sk.theta_[k][2]:<12.6g}"
        assert any(line.startswith("    petal length (cm)") and mean in line for line in lines)
    wrong = [line for line in lines if line.startswith("  line ")]
    assert len(wrong) == 36 - correct
    assert f"Wrong: {36 - correct} test rows (true class → predicted, with its posterior):" in lines


def test_explain_text_shows_the_underflow_and_the_decision():
    code, text = run("explain", "--train", IRIS, "--model", "gaussian", *values(FAR))
    assert code == 0
    lines = text.splitlines()
    assert lines[0] == "Values: sepal length (cm) = 5.9, sepal width (cm) = 3, petal length (cm) = 40, " \
                       "petal width (cm) = 1.8"
    underflows = [line for line in lines if line.endswith("← the density underflowed to 0.0; its log did not")]
    assert len(underflows) == 3 and all(line.lstrip().startswith("petal length (cm)") for line in underflows)
    assert "  Bayes' rule in plain floats cannot decide: every product is 0.0, and 0/0 has no value." in lines
    assert "  numpy, taking the log of a density: RuntimeWarning: divide by zero encountered in log" in lines
    assert lines[-1] == "Decision: virginica"


def test_explain_text_says_when_even_log_space_cannot_decide(tmp_path):
    table = tmp_path / "spikes.csv"
    table.write_text("x,label\n1,a\n1,a\n2,b\n2,b\n", encoding="utf-8")
    code, text = run("explain", "--train", str(table), "--model", "gaussian", "--var-smoothing", "0",
                     "--value", "1.5")
    assert code == 0
    assert text.splitlines()[-1].startswith("Cannot decide: every class is impossible (each has a feature with "
                                            "variance 0 and a value away from its mean).")


def test_help_names_the_table_options(capsys):
    for command, option in (("evaluate", "--var-smoothing"), ("explain", "--value")):
        with pytest.raises(SystemExit) as exit_:
            main([command, "--help"], out=io.StringIO())
        assert exit_.value.code == 0
        shown = capsys.readouterr().out
        assert option in shown and "tables of numbers (--model gaussian):" in shown
        assert "--model gaussian" in shown.split("examples:")[1]


# -- bad input: a message and exit code 2, never a traceback ------------------------------------------------------


@pytest.fixture()
def other_columns(tmp_path) -> str:
    path = tmp_path / "two-features.csv"
    path.write_text("a,b,species\n1,2,setosa\n3,4,virginica\n", encoding="utf-8")
    return str(path)


GAUSSIAN = ("--model", "gaussian")
BAD_INPUTS = [
    (["evaluate", "--train", MATCH, *GAUSSIAN], "match-reviews.jsonl is not a table of numbers"),
    (["explain", "--train", MATCH, *GAUSSIAN, "--value", "1"], "use --model bernoulli or multinomial"),
    (["evaluate", "--train", IRIS], "iris.csv is a table of numbers (labels in 'species', features "
                                    "'sepal length (cm)'"),
    (["explain", "--train", IRIS, "--model", "bernoulli", "--text", "x"], "Add --model gaussian"),
    (["explain", "--train", IRIS, *GAUSSIAN, "--value", "1", "--value", "2"],
     "2 values were given with --value; the table has 4 features: give --value once for each, in this order: "
     "'sepal length (cm)', 'sepal width (cm)', 'petal length (cm)', 'petal width (cm)'."),
    (["explain", "--train", IRIS, *GAUSSIAN, *values(TYPICAL), "--value", "0"], "5 values were given"),
    (["explain", "--train", IRIS, *GAUSSIAN], "Give the row to classify with --value once per feature"),
    (["explain", "--train", IRIS, *GAUSSIAN, *values(("5.1", "3.5", "x", "0.2"))],
     "The value for 'petal length (cm)' is 'x', not a plain decimal number"),
    (["explain", "--train", IRIS, *GAUSSIAN, *values(("5.1", "nan", "1.4", "0.2"))],
     "The value for 'sepal width (cm)' is 'nan', not a plain decimal number"),
    (["explain", "--train", IRIS, *GAUSSIAN, *values(("5.1", "3.5", "1.4", "1e999"))],
     "The value for 'petal width (cm)' is '1e999', larger than any float64"),
    (["evaluate", "--train", IRIS, *GAUSSIAN, "--alpha", "2", "--stop-words", "english"],
     "--alpha, --stop-words are for text models (bernoulli, multinomial)"),
    (["evaluate", "--train", IRIS, *GAUSSIAN, "--class-prior", "0.2,0.3,0.5"], "--class-prior is for text models"),
    (["explain", "--train", MATCH, "--text", "x", "--var-smoothing", "0.1"],
     "--var-smoothing is for a table of numbers: add --model gaussian."),
    (["explain", "--train", MATCH, "--value", "1"], "--value is for a table of numbers"),
    (["evaluate", "--train", IRIS, *GAUSSIAN, "--label-column", "colour"], "There is no column 'colour'"),
    (["evaluate", "--train", IRIS, *GAUSSIAN, "--test", "OTHER"],
     "The test table's features ('a', 'b') are not the training table's"),
    (["evaluate", "--train", "/nonexistent/table.csv", *GAUSSIAN], "Cannot read /nonexistent/table.csv"),
]


@pytest.mark.parametrize("argv, message", BAD_INPUTS)
def test_bad_input_is_a_message_with_exit_code_2(argv, message, other_columns, capsys):
    argv = [other_columns if argument == "OTHER" else argument for argument in argv]
    assert main(argv, out=io.StringIO()) == 2
    error = capsys.readouterr().err
    assert error.startswith("webnb: ") and message in error
    assert "Traceback" not in error


@pytest.mark.parametrize("value, words", [
    ("-1", "var_smoothing is '-1', with a minus sign."),
    ("lots", "var_smoothing is 'lots', not a plain decimal number"),
    ("2e6", "var_smoothing is '2e6', above 1e+06."),
])
def test_var_smoothing_is_read_as_the_pages_read_it(value, words, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["evaluate", "--train", IRIS, *GAUSSIAN, "--var-smoothing", value], out=io.StringIO())
    assert exit_.value.code == 2
    error = capsys.readouterr().err
    assert f"argument --var-smoothing: {words}" in error and "such as 1e-9 or 0." in error
    args = build_parser().parse_args(["evaluate", "--train", IRIS, *GAUSSIAN, "--var-smoothing", " 0 "])
    assert args.var_smoothing == 0.0


HOSTILE = ["1e-100000", "1e1000000", "9" * 5000, "nan", "inf", "-inf", "0x10", "１", "²", "1_000", "1e", ".", " ",
           "1/0", "0." + "0" * 4000 + "1", "1e+99999999999999999999"]
INTERNALS = ["Traceback", "Exceeds the limit", "ValueError", "OverflowError", "invalid literal", "could not convert"]


@pytest.mark.parametrize("option", ["--var-smoothing", "--value"])
def test_hostile_numbers_are_refused_in_words(option, capsys):
    for value in HOSTILE:
        if option == "--value":  # as the last feature's value
            argv = [*values(TYPICAL[:3]), "--value", value]
        else:
            argv = [*values(TYPICAL), "--var-smoothing", value]
        try:
            code = main(["explain", "--train", IRIS, *GAUSSIAN, *argv], out=io.StringIO())
        except SystemExit as exit_:  # argparse refuses a --var-smoothing before anything is read
            code = exit_.code
        error = capsys.readouterr().err
        assert code == 2, (option, value[:20])
        assert "webnb" in error and len(error) < 3000, (option, value[:20])
        assert not any(internal in error for internal in INTERNALS), (option, value[:20])
