"""Read a labelled corpus from a JSON Lines, CSV or TSV file, optionally gzip-compressed.

Every problem is reported as a :class:`CorpusError` naming the line and saying how to fix it, and
nothing is returned unless the whole file is valid: a student never trains on half a file.
"""
from __future__ import annotations

import codecs
import csv
import io
import json
import re
import zlib
from pathlib import Path

from webnb.engine.corpus import Corpus, CorpusError

FORMATS = ("jsonl", "csv", "tsv")

# File name suffix (before an optional ".gz") -> format.
_SUFFIX_FORMATS = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
}

_GZIP_MAGIC = b"\x1f\x8b"
_ZIP_MAGIC = b"PK\x03\x04"
# Output is produced at most this much at a time, so a gzip bomb is stopped near max_bytes.
_INFLATE_CHUNK = 1 << 20
_FIRST_NON_BLANK = re.compile(r"\S")


def read_corpus(
    source,
    *,
    format=None,
    label_column="label",
    text_column="text",
    name="",
    max_bytes=None,
) -> Corpus:
    """Read the corpus in the file ``source`` (a path); see :func:`read_corpus_bytes`."""
    path = Path(source)
    try:
        data = path.read_bytes()
    except OSError as err:
        raise CorpusError(f"Cannot read {path}: {err.strerror or err}") from err
    return read_corpus_bytes(
        data,
        filename=path.name,
        format=format,
        label_column=label_column,
        text_column=text_column,
        name=name,
        max_bytes=max_bytes,
    )


def read_corpus_bytes(
    data: bytes,
    *,
    filename="",
    format=None,
    label_column="label",
    text_column="text",
    name="",
    max_bytes=None,
) -> Corpus:
    """Parse the bytes of a corpus file (an upload, say).

    ``format`` is "jsonl", "csv" or "tsv"; when None it comes from ``filename``'s suffix, or else
    from the content. gzip is recognised by its magic bytes. ``max_bytes`` caps the (decompressed)
    size. ``name`` defaults to ``filename``.
    """
    chosen_format = _checked_format(format)
    data = _within_limit(data, max_bytes)
    text = _decode_utf8(data)
    fmt = chosen_format or _format_from_filename(filename) or _sniff_format(text)
    if fmt == "jsonl":
        texts, labels, ids = _parse_jsonl(text, label_column, text_column)
    else:
        texts, labels, ids = _parse_delimited(text, fmt, label_column, text_column)
    if not texts:
        raise CorpusError(
            "The file contains no documents. Add at least one line with a label and a text."
        )
    return Corpus(texts=tuple(texts), labels=tuple(labels), ids=tuple(ids), name=name or filename)


# --- bytes: size limit, gzip, UTF-8 ---------------------------------------------------------


def _checked_format(format):
    if format is None:
        return None
    normalised = str(format).strip().lower()
    if normalised not in FORMATS:
        raise CorpusError(f"Unknown format {format!r}: use one of {', '.join(FORMATS)}.")
    return normalised


def _within_limit(data: bytes, max_bytes) -> bytes:
    """The file's content, decompressed if it is gzip, refused if larger than ``max_bytes``."""
    if data[:2] == _GZIP_MAGIC:
        return _gunzip(data, max_bytes)
    if max_bytes is not None and len(data) > max_bytes:
        raise _too_large(max_bytes, "")
    return data


def _gunzip(data: bytes, max_bytes) -> bytes:
    """Decompress chunk by chunk, stopping as soon as the output exceeds ``max_bytes``."""
    pieces, size = [], 0
    pending = data
    try:
        while pending:  # a gzip file may hold several members, one after another
            inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
            while not inflater.eof:
                piece = inflater.decompress(pending, _INFLATE_CHUNK)
                pending = inflater.unconsumed_tail
                if not piece and not pending:
                    raise CorpusError(
                        "The gzip file is incomplete (cut off while copying or downloading?). "
                        "Compress it again; nothing was loaded."
                    )
                size += len(piece)
                if max_bytes is not None and size > max_bytes:
                    raise _too_large(max_bytes, " once decompressed")
                pieces.append(piece)
            # gzip tools may pad the end with zero bytes; they are not another member.
            pending = inflater.unused_data.lstrip(b"\x00")
    except zlib.error as err:
        raise CorpusError(
            f"The file starts like a gzip file but cannot be decompressed ({err}). "
            "Compress it again; nothing was loaded."
        ) from err
    return b"".join(pieces)


