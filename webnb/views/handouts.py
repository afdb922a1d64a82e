"""Handouts and figures: "the whole lecture" (every slide of the walk for the lesson's state, on one printable page)
and each chart as a standalone SVG file.

Both are drawn by the pages themselves, in one request: each slide (or the page that draws a chart) is asked of
the app inside this request, through Flask's own dispatch, with this request's session and address, so that the
same access checks answer (a student only ever sees their own corpus) and the rate limit counts one request, not
one per slide. Nothing is read back from the HTML a page writes:

- a slide asked for a handout is drawn in handout mode (``handout_slide()`` in the templates): only the slide, no
  site header, deck bar, forms or buttons, its ids prefixed with the slide's number (``id_prefix``) so that they
  stay unique on the one printed page;
- a chart asked for as a file stops the page at the moment it is drawn (``offer_figure``, called by the template
  macro ``figure_svg``), and the file is drawn from the same drawing, title and legend entries, under the state
  line the slides write (webnb/lesson/slides.py: context_line).
"""
from __future__ import annotations

import json
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

from flask import (
    Blueprint,
    abort,
    current_app,
    g,
    has_request_context,
    jsonify,
    render_template,
    request,
    session,
    url_for,
)
from flask.ctx import RequestContext
from markupsafe import Markup, escape
from werkzeug.exceptions import HTTPException
from werkzeug.test import EnvironBuilder

from webnb.answers import wants_json
from webnb.lesson import pages
from webnb.lesson.notation import NOTATIONS
from webnb.lesson.slides import context_line
from webnb.lesson.state import LESSON_PARAMETERS, TABLE_PARAMETERS, parse_state, parse_table_state
from webnb.views.common import (
    LARGE_CORPUS,
    WorkInProgress,
    catalog,
    corpus_or_404,
    download,
    entry_defaults,
    load_lesson,
)
from webnb.views.gaussian.lesson import load_table_lesson, table_defaults

bp = Blueprint("handouts", __name__)

PER_PAGE = ("1", "2")  # slides on each printed page
RELOAD_SECONDS = 3  # while slides are being computed, the handout asks for itself again this often
FIGURE_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")
# What an inner request carries in its WSGI environ (never a header, so no browser can set it): the id prefix of the
# slide drawn for a handout, and the name of the chart wanted as a file.
HANDOUT_SLIDE = "webnb.handout_slide"
FIGURE_WANTED = "webnb.figure_wanted"
CHARTS_CSS = "charts.css"  # the charts' colours and strokes (static/charts.css), embedded in every SVG file
HEADER_LINE = 22  # the height of a line of the SVG file's heading, in its units
LEGEND_ROW = 26  # the height of a row of the legend under the drawing
LEGEND_SWATCH = (44, 12)  # a legend swatch's size in the SVG file


# -- one page of the app, asked inside this request ---------------------------------------------------------------


def inner_page(url: str, marks: dict[str, str] | None = None) -> tuple[str | None, str | None]:
    """The HTML of the app's page at ``url`` (a path and query of this app), asked as this request's browser would
    ask it (its session, cookies and address), without a round trip and without counting against the rate limit a
    second time: ``(html, None)``, or ``(None, why)`` when the page is not there. ``marks`` go into the inner
    request's environ (HANDOUT_SLIDE, FIGURE_WANTED). A page whose numbers are still being computed raises
    WorkInProgress, with the job that computes them; a page asked for a chart raises FigureDrawn when it draws it."""
    app = current_app._get_current_object()
    path, _, query = url.partition("?")
    root = request.script_root
    if root and path.startswith(root):
        path = path[len(root):]
    headers = [(name, value) for name, value in request.headers
               if not name.lower().startswith("hx-") and name.lower() not in ("content-length", "content-type")]
    builder = EnvironBuilder(path=path, query_string=query, headers=headers,
                             base_url=request.host_url + root.lstrip("/"),
                             environ_base={"REMOTE_ADDR": request.remote_addr or "", **(marks or {})})
    try:
        environ = builder.get_environ()
    finally:
        builder.close()
    # An app context of its own (a fresh ``g``), the same session object: the page sees this request's workspace.
    with app.app_context(), RequestContext(app, environ, session=session._get_current_object()):
        try:
            response = app.make_response(app.dispatch_request())
        except HTTPException as error:
            return None, error.description or "It could not be shown."
        if response.status_code != 200:
            return None, "It could not be shown with these settings."
        return response.get_data(as_text=True), None


