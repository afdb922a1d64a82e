"""What an archive's own bookkeeping may cost before its documents are read: tar headers that tarfile must never
parse unbounded (CVE-2024-6232: before Python 3.11.10 and 3.12.6 a pax header takes time growing with the square of
its size), a ZIP directory longer than its end record says, and entry names that are not UTF-8. Each is refused
with a CorpusError before the costly part starts; ordinary archives, long paths included, still read.
tests/test_archives.py has the layouts and the other limits."""
from __future__ import annotations

import gzip
import io
import struct
import tarfile
import zipfile

import pytest
from conftest import soup_of

from webnb.engine.io import archives
from webnb.engine.io.archives import ArchiveLimits, read_archive
from webnb.engine.shared.corpus import CorpusError

EXTENSION_TYPES = (tarfile.XHDTYPE, tarfile.XGLTYPE, tarfile.SOLARIS_XHDTYPE, tarfile.GNUTYPE_LONGNAME,
                   tarfile.GNUTYPE_LONGLINK)
LARGEST_EXTENSION = 8 * 1024


@pytest.fixture(autouse=True)
def tarfile_never_parses_a_large_extension_header(monkeypatch):
    """Fails a test at once, instead of freezing it for 40 minutes, when an oversized extension header reaches
    tarfile's parser: ``_proc_member`` is where tarfile dispatches each header it has read to the code that reads
    its records (see tarfile.py), so the module must have refused the archive before."""
    dispatch = tarfile.TarInfo._proc_member

    def bounded(self, archive):
        assert self.type not in EXTENSION_TYPES or self.size <= LARGEST_EXTENSION, (
            f"tarfile was handed a {self.type!r} header of {self.size:,} bytes to parse")
        return dispatch(self, archive)

    monkeypatch.setattr(tarfile.TarInfo, "_proc_member", bounded)


def header(name: str, kind: bytes = tarfile.REGTYPE, size: int = 0, tar_format=tarfile.USTAR_FORMAT) -> bytes:
    info = tarfile.TarInfo(name)
    info.type, info.size = kind, size
    return info.tobuf(format=tar_format)


def entry(name: str, kind: bytes, body: bytes) -> bytes:
    """A header and its body padded to whole 512-byte blocks, written by hand so any type and size can be forged."""
    return header(name, kind, len(body)) + body + bytes(-len(body) % 512)


def document(name: str, text: bytes = b"good") -> bytes:
    return entry(name, tarfile.REGTYPE, text)


def tar(*entries: bytes, gzipped: bool = True) -> bytes:
    data = b"".join(entries) + bytes(1024)  # the end: two zero blocks
    return gzip.compress(data, mtime=0) if gzipped else data


def pax(**records: str) -> bytes:
    """pax records as POSIX writes them: "<length> <keyword>=<value>\\n", the length counting the whole record."""
    body = b""
    for keyword, value in records.items():
        text = f" {keyword.replace('_', '.')}={value}\n".encode()
        length = len(text) + 1
        while length != len(text) + len(str(length)):
            length += 1
        body += str(length).encode() + text
    return body


DOCUMENTS = (document("pos/a.txt", b"good"), document("neg/b.txt", b"bad"))
GZIPPED = pytest.mark.parametrize("gzipped", [True, False], ids=["tar.gz", "tar"])


def test_the_pax_records_helper_counts_its_own_length():
    assert pax(path="pos/a.txt") == b"18 path=pos/a.txt\n"
    assert pax(comment="x" * 90) == b"103 comment=" + b"x" * 90 + b"\n"  # 100 bytes, then the length's 3


# --- 1. extension headers: bounded before tarfile parses them -----------------------------------------------------


@GZIPPED
@pytest.mark.parametrize(
    "kind, what",
    [
        (tarfile.XHDTYPE, "a pax extended header"),
        (tarfile.SOLARIS_XHDTYPE, "a pax extended header"),
        (tarfile.XGLTYPE, "a pax global header"),
        (tarfile.GNUTYPE_LONGNAME, "a GNU long name header"),
        (tarfile.GNUTYPE_LONGLINK, "a GNU long link header"),
    ],
    ids=["pax", "solaris-pax", "pax-global", "gnu-long-name", "gnu-long-link"],
)
def test_a_huge_extension_header_is_refused_before_tarfile_parses_it(kind, what, gzipped):
    # 990,000 digits: before Python 3.11.10, tarfile's pax parsing would take about 40 minutes.
    data = tar(entry("././@PaxHeader", kind, b"1" * 990_000), *DOCUMENTS, gzipped=gzipped)
    if gzipped:
        assert len(data) < 1_500
    with pytest.raises(CorpusError, match=rf"^The tar archive holds {what} of 990,000 bytes, over the limit of "
                                          r"8,192 bytes: .* looks forged; nothing was loaded\.$"):
        read_archive(data, filename="corpus.tar.gz" if gzipped else "corpus.tar")


