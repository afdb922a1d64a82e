"""A class in the room: a lecturer starts one, students join it by a short code (or the QR code of its join address)
and land where the lecturer is.

A class has a join code of ``CODE_LENGTH`` characters from ``CODE_ALPHABET``, which leaves out the characters a
student could read as another on a projector (0/O, 1/I/L, 5/S, 2/Z, 8/B); a lecturer's secret (256 random bits)
whose SHA-256 hash alone is stored; the corpus and lesson presets it opened with; and ``state``, the lecturer's
current lesson address, where a student who joins lands. It ends when the lecturer ends it or after its hours.

No Flask here: the command line (``webnb class start|end``) and the views share these functions.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
import string
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from urllib.parse import quote, urlencode

from webnb.storage import ClassRecord, Storage

LOOK_ALIKES = frozenset("0O1IL5S2Z8B")
CODE_ALPHABET = "".join(c for c in string.digits + string.ascii_uppercase if c not in LOOK_ALIKES)
CODE_LENGTH = 6
DEFAULT_HOURS = 4
MAX_HOURS = 24 * 7  # a week: a class is a lecture or a course's week of exercises, not a term
# Draws of a new code before giving up: with 25⁶ ≈ 244 million codes, a second draw is already rare.
CODE_DRAWS = 20
# Characters a student may type between the code's characters: spaces and dashes (as "ABC-DEF" or "abc def").
IGNORED_IN_CODES = " -\t\u00a0\u2010\u2011\u2012\u2013\u2014"


@dataclass(frozen=True)
class StartedClass:
    """A class just started: its record, and the lecturer's secret (shown once, never stored)."""

    record: ClassRecord
    secret: str

    @property
    def code(self) -> str:
        return self.record.code


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalise_code(typed: str) -> str | None:
    """The code a student typed, in capitals without spaces or dashes; None when it cannot be a code (wrong length
    or a character outside the alphabet). Which codes exist is not looked at here."""
    code = "".join(c for c in (typed or "")[:100] if c not in IGNORED_IN_CODES).upper()
    if len(code) != CODE_LENGTH or any(c not in CODE_ALPHABET for c in code):
        return None
    return code


def secret_hash(secret: str) -> str:
    """The stored form of a lecturer's secret. The secret has 256 random bits, so a plain SHA-256 suffices."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def holds_secret(record: ClassRecord, secret: str) -> bool:
    return hmac.compare_digest(secret_hash(secret), record.secret_hash)


def lesson_address(corpus_id: str, presets) -> str:
    """The class's first lesson page (the corpus page) with its presets, as a path and query."""
    address = f"/corpora/{quote(corpus_id, safe='')}"
    presets = list(presets)
    return f"{address}?{urlencode(presets)}" if presets else address


def start_class(storage: Storage, corpus_id: str, presets=(), *, hours: float = DEFAULT_HOURS,
                now: datetime | None = None) -> StartedClass:
    """Start a class on ``corpus_id`` opening with ``presets`` ((address parameter, text) pairs), for ``hours``."""
    if not 0 < hours <= MAX_HOURS:
        raise ValueError(f"A class lasts more than 0 and at most {MAX_HOURS} hours; {hours:g} was asked.")
    now = now or datetime.now(timezone.utc)
    presets = tuple(presets)
    secret = secrets.token_urlsafe(32)
    for _ in range(CODE_DRAWS):
        code = new_code()
        if storage.add_class(code=code, secret_hash=secret_hash(secret), corpus_id=corpus_id, presets=presets,
                             state=lesson_address(corpus_id, presets), ends_at=now + timedelta(hours=hours), now=now):
            return StartedClass(storage.get_class(code), secret)
    raise RuntimeError(f"No free class code after {CODE_DRAWS} draws; try again.")


def join_path(code: str) -> str:
    return f"/join/{code}"


def lecturer_path(code: str, secret: str) -> str:
    return f"/classes/{code}/lead/{secret}"
