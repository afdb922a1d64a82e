"""What the calibration page says: each model's decisions on the test documents (how sure, and whether right), its
reliability bins, its documents by length and by class, and the sentences the page and its slide write from them.
webnb/views/calibration.py reads the address, keeps logistic regression's decisions (a background job on a large
corpus) and serves these records, which the JSON twin gives whole."""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from webnb.engine.evaluation.calibration import HIGH_CONFIDENCE, Calibration, LengthGroup, by_length, calibration
from webnb.engine.evaluation.comparison import NAIVE_BAYES_MODELS, StoppingRule
from webnb.engine.evaluation.heldout import HeldOut
from webnb.engine.shared.forwarding import forwarded
from webnb.engine.shared.plain import number, plain
from webnb.engine.text.discriminative import fit_softmax_regression
from webnb.engine.text.models import normalise_log_joint
from webnb.lesson import slides
from webnb.lesson.formatting import big_count, percent

LENGTH_GROUPS = 5
# A model whose mean confidence is within this of its accuracy (on the documents it decides) is called calibrated;
# further above, overconfident; further below, underconfident.
CALIBRATED_WITHIN = 0.01
LOGISTIC_NAME = "Logistic regression"


# -- each test document: how sure, and whether right -------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Decisions:
    """What a model decided on the test documents: each one's confidence (the posterior of the class chosen; NaN
    where no class can be chosen) and whether that class was the right one. Logistic regression's also carry how
    its fit went."""

    confidence: np.ndarray  # (n_test,) float
    correct: np.ndarray  # (n_test,) bool
    iterations: int | None = None
    converged: bool | None = None


def naive_bayes_decisions(model, held: HeldOut) -> Decisions:
    """The model's decisions on ``held``'s test documents: the argmax of the joint (exact ties settled, as
    ``predict_index`` decides them) and its posterior by log-sum-exp."""
    jll = model.joint_log_likelihood(held.test_matrix)
    log_posterior, decidable = normalise_log_joint(jll)
    predicted = jll.argmax(axis=1)
    top = log_posterior[np.arange(len(predicted)), predicted]
    confidence = np.where(decidable, np.exp(top), np.nan)
    return Decisions(confidence, decidable & (predicted == held.true_class))


def logistic_decisions(held: HeldOut, C: float, stopping: StoppingRule, progress=None) -> Decisions:
    """Softmax regression fitted on ``held``'s training counts (as the compare page fits it) and its decisions on
    the test documents."""
    training = held.training
    fitted = fit_softmax_regression(
        training.matrix, training.class_index, training.classes, C=C, max_iterations=stopping.max_iterations,
        tol=stopping.tolerance, relative_tol=stopping.relative_tolerance, progress=progress)
    log_proba = fitted.predict_log_proba(held.test_matrix)
    predicted = log_proba.argmax(axis=1)
    confidence = np.exp(log_proba[np.arange(len(predicted)), predicted])
    return Decisions(confidence, predicted == held.true_class, fitted.n_iterations, fitted.converged)


# -- what the page says about one model ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Statement:
    """One sentence of the page, written from the record: what it is ``about`` (a model's verdict, its documents
    above 0.99, the comparison, length), what it ``says`` in one word, and the sentence."""

    about: str
    says: str
    text: str

    def to_dict(self) -> dict:
        return plain(self)


@dataclass(frozen=True)
class ClassCalibration:
    """The decided test documents of one true class: how many, how sure the model was of them, how often right, and
    the share of them decided above the threshold."""

    label: str
    count: int
    mean_confidence: float | None
    accuracy: float | None
    high_confidence_share: float | None

    def to_dict(self) -> dict:
        return {"class": self.label, "count": self.count, "confidence": number(self.mean_confidence),
                "accuracy": number(self.accuracy), "high_confidence_share": number(self.high_confidence_share)}


def _mean(values: np.ndarray) -> float | None:
    return math.fsum(values.tolist()) / len(values) if len(values) else None


