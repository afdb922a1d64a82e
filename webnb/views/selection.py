"""Feature selection (Manning, Raghavan & Schütze, *Introduction to Information Retrieval*, §13.5): for each word and
class, the class against all the others and the documents that hold the word or lack it, the 2 × 2 table of
document counts with its mutual information (in bits) and χ²; one such table opened with both formulas filled in,
from a word and a class of the corpus or from four counts typed in (the book's export/poultry example); and the test
accuracy of a model that keeps only the top k words by each measure (the book's figure 13.8).

The page shows one class at a time: its row of tables is made from the kept class statistics (one row of each count,
not the classes × vocabulary arrays of ``WordClassTables.of``), so that 20 Newsgroups' 130,000 words stay quick.
Every sentence the page and its slides say is written from the records below, which the JSON twins give whole."""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction

import numpy as np
from flask import Blueprint, request

from webnb.answers import is_htmx, wants_json
from webnb.engine.shared.forwarding import forwarded
from webnb.engine.shared.numbers import parse_whole
from webnb.engine.shared.plain import fraction_text, number
from webnb.engine.text.selection import ContingencyTable, SelectionCurve, WordClassTables, selection_curves
from webnb.hosting.work import Busy, heavy
from webnb.lesson import slides
from webnb.lesson.formatting import real
from webnb.lesson.notation import NOTATIONS
from webnb.lesson.selection_chart import MEASURE_NAMES, curves_chart
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
ROWS_PER_PAGE = 50
LEADERS = 10  # the page says how many of the top ten words by mutual information are in the top ten by χ²
# χ² with one degree of freedom: where IIR reads X² (10.83: p < 0.001), and the rule of thumb that its p-value needs
# expected counts of five or more.
CHI2_THRESHOLD = Fraction(1083, 100)
SMALL_EXPECTED = 5
# IIR's example (§13.5.1): the word "export" and the class poultry in Reuters-RCV1, I(U;C) ≈ 0.0001105, X² ≈ 284.
IIR_EXAMPLE = {"n11": 49, "n10": 27_652, "n01": 141, "n00": 774_106}


def _percent(share: float) -> str:
    """A share as the pages write one (webnb/lesson/formatting.py: percent): "86.9 %"."""
    return f"{share * 100:.1f} %"


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


# -- the 2 × 2 tables ---------------------------------------------------------------------------------------------


def class_tables(statistics, class_index: int) -> WordClassTables:
    """Every word's table against class ``class_index`` alone, as a ``WordClassTables`` of one row: the same
    counts and formulas as ``WordClassTables.of(statistics)``'s row of that class, without making the other rows."""
    holds = statistics.document_count_[class_index:class_index + 1].astype(np.int64)  # N11
    anywhere = np.asarray(statistics.word_total[True], dtype=np.int64)[None, :]  # documents holding each word
    in_class = int(statistics.class_count_[class_index])
    n10 = anywhere - holds
    return WordClassTables(statistics, holds, n10, in_class - holds, statistics.n_documents - in_class - n10)


def word_tables(statistics, word_index: int) -> tuple[ContingencyTable, ...]:
    """One word's table against each class, in class order."""
    holds = statistics.document_count_[:, word_index].astype(np.int64)
    anywhere, n = int(holds.sum()), statistics.n_documents
    return tuple(ContingencyTable(int(h), anywhere - int(h), int(n_k) - int(h), n - int(n_k) - anywhere + int(h))
                 for h, n_k in zip(holds, statistics.class_count_, strict=True))


@dataclass(frozen=True)
class WordRow:
    """One word against one class: its table and both measures (as ``ContingencyTable`` computes them)."""

    rank: int  # its place in the table's order, from 1
    word: str
    label: str
    table: ContingencyTable
    mutual_information: float
    chi2: Fraction | None

    @classmethod
    def of(cls, rank: int, word: str, label: str, table: ContingencyTable) -> WordRow:
        return cls(rank, word, label, table, table.mutual_information, table.chi_square)

    def to_dict(self) -> dict:
        t = self.table
        return {"rank": self.rank, "word": self.word, "class": self.label, "n11": t.n11, "n10": t.n10,
                "n01": t.n01, "n00": t.n00, "mutual_information": number(self.mutual_information),
                "chi2": None if self.chi2 is None else number(float(self.chi2)), "chi2_exact": fraction_text(self.chi2)}


