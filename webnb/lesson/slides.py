"""What a slide, or a page, shows of a long list: which classes, rows, features, words and documents it keeps, which
it folds into "+ N more", and why. Chosen here, in Python, from one table of rules (``CUTS``), never in a template:
a template asks ``kept(part, items)`` and draws the result; a slide's JSON twin (``presenter=1&format=json``) lists
every part it kept (``shown_on_slide``), made by the same calls.

A rule keeps every item when there are at most ``limit`` of them, and ``keep`` of them otherwise (``keep`` is
``limit - 1`` where the last place goes to the line that says how many more). Those kept are the first ones, or
the ones with the largest score (a class's posterior), in their own order. At the projector's zoom a rule marked
``zoomed`` keeps fewer (``kept_at_zoom``): a slide shows less rather than scroll.

``LAYOUT`` holds the other numbers templates used to type: from how many classes a table numbers its columns, and
the like. They change how a part is drawn, not what it shows.
"""
from __future__ import annotations

from dataclasses import dataclass

from webnb.lesson.notation import model_name


def kept_at_zoom(count: int, zoom: str, least: int = 2) -> int:
    """How many of the ``count`` rows or words a slide keeps at 100 % it keeps at the projector's ``zoom`` (a key of
    ``pages.ZOOMS``): fewer as the type grows (6 rows: 4 at 125 % and at 150 %), at least ``least``. Zoom shows
    less rather than make the slide scroll; static/webnb.js then enlarges the slide only as far as it fits."""
    return max(least, count * 100 // int(zoom or 100))


@dataclass(frozen=True)
class Cut:
    """One rule: all of a list up to ``limit`` items, else ``keep`` of them (see the module's docstring)."""

    part: str  # "page.what", e.g. "parameters.priors"
    limit: int
    keep: int
    why: str  # what the slide keeps, in words, for its twin
    zoomed: bool = False  # fewer at 125 % and 150 %
    least: int = 2  # at any zoom, at least this many

    def at_zoom(self, zoom: str) -> tuple[int, int]:
        """(limit, keep) at the projector's ``zoom`` ("", "125" or "150")."""
        if not self.zoomed:
            return self.limit, self.keep
        limit = kept_at_zoom(self.limit, zoom, self.least)
        return limit, min(limit, max(1, limit - (self.limit - self.keep)))


def _first(part: str, n: int, why: str, **options) -> Cut:
    """The first ``n`` always, as many as there are up to ``n``."""
    return Cut(part, n, n, why, **options)


def _folded(part: str, n: int, why: str, **options) -> Cut:
    """All up to ``n``; past it ``n - 1`` and a line that says how many more."""
    return Cut(part, n, n - 1, why, **options)


# Classes side by side on a slide (more are folded into "+ N more classes"): fewer as the type grows, at least three
# (two and "+ N more").
SLIDE_CLASSES = 4

CUTS = {cut.part: cut for cut in (
    # The bag of words' slide: the review's words, then the words in most documents; the documents with most of them,
    # one of each class first (webnb/views/matrix.py chooses which; these say how many).
    _first("matrix.rows", 6, "the documents with the most (and rarest) of the words, one of each class first",
           zoomed=True),
    _first("matrix.words", 7, "the review's words of the vocabulary, then the words in most documents", zoomed=True),
    # The parameters' slide: the review's words of the vocabulary, joined by its first ones when it has few.
    _first("parameters.slide.words", 6, "the review's words of the vocabulary, then its first words", zoomed=True),
    # The classes of a step of Bayes' rule: those with the largest joint probability (log space), in their order.
    _folded("inference.classes", SLIDE_CLASSES, "the classes with the largest joint probability", zoomed=True,
            least=3),
    # Complement Naive Bayes' steps: the classes with the largest score, and the review's first words.
    _folded("inference.complement.classes", SLIDE_CLASSES, "the classes with the largest score", zoomed=True,
            least=3),
    _first("inference.complement.words", 6, "the review's first words", zoomed=True),
    _first("inference.complement.sum.terms", 4, "the first four terms of each sum"),
    _first("inference.product.factors", 12, "the first twelve factors of each product"),
    _first("inference.zeros.left", 3, "the first three classes still above 0"),
    _first("inference.zeros.labels", 3, "the first three classes a word is unseen in"),
    _first("inference.smoothing.culprits", 1, "the first word that drives a class to 0"),
    # The page (not a slide) lists the zero factors up to a long screenful; the JSON twin has every one.
    _first("inference.smoothing.page.culprits", 40, "the first forty zero factors, each lifted the same way"),
    # The corpus: each document's words, and on the slide a few documents, one of each class first.
    _first("corpus.features", 60, "each document's first sixty words"),
    _first("corpus.dropped", 30, "the first thirty words each document drops"),
    _first("corpus.slide.documents", 3, "three documents, one of each class first"),
    _first("corpus.slide.features", 8, "each document's first eight words"),
    # Parameters: the priors (the largest when there are many), the stacked table's rows, one cell's classes.
    Cut("parameters.priors", 8, 6, "every prior up to eight classes, else the six largest"),
    _first("parameters.stacked.rows", 5, "the first five words when the table is stacked"),
    _folded("parameters.cell.classes", 4, "the word's estimate in the first classes"),
    _folded("parameters.classes", 4, "the first classes' columns"),
    # Evaluation: the first misclassified documents on the slide.
    _first("evaluation.mistakes", 3, "the first three misclassified documents"),
    # Adding a document: the words that enter or leave the vocabulary, its features, the classes and words shown.
    _first("additions.entered", 20, "the first twenty words that enter the vocabulary"),
    _first("additions.left", 20, "the first twenty words that leave the vocabulary"),
    _first("additions.features", 8, "the document's first eight words"),
    _first("additions.other.classes", 1, "one class beside the document's own"),
    _first("additions.words", 3, "the document's first three words"),
    # Telling words: the classes' columns and the words of each.
    _folded("words.classes", 6, "the first classes' columns"),
    _first("words.per.class", 5, "five words of each class"),
    # Feature selection (webnb/views/selection.py chooses which): the class's first words in the table's order, the
    # first page of them one key away, and each measure's curve.
    _first("selection.slide.words", 6, "the class's first words in the table's order", zoomed=True),
    _first("selection.slide.full", 50, "the class's first fifty words in the table's order"),
    _first("selection.slide.curves", 3, "each measure's curve, a point for each number of words kept"),
    # Tables of numbers.
    _first("gaussian.rows.classes", 5, "the first five classes"),
    Cut("gaussian.rows.counts", 8, 6, "every class's count up to eight classes, else the first six"),
    _folded("gaussian.features", 4, "the first features"),
    _folded("gaussian.parameters.classes", 3, "the first classes"),
    _first("gaussian.evaluation.confusions", 3, "the three most frequent confusions"),
    _first("gaussian.zero.width.cells", 2, "the first two cells of zero width"),
)}

# From how many items a part is drawn another way (more compact, numbered), not cut.
LAYOUT = {
    "question.options": 6,  # a tally of more options draws compact bars, the model's answer as a tick
    "corpus.class.counts": 6,  # more classes' counts on the slide: in columns
    "evaluation.tied": 6,  # more α values tied for the best: the first and the last only
    "gaussian.evaluation.numbered": 4,  # more classes: the confusion matrix numbers its columns
    "scores.numbered": 4,  # more classes: the confusion matrix numbers its columns
    "scores.many": 8,  # more classes: the confusion matrix in smaller type
    "parameters.long.ratio": 7,  # a ratio of more characters: the slide's table is stacked
    "compare.classes.named": 6,  # up to this many classes are named in the table's caption
    "inference.zeros.all": 2,  # more classes than this: "all N classes" rather than their names
    "parameters.stacked.columns": 2,  # more classes across: the slide's table is stacked (each ratio over its decimal)
    "sample.ratio.vocabulary": 40,  # up to this many words, a sampled word's θ is written as a fraction too
    "inference.vector.words": 60,  # up to this many words, the review's vector lists the whole vocabulary
    "words.compared": 2,  # the page compares two classes: with more, it says to pick them
    "sample.vocabulary.large": 1000,  # a vocabulary this large makes the unseen words' small chances add up
    "confidence.few.tests": 19,  # up to this many test documents, the calibration's percentages are said to move
    "inference.many.classes": SLIDE_CLASSES,  # more classes on a step's slide: the leading few and "+ N more"
    "inference.across": 2,  # more classes: a slide's log-space table has the classes across
}


# How many rows of each class the Gaussian rows' slide shows: fewer as the classes grow (up to 3 classes: 3 rows,
# up to 5: 2, else 1).
ROWS_PER_CLASS = ((3, 3), (5, 2))


def rows_per_class(classes: int) -> int:
    """Rows of each class on the Gaussian rows' slide, for ``classes`` classes (``ROWS_PER_CLASS``)."""
    return next((rows for most, rows in ROWS_PER_CLASS if classes <= most), 1)


def how_many(part: str, zoom: str = "") -> int:
    """How many items the rule ``part`` keeps of a long list at ``zoom``: for a view that chooses which."""
    return CUTS[part].at_zoom(zoom)[1]


def few(part: str, count: int) -> bool:
    """Whether ``count`` is at most ``LAYOUT[part]``: so few that the page says so."""
    return count <= LAYOUT[part]


def many(part: str, items) -> bool:
    """Whether ``items`` (a list, or a count) are more than ``LAYOUT[part]``: the part is drawn the compact way."""
    count = items if isinstance(items, int) else len(list(items))
    return count > LAYOUT[part]


@dataclass(frozen=True)
class Kept:
    """What a part keeps of a list: the ``positions`` shown (in the list's order) of ``total``, by the rule ``part``
    (``why`` in words); ``more`` is how many are folded into "+ N more"."""

    part: str
    positions: tuple[int, ...]
    total: int
    why: str
    items: tuple = ()  # the kept items themselves, for the template
    most: int = 0  # how many the rule keeps of a longer list (at this zoom)

    @property
    def more(self) -> int:
        return self.total - len(self.positions)

    def __iter__(self):
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def names(self) -> list[str] | None:
        """What the kept items are called (a word, a class, a document's id), when they are called anything."""
        names = [_name_of(item) for item in self.items]
        return None if not names or None in names else names

    def to_dict(self) -> dict:
        return {"part": self.part, "positions": list(self.positions), "shown": self.names(), "total": self.total,
                "more": self.more, "why": self.why}


def _name_of(item) -> str | None:
    if isinstance(item, str):
        return item
    for key in ("label", "word", "id"):
        value = item.get(key) if isinstance(item, dict) else getattr(item, key, None)
        if isinstance(value, str):
            return value
    return None


def keep(part: str, items, zoom: str = "", by: str | None = None, score_order: bool = False,
         also: tuple[int, ...] = (), also_why: str = "") -> Kept:
    """What the rule ``part`` keeps of ``items`` at ``zoom``: the first ones, or with ``by`` (an attribute or key of
    each item, a score; None and NaN count as lowest) the ones with the largest score, in their own order (largest
    first with ``score_order``, when some are left out). The positions ``also`` are kept whatever their score, in
    place of the lowest scores kept (a slide that names a class shows its column), ``also_why`` saying why."""
    items = list(items)
    cut = CUTS[part]
    limit, most = cut.at_zoom(zoom)
    count = len(items) if len(items) <= limit else most
    why = cut.why
    if by is None or count == len(items):  # the first ones; or all of them, in their own order
        positions = tuple(range(count))
    else:
        def score(i: int) -> float:
            item = items[i]
            value = item[by] if isinstance(item, dict) else getattr(item, by)
            return float("-inf") if value is None or value != value else float(value)

        ranked = sorted(range(len(items)), key=score, reverse=True)
        required = [i for i in dict.fromkeys(also) if i not in ranked[:count]][:count]
        best = ranked[:count - len(required)] + required
        positions = tuple(best if score_order else sorted(best))
        if required:
            why = f"{why}, {also_why}" if also_why else why
    return Kept(part, positions, len(items), why, tuple(items[i] for i in positions), most)


def keep_one_of_each_first(part: str, items, label: str, zoom: str = "") -> Kept:
    """What ``part`` keeps of ``items``: the first item of each ``label`` (an attribute), then the next ones in order,
    in that order: a slide's few documents show as many classes as they can."""
    items = list(items)
    cut = CUTS[part]
    limit, most = cut.at_zoom(zoom)
    count = len(items) if len(items) <= limit else most
    chosen, labels = [], set()
    for i, item in enumerate(items):
        if len(chosen) < count and getattr(item, label) not in labels:
            chosen.append(i)
            labels.add(getattr(item, label))
    chosen += [i for i in range(len(items)) if i not in chosen][:count - len(chosen)]
    positions = tuple(chosen)
    return Kept(part, positions, len(items), cut.why, tuple(items[i] for i in positions), most)


# The sampling slide's words: as many as about five lines hold, each as wide as its word or the numbers under it
# (digits are narrower than letters), with a gap.
SAMPLE_LINES_ROOM = 210  # characters
DIGIT_WIDTH, WORD_GAP = 0.8, 2


def keep_drawn_words(part: str, words, with_ratio: bool) -> Kept:
    """The first ``words`` (a sample's, each with ``word``, ``ratio`` and ``probability``) that fit the slide's
    lines, at least one; ``with_ratio``: each word's θ is written as a fraction too."""
    from webnb.lesson.formatting import probability, ratio

    words, room, count = list(words), SAMPLE_LINES_ROOM, 0
    for w in words:
        numbers = (len(ratio(w.ratio) + " = ") if w.ratio and with_ratio else 0) + len(probability(w.probability))
        width = max(len(w.word), numbers * DIGIT_WIDTH) + WORD_GAP
        if room < width and count:
            break
        room, count = room - width, count + 1
    return Kept(part, tuple(range(count)), len(words), "the first words drawn, as many as five lines hold",
                tuple(words[:count]), count)


# -- the line of context over every slide -------------------------------------------------------------------------


@dataclass(frozen=True)
class ContextLine:
    """What a slide is about, in the words its line of context uses: the corpus, the model and its settings, and
    (for a text lesson) the review, None when there is none yet. The slide's line, the handout's and the state
    under a downloaded chart are all written from this one record."""

    corpus: str
    settings: str
    review: str | None
    has_review: bool  # a table of numbers has no review to speak of

    @property
    def text(self) -> str:
        """The line as plain text: the review between quotation marks, as the page's <q> shows it."""
        parts = [self.corpus, self.settings]
        if self.has_review:
            parts.append(f"“{self.review}”" if self.review is not None else "no review yet")
        return " · ".join(parts)


def context_line(lesson) -> ContextLine:
    """The line of context of a text or table lesson (the views' TextLesson or TableLesson) at its state."""
    state = lesson.state
    uniform = ", uniform prior" if state.prior == "uniform" else ""
    if lesson.kind == "table":
        return ContextLine(lesson.entry.name, f"Gaussian, var_smoothing = {state.var_smoothing}{uniform}", None, False)
    model = model_name(state.model, capital=True)
    binary = " (binary)" if state.binary and state.model != "bernoulli" else ""
    floor = ", ε-floor" if state.floor else ""
    settings = f"{model}{binary}, {lesson.notation.pseudo_count} = {state.alpha}{floor}{uniform}"
    return ContextLine(lesson.entry.name, settings, state.text if state.text.strip() else None, True)
