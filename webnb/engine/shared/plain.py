"""The conventions of every engine record's ``to_dict()``: plain data for JSON (the command line and the pages'
JSON twins).

JSON has no infinity, and log 0 = −∞ is a value the lesson needs: infinite floats are written as the
strings "-inf" and "inf". Exact fractions are strings such as "32/3645"; unreduced ratios keep their
parts, as in "0/2". A record that writes its fields as they are says so with ``plain`` (``to_dict`` returns
``plain(self)``); a record that renames, leaves out or derives writes its own ``to_dict``.
"""
from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction

import numpy as np


def number(value: float | None):
    """A float for JSON: infinities become the strings "inf" and "-inf", None stays None.

    Parameters
    ----------
    value : float, numpy number or None
        The number to write, e.g. a log-probability that may be log 0 = −∞.

    Returns
    -------
    float, str or None
        ``float(value)``; "inf" or "-inf" for an infinite value; None for None.

    Examples
    --------
    >>> number(0.25)
    0.25
    >>> number(float("-inf"))
    '-inf'
    >>> number(None) is None
    True
    """
    if value is None:
        return None
    value = float(value)
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


def fraction_text(value: Fraction | int | None) -> str | None:
    """An exact value as text: "3/7", "0", "1/2".

    Parameters
    ----------
    value : Fraction, int or None
        The exact value. A fraction is written reduced, as ``Fraction`` keeps it.

    Returns
    -------
    str or None
        "p/q", or "p" alone when the value is whole; None for None.

    Examples
    --------
    >>> from fractions import Fraction
    >>> fraction_text(Fraction(6, 14))
    '3/7'
    >>> fraction_text(0)
    '0'
    >>> fraction_text(Fraction(81, 268912))
    '81/268912'
    """
    if value is None:
        return None
    value = Fraction(value)
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def ratio_text(ratio) -> str | None:
    """An unreduced ratio as the lecture writes it: (0, 2) → "0/2".

    A part that is not a whole number (α = 0.5 gives 0.5/3) is written as its exact decimal, or as a
    bracketed fraction if it has none.

    Parameters
    ----------
    ratio : tuple or None
        (numerator, denominator), each an int, a Fraction or anything ``Fraction`` accepts; never reduced.

    Returns
    -------
    str or None
        The parts joined by "/"; None for None.

    Examples
    --------
    >>> from fractions import Fraction
    >>> ratio_text((0, 2))
    '0/2'
    >>> ratio_text((6, 14))
    '6/14'
    >>> ratio_text((Fraction(1, 2), 3))
    '0.5/3'
    >>> ratio_text((Fraction(4, 3), 5))
    '(4/3)/5'
    """
    if ratio is None:
        return None
    if len(ratio) == 2 and type(ratio[0]) is int and type(ratio[1]) is int:  # the usual case; a table shows hundreds
        return f"{ratio[0]}/{ratio[1]}"
    return "/".join(_part_text(part if isinstance(part, Fraction) else Fraction(part)) for part in ratio)


def _part_text(value: Fraction) -> str:
    if value.denominator == 1:
        return str(value.numerator)
    decimal = Decimal(value.numerator) / Decimal(value.denominator)
    if Fraction(decimal) == value:  # the decimal is exact (the denominator has only factors 2 and 5)
        return format(decimal.normalize(), "f")
    return f"({value.numerator}/{value.denominator})"


def plain(record) -> dict:
    """A record's fields as plain data, by the conventions above: the ``to_dict()`` of a record that only writes
    its fields as they are.

    Each field keeps its name and is written by its type: a float (or numpy float) as ``number`` writes it, a
    whole number as an int, a ``Fraction`` as ``fraction_text`` writes it, a tuple or list as a list, a mapping
    key by key, a record by its own ``to_dict()`` (or by ``plain`` if it has none); anything else as it is (text,
    None, booleans, and the exact settings the JSON twins write themselves).

    Parameters
    ----------
    record : dataclass instance or NamedTuple
        The record.

    Returns
    -------
    dict
        Field name → plain value, in the order the fields are declared.

    Examples
    --------
    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Point:
    ...     word: str
    ...     log_probability: float
    ...     counts: tuple
    ...     share: Fraction
    >>> plain(Point("match", float("-inf"), (1, 2), Fraction(2, 6)))
    {'word': 'match', 'log_probability': '-inf', 'counts': [1, 2], 'share': '1/3'}
    """
    names = record._fields if isinstance(record, tuple) else [field.name for field in dataclasses.fields(record)]
    return {name: plain_value(getattr(record, name)) for name in names}


def plain_value(value):
    """One value as ``plain`` writes a field (see there)."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, Fraction):
        return fraction_text(value)
    if isinstance(value, (float, np.floating)):
        return number(value)
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, (tuple, list)):
        return [plain_value(item) for item in value]
    if isinstance(value, Mapping):
        return {key: plain_value(item) for key, item in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return plain(value)
    return value
