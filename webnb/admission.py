"""Who may store how much, beyond one workspace's quota. A fresh cookie is a fresh workspace, so the per-workspace
quotas alone bound nothing: in hosted mode each client address may start storing in only so many new workspaces
an hour and store only so many bytes an hour, and the whole server holds at most ``WEBNB_MAX_STORED_BYTES`` of
corpora (also in local mode, when that is set). A workspace costs nothing until it stores a corpus, so it is
counted as new then.

The counts per address live in the rate limiter's storage (memory, or Redis when WEBNB_RATE_LIMIT_STORAGE says
so), so that every process serving the app shares them. Addresses are kept only as keyed hashes.
"""
from __future__ import annotations

import hashlib
import hmac
import logging
import math
import threading
import time
from dataclasses import dataclass, field

from limits import RateLimitItemPerHour
from limits.storage import MemoryStorage
from limits.strategies import FixedWindowRateLimiter

from webnb.engine import Corpus, CorpusError
from webnb.engine.gaussian.table import NumericTable
from webnb.storage import Storage, stored_size

logger = logging.getLogger(__name__)

# Hosted-mode defaults (documented in the README); 0 switches a limit off. Sizes are as ``stored_size`` counts
# them: content plus each document's row, within 0.6 to 1.2 times the database's growth on disk (measured).
# A lecture hall of 300 students behind one NAT address each starting a workspace, with room for a second browser
# or a cleared cookie; a script's 40 fresh workspaces in 2 seconds still fit, but not a flood without end.
NEW_WORKSPACES_PER_HOUR = 500
# The same hall each storing about 3 MB in the hour (the SMS spam corpus counts 1.6 MB, Enron-1 6.6 MB).
STORED_BYTES_PER_HOUR = 1_000_000_000
# Every corpus together: a disk a small server can spare, five hours of the most one address may store.
MAX_STORED_BYTES = 5_000_000_000
SETTINGS = {
    "WEBNB_NEW_WORKSPACES_PER_HOUR": NEW_WORKSPACES_PER_HOUR,
    "WEBNB_STORED_BYTES_PER_HOUR": STORED_BYTES_PER_HOUR,
    "WEBNB_MAX_STORED_BYTES": MAX_STORED_BYTES,
}

_process_lock = threading.Lock()
_process_counter: FixedWindowRateLimiter | None = None  # this process's own counts, made when first needed
_shared_down = False  # whether the shared counts could not be reached last time (said once per outage)


def address_key(address: str | None, secret: str | bytes) -> str:
    """A keyed hash of a client address: the same address always gives the same key, and the key does not give
    the address back (the counts and the workspace rows never hold an address)."""
    secret = secret.encode() if isinstance(secret, str) else secret
    return hmac.new(secret, (address or "unknown").encode(), hashlib.sha256).hexdigest()[:24]


def app_limiter(app):
    """The app's Flask-Limiter (whose storage holds the counts), or None without one."""
    limiter = app.extensions.get("webnb_limiter")
    if limiter is None:
        from webnb import ratelimits  # imported here: ratelimits imports workspaces, which imports this

        limiter = getattr(ratelimits, "limiter", None)
    return limiter


def _in_process() -> FixedWindowRateLimiter:
    global _process_counter
    with _process_lock:
        if _process_counter is None:
            _process_counter = FixedWindowRateLimiter(MemoryStorage())
        return _process_counter


def _counted(limiter, operation):
    """``operation(counter)`` on fixed windows over the rate limiter's storage: shared by every process when it is
    Redis (Flask-Limiter's in-memory fallback while Redis is down). If that storage fails here, this process counts
    on its own: a Redis outage must neither stop students from storing nor answer 500. (A fixed window counts a
    cost of a million bytes with one increment; a moving window would keep an entry per byte.)"""
    global _shared_down
    if limiter is None:
        return operation(_in_process())
    try:
        result = operation(FixedWindowRateLimiter(limiter.limiter.storage))
    except Exception:  # noqa: BLE001 - any failure of the storage's client (connection refused, timeout, ...)
        if not _shared_down:
            _shared_down = True
            logger.warning("The rate-limit storage does not answer: each process counts the storage limits per "
                           "address on its own until it does.")
        return operation(_in_process())
    if _shared_down:
        _shared_down = False
        logger.warning("The rate-limit storage answers again: the storage limits per address are shared again.")
    return result


def _minutes_until(reset_time: float) -> str:
    minutes = max(1, math.ceil((reset_time - time.time()) / 60))
    return "a minute" if minutes == 1 else f"{minutes} minutes"


