"""Does scikit-learn, given the same settings, compute the same numbers as the app?

scikit-learn is optional: it is imported inside the functions, and a report says "not installed" when it is
missing. Both checks start from the app's own count matrix, so they test the app's statistics, smoothing,
priors and scoring rather than the counting itself; the counting is checked separately, by letting
``CountVectorizer`` count the training documents again when the analysis options are ones it has and the
corpus is small enough to count again quickly.

Numbers agree when they are equal (−∞ equals −∞) or differ by at most ``TOLERANCE``. NaN never agrees.
"""
from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from webnb.engine.evaluation.heldout import HeldOut
from webnb.engine.evaluation.scores import evaluate
from webnb.engine.gaussian.model import GaussianStatistics
from webnb.engine.shared.classes import class_numbers, decided_numbers
from webnb.engine.shared.plain import number
from webnb.engine.text.analysis import TOKEN_PATTERNS, AnalysisOptions
from webnb.engine.text.bag import VocabularyOptions
from webnb.engine.text.models import NaiveBayes, parse_alpha
from webnb.engine.text.training import TrainingSet

TOLERANCE = 1e-10  # absolute, on log-probabilities, counts and accuracies
# CountVectorizer reads about 10 million characters a second; beyond this the words are not counted again
# (20 Newsgroups' 23 million characters would take over two seconds).
RECOUNT_CHARACTERS = 3_000_000
OLDEST_SKLEARN = (1, 2)  # force_alpha and predict_joint_log_proba
FLOOR_REASON = "the ε-floor is not a scikit-learn option"


@dataclass(frozen=True)
class Location:
    """Where two numbers differ most: ``what`` names the quantity ("log θ", "prediction", …)."""

    what: str
    word: str | None = None
    label: str | None = None  # a class
    document: str | None = None  # the document's id in its corpus
    ours: float | str | None = None
    theirs: float | str | None = None

    def to_dict(self) -> dict:
        return {
            "what": self.what,
            "word": self.word,
            "class": self.label,
            "document": self.document,
            "ours": _plain(self.ours),
            "theirs": _plain(self.theirs),
        }


@dataclass(frozen=True)
class Check:
    """One comparison: ``compared`` items, of which ``disagreeing`` differ by more than the tolerance.

    ``unit`` says what was compared: "numbers", or "words" and "predictions", which are equal or not and
    have no ``largest_difference`` (None)."""

    name: str
    compared: int
    disagreeing: int
    largest_difference: float | None
    where: Location | None = None
    unit: str = "numbers"

    @property
    def agrees(self) -> bool:
        return self.disagreeing == 0

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "unit": self.unit,
            "compared": self.compared,
            "disagreeing": self.disagreeing,
            "agrees": self.agrees,
            "largest_difference": number(self.largest_difference),
            "where": self.where.to_dict() if self.where else None,
        }


@dataclass(frozen=True)
class ParityReport:
    """The outcome of comparing one page's numbers with scikit-learn's.

    ``of`` is "parameters" or "evaluation". ``comparable`` is False when a setting has no scikit-learn
    counterpart (the ε-floor); the checks that could still be made are kept. ``left_out`` counts documents
    that were not compared, for the reasons given in ``notes``.
    """

    of: str
    available: bool
    version: str | None
    comparable: bool
    checks: tuple[Check, ...] = ()
    notes: tuple[str, ...] = ()
    recounted: bool = False  # whether CountVectorizer counted the documents again
    calls: tuple[str, ...] = ()  # the scikit-learn calls that made its numbers, for the curious
    undecidable: int = 0  # documents the app cannot decide (every class has probability 0)
    left_out: int = 0  # documents whose predictions were not compared (includes the undecidable ones)
    tolerance: float = TOLERANCE
    seconds: float = 0.0
    reason: str | None = None  # why it is not comparable, in a few words

    @property
    def compared(self) -> int:
        """How many numbers were compared (words and predictions are counted in ``matched``)."""
        return sum(check.compared for check in self.checks if check.unit == "numbers")

    @property
    def matched(self) -> dict[str, int]:
        """How many words or predictions were compared, by unit."""
        return {check.unit: check.compared for check in self.checks if check.unit != "numbers"}

    @property
    def disagreeing(self) -> int:
        return sum(check.disagreeing for check in self.checks)

    @property
    def status(self) -> str:
        """"not installed", "disagrees", "not comparable" or "agrees"."""
        if not self.available:
            return "not installed"
        if self.disagreeing:
            return "disagrees"
        if not self.comparable:
            return "not comparable"
        return "agrees"

    @property
    def agrees(self) -> bool:
        return self.status == "agrees"

    @property
    def largest_difference(self) -> float | None:
        sizes = [check.largest_difference for check in self.checks if check.largest_difference is not None]
        return max(sizes) if sizes else None

    @property
    def failing(self) -> Check | None:
        """The first check that disagrees, or None."""
        return next((check for check in self.checks if not check.agrees), None)

    @property
    def worst(self) -> Location | None:
        """Where the first disagreeing check differs most; None when everything agrees."""
        failing = self.failing
        return failing.where if failing else None

    def to_dict(self) -> dict:
        return {
            "of": self.of,
            "status": self.status,
            "available": self.available,
            "sklearn_version": self.version,
            "comparable": self.comparable,
            "agrees": self.agrees,
            "compared": self.compared,
            "matched": self.matched,
            "disagreeing": self.disagreeing,
            "tolerance": self.tolerance,
            "largest_difference": number(self.largest_difference),
            "worst": self.worst.to_dict() if self.worst else None,
            "recounted": self.recounted,
            "calls": list(self.calls),
            "undecidable": self.undecidable,
            "left_out": self.left_out,
            "checks": [check.to_dict() for check in self.checks],
            "notes": list(self.notes),
            "reason": self.reason,
            "seconds": self.seconds,
        }


