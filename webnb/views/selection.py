"""Feature selection (Manning, Raghavan & Schütze, *Introduction to Information Retrieval*, §13.5): for each word and
class, the class against all the others and the documents that hold the word or lack it, the 2 × 2 table of
document counts with its mutual information (in bits) and χ²; one such table opened with both formulas filled in,
from a word and a class of the corpus or from four counts typed in (the book's export/poultry example); and the test
accuracy of a model that keeps only the top k words by each measure (the book's figure 13.8).

This module reads the address, keeps the curves (a background job on a large corpus) and serves the records of
webnb/lesson/selection_records.py, which write every sentence the page and its slides say."""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from flask import Blueprint, request

from webnb.answers import is_htmx, wants_json
from webnb.engine.shared.numbers import parse_whole
from webnb.engine.text.selection import ContingencyTable
from webnb.hosting.work import Busy, heavy
from webnb.lesson import slides
from webnb.lesson.notation import NOTATIONS
from webnb.lesson.selection_chart import MEASURE_NAMES, curves_chart
from webnb.lesson.selection_records import (
    CHI2_THRESHOLD,
    IIR_EXAMPLE,
    CellPage,
    SelectionCurves,
    SelectionTable,
    WordRow,
    class_tables,
    score_curves,
    selection_table,
    word_tables,
)
from webnb.lesson.slides import Kept
from webnb.lesson.state import Parameter, class_of_the_corpus, one_of, page_parameters
from webnb.views.common import (
    LARGE_CORPUS,
    Unfinished,
    WorkInProgress,
    catalog,
    find_job,
    held_out_key,
    load_lesson,
    note_kept,
    page_number,
    respond,
    start_job,
    word_filter,
    words_containing,
)

bp = Blueprint("selection", __name__)

# How the table can be ordered (the address's sort=), and what its column is called.
SORTS = {"mi": "mutual information", "chi2": "χ²", "n11": "N₁₁", "n10": "N₁₀", "n01": "N₀₁", "n00": "N₀₀",
         "word": "word"}
COUNTS = ("n11", "n10", "n01", "n00")
# What each count of the table is, for the messages that refuse one.
COUNT_MEANINGS = {
    "n11": "documents of the class that hold the word",
    "n10": "documents of the other classes that hold the word",
    "n01": "documents of the class that lack the word",
    "n00": "documents of the other classes that lack the word",
}
MAX_COUNT = 10**15


def _count(name: str):
    def count(text: str) -> int:
        return parse_whole(text, low=0, high=MAX_COUNT, what=name)

    return count


# This page's own parameters (a form may send them twice; the last wins).
PARAMETERS = page_parameters(
    Parameter("sort", one_of(tuple(SORTS)), f"The table is sorted by {', '.join(SORTS)}.", default="mi",
              field="selection_sort", repeated="last"),
    Parameter("class", class_of_the_corpus, "“{raw:.100}” is not a class of this corpus.", field="selection_class",
              spaces="keep", repeated="last", needs=("classes",)),
    Parameter("word", str, "", default="", field="selection_word", spaces="keep", unset=(), repeated="last"),
    *(Parameter(name, _count(name),
                f"{name} = “{{raw:.40}}”: {name} counts the {COUNT_MEANINGS[name]}, a whole number from 0 to "
                f"{MAX_COUNT:,}.", repeated="last")
      for name in COUNTS),
    Parameter("curves_job", str, "", repeated="last"),  # the background work the curves' note waits for
    Parameter("part", one_of(("curves",)), "", field="selection_part", repeated="last"),  # the curves' note polling
)


CURVES_BYTES = 16_384  # a finished record: three curves of a dozen points


def lesson_curves(lesson, own: dict, slide: bool = False) -> SelectionCurves | Unfinished:
    """The curves of the lesson's model on its test documents, from the catalog's cache or computed now. A large
    corpus computes them in the background (20 Newsgroups: about two seconds, the held-out count first when it is
    not kept): the page shows a note that asks again, its twin says "running", and a slide shows the progress page
    until they are done."""
    entry, state = lesson.entry, lesson.state
    try:
        shared = catalog()
        key = ("selection-curves", held_out_key(lesson), state.model, str(state.alpha))
        found = shared.cache.get(key)
        if found is not None:
            return found
        analysis, vocabulary = state.analysis_options(), state.vocabulary_options()
        test_size, seed = state.split
        if entry.n_documents > LARGE_CORPUS:
            return _background_curves(lesson, own, key, slide)
        held = shared.held_out(entry, analysis, vocabulary, state.test, test_size, seed)
        with heavy(len(held.training.corpus)):
            curves = score_curves(held, state.model, state.alpha)
        shared.cache.put(key, curves, CURVES_BYTES)
        return curves
    except ValueError as problem:
        return Unfinished("failed", str(problem))
    except Busy:
        if slide:  # the slide is the curves: the app's own "busy" answer (503, try again)
            raise
        return Unfinished("failed", BUSY)


