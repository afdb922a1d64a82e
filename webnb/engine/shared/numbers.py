"""Numbers typed by a person (in an address, a form or on the command line), read within bounds: whole numbers,
exact decimals (α) and float64 values (var_smoothing, a feature's value).

Python reads any decimal string: ``Fraction("1e-1000000")`` builds a million-digit integer (seconds of work) and
``int("1" * 5000)`` raises an error about its own internals. Every number a user can type is therefore checked
for its length and its exponent before it is converted, and every refusal is a ``ValueError`` whose message says
what a valid value looks like, in words a student can act on.
"""
from __future__ import annotations

import math
import re
import sys
from fractions import Fraction
from numbers import Integral

# Longer than any value a lesson needs ("0.000001", "123456789", "1/3"), short enough to convert in microseconds.
MAX_NUMBER_LENGTH = 40
# 10⁻¹⁰⁰ is smaller than any α that teaches something; a float underflows below about 10⁻³⁰⁸.
MAX_EXPONENT = 100

LARGEST = sys.float_info.max

_WHOLE = re.compile(r"[0-9]+")
_DECIMAL = re.compile(r"(?P<mantissa>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE](?P<exponent>[+-]?[0-9]+))?")
_RATIO = re.compile(r"[0-9]+/[0-9]+")
# Plain decimal notation in ASCII, signed: digits, at most one point, an optional exponent ("nan", "0x10" are not).
_SIGNED_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


class ExactNumber(Fraction):
    """A setting read once as the exact number it spells (α, the held-out share), written back the way a person
    types it: its exact decimal where it has one ("0.1", "1e-50"), else its ratio ("1/3").

    It is a Fraction, so ``ExactNumber("0.00") == 0`` and it goes to the engine as it is; arithmetic gives plain
    Fractions.

    Parameters
    ----------
    numerator : int, str, Fraction or float
        What ``Fraction`` accepts as its first argument (usually the result of ``parse_exact_decimal``).
    denominator : int, optional
        As for ``Fraction``.

    Raises
    ------
    ValueError, ZeroDivisionError
        As ``Fraction`` raises them, for text it cannot read or a denominator of 0.

    Examples
    --------
    >>> str(ExactNumber("0.10")), str(ExactNumber(1, 3)), str(ExactNumber("1e-50"))
    ('0.1', '1/3', '1e-50')
    >>> ExactNumber("0.00") == 0
    True
    """

    __slots__ = ()

    def __str__(self) -> str:
        return exact_number_text(self)

    def __repr__(self) -> str:
        return f"ExactNumber({str(self)!r})"


def exact_number_text(value: Fraction) -> str:
    """``value`` as a person would type it, exactly: a plain decimal ("0.25", "3", "0.001"), scientific notation
    when that is shorter than a long plain one ("1e-100", "2.5e-30"), or the ratio ("1/3") when no decimal is
    exact; ``parse_exact_decimal`` reads each back to the same number."""
    value = Fraction(value)
    sign, value = ("-", -value) if value < 0 else ("", value)
    twos, fives, rest = 0, 0, value.denominator
    while rest % 2 == 0:
        rest, twos = rest // 2, twos + 1
    while rest % 5 == 0:
        rest, fives = rest // 5, fives + 1
    if rest != 1:
        return f"{sign}{value.numerator}/{value.denominator}"
    plain = _plain_decimal(value, max(twos, fives))
    if len(plain) <= PLAIN_LENGTH or value == 0:
        return sign + plain
    # d.ddd × 10^exponent, the exponent kept within what parse_exact_decimal reads (the mantissa takes the rest)
    exponent = math.floor(math.log10(value.numerator) - math.log10(value.denominator))
    while Fraction(10) ** exponent > value:  # log10 rounds; the exponent must be exact
        exponent -= 1
    while Fraction(10) ** (exponent + 1) <= value:
        exponent += 1
    exponent = max(-MAX_EXPONENT, min(MAX_EXPONENT, exponent))
    mantissa = value / Fraction(10) ** exponent
    scientific = f"{_plain_decimal(mantissa, max(twos, fives) + exponent)}e{exponent}"
    return sign + min(plain, scientific, key=len)


