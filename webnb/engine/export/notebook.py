"""Taking the lesson away: its tables as CSV, and its numbers as a Jupyter notebook that recomputes them.

CSV. ``csv_text`` writes RFC 4180 CSV (``\\r\\n`` line ends) that is safe to open in a spreadsheet: a text
cell starting with ``=``, ``+``, ``-``, ``@``, a tab, a carriage return or a line feed (or the full-width
``＝ ＋ － ＠``, which some spreadsheets also read as a formula) gets a leading ``'``, as OWASP recommends
against formula injection. Numbers are written as numbers and never prefixed, so −0.5 stays a number and
log 0 is written ``-inf``. The ``*_table`` builders return ``(header, rows)`` for ``csv_text``.

Notebook. ``lesson_notebook`` returns an nbformat 4 notebook (a plain dict) that needs only Python and
numpy. It holds the corpus as JSON and recomputes, step by step, the vocabulary, the priors φ, the
parameters ψ or θ, the trace of one review and the accuracy, and prints them as JSON in its last cell so
that a test can compare them with the engine's. Before writing anything, the engine itself builds the
same model, so settings that the engine refuses are refused here with the engine's message.
"""
from __future__ import annotations

import ast
import csv
import io
import json
import string
import textwrap
from decimal import Decimal
from typing import Iterable

import numpy as np

from webnb.engine.evaluation.scores import Evaluation, stratified_split
from webnb.engine.shared.corpus import Corpus
from webnb.engine.shared.plain import fraction_text, ratio_text
from webnb.engine.text.analysis import NORMALISATION_PATTERNS, PLACEHOLDERS, AnalysisOptions
from webnb.engine.text.bag import VocabularyOptions
from webnb.engine.text.models import MODEL_KINDS, NaiveBayes, parse_alpha
from webnb.engine.text.training import TrainingSet

# -- CSV ------------------------------------------------------------------------------------------------

