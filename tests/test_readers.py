"""Corpus readers: JSON Lines, CSV and TSV, plain or gzipped, with errors a student can act on."""
from __future__ import annotations

import ast
import codecs
import gzip
import json
import sys
import zlib
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest

from webnb.engine.io import readers
from webnb.engine.io.readers import read_corpus, read_corpus_bytes
from webnb.engine.shared.corpus import CorpusError

# The same three documents in each format.
JSONL = (
    '{"label": "spam", "text": "Win a FREE prize"}\n'
    '{"label": "ham", "text": "See you at 5?"}\n'
    '{"label": "spam", "text": "Cheap, cheap pills"}\n'
)
CSV = 'label,text\nspam,Win a FREE prize\nham,See you at 5?\nspam,"Cheap, cheap pills"\n'
TSV = "label\ttext\nspam\tWin a FREE prize\nham\tSee you at 5?\nspam\tCheap, cheap pills\n"
CONTENT = {"jsonl": JSONL, "csv": CSV, "tsv": TSV}

LABELS = ("spam", "ham", "spam")
TEXTS = ("Win a FREE prize", "See you at 5?", "Cheap, cheap pills")
# JSONL ids are line numbers; CSV/TSV ids are the line where the record starts (line 1 is the header).
IDS = {"jsonl": ("1", "2", "3"), "csv": ("2", "3", "4"), "tsv": ("2", "3", "4")}


def write(tmp_path: Path, filename: str, content) -> Path:
    path = tmp_path / filename
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return path


class _CountingInflater:
    def __init__(self, inflater, inflated: list):
        self._inflater, self._inflated = inflater, inflated

    def decompress(self, data, max_length=0):
        piece = self._inflater.decompress(data, max_length)
        self._inflated.append(len(piece))
        return piece

    def __getattr__(self, name):  # eof, unconsumed_tail, unused_data
        return getattr(self._inflater, name)


def count_inflated(monkeypatch) -> list[int]:
    """The size of every piece that readers.py's gzip decompressors hand out, in order."""
    inflated = []

    def decompressobj(*args, **kwargs):
        return _CountingInflater(zlib.decompressobj(*args, **kwargs), inflated)

    monkeypatch.setattr(readers, "zlib", SimpleNamespace(decompressobj=decompressobj, error=zlib.error,
                                                         MAX_WBITS=zlib.MAX_WBITS))
    return inflated


def read_text(content: str, **options):
    return read_corpus_bytes(content.encode("utf-8"), **options)


# --- the formats ----------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "tsv"])
@pytest.mark.parametrize("gzipped", [False, True], ids=["plain", "gzip"])
def test_reads_each_format_plain_and_gzipped(tmp_path, fmt, gzipped):
    data = CONTENT[fmt].encode("utf-8")
    filename = f"mail.{fmt}"
    if gzipped:
        data, filename = gzip.compress(data, mtime=0), filename + ".gz"
    corpus = read_corpus(write(tmp_path, filename, data))
    assert corpus.labels == LABELS
    assert corpus.texts == TEXTS
    assert corpus.ids == IDS[fmt]
    assert corpus.name == filename
    assert corpus.class_counts() == {"ham": 1, "spam": 2}


@pytest.mark.parametrize("filename", ["mail.csv", "upload.bin", ""])
def test_gzip_is_recognised_by_its_magic_bytes_whatever_the_name(filename):
    corpus = read_corpus_bytes(gzip.compress(CSV.encode(), mtime=0), filename=filename, format="csv")
    assert corpus.texts == TEXTS


