"""Text analysis does work linear in the text, for every placeholder and every token pattern, and the
placeholders' linear-time patterns find exactly the matches of the patterns as written.

Anyone can add ``normalize=`` to a page's address, so a pasted document must not be able to make a pattern
quadratic. Each crafted input below is one of the worst found for the patterns before they were made linear
("a." repeated took 0.34 s for 10 KB under ``email``, "1" followed by ",111" repeated 1.5 s under ``money``,
and 100 times as long for 10 times the text).

The work is counted, not timed, so that a busy machine cannot fail these tests (``scripts/benchmark.py`` times
the worst inputs): every step a backtracking matcher such as ``re`` takes in the patterns (``SteppedPattern``
follows ``re``'s parse of each pattern and gives the same matches, which the tests check), every function the
analysis calls besides (``sys.setprofile``), and every character a stemmer copies. Ten times the text may cost
at most ``ALLOWED_GROWTH`` times the work: linear work is about 10 times, quadratic work about 100 times. The
analysis of the long text runs within that budget and is stopped as soon as it spends more, so a quadratic
pattern fails at once instead of running for minutes.
"""
from __future__ import annotations

import functools
import gc
import random
import re
import sys
from contextlib import contextmanager
from re import _constants as sre
from re import _parser as sre_parse

import pytest
import snowballstemmer

from webnb.engine.text import analysis
from webnb.engine.text.analysis import NORMALISATION_PATTERNS, PLACEHOLDERS, TOKEN_PATTERNS, AnalysisOptions, Analyzer

SMALL, LARGE = 500, 5_000
ALLOWED_GROWTH = 12  # 10 times the text: linear work ≈ 10 times, quadratic ≈ 100 times

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


# -- counting the work ----------------------------------------------------------------------------------------


class TooMuchWork(AssertionError):
    pass


class WorkMeter:
    """Steps of one analysis; past ``budget`` (when one is set) the analysis is stopped with TooMuchWork."""

    def __init__(self):
        self.steps = 0
        self.budget = None

    def spend(self, steps: int = 1) -> None:
        self.steps += steps
        if self.budget is not None and self.steps > self.budget:
            raise TooMuchWork(f"more than {self.budget:,} steps: the work grows faster than the text")

    def profile(self, frame, event, arg) -> None:
        """A sys.setprofile hook: every call of a Python function or a builtin is a step."""
        if event == "call" or event == "c_call":
            self.spend()


def _unprofiled(method):
    """The matcher's own Python calls are not the analysis's: they are counted as its steps instead."""

    @functools.wraps(method)
    def wrapper(*args, **kwargs):
        hook = sys.getprofile()
        sys.setprofile(None)
        try:
            return method(*args, **kwargs)
        finally:
            sys.setprofile(hook)

    return wrapper


_CATEGORY = {
    sre.CATEGORY_DIGIT: str.isdecimal,
    sre.CATEGORY_NOT_DIGIT: lambda ch: not ch.isdecimal(),
    sre.CATEGORY_SPACE: str.isspace,
    sre.CATEGORY_NOT_SPACE: lambda ch: not ch.isspace(),
    sre.CATEGORY_WORD: lambda ch: ch.isalnum() or ch == "_",
    sre.CATEGORY_NOT_WORD: lambda ch: not (ch.isalnum() or ch == "_"),
}
_SINGLE_CHARACTER = (sre.LITERAL, sre.NOT_LITERAL, sre.ANY, sre.IN)


def _matched(end: int, captures: tuple) -> tuple[int, tuple]:
    return end, captures


def _is_word(text: str, i: int) -> bool:
    return 0 <= i < len(text) and (text[i].isalnum() or text[i] == "_")


class SteppedMatch:
    def __init__(self, text: str, start: int, end: int, captures: tuple, groupindex):
        self.string, self._span, self._captures, self._groupindex = text, (start, end), captures, groupindex

    def span(self, group=0):
        if group == 0:
            return self._span
        number = self._groupindex.get(group, group)
        return next(((start, end) for g, start, end in reversed(self._captures) if g == number), (-1, -1))

    def start(self, group=0):
        return self.span(group)[0]

    def end(self, group=0):
        return self.span(group)[1]

    def group(self, group=0):
        start, end = self.span(group)
        return None if start < 0 else self.string[start:end]

    def __getitem__(self, group):
        return self.group(group)


