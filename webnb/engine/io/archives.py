"""Archives of class folders, ZIP or tar (plain or gzipped), read from memory into corpora, as the original dataset
archives come: a folder per class (``txt_sentoken/pos``), 20 Newsgroups' ``20news-bydate-train`` and
``20news-bydate-test`` folders (a training corpus and a test corpus), and Ling-Spam's ``bare/part1`` … ``part10``
(the class is in the file name).

Nothing is extracted to disk. A ZIP is refused from its directory before anything is decompressed when it declares
more than the limits allow (its records are counted before zipfile reads them); a tar has no directory, so it is read
as a stream, one entry at a time, and refused as soon as it passes a limit: entries, bytes of documents, bytes
unpacked in all, and the compression ratio. A tar's extension headers (pax records, GNU long names) are checked on
their way to tarfile, which would parse some in time growing with the square of their size. Paths that could
escape a folder (absolute, ``..``, a drive letter), names that are not UTF-8, links and devices are refused, whatever
the format.
"""
from __future__ import annotations

import codecs
import io
import re
import stat
import struct
import tarfile
import zipfile
import zlib
from dataclasses import dataclass

from webnb.engine.io.readers import (
    GZIP_MAGIC,
    INFLATE_CHUNK,
    ZIP_MAGIC,
    known_file_kind,
    not_a_corpus,
    utf8_text,
    zip_document_kind,
)
from webnb.engine.shared.corpus import Corpus, CorpusError

_LAYOUT = (
    "Put each document in its own UTF-8 text file, inside a folder named after its class, "
    "like pos/review1.txt and neg/review2.txt, and zip the folders (ZIP, .tar, .tar.gz or .tgz)."
)
_READ_CHUNK = 64 * 1024
_DRIVE = re.compile(r"^[A-Za-z]:")
_EOCD = b"PK\x05\x06"
_ZIP64_END, _ZIP64_LOCATOR, _CENTRAL_RECORD = b"PK\x06\x06", b"PK\x06\x07", b"PK\x01\x02"
_EOCD_BYTES, _ZIP64_END_BYTES, _ZIP64_LOCATOR_BYTES, _CENTRAL_RECORD_BYTES = 22, 56, 20, 46
_TAR_SUFFIXES = (".tar", ".tar.gz", ".tgz")
# Files that hold a whole corpus, as a table or JSON Lines (plain or gzipped).
_TABLE_SUFFIXES = tuple(
    suffix + gz for suffix in (".csv", ".tsv", ".tab", ".jsonl", ".ndjson", ".json") for gz in ("", ".gz")
)
_USTAR = slice(257, 262)  # where a tar header says "ustar"
_READABLE_METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflate"}
# What a tar adds around each entry: a 512-byte header, padding to 512 bytes, and a long name's extra header.
_TAR_BYTES_PER_ENTRY = 2048
_RATIO_FLOOR = 1_000_000  # bytes a gzipped tar may unpack to whatever its ratio

# 20 Newsgroups by date: "20news-bydate-train" and "20news-bydate-test" (or any "<x>train" and "<x>test" pair).
_TRAIN_FOLDER = re.compile(r"(?i)^(?P<prefix>.*?)(train|training)$")
_TEST_FOLDER = re.compile(r"(?i)^(?P<prefix>.*?)test$")
_NEWSGROUPS = re.compile(r"(?i)^20news")
# Ling-Spam: part1 … part10 in each of the versions bare, lemm, lemm_stop and stop; spmsg*.txt files are spam.
_LINGSPAM_PART = re.compile(r"^part\d+$")
_LINGSPAM_SPAM = re.compile(r"^spmsg.*\.txt$")
_LINGSPAM_VERSION = "bare"


@dataclass(frozen=True)
class Upload:
    """What a file held: one corpus (a table of numbers, for a table file), or a training corpus and the test corpus
    that comes with it (20 Newsgroups by date). ``layout`` names how it was read; ``note`` says what was left out.

    Parameters
    ----------
    corpus : Corpus or NumericTable
        What the file held (the training part, when there is a test corpus).
    test_corpus : Corpus, optional
        The test corpus the archive came with.
    layout : str, default ""
        How the file was read ("table", "JSON Lines", "table of numbers", …).
    note : str, default ""
        What was left out (an archive's other files, say).
    """

    corpus: object  # Corpus, or NumericTable
    test_corpus: Corpus | None = None
    layout: str = ""
    note: str = ""

    def to_dict(self) -> dict:
        test = self.test_corpus
        return {
            "layout": self.layout,
            "documents": len(self.corpus),
            "classes": list(self.corpus.classes),
            "test_documents": None if test is None else len(test),
            "note": self.note or None,
        }


