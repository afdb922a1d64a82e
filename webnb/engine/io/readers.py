"""Read a labelled corpus from a JSON Lines, CSV or TSV file, optionally gzip-compressed.

Every problem is reported as a :class:`CorpusError` naming the line and saying how to fix it, and
nothing is returned unless the whole file is valid: a student never trains on half a file.

The steps every upload goes through are public for :mod:`webnb.engine.io.uploads` to share: ``file_content``
(size limit and gzip), ``file_head``, ``decode_text`` (UTF-8 or UTF-16), ``numbered_rows`` and ``labelled_rows``.
"""
from __future__ import annotations

import codecs
import csv
import io
import json
import re
import zlib
from collections.abc import Callable
from pathlib import Path

from webnb.engine.shared.corpus import Corpus, CorpusError

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

GZIP_MAGIC = b"\x1f\x8b"
ZIP_MAGIC = b"PK\x03\x04"
# Output is produced at most this much at a time, so a gzip bomb is stopped near max_bytes.
INFLATE_CHUNK = 1 << 20
_FIRST_NON_BLANK = re.compile(r"\S")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def read_corpus(
    source,
    *,
    format=None,
    label_column="label",
    text_column="text",
    name="",
    max_bytes=None,
) -> Corpus:
    r"""Read the corpus in the file ``source`` (a path); see :func:`read_corpus_bytes`.

    Parameters
    ----------
    source : str or os.PathLike
        The file: JSON Lines, CSV or TSV, optionally gzip-compressed.
    format : {"jsonl", "csv", "tsv"}, optional
        The format; by default from the file name's suffix, or else from the content.
    label_column, text_column : str, default "label" and "text"
        The fields (JSON Lines) or header columns (CSV, TSV) holding the label and the text.
    name : str, default ""
        The corpus's name; the file's name when empty.
    max_bytes : int, optional
        The largest (decompressed) size accepted.

    Returns
    -------
    Corpus
        Every document of the file, with its id: an ``id`` field or column if there is one, else its line number.

    Raises
    ------
    CorpusError
        If the file cannot be read, or its content is refused (see :func:`read_corpus_bytes`).

    Examples
    --------
    >>> import pathlib
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "china.csv"
    ...     _ = path.write_text("label,text\nChina,Chinese Beijing Chinese\nJapan,Tokyo Japan Chinese\n")
    ...     corpus = read_corpus(path)
    >>> corpus.labels, corpus.texts, corpus.ids, corpus.name  # ids are line numbers: the header is line 1
    (('China', 'Japan'), ('Chinese Beijing Chinese', 'Tokyo Japan Chinese'), ('2', '3'), 'china.csv')
    """
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
    r"""Parse the bytes of a corpus file (an upload, say).

    ``format`` is "jsonl", "csv" or "tsv"; when None it comes from ``filename``'s suffix, or else
    from the content. gzip is recognised by its magic bytes. ``max_bytes`` caps the (decompressed)
    size. ``name`` defaults to ``filename``. Nothing is returned unless the whole file is valid.

    Parameters
    ----------
    data : bytes
        The file's content, UTF-8 or UTF-16, optionally gzip-compressed.
    filename : str, default ""
        The file's name, for its suffix and as the corpus's default name.
    format : {"jsonl", "csv", "tsv"}, optional
        The format; guessed when None.
    label_column, text_column : str, default "label" and "text"
        The fields or columns holding the label and the text.
    name : str, default ""
        The corpus's name.
    max_bytes : int, optional
        The largest (decompressed) size accepted; a gzip bomb is stopped near it.

    Returns
    -------
    Corpus
        Every document, with its id (an ``id`` field or column, else its line number).

    Raises
    ------
    CorpusError
        For an unknown ``format``, a file over ``max_bytes``, a file that is not text (or is an archive), invalid
        JSON or CSV, a missing label or text, or no documents at all; the message names the line and says how to
        fix it.

    Examples
    --------
    >>> data = b'{"label": "China", "text": "Chinese Macao"}\n{"label": "Japan", "text": "Tokyo Japan", "id": "d4"}\n'
    >>> corpus = read_corpus_bytes(data, filename="two.jsonl")
    >>> corpus.labels, corpus.ids, corpus.name
    (('China', 'Japan'), ('1', 'd4'), 'two.jsonl')
    >>> read_corpus_bytes(b"label,text\n" + b"China,Chinese Macao\n" * 100, filename="big.csv",
    ...                   max_bytes=1000)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    webnb.engine.shared.corpus.CorpusError: The file is larger than the limit ...; nothing was loaded. ...
    """
    chosen_format = _checked_format(format)
    data = file_content(data, max_bytes)
    text = decode_text(data)
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


