"""Plain-data views of engine records, for JSON (the command line and the pages' JSON twins).

JSON has no infinity, and log 0 = −∞ is a value the lesson needs: infinite floats are written as the
strings "-inf" and "inf". Exact fractions are strings such as "32/3645"; unreduced ratios keep their
parts, as in "0/2".
"""
from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING

from webnb.engine.text.trace import ClassTrace, Factor, Trace

if TYPE_CHECKING:  # evaluation imports number() from here
    from webnb.engine.evaluation.scores import Evaluation


def number(value: float | None):
    if value is None:
        return None
    value = float(value)
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


def fraction_text(value: Fraction | int | None) -> str | None:
    """An exact value as text: "3/7", "0", "1/2"."""
    if value is None:
        return None
    value = Fraction(value)
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def ratio_text(ratio) -> str | None:
    """An unreduced ratio as the lecture writes it: (0, 2) → "0/2". A part that is not a whole number
    (α = 0.5 gives 0.5/3) is written as its exact decimal, or as a bracketed fraction if it has none."""
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


def factor_dict(factor: Factor) -> dict:
    return {
        "word": factor.word,
        "present": factor.present,
        "power": factor.power,
        "probability": number(factor.probability),
        "ratio": ratio_text(factor.ratio),
        "exact": fraction_text(factor.exact),
        "log": number(factor.log_value),
    }


def class_trace_dict(trace: ClassTrace) -> dict:
    absent = trace.absent_words
    return {
        "class": trace.label,
        "prior": number(trace.prior),
        "prior_exact": fraction_text(trace.prior_exact),
        "log_prior": number(trace.log_prior),
        "factors": [factor_dict(f) for f in trace.factors],
        "absent_words": None
        if absent is None
        else {
            "count": absent.count,
            "log_product": number(absent.log_product),
            "product": number(absent.product),
            "exact": fraction_text(absent.exact),
        },
        "zero_factors": [{"word": z.word, "class": z.label, "present": z.present} for z in trace.zero_factors],
        "joint": number(trace.joint),
        "joint_exact": fraction_text(trace.joint_exact),
        "log_joint": number(trace.log_joint),
        "shifted_log_joint": number(trace.shifted_log_joint),
        "posterior": number(trace.posterior),
        "log_posterior": number(trace.log_posterior),
    }


def trace_dict(trace: Trace) -> dict:
    analysis = trace.analysis
    return {
        "text": trace.text,
        "model": trace.model,
        "tokens": list(analysis.features),
        "dropped": [{"word": d.word, "reason": d.reason} for d in analysis.dropped],
        "replacements": [{"text": original, "placeholder": p} for original, p in analysis.replacements],
        "unseen": list(trace.unseen),
        "features": [{"word": f.word, "index": f.index, "count": f.count, "value": f.value} for f in trace.features],
        "vocabulary_size": trace.vocabulary_size,
        "classes": list(trace.classes),
        "per_class": [class_trace_dict(c) for c in trace.per_class],
        "cannot_decide": trace.cannot_decide,
        "log_shift": number(trace.log_shift),
        "sum_shifted": number(trace.sum_shifted),
        "log_evidence": number(trace.log_evidence),
        "evidence": number(trace.evidence),
        "decision": trace.decision,
        "tied": list(trace.tied),
        "tie_note": trace.tie_note,
        "exact": trace.exact,
    }


def evaluation_dict(evaluation: Evaluation) -> dict:
    return evaluation.describe()
