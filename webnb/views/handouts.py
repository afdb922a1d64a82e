"""Handouts and figures: "the whole lecture" (every slide of the walk for the lesson's state, on one printable page)
and each chart as a standalone SVG file.

Both are made from the pages themselves, in one request: each slide (or the page that draws a chart) is asked of
the app inside this request, through Flask's own dispatch, with this request's session and address, so that the
same access checks answer (a student only ever sees their own corpus) and the rate limit counts one request, not
one per slide. Nothing is drawn twice: the handout shows the slide's HTML, the SVG file is the page's drawing.
"""
from __future__ import annotations

import json
import re
import textwrap
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Callable
from urllib.parse import urlencode

from flask import (
    Blueprint,
    abort,
    current_app,
    g,
    get_template_attribute,
    jsonify,
    render_template,
    request,
    session,
    url_for,
)
from flask.ctx import RequestContext
from markupsafe import escape
from werkzeug.exceptions import HTTPException
from werkzeug.test import EnvironBuilder

from webnb.answers import wants_json
from webnb.lesson import pages
from webnb.lesson.notation import NOTATIONS
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
# What a printed slide leaves out of the page it comes from: the site's and the lesson's chrome, the deck's bar and
# its keys, forms and buttons, and the page's own line of context (the handout prints the state on every slide).
LEFT_OUT_CLASSES = frozenset({
    "lesson-header", "deck-bar", "deck-keys", "slide-review", "slide-context", "share-form", "figure-download",
    "handout-links", "print-state", "parity-pending",
})
LEFT_OUT_TAGS = frozenset({"form", "nav", "button", "script", "style", "template", "dialog"})
# The attributes that name another element by its id: prefixed with the slide's number, so that ids stay unique.
ID_REFERENCES = ("for", "aria-labelledby", "aria-describedby", "aria-controls", "aria-owns", "headers", "form", "list")
VOID_TAGS = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
                       "wbr"})
# HTML's parser writes every name in lower case; a standalone SVG file (XML) needs SVG's own spelling back.
SVG_NAMES = {name.lower(): name for name in (
    "viewBox", "preserveAspectRatio", "textLength", "lengthAdjust", "gradientUnits", "gradientTransform",
    "patternUnits", "patternTransform", "markerWidth", "markerHeight", "markerUnits", "refX", "refY", "clipPath",
    "clipPathUnits", "linearGradient", "radialGradient", "textPath", "foreignObject", "stdDeviation", "startOffset",
)}
CHARTS_CSS = "charts.css"  # the charts' colours and strokes (static/charts.css), embedded in every SVG file
HEADER_LINE = 22  # the height of a line of the SVG file's heading, in its units
LEGEND_ROW = 26  # the height of a row of the legend under the drawing


# -- one page of the app, asked inside this request ---------------------------------------------------------------


def inner_page(url: str) -> tuple[str | None, str | None]:
    """The HTML of the app's page at ``url`` (a path and query of this app), asked as this request's browser would
    ask it (its session, cookies and address), without a round trip and without counting against the rate limit a
    second time: ``(html, None)``, or ``(None, why)`` when the page is not there. A page whose numbers are still
    being computed raises WorkInProgress, with the job that computes them."""
    app = current_app._get_current_object()
    path, _, query = url.partition("?")
    root = request.script_root
    if root and path.startswith(root):
        path = path[len(root):]
    headers = [(name, value) for name, value in request.headers
               if not name.lower().startswith("hx-") and name.lower() not in ("content-length", "content-type")]
    builder = EnvironBuilder(path=path, query_string=query, headers=headers,
                             base_url=request.host_url + root.lstrip("/"),
                             environ_base={"REMOTE_ADDR": request.remote_addr or ""})
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


# -- a part of a page, copied -------------------------------------------------------------------------------------