# The characters that make a spreadsheet read a cell as a formula (OWASP, "CSV Injection"), and the
# full-width forms of the first four.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def neutralise(text: str) -> str:
    """``text`` with a leading ``'`` if a spreadsheet would otherwise read it as a formula."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def _is_number(value) -> bool:
    return isinstance(value, (int, float, Decimal, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def _number_text(value) -> str:
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, Decimal):
        return str(value) if value.is_finite() else str(float(value))
    return repr(float(value))  # the shortest text that reads back as the same float: "-0.5", "-inf"


def _cell(value) -> str:
    if value is None:
        return ""
    if _is_number(value):
        return _number_text(value)
    return neutralise(str(value))


def csv_text(header: list[str], rows: Iterable[Iterable]) -> str:
    """RFC 4180 CSV of ``header`` and ``rows``, every text cell neutralised against formula injection.

    Numbers (int, float, Decimal and numpy numbers, not bool) are written as numbers; None is an empty
    cell; anything else is written as ``str(value)``. Encode the result as UTF-8 (``utf-8-sig`` if
    Excel should recognise the encoding).
    """
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow([_cell(value) for value in header])
    for row in rows:
        writer.writerow([_cell(value) for value in row])
    return buffer.getvalue()


def documents_table(corpus: Corpus, rows=None) -> tuple[list[str], list[list]]:
    """The corpus: id, label and text of each document (of ``rows``, indices, or all)."""
    indices = range(len(corpus)) if rows is None else (int(i) for i in rows)
    return ["id", "label", "text"], [[corpus.ids[i], corpus.labels[i], corpus.texts[i]] for i in indices]


def matrix_table(
    training: TrainingSet, rows=None, columns=None, presence: bool = False
) -> tuple[list[str], list[list]]:
    """A window of the bag of words: id and label of each document of ``rows``, then its count (or 1/0
    for ``presence``) of each word of ``columns``. ``rows``/``columns`` are indices; None means all,
    which makes the whole matrix dense: keep it to the windows a page shows on a large corpus."""
    rows = np.arange(training.matrix.shape[0]) if rows is None else np.asarray(rows, dtype=np.int64)
    columns = np.arange(len(training.vocabulary)) if columns is None else np.asarray(columns, dtype=np.int64)
    window = training.matrix[rows][:, columns].toarray() if len(columns) else np.zeros((len(rows), 0), dtype=int)
    if presence:
        window = (window > 0).astype(int)
    corpus = training.corpus
    header = ["id", "label", *(training.vocabulary[j] for j in columns.tolist())]
    body = [[corpus.ids[i], corpus.labels[i], *window[r].tolist()] for r, i in enumerate(rows.tolist())]
    return header, body


def _symbol(model: NaiveBayes) -> str:
    return "ψ" if model.kind == "bernoulli" else "θ"


def parameters_table(model: NaiveBayes, words=None) -> tuple[list[str], list[list]]:
    """One row per word (of ``words``, indices, or all): the word, then for each class ψ (Bernoulli) or
    θ (multinomial) as a decimal and as the unreduced ratio of the lecture ("0/2"; empty under an
    ε-floor, which has no ratio)."""
    symbol = _symbol(model)
    header = ["word"]
    for label in model.classes:
        header += [f"{symbol} given {label}", f"{symbol} given {label} (ratio)"]
    table = model.feature_prob_
    body = []
    indices = range(len(model.vocabulary)) if words is None else (int(j) for j in words)
    for j in indices:
        word = model.vocabulary[j]
        row = [word]
        for k in range(len(model.classes)):
            ratio = None if model.epsilon is not None else ratio_text(model.feature_ratio(k, j))
            row += [float(table[k, j]), ratio]
        body.append(row)
    return header, body


def priors_table(model: NaiveBayes) -> tuple[list[str], list[list]]:
    """One row per class: its training documents, φ as a decimal and as a ratio ("3/5")."""
    counts = model.statistics.class_count_
    body = []
    for k, label in enumerate(model.classes):
        ratio = model.prior_ratio(k)
        shown = f"{ratio[0]}/{ratio[1]}" if ratio is not None else fraction_text(model.class_prior_exact[k])
        body.append([label, int(counts[k]), float(model.class_prior_[k]), shown])
    return ["class", "documents", "φ", "φ (ratio)"], body


def evaluation_table(evaluation: Evaluation) -> tuple[list[str], list[list]]:
    """Precision, recall, F1 and support per class; a score with no defined value is an empty cell."""
    body = [[s.label, s.precision, s.recall, s.f1, s.support] for s in evaluation.per_class]
    return ["class", "precision", "recall", "F1", "support"], body


def predictions_table(test: Corpus, evaluation: Evaluation) -> tuple[list[str], list[list]]:
    """One row per test document: id, true class, predicted class ("" when undecidable), its posterior, right or not."""
    body = [
        [
            doc_id, label, predicted or "", confidence if predicted is not None else None,
            "yes" if predicted == label else "no",
        ]
        for doc_id, label, predicted, confidence in zip(
            test.ids, test.labels, evaluation.predictions, evaluation.confidence, strict=True
        )
    ]
    return ["id", "true class", "predicted class", "posterior of the prediction", "correct"], body


def confusion_table(evaluation: Evaluation) -> tuple[list[str], list[list]]:
    """confusion[true][predicted], with the documents no class could claim in a last column."""
    header = ["true class", *(f"predicted {label}" for label in evaluation.classes), "cannot decide"]
    body = [
        [label, *evaluation.confusion[k], evaluation.undecidable_by_class[k]]
        for k, label in enumerate(evaluation.classes)
    ]
    return header, body


# -- the notebook ----------------------------------------------------------------------------------------

# The notebook keeps the bag of words dense (documents × words) because numpy reads best that way.
NOTEBOOK_CELL_LIMIT = 10_000_000

NOTEBOOK_CANNOT = {
    "stemmer": "stemming needs the snowballstemmer package, and the notebook uses numpy only",
}


def lesson_notebook(
    corpus: Corpus,
    analysis_options: AnalysisOptions | None = None,
    vocabulary_options: VocabularyOptions | None = None,
    *,
    kind: str,
    alpha,
    binary: bool = False,
    fit_prior: bool = True,
    epsilon: float | None = None,
    review: str,
    test_size: float | None = None,
    seed: int = 0,
) -> dict:
    """An nbformat 4 notebook (a plain dict) that recomputes this lesson's numbers with numpy alone.

    The vocabulary, φ, ψ/θ and the trace of ``review`` come from the whole corpus, as the lesson's pages
    show them. The accuracy is on the training documents when ``test_size`` is None, or else on the
    documents that ``stratified_split(labels, test_size, seed)`` holds out, with a model trained on the
    rest. Raises ValueError for settings the notebook cannot reproduce (stemming) and for settings the
    engine itself refuses.
    """
    analysis_options = analysis_options or AnalysisOptions()
    vocabulary_options = vocabulary_options or VocabularyOptions()
    if kind not in MODEL_KINDS:
        raise ValueError(f"model must be one of {MODEL_KINDS}, not {kind!r}")
    alpha = parse_alpha(alpha)
    cannot = [f"{name} ({why})" for name, why in NOTEBOOK_CANNOT.items() if getattr(analysis_options, name)]
    if cannot:
        raise ValueError(
            "The notebook cannot reproduce these analysis options: " + "; ".join(cannot) + ". Turn them off to export."
        )
    # The engine builds the same model first: what it refuses, the notebook is never written for.
    options = dict(binary=binary, fit_prior=fit_prior, epsilon=epsilon)
    training = TrainingSet.build(corpus, analysis_options, vocabulary_options)
    training.model(kind, alpha, **options)
    _check_size(training)
    if test_size is not None:
        train_index, _ = stratified_split(corpus.labels, test_size, seed)
        held_out = TrainingSet.build(corpus.subset(train_index), analysis_options, vocabulary_options)
        held_out.model(kind, alpha, **options)
        _check_size(held_out)

    settings = {
        "model": kind,
        "alpha": str(alpha),
        "epsilon": epsilon,
        "binary": binary,
        "fit_prior": fit_prior,
        "review": review,
        "test_size": test_size,
        "seed": seed,
        "analysis": analysis_options.to_dict(),
        "vocabulary": vocabulary_options.to_dict(),
    }
    symbol = "ψ" if kind == "bernoulli" else "θ"
    cells = [
        markdown_cell(_title(corpus, kind, alpha, epsilon, fit_prior, binary, review, test_size, seed)),
        code_cell(_IMPORTS),
        markdown_cell(_SETTINGS_TEXT),
        code_cell(_settings_code(analysis_options, vocabulary_options, kind, alpha, binary, fit_prior, epsilon,
                             review, test_size, seed)),
        markdown_cell(_CORPUS_TEXT),
        code_cell(_corpus_code(corpus)),
        markdown_cell(_ANALYSIS_TEXT),
        code_cell(_ANALYSIS_CODE),
        markdown_cell(_VOCABULARY_TEXT),
        code_cell(_VOCABULARY_CODE),
        markdown_cell(_PRIOR_TEXT),
        markdown_cell(_parameters_text(kind, symbol)),
        code_cell(_FIT_CODE),
        markdown_cell(_TRACE_TEXT),
        code_cell(_TRACE_CODE),
        markdown_cell(_POSTERIOR_TEXT),
        code_cell(_POSTERIOR_CODE),
        markdown_cell(_ACCURACY_TEXT),
        code_cell(_ACCURACY_CODE),
        markdown_cell(_SUMMARY_TEXT),
        code_cell(_SUMMARY_CODE),
    ]
    return notebook_document(cells, settings, "webnb")


def notebook_document(cells: list[dict], settings: dict, prefix: str) -> dict:
    """An nbformat 4 notebook of ``cells`` (numbered ``prefix-01``, …), its settings kept in the metadata."""
    for number, cell in enumerate(cells, 1):
        cell["id"] = f"{prefix}-{number:02d}"
    return {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
            "language_info": {"name": "python"},
            "webnb": json.loads(json.dumps(settings, default=_plain)),  # numpy numbers made plain
        },
        "cells": cells,
    }


def _plain(value):
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON data")


def _check_size(training: TrainingSet) -> None:
    n_docs, n_words = training.matrix.shape
    if n_docs * n_words > NOTEBOOK_CELL_LIMIT:
        raise ValueError(
            f"The notebook keeps the bag of words as a dense table, and {n_docs} documents × {n_words} words is "
            f"too big for it (at most {NOTEBOOK_CELL_LIMIT:,} cells). Raise min_df or set max_features to export."
        )


def markdown_cell(text: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": text.strip("\n")}


def code_cell(text: str) -> dict:
    return {"cell_type": "code", "metadata": {}, "source": text.strip("\n"), "execution_count": None, "outputs": []}


def _literal(text: str) -> str:
    """A Python literal for ``text`` that reads as it is written: in double quotes where it can be, a raw
    string when it has backslashes (regular expressions), ``repr`` when nothing simpler is equal."""
    if text.isprintable():
        for quote in ('"', "'", '"""', "'''"):
            candidate = ("r" if "\\" in text else "") + quote + text + quote
            if quote in text:
                continue
            try:
                if ast.literal_eval(candidate) == text:
                    return candidate
            except (SyntaxError, ValueError):  # a raw string cannot end with a backslash
                pass
    return repr(text)