def file_content(data: bytes, max_bytes) -> bytes:
    """The file's content, decompressed if it is gzip, refused if larger than ``max_bytes``."""
    if data[:2] == GZIP_MAGIC:
        return _gunzip(data, max_bytes)
    if max_bytes is not None and len(data) > max_bytes:
        raise _too_large(max_bytes, "")
    return data


def file_head(data: bytes, max_bytes, size: int) -> bytes:
    """About the first ``size`` bytes of the content (all of it when shorter), cut after a line end, to guess a
    table's layout from: a gzip file is decompressed only that far, however much it would unpack to."""
    if data[:2] != GZIP_MAGIC:
        return file_content(data, max_bytes)
    head = _gunzip(data, max_bytes, stop_after=size)
    if len(head) <= size:
        return head
    cut = head.rfind(b"\n", 0, size) + 1
    if cut <= 0:
        return head
    if cut % 2 and _utf16_encoding(head) == "utf-16-le":
        cut += 1  # the zero byte of a UTF-16 "\n"
    return head[:cut]


def _gunzip(data: bytes, max_bytes, stop_after: int | None = None) -> bytes:
    """Decompress chunk by chunk, stopping as soon as the output exceeds ``max_bytes`` (refused), or, given
    ``stop_after``, returning the start once it has that many bytes."""
    pieces, size = [], 0
    pending = data
    try:
        while pending:  # a gzip file may hold several members, one after another
            inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
            while not inflater.eof:
                if stop_after is not None and size >= stop_after:
                    return b"".join(pieces)
                piece = inflater.decompress(pending, INFLATE_CHUNK)
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


def decode_text(data: bytes) -> str:
    """The file's text: UTF-8 (a BOM is dropped), or UTF-16 when it starts with a UTF-16 BOM or looks like it
    (Excel's "Unicode text" export). A NUL character is refused: no text file holds one. A file that is no text at
    all (a PDF, an image, a spreadsheet, a program, …; see :func:`known_file_kind`) is refused with a message naming
    what it is and what webnb reads."""
    if data.startswith(codecs.BOM_UTF8):  # Windows editors put it there; it is not text
        data = data[len(codecs.BOM_UTF8):]
    known = known_file_kind(data)
    if known is not None:
        raise not_a_corpus(*known)
    utf16 = _utf16_encoding(data)
    if utf16 is not None:
        return _without_nul(_decode_utf16(data, utf16))
    binary = _binary_kind(data)
    if binary is not None:
        raise not_a_corpus(*binary)
    text = utf8_text(data, lambda byte, line_number: (
        f"line {line_number}: byte 0x{byte:02x} is not UTF-8 text. "
        "The file must be saved as UTF-8 (in most editors: Save As, Encoding: UTF-8)."
    ))
    return _without_nul(text)