def size_text(size: int) -> str:
    """Sizes as people say them: 1,500,000,000 → "1.5 GB"."""
    for unit, factor in (("GB", 10**9), ("MB", 10**6), ("KB", 10**3)):
        if size >= factor:
            return f"{size / factor:,.1f}".removesuffix(".0") + f" {unit}"
    return f"{size:,} bytes"


@dataclass(frozen=True)
class Admission:
    """The limits beyond the workspace's quota, for one request's client. A limit of None (or 0) is off."""

    address: str | None  # the keyed hash of the client address; None where there are no per-address limits
    new_workspaces_per_hour: int | None = None
    stored_bytes_per_hour: int | None = None
    max_stored_bytes: int | None = None
    # The app's Flask-Limiter, whose storage keeps the counts (captured with the request: a background upload
    # stores from a thread that has no app).
    limiter: object = field(default=None, compare=False, repr=False)

    def admit(self, storage: Storage, workspace: str | None, corpus: Corpus | NumericTable | None,
              size: int | None = None) -> "Admitted":
        """Refuse (with a CorpusError, before anything is stored) a corpus that the server has no room for or that
        would take this address over its hourly limits; a workspace's first corpus makes it a new workspace.
        ``size``: the bytes it adds, when known (0 for records stored already); else its ``stored_size``."""
        if size is None:
            size = stored_size(corpus.to_corpus() if isinstance(corpus, NumericTable) else corpus)
        if self.max_stored_bytes and size:
            stored = storage.stored_bytes()
            if stored + size > self.max_stored_bytes:
                logger.warning("The storage budget is reached: %s bytes of corpora stored, WEBNB_MAX_STORED_BYTES "
                               "is %s; refused a corpus of %s bytes.", f"{stored:,}", f"{self.max_stored_bytes:,}",
                               f"{size:,}")
                raise CorpusError(
                    f"The server's storage for corpora is full: it holds {size_text(stored)} of the "
                    f"{size_text(self.max_stored_bytes)} it keeps, and this corpus takes {size_text(size)}. Nothing "
                    "was stored. Use a corpus you already have or a built-in one, and tell whoever runs this server.")
        if self.address is None:
            return Admitted(self, 0)
        bytes_limit = _per_hour(self.stored_bytes_per_hour)
        if bytes_limit is not None and not self._count(lambda counter: counter.test(bytes_limit, *self._key("bytes"),
                                                                                        cost=size)):
            stats = self._count(lambda counter: counter.get_window_stats(bytes_limit, *self._key("bytes")))
            used = bytes_limit.amount - stats.remaining
            raise CorpusError(
                f"Your network address may store {size_text(bytes_limit.amount)} of corpora an hour; it has stored "
                f"{size_text(used)} this hour and this corpus takes {size_text(size)}. Nothing was stored. "
                f"Try again in {_minutes_until(stats.reset_time)}, or store a smaller corpus.")
        workspace_limit = _per_hour(self.new_workspaces_per_hour)
        if workspace is not None and not storage.has_workspace(workspace):
            if workspace_limit is not None and not self._count(
                    lambda counter: counter.hit(workspace_limit, *self._key("workspaces"))):
                stats = self._count(lambda counter: counter.get_window_stats(workspace_limit, *self._key("workspaces")))
                raise CorpusError(
                    f"{workspace_limit.amount:,} new workspaces have already stored corpora from your network address "
                    f"this hour, the most it may start in an hour. Nothing was stored. Try again in "
                    f"{_minutes_until(stats.reset_time)}. (A browser that has stored a corpus here before is not "
                    "affected.)")
            # Counted once: from now on the workspace is not new, whether or not this corpus is stored.
            storage.register_workspace(workspace, created_by=self.address)
        return Admitted(self, size)

    def _key(self, counted: str) -> tuple[str, str]:
        return (f"stored-{counted}", self.address)

    def _count(self, operation):
        return _counted(self.limiter, operation)


@dataclass(frozen=True)
class Admitted:
    """A corpus admitted for storing; ``stored()`` counts its bytes against the address once it is stored."""

    admission: Admission
    size: int  # 0 where nothing is counted per address

    def stored(self) -> None:
        limit = _per_hour(self.admission.stored_bytes_per_hour)
        if limit is not None and self.size:
            self.admission._count(lambda counter: counter.hit(limit, *self.admission._key("bytes"), cost=self.size))


def _per_hour(amount: int | None) -> RateLimitItemPerHour | None:
    return RateLimitItemPerHour(int(amount), namespace="WEBNB") if amount else None
