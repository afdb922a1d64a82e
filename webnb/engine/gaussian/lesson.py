"""What the pages of a table of numbers show, as frozen records that templates only format.

    rows        one page of the table's rows, and the rows per class
    parameters  each class's prior and, per feature, the bell's mean and widths (population, sample, smoothed)
    zero cells  the bells of width 0, and what ε makes of them for the values typed
    presets     a typical row, and a row so far from every mean that its densities underflow
    evaluation  a model scored on test rows (a ``Score``) and the rows it got wrong

Each record's ``to_dict()`` is its part of the page's JSON twin. The step-by-step explanation of one row is
``webnb.engine.gaussian.model.explain``.
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from webnb.engine.evaluation.scores import Score, evaluate, stratified_split
from webnb.engine.gaussian.model import DEFAULT_VAR_SMOOTHING, GaussianNB, GaussianStatistics
from webnb.engine.gaussian.table import NumericTable
from webnb.engine.shared.paging import page_count
from webnb.engine.shared.plain import number, plain


@dataclass(frozen=True, eq=False)
class GaussianSplit:
    """Statistics of a table's training rows, with the rows it is tested on and their places in the table: the
    ``held`` of a Gaussian ``Score`` (see ``score_table``), as a text ``HeldOut`` is.

    Parameters
    ----------
    statistics : GaussianStatistics
        Those of ``training``.
    training : NumericTable
        The training rows.
    test : NumericTable
        The rows the model is tested on.
    positions : numpy.ndarray of int, shape (n_test,)
        Each test row's place in the table it came from.
    source : {"all", "split", "training", "table"}, default "all"
        All rows tested on themselves ("all" and "training"), a stratified split, or another table.
    test_size : float, optional
        The held-out share of a split.
    seed : int, optional
        The seed of a split.
    """

    statistics: GaussianStatistics
    training: NumericTable
    test: NumericTable
    positions: np.ndarray
    source: str = "all"  # "split", "training" or "all" (tested on the rows it learned from, as "training")
    test_size: float | None = None  # of a split
    seed: int | None = None

    @classmethod
    def of(cls, table: NumericTable, test: str = "all", test_size: float = 0.25, seed: int = 0) -> "GaussianSplit":
        r"""The statistics of all of ``table``'s rows (``test`` "all"), or of the training part of a stratified
        split ("split") with its test rows, or of all rows tested on themselves ("training").

        Parameters
        ----------
        table : NumericTable
            The table.
        test : {"all", "split", "training"}, default "all"
            How the model is tested.
        test_size : float, default 0.25
            The share of each class held out, for "split".
        seed : int, default 0
            The split's seed, for "split".

        Returns
        -------
        GaussianSplit
            ``source`` as ``test`` says.

        Raises
        ------
        ValueError
            If ``test_size`` is not strictly between 0 and 1 (for "split").
        CorpusError
            If the test part would be empty, or the training rows cannot be trained on.

        Examples
        --------
        >>> from webnb.engine.gaussian.table import read_numeric_csv
        >>> table = read_numeric_csv("x,label\n1,a\n2,a\n3,a\n4,a\n7,b\n8,b\n9,b\n10,b\n")
        >>> held = GaussianSplit.of(table, "split", test_size=0.25, seed=0)
        >>> len(held.training), held.test.labels, held.positions.tolist()
        (6, ('a', 'b'), [2, 7])
        """
        if test == "split":
            train_index, test_index = stratified_split(table.labels, test_size, seed)
            training = table.subset(train_index)
            return cls(GaussianStatistics.fit(training), training, table.subset(test_index), test_index, test,
                       test_size, seed)
        return cls(GaussianStatistics.fit(table), table, table, np.arange(len(table)), test)

    @classmethod
    def tested_on(cls, table: NumericTable, test: NumericTable) -> "GaussianSplit":
        """All of ``table``'s rows, tested on the rows of another table with the same features.

        Parameters
        ----------
        table : NumericTable
            The training rows.
        test : NumericTable
            The test rows.

        Returns
        -------
        GaussianSplit
            ``source`` "table".

        Raises
        ------
        CorpusError
            If ``table`` cannot be trained on.
        """
        return cls(GaussianStatistics.fit(table), table, test, np.arange(len(test)), "table")

    def to_dict(self) -> dict:
        return {"source": self.source, "test_size": self.test_size, "seed": self.seed, "n_train": len(self.training),
                "n_test": len(self.test)}

# -- the rows ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TableRow:
    """Row ``index`` of the table (from 0), with the id it came with.

    Parameters
    ----------
    index : int
        The row's number in the table, from 0.
    id : str
        Where it came from.
    label : str
        Its class.
    values : tuple of float
        One number per feature.
    """

    index: int
    id: str
    label: str
    values: tuple[float, ...]

    def to_dict(self) -> dict:
        return plain(self)


@dataclass(frozen=True)
class RowsPage:
    """Page ``page`` of ``pages`` of a table's rows.

    Parameters
    ----------
    features : tuple of str
        The columns.
    class_counts : dict of str to int
        Rows per class, in class order.
    page, pages : int
        This page (from 1) and the number of pages.
    rows : tuple of TableRow
        The rows on this page.
    """

    features: tuple[str, ...]
    class_counts: dict[str, int]  # rows per class, in class order
    page: int
    pages: int
    rows: tuple[TableRow, ...]

    def to_dict(self) -> dict:
        return {"features": list(self.features), "class_counts": dict(self.class_counts), "page": self.page,
                "pages": self.pages, "rows": [row.to_dict() for row in self.rows]}


def rows_page(table: NumericTable, page: int, per_page: int) -> RowsPage:
    """The rows on page ``page`` (from 1) of ``table``.

    Parameters
    ----------
    table : NumericTable
        The table whose rows are shown.
    page : int
        The page, from 1 (a page past the last is empty).
    per_page : int
        Rows a page shows.

    Returns
    -------
    RowsPage
        The rows with their ids and labels, and the rows per class.
    """
    start = (page - 1) * per_page
    shown = range(start, min(start + per_page, len(table)))
    rows = tuple(TableRow(i, table.ids[i], table.labels[i], tuple(float(v) for v in table.values[i])) for i in shown)
    return RowsPage(table.features, table.class_counts(), page, page_count(len(table), per_page), rows)


# -- the parameters ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FeatureBell:
    """One class's bell for one feature: its mean, the population variance and deviation the model estimates, the
    sample deviation (divided by n_k − 1) for comparison, and the variance used (σ² + ε)."""

    feature: str
    mean: float
    variance: float
    sd: float
    sample_sd: float
    used: float
    used_sd: float
    zero: bool  # the variance is exactly 0 before smoothing

    def to_dict(self) -> dict:
        return plain(self)


@dataclass(frozen=True)
class ClassBells:
    """A class's rows, its prior (exact and in float64) and its bell for each feature."""

    label: str
    count: int
    prior: float
    exact_prior: Fraction
    cells: tuple[FeatureBell, ...]

    def to_dict(self) -> dict:
        return {"class": self.label, "rows": self.count, "prior": self.prior,
                "features": [cell.to_dict() for cell in self.cells]}