def test_a_gnu_base_256_size_is_read_too():
    # GNU tar writes sizes of 8 GB and more in base 256 (the first byte's high bit set), with no octal digits.
    long_name = header("././@LongLink", tarfile.GNUTYPE_LONGNAME, 10**10, tarfile.GNU_FORMAT)
    assert long_name[124] & 0x80
    with pytest.raises(CorpusError, match=r"^The tar archive holds a GNU long name header of 10,000,000,000 bytes"):
        read_archive(tar(long_name, *DOCUMENTS))


def read_in_pieces(data: bytes, piece: int) -> bytes:
    """What the module hands tarfile, asked for ``piece`` bytes at a time (tarfile asks for odd sizes too)."""
    stream, read = archives._BoundedStream(data, 10**9, 10**9), []
    while chunk := stream.read(piece):
        read.append(chunk)
    return b"".join(read)


@GZIPPED
@pytest.mark.parametrize("piece", [1, 100, 700, 4097])
def test_headers_split_across_the_pieces_the_stream_comes_in_are_still_checked(piece, gzipped):
    long_path = entry("././@PaxHeader", tarfile.XHDTYPE, pax(path="pos/" + "a" * 600))  # records over two blocks
    fine = tar(DOCUMENTS[1], long_path, document("pos/x.txt"), gzipped=gzipped)
    assert read_in_pieces(fine, piece) == (gzip.decompress(fine) if gzipped else fine)
    huge = tar(DOCUMENTS[1], long_path, document("pos/x.txt"), entry("././@PaxHeader", tarfile.XHDTYPE, b"1" * 990_000),
               DOCUMENTS[0], gzipped=gzipped)
    with pytest.raises(CorpusError, match=r"^The tar archive holds a pax extended header of 990,000 bytes"):
        read_in_pieces(huge, piece)


def test_a_pax_size_record_cannot_hide_a_huge_header_from_the_check():
    """A pax "size" record moves where tarfile reads the next header: every block that is a header is checked, not
    only the ones a walk along the sizes in the headers would reach."""
    decoy = header("neg/decoy.txt", size=512 + 1024 + 990_000)  # a walk by header sizes would skip the huge header
    hidden = entry("././@PaxHeader", tarfile.XHDTYPE, b"1" * 990_000)
    data = tar(DOCUMENTS[1], entry("././@PaxHeader", tarfile.XHDTYPE, pax(size="1024")),
               header("pos/a.txt", size=0), decoy + bytes(512), hidden, DOCUMENTS[0])
    with pytest.raises(CorpusError, match=r"^The tar archive holds a pax extended header of 990,000 bytes"):
        read_archive(data)


@GZIPPED
@pytest.mark.parametrize("tar_format", [tarfile.PAX_FORMAT, tarfile.GNU_FORMAT], ids=["pax", "gnu"])
def test_long_paths_written_as_extension_headers_still_read(tar_format, gzipped):
    long_path = "pos/" + "a-rather-long-review-name-" * 11 + "ending.txt"
    deep_path = "neg/" + "/".join(["folder"] * 40) + "/b.txt"
    assert len(long_path) == 300
    buffer = io.BytesIO()
    # A global pax header, as git archive writes one with the commit it packed.
    options = {"pax_headers": {"comment": "4f2a" * 10}} if tar_format == tarfile.PAX_FORMAT else {}
    with tarfile.open(fileobj=buffer, mode="w:gz" if gzipped else "w", format=tar_format, **options) as archive:
        for path, text in ((long_path, b"good"), (deep_path, b"bad"), ("neg/caf\u00e9.txt", b"ok")):
            info = tarfile.TarInfo(path)
            info.size, info.mtime = len(text), 1_700_000_000.123456  # a fractional time: a pax mtime record
            archive.addfile(info, io.BytesIO(text))
        folder = tarfile.TarInfo("pos/" + "d" * 250)
        folder.type = tarfile.DIRTYPE
        archive.addfile(folder)
    read = read_archive(buffer.getvalue())
    assert read.corpus.ids == ("neg/caf\u00e9.txt", deep_path, long_path)
    assert read.corpus.labels == ("neg", "folder", "pos")
    assert read.corpus.texts == ("ok", "bad", "good")