def number_literal(value) -> str:
    if value is None:
        return "None"
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return str(int(value))
    return repr(float(value))


def _corpus_json(corpus: Corpus) -> str:
    """The corpus as JSON, one document a line, that can sit in a raw triple-quoted string: apostrophes
    and every character that is not printable are escaped (JSON allows them only inside strings)."""
    lines = [
        json.dumps({"id": i, "label": label, "text": text}, ensure_ascii=False)
        for i, label, text in zip(corpus.ids, corpus.labels, corpus.texts, strict=True)
    ]
    text = "[\n" + ",\n".join(lines) + "\n]"
    return "".join(
        ch if ch == "\n" or (ch != "'" and ch.isprintable()) else _json_escape(ch) for ch in text
    )


def _json_escape(ch: str) -> str:
    code = ord(ch)
    if code > 0xFFFF:  # outside the Basic Multilingual Plane: a surrogate pair
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def _corpus_code(corpus: Corpus) -> str:
    return (
        "# The documents, as JSON: one document a line.\n"
        f"CORPUS_JSON = r'''\n{_corpus_json(corpus)}\n'''\n"
        + _CORPUS_CODE
    )


def _title(corpus, kind, alpha, epsilon, fit_prior, binary, review, test_size, seed) -> str:
    name = corpus.name or "a corpus"
    model = "Bernoulli" if kind == "bernoulli" else "multinomial" + (" (binary features)" if binary else "")
    floor = f", ε-floor {epsilon:g}" if epsilon is not None else ""
    prior = "learned from the class sizes" if fit_prior else "uniform"
    tested = (
        "the training documents themselves"
        if test_size is None
        else f"{test_size:g} of each class held out (seed {seed})"
    )
    return f"""
# Naive Bayes, every number: {markdown_escape(name)}

This notebook recomputes, with nothing but Python and numpy, the numbers of a webnb lesson:
{len(corpus)} documents, a {model} model with α = {alpha}{floor}, priors {prior}.
It classifies the review *{markdown_escape(review)}* and measures accuracy on {tested}.

Run it from top to bottom (*Run All*). To try something else, change the settings cell and run it again.
"""


