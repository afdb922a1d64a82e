"""Corpora: the list, adding one (paste or upload), and a corpus's documents with their tokens."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from urllib.parse import urlencode

from flask import Blueprint, current_app, redirect, request, url_for

from webnb.engine import CorpusError
from webnb.engine.io.archives import Upload
from webnb.engine.io.uploads import (
    TableShape,
    has_columns,
    inspect_table,
    parse_pasted,
    parse_pasted_table,
    read_upload,
)
from webnb.engine.records.document_window import DocumentWindow, document_pages, document_window
from webnb.hosting.catalog import CorpusEntry
from webnb.lesson.state import Parameter, page_parameters
from webnb.store.database import CorpusSummary
from webnb.views.common import catalog, class_corpora_with_tests, load_lesson, page_number, respond, start_job

bp = Blueprint("corpus", __name__)

# The list of corpora's own parameters, once an upload stored a training corpus and its test corpus (unknown ids
# show nothing).
PARAMETERS = page_parameters(
    Parameter("train_part", str, "", default=""),
    Parameter("test_part", str, "", default=""),
)


@dataclass(frozen=True)
class StoredParts:
    """The training corpus and the test corpus that one upload held (20 Newsgroups by date), both stored."""

    training: CorpusEntry
    test: CorpusEntry

    def to_dict(self) -> dict:
        return {part: {"id": entry.id, "name": entry.name, "documents": entry.n_documents}
                for part, entry in (("training", self.training), ("test", self.test))}


@dataclass(frozen=True)
class CorpusList:
    """The corpora this workspace can open, built-ins first, and what went wrong with a form sent from the list (or,
    after an upload of a training and a test part, the two corpora it stored)."""

    builtin: tuple[CorpusEntry, ...]
    stored: tuple[CorpusSummary, ...]
    error: str | None = None
    parts: StoredParts | None = None

    @property
    def class_corpora(self) -> tuple[tuple[CorpusEntry, CorpusEntry | None], ...]:
        """The class corpora, each with its test part (listed under it, not on its own)."""
        return class_corpora_with_tests(self.builtin)

    def to_dict(self) -> dict:
        test_of = {test.id: entry.id for entry, test in self.class_corpora if test is not None}
        builtin = [{**_listed(entry), **({"test_set_of": test_of[entry.id]} if entry.id in test_of else {})}
                   for entry in self.builtin]
        stored = [
            {"id": summary.id, "name": summary.name, "builtin": False, "source": summary.source,
             "documents": summary.n_documents, "features": list(summary.features) if summary.features else None,
             "classes": list(summary.classes)}
            for summary in self.stored
        ]
        parts = {} if self.parts is None else {"stored_parts": self.parts.to_dict()}
        return {"corpora": builtin + stored, "error": self.error, **parts}


def _listed(entry: CorpusEntry) -> dict:
    """A built-in or class corpus in the list's JSON twin (a class corpus's classes from its kept counts, so that
    listing it never loads its documents)."""
    listed = {"id": entry.id, "name": entry.name, "builtin": True, "source": entry.source,
              "documents": entry.n_documents, "features": list(entry.features) if entry.is_table else None}
    if entry.class_corpus:
        return {**listed, "classes": [label for label, _ in entry.class_counts], "description": entry.description,
                "presets": dict(entry.presets)}
    return {**listed, "classes": list(entry.table.classes if entry.is_table else entry.corpus.classes)}


def _listing(error: str | None = None, form: dict | None = None, status: int = 200, parts: StoredParts | None = None):
    """The list of corpora with the forms that add one (filled in again with ``form`` after an ``error``)."""
    shared = catalog()
    listed = CorpusList(tuple(shared.builtin()), tuple(shared.stored()), error, parts)
    return respond("corpus/index.html", "content", listed, status=status, form=form or {})


def _stored_parts() -> StoredParts | None:
    """The training and test corpora an upload just stored, named in the address it sent the browser to."""
    shared = catalog()
    ids = (PARAMETERS["train_part"].read(request.args).value, PARAMETERS["test_part"].read(request.args).value)
    entries = [shared.get(corpus_id) if corpus_id else None for corpus_id in ids]
    return StoredParts(*entries) if None not in entries else None


@bp.get("/corpora")
def index():
    return _listing(parts=_stored_parts())


def form_error(message: str, form: dict, status: int = 400):
    """The list again, with the form as it was sent and what was wrong with it (nothing was stored)."""
    return _listing(message, form, status)


@bp.post("/corpora/paste")
def paste():
    text = request.form.get("corpus", "")
    name = request.form.get("name", "").strip() or "Pasted corpus"
    form = {"corpus": text, "name": name, "kind": "paste"}
    try:
        # A header row over columns of numbers makes a table (for Gaussian NB); anything else is lines of texts.
        corpus = parse_pasted_table(text, name=name) or parse_pasted(text, name=name)
        corpus_id = catalog().add(corpus, name=name, source="typed in")
    except CorpusError as error:
        return form_error(str(error), form)
    return redirect(url_for("corpus.show", corpus_id=corpus_id), code=303)


@bp.post("/corpora/upload")
def upload():
    upload = request.files.get("file")
    if upload is None or not upload.filename:
        return form_error("Choose a file to upload.", {"kind": "upload"})
    filename = upload.filename
    data = upload.read()
    name = request.form.get("name", "").strip() or filename
    columns = (request.form.get("label_column", "").strip(), request.form.get("text_column", "").strip())
    limit = current_app.config["MAX_CONTENT_LENGTH"]  # also caps what a gzip file may expand to
    shared = catalog()
    corpora_path = url_for("corpus.index")  # built here: the worker thread has no request to build URLs from

    def read_and_store(job=None) -> str:
        # A background job stores the counts after it says it is done (Job.later): the page opens sooner.
        progress, later = (job.report, job.later) if job is not None else (None, None)
        try:
            read = read_upload(data, filename=filename, label_column=columns[0], text_column=columns[1],
                               max_bytes=limit)
            if read.test_corpus is not None:
                return f"{corpora_path}?{_store_parts(shared, read, name, filename, progress, later)}"
            corpus_id = shared.add(read.corpus, name=name, source=f"uploaded {filename}", progress=progress,
                                   later=later)
        except CorpusError as error:
            raise CorpusError(f"{filename}: {error}") from None
        return f"{corpora_path}/{corpus_id}"

    if len(data) > current_app.config["WEBNB_BACKGROUND_UPLOAD_BYTES"]:
        job = start_job(f"Reading {filename}", read_and_store)
        return redirect(url_for("jobs.show", job_id=job.id), code=303)
    try:
        location = read_and_store()
    except CorpusError as error:
        return form_error(str(error), {"kind": "upload", "name": name})
    return redirect(location, code=303)


def _store_parts(shared, read: Upload, name: str, filename: str, progress, later=None) -> str:
    """Store an upload's training corpus and its test corpus, both or neither; the query string naming them."""
    source = f"uploaded {filename}"
    training_id = shared.add(read.corpus, name=f"{name} · {read.corpus.name}", source=source, progress=progress,
                             later=later)
    try:
        test_id = shared.add(read.test_corpus, name=f"{name} · {read.test_corpus.name}", source=source,
                             progress=progress, later=later)
    except CorpusError:
        shared.storage.delete_corpus(training_id)  # the test corpus was refused: nothing was stored
        raise
    return urlencode({"train_part": training_id, "test_part": test_id})