@dataclass(frozen=True, eq=False)
class GaussianParameters:
    """Everything the model learned, class by class, with the feature whose variance sets ε.

    Parameters
    ----------
    model : GaussianNB
        The model.
    classes : tuple of ClassBells
        Per class: its rows, its prior (exact and in float64) and, per feature, the mean, the population and
        sample standard deviations and the variance used (σ² + ε).
    largest : int
        The feature with the largest variance over all rows.
    largest_variance : float
        That variance: ε = var_smoothing × it.
    zero_cells : int
        Class-and-feature variances exactly 0 before smoothing.
    """

    model: GaussianNB
    classes: tuple[ClassBells, ...]
    largest: int  # the feature with the largest variance over all rows
    largest_variance: float
    zero_cells: int  # class-and-feature variances exactly 0 before smoothing

    def to_dict(self) -> dict:
        model = self.model
        return {"classes": list(model.classes), "features": list(model.features), "epsilon": model.epsilon,
                "largest_variance_feature": model.features[self.largest],
                "parameters": [bells.to_dict() for bells in self.classes]}


def gaussian_parameters(model: GaussianNB) -> GaussianParameters:
    """What the parameters page shows of ``model``: each class's prior and bells (see ``GaussianParameters``).

    Parameters
    ----------
    model : GaussianNB
        A fitted model.

    Returns
    -------
    GaussianParameters
        The priors and the bells, class by class.
    """
    stats = model.statistics
    classes = []
    for k, label in enumerate(model.classes):
        cells = []
        for j, feature in enumerate(model.features):
            variance, used = float(stats.variances[k, j]), float(model.smoothed_variances[k, j])
            cells.append(FeatureBell(
                feature=feature, mean=float(stats.means[k, j]), variance=variance, sd=math.sqrt(variance),
                sample_sd=math.sqrt(float(stats.sample_variances[k, j])), used=used, used_sd=math.sqrt(used),
                zero=variance == 0.0,
            ))
        classes.append(ClassBells(label, int(stats.class_count[k]), float(model.class_prior_[k]),
                                  model.class_prior_exact[k], tuple(cells)))
    largest = stats.largest_variance_feature
    return GaussianParameters(model, tuple(classes), largest, float(stats.feature_variances[largest]),
                              int((stats.variances == 0).sum()))