def _plain(value):
    """A JSON-safe value: infinities as "inf"/"-inf", NaN as "nan"."""
    if isinstance(value, (float, np.floating)):
        return "nan" if math.isnan(value) else number(value)
    if isinstance(value, np.integer):
        return int(value)
    return value


# -- scikit-learn, if it is there ------------------------------------------------------------------------


@dataclass(frozen=True)
class ParityCheck:
    """A page's check against scikit-learn (``of`` "parameters" or "evaluation"), texts and tables alike: the
    report, or why there is none (``error``); ``errors``, when given, the settings the page could not use.

    Parameters
    ----------
    of : str
        "parameters" or "evaluation".
    report : ParityReport or None
        The comparison; None when it could not be made.
    error : str or None
        Why there is no report, in words a student can read.
    errors : dict, optional
        The page's settings that were refused, by name.
    """

    of: str
    report: ParityReport | None
    error: str | None
    errors: dict | None = None

    def to_dict(self) -> dict:
        data = self.report.to_dict() if self.report else {"of": self.of, "status": "error"}
        extra = {"error": self.error} if self.errors is None else {"error": self.error, "errors": self.errors}
        return {**data, **extra}


def sklearn_version() -> str | None:
    """scikit-learn's version, or None when it cannot be imported."""
    try:
        import sklearn
    except ImportError:
        return None
    return sklearn.__version__


def _too_old(version: str) -> bool:
    parts = []
    for part in version.split(".")[:2]:
        digits = "".join(ch for ch in part if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts) < OLDEST_SKLEARN


def _unavailable(of: str, version: str | None) -> ParityReport | None:
    if version is None:
        return ParityReport(of, available=False, version=None, comparable=False,
                            notes=("scikit-learn is not installed, so there is nothing to compare with.",))
    if _too_old(version):
        return ParityReport(of, available=True, version=version, comparable=False, reason="this version is too old",
                            notes=(f"scikit-learn {version} is too old to compare with: version "
                                   f"{'.'.join(map(str, OLDEST_SKLEARN))} or newer has the options needed.",))
    return None


