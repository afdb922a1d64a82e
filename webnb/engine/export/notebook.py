"""The lesson as a Jupyter notebook that recomputes its numbers.

``lesson_notebook`` returns an nbformat 4 notebook (a plain dict) that needs only Python and numpy. It holds the
corpus as JSON and recomputes, step by step, the vocabulary, the priors φ, the parameters ψ or θ, the trace of one
review and the accuracy, and prints them as JSON in its last cell so that a test can compare them with the
engine's. Before writing anything, the engine itself builds the same model, so settings that the engine refuses
are refused here with the engine's message. The title, the settings and the corpus are written here for each
lesson; the other code cells are the files of ``cells/``, the same in every notebook.
"""
from __future__ import annotations

import ast
import json
import textwrap

from webnb.engine.evaluation.scores import stratified_split
from webnb.engine.export.jupyter import (
    cell_source,
    code_cell,
    explained_cells,
    markdown_cell,
    markdown_escape,
    notebook_document,
    number_literal,
)
from webnb.engine.shared.corpus import Corpus
from webnb.engine.text.analysis import NORMALISATION_PATTERNS, PLACEHOLDERS, AnalysisOptions
from webnb.engine.text.bag import VocabularyOptions
from webnb.engine.text.complement import ComplementNaiveBayes
from webnb.engine.text.models import MODEL_KINDS, parse_alpha
from webnb.engine.text.training import TrainingSet