# -- bells of width 0 --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ZeroWidthCell:
    """A class and feature whose variance is 0 before smoothing, at the typed ``value``: the spike the model has
    without ε, and the narrow bell ``epsilon`` (from ``shown_smoothing``) makes of it."""

    label: str
    feature: str
    mean: float  # the value every row of the class has
    value: float
    at_mean: bool  # without ε: density +∞ at the mean, 0 anywhere else
    shown_smoothing: float
    epsilon: float
    epsilon_variance: float
    smoothed_log_density: float
    smoothed_density: float  # 0.0 where it underflows

    def to_dict(self) -> dict:
        return {"class": self.label, "feature": self.feature, "mean": self.mean, "value": self.value,
                "at_mean": self.at_mean, "var_smoothing": self.shown_smoothing, "epsilon": self.epsilon,
                "variance": self.epsilon_variance, "log_density": number(self.smoothed_log_density),
                "density": number(self.smoothed_density)}


def zero_width_cells(model: GaussianNB, values) -> tuple[ZeroWidthCell, ...]:
    """Every class and feature of ``model`` whose variance is 0 before smoothing, at ``values`` (one per feature).
    With ``model``'s var_smoothing, or scikit-learn's default when it has none.

    Parameters
    ----------
    model : GaussianNB
        A fitted model.
    values : sequence of float
        The typed row, one number per feature.

    Returns
    -------
    tuple of ZeroWidthCell
        Per such cell: the mean every row of the class has, whether the value is at it (density +∞ without ε,
        else 0), and the narrow bell that ε makes of it.

    Raises
    ------
    ValueError
        If the model's statistics cannot take the smoothing shown (see ``GaussianStatistics.model``).
    """
    stats = model.statistics
    shown_smoothing = model.var_smoothing or DEFAULT_VAR_SMOOTHING
    with_epsilon = stats.model(shown_smoothing, model.prior_mode)
    log_densities = with_epsilon.feature_log_densities(np.array(values))
    cells = []
    for k, j in zip(*np.nonzero(stats.variances == 0), strict=True):
        mean, log_density = float(stats.means[k, j]), float(log_densities[k, j])
        cells.append(ZeroWidthCell(
            label=model.classes[k], feature=model.features[j], mean=mean, value=values[j], at_mean=values[j] == mean,
            shown_smoothing=shown_smoothing, epsilon=with_epsilon.epsilon,
            epsilon_variance=float(with_epsilon.smoothed_variances[k, j]), smoothed_log_density=log_density,
            smoothed_density=math.exp(log_density) if log_density < 709 else math.inf,
        ))
    return tuple(cells)


# -- rows to try -------------------------------------------------------------------------------------------------


def typical_row(table: NumericTable, sample=None) -> tuple[float, ...]:
    """``sample`` (a table's example row) if it has one, else the table's first row.

    Parameters
    ----------
    table : NumericTable
        The table.
    sample : sequence of float, optional
        The example row that came with the table.

    Returns
    -------
    tuple of float
        One number per feature.
    """
    return tuple(sample) if sample else tuple(float(v) for v in table.values[0])


