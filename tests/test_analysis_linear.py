"""Text analysis takes time linear in the text, for every placeholder and every token pattern, and the
placeholders' linear-time patterns find exactly the matches of the patterns as written.

Anyone can add ``normalize=`` to a page's address, so a pasted document must not be able to make a pattern
quadratic. Each crafted input below is one of the worst found for the patterns before they were made linear
("a." repeated took 0.34 s for 10 KB under ``email``, "1" followed by ",111" repeated 1.5 s under ``money``,
and 100 times as long for 10 times the text). Growth is compared within one run: ten analyses of the 10 KB
text against one of the 100 KB text, the best of a few repeats of each, in the CPU time of this thread (which
other processes on a busy machine do not add to). Linear work makes them about equal; quadratic work makes
the long one 10 times slower; the test allows 3 times (100 KB < 30 × 10 KB).
"""
from __future__ import annotations

import gc
import random
import time

import pytest

from webnb.engine.analysis import NORMALISATION_PATTERNS, PLACEHOLDERS, TOKEN_PATTERNS, AnalysisOptions, Analyzer

SMALL, LARGE = 10_000, 100_000
REPEATS = 3
ALLOWED_GROWTH = 30  # 10 times the text: linear work ≈ 10 times, quadratic ≈ 100 times

# (head, repeated unit, tail): the text is the head, the unit repeated to the size, and the tail.
CRAFTED = {
    "url": [("http://", ",.", ""), ("www.", ".", ""), ("", "www.", "")],
    "email": [("", "a.", ""), ("", ".a", ""), ("", "a.", "@a"), ("x@", "a-", ""), ("", "a+", "")],
    "money": [("1", ",111", ""), ("1", ",111", ",1,1 usd"), ("", "1,1", " usd"), ("", "1.", "")],
    "phone": [("", "1 ", ""), ("", "+1-1", ""), ("", "(123) ", ""), ("", "+1 ", "")],
    "number": [("", "1.", "a"), ("", "1,", "_"), ("", "1a", "")],
}


def crafted(head: str, unit: str, tail: str, size: int) -> str:
    return head + unit * ((size - len(head) - len(tail)) // len(unit)) + tail


def growth(analyse, small: str, large: str) -> float:
    """How many times longer one analysis of ``large`` takes than one of ``small`` (best of REPEATS each)."""
    best_small = best_large = float("inf")
    gc.disable()
    try:
        for _ in range(REPEATS):
            start = time.thread_time()
            for _ in range(10):
                analyse(small)
            best_small = min(best_small, (time.thread_time() - start) / 10)
            start = time.thread_time()
            analyse(large)
            best_large = min(best_large, time.thread_time() - start)
    finally:
        gc.enable()
    return best_large / best_small


def test_the_crafted_inputs_cover_every_placeholder():
    assert set(CRAFTED) == set(PLACEHOLDERS) == set(NORMALISATION_PATTERNS)


@pytest.mark.parametrize(
    ("kind", "head", "unit", "tail"),
    [(kind, *case) for kind, cases in CRAFTED.items() for case in cases],
    ids=[f"{kind}:{head}{unit}…{tail}" for kind, cases in CRAFTED.items() for head, unit, tail in cases],
)
def test_each_placeholder_takes_time_linear_in_the_text(kind, head, unit, tail):
    analyzer = Analyzer(AnalysisOptions(normalize=(kind,)))
    small, large = crafted(head, unit, tail, SMALL), crafted(head, unit, tail, LARGE)
    assert len(small) == pytest.approx(SMALL, abs=10) and len(large) == pytest.approx(LARGE, abs=10)
    assert growth(analyzer, small, large) < ALLOWED_GROWTH


def test_every_placeholder_at_once_takes_time_linear_in_the_text():
    # The pages analyse with several placeholders at once; the crafted units side by side.
    analyzer = Analyzer(AnalysisOptions(normalize=tuple(PLACEHOLDERS)))
    units = [head + unit * 50 + tail + " " for cases in CRAFTED.values() for head, unit, tail in cases]
    small = "".join(units) * (SMALL // len("".join(units)))
    large = small * 10
    assert growth(analyzer, small, large) < ALLOWED_GROWTH


@pytest.mark.parametrize("token_pattern", list(TOKEN_PATTERNS))
def test_each_token_pattern_takes_time_linear_in_the_text(token_pattern):
    # Given as a regular expression, the preset runs through re itself, as explain() runs it (the fast path
    # of a preset splits the text instead).
    analyzer = Analyzer(AnalysisOptions(token_pattern=TOKEN_PATTERNS[token_pattern]))
    for unit in ("a ", "ab", "a.", "-", "é_"):
        small, large = crafted("", unit, "", SMALL), crafted("", unit, "", LARGE)
        assert growth(analyzer, small, large) < ALLOWED_GROWTH, unit
    text = crafted("", "a. bc ", "", SMALL)
    assert analyzer(text) == list(Analyzer(AnalysisOptions(token_pattern=token_pattern)).explain(text).words)


# -- the same matches ---------------------------------------------------------------------------------------

# Pieces that make the patterns' edge cases when strung together at random: runs of digits with commas and
# full stops, words with dots, "@", currency symbols and words, brackets, web addresses, other scripts.
PIECES = ["a", "b", "x", "_", "1", "0", "2", "123", "000", "555", "0800", "1,000", ",111", ",", ".", "@", "-", "+",
          " ", "\n", "$", "€", "usd", "USD", "euros", "dollar", "www.", "http://", "(", ")", "é", "٣", "!", "'", "<",
          "a@b.c", "09061701461"]


@pytest.mark.parametrize("kind", list(PLACEHOLDERS))
def test_the_linear_patterns_find_exactly_the_matches_of_the_patterns_as_written(kind):
    pattern = NORMALISATION_PATTERNS[kind]
    placeholder = PLACEHOLDERS[kind]
    # No lowercasing and white-space tokens: explain's text and replacements show the substitution as it is.
    analyzer = Analyzer(AnalysisOptions(normalize=(kind,), lowercase=False, token_pattern="whitespace"))
    rng = random.Random(kind)
    matched = 0
    for _ in range(4000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 14)))
        analysis = analyzer.explain(text)
        expected = [match.group(0) for match in pattern.finditer(text)]
        assert analysis.text == pattern.sub(f" {placeholder} ", text), text
        assert analysis.replacements == tuple((original, placeholder) for original in expected), text
        assert analyzer(text) == list(analysis.words)
        matched += len(expected)
    assert matched > 200  # the pieces do make matches, not only near misses


