"""Uploads that are no corpus: a PDF, an image, an office document, another kind of archive, a program, binary data,
lines without labels, one column. Each is refused with a message that names what the file is and what webnb reads
(in the engine, and on the page through the upload form, escaped), and nothing is stored; never a 500.

tests/test_bad_files.py covers broken encodings and archive bombs; this file covers files of the wrong kind.
"""
from __future__ import annotations

import gzip
import io
import os
import struct
import zipfile
import zlib

import pytest
from bs4 import BeautifulSoup
from markupsafe import escape

from webnb.engine.io.archives import read_archive
from webnb.engine.io.readers import ACCEPTED_FILES, read_corpus_bytes
from webnb.engine.io.uploads import inspect_table, read_table, read_upload
from webnb.engine.shared.corpus import CorpusError

# --- the files ------------------------------------------------------------------------------------------------


def png() -> bytes:
    """A real 1×1 PNG."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00")) + chunk(
        b"IEND", b"")


PDF = (b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"
       b"trailer\n<< /Root 1 0 R >>\n%%EOF\n")
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xdb\x00C\x00" + bytes(range(64))
GIF = b"GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00"
WEBP = b"RIFF\x24\x00\x00\x00WEBPVP8 \x18\x00\x00\x000\x01\x00\x9d\x01\x2a\x01\x00\x01\x00" + bytes(16)
BMP = b"BM\x3a\x00\x00\x00\x00\x00\x00\x00\x36\x00\x00\x00\x28\x00\x00\x00" + bytes(40)
TIFF = b"II*\x00\x08\x00\x00\x00" + bytes(32)
ELF = b"\x7fELF\x02\x01\x01\x00" + bytes(8) + b"\x02\x00\x3e\x00" + bytes(44)
WINDOWS_PROGRAM = b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff\x00\x00" + bytes(48)
RAR = b"Rar!\x1a\x07\x01\x00" + bytes(range(40))
# Random bytes, with NUL bytes among them (fixed, so a failure can be repeated).
BINARY = bytes((i * 7919 + 13) % 256 for i in range(3000))
UNLABELLED = b"great film\nawful plot\nloved every minute\n"
ONE_COLUMN = b"text\ngreat film\nawful plot\nloved every minute\n"


def zipped(files: dict) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return buffer.getvalue()


DOCX = zipped({"[Content_Types].xml": "<Types/>", "_rels/.rels": "<Relationships/>",
               "word/document.xml": "<w:document/>", "docProps/core.xml": "<cp/>"})
XLSX = zipped({"[Content_Types].xml": "<Types/>", "_rels/.rels": "<Relationships/>",
               "xl/workbook.xml": "<workbook/>", "xl/worksheets/sheet1.xml": "<worksheet/>"})
ZIPPED_CSV = zipped({"reviews.csv": "label,text\npositive,great film\nnegative,awful plot\n"})

ACCEPTS = (
    "webnb reads only CSV, TSV and JSON Lines files (UTF-8 text, gzipped too) with a label and a text on each line, "
    "like positive,great film, or a table of numbers under a header row, and archives (.zip, .tar, .tar.gz, .tgz) "
    "with one folder of text files per class, like pos/review1.txt and neg/review2.txt."
)
COPY_INTO_A_SPREADSHEET = (
    "Copy its texts into a spreadsheet, one document per row with its label in the column before it, save that as "
    "CSV (UTF-8) and upload the .csv file."
)
NOT_PICTURES = (
    "Naive Bayes here learns from texts, not from pictures or sound: type the texts into a spreadsheet, one document "
    "per row with its label in the column before it, save that as CSV (UTF-8) and upload the .csv file."
)
SAVE_AS_UTF8 = (
    "Upload the corpus file itself; if it is text, save it as UTF-8 (in most editors: Save As, Encoding: UTF-8)."
)
TEXTS_IN_FOLDERS = (
    "Texts without labels can also go in an archive (.zip, .tar, .tar.gz, .tgz) with one folder of text files per "
    "class, like pos/review1.txt and neg/review2.txt."
)


def refused(kind: str, advice: str) -> str:
    return f"This file is {kind}; nothing was loaded. {ACCEPTS} {advice}"


# (file name, bytes, the whole message)
KINDS = {
    "pdf": ("paper.pdf", PDF, refused("a PDF document", COPY_INTO_A_SPREADSHEET)),
    "png": ("chart.png", png(), refused("a PNG image", NOT_PICTURES)),
    "jpeg": ("photo.jpg", JPEG, refused("a JPEG image", NOT_PICTURES)),
    "gif": ("anim.gif", GIF, refused("a GIF image", NOT_PICTURES)),
    "webp": ("photo.webp", WEBP, refused("a WebP image", NOT_PICTURES)),
    "bmp": ("scan.bmp", BMP, refused("a BMP image", NOT_PICTURES)),
    "tiff": ("scan.tiff", TIFF, refused("a TIFF image", NOT_PICTURES)),
    "docx": ("reviews.docx", DOCX, refused("a Word document (.docx), a kind of ZIP file", COPY_INTO_A_SPREADSHEET)),
    "xlsx": ("reviews.xlsx", XLSX, refused(
        "an Excel workbook (.xlsx), a kind of ZIP file",
        "Save it from your spreadsheet program as CSV (UTF-8) (File, Save As or Download) and upload the .csv file.")),
    "zip of a csv": ("reviews.zip", ZIPPED_CSV, (
        "The ZIP holds the table file 'reviews.csv' but no class folders; nothing was loaded. An archive is read as "
        "one folder of text files per class, like pos/review1.txt and neg/review2.txt. Unpack it and upload "
        "'reviews.csv' itself (CSV, TSV and JSON Lines files upload as they are, gzipped too).")),
    "rar": ("reviews.rar", RAR, refused(
        "a RAR archive",
        "Unpack it, then upload the CSV, TSV or JSON Lines file it holds, or pack its class folders again as .zip or "
        ".tar.gz.")),
    "elf": ("nb", ELF, refused("a program (an executable file)", "Upload the corpus file itself, not a program.")),
    "exe": ("setup.exe", WINDOWS_PROGRAM,
            refused("a program (an executable file)", "Upload the corpus file itself, not a program.")),
    "binary": ("reviews.csv", BINARY, refused(
        "binary data, not text: it holds NUL bytes (0x00) and other control bytes, which no text file holds",
        SAVE_AS_UTF8)),
    "gzipped pdf": ("paper.csv.gz", gzip.compress(PDF, mtime=0), refused("a PDF document", COPY_INTO_A_SPREADSHEET)),
    "lines without labels": ("reviews.txt", UNLABELLED, (
        "Each line holds one field only, like line 1: 'great film'. webnb needs a label and a text on each line, "
        "like positive,great film  or  positive<TAB>great film: if these are texts, write each one's class before "
        f"it, then a comma or a TAB. {TEXTS_IN_FOLDERS}")),
    "one column with a header": ("reviews.csv", ONE_COLUMN, (
        "The file has one column only, 'text' (line 2: 'great film'). webnb needs a label and a text on each line, "
        "like positive,great film  or  positive<TAB>great film, under a header row like label,text: add a column "
        f"that gives each document's class. {TEXTS_IN_FOLDERS}")),
}


# --- the engine -----------------------------------------------------------------------------------------------


def test_the_message_lists_what_the_code_reads():
    assert ACCEPTED_FILES == ACCEPTS


@pytest.mark.parametrize("kind", list(KINDS))
def test_the_engine_names_what_the_file_is(kind):
    filename, data, message = KINDS[kind]
    with pytest.raises(CorpusError) as refusal:
        read_upload(data, filename=filename)
    assert str(refusal.value) == message
    assert "both in" not in message


@pytest.mark.parametrize("kind", ["pdf", "png", "jpeg", "binary", "gzipped pdf"])
@pytest.mark.parametrize("filename", ["reviews.csv", "reviews.tsv", "reviews.jsonl", "reviews"])
def test_the_file_name_does_not_matter(kind, filename):
    _, data, message = KINDS[kind]
    with pytest.raises(CorpusError) as refusal:
        read_upload(data, filename=filename)
    assert str(refusal.value) == message


@pytest.mark.parametrize("kind", ["pdf", "png", "jpeg", "binary"])
def test_inspecting_and_the_readers_say_the_same(kind):
    _, data, message = KINDS[kind]
    with pytest.raises(CorpusError) as refusal:
        inspect_table(data)
    assert str(refusal.value) == message
    with pytest.raises(CorpusError) as refusal:
        read_corpus_bytes(data, format="csv")
    assert str(refusal.value) == message


@pytest.mark.parametrize(
    "chosen", [("", ""), ("column 1", "column 2"), ("column 1", "column 1"), ("great film", "great film")]
)
def test_lines_without_labels_are_named_whichever_columns_are_chosen(chosen):
    _, data, message = KINDS["lines without labels"]
    with pytest.raises(CorpusError) as refusal:
        read_upload(data, filename="reviews.txt", label_column=chosen[0], text_column=chosen[1])
    assert str(refusal.value) == message


def test_a_one_column_table_is_named_even_with_the_same_column_chosen_twice():
    with pytest.raises(CorpusError, match=r"^The file has one column only, 'text'"):
        read_table(ONE_COLUMN, delimiter=",", has_header=True, label_column="text", text_column="text")


def test_the_same_column_chosen_twice_in_a_table_of_two_still_says_so():
    with pytest.raises(CorpusError, match=r"^The labels and the texts are both in 'text': choose two different"):
        read_upload(b"label,text\npositive,great film\nnegative,awful plot\n", label_column="text", text_column="text")


def test_lines_whose_first_has_no_label_name_both_lines():
    data = b"great film\nnegative,awful plot\npositive,loved it\nnegative,dull\npositive,fine\n"
    with pytest.raises(CorpusError) as refusal:
        read_table(data, delimiter=",", has_header=False, label_column="column 1", text_column="column 2")
    assert str(refusal.value).startswith(
        "Line 1 holds one field only ('great film') but line 2 holds 2. webnb needs a label and a text on every line")


def test_a_header_of_one_column_over_rows_of_two_says_so():
    data = b"text\npositive,great film\nnegative,awful plot\n"
    with pytest.raises(CorpusError) as refusal:
        read_table(data, delimiter=",", has_header=True, label_column="text", text_column="text")
    assert str(refusal.value) == (
        "The header row names one column only, 'text', but line 2 holds 2 fields. Name every column in the header "
        "row, like label,text.")


def test_a_long_unlabelled_line_is_cut_in_the_message():
    data = ("word " * 40 + "\n" + "more words\n").encode()
    with pytest.raises(CorpusError, match=r"^Each line holds one field only, like line 1: 'word word .*…'\."):
        read_upload(data, filename="reviews.txt")


def test_a_pdf_in_a_class_folder_is_named():
    data = zipped({"pos/paper.pdf": PDF, "neg/b.txt": "awful plot"})
    with pytest.raises(CorpusError) as refusal:
        read_archive(data, filename="reviews.zip")
    assert str(refusal.value) == (
        "The file 'pos/paper.pdf' is a PDF document, not text; nothing was loaded. Each document must be a UTF-8 text "
        "file in its class folder.")


@pytest.mark.parametrize(
    "data",
    [
        b"BMW,great car\nAudi,fine car\n",  # starts like a BMP image, without its zero bytes
        b"MZ,great film\nXY,awful plot\n",  # starts like a Windows program, without its zero bytes
        b"GIF,funny\nJPEG,dull\n",
        b"label,text\npositive,%PDF- is in the text\nnegative,awful plot\n",
        b"label,text\npositive,a stray \x01 control byte\nnegative,awful plot\n",
        "label\ttext\npositive\tgreat film\nnegative\tawful plot\n".encode("utf-16"),
    ],
    ids=["BM", "MZ", "GIF", "PDF in a text", "one control byte", "utf-16"],
)
def test_text_that_merely_looks_like_another_kind_is_read(data):
    assert len(read_upload(data, filename="reviews.csv").corpus) >= 1  # (a first row may be taken for a header)


def test_random_bytes_are_binary_whatever_the_seed():
    for _ in range(20):
        with pytest.raises(CorpusError, match=r"^This file is binary data, not text"):
            read_upload(os.urandom(2000), filename="reviews.csv")


# --- the upload form ------------------------------------------------------------------------------------------


def post(client, filename: str, data: bytes, path="/corpora/upload", **form):
    return client.post(path, data={"file": (io.BytesIO(data), filename), **form}, content_type="multipart/form-data")


def listed(client) -> list:
    return [(corpus["id"], corpus["name"]) for corpus in client.get("/corpora?format=json").get_json()["corpora"]]


@pytest.mark.parametrize("kind", ["pdf", "png", "jpeg", "docx", "zip of a csv", "binary", "lines without labels",
                                  "one column with a header"])
def test_the_upload_form_shows_the_message_and_stores_nothing(app, kind):
    filename, data, message = KINDS[kind]
    client = app.test_client()
    before = listed(client)
    response = post(client, filename, data)
    assert response.status_code == 400, response.get_data(as_text=True)[:500]
    page = response.get_data(as_text=True)
    shown = f"{filename}: {message}"
    assert str(escape(shown)) in page  # escaped: quotes and <TAB> come out as entities
    error = BeautifulSoup(page, "html.parser").find(id="form-error")
    assert error.p.get_text() == shown and "Nothing was stored" in error.get_text()
    assert listed(client) == before
    assert app.extensions["webnb"]["storage"].list_corpora() == []
    twin = post(client, filename, data, "/corpora/upload?format=json")
    assert twin.status_code == 400 and twin.get_json()["error"] == shown
    assert listed(client) == before


def test_unlabelled_lines_with_their_columns_chosen_in_the_form(app):
    filename, data, message = KINDS["lines without labels"]
    client = app.test_client()
    response = post(client, filename, data, label_column="great film", text_column="great film")
    assert response.status_code == 400
    error = BeautifulSoup(response.get_data(as_text=True), "html.parser").find(id="form-error")
    assert error.p.get_text() == f"{filename}: {message}"
    assert app.extensions["webnb"]["storage"].list_corpora() == []


@pytest.mark.parametrize("kind", ["pdf", "png", "binary"])
def test_inspecting_the_file_names_it_too(app, kind):
    filename, data, message = KINDS[kind]
    client = app.test_client()
    inspection = post(client, filename, data, "/corpora/upload/inspect?format=json")
    assert inspection.status_code == 200
    assert inspection.get_json() == {"shape": None, "error": f"{filename}: {message}"}
    fragment = post(client, filename, data, "/corpora/upload/inspect").get_data(as_text=True)
    assert str(escape(f"{filename}: {message}")) in fragment
    assert app.extensions["webnb"]["storage"].list_corpora() == []
