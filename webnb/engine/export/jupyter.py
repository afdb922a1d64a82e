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
    """The code of the cell file ``cells/<name>.py`` (``name`` like "model" or "gaussian/fit"): the text after
    its ``CELL_MARKER`` line, without the blank lines around it."""
    path = resources.files("webnb.engine.export.cells").joinpath(*f"{name}.py".split("/"))
    text = path.read_text(encoding="utf-8")
    _, marker, cell = text.partition(f"\n{CELL_MARKER}\n")
    if not marker:
        raise LookupError(f"cells/{name}.py has no line {CELL_MARKER!r} before the notebook's cell")
    return cell.strip("\n")


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


def markdown_cell(text: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": text.strip("\n")}


def code_cell(text: str) -> dict:
    return {"cell_type": "code", "metadata": {}, "source": text.strip("\n"), "execution_count": None, "outputs": []}


def explained_cells(*steps: tuple[str, str]) -> list[dict]:
    """For each (text, name): the text as a Markdown cell, then the code of ``cells/<name>.py`` that it explains."""
    return [cell for text, name in steps for cell in (markdown_cell(text), code_cell(cell_source(name)))]


def number_literal(value) -> str:
    if value is None:
        return "None"
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return str(int(value))
    return repr(float(value))


def markdown_escape(text: str) -> str:
    """User text as plain text within one line of Markdown, in every notebook: the lines are joined and every ASCII
    punctuation character is escaped (CommonMark shows an escaped one as itself), so that nothing in it becomes
    a tag, a link or an image, a heading or a list, emphasis or code, nor an address that a notebook viewer
    would make a link of ("www.example.com", "http://…", "a@example.com")."""
    text = " ".join(text.split())
    return "".join("\\" + ch if ch in _ASCII_PUNCTUATION else ch for ch in text)


_ASCII_PUNCTUATION = frozenset(string.punctuation)