@dataclass(frozen=True)
class ArchiveLimits:
    """What an archive may hold. Even the largest original (20 Newsgroups by date: 18,846 documents in 18,888
    entries, 34 MB) fits, and nothing much larger does."""

    max_entries: int = 20_000
    max_total_bytes: int = 50_000_000  # of documents, decompressed
    max_ratio: float = 100  # decompressed / compressed, per ZIP entry or for a whole gzipped tar
    max_file_bytes: int = 5_000_000  # of one document


DEFAULT_LIMITS = ArchiveLimits()


def archive_kind(data: bytes, filename: str = "") -> str | None:
    """"zip" or "tar" if ``data`` is an archive of files (by its first bytes, or a tar's file name), else None.

    A gzip file holds a tar when its name says so or when its first header does; else it is a gzipped table."""
    if data[:4] in (ZIP_MAGIC, _EOCD):  # the end record comes first in a ZIP with nothing in it
        return "zip"
    if filename.lower().endswith(_TAR_SUFFIXES):
        return "tar"
    head = data[:512]
    if data[:2] == GZIP_MAGIC:
        try:
            head = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS).decompress(data, 512)
        except zlib.error:
            return None
    return "tar" if head[_USTAR] == b"ustar" else None


def read_archive(data: bytes, *, filename: str = "", limits: ArchiveLimits = DEFAULT_LIMITS) -> Upload:
    """The corpus (or training and test corpora) in a ZIP or tar of class folders; see the module's docstring.

    ids are the paths inside the archive; documents come in path order. ``__MACOSX/``, hidden files and a README
    beside the class folders are skipped. Every problem is a CorpusError, and then nothing is returned."""
    if archive_kind(data, filename) == "tar":
        return _read_tar(data, filename, limits)
    return _read_zip(data, filename, limits)


# --- paths and layouts, whatever the format ---------------------------------------------------------------------


def _check_path(name: str, kind: str) -> None:
    shown = name.replace("\x00", "\\x00")
    parts = name.rstrip("/").split("/")
    if name.startswith("/") or "\\" in name or _DRIVE.match(name) or ".." in parts or "" in parts or "\x00" in name:
        raise CorpusError(
            f"The {kind} entry {shown!r} has an unsafe path (absolute, with '..', a backslash or a drive "
            f"letter); nothing was loaded. Put the class folders themselves in the {kind}, with ordinary relative "
            "paths."
        )


def _skipped(parts: list[str]) -> bool:
    """macOS resource forks and hidden files (.DS_Store, .git/…) are not documents."""
    return parts[0] == "__MACOSX" or any(part.startswith(".") for part in parts)


def _is_readme(name: str) -> bool:
    return "readme" in name.lower()  # README, readme.txt, poldata.README.2.0


@dataclass(frozen=True)
class _Layout:
    """Each document's ``(path, class)``, per corpus (one, or training and test), and how to decode the files."""

    name: str
    parts: tuple[tuple[str, tuple[tuple[str, str], ...]], ...]  # (folder name, ((path, class), …))
    encoding: str = "utf-8"
    note: str = ""


def _layout(paths: list[str], kind: str) -> _Layout:
    """How the documents of an archive are laid out, from their paths alone (nothing is read before this)."""
    # In the order of the paths as strings, as the ids are listed ("pos-x/…" before "pos/…").
    files = [parts for parts in (path.split("/") for path in sorted(paths)) if not _skipped(parts)]
    if not files:
        raise CorpusError(f"The {kind} contains no documents. {_LAYOUT}")
    for parts, next_parts in zip(files, files[1:], strict=False):
        if parts == next_parts:
            path = "/".join(parts)
            raise CorpusError(f"The {kind} holds {path!r} twice; nothing was loaded. Pack the folders again.")
    depth = _shared_depth(files)
    # A README beside the class folders (poldata.README.2.0, Ling-Spam's readme.txt) describes them.
    files = [parts for parts in files if not (len(parts) == depth + 1 and _is_readme(parts[-1]))] or files
    if any(_LINGSPAM_SPAM.match(parts[-1]) and len(parts) > 1 and _LINGSPAM_PART.match(parts[-2]) for parts in files):
        return _lingspam(files, kind)
    split = _train_and_test(files, depth)
    if split is not None:
        return split
    return _Layout("class folders", (("", _class_folders(files, depth, kind)),))


def _shared_depth(files) -> int:
    """How many leading folders every file shares (as when a whole folder was packed), up to the class folders."""
    depth = 0
    while all(len(parts) > depth + 1 for parts in files) and len({parts[depth] for parts in files}) == 1 and any(
        len(parts) > depth + 2 for parts in files
    ):
        depth += 1
    return depth