class SteppedPattern:
    """A compiled pattern matched as ``re`` matches it: ``re``'s own parse of the pattern, run by a backtracking
    matcher that tries each start in turn, tries alternatives in order, repeats greedily (giving back one
    repetition at a time) and charges ``meter`` a step for each node it enters and each character a repetition
    reads. ``re``'s engine works the same way, so the steps grow with the text as its time does."""

    def __init__(self, compiled: re.Pattern, meter: WorkMeter):
        self.compiled, self.meter = compiled, meter
        self.pattern, self.flags, self.groups, self.groupindex = (
            compiled.pattern, compiled.flags, compiled.groups, compiled.groupindex)
        parsed = sre_parse.parse(compiled.pattern, compiled.flags)
        self._matcher = self._sequence(list(parsed), parsed.state.flags)

    # -- what the analysis calls

    @_unprofiled
    def finditer(self, text: str):
        return iter(self._matches(text))

    @_unprofiled
    def findall(self, text: str) -> list:
        matches = self._matches(text)
        if self.groups == 0:
            return [m.group(0) for m in matches]
        if self.groups == 1:
            return [m.group(1) or "" for m in matches]
        return [tuple(m.group(g) or "" for g in range(1, self.groups + 1)) for m in matches]

    @_unprofiled
    def sub(self, replacement, text: str) -> str:
        literal = None if callable(replacement) else replacement
        assert literal is None or "\\" not in literal, "only plain replacements are modelled"
        pieces, position = [], 0
        for match in self._matches(text):
            start, end = match.span()
            pieces.append(text[position:start])
            pieces.append(literal if literal is not None else replacement(match))
            position = end
        pieces.append(text[position:])
        return "".join(pieces)

    def _matches(self, text: str) -> list[SteppedMatch]:
        found, position = [], 0
        while position <= len(text):
            self.meter.spend()
            result = self._matcher(text, position, (), _matched)
            if result is None:
                position += 1
                continue
            end, captures = result
            found.append(SteppedMatch(text, position, end, captures, self.groupindex))
            position = end if end > position else position + 1
        return found

    # -- the matcher: each node is f(text, i, captures, then) → then(end, captures), or None where it fails

    def _sequence(self, nodes, flags):
        if not nodes:
            return lambda text, i, captures, then: then(i, captures)
        first, rest = self._node(*nodes[0], flags), self._sequence(nodes[1:], flags)
        if len(nodes) == 1:
            return first
        return lambda text, i, captures, then: first(text, i, captures, lambda j, c: rest(text, j, c, then))

    def _node(self, op, av, flags):
        if op in _SINGLE_CHARACTER:
            return self._one_character(self._character_test(op, av, flags))
        if op is sre.AT:
            return self._position(self._position_test(av, flags))
        if op is sre.BRANCH:
            return self._branch([self._sequence(list(a), flags) for a in av[1]])
        if op is sre.SUBPATTERN:
            return self._subpattern(av, flags)
        if op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
            return self._repetition(av, flags, greedy=op is sre.MAX_REPEAT)
        if op in (sre.ASSERT, sre.ASSERT_NOT):
            return self._lookaround(av, flags, wanted=op is sre.ASSERT)
        raise NotImplementedError(f"{op} is not modelled")

    def _one_character(self, test):
        meter = self.meter

        def one(text, i, captures, then):
            meter.steps += 1
            return then(i + 1, captures) if i < len(text) and test(text[i]) else None

        return one

    def _position(self, at):
        meter = self.meter

        def position(text, i, captures, then):
            meter.steps += 1
            return then(i, captures) if at(text, i) else None

        return position

    def _branch(self, alternatives):
        meter = self.meter

        def branch(text, i, captures, then):
            meter.steps += 1
            for alternative in alternatives:
                result = alternative(text, i, captures, then)
                if result is not None:
                    return result
            return None

        return branch

    def _subpattern(self, av, flags):
        group, add, remove, nodes = av
        body = self._sequence(list(nodes), (flags | add) & ~remove)
        if group is None:
            return body
        return lambda text, i, captures, then: body(
            text, i, captures, lambda j, c: then(j, c + ((group, i, j),)))

    def _repetition(self, av, flags, greedy):
        low, high, item = av
        if len(item) == 1 and item[0][0] in _SINGLE_CHARACTER:
            return self._repeat_one(self._character_test(*item[0], flags), low, high, greedy)
        return self._repeat(self._sequence(list(item), flags), low, high, greedy)

    def _lookaround(self, av, flags, wanted):
        meter = self.meter
        direction, nodes = av
        body = self._sequence(list(nodes), flags)
        width = nodes.getwidth()[0]

        def look(text, i, captures, then):
            meter.steps += 1
            if direction > 0:
                found = body(text, i, captures, lambda j, c: j) is not None
            else:
                found = i >= width and body(text, i - width, captures, lambda j, c: j if j == i else None) is not None
            return then(i, captures) if found is wanted else None

        return look

    def _repeat_one(self, test, low, high, greedy):
        """A repeated single character: read as far as it goes, then give back one character at a time."""
        meter = self.meter

        def repeat(text, i, captures, then):
            limit = len(text) if high is sre.MAXREPEAT else min(len(text), i + high)
            if greedy:
                j = i
                while j < limit and test(text[j]):
                    j += 1
                meter.spend(j - i + 1)
                for end in range(j, i + low - 1, -1):
                    meter.spend()
                    result = then(end, captures)
                    if result is not None:
                        return result
                return None
            end = i
            while end < i + low:
                meter.spend()
                if end >= limit or not test(text[end]):
                    return None
                end += 1
            while True:
                meter.spend()
                result = then(end, captures)
                if result is not None or end >= limit or not test(text[end]):
                    return result
                end += 1

        return repeat

    def _repeat(self, body, low, high, greedy):
        meter = self.meter

        def attempt(text, i, captures, then, count):
            meter.steps += 1
            more = high is sre.MAXREPEAT or count < high

            def again(j, c):  # a repetition that matched nothing ends the repeat, as in re
                return attempt(text, j, c, then, count + 1) if j != i or count + 1 < low else then(j, c)

            if count < low:
                return body(text, i, captures, again)
            if greedy:
                result = body(text, i, captures, again) if more else None
                return result if result is not None else then(i, captures)
            result = then(i, captures)
            return result if result is not None or not more else body(text, i, captures, again)

        return lambda text, i, captures, then: attempt(text, i, captures, then, 0)

    @staticmethod
    def _character_test(op, av, flags):
        if op is sre.ANY:
            return (lambda ch: True) if flags & sre.SRE_FLAG_DOTALL else (lambda ch: ch != "\n")
        if op in (sre.LITERAL, sre.NOT_LITERAL):
            items, negated = [(sre.LITERAL, av)], op is sre.NOT_LITERAL
        else:
            negated = bool(av) and av[0][0] is sre.NEGATE
            items = av[1:] if negated else av
        ignore_case = bool(flags & sre.SRE_FLAG_IGNORECASE)
        literals, tests = set(), []
        for kind, value in items:
            if kind is sre.LITERAL:
                literal = chr(value)
                literals.update((literal, literal.lower(), literal.upper()) if ignore_case else (literal,))
            elif kind is sre.RANGE:
                low, high = value
                tests.append(lambda ch, low=low, high=high: any(
                    len(c) == 1 and low <= ord(c) <= high
                    for c in ((ch, ch.lower(), ch.upper()) if ignore_case else (ch,))))
            elif kind is sre.CATEGORY:
                tests.append(_CATEGORY[value])
            else:
                raise NotImplementedError(f"{kind} in a character set is not modelled")
        literals = frozenset(literals)
        if not tests:
            return (lambda ch: ch not in literals) if negated else literals.__contains__
        if not literals and len(tests) == 1:
            only = tests[0]
            return (lambda ch: not only(ch)) if negated else only
        return lambda ch: (ch in literals or any(test(ch) for test in tests)) is not negated

    @staticmethod
    def _position_test(code, flags):
        if code is sre.AT_BOUNDARY:
            return lambda text, i: _is_word(text, i - 1) != _is_word(text, i)
        if code is sre.AT_NON_BOUNDARY:
            return lambda text, i: len(text) > 0 and _is_word(text, i - 1) == _is_word(text, i)
        if code in (sre.AT_BEGINNING_STRING, sre.AT_BEGINNING) and not flags & sre.SRE_FLAG_MULTILINE:
            return lambda text, i: i == 0
        if code is sre.AT_END_STRING:
            return lambda text, i: i == len(text)
        if code is sre.AT_END and not flags & sre.SRE_FLAG_MULTILINE:
            return lambda text, i: i == len(text) or (i == len(text) - 1 and text[i] == "\n")
        raise NotImplementedError(f"{code} is not modelled")


