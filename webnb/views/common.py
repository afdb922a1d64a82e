"""What every lesson page does: find the corpus, read the state from the URL, count the corpus, and
answer with a full page, an htmx fragment or JSON."""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from urllib.parse import urlencode

import numpy as np
from flask import (
    Response,
    abort,
    current_app,
    g,
    jsonify,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from jinja2 import pass_context
from jinja2_fragments.flask import render_block

from webnb.answers import is_htmx, wants_json
from webnb.engine import NaiveBayes, TrainingSet
from webnb.engine.shared.numbers import ExactNumber
from webnb.hosting.admission import address_key
from webnb.hosting.catalog import CorpusEntry, ScopedCatalog
from webnb.hosting.workspaces import current_workspace, hosted, quota
from webnb.lesson import pages, slides
from webnb.lesson.notation import NOTATIONS
from webnb.lesson.slides import Kept
from webnb.lesson.state import (
    LESSON_PARAMETERS,
    TABLE_PARAMETERS,
    LessonState,
    entry_defaults,
    parse_state,
    read_parameter,
)
from webnb.store.database import ANY_WORKSPACE


def catalog() -> ScopedCatalog:
    """The catalog as this request's workspace sees it (all of it in local mode)."""
    return ScopedCatalog(current_app.extensions["webnb"]["catalog"], current_workspace(), quota())


# The values of α that a slide's − and + step through: exact 0, small pseudo-counts, Laplace's 1 and beyond.
ALPHA_LADDER = tuple(ExactNumber(text) for text in ("0", "0.01", "0.1", "0.5", "1", "2", "5", "10"))


PRESENT_VALUE_CHARS = 500  # a page parameter longer than this is refused, so "Present" leaves it out


class Linking:
    """``link()`` for a page's lesson: needs ``state`` (with ``query``) and ``defaults``, the state that a link
    leaves out, and ``kind``, the lesson's pages ("text" or "table"). Text and table lessons share it."""

    kind = "text"

    def link(self, path: str, extra: dict | None = None, **changes) -> str:
        """``path`` with this lesson's state (with ``changes``), plus page-specific ``extra`` parameters."""
        query = self.state.query(self.defaults, **changes)
        if extra:
            query = "&".join(filter(None, [query, urlencode({k: v for k, v in extra.items() if v not in (None, "")})]))
        return f"{path}?{query}" if query else path

    def short_address(self) -> str:
        """This request's address as a link writes it: the lesson's state without what equals the corpus's defaults
        and presets, then the page's own parameters that say something (the last of repeated ones, as they are
        read). What htmx pushes into the history after a form was sent, instead of every field of the form."""
        return self.link(request.path, self._own_parameters())

    def present_link(self) -> str | None:
        """This page in presenter mode, with the lesson's state and the page's own parameters (the cell's word, the
        sample's draw): "Present" and the key p on a page outside the deck. It opens the page's first slide, or on
        the Bayes'-rule pages, whose slides are the steps, the step on screen. None in the deck and off the lesson."""
        page = pages.page_of(self.kind, request.endpoint)
        if page is None or self.state.presenter:
            return None
        changes = {"slide": self.defaults.slide} if self.first_slide_on_present() else {}
        # A value longer than any word, class or number a page takes was refused with a message on the page: the
        # link leaves it out rather than echo it into every page (a 10,000-digit page= stays in the address alone).
        own = {name: value for name, value in self._own_parameters().items() if len(value) <= PRESENT_VALUE_CHARS}
        return self.link(request.path, own, presenter=True, **changes)

    def first_slide_on_present(self) -> bool:
        """Whether "Present" opens this page's first slide (its ``slide=`` reset), not the step on screen."""
        page = pages.page_of(self.kind, request.endpoint)
        return page is not None and page.slide_parameter == "slide"

    def _own_parameters(self) -> dict:
        """The page's own parameters in this request's address (the last of repeated ones, as they are read)."""
        lesson_names = {parameter.name for parameter in self.parameter_table().parameters}
        return {name: request.args.getlist(name)[-1] for name in request.args if name not in lesson_names}

    def parameter_table(self):
        return LESSON_PARAMETERS if self.kind == "text" else TABLE_PARAMETERS

    # -- the presenter's deck (webnb/lesson/pages.py) ------------------------------------------------------------------

    def deck(self) -> pages.DeckPosition | None:
        """Where this request's slide stands in the lecture, in presenter mode on a page of the deck; else None."""
        page = pages.page_of(self.kind, request.endpoint)
        if page is None or not self.state.presenter:
            return None
        return pages.position(self.kind, request.endpoint, getattr(self.state, page.slide_parameter))

    def slide_link(self, slide: pages.DeckSlide, **changes) -> str:
        """The address of a slide of the deck, with this lesson's state (and ``changes``). The other kind of slide
        parameter is left at its default, so that an address names one slide only."""
        own, other = slide.page.slide_parameter, "step" if slide.page.slide_parameter == "slide" else "slide"
        # A page's first slide is its default: "slide" is then left out of the address.
        key = slide.key if slide.key != slide.page.slides[0][0] else getattr(self.defaults, own)
        changes = {other: getattr(self.defaults, other), own: key, **changes}
        path = url_for(slide.page.endpoint, corpus_id=self.entry.id)
        return self.link(path, self.slide_extra(slide.page), **changes)

    def slide_extra(self, page: pages.LessonPage) -> dict | None:
        """What a page of the deck needs in its address beyond the state (the cell's word, say)."""
        return None

    def slide_title(self, slide: pages.DeckSlide) -> str:
        """The title of a slide of the deck, for this lesson's model (see ``LessonPage.title_of``)."""
        return slide.page.title_of(slide.key, getattr(self.state, "model", ""))


@dataclass(frozen=True)
class TextLesson(Linking):
    """The request's corpus, state and counted training set (None when the options leave no words): one value,
    made once by ``load_lesson``; a view that finds a problem says it with ``with_error``, a new value."""

    entry: CorpusEntry
    state: LessonState
    training: TrainingSet | None
    error: str | None
    trained_on_split: object = None  # the HeldOut whose training part ``training`` is, when state.train == "split"

    @property
    def defaults(self) -> LessonState:
        return entry_defaults(self.entry)

    def with_error(self, error: str | None) -> TextLesson:
        """This lesson with ``error`` said on its page instead of its own (None: this lesson as it is)."""
        return self if error is None else replace(self, error=error)

    @property
    def notation(self):
        """The lesson's notation (webnb/lesson/notation.py): the names of φ, ψ, θ and the pseudo-count on every part
        of a page, the deck's bar and keys included."""
        return NOTATIONS[self.state.notation]

    def alpha_steps(self) -> tuple[ExactNumber | None, ExactNumber | None]:
        """The α one step down and one step up the slide's ladder (None past its ends), for the presenter's − and +."""
        alpha = self.state.alpha
        down = [value for value in ALPHA_LADDER if value < alpha]
        up = [value for value in ALPHA_LADDER if value > alpha]
        return (down[-1] if down else None), (up[0] if up else None)

    def slide_extra(self, page: pages.LessonPage) -> dict | None:
        # One parameter and its Beta prior are shown for the review's first word of the vocabulary (else the
        # vocabulary's first word), in the first class.
        if page.key not in ("cell", "prior") or self.training is None:
            return None
        first = self.review_words(1)
        word = self.training.bag.vocabulary[first[0] if first else 0]
        return {"word": word, "class": self.training.statistics.classes[0] if page.key == "prior" else None}

    def review_words(self, limit: int | None = None) -> list[int]:
        """The vocabulary numbers of the review's words, each once, in the review's order (at most ``limit``): what a
        slide shows of the matrix and of the parameters, and the word one parameter's slide opens on."""
        bag = self.training.bag
        return list(dict.fromkeys(bag.index[t] for t in bag.analyzer(self.state.text) if t in bag.index))[:limit]

    def serves(self, endpoint: str) -> bool:
        """Whether the page or download ``endpoint`` can show this lesson's model (a link to one that cannot is not
        offered)."""
        return _shows(self.state.model, endpoint)

    def model(self) -> tuple[NaiveBayes | None, str | None]:
        """The model the state asks for, and None; or None and why the settings cannot make one (None and None when
        the lesson has no words: its ``error`` says why)."""
        if self.training is None:
            return None, None
        try:
            return self.training.model_with(self.state.model_options()), None
        except ValueError as problem:
            return None, str(problem)


# What an address of a corpus that this browser cannot open says: the corpus was removed, or it is another
# workspace's (in hosted mode a student's corpora are theirs alone), and how to get a copy of one.
NO_SUCH_CORPUS = (
    "There is no corpus {id} here. It was removed, or it belongs to another workspace: in a shared webnb each "
    "student's corpora are their own, so a link copied from someone else's address bar opens nothing. To give "
    "someone a corpus, its owner opens it and uses “Share a copy…”, which makes a link that opens a copy of "
    "their own. The built-in corpora and the class's corpora are on the list of corpora for everyone."
)


def corpus_or_404(corpus_id: str) -> CorpusEntry:
    """The corpus this request's workspace may open, or a 404 on webnb's page saying why there is none and how to
    get a copy."""
    entry = catalog().get(corpus_id)
    if entry is None:
        shown = corpus_id if len(corpus_id) <= 40 else corpus_id[:40] + "…"
        abort(404, NO_SUCH_CORPUS.format(id=f"“{shown}”"))
    return entry


def class_corpora_with_tests(entries) -> tuple[tuple[CorpusEntry, CorpusEntry | None], ...]:
    """The class corpora among ``entries`` as lists show them: each training corpus with its test part (the corpus
    its "test" preset names), which is not listed on its own, so that nobody takes it for a lesson to train on."""
    class_corpora = [entry for entry in entries if entry.class_corpus]
    by_id = {entry.id: entry for entry in class_corpora}
    tests = {entry.id: by_id.get(entry.preset("test")) for entry in class_corpora}
    test_ids = {test.id for test in tests.values() if test is not None}
    return tuple((entry, tests[entry.id]) for entry in class_corpora if entry.id not in test_ids)


# Where a text lesson page sends a table of numbers.
TABLE_PAGES = {
    "parameters.show": "gaussian.parameters",
    "inference.show": "gaussian.inference",
    "evaluation.show": "gaussian.evaluation",
}

# Counting more documents than this takes long enough (about half a second) to show progress instead.
LARGE_CORPUS = 2000


@dataclass(frozen=True)
class PageState:
    """The lesson state of this request's page, parsed once by the view (``g.page_state``), with the defaults it was
    read against: what the parts of the page drawn later (a chart's download address) read instead of the query."""

    corpus_id: str
    state: object  # LessonState or TableState
    defaults: object


class WorkInProgress(Exception):
    """Raised by a view whose data is still being computed; answered with a progress page."""

    def __init__(self, job):
        super().__init__(job.title)
        self.job = job


def load_lesson(corpus_id: str, args=None) -> TextLesson:
    """The lesson of ``corpus_id`` with the state in ``args`` (the request's query, unless another lesson address's
    is given: a question in a class is asked about the slide it was asked from)."""
    args = request.args if args is None else args
    entry = corpus_or_404(corpus_id)
    if entry.is_table:
        # A table of numbers has no words: its own pages teach Gaussian Naive Bayes.
        abort(redirect(url_for(TABLE_PAGES.get(request.endpoint, "gaussian.rows"), corpus_id=corpus_id)))
    defaults = entry_defaults(entry)
    state = parse_state(args, defaults)
    if args is request.args:
        g.page_state = PageState(entry.id, state, defaults)
    try:
        analysis, vocabulary = state.analysis_options(), state.vocabulary_options()
        training = catalog().cached_training_set(entry, analysis, vocabulary)
        if training is None and entry.n_documents > LARGE_CORPUS and not wants_json():
            raise WorkInProgress(_start_counting(entry, analysis, vocabulary))
        if training is None:
            training = catalog().training_set(entry, analysis, vocabulary)
        error = None
    except ValueError as problem:
        training, error = None, str(problem)
    lesson = TextLesson(entry, state, training, error)
    if training is not None and not _shows(state.model, request.endpoint if args is request.args else None):
        # A page about probabilities, asked for Complement Naive Bayes: it says where that model's numbers are.
        return replace(lesson, training=None, error=elsewhere(state.model, request.endpoint))
    if state.train == "split" and training is not None:
        # A misclassified test document opens in the lesson with the model that misclassified it.
        held, problem = load_held_out(replace(lesson, state=replace(state, test="split")))
        lesson = replace(lesson, training=held.training if held is not None else None, trained_on_split=held,
                         error=problem or lesson.error)
    return lesson


@dataclass(frozen=True)
class Unfinished:
    """A part of a page that a background job computes: "running", with its job and the address a JSON client asks
    again (``poll``), or "failed", with the reason."""

    state: str
    error: str | None = None
    job: object = None
    poll: str | None = None

    def to_dict(self) -> dict:
        data = {"state": self.state, "error": self.error}
        if self.job is not None:  # a JSON client asks ``poll`` again until the state is "done"
            data.update(job=self.job.id, progress=self.job.fraction, poll=self.poll)
        return data


# Answers that are not pages of the lesson and serve every model: the downloads (Complement Naive Bayes' parameters
# are its counts and weights, its notebook recomputes its scores; its evaluation says, like the page, that its scores
# give no log loss or confidence) and the check against scikit-learn.
EVERY_MODEL_ENDPOINTS = ("export.matrix", "export.parameters", "export.priors", "export.evaluation",
                         "export.confusion", "export.predictions", "export.notebook", "parity.show")


def _shows(model: str, endpoint: str | None) -> bool:
    """Whether the page (or download) ``endpoint`` can show the text model ``model``."""
    if model in pages.NAIVE_BAYES or endpoint in EVERY_MODEL_ENDPOINTS:
        return True
    page = pages.page_of("text", endpoint) if endpoint else None
    return page is not None and model in page.models


def elsewhere(model: str, endpoint: str | None) -> str:
    """Why a page cannot show ``model`` (Complement Naive Bayes) and which pages do."""
    page = pages.page_of("text", endpoint) if endpoint else None
    what = f"The page “{page.title}”" if page is not None else "This answer"
    showing = [f"“{p.title}”" for p in pages.pages_showing("text", model)
               if p.key not in ("corpus", "matrix", "selection")]  # the model-free ones show nothing of it
    return (f"{what} is about Naive Bayes' probabilities, and Complement Naive Bayes has weights, not probabilities. "
            f"Its weights, its scores and its accuracy beside the other models are on {', '.join(showing[:-1])} and "
            f"{showing[-1]}; choose Bernoulli or multinomial to see this page.")


def load_held_out(lesson: TextLesson, *, progress_page: bool = True):
    """The training and test documents the lesson's state asks for (see ``Catalog.held_out``) and the problem
    that kept them from being made: ``(held, None)`` or ``(None, why)`` (``(None, None)`` for a lesson without a
    training set, whose error is said already). Counting a large corpus answers with a progress page, unless
    ``progress_page`` is False (a form's answer, which a progress page could not send again): then it is counted
    now."""
    if lesson.training is None:
        return None, None
    entry, state = lesson.entry, lesson.state
    analysis, vocabulary = state.analysis_options(), state.vocabulary_options()
    test_size, seed = state.split
    shared = catalog()
    try:
        held = shared.cached_held_out(entry, analysis, vocabulary, state.test, test_size, seed)
        if (held is None and progress_page and state.test == "split" and entry.n_documents > LARGE_CORPUS
                and not wants_json()):
            return_to = request.full_path

            def split(job) -> str:
                shared.held_out(entry, analysis, vocabulary, state.test, test_size, seed, progress=job.report)
                return return_to

            title = f"Counting the training part of {entry.n_documents:,} documents"
            raise WorkInProgress(start_job(title, split, key=(entry.id, analysis, vocabulary, test_size, seed)))
        if held is None:
            held = shared.held_out(entry, analysis, vocabulary, state.test, test_size, seed)
        return held, None
    except ValueError as problem:
        return None, str(problem)


def _start_counting(entry: CorpusEntry, analysis, vocabulary):
    shared = catalog()
    return_to = request.full_path

    def count(job) -> str:
        shared.training_set(entry, analysis, vocabulary, progress=job.report)
        return return_to

    return start_job(
        f"Counting the words of {entry.n_documents:,} documents", count, key=(entry.id, analysis, vocabulary)
    )


def start_job(title: str, work, key=None, unit: str = "documents"):
    """Background work on behalf of this request's workspace (only it may watch the progress). A job with a ``key``
    replaces the workspace's job still waiting to start; jobs start in turn across client addresses and workspaces,
    and past ``WEBNB_MAX_QUEUED_JOBS`` waiting ones the page answers 503 with Retry-After (webnb/hosting/jobs.py)."""
    # The client address, as a keyed hash only (hosted mode; in local mode there is one user).
    address = address_key(request.remote_addr, current_app.config["SECRET_KEY"]) if hosted() else None
    return current_app.extensions["webnb"]["jobs"].start(
        title, work, key=key, unit=unit, workspace=current_workspace(), address=address)


def find_job(job_id: str):
    """The job, if this request's workspace started it."""
    job = current_app.extensions["webnb"]["jobs"].get(job_id)
    workspace = current_workspace()
    if job is None or (workspace is not ANY_WORKSPACE and job.workspace != workspace):
        return None
    return job


@pass_context
def kept_on_page(context, part: str, items, by: str | None = None, one_of_each: str | None = None,
                 score_order: bool = False, drawn_with_ratio: bool | None = None, also=(), also_why: str = "") -> Kept:
    """What the rule ``part`` of webnb/lesson/slides.py keeps of ``items`` on the page being drawn, at its lesson's
    zoom (the template global ``kept``): the first ones, the largest by ``by`` (and the positions ``also`` whatever
    their score), or one of each ``one_of_each`` first.
    Each choice is noted for the request, so that a slide's twin lists what the slide kept."""
    zoom = getattr(getattr(context.get("lesson"), "state", None), "zoom", "") or ""
    if drawn_with_ratio is not None:
        chosen = slides.keep_drawn_words(part, items, drawn_with_ratio)
    elif one_of_each is not None:
        chosen = slides.keep_one_of_each_first(part, items, one_of_each, zoom)
    else:
        chosen = slides.keep(part, items, zoom, by=by, score_order=score_order, also=tuple(also),
                              also_why=also_why)
    g.setdefault("kept_parts", []).append(chosen)
    return chosen


def note_kept(chosen: Kept) -> Kept:
    """Notes what a view chose for its slide (as ``kept`` notes a template's choices), for the slide's twin."""
    g.setdefault("kept_parts", []).append(chosen)
    return chosen


def _shown_on_slide(template: str, block: str, record, context) -> list[dict]:
    """What the slide's parts keep (the view's ``note_kept`` and the template's ``kept``), as the slide itself
    chooses them: its block is drawn and thrown away, so that the twin reports the very choices of the page, not a
    copy of them."""
    render_block(template, block, record=record, **context)
    return [chosen.to_dict() for chosen in g.get("kept_parts", [])]


def respond(template: str, block: str, record=None, *, status: int = 200, **context):
    """Every page's answer: for ``?format=json`` its JSON twin, ``record.to_dict()``; for htmx just the named
    ``block`` of ``template``; otherwise the whole page. ``record`` is what the page shows, as the engine built it
    (None when nothing could be built: then the twin is the lesson's error). The twin also says what the page says
    about the parameters it could not use, and the lesson's error when there is one."""
    if wants_json():
        data = {} if record is None else record.to_dict()
        lesson = context.get("lesson")
        error = getattr(lesson, "error", None)
        if "error" not in data and (record is None or error):
            data["error"] = error
        state_errors = getattr(getattr(lesson, "state", None), "errors", None)
        if state_errors and "errors" not in data:
            data["errors"] = dict(state_errors)
        if getattr(getattr(lesson, "state", None), "presenter", False):
            data["shown_on_slide"] = _shown_on_slide(template, block, record, context)
        response = make_response(jsonify(data))
    else:
        lesson = context.get("lesson")
        if isinstance(lesson, Linking) and request.method == "GET":
            g.linking = lesson  # a class its lecturer leads follows its short address (webnb/room/following.py)
        if is_htmx():
            response = make_response(render_block(template, block, record=record, **context))
            if "linking" in g:
                # static/webnb.js pushes this instead of the form's every field: the address bar is what gets shared.
                response.headers["X-Webnb-Address"] = g.linking.short_address()
        else:
            response = make_response(render_template(template, record=record, **context))
    response.status_code = status
    # Caches must not hand a fragment to a browser that asked for a page, or the reverse.
    response.headers["Vary"] = "HX-Request"
    return response


def download(entry: CorpusEntry, name: str, body: str, suffix: str = "csv", mimetype: str = "text/csv") -> Response:
    """A file to save, named after the corpus: only a built-in's id or a stored corpus's random id goes into the
    name, never text a user typed."""
    response = Response(body, mimetype=mimetype)
    safe_id = re.sub(r"[^A-Za-z0-9_-]", "", entry.id)
    response.headers["Content-Disposition"] = f'attachment; filename="{safe_id}-{name}.{suffix}"'
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


def word_filter() -> str:
    """The ``q`` parameter of the table pages: a substring that words must contain."""
    return read_parameter(request.args, "q").value


def words_containing(vocabulary, query: str) -> np.ndarray:
    """Column numbers of the vocabulary words that contain ``query`` (all of them for an empty query)."""
    if not query:
        return np.arange(len(vocabulary))
    return np.array([j for j, word in enumerate(vocabulary) if query in word], dtype=np.int64)


def page_number(name: str, pages: int) -> int:
    """The page asked for in parameter ``name`` (page, rows, cols or wrong_page), kept between 1 and ``pages``
    (anything but a whole number of at most 40 digits is page 1)."""
    return read_parameter(request.args, name, pages=pages).value


def held_out_key(lesson: TextLesson) -> tuple:
    """The documents a held-out set trains and tests on, as a cache key for what is computed from them: the
    corpus's records (its content hash; a built-in's id), the analysis and vocabulary options, and the test
    documents (the split with its size and seed, the training documents, or another corpus's records). Never an
    object's ``id()``, which a later object may reuse. The test corpus is asked for first, so one that this workspace
    may not see raises CorpusError before any cache is read; any request that gets past that may see the records
    the key names, so an entry made for one workspace can answer another's."""
    entry, state = lesson.entry, lesson.state
    test_entry = catalog().test_corpus(state.test)
    if test_entry is not None:
        tested = ("corpus", test_entry.content or test_entry.id)
    elif state.test == "split":
        tested = ("split", *state.split)
    else:
        tested = ("training",)
    return entry.content or entry.id, state.analysis_options(), state.vocabulary_options(), tested