def _quietly(function, *args, **kwargs):
    """Call scikit-learn with α = 0 in mind: log 0 and ∞ − ∞ are expected there, not worth a warning
    (and the tests turn warnings into errors)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def _sklearn_model(options: dict):
    """An unfitted BernoulliNB, MultinomialNB or ComplementNB with the app's α (never raised to a minimum) and
    prior, and the call that makes it, written out."""
    from sklearn.naive_bayes import BernoulliNB, ComplementNB, MultinomialNB

    alpha = parse_alpha(options.get("alpha", 1))
    settings = {"alpha": alpha.numerator / alpha.denominator, "force_alpha": True,
                "fit_prior": bool(options.get("fit_prior", True))}
    arguments = ", ".join(f"{name}={value!r}" for name, value in settings.items())
    kind = options.get("kind", "bernoulli")
    if kind == "bernoulli":
        return BernoulliNB(binarize=0.0, **settings), f"BernoulliNB({arguments}, binarize=0.0)"
    if kind == "complement":
        return ComplementNB(norm=False, **settings), f"ComplementNB({arguments}, norm=False)"
    return MultinomialNB(**settings), f"MultinomialNB({arguments})"


def _features(matrix: sp.csr_matrix, options: dict) -> sp.csr_matrix:
    """The matrix scikit-learn is given: presence (0/1) for the binary multinomial and complement models, as the
    app counts them; BernoulliNB binarises by itself."""
    if options.get("kind") in ("multinomial", "complement") and options.get("binary"):
        presence = sp.csr_matrix(matrix, copy=True)
        presence.data = np.ones_like(presence.data)
        return presence
    return matrix


def _floor_note(options: dict) -> str | None:
    if options.get("epsilon") is None:
        return None
    return ("The ε-floor clips probabilities to [ε, 1 − ε]; scikit-learn has no such option, so the "
            "floored probabilities cannot be compared.")


# -- comparing arrays ------------------------------------------------------------------------------------


def _compare(name: str, ours, theirs, locate, tolerance: float = TOLERANCE) -> Check:
    """Entry by entry; ``locate(index, ours, theirs)`` describes the worst entry as a Location."""
    ours = np.asarray(ours, dtype=np.float64)
    theirs = np.asarray(theirs, dtype=np.float64)
    if ours.shape != theirs.shape:
        return Check(name, 0, 1, None, Location(f"{name}: shape", ours=str(ours.shape), theirs=str(theirs.shape)))
    with np.errstate(invalid="ignore"):
        difference = np.where(ours == theirs, 0.0, np.abs(ours - theirs))  # −∞ == −∞ differs by 0
    difference[np.isnan(difference)] = np.inf  # NaN agrees with nothing
    outside = int(np.count_nonzero(difference > tolerance))
    if difference.size == 0:
        return Check(name, 0, 0, 0.0)
    worst = np.unravel_index(int(np.argmax(difference)), difference.shape)
    largest = float(difference[worst])
    where = locate(worst, float(ours[worst]), float(theirs[worst])) if outside else None
    return Check(name, int(difference.size), outside, largest, where)


def _in_class(what: str, classes):
    return lambda index, ours, theirs: Location(what, label=classes[index[0]], ours=ours, theirs=theirs)


def _at_word(what: str, classes, vocabulary):
    return lambda index, ours, theirs: Location(
        what, word=vocabulary[index[1]], label=classes[index[0]], ours=ours, theirs=theirs
    )


# -- the parameters page ---------------------------------------------------------------------------------


def parameters_parity(
    training: TrainingSet, model_options: dict, *, recount: bool | None = None, model: NaiveBayes | None = None
) -> ParityReport:
    """Fit scikit-learn's model on ``training.matrix`` and compare its counts, class log priors and
    log ψ / log θ with the app's model ``training.model(**model_options)``.

    scikit-learn is imported here; without it the report says "not installed". Numbers agree when they are equal
    (−∞ equals −∞, as α = 0 gives) or differ by at most ``TOLERANCE``.

    Parameters
    ----------
    training : TrainingSet
        The training set.
    model_options : ModelOptions or dict
        The keywords of ``TrainingSet.model``: ``kind``, ``alpha``, ``binary``, ``fit_prior``, ``epsilon``. An
        ε-floor has no scikit-learn counterpart: the report is then "not comparable", with the checks that could
        still be made.
    recount : bool or None, default None
        Whether to let ``CountVectorizer`` count the training documents again and compare the vocabulary and the
        matrix; None decides by the corpus size (see ``RECOUNT_CHARACTERS``). It is skipped when the analysis
        options are not ones CountVectorizer has (stemming, placeholders).
    model : NaiveBayes, optional
        The model of these options, if the caller has made it already.

    Returns
    -------
    ParityReport
        ``status`` "agrees", "disagrees", "not comparable" or "not installed", each check with the largest
        difference found and where, the scikit-learn calls made, and notes.

    Raises
    ------
    ValueError, CorpusError
        If the app's own model cannot be made from ``model_options`` (see ``fit_naive_bayes``).

    Examples
    --------
    >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
    >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
    >>> import sys
    >>> from unittest import mock
    >>> no_sklearn = mock.patch.dict(sys.modules, {"sklearn": None})  # as on a machine without scikit-learn
    >>> with no_sklearn:
    ...     report = parameters_parity(training, {"kind": "multinomial", "alpha": 1})
    >>> report.status, report.notes
    ('not installed', ('scikit-learn is not installed, so there is nothing to compare with.',))
    """
    started = time.perf_counter()
    version = sklearn_version()
    unavailable = _unavailable("parameters", version)
    if unavailable is not None:
        return unavailable
    model = model if model is not None else training.model(**model_options)
    classes, vocabulary = training.classes, training.vocabulary
    notes: list[str] = []

    estimator, call = _sklearn_model(model_options)
    calls = [f"{call}.fit(the app's count matrix{_binarised(model_options)}, classes)"]
    theirs = _quietly(estimator.fit, _features(training.matrix, model_options), training.class_index)
    stats = model.statistics
    counts = stats.document_count_ if model.uses_presence else stats.word_count_
    count_name = "documents per word and class" if model.uses_presence else "occurrences per word and class"
    checks = [
        _compare("documents per class", stats.class_count_, theirs.class_count_, _in_class("documents", classes)),
        _compare(count_name, counts, theirs.feature_count_, _at_word("count", classes, vocabulary)),
        _compare("log priors", model.class_log_prior_, theirs.class_log_prior_, _in_class("log prior", classes)),
    ]
    # what feature_log_prob_ holds: log ψ, log θ, or Complement Naive Bayes' weights (scikit-learn's name for both)
    compared = {"bernoulli": "log ψ", "complement": "weights w = −log θ̃"}.get(model.kind, "log θ")
    floor = _floor_note(model_options)
    if floor:
        notes.append(floor)
    else:
        checks.append(
            _compare(compared, model.feature_log_prob_, theirs.feature_log_prob_,
                     _at_word(compared, classes, vocabulary))
        )
        if model.alpha == 0:
            notes.append("With α = 0 a probability can be exactly 0: its log is −∞ in both, and −∞ counts as "
                         "equal to −∞.")

    recounted = False
    vectorizer_options, reason = count_vectorizer_options(training.bag.analyzer.options, training.bag.options)
    if vectorizer_options is None:
        notes.append(f"The words were not counted again with scikit-learn: {reason}")
    else:
        if recount is None:
            recount = sum(map(len, training.corpus.texts)) <= RECOUNT_CHARACTERS
        if recount:
            recount_checks, recount_notes = _recount(training, vectorizer_options)
            checks.extend(recount_checks)
            notes.extend(recount_notes)
            recounted = True
            calls.append(f"{_vectorizer_call(vectorizer_options)}.fit_transform(the training documents)")
        else:
            notes.append(f"The words of {len(training.corpus):,} documents were not counted again with "
                         "scikit-learn's CountVectorizer: that takes seconds on a corpus this big. The numbers "
                         "above start from the app's own counts.")
    return ParityReport("parameters", True, version, comparable=floor is None, reason=FLOOR_REASON if floor else None,
                        checks=tuple(checks),
                        notes=tuple(notes), recounted=recounted, calls=tuple(calls),
                        seconds=time.perf_counter() - started)


def count_vectorizer_options(
    analysis: AnalysisOptions, vocabulary: VocabularyOptions
) -> tuple[dict | None, str | None]:
    """CountVectorizer's keyword arguments for these options, or (None, why not)."""
    if analysis.stemmer:
        return None, "stemming is not a CountVectorizer option."
    if analysis.normalize:
        return None, "placeholders (such as __url__) are not a CountVectorizer option."
    stop_words = analysis.stop_words
    return {
        "lowercase": analysis.lowercase,
        "token_pattern": TOKEN_PATTERNS.get(analysis.token_pattern, analysis.token_pattern),
        "strip_accents": analysis.strip_accents,
        "stop_words": list(stop_words) if isinstance(stop_words, tuple) else stop_words,
        "ngram_range": analysis.ngram_range,
        "min_df": vocabulary.min_df,
        "max_df": vocabulary.max_df,
        "max_features": vocabulary.max_features,
        "binary": vocabulary.binary,
    }, None