def test_pax_headers_full_of_digits_are_refused_before_their_cost_adds_up():
    # Each header is under the limit, but tarfile (before 3.11.10) searches every run of digits of every one of
    # them in time growing with the square of the run: 5,000 of these would take 10 minutes.
    digits = entry("././@PaxHeader", tarfile.XHDTYPE, pax(comment="7" * 8_000))
    data = tar(*(digits + document(f"pos/{i}.txt") for i in range(3)), DOCUMENTS[1])
    with pytest.raises(CorpusError, match=r"^The tar archive's pax headers hold long runs of digits, as real ones "
                                          r"never do: it looks forged; nothing was loaded\.$"):
        read_archive(data)


@pytest.mark.slow  # about 1 s
def test_an_archive_with_a_pax_header_for_every_entry_still_reads():
    # GNU tar --format=posix writes the three times of every file in pax records.
    times = pax(mtime="1700000000.123456789", atime="1700000001.123456789", ctime="1700000002.123456789")
    entries = [entry(f"./PaxHeaders/{i}", tarfile.XHDTYPE, times) + document(f"{('pos', 'neg')[i % 2]}/{i:05d}.txt")
               for i in range(2_000)]
    assert len(read_archive(tar(*entries, gzipped=False)).corpus) == 2_000


@pytest.mark.parametrize(
    "records",
    [
        b"2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2=x\n",  # tarfile would scan to the far "=" from every record
        b"30 path=pos/a.txt\n",  # a length past the end
        b"9 path=pos/a.txt\n",  # a length short of the record
        b"18 path pos/a.txt\n",  # no "="
        b"not a record at all",
    ],
    ids=["short-lengths", "length-past-the-end", "length-short", "no-equals", "no-records"],
)
def test_a_pax_header_whose_records_are_not_well_formed_is_refused(records):
    data = tar(entry("././@PaxHeader", tarfile.XHDTYPE, records), *DOCUMENTS)
    with pytest.raises(CorpusError, match=r"^The tar archive holds a pax extended header whose records are not well "
                                          r"formed .*: it is damaged or forged; nothing was loaded\.$"):
        read_archive(data)


def test_trailing_zero_bytes_after_the_pax_records_are_fine():
    data = tar(entry("././@PaxHeader", tarfile.XHDTYPE, pax(path="pos/a.txt") + bytes(20)), DOCUMENTS[0],
               DOCUMENTS[1])
    assert read_archive(data).corpus.ids == ("neg/b.txt", "pos/a.txt")


@GZIPPED
def test_extension_headers_in_a_row_are_refused_before_tarfile_recurses_into_them(gzipped):
    # tarfile reads the header after an extension header by calling itself: 1,000 in a row overflow Python's stack.
    chain = entry("././@PaxHeader", tarfile.XHDTYPE, pax(path="pos/a.txt")) * 1_000
    data = tar(DOCUMENTS[1], chain, DOCUMENTS[0], gzipped=gzipped)
    with pytest.raises(CorpusError, match=r"^The tar archive holds more than 8 extension headers \(pax, GNU long "
                                          r"name or link\) in a row, .* looks forged; nothing was loaded\.$"):
        read_archive(data, limits=ArchiveLimits(max_ratio=10_000))  # the same header 1,000 times compresses well


def sparse_header(name: str, *, extended: bool) -> bytes:
    """An old GNU sparse header, ``extended`` when it says extension blocks follow (tarfile reads them blindly)."""
    block = bytearray(header(name, tarfile.GNUTYPE_SPARSE, 0, tarfile.GNU_FORMAT))
    block[482] = extended
    block[148:156] = b" " * 8
    block[148:156] = b"%06o\x00 " % sum(block)
    return bytes(block)