def _class_folders(files, depth: int, kind: str) -> tuple[tuple[str, str], ...]:
    """The class of a file is the name of the folder directly holding it."""
    top_level = ["/".join(parts) for parts in files if len(parts) == depth + 1]
    if len(top_level) == len(files):
        tables = [path for path in top_level if path.lower().endswith(_TABLE_SUFFIXES)]
        if tables:
            raise CorpusError(
                f"The {kind} holds the table file {tables[0]!r} but no class folders; nothing was loaded. An archive "
                f"is read as one folder of text files per class, like pos/review1.txt and neg/review2.txt. Unpack it "
                f"and upload {tables[0].rsplit('/', 1)[-1]!r} itself (CSV, TSV and JSON Lines files upload as they "
                "are, gzipped too)."
            )
        raise CorpusError(f"The {kind} has no folders, so the classes are unknown. {_LAYOUT}")
    if top_level:
        raise CorpusError(
            f"The file {top_level[0]!r} is not in a class folder. {_LAYOUT} Move it into one, or remove it."
        )
    return tuple(("/".join(parts), parts[-2]) for parts in files)


def _train_and_test(files, depth: int) -> _Layout | None:
    """Two folders, ``<x>train`` and ``<x>test``, each of class folders: a training corpus and a test corpus."""
    folders = {parts[depth] for parts in files if len(parts) > depth + 1}
    if len(folders) != 2 or any(len(parts) == depth + 1 for parts in files):
        return None
    train = next((_TRAIN_FOLDER.match(folder) for folder in folders if _TRAIN_FOLDER.match(folder)), None)
    test = next((_TEST_FOLDER.match(folder) for folder in folders if _TEST_FOLDER.match(folder)), None)
    if train is None or test is None or train.group("prefix") != test.group("prefix"):
        return None
    parts = tuple(
        (match.string, _class_folders([p for p in files if p[depth] == match.string], depth + 1, "folder"))
        for match in (train, test)
    )
    if _NEWSGROUPS.match(train.string):
        # As scikit-learn reads it: the posts are Latin-1 text (a few bytes of them are not UTF-8).
        return _Layout("20 Newsgroups by date", parts, encoding="latin-1")
    return _Layout("training and test folders", parts)


def _lingspam(files, kind: str) -> _Layout:
    """Ling-Spam: messages in part folders, spam when the file name starts with "spmsg", legitimate (ham) else.
    Of its four versions (bare, lemm, lemm_stop, stop), only bare is read: the others are the same messages."""
    outside = ["/".join(parts) for parts in files if len(parts) < 2 or not _LINGSPAM_PART.match(parts[-2])]
    if outside:
        raise CorpusError(
            f"The file {outside[0]!r} is not in a Ling-Spam part folder (part1 … part10); nothing was loaded. "
            f"Upload the {kind} as it came, or remove the file."
        )
    versions = sorted({parts[-3] if len(parts) > 2 else "" for parts in files})
    note = ""
    if len(versions) > 1:
        if _LINGSPAM_VERSION not in versions:
            raise CorpusError(
                f"The {kind} holds Ling-Spam in several versions ({', '.join(versions)}) but not the bare one; "
                "nothing was loaded. Upload one version."
            )
        files = [parts for parts in files if parts[-3] == _LINGSPAM_VERSION]
        others = ", ".join(version for version in versions if version != _LINGSPAM_VERSION)
        note = f"Only the bare version was read; {others} hold the same messages, processed."
    documents = tuple(
        ("/".join(parts), "spam" if _LINGSPAM_SPAM.match(parts[-1]) else "ham") for parts in files
    )
    return _Layout("Ling-Spam", (("", documents),), note=note)


def _corpora(layout: _Layout, contents, filename: str) -> Upload:
    """The corpora of ``layout``, each file's bytes from ``contents(path)``, decoded."""
    corpora = []
    for folder, documents in layout.parts:
        texts = tuple(_decode_file(contents(path), path, layout.encoding) for path, _ in documents)
        labels = tuple(label for _, label in documents)
        ids = tuple(path for path, _ in documents)
        corpora.append(Corpus(texts=texts, labels=labels, ids=ids, name=folder or filename))
    return Upload(corpora[0], corpora[1] if len(corpora) > 1 else None, layout.name, layout.note)


