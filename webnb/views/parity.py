"""Whether scikit-learn, given the same settings, computes the same numbers."""
from __future__ import annotations

from flask import Blueprint

bp = Blueprint("parity", __name__)