def per_class(decisions: Decisions, held: HeldOut, threshold: float) -> tuple[ClassCalibration, ...]:
    """Each class's decided test documents (by their true class), in the training set's class order."""
    true, decided = held.true_class, ~np.isnan(decisions.confidence)
    rows = []
    for k, label in enumerate(held.training.classes):
        members = decided & (true == k)
        values, right = decisions.confidence[members], decisions.correct[members]
        count = int(members.sum())
        rows.append(ClassCalibration(
            label, count, _mean(values), int(right.sum()) / count if count else None,
            int((values > threshold).sum()) / count if count else None))
    return tuple(rows)


@dataclass(frozen=True)
class ModelCalibration:
    """One model on the test documents: its reliability bins and what they sum up to (the engine's
    ``Calibration``), its accuracy, its documents grouped by length and by class, and the fit's iterations for
    logistic regression."""

    key: str  # "naive-bayes" or "logistic"
    name: str
    short_name: str  # "Naive Bayes", "Logistic regression": where room is short (the slide's figures)
    n_test: int
    correct: int
    mean_confidence: float | None  # over the decided documents
    result: Calibration
    lengths: tuple[LengthGroup, ...]
    classes: tuple[ClassCalibration, ...]
    iterations: int | None = None
    converged: bool | None = None
    documents: str = "test documents"  # what they decided: "training documents" when tested on those

    @property
    def accuracy(self) -> float:
        """The share of all test documents classified right (an undecided one is not)."""
        return self.correct / self.n_test if self.n_test else 0.0

    @property
    def decided_accuracy(self) -> float | None:
        decided = self.result.decided
        return self.correct / decided if decided else None

    @property
    def mean_gap(self) -> float | None:
        """Mean confidence − accuracy over the decided documents: Σ_b (n_b / N)(confidence_b − accuracy_b), the
        signed twin of the expected calibration error. Positive: overconfident."""
        if self.mean_confidence is None:
            return None
        return self.mean_confidence - self.decided_accuracy

    @property
    def says(self) -> str:
        """"overconfident", "underconfident", "calibrated" (a mean gap within ``CALIBRATED_WITHIN``), or
        "undecided" when it decides no document."""
        gap = self.mean_gap
        if gap is None:
            return "undecided"
        if gap > CALIBRATED_WITHIN:
            return "overconfident"
        if gap < -CALIBRATED_WITHIN:
            return "underconfident"
        return "calibrated"

    @property
    def ece_text(self) -> str:
        ece = self.result.expected_calibration_error
        return "—" if ece is None else f"{ece:.3f}"

    def _decided(self) -> str:
        """"the 7,532 test documents", or "the 30 test documents it can decide" when it cannot decide them all."""
        decided = self.result.decided
        return f"the {big_count(decided)} {self.documents}" + ("" if decided == self.n_test else " it can decide")

    def verdict(self) -> Statement:
        """Whether the model is as sure as it is right, on average."""
        says = self.says
        if says == "undecided":
            return Statement(f"{self.key}-verdict", says,
                             f"{self.name} cannot decide any of the {big_count(self.n_test)} {self.documents}: every "
                             "class has probability 0 for each of them.")
        how = {"overconfident": "is overconfident", "underconfident": "is underconfident",
               "calibrated": "is about as sure as it is right"}[says]
        return Statement(f"{self.key}-verdict", says,
                         f"{self.name} {how}: on {self._decided()} it is {percent(self.mean_confidence)} sure on "
                         f"average, and right {percent(self.decided_accuracy)} of the time.")

    def high_confidence(self) -> Statement:
        """The documents decided above the threshold, and how often those are right."""
        result = self.result
        above = f"with confidence above {result.threshold:g}"
        if not result.high_confidence:
            return Statement(f"{self.key}-high", "none", f"{self.name} decides none of {self._decided()} {above}.")
        right = "all of them are right" if result.high_confidence_accuracy == 1 else (
            f"{percent(result.high_confidence_accuracy)} of those are right")
        if result.high_confidence == result.decided:
            which = f"all {self._decided().removeprefix('the ')}"
        else:
            count = big_count(result.high_confidence)
            which = f"{percent(result.high_confidence_share)} of {self._decided()} ({count})"
        return Statement(f"{self.key}-high", "some", f"{self.name} decides {which} {above}; {right}.")

    def to_dict(self) -> dict:
        result = self.result
        return {
            "key": self.key,
            "name": self.name,
            "short_name": self.short_name,
            "n_test": self.n_test,
            "decided": result.decided,
            "undecided": result.undecided,
            "correct": self.correct,
            "accuracy": number(self.accuracy),
            "mean_confidence": number(self.mean_confidence),
            "says": self.says,
            "bins": [{"lower": number(b.lower), "upper": number(b.upper), "confidence": number(b.mean_confidence),
                      "accuracy": number(b.accuracy), "count": b.count, "gap": number(b.gap)} for b in result.bins],
            "ece": number(result.expected_calibration_error),
            "high_confidence": {"threshold": number(result.threshold), "count": result.high_confidence,
                                "share": number(result.high_confidence_share),
                                "accuracy": number(result.high_confidence_accuracy)},
            "by_length": [{"shortest": g.shortest, "longest": g.longest, "count": g.count,
                           "confidence": number(g.mean_confidence), "accuracy": number(g.accuracy),
                           "high_confidence_share": number(g.high_confidence_share)} for g in self.lengths],
            "by_class": [row.to_dict() for row in self.classes],
            "iterations": self.iterations,
            "converged": self.converged,
        }