# -- handout mode, in the templates -------------------------------------------------------------------------------


@bp.app_template_global()
def handout_slide() -> bool:
    """Whether this page is being drawn as a slide of a handout: only the slide, nothing to click."""
    return has_request_context() and HANDOUT_SLIDE in request.environ


class IdPrefix:
    """The template global ``id_prefix``: written before every id a slide can show (and every reference to one),
    it is empty on a page and the slide's number ("s3-") on a handout, where many slides share one page."""

    def __html__(self) -> str:
        return str(escape(request.environ.get(HANDOUT_SLIDE, ""))) if has_request_context() else ""

    def __str__(self) -> str:
        return self.__html__()


bp.add_app_template_global(IdPrefix(), "id_prefix")


# -- the lesson whose handout or figure is asked for --------------------------------------------------------------


def lesson_for(corpus_id: str):
    """The text or table lesson of the corpus, as its own pages load it (the same access checks): (lesson, kind)."""
    entry = corpus_or_404(corpus_id)
    if entry.is_table:
        return load_table_lesson(corpus_id), "table"
    return load_lesson(corpus_id), "text"


def notation_of(lesson, kind: str):
    return NOTATIONS[lesson.state.notation] if kind == "text" else None


@bp.app_template_global()
def lesson_notation(lesson):
    """The notation of a text lesson's symbols (None for a table of numbers), for the state line."""
    return notation_of(lesson, lesson.kind)


# -- the whole lecture ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HandoutSlide:
    slide: pages.DeckSlide
    number: int
    number_in_page: int
    body: Markup | None  # the slide as its page draws it in handout mode; None when it could not be shown (see problem)
    problem: str | None
    pending: str | None = None  # the job computing its numbers in the background (the page reloads itself)


@bp.get("/corpora/<corpus_id>/lecture")
def lecture(corpus_id):
    lesson, kind = lesson_for(corpus_id)
    asked = request.args.get("per_page", "1").strip() or "1"
    per_page = int(asked) if asked in PER_PAGE else 1
    per_page_error = None if asked in PER_PAGE else "Slides per page are 1 or 2: this handout has one slide a page."
    walk = pages.walk(kind)
    if wants_json():
        return jsonify(lecture_twin(lesson, walk))
    slides = []
    for number, slide in enumerate(walk, 1):
        keys = [key for key, _ in slide.page.slides]
        try:
            html, problem = inner_page(lesson.slide_link(slide, presenter=True), {HANDOUT_SLIDE: f"s{number}-"})
        except WorkInProgress as progress:
            html, problem = None, f"Its numbers are still being computed: {progress.job.title.lower()}."
            pending = progress.job.id
        else:
            pending = None
        # The slide as the app drew it, every text and attribute autoescaped by its templates as on any page: the
        # one place where HTML the app made is written into another page as it is (tests/test_security.py).
        body = Markup(html) if html is not None else None
        slides.append(HandoutSlide(slide, number, keys.index(slide.key) + 1, body, problem, pending))
    sheets = [slides[i:i + per_page] for i in range(0, len(slides), per_page)]
    return render_template(
        "handouts/lecture.html", lesson=lesson, kind=kind, notation=notation_of(lesson, kind), sheets=sheets,
        total=len(walk), per_page=per_page, per_page_error=per_page_error,
        pending=sum(s.pending is not None for s in slides), reload_seconds=RELOAD_SECONDS,
        first_page=url_for(pages.PAGES[kind][0].endpoint, corpus_id=lesson.entry.id),
    )