def utf8_text(data: bytes, refusal: Callable[[int, int], str]) -> str:
    """``data`` decoded as UTF-8, or a CorpusError whose message is ``refusal(byte, line_number)`` for the first byte
    that is not UTF-8: one place finds the byte and its line for a corpus file and for a file in an archive."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise CorpusError(refusal(data[err.start], data.count(b"\n", 0, err.start) + 1)) from err


def _utf16_encoding(data: bytes):
    """"utf-16-le" or "utf-16-be" if ``data`` is UTF-16 text, else None.

    Without a BOM, UTF-16 of mostly Latin text has a zero byte in every other position and none in the
    others; any other pattern of zero bytes (a binary file) is not taken for UTF-16.
    """
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) and not data.startswith(codecs.BOM_UTF32_LE):
        return "utf-16-le" if data.startswith(codecs.BOM_UTF16_LE) else "utf-16-be"
    sample = data[:4096]
    if len(sample) < 4 or len(sample) % 2:
        return None
    even_zeros, odd_zeros = sample[0::2].count(0), sample[1::2].count(0)
    half = len(sample) // 2
    if even_zeros == 0 and odd_zeros >= half * 0.3:
        guess = "utf-16-le"
    elif odd_zeros == 0 and even_zeros >= half * 0.3:
        guess = "utf-16-be"
    else:
        return None
    # A binary header (a spreadsheet's ZIP) can have the same pattern; text has no control characters.
    decoded = sample.decode(guess, errors="replace")
    return None if _CONTROL.search(decoded) else guess


def _decode_utf16(data: bytes, encoding: str) -> str:
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        data = data[2:]
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as err:
        line_number = data[: err.start].decode(encoding, errors="replace").count("\n") + 1
        raise CorpusError(
            f"line {line_number}: the file looks like UTF-16 text but is damaged there ({err.reason}). "
            "Save it again, preferably as UTF-8 (in most editors: Save As, Encoding: UTF-8)."
        ) from err


def _without_nul(text: str) -> str:
    at = text.find("\x00")
    if at >= 0:
        line_number = text.count("\n", 0, at) + 1
        raise CorpusError(
            f"line {line_number}: a NUL character (byte 0x00), which no text holds: this is a binary file, or "
            "one saved in an encoding this app does not read. Save it as UTF-8 text; nothing was loaded."
        )
    return text


# --- files that are not text: what they are, and what webnb reads instead -------------------

ACCEPTED_FILES = (
    "webnb reads only CSV, TSV and JSON Lines files (UTF-8 text, gzipped too) with a label and a text on each line, "
    "like positive,great film, or a table of numbers under a header row, and archives (.zip, .tar, .tar.gz, .tgz) "
    "with one folder of text files per class, like pos/review1.txt and neg/review2.txt."
)
_DOCUMENT = (
    "Copy its texts into a spreadsheet, one document per row with its label in the column before it, save that as "
    "CSV (UTF-8) and upload the .csv file."
)
_SPREADSHEET = (
    "Save it from your spreadsheet program as CSV (UTF-8) (File, Save As or Download) and upload the .csv file."
)
_MEDIA = (
    "Naive Bayes here learns from texts, not from pictures or sound: type the texts into a spreadsheet, one document "
    "per row with its label in the column before it, save that as CSV (UTF-8) and upload the .csv file."
)
_OTHER_ARCHIVE = (
    "Unpack it, then upload the CSV, TSV or JSON Lines file it holds, or pack its class folders again as .zip or "
    ".tar.gz."
)
_OFFICE = (
    "Save a spreadsheet as CSV (UTF-8) (File, Save As) and upload the .csv file; from a text document or a "
    "presentation, copy the texts into a spreadsheet, one document per row with its label in the column before it, "
    "and save that as CSV."
)
_BINARY = (
    "Upload the corpus file itself; if it is text, save it as UTF-8 (in most editors: Save As, Encoding: UTF-8)."
)
_PROGRAM = "Upload the corpus file itself, not a program."
_PROGRAM_KIND = "a program (an executable file)"
_AUDIO_VIDEO = "an audio or video file"
# Bytes no text holds: the control characters but TAB, line feed, vertical tab, form feed, carriage return and ESC.
_BINARY_BYTES = bytes([*range(0x00, 0x09), *range(0x0E, 0x1B), *range(0x1C, 0x20), 0x7F])
_BINARY_SAMPLE = 4096
_BINARY_SHARE = 0.05  # of the sample; text has hardly any such bytes, random bytes about 11 %
_BINARY_LEAST = 4  # fewer stray bytes are named by their line instead
_IMAGE_BRANDS = (b"heic", b"heix", b"hevc", b"hevx", b"mif1", b"msf1", b"avif", b"avis")


def not_a_corpus(kind: str, advice: str) -> CorpusError:
    """The refusal of a file that is ``kind`` ("a PDF document"): what it is, what webnb reads, what to do."""
    return CorpusError(f"This file is {kind}; nothing was loaded. {ACCEPTED_FILES} {advice}")


def known_file_kind(data: bytes) -> tuple[str, str] | None:
    """(what the file is, what to do) when its first bytes are those of a kind of file that is not text (a PDF, an
    image, an office document, an archive webnb does not read, a program, …), else None. A ZIP is read as an archive
    before its bytes come here, so a ZIP seen here is one that was not (an office document, say)."""
    head = data[:64]
    if data[:1024].lstrip().startswith(b"%PDF-"):
        return "a PDF document", _DOCUMENT
    if head.startswith(b"{\\rtf"):
        return "an RTF document (rich text, as WordPad and TextEdit save)", _DOCUMENT
    media = _media_kind(head)
    if media is not None:
        return media, _MEDIA
    if head[:4] in (ZIP_MAGIC, b"PK\x05\x06"):
        return _zip_bytes_kind(data) or (
            "a ZIP archive (a spreadsheet such as .xlsx is one too)",
            "If it is a spreadsheet, save it as CSV (UTF-8) and use the .csv file; a ZIP of class folders uploads as "
            "it is.",
        )
    for magic, kind, advice in _OTHER_MAGIC:
        if head.startswith(magic):
            return kind, advice
    if head.startswith(b"BZh") and head[4:10] == b"1AY&SY":
        return "a bzip2-compressed file (.bz2)", _OTHER_ARCHIVE
    if head.startswith(b"MZ") and b"\x00" in head:  # Windows
        return _PROGRAM_KIND, _PROGRAM
    return None


_MACHO = (b"\xfe\xed\xfa\xce", b"\xfe\xed\xfa\xcf", b"\xce\xfa\xed\xfe", b"\xcf\xfa\xed\xfe", b"\xca\xfe\xba\xbe")
# (first bytes, what the file is, what to do)
_OTHER_MAGIC = (
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Microsoft Office file (.doc, .xls or .ppt)", _OFFICE),
    (b"Rar!\x1a\x07", "a RAR archive", _OTHER_ARCHIVE),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive", _OTHER_ARCHIVE),
    (b"\xfd7zXZ\x00", "an xz-compressed file (.xz)", _OTHER_ARCHIVE),
    (b"\x28\xb5\x2f\xfd", "a Zstandard-compressed file (.zst)", _OTHER_ARCHIVE),
    *((magic, _PROGRAM_KIND, _PROGRAM) for magic in (b"\x7fELF", *_MACHO, b"\x00asm")),  # Linux, macOS, WebAssembly
    (b"SQLite format 3\x00", "an SQLite database", _BINARY),
)


def _media_kind(head: bytes) -> str | None:
    """What an image, audio or video file is, by its first bytes; None for anything else."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "a PNG image"
    if head.startswith(b"\xff\xd8\xff"):
        return "a JPEG image"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "a GIF image"
    if head.startswith((b"II*\x00", b"MM\x00*")):
        return "a TIFF image"
    if head.startswith(b"BM") and head[6:10] == b"\x00\x00\x00\x00":  # two reserved fields, always zero
        return "a BMP image"
    if head.startswith(b"\x00\x00\x01\x00") and head[4:6] not in (b"", b"\x00", b"\x00\x00"):
        return "an icon image (.ico)"
    if head[:4] == b"RIFF":
        return {b"WEBP": "a WebP image", b"WAVE": _AUDIO_VIDEO, b"AVI ": _AUDIO_VIDEO}.get(head[8:12])
    if head[4:8] == b"ftyp" and head[:2] == b"\x00\x00":  # after the size of the box, a small number
        return "a HEIC or AVIF image" if head[8:12] in _IMAGE_BRANDS else _AUDIO_VIDEO
    if head.startswith((b"OggS", b"fLaC")) or (head.startswith(b"ID3") and head[3:4] in (b"\x02", b"\x03", b"\x04")):
        return _AUDIO_VIDEO
    return None


