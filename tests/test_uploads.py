"""Uploads: pasted lines, table files whose layout is guessed then confirmed, and ZIPs of class folders (the
other archives and layouts are in tests/test_archives.py)."""
from __future__ import annotations

import codecs
import csv
import gzip
import io
import json
import re
import stat
import struct
import tracemalloc
import zipfile

import pytest
from conftest import RepeatedBytes

from webnb.engine.io import archives, uploads
from webnb.engine.io.archives import ArchiveLimits, read_archive
from webnb.engine.io.uploads import TableShape, inspect_table, parse_pasted, read_table
from webnb.engine.shared.corpus import CorpusError


def read_zip(data: bytes, filename: str = "", **limits):
    """The one corpus of a ZIP of class folders (tests/test_archives.py reads the other layouts and tars)."""
    upload = read_archive(data, filename=filename, limits=ArchiveLimits(**limits))
    assert upload.test_corpus is None and upload.layout == "class folders"
    return upload.corpus

# --- parse_pasted ---------------------------------------------------------------------------


def test_pasted_lines_with_tabs_and_commas():
    corpus = parse_pasted(
        "positive\tgreat match, really\n"
        "\n"
        "  negative ,  dull game  \n"
        "   \n"
        "neutral\tit was, well, a match\n"
    )
    assert corpus.labels == ("positive", "negative", "neutral")
    assert corpus.texts == ("great match, really", "dull game", "it was, well, a match")
    assert corpus.ids == ("1", "3", "5")  # line numbers, blank lines counted
    assert corpus.name == "Pasted corpus"


def test_pasted_first_tab_wins_over_an_earlier_comma():
    corpus = parse_pasted("a,b\tc\td\n", name="Live")
    assert corpus.labels == ("a,b",)
    assert corpus.texts == ("c\td",)
    assert corpus.name == "Live"


def test_pasted_first_comma_when_there_is_no_tab():
    assert parse_pasted("spam,win, win, win").texts == ("win, win, win",)


def test_pasted_lines_end_only_at_line_ends():
    corpus = parse_pasted("a,one\u2028still one\x0cand one\rb,two\r\nc,three")
    assert corpus.texts == ("one\u2028still one\x0cand one", "two", "three")
    assert corpus.ids == ("1", "2", "3")


@pytest.mark.parametrize("header", ["label,text", "Label\tText", "LABEL , TEXT"])
def test_pasted_header_is_skipped(header):
    corpus = parse_pasted(f"\n{header}\nspam,cheap pills\r\nham,lunch?\r\n")
    assert corpus.labels == ("spam", "ham")
    assert corpus.texts == ("cheap pills", "lunch?")
    assert corpus.ids == ("3", "4")


def test_pasted_header_only_on_the_first_line():
    corpus = parse_pasted("spam,cheap pills\nlabel,text\n")
    assert corpus.labels == ("spam", "label")
    assert corpus.texts == ("cheap pills", "text")


@pytest.mark.parametrize(
    "text, message",
    [
        ("spam,cheap\njust some words\n",
         r"^line 2: no TAB or comma between a label and a text\. .*positive<TAB>great match"),
        (",great match\n", r"^line 1: the label before the comma is empty\..*positive,great match"),
        ("\n \tgreat match\n", r"^line 2: the label before the TAB is empty"),
        ("ok,fine\npositive,   \n",
         r"^line 2: there is no text after the label 'positive'\..*positive<TAB>great match"),
        ("positive\t\n", r"^line 1: there is no text after the label 'positive'"),
        ("", r"^There are no documents\. Type one per line, like positive<TAB>great match"),
        ("  \n\n\t\n", r"^There are no documents"),
        ("label,text\n", r"^There are no documents"),
    ],
)
def test_pasted_errors_name_the_line_and_the_form(text, message):
    with pytest.raises(CorpusError, match=message):
        parse_pasted(text)


# --- inspect_table --------------------------------------------------------------------------

SPAM_CSV = b'label,text\nspam,Win a FREE prize\nham,See you at 5?\nspam,"Cheap, cheap pills"\n'