def markdown_escape(text: str) -> str:
    """User text as plain text within one line of Markdown, in every notebook: the lines are joined and every ASCII
    punctuation character is escaped (CommonMark shows an escaped one as itself), so that nothing in it becomes
    a tag, a link or an image, a heading or a list, emphasis or code, nor an address that a notebook viewer
    would make a link of ("www.example.com", "http://…", "a@example.com")."""
    text = " ".join(text.split())
    return "".join("\\" + ch if ch in _ASCII_PUNCTUATION else ch for ch in text)


_ASCII_PUNCTUATION = frozenset(string.punctuation)


def _settings_code(analysis, vocabulary, kind, alpha, binary, fit_prior, epsilon, review, test_size, seed) -> str:
    if analysis.stop_words == "english":
        stop_words = "ENGLISH_STOP_WORDS"
    elif analysis.stop_words:
        stop_words = "frozenset([" + ", ".join(_literal(str(word)) for word in sorted(analysis.stop_words)) + "])"
    else:
        stop_words = "frozenset()"
    normalize = "".join(
        f"    ({_literal(NORMALISATION_PATTERNS[name].pattern)}, {_literal(PLACEHOLDERS[name])}),  # {name}\n"
        for name in analysis.normalize
    )
    lines = [
        "# The model",
        f'MODEL = {_literal(kind)}  # "bernoulli" (does the word occur?) or "multinomial" (how often?)',
        f"ALPHA = Fraction({_literal(str(alpha))})  # α, the pseudo-count added to every count (0: no smoothing)",
        f"EPSILON = {number_literal(epsilon)}  # the ε-floor: probabilities clipped to [ε, 1 − ε], or None",
        f"BINARY = {bool(binary)!r}  # multinomial only: count a word once per document",
        f"FIT_PRIOR = {bool(fit_prior)!r}  # True: φ from the class sizes; False: every class equally likely",
        "",
        "# The review to classify, and how accuracy is measured",
        f"REVIEW = {_literal(review)}",
        f"TEST_SIZE = {number_literal(test_size)}"
        "  # None: the training documents; else the share of each class held out",
        f"SEED = {int(seed)}  # the random seed of that split",
        "",
        "# Turning text into words",
        f"LOWERCASE = {bool(analysis.lowercase)!r}",
        f"STRIP_ACCENTS = {_literal(analysis.strip_accents) if analysis.strip_accents else None}"
        '  # None, "ascii" or "unicode"',
        f"TOKEN_PATTERN = {_literal(analysis.regex)}  # a word is a match of this regular expression",
        f"STOP_WORDS = {stop_words}  # words dropped before counting",
        "NORMALIZE = [  # (pattern, placeholder): matches replaced by a placeholder word, in this order",
        normalize + "]",
        f"NGRAM_RANGE = {tuple(analysis.ngram_range)!r}  # (1, 1): single words; (1, 2): also pairs of neighbours",
        "",
        "# Which words make the vocabulary: an int is a number of documents, a float a share of them",
        f"MIN_DF = {number_literal(vocabulary.min_df)}  # keep words in at least this many documents",
        f"MAX_DF = {number_literal(vocabulary.max_df)}  # and in at most this many",
        f"MAX_FEATURES = {number_literal(vocabulary.max_features)}  # then keep only the most frequent ones, or None",
        f"RANK_BY_DOCUMENTS = {bool(vocabulary.binary)!r}  # rank words by documents (True) or occurrences (False)",
        "",
        "# Products are also computed exactly, as fractions, for vocabularies up to this size",
        "EXACT_VOCABULARY_LIMIT = 200",
    ]
    code = "\n".join(lines)
    if analysis.stop_words == "english":
        from webnb.engine.text.stopwords import ENGLISH_STOP_WORDS

        wrapped = textwrap.fill(" ".join(sorted(ENGLISH_STOP_WORDS)), width=100)
        code = (
            "# The English stop-word list of scikit-learn (the Glasgow Information Retrieval Group's)\n"
            f'ENGLISH_STOP_WORDS = frozenset("""\n{wrapped}\n""".split())\n\n' + code
        )
    return code


# The cells below are the same in every notebook; only the settings and the corpus change.

_IMPORTS = """
import json
import math
import re
import unicodedata
from fractions import Fraction

import numpy as np
"""

_SETTINGS_TEXT = """
## Settings

Everything the lesson chose, in one place. The rest of the notebook only reads these names.
"""

