"""What a user hands the app (typed lines, a table file, lines of a label and a text, an archive of folders) turned
into a :class:`Corpus`, or into a :class:`NumericTable` when it is a table of numbers with a header row (for
Gaussian Naive Bayes); :func:`read_upload` tells the kinds of file apart. Archives are read in
:mod:`webnb.engine.io.archives`.

Every problem is a :class:`CorpusError` naming the line or the file and saying what to do; nothing
is returned unless the whole input is valid, so a student never trains on part of an upload.
"""
from __future__ import annotations

import csv
import io
import re
from collections import Counter
from dataclasses import dataclass

from webnb.engine.gaussian.table import NumericTable, is_number, numeric_layout, numeric_table_from_rows
from webnb.engine.io.archives import DEFAULT_LIMITS, ArchiveLimits, Upload, archive_kind, read_archive
from webnb.engine.io.readers import (
    decode_text,
    file_content,
    file_head,
    labelled_rows,
    numbered_rows,
    quoted_names,
    read_corpus_bytes,
)
from webnb.engine.shared.corpus import Corpus, CorpusError

# --- typed or pasted lines ------------------------------------------------------------------

_PASTE_FORM = "positive<TAB>great match  or  positive,great match"
_LINE_END = re.compile(r"\r\n|\r|\n")


def parse_pasted(text: str, name: str = "Pasted corpus") -> Corpus:
    r"""Read lines ``label<TAB>text`` or ``label,text``; ids are the line numbers.

    A line's first TAB separates label from text if it has one, else its first comma (so the text
    may contain commas). Blank lines are skipped, and so is a first line ``label,text`` (a header).

    Parameters
    ----------
    text : str
        What was typed or pasted.
    name : str, default "Pasted corpus"
        The corpus's name.

    Returns
    -------
    Corpus
        One document per non-blank line.

    Raises
    ------
    CorpusError
        If a line has no TAB or comma, an empty label or no text, or there are no documents; the message names the
        line.

    Examples
    --------
    >>> corpus = parse_pasted("label,text\npositive\tgreat match, really\nnegative,dull match\n")
    >>> corpus.labels, corpus.texts, corpus.ids
    (('positive', 'negative'), ('great match, really', 'dull match'), ('2', '3'))
    """
    rows = []
    seen_first = False
    for line_number, line in _numbered_lines(text):
        separator = "\t" if "\t" in line else "," if "," in line else None
        if separator is None:
            raise CorpusError(
                f"line {line_number}: no TAB or comma between a label and a text. "
                f"Write one document per line, like {_PASTE_FORM}."
            )
        label, _, body = line.partition(separator)
        label, body = label.strip(), body.strip()
        if not seen_first:
            seen_first = True
            if label.lower() == "label" and body.lower() == "text":
                continue  # a header row
        if not label:
            raise CorpusError(
                f"line {line_number}: the label before the {_separator_name(separator)} is empty. "
                f"Start the line with its class, like {_PASTE_FORM}."
            )
        if not body:
            raise CorpusError(
                f"line {line_number}: there is no text after the label {label!r}. "
                f"Write the document after a TAB or a comma, like {_PASTE_FORM}."
            )
        rows.append((label, body, line_number))
    return _line_corpus(rows, name, f"There are no documents. Type one per line, like {_PASTE_FORM}.")


def _numbered_lines(text: str):
    """(line number, line) for each line that is not blank. Only real line ends count: str.splitlines() would also
    split at form feeds, U+2028 and the like."""
    for line_number, line in enumerate(_LINE_END.split(text), start=1):
        if line.strip():
            yield line_number, line


def _line_corpus(rows: list[tuple[str, str, int]], name: str, no_documents: str) -> Corpus:
    """The corpus of (label, text, line number) rows, the line numbers as ids; ``no_documents`` when there are none."""
    if not rows:
        raise CorpusError(no_documents)
    labels, texts, line_numbers = zip(*rows, strict=True)
    return Corpus(texts=texts, labels=labels, ids=tuple(map(str, line_numbers)), name=name)