@pytest.mark.parametrize(
    "data, delimiter, has_header, columns, label, text",
    [
        (SPAM_CSV, ",", True, ("label", "text"), "label", "text"),
        # TSV with a comma in every text: both split evenly; TAB wins.
        (b"pos\tgood, fine\nneg\tbad, awful\npos\tnice, ok\n", "\t", False,
         ("column 1", "column 2"), "column 1", "column 2"),
        (b"positive;I loved it, really\nnegative;Dull, dull\npositive;Great\n", ";", False,
         ("column 1", "column 2"), "column 1", "column 2"),
        (b"id|Sentiment|Review\n1|pos|good film\n2|neg|bad one\n", "|", True,
         ("id", "Sentiment", "Review"), "Sentiment", "Review"),
        (b"Category,Message\nham,Ok lar\n", ",", True, ("Category", "Message"), "Category", "Message"),
        # Unknown names ("v1", "v2"): the header shows as a value that the label column never repeats.
        (b"v1,v2\nham,Go until jurong point crazy\nspam,Free entry in 2 a wkly comp\nham,Ok lar joking\n"
         b"ham,U dun say so early hor\nham,Nah I dont think\n", ",", True, ("v1", "v2"), "v1", "v2"),
        # No header, text first: the longest column is the text, the one with fewest values the label.
        (b"what a great film,pos\nawful, just awful,neg\nI laughed a lot,pos\nboring,neg\n", ",", False,
         ("column 1", "column 2"), "column 2", "column 1"),
        # The Sniffer's own evidence: a numeric column under a word.
        (b"score;words\n1;a b c\n0;d e\n1;f g h i\n", ";", True, ("score", "words"), "score", "words"),
    ],
)
def test_inspect_table_guesses_the_layout(data, delimiter, has_header, columns, label, text):
    shape = inspect_table(data)
    assert (shape.delimiter, shape.has_header, shape.columns) == (delimiter, has_header, columns)
    assert (shape.suggested_label, shape.suggested_text) == (label, text)


def test_inspect_table_shape_in_full():
    shape = inspect_table(gzip.compress(codecs.BOM_UTF8 + SPAM_CSV, mtime=0), filename="mail.csv.gz")
    assert shape == TableShape(
        delimiter=",",
        has_header=True,
        columns=("label", "text"),
        preview_rows=(("spam", "Win a FREE prize"), ("ham", "See you at 5?"), ("spam", "Cheap, cheap pills")),
        suggested_label="label",
        suggested_text="text",
    )


def test_inspect_table_previews_five_rows_and_reads_quoted_line_breaks():
    lines = ['label,text', 'spam,"two\nlines"'] + [f"ham,message {i}" for i in range(10)]
    shape = inspect_table("\n".join(lines).encode())
    assert shape.preview_rows == (
        ("spam", "two\nlines"),
        ("ham", "message 0"),
        ("ham", "message 1"),
        ("ham", "message 2"),
        ("ham", "message 3"),
    )


def test_inspect_table_names_blank_and_repeated_columns():
    shape = inspect_table(b",label,text,text\n0,spam,a,b\n1,ham,c,d\n")
    assert shape.columns == ("column 1", "label", "text", "text (column 4)")
    assert (shape.suggested_label, shape.suggested_text) == ("label", "text")


def test_inspect_table_one_column_suggests_no_label():
    shape = inspect_table(b"text\nhello there\nsee you\n")
    assert shape.columns == ("text",)
    assert (shape.suggested_label, shape.suggested_text) == (None, "text")


def test_inspect_table_header_with_no_rows():
    shape = inspect_table(b"label\ttext\n")
    assert (shape.delimiter, shape.has_header, shape.columns, shape.preview_rows) == ("\t", True, ("label", "text"), ())


