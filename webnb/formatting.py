"""Jinja filters that turn the engine's numbers into what a student reads. Only formatting here."""
from __future__ import annotations

import math
from fractions import Fraction

from markupsafe import Markup, escape

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


def parameter_cells(row, table: dict) -> Markup:
    """The ψ or θ cells of one word's row on the parameters page, each a <details> with its value and the formula
    that gives it. Written here rather than in the template: a page of 20 classes has 240 cells, and a template
    expression (with its escaping) for each piece of each was most of the page's cost. ``table`` holds what every
    row shares: symbol, functional, bernoulli, labels (the classes, escaped here), denominators, a (α), d (words).
    The word, the labels and α are user text and are escaped; the numbers are written here from numbers (digits,
    signs, fraction bars and superscripts only: nothing to escape)."""
    word = escape(row.word)
    symbol, a, d = escape(table["symbol"]), escape(table["a"]), table["d"]
    labels = table.get("escaped labels")
    if labels is None:  # once per page, not per cell
        labels = table["escaped labels"] = [escape(label) for label in table["labels"]]
    added = f"<mn>2</mn><mo>×</mo><mn>{a}</mn>" if table["bernoulli"] else f"<mn>{d}</mn><mo>×</mo><mn>{a}</mn>"
    parts = []
    for k, cell in enumerate(row.cells):
        label = labels[k]
        value = probability(cell.value)
        flag = ' <span class="flag">0</span>' if cell.zero else ' <span class="flag">1</span>' if cell.one else ""
        if cell.ratio:
            fraction = ratio(cell.ratio)
            if table["functional"]:
                name = f"<mi>{symbol}</mi><mo>(</mo><mtext>{word}</mtext><mo>|</mo><mtext>{label}</mtext><mo>)</mo>"
            else:
                name = f"<msub><mi>{symbol}</mi><mrow><mtext>{word}</mtext><mo>,</mo><mtext>{label}</mtext></mrow></msub>"
            summary = f'<span class="frac">{fraction}</span> ≈ <span class="dec">{value}</span>{flag}'
            body = (f'<math display="block">{name}<mo>=</mo>\n              <mfrac><mrow><mn>{cell.count}</mn><mo>+</mo>'
                    f'<mn>{a}</mn></mrow><mrow><mn>{table["denominators"][k]}</mn><mo>+</mo>{added}</mrow>'
                    f'</mfrac>\n              <mo>=</mo><mn>{fraction}</mn><mo>≈</mo><mn>{value}</mn></math>')
        else:
            summary = f'<span class="dec">{value}</span>{flag}'
            body = "<p>The exact value was clipped to the floor.</p>"
        breaks = " breaks" if cell.zero or cell.one else ""
        parts.append(f'<td class="num{breaks}">\n          <details>\n            <summary>{summary}</summary>\n'
                     f'            {body}\n          </details>\n        </td>')
    return Markup("\n        ".join(parts))


FILTERS = {
    "parameter_cells": parameter_cells,
    "real": real,
    "percent": percent,
    "loss": loss,
    "probability": probability,
    "logarithm": logarithm,
    "exact": exact,
    "ratio": ratio,
    "big_count": big_count,
    "joint_parameter_count": joint_parameter_count,
}


def is_finite(value) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value)


def is_infinite(value) -> bool:
    return isinstance(value, float) and math.isinf(value)


TESTS = {"finite": is_finite, "infinite_value": is_infinite}