def parse_pasted_table(text: str, name: str = "Pasted table") -> NumericTable | None:
    r"""The pasted text as a table of numbers, or None when it is not one (then it is lines of label and text).

    It is one when its first non-blank line is a header (split at TABs if it has one, else at commas; two
    columns or more, none named by a number) and most lines below make a table of numbers under it (see
    :func:`_numeric_layout`). Then every line is checked: a line that breaks the table is a CorpusError naming it,
    rather than a reason to read the paste as texts.

    Parameters
    ----------
    text : str
        What was pasted.
    name : str, default "Pasted table"
        The table's name.

    Returns
    -------
    NumericTable or None
        The table, every line checked; None when the paste is not a table of numbers.

    Raises
    ------
    CorpusError
        If only the header line has anything on it, or a line breaks the table (a missing or non-numeric cell, an
        empty label), or the table cannot be trained on.

    Examples
    --------
    >>> parse_pasted_table("height,weight,label\n6.0,180,male\n5.0,100,female\n").features
    ('height', 'weight')
    >>> parse_pasted_table("positive,great match\nnegative,dull\n") is None
    True
    """
    records = [(number, line) for number, line in enumerate(_LINE_END.split(text), start=1) if line.strip()]
    if not records:
        return None
    header_line, header = records[0]
    separator = "\t" if "\t" in header else ","
    cells = _split_pasted(header, separator)
    if len(cells) < 2 or any(is_number(cell) for cell in cells):
        return None
    if len(records) == 1:
        # One line can be neither a table nor a corpus of two classes; say what each needs.
        raise CorpusError(
            f"Only line {header_line} has anything on it. A table of numbers needs rows of numbers under its "
            f"header row; a corpus of texts needs documents of at least two classes, one per line, like {_PASTE_FORM}."
        )
    columns = _column_names(cells, len(cells))
    rows = [(number, _split_pasted(line, separator)) for number, line in records[1:]]
    layout = _numeric_layout(columns, [row for _, row in rows])
    if layout is None:
        return None
    return numeric_table_from_rows(rows, columns, layout[0], name=name)


def _split_pasted(line: str, separator: str) -> list[str]:
    # One line at a time, so that a stray quote never joins lines; quotes around a label still work.
    return next(csv.reader([line], delimiter=separator))


def _separator_name(separator: str) -> str:
    return {"\t": "TAB", ",": "comma", ";": "semicolon", "|": "vertical bar"}.get(separator, repr(separator))


# --- CSV and TSV tables whose layout the user confirms --------------------------------------

DELIMITERS = (",", "\t", ";", "|")
# Header names that say what a column holds (compared in lower case, spaces and "-" as "_").
LABEL_NAMES = (
    "label", "labels", "class", "class_label", "category", "y", "target", "sentiment", "polarity",
    "tag", "spam", "classification",
)
TEXT_NAMES = (
    "text", "body", "message", "review", "content", "document", "doc", "sentence", "comment",
    "tweet", "email", "sms", "review_text", "x",
)
_OTHER_HEADER_NAMES = ("id", "title", "subject", "name", "date", "index", "doc_id")
_SAMPLE_CHARS = 64 * 1024  # what the delimiter and header guesses look at
_INSPECTED_BYTES = 4 * _SAMPLE_CHARS  # enough bytes for the sample in any encoding
_SAMPLE_ROWS = 200  # rows used to judge consistency and to suggest columns
_PREVIEW_ROWS = 5
_HEADER_CELL_MAX = 100  # a longer first-row cell is a document, not a column name


@dataclass(frozen=True)
class TableShape:
    """The layout guessed for a table file, for the user to confirm before it is read.

    ``columns`` are the header's names, or "column 1", "column 2"… when there is no header;
    ``preview_rows`` are the first data rows. A suggestion is None when no column fits. ``numeric_features``
    names the feature columns when the file is a table of numbers with a header (``suggested_label`` is then
    its label column), and is empty otherwise.

    Parameters
    ----------
    delimiter : str
        The field separator guessed: ",", TAB, ";" or "|".
    has_header : bool
        Whether the first row names the columns.
    columns : tuple of str
        The columns' names.
    preview_rows : tuple of tuple of str
        The first data rows.
    suggested_label, suggested_text : str or None
        The columns that look like labels and texts.
    numeric_features : tuple of str, default ()
        The feature columns of a table of numbers.
    """

    delimiter: str
    has_header: bool
    columns: tuple[str, ...]
    preview_rows: tuple[tuple[str, ...], ...]
    suggested_label: str | None
    suggested_text: str | None
    numeric_features: tuple[str, ...] = ()