@pytest.mark.parametrize(
    "data, options, message",
    [
        (b"", {}, r"^The file is empty"),
        (b"\n \n", {}, r"^The file is empty"),
        (b"label,text\nspam,ok\nham,caf\xe9\n", {}, r"^line 3: byte 0xe9 is not UTF-8 text\. .*Save As"),
        (SPAM_CSV, {"max_bytes": 20}, r"^The file is larger than the limit"),
        (gzip.compress(SPAM_CSV * 100, mtime=0), {"max_bytes": 1000}, r"larger than the limit .* once decompressed"),
    ],
)
def test_inspect_table_errors(data, options, message):
    with pytest.raises(CorpusError, match=message):
        inspect_table(data, **options)


# --- read_table -----------------------------------------------------------------------------


def test_read_table_with_a_header():
    corpus = read_table(
        SPAM_CSV, delimiter=",", has_header=True, label_column="label", text_column="text", filename="mail.csv")
    assert corpus.labels == ("spam", "ham", "spam")
    assert corpus.texts == ("Win a FREE prize", "See you at 5?", "Cheap, cheap pills")
    assert corpus.ids == ("2", "3", "4")  # the line where each record starts
    assert corpus.name == "mail.csv"


def test_read_table_without_a_header_by_column_number():
    data = b"great film, truly;pos\r\n\r\n\"two\nlines\";neg\r\nmeh;neg\r\n"
    corpus = read_table(data, delimiter=";", has_header=False, label_column="column 2", text_column="column 1")
    assert corpus.labels == ("pos", "neg", "neg")
    assert corpus.texts == ("great film, truly", "two\nlines", "meh")
    assert corpus.ids == ("1", "3", "5")


def test_read_table_uses_an_id_column_and_decodes_gzip_and_bom():
    data = gzip.compress(codecs.BOM_UTF8 + "id|class|body\nm1|spam|Ça coûte 1 €\n|ham|later\n".encode(), mtime=0)
    corpus = read_table(data, delimiter="|", has_header=True, label_column="class", text_column="body")
    assert corpus.ids == ("m1", "3")  # a blank id falls back to the line number
    assert corpus.texts == ("Ça coûte 1 €", "later")
    assert corpus.labels == ("spam", "ham")


def test_read_table_keeps_empty_texts_and_long_fields():
    long_text = "word " * 40_000  # over the csv module's default 128 KiB field limit
    data = f"label\ttext\nspam\t\nham\t{long_text}\n".encode()
    corpus = read_table(data, delimiter="\t", has_header=True, label_column="label", text_column="text")
    assert corpus.texts == ("", long_text)


def test_read_table_agrees_with_inspect_table():
    data = b"v1,v2\nham,Go until jurong point\nspam,Free entry\nham,Ok lar\nham,U dun say\nham,Nah\n"
    shape = inspect_table(data)
    corpus = read_table(
        data,
        delimiter=shape.delimiter,
        has_header=shape.has_header,
        label_column=shape.suggested_label,
        text_column=shape.suggested_text,
    )
    assert corpus.class_counts() == {"ham": 4, "spam": 1}
    assert corpus.texts[0] == "Go until jurong point"


@pytest.mark.parametrize(
    "data, options, message",
    [
        (SPAM_CSV, {"label_column": "class"},
         r"^There is no column 'class'; the columns are 'label', 'text'\. Choose the column that holds the labels"),
        (SPAM_CSV, {"text_column": "body"}, r"^There is no column 'body'.*holds the texts"),
        (b"spam,hi\n", {"has_header": False},
         r"^There is no column 'label'; the columns are 'column 1', 'column 2' \(the file has no header row"),
        (SPAM_CSV, {"label_column": None}, r"^Choose the column that holds the labels"),
        (SPAM_CSV, {"text_column": ""}, r"^Choose the column that holds the texts"),
        (SPAM_CSV, {"label_column": "text"},
         r"^The labels and the texts are both in 'text': choose two different columns"),
        (SPAM_CSV, {"delimiter": ",,"}, r"^The delimiter ',,' cannot separate columns"),
        (SPAM_CSV, {"delimiter": '"'}, r"cannot separate columns"),
        (b"label,text\nspam,Cheap, cheap pills\n", {},
         r"^line 2: 3 fields, but the header names 2\. A text that contains a comma must be in double quotes"),
        (b"label,text,id\nspam,hi,1\nham,lo\n", {}, r"^line 3: only 2 of 3 fields \(the header names 3\)"),
        (b"a\tb\nc\td\te\n",
         {"delimiter": "\t", "has_header": False, "label_column": "column 1", "text_column": "column 2"},
         r"^line 2: 3 fields, but line 1 has 2\. A text that contains a TAB must be in double quotes"),
        (b"label,text\nspam,hi\n  ,lo\n", {}, r"^line 3: the 'label' column is empty\. Every row needs a label"),
        (b'label,text\nspam,"never closed\nham,lo\n', {}, r"^line 2: not valid CSV"),
        (b"label,text\nspam,ok\nham,caf\xe9\n", {}, r"^line 3: byte 0xe9 is not UTF-8"),
        (b"label,text\n\n", {}, r"^The file has a header row but no documents"),
        (b"", {}, r"^The file contains no documents"),
        (SPAM_CSV, {"max_bytes": 10}, r"larger than the limit"),
    ],
)
def test_read_table_errors(data, options, message):
    settings = {"delimiter": ",", "has_header": True, "label_column": "label", "text_column": "text"} | options
    with pytest.raises(CorpusError, match=message):
        read_table(data, **settings)