def _order(tables: WordClassTables, statistics, sort: str) -> np.ndarray:
    """The class's words in the order ``sort`` asks: largest first (a χ² without a value last), alphabetical for
    "word"; ties in vocabulary order."""
    if sort == "word":
        return np.argsort(statistics.alphabetical_rank, kind="stable")
    if sort == "mi":
        key = tables.mutual_information[0]
    elif sort == "chi2":
        key = np.nan_to_num(tables.chi_square[0], nan=-np.inf)
    else:
        key = getattr(tables, sort)[0].astype(float)
    return np.argsort(-key, kind="stable")


def _top(values: np.ndarray, count: int) -> np.ndarray:
    """The positions of the ``count`` largest ``values``, largest first, ties in vocabulary order."""
    return np.argsort(-values, kind="stable")[:count]


@dataclass(frozen=True)
class SelectionTable:
    """One class against the rest: a page of its words' tables in the order asked, and what the page says of the
    whole list (the word each measure ranks first, how far the two measures agree)."""

    label: str
    classes: tuple[str, ...]
    n_documents: int
    in_class: int
    n_words: int
    sort: str
    query: str
    matching: int  # words containing the query (all of them without one)
    page: int
    pages: int
    rows: tuple[WordRow, ...]
    best_mi: WordRow
    best_chi2: WordRow | None
    leaders: int  # how many of the top words by each measure are compared
    agreeing: int  # how many of the top ``leaders`` by mutual information are among the top ``leaders`` by χ²
    undefined_chi2: int  # words whose χ² has no value (in every document)

    @property
    def statements(self) -> dict:
        """The page's sentences about the whole list, as its slide and its twin say them."""
        others = len(self.classes) - 1
        said = {
            "table": (f"{self.label} against {'the other class' if others == 1 else f'the other {others} classes'}: "
                      f"{self.in_class:,} of the {self.n_documents:,} documents are in {self.label}; each word's "
                      f"table counts the documents that hold it and those that lack it."),
            "best_mi": (f"The largest mutual information: “{self.best_mi.word}”, "
                        f"I(U;C) = {self.best_mi.mutual_information:.4g} bits."),
        }
        if self.best_chi2 is not None:
            said["best_chi2"] = f"The largest χ²: “{self.best_chi2.word}”, X² = {float(self.best_chi2.chi2):.4g}."
        said["agreement"] = (f"Of the top {self.leaders} words by mutual information, {self.agreeing} are in the top "
                             f"{self.leaders} by χ².")
        if self.undefined_chi2:
            said["undefined"] = (f"{self.undefined_chi2:,} word{'s are' if self.undefined_chi2 != 1 else ' is'} in "
                                 f"every document: no document lacks {'them' if self.undefined_chi2 != 1 else 'it'}, "
                                 f"so χ² has no value (0/0); mutual information is 0.")
        return said

    def to_dict(self) -> dict:
        return {
            "class": self.label, "classes": list(self.classes), "n_documents": self.n_documents,
            "in_class": self.in_class, "n_words": self.n_words, "sort": self.sort, "query": self.query,
            "matching": self.matching, "page": self.page, "pages": self.pages,
            "words": [row.to_dict() for row in self.rows],
            "best_mutual_information": self.best_mi.to_dict(),
            "best_chi2": None if self.best_chi2 is None else self.best_chi2.to_dict(),
            "leaders": self.leaders, "agreeing": self.agreeing, "statements": self.statements,
        }


