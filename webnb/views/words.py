"""The words each class leans on."""
from __future__ import annotations

from flask import Blueprint

bp = Blueprint("words", __name__)
