"""User text in the notebooks' Markdown cells stays text: the Big List of Naughty Strings as corpus names,
reviews and labels of the text notebook, and as labels, feature names and table names of the Gaussian one.

A teacher opens a student's notebook; nothing a student typed may become an HTML tag, a link or an image
(remote images load on opening), a heading, a list or emphasis. Both notebooks escape with the one function
``markdown_escape``: the lines are joined and every ASCII punctuation character is backslash-escaped, which
CommonMark shows as the character itself. So the check is, cell by cell: with the escapes taken out, the
Markdown holds exactly the punctuation and the line starts of the same notebook made from harmless text, and
reading the escapes back gives the user's text. The code cells still parse, and their data is the user's.
"""
from __future__ import annotations

import ast
import json
import string
from collections import Counter

import numpy as np
import pytest
from test_naughty_strings import STRINGS

from webnb.engine import AnalysisOptions
from webnb.engine.export import gaussian_notebook, lesson_notebook
from webnb.engine.export.jupyter import markdown_escape
from webnb.engine.gaussian.table import NumericTable
from webnb.engine.shared.corpus import Corpus

PUNCTUATION = frozenset(string.punctuation)


def without_escapes(markdown: str) -> str:
    """The Markdown with every backslash escape (a backslash and the ASCII punctuation after it) taken out."""
    kept, i = [], 0
    while i < len(markdown):
        if markdown[i] == "\\" and i + 1 < len(markdown) and markdown[i + 1] in PUNCTUATION:
            i += 2
            continue
        kept.append(markdown[i])
        i += 1
    return "".join(kept)


def unescaped(markdown: str) -> str:
    """The text a Markdown renderer shows for escapes: each escaped character as itself."""
    shown, i = [], 0
    while i < len(markdown):
        if markdown[i] == "\\" and i + 1 < len(markdown) and markdown[i + 1] in PUNCTUATION:
            i += 1
        shown.append(markdown[i])
        i += 1
    return "".join(shown)


def shape(markdown: str) -> tuple:
    """What Markdown can act on: the unescaped punctuation (tags, links, images, emphasis, code, addresses)
    and how each line starts (headings, lists, quotes)."""
    bare = without_escapes(markdown)
    return Counter(ch for ch in bare if ch in PUNCTUATION), [line[:1] for line in bare.split("\n")]


def markdown_cells(notebook: dict) -> list[str]:
    return [cell["source"] for cell in notebook["cells"] if cell["cell_type"] == "markdown"]


def code_cells(notebook: dict) -> list[str]:
    return [cell["source"] for cell in notebook["cells"] if cell["cell_type"] == "code"]


def assert_markdown_like(naughty: dict, harmless: dict) -> None:
    naughty_cells, harmless_cells = markdown_cells(naughty), markdown_cells(harmless)
    assert len(naughty_cells) == len(harmless_cells)
    for got, expected in zip(naughty_cells, harmless_cells, strict=True):
        assert shape(got) == shape(expected), got[:300]
    for source in code_cells(naughty):
        ast.parse(source)


def shown(text: str) -> str:
    """User text as the notebook shows it: white space, line breaks included, joined to single spaces."""
    return " ".join(text.split())


def test_the_escape_keeps_the_text_and_leaves_markdown_nothing_to_act_on():
    samples = ["<img src=http://example.com/x.png>", "[click](http://example.com)", "![x](http://e.com/i.png)",
               "# Heading", "line\n# Heading\n- item", "*bold* _it_ `code` $x$ ~~s~~ | a | &amp; \\[",
               "www.example.com a@example.com http://example.com"]
    for text in [*samples, *STRINGS]:
        escaped = markdown_escape(text)
        assert "\n" not in escaped and "\r" not in escaped
        assert not [ch for ch in without_escapes(escaped) if ch in PUNCTUATION], text
        assert unescaped(escaped) == shown(text)
    assert markdown_escape("<img src=x>") == "\\<img src\\=x\\>"
    assert markdown_escape("[click](http://e.com)") == "\\[click\\]\\(http\\:\\/\\/e\\.com\\)"
    assert markdown_escape("# Heading\n\nnext") == "\\# Heading next"