def _decode_file(raw: bytes, path: str, encoding: str) -> str:
    known = known_file_kind(raw)
    if known is not None:
        raise CorpusError(
            f"The file {path!r} is {known[0]}, not text; nothing was loaded. Each document must be a UTF-8 text "
            "file in its class folder."
        )
    if encoding != "utf-8":
        return raw.decode(encoding)
    if raw.startswith(codecs.BOM_UTF8):
        raw = raw[len(codecs.BOM_UTF8):]
    return utf8_text(raw, lambda byte, line_number: (
        f"The file {path!r} is not UTF-8 text (byte 0x{byte:02x} on line {line_number}). "
        "Save it as UTF-8 (in most editors: Save As, Encoding: UTF-8) and pack the folders again."
    ))


def _size(n: int) -> str:
    """Bytes in decimal units, to two decimals: 209.72 MB, 1.1 KB."""
    for unit, scale in (("GB", 10**9), ("MB", 10**6), ("KB", 10**3)):
        if n >= scale:
            return f"{n / scale:.2f}".rstrip("0").rstrip(".") + f" {unit}"
    return f"{n:,} bytes"


def _too_many_entries(count: int | None, limit: int, kind: str) -> CorpusError:
    if count is None:  # counted only up to one past the limit
        return CorpusError(
            f"The {kind} holds more than the limit of {limit:,} entries; nothing was loaded. "
            "Upload a sample of the documents."
        )
    more = "more than" if kind == "ZIP" else "over"  # a tar is counted as it is read: it may hold still more
    return CorpusError(
        f"The {kind} holds {count:,} entries, {more} the limit of {limit:,}; nothing was loaded. "
        "Upload a sample of the documents."
    )


def _too_large_in_all(total: int, limit: int, kind: str) -> CorpusError:
    return CorpusError(
        f"The {kind} would unpack to {_size(total)} ({total:,} bytes), over the limit of "
        f"{_size(limit)}; nothing was loaded. Upload fewer or shorter documents."
    )


def _too_large_file(path: str, size: int, limit: int) -> CorpusError:
    return CorpusError(
        f"The file {path!r} is {_size(size)} ({size:,} bytes), over the limit "
        f"of {_size(limit)} for one document; nothing was loaded."
    )


# --- ZIP: its directory is checked before anything is decompressed ----------------------------------------------


def _read_zip(data: bytes, filename: str, limits: ArchiveLimits) -> Upload:
    _check_directory(data, limits)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError) as err:
        raise CorpusError(f"This is not a readable ZIP file ({err}). Zip the folders again.") from err
    with archive:
        infos = archive.infolist()
        if len(infos) > limits.max_entries:
            raise _too_many_entries(len(infos), limits.max_entries, "ZIP")
        document = zip_document_kind(info.filename for info in infos)  # a .docx or .xlsx is a ZIP too
        if document is not None:
            raise not_a_corpus(*document)
        total = sum(info.file_size for info in infos)
        if total > limits.max_total_bytes:
            raise _too_large_in_all(total, limits.max_total_bytes, "ZIP")
        for info in infos:
            _check_zip_entry(info, limits)
        files = {info.filename: info for info in infos if not info.is_dir()}
        layout = _layout([info.filename for info in infos if not info.is_dir()], "ZIP")
        budget = _Budget(limits.max_total_bytes, "ZIP")
        return _corpora(layout, lambda path: _read_entry(archive, files[path], limits.max_file_bytes, budget), filename)


def _check_directory(data: bytes, limits: ArchiveLimits) -> None:
    """Refuses a ZIP whose directory lists more entries than the limit before zipfile reads it: zipfile builds an
    object for every record whatever the end record says (950,000 records in 51 MB take 530 MB). The records are
    counted where zipfile looks for them, and only up to one past the limit."""
    end = _end_record(data)
    if end is None:
        return  # no ZIP: zipfile says so
    declared = _little_endian(data, end + 10, 2)
    if declared != 0xFFFF and declared > limits.max_entries:  # 0xFFFF: the count is in a ZIP64 end record
        raise _too_many_entries(declared, limits.max_entries, "ZIP")
    for start, stop in _directory_spans(data, end):
        count, whole = _count_records(data, start, stop, limits.max_entries + 1)
        if count > limits.max_entries:
            raise _too_many_entries(count if whole else None, limits.max_entries, "ZIP")


def _little_endian(data: bytes, at: int, size: int) -> int:
    return int.from_bytes(data[at:at + size], "little")


def _end_record(data: bytes) -> int | None:
    """Where the end-of-directory record starts, found as zipfile finds it: in the last 22 bytes, or else the last
    signature in the 64 KB an archive comment may take."""
    if len(data) >= _EOCD_BYTES and data[-_EOCD_BYTES:].startswith(_EOCD) and data.endswith(b"\x00\x00"):
        return len(data) - _EOCD_BYTES
    end = data.rfind(_EOCD, max(0, len(data) - 0x10000 - _EOCD_BYTES))
    return end if 0 <= end <= len(data) - _EOCD_BYTES else None


