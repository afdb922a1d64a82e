"""Bad files through the real upload endpoint: odd encodings, NUL bytes, huge fields, a ZIP bomb, a gzip
bomb and a zip-slip archive. Each is read correctly (the stored texts and labels are the expected Unicode) or
refused with a 4xx whose message names the problem, storing nothing; never a 500.

tests/test_uploads.py checks the readers themselves (read_zip's limits, unsafe names, the gzip limit); here
the same attacks come through HTTP, with what they cost the server: memory, and files on disk.
"""
from __future__ import annotations

import codecs
import gzip
import io
import os
import re
import tempfile
import uuid
import zipfile
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from conftest import slow_but_the_first

TEXTS = ("Ça coûte 1 € — naïve café", "日本語のテキスト", "emoji 👍🏽 ok", "plain ascii")
LABELS = ("spam", "ham", "spam", "ham")


def post(client, filename: str, data: bytes, path="/corpora/upload"):
    return client.post(path, data={"file": (io.BytesIO(data), filename)}, content_type="multipart/form-data")


def stored(app) -> list:
    return app.extensions["webnb"]["storage"].list_corpora()


def stored_corpus(app, client, response):
    assert response.status_code == 303, response.get_data(as_text=True)[:800]
    corpus_id = response.headers["Location"].rstrip("/").rsplit("/", 1)[1]
    return app.extensions["webnb"]["catalog"].get(corpus_id).corpus


def refusal(response) -> str:
    """The message of a refused upload; the page says nothing was stored."""
    assert 400 <= response.status_code < 500, (response.status_code, response.get_data(as_text=True)[:500])
    error = BeautifulSoup(response.get_data(as_text=True), "html.parser").find(id="form-error")
    assert error is not None and "Nothing was stored" in error.get_text()
    return error.get_text()


def table(line_end="\n", texts=TEXTS, labels=LABELS) -> str:
    rows = ["label\ttext", *(f"{label}\t{text}" for label, text in zip(labels, texts, strict=True))]
    return line_end.join(rows) + line_end


# -- encodings -----------------------------------------------------------------------------------------------

READABLE = {
    "utf-8": table().encode("utf-8"),
    "utf-8 with BOM": codecs.BOM_UTF8 + table().encode("utf-8"),
    "utf-8, CRLF line ends": table("\r\n").encode("utf-8"),
    "utf-16 LE with BOM": codecs.BOM_UTF16_LE + table("\r\n").encode("utf-16-le"),  # Excel's "Unicode text"
    "utf-16 BE with BOM": codecs.BOM_UTF16_BE + table().encode("utf-16-be"),
    "utf-16 LE without BOM": table().encode("utf-16-le"),
    "utf-16 BE without BOM": table("\r\n").encode("utf-16-be"),
    "utf-16 LE, gzip": gzip.compress(codecs.BOM_UTF16_LE + table().encode("utf-16-le"), mtime=0),
}


@pytest.mark.parametrize("encoding", slow_but_the_first(2, list(READABLE)))
def test_readable_encodings_store_the_exact_text(app, encoding):
    client = app.test_client()
    data = READABLE[encoding]
    preview = post(client, "reviews.tsv", data, "/corpora/upload/inspect")
    assert preview.status_code == 200
    options = BeautifulSoup(preview.get_data(as_text=True), "html.parser").find("select", id="text-column")
    assert [option.get_text() for option in options.find_all("option")] == ["label", "text"]
    corpus = stored_corpus(app, client, post(client, "reviews.tsv", data))
    assert corpus.texts == TEXTS and corpus.labels == LABELS


def test_a_200_kb_field_is_kept_whole(app):
    client = app.test_client()
    long_text = "ünïcödé words " * 15_000  # 210,000 characters, over the csv module's 128 KiB default
    texts = (long_text, "short one")
    corpus = stored_corpus(app, client, post(client, "long.tsv", table(texts=texts, labels=("a", "b")).encode()))
    assert corpus.texts == texts and len(corpus.texts[0]) == 210_000


@pytest.mark.parametrize(
    "data, message",
    slow_but_the_first(2, [
        ("label\ttext\nspam\tÇa coûte 1 € — naïve café\nham\tok\n".encode("cp1252"),
         r"line 2: byte 0xc7 is not UTF-8 text"),
        (b"label\ttext\nspam\tok\nham\tbad \xff\xfe byte\n", r"line 3: byte 0xff is not UTF-8 text"),
        (b"label\ttext\nspam\tcut \xe2\x82\n", r"line 2: byte 0xe2 is not UTF-8 text"),
        (b"label\ttext\nspam\tnul\x00inside\nham\tok\n", r"line 2: a NUL character"),
        (b"\x00\x00\x00\x00binary\x00\x00\x01\x02", r"NUL"),
        (codecs.BOM_UTF16_LE + b"l\x00a\x00\x00\xd8b\x00", r"UTF-16"),  # an unpaired surrogate
    ]),
    ids=["cp1252", "invalid bytes", "cut-off character", "NUL in a text", "binary", "broken utf-16"],
)
def test_unreadable_bytes_are_refused_with_the_reason(app, data, message):
    client = app.test_client()
    for filename in ("reviews.tsv", "reviews.csv", "reviews.jsonl", "reviews"):
        text = refusal(post(client, filename, data))
        assert re.search(message, text), (filename, text)
        preview = post(client, filename, data, "/corpora/upload/inspect")
        assert preview.status_code == 200
    assert stored(app) == []