def _vectorizer_call(options: dict) -> str:
    """CountVectorizer(...) with the options that differ from its defaults."""
    defaults = {"lowercase": True, "token_pattern": TOKEN_PATTERNS["default"], "strip_accents": None,
                "stop_words": None, "ngram_range": (1, 1), "min_df": 1, "max_df": 1.0, "max_features": None,
                "binary": False}
    changed = {name: value for name, value in options.items() if defaults.get(name, object()) != value}
    if isinstance(changed.get("stop_words"), list) and len(changed["stop_words"]) > 5:
        changed["stop_words"] = f"[{len(changed['stop_words'])} words]"
    return "CountVectorizer(" + ", ".join(f"{name}={value!r}" for name, value in changed.items()) + ")"


def _binarised(options: dict) -> str:
    return ", as 0/1" if options.get("kind") in ("multinomial", "complement") and options.get("binary") else ""


def _recount(training: TrainingSet, options: dict) -> tuple[list[Check], list[str]]:
    """The vocabulary and the count matrix, from CountVectorizer, against the app's; and notes."""
    from sklearn.feature_extraction.text import CountVectorizer

    vectorizer = CountVectorizer(**options)
    try:
        their_matrix = _quietly(vectorizer.fit_transform, training.corpus.texts)
    except ValueError as error:
        where = Location(
            "vocabulary", ours=f"{len(training.vocabulary)} words", theirs=f"CountVectorizer refused: {error}"
        )
        return [Check("vocabulary", 0, 1, None, where, unit="words")], []
    ours = training.matrix
    if options["binary"]:  # the app keeps counts and binarises in the model
        ours = _features(ours, {"kind": "multinomial", "binary": True})
    ours, theirs = sp.csr_matrix(ours, dtype=np.int64), sp.csr_matrix(their_matrix, dtype=np.int64)
    ours_words = list(training.vocabulary)
    their_words = vectorizer.get_feature_names_out().tolist()
    notes = []
    if ours_words != their_words and options["max_features"]:
        tied = _tied_at_the_cut(ours, ours_words, theirs, their_words)
        if tied is not None:
            common, frequency, n_tied = tied
            notes.append(
                f"max_features keeps {options['max_features']:,} words and cuts through words of equal frequency "
                f"({frequency:,}): scikit-learn keeps some of them in no fixed order, the app the first "
                f"alphabetically, so {n_tied:,} word{'s differ' if n_tied != 1 else ' differs'}. "
                f"The {len(common):,} words both keep were compared."
            )
            ours = ours[:, [ours_words.index(word) for word in common]]
            theirs = theirs[:, [their_words.index(word) for word in common]]
            ours_words = their_words = common
    if ours_words != their_words:
        first = next((i for i, (a, b) in enumerate(zip(ours_words, their_words, strict=False)) if a != b),
                     min(len(ours_words), len(their_words)))
        differing = (
            sum(a != b for a, b in zip(ours_words, their_words, strict=False))
            + abs(len(ours_words) - len(their_words))
        )
        where = Location("word", ours=_nth(ours_words, first), theirs=_nth(their_words, first),
                         document=None, word=f"number {first + 1}")
        return [
            Check("vocabulary", max(len(ours_words), len(their_words)), differing, None, where, unit="words")
        ], notes
    checks = [Check("vocabulary", len(ours_words), 0, None, unit="words")]
    union = (abs(ours) + abs(theirs)).nnz
    difference = (ours - theirs).tocoo()
    nonzero = difference.data != 0
    rows, columns, values = difference.row[nonzero], difference.col[nonzero], difference.data[nonzero]
    if len(values) == 0:
        checks.append(Check("counts in the matrix", union, 0, 0.0))
        return checks, notes
    worst = int(np.argmax(np.abs(values)))
    row, column = int(rows[worst]), int(columns[worst])
    where = Location("count", word=ours_words[column], document=training.corpus.ids[row],
                     ours=int(ours[row, column]), theirs=int(theirs[row, column]))
    checks.append(Check("counts in the matrix", union, len(values), float(np.abs(values).max()), where))
    return checks, notes