def _directory_spans(data: bytes, end: int) -> list[tuple[int, int]]:
    """Where zipfile may read the directory: just before the end record, as many bytes as it says, or just before a
    ZIP64 end record, as many as that one says (Python 3.11 looks for one right before the locator that precedes
    the end record; later versions first where the locator points). The offsets the records give are not used, as
    zipfile does not use them: a program prepended to an archive shifts them."""
    spans = [(end - _little_endian(data, end + 12, 4), end)]
    locator = end - _ZIP64_LOCATOR_BYTES
    if locator >= 0 and data.startswith(_ZIP64_LOCATOR, locator):
        for zip64_end in {locator - _ZIP64_END_BYTES, _little_endian(data, locator + 8, 8)}:
            if zip64_end >= 0 and data.startswith(_ZIP64_END, zip64_end):
                spans.append((zip64_end - _little_endian(data, zip64_end + 40, 8), zip64_end))
    return spans


def _count_records(data: bytes, start: int, stop: int, most: int) -> tuple[int, bool]:
    """How many directory records ``data[start:stop]`` holds, counted up to ``most``, and whether they are all of it.
    A record is 46 bytes, then a name, an extra field and a comment whose lengths it gives at 28, 30 and 32."""
    count, position = 0, start
    while position < stop and count < most:
        if position < 0 or position + _CENTRAL_RECORD_BYTES > stop or not data.startswith(_CENTRAL_RECORD, position):
            break  # zipfile refuses the directory here
        name, extra, comment = struct.unpack_from("<3H", data, position + 28)
        position += _CENTRAL_RECORD_BYTES + name + extra + comment
        count += 1
    return count, position >= stop


def _check_zip_entry(info: zipfile.ZipInfo, limits: ArchiveLimits) -> None:
    name = info.orig_filename
    shown = name.replace("\x00", "\\x00")
    _check_path(name, "ZIP")
    if stat.S_ISLNK(info.external_attr >> 16):
        raise CorpusError(
            f"The ZIP entry {shown!r} is a symbolic link; nothing was loaded. "
            "Zip the files themselves, not links to them."
        )
    if info.is_dir():
        return
    if info.flag_bits & 0x1:
        raise CorpusError(
            f"The ZIP entry {shown!r} is encrypted; nothing was loaded. Zip the folders again without a password."
        )
    if info.file_size and (info.compress_size == 0 or info.file_size / info.compress_size > limits.max_ratio):
        ratio = info.file_size / info.compress_size if info.compress_size else float("inf")
        raise CorpusError(
            f"The ZIP entry {shown!r} is compressed {ratio:,.0f} times ({info.compress_size:,} bytes "
            f"unpack to {info.file_size:,}), more than the limit of {limits.max_ratio:g}: it looks like a "
            "ZIP bomb, so nothing was loaded."
        )
    if info.file_size > limits.max_file_bytes:
        raise _too_large_file(shown, info.file_size, limits.max_file_bytes)
    if info.compress_type not in _READABLE_METHODS:
        raise CorpusError(
            f"The ZIP entry {shown!r} uses a compression method (number {info.compress_type}) this app "
            "does not read; nothing was loaded. Zip the folders again with the standard method (deflate)."
        )


class _Budget:
    """Decompressed bytes left for the whole archive."""

    def __init__(self, limit: int, kind: str):
        self.limit, self.kind = limit, kind
        self.used = 0

    def spend(self, n: int, path: str) -> None:
        self.used += n
        if self.used > self.limit:
            raise CorpusError(
                f"While reading {path!r}, the {self.kind} unpacked to more than the limit of {_size(self.limit)} "
                "although its directory declared less: it is damaged or forged, so nothing was loaded."
            )


def _open_entry(archive: zipfile.ZipFile, info: zipfile.ZipInfo):
    return archive.open(info)