def movie_reviews(shared_corpora):
    path = shared_corpora / "movie-review-polarity-v2.0" / "all.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.corpora
def test_movie_reviews_as_a_tsv_without_header(shared_corpora, monkeypatch):
    records = movie_reviews(shared_corpora)
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter="\t", lineterminator="\n")
    for record in records:
        writer.writerow([record["label"], record["text"]])
    data = buffer.getvalue().encode()
    # The guesses read a sample of the 7 MB, whatever the file's size.
    samples, sample_rows = [], []
    take_sample, read_rows = uploads._sample, uploads._sample_rows

    def sample(text):
        samples.append(take_sample(text))
        return samples[-1]

    def rows(text, delimiter):
        sample_rows.append(read_rows(text, delimiter))
        return sample_rows[-1]

    monkeypatch.setattr(uploads, "_sample", sample)
    monkeypatch.setattr(uploads, "_sample_rows", rows)
    shape = inspect_table(data)
    assert len(data) > 100 * uploads._SAMPLE_CHARS
    assert len(samples) == 1 and len(samples[0]) <= uploads._SAMPLE_CHARS
    assert sample_rows and all(len(found) <= uploads._SAMPLE_ROWS for found in sample_rows)
    assert (shape.delimiter, shape.has_header, shape.suggested_label, shape.suggested_text) == (
        "\t", False, "column 1", "column 2"
    )
    corpus = read_table(data, delimiter="\t", has_header=False, label_column="column 1", text_column="column 2")
    assert len(corpus) == 2000
    assert corpus.class_counts() == {"neg": 1000, "pos": 1000}
    assert corpus.texts == tuple(record["text"] for record in records)


# --- read_zip: building archives in memory --------------------------------------------------