def test_gzip_with_several_members_is_read_whole():
    half = len(JSONL.splitlines(keepends=True)[0])
    data = gzip.compress(JSONL[:half].encode(), mtime=0) + gzip.compress(JSONL[half:].encode(), mtime=0)
    assert read_corpus_bytes(data, filename="x.jsonl.gz").texts == TEXTS


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "tsv"])
def test_byte_order_mark_is_stripped(fmt):
    corpus = read_corpus_bytes(codecs.BOM_UTF8 + CONTENT[fmt].encode(), format=fmt)
    assert corpus.labels == LABELS
    assert corpus.texts == TEXTS


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "tsv"])
def test_crlf_line_ends_leave_no_carriage_return(fmt):
    corpus = read_text(CONTENT[fmt].replace("\n", "\r\n"), format=fmt)
    assert corpus.labels == LABELS
    assert corpus.texts == TEXTS
    assert corpus.ids == IDS[fmt]


def test_json_strings_are_kept_exactly_as_decoded():
    content = '{"label": "ham", "text": "  Two\\r\\nLines \\u2028 ÉTÉ\\t"}\r\n'
    assert read_text(content).texts == ("  Two\r\nLines \u2028 ÉTÉ\t",)


def test_quoted_csv_field_may_span_lines_and_hold_quotes():
    content = 'label,text\nspam,"Line one,\nline two ""quoted"""\nham,short\n'
    corpus = read_text(content, format="csv")
    assert corpus.texts == ('Line one,\nline two "quoted"', "short")
    assert corpus.labels == ("spam", "ham")
    assert corpus.ids == ("2", "4")  # the record after the two-line field starts on line 4


def test_text_with_a_very_long_field_is_read():
    long_text = "word " * 60_000  # longer than the csv module's default field limit
    corpus = read_text(f'label,text\nham,"{long_text}"\n', format="csv")
    assert corpus.texts == (long_text,)


@pytest.mark.parametrize(
    "fmt, content",
    [
        ("jsonl", '{"category": "spam", "body": "Win", "label": "x"}\n'),
        ("csv", "body,category\nWin,spam\n"),
        ("tsv", "body\tcategory\nWin\tspam\n"),
    ],
)
def test_label_and_text_columns_can_be_chosen(fmt, content):
    corpus = read_text(content, format=fmt, label_column="category", text_column="body")
    assert (corpus.labels, corpus.texts) == (("spam",), ("Win",))


def test_labels_are_stripped_numbers_converted_and_texts_kept_as_is():
    content = (
        '{"label": "  Spam ", "text": "  MiXeD Case  "}\n'
        '{"label": 1, "text": ""}\n'
        '{"label": 2.5, "text": "x", "extra": [1, 2]}\n'
    )
    corpus = read_text(content)
    assert corpus.labels == ("Spam", "1", "2.5")
    assert corpus.texts == ("  MiXeD Case  ", "", "x")


def test_csv_labels_are_stripped_and_header_names_may_be_padded():
    corpus = read_text(" label , text \n  spam  , Hello there \n", format="csv")
    assert corpus.labels == ("spam",)
    assert corpus.texts == (" Hello there ",)


# --- ids ------------------------------------------------------------------------------------


def test_jsonl_ids_come_from_a_string_id_field_or_the_line_number():
    content = (
        '{"label": "a", "text": "x", "id": "msg-17"}\n'
        "\n"  # blank lines are skipped but still counted
        '{"label": "b", "text": "y"}\n'
        '{"label": "a", "text": "z", "id": 99}\n'
        '{"label": "b", "text": "w", "id": ""}\n'
    )
    corpus = read_text(content)
    assert corpus.ids == ("msg-17", "3", "4", "5")
    assert corpus.labels == ("a", "b", "a", "b")


@pytest.mark.parametrize("separator", [",", "\t"])
def test_delimited_ids_come_from_an_id_column_or_the_starting_line(separator):
    content = separator.join(["id", "label", "text"]) + "\n"
    content += separator.join(["a7", "spam", "x"]) + "\n"
    content += "\n"  # blank rows are skipped
    content += separator.join(["", "ham", "y"]) + "\n"
    corpus = read_text(content, format="csv" if separator == "," else "tsv")
    assert corpus.ids == ("a7", "4")
    assert corpus.labels == ("spam", "ham")