def _read_entry(archive, info, max_file_bytes: int, budget: _Budget) -> bytes:
    """The file's bytes, read in chunks and stopped as soon as a limit is passed."""
    pieces, size = [], 0
    try:
        with _open_entry(archive, info) as stream:
            while True:
                piece = stream.read(_READ_CHUNK)
                if not piece:
                    break
                size += len(piece)
                if size > max_file_bytes:
                    raise CorpusError(
                        f"The file {info.filename!r} unpacked to more than the limit of "
                        f"{_size(max_file_bytes)} for one document although the ZIP declared "
                        f"{info.file_size:,} bytes: it is damaged or forged, so nothing was loaded."
                    )
                budget.spend(len(piece), info.filename)
                pieces.append(piece)
    except CorpusError:
        raise
    except (zipfile.BadZipFile, EOFError, OSError, ValueError, NotImplementedError, RuntimeError) as err:
        raise CorpusError(
            f"The file {info.filename!r} in the ZIP cannot be unpacked ({err}): the ZIP is damaged "
            "or encrypted. Zip the folders again, without a password; nothing was loaded."
        ) from err
    return b"".join(pieces)


# --- tar: read as a stream, each entry checked before its content is read ----------------------------------------

_BLOCK = tarfile.BLOCKSIZE  # a tar is 512-byte blocks: each header is one, each content is padded to whole ones
_TYPE_FLAG = 156  # where a header gives its type
# Headers that tarfile reads as records for the header after them: pax records (x, Solaris' X, and g for all the
# headers after them) and GNU long names and link names (L, K).
_EXTENSION_HEADERS = {
    tarfile.XHDTYPE: "a pax extended header",
    tarfile.SOLARIS_XHDTYPE: "a pax extended header",
    tarfile.XGLTYPE: "a pax global header",
    tarfile.GNUTYPE_LONGNAME: "a GNU long name header",
    tarfile.GNUTYPE_LONGLINK: "a GNU long link header",
}
_PAX_HEADERS = (tarfile.XHDTYPE, tarfile.SOLARIS_XHDTYPE, tarfile.XGLTYPE)
_WATCHED_TYPE = re.compile(rb"[xXgLKS]")  # an extension header, or an old GNU sparse file (S)
# A real extension header holds a path, a link path, times and ids in a few hundred bytes (a path takes at most
# 4,096, Linux's PATH_MAX). Before Python 3.11.10 and 3.12.6, tarfile parses a pax header in time growing with the
# square of its size (CVE-2024-6232: 990,000 digits take 40 minutes); 8 KB take a tenth of a second.
_MAX_EXTENSION_BYTES = 8 * 1024
# The square is that of each run of digits (tarfile tries to match a record from every digit on), so thousands of
# headers under 8 KB still add up. Real runs are short (times, ids): their squares add up to about 600 per entry,
# 12 million for 20,000 entries; 10**8 in all take a fifth of a second.
_MAX_PAX_DIGIT_WORK = 10**8
# tarfile reads the header after an extension header by calling itself: a real archive puts up to four in a row
# (global, extended, long link, long name), and a thousand overflow Python's stack.
_MAX_EXTENSIONS_IN_A_ROW = 8
_PAX_LENGTH = re.compile(rb"(\d{1,8}) ")
# A translate table that keeps digits and makes every other byte a space: a header's runs of digits, split.
_DIGITS_ONLY = bytes(byte if ord("0") <= byte <= ord("9") else ord(" ") for byte in range(256))