def make_zip(files, *, method=zipfile.ZIP_DEFLATED) -> bytes:
    """A ZIP of ``{name: text or bytes}``; a name ending in "/" is a directory entry."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return buffer.getvalue()


MOVIE_LIKE = {
    "txt_sentoken/": "",
    "txt_sentoken/pos/": "",
    "txt_sentoken/pos/cv000_29590.txt": "films adapted from comic books have had plenty of success .\n",
    "txt_sentoken/pos/cv001_18431.txt": "every now and then a movie comes along .\n",
    "txt_sentoken/neg/": "",
    "txt_sentoken/neg/cv000_29416.txt": "plot : two teen couples go to a church party .\n",
    "__MACOSX/txt_sentoken/pos/._cv000_29590.txt": b"\x00\x05\x16\x07 mac resource fork \xff",
    "txt_sentoken/.DS_Store": b"\x00\x00\x00\x01Bud1\xff",
    "txt_sentoken/neg/.hidden.txt": "not a review",
}


def test_zip_of_class_folders_like_the_movie_reviews():
    corpus = read_zip(make_zip(MOVIE_LIKE), filename="review_polarity.zip")
    assert corpus.ids == (
        "txt_sentoken/neg/cv000_29416.txt",
        "txt_sentoken/pos/cv000_29590.txt",
        "txt_sentoken/pos/cv001_18431.txt",
    )
    assert corpus.labels == ("neg", "pos", "pos")
    assert corpus.texts == (
        "plot : two teen couples go to a church party .\n",
        "films adapted from comic books have had plenty of success .\n",
        "every now and then a movie comes along .\n",
    )
    assert corpus.name == "review_polarity.zip"


def test_zip_without_a_top_folder_stored_uncompressed_with_bom():
    data = make_zip(
        {"spam/1.txt": codecs.BOM_UTF8 + "Gagnez 1 000 €".encode(), "ham/2.txt": "", "ham/3.txt": "lunch?"},
        method=zipfile.ZIP_STORED,
    )
    corpus = read_zip(data)
    assert corpus.ids == ("ham/2.txt", "ham/3.txt", "spam/1.txt")
    assert corpus.labels == ("ham", "ham", "spam")
    assert corpus.texts == ("", "lunch?", "Gagnez 1 000 €")


def test_zip_with_several_shared_top_folders_and_a_deeper_class_folder():
    data = make_zip(
        {"home/me/data/pos/a.txt": "good", "home/me/data/neg/b.txt": "bad", "home/me/data/neg/old/c.txt": "old"})
    corpus = read_zip(data)
    # The class is the folder directly holding the file.
    assert dict(zip(corpus.ids, corpus.labels, strict=True)) == {
        "home/me/data/neg/b.txt": "neg",
        "home/me/data/neg/old/c.txt": "old",
        "home/me/data/pos/a.txt": "pos",
    }


def test_zip_with_one_class_folder_only():
    corpus = read_zip(make_zip({"spam/1.txt": "win", "spam/2.txt": "cash"}))
    assert corpus.labels == ("spam", "spam")


LAYOUT = r"like pos/review1\.txt and neg/review2\.txt"


@pytest.mark.parametrize(
    "files, message",
    [
        ({"a.txt": "x", "b.txt": "y"}, rf"^The ZIP has no folders, so the classes are unknown\. .*{LAYOUT}"),
        ({"pos/a.txt": "x", "notes.txt": "y"},
         r"^The file 'notes\.txt' is not in a class folder\. .*Move it into one, or remove it"),
        ({"txt_sentoken/pos/a.txt": "x", "txt_sentoken/notes": "y"},
         r"^The file 'txt_sentoken/notes' is not in a class folder"),
        ({}, rf"^The ZIP contains no documents\. .*{LAYOUT}"),
        ({"pos/": "", "__MACOSX/pos/._a.txt": "x", ".DS_Store": "y"}, r"^The ZIP contains no documents"),
        ({"pos/a.txt": "good", "neg/b.txt": "caf\xe9\nd\xe9j\xe0".encode("latin-1")},
         r"^The file 'neg/b\.txt' is not UTF-8 text \(byte 0xe9 on line 1\)\. Save it as UTF-8"),
    ],
)
def test_zip_layout_and_encoding_errors(files, message):
    with pytest.raises(CorpusError, match=message):
        read_zip(make_zip(files))


@pytest.mark.parametrize(
    "name",
    ["../evil.txt", "/etc/passwd", "a/../../b.txt", "C:\\x.txt", "C:/x.txt", "pos\\..\\..\\x.txt", "pos//a.txt"],
)
def test_zip_slip_names_are_refused(name):
    data = make_zip({"pos/fine.txt": "ok", name: "payload"})
    unsafe = rf"^The ZIP entry {re.escape(repr(name))} has an unsafe path.*nothing was loaded"
    with pytest.raises(CorpusError, match=unsafe):
        read_zip(data)


def test_duplicate_names_are_refused():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("pos/a.txt", "first")
        with pytest.warns(UserWarning, match="Duplicate name"):
            archive.writestr("pos/a.txt", "second")
    with pytest.raises(CorpusError, match=r"^The ZIP holds 'pos/a\.txt' twice"):
        read_zip(buffer.getvalue())


def test_symlink_entries_are_refused():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("pos/a.txt", "fine")
        link = zipfile.ZipInfo("pos/passwd.txt")
        link.create_system = 3  # Unix
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(link, "/etc/passwd")
    with pytest.raises(CorpusError, match=r"^The ZIP entry 'pos/passwd\.txt' is a symbolic link"):
        read_zip(buffer.getvalue())


def test_encrypted_entries_are_refused():
    # The stdlib cannot encrypt, so set the "encrypted" flag in both headers, which is what a reader sees.
    data = bytearray(make_zip({"pos/a.txt": "secret"}))
    for signature, flag_offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = data.index(signature) + flag_offset
        data[at] |= 0x1
    with pytest.raises(CorpusError, match=r"^The ZIP entry 'pos/a\.txt' is encrypted; nothing was loaded"):
        read_zip(bytes(data))


def test_other_compression_methods_are_refused():
    data = make_zip({"pos/a.txt": "good"}, method=zipfile.ZIP_LZMA)
    with pytest.raises(
        CorpusError, match=r"^The ZIP entry 'pos/a\.txt' uses a compression method \(number 14\).*deflate"
    ):
        read_zip(data)


@pytest.mark.parametrize(
    "data", [b"", b"not a zip at all", make_zip({"pos/a.txt": "x"})[:-30]], ids=["empty", "text", "cut-off"]
)
def test_not_a_zip(data):
    with pytest.raises(CorpusError, match=r"^This is not a readable ZIP file"):
        read_zip(data)


def test_damaged_entry():
    data = bytearray(make_zip({"pos/a.txt": "good " * 50}, method=zipfile.ZIP_STORED))
    start = data.index(b"good")
    data[start:start + 4] = b"evil"  # the CRC no longer matches
    with pytest.raises(CorpusError, match=r"^The file 'pos/a\.txt' in the ZIP cannot be unpacked \(Bad CRC-32"):
        read_zip(bytes(data))


# --- read_zip: limits -----------------------------------------------------------------------


def test_too_many_entries():
    data = make_zip({f"pos/{i}.txt": "x" for i in range(6)})
    with pytest.raises(CorpusError, match=r"^The ZIP holds 6 entries, more than the limit of 5; nothing was loaded"):
        read_zip(data, max_entries=5)
    assert len(read_zip(data, max_entries=6)) == 6


def test_too_many_entries_even_when_the_end_record_understates_them():
    data = bytearray(make_zip({f"pos/{i}.txt": "x" for i in range(6)}))
    end = data.rindex(b"PK\x05\x06")
    data[end + 8:end + 12] = struct.pack("<HH", 1, 1)  # entries on this disk, entries in all
    with pytest.raises(CorpusError, match=r"^The ZIP holds 6 entries, more than the limit of 5"):
        read_zip(bytes(data), max_entries=5)


def test_declared_total_over_the_limit():
    data = make_zip({"pos/a.txt": "a" * 600, "neg/b.txt": "b" * 500})
    with pytest.raises(CorpusError, match=r"^The ZIP would unpack to 1\.1 KB \(1,100 bytes\), over the limit of 1 KB"):
        read_zip(data, max_total_bytes=1000, max_ratio=1000)


def test_one_file_over_the_limit():
    data = make_zip({"pos/a.txt": "short", "neg/b.txt": "x" * 3000}, method=zipfile.ZIP_STORED)
    over_the_limit = r"^The file 'neg/b\.txt' is 3 KB \(3,000 bytes\), over the limit of 2 KB for one document"
    with pytest.raises(CorpusError, match=over_the_limit):
        read_zip(data, max_file_bytes=2000)


def test_compression_ratio_over_the_limit():
    data = make_zip({"pos/a.txt": "fine text", "neg/zeros.txt": bytes(100_000)})
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        compressed = archive.getinfo("neg/zeros.txt").compress_size
    ratio = 100_000 / compressed
    bomb = (rf"^The ZIP entry 'neg/zeros\.txt' is compressed {ratio:,.0f} times "
            rf"\({compressed} bytes unpack to 100,000\), more than the limit of 100: it looks like a ZIP bomb")
    with pytest.raises(CorpusError, match=bomb):
        read_zip(data)
    assert read_zip(data, max_ratio=ratio + 1).texts[0] == "\x00" * 100_000


@pytest.fixture(scope="module")
def zip_bomb() -> bytes:
    """About 200 KB that would unpack to 200 MB of zeros."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        with archive.open("pos/bomb.txt", "w") as entry:
            chunk = bytes(1 << 20)
            for _ in range(200):
                entry.write(chunk)
    return buffer.getvalue()


