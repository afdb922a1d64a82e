"""Corpora: the list, adding one (paste or upload), and a corpus's documents with their tokens."""
from __future__ import annotations

import math

from flask import Blueprint, current_app, jsonify, redirect, render_template, request, url_for

from webnb import security
from webnb.engine import CorpusError, read_corpus_bytes
from webnb.engine.io.uploads import (
    inspect_table,
    parse_pasted,
    parse_pasted_table,
    read_numeric_table,
    read_table,
    read_zip,
)
from webnb.views.common import catalog, load_lesson, page_number, respond, start_job

bp = Blueprint("corpus", __name__)

DOCUMENTS_PER_PAGE = 50
JSON_SUFFIXES = (".jsonl", ".ndjson", ".json", ".jsonl.gz", ".ndjson.gz", ".json.gz")


@bp.app_errorhandler(413)
def too_large(error):
    """A request over one of the limits of webnb/security.py: a long address, a large form field or a large file."""
    kind, message = security.too_large_message()
    if security.wants_json():
        return jsonify({"error": message}), 413
    if kind == "address":
        return render_template("refused.html", title="The address is too long", message=message), 413
    return _form_error(message, {"kind": "upload" if kind == "file" else "paste"}, 413)


@bp.get("/corpora")
def index():
    return render_template("corpus/index.html", builtin=catalog().builtin(), stored=catalog().stored(), form={})


def _form_error(message: str, form: dict, status: int = 400):
    page = render_template(
        "corpus/index.html", builtin=catalog().builtin(), stored=catalog().stored(), form=form, error=message
    )
    return page, status


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
        return _form_error(str(error), form)
    return redirect(url_for("corpus.show", corpus_id=corpus_id), code=303)




@bp.post("/corpora/upload")
def upload():
    upload = request.files.get("file")
    if upload is None or not upload.filename:
        return _form_error("Choose a file to upload.", {"kind": "upload"})
    filename = upload.filename
    data = upload.read()
    name = request.form.get("name", "").strip() or filename
    columns = (request.form.get("label_column", "").strip(), request.form.get("text_column", "").strip())
    limit = current_app.config["MAX_CONTENT_LENGTH"]  # also caps what a gzip file may expand to
    shared = catalog()
    corpora_path = url_for("corpus.index")  # built here: the worker thread has no request to build URLs from

    def read_and_store(job=None) -> str:
        try:
            corpus = _read_upload(data, filename, columns, limit)
            corpus_id = shared.add(corpus, name=name, source=f"uploaded {filename}", progress=job and job.report)
        except CorpusError as error:
            raise CorpusError(f"{filename}: {error}") from None
        return f"{corpora_path}/{corpus_id}"

    if len(data) > current_app.config["WEBNB_BACKGROUND_UPLOAD_BYTES"]:
        job = start_job(f"Reading {filename}", read_and_store)
        return redirect(url_for("jobs.show", job_id=job.id), code=303)
    try:
        location = read_and_store()
    except CorpusError as error:
        return _form_error(str(error), {"kind": "upload", "name": name})
    return redirect(location, code=303)


def _read_upload(data: bytes, filename: str, columns: tuple[str, str], limit: int):
    """The corpus in an uploaded file: a ZIP of class folders, JSON Lines, or a CSV/TSV table (of texts, or a
    table of numbers with a header row, unless the user chose a text column)."""
    if data[:4] == b"PK\x03\x04":
        return read_zip(data, filename=filename)
    if filename.lower().endswith(JSON_SUFFIXES) or data.lstrip()[:1] == b"{":
        return read_corpus_bytes(data, filename=filename, format="jsonl", max_bytes=limit)
    shape = inspect_table(data, filename=filename, max_bytes=limit)
    label_column, text_column = columns
    if shape.numeric_features and not text_column:
        return read_numeric_table(
            data,
            delimiter=shape.delimiter,
            label_column=label_column or shape.suggested_label,
            filename=filename,
            max_bytes=limit,
        )
    return read_table(
        data,
        delimiter=shape.delimiter,
        has_header=shape.has_header,
        label_column=label_column or shape.suggested_label,
        text_column=text_column or shape.suggested_text,
        filename=filename,
        max_bytes=limit,
    )


@bp.post("/corpora/upload/inspect")
def inspect():
    """The detected layout of a chosen table file, so the user can pick its columns before uploading."""
    upload = request.files.get("file")
    context = {"inspected": True}
    if upload is not None and upload.filename:
        data = upload.read()
        if data[:4] != b"PK\x03\x04" and not upload.filename.lower().endswith(JSON_SUFFIXES):
            try:
                context["shape"] = inspect_table(data, filename=upload.filename)
            except CorpusError as error:
                context["inspect_error"] = f"{upload.filename}: {error}"
    return render_template("corpus/_columns.html", **context)


@bp.get("/corpora/<corpus_id>")
def show(corpus_id):
    lesson = load_lesson(corpus_id)
    corpus = lesson.entry.corpus
    pages = max(1, math.ceil(len(corpus) / DOCUMENTS_PER_PAGE))
    page = page_number("page", pages)
    start = (page - 1) * DOCUMENTS_PER_PAGE
    indices = range(start, min(start + DOCUMENTS_PER_PAGE, len(corpus)))
    analyzer = lesson.training.bag.analyzer if lesson.training else None
    analyses = [None] * len(indices)
    if analyzer is not None:  # what the analysis did to each document, the page's main cost on long documents
        analyses = catalog().kept(
            lesson.entry, ("analysed documents", analyzer.options, start, len(indices)),
            lambda: tuple(analyzer.explain(corpus.texts[i]) for i in indices),
            lambda explained: sum(16 * len(analysis.text) for analysis in explained))
    documents = [
        {"index": i, "id": corpus.ids[i], "label": corpus.labels[i], "text": corpus.texts[i], "analysis": analysis}
        for i, analysis in zip(indices, analyses, strict=True)
    ]
    context = {
        "lesson": lesson,
        "documents": documents,
        "page": page,
        "pages": pages,
        "class_counts": corpus.class_counts(),
        "section": "corpus",
    }
    data = {
        "corpus": {"id": lesson.entry.id, "name": lesson.entry.name, "documents": len(corpus)},
        "class_counts": corpus.class_counts(),
        "vocabulary_size": len(lesson.training.vocabulary) if lesson.training else None,
        "error": lesson.error,
        "page": page,
        "pages": pages,
        "documents": [
            {
                "index": d["index"],
                "id": d["id"],
                "label": d["label"],
                "text": d["text"],
                "tokens": list(d["analysis"].features) if d["analysis"] else None,
                "dropped": (
                    [{"word": w.word, "reason": w.reason} for w in d["analysis"].dropped] if d["analysis"] else None
                ),
            }
            for d in documents
        ],
    }
    return respond("corpus/show.html", "documents", context, data)
