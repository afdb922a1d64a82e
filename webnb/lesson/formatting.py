"""Jinja filters that turn the engine's numbers into what a student reads. Only formatting here."""
from __future__ import annotations

import math
import re
from fractions import Fraction

from webnb.engine.shared.plain import fraction_text, ratio_text
from webnb.lesson.charts import power_of_ten

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
        text = f"{value:.3e}"
        split = text.index("e")
        return f"{text[:split]} × 10{_EXPONENTS[text[split + 1:]]}"
    return f"{value:.4g}"


# "-05" → "⁻⁵", for every exponent a float64 below 10⁻³ can have (a table of hundreds of cells formats hundreds).
_EXPONENTS = {f"{e:+03d}": str(e).translate(_SUPERSCRIPT) for e in range(-330, 0)}


def float64(value: float | None) -> str:
    """A float64 with every digit it holds (the shortest text that reads back as the same float): where the point is
    the float itself, 0.01²⁰ is 1.0000000000000005 × 10⁻⁴⁰, not 10⁻⁴⁰."""
    if value is None:
        return "—"
    text = repr(float(value))
    if "e" not in text:
        return text.replace("-", "−")
    mantissa, exponent = text.split("e")
    return f"{mantissa} × 10{str(int(exponent)).translate(_SUPERSCRIPT)}".replace("-", "−")


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


def p_value(exact_value: Fraction) -> str:
    """A p-value from its exact fraction: three significant digits, or "< 10⁻ⁿ" when it is too small for a float64
    (thousands of test documents all on one side), never a 0 that the exact value is not."""
    approximate = exact_value.numerator / exact_value.denominator
    if approximate == 0 and exact_value > 0:
        # log10 of the fraction from its digits' counts, rounded towards 0 so that "<" stays true
        exponent = math.floor(math.log10(exact_value.numerator) - math.log10(exact_value.denominator)) + 1
        return f"< 10{str(exponent).translate(_SUPERSCRIPT)}".replace("-", "−")
    return real(approximate, 3)


def big_count(value: int) -> str:
    return f"{value:,}"


def joint_parameter_count(n_classes: int, n_words: int) -> str:
    """K·2^d − 1, the free parameters of the full joint of d binary words and K classes (2^(d+1) − 1 for
    two classes), written so that a student can read its size: exact when short, else its number of digits."""
    if n_words <= 60:
        return f"{n_classes * 2**n_words - 1:,}"
    digits = int(math.log10(n_classes) + n_words * math.log10(2)) + 1
    return f"a number with {digits:,} digits"


def percent(value: float | None, digits: int = 1) -> str:
    """A share as a percentage ("86.9 %"); an undefined score (nothing to divide by) as "–"."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value * 100:.{digits}f} %"


def points(value: float, signed: bool = True) -> str:
    """A difference of two accuracies in percentage points, signed with a true minus: "+2.4", "−5.6", "0" (without
    the plus when not ``signed``)."""
    text = f"{value:{'+' if signed else ''}.{2 if abs(value) < 0.1 else 1}f}"
    if float(text) == 0:
        return "0"
    return text.replace("-", "−")


def loss(value: float | None) -> str:
    """A log loss: three decimals, or ∞ when a document got probability 0 for its true class."""
    if value is None or math.isnan(value):
        return "–"
    return "∞" if math.isinf(value) else f"{value:.3f}"


def real(value: float | None, digits: int = 4) -> str:
    """Any real number a student reads: ``digits`` significant digits, × 10ⁿ when very small or large, a true minus
    sign, and ±∞ as such (never NaN, which would mean a bug)."""
    if value is None:
        return "—"
    if math.isnan(value):
        raise ValueError("a NaN reached a page")
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"
    if value == 0:
        return "0"
    if 10 ** digits <= abs(value) < 1e9:
        return f"{value:.0f}".replace("-", "−")  # whole numbers of this size read better than × 10ⁿ
    if abs(value) < 1e-3 or abs(value) >= 1e9:
        mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
        return f"{mantissa} × 10{str(int(exponent)).translate(_SUPERSCRIPT)}".replace("-", "−")
    return f"{value:.{digits}g}".replace("-", "−")


def slide_value(exact_value, decimal: float | None) -> str:
    """A number on a slide: its exact fraction when there is one short enough to read from the back of the room
    (at most 12 characters, such as 32/3645), else its decimal value."""
    text = exact(exact_value) if isinstance(exact_value, (Fraction, int)) else ""
    return text if text and len(text) <= 12 else probability(decimal)


def slide_exact(exact_value, decimal: float | None) -> str:
    """An exact value on a slide, never cut in the middle: the fraction and its decimal when the fraction is short
    (``slide_value``'s 12 characters), else the decimal and how many digits the exact fraction has."""
    text = exact(exact_value) if isinstance(exact_value, (Fraction, int)) else ""
    if not text:
        return probability(decimal)
    if len(text) <= 12:
        return text if text == probability(decimal) else f"{text} ≈ {probability(decimal)}"
    digits = sum(character.isdigit() for character in text)
    return f"{probability(decimal)} (exactly, a fraction of {digits} digits)"


def label_parts(label: str) -> list[str]:
    """A class label cut after its dots, hyphens and underscores (soc. religion. christian): the places where the
    ``breakable`` macro lets a narrow column break it."""
    return re.split(r"(?<=[._-])", str(label))


FILTERS = {
    "label_parts": label_parts,
    "slide_value": slide_value,
    "slide_exact": slide_exact,
    "real": real,
    "percent": percent,
    "points": points,
    "loss": loss,
    "probability": probability,
    "float64": float64,
    "logarithm": logarithm,
    "exact": exact,
    "ratio": ratio,
    "big_count": big_count,
    "p_value": p_value,
    "joint_parameter_count": joint_parameter_count,
    "power_of_ten": power_of_ten,
}


def is_finite(value) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value)


def is_infinite(value) -> bool:
    return isinstance(value, float) and math.isinf(value)


TESTS = {"finite": is_finite, "infinite_value": is_infinite}