# The models a notebook can recompute: Naive Bayes' two, and Complement Naive Bayes.
NOTEBOOK_MODELS = (*MODEL_KINDS, ComplementNaiveBayes.kind)

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
    rest. Before anything is written the engine builds the same model, so settings it refuses are refused here
    with its message.

    Parameters
    ----------
    corpus : Corpus
        The lesson's corpus, embedded in the notebook as JSON.
    analysis_options : AnalysisOptions, optional
        How texts become features (defaults when None); stemming is refused.
    vocabulary_options : VocabularyOptions, optional
        Which words are kept (all when None).
    kind : {"bernoulli", "multinomial", "complement"}
        The model. Complement Naive Bayes' notebook has its own sections after the vocabulary: the complement
        counts and weights, the review's scores and the accuracy.
    alpha : str, int, float or Fraction
        The pseudo-count; 0 gives exact zeros, as on the pages.
    binary : bool, default False
        Multinomial only: count each word once per document.
    fit_prior : bool, default True
        Learn the priors (else uniform).
    epsilon : float, optional
        The ε-floor.
    review : str
        The review whose trace the notebook computes.
    test_size : float, optional
        The held-out share of each class; None tests on the training documents.
    seed : int, default 0
        The split's seed.

    Returns
    -------
    dict
        The lesson's notebook, made by ``notebook_document``.

    Raises
    ------
    ValueError
        For settings the notebook cannot reproduce (stemming), a bag of words too big to keep dense (more than
        ``NOTEBOOK_CELL_LIMIT`` cells), and settings the engine itself refuses (an unknown ``kind``, a bad α, …).
    CorpusError
        For a corpus the engine cannot train on, or a split it refuses.

    Examples
    --------
    >>> from webnb.engine.shared.corpus import Corpus
    >>> corpus = Corpus.from_pairs([("China", "Chinese Beijing Chinese"), ("Japan", "Tokyo Japan Chinese")])
    >>> notebook = lesson_notebook(corpus, kind="multinomial", alpha=1, review="Chinese Tokyo")
    >>> settings = notebook["metadata"]["webnb"]
    >>> settings["model"], settings["alpha"], settings["review"], notebook["cells"][0]["cell_type"]
    ('multinomial', '1', 'Chinese Tokyo', 'markdown')
    """
    analysis_options = analysis_options or AnalysisOptions()
    vocabulary_options = vocabulary_options or VocabularyOptions()
    if kind not in NOTEBOOK_MODELS:
        raise ValueError(f"model must be one of {NOTEBOOK_MODELS}, not {kind!r}")
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
    cells = [
        markdown_cell(_title(corpus, kind, alpha, epsilon, fit_prior, binary, review, test_size, seed)),
        code_cell(cell_source("imports")),
        markdown_cell(_SETTINGS_TEXT),
        code_cell(_settings_code(analysis_options, vocabulary_options, kind, alpha, binary, fit_prior, epsilon,
                             review, test_size, seed)),
        markdown_cell(_CORPUS_TEXT),
        code_cell(_corpus_code(corpus)),
        *explained_cells((_ANALYSIS_TEXT, "analysis"), (_VOCABULARY_TEXT, "vocabulary")),
        *(_complement_cells() if kind == ComplementNaiveBayes.kind else _naive_bayes_cells(kind)),
    ]
    return notebook_document(cells, settings, "webnb")


def _naive_bayes_cells(kind: str) -> list[dict]:
    symbol = "ψ" if kind == "bernoulli" else "θ"
    return [
        markdown_cell(_PRIOR_TEXT),
        markdown_cell(_parameters_text(kind, symbol)),
        code_cell(_joined("ratios", "model")),
        *explained_cells((_TRACE_TEXT, "trace"), (_POSTERIOR_TEXT, "posterior")),
        markdown_cell(_ACCURACY_TEXT),
        code_cell(_joined("split", "accuracy")),
        *explained_cells((_SUMMARY_TEXT, "summary")),
    ]


def _complement_cells() -> list[dict]:
    return [
        markdown_cell(_COMPLEMENT_TEXT),
        code_cell(_joined("ratios", "complement_model")),
        *explained_cells((_SCORES_TEXT, "complement_trace")),
        markdown_cell(_COMPLEMENT_ACCURACY_TEXT),
        code_cell(_joined("split", "complement_accuracy")),
        *explained_cells((_SUMMARY_TEXT, "complement_summary")),
    ]


def _joined(*names: str) -> str:
    """One code cell made of several cell files, in order: a helper that both notebooks use, then the step."""
    return "\n\n\n".join(cell_source(name) for name in names)


def _check_size(training: TrainingSet) -> None:
    n_docs, n_words = training.matrix.shape
    if n_docs * n_words > NOTEBOOK_CELL_LIMIT:
        raise ValueError(
            f"The notebook keeps the bag of words as a dense table, and {n_docs} documents × {n_words} words is "
            f"too big for it (at most {NOTEBOOK_CELL_LIMIT:,} cells). Raise min_df or set max_features to export."
        )


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
    """The corpus cell: this corpus as ``CORPUS_JSON``, then the cell of ``cells/corpus.py`` that reads it."""
    return (
        "# The documents, as JSON: one document a line.\n"
        f"CORPUS_JSON = r'''\n{_corpus_json(corpus)}\n'''\n\n"
        + cell_source("corpus")
    )


def _title(corpus, kind, alpha, epsilon, fit_prior, binary, review, test_size, seed) -> str:
    name = corpus.name or "a corpus"
    if kind == ComplementNaiveBayes.kind:
        return _complement_title(name, len(corpus), alpha, binary, review, _tested(test_size, seed))
    model = "Bernoulli" if kind == "bernoulli" else "multinomial" + (" (binary features)" if binary else "")
    floor = f", ε-floor {epsilon:g}" if epsilon is not None else ""
    prior = "learned from the class sizes" if fit_prior else "uniform"
    tested = _tested(test_size, seed)
    return f"""
# Naive Bayes, every number: {markdown_escape(name)}

This notebook recomputes, with nothing but Python and numpy, the numbers of a webnb lesson:
{len(corpus)} documents, a {model} model with α = {alpha}{floor}, priors {prior}.
It classifies the review *{markdown_escape(review)}* and measures accuracy on {tested}.

Run it from top to bottom (*Run All*). To try something else, change the settings cell and run it again.
"""


def _tested(test_size, seed) -> str:
    if test_size is None:
        return "the training documents themselves"
    return f"{test_size:g} of each class held out (seed {seed})"


def _complement_title(name, n_documents, alpha, binary, review, tested) -> str:
    counted = ", each word counted once per document" if binary else ""
    return f"""
# Complement Naive Bayes, every number: {markdown_escape(name)}

This notebook recomputes, with nothing but Python and numpy, the numbers of a webnb lesson:
{n_documents} documents, Complement Naive Bayes with α = {alpha}{counted}.
It scores the review *{markdown_escape(review)}* for each class and measures accuracy on {tested}.