def test_empty_spreadsheet_rows_are_skipped():
    corpus = read_text("label,text\nspam,x\n,\n,,\nham,y\n", format="csv")
    assert corpus.labels == ("spam", "ham")
    assert corpus.ids == ("2", "5")


# --- format detection -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "filename, fmt",
    [
        ("a.jsonl", "jsonl"),
        ("a.ndjson", "jsonl"),
        ("a.json", "jsonl"),
        ("A.JSONL.GZ", "jsonl"),
        ("a.csv", "csv"),
        ("a.csv.gz", "csv"),
        ("a.tsv", "tsv"),
        ("a.tab", "tsv"),
        ("a.tsv.gz", "tsv"),
    ],
)
def test_format_comes_from_the_file_name(filename, fmt):
    corpus = read_text(CONTENT[fmt], filename=filename)
    assert corpus.texts == TEXTS
    assert corpus.name == filename


def test_file_name_wins_over_content():
    # A TSV named .csv is read as CSV: the header is then a single column.
    with pytest.raises(CorpusError, match=r"line 1: no 'label' column.*only one column.*comma"):
        read_text(TSV, filename="mail.csv")


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "tsv"])
@pytest.mark.parametrize("filename", ["", "upload.txt", "data"])
def test_format_is_sniffed_from_content_without_a_telling_name(fmt, filename):
    content = "\n  \n" + CONTENT[fmt]  # leading blank lines do not hide the first character
    corpus = read_text(content, filename=filename)
    assert corpus.labels == LABELS
    assert corpus.texts == TEXTS


def test_sniffing_works_on_gzipped_bytes_without_a_name():
    assert read_corpus_bytes(gzip.compress(TSV.encode(), mtime=0)).texts == TEXTS


def test_explicit_format_wins_over_name_and_is_case_insensitive():
    assert read_text(CSV, filename="mail.jsonl", format="CSV").texts == TEXTS


@pytest.mark.parametrize("fmt", ["xlsx", "json lines", ""])
def test_unknown_format_lists_the_accepted_ones(fmt):
    with pytest.raises(CorpusError, match=r"Unknown format.*jsonl, csv, tsv"):
        read_text(JSONL, format=fmt)


# --- errors: JSON Lines ---------------------------------------------------------------------

GOOD = '{"label": "spam", "text": "ok"}\n'


@pytest.mark.parametrize(
    "bad_line, message",
    [
        ('{"text": "no label"}', r"line 3: no 'label' field\. Every line needs a label and a text, like "
         r'\{"label": "spam", "text": "\.\.\."\}'),
        ('{"label": "spam"}', r"line 3: no 'text' field\. Every line needs a label and a text"),
        ('{"label": null, "text": "x"}', r"line 3: the 'label' field is null"),
        ('{"label": "   ", "text": "x"}', r"line 3: the 'label' field is blank"),
        ('{"label": "", "text": "x"}', r"line 3: the 'label' field is blank"),
        ('{"label": true, "text": "x"}', r"line 3: the 'label' field must be a string or a number, not true/false"),
        ('{"label": ["a"], "text": "x"}', r"line 3: the 'label' field must be a string or a number, not a list"),
        ('{"label": {"a": 1}, "text": "x"}', r"line 3: the 'label' field must be a string or a number, not an object"),
        ('{"label": "spam", "text": null}', r"line 3: the 'text' field must be a string in double quotes, not null"),
        ('{"label": "spam", "text": 42}', r"line 3: the 'text' field must be a string in double quotes, not a number"),
        ('{"label": "spam", "text": ["x"]}', r"line 3: the 'text' field must be a string.*not a list"),
        ('{"label": "spam", "text": "unterminated}',
         r"line 3: not valid JSON \(.*column \d+\)\. Each line must be one JSON object"),
        ("{'label': 'spam', 'text': 'x'}", r"line 3: not valid JSON \(Expecting property name enclosed"),
        ('label: spam, text: x', r"line 3: not valid JSON"),
        ('{"label": "spam", "text": "x"} trailing', r"line 3: not valid JSON \(Extra data"),
        ('[{"label": "spam", "text": "x"}]', r"line 3: expected a JSON object.*found a list.*one object per line"),
        ('"just a string"', r"line 3: expected a JSON object.*found a string"),
        ("42", r"line 3: expected a JSON object.*found a number"),
        ("null", r"line 3: expected a JSON object.*found null"),
    ],
)
def test_bad_jsonl_line_is_refused_naming_the_line(bad_line, message):
    content = GOOD + "\n" + bad_line + "\n" + GOOD  # line 2 is blank: skipped but counted
    with pytest.raises(CorpusError, match=message):
        read_text(content, filename="mail.jsonl")


