"""How numbers are written on the pages."""
from __future__ import annotations

import math
import sys
from fractions import Fraction

import pytest

from webnb.engine.evaluation.significance import exact_two_sided_p
from webnb.lesson.formatting import joint_parameter_count, logarithm, p_value, probability


@pytest.mark.parametrize(
    "value, text",
    [(0.0, "0"), (1.0, "1"), (0.6, "0.6"), (2 / 3, "0.6667"), (32 / 3645, "0.008779"), (1e-14, "1.000 × 10⁻¹⁴"),
     (5e-324, "4.941 × 10⁻³²⁴"), (None, "—")],
)
def test_probability(value, text):
    assert probability(value) == text


def test_logarithm():
    assert logarithm(-math.inf) == "−∞" and logarithm(-4.735375741643032) == "−4.7354" and logarithm(None) == "—"
    with pytest.raises(ValueError, match="NaN"):
        logarithm(math.nan)


@pytest.mark.parametrize("n_classes, n_words", [(2, 8), (3, 2), (2, 60), (2, 100), (20, 130_107), (4, 1000)])
def test_joint_parameter_count(n_classes, n_words):
    exact = n_classes * 2**n_words - 1  # the free parameters of the full joint: K·2^d − 1
    text = joint_parameter_count(n_classes, n_words)
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)  # to count the digits of 20·2^130107 exactly
    try:
        digits = len(str(exact))
    finally:
        sys.set_int_max_str_digits(limit)
    if n_words <= 60:
        assert text == f"{exact:,}"
    else:
        assert text == f"a number with {digits:,} digits"


@pytest.mark.parametrize("exact_value, text", [
    (Fraction(1), "1"), (Fraction(1, 2), "0.5"), (Fraction(11, 512), "0.0215"),
    (exact_two_sided_p(2, 40), "4.11 × 10⁻¹⁰"),
    (exact_two_sided_p(100, 3000), "< 10⁻⁷⁴²"),  # about 10^−742.4: below every float64, never shown as 0
])
def test_p_value(exact_value, text):
    assert p_value(exact_value) == text
