"""The lesson's tables as CSV, for a spreadsheet.

``csv_text`` writes RFC 4180 CSV (``\\r\\n`` line ends) that is safe to open in a spreadsheet: a text cell
starting with ``=``, ``+``, ``-``, ``@``, a tab, a carriage return or a line feed (or the full-width
``＝ ＋ － ＠``, which some spreadsheets also read as a formula), after any white space, gets a leading
``'``, as OWASP recommends against formula injection. Numbers are written as numbers and never prefixed, so
−0.5 stays a number and log 0 is written ``-inf``. The ``*_table`` builders return ``(header, rows)`` for ``csv_text``:
the column names, and the rows as lists parallel to them.
"""
from __future__ import annotations

import csv
import io
from decimal import Decimal
from typing import Iterable, Iterator

import numpy as np

from webnb.engine.evaluation.scores import Evaluation
from webnb.engine.records.complement_table import complement_totals, word_cells
from webnb.engine.shared.corpus import Corpus
from webnb.engine.shared.plain import fraction_text, ratio_text
from webnb.engine.text.complement import ComplementNaiveBayes
from webnb.engine.text.models import NaiveBayes
from webnb.engine.text.training import TrainingSet

# -- CSV ------------------------------------------------------------------------------------------------

# The characters that make a spreadsheet read a cell as a formula (OWASP, "CSV Injection"), and the
# full-width forms of the first four. Spreadsheets skip white space before a formula (" =1+1" is one), so a cell is
# judged by its first character after any white space, and one that starts with a tab or a line break always
# gets the quote.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def neutralise(text: str) -> str:
    """``text`` with a leading ``'`` if a spreadsheet would otherwise read it as a formula. The one rule for every
    CSV that webnb writes."""
    return "'" + text if text.startswith(FORMULA_STARTS) or text.lstrip().startswith(FORMULA_STARTS) else text