Run it from top to bottom (*Run All*). To try something else, change the settings cell and run it again.
"""


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
        f'MODEL = {_literal(kind)}  # "bernoulli" (does the word occur?), "multinomial" (how often?) or "complement"',
        f"ALPHA = Fraction({_literal(str(alpha))})  # α, the pseudo-count added to every count (0: no smoothing)",
        f"EPSILON = {number_literal(epsilon)}  # the ε-floor: probabilities clipped to [ε, 1 − ε], or None",
        f"BINARY = {bool(binary)!r}  # multinomial and complement only: count a word once per document",
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


# The Markdown between the code cells; the code is in cells/.

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


_ANALYSIS_TEXT = """
## 1. From text to words

A document becomes a list of *features*, the things Naive Bayes counts. In this order:
placeholders replace what the settings ask for (web addresses, numbers, …); the text is lowercased and
accents are removed if asked; the words are the matches of the token pattern (by default runs of two or
more letters or digits, so one-letter words disappear); stop words are dropped; and with an n-gram range
above 1, neighbouring words are also joined into pairs or triples.
"""


_VOCABULARY_TEXT = """
## 2. The vocabulary and the bag of words

The vocabulary is every feature of the corpus, sorted alphabetically (then pruned, if the settings say
so: words in too few or too many documents go, and `MAX_FEATURES` keeps the most frequent). The bag of
words `X` has one row per document and one column per word: how many times the word occurs in the
document. Word order is forgotten, which is the *bag*. A review's words outside the vocabulary are
simply ignored later.
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


_TRACE_TEXT = """
## 5. Classifying the review

Bayes' rule scores each class k by its *joint* probability with the review x:
$P(k, x) = \\varphi_k \\prod_j P(x_j \\mid k)$, the prior times one factor per word (Bernoulli: every
vocabulary word, present or absent; multinomial: every occurrence of a vocabulary word). While the
vocabulary is small the product is also computed exactly, with Python's `Fraction`. A computer adds
logarithms instead, because a product of many small factors underflows to 0.0 in floating point:
$\\log P(k, x) = \\log\\varphi_k + \\sum_j \\log P(x_j \\mid k)$, where a zero factor gives −∞.
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


_ACCURACY_TEXT = """
## 7. Accuracy

How often is the model right? Without a test set, the model is scored on its own training documents,
which flatters it. With `TEST_SIZE`, each class is split at random (the same random numbers as webnb's,
from `SEED`): that share of every class is held out, a new vocabulary and model are learned from the
rest, and the held-out documents are classified. A document that no class can claim counts as wrong.
"""


_SUMMARY_TEXT = """
## Summary

Everything computed above, as JSON (a log joint of −∞ is written `"-inf"`, which JSON cannot hold as a
number). webnb's tests run this notebook and compare these numbers with its own.
"""


_COMPLEMENT_TEXT = """
## 3. The complement of each class, and its weights

Complement Naive Bayes (Rennie and others, 2003) estimates, for each class k, how words are used by every
*other* class: word j's count in the complement of k is T_j − c_jk, its count over all classes minus its count
in k. With many classes the complement holds far more documents than the class does, so its estimates are
steadier. From those counts, with the pseudo-count α:

$$\\tilde\\theta_{jk} = \\frac{T_j - c_{jk} + \\alpha}{\\sum_{j'} (T_{j'} - c_{j'k}) + |V|\\,\\alpha}
\\qquad w_{jk} = -\\log \\tilde\\theta_{jk}$$

A word the other classes rarely use has a small θ̃ and a large weight: it speaks for k. For each class the θ̃
sum to 1 over the vocabulary, but they describe the other classes' words, so the weights are **not**
probabilities of anything about k. With α = 0, a word found in one class only has θ̃ = 0 there, and an
infinite weight.
"""


_SCORES_TEXT = """
## 4. Scoring the review

A class's score is the sum of its weights over the review's words, each as often as it occurs (once with
binary features): $\\text{score}_k = \\sum_j x_j\\, w_{jk}$. The class with the largest score wins. The scores
are sums of weights, not log-probabilities: there is no posterior to normalise and no confidence to report.
If two or more classes score +∞ (α = 0), they cannot be compared, and the model cannot decide.
"""


_COMPLEMENT_ACCURACY_TEXT = """
## 5. Accuracy

How often is the largest score the right class? Without a test set, the model is scored on its own training
documents, which flatters it. With `TEST_SIZE`, each class is split at random (the same random numbers as
webnb's, from `SEED`): that share of every class is held out, a new vocabulary and model are learned from
the rest, and the held-out documents are scored. A document the model cannot decide counts as wrong.
"""