def _too_large(max_bytes: int, when: str) -> CorpusError:
    megabytes = f"{max_bytes / 1_000_000:.2f}".rstrip("0").rstrip(".")
    return CorpusError(
        f"The file is larger than the limit of {megabytes} MB{when}; nothing was loaded. "
        "Use a smaller file, or a sample of the documents."
    )


def _decode_utf8(data: bytes) -> str:
    if data.startswith(codecs.BOM_UTF8):  # Windows editors put it there; it is not text
        data = data[len(codecs.BOM_UTF8):]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        if data.startswith(_ZIP_MAGIC):
            raise CorpusError(
                "This looks like a spreadsheet or zip file, not text. "
                "Export it as CSV (UTF-8) and try again."
            ) from err
        line_number = data.count(b"\n", 0, err.start) + 1
        raise CorpusError(
            f"line {line_number}: byte 0x{data[err.start]:02x} is not UTF-8 text. "
            "The file must be saved as UTF-8 (in most editors: Save As, Encoding: UTF-8)."
        ) from err


# --- which format ---------------------------------------------------------------------------


def _format_from_filename(filename: str):
    name = filename.lower()
    if name.endswith(".gz"):
        name = name[: -len(".gz")]
    return _SUFFIX_FORMATS.get(Path(name).suffix)


def _sniff_format(text: str) -> str:
    first = _FIRST_NON_BLANK.search(text)
    if first is None:
        return "csv"  # empty: any parser finds no documents
    if first.group() == "{":
        return "jsonl"
    header_end = text.find("\n", first.start())
    header = text[first.start():] if header_end < 0 else text[first.start():header_end]
    return "tsv" if "\t" in header else "csv"


# --- JSON Lines -----------------------------------------------------------------------------

_MISSING = object()


def _parse_jsonl(text: str, label_field: str, text_field: str):
    example = json.dumps({label_field: "spam", text_field: "..."})
    texts, labels, ids = [], [], []
    # Split on "\n" only: str.splitlines() would also split at U+2028 etc., which JSON allows
    # inside strings. A "\r" left by CRLF is JSON whitespace, so json.loads ignores it.
    for line_number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        record = _json_object(line, line_number, example)
        labels.append(_json_label(record.get(label_field, _MISSING), label_field, line_number, example))
        texts.append(_json_text(record.get(text_field, _MISSING), text_field, line_number, example))
        record_id = record.get("id")
        ids.append(record_id if isinstance(record_id, str) and record_id else str(line_number))
    return texts, labels, ids


def _json_object(line: str, line_number: int, example: str) -> dict:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as err:
        raise CorpusError(
            f"line {line_number}: not valid JSON ({err.msg}, column {err.colno}). "
            f"Each line must be one JSON object, like {example}"
        ) from err
    if not isinstance(record, dict):
        raise CorpusError(
            f"line {line_number}: expected a JSON object, like {example}, but found "
            f"{_json_type(record)}. Write one object per line (JSON Lines), not a list."
        )
    return record


def _require_field(value, field: str, line_number: int, example: str) -> None:
    if value is _MISSING:
        raise CorpusError(
            f"line {line_number}: no {field!r} field. "
            f"Every line needs a label and a text, like {example}"
        )


def _json_label(value, field: str, line_number: int, example: str) -> str:
    _require_field(value, field, line_number, example)
    if value is None:
        raise CorpusError(
            f"line {line_number}: the {field!r} field is null. Give every line a label, like {example}"
        )
    # bool is a subclass of int, but true/false is not a class name anyone means.
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise CorpusError(
            f"line {line_number}: the {field!r} field must be a string or a number, "
            f"not {_json_type(value)}, like {example}"
        )
    label = str(value).strip()
    if not label:
        raise CorpusError(
            f"line {line_number}: the {field!r} field is blank. Give every line a label, like {example}"
        )
    return label