def _padded(size: int) -> int:
    return -(-size // _BLOCK) * _BLOCK


def _pax_records(records: bytes) -> dict[bytes, bytes] | None:
    """A pax header's records by keyword, when they are as POSIX writes them: "<length> <keyword>=<value>\\n", the
    length counting the whole record (zero bytes after the last are padding). None when they are not: tarfile would
    read such records in time growing with the square of their size, and misread them."""
    parsed, start, records = {}, 0, records.rstrip(b"\x00")
    while start < len(records):
        length = _PAX_LENGTH.match(records, start)
        end = start + int(length[1]) if length else start
        keyword, equals, value = records[length.end() if length else start:end].partition(b"=")
        if end > len(records) or not (keyword and equals and value.endswith(b"\n")):
            return None
        parsed[keyword] = value[:-1]
        start = end
    return parsed


class _HeaderGuard:
    """Refuses, before tarfile parses it, an extension header too costly to parse (see the limits above), and a
    sparse file, whose map tarfile reads as blindly. Every 512-byte block of the stream that parses as such a header
    is checked, wherever it is: following the chain of headers as tarfile does would mean repeating its rules (a
    pax "size" record moves the next header), and any slip would let a header through unchecked."""

    def __init__(self):
        self.unchecked = b""  # the stream from the first block not checked yet: part of a block, or a pax header
        self.position = 0  # where ``unchecked`` starts in the stream, a multiple of 512
        self.chain_end = 0  # where the header after the last extension header starts
        self.in_a_row = 0  # extension headers so far, each where the one before it ended
        self.digit_work = 0

    def check(self, piece: bytes) -> None:
        """Checks the blocks that ``piece`` completes, before tarfile reads them."""
        window = self.unchecked + piece
        whole = len(window) - len(window) % _BLOCK
        resume = whole
        for flag in _WATCHED_TYPE.finditer(window[_TYPE_FLAG:whole:_BLOCK]):
            start = flag.start() * _BLOCK
            if not self._checked(window, start):
                resume = start  # the pax records have not all come yet
                break
        self.unchecked, self.position = window[resume:], self.position + resume

    def _checked(self, window: bytes, start: int) -> bool:
        """Checks the block at ``start``; False when it is a pax header whose records have not all come yet."""
        try:
            header = tarfile.TarInfo.frombuf(window[start:start + _BLOCK], "utf-8", "surrogateescape")
        except tarfile.HeaderError:
            return True  # no header: should tarfile come to it, it says so as it always has
        if header.type == tarfile.GNUTYPE_SPARSE:
            raise _not_ordinary(header.name)
        if header.type not in _EXTENSION_HEADERS:
            return True
        what, size = _EXTENSION_HEADERS[header.type], max(header.size, 0)
        if size > _MAX_EXTENSION_BYTES:
            raise CorpusError(
                f"The tar archive holds {what} of {size:,} bytes, over the limit of {_MAX_EXTENSION_BYTES:,} bytes: "
                "a real one holds a path, times and ids in a few hundred bytes, so the archive looks forged; "
                "nothing was loaded."
            )
        if header.type in _PAX_HEADERS:
            records = window[start + _BLOCK:start + _BLOCK + size]
            if len(records) < size:
                return False
            self._check_pax(records, what, header.name)
        self._count_in_a_row(self.position + start, size)
        return True

    def _check_pax(self, records: bytes, what: str, header_name: str) -> None:
        parsed = _pax_records(records)
        if parsed is None:
            raise CorpusError(
                f"The tar archive holds {what} whose records are not well formed (a length, a space, "
                "keyword=value and a newline, the length counting the whole record): it is damaged or forged; "
                "nothing was loaded."
            )
        if any(keyword.startswith(b"GNU.sparse.") for keyword in parsed):
            name = parsed.get(b"GNU.sparse.name") or parsed.get(b"path")
            raise _not_ordinary(name.decode("utf-8", "backslashreplace") if name else header_name)
        self.digit_work += sum(len(run) ** 2 for run in records.translate(_DIGITS_ONLY).split())
        if self.digit_work > _MAX_PAX_DIGIT_WORK:
            raise CorpusError(
                "The tar archive's pax headers hold long runs of digits, as real ones never do: it looks forged; "
                "nothing was loaded."
            )

    def _count_in_a_row(self, position: int, size: int) -> None:
        self.in_a_row = self.in_a_row + 1 if position == self.chain_end else 1
        self.chain_end = position + _BLOCK + _padded(size)
        if self.in_a_row > _MAX_EXTENSIONS_IN_A_ROW:
            raise CorpusError(
                f"The tar archive holds more than {_MAX_EXTENSIONS_IN_A_ROW} extension headers (pax, GNU long name "
                "or link) in a row, where a real one holds up to four before an entry: it looks forged; "
                "nothing was loaded."
            )


class _BoundedStream(io.RawIOBase):
    """The tar's bytes for ``tarfile`` to read as a stream: ``data`` itself, or, when it is gzip, its content
    inflated a chunk at a time, refused as soon as more comes out than ``limit`` or ``max_ratio`` times the input,
    or as soon as a header passes that tarfile must not parse (see _HeaderGuard)."""

    def __init__(self, data: bytes, limit: int, max_ratio: float):
        self.gzipped = data[:2] == GZIP_MAGIC
        self.pending, self.out = data, 0
        # A small archive may unpack to a little more than the ratio: a tar pads its end with up to 10 KB of zeros.
        self.limit = limit if not self.gzipped else min(limit, max(int(max_ratio * len(data)), _RATIO_FLOOR))
        self.ratio_bound = self.gzipped and self.limit < limit
        self.max_ratio, self.size = max_ratio, len(data)
        self.inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS) if self.gzipped else None
        self.buffer = b""
        self.guard = _HeaderGuard()

    def readable(self):
        return True

    def readinto(self, target) -> int:
        if not self.buffer:
            self.buffer = self._next_piece(min(len(target), INFLATE_CHUNK))
        n = min(len(target), len(self.buffer))
        target[:n] = self.buffer[:n]
        self.buffer = self.buffer[n:]
        return n

    def _next_piece(self, size: int) -> bytes:
        if self.gzipped:
            piece = self._inflate(size)
        else:
            piece, self.pending = self.pending[:size], self.pending[size:]
        self.out += len(piece)
        if self.out > self.limit:
            if self.ratio_bound:
                raise CorpusError(
                    f"The tar archive unpacks to more than {self.max_ratio:g} times its {_size(self.size)}: it "
                    "looks like a tar bomb, so nothing was loaded."
                )
            raise CorpusError(
                f"The tar archive unpacks to more than {_size(self.limit)}; nothing was loaded. "
                "Upload fewer or shorter documents."
            )
        self.guard.check(piece)
        return piece

    def _inflate(self, size: int) -> bytes:
        """Up to ``size`` more bytes of the content; b"" only at the end of the last gzip member."""
        piece = b""
        while not piece:
            if self.inflater.eof:  # another gzip member, or the zero bytes some tools pad the end with
                rest = self.inflater.unused_data.lstrip(b"\x00")
                if not rest:
                    return b""
                self.inflater, self.pending = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS), rest
            elif not self.pending:
                raise CorpusError(
                    "The gzip file is incomplete (cut off while copying or downloading?). "
                    "Compress it again; nothing was loaded."
                )
            piece = self.inflater.decompress(self.pending, size)
            self.pending = self.inflater.unconsumed_tail
        return piece


