"""The home page: what webnb is for, and the example corpora it ships with."""
from __future__ import annotations

from flask import Blueprint, render_template

from webnb.examples import EXAMPLES, TABLE_EXAMPLES, load_example_corpus, load_example_table

bp = Blueprint("home", __name__)


@bp.get("/")
def index():
    examples = [(example, load_example_corpus(example.id)) for example in EXAMPLES]
    tables = [(example, load_example_table(example.id)) for example in TABLE_EXAMPLES]
    return render_template("home/index.html", examples=examples, tables=tables)