# What the page says of its curves when the server has no room for the work now (the table shows all the same).
BUSY = "The server is busy with other work just now, so the curves were not computed; reload the page in a moment."


def _background_curves(lesson, own: dict, key: tuple, slide: bool) -> Unfinished:
    entry, state = lesson.entry, lesson.state
    job_id = PARAMETERS["curves_job"].read(request.args).value
    job = find_job(job_id) if job_id else None
    if job is not None and job.state == "failed" and getattr(job, "key", None) == key:
        return Unfinished("failed", job.error)
    shared, return_to = catalog(), request.full_path
    analysis, vocabulary = state.analysis_options(), state.vocabulary_options()
    test_size, seed = state.split
    kind, alpha = state.model, state.alpha

    def score(job) -> str:
        held = shared.held_out(entry, analysis, vocabulary, state.test, test_size, seed, progress=job.report)
        shared.cache.put(key, score_curves(held, kind, alpha), CURVES_BYTES)
        return return_to

    # A job with the same key still running is the one returned, so reloading or polling never starts it twice.
    job = start_job(f"Scoring a model on the top words by three measures, {entry.n_documents:,} documents", score,
                    key=key)
    if slide and not wants_json():
        raise WorkInProgress(job)
    poll = lesson.link(request.path, extra={**own, "curves_job": job.id, "format": "json"})
    return Unfinished("running", job=job, poll=poll)


# -- the page -------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SelectionPage:
    """The page: one class's table, the curves (None on the table's slide, which does not show them) and what the
    page says about the parameters it could not use."""

    table: SelectionTable
    curves: SelectionCurves | Unfinished | None
    errors: dict

    def to_dict(self) -> dict:
        data = {**self.table.to_dict(), "errors": dict(self.errors)}
        if self.curves is not None:
            data["curves"] = self.curves.to_dict()
        return data


def _table_settings(classes) -> tuple[dict, dict]:
    args = request.args
    readings = {
        "sort": PARAMETERS["selection_sort"].read(args),
        "class": PARAMETERS["selection_class"].read(args, default=classes[0], classes=classes),
    }
    errors = {name: reading.message for name, reading in readings.items() if reading.message}
    settings = {name: reading.value for name, reading in readings.items()}
    settings["q"] = word_filter()
    return settings, errors


def _slide_rows(lesson, table: SelectionTable) -> dict:
    """What the table's slide keeps of the class's list (noted for its twin): its first rows (fewer at the
    projector's zoom) and, one key away, the first page of them."""
    chosen = {}
    for name, part in (("slide_rows", "selection.slide.words"), ("slide_full", "selection.slide.full")):
        most = slides.how_many(part, lesson.state.zoom)
        rows = table.rows[:most]
        note_kept(Kept(part, tuple(range(len(rows))), table.matching, slides.CUTS[part].why,
                       tuple(row.word for row in rows), most))
        chosen[name] = rows
    return chosen


@bp.get("/corpora/<corpus_id>/selection")
def show(corpus_id):
    """One class against the rest: each word's 2 × 2 table, mutual information and χ², sortable and paged; and the
    accuracy of a model on the top k words by each measure."""
    lesson = load_lesson(corpus_id)
    deck = lesson.deck()
    slide = deck.slide.key if deck is not None else None
    context = {"lesson": lesson, "section": "selection", "notation": NOTATIONS[lesson.state.notation]}
    if lesson.training is None:
        return respond("selection/show.html", "selection", None, **context)
    statistics = lesson.training.statistics
    settings, page_errors = _table_settings(statistics.classes)
    own = {"class": settings["class"], "sort": settings["sort"], "q": settings["q"]}
    # the curves' note, asking again
    if is_htmx() and PARAMETERS["selection_part"].read(request.args).value == "curves":
        curves = lesson_curves(lesson, own)
        return respond("selection/show.html", "curves", curves, curves=curves, own=own, **context,
                       chart=_chart(curves, "page"), measure_names=MEASURE_NAMES)
    table = selection_table(statistics, settings["class"], settings["sort"], settings["q"],
                            page=lambda pages: page_number("page", pages),
                            matching=words_containing(statistics.vocabulary, settings["q"]) if settings["q"] else None)
    curves = None if slide == "selection" else lesson_curves(lesson, own, slide=slide == "curves")
    if slide == "selection":
        context.update(_slide_rows(lesson, table))
    elif slide == "curves" and isinstance(curves, SelectionCurves):
        note_kept(Kept("selection.slide.curves", tuple(range(len(curves.curves))), len(curves.curves),
                       slides.CUTS["selection.slide.curves"].why, tuple(MEASURE_NAMES[c.measure]
                                                                        for c in curves.curves),
                       slides.how_many("selection.slide.curves")))
    page = SelectionPage(table, curves, {**lesson.state.errors, **page_errors})
    return respond("selection/show.html", "selection", page, table=table, curves=curves, settings=settings,
                   page_errors=page_errors, own=own, sorts=SORTS, slide=slide, iir_example=IIR_EXAMPLE,
                   measure_names=MEASURE_NAMES, chart=_chart(curves, "slide" if slide else "page"), **context)


