"""The original dataset archives read as they are: tar, tar.gz and ZIP of class folders in the nested layouts of
20 Newsgroups by date, the movie-review polarity data and Ling-Spam, headerless ``label<TAB>text`` lines like the SMS
Spam Collection, and the attacks an archive can carry (bombs, path escapes, links, devices). Every archive is built
here, in memory; tests/test_uploads.py has the ZIP reader's own checks."""
from __future__ import annotations

import gzip
import io
import json
import tarfile
import tracemalloc
import zipfile
from urllib.parse import parse_qs, urlsplit

import pytest
from conftest import RepeatedBytes, soup_of

from webnb.engine.io.archives import DEFAULT_LIMITS, ArchiveLimits, Upload, archive_kind, read_archive
from webnb.engine.io.uploads import looks_like_labelled_lines, read_labelled_lines, read_upload
from webnb.engine.shared.corpus import Corpus, CorpusError


def make_tar(files, *, gzipped=True, special=()) -> bytes:
    """A tar of ``{name: text or bytes}`` (a name ending in "/" is a folder), plus ``special`` TarInfo entries."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz" if gzipped else "w") as archive:
        for name, content in files.items():
            info = tarfile.TarInfo(name.rstrip("/"))
            if name.endswith("/"):
                info.type = tarfile.DIRTYPE
                archive.addfile(info)
                continue
            raw = content.encode() if isinstance(content, str) else content
            info.size = len(raw)
            archive.addfile(info, io.BytesIO(raw))
        for info in special:
            archive.addfile(info, io.BytesIO(b"x" * info.size) if info.size else None)
    return buffer.getvalue()


def make_zip(files) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return buffer.getvalue()


PACKERS = {
    "tar.gz": lambda files: make_tar(files),
    "tar": lambda files: make_tar(files, gzipped=False),
    "zip": make_zip,
}

# review_polarity.tar.gz: a README beside txt_sentoken/, which holds the class folders.
MOVIE_REVIEWS = {
    "poldata.README.2.0": "Polarity dataset v2.0 ... cite Pang and Lee, ACL 2004.\n",
    "txt_sentoken/": "",
    "txt_sentoken/neg/": "",
    "txt_sentoken/neg/cv000_29416.txt": "plot : two teen couples go to a church party .\n",
    "txt_sentoken/neg/cv001_19502.txt": "the happy bastard's quick movie review \" damn that y2k bug .\n",
    "txt_sentoken/pos/": "",
    "txt_sentoken/pos/cv000_29590.txt": "films adapted from comic books have had plenty of success .\n",
}


@pytest.mark.parametrize("packing", PACKERS)
def test_movie_review_polarity_as_it_comes(packing):
    read = read_archive(PACKERS[packing](MOVIE_REVIEWS), filename=f"review_polarity.{packing}")
    assert (read.layout, read.test_corpus, read.note) == ("class folders", None, "")
    corpus = read.corpus
    assert corpus.ids == (
        "txt_sentoken/neg/cv000_29416.txt", "txt_sentoken/neg/cv001_19502.txt", "txt_sentoken/pos/cv000_29590.txt")
    assert corpus.labels == ("neg", "neg", "pos")
    assert corpus.texts == tuple(MOVIE_REVIEWS[path] for path in corpus.ids)
    assert corpus.name == f"review_polarity.{packing}"


def test_a_tar_of_the_current_folder_names_its_entries_without_dot_slash():
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:  # as "tar czf corpus.tgz ." writes them
        for name in (".", "./spam", "./ham"):
            folder = tarfile.TarInfo(name)
            folder.type = tarfile.DIRTYPE
            archive.addfile(folder)
        for name, text in (("./spam/1.txt", "win cash"), ("./ham/2.txt", "lunch at noon")):
            info = tarfile.TarInfo(name)
            info.size = len(text)
            archive.addfile(info, io.BytesIO(text.encode()))
    corpus = read_archive(buffer.getvalue(), filename="corpus.tgz").corpus
    assert (corpus.ids, corpus.labels) == (("ham/2.txt", "spam/1.txt"), ("ham", "spam"))


def newsgroups(prefix="") -> dict:
    return {
        f"{prefix}20news-bydate-train/alt.atheism/49960": "From: mathew\nSubject: Alt.Atheism FAQ\n",
        f"{prefix}20news-bydate-train/alt.atheism/51060": "From: I3150101\nSubject: Re: Gospel Dating\n",
        f"{prefix}20news-bydate-train/sci.med/58043": "From: caf\xe9 owner\n".encode("latin-1"),
        f"{prefix}20news-bydate-test/alt.atheism/53068": "Subject: Re: Atheists in Congress\n",
        f"{prefix}20news-bydate-test/sci.med/59225": b"Subject: r\xe9sum\xe9 \xc3\xa9\n",
    }


@pytest.mark.parametrize("prefix", ["", "20news-bydate/"], ids=["as-it-comes", "in-a-folder"])
@pytest.mark.parametrize("packing", PACKERS)
def test_twenty_newsgroups_by_date_is_a_training_and_a_test_corpus(packing, prefix):
    read = read_archive(PACKERS[packing](newsgroups(prefix)), filename="20news-bydate.tar.gz")
    assert read.layout == "20 Newsgroups by date"
    training, test = read.corpus, read.test_corpus
    assert (training.name, test.name) == ("20news-bydate-train", "20news-bydate-test")
    assert training.ids == tuple(f"{prefix}20news-bydate-train/{path}"
                                 for path in ("alt.atheism/49960", "alt.atheism/51060", "sci.med/58043"))
    assert training.labels == ("alt.atheism", "alt.atheism", "sci.med")
    assert test.labels == ("alt.atheism", "sci.med")
    # Latin-1, as scikit-learn reads the posts: every byte is one character, UTF-8 or not.
    assert training.texts[2] == "From: café owner\n"
    assert test.texts == ("Subject: Re: Atheists in Congress\n", "Subject: résumé Ã©\n")
    assert read.to_dict() == {"layout": "20 Newsgroups by date", "documents": 3,
                              "classes": ["alt.atheism", "sci.med"], "test_documents": 2, "note": None}


def test_any_train_and_test_folders_make_two_corpora_read_as_utf8():
    read = read_archive(make_tar({"data/train/pos/a.txt": "gut", "data/train/neg/b.txt": "schlecht",
                                  "data/test/pos/c.txt": "schön", "data/test/neg/d.txt": "öde"}))
    assert read.layout == "training and test folders"
    assert (read.corpus.name, read.test_corpus.name) == ("train", "test")
    assert read.test_corpus.texts == ("öde", "schön")
    with pytest.raises(CorpusError, match=r"^The file 'data/test/notes\.txt' is not in a class folder"):
        read_archive(make_tar({"data/train/pos/a.txt": "gut", "data/test/pos/c.txt": "schön",
                               "data/test/notes.txt": "x"}))


def test_folders_that_are_not_a_train_and_test_pair_are_classes():
    read = read_archive(make_tar({"train/a.txt": "x", "validation/b.txt": "y"}))
    assert (read.layout, read.corpus.labels, read.test_corpus) == ("class folders", ("train", "validation"), None)


def lingspam(versions=("bare",)) -> dict:
    files = {"lingspam_public/readme.txt": "Ling-Spam ... spmsg files are spam.\n"}
    for version in versions:
        files |= {
            f"lingspam_public/{version}/part1/3-1msg1.txt": f"Subject: re : 2.882 s -> np ({version})\n",
            f"lingspam_public/{version}/part1/spmsga1.txt": f"Subject: great part-time income ({version})\n",
            f"lingspam_public/{version}/part10/9-1142msg1.txt": f"Subject: query : causative ({version})\n",
            f"lingspam_public/{version}/part10/spmsgc100.txt": f"Subject: free money ({version})\n",
        }
    return files


@pytest.mark.parametrize("packing", PACKERS)
def test_lingspam_labels_come_from_the_file_names(packing):
    read = read_archive(PACKERS[packing](lingspam()))
    assert (read.layout, read.note, read.test_corpus) == ("Ling-Spam", "", None)
    assert read.corpus.ids == (
        "lingspam_public/bare/part1/3-1msg1.txt", "lingspam_public/bare/part1/spmsga1.txt",
        "lingspam_public/bare/part10/9-1142msg1.txt", "lingspam_public/bare/part10/spmsgc100.txt")
    assert read.corpus.labels == ("ham", "spam", "ham", "spam")
    assert read.corpus.texts[1] == "Subject: great part-time income (bare)\n"


def test_lingspam_with_its_four_versions_reads_the_bare_one():
    read = read_archive(make_tar(lingspam(("bare", "lemm", "lemm_stop", "stop"))))
    assert len(read.corpus) == 4 and all(text.endswith("(bare)\n") for text in read.corpus.texts)
    assert read.note == "Only the bare version was read; lemm, lemm_stop, stop hold the same messages, processed."
    with pytest.raises(CorpusError, match=r"several versions \(lemm, stop\) but not the bare one"):
        read_archive(make_tar(lingspam(("lemm", "stop"))))
    with pytest.raises(CorpusError, match=r"^The file 'lingspam_public/bare/extra\.txt' is not in a Ling-Spam part"):
        read_archive(make_tar(lingspam() | {"lingspam_public/bare/extra.txt": "x"}))


# --- lines of a label, a TAB and a text -------------------------------------------------------------------------


def test_sms_spam_collection_round_trips(shared_corpora):
    lines = (shared_corpora / "sms-spam-collection-v1" / "all.jsonl").read_text(encoding="utf-8").split("\n")
    records = [json.loads(line) for line in lines if line]
    data = "".join(f"{record['label']}\t{record['text']}\n" for record in records).encode()
    for packed in (data, gzip.compress(data, mtime=0)):
        read = read_upload(packed, filename="SMSSpamCollection")
        assert read.layout == "label, TAB, text"
        corpus = read.corpus
        assert len(corpus) == 5574 and corpus.class_counts() == {"ham": 4827, "spam": 747}
        assert corpus.labels == tuple(record["label"] for record in records)
        assert corpus.texts == tuple(record["text"] for record in records)
        assert corpus.ids == tuple(record["id"] for record in records)


def test_labelled_lines_keep_quotes_spaces_and_tabs_in_the_text():
    data = b'ham\t"Hi," she said\nspam\t  FREE\tentry  \r\n\nham\tok\nspam\tWIN\n'
    assert looks_like_labelled_lines(data)
    corpus = read_upload(data, filename="sms.txt").corpus
    assert corpus == Corpus(texts=('"Hi," she said', "  FREE\tentry  ", "ok", "WIN"),
                            labels=("ham", "spam", "ham", "spam"), ids=("1", "2", "4", "5"), name="sms.txt")
    # The columns the upload form suggests for such a file read it the same way.
    assert read_upload(data, label_column="column 1", text_column="column 2").corpus.texts == corpus.texts


@pytest.mark.parametrize(
    "data",
    [
        b"label\ttext\nham\thello\nspam\twin\n",  # a header: a table whose columns the user confirms
        b"1\tham\thello\n2\tspam\twin\n3\tham\tok\n4\tham\tyes\n",  # three columns
        b"a\tone\nb\ttwo\nc\tthree\nd\tfour\n",  # the first column never repeats: no classes
        b"ham,hello\nspam,win\n",  # no TAB
    ],
    ids=["header", "three-columns", "no-classes", "commas"],
)
def test_other_tables_are_not_labelled_lines(data):
    assert not looks_like_labelled_lines(data)


@pytest.mark.parametrize(
    "data, message",
    [
        (b"ham\thello\nspam win\n", r"^line 2: no TAB between a label and a text\. .*like spam<TAB>WINNER!"),
        (b"ham\thello\n \tlonely\n", r"^line 2: the label before the TAB is empty"),
        (b"\n\n", r"^The file contains no documents"),
    ],
)
def test_labelled_lines_errors(data, message):
    with pytest.raises(CorpusError, match=message):
        read_labelled_lines(data)


# --- what an archive may not hold -------------------------------------------------------------------------------


def test_archive_kind():
    assert archive_kind(make_zip({"a/b.txt": "x"})) == "zip"
    assert archive_kind(make_tar({"a/b.txt": "x"})) == archive_kind(make_tar({"a/b.txt": "x"}, gzipped=False)) == "tar"
    assert archive_kind(b"anything", "corpus.TGZ") == "tar"
    assert archive_kind(gzip.compress(b"label,text\nspam,win\n", mtime=0), "mail.csv.gz") is None
    assert archive_kind(b"label,text\n") is None


def zeros_tar(files: int, size: int) -> bytes:
    """A tar.gz of ``files`` files of ``size`` zero bytes each (and one real document)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=9) as archive:
        fine = tarfile.TarInfo("pos/fine.txt")
        fine.size = 4
        archive.addfile(fine, io.BytesIO(b"good"))
        for i in range(files):
            info = tarfile.TarInfo(f"neg/{i}.txt")
            info.size = size
            archive.addfile(info, io.BufferedReader(RepeatedBytes(size)))
    return buffer.getvalue()


