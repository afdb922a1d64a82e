"""What both notebooks are made of: an nbformat 4 document of Markdown and code cells, the code read from the
files under ``cells/``, and user text made safe for Markdown.

The code that every notebook holds lives in ``cells/`` as real Python, one file a cell, so that the linter and the
tests read it as they read the app. A cell file has two parts, split by the line ``CELL_MARKER``: above it, what
the cells before it define (imported from their files, with the lecture's example standing in for the settings
and the data that each notebook writes for its own lesson), so that the file can be imported, run and tested on
its own, its ``print`` writing to ``cells.output`` rather than to the standard output; below it, the cell exactly
as the notebook holds it. The builders read the files as text and never import them.
"""
from __future__ import annotations

import json
import string
from functools import cache
from importlib import resources

import numpy as np

# The line of a cell file after which the notebook's cell begins.
CELL_MARKER = "# ---- notebook cell ----"


@cache
def cell_source(name: str) -> str:
    """The code of the cell file ``cells/<name>.py``: the text after its ``CELL_MARKER`` line, without the blank
    lines around it. Read once per name, then kept.

    Parameters
    ----------
    name : str
        The cell's path under ``cells/`` without ".py", like "model" or "gaussian/fit".

    Returns
    -------
    str
        The cell exactly as the notebook holds it.

    Raises
    ------
    FileNotFoundError
        If there is no such cell file.
    LookupError
        If the file has no ``CELL_MARKER`` line.

    Examples
    --------
    >>> print(cell_source("imports"))
    import json
    import math
    import re
    import unicodedata
    from fractions import Fraction
    <BLANKLINE>
    import numpy as np
    """
    path = resources.files("webnb.engine.export.cells").joinpath(*f"{name}.py".split("/"))
    text = path.read_text(encoding="utf-8")
    _, marker, cell = text.partition(f"\n{CELL_MARKER}\n")
    if not marker:
        raise LookupError(f"cells/{name}.py has no line {CELL_MARKER!r} before the notebook's cell")
    return cell.strip("\n")


def notebook_document(cells: list[dict], settings: dict, prefix: str) -> dict:
    """An nbformat 4 notebook of ``cells`` (numbered ``prefix-01``, …), its settings kept in the metadata.

    Parameters
    ----------
    cells : list of dict
        Cells from ``markdown_cell`` and ``code_cell``; each is given its ``id`` (the dicts are changed).
    settings : dict
        The lesson's settings, JSON data (numpy numbers are made plain), kept under ``metadata["webnb"]``.
    prefix : str
        The start of every cell id.

    Returns
    -------
    dict
        The notebook, ready for ``json.dumps``.

    Raises
    ------
    TypeError
        If ``settings`` holds anything but JSON data.

    Examples
    --------
    >>> document = notebook_document([markdown_cell("# Title")], {"alpha": np.int64(1)}, "nb")
    >>> document["nbformat"], document["metadata"]["webnb"], document["cells"][0]["id"]
    (4, {'alpha': 1}, 'nb-01')
    """
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


def markdown_cell(text: str) -> dict:
    """A Markdown cell of ``text``, without the blank lines around it.

    Parameters
    ----------
    text : str
        The cell's Markdown.

    Returns
    -------
    dict
        The nbformat 4 cell.
    """
    return {"cell_type": "markdown", "metadata": {}, "source": text.strip("\n")}


def code_cell(text: str) -> dict:
    """A code cell of ``text``, not run (no outputs), without the blank lines around it.

    Parameters
    ----------
    text : str
        The cell's Python code.

    Returns
    -------
    dict
        The nbformat 4 cell.
    """
    return {"cell_type": "code", "metadata": {}, "source": text.strip("\n"), "execution_count": None, "outputs": []}


def explained_cells(*steps: tuple[str, str]) -> list[dict]:
    """For each (text, name): the text as a Markdown cell, then the code of ``cells/<name>.py`` that it explains.

    Parameters
    ----------
    *steps : (str, str)
        The Markdown, and the cell file's name (see ``cell_source``).

    Returns
    -------
    list of dict
        Two cells per step.

    Raises
    ------
    FileNotFoundError, LookupError
        As ``cell_source`` raises them.
    """
    return [cell for text, name in steps for cell in (markdown_cell(text), code_cell(cell_source(name)))]


def number_literal(value) -> str:
    """A number as Python code in a notebook cell: an int as an int, anything else as the float it is.

    Parameters
    ----------
    value : int, float, numpy number or None
        The number.

    Returns
    -------
    str
        "None" for None; the digits of a whole number (int or numpy integer); else ``repr(float(value))``, which
        reads back as the same float.

    Raises
    ------
    TypeError, ValueError
        If ``value`` is not a number.

    Examples
    --------
    >>> number_literal(3), number_literal(np.int64(3)), number_literal(1e-9), number_literal(None)
    ('3', '3', '1e-09', 'None')
    """
    if value is None:
        return "None"
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return str(int(value))
    return repr(float(value))


def markdown_escape(text: str) -> str:
    r"""User text as plain text within one line of Markdown, in every notebook: the lines are joined and every ASCII
    punctuation character is escaped (CommonMark shows an escaped one as itself), so that nothing in it becomes
    a tag, a link or an image, a heading or a list, emphasis or code, nor an address that a notebook viewer
    would make a link of ("www.example.com", "http://…", "a@example.com").

    Parameters
    ----------
    text : str
        A corpus's name, a class, a review.

    Returns
    -------
    str
        One line.

    Examples
    --------
    >>> print(markdown_escape("**great** [match](x)\nwww.example.com"))
    \*\*great\*\* \[match\]\(x\) www\.example\.com
    """
    text = " ".join(text.split())
    return "".join("\\" + ch if ch in _ASCII_PUNCTUATION else ch for ch in text)


_ASCII_PUNCTUATION = frozenset(string.punctuation)
