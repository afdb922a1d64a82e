"""Who may store how much, beyond one workspace's quota. A fresh cookie is a fresh workspace, so the per-workspace
quotas alone bound nothing. In hosted mode each client address may store only so many bytes an hour and a minute,
and start only so many new workspaces an hour and a minute; one workspace may store only its share of the address's
hourly bytes, so that one browser behind a lecture hall's NAT address cannot use up what the whole hall shares. The
operator raises the limits of given networks with ``WEBNB_SUBNET_LIMITS``. The whole server holds at most
``WEBNB_MAX_STORED_BYTES`` of corpora (also in local mode, when that is set).

A workspace counts as new when what it holds first grows past ``NEW_WORKSPACE_BYTES``: tiny pastes never spend the
address's new workspaces. Every corpus is charged its full size, also when the same records are stored already
(another workspace's upload), and storing those takes as long as storing them anew (``StorePace``): what a
workspace sees never tells whether another workspace stores the same records. (A copy opened from a share link
costs nothing: whoever holds the link knows the records exist.)

The counts per address live in the rate limiter's storage (memory, or Redis when WEBNB_RATE_LIMIT_STORAGE says
so), so that every process serving the app shares them. Addresses and workspaces are kept only as hashes.
"""
from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import logging
import math
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

from limits import RateLimitItemPerHour, RateLimitItemPerMinute
from limits.storage import MemoryStorage
from limits.strategies import FixedWindowRateLimiter

from webnb.engine import Corpus, CorpusError
from webnb.engine.gaussian.table import NumericTable
from webnb.engine.text.bag import PROGRESS_EVERY
from webnb.store.database import Storage, stored_size

logger = logging.getLogger(__name__)

# Hosted-mode defaults (documented in the README); 0 switches a limit off. Sizes are as ``stored_size`` counts
# them: content plus each document's row and index entries, within 0.7 to 1.15 times the database's growth on disk
# (measured on PostgreSQL and SQLite). A lecture hall of 300 students behind one NAT address, each with a second
# browser, storing about 3 MB in each (the SMS spam corpus counts 2.7 MB, Enron-1 7.7 MB): 600 new workspaces and
# 1.8 GB in the hour, with a third more for cleared cookies and third devices.
NEW_WORKSPACES_PER_HOUR = 800
STORED_BYTES_PER_HOUR = 2_500_000_000
# Per minute, about a thirtieth of the hour: whoever tries to spend the hour's budget alone needs half an hour or
# more, and everyone else gets their share of every minute meanwhile. A hall that stores all at once waits its
# turn a minute at a time, unless the operator raises its network's limits (WEBNB_SUBNET_LIMITS).
NEW_WORKSPACES_PER_MINUTE = 30
STORED_BYTES_PER_MINUTE = 80_000_000
# What one workspace may store in an hour, as a fraction of its address's hourly bytes (125 MB at the defaults,
# more than a workspace's quota holds): 20 browsers at least to spend the hour's bytes.
WORKSPACE_SHARE = 0.05
# Every corpus together: eight hours of the most one address may store, a dozen such lecture hours kept for the
# 30 days of retention. On disk, add about a fifth for the counted data (not counted here) and the WAL.
MAX_STORED_BYTES = 20_000_000_000
SETTINGS = {
    "WEBNB_NEW_WORKSPACES_PER_HOUR": NEW_WORKSPACES_PER_HOUR,
    "WEBNB_NEW_WORKSPACES_PER_MINUTE": NEW_WORKSPACES_PER_MINUTE,
    "WEBNB_STORED_BYTES_PER_HOUR": STORED_BYTES_PER_HOUR,
    "WEBNB_STORED_BYTES_PER_MINUTE": STORED_BYTES_PER_MINUTE,
    "WEBNB_WORKSPACE_SHARE": WORKSPACE_SHARE,
    "WEBNB_MAX_STORED_BYTES": MAX_STORED_BYTES,
}
# The limits per client address, which WEBNB_SUBNET_LIMITS may raise (or lower) for a network.
PER_ADDRESS = ("WEBNB_NEW_WORKSPACES_PER_HOUR", "WEBNB_NEW_WORKSPACES_PER_MINUTE", "WEBNB_STORED_BYTES_PER_HOUR",
               "WEBNB_STORED_BYTES_PER_MINUTE")
