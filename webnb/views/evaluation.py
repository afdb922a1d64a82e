"""How good the model is on documents it did not learn from: accuracy, confusion, the α sweep."""
from __future__ import annotations

from flask import Blueprint

bp = Blueprint("evaluation", __name__)
