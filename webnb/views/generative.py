"""The model run forwards: sampled documents, and the overconfidence of repeated evidence."""
from __future__ import annotations

from flask import Blueprint

bp = Blueprint("generative", __name__)
