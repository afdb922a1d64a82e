"""What one more training document changes."""
from __future__ import annotations

from flask import Blueprint

bp = Blueprint("additions", __name__)
