"""The home page: what webnb is for, and the example corpora it ships with."""
from __future__ import annotations

from flask import Blueprint, render_template

from webnb.examples import EXAMPLES, load_example_corpus

bp = Blueprint("home", __name__)


@bp.get("/")
def index():
    examples = [(example, load_example_corpus(example.id)) for example in EXAMPLES]
    return render_template("home/index.html", examples=examples)