_CORPUS_TEXT = """
## The corpus

The documents travel inside the notebook as JSON text, so the notebook needs no other file. Each document
has an id, a class label and its text. The classes are sorted alphabetically, and from here on a class is
known by its position in that list.
"""

_CORPUS_CODE = """
documents = json.loads(CORPUS_JSON)
texts = [d["text"] for d in documents]
labels = [d["label"] for d in documents]
CLASSES = sorted(set(labels))
y = np.array([CLASSES.index(label) for label in labels])  # class number of each document

print(f"{len(documents)} documents")
for k, label in enumerate(CLASSES):
    print(f"  class {k}: {label!r}, {(y == k).sum()} documents")
"""

_ANALYSIS_TEXT = """
## 1. From text to words

A document becomes a list of *features*, the things Naive Bayes counts. In this order:
placeholders replace what the settings ask for (web addresses, numbers, …); the text is lowercased and
accents are removed if asked; the words are the matches of the token pattern (by default runs of two or
more letters or digits, so one-letter words disappear); stop words are dropped; and with an n-gram range
above 1, neighbouring words are also joined into pairs or triples.
"""

_ANALYSIS_CODE = """
TOKENS = re.compile(TOKEN_PATTERN)


def fold(text):
    \"\"\"Lowercase, then strip accents.\"\"\"
    if LOWERCASE:
        text = text.lower()
    if STRIP_ACCENTS == "unicode":  # é → e, but letters without an ASCII twin stay
        text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    elif STRIP_ACCENTS == "ascii":  # every character that is not ASCII goes
        text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return text


def analyze(text):
    \"\"\"The features of one document, in order.\"\"\"
    for pattern, placeholder in NORMALIZE:
        text = re.sub(pattern, f" {placeholder} ", text)
    words = [w for w in TOKENS.findall(fold(text)) if w not in STOP_WORDS]
    low, high = NGRAM_RANGE
    features = list(words) if low == 1 else []
    for n in range(max(low, 2), high + 1):
        features += [" ".join(words[i : i + n]) for i in range(len(words) - n + 1)]
    return features


features = [analyze(text) for text in texts]
for d, f in list(zip(documents, features))[:5]:
    print(f"{d['id']}: {d['text']!r}\\n   → {f}")
if len(documents) > 5:
    print(f"… and {len(documents) - 5} more documents")
"""

_VOCABULARY_TEXT = """
## 2. The vocabulary and the bag of words

The vocabulary is every feature of the corpus, sorted alphabetically (then pruned, if the settings say
so: words in too few or too many documents go, and `MAX_FEATURES` keeps the most frequent). The bag of
words `X` has one row per document and one column per word: how many times the word occurs in the
document. Word order is forgotten, which is the *bag*. A review's words outside the vocabulary are
simply ignored later.
"""

_VOCABULARY_CODE = """
def count_matrix(features, vocabulary):
    \"\"\"X[i, j]: occurrences of vocabulary word j in document i, shape (documents, words).\"\"\"
    column = {word: j for j, word in enumerate(vocabulary)}
    X = np.zeros((len(features), len(vocabulary)), dtype=np.int64)
    for i, document in enumerate(features):
        for word in document:
            if word in column:
                X[i, column[word]] += 1
    return X


def build_vocabulary(features):
    \"\"\"The sorted vocabulary of some documents, pruned by MIN_DF, MAX_DF and MAX_FEATURES.\"\"\"
    vocabulary = sorted({word for document in features for word in document})
    X = count_matrix(features, vocabulary)
    n_documents = len(features)
    in_documents = (X > 0).sum(axis=0)  # the document frequency of each word
    low = MIN_DF if isinstance(MIN_DF, int) else MIN_DF * n_documents
    high = MAX_DF if isinstance(MAX_DF, int) else MAX_DF * n_documents
    keep = (in_documents >= low) & (in_documents <= high)
    if MAX_FEATURES is not None and keep.sum() > MAX_FEATURES:
        frequency = in_documents if RANK_BY_DOCUMENTS else X.sum(axis=0)
        candidates = np.flatnonzero(keep)  # alphabetical; a stable sort keeps ties that way
        best = candidates[np.argsort(-frequency[candidates], kind="stable")[:MAX_FEATURES]]
        keep = np.zeros_like(keep)
        keep[best] = True
    return [word for word, kept in zip(vocabulary, keep) if kept]


vocabulary = build_vocabulary(features)
X = count_matrix(features, vocabulary)
print(f"{len(vocabulary)} words in the vocabulary: {vocabulary[:40]}{' …' if len(vocabulary) > 40 else ''}")
print(f"X has shape {X.shape}; {np.count_nonzero(X)} of its {X.size} cells are not 0")
if X.size <= 400:
    print(X)
"""

_PRIOR_TEXT = """
## 3. The class priors φ

Before reading a word, how likely is each class? With learned priors, φ_k is the share of training
documents in class k: $\\varphi_k = n_k / n$. With uniform priors every class gets $1/K$.
"""