@pytest.mark.parametrize(
    ("kind", "text", "replaced"),
    [
        # a failed address skips its run; the next run is tried afresh
        ("email", "a.b.c@d x.y@z.org", ["x.y@z.org"]),
        # an address may start where the last one ended, inside the same run
        ("email", "a@b.com.x+y@c.org", ["a@b.com.x", "+y@c.org"]),
        ("email", " ..ann@example.com", ["ann@example.com"]),
        # a start after a failed amount's thousands can still be the amount
        ("money", "12,34,56 euros", ["34,56 euros"]),
        ("money", "1,111,111,1,1 usd", ["1,1 usd"]),
        ("money", "1,2345 usd and 1,000", ["1,2345 usd"]),
        ("money", "$1,00,5 usd", ["$1,00", "5 usd"]),
    ],
)
def test_the_skipped_stretches_keep_the_matches_around_them(kind, text, replaced):
    analyzer = Analyzer(AnalysisOptions(normalize=(kind,), lowercase=False, token_pattern="whitespace"))
    assert [original for original, _ in analyzer.explain(text).replacements] == replaced
    assert [m.group(0) for m in NORMALISATION_PATTERNS[kind].finditer(text)] == replaced


@pytest.mark.parametrize("stemmer", ["porter", "snowball"])
def test_stemming_takes_time_linear_in_the_text(stemmer):
    # The stemmers take time quadratic in one word's length ("yyyy…" rebuilds the word once per letter), so a
    # word longer than any English word is kept as it is.
    options = AnalysisOptions(stemmer=stemmer)

    def analyse(text):  # a new analyser each time: its cache of stems would hide the work
        return Analyzer(options)(text)

    for unit in ("y", "ies", "ational"):
        small, large = crafted("", unit, "", SMALL), crafted("", unit, "", LARGE)
        # Quadratic stemming of one long word measures about 24 here: the bound is tighter than for the patterns.
        assert growth(analyse, small, large) < 15, unit
        assert analyse(large) == [large]
    analyzer = Analyzer(options)
    assert analyzer("running ponies") == ["run", "poni"]


@pytest.mark.parametrize("options", [
    {"strip_accents": "unicode"}, {"strip_accents": "ascii"}, {"stop_words": "english"}, {"ngram_range": (1, 2)},
    {"ngram_range": (2, 2)}, {"lowercase": False},
], ids=str)
def test_every_other_option_takes_time_linear_in_the_text(options):
    analyzer = Analyzer(AnalysisOptions(**options))
    for unit in ("é a ", "the ", "ab "):
        small, large = crafted("", unit, "", SMALL), crafted("", unit, "", LARGE)
        assert growth(analyzer, small, large) < ALLOWED_GROWTH, unit