def _plain_decimal(value: Fraction, places: int) -> str:
    """``value`` (≥ 0, exact with ``places`` decimals) written out, without trailing zeros."""
    places = max(places, 0)
    digits = str(value.numerator * 10**places // value.denominator)
    if not places:
        return digits
    padded = digits.rjust(places + 1, "0")
    fraction = padded[-places:].rstrip("0")
    return padded[:-places] + (f".{fraction}" if fraction else "")


# A decimal longer than this is written in scientific notation ("0.0000000001" stays, 1e-11 does not).
PLAIN_LENGTH = 12


def is_whole(text: str) -> bool:
    """Whether ``text`` is written with the digits 0-9 only, however many.

    ``str.isdigit()`` also accepts "²" and other digits that ``int()`` refuses. This only tells what kind of number
    it is; ``parse_whole`` reads one.

    Parameters
    ----------
    text : str
        What a person typed.

    Returns
    -------
    bool
        True for one or more ASCII digits and nothing else.

    Examples
    --------
    >>> is_whole("42"), is_whole("4²"), is_whole("-1"), is_whole("")
    (True, False, False, False)
    """
    return _WHOLE.fullmatch(text) is not None


def whole_number(value, name: str, *, least: int = 0) -> int:
    """``value`` as an int when it is a whole number (any integer type, numpy's included, but not a bool) of at least
    ``least``.

    For the numbers a program passes (counts, how many bins); ``parse_whole`` reads the ones a person types.

    Parameters
    ----------
    value : object
        The number given.
    name : str
        What it is, for the message.
    least : int, default 0
        The smallest allowed.

    Returns
    -------
    int

    Raises
    ------
    ValueError
        If ``value`` is not a whole number of at least ``least``.

    Examples
    --------
    >>> whole_number(3, "n_bins", least=1)
    3
    >>> whole_number(1.5, "a count")
    Traceback (most recent call last):
        ...
    ValueError: a count must be a whole number of at least 0, not 1.5
    """
    if isinstance(value, bool) or not isinstance(value, Integral) or value < least:
        raise ValueError(f"{name} must be a whole number of at least {least}, not {value!r}")
    return int(value)


def parse_whole(text: str, *, low: int, high: int, what: str) -> int:
    """A whole number of ASCII digits between ``low`` and ``high``.

    Unicode digits ("²", "٣"), signs, spaces inside and more than 40 characters are refused; spaces around it are
    allowed.

    Parameters
    ----------
    text : str
        What a person typed.
    low, high : int
        The smallest and the largest value allowed (both included).
    what : str
        What the number is, to start the message with, e.g. "The seed".

    Returns
    -------
    int
        The number.

    Raises
    ------
    ValueError
        If ``text`` is not such a number or lies outside ``low`` … ``high``; the message says what is valid.

    Examples
    --------
    >>> parse_whole(" 7 ", low=0, high=10, what="The seed")
    7
    >>> parse_whole("11", low=0, high=10, what="The seed")
    Traceback (most recent call last):
        ...
    ValueError: The seed must be a whole number from 0 to 10.
    """
    raw = str(text).strip()
    if len(raw) <= MAX_NUMBER_LENGTH and is_whole(raw):
        value = int(raw)
        if low <= value <= high:
            return value
    raise ValueError(f"{what} must be a whole number from {low:,} to {high:,}.")


def parse_exact_decimal(text: str, what: str = "The value") -> Fraction:
    """A non-negative number written as a decimal ("0.1", "2.5e-3") or a ratio of whole numbers ("1/3"), as the
    exact fraction it spells: "0.1" is 1/10.

    At most 40 characters and an exponent between −100 and 100, so that it converts in microseconds.

    Parameters
    ----------
    text : str
        What a person typed (spaces around it allowed).
    what : str, default "The value"
        What the number is, to start an error message with.

    Returns
    -------
    Fraction
        The exact value (never a float's binary approximation).

    Raises
    ------
    ValueError
        If ``text`` is too long, not such a number, a ratio dividing by 0, or has an exponent beyond ±100.

    Examples
    --------
    >>> parse_exact_decimal("0.1")
    Fraction(1, 10)
    >>> parse_exact_decimal("1/3"), parse_exact_decimal("2.5e-3")
    (Fraction(1, 3), Fraction(1, 400))
    """
    raw = str(text).strip()
    example = f"{what} must be a number such as 1, 0.5, 1e-3 or 1/3"
    if len(raw) > MAX_NUMBER_LENGTH:
        raise ValueError(f"{example}, written with at most {MAX_NUMBER_LENGTH} characters.")
    if _RATIO.fullmatch(raw):
        numerator, denominator = raw.split("/")
        if int(denominator) == 0:
            raise ValueError(f"{example}; a ratio cannot divide by 0.")
        return Fraction(int(numerator), int(denominator))
    match = _DECIMAL.fullmatch(raw)
    if match is None:
        raise ValueError(f"{example}, not {raw[:20]!r}.")
    exponent = match.group("exponent")
    if exponent is not None and (len(exponent.lstrip("+-")) > 4 or abs(int(exponent)) > MAX_EXPONENT):
        raise ValueError(f"{example}, with an exponent between -{MAX_EXPONENT} and {MAX_EXPONENT}.")
    return Fraction(raw)


def bounded_fraction(value: Fraction, what: str = "The value") -> Fraction:
    """``value`` if its numerator and denominator are of a size that a decimal of 40 characters can spell."""
    limit = 10 ** (MAX_NUMBER_LENGTH + MAX_EXPONENT)
    if abs(value.numerator) > limit or value.denominator > limit:
        raise ValueError(f"{what} has too many digits; write it with at most {MAX_NUMBER_LENGTH} characters.")
    return value


def is_plain_decimal(text: str) -> bool:
    """Whether ``text`` is a non-negative decimal of ASCII digits ("0.5", "2e-3", ".5"), at most 40 characters.

    ``float()`` also reads "１", "1_000", "nan" and "infinity"; this does not.

    Parameters
    ----------
    text : str
        What a person typed (not stripped).

    Returns
    -------
    bool
        True for a plain decimal with an exponent between −100 and 100, if any.

    Examples
    --------
    >>> is_plain_decimal("2e-3"), is_plain_decimal(".5"), is_plain_decimal("nan"), is_plain_decimal("1_000")
    (True, True, False, False)
    """
    match = _DECIMAL.fullmatch(text) if len(text) <= MAX_NUMBER_LENGTH else None
    return match is not None and (match.group("exponent") is None or abs(int(match.group("exponent"))) <= MAX_EXPONENT)


def parse_decimal(text: str, name: str, *, low: float = -LARGEST, high: float = LARGEST, low_open: bool = False,
                  high_open: bool = False, max_length: int = MAX_NUMBER_LENGTH, expected: str = "") -> float:
    """The float64 that ``text`` spells, if it lies between ``low`` and ``high``.

    Parameters
    ----------
    text : str
        What a person typed: a plain, optionally signed decimal such as "-0.25" or "1e-9" (spaces around it allowed).
    name : str
        What the value is, to start the message with, e.g. "var_smoothing".
    low, high : float, default: the whole float64 range
        The bounds of the valid values.
    low_open, high_open : bool, default False
        Whether that bound itself is excluded.
    max_length : int, default 40
        The most characters the value may have.
    expected : str, default ""
        What a valid value looks like, in the page's words: ends every message.

    Returns
    -------
    float
        The value.

    Raises
    ------
    ValueError
        If ``text`` is empty, too long, not a plain decimal, overflows or underflows float64, has a sign that ``low``
        forbids, or lies outside the bounds. The message names ``name`` and says what is wrong.

    Examples
    --------
    >>> parse_decimal("1e-9", "var_smoothing", low=0.0)
    1e-09
    >>> parse_decimal("-1", "var_smoothing", low=0.0, expected="Use a number of 0 or more.")
    Traceback (most recent call last):
        ...
    ValueError: var_smoothing is '-1', with a minus sign. Use a number of 0 or more.
    """

    def refuse(problem: str) -> ValueError:
        return ValueError(" ".join(part for part in (f"{name} {problem}.", expected) if part))

    raw = str(text).strip()
    if not raw:
        raise refuse("is empty")
    if len(raw) > max_length:
        raise refuse(f"is {len(raw):,} characters long; write it with at most {max_length}")
    shown = raw if len(raw) <= 20 else raw[:20] + "…"
    if not _SIGNED_DECIMAL.fullmatch(raw):
        raise refuse(f"is {shown!r}, not a plain decimal number (digits 0-9, a point, an exponent such as e-9)")
    value = float(raw)  # at most max_length characters: microseconds
    if math.isinf(value):
        raise refuse(f"is {shown!r}, larger than any float64 (the largest is about 1.8e308)")
    if value == 0.0 and re.search(r"[1-9]", raw.split("e")[0].split("E")[0]):
        raise refuse(f"is {shown!r}, closer to 0 than any float64 (the smallest is about 5e-324); write 0 "
                     "or a larger number")
    if raw.startswith("-") and low >= 0:
        raise refuse(f"is {shown!r}, with a minus sign")
    if value < low or (low_open and value == low):
        raise refuse(f"is {shown!r}, below {'or at ' if low_open else ''}{low:g}")
    if value > high or (high_open and value == high):
        raise refuse(f"is {shown!r}, above {'or at ' if high_open else ''}{high:g}")
    return value
