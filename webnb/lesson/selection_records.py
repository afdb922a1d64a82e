"""What the feature-selection pages say (Manning, Raghavan & Schütze, *Introduction to Information Retrieval*, §13.5):
one class's 2 × 2 tables against every word with their mutual information and χ², the accuracy of a model on the top
k words by each measure (the book's figure 13.8), and one table opened with both formulas filled in. Records made
from the kept class statistics, with the page's sentences written from them; webnb/views/selection.py reads the
address and serves them, and their JSON twins give them whole.

A class's row of tables is made from one row of each count (``class_tables``), not the classes × vocabulary arrays
of ``WordClassTables.of``, so that 20 Newsgroups' 130,000 words stay quick."""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from webnb.engine.shared.forwarding import forwarded
from webnb.engine.shared.plain import fraction_text, number
from webnb.engine.text.selection import ContingencyTable, SelectionCurve, WordClassTables, selection_curves
from webnb.lesson.formatting import percent, real
from webnb.lesson.selection_chart import MEASURE_NAMES

ROWS_PER_PAGE = 50
LEADERS = 10  # the page says how many of the top ten words by mutual information are in the top ten by χ²
# χ² with one degree of freedom: where IIR reads X² (10.83: p < 0.001), and the rule of thumb that its p-value needs
# expected counts of five or more.
CHI2_THRESHOLD = Fraction(1083, 100)
SMALL_EXPECTED = 5
# IIR's example (§13.5.1): the word "export" and the class poultry in Reuters-RCV1, I(U;C) ≈ 0.0001105, X² ≈ 284.
IIR_EXAMPLE = {"n11": 49, "n10": 27_652, "n01": 141, "n00": 774_106}


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


def selection_table(statistics, label: str, sort: str = "mi", query: str = "", page: int | Callable[[int], int] = 1,
                    rows: int = ROWS_PER_PAGE, matching: np.ndarray | None = None) -> SelectionTable:
    """The words of ``statistics`` against class ``label``, ordered by ``sort``: the page ``page`` (a number, or a
    function of the number of pages that gives one) of the words ``matching`` (positions in the vocabulary, those
    that contain ``query``; all of them when None)."""
    vocabulary = statistics.vocabulary
    k = statistics.classes.index(label)
    tables = class_tables(statistics, k)
    order = _order(tables, statistics, sort)
    if matching is not None:
        keep = np.zeros(len(vocabulary), dtype=bool)
        keep[matching] = True
        order = order[keep[order]]
    pages = max(1, math.ceil(len(order) / rows))
    page = min(max(page(pages) if callable(page) else page, 1), pages)
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
            "all": f"All {self.n_words:,} words: {percent(self.all_words)} right.",
            "best": "Best: " + "; ".join(
                f"{MEASURE_NAMES[c.measure]} {percent(self.best(c)[1])} with {self.best(c)[0]:,} word"
                f"{'s' if self.best(c)[0] != 1 else ''}" for c in self.curves) + ".",
        }
        i = self.widest
        size = self.curves[0].sizes[i]
        said["widest"] = (f"Where they differ most, at {size:,} word{'s' if size != 1 else ''}: " + ", ".join(
            f"{MEASURE_NAMES[c.measure]} {percent(c.accuracies[i])}" for c in self.curves) + ".")
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


# The models the curves fit on the top k words (webnb/engine/text/selection.py, selection_curves); a lesson of another
# model (complement NB) gets the multinomial curves, and says so.
CURVE_KINDS = ("bernoulli", "multinomial")


def score_curves(held, asked: str, alpha) -> SelectionCurves:
    statistics = held.training.statistics
    kind = asked if asked in CURVE_KINDS else "multinomial"
    curves = selection_curves(statistics, held.test_matrix, held.test_labels, curve_sizes(statistics.n_words),
                              kind=kind, alpha=alpha)
    return SelectionCurves(kind, str(alpha), held.source, len(held.training.corpus), len(held.test),
                           statistics.n_words, curves, asked)


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