class _SteppedRe:
    """The ``re`` module as analysis.py sees it: what it compiles is matched by SteppedPattern."""

    def __init__(self, meter: WorkMeter):
        self.meter = meter

    def compile(self, pattern, flags=0):
        return SteppedPattern(re.compile(pattern, flags), self.meter)

    def __getattr__(self, name):
        return getattr(re, name)


@contextmanager
def stepped(meter: WorkMeter):
    """Within: every pattern analysis.py uses or compiles is matched by SteppedPattern on ``meter``, and the
    stemmers charge it for each character they copy."""
    stemmer = snowballstemmer.basestemmer.BaseStemmer
    replace = stemmer.replace_s

    def copying(self, c_bra, c_ket, s):  # rebuilds the whole word
        meter.spend(len(self.current) + len(s))
        return replace(self, c_bra, c_ket, s)

    limit = sys.getrecursionlimit()
    with pytest.MonkeyPatch.context() as patch:
        for kind, pattern in analysis._LINEAR_PATTERNS.items():
            patch.setitem(analysis._LINEAR_PATTERNS, kind, SteppedPattern(pattern, meter))
        patch.setattr(analysis, "re", _SteppedRe(meter))
        patch.setattr(stemmer, "replace_s", copying)
        sys.setrecursionlimit(max(limit, 100_000))  # the matcher nests a call per repetition ("1,111,111…")
        try:
            yield
        finally:
            sys.setrecursionlimit(limit)