# A workspace is a new workspace of its address once what it holds grows past this: a few pasted lines, a small
# table or the built-in examples never spend the address's new workspaces. It is also the least share of the hourly
# bytes one workspace gets, however low the hourly bytes are set.
NEW_WORKSPACE_BYTES = 100_000

HOUR, MINUTE = 3600, 60

_process_lock = threading.Lock()
_process_counter: FixedWindowRateLimiter | None = None  # this process's own counts, made when first needed
_shared_down = False  # whether the shared counts could not be reached last time (said once per outage)


def _ip(address: str | None) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address as the ``ipaddress`` module reads it (an IPv4 address mapped into IPv6 as itself); None when
    it is not one."""
    try:
        ip = ipaddress.ip_address((address or "").strip())
    except ValueError:
        return None
    if ip.version == 6 and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def address_key(address: str | None, secret: str | bytes) -> str:
    """A keyed hash of a client address: the same address always gives the same key, however it is written, and
    the key does not give the address back (the counts and the workspace rows never hold an address)."""
    secret = secret.encode() if isinstance(secret, str) else secret
    ip = _ip(address)
    text = str(ip) if ip is not None else (address or "unknown")
    return hmac.new(secret, text.encode(), hashlib.sha256).hexdigest()[:24]


def _workspace_key(workspace: str) -> str:
    # A workspace id is 128 random bits: a plain hash keeps it out of the counts' storage.
    return hashlib.sha256(workspace.encode()).hexdigest()[:24]


def app_limiter(app):
    """The app's Flask-Limiter (whose storage holds the counts), or None without one."""
    return app.extensions.get("webnb_limiter")


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


def _wait_text(seconds: float) -> str:
    minutes = max(1, math.ceil(seconds / 60))
    return "a minute" if minutes == 1 else f"{minutes} minutes"


def size_text(size: int) -> str:
    """Sizes as people say them: 1,500,000,000 → "1.5 GB"."""
    for unit, factor in (("GB", 10**9), ("MB", 10**6), ("KB", 10**3)):
        if size >= factor:
            return f"{size / factor:,.1f}".removesuffix(".0") + f" {unit}"
    return f"{size:,} bytes"


# -- limits per network ---------------------------------------------------------------------------------------------

SUBNET_EXAMPLE = '{"10.20.0.0/16": 4, "192.0.2.10/32": {"WEBNB_STORED_BYTES_PER_HOUR": 10000000000}}'


@dataclass(frozen=True)
class SubnetLimits:
    """``WEBNB_SUBNET_LIMITS``, read once at startup: networks whose addresses get other limits per address than
    the settings say. Each network maps to a multiplier of every limit per address (4: four times as much), or to
    explicit limits by their setting names (the others stay as set). The most specific network holding an address
    decides."""

    rules: tuple[tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, float | dict[str, int]], ...] = ()

    @classmethod
    def parse(cls, value) -> SubnetLimits:
        """From a JSON object (the environment's text) or a dict (``instance/config.py``); a RuntimeError saying
        what is wrong and how to write it for anything else."""
        if value is None or (isinstance(value, str) and not value.strip()):
            return cls()
        if isinstance(value, str):
            try:
                value = json.loads(value, object_pairs_hook=_refuse_repeated_keys)
            except ValueError as error:
                raise RuntimeError(f"WEBNB_SUBNET_LIMITS is not valid JSON ({error}). Write networks and their "
                                   f"limits like {SUBNET_EXAMPLE}") from None
        if not isinstance(value, dict):
            raise RuntimeError(f"WEBNB_SUBNET_LIMITS must map networks to their limits, like {SUBNET_EXAMPLE}; "
                               f"it is {type(value).__name__}.")
        rules = {}
        for text, limit in value.items():
            try:
                network = ipaddress.ip_network(str(text).strip())
            except ValueError as error:
                raise RuntimeError(f"WEBNB_SUBNET_LIMITS: {text!r} is not a network ({error}). Write a network "
                                   "as its address and prefix length, like 10.20.0.0/16 or 2001:db8::/48.") from None
            if network in rules:
                raise RuntimeError(f"WEBNB_SUBNET_LIMITS names the network {network} twice.")
            rules[network] = _subnet_limit(network, limit)
        ordered = sorted(rules.items(), key=lambda rule: rule[0].prefixlen, reverse=True)
        return cls(tuple(ordered))

    def limits(self, address: str | None, settings: dict[str, int]) -> dict[str, int]:
        """The limits per address (``PER_ADDRESS`` names) for ``address``: ``settings`` as the most specific
        network holding it changes them; 0 (a limit switched off) stays 0."""
        ip = _ip(address)
        for network, limit in self.rules:
            if ip is not None and ip.version == network.version and ip in network:
                if isinstance(limit, dict):
                    return {**settings, **limit}
                return {name: math.ceil(amount * limit) for name, amount in settings.items()}
        return settings


