"""A labelled table of numbers: rows of measurements with a class each, for Gaussian Naive Bayes.

Stored like a text corpus (one document per row, the numbers written out exactly), so every row keeps
its id and its place; ``features`` names the columns.
"""
from __future__ import annotations

import math
import re
import sys
from dataclasses import dataclass

import numpy as np

from webnb.engine.shared.corpus import Corpus, CorpusError, Labelled
from webnb.engine.shared.numbers import is_whole

# A plain decimal number, as people write them in a table: no "nan", "inf", "1_000" or non-ASCII digits,
# all of which Python's float() would accept.
NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
# The widest spread a column may have: √(largest float64) ≈ 1.34e154. Within it every squared distance between two
# of its values (what a variance adds up) is a float64; beyond it the variance is infinite, in scikit-learn too.
LARGEST_SPAN = math.sqrt(sys.float_info.max)
# Eight people's height (feet) and weight (pounds), four of each sex: the person example of Wikipedia's "Naive Bayes
# classifier" article, without foot size. The engine's examples of Gaussian Naive Bayes fit it.
HEIGHT_WEIGHT_CSV = (
    "height,weight,label\n"
    "6.0,180,male\n5.92,190,male\n5.58,170,male\n5.92,165,male\n"
    "5.0,100,female\n5.5,150,female\n5.42,130,female\n5.75,150,female\n"
)


def parse_number(text: str) -> float | None:
    """The number ``text`` holds (spaces around it allowed), or None if it is not a finite decimal number.

    Plain decimals only: "nan", "inf", "1_000" and non-ASCII digits, which ``float()`` accepts, are not numbers in a
    table.

    Parameters
    ----------
    text : str
        A cell of a table.

    Returns
    -------
    float or None
        The value, or None.

    Examples
    --------
    >>> parse_number(" -0.25e3 "), parse_number("nan"), parse_number("1_000"), parse_number("1e400")
    (-250.0, None, None, None)
    """
    text = text.strip()
    if not NUMBER.fullmatch(text):
        return None
    value = float(text)
    return value if math.isfinite(value) else None


def is_number(text: str) -> bool:
    return parse_number(text) is not None