def _tied_at_the_cut(ours: sp.csr_matrix, ours_words: list, theirs: sp.csr_matrix, their_words: list):
    """When max_features cuts through words of equal frequency, the two choices may differ in those words
    only. Returns (words both keep, the tied frequency, how many words differ), or None when the
    vocabularies differ in some other way. Frequencies are the matrices' column sums, which is what
    max_features ranks by (occurrences, or documents when the matrix is 0/1)."""
    if len(ours_words) != len(their_words):
        return None
    ours_frequency = dict(zip(ours_words, np.asarray(ours.sum(axis=0)).ravel().tolist(), strict=True))
    their_frequency = dict(zip(their_words, np.asarray(theirs.sum(axis=0)).ravel().tolist(), strict=True))
    cut = min(ours_frequency.values())
    if min(their_frequency.values()) != cut:
        return None
    only_ours = set(ours_words) - set(their_words)
    only_theirs = set(their_words) - set(ours_words)
    if any(ours_frequency[w] != cut for w in only_ours) or any(their_frequency[w] != cut for w in only_theirs):
        return None
    common = [word for word in ours_words if word in their_frequency]
    return common, int(cut), len(only_ours)


def _nth(words: list[str], i: int) -> str:
    return words[i] if i < len(words) else "(none)"


# -- the evaluation page ---------------------------------------------------------------------------------