def _read_tar(data: bytes, filename: str, limits: ArchiveLimits) -> Upload:
    stream = _BoundedStream(
        data, limits.max_total_bytes + limits.max_entries * _TAR_BYTES_PER_ENTRY, limits.max_ratio
    )
    contents = {}
    try:
        with tarfile.open(fileobj=io.BufferedReader(stream, INFLATE_CHUNK), mode="r|") as archive:
            _read_tar_members(archive, contents, limits)
    except CorpusError:
        raise
    except (tarfile.TarError, EOFError, OSError, ValueError, zlib.error) as err:
        what = "This gzip file holds no readable tar archive" if stream.gzipped else "This is no readable tar archive"
        raise CorpusError(
            f"{what} ({err}). Pack the class folders again (tar czf corpus.tar.gz folder); nothing was loaded."
        ) from err
    layout = _layout(list(contents), "tar archive")
    return _corpora(layout, contents.__getitem__, filename)


def _read_tar_members(archive: tarfile.TarFile, contents: dict, limits: ArchiveLimits) -> None:
    """Each document's bytes into ``contents`` by path, as the stream goes by; any entry past a limit stops it."""
    entries = total = 0
    for member in archive:
        entries += 1
        if entries > limits.max_entries:
            raise _too_many_entries(entries, limits.max_entries, "tar archive")
        name = member.name
        while name.startswith("./"):  # "tar czf corpus.tgz ." names every entry ./…
            name = name[2:]
        if name in ("", "."):
            continue
        _check_path(name, "tar archive")
        _check_tar_type(member, name)
        if member.isdir() or _skipped(name.split("/")):
            continue
        _check_utf8_name(name)
        if member.size > limits.max_file_bytes:
            raise _too_large_file(name, member.size, limits.max_file_bytes)
        total += member.size
        if total > limits.max_total_bytes:
            raise _too_large_in_all(total, limits.max_total_bytes, "tar archive")
        if name in contents:
            raise CorpusError(f"The tar archive holds {name!r} twice; nothing was loaded. Pack the folders again.")
        contents[name] = archive.extractfile(member).read()


def _check_tar_type(member: tarfile.TarInfo, name: str) -> None:
    if member.issym() or member.islnk():
        kind = "symbolic link" if member.issym() else "hard link"
        raise CorpusError(
            f"The tar archive entry {name!r} is a {kind}; nothing was loaded. "
            "Pack the files themselves, not links to them."
        )
    if not (member.isdir() or member.isreg()) or member.issparse():
        raise _not_ordinary(name)


def _not_ordinary(name: str) -> CorpusError:
    return CorpusError(
        f"The tar archive entry {name!r} is not an ordinary file or folder (a device, a pipe or a sparse "
        "file); nothing was loaded. Pack only the folders of text files."
    )


def _check_utf8_name(name: str) -> None:
    """tarfile keeps each byte of a name that is not UTF-8 as a lone surrogate, which fails wherever the name is
    written out later (a page, the database): such a name is refused, shown with those bytes as \\x escapes."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError as err:
        shown = name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        byte = ord(name[err.start]) - 0xDC00  # surrogateescape keeps byte b as the character U+DC00 + b
        raise CorpusError(
            f"The tar archive entry '{shown}' has a name that is not UTF-8 (byte 0x{byte:02x}); nothing was "
            "loaded. Rename the file with a UTF-8 name, or pack the folders again with a tool that writes UTF-8 names."
        ) from None