def zip_document_kind(names) -> tuple[str, str] | None:
    """(what the file is, what to do) when a ZIP whose entries are ``names`` is an office document (Word, Excel,
    PowerPoint, OpenDocument) or an e-book, by the entries such a file always holds, else None."""
    names = set(names)
    if "[Content_Types].xml" in names:
        folders = {name.split("/", 1)[0] for name in names}
        for folder, kind, advice in _OOXML:
            if folder in folders:
                return f"{kind}, a kind of ZIP file", advice
    if "mimetype" in names and "META-INF/manifest.xml" in names:
        return "an OpenDocument file (.odt, .ods or .odp), a kind of ZIP file", _OFFICE
    if "mimetype" in names and "META-INF/container.xml" in names:
        return "an EPUB e-book, a kind of ZIP file", _DOCUMENT
    return None


_OOXML = (
    ("xl", "an Excel workbook (.xlsx)", _SPREADSHEET),
    ("word", "a Word document (.docx)", _DOCUMENT),
    ("ppt", "a PowerPoint presentation (.pptx)", _DOCUMENT),
)
# Entries that tell office documents apart, looked for in a ZIP's bytes (a ZIP keeps its names uncompressed).
_TELLING_ENTRIES = (
    "[Content_Types].xml", "xl/workbook.xml", "word/document.xml", "ppt/presentation.xml", "mimetype",
    "META-INF/manifest.xml", "META-INF/container.xml",
)