def evaluation_parity(held_out: HeldOut, model_options: dict, *, model: NaiveBayes | None = None) -> ParityReport:
    """Fit scikit-learn on ``held_out.training.matrix``, predict ``held_out.test_matrix``, and compare its
    predictions, accuracy and confusion matrix with the app's ``evaluate``.

    Documents the app cannot decide (every class has probability 0, possible with α = 0) are left out:
    scikit-learn has no such answer and picks a class anyway. So are documents whose scikit-learn scores
    are NaN (∞ − ∞ in its Bernoulli formula when α = 0). Both are counted in the report and its notes.

    Parameters
    ----------
    held_out : HeldOut
        The training set and the test documents.
    model_options : ModelOptions or dict
        The keywords of ``TrainingSet.model``. Under an ε-floor nothing is compared ("not comparable").
    model : NaiveBayes, optional
        The model of these options, if the caller has made it already.

    Returns
    -------
    ParityReport
        ``status`` "agrees", "disagrees", "not comparable" or "not installed", with the documents left out.

    Raises
    ------
    ValueError, CorpusError
        If the app's model cannot be made from ``model_options``, or cannot score the test documents (see
        ``evaluate``).

    Examples
    --------
    >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
    >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
    >>> from webnb.engine.evaluation.heldout import on_training_documents
    >>> import sys
    >>> from unittest import mock
    >>> no_sklearn = mock.patch.dict(sys.modules, {"sklearn": None})  # as on a machine without scikit-learn
    >>> with no_sklearn:
    ...     report = evaluation_parity(on_training_documents(training), {"kind": "bernoulli", "alpha": 0})
    >>> report.of, report.status, report.checks
    ('evaluation', 'not installed', ())
    """
    started = time.perf_counter()
    version = sklearn_version()
    unavailable = _unavailable("evaluation", version)
    if unavailable is not None:
        return unavailable
    floor = _floor_note(model_options)
    if floor:
        return ParityReport("evaluation", True, version, comparable=False, reason=FLOOR_REASON, notes=(
            floor + " The predictions of the floored model are therefore not compared.",))
    from sklearn.metrics import accuracy_score, confusion_matrix

    training = held_out.training
    model = model if model is not None else training.model(**model_options)
    ours = evaluate(model, held_out.test_matrix, held_out.test_labels)
    classes = model.classes
    our_predictions = decided_numbers(classes, ours.predictions)
    true = held_out.true_class

    estimator, call = _sklearn_model(model_options)
    binarised = _binarised(model_options)
    calls = (f"{call}.fit(the app's training matrix{binarised}, classes).predict(the app's test matrix{binarised})",
             "accuracy_score(true classes, predictions)", "confusion_matrix(true classes, predictions)")
    sklearn_model = _quietly(estimator.fit, _features(training.matrix, model_options), training.class_index)
    test = _features(held_out.test_matrix, model_options)
    their_predictions = np.asarray(_quietly(sklearn_model.predict, test), dtype=np.int64)
    their_scores = _quietly(sklearn_model.predict_joint_log_proba, test)

    undecidable, nan_scores, compared, predictions = _predictions_compared(
        our_predictions, their_predictions, their_scores, held_out.test.ids, classes)
    notes = []
    if undecidable.any():
        notes.append(f"The app cannot decide {int(undecidable.sum()):,} of the {len(true):,} test documents: every "
                     "class has probability 0. scikit-learn picks a class for them anyway, so they were not compared.")
    if nan_scores.any():
        more = " more" if undecidable.any() else ""
        notes.append(f"For {int(nan_scores.sum()):,}{more} documents scikit-learn's scores are NaN: with α = 0 its "
                     "formula adds +∞ and −∞, so they were not compared.")
    checks = [predictions]
    if not compared.any():
        notes.append("No document is left that both can score, so nothing else was compared.")
        return ParityReport("evaluation", True, version, comparable=False, checks=(), notes=tuple(notes),
                            reason="no test document is left that both can score",
                            calls=calls, undecidable=int(undecidable.sum()), left_out=int((~compared).sum()),
                            seconds=time.perf_counter() - started)

    everything = bool(compared.all())
    if everything:
        our_accuracy, our_confusion = ours.accuracy, np.array(ours.confusion)
        accuracy_name = "accuracy"
    else:
        # Only the documents both decide: the app's confusion matrix already leaves out its undecidable ones.
        decided_only = not nan_scores.any()
        our_accuracy = float(np.mean(our_predictions[compared] == true[compared]))
        our_confusion = np.array(ours.confusion) if decided_only else _confusion(true[compared],
                                                                                  our_predictions[compared],
                                                                                  len(classes))
        accuracy_name = f"accuracy on the {int(compared.sum()):,} documents both decide"
    their_accuracy = float(accuracy_score(true[compared], their_predictions[compared]))
    their_confusion = confusion_matrix(true[compared], their_predictions[compared], labels=np.arange(len(classes)))
    checks.append(_compare(accuracy_name, our_accuracy, their_accuracy,
                           lambda index, a, b: Location("accuracy", ours=a, theirs=b)))
    checks.append(_compare("confusion matrix", our_confusion, their_confusion,
                           lambda index, a, b: Location("confusion", label=f"{classes[index[0]]} → {classes[index[1]]}",
                                                        ours=a, theirs=b)))
    return ParityReport("evaluation", True, version, comparable=True, checks=tuple(checks), notes=tuple(notes),
                        calls=calls, undecidable=int(undecidable.sum()), left_out=int((~compared).sum()),
                        seconds=time.perf_counter() - started)