@pytest.fixture(scope="module")
def many_file_bomb() -> bytes:
    """500 files of 100 KB zeros: each under the one-file limit, 50 MB in all."""
    buffer = io.BytesIO()
    zeros = bytes(100_000)
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for i in range(500):
            archive.writestr(f"pos/{i}.txt", zeros)
        archive.writestr("neg/x.txt", "x")
    return buffer.getvalue()


def refused_unopened_and_lightly(data: bytes, message: str, **limits):
    """Refused from the ZIP's directory: no entry is opened, so nothing is decompressed."""
    opened, open_entry = [], archives._open_entry

    def opening(archive, info):
        opened.append(info.filename)
        return open_entry(archive, info)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(archives, "_open_entry", opening)
        tracemalloc.start()
        try:
            with pytest.raises(CorpusError, match=message):
                read_zip(data, **limits)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert opened == []
    assert peak < 20_000_000


@pytest.mark.slow  # about 1 s
def test_zip_bomb_is_refused_before_unpacking(zip_bomb):
    assert len(zip_bomb) < 300_000
    refused_unopened_and_lightly(
        zip_bomb, r"^The ZIP would unpack to 209\.72 MB \(209,715,200 bytes\), over the limit of 50 MB")
    # With the total raised, the one entry's ratio still gives it away.
    refused_unopened_and_lightly(
        zip_bomb, r"^The ZIP entry 'pos/bomb\.txt' is compressed [\d,]+ times", max_total_bytes=10**12)