def _parameters_text(kind: str, symbol: str) -> str:
    if kind == "bernoulli":
        formula = """
The **Bernoulli** model asks, for each vocabulary word, only whether it occurs in a document. ψ_jk is the
probability that word j occurs in a document of class k, from the number n_jk of class-k documents that
contain it:

$$\\psi_{jk} = \\frac{n_{jk} + \\alpha}{n_k + 2\\alpha}$$

A document's probability multiplies ψ_jk for every word it contains **and** 1 − ψ_jk for every word it
does not contain. The ratio 1 − ψ_jk is computed from the counts, (n_k − n_jk + α)/(n_k + 2α), so that
exact zeros stay exact.
"""
    else:
        formula = """
The **multinomial** model counts occurrences. θ_jk is the probability that a word drawn from class k is
word j, from c_jk, the occurrences of word j in the class (or, with binary features, the documents of
the class that contain it):

$$\\theta_{jk} = \\frac{c_{jk} + \\alpha}{\\sum_{j'} c_{j'k} + |V|\\,\\alpha}$$

A document's probability multiplies θ_jk once for every occurrence of word j; words it does not contain
contribute nothing.
"""
    return f"""
## 4. The word probabilities {symbol}
{formula}
With α = 0 (no smoothing) a word never seen in a class has probability exactly 0 there, and its log is
−∞: one such word rules the class out. Laplace smoothing (α > 0) pretends every count is α higher. The
ε-floor, if set, instead clips every probability into [ε, 1 − ε] (θ into [ε, 1]).

`fit` learns φ and the word probabilities from a bag of words and its classes; it is used again for
the held-out evaluation. The table lists each ratio unreduced, as the lecture writes it: 0/2 says "none
of 2 documents", which 0 alone does not.
"""


_FIT_CODE = """
ALPHA_F = ALPHA.numerator / ALPHA.denominator  # α as a float


def fit(X, y):
    \"\"\"φ and the word probabilities, with their logs. Arrays of shape (classes,) or (classes, words).\"\"\"
    presence = MODEL == "bernoulli" or BINARY
    counted = (X > 0).astype(np.int64) if presence else X
    n_classes, n_words = len(CLASSES), X.shape[1]
    class_count = np.bincount(y, minlength=n_classes)  # n_k
    count = np.array([counted[y == k].sum(axis=0) for k in range(n_classes)])  # n_jk or c_jk
    if FIT_PRIOR:
        prior = class_count / class_count.sum()
        log_prior = np.log(class_count) - np.log(class_count.sum())
    else:
        prior = np.full(n_classes, 1 / n_classes)
        log_prior = np.full(n_classes, -np.log(n_classes))
    with np.errstate(divide="ignore"):  # log 0 = −∞ is the point of α = 0
        if MODEL == "bernoulli":
            denominator = class_count[:, None] + 2 * ALPHA_F  # n_k + 2α
            present = count + ALPHA_F  # n_jk + α
            absent = class_count[:, None] - count + ALPHA_F  # n_k − n_jk + α
            prob = present / denominator
            log_prob = np.log(present) - np.log(denominator)
            log_absent = np.log(absent) - np.log(denominator)  # log(1 − ψ)
            if EPSILON is not None:
                prob = np.clip(prob, EPSILON, 1 - EPSILON)
                log_prob, log_absent = np.log(prob), np.log1p(-prob)
        else:
            total = count.sum(axis=1, keepdims=True) + n_words * ALPHA_F  # Σ_j c_jk + |V|α
            prob = (count + ALPHA_F) / total
            log_prob = np.log(count + ALPHA_F) - np.log(total)
            log_absent = None
            if EPSILON is not None:
                prob = np.clip(prob, EPSILON, 1.0)
                log_prob = np.log(prob)
    return {"class_count": class_count, "count": count, "prior": prior, "log_prior": log_prior,
            "prob": prob, "log_prob": log_prob, "log_absent": log_absent}


def ratio(model, k, j, absent=False):
    \"\"\"The parameter of word j in class k as an unreduced (numerator, denominator) of exact numbers.\"\"\"
    n_k, count = int(model["class_count"][k]), int(model["count"][k, j])
    if MODEL == "bernoulli":
        return (n_k - count if absent else count) + ALPHA, n_k + 2 * ALPHA
    return count + ALPHA, int(model["count"][k].sum()) + model["count"].shape[1] * ALPHA


def show(ratio):
    \"\"\"'2/3', or '(1/2)/3' when α makes a part fractional.\"\"\"
    def part(x):
        x = Fraction(x)
        return str(x.numerator) if x.denominator == 1 else f"({x})"
    return f"{part(ratio[0])}/{part(ratio[1])}"


def prior_exact(model, k):
    if FIT_PRIOR:
        return Fraction(int(model["class_count"][k]), int(model["class_count"].sum()))
    return Fraction(1, len(CLASSES))


model = fit(X, y)
symbol = "ψ" if MODEL == "bernoulli" else "θ"
print("Class priors φ:")
for k, label in enumerate(CLASSES):
    print(f"  φ({label}) = {prior_exact(model, k)} = {model['prior'][k]:.6g}")
print(f"\\nWord probabilities {symbol} (α = {ALPHA}{'' if EPSILON is None else f', ε = {EPSILON:g}'}):")
print("  word".ljust(28) + "".join(label[:22].ljust(24) for label in CLASSES))
for j, word in enumerate(vocabulary[:60]):
    cells = []
    for k in range(len(CLASSES)):
        as_ratio = "" if EPSILON is not None else show(ratio(model, k, j)) + " = "
        cells.append(f"{as_ratio}{model['prob'][k, j]:.4g}".ljust(24))
    print(f"  {word[:25]:<26}" + "".join(cells))
if len(vocabulary) > 60:
    print(f"  … and {len(vocabulary) - 60} more words")
"""