def _refuse_repeated_keys(pairs):
    keys = [key for key, _ in pairs]
    repeated = sorted({key for key in keys if keys.count(key) > 1})
    if repeated:
        raise ValueError(f"{', '.join(repeated)} given twice")
    return dict(pairs)


def _subnet_limit(network, limit) -> float | dict[str, int]:
    if isinstance(limit, (int, float)) and not isinstance(limit, bool):
        if not (math.isfinite(limit) and limit > 0):
            raise RuntimeError(f"WEBNB_SUBNET_LIMITS: the multiplier of {network} must be a number above 0, "
                               f"such as 4; it is {limit!r}.")
        return float(limit)
    if isinstance(limit, dict):
        unknown = sorted(set(limit) - set(PER_ADDRESS))
        if unknown:
            raise RuntimeError(f"WEBNB_SUBNET_LIMITS: {network} names {', '.join(map(repr, unknown))}; its explicit "
                               f"limits may be {', '.join(PER_ADDRESS)}.")
        for name, amount in limit.items():
            if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
                raise RuntimeError(f"WEBNB_SUBNET_LIMITS: {name} of {network} must be a whole number, 0 or more "
                                   f"(0 switches it off); it is {amount!r}.")
        return dict(limit)
    raise RuntimeError(f"WEBNB_SUBNET_LIMITS: the limits of {network} must be a multiplier (a number above 0, such "
                       f"as 4) or an object of explicit limits by their setting names, like {SUBNET_EXAMPLE}; "
                       f"it is {limit!r}.")