def inspect_table(data: bytes, filename: str = "", *, max_bytes=None) -> TableShape:
    r"""Guess the delimiter, whether the first row is a header and which columns hold label and text.

    The guesses come from the first rows (a sample); :func:`read_table` then checks every row. A gzip file is not
    unpacked further than the sample needs.

    Parameters
    ----------
    data : bytes
        The file's content (optionally gzip-compressed).
    filename : str, default ""
        The file's name.
    max_bytes : int, optional
        The largest (decompressed) size accepted.

    Returns
    -------
    TableShape
        The guesses, with the first rows to preview.

    Raises
    ------
    CorpusError
        If the file is empty, not text, or over ``max_bytes``.

    Examples
    --------
    >>> shape = inspect_table(b"id;review;sentiment\n1;great match;pos\n2;dull match;neg\n")
    >>> shape.delimiter, shape.has_header, shape.suggested_label, shape.suggested_text
    (';', True, 'sentiment', 'review')
    """
    # Only the start is read: a gzip file is not unpacked further than the sample needs (read_table reads it all).
    text = decode_text(file_head(data, max_bytes, _INSPECTED_BYTES))
    if not text.strip():
        raise CorpusError("The file is empty. Upload a table with a label and a text on each line.")
    sample = _sample(text)
    delimiter = _detect_delimiter(sample)
    rows = _sample_rows(sample, delimiter)
    has_header = _detect_header(sample, delimiter, rows)
    width = len(rows[0]) if has_header else Counter(len(row) for row in rows).most_common(1)[0][0]
    columns = _column_names(rows[0] if has_header else None, width)
    data_rows = rows[1:] if has_header else rows
    preview = tuple(tuple(row) for row in data_rows[:_PREVIEW_ROWS])
    label, body = _suggest_columns(columns, data_rows, has_header)
    # Without a header a table of numbers would have no feature names, so it is read as texts, as before.
    numeric = _numeric_layout(columns, data_rows) if has_header else None
    if numeric is not None:
        label = numeric[0]
    return TableShape(
        delimiter=delimiter,
        has_header=has_header,
        columns=columns,
        preview_rows=preview,
        suggested_label=label,
        suggested_text=body,
        numeric_features=numeric[1] if numeric is not None else (),
    )


def read_table(
    data: bytes,
    *,
    delimiter: str,
    has_header: bool,
    label_column: str,
    text_column: str,
    filename: str = "",
    max_bytes=None,
) -> Corpus:
    """Read every row with the chosen settings; columns are named as in :func:`inspect_table`.

    ids are the line where each record starts, or the values of an ``id`` column if the header has
    one. Every row must have as many fields as the first; a label may not be empty. A file of one column (texts
    without labels) is refused as such, whichever columns were chosen.
    """
    _check_delimiter(delimiter)
    text = decode_text(file_content(data, max_bytes))
    # The csv module refuses fields over 128 KiB by default; a long document is not an error.
    # The limit is process-wide, so only ever raise it.
    csv.field_size_limit(max(csv.field_size_limit(), len(text) + 1))
    fmt = "tsv" if delimiter == "\t" else "csv"
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    rows = numbered_rows(reader, fmt)
    first_line, first = next(rows, (0, None))
    if first is None:
        raise CorpusError("The file contains no documents. Add rows with a label and a text.")
    columns = _column_names(first if has_header else None, len(first))
    if len(columns) == 1:
        raise CorpusError(_one_column_message(first_line, first, rows, columns[0] if has_header else None))
    if not label_column:
        raise CorpusError("Choose the column that holds the labels.")
    if not text_column:
        raise CorpusError("Choose the column that holds the texts.")
    if label_column == text_column:
        raise CorpusError(
            f"The labels and the texts are both in {label_column!r}: choose two different columns."
        )
    label_index = _chosen_column(columns, label_column, "labels", has_header)
    text_index = _chosen_column(columns, text_column, "texts", has_header)
    id_index = None
    if has_header and "id" in columns and columns.index("id") not in (label_index, text_index):
        id_index = columns.index("id")

    records = rows if has_header else _chain_first((first_line, first), rows)

    def check(row, line_number):
        if len(row) != len(columns):
            raise CorpusError(_width_message(row, columns, line_number, first_line, has_header, delimiter))

    texts, labels, ids = labelled_rows(records, label_index, text_index, id_index, columns[label_index], check)
    if not texts:
        raise CorpusError("The file has a header row but no documents. Add rows with a label and a text.")
    return Corpus(texts=tuple(texts), labels=tuple(labels), ids=tuple(ids), name=filename)