def test_nul_bytes_in_json_lines_are_refused(app):
    client = app.test_client()
    data = b'{"label": "spam", "text": "ok"}\n{"label": "ham", "text": "a\x00b"}\n'
    assert "line 2" in refusal(post(client, "mail.jsonl", data))
    assert stored(app) == []


# -- archives ------------------------------------------------------------------------------------------------


def rss_kilobytes(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise LookupError(field)


def peak_growth_mb(request) -> float:
    """How far the process's peak memory rose above its memory before ``request()`` ran, in MB.

    Resetting the peak (VmHWM) needs Linux's /proc/self/clear_refs; without it, the RSS after the request
    is the best there is."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        field = "VmHWM"
    except OSError:
        field = "VmRSS"
    before = rss_kilobytes("VmRSS")
    response = request()
    return response, (rss_kilobytes(field) - before) / 1024


@pytest.fixture
def private_tmp(tmp_path, monkeypatch):
    """Temporary files (werkzeug spools big uploads to one) go to a folder of the test's own."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def files_under(folder: Path) -> set:
    return {path for path in folder.rglob("*")}


def zip_bomb() -> bytes:
    """About 200 KB of ZIP that unpacks to 200 MB: zeros, and a line repeated."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("pos/fine.txt", "a normal review")
        with archive.open("neg/zeros.txt", "w") as entry:
            chunk = bytes(1 << 20)
            for _ in range(100):
                entry.write(chunk)
        with archive.open("neg/lines.txt", "w", force_zip64=False) as entry:
            chunk = b"spam spam spam spam\n" * (1 << 16)
            for _ in range(80):
                entry.write(chunk)
    return buffer.getvalue()


@pytest.mark.slow  # 1-2 s
def test_zip_bomb_is_refused_without_using_memory_or_disk(app, private_tmp, tmp_path):
    client = app.test_client()
    bomb = zip_bomb()
    assert 150_000 < len(bomb) < 400_000
    before = files_under(tmp_path)
    response, growth = peak_growth_mb(lambda: post(client, "bomb.zip", bomb))
    message = refusal(response)
    assert re.search(r"bomb\.zip: The ZIP would unpack to 209\.72 MB .* over the limit of 50 MB", message), message
    assert growth < 100, f"memory grew by {growth:.0f} MB"
    assert stored(app) == []
    assert files_under(tmp_path) == before


@pytest.mark.slow  # 2-5 s
def test_gzip_bomb_is_refused_without_using_memory(app, private_tmp):
    client = app.test_client()
    bomb = gzip.compress(b"label,text\n" + bytes(200 * 1024 * 1024), compresslevel=9, mtime=0)
    assert len(bomb) < 400_000
    response, growth = peak_growth_mb(lambda: post(client, "bomb.csv.gz", bomb))
    assert "once decompressed" in refusal(response)
    assert growth < 100, f"memory grew by {growth:.0f} MB"
    assert stored(app) == []


def test_zip_slip_is_refused_and_writes_nothing(app, private_tmp, tmp_path):
    client = app.test_client()
    marker = f"webnb-zip-slip-{uuid.uuid4().hex}.txt"
    targets = [
        f"../../{marker}",
        f"pos/../../../{marker}",
        f"/tmp/{marker}",
        f"{tmp_path}/{marker}",
        f"..\\..\\{marker}",
        f"C:/{marker}",
    ]
    places = [
        Path("/tmp"), tmp_path, tmp_path.parent, tmp_path.parent.parent, Path.cwd(), Path.cwd().parent, private_tmp
    ]
    for target in targets:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr("pos/a.txt", "good match")
            archive.writestr("neg/b.txt", "dull match")
            archive.writestr(zipfile.ZipInfo(target), "payload")
        message = refusal(post(client, "slip.zip", buffer.getvalue()))
        assert "unsafe path" in message and marker in message
    assert stored(app) == []
    assert not any((place / marker).exists() for place in places)
    assert not [path for path in private_tmp.rglob("*")]
    assert not list(Path(app.instance_path).rglob(marker))
    assert os.path.exists(tmp_path)  # the checks above looked at a real folder