# -- the counts -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Window:
    """What ``who`` did (``counted``: bytes, workspace bytes or new workspaces) in the current window of
    ``seconds`` (an hour or a minute, aligned to the clock), up to ``amount``. ``strict``: a cost that alone is
    more than the amount is refused; else it is let through in a window where nothing was counted yet (a corpus
    bigger than a minute's bytes is stored alone in its minute)."""

    counted: str
    who: str
    amount: int
    seconds: int
    now: float
    strict: bool = True

    @property
    def item(self):
        per = RateLimitItemPerHour if self.seconds == HOUR else RateLimitItemPerMinute
        return per(int(self.amount), namespace="WEBNB")

    @property
    def key(self) -> str:
        return self.item.key_for(f"stored-{self.counted}", self.who, str(int(self.now // self.seconds)))

    @property
    def wait(self) -> str:
        return _wait_text((self.now // self.seconds + 1) * self.seconds - self.now)

    @property
    def period(self) -> str:
        return "hour" if self.seconds == HOUR else "minute"

    @property
    def per(self) -> str:
        return "an hour" if self.seconds == HOUR else "a minute"

    def used(self, counter: FixedWindowRateLimiter) -> int:
        return int(counter.storage.get(self.key))

    def refuses(self, used: int, cost: int) -> bool:
        return used + cost > self.amount and (self.strict or used > 0)

    def hit(self, counter: FixedWindowRateLimiter, cost: int) -> None:
        counter.storage.incr(self.key, self.item.get_expiry(), amount=cost)


@dataclass(frozen=True)
class Admission:
    """The limits beyond the workspace's quota, for one request's client. A limit of None (or 0) is off."""

    address: str | None  # the keyed hash of the client address; None where there are no per-address limits
    new_workspaces_per_hour: int | None = None
    stored_bytes_per_hour: int | None = None
    max_stored_bytes: int | None = None
    new_workspaces_per_minute: int | None = None
    stored_bytes_per_minute: int | None = None
    workspace_share: float | None = None  # the fraction of the address's hourly bytes one workspace may store
    new_workspace_bytes: int = NEW_WORKSPACE_BYTES
    # The app's Flask-Limiter, whose storage keeps the counts (captured with the request: a background upload
    # stores from a thread that has no app).
    limiter: object = field(default=None, compare=False, repr=False)
    clock: Callable[[], float] = field(default=time.time, compare=False, repr=False)  # seconds, as time.time
    pace: StorePace | None = field(default=None, compare=False, repr=False)  # the process's, in hosted mode

    @property
    def workspace_bytes_per_hour(self) -> int | None:
        """The most one workspace may store in an hour: its share of the address's hourly bytes, never less than
        ``new_workspace_bytes``. None when either is off."""
        if not (self.workspace_share and self.stored_bytes_per_hour):
            return None
        return max(math.floor(self.workspace_share * self.stored_bytes_per_hour), self.new_workspace_bytes)

    def admit(self, storage: Storage, workspace: str | None, corpus: Corpus | NumericTable | None,
              size: int | None = None) -> Admitted:
        """Refuse (with a CorpusError, before anything is stored) a corpus that the server has no room for, that
        would take the workspace past its share of the address's hourly bytes, or the address past its bytes or
        new workspaces in the hour or the minute. A workspace counts as a new one of the address when this corpus
        takes what it holds past ``new_workspace_bytes``. ``size``: what it is charged when known (0 only for a
        copy opened from a share link); else its ``stored_size``, whether or not the same records are stored
        already."""
        if size is None:
            size = stored_size(corpus.to_corpus() if isinstance(corpus, NumericTable) else corpus)
        self._refuse_past_budget(storage, size)
        if self.address is None:
            return Admitted(self, size)
        now = self.clock()
        charged = self._byte_windows(workspace, now) if size else []
        self._refuse_past(charged, size)
        new = self._new_workspace_windows(storage, workspace, size, now)
        self._refuse_past(new, 1)
        if workspace is not None and not storage.has_workspace(workspace):
            storage.register_workspace(workspace, created_by=self.address)
        return Admitted(self, size, tuple((window, size) for window in charged) + tuple((window, 1) for window in new))

    def _refuse_past_budget(self, storage: Storage, size: int) -> None:
        if not (self.max_stored_bytes and size):
            return
        stored = storage.stored_bytes()
        if stored + size > self.max_stored_bytes:
            logger.warning("The storage budget is reached: %s bytes of corpora stored, WEBNB_MAX_STORED_BYTES "
                           "is %s; refused a corpus of %s bytes.", f"{stored:,}", f"{self.max_stored_bytes:,}",
                           f"{size:,}")
            raise CorpusError(
                f"The server's storage for corpora is full: it holds {size_text(stored)} of the "
                f"{size_text(self.max_stored_bytes)} it keeps, and this corpus takes {size_text(size)}. Nothing "
                "was stored. Use a corpus you already have or a built-in one, and tell whoever runs this server.")

    def _byte_windows(self, workspace: str | None, now: float) -> list[_Window]:
        """The counts a corpus's bytes are charged to: the workspace's share first (the most telling refusal)."""
        windows = []
        share = self.workspace_bytes_per_hour
        if share and workspace is not None:
            windows.append(_Window("workspace-bytes", _workspace_key(workspace), share, HOUR, now, strict=False))
        if self.stored_bytes_per_hour:
            windows.append(_Window("bytes", self.address, self.stored_bytes_per_hour, HOUR, now))
        if self.stored_bytes_per_minute:
            windows.append(_Window("bytes", self.address, self.stored_bytes_per_minute, MINUTE, now, strict=False))
        return windows

    def _new_workspace_windows(self, storage: Storage, workspace: str | None, size: int, now: float) -> list[_Window]:
        """The address's counts of new workspaces when this corpus makes ``workspace`` one (what it holds grows past
        ``new_workspace_bytes``), else none."""
        limits = [(amount, seconds) for amount, seconds in ((self.new_workspaces_per_hour, HOUR),
                                                            (self.new_workspaces_per_minute, MINUTE)) if amount]
        if workspace is None or not size or not limits:
            return []
        holding = storage.workspace_bytes(workspace)
        if not holding <= self.new_workspace_bytes < holding + size:
            return []
        return [_Window("workspaces", self.address, amount, seconds, now) for amount, seconds in limits]

    def _refuse_past(self, windows: list[_Window], cost: int) -> None:
        if not windows:
            return
        used = self._count(lambda counter: [window.used(counter) for window in windows])
        for window, used_now in zip(windows, used, strict=True):
            if window.refuses(used_now, cost):
                raise CorpusError(self._refusal(window, used_now, cost))

    def _refusal(self, window: _Window, used: int, cost: int) -> str:
        amount, period = size_text(window.amount), window.period
        if window.counted == "workspace-bytes":
            return (f"One workspace may store {amount} of corpora an hour ({self.workspace_share * 100:g}% of what "
                    "your network address may store, so that no one browser uses up what everyone on your network "
                    f"shares); this workspace has stored {size_text(used)} this hour and this corpus takes "
                    f"{size_text(cost)}. Nothing was stored. Try again in {window.wait}, or store a smaller corpus. "
                    "(Other browsers on your network can still store theirs.)")
        if window.counted == "bytes":
            return (f"Your network address may store {amount} of corpora {window.per}; it "
                    f"has stored {size_text(used)} this {period} and this corpus takes {size_text(cost)}. Nothing was "
                    f"stored. Try again in {window.wait}, or store a smaller corpus.")
        return (f"{window.amount:,} new workspaces have already stored corpora from your network address this "
                f"{period}, the most it may start in {window.per} (a workspace counts once it "
                f"holds more than {size_text(self.new_workspace_bytes)}). Nothing was stored. Try again in "
                f"{window.wait}. (A browser whose workspace holds more than that already is not affected.)")

    def _count(self, operation):
        return _counted(self.limiter, operation)


@dataclass(frozen=True)
class Admitted:
    """A corpus admitted for storing; ``stored()`` charges it to the address and the workspace once it is stored."""

    admission: Admission
    size: int  # the bytes it is charged (its full size, whether or not the same records are stored already)
    charges: tuple[tuple[_Window, int], ...] = ()

    def stored(self) -> None:
        if self.charges:
            self.admission._count(lambda counter: [window.hit(counter, cost) for window, cost in self.charges])


# -- the time a store takes -------------------------------------------------------------------------------------


class StorePace:
    """How long storing a corpus takes in this process, learnt from the stores that write their records (kept in
    ``app.extensions``, one per process). Storing records that are stored already writes and counts nothing, so
    it waits out the time a store of that size takes here, reporting the progress counting would: neither the
    answer's time nor a job's progress says whether another workspace stores the same records.

    The time is a line, seconds = fixed + per byte × bytes, fitted by least squares to the recent stores, each
    store weighing ``MEMORY`` times less than the next. Until stores of sizes a megabyte apart or more were seen,
    the time per byte is the one measured here on PostgreSQL; what is learnt stays within ``BOUNDS``, so that one
    slow store does not make every later one sleep for minutes."""

    MEMORY = 0.9
    # Measured on PostgreSQL (SQLite is faster): 6.4 to 8.4 MB a second for corpora of 2.7 to 21 MB counted and
    # stored, 26 ms (SQLite: 7 ms) for a pasted handful of lines.
    FIXED_SECONDS = 0.025
    SECONDS_PER_BYTE = 1.5e-7
    BOUNDS = {"fixed": (0.0, 5.0), "per_byte": (1e-9, 1e-6)}
    SPREAD_BYTES = 1_000_000  # sizes this far apart (a standard deviation) before a time per byte is learnt

    def __init__(self, sleep: Callable[[float], None] = time.sleep, clock: Callable[[], float] = time.perf_counter):
        self.sleep, self.clock = sleep, clock
        self._sums: dict[str, list[float]] = {}  # per kind of store: weight, Σx, Σy, Σx², Σxy
        self._lock = threading.Lock()

    def start(self, kind: str, size: int, stored_already: bool) -> PacedStore:
        """A store of ``size`` bytes (as ``stored_size`` counts them) of ``kind`` ("texts" or "table"), timed from
        now. ``stored_already``: whether its records were stored before it (then nothing is written)."""
        return PacedStore(self, kind, size, stored_already, self.clock())

    def measured(self, kind: str, size: int, seconds: float) -> None:
        with self._lock:
            weight, sx, sy, sxx, sxy = (total * self.MEMORY for total in self._sums.get(kind, [0.0] * 5))
            self._sums[kind] = [weight + 1, sx + size, sy + seconds, sxx + size * size, sxy + size * seconds]

    def estimate(self, kind: str, size: int) -> float:
        """The seconds a store of ``size`` bytes of ``kind`` takes in this process, as far as it has measured."""
        with self._lock:
            sums = self._sums.get(kind)
        if sums is None:
            return self.FIXED_SECONDS + self.SECONDS_PER_BYTE * size
        weight, sx, sy, sxx, sxy = sums
        mean_x, mean_y = sx / weight, sy / weight
        spread = sxx / weight - mean_x * mean_x
        per_byte = (sxy / weight - mean_x * mean_y) / spread if spread > self.SPREAD_BYTES**2 else self.SECONDS_PER_BYTE
        per_byte = min(max(per_byte, self.BOUNDS["per_byte"][0]), self.BOUNDS["per_byte"][1])
        fixed = min(max(mean_y - per_byte * mean_x, self.BOUNDS["fixed"][0]), self.BOUNDS["fixed"][1])
        return fixed + per_byte * size

    def pad(self, kind: str, size: int, started: float, n_documents: int = 0, progress=None) -> None:
        """Wait until a store of ``size`` bytes begun at ``started`` (by ``clock``) would have ended, calling
        ``progress(done, n_documents)`` along the way where counting would (every ``PROGRESS_EVERY`` documents)."""
        remaining = max(0.0, self.estimate(kind, size) - (self.clock() - started))
        reports = range(PROGRESS_EVERY, n_documents + 1, PROGRESS_EVERY) if progress is not None else range(0)
        step = remaining / (len(reports) + 1)
        for done in reports:
            self._wait(step)
            progress(done, n_documents)
        self._wait(step)

    def _wait(self, seconds: float) -> None:
        if seconds >= 0.001:  # less is below a clock's noise
            self.sleep(seconds)


@dataclass(frozen=True)
class PacedStore:
    """One store, timed by its ``StorePace`` (see ``Catalog.add``)."""

    pace: StorePace
    kind: str
    size: int
    stored_already: bool
    started: float

    def instead_of_counting(self, n_documents: int, progress=None) -> None:
        """Records counted already are not counted again: wait as long as counting and storing them would take,
        reporting progress as counting does."""
        if self.stored_already:
            self.pace.pad(self.kind, self.size, self.started, n_documents, progress)

    def finished(self) -> None:
        """The store is done: learn how long it took when it wrote the records, else wait out what is left of the
        time writing them would have taken."""
        if self.stored_already:
            self.pace.pad(self.kind, self.size, self.started)
        else:
            self.pace.measured(self.kind, self.size, self.pace.clock() - self.started)