def refused_lightly(data: bytes, message: str, limits=DEFAULT_LIMITS):
    tracemalloc.start()
    try:
        with pytest.raises(CorpusError, match=message):
            read_archive(data, limits=limits)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 20_000_000


def test_tar_bomb_by_ratio_is_refused_as_it_unpacks():
    bomb = zeros_tar(40, 1_000_000)  # 40 MB of zeros: each file and the total under the limits, but 1,000 times
    assert len(bomb) < 100_000
    refused_lightly(bomb, r"^The tar archive unpacks to more than 100 times its [\d.]+ KB: it looks like a tar bomb")


@pytest.mark.slow  # 1-2 s
def test_tar_bomb_by_size_is_refused_from_the_headers():
    bomb = zeros_tar(1, 200_000_000)  # one file of 200 MB, refused before it is unpacked
    refused_lightly(bomb, r"^The file 'neg/0\.txt' is 200 MB \(200,000,000 bytes\), over the limit of 5 MB")
    refused_lightly(bomb, r"^The tar archive would unpack to 200 MB \(200,000,004 bytes\), over the limit of 100 MB",
                    ArchiveLimits(max_total_bytes=100_000_000, max_file_bytes=10**9, max_ratio=10**9))


def test_tar_limits_on_entries_total_and_one_file():
    files = {f"pos/{i}.txt": "x" * 100 for i in range(6)}
    data = make_tar(files)
    with pytest.raises(CorpusError, match=r"^The tar archive holds 6 entries, over the limit of 5; nothing was loaded"):
        read_archive(data, limits=ArchiveLimits(max_entries=5))
    assert len(read_archive(data, limits=ArchiveLimits(max_entries=6)).corpus) == 6
    with pytest.raises(CorpusError, match=r"^The tar archive would unpack to 600 bytes \(600 bytes\), over the lim"):
        read_archive(data, limits=ArchiveLimits(max_total_bytes=500))
    with pytest.raises(CorpusError, match=r"^The file 'pos/0\.txt' is 100 bytes \(100 bytes\), over the limit of 99 "):
        read_archive(data, limits=ArchiveLimits(max_file_bytes=99))