def _zip_bytes_kind(data: bytes) -> tuple[str, str] | None:
    """:func:`zip_document_kind` of a ZIP's bytes, from the telling entry names found in them (without reading the
    ZIP, which the archive reader does with care)."""
    return zip_document_kind(name for name in _TELLING_ENTRIES if name.encode() in data)


def _binary_kind(data: bytes) -> tuple[str, str] | None:
    """(what the file is, what to do) when its start holds many bytes no text holds (NUL and other control bytes)."""
    sample = data[:_BINARY_SAMPLE]
    count = len(sample) - len(sample.translate(None, _BINARY_BYTES))
    if count < _BINARY_LEAST or count < _BINARY_SHARE * len(sample):
        return None
    which = "NUL bytes (0x00) and other control bytes" if b"\x00" in sample else "control bytes"
    return f"binary data, not text: it holds {which}, which no text file holds", _BINARY


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
    rows = numbered_rows(reader, fmt)
    header_line, header = next(rows, (0, None))
    if header is None:
        return [], [], []
    columns = [column.strip() for column in header]
    label_index = _column_index(columns, label_column, "labels", header_line, fmt)
    text_index = _column_index(columns, text_column, "texts", header_line, fmt)
    id_index = columns.index("id") if "id" in columns else None

    return labelled_rows(
        rows, label_index, text_index, id_index, label_column,
        check=lambda row, line_number: _check_width(row, columns, line_number, fmt),
    )


def labelled_rows(records, label_index, text_index, id_index, label_name, check):
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


def numbered_rows(reader, fmt: str):
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
        f"line {header_line}: no {wanted!r} column. The columns are {quoted_names(columns)}. "
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
            f"({quoted_names(columns)}). Every row needs a value for each column."
        )
    if len(row) > len(columns):
        separator = "a tab" if fmt == "tsv" else "a comma"
        raise CorpusError(
            f"line {line_number}: {len(row)} fields, but the first row names only {len(columns)} "
            f"({quoted_names(columns)}). A text that contains {separator} must be in double quotes."
        )


def quoted_names(names) -> str:
    """Column names as a message lists them: 'label', 'text'."""
    return ", ".join(repr(name) for name in names)