def _json_text(value, field: str, line_number: int, example: str) -> str:
    _require_field(value, field, line_number, example)
    if not isinstance(value, str):
        raise CorpusError(
            f"line {line_number}: the {field!r} field must be a string in double quotes, "
            f'not {_json_type(value)} (an empty text is written "").'
        )
    return value


def _json_type(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


# --- CSV and TSV ----------------------------------------------------------------------------


def _parse_delimited(text: str, fmt: str, label_column: str, text_column: str):
    separator = "\t" if fmt == "tsv" else ","
    # The csv module refuses fields over 128 KiB by default; a long document is not an error.
    # The limit is process-wide, so only ever raise it.
    csv.field_size_limit(max(csv.field_size_limit(), len(text) + 1))
    # newline="" hands line ends to the csv module, which drops CRLF at the end of a record but
    # keeps line breaks inside quoted fields. strict=True reports a never-closed quote instead
    # of swallowing the rest of the file into one text.
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=separator, strict=True)
    rows = _numbered_rows(reader, fmt)
    header_line, header = next(rows, (0, None))
    if header is None:
        return [], [], []
    columns = [column.strip() for column in header]
    label_index = _column_index(columns, label_column, "labels", header_line, fmt)
    text_index = _column_index(columns, text_column, "texts", header_line, fmt)
    id_index = columns.index("id") if "id" in columns else None

    return _labelled_rows(
        rows, label_index, text_index, id_index, label_column,
        check=lambda row, line_number: _check_width(row, columns, line_number, fmt),
    )


def _labelled_rows(records, label_index, text_index, id_index, label_name, check):
    """(texts, labels, ids) of table rows; ``check(row, line_number)`` refuses a malformed row. An empty
    label is refused too; a missing or empty id becomes the line number."""
    texts, labels, ids = [], [], []
    for line_number, row in records:
        check(row, line_number)
        label = row[label_index].strip()
        if not label:
            raise CorpusError(f"line {line_number}: the {label_name!r} column is empty. Every row needs a label.")
        labels.append(label)
        texts.append(row[text_index])
        record_id = row[id_index].strip() if id_index is not None else ""
        ids.append(record_id or str(line_number))
    return texts, labels, ids


def _numbered_rows(reader, fmt: str):
    """Yield ``(line where the record starts, fields)``, skipping blank rows."""
    while True:
        start_line = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as err:
            raise CorpusError(
                f"line {start_line}: not valid {fmt.upper()} ({err}). A field that starts with a "
                'double quote must end with one, and a quote inside it is written twice ("").'
            ) from err
        if any(field.strip() for field in row):  # spreadsheets export empty rows as ",,"
            yield start_line, row


def _column_index(columns: list, wanted: str, holds: str, header_line: int, fmt: str) -> int:
    if wanted in columns:
        return columns.index(wanted)
    message = (
        f"line {header_line}: no {wanted!r} column. The columns are {_quoted(columns)}. "
        f"The first row must name the columns; choose the column that holds the {holds}."
    )
    if len(columns) == 1:
        separator = "tab" if fmt == "tsv" else "comma"
        message += f" (There is only one column: are the fields separated by a {separator}?)"
    raise CorpusError(message)


def _check_width(row: list, columns: list, line_number: int, fmt: str) -> None:
    if len(row) < len(columns):
        raise CorpusError(
            f"line {line_number}: only {len(row)} of the {len(columns)} fields "
            f"({_quoted(columns)}). Every row needs a value for each column."
        )
    if len(row) > len(columns):
        separator = "a tab" if fmt == "tsv" else "a comma"
        raise CorpusError(
            f"line {line_number}: {len(row)} fields, but the first row names only {len(columns)} "
            f"({_quoted(columns)}). A text that contains {separator} must be in double quotes."
        )


def _quoted(names) -> str:
    return ", ".join(repr(name) for name in names)