LARGE_CORPUS_TWINS = ("A JSON twin computes its numbers at once, never in the background: on a corpus this large, "
                      "ask each slide's twin at its twin_address.")


def lecture_twin(lesson, walk) -> dict:
    """The handout's JSON twin: every slide of the walk with its address, its twin's address and, on a small
    corpus, the twin itself (or why it could not be shown), read through the same dispatch as the printed slides.
    A twin never waits for counting, so on a large corpus one request would compute every slide's numbers at once:
    there the twins are left to their own addresses."""
    inline = lesson.entry.n_documents <= LARGE_CORPUS
    slides = []
    for number, slide in enumerate(walk, 1):
        address = lesson.slide_link(slide, presenter=True)
        twin_address = address + ("&" if "?" in address else "?") + "format=json"
        text, problem = inner_page(twin_address) if inline else (None, LARGE_CORPUS_TWINS)
        slides.append({"number": number, "page": slide.page.key, "slide": slide.key, "title": slide.title,
                       "address": address, "twin_address": twin_address,
                       "twin": None if text is None else json.loads(text), "problem": problem})
    return {"corpus": lesson.entry.id, "total": len(walk), "slides": slides}


# -- one chart as a standalone SVG file ---------------------------------------------------------------------------


@bp.app_template_global()
def figure_url(name: str) -> str | None:
    """The address of the SVG file of the chart ``name`` (its ``data-figure``) drawn by this request's page, with
    the page's state as its links write it (the lesson's settings as the state reads them, a value it refused left
    out, so that the address means what the page shows), and the page's own parameters (a Beta prior's word and
    class); None when the chart is drawn by something that is not a page of a lesson."""
    kind_page = next(((kind, page) for kind, lesson_pages in pages.PAGES.items() for page in lesson_pages
                      if page.endpoint == request.endpoint), None)
    entry = catalog().get(request.view_args["corpus_id"]) if "corpus_id" in (request.view_args or {}) else None
    if kind_page is None or entry is None:
        return None
    kind, page = kind_page
    table = LESSON_PARAMETERS if kind == "text" else TABLE_PARAMETERS
    parsed = g.get("page_state")
    if parsed is not None and parsed.corpus_id == entry.id:  # the page's view parsed it: read, not parsed again
        state, defaults = parsed.state, parsed.defaults
    elif kind == "text":
        defaults = entry_defaults(entry)
        state = parse_state(request.args, defaults)
    else:
        defaults = table_defaults(entry)
        state = parse_table_state(request.args, defaults)
    settings = {parameter.name for parameter in table.parameters}
    own = [(name, value) for name, value in request.args.items(multi=True)
           if name not in settings and name not in ("presenter", "format")]
    query = "&".join(filter(None, [state.query(defaults, presenter=False), urlencode(own)]))
    path = url_for("handouts.figure", corpus_id=entry.id, page=page.key, name=name)
    return f"{path}?{query}" if query else path


@dataclass(frozen=True)
class Figure:
    """A chart as its page drew it (the template macro figure_svg): its name, size, title as text, the drawing
    inside its <svg>, the classes of that <svg> and of the elements around it, and its legend's entries."""

    name: str
    width: float
    height: float
    title: str
    drawing: Markup
    svg_class: str
    around: str
    legend: tuple


class FigureDrawn(Exception):
    """Raised by ``offer_figure`` when the chart a figure request wants is drawn: the page stops there."""

    def __init__(self, figure: Figure):
        super().__init__(figure.name)
        self.figure = figure


@bp.app_template_global()
def offer_figure(name, width, height, title, drawing, legend=(), around="", svg_class="") -> str:
    """Called by figure_svg for every chart a page draws: nothing on a page; on a page asked for the chart
    ``name`` as a file, the chart itself, raised out of the page (FigureDrawn)."""
    if has_request_context() and request.environ.get(FIGURE_WANTED) == name:
        # The title arrives as the template wrote it (escaped markup) or as plain words.
        words = title.striptags() if isinstance(title, Markup) else " ".join(str(title).split())
        raise FigureDrawn(Figure(name, width, height, words, drawing, svg_class or "",
                                 around or "", tuple(legend)))
    return ""