def test_many_small_files_bomb_is_refused(many_file_bomb):
    refused_unopened_and_lightly(many_file_bomb, r"^The ZIP would unpack to 50 MB \(50,000,001 bytes\)")
    refused_unopened_and_lightly(
        many_file_bomb, r"^The ZIP entry 'neg/x\.txt'|^The ZIP entry 'pos/\d+\.txt' is compressed",
        max_total_bytes=10**9)


@pytest.mark.parametrize(
    "limits, message",
    [
        ({"max_file_bytes": 100_000},
         r"^The file 'neg/b\.txt' unpacked to more than the limit of 100 KB for one document "
         r"although the ZIP declared 5 bytes"),
        ({"max_total_bytes": 150_000},
         r"^While reading 'pos/a\.txt', the ZIP unpacked to more than the limit of 150 KB"),
    ],
)
def test_bytes_actually_unpacked_are_counted(monkeypatch, limits, message):
    data = make_zip({"pos/a.txt": "small", "neg/b.txt": "small"})
    # a decompressor that ignored the sizes in the ZIP's directory would give more than they say
    monkeypatch.setattr(archives, "_open_entry", lambda archive, info: io.BufferedReader(RepeatedBytes(120_000, b"a")))
    with pytest.raises(CorpusError, match=message):
        read_zip(data, **limits)


@pytest.mark.corpora
def test_movie_reviews_zip(shared_corpora):
    records = movie_reviews(shared_corpora)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for record in records:
            archive.writestr(f"txt_sentoken/{record['label']}/{record['id']}", record["text"])
    corpus = read_zip(buffer.getvalue())
    assert len(corpus) == 2000
    assert corpus.class_counts() == {"neg": 1000, "pos": 1000}
    expected = {f"txt_sentoken/{r['label']}/{r['id']}": (r["label"], r["text"]) for r in records}
    documents = zip(corpus.ids, corpus.labels, corpus.texts, strict=True)
    assert {doc_id: (label, text) for doc_id, label, text in documents} == expected
    assert corpus.ids == tuple(sorted(expected))