def read_numeric_table(
    data: bytes, *, delimiter: str, label_column: str, filename: str = "", max_bytes=None
) -> NumericTable:
    """Read every row of a table of numbers with a header row (one :func:`inspect_table` found numeric):
    each column but the label (and an ``id``) must hold a number on every line. Columns are named as in
    :func:`inspect_table`; the decoding, size limit and line numbers are those of :func:`read_table`.

    Parameters
    ----------
    data : bytes
        The file's content.
    delimiter : str
        The field separator.
    label_column : str
        The label column's name.
    filename : str, default ""
        The table's name.
    max_bytes : int, optional
        The largest (decompressed) size accepted.

    Returns
    -------
    NumericTable
        Every row, with its line number (or ``id``) as its id.

    Raises
    ------
    CorpusError
        If no label column is chosen or it does not exist, the delimiter is not one character (other than a
        quote or a line end), the file is empty, over ``max_bytes`` or not text, a row is short, a cell is not a
        number or a label is empty, or the table cannot be trained on.
    """
    _check_delimiter(delimiter)
    if not label_column:
        raise CorpusError("Choose the column that holds the labels.")
    text = decode_text(file_content(data, max_bytes))
    csv.field_size_limit(max(csv.field_size_limit(), len(text) + 1))
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    rows = numbered_rows(reader, "tsv" if delimiter == "\t" else "csv")
    _, header = next(rows, (0, None))
    if header is None:
        raise CorpusError("The file is empty. Give a header row naming the columns, then rows of numbers.")
    columns = _column_names(header, len(header))
    return numeric_table_from_rows(rows, columns, label_column, name=filename)


# Header names that say a column holds texts; "x" is left out, as tables of numbers often have an x column.
_TEXT_HEADER_NAMES = frozenset(TEXT_NAMES) - {"x"}


def _numeric_layout(columns, rows):
    """(label column, feature columns) if ``rows`` under the header ``columns`` make a table of numbers, else None.

    Rows vote, each with the layout it alone makes: the layout most of them agree on wins. So a blank cell or a
    "NaN" on a few rows still makes a table of numbers, and reading it names the lines at fault, instead of
    reading the file as texts. A header with a number in it is data (no header); a column named "text" (or
    "review", …), or a label column of mostly distinct phrases, holds texts. The label column is one with a
    label's name ("class", "target", …) if that makes a table of numbers, else the one column that is not
    numbers (the last when all are, as in iris).
    """
    if len(columns) < 2 or any(is_number(name) for name in columns):
        return None
    named = next((name for name in columns if _normalised(name) in LABEL_NAMES), None)

    def layout_of(row):
        found = numeric_layout(columns, [row], named) if named is not None else None
        return found or numeric_layout(columns, [row])

    votes = Counter(layout for layout in map(layout_of, rows) if layout is not None)
    if not votes:
        return None
    layout, count = votes.most_common(1)[0]
    if 2 * count < len(rows) or any(_normalised(name) in _TEXT_HEADER_NAMES for name in layout[1]):
        return None
    label_index = columns.index(layout[0])
    if layout[0] != named and _looks_like_texts([row[label_index] for row in rows if len(row) == len(columns)]):
        return None  # a score beside a review: the one column that is not numbers holds texts, not labels
    return layout