def selection_table(statistics, label: str, sort: str = "mi", query: str = "", page: int | None = None,
                    rows: int = ROWS_PER_PAGE) -> SelectionTable:
    """The words of ``statistics`` against class ``label``, ordered by ``sort``, the page ``page`` of them (the
    page of the address when None) of the words containing ``query``."""
    vocabulary = statistics.vocabulary
    k = statistics.classes.index(label)
    tables = class_tables(statistics, k)
    order = _order(tables, statistics, sort)
    if query:
        keep = np.zeros(len(vocabulary), dtype=bool)
        keep[words_containing(vocabulary, query)] = True
        order = order[keep[order]]
    pages = max(1, math.ceil(len(order) / rows))
    page = page_number("page", pages) if page is None else min(max(page, 1), pages)
    start = (page - 1) * rows
    shown = tuple(WordRow.of(start + i + 1, vocabulary[j], label, tables.table(0, j))
                  for i, j in enumerate(order[start:start + rows].tolist()))
    mi, chi2 = tables.mutual_information[0], tables.chi_square[0]
    leaders = min(LEADERS, len(vocabulary))
    by_mi, by_chi2 = _top(mi, leaders), _top(np.nan_to_num(chi2, nan=-np.inf), leaders)
    best_mi = WordRow.of(1, vocabulary[by_mi[0]], label, tables.table(0, int(by_mi[0])))
    best_chi2 = WordRow.of(1, vocabulary[by_chi2[0]], label, tables.table(0, int(by_chi2[0])))
    return SelectionTable(
        label=label, classes=tuple(statistics.classes), n_documents=statistics.n_documents,
        in_class=int(statistics.class_count_[k]), n_words=len(vocabulary), sort=sort, query=query,
        matching=len(order), page=page, pages=pages, rows=shown, best_mi=best_mi,
        best_chi2=best_chi2 if best_chi2.chi2 is not None else None, leaders=leaders,
        agreeing=len(set(by_mi.tolist()) & set(by_chi2.tolist())), undefined_chi2=int(np.isnan(chi2).sum()),
    )


# -- accuracy against the number of words kept (IIR figure 13.8) ----------------------------------------------------


def curve_sizes(n_words: int) -> tuple[int, ...]:
    """How many words the curves keep: 1, 3, 10, 30, … while under half the vocabulary, then all of it."""
    sizes, power = [], 1
    while True:
        for size in (power, 3 * power):
            if 2 * size > n_words:
                return (*sizes, n_words)
            sizes.append(size)
        power *= 10


@dataclass(frozen=True)
class SelectionCurves:
    """The accuracy on the lesson's test documents of its model (kind and α) fitted on the top k words by each
    measure, for each k of ``curve_sizes``; ``all_words`` the accuracy with the whole vocabulary."""

    kind: str
    alpha: str
    source: str  # the test documents: "split", "training" or "corpus"
    n_train: int
    n_test: int
    n_words: int
    curves: tuple[SelectionCurve, ...]
    asked: str = ""  # the lesson's model, when the curves fit another (CURVE_KINDS)
    state: str = "done"

    @property
    def all_words(self) -> float:
        return self.curves[0].accuracies[-1]

    def best(self, curve: SelectionCurve) -> tuple[int, float]:
        """The fewest words at which ``curve`` reaches its highest accuracy, and that accuracy."""
        top = max(curve.accuracies)
        at = curve.accuracies.index(top)
        return curve.sizes[at], top

    @property
    def widest(self) -> int:
        """The position of the size where the measures' accuracies differ most (the first such)."""
        spreads = [max(c.accuracies[i] for c in self.curves) - min(c.accuracies[i] for c in self.curves)
                   for i in range(len(self.curves[0].sizes))]
        return spreads.index(max(spreads))

    @property
    def statements(self) -> dict:
        model = "Bernoulli" if self.kind == "bernoulli" else "Multinomial"
        tested = {"split": "held-out", "training": "training", "corpus": "test corpus's"}.get(self.source, "test")
        said = {
            "model": (f"{model} Naive Bayes, α = {self.alpha}, fitted on the top k words of {self.n_train:,} training "
                      f"documents and scored on {self.n_test:,} {tested} documents; a word's place is its largest "
                      f"measure over the classes."
                      + (f" (The lesson's {self.asked} model is not fitted on a subset of words here.)"
                         if self.asked and self.asked != self.kind else "")),
            "all": f"All {self.n_words:,} words: {_percent(self.all_words)} right.",
            "best": "Best: " + "; ".join(
                f"{MEASURE_NAMES[c.measure]} {_percent(self.best(c)[1])} with {self.best(c)[0]:,} word"
                f"{'s' if self.best(c)[0] != 1 else ''}" for c in self.curves) + ".",
        }
        i = self.widest
        size = self.curves[0].sizes[i]
        said["widest"] = (f"Where they differ most, at {size:,} word{'s' if size != 1 else ''}: " + ", ".join(
            f"{MEASURE_NAMES[c.measure]} {_percent(c.accuracies[i])}" for c in self.curves) + ".")
        return said

    def to_dict(self) -> dict:
        return {
            "state": self.state, "model": self.kind, "lesson_model": self.asked or self.kind, "alpha": self.alpha,
            "source": self.source,
            "n_train": self.n_train, "n_test": self.n_test, "n_words": self.n_words, "all_words": self.all_words,
            "curves": [{"measure": c.measure, "name": MEASURE_NAMES[c.measure], "sizes": list(c.sizes),
                        "accuracies": list(c.accuracies),
                        "best": dict(zip(("size", "accuracy"), self.best(c), strict=True))} for c in self.curves],
            "statements": self.statements,
        }