def work(analyse, text: str, budget: int | None = None):
    """(steps, result) of ``analyse(text)``, stopped with TooMuchWork past ``budget`` steps."""
    meter = WorkMeter()
    with stepped(meter):
        meter.budget = budget
        gc.disable()  # a collection's callbacks would be counted as the analysis's calls
        sys.setprofile(meter.profile)
        try:
            result = analyse(text)
        finally:
            sys.setprofile(None)
            gc.enable()
    return meter.steps, result


def assert_linear(analyse, small: str, large: str) -> tuple[int, int]:
    """Ten times the text costs at most ALLOWED_GROWTH times the steps, and the counted analysis gives what the
    analysis with re itself gives. Returns both step counts."""
    assert len(large) == pytest.approx(10 * len(small), rel=0.02)
    small_steps, small_result = work(analyse, small)
    large_steps, large_result = work(analyse, large, budget=ALLOWED_GROWTH * small_steps)
    assert (small_result, large_result) == (analyse(small), analyse(large))
    return small_steps, large_steps


def test_the_crafted_inputs_cover_every_placeholder():
    assert set(CRAFTED) == set(PLACEHOLDERS) == set(NORMALISATION_PATTERNS)


@pytest.mark.parametrize(
    ("kind", "head", "unit", "tail"),
    [(kind, *case) for kind, cases in CRAFTED.items() for case in cases],
    ids=[f"{kind}:{head}{unit}…{tail}" for kind, cases in CRAFTED.items() for head, unit, tail in cases],
)
def test_each_placeholder_does_work_linear_in_the_text(kind, head, unit, tail):
    analyzer = Analyzer(AnalysisOptions(normalize=(kind,)))
    small, large = crafted(head, unit, tail, SMALL), crafted(head, unit, tail, LARGE)
    assert len(small) == pytest.approx(SMALL, abs=10) and len(large) == pytest.approx(LARGE, abs=10)
    assert_linear(analyzer, small, large)


def test_every_placeholder_at_once_does_work_linear_in_the_text():
    # The pages analyse with several placeholders at once; the crafted units side by side.
    analyzer = Analyzer(AnalysisOptions(normalize=tuple(PLACEHOLDERS)))
    units = [head + unit * 20 + tail + " " for cases in CRAFTED.values() for head, unit, tail in cases]
    small = "".join(units)
    assert_linear(analyzer, small, small * 10)