def model_calibration(key: str, name: str, short_name: str, decisions: Decisions, held: HeldOut,
                      n_bins: int) -> ModelCalibration:
    """The record of one model's ``decisions`` on ``held``'s test documents, in ``n_bins`` bins."""
    confidence, correct = decisions.confidence, decisions.correct
    lengths = np.asarray(held.test_matrix.sum(axis=1)).ravel().astype(np.int64)  # words of the vocabulary
    decided = ~np.isnan(confidence)
    return ModelCalibration(
        key=key, name=name, short_name=short_name, n_test=len(confidence), correct=int(correct.sum()),
        mean_confidence=_mean(confidence[decided]),
        result=calibration(confidence, correct, n_bins=n_bins, threshold=HIGH_CONFIDENCE),
        lengths=by_length(confidence, correct, lengths, n_groups=LENGTH_GROUPS, threshold=HIGH_CONFIDENCE),
        classes=per_class(decisions, held, HIGH_CONFIDENCE), iterations=decisions.iterations,
        converged=decisions.converged,
        documents="training documents" if held.source == "training" else "test documents",
    )


def naive_bayes_name(state) -> str:
    """The lesson's model as the compare page names it ("Multinomial Naive Bayes, binary")."""
    for spec in NAIVE_BAYES_MODELS:
        if spec.kind == state.model and (spec.kind == "bernoulli" or spec.binary == state.binary):
            return spec.name
    return "Naive Bayes"