@dataclass(frozen=True)
class Inspection:
    """The layout detected in a chosen file (None for an archive or JSON Lines, which have no columns to choose), or
    why it could not be read."""

    shape: TableShape | None = None
    error: str | None = None

    def to_dict(self) -> dict:
        return {"shape": asdict(self.shape) if self.shape else None, "error": self.error}


@bp.post("/corpora/upload/inspect")
def inspect():
    """The detected layout of a chosen table file, so the user can pick its columns before uploading."""
    upload = request.files.get("file")
    inspection = Inspection()
    if upload is not None and upload.filename:
        data = upload.read()
        if has_columns(data, upload.filename):
            try:
                inspection = Inspection(shape=inspect_table(data, filename=upload.filename))
            except CorpusError as error:
                inspection = Inspection(error=f"{upload.filename}: {error}")
    return respond("corpus/_columns.html", "columns", inspection, inspected=True, shape=inspection.shape,
                   inspect_error=inspection.error)


@dataclass(frozen=True)
class CorpusPage:
    """A page of a corpus's documents with their words, and why they could not be counted (``error``)."""

    entry: CorpusEntry
    error: str | None
    window: DocumentWindow

    def to_dict(self) -> dict:
        corpus = {"id": self.entry.id, "name": self.entry.name, "documents": self.window.n_documents}
        return {"corpus": corpus, "error": self.error, **self.window.to_dict()}


def _analyse(lesson):
    """What the lesson's analysis makes of the documents at some positions (the page's main cost on long
    documents), kept with the corpus for the next student; None when the corpus could not be counted."""
    if lesson.training is None:
        return None
    analyzer, entry = lesson.training.bag.analyzer, lesson.entry
    texts = entry.corpus.texts

    def analyse(indices: range):
        return catalog().kept(entry, ("analysed documents", analyzer.options, indices.start, len(indices)),
                              lambda: tuple(analyzer.explain(texts[i]) for i in indices),
                              lambda explained: sum(16 * len(analysis.text) for analysis in explained))

    return analyse


@bp.get("/corpora/<corpus_id>")
def show(corpus_id):
    lesson = load_lesson(corpus_id)
    corpus = lesson.entry.corpus
    vocabulary_size = len(lesson.training.vocabulary) if lesson.training else None
    window = document_window(corpus, page_number("page", document_pages(len(corpus))), analyse=_analyse(lesson),
                             vocabulary_size=vocabulary_size)
    return respond("corpus/show.html", "documents", CorpusPage(lesson.entry, lesson.error, window), lesson=lesson,
                   section="corpus")