def _confusion(true: np.ndarray, predicted: np.ndarray, n_classes: int) -> np.ndarray:
    confusion = np.zeros((n_classes, n_classes), dtype=np.int64)
    np.add.at(confusion, (true, predicted), 1)
    return confusion


# -- tables of numbers: Gaussian Naive Bayes ----------------------------------------------------------------

GAUSSIAN_LOG_TOLERANCE = 1e-9  # log posteriors; parameters are held to TOLERANCE


def gaussian_parity(
    training, test, var_smoothing: float, prior: str, of: str, *, statistics: GaussianStatistics | None = None
) -> ParityReport:
    r"""Fit scikit-learn's GaussianNB on the same training rows with the same ``var_smoothing`` (and the uniform
    prior as ``priors``) and compare them with the app's model.

    For ``of`` = "parameters": the priors, means, variances and ε; for "evaluation": the predictions, log
    posteriors, accuracy and confusion matrix on the ``test`` rows. Rows the app cannot decide (only possible with
    a variance of exactly 0) are left out, and so are rows whose scikit-learn scores are NaN (its formula divides 0
    by 0 there).

    Parameters
    ----------
    training : NumericTable
        The training rows.
    test : NumericTable
        The test rows (read for "evaluation" only).
    var_smoothing : float
        The share of the largest feature variance added to every variance, 0 or more.
    prior : {"learned", "uniform"}
        The class priors.
    of : {"parameters", "evaluation"}
        What to compare.
    statistics : GaussianStatistics, optional
        The training rows' statistics (``GaussianStatistics.fit(training)``), not fitted again when given.

    Returns
    -------
    ParityReport
        As for the text models; "not installed" without scikit-learn.

    Raises
    ------
    ValueError
        If a column's values are so large that scikit-learn overflows on them (nothing to compare), or
        ``var_smoothing`` or ``prior`` is refused (see ``GaussianStatistics.model``).
    CorpusError
        If the training rows cannot be trained on, or the test rows do not have one number per feature.

    Examples
    --------
    >>> from webnb.engine.gaussian.table import read_numeric_csv
    >>> table = read_numeric_csv("x,label\n1,a\n2,a\n7,b\n9,b\n")
    >>> import sys
    >>> from unittest import mock
    >>> no_sklearn = mock.patch.dict(sys.modules, {"sklearn": None})  # as on a machine without scikit-learn
    >>> with no_sklearn:
    ...     report = gaussian_parity(table, table, 1e-9, "learned", "parameters")
    >>> report.of, report.status, report.available
    ('parameters', 'not installed', False)
    """
    if statistics is not None:
        _require_finite_in_sklearn(statistics)
    started = time.perf_counter()
    version = sklearn_version()
    unavailable = _unavailable(of, version)
    if unavailable is not None:
        return unavailable
    from sklearn.naive_bayes import GaussianNB

    if statistics is None:
        statistics = GaussianStatistics.fit(training)
        _require_finite_in_sklearn(statistics)
    ours = statistics.model(var_smoothing, prior)
    classes = ours.classes
    n_classes = len(classes)
    priors = ours.class_prior_ if ours.prior_mode == "uniform" else None
    call = (f"GaussianNB(var_smoothing={var_smoothing!r}"
            + (f", priors=[1/{n_classes}] × {n_classes})" if priors is not None else ")"))
    theirs = _quietly(
        GaussianNB(var_smoothing=var_smoothing, priors=priors).fit, training.values, np.array(training.labels)
    )
    if tuple(str(c) for c in theirs.classes_) != classes:
        return ParityReport(of, True, version, comparable=False, reason="the classes are ordered differently")
    if of == "parameters":
        features = ours.features
        per_cell = lambda what: lambda index, a, b: Location(  # noqa: E731
            what, word=features[index[1]], label=classes[index[0]], ours=a, theirs=b
        )
        checks = (
            _compare("class priors", ours.class_prior_, theirs.class_prior_, _in_class("prior", classes)),
            _compare("means μ", ours.means, theirs.theta_, per_cell("mean")),
            _compare("variances σ² + ε", ours.smoothed_variances, theirs.var_, per_cell("variance")),
            _compare("ε", ours.epsilon, theirs.epsilon_, lambda index, a, b: Location("ε", ours=a, theirs=b)),
        )
        return ParityReport("parameters", True, version, comparable=True, checks=checks,
                            calls=(f"{call}.fit(the training rows, their classes)",),
                            seconds=time.perf_counter() - started)

    from sklearn.metrics import confusion_matrix

    result = evaluate(ours, test.values, test.labels)
    our_predictions = decided_numbers(classes, result.predictions)
    true = class_numbers(classes, test.labels)
    their_log_posterior = _quietly(theirs.predict_log_proba, test.values)
    their_predictions = class_numbers(classes, [str(p) for p in _quietly(theirs.predict, test.values)])
    our_log_posterior, _ = ours.predict_log_proba(test.values)
    undecidable, nan_scores, compared, predictions = _predictions_compared(
        our_predictions, their_predictions, their_log_posterior, test.ids, classes)
    notes = []
    if undecidable.any():
        notes.append(f"The app cannot decide {int(undecidable.sum()):,} of the {len(true):,} test rows "
                     "(a variance of 0); scikit-learn picks a class for them anyway, so they were not compared.")
    if nan_scores.any():
        notes.append(f"For {int(nan_scores.sum()):,} rows scikit-learn's scores are NaN (it divides 0 by 0 where a "
                     "variance is 0), so they were not compared.")
    checks = [predictions]
    if compared.any():
        checks.append(_compare("log posteriors", our_log_posterior[compared], their_log_posterior[compared],
                               lambda index, a, b: Location("log posterior", document=None,
                                                            label=classes[index[1]], ours=a, theirs=b),
                               GAUSSIAN_LOG_TOLERANCE))
        our_accuracy = float(np.mean(our_predictions[compared] == true[compared]))
        their_accuracy = float(np.mean(their_predictions[compared] == true[compared]))
        checks.append(_compare("accuracy", our_accuracy, their_accuracy,
                               lambda index, a, b: Location("accuracy", ours=a, theirs=b)))
        ours_confusion = _confusion(true[compared], our_predictions[compared], n_classes)
        their_confusion = confusion_matrix(true[compared], their_predictions[compared], labels=np.arange(n_classes))
        checks.append(_compare("confusion matrix", ours_confusion, their_confusion,
                               lambda index, a, b: Location("confusion",
                                                            label=f"{classes[index[0]]} → {classes[index[1]]}",
                                                            ours=a, theirs=b)))
    return ParityReport("evaluation", True, version, comparable=bool(compared.any()), checks=tuple(checks),
                        notes=tuple(notes),
                        reason=None if compared.any() else "no test row is left that both can score",
                        calls=(f"{call}.fit(the training rows, their classes)", "predict_log_proba(the test rows)",
                               "predict(the test rows)"),
                        undecidable=int(undecidable.sum()), left_out=int((~compared).sum()),
                        tolerance=GAUSSIAN_LOG_TOLERANCE, seconds=time.perf_counter() - started)