def test_skipped_files_still_count_against_what_a_tar_may_unpack_to():
    data = make_tar({"pos/a.txt": "good", "neg/b.txt": "bad", ".hidden/big.bin": bytes(20_000)}, gzipped=False)
    assert len(read_archive(data).corpus) == 2
    with pytest.raises(CorpusError, match=r"^The tar archive unpacks to more than 11\.14 KB; nothing was loaded"):
        read_archive(data, limits=ArchiveLimits(max_total_bytes=5000, max_entries=3))


@pytest.mark.parametrize("name", ["../evil.txt", "/etc/passwd", "pos/../../b.txt", "C:/x.txt", "pos\\..\\x.txt",
                                  "pos//a.txt"])
@pytest.mark.parametrize("gzipped", [True, False], ids=["tar.gz", "tar"])
def test_tar_path_escapes_are_refused(name, gzipped):
    data = make_tar({"pos/fine.txt": "ok", "neg/fine.txt": "ok", name: "payload"}, gzipped=gzipped)
    with pytest.raises(CorpusError, match=r"^The tar archive entry .* has an unsafe path.*nothing was loaded"):
        read_archive(data)


def special(name: str, kind: bytes, linkname: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, linkname
    return info


@pytest.mark.parametrize(
    "entry, message",
    [
        (special("pos/passwd.txt", tarfile.SYMTYPE, "/etc/passwd"), r"'pos/passwd\.txt' is a symbolic link"),
        (special("pos/link.txt", tarfile.LNKTYPE, "pos/a.txt"), r"'pos/link\.txt' is a hard link"),
        (special("pos/tty", tarfile.CHRTYPE), r"'pos/tty' is not an ordinary file or folder \(a device"),
        (special("pos/disk", tarfile.BLKTYPE), r"'pos/disk' is not an ordinary file or folder"),
        (special("pos/pipe", tarfile.FIFOTYPE), r"'pos/pipe' is not an ordinary file or folder"),
    ],
    ids=["symlink", "hard-link", "character-device", "block-device", "fifo"],
)
def test_tar_links_and_devices_are_refused(entry, message):
    data = make_tar({"pos/a.txt": "good", "neg/b.txt": "bad"}, special=[entry])
    with pytest.raises(CorpusError, match=rf"^The tar archive entry {message}.*nothing was loaded"):
        read_archive(data)


def test_a_tar_holding_a_name_twice_is_refused():
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for text in (b"first", b"second"):
            info = tarfile.TarInfo("pos/a.txt")
            info.size = len(text)
            archive.addfile(info, io.BytesIO(text))
    with pytest.raises(CorpusError, match=r"^The tar archive holds 'pos/a\.txt' twice"):
        read_archive(buffer.getvalue())


@pytest.mark.parametrize(
    "data, filename, message",
    [
        (gzip.compress(b"label,text\nspam,win cash\nham,lunch\n", mtime=0), "corpus.tar.gz",
         r"^This gzip file holds no readable tar archive \(.*\)\. Pack the class folders again"),
        (b"label,text\nspam,win cash\n", "corpus.tar", r"^This is no readable tar archive"),
        (make_tar({"pos/a.txt": " ".join(str(i * 7919 % 10007) for i in range(3000)), "neg/b.txt": "bad"})[:300],
         "cut.tgz",
         r"^The gzip file is incomplete"),
        (make_tar({}), "empty.tar.gz", r"^The tar archive contains no documents\. .*like pos/review1\.txt"),
        (make_tar({"pos/": "", ".DS_Store": "x"}), "hidden.tgz", r"^The tar archive contains no documents"),
        (make_zip({}), "empty.zip", r"^The ZIP contains no documents"),
        (make_tar({"a.txt": "x", "b.txt": "y"}), "flat.tgz", r"^The tar archive has no folders"),
        (make_tar({"pos/a.txt": "good", "neg/b.txt": b"caf\xe9"}), "latin.tgz",
         r"^The file 'neg/b\.txt' is not UTF-8 text \(byte 0xe9 on line 1\)"),
    ],
    ids=["gzip-of-a-table", "not-a-tar", "cut-off", "empty", "only-hidden", "empty-zip", "no-folders", "not-utf8"],
)
def test_unreadable_archives(data, filename, message):
    with pytest.raises(CorpusError, match=message):
        read_upload(data, filename=filename)


def test_one_class_only_is_read_and_refused_when_stored():
    corpus = read_archive(make_tar({"spam/1.txt": "win", "spam/2.txt": "cash"})).corpus
    assert corpus.labels == ("spam", "spam")
    with pytest.raises(CorpusError, match="spam"):
        corpus.require_trainable()


def test_upload_record():
    read = Upload(Corpus.from_pairs([("spam", "win"), ("ham", "hi")]), layout="Ling-Spam", note="Only bare.")
    assert read.to_dict() == {"layout": "Ling-Spam", "documents": 2, "classes": ["ham", "spam"],
                              "test_documents": None, "note": "Only bare."}


# --- through the upload form ------------------------------------------------------------------------------------


def post(client, filename: str, data: bytes, **form):
    return client.post("/corpora/upload", data={"file": (io.BytesIO(data), filename), **form},
                       content_type="multipart/form-data")


def stored_corpus(app, response):
    assert response.status_code == 303, response.get_data(as_text=True)[:800]
    corpus_id = response.headers["Location"].rsplit("/", 1)[1]
    return app.extensions["webnb"]["catalog"].get(corpus_id)


def stored(app) -> list:
    return app.extensions["webnb"]["storage"].list_corpora()


@pytest.mark.parametrize(
    "filename, data, labels, name",
    [
        ("review_polarity.tar.gz", make_tar(MOVIE_REVIEWS), ("neg", "neg", "pos"), "review_polarity.tar.gz"),
        ("review_polarity.tar", make_tar(MOVIE_REVIEWS, gzipped=False), ("neg", "neg", "pos"), "review_polarity.tar"),
        ("lingspam_public.tgz", make_tar(lingspam(("bare", "stop"))), ("ham", "spam", "ham", "spam"),
         "lingspam_public.tgz"),
        ("SMSSpamCollection", b'ham\t"Hi," she said\nspam\tWIN cash now\nham\tok see you\n', ("ham", "spam", "ham"),
         "SMSSpamCollection"),
    ],
    ids=["movie-reviews-tgz", "movie-reviews-tar", "lingspam", "sms"],
)
def test_each_layout_uploads_through_the_form(app, client, filename, data, labels, name):
    entry = stored_corpus(app, post(client, filename, data))
    assert (entry.name, entry.corpus.labels, entry.source) == (name, labels, f"uploaded {filename}")
    assert len(stored(app)) == 1


def test_twenty_newsgroups_upload_stores_two_corpora_and_links_the_evaluation(app, client):
    response = post(client, "20news-bydate.tar.gz", make_tar(newsgroups()), name="20 Newsgroups")
    assert response.status_code == 303
    location = urlsplit(response.headers["Location"])
    query = {key: value for key, (value,) in parse_qs(location.query).items()}
    assert location.path == "/corpora" and set(query) == {"train_part", "test_part"}
    catalog = app.extensions["webnb"]["catalog"]
    training, test = catalog.get(query["train_part"]), catalog.get(query["test_part"])
    assert (training.name, test.name) == ("20 Newsgroups · 20news-bydate-train", "20 Newsgroups · 20news-bydate-test")
    assert (training.corpus.labels, test.corpus.labels) == (("alt.atheism", "alt.atheism", "sci.med"),
                                                            ("alt.atheism", "sci.med"))
    assert len(stored(app)) == 2

    page = soup_of(client.get(response.headers["Location"]))
    notice = page.find(id="stored-parts")
    assert "stored as two corpora" in notice.get_text(" ", strip=True)
    links = {" ".join(a.get_text().split()): a["href"] for a in notice.find_all("a")}
    evaluation = f"/corpora/{training.id}/evaluation?test={test.id}"
    assert links == {
        "20 Newsgroups · 20news-bydate-train": f"/corpora/{training.id}",
        "20 Newsgroups · 20news-bydate-test": f"/corpora/{test.id}",
        "Evaluate the model of 20 Newsgroups · 20news-bydate-train on 20 Newsgroups · 20news-bydate-test": evaluation,
    }
    twin = client.get(response.headers["Location"] + "&format=json").get_json()
    assert twin["stored_parts"] == {
        "training": {"id": training.id, "name": training.name, "documents": 3},
        "test": {"id": test.id, "name": test.name, "documents": 2},
    }
    evaluated = soup_of(client.get(evaluation))
    assert evaluated.find(id="form-error") is None
    # Without the parts (or with ids that are not corpora) the list says nothing about them.
    assert soup_of(client.get("/corpora")).find(id="stored-parts") is None
    assert soup_of(client.get(f"/corpora?train_part={training.id}&test_part=nope")).find(id="stored-parts") is None
    assert "stored_parts" not in client.get("/corpora?format=json").get_json()


def refusal(response) -> str:
    assert response.status_code == 400, response.get_data(as_text=True)[:500]
    return soup_of(response, 400).find(id="form-error").get_text(" ", strip=True)


@pytest.mark.parametrize(
    "filename, data, message",
    [
        ("slip.tar.gz", make_tar({"pos/a.txt": "good", "neg/b.txt": "bad", "../../evil.txt": "payload"}),
         "slip.tar.gz: The tar archive entry '../../evil.txt' has an unsafe path"),
        ("link.tgz", make_tar({"pos/a.txt": "good"}, special=[special("neg/x", tarfile.SYMTYPE, "/etc/passwd")]),
         "link.tgz: The tar archive entry 'neg/x' is a symbolic link"),
        ("spam.tar.gz", make_tar({"spam/1.txt": "win", "spam/2.txt": "cash"}), "spam.tar.gz: "),
        ("not-a.tar.gz", gzip.compress(b"label,text\nspam,win\n", mtime=0),
         "not-a.tar.gz: This gzip file holds no readable"),
        # The test part has one class: the training part, stored first, is removed again.
        ("20news-bydate.tgz", make_tar({k: v for k, v in newsgroups().items() if "test/sci.med" not in k}),
         "20news-bydate.tgz: "),
    ],
    ids=["path-escape", "symlink", "one-class", "gzip-not-tar", "test-part-one-class"],
)
def test_bad_archives_through_the_form_store_nothing(app, client, filename, data, message):
    text = refusal(post(client, filename, data))
    assert text.startswith(message) and "Nothing was stored" in text
    assert stored(app) == []


def test_choosing_an_archive_offers_no_columns(client):
    response = client.post("/corpora/upload/inspect?format=json",
                           data={"file": (io.BytesIO(make_tar(MOVIE_REVIEWS)), "review_polarity.tar.gz")},
                           content_type="multipart/form-data")
    assert response.get_json() == {"shape": None, "error": None}