def far_row(table: NumericTable, typical: tuple[float, ...], far=None) -> tuple[float, ...]:
    """``far`` if the table comes with one, else ``typical`` with its first feature about 50 standard deviations
    beyond every class's mean: its densities underflow (e^(−50²/2) is far below the smallest float).

    Parameters
    ----------
    table : NumericTable
        The table.
    typical : tuple of float
        A typical row (see ``typical_row``).
    far : sequence of float, optional
        The far row that came with the table.

    Returns
    -------
    tuple of float
        The row, its first value rounded to three significant digits.
    """
    if far:
        return tuple(far)
    column = table.values[:, 0]
    highest, lowest = float(column.max()), float(column.min())
    with np.errstate(over="ignore", invalid="ignore"):
        spread = float(np.std(column))
    if not math.isfinite(spread):  # values near ±1.8e308: half the range is spread enough
        spread = highest / 2 - lowest / 2
    spread = spread or max(abs(highest), 1.0)
    # Beyond the largest value, or below the smallest where that would overflow, or the largest float itself.
    for value in (highest + 50 * spread, lowest - 50 * spread, math.copysign(sys.float_info.max, -lowest)):
        if math.isfinite(value):
            break
    rounded = float(f"{value:.3g}")
    return (rounded if math.isfinite(rounded) else value, *typical[1:])


# -- the evaluation ----------------------------------------------------------------------------------------------


def score_table(held, var_smoothing: float, prior: str) -> Score:
    """The model of ``held.statistics`` (a table's training rows) with these settings, scored on ``held.test``.
    ``held`` also has ``training`` and ``positions`` (the test rows' places in the table).

    Parameters
    ----------
    held : GaussianSplit
        The training statistics and the test rows.
    var_smoothing : float
        As in ``GaussianStatistics.model``: ε is this share of the largest feature variance.
    prior : {"learned", "uniform"}
        As in ``GaussianStatistics.model``.

    Returns
    -------
    Score
        ``held``, the model and its ``Evaluation`` on the test rows.

    Raises
    ------
    ValueError
        If ``var_smoothing`` or ``prior`` is refused (see ``GaussianStatistics.model``).
    CorpusError
        If a test row's class is not one of the training classes.
    """
    model = held.statistics.model(var_smoothing, prior)
    return Score(held, model, evaluate(model, held.test.values, held.test.labels))


@dataclass(frozen=True)
class TableMistake:
    """A test row the model got wrong: its place in the table, and what the model said with what posterior."""

    position: int
    id: str
    label: str
    predicted: str | None  # None: the model could not decide
    confidence: float
    values: tuple[float, ...]

    def to_dict(self) -> dict:
        return plain(self)


@dataclass(frozen=True, eq=False)
class TableEvaluation:
    """A ``Score`` on a table's test rows, with every row it got wrong in the order of the test rows.

    Parameters
    ----------
    score : Score
        The model and its scores.
    mistakes : tuple of TableMistake
        Per wrong row: its place in the table, id, true class, prediction (None if undecidable), posterior and values.
    """

    score: Score
    mistakes: tuple[TableMistake, ...]

    def to_dict(self) -> dict:
        held = self.score.held
        return {"n_train": len(held.training), "n_test": len(held.test), "evaluation": self.score.result.to_dict(),
                "mistakes": [mistake.to_dict() for mistake in self.mistakes]}


def evaluate_table(held, var_smoothing: float, prior: str) -> TableEvaluation:
    """``score_table``, and the rows it got wrong.

    Parameters
    ----------
    held, var_smoothing, prior
        As in ``score_table``, which this calls.

    Returns
    -------
    TableEvaluation
        The score and the wrong rows.

    Raises
    ------
    ValueError, CorpusError
        As ``score_table``.
    """
    score = score_table(held, var_smoothing, prior)
    test, result = held.test, score.result
    mistakes = tuple(
        TableMistake(int(held.positions[i]), test.ids[i], test.labels[i], result.predictions[i], result.confidence[i],
                     tuple(float(v) for v in test.values[i]))
        for i in score.wrong
    )
    return TableEvaluation(score, mistakes)