# -- the text notebook ---------------------------------------------------------------------------------------


def text_notebook(name: str = "Reviews", review: str = "a fine match", labels=("bad", "good")) -> dict:
    texts = ["a fine match", "a dull match"] * len(labels)
    doubled = [label for label in labels for _ in range(2)]
    corpus = Corpus(texts=tuple(texts), labels=tuple(doubled), ids=tuple(str(i) for i in range(len(texts))), name=name)
    return lesson_notebook(corpus, AnalysisOptions(), None, kind="bernoulli", alpha=1, review=review)


@pytest.mark.slow  # 5-6 s
def test_text_notebook_names_and_reviews_stay_text():
    harmless = text_notebook()
    for text in STRINGS:
        notebook = text_notebook(name=text, review=text)
        assert_markdown_like(notebook, harmless)
        title = unescaped(markdown_cells(notebook)[0])
        assert f"every number: {shown(text) if text else 'a corpus'}\n" in title
        assert f"the review *{shown(text)}*" in title
        namespace: dict = {}
        for source in code_cells(notebook)[:2]:  # the imports and the settings
            exec(source, namespace)
        assert namespace["REVIEW"] == text


def test_text_notebook_labels_stay_text():
    labels = tuple(dict.fromkeys(STRINGS))
    notebook = text_notebook(labels=labels)
    assert_markdown_like(notebook, text_notebook(labels=tuple(f"class {i}" for i in range(len(labels)))))
    namespace: dict = {}
    corpus_cell = next(source for source in code_cells(notebook) if "CORPUS_JSON = " in source)
    exec(corpus_cell.split("\ndocuments = ")[0], namespace)
    assert sorted({d["label"] for d in json.loads(namespace["CORPUS_JSON"])}) == sorted(labels)


# -- the Gaussian notebook -----------------------------------------------------------------------------------


def table(features, labels, name="Ratings") -> NumericTable:
    rows = [(label, row) for label in labels for row in (0, 1)]
    values = np.array([[float(i + j * (row + 1)) for j in range(len(features))] for i, (_, row) in enumerate(rows)])
    return NumericTable(tuple(features), values, tuple(label for label, _ in rows),
                        tuple(str(i) for i in range(len(rows))), name=name)


def gaussian(data: NumericTable) -> dict:
    return gaussian_notebook(data, var_smoothing=1e-9, prior="learned", values=[1.0] * len(data.features),
                             test_size=None)


def embedded_table(notebook: dict) -> dict:
    namespace: dict = {}
    exec(code_cells(notebook)[1].split("\n")[0], {"json": json}, namespace)
    return namespace["TABLE"]


def test_gaussian_notebook_labels_stay_text():
    notebook = gaussian(table(["x", "y"], STRINGS))
    assert_markdown_like(notebook, gaussian(table(["x", "y"], [f"class {i}" for i in range(len(STRINGS))])))
    summary = unescaped(markdown_cells(notebook)[0])
    assert "classes " + ", ".join(shown(label) for label in sorted(STRINGS)) + ". " in summary
    assert set(embedded_table(notebook)["labels"]) == set(STRINGS)


def test_gaussian_notebook_feature_and_table_names_stay_text():
    notebook = gaussian(table(STRINGS, ["a", "b"], name=STRINGS[1]))
    assert_markdown_like(notebook, gaussian(table([f"f{i}" for i in range(len(STRINGS))], ["a", "b"])))
    assert embedded_table(notebook)["features"] == STRINGS


@pytest.mark.parametrize("label", ["<img src=http://example.com/x.png>", "[click](http://example.com)", "# Heading"])
def test_gaussian_notebook_escapes_as_the_text_notebook_does(label):
    gaussian_title = markdown_cells(gaussian(table(["x"], [label, "other"])))[0]
    text_title = markdown_cells(text_notebook(name=label))[0]
    assert markdown_escape(label) in gaussian_title and markdown_escape(label) in text_title
    assert label not in without_escapes(gaussian_title) and label not in without_escapes(text_title)