def test_jsonl_error_names_the_chosen_fields():
    content = '{"category": "spam", "text": "x"}\n'
    with pytest.raises(CorpusError, match=r"line 1: no 'body' field.*\{\"category\": \"spam\", \"body\": \"\.\.\.\"\}"):
        read_text(content, label_column="category", text_column="body")


def test_error_on_the_last_line_loads_nothing():
    content = GOOD * 1000 + '{"label": "spam"}\n'
    with pytest.raises(CorpusError, match=r"line 1001: no 'text' field"):
        read_text(content)


# --- errors: CSV and TSV --------------------------------------------------------------------


# Uploads the reader refuses, by format: (the upload, a pattern of the refusal, which names the line).
CSV_REFUSALS = [
    ("category,text\nspam,x\n", r"line 1: no 'label' column\. The columns are 'category', 'text'"),
    ("label,body\nspam,x\n", r"line 1: no 'text' column\. The columns are 'label', 'body'"),
    ("label;text\nspam;x\n",
     r"line 1: no 'label' column\. The columns are 'label;text'.*only one column.*comma"),
    ("label,text\nspam,x\nham\n", r"line 3: only 1 of the 2 fields \('label', 'text'\)"),
    ("id,label,text\n1,spam,x\n2,ham\n", r"line 3: only 2 of the 3 fields"),
    ("label,text\nspam,x\nham,Hello, world\n",
     r"line 3: 3 fields, but the first row names only 2.*comma must be in double quotes"),
    ("label,text\nspam,x\n  ,y\n", r"line 3: the 'label' column is empty"),
    ('label,text\nspam,x\nham,"never closed\nspam,y\n', r"line 3: not valid CSV.*must end with one"),
    ('label,text\nham,"quoted" then more\n', r"line 2: not valid CSV"),
]
TSV_REFUSALS = [
    ("category\ttext\nspam\tx\n", r"line 1: no 'label' column\. The columns are 'category', 'text'"),
    ("label,text\nspam,x\n", r"line 1: no 'label' column.*only one column.*separated by a tab"),
    ("label\ttext\nspam\tx\nham\n", r"line 3: only 1 of the 2 fields"),
    ("label\ttext\nham\tHello\tworld\n", r"line 2: 3 fields.*contains a tab must be in double quotes"),
    ('label\ttext\nspam\tx\nham\t"never closed\n', r"line 3: not valid TSV"),
]


@pytest.mark.parametrize("fmt, content, message", [("csv", *refusal) for refusal in CSV_REFUSALS]
                         + [("tsv", *refusal) for refusal in TSV_REFUSALS])
def test_bad_csv_or_tsv_is_refused_naming_the_line(fmt, content, message):
    with pytest.raises(CorpusError, match=message):
        read_text(content, format=fmt)


def test_csv_error_line_counts_physical_lines_of_multi_line_fields():
    content = 'label,text\nspam,"one\ntwo\nthree"\nham\n'
    with pytest.raises(CorpusError, match=r"line 5: only 1 of the 2 fields"):
        read_text(content, format="csv")


