"""Several models side by side on the same training and test documents."""
from __future__ import annotations

from flask import Blueprint

bp = Blueprint("compare", __name__)