_FEW_ROWS = 10  # below this, one-word values that hardly repeat may still be labels


def _looks_like_texts(values) -> bool:
    """Mostly different values, of several words each or over many rows: texts. Labels repeat."""
    values = [value.strip() for value in values]
    if 2 * len(set(values)) <= len(values):
        return False
    several_words = sum(len(value.split()) > 1 for value in values)
    return 2 * several_words > len(values) or len(values) >= _FEW_ROWS


def _check_delimiter(delimiter) -> None:
    if not isinstance(delimiter, str) or len(delimiter) != 1 or delimiter in '"\r\n':
        raise CorpusError(
            f"The delimiter {delimiter!r} cannot separate columns: choose a comma, a TAB, a semicolon "
            "or a vertical bar."
        )


def _chain_first(first, rest):
    yield first
    yield from rest


def _sample(text: str) -> str:
    """The start of the text, cut at a line end so no row is cut in half (unless it is huge)."""
    if len(text) <= _SAMPLE_CHARS:
        return text
    cut = text.rfind("\n", 0, _SAMPLE_CHARS)
    return text[: cut + 1] if cut > 0 else text[:_SAMPLE_CHARS]


def _sample_rows(sample: str, delimiter: str) -> list[list[str]]:
    """The first non-blank rows of the sample, read leniently (read_table is the strict one)."""
    reader = csv.reader(io.StringIO(sample, newline=""), delimiter=delimiter)
    rows = []
    try:
        for row in reader:
            if any(field.strip() for field in row):
                rows.append(row)
                if len(rows) >= _SAMPLE_ROWS:
                    break
    except csv.Error:
        pass  # a cut-off quote at the end of the sample; the rows before it are enough for a guess
    return rows or [[""]]


def _consistency(sample: str, delimiter: str) -> float:
    """The share of rows with the commonest field count, or 0 when that count is 1 (no columns)."""
    rows = _sample_rows(sample, delimiter)
    if len(rows) > 1 and not sample.endswith(("\n", "\r")):
        rows = rows[:-1]  # the sample may have cut the last row
    width, count = Counter(len(row) for row in rows).most_common(1)[0]
    return 0.0 if width < 2 else count / len(rows)


def _detect_delimiter(sample: str) -> str:
    """csv.Sniffer's guess if it splits the rows as evenly as any other; else the most even one.

    TAB wins a tie: texts often contain commas but hardly ever TABs.
    """
    scores = {d: _consistency(sample, d) for d in DELIMITERS}
    best = max(scores.values())
    if best == 0:
        return ","  # a single column; read_table's error will say so
    if scores["\t"] == best:
        return "\t"
    try:
        sniffed = csv.Sniffer().sniff(sample, delimiters="".join(DELIMITERS)).delimiter
    except csv.Error:
        sniffed = None
    if sniffed in scores and scores[sniffed] == best:
        return sniffed
    return next(d for d in DELIMITERS if scores[d] == best)


class _KnownDialectSniffer(csv.Sniffer):
    """has_header() re-sniffs the dialect; use the delimiter already chosen instead."""

    def __init__(self, delimiter: str):
        super().__init__()
        self._dialect = type("Chosen", (csv.excel,), {"delimiter": delimiter})

    def sniff(self, sample, delimiters=None):
        return self._dialect


def _normalised(name: str) -> str:
    return re.sub(r"[\s\-]+", "_", name.strip().lower())


def _detect_header(sample: str, delimiter: str, rows: list[list[str]]) -> bool:
    first = [_normalised(cell) for cell in rows[0]]
    if any(name in LABEL_NAMES or name in TEXT_NAMES for name in first):
        return True  # common sense beats the statistics
    if any(len(cell) > _HEADER_CELL_MAX for cell in rows[0]):
        return False
    if len(rows) < 2:
        return False
    if _names_a_repeated_column(rows):
        return True
    try:
        return _KnownDialectSniffer(delimiter).has_header(sample)
    except csv.Error:
        return False