def test_missing_chosen_column_is_named():
    with pytest.raises(CorpusError, match=r"line 1: no 'category' column\. The columns are 'label', 'text'"):
        read_text(CSV, format="csv", label_column="category")


# --- errors: empty, encoding, size ----------------------------------------------------------


@pytest.mark.parametrize(
    "fmt, content",
    [
        ("jsonl", ""),
        ("jsonl", "\n   \n\r\n"),
        ("csv", ""),
        ("csv", "label,text\n"),
        ("csv", "label,text\n\n,\n"),
        ("tsv", "label\ttext\r\n"),
        (None, ""),
        (None, codecs.BOM_UTF8.decode("utf-8")),
    ],
)
def test_a_corpus_without_documents_is_refused(fmt, content):
    with pytest.raises(CorpusError, match=r"no documents"):
        read_text(content, format=fmt)


@pytest.mark.parametrize("gzipped", [False, True], ids=["plain", "gzip"])
def test_invalid_utf8_names_the_line(gzipped):
    data = GOOD.encode() + GOOD.encode() + '{"label": "ham", "text": "caf'.encode() + b'\xe9"}\n'
    if gzipped:
        data = gzip.compress(data, mtime=0)
    with pytest.raises(CorpusError, match=r"line 3: byte 0xe9 is not UTF-8.*must be saved as UTF-8"):
        read_corpus_bytes(data, filename="mail.jsonl")


def test_invalid_utf8_in_csv_names_the_line():
    data = "label,text\nspam,x\n".encode("utf-8") + "ham,Ça va\n".encode("cp1252")
    with pytest.raises(CorpusError, match=r"line 3: byte 0xc7 is not UTF-8"):
        read_corpus_bytes(data, format="csv")


def test_a_spreadsheet_file_is_refused_with_a_hint():
    with pytest.raises(CorpusError, match=r"^This file is a ZIP archive \(a spreadsheet such as \.xlsx.*as CSV"):
        read_corpus_bytes(b"PK\x03\x04\x14\x00\x06\x00\x08\x00\xff\xfe", filename="mail.xlsx")


def test_gzip_bomb_is_stopped_at_max_bytes(tmp_path, monkeypatch):
    bomb = gzip.compress(b" " * 50_000_000, compresslevel=9, mtime=0)
    assert len(bomb) < 100_000
    path = write(tmp_path, "bomb.jsonl.gz", bomb)
    inflated = count_inflated(monkeypatch)
    with pytest.raises(CorpusError, match=r"larger than the limit of 1 MB once decompressed; nothing was loaded"):
        read_corpus(path, max_bytes=1_000_000)
    # One chunk of 1 MiB is already over the limit: nothing more of the 50 MB is unpacked.
    assert inflated == [readers.INFLATE_CHUNK] and readers.INFLATE_CHUNK > 1_000_000


def test_gzip_within_max_bytes_is_read():
    data = gzip.compress(JSONL.encode(), mtime=0)
    assert read_corpus_bytes(data, max_bytes=len(JSONL.encode())).texts == TEXTS
    with pytest.raises(CorpusError, match=r"once decompressed"):
        read_corpus_bytes(data, max_bytes=len(JSONL.encode()) - 1)


def test_plain_file_larger_than_max_bytes_is_refused():
    data = JSONL.encode()
    assert len(read_corpus_bytes(data, max_bytes=len(data))) == 3
    with pytest.raises(CorpusError, match=r"larger than the limit of 2\.5 MB; nothing was loaded"):
        read_corpus_bytes(b" " * 2_500_001, max_bytes=2_500_000)


@pytest.mark.parametrize(
    "data, message",
    [
        (gzip.compress(JSONL.encode(), mtime=0)[:-12], r"gzip file is incomplete"),
        (b"\x1f\x8b", r"gzip file is incomplete"),
        (b"\x1f\x8b\x08\x00" + b"garbage" * 10, r"starts like a gzip file but cannot be decompressed"),
    ],
    ids=["truncated", "header-only", "corrupt"],
)
def test_broken_gzip_is_refused(data, message):
    with pytest.raises(CorpusError, match=message):
        read_corpus_bytes(data, filename="mail.jsonl.gz")