def _is_number(value) -> bool:
    return isinstance(value, (int, float, Decimal, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def _number_text(value) -> str:
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, Decimal):
        return str(value) if value.is_finite() else str(float(value))
    return repr(float(value))  # the shortest text that reads back as the same float: "-0.5", "-inf"


def _cell(value) -> str:
    if value is None:
        return ""
    if _is_number(value):
        return _number_text(value)
    return neutralise(str(value))


def csv_text(header: list[str], rows: Iterable[Iterable]) -> str:
    r"""RFC 4180 CSV of ``header`` and ``rows``, every text cell neutralised against formula injection.

    Numbers (int, float, Decimal and numpy numbers, not bool) are written as numbers; None is an empty
    cell; anything else is written as ``str(value)``. Encode the result as UTF-8 (``utf-8-sig`` if
    Excel should recognise the encoding).

    Parameters
    ----------
    header : list of str
        The column names.
    rows : iterable of iterable
        The rows, each with one value per column.

    Returns
    -------
    str
        The CSV, with ``\r\n`` line ends.

    Examples
    --------
    >>> csv_text(["word", "log θ"], [["=cmd", float("-inf")], [" @x", -0.5], ["ok", None]])
    "word,log θ\r\n'=cmd,-inf\r\n' @x,-0.5\r\nok,\r\n"
    """
    return "".join(csv_pieces(header, rows))


ROWS_PER_PIECE = 2000


def csv_pieces(header: list[str], rows: Iterable[Iterable]) -> Iterator[str]:
    r"""``csv_text`` in pieces of ``ROWS_PER_PIECE`` rows, the header first: a large table (every word of 20
    Newsgroups) is sent while it is written, so its download starts at once and it is never whole in memory.

    Parameters
    ----------
    header : list of str
        The column names.
    rows : iterable of iterable
        The rows; read as the pieces are.

    Yields
    ------
    str
        Pieces whose concatenation is ``csv_text(header, rows)``.

    Examples
    --------
    >>> list(csv_pieces(["n"], [[1], [2]]))
    ['n\r\n1\r\n2\r\n']
    """
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow([_cell(value) for value in header])
    for done, row in enumerate(rows, start=1):
        writer.writerow([_cell(value) for value in row])
        if done % ROWS_PER_PIECE == 0:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()


# -- tables of the text lesson --------------------------------------------------------------------------


def documents_table(corpus: Corpus, rows=None) -> tuple[list[str], list[list]]:
    """The corpus: id, label and text of each document (of ``rows``, indices, or all)."""
    indices = range(len(corpus)) if rows is None else (int(i) for i in rows)
    return ["id", "label", "text"], [[corpus.ids[i], corpus.labels[i], corpus.texts[i]] for i in indices]


def matrix_table(
    training: TrainingSet, rows=None, columns=None, presence: bool = False
) -> tuple[list[str], list[list]]:
    """A window of the bag of words: id and label of each document of ``rows``, then its count (or 1/0
    for ``presence``) of each word of ``columns``. ``rows``/``columns`` are indices; None means all,
    which makes the whole matrix dense: keep it to the windows a page shows on a large corpus.

    Parameters
    ----------
    training : TrainingSet
        Whose matrix is written.
    rows, columns : array-like of int, optional
        Documents and words; all when None.
    presence : bool, default False
        Write 1/0 for presence instead of counts.

    Returns
    -------
    header : list of str
        "id", "label", then the words.
    rows : list of list
        One row per document.

    Examples
    --------
    >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
    >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
    >>> matrix_table(training, rows=[0, 3], columns=[1, 5])
    (['id', 'label', 'chinese', 'tokyo'], [['1', 'China', 2, 0], ['4', 'Japan', 1, 1]])
    """
    rows = np.arange(training.matrix.shape[0]) if rows is None else np.asarray(rows, dtype=np.int64)
    columns = np.arange(len(training.vocabulary)) if columns is None else np.asarray(columns, dtype=np.int64)
    window = training.matrix[rows][:, columns].toarray() if len(columns) else np.zeros((len(rows), 0), dtype=int)
    if presence:
        window = (window > 0).astype(int)
    corpus = training.corpus
    header = ["id", "label", *(training.vocabulary[j] for j in columns.tolist())]
    body = [[corpus.ids[i], corpus.labels[i], *window[r].tolist()] for r, i in enumerate(rows.tolist())]
    return header, body


def _symbol(model: NaiveBayes) -> str:
    return "ψ" if model.kind == "bernoulli" else "θ"


def parameters_table(model: NaiveBayes, words=None) -> tuple[list[str], Iterator[list]]:
    """One row per word (of ``words``, indices, or all): the word, then for each class ψ (Bernoulli) or
    θ (multinomial) as a decimal and as the unreduced ratio of the lecture ("0/2"; empty under an
    ε-floor, which has no ratio). The rows are made as they are read, a block of words at a time.

    Parameters
    ----------
    model : NaiveBayes
        A fitted model.
    words : array-like of int, optional
        The words' columns; all when None.

    Returns
    -------
    header : list of str
        "word", then two columns per class.
    rows : iterator of list
        One row per word.

    Raises
    ------
    WorkTooLarge
        If the app's memory cap refuses the model's dense ψ or θ table (when the rows are read).

    Examples
    --------
    >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
    >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
    >>> header, rows = parameters_table(training.model("multinomial", 1), words=[1])
    >>> header[1:3], [row[:3] for row in rows]
    (['θ given China', 'θ given China (ratio)'], [['chinese', 0.42857142857142855, '6/14']])
    """
    indices = np.arange(len(model.vocabulary)) if words is None else np.asarray(words, dtype=np.int64)
    if model.kind == "complement":
        return _complement_header(model), _complement_rows(model, indices)
    symbol = _symbol(model)
    header = ["word"]
    for label in model.classes:
        header += [f"{symbol} given {label}", f"{symbol} given {label} (ratio)"]
    return header, _parameter_rows(model, indices)


def _parameter_rows(model: NaiveBayes, indices: np.ndarray) -> Iterator[list]:
    vocabulary, table, n_classes = model.vocabulary, model.feature_prob_, len(model.classes)
    for start in range(0, len(indices), ROWS_PER_PIECE):
        block = indices[start:start + ROWS_PER_PIECE]
        values = table[:, block].tolist()  # one list per class, Python floats
        if model.epsilon is None:
            numerators, denominators = model.feature_ratios(block)
            ratios = [[ratio_text((numerator, denominator)) for numerator in numerators[k]]
                      for k, denominator in enumerate(denominators)]
        else:
            ratios = [[None] * len(block) for _ in range(n_classes)]
        for i, j in enumerate(block.tolist()):
            row = [vocabulary[j]]
            for k in range(n_classes):
                row += [values[k][i], ratios[k][i]]
            yield row


def _complement_header(model: ComplementNaiveBayes) -> list[str]:
    header = ["word", "count (every class)"]
    for label in model.classes:
        header += [f"count in {label}", f"θ̃ without {label}", f"θ̃ without {label} (ratio)", f"weight for {label}"]
    return header


def _complement_rows(model: ComplementNaiveBayes, indices: np.ndarray) -> Iterator[list]:
    """Complement Naive Bayes' rows: the word's count T_j over every class, then per class its count c_jk, the
    complement's θ̃_jk = (T_j − c_jk + α) / (Σ_j (T_j − c_jk) + |V|·α) as a decimal and unreduced, and the weight
    w_jk, each cell made by the function that makes the page's (so the download and the page agree to the last bit)."""
    vocabulary = model.vocabulary
    _, totals = complement_totals(model)
    for j in indices.tolist():
        total, cells = word_cells(model, j, totals)
        row = [vocabulary[j], total]
        for cell in cells:
            row += [cell.count, cell.theta, ratio_text(cell.ratio), cell.weight]
        yield row


def priors_table(model: NaiveBayes) -> tuple[list[str], list[list]]:
    """One row per class: its training documents, φ as a decimal and as a ratio ("3/5").

    Parameters
    ----------
    model : NaiveBayes
        A fitted model.

    Returns
    -------
    header : list of str
        "class", "documents", "φ", "φ (ratio)".
    rows : list of list
        One per class.

    Examples
    --------
    >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
    >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
    >>> priors_table(training.model("multinomial", 1))
    (['class', 'documents', 'φ', 'φ (ratio)'], [['China', 3, 0.75, '3/4'], ['Japan', 1, 0.25, '1/4']])
    """
    counts = model.statistics.class_count_
    body = []
    for k, label in enumerate(model.classes):
        exact = model.class_prior_exact[k]
        if model.kind == "complement":
            ratio, value = None, float(exact)
        else:
            ratio, value = model.prior_ratio(k), float(model.class_prior_[k])
        shown = f"{ratio[0]}/{ratio[1]}" if ratio is not None else fraction_text(exact)
        body.append([label, int(counts[k]), value, shown])
    # Complement Naive Bayes learns φ as scikit-learn does but decides by its weights alone (φ counts only for a
    # single class), and the column says so rather than suggest otherwise.
    heading = "φ (not used by Complement Naive Bayes)" if model.kind == "complement" else "φ"
    return ["class", "documents", heading, "φ (ratio)"], body


def evaluation_table(evaluation: Evaluation) -> tuple[list[str], list[list]]:
    """Precision, recall, F1 and support per class; a score with no defined value is an empty cell.

    Parameters
    ----------
    evaluation : Evaluation
        A model's scores.

    Returns
    -------
    header : list of str
        "class", "precision", "recall", "F1", "support".
    rows : list of list
        One per class.
    """
    body = [[s.label, s.precision, s.recall, s.f1, s.support] for s in evaluation.per_class]
    return ["class", "precision", "recall", "F1", "support"], body


def predictions_table(test: Corpus, evaluation: Evaluation) -> tuple[list[str], list[list]]:
    """One row per test document: id, true class, predicted class ("" when undecidable), its posterior, right or not.

    Parameters
    ----------
    test : Corpus
        The test documents.
    evaluation : Evaluation
        The model's scores on them.

    Returns
    -------
    header : list of str
        "id", "true class", "predicted class", "posterior of the prediction", "correct".
    rows : list of list
        One per test document.

    Raises
    ------
    ValueError
        If ``test`` and ``evaluation`` differ in length.
    """
    body = [
        [
            doc_id, label, predicted or "", confidence if predicted is not None else None,
            "yes" if predicted == label else "no",
        ]
        for doc_id, label, predicted, confidence in zip(
            test.ids, test.labels, evaluation.predictions, evaluation.confidence, strict=True
        )
    ]
    return ["id", "true class", "predicted class", "posterior of the prediction", "correct"], body


def table_predictions_table(test, evaluation: Evaluation) -> tuple[list[str], list[list]]:
    """``predictions_table`` for a table of numbers, with each row's values after its true class, so that the
    download stands on its own.

    Parameters
    ----------
    test : NumericTable
        The test rows.
    evaluation : Evaluation
        As in ``predictions_table``.

    Returns
    -------
    header, rows
        As ``predictions_table`` returns them, with a column per feature after "true class".

    Raises
    ------
    ValueError
        As ``predictions_table``.
    """
    header, body = predictions_table(test, evaluation)
    header = header[:2] + list(test.features) + header[2:]
    body = [row[:2] + [float(v) for v in test.values[i]] + row[2:] for i, row in enumerate(body)]
    return header, body


def confusion_table(evaluation: Evaluation) -> tuple[list[str], list[list]]:
    """confusion[true][predicted], with the documents no class could claim in a last column.

    Parameters
    ----------
    evaluation : Evaluation
        Whose confusion matrix is written.

    Returns
    -------
    header : list of str
        "true class", "predicted <class>" for each class, "cannot decide".
    rows : list of list
        One per true class.
    """
    header = ["true class", *(f"predicted {label}" for label in evaluation.classes), "cannot decide"]
    body = [
        [label, *evaluation.confusion[k], evaluation.undecidable_by_class[k]]
        for k, label in enumerate(evaluation.classes)
    ]
    return header, body


# -- tables of numbers (Gaussian Naive Bayes) ------------------------------------------------------------


def gaussian_parameters_table(model) -> tuple[list[str], list[list]]:
    """One row per class and feature: the class's rows and prior, the mean, the population variance and standard
    deviation, ε, the variance used (variance + ε), and the sample variance for comparison.

    Parameters
    ----------
    model : GaussianNB
        A fitted Gaussian model.

    Returns
    -------
    header : list of str
        The ten columns named above.
    rows : list of list
        One per class and feature.
    """
    stats = model.statistics
    header = ["class", "feature", "rows", "prior", "mean", "variance (population)", "standard deviation (population)",
              "epsilon", "variance used", "variance (sample, n-1)"]
    body = []
    for k, label in enumerate(model.classes):
        for j, feature in enumerate(model.features):
            body.append([label, feature, int(stats.class_count[k]), float(model.class_prior_[k]),
                         float(stats.means[k, j]),
                         float(stats.variances[k, j]), float(np.sqrt(stats.variances[k, j])), model.epsilon,
                         float(model.smoothed_variances[k, j]), float(stats.sample_variances[k, j])])
    return header, body


def table_rows(table, rows=None) -> tuple[list[str], list[list]]:
    """The rows of a table of numbers: id, each feature, label.

    Parameters
    ----------
    table : NumericTable
        The table.
    rows : iterable of int, optional
        Row numbers; all when None.

    Returns
    -------
    header : list of str
        "id", the features, "label".
    rows : list of list
        One per row asked for.
    """
    indices = range(len(table)) if rows is None else rows
    body = [[table.ids[i], *(float(v) for v in table.values[i]), table.labels[i]] for i in indices]
    return ["id", *table.features, "label"], body