def _chart(curves, frame: str):
    return curves_chart(curves.curves, curves.n_words, frame) if isinstance(curves, SelectionCurves) else None


# -- one table opened ---------------------------------------------------------------------------------------------


def _typed_counts() -> tuple[CellPage, int] | None:
    """The cell page of the four counts in the address, and its status; None when it names none."""
    readings = {name: PARAMETERS[name].read(request.args) for name in COUNTS}
    typed = tuple((name, reading.text or "") for name, reading in readings.items())
    given = [name for name, reading in readings.items() if reading.text not in (None, "")]
    if not given:
        return None
    problems = [reading.message for reading in readings.values() if reading.message]
    missing = [name for name in COUNTS if name not in given]
    if missing and not problems:
        problems.append(f"A table needs all four counts, n11, n10, n01 and n00: {' and '.join(missing)} "
                        f"{'is' if len(missing) == 1 else 'are'} missing.")
    if problems:
        return CellPage(None, "counts", error=" ".join(problems), typed=typed), 400
    try:
        table = ContingencyTable(*(readings[name].value for name in COUNTS))
    except ValueError:
        return CellPage(None, "counts", error="The four counts are all 0: the table holds no document (N = 0), so "
                                              "neither measure has a value.", typed=typed), 400
    return CellPage(table, "counts", typed=typed), 200


def _corpus_cell(lesson) -> tuple[CellPage | None, int]:
    """The cell page of the word and class in the address; a word alone is shown against the class it tells
    apart best, and neither opens the first class's word with the largest mutual information."""
    if lesson.training is None:
        return None, 200
    statistics, index = lesson.training.statistics, lesson.training.bag.index
    classes = tuple(statistics.classes)
    word = PARAMETERS["selection_word"].read(request.args).value
    label, unknown_class, _ = PARAMETERS["selection_class"].read(request.args, classes=classes)
    if unknown_class:
        return CellPage(None, "corpus", error=unknown_class), 404
    chosen = None
    if not word:
        label = label or classes[0]
        top = int(np.argmax(class_tables(statistics, classes.index(label)).mutual_information[0]))
        word = statistics.vocabulary[top]
        chosen = f"“{word}” has the largest mutual information with {label}; name another with word=…"
    j = index.get(word)
    if j is None:
        return CellPage(None, "corpus", error=f"“{word[:100]}” is not a word of this vocabulary."), 404
    tables = word_tables(statistics, j)
    rows = tuple(WordRow.of(k + 1, word, c, t) for k, (c, t) in enumerate(zip(classes, tables, strict=True)))
    if label is None:
        best = max(rows, key=lambda row: row.mutual_information)
        label = best.label
        chosen = f"{label} is the class “{word}” has the largest mutual information with; name another with class=…"
    return CellPage(tables[classes.index(label)], "corpus", word, label, chosen, rows), 200


@bp.get("/corpora/<corpus_id>/selection/cell")
def cell(corpus_id):
    """One 2 × 2 table with the formulas of mutual information and χ² filled in: of ``word`` and ``class`` in the
    corpus, or of the four counts ``n11``, ``n10``, ``n01``, ``n00`` (then no word of the corpus is needed)."""
    lesson = load_lesson(corpus_id)
    opened = _typed_counts()
    if opened is not None:
        # Four counts need nothing of the corpus: what keeps its lesson from being counted is not this table's error.
        lesson = replace(lesson, error=None)
    record, status = opened if opened is not None else _corpus_cell(lesson)
    return respond("selection/cell.html", "cell", record, status=status, lesson=lesson, section="selection",
                   notation=NOTATIONS[lesson.state.notation], threshold=CHI2_THRESHOLD)