# --- read_corpus and the module -------------------------------------------------------------


def test_read_corpus_accepts_str_paths_and_names_the_corpus(tmp_path):
    path = write(tmp_path, "mail.csv", CSV)
    assert read_corpus(str(path)).name == "mail.csv"
    assert read_corpus(path, name="My mail").name == "My mail"
    assert read_corpus_bytes(CSV.encode(), filename="up.csv").name == "up.csv"


def test_read_corpus_passes_the_options_on(tmp_path):
    path = write(tmp_path, "mail.txt", "body\tcategory\nWin\tspam\n")
    corpus = read_corpus(path, format="tsv", label_column="category", text_column="body")
    assert (corpus.labels, corpus.texts) == (("spam",), ("Win",))
    with pytest.raises(CorpusError, match="larger than the limit"):
        read_corpus(path, max_bytes=5)


def test_missing_file_is_a_corpus_error(tmp_path):
    with pytest.raises(CorpusError, match=r"Cannot read .*nope\.jsonl"):
        read_corpus(tmp_path / "nope.jsonl")


def test_readers_imports_only_stdlib_numpy_and_webnb():
    tree = ast.parse(Path(readers.__file__).read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            imported.add(node.module.split(".")[0])
    allowed = set(sys.stdlib_module_names) | {"numpy", "webnb"}
    assert imported <= allowed, imported - allowed
    assert "flask" not in imported


# --- the shared corpora ---------------------------------------------------------------------


@pytest.mark.corpora
def test_20_newsgroups_train_is_read_in_one_pass(shared_corpora, monkeypatch):
    """Unpacked once, a chunk at a time, and each line parsed once (scripts/benchmark.py times it)."""
    path = shared_corpora / "20newsgroups-bydate" / "train.jsonl.gz"
    inflated = count_inflated(monkeypatch)
    parsed = []

    def loads(line):
        parsed.append(len(line))
        return json.loads(line)

    monkeypatch.setattr(readers, "json", SimpleNamespace(loads=loads, dumps=json.dumps,
                                                         JSONDecodeError=json.JSONDecodeError))
    corpus = read_corpus(path)
    unpacked = gzip.decompress(path.read_bytes())
    assert sum(inflated) == len(unpacked) and max(inflated) <= readers.INFLATE_CHUNK
    assert len(parsed) == 11314 and sum(parsed) + unpacked.count(b"\n") == len(unpacked.decode("utf-8"))
    assert len(corpus) == 11314
    assert len(corpus.classes) == 20
    assert corpus.class_counts()["alt.atheism"] == 480
    assert corpus.class_counts()["talk.religion.misc"] == 377
    assert corpus.texts[0].startswith("From: mathew <mathew@mantis.co.uk>\nSubject: Alt.Atheism FAQ")
    assert corpus.name == "train.jsonl.gz"


@pytest.mark.corpora
def test_sms_spam_collection(shared_corpora):
    corpus = read_corpus(shared_corpora / "sms-spam-collection-v1" / "all.jsonl")
    assert len(corpus) == 5574
    assert Counter(corpus.labels) == {"ham": 4827, "spam": 747}
    assert corpus.ids[:3] == ("1", "2", "3")
    assert corpus.texts[1] == "Ok lar... Joking wif u oni..."


@pytest.mark.corpora
def test_movie_review_polarity(shared_corpora):
    corpus = read_corpus(shared_corpora / "movie-review-polarity-v2.0" / "all.jsonl")
    assert len(corpus) == 2000
    assert corpus.class_counts() == {"neg": 1000, "pos": 1000}
    assert corpus.ids[0] == "cv000_29416.txt"
