"""What one more training document changes: the counts, the priors and every ψ or θ that moves, and
keeping a copy of the corpus with the document (the corpus shown is never modified)."""
from __future__ import annotations

from flask import Blueprint, redirect, request, url_for

from webnb.engine import CorpusError
from webnb.engine.text.additions import add_document, corpus_with_document
from webnb.notation import NOTATIONS
from webnb.state import MAX_TEXT_LENGTH, parse_state
from webnb.views.common import LARGE_CORPUS, catalog, load_lesson, respond, start_job, wants_json

bp = Blueprint("additions", __name__)


def _document_form(values) -> dict:
    """The label and document of the add form (GET query or POST body); ``submitted`` when the form sent
    a document field at all, so that an empty one can be reported."""
    return {
        "label": values.get("label", ""),
        "document": values.get("document", ""),
        "submitted": "document" in values,
    }


def _problem(classes, form: dict) -> str | None:
    """Why this document cannot be added, in words a student can act on; None when it can."""
    document, label = form["document"], form["label"]
    if len(document) > MAX_TEXT_LENGTH:
        return f"The document is {len(document):,} characters long; the limit is {MAX_TEXT_LENGTH:,}. Shorten it."
    if label not in classes:
        return f"Choose the document's class from the list ({', '.join(classes)})."
    if not document.strip():
        return "Type the text of the document to add."
    return None


def _context(lesson, form: dict, message: str | None = None) -> tuple[dict, dict]:
    state = lesson.state
    classes = lesson.training.classes if lesson.training is not None else tuple(lesson.entry.corpus.classes)
    if form["label"] not in classes and not form["submitted"]:
        form = {**form, "label": classes[0] if classes else ""}
    context = {
        "lesson": lesson,
        "section": "additions",
        "notation": NOTATIONS[state.notation],
        "form": form,
        "classes": classes,
        "addition": None,
        "message": message,
        "max_length": MAX_TEXT_LENGTH,
    }
    if lesson.training is not None and message is None and (form["submitted"] or form["document"]):
        message = _problem(classes, form)
        if message is None:
            options = state.model_options()
            try:
                context["addition"] = add_document(lesson.training, form["label"], form["document"], **options)
            except (CorpusError, ValueError) as error:
                message = str(error)
        context["message"] = message
    addition = context["addition"]
    data = {
        "corpus": {"id": lesson.entry.id, "name": lesson.entry.name, "documents": len(lesson.entry.corpus)},
        "model": state.model_options() | {"alpha": state.alpha},
        "classes": list(classes),
        "error": context["message"] or lesson.error,
        "addition": addition.to_dict() if addition else None,
    }
    return context, data


@bp.get("/corpora/<corpus_id>/add")
def show(corpus_id):
    lesson = load_lesson(corpus_id)
    context, data = _context(lesson, _document_form(request.args))
    response = respond("additions/show.html", "additions", context, data)
    if wants_json() and data["error"]:
        response.status_code = 400
    return response


@bp.post("/corpora/<corpus_id>/add/keep")
def keep(corpus_id):
    """Store a copy of the corpus with the document appended, as a new corpus, and open its parameters."""
    form = _document_form(request.form)
    entry = catalog().get(corpus_id)
    if entry is None:
        return "There is no such corpus.", 404
    problem = _problem(entry.corpus.classes, form) or (
        None if form["submitted"] else "Type the text of the document to add."
    )
    if problem is None:
        corpus = corpus_with_document(entry.corpus, form["label"], form["document"])
        name = f"{entry.name} + 1 document"
        source = f"{entry.name} with one {form['label']} document added"
        state = parse_state(request.args, entry.defaults)
        query = state.query(entry.defaults)
        shared = catalog()
        parameters_path = url_for("parameters.show", corpus_id="__id__")

        def store(job=None) -> str:
            new_id = shared.add(corpus, name=name, source=source, progress=job and job.report)
            path = parameters_path.replace("__id__", new_id)
            return f"{path}?{query}" if query else path

        if len(corpus) > LARGE_CORPUS:
            job = start_job(f"Storing {len(corpus):,} documents as {name}", store)
            return redirect(url_for("jobs.show", job_id=job.id), code=303)
        try:
            return redirect(store(), code=303)
        except CorpusError as error:
            problem = str(error)
    lesson = load_lesson(corpus_id)
    context, _ = _context(
        lesson, form,
        message=str(problem) if "Nothing was stored" in str(problem) else f"{problem} Nothing was stored.",
    )
    response = respond("additions/show.html", "additions", context)
    response.status_code = 400
    return response