def _names_a_repeated_column(rows: list[list[str]]) -> bool:
    """True if a column repeats a few values (labels) below a first-row value it never repeats.

    That first value is the column's name ("v1" above ham, spam, ham, …), which the Sniffer misses
    when the labels differ in length.
    """
    width = len(rows[0])
    body = [row for row in rows[1:] if len(row) == width]
    if len(body) < 4:
        return False
    for i in range(width):
        values = {row[i].strip() for row in body}
        if len(values) <= len(body) // 2 and rows[0][i].strip() not in values:
            return True
    return False


def _column_names(header, width: int) -> tuple[str, ...]:
    """Header names (blank or repeated ones made unique with their position), else "column N"."""
    if header is None:
        return tuple(f"column {i}" for i in range(1, width + 1))
    names = []
    for i, cell in enumerate(header, start=1):
        name = cell.strip()
        if not name or name in names:
            name = f"{name} (column {i})" if name else f"column {i}"
        names.append(name)
    return tuple(names)


def _suggest_columns(columns, rows, has_header):
    """Label and text columns: by header name first, then by the data."""
    label = text = None
    if has_header:
        by_name = {_normalised(name): name for name in reversed(columns)}  # first one wins
        label = next((by_name[n] for n in LABEL_NAMES if n in by_name), None)
        text = next((by_name[n] for n in TEXT_NAMES if n in by_name and by_name[n] != label), None)
    rows = [row for row in rows if len(row) == len(columns)]
    if text is None:
        text = _longest_column(columns, rows, exclude=label)
    if label is None:
        label = _fewest_values_column(columns, rows, exclude=text)
    return label, text


def _longest_column(columns, rows, exclude):
    candidates = [i for i, name in enumerate(columns) if name != exclude]
    if not candidates:
        return None
    if not rows:
        return columns[candidates[-1]]
    mean_length = {i: sum(len(row[i]) for row in rows) / len(rows) for i in candidates}
    return columns[max(candidates, key=lambda i: (mean_length[i], -i))]


def _fewest_values_column(columns, rows, exclude):
    candidates = [i for i, name in enumerate(columns) if name != exclude]
    if not candidates:
        return None
    if not rows:
        return columns[candidates[0]]
    distinct = {i: len({row[i].strip() for row in rows}) for i in candidates}
    # A column holding one value everywhere is no label; prefer any column that varies.
    return columns[min(candidates, key=lambda i: (distinct[i] < 2, distinct[i], i))]


def _chosen_column(columns, wanted: str, holds: str, has_header: bool) -> int:
    if wanted in columns:
        return columns.index(wanted)
    hint = "" if has_header else " (the file has no header row, so columns are numbered)"
    raise CorpusError(
        f"There is no column {wanted!r}; the columns are {quoted_names(columns)}{hint}. "
        f"Choose the column that holds the {holds}."
    )


_TABLE_FORM = "positive,great film  or  positive<TAB>great film"
_CLASS_FOLDERS = (
    "Texts without labels can also go in an archive (.zip, .tar, .tar.gz, .tgz) with one folder of text files per "
    "class, like pos/review1.txt and neg/review2.txt."
)
_EXCERPT_CHARS = 50