# -- the page ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CalibrationPage:
    """The calibration page: the held-out documents, Naive Bayes on them and logistic regression beside it (None,
    with ``logistic_problem``, when it could not be fitted), and what the page says about its own parameters."""

    held: HeldOut
    naive_bayes: ModelCalibration
    logistic: ModelCalibration | None
    logistic_problem: str | None
    C: float
    n_bins: int
    errors: Mapping[str, str]
    presenter: bool = False

    @property
    def models(self) -> tuple[ModelCalibration, ...]:
        return (self.naive_bayes,) + ((self.logistic,) if self.logistic is not None else ())

    n_test = forwarded("naive_bayes.n_test")

    @property
    def few_documents(self) -> bool:
        return slides.few("confidence.few.tests", self.n_test)

    def comparison(self) -> Statement | None:
        """Which model is the better calibrated, by the expected calibration error."""
        nb, lr = self.naive_bayes, self.logistic
        if lr is None or nb.result.expected_calibration_error is None:
            return None
        nb_ece, lr_ece = nb.result.expected_calibration_error, lr.result.expected_calibration_error
        says = "logistic" if lr_ece < nb_ece else "naive-bayes" if nb_ece < lr_ece else "tie"
        better = {"logistic": f"{LOGISTIC_NAME} is the better calibrated here.",
                  "naive-bayes": f"{nb.name} is the better calibrated here.",
                  "tie": "Both are calibrated equally well here."}[says]
        return Statement("comparison", says,
                         f"Expected calibration error on the same {big_count(self.n_test)} {nb.documents}: "
                         f"{nb.ece_text} for {nb.name}, {lr.ece_text} for logistic regression. {better}")

    def better(self) -> Statement | None:
        """The comparison in one short sentence, for the slide beside the two errors."""
        long = self.comparison()
        if long is None:
            return None
        text = {"logistic": f"{LOGISTIC_NAME} is the better calibrated.",
                "naive-bayes": f"{self.naive_bayes.name} is the better calibrated.",
                "tie": "Both are calibrated equally well."}[long.says]
        return Statement("better", long.says, text)

    def length(self) -> Statement | None:
        """Naive Bayes on its shortest and its longest documents: the more words, the more factors, the surer."""
        groups = self.naive_bayes.lengths
        if len(groups) < 2:
            return None
        short, long = groups[0], groups[-1]
        says = "surer-when-longer" if long.mean_confidence > short.mean_confidence else "not-surer-when-longer"

        def words(g: LengthGroup) -> str:
            lengths = big_count(g.shortest) if g.shortest == g.longest else (
                f"{big_count(g.shortest)}–{big_count(g.longest)}")
            return f"{lengths} word{'' if g.longest == 1 else 's'}"

        def documents(g: LengthGroup, which: str) -> str:
            return f"its {which} document" if g.count == 1 else f"its {big_count(g.count)} {which} documents"

        return Statement("length", says,
                         f"By length: on {documents(short, 'shortest')} ({words(short)}) {self.naive_bayes.name} is "
                         f"{percent(short.mean_confidence)} sure and {percent(short.accuracy)} right; on "
                         f"{documents(long, 'longest')} ({words(long)}), {percent(long.mean_confidence)} sure and "
                         f"{percent(long.accuracy)} right.")

    def few(self) -> Statement | None:
        if not self.few_documents:
            return None
        return Statement("few", "few", f"With only {big_count(self.n_test)} {self.naive_bayes.documents} these "
                                       "shares move a lot from one split to the next.")

    def statements(self) -> tuple[Statement, ...]:
        """Every sentence of the page that states something, in the page's order."""
        found = [self.naive_bayes.verdict(), self.naive_bayes.high_confidence()]
        if self.logistic is not None:
            found += [self.logistic.verdict(), self.logistic.high_confidence()]
        found += [self.comparison(), self.length(), self.few()]
        return tuple(s for s in found if s is not None)

    def slide_statements(self) -> tuple[Statement, ...]:
        """The sentences the slide says, over its chart (the rest of the page's are one key away)."""
        found = [self.naive_bayes.high_confidence(), self.better(),
                 self.logistic.high_confidence() if self.logistic else None, self.few()]
        return tuple(s for s in found if s is not None)

    def to_dict(self) -> dict:
        data = {
            "n_test": self.n_test,
            "held_out": self.held.to_dict(),
            "n_bins": self.n_bins,
            "threshold": number(HIGH_CONFIDENCE),
            "C": number(self.C),
            "models": [model.to_dict() for model in self.models],
            "logistic_problem": self.logistic_problem,
            "statements": [s.to_dict() for s in self.statements()],
            "errors": dict(self.errors),
        }
        if self.presenter:
            # What the slide shows: the reliability diagram of these models, these sentences, each model's expected
            # calibration error beside the chart; the rest is folded, one key away.
            data["slide"] = {
                "chart": "reliability",
                "models": [model.name for model in self.models],
                "statements": [s.to_dict() for s in self.slide_statements()],
                "figures": [{"model": model.key, "ece": number(model.result.expected_calibration_error)}
                            for model in self.models],
                "folded": ["statements", "figures", "bins", "by_length", "by_class"],
            }
        return data