CURVES_BYTES = 16_384  # a finished record: three curves of a dozen points


# The models the curves fit on the top k words (webnb/engine/text/selection.py, selection_curves); a lesson of another
# model (complement NB) gets the multinomial curves, and says so.
CURVE_KINDS = ("bernoulli", "multinomial")


def _score_curves(held, asked: str, alpha) -> SelectionCurves:
    statistics = held.training.statistics
    kind = asked if asked in CURVE_KINDS else "multinomial"
    curves = selection_curves(statistics, held.test_matrix, held.test_labels, curve_sizes(statistics.n_words),
                              kind=kind, alpha=alpha)
    return SelectionCurves(kind, str(alpha), held.source, len(held.training.corpus), len(held.test),
                           statistics.n_words, curves, asked)


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
            curves = _score_curves(held, state.model, state.alpha)
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
        shared.cache.put(key, _score_curves(held, kind, alpha), CURVES_BYTES)
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
    table = selection_table(statistics, settings["class"], settings["sort"], settings["q"])
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


@dataclass(frozen=True)
class CellPage:
    """One 2 × 2 table with its formulas filled in: a word and a class of the corpus (``source`` "corpus"), or the
    four counts typed in ("counts"); or why there is none (``error``, with the counts as typed to correct them)."""

    table: ContingencyTable | None
    source: str
    word: str | None = None
    label: str | None = None
    chosen: str | None = None  # why this word or class, when the address named none
    classes: tuple[WordRow, ...] = ()  # the word against every class of the corpus
    error: str | None = None
    typed: tuple[tuple[str, str], ...] = ()  # each count as typed, to show again in its field

    mutual_information = forwarded("table.mutual_information")
    chi2 = forwarded("table.chi_square")

    @property
    def terms(self) -> tuple[dict, ...]:
        """Each cell's term of I(U;C), in the order of IIR's formula: its count, row and column totals and value."""
        return tuple({"cell": name, "count": count, "row_total": row, "column_total": column, "term": term,
                      "expected": expected}
                     for (name, count, row, column), term, expected
                     in zip(self.table.cells(), self.table.mutual_information_terms(), self.table.expected,
                            strict=True))

    @property
    def totals(self) -> dict[str, int]:
        """The table's margins: documents that hold the word (N₁.), lack it (N₀.), are in the class (N.₁) or not
        (N.₀)."""
        t = self.table
        return {"holds": t.n11 + t.n10, "lacks": t.n01 + t.n00, "in_class": t.n11 + t.n01,
                "not_in_class": t.n10 + t.n00}

    @property
    def expected(self) -> dict[str, Fraction]:
        return {name: value for (name, *_), value in zip(self.table.cells(), self.table.expected, strict=True)}

    @property
    def expected_shown(self) -> dict[str, str]:
        """Each expected count as the table writes it: four significant digits, or with thousands separated and one
        decimal when it is a thousand or more (774,063.6)."""
        return {name: f"{float(value):,.1f}" if value >= 1000 else real(float(value))
                for name, value in self.expected.items()}

    @property
    def chi2_parts(self) -> dict:
        """X²'s formula filled in: N, the products N₁₁N₀₀ and N₁₀N₀₁, and the four margins it divides by."""
        t, totals = self.table, self.totals
        return {"n": t.n, "diagonal": t.n11 * t.n00, "off_diagonal": t.n10 * t.n01,
                "margins": (totals["in_class"], totals["holds"], totals["not_in_class"], totals["lacks"])}

    @property
    def p_value(self) -> float | None:
        """P(X² ≥ this one) if word and class were independent (χ² with one degree of freedom: erfc(√(X²/2)))."""
        return None if self.chi2 is None else math.erfc(math.sqrt(float(self.chi2) / 2))

    @property
    def undefined_because(self) -> str | None:
        """Why χ² has no value: the empty row or column of the table."""
        t = self.table
        if self.chi2 is not None:
            return None
        if t.n01 + t.n00 == 0:
            return "every document holds the word"
        if t.n11 + t.n10 == 0:
            return "no document holds the word"
        if t.n10 + t.n00 == 0:
            return "every document is in the class"
        return "no document is in the class"

    @property
    def statements(self) -> dict:
        t, label = self.table, self.label or "the class"
        expected = self.expected["11"]
        said = {
            "counts": (f"N = {t.n:,} documents: {t.n11 + t.n01:,} in {label}, {t.n11 + t.n10:,} holding "
                       f"“{self.word}”." if self.word else
                       f"N = {t.n:,} documents: {t.n11 + t.n01:,} in the class, {t.n11 + t.n10:,} holding the word."),
            "mutual_information": f"I(U;C) = {self.mutual_information:.4g} bits.",
        }
        if t.n11 * t.n00 == t.n10 * t.n01:
            said["direction"] = ("Every count equals its expected count: word and class are independent, so "
                                 "I(U;C) = 0 and X² = 0." if self.chi2 is not None else
                                 "Word and class are independent: I(U;C) = 0.")
        else:
            towards = "points to" if t.n11 > expected else "points away from"
            who = f"“{self.word}”" if self.word else "the word"
            said["direction"] = (f"N₁₁ = {t.n11:,}, where independence expects {float(expected):.4g}: {who} {towards} "
                                 f"{label}.")
        if self.chi2 is None:
            said["chi2"] = f"X² has no value (0/0): {self.undefined_because}."
        else:
            threshold = float(CHI2_THRESHOLD)
            verdict = (f"above {threshold:g}, IIR's threshold for p < 0.001" if self.chi2 > CHI2_THRESHOLD
                       else f"below {threshold:g}, IIR's threshold for p < 0.001")
            said["chi2"] = (f"X² = {float(self.chi2):.4g}, {verdict}: if word and class were independent, an X² at "
                            f"least this large would turn up with probability {real(self.p_value, 3)} (χ² with one "
                            f"degree of freedom).")
            if min(self.table.expected) < SMALL_EXPECTED:
                said["small"] = (f"An expected count is below {SMALL_EXPECTED}: the χ² test's p-value is then "
                                 f"unreliable, though X² still ranks words.")
        return said

    def to_dict(self) -> dict:
        if self.table is None:
            return {"error": self.error}
        t = self.table
        return {
            "source": self.source, "word": self.word, "class": self.label, "chosen": self.chosen,
            "n11": t.n11, "n10": t.n10, "n01": t.n01, "n00": t.n00, "n": t.n,
            "mutual_information": number(self.mutual_information),
            "mutual_information_terms": [{**term, "term": number(term["term"]),
                                          "expected": fraction_text(term["expected"])} for term in self.terms],
            "chi2": None if self.chi2 is None else number(float(self.chi2)), "chi2_exact": fraction_text(self.chi2),
            "p_value": number(self.p_value), "statements": self.statements,
            "classes": [row.to_dict() for row in self.classes],
        }


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