class Excerpt(HTMLParser):
    """The elements of an HTML page from the one ``start`` picks (with it, or its content only with ``inner``) to its
    end, without those that ``leave_out`` picks, written again: attributes and text escaped, comments dropped, ids
    prefixed with ``prefix``. With ``xml``, written as XML (SVG's names in their own case, every attribute with a
    value), for a standalone SVG file. ``ancestors`` are the classes of the elements around the start."""

    def __init__(self, start: Callable[[str, dict], bool], leave_out: Callable[[str, dict], bool] = lambda t, a: False,
                 *, inner: bool = False, prefix: str = "", xml: bool = False):
        super().__init__(convert_charrefs=True)
        self.start, self.leave_out, self.inner, self.prefix, self.xml = start, leave_out, inner, prefix, xml
        self.parts: list[str] = []
        # The same, as tokens for a template to write (autoescaped): ("start", tag, attributes, closed),
        # ("text", "", (), text) and ("end", tag, (), "").
        self.tokens: list[tuple] = []
        self.ancestors: list[str] = []
        self.start_attributes: dict = {}
        self._open: list[tuple[str, str]] = []  # (tag, class) of the elements open at this point of the page
        self._taking: tuple[str, int] | None = None  # (tag, nesting) of the start element while inside it
        self._skipping: tuple[str, int] | None = None
        self._done = False

    @property
    def html(self) -> str:
        return "".join(self.parts)

    def handle_starttag(self, tag, attrs):
        self._start(tag, attrs, closed=False)

    def handle_startendtag(self, tag, attrs):
        self._start(tag, attrs, closed=True)

    def _start(self, tag, attrs, closed):
        attributes = dict(attrs)
        void = closed or tag in VOID_TAGS
        if self._taking is None:
            if not self._done and self.start(tag, attributes):
                self.ancestors = [c for _, c in self._open if c]
                self.start_attributes = attributes
                if not self.inner:
                    self._add_tag(tag, attrs, closed)
                if void:
                    self._done = True
                else:
                    self._taking = (tag, 1)
            elif not void:
                self._open.append((tag, attributes.get("class") or ""))
            return
        if self._skipping is not None:
            if tag == self._skipping[0] and not void:
                self._skipping = (tag, self._skipping[1] + 1)
            return
        if self.leave_out(tag, attributes) or "hidden" in attributes:
            if not void:
                self._skipping = (tag, 1)
            return
        if tag == self._taking[0] and not void:
            self._taking = (tag, self._taking[1] + 1)
        self._add_tag(tag, attrs, closed)

    def handle_endtag(self, tag):
        if self._taking is None:
            if not self._done and any(t == tag for t, _ in self._open):
                while self._open and self._open.pop()[0] != tag:
                    pass
            return
        if self._skipping is not None:
            if tag == self._skipping[0]:
                depth = self._skipping[1] - 1
                self._skipping = (tag, depth) if depth else None
            return
        if tag == self._taking[0]:
            depth = self._taking[1] - 1
            self._taking = (tag, depth) if depth else None
            if not depth:
                self._done = True
                if self.inner:
                    return
        if tag not in VOID_TAGS:
            self.parts.append(f"</{self._name(tag)}>")
            self.tokens.append(("end", tag, (), ""))

    def handle_data(self, data):
        if self._taking is not None and self._skipping is None:
            self.parts.append(str(escape(data)))
            self.tokens.append(("text", "", (), data))

    def _name(self, name: str) -> str:
        return SVG_NAMES.get(name, name) if self.xml else name

    def _add_tag(self, tag: str, attrs, closed: bool) -> None:
        self.parts.append(self.write_tag(tag, attrs, closed))
        self.tokens.append(("start", tag, tuple(self._renamed(attrs)), closed))

    def _renamed(self, attrs):
        """The attributes with their ids (and the references to them) prefixed; the id as it was stays in
        data-slide-id, for the stylesheet's rules about it (static/handouts.css). A copied slide is a picture of
        the slide: no htmx attribute (their targets are the slide page's ids)."""
        for name, value in attrs:
            if self.prefix and name.startswith("hx-"):
                continue
            if value is not None and self.prefix and name == "id":
                yield "data-slide-id", value
                value = self.prefix + value
            elif value is not None and self.prefix and name in ID_REFERENCES:
                value = " ".join(self.prefix + ref for ref in value.split())
            elif value is not None and self.prefix and name == "href" and value.startswith("#") and len(value) > 1:
                value = "#" + self.prefix + value[1:]
            yield name, value

    def write_tag(self, tag: str, attrs, closed: bool) -> str:
        """A start tag; ``closed`` writes it self-closing ("/>"), as SVG's elements without content must be, in
        HTML too, and every element without content in XML."""
        written = []
        for name, value in self._renamed(attrs):
            if value is None and self.xml:
                value = name
            written.append(f" {self._name(name)}" if value is None else f' {self._name(name)}="{escape(value)}"')
        end = "/>" if closed or (self.xml and tag in VOID_TAGS) else ">"
        return f"<{self._name(tag)}{''.join(written)}{end}"


def slide_body(html: str, prefix: str) -> list[tuple]:
    """What a slide shows, from its page in presenter mode: the content of <main> without the chrome, as tokens
    that the handout's template writes out (autoescaped, as every template)."""

    def leave_out(tag, attributes):
        return tag in LEFT_OUT_TAGS or bool(LEFT_OUT_CLASSES & set((attributes.get("class") or "").split()))

    excerpt = Excerpt(lambda tag, a: tag == "main", leave_out, inner=True, prefix=prefix)
    excerpt.feed(html)
    excerpt.close()
    return excerpt.tokens