_TRACE_TEXT = """
## 5. Classifying the review

Bayes' rule scores each class k by its *joint* probability with the review x:
$P(k, x) = \\varphi_k \\prod_j P(x_j \\mid k)$, the prior times one factor per word (Bernoulli: every
vocabulary word, present or absent; multinomial: every occurrence of a vocabulary word). While the
vocabulary is small the product is also computed exactly, with Python's `Fraction`. A computer adds
logarithms instead, because a product of many small factors underflows to 0.0 in floating point:
$\\log P(k, x) = \\log\\varphi_k + \\sum_j \\log P(x_j \\mid k)$, where a zero factor gives −∞.
"""

_TRACE_CODE = """
def log_joint(model, x):
    \"\"\"log φ_k + Σ_j log P(x_j | k) for each class k; x is one row of counts.\"\"\"
    present = x > 0
    if MODEL == "bernoulli":
        return (model["log_prior"] + model["log_prob"][:, present].sum(axis=1)
                + model["log_absent"][:, ~present].sum(axis=1))
    times = np.ones_like(x) if BINARY else x
    return model["log_prior"] + (model["log_prob"][:, present] * times[present]).sum(axis=1)


def factors(model, k, x):
    \"\"\"The factors of class k's product, as (word, present?, unreduced ratio, or None under an ε-floor, \
float, power).\"\"\"
    result = []
    for j, word in enumerate(vocabulary):
        if x[j] > 0:
            power = 1 if MODEL == "bernoulli" or BINARY else int(x[j])
            exact = None if EPSILON is not None else ratio(model, k, j)
            result.append((word, True, exact, model["prob"][k, j], power))
        elif MODEL == "bernoulli":
            exact = None if EPSILON is not None else ratio(model, k, j, absent=True)
            result.append((word, False, exact, float(np.exp(model["log_absent"][k, j])), 1))
    return result


review_features = analyze(REVIEW)
x = count_matrix([review_features], vocabulary)[0]
print(f"Review: {REVIEW!r}")
print(f"Features: {review_features}")
print(f"Ignored (not in the vocabulary): {[f for f in review_features if f not in vocabulary]}")
exact = EPSILON is None and len(vocabulary) <= EXACT_VOCABULARY_LIMIT
review_log_joint = log_joint(model, x)
joint_exact = []
for k, label in enumerate(CLASSES):
    print(f"\\nClass {label!r}: φ = {prior_exact(model, k) if exact else model['prior'][k]}")
    listed = factors(model, k, x)
    product = prior_exact(model, k) if exact else None
    absent = 0
    for word, present, value, probability, power in listed:
        if exact:
            product *= Fraction(*value) ** power
        if present or len(listed) <= 60:  # with a large vocabulary, absent words are only counted
            what = (symbol if present else f"1 − {symbol}") + ("" if power == 1 else f", {power} times")
            shown = (show(value) if value is not None else f"{probability:.6g}") + ("" if power == 1 else f" ^ {power}")
            print(f"  × {shown:<14} {word!r} {'present' if present else 'absent'}: {what}")
        else:
            absent += 1
    if absent:
        print(f"  × the factors 1 − {symbol} of the {absent} absent words (not listed)")
    joint_exact.append(product)
    if exact:
        written = str(product) if len(str(product)) <= 60 else f"a fraction of {len(str(product))} digits"
        print(f"  = {written} ≈ {float(product):.6g}")
    print(f"  log joint = {review_log_joint[k]:.10g}")
"""

_POSTERIOR_TEXT = """
## 6. From joint to posterior, in log space

The posterior divides each joint by their sum: $P(k \\mid x) = P(k, x) / \\sum_{k'} P(k', x)$. In log
space that sum is computed with the *log-sum-exp* trick: subtract the largest log joint m before
exponentiating, so the largest term is exp(0) = 1 and nothing underflows:
$\\log \\sum_k e^{\\ell_k} = m + \\log \\sum_k e^{\\ell_k - m}$.
The decision is the class with the largest log joint. If every class has a zero factor, every joint is
0 (every log joint −∞): there is nothing to normalise, and the model **cannot decide**.
"""