def _one_column_message(first_line, first, rows, header: str | None) -> str:
    """Why a table whose first row has one field cannot be read: its lines are texts without labels (or, when a
    later row has more fields, its first row is short). ``header`` names the column when the first row is a header."""
    has_header = header is not None
    first_data = None if has_header else (first_line, first)
    for line_number, row in rows:
        if len(row) > 1:
            if has_header:
                return (
                    f"The header row names one column only, {header!r}, but line {line_number} holds "
                    f"{len(row)} fields. Name every column in the header row, like label,text."
                )
            return (
                f"Line {first_line} holds one field only ({_excerpt(first[0])!r}) but line {line_number} holds "
                f"{len(row)}. webnb needs a label and a text on every line, like {_TABLE_FORM}: write each "
                "document's class before it, then a comma or a TAB (a text that contains a comma goes in double "
                "quotes)."
            )
        first_data = first_data or (line_number, row)
    if has_header:
        example = "" if first_data is None else f" (line {first_data[0]}: {_excerpt(first_data[1][0])!r})"
        return (
            f"The file has one column only, {header!r}{example}. webnb needs a label and a text on each "
            f"line, like {_TABLE_FORM}, under a header row like label,text: add a column that gives each document's "
            f"class. {_CLASS_FOLDERS}"
        )
    return (
        f"Each line holds one field only, like line {first_line}: {_excerpt(first[0])!r}. webnb needs a label and a "
        f"text on each line, like {_TABLE_FORM}: if these are texts, write each one's class before it, then a comma "
        f"or a TAB. {_CLASS_FOLDERS}"
    )


def _excerpt(value: str) -> str:
    value = " ".join(value.split())
    return value if len(value) <= _EXCERPT_CHARS else value[: _EXCERPT_CHARS - 1] + "…"


def _width_message(row, columns, line_number, first_line, has_header, delimiter) -> str:
    what = "the header names" if has_header else f"line {first_line} has"
    if len(row) < len(columns):
        return (
            f"line {line_number}: only {len(row)} of {len(columns)} fields ({what} {len(columns)}). "
            "Every row needs a value for each column."
        )
    return (
        f"line {line_number}: {len(row)} fields, but {what} {len(columns)}. "
        f"A text that contains a {_separator_name(delimiter)} must be in double quotes."
    )


# --- lines of a label, a TAB and a text, with no header (the SMS Spam Collection) ------------------------------

_LINES_LABEL_MAX = 40  # a longer part before the TAB is a text, not a class
_LINES_FORM = "spam<TAB>WINNER! Claim your prize"


