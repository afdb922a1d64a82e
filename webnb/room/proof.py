"""A moment's work asked of a browser before it may try a class code, once its network has sent many wrong codes.

A hall shares one address, and a new cookie costs nothing, so no count per address or per browser can stop one
student's guessing without also stopping the hall's right codes. What a guesser cannot get for free is computing
time: while its address is over the wrong-code budget, every attempt from it carries a proof of work, a number
``nonce`` such that SHA-256 of ``challenge:nonce`` starts with ``bits`` zero bits (2^bits hashes on average, a
fraction of a second in a phone's browser). An honest student pays it once; a guesser pays it for every code.

A challenge is signed by the server (HMAC with the app's secret), carries when it was made and a random id, and is
spent once: the caller records the id (``spend``) in the rate limits' store, shared by every process.

No Flask here, so that the rule can be read and tested alone.
"""
from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from dataclasses import dataclass

VERSION = "p1"
NONCE = re.compile(r"[0-9]{1,20}")  # ASCII digits only: str.isdigit() takes "１" too
LIFETIME_SECONDS = 300  # a challenge older than this is refused: a page left open asks for a new one


@dataclass(frozen=True)
class Challenge:
    text: str  # what the browser hashes, with ``:nonce`` after it
    bits: int

    @property
    def id(self) -> str:
        return self.text.split(".")[2]


def _mac(secret: bytes, payload: str) -> str:
    return hmac.new(secret, payload.encode("ascii"), hashlib.sha256).hexdigest()[:32]


def make(secret: bytes, bits: int, now: float | None = None) -> Challenge:
    issued = int(time.time() if now is None else now)
    payload = f"{VERSION}.{issued}.{secrets.token_hex(12)}.{bits}"
    return Challenge(f"{payload}.{_mac(secret, payload)}", bits)


def leading_zero_bits(digest: bytes) -> int:
    value = int.from_bytes(digest, "big")
    return len(digest) * 8 - value.bit_length()


def solve(challenge: Challenge, start: int = 0) -> str:
    """The first nonce that solves ``challenge`` (what the browser computes; here for tests and tools)."""
    nonce = start
    while leading_zero_bits(hashlib.sha256(f"{challenge.text}:{nonce}".encode("ascii")).digest()) < challenge.bits:
        nonce += 1
    return str(nonce)


def verify(secret: bytes, text: str, nonce: str, *, min_bits: int, now: float | None = None) -> Challenge | None:
    """The challenge ``text`` if it is one of ours, fresh, asks at least ``min_bits`` and ``nonce`` solves it; else
    None. Whether it was spent already is the caller's to check (``Challenge.id``)."""
    text, nonce = text or "", nonce or ""
    if not (text.isascii() and NONCE.fullmatch(nonce)):
        return None
    parts = text.split(".")
    if len(parts) != 5 or parts[0] != VERSION:
        return None
    payload, mac = ".".join(parts[:4]), parts[4]
    if not hmac.compare_digest(_mac(secret, payload), mac):
        return None
    try:
        issued, bits = int(parts[1]), int(parts[3])
    except ValueError:
        return None
    age = (time.time() if now is None else now) - issued
    if bits < min_bits or not -60 <= age <= LIFETIME_SECONDS:
        return None
    digest = hashlib.sha256(f"{text}:{nonce}".encode("ascii")).digest()
    return Challenge(text, bits) if leading_zero_bits(digest) >= bits else None