def test_sparse_files_are_refused_before_tarfile_reads_their_map():
    refused = r"^The tar archive entry 'pos/s\.txt' is not an ordinary file or folder \(.* a sparse file\)"
    # Old GNU format, cut off where tarfile expects the map's next block (it fails with an IndexError).
    with pytest.raises(CorpusError, match=refused):
        read_archive(DOCUMENTS[1] + sparse_header("pos/s.txt", extended=True), filename="sparse.tar")
    # GNU sparse 1.0 in pax records: tarfile reads a map of as many numbers as the file's first line says.
    gnu_sparse = pax(GNU_sparse_major="1", GNU_sparse_minor="0", GNU_sparse_name="pos/s.txt")
    data = tar(DOCUMENTS[1], entry("././@PaxHeader", tarfile.XHDTYPE, gnu_sparse),
               document("GNUSparseFile.0/s.txt", b"99999999\n" + b"1\n" * 20_000))
    with pytest.raises(CorpusError, match=refused):
        read_archive(data)


def test_a_zero_block_is_the_end_and_what_follows_is_not_read():
    data = tar(*DOCUMENTS, gzipped=False) + b"trailing bytes some tools leave"
    assert read_archive(data, filename="corpus.tar").corpus.ids == ("neg/b.txt", "pos/a.txt")


def test_a_header_with_a_bad_checksum_is_reported_by_tarfile_as_before():
    damaged = bytearray(entry("././@PaxHeader", tarfile.XHDTYPE, b"1" * 990_000))
    damaged[148:156] = b"0000000\x00"  # the checksum no longer matches: this is no header
    with pytest.raises(CorpusError, match=r"^This gzip file holds no readable tar archive \(bad checksum\)"):
        read_archive(tar(bytes(damaged), *DOCUMENTS))


# --- 2. a ZIP directory longer than its end record says -----------------------------------------------------------