def looks_like_labelled_lines(data: bytes, *, max_bytes=None) -> bool:
    """Whether the file is lines ``label<TAB>text`` with no header row, as the SMS Spam Collection is: in its first
    lines every line has a TAB (most exactly one), the parts before the TABs are short and repeat (they are classes),
    and the first line names no columns. Such a file is read by :func:`read_labelled_lines`, where a quote is part of
    the text (a CSV reader would take a text that starts with one for a quoted field running over lines)."""
    try:
        text = decode_text(file_head(data, max_bytes, _INSPECTED_BYTES))
    except CorpusError:
        return False  # reading it as a table will say what is wrong
    lines = [line for line in _LINE_END.split(_sample(text)) if line.strip()][:_SAMPLE_ROWS]
    if len(lines) < 2 or not all("\t" in line for line in lines):
        return False
    if Counter(line.count("\t") for line in lines).most_common(1)[0][0] != 1:
        return False  # more columns than a label and a text
    labels = [line.partition("\t")[0].strip() for line in lines]
    first_text = _normalised(lines[0].partition("\t")[2])
    if first_text in TEXT_NAMES or (_normalised(labels[0]) in LABEL_NAMES and labels[0] not in labels[1:]):
        return False  # a header row: a table, whose columns the user confirms
    if not all(0 < len(label) <= _LINES_LABEL_MAX for label in labels):
        return False
    return len(set(labels)) <= max(2, len(labels) // 2)


def read_labelled_lines(data: bytes, *, filename: str = "", max_bytes=None) -> Corpus:
    """Read lines ``label<TAB>text``: the label is what comes before a line's first TAB (without the spaces around
    it), the text everything after it, exactly (quotes, spaces and further TABs included). Blank lines are skipped;
    ids are the line numbers."""
    text = decode_text(file_content(data, max_bytes))
    rows = []
    for line_number, line in _numbered_lines(text):
        label, tab, body = line.partition("\t")
        label = label.strip()
        if not tab:
            raise CorpusError(
                f"line {line_number}: no TAB between a label and a text. In this file every line is a label, "
                f"a TAB and the text, like {_LINES_FORM}."
            )
        if not label:
            raise CorpusError(
                f"line {line_number}: the label before the TAB is empty. Start the line with its class, "
                f"like {_LINES_FORM}."
            )
        rows.append((label, body, line_number))
    return _line_corpus(rows, filename, f"The file contains no documents. Write one per line, like {_LINES_FORM}.")


# --- any uploaded file ------------------------------------------------------------------------------------------

JSON_SUFFIXES = (".jsonl", ".ndjson", ".json", ".jsonl.gz", ".ndjson.gz", ".json.gz")


def has_columns(data: bytes, filename: str) -> bool:
    r"""Whether the file is a table whose columns a user may choose (not an archive, nor JSON Lines).

    Parameters
    ----------
    data : bytes
        The file's content (its first bytes tell an archive).
    filename : str
        The file's name (its suffix tells JSON Lines).

    Returns
    -------
    bool
        False for an archive (by its first bytes or name) or a file named as JSON Lines (".jsonl", ".json", …).

    Examples
    --------
    >>> has_columns(b"label,text\nspam,win", "sms.csv"), has_columns(b"{}", "sms.jsonl")
    (True, False)
    """
    return archive_kind(data, filename) is None and not filename.lower().endswith(JSON_SUFFIXES)


def read_upload(
    data: bytes,
    *,
    filename: str = "",
    label_column: str = "",
    text_column: str = "",
    max_bytes=None,
    limits: ArchiveLimits = DEFAULT_LIMITS,
) -> Upload:
    r"""The corpus in an uploaded file, whatever its kind.

    An archive of class folders (ZIP or tar, gzipped or not, which may hold a test corpus as well), JSON Lines,
    lines of a label, a TAB and a text, or a CSV/TSV table (of texts, or a table of numbers with a header row unless
    a text column is chosen).

    Parameters
    ----------
    data : bytes
        The file's content.
    filename : str, default ""
        The file's name (its suffix helps tell the kind).
    label_column, text_column : str, default ""
        The chosen columns of a table; empty: the detected ones.
    max_bytes : int, optional
        What a file that is not an archive may (decompressed) hold.
    limits : ArchiveLimits, default ``DEFAULT_LIMITS``
        What an archive may hold.

    Returns
    -------
    Upload
        The corpus (or table of numbers), a test corpus if the archive has one, and how the file was read.

    Raises
    ------
    CorpusError
        If the file cannot be read as any of these kinds, or breaks a limit; the message names the line or the file.

    Examples
    --------
    >>> upload = read_upload(b"id;review;sentiment\n1;great match;pos\n2;dull match;neg\n", filename="r.csv")
    >>> upload.layout, upload.corpus.labels, upload.corpus.ids
    ('table', ('pos', 'neg'), ('1', '2'))
    >>> read_upload(b"x,y,label\n1,2,a\n3,4,b\n", filename="t.csv").layout
    'table of numbers'
    """
    if archive_kind(data, filename) is not None:
        return read_archive(data, filename=filename, limits=limits)
    if filename.lower().endswith(JSON_SUFFIXES) or data.lstrip()[:1] == b"{":
        corpus = read_corpus_bytes(data, filename=filename, format="jsonl", max_bytes=max_bytes)
        return Upload(corpus, layout="JSON Lines")
    if (label_column, text_column) in (("", ""), ("column 1", "column 2")) and looks_like_labelled_lines(
        data, max_bytes=max_bytes
    ):
        return Upload(read_labelled_lines(data, filename=filename, max_bytes=max_bytes), layout="label, TAB, text")
    shape = inspect_table(data, filename=filename, max_bytes=max_bytes)
    if shape.numeric_features and not text_column:
        table = read_numeric_table(data, delimiter=shape.delimiter, label_column=label_column or shape.suggested_label,
                                   filename=filename, max_bytes=max_bytes)
        return Upload(table, layout="table of numbers")
    corpus = read_table(
        data,
        delimiter=shape.delimiter,
        has_header=shape.has_header,
        label_column=label_column or shape.suggested_label,
        text_column=text_column or shape.suggested_text,
        filename=filename,
        max_bytes=max_bytes,
    )
    return Upload(corpus, layout="table")