def text_of(html: str) -> str:
    """The text of a piece of HTML, its white space run together."""
    parser = HTMLParser(convert_charrefs=True)
    pieces: list[str] = []
    parser.handle_data = pieces.append
    # A quotation's marks come from the stylesheet on a page; in text they are written.
    parser.handle_starttag = lambda tag, attrs: pieces.append("“") if tag == "q" else None
    parser.handle_endtag = lambda tag: pieces.append("”") if tag == "q" else None
    parser.feed(html)
    parser.close()
    return " ".join("".join(pieces).split())


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


def state_line(lesson, kind: str) -> str:
    """The state as the slides' line of context says it (corpus, model and its settings, the review), as text."""
    slide_context = get_template_attribute("_deck.html", "slide_context")
    return text_of(str(slide_context(lesson, notation_of(lesson, kind))))


# -- the whole lecture ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HandoutSlide:
    slide: pages.DeckSlide
    number: int
    number_in_page: int
    body: list[tuple] | None  # the slide's tokens (see Excerpt); None when it could not be shown (see problem)
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
            html, problem = inner_page(lesson.slide_link(slide, presenter=True))
        except WorkInProgress as progress:
            html, problem = None, f"Its numbers are still being computed: {progress.job.title.lower()}."
            pending = progress.job.id
        else:
            pending = None
        body = slide_body(html, f"s{number}-") if html is not None else None
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


@bp.get("/corpora/<corpus_id>/figures/<page>/<name>.svg")
def figure(corpus_id, page, name):
    lesson, kind = lesson_for(corpus_id)
    lesson_page = next((p for p in pages.PAGES[kind] if p.key == page), None)
    if lesson_page is None or not FIGURE_NAME.fullmatch(name):
        abort(404)
    query = "&".join(part for part in request.query_string.decode("latin-1").split("&")
                     if part and part.split("=", 1)[0] not in ("presenter", "format"))
    path = url_for(lesson_page.endpoint, corpus_id=lesson.entry.id)
    html, problem = inner_page(f"{path}?{query}" if query else path)
    if html is None:
        abort(404, description=problem)
    svg = standalone_svg(html, name, state_line(lesson, kind))
    if svg is None:
        abort(404, description="This page draws no such chart with these settings.")
    return download(lesson.entry, f"{lesson_page.key}-{name}", svg, suffix="svg", mimetype="image/svg+xml")


class Legend(HTMLParser):
    """The legend of the chart ``name``: each swatch (a small <svg class="swatch">, written as XML) and the words
    after it, in the <figure> that holds the chart, as the page shows them beside it."""

    def __init__(self, name: str):
        super().__init__(convert_charrefs=True)
        self.name = name
        self.entries: list[list] = []  # [swatch XML, label] of the figure being read
        self.found: list[tuple[str, str]] = []
        self._figures = 0
        self._holds_chart = False
        self._swatch: Excerpt | None = None
        self._swatch_depth = 0

    def handle_starttag(self, tag, attrs):
        self._start(tag, attrs, closed=False)

    def handle_startendtag(self, tag, attrs):
        self._start(tag, attrs, closed=True)

    def _start(self, tag, attrs, closed):
        attributes = dict(attrs)
        if tag == "figure":
            self._figures += 1
            if self._figures == 1:
                self.entries, self._holds_chart = [], False
        if not self._figures:
            return
        if tag == "svg" and attributes.get("data-figure") == self.name:
            self._holds_chart = True
        if self._swatch is None and tag == "svg" and "swatch" not in (attributes.get("class") or "").split():
            self._end_label()  # the chart itself: its words are no label
        if self._swatch is not None:
            self._swatch._add_tag(tag, attrs, closed or tag in VOID_TAGS)
            self._swatch_depth += tag == "svg" and not closed
        elif tag == "svg" and "swatch" in (attributes.get("class") or "").split():
            self._swatch, self._swatch_depth = Excerpt(lambda t, a: False, xml=True), 1
            self._swatch._add_tag(tag, attrs, closed)
            self.entries.append(["", ""])
        elif tag in ("li", "p") or (tag == "span" and attributes.get("class")):
            self._end_label()

    def _end_label(self):
        """A new item of the legend, or none: the words of the one before end here."""
        if self.entries and self.entries[-1][0]:
            self.entries.append(["", ""])

    def handle_endtag(self, tag):
        if self._swatch is not None:
            if tag not in VOID_TAGS:
                self._swatch.parts.append(f"</{self._swatch._name(tag)}>")
            if tag == "svg":
                self._swatch_depth -= 1
                if not self._swatch_depth:
                    self.entries[-1][0], self._swatch = self._swatch.html, None
            return
        if tag in ("li", "span", "p", "figcaption", "ul"):
            self._end_label()
        if tag == "figure" and self._figures:
            self._figures -= 1
            if not self._figures and self._holds_chart:
                self.found = [(swatch, " ".join(label.split())) for swatch, label in self.entries
                              if swatch and label.strip()]

    def handle_data(self, data):
        if self._figures and self._swatch is None and self.entries and self.entries[-1][0]:
            self.entries[-1][1] += data