@bp.get("/corpora/<corpus_id>/figures/<page>/<name>.svg")
def figure(corpus_id, page, name):
    lesson, kind = lesson_for(corpus_id)
    lesson_page = next((p for p in pages.PAGES[kind] if p.key == page), None)
    if lesson_page is None or not FIGURE_NAME.fullmatch(name):
        abort(404)
    query = "&".join(part for part in request.query_string.decode("latin-1").split("&")
                     if part and part.split("=", 1)[0] not in ("presenter", "format"))
    path = url_for(lesson_page.endpoint, corpus_id=lesson.entry.id)
    try:
        _, problem = inner_page(f"{path}?{query}" if query else path, {FIGURE_WANTED: name})
    except FigureDrawn as drawn:
        svg = standalone_svg(drawn.figure, context_line(lesson).text)
    else:
        abort(404, description=problem or "This page draws no such chart with these settings.")
    return download(lesson.entry, f"{lesson_page.key}-{name}", svg, suffix="svg", mimetype="image/svg+xml")


@dataclass(frozen=True)
class PlacedEntry:
    """A legend entry where the SVG file draws it: its swatch at (x, y), its words at (text_x, text_y)."""

    entry: object
    x: float
    y: float
    text_x: float
    text_y: float


def legend_rows(entries, width: float, top: float) -> list[list[PlacedEntry]]:
    """The legend's entries laid out in rows under the drawing, from ``top``, about as wide as their words."""
    rows: list[list[PlacedEntry]] = []
    x = width
    for entry in entries:
        room = 56 + 9 * len(entry.label)
        if x + room > width and (not rows or x > 0):
            rows.append([])
            x = 0
        y = top + LEGEND_ROW * (len(rows) - 1)
        rows[-1].append(PlacedEntry(entry, x, y + 6, x + 50, y + 17))
        x += room + 16
    return rows


def charts_css() -> str:
    """The charts' stylesheet, read when a file is made (so a changed stylesheet is in the next file)."""
    try:
        return (Path(current_app.static_folder) / CHARTS_CSS).read_text(encoding="utf-8")
    except FileNotFoundError:
        current_app.logger.warning("static/%s is missing: the SVG files have no colours of their own", CHARTS_CSS)
        return ""


def standalone_svg(figure: Figure, state: str) -> str:
    """The chart as an SVG file: the same drawing, under its title and the state, its legend below, with the
    charts' stylesheet inside, so that it looks the same outside the app."""
    # About what a line holds: of the title's bold 17-unit type, and of the state's 15-unit type.
    title_lines = textwrap.wrap(figure.title, max(20, int(figure.width / 10.5)))
    state_lines = textwrap.wrap(state, max(20, int(figure.width / 8.5)))
    heading = [("figure-title", line) for line in title_lines] + [("figure-state", line) for line in state_lines]
    top = HEADER_LINE * len(heading) + 12
    total = figure.height + top
    legend = legend_rows(figure.legend, figure.width, total + 8)
    if legend:
        total += 8 + LEGEND_ROW * len(legend)
    # Written as text into the file's <style>, escaped as all text is: an XML parser reads "&gt;" back as ">".
    style = BASE_STYLE + charts_css()
    return render_template(
        "handouts/figure.svg", figure=figure, state=state, heading=heading, header_line=HEADER_LINE, top=top,
        total=total, legend=[placed for row in legend for placed in row], swatch_size=LEGEND_SWATCH,
        style=style,
    )


# What every SVG file needs before the charts' own rules: a white page, readable type, and lines that show.
BASE_STYLE = """svg { font-family: "DejaVu Sans", Arial, Helvetica, sans-serif; font-size: 15px; color: #111; }
.figure-background { fill: #fff; }
.figure-title { font-weight: 700; font-size: 17px; fill: #111; }
.figure-state { font-size: 15px; fill: #333; }
text { fill: #111; }
line, polyline, path { stroke: #111; }
polyline { fill: none; }
"""