_POSTERIOR_CODE = """
finite = [v for v in review_log_joint if v > -math.inf]
if not finite:
    posterior, decision = None, None
    print("Every class has probability 0: the model cannot decide.")
else:
    shift = max(finite)
    log_evidence = shift + math.log(math.fsum(math.exp(v - shift) for v in finite))
    posterior = [math.exp(v - log_evidence) for v in review_log_joint]
    decision = CLASSES[[k for k, v in enumerate(review_log_joint) if v == shift][0]]
    print(f"max log joint m = {shift:.10g}; log evidence = {log_evidence:.10g}")
    for label, p in zip(CLASSES, posterior):
        print(f"  P({label} | review) = {p:.6g}")
    print(f"Decision: {decision!r}")
"""

_ACCURACY_TEXT = """
## 7. Accuracy

How often is the model right? Without a test set, the model is scored on its own training documents,
which flatters it. With `TEST_SIZE`, each class is split at random (the same random numbers as webnb's,
from `SEED`): that share of every class is held out, a new vocabulary and model are learned from the
rest, and the held-out documents are classified. A document that no class can claim counts as wrong.
"""

_ACCURACY_CODE = """
def stratified_split(y, test_size, seed):
    \"\"\"(train, test) indices: round(n · test_size) of each class's n documents held out, at least one kept.\"\"\"
    rng = np.random.default_rng(seed)
    held_out = []
    for k in range(len(CLASSES)):
        members = np.flatnonzero(y == k)
        n_test = min(int(round(len(members) * test_size)), len(members) - 1)
        held_out.append(rng.permutation(members)[:n_test])
    test = np.sort(np.concatenate(held_out))
    return np.setdiff1d(np.arange(len(y)), test), test


def predict(model, X):
    \"\"\"The most probable class of each row, or None where every class has probability 0.\"\"\"
    predictions = []
    for x in X:
        scores = log_joint(model, x)
        predictions.append(None if np.all(scores == -np.inf) else int(np.argmax(scores)))
    return predictions


if TEST_SIZE is None:
    test_model, X_test, y_test = model, X, y
else:
    train, test = stratified_split(y, TEST_SIZE, SEED)
    train_vocabulary = build_vocabulary([features[i] for i in train])
    test_model = fit(count_matrix([features[i] for i in train], train_vocabulary), y[train])
    X_test, y_test = count_matrix([features[i] for i in test], train_vocabulary), y[test]
    print(f"Trained on {len(train)} documents ({len(train_vocabulary)} words), tested on {len(test)}")
predictions = predict(test_model, X_test)
correct = sum(p == t for p, t in zip(predictions, y_test.tolist()))
accuracy = correct / len(y_test)
undecided = sum(p is None for p in predictions)
print(f"Accuracy: {correct}/{len(y_test)} = {accuracy:.4f}" + (f" ({undecided} undecided)" if undecided else ""))
"""

_SUMMARY_TEXT = """
## Summary

Everything computed above, as JSON (a log joint of −∞ is written `"-inf"`, which JSON cannot hold as a
number). webnb's tests run this notebook and compare these numbers with its own.
"""

_SUMMARY_CODE = """
summary = {
    "classes": CLASSES,
    "vocabulary": vocabulary,
    "class_prior": model["prior"].tolist(),
    "feature_prob": model["prob"].tolist(),
    "trace": {
        "review": REVIEW,
        "features": review_features,
        "per_class": [
            {
                "class": label,
                "log_joint": float(review_log_joint[k]) if review_log_joint[k] > -math.inf else "-inf",
                "posterior": None if posterior is None else posterior[k],
                "joint_exact": None if joint_exact[k] is None else str(joint_exact[k]),
            }
            for k, label in enumerate(CLASSES)
        ],
        "decision": decision,
    },
    "accuracy": accuracy,
    "correct": int(correct),
    "n_test": len(y_test),
}
print(json.dumps(summary, ensure_ascii=False))
"""


# -- tables of numbers (Gaussian Naive Bayes) ------------------------------------------------------------


def gaussian_parameters_table(model) -> tuple[list[str], list[list]]:
    """One row per class and feature: the class's rows and prior, the mean, the population variance and standard
    deviation, ε, the variance used (variance + ε), and the sample variance for comparison."""
    stats = model.statistics
    header = ["class", "feature", "rows", "prior", "mean", "variance (population)", "standard deviation (population)",
              "epsilon", "variance used", "variance (sample, n-1)"]
    body = []
    for k, label in enumerate(model.classes):
        for j, feature in enumerate(model.features):
            body.append([label, feature, int(stats.class_count[k]), float(model.priors[k]), float(stats.means[k, j]),
                         float(stats.variances[k, j]), float(np.sqrt(stats.variances[k, j])), model.epsilon,
                         float(model.smoothed_variances[k, j]), float(stats.sample_variances[k, j])])
    return header, body


def table_rows(table, rows=None) -> tuple[list[str], list[list]]:
    """The rows of a table of numbers: id, each feature, label."""
    indices = range(len(table)) if rows is None else rows
    body = [[table.ids[i], *(float(v) for v in table.values[i]), table.labels[i]] for i in indices]
    return ["id", *table.features, "label"], body
