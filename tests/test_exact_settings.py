"""α is read once, as the exact number typed: every spelling of the same number gives the same page, links write
the number back, and the field echoes what was typed."""
from __future__ import annotations

import random
import re
from fractions import Fraction

import pytest
from conftest import soup_of

from webnb.engine.shared.numbers import ExactNumber, exact_number_text, parse_exact_decimal
from webnb.lesson.state import STEPS, parse_state

ZERO_SPELLINGS = ("0", "0.00", ".0", "0.0", "0e5")


@pytest.mark.parametrize(("typed", "written"), [
    ("0", "0"), ("0.00", "0"), (".5", "0.5"), ("1.50", "1.5"), ("1e-3", "0.001"), ("2.5e-30", "2.5e-30"),
    ("1e-100", "1e-100"), ("1000", "1000"), ("1/3", "1/3"), ("2/4", "0.5"), ("0.00001e-99", "0.0001e-100"),
    ("12345.678901234", "12345.678901234"), ("0.00000000001", "1e-11"),
])
def test_an_exact_number_is_written_as_a_person_types_it(typed, written):
    number = ExactNumber(parse_exact_decimal(typed))
    assert str(number) == written
    assert parse_exact_decimal(written) == number


@pytest.mark.slow  # about 1 s
def test_every_number_that_can_be_typed_is_written_back_to_the_same_number():
    rng = random.Random(23)
    checked = 0
    for _ in range(20_000):
        digits = str(rng.randint(0, 10 ** rng.randint(1, 14)))
        point = rng.randint(0, len(digits))
        text = (digits[:point] + "." + digits[point:]).strip(".") or "0"
        if rng.random() < 0.5:
            text += f"e{rng.randint(-100, 100)}"
        try:
            number = parse_exact_decimal(text)
        except ValueError:  # too long, or the exponent out of range: nothing to write back
            continue
        written = exact_number_text(number)
        assert len(written) <= 40 and parse_exact_decimal(written) == number, (text, written)
        checked += 1
    assert checked > 15_000


def test_an_exact_number_is_a_fraction_that_equals_its_value():
    zero, tenth = ExactNumber("0.00"), ExactNumber(Fraction(1, 10))
    assert zero == 0 and not zero and tenth == Fraction("0.1") and hash(tenth) == hash(Fraction(1, 10))
    assert type(tenth * 2) is Fraction and tenth * 2 == Fraction(1, 5)


def test_the_state_holds_alpha_as_a_number_and_keeps_what_was_typed_for_the_field():
    state = parse_state({"alpha": " .50 "})
    assert state.alpha == Fraction(1, 2) and isinstance(state.alpha, ExactNumber)
    assert state.field_text("alpha") == ".50"
    assert "alpha=0.5&" in state.query() + "&"
    # Changed since it was typed: the field shows the value in use.
    moved = parse_state({"alpha": "0.5"}).__class__(alpha=ExactNumber(2), typed=state.typed)
    assert moved.field_text("alpha") == "2"
    assert parse_state({"alpha": "-1"}).field_text("alpha") == "1"  # refused: the default, as links write it


def page(client, step: str, alpha: str, **extra):
    return client.get("/corpora/match-reviews/inference",
                      query_string={"model": "bernoulli", "alpha": alpha, "text": "not sharp match", "step": step,
                                    **extra})


def without_typed_alpha(html: str) -> str:
    """The page with the α field's echoed text blanked: the only place the spelling may show."""
    return re.sub(r'(<input id="model-alpha"[^>]*?value=")[^"]*"', r'\1"', html)


@pytest.mark.parametrize("step", [  # the first step and the zeros step in the fast run
    step if step in ("tokens", "zeros") else pytest.param(step, marks=pytest.mark.slow) for step in STEPS])
def test_every_spelling_of_zero_gives_the_same_page_at_every_step(client, step):
    pages = {alpha: page(client, step, alpha) for alpha in ZERO_SPELLINGS}
    html = {alpha: response.get_data(as_text=True) for alpha, response in pages.items()}
    assert all(response.status_code == 200 for response in pages.values())
    reference = without_typed_alpha(html["0"])
    for alpha in ZERO_SPELLINGS:
        assert without_typed_alpha(html[alpha]) == reference, alpha
        field = soup_of(pages[alpha]).select_one("#model-alpha")
        assert field["value"] == alpha
    if step == "smoothing":
        assert "0 brings the failure back" in reference
    twins = [page(client, step, alpha, format="json").get_json() for alpha in ZERO_SPELLINGS]
    assert all(twin == twins[0] for twin in twins)


def test_the_smoothing_hint_shows_only_at_zero(client):
    assert "0 brings the failure back" in page(client, "smoothing", "0.000").get_data(as_text=True)
    assert "0 brings the failure back" not in page(client, "smoothing", "0.001").get_data(as_text=True)


def test_links_carry_alpha_as_the_number_whatever_its_spelling(client):
    links = [a["href"] for a in soup_of(page(client, "zeros", "0.50")).select("a[href*='alpha=']")]
    assert links and all("alpha=0.5&" in href + "&" for href in links)