def legend_rows(entries: list[tuple[str, str]], width: float, top: float) -> list[list[str]]:
    """The legend's entries (swatch, words) laid out in rows under the drawing, from ``top``: each row's elements."""
    rows: list[list[str]] = []
    x = width
    for swatch, label in entries:
        room = 56 + 9 * len(label)
        if x + room > width and (not rows or x > 0):
            rows.append([])
            x = 0
        y = top + LEGEND_ROW * (len(rows) - 1)
        placed = swatch.replace("<svg", f'<svg x="{x:g}" y="{y + 6:g}" width="44" height="12"', 1)
        rows[-1].append(f'{placed}<text class="figure-legend" x="{x + 50:g}" y="{y + 17:g}">{escape(label)}</text>')
        x += room + 16
    return rows


def legend_of(html: str, name: str) -> list[tuple[str, str]]:
    reader = Legend(name)
    reader.feed(html)
    reader.close()
    return reader.found


def charts_css() -> str:
    """The charts' stylesheet, read when a file is made (so a changed stylesheet is in the next file)."""
    try:
        return (Path(current_app.static_folder) / CHARTS_CSS).read_text(encoding="utf-8")
    except FileNotFoundError:
        current_app.logger.warning("static/%s is missing: the SVG files have no colours of their own", CHARTS_CSS)
        return ""


def standalone_svg(html: str, name: str, state: str) -> str | None:
    """The chart ``name`` of a page as an SVG file: the same drawing, under its title and the state, with the
    charts' stylesheet inside, so that it looks the same outside the app. None when the page has no such chart."""
    excerpt = Excerpt(lambda tag, a: tag == "svg" and a.get("data-figure") == name, xml=True)
    excerpt.feed(html)
    excerpt.close()
    drawing = excerpt.html
    if not drawing:
        return None
    box = (excerpt.start_attributes.get("viewbox") or "").split()
    try:
        width, height = float(box[2]), float(box[3])
    except (IndexError, ValueError):
        return None
    title = text_of(re.search(r"<title[^>]*>(.*?)</title>", drawing, re.S).group(1)) if "<title" in drawing else name
    # About what a line holds: of the title's bold 17-unit type, and of the state's 15-unit type.
    title_lines = textwrap.wrap(title, max(20, int(width / 10.5)))
    state_lines = textwrap.wrap(state, max(20, int(width / 8.5)))
    heading = title_lines + state_lines
    top = HEADER_LINE * len(heading) + 12
    total = height + top
    # The drawing goes in as it is, moved under the heading: its own width and height become the box's.
    placed = [(n, v) for n, v in excerpt.start_attributes.items() if n not in ("x", "y", "width", "height")]
    placed += [("x", "0"), ("y", f"{top:g}"), ("width", f"{width:g}"), ("height", f"{height:g}")]
    drawing = excerpt.write_tag("svg", placed, closed=False) + drawing[drawing.index(">") + 1:]
    for classes in reversed(excerpt.ancestors):
        drawing = f'<g class="{escape(classes)}">{drawing}</g>'
    lines = []
    for number, line in enumerate(heading):
        kind = "figure-title" if number < len(title_lines) else "figure-state"
        lines.append(f'<text class="{kind}" x="0" y="{HEADER_LINE * (number + 1):g}">{escape(line)}</text>')
    legend = legend_rows(legend_of(html, name), width, total + 8)
    if legend:
        total += 8 + LEGEND_ROW * len(legend)
        key = "".join(legend_row for row in legend for legend_row in row)
        for classes in reversed(excerpt.ancestors):
            key = f'<g class="{escape(classes)}">{key}</g>'
        drawing += "\n" + key
    style = (BASE_STYLE + charts_css()).replace("]]>", "]]&gt;")
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{width:g}" height="{total:g}" '
        f'viewBox="0 0 {width:g} {total:g}" role="img">\n'
        f"<title>{escape(title)}</title>\n<desc>{escape(state)}</desc>\n"
        f"<style><![CDATA[\n{style}\n]]></style>\n"
        f'<rect class="figure-background" x="0" y="0" width="{width:g}" height="{total:g}"/>\n'
        + "\n".join(lines) + "\n" + drawing + "\n</svg>\n"
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