@pytest.mark.parametrize(("kind", "unit"), [("email", "a."), ("money", ",111")])
def test_the_count_sees_the_patterns_as_written_go_quadratic(monkeypatch, kind, unit):
    """The check above fails on the patterns as they read, which are quadratic on these inputs."""
    monkeypatch.setitem(analysis._LINEAR_PATTERNS, kind, NORMALISATION_PATTERNS[kind])
    analyzer = Analyzer(AnalysisOptions(normalize=(kind,)))
    small, large = crafted("", unit, "", 100), crafted("", unit, "", 1000)
    with pytest.raises(TooMuchWork, match="the work grows faster than the text"):
        assert_linear(analyzer, small, large)


@pytest.mark.parametrize("token_pattern", list(TOKEN_PATTERNS))
def test_each_token_pattern_does_work_linear_in_the_text(token_pattern):
    # Given as a regular expression, the preset runs through re itself, as explain() runs it (the fast path
    # of a preset splits the text instead). The analyser is made within the count, so that its pattern is too.
    options = AnalysisOptions(token_pattern=TOKEN_PATTERNS[token_pattern])

    def analyse(text):
        return Analyzer(options)(text)

    for unit in ("a ", "ab", "a.", "-", "é_"):
        small, large = crafted("", unit, "", SMALL), crafted("", unit, "", LARGE)
        assert_linear(analyse, small, large)
    analyzer = Analyzer(options)
    text = crafted("", "a. bc ", "", SMALL)
    assert analyzer(text) == list(Analyzer(AnalysisOptions(token_pattern=token_pattern)).explain(text).words)


# -- the same matches ---------------------------------------------------------------------------------------

# Pieces that make the patterns' edge cases when strung together at random: runs of digits with commas and
# full stops, words with dots, "@", currency symbols and words, brackets, web addresses, other scripts.
PIECES = ["a", "b", "x", "_", "1", "0", "2", "123", "000", "555", "0800", "1,000", ",111", ",", ".", "@", "-", "+",
          " ", "\n", "$", "€", "usd", "USD", "euros", "dollar", "www.", "http://", "(", ")", "é", "٣", "!", "'", "<",
          "a@b.c", "09061701461"]


@pytest.mark.parametrize("kind", [*PLACEHOLDERS][:2] + [
    pytest.param(kind, marks=pytest.mark.slow) for kind in [*PLACEHOLDERS][2:]])
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
def test_stemming_does_work_linear_in_the_text(stemmer):
    # The stemmers take time quadratic in one word's length ("yyyy…" rebuilds the word once per letter: the
    # characters copied are counted), so a word longer than any English word is kept as it is.
    options = AnalysisOptions(stemmer=stemmer)

    def analyse(text):  # a new analyser each time: its cache of stems would hide the work
        return Analyzer(options)(text)

    for unit in ("y", "ies", "ational"):
        small, large = crafted("", unit, "", SMALL), crafted("", unit, "", LARGE)
        assert_linear(analyse, small, large)
        assert analyse(large) == [large]
    analyzer = Analyzer(options)
    assert analyzer("running ponies") == ["run", "poni"]


@pytest.mark.parametrize("stemmer", ["porter", "snowball"])
def test_the_count_sees_a_long_word_stemmed_go_quadratic(monkeypatch, stemmer):
    """The check above fails when every word is stemmed, however long."""
    monkeypatch.setattr(analysis, "LONGEST_STEMMED_WORD", 10 * LARGE)
    options = AnalysisOptions(stemmer=stemmer)
    with pytest.raises(TooMuchWork, match="the work grows faster than the text"):
        assert_linear(lambda text: Analyzer(options)(text), "y" * 100, "y" * 1000)


@pytest.mark.parametrize("options", [
    {"strip_accents": "unicode"}, {"strip_accents": "ascii"}, {"stop_words": "english"}, {"ngram_range": (1, 2)},
    {"ngram_range": (2, 2)}, {"lowercase": False},
], ids=str)
def test_every_other_option_does_work_linear_in_the_text(options):
    analyzer = Analyzer(AnalysisOptions(**options))
    for unit in ("é a ", "the ", "ab "):
        small, large = crafted("", unit, "", SMALL), crafted("", unit, "", LARGE)
        assert_linear(analyzer, small, large)
