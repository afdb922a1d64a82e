"""What one more training document changes: the counts, the priors and every ψ or θ that moves, and
keeping a copy of the corpus with the document (the corpus shown is never modified)."""
from __future__ import annotations

from dataclasses import dataclass

from flask import Blueprint, redirect, request, url_for

from webnb.answers import wants_json
from webnb.engine import CorpusError
from webnb.engine.records.additions import Addition, add_document, corpus_with_document, document_problem
from webnb.hosting.catalog import CorpusEntry
from webnb.lesson.notation import NOTATIONS
from webnb.lesson.state import MAX_TEXT_LENGTH, Parameter, entry_defaults, page_parameters, parse_state
from webnb.views.common import LARGE_CORPUS, catalog, corpus_or_404, load_lesson, respond, start_job

bp = Blueprint("additions", __name__)

# This page's own parameters: the document to add (a query string or a posted form).
PARAMETERS = page_parameters(
    Parameter("label", str, "", default="", spaces="keep", unset=()),
    Parameter("document", str, "", default="", field="new_document", spaces="keep", unset=()),
)


def _document_form(values) -> dict:
    """The label and document of the add form (GET query or POST body); ``submitted`` when the form sent
    a document field at all, so that an empty one can be reported."""
    document = PARAMETERS["new_document"].read(values)
    return {
        "label": PARAMETERS["label"].read(values).value,
        "document": document.value,
        "submitted": document.text is not None,
    }


@dataclass(frozen=True)
class AdditionPage:
    """The add-a-document page: the corpus, the model's settings, the classes a document may have, and what
    adding the document changes (None before one is given, or with ``message`` saying why it cannot be added).
    ``lesson_error`` is why the corpus cannot be counted with the page's settings, if it cannot."""

    entry: CorpusEntry
    model: dict
    classes: tuple[str, ...]
    message: str | None
    addition: Addition | None
    lesson_error: str | None = None

    @property
    def error(self) -> str | None:
        return self.message or self.lesson_error

    def to_dict(self) -> dict:
        return {
            "corpus": {"id": self.entry.id, "name": self.entry.name, "documents": len(self.entry.corpus)},
            "model": dict(self.model),
            "classes": list(self.classes),
            "error": self.error,
            "addition": self.addition.to_dict() if self.addition else None,
        }


def _page(lesson, form: dict, message: str | None = None) -> tuple[AdditionPage, dict]:
    """What adding the form's document changes, or ``message`` (else the form's problem); with the form as the
    page shows it (the first class chosen until one is)."""
    state = lesson.state
    classes = lesson.training.classes if lesson.training is not None else tuple(lesson.entry.corpus.classes)
    if form["label"] not in classes and not form["submitted"]:
        form = {**form, "label": classes[0] if classes else ""}
    addition = None
    if lesson.training is not None and message is None and (form["submitted"] or form["document"]):
        message = document_problem(classes, form["label"], form["document"], MAX_TEXT_LENGTH)
        if message is None:
            try:
                addition = add_document(lesson.training, form["label"], form["document"], **state.model_options())
            except ValueError as error:
                message = str(error)
    model = dict(state.model_options())
    return AdditionPage(lesson.entry, model, classes, message, addition, lesson.error), form


def _respond(lesson, page: AdditionPage, form: dict, status: int):
    return respond(
        "additions/show.html",
        "additions",
        page,
        status=status,
        lesson=lesson,
        section="additions",
        notation=NOTATIONS[lesson.state.notation],
        form=form,
        classes=page.classes,
        addition=page.addition,
        message=page.message,
        max_length=MAX_TEXT_LENGTH,
    )


def _slide_form(lesson, form: dict) -> dict:
    """The form as the page uses it. In presenter mode, before any document is given (arriving from the deck), the
    slide adds the lesson's review, as a document of the class asked for, else the first (as the form would): the
    slide, and the JSON twin of the same address, show that addition. A document given, even an empty one (which
    the slide then reports), is never replaced; the normal page waits for one."""
    state = lesson.state
    if not state.presenter or form["submitted"] or not state.text.strip():
        return form
    classes = lesson.training.classes if lesson.training is not None else tuple(lesson.entry.corpus.classes)
    if not classes:
        return form
    label = form["label"] if form["label"] in classes else classes[0]
    return {**form, "label": label, "document": state.text, "submitted": True}


@bp.get("/corpora/<corpus_id>/add")
def show(corpus_id):
    lesson = load_lesson(corpus_id)
    form = _slide_form(lesson, _document_form(request.args))
    page, form = _page(lesson, form)
    # htmx swaps only a successful answer, so the page tells what is wrong with status 200; the JSON twin with 400.
    return _respond(lesson, page, form, status=400 if page.error and wants_json() else 200)


@bp.post("/corpora/<corpus_id>/add/keep")
def keep(corpus_id):
    """Store a copy of the corpus with the document appended, as a new corpus, and open its parameters."""
    form = _document_form(request.form)
    entry = corpus_or_404(corpus_id)
    problem = document_problem(entry.corpus.classes, form["label"], form["document"], MAX_TEXT_LENGTH) or (
        None if form["submitted"] else "Type the text of the document to add."
    )
    if problem is None:
        corpus = corpus_with_document(entry.corpus, form["label"], form["document"])
        name = f"{entry.name} + 1 document"
        source = f"{entry.name} with one {form['label']} document added"
        defaults = entry_defaults(entry)
        state = parse_state(request.args, defaults)
        query = state.query(defaults)
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
    message = str(problem) if "Nothing was stored" in str(problem) else f"{problem} Nothing was stored."
    page, form = _page(lesson, form, message)
    return _respond(lesson, page, form, status=400)