def forged_zip(records: int, *, declared: int, zip64: bool = False, prefix: bytes = b"") -> bytes:
    """A ZIP of pos/a.txt whose central directory repeats that entry's record ``records`` times while its end
    record says it holds ``declared`` entries; with ``zip64``, the sizes are in a ZIP64 end record; ``prefix`` comes
    before the archive, as a self-extracting archive's program does."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("pos/a.txt", "good")
    valid = buffer.getvalue()
    start, end = valid.rindex(b"PK\x01\x02"), valid.rindex(b"PK\x05\x06")
    files, directory = valid[:start], valid[start:end] * records
    if not zip64:
        return prefix + files + directory + struct.pack(
            "<4s4H2LH", b"PK\x05\x06", 0, 0, declared, declared, len(directory), len(files), 0)
    zip64_end = struct.pack("<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, declared, declared, len(directory),
                            len(files))
    locator = struct.pack("<4sLQL", b"PK\x06\x07", 0, len(files) + len(directory), 1)
    end_record = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    return prefix + files + directory + zip64_end + locator + end_record


ZIP_SHAPES = pytest.mark.parametrize(
    "zip64, prefix", [(False, b""), (True, b""), (False, b"#!/bin/sh\n" * 20), (True, b"#!/bin/sh\n" * 20)],
    ids=["zip", "zip64", "zip-after-a-program", "zip64-after-a-program"])


def forbid_zipfile(monkeypatch) -> None:
    """From here on, the test fails if zipfile is asked to read a directory."""
    def never(*args, **kwargs):
        raise AssertionError("zipfile.ZipFile was asked to read the forged directory")

    monkeypatch.setattr(archives.zipfile, "ZipFile", never)


@ZIP_SHAPES
def test_a_zip_directory_longer_than_its_end_record_says_is_refused_before_zipfile_reads_it(monkeypatch, zip64,
                                                                                            prefix):
    data = forged_zip(5_000, declared=3, zip64=zip64, prefix=prefix)
    assert len(data) < 400_000
    forbid_zipfile(monkeypatch)
    with pytest.raises(CorpusError, match=r"^The ZIP holds more than the limit of 100 entries; nothing was loaded\."):
        read_archive(data, limits=ArchiveLimits(max_entries=100))


@ZIP_SHAPES
def test_a_zip_directory_just_over_the_limit_is_counted_exactly(monkeypatch, zip64, prefix):
    data = forged_zip(101, declared=1, zip64=zip64, prefix=prefix)
    forbid_zipfile(monkeypatch)
    with pytest.raises(CorpusError, match=r"^The ZIP holds 101 entries, more than the limit of 100; nothing was"):
        read_archive(data, limits=ArchiveLimits(max_entries=100))


@ZIP_SHAPES
def test_a_zip_whose_directory_is_what_its_end_record_says_still_reads(zip64, prefix):
    read = read_archive(forged_zip(1, declared=1, zip64=zip64, prefix=prefix), limits=ArchiveLimits(max_entries=1))
    assert (read.corpus.ids, read.corpus.texts) == (("pos/a.txt",), ("good",))


# --- 3. entry names that are not UTF-8 ----------------------------------------------------------------------------


def latin1_tar(tar_format, gzipped: bool = True) -> bytes:
    """A tar naming an entry pos/caf\\xe9.txt: é in Latin-1, one byte that is not UTF-8."""
    buffer = io.BytesIO()
    # surrogateescape writes the name's lone surrogate back as the byte it stands for.
    with tarfile.open(fileobj=buffer, mode="w:gz" if gzipped else "w", format=tar_format, encoding="utf-8",
                      errors="surrogateescape") as archive:
        for name, text in (("pos/caf\udce9.txt", b"good"), ("neg/b.txt", b"bad")):
            info = tarfile.TarInfo(name)
            info.size = len(text)
            archive.addfile(info, io.BytesIO(text))
    return buffer.getvalue()


NOT_UTF8_NAME = (r"^The tar archive entry 'pos/caf\\xe9\.txt' has a name that is not UTF-8 \(byte 0xe9\); nothing "
                 r"was loaded\. Rename the file with a UTF-8 name, or pack the folders again with a tool that writes "
                 r"UTF-8 names\.$")


@GZIPPED
@pytest.mark.parametrize("tar_format", [tarfile.USTAR_FORMAT, tarfile.GNU_FORMAT, tarfile.PAX_FORMAT],
                         ids=["ustar", "gnu", "pax"])
def test_a_tar_entry_named_in_latin1_is_refused_naming_it(tar_format, gzipped):
    data = latin1_tar(tar_format, gzipped)
    assert b"pos/caf\xe9.txt" in (gzip.decompress(data) if gzipped else data)
    with pytest.raises(CorpusError, match=NOT_UTF8_NAME) as refused:
        read_archive(data)
    assert isinstance(refused.value, ValueError) and not isinstance(refused.value, UnicodeError)
    str(refused.value).encode("utf-8")  # the message itself can be shown


def test_a_tar_entry_named_in_latin1_is_refused_through_the_form(app, client):
    response = client.post("/corpora/upload", data={"file": (io.BytesIO(latin1_tar(tarfile.PAX_FORMAT)), "cafe.tgz")},
                           content_type="multipart/form-data")
    assert response.status_code == 400, response.get_data(as_text=True)[:500]
    message = soup_of(response, 400).find(id="form-error").get_text(" ", strip=True)
    assert message.startswith("cafe.tgz: The tar archive entry 'pos/caf\\xe9.txt' has a name that is not UTF-8")
    assert "Nothing was stored" in message


def zip_naming(name: bytes, *, utf8_flag: bool) -> bytes:
    """A ZIP of pos/a.txt and neg/b.txt whose first entry is named ``name`` (raw bytes, as an old zip tool writes
    them), with or without the flag that says names are UTF-8."""
    placeholder = b"pos/" + b"x" * (len(name) - 4)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(placeholder.decode(), "good")
        archive.writestr("neg/b.txt", "bad")
    data = bytearray(buffer.getvalue().replace(placeholder, name))
    if utf8_flag:
        for signature, flags in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
            at = data.index(signature)
            data[at + flags:at + flags + 2] = struct.pack("<H", struct.unpack_from("<H", data, at + flags)[0] | 0x800)
    return bytes(data)


def test_a_zip_entry_named_in_latin1_reads_as_cp437_as_the_zip_format_says():
    # Without the UTF-8 flag, a ZIP's names are cp437 (the ZIP format's own encoding): every byte is a character.
    read = read_archive(zip_naming(b"pos/caf\xe9.txt", utf8_flag=False))
    assert read.corpus.ids == ("neg/b.txt", "pos/caf\u0398.txt")  # 0xe9 is Θ in cp437
    "".join(read.corpus.ids).encode("utf-8")


def test_a_zip_entry_flagged_utf8_but_not_utf8_is_a_clear_refusal():
    with pytest.raises(CorpusError, match=r"^This is not a readable ZIP file \('utf-8' codec can't decode byte 0xe9"):
        read_archive(zip_naming(b"pos/caf\xe9.txt", utf8_flag=True))
