"""Jinja filters that turn the engine's numbers into what a student reads. Only formatting here."""
from __future__ import annotations

import math
from fractions import Fraction

from webnb.engine.serialize import fraction_text, ratio_text


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def probability(value: float | None) -> str:
    """Four significant digits, scientific notation below 0.001, and exact 0 and 1 shown as such."""
    if value is None:
        return "—"
    if value == 0:
        return "0"
    if value == 1:
        return "1"
    if abs(value) < 1e-3:
        mantissa, exponent = f"{value:.3e}".split("e")
        return f"{mantissa} × 10{str(int(exponent)).translate(_SUPERSCRIPT)}"
    return f"{value:.4g}"


def logarithm(value: float | None) -> str:
    if value is None:
        return "—"
    if math.isnan(value):
        raise ValueError("a NaN reached a page: every log-probability must be a number or −∞")
    if value == -math.inf:
        return "−∞"
    if value == math.inf:
        return "∞"
    return f"{value:.4f}".replace("-", "−")


def exact(value: Fraction | None) -> str:
    return fraction_text(value) if value is not None else "—"


def ratio(value) -> str:
    return ratio_text(value) if value is not None else "—"


def big_count(value: int) -> str:
    return f"{value:,}"


def power_of_two_minus_one(exponent: int) -> str:
    """2^n − 1 written so that a student can read its size: exact when short, else its number of digits."""
    if exponent <= 64:
        return f"{2**exponent - 1:,}"
    digits = int(exponent * math.log10(2)) + 1
    return f"2^{exponent:,} − 1, a number with {digits:,} digits"


FILTERS = {
    "probability": probability,
    "logarithm": logarithm,
    "exact": exact,
    "ratio": ratio,
    "big_count": big_count,
    "power_of_two_minus_one": power_of_two_minus_one,
}


def is_finite(value) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value)


def is_infinite(value) -> bool:
    return isinstance(value, float) and math.isinf(value)


TESTS = {"finite": is_finite, "infinite_value": is_infinite}