def _require_finite_in_sklearn(statistics: GaussianStatistics) -> None:
    """Refuse statistics of columns that the app had to scale (see ``GaussianStatistics.rescaled``): scikit-learn
    sums them as they are, and its means or variances come out infinite."""
    features = statistics.rescaled
    if not features:
        return
    named = ", ".join(repr(f) for f in features[:3]) + (" and others" if len(features) > 3 else "")
    raise ValueError(
        f"the values of {named} are so large that scikit-learn's GaussianNB overflows on them (the sums behind "
        "its mean or variance pass the largest float64, so they come out infinite): there is nothing to compare "
        "with. The app scales such columns by a power of two before adding them up, so its numbers are finite."
    )


def _predictions_compared(ours: np.ndarray, theirs: np.ndarray, their_scores: np.ndarray, ids, classes):
    """Which test rows both can score (the app decides them, scikit-learn's scores are not NaN) and the check of the
    predictions on those: (undecidable, NaN scores, compared, the check). Predictions are class indices, −1 for
    the app's undecidable rows."""
    undecidable = ours < 0
    nan_scores = np.isnan(their_scores).any(axis=1) & ~undecidable
    compared = ~undecidable & ~nan_scores
    differ = compared & (ours != theirs)
    where = None
    if differ.any():
        i = int(np.flatnonzero(differ)[0])
        where = Location("prediction", document=ids[i], ours=classes[ours[i]], theirs=classes[theirs[i]])
    check = Check("predictions", int(compared.sum()), int(differ.sum()), None, where, unit="predictions")
    return undecidable, nan_scores, compared, check