@dataclass(frozen=True, eq=False)
class NumericTable(Labelled):
    r"""``values[i]`` (one float per feature) has label ``labels[i]``; ``ids[i]`` says where the row came from.

    Parameters
    ----------
    features : tuple of str
        The columns' names.
    values : array-like of shape (n_rows, n_features)
        Finite numbers; stored as a read-only float64 array.
    labels : tuple of str
        The class of each row.
    ids : tuple of str
        Where each row came from (a line number, or an ``id`` column's value).
    name : str, default ""
        What the table is called.

    Attributes
    ----------
    classes : tuple of str
        The distinct labels, sorted.

    Raises
    ------
    CorpusError
        If ``values`` is not one number per feature and row, a value is not finite, or ``ids`` and ``labels``
        differ in length.

    Examples
    --------
    >>> table = read_numeric_csv("id,x,y,class\na,1.5,2,yes\nb,0.5,1,no\n")
    >>> table.features, table.labels, table.ids, table.values.tolist()
    (('x', 'y'), ('yes', 'no'), ('a', 'b'), [[1.5, 2.0], [0.5, 1.0]])
    """

    features: tuple[str, ...]
    values: np.ndarray  # shape (n_rows, n_features), float64, finite
    labels: tuple[str, ...]
    ids: tuple[str, ...]
    name: str = ""

    def __post_init__(self):
        values = np.asarray(self.values, dtype=np.float64)
        if values.ndim != 2 or values.shape != (len(self.labels), len(self.features)):
            raise CorpusError("every row needs one number per feature and a label")
        if len(self.ids) != len(self.labels):
            raise CorpusError("labels and ids must have the same length")
        if not np.all(np.isfinite(values)):
            raise CorpusError("every value must be a finite number")
        values.setflags(write=False)
        object.__setattr__(self, "values", values)

    def require_trainable(self) -> None:
        """Refuse a table that Gaussian NB cannot be trained on, saying what to change.

        Returns
        -------
        None
            When the table can be trained on.

        Raises
        ------
        CorpusError
            If the table has no feature columns, no rows or a single class, or a column whose values span more than
            float64 can square (see ``require_representable``).
        """
        if not self.features:
            raise CorpusError(
                "The table has no numeric columns. Give at least one column of numbers beside the labels."
            )
        self._require_two_classes("row")
        self.require_representable()

    def require_representable(self) -> None:
        """Refuse a column whose values lie so far apart that the squares a variance needs overflow float64, naming
        the column, the rows of its extremes and by how much to scale it down."""
        if not len(self):
            return
        lows, highs = self.values.min(axis=0), self.values.max(axis=0)
        half_spans = highs / 2 - lows / 2  # halves: the span itself can overflow (−1e308 to 1e308)
        too_wide = np.flatnonzero(half_spans > LARGEST_SPAN / 2)
        if not too_wide.size:
            return
        j = int(too_wide[0])
        low, high = float(lows[j]), float(highs[j])
        where_low = self._row_name(int(np.argmin(self.values[:, j])))
        where_high = self._row_name(int(np.argmax(self.values[:, j])))
        # The power of ten that brings the span under LARGEST_SPAN.
        divide_by = math.ceil(math.log10(float(half_spans[j])) + math.log10(2) - math.log10(LARGEST_SPAN) + 1e-9)
        raise CorpusError(
            f"Column {self.features[j]!r} runs from {low!r} ({where_low}) to {high!r} ({where_high}): its values span "
            "more than float64 can square (the span must stay below 1.3e154, the square root of the largest float64), "
            "so its variance would be infinite, in scikit-learn's GaussianNB too. Divide that column by 1e"
            f"{max(divide_by, 1)} or more (the same for every row) and add the table again."
        )

    def _row_name(self, index: int) -> str:
        row_id = self.ids[index]
        return f"line {row_id}" if is_whole(row_id) else f"row {row_id!r}"

    def subset(self, indices) -> "NumericTable":
        """The rows at ``indices``, in that order, as a new table of the same name.

        Parameters
        ----------
        indices : array-like of int
            Row numbers, from 0.

        Returns
        -------
        NumericTable
            The chosen rows.

        Raises
        ------
        IndexError
            If a row number is out of range.
        """
        indices = np.asarray(indices, dtype=np.int64)
        return NumericTable(
            features=self.features,
            values=self.values[indices],
            labels=tuple(self.labels[i] for i in indices),
            ids=tuple(self.ids[i] for i in indices),
            name=self.name,
        )

    def to_corpus(self) -> Corpus:
        r"""One document per row whose text is the row's numbers, written so that they read back exactly.

        Returns
        -------
        Corpus
            The numbers of each row joined by TABs, with the table's labels, ids and name: how a table is stored.

        Examples
        --------
        >>> read_numeric_csv("x,y,label\n1.5,2,yes\n0.5,1,no\n").to_corpus().texts
        ('1.5\t2.0', '0.5\t1.0')
        """
        texts = tuple("\t".join(repr(float(v)) for v in row) for row in self.values)
        return Corpus(texts=texts, labels=self.labels, ids=self.ids, name=self.name)

    @classmethod
    def from_corpus(cls, corpus: Corpus, features) -> "NumericTable":
        """The inverse of :meth:`to_corpus`.

        Parameters
        ----------
        corpus : Corpus
            Documents whose texts are TAB-separated numbers.
        features : iterable of str
            The columns' names.

        Returns
        -------
        NumericTable
            The table the corpus was made from.

        Raises
        ------
        CorpusError
            If a row has a number of values other than ``len(features)``.
        ValueError
            If a text holds something that is not a number.
        """
        features = tuple(features)
        cells = "\t".join(corpus.texts).split("\t")  # one pass over all rows: ten times faster than row by row
        if len(cells) != len(corpus) * len(features):
            bad = next(i for i, text in enumerate(corpus.texts) if text.count("\t") != len(features) - 1)
            found = corpus.texts[bad].count("\t") + 1
            raise CorpusError(
                f"row {corpus.ids[bad]} has {found} number{'s' if found != 1 else ''}, not {len(features)}"
            )
        values = np.array(cells, dtype=np.float64).reshape(len(corpus), len(features))
        return cls(features=features, values=values, labels=corpus.labels, ids=corpus.ids, name=corpus.name)


# --- reading a table of numbers ------------------------------------------------------------------------------


def numeric_layout(columns, rows, label_column: str | None = None):
    """(label column, feature columns) if ``rows`` (lists of cells under ``columns``) make a table of numbers
    with one label column, else None. The label column is ``label_column`` if given; otherwise the one column
    that is not all numbers, or the last column when every column is numeric (as in iris). An ``id`` column is
    neither label nor feature."""
    columns = tuple(columns)
    rows = [row for row in rows if len(row) == len(columns)]
    if len(columns) < 2 or not rows:
        return None
    numeric = [all(is_number(row[i]) for row in rows) for i in range(len(columns))]
    skip = {columns.index("id")} if "id" in columns else set()
    if label_column is not None:
        if label_column not in columns:
            return None
        label_index = columns.index(label_column)
    else:
        others = [i for i in range(len(columns)) if not numeric[i] and i not in skip]
        if len(others) > 1:
            return None
        label_index = others[0] if others else len(columns) - 1
    skip.add(label_index)
    features = [i for i in range(len(columns)) if i not in skip]
    if not features or not all(numeric[i] for i in features):
        return None
    return columns[label_index], tuple(columns[i] for i in features)


def numeric_table_from_rows(records, columns, label_column: str, name: str = "") -> NumericTable:
    """Every ``(line number, cells)`` record as a row of numbers: each column but the label (and an ``id``) must
    hold a number on every line, and every label must be there. The whole table, or a CorpusError naming the
    first line at fault."""
    columns = tuple(columns)
    if label_column not in columns:
        raise CorpusError(f"There is no column {label_column!r}. The columns are {', '.join(map(repr, columns))}.")
    label_index = columns.index(label_column)
    id_index = columns.index("id") if "id" in columns and columns.index("id") != label_index else None
    feature_indices = [i for i in range(len(columns)) if i not in (label_index, id_index)]
    if not feature_indices:
        raise CorpusError("The table has only a label column. Add at least one column of numbers.")
    values, labels, ids = [], [], []
    for line_number, row in records:
        if len(row) != len(columns):
            raise CorpusError(
                f"line {line_number}: {len(row)} fields, but the table has {len(columns)} columns "
                f"({', '.join(map(repr, columns))}). Every row needs a value in each column."
            )
        label = row[label_index].strip()
        if not label:
            raise CorpusError(f"line {line_number}: the {label_column!r} column is empty. Every row needs a label.")
        numbers = []
        for i in feature_indices:
            number = parse_number(row[i])
            if number is None:
                shown = row[i].strip()[:40]
                raise CorpusError(
                    f"line {line_number}: {shown!r} in column {columns[i]!r} is not a number. Every column but the "
                    "label must hold plain decimal numbers like 5.1 or -0.25e3 (no blanks, “NaN” or “inf”)."
                )
            numbers.append(number)
        values.append(numbers)
        labels.append(label)
        record_id = row[id_index].strip() if id_index is not None else ""
        ids.append(record_id or str(line_number))
    if not values:
        raise CorpusError("The table has a header but no rows. Add rows of numbers with a label.")
    table = NumericTable(
        features=tuple(columns[i] for i in feature_indices),
        values=np.array(values, dtype=np.float64),
        labels=tuple(labels),
        ids=tuple(ids),
        name=name,
    )
    table.require_trainable()
    return table


def read_numeric_csv(
    text: str, *, delimiter: str = ",", label_column: str | None = None, name: str = ""
) -> NumericTable:
    r"""A table of numbers with a header row, from CSV/TSV text; the label column is found as in ``numeric_layout``
    unless given.

    Parameters
    ----------
    text : str
        The whole file, header first.
    delimiter : str, default ","
        The field separator.
    label_column : str, optional
        The label column's name; by default the one column that is not all numbers, or the last when every column
        is (as in iris). A column named ``id`` gives the rows' ids.
    name : str, default ""
        The table's name.

    Returns
    -------
    NumericTable
        Every row, checked.

    Raises
    ------
    CorpusError
        If the text is not valid CSV, is empty, is not a table of numbers, names no such ``label_column``, has a row
        with a missing or non-numeric cell or an empty label, or cannot be trained on (one class, say). The message
        names the line at fault.

    Examples
    --------
    >>> table = read_numeric_csv("sepal length,petal length,species\n5.1,1.4,setosa\n7.0,4.7,versicolor\n")
    >>> table.features, table.classes, table.ids
    (('sepal length', 'petal length'), ('setosa', 'versicolor'), ('2', '3'))
    >>> read_numeric_csv("x,label\n1,a\n2,a\n")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    webnb.engine.shared.corpus.CorpusError: Every row has the label 'a': a classifier needs at least two classes. ...
    """
    import csv
    import io

    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    records = []
    try:
        for row in reader:
            if any(cell.strip() for cell in row):
                records.append((reader.line_num, row))
    except csv.Error as error:
        raise CorpusError(f"line {reader.line_num + 1}: not a valid table ({error}).") from None
    if not records:
        raise CorpusError("The table is empty. Give a header row naming the columns, then rows of numbers.")
    (_, header), body = records[0], records[1:]
    columns = tuple(cell.strip() for cell in header)
    if label_column is None:
        layout = numeric_layout(columns, [row for _, row in body])
        if layout is None:
            raise CorpusError(
                "This is not a table of numbers: every column but one label column must hold numbers on every row."
            )
        label_column = layout[0]
    return numeric_table_from_rows(body, columns, label_column, name)
