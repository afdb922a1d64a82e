"""Text analysis: how a document becomes the list of words (features) that Naive Bayes counts.

The defaults reproduce scikit-learn's ``CountVectorizer`` exactly (lowercase, then the token pattern
``(?u)\\b\\w\\w+\\b``), so every count agrees with scikit-learn and with the lecture notes. The order of the
steps is: placeholder normalisation → lowercase → strip accents → tokenise → drop stop words → stem →
n-grams. ``Analyzer.explain`` reports what each step kept and dropped for one document, because words
that silently disappear (one-letter words, "not" as a stop word) surprise students.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import cached_property

from webnb.engine.text.stopwords import ENGLISH_STOP_WORDS

TOKEN_PATTERNS = {
    # scikit-learn's default: words of two or more letters or digits; one-letter words are dropped.
    "default": r"(?u)\b\w\w+\b",
    # every word, one-letter words included ("a", "I", "2").
    "words": r"(?u)\b\w+\b",
    # split on white space only, for corpora that are already tokenised (punctuation stays a token).
    "whitespace": r"\S+",
}

# Placeholder tokens: made of word characters so that every token pattern keeps them whole, and
# wrapped in underscores so that they cannot be mistaken for a word of the text.
PLACEHOLDERS = {
    "url": "__url__",
    "email": "__email__",
    "money": "__money__",
    "phone": "__phone__",
    "number": "__number__",
}

# The patterns as they read, and as the exported notebook writes them. Applied in this order: a URL may contain
# an e-mail address or digits, money contains a number, a phone number is a run of digits.
_EMAIL = r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b"
# Commas group thousands ("$1,000") or mark decimals ("10,50 euros"); a comma after the amount ends the clause
# ("$500, or") and is not part of it.
_AMOUNT = r"\d+(?:,\d{3})*(?:[.,]\d+)?"
_MONEY_SYMBOL = rf"[$£€¥](?:\s?{_AMOUNT})?"
_MONEY_WORDS = rf"{_AMOUNT}\s?(?:usd|eur|gbp|dollars?|pounds?|euros?)\b"
NORMALISATION_PATTERNS = {
    # Not after "@": the "www.example.com" of "info@www.example.com" is part of an e-mail address.
    "url": re.compile(r"(?i)(?<!@)\b(?:https?://|www\.)[^\s<>\"']*[^\s<>\"'.,;:!?)\]]"),
    "email": re.compile(rf"(?i)\b{_EMAIL}"),
    "money": re.compile(rf"(?i){_MONEY_SYMBOL}|\b{_MONEY_WORDS}"),
    # Never part of a longer run of digits or of a word, so that year ranges ("1990-2000"), versions
    # and decimals stay numbers; a full stop may end the sentence after it ("Call 09061701461.").
    "phone": re.compile(
        r"(?<![\w.+])(?:"
        r"\+\d{1,3}(?:[\s.-]?(?:\(\d{1,5}\)|\d{1,8}(?!\d))){2,5}"  # international: +44 20 7946 0958
        r"|(?:1[\s.-]?)?(?:\(\d{3}\)\s?|\d{3}[\s.-])\d{3}[\s.-]\d{4}"  # North American: 1-800-555-0199
        r"|\(\d{2,5}\)\s?\d{3,4}[\s.-]?\d{3,4}"  # area code in brackets: (02) 809 9495
        r"|0\d{2,4}(?:[\s.-]?\d{2,4}){2,4}"  # national, with the leading 0: 0800 123 4567, 07946 123456
        r"|\d{3}[.-]\d{4}"  # local: 867-5309
        r"|\+?\d{10,13}"  # unbroken: 09061701461, +447781234567
        r")(?!\w|[.,]?\d)"
    ),
    # A number standing alone, not the digits of a word such as "mp3", "b4" or "2nite".
    "number": re.compile(r"\b\d+(?:[.,]\d+)*\b"),
}

# What the engine runs: the same matches in time linear in the text. re tries a pattern at every position in
# turn, so a pattern that reads far ahead before failing, and fails again one position later, takes quadratic
# time: "a.a.a.a…" (each "a" starts an e-mail address that reads to the end looking for "@") and "1,111,111…"
# (each group of three digits starts an amount that reads to the end looking for "usd"). Here each such
# pattern has a last alternative, "skip", tried only where the match failed: it passes over a stretch in
# which every later start is bound to fail as well, so matching goes on after it and nothing is read twice.
# A skip is kept as it is; tests compare these patterns with the ones above, match by match. The other
# patterns are linear as written: a failed URL leaves only punctuation behind it, a phone number is at most a
# few dozen characters long, and a number that reads on past its first digits always ends in a match.
_LINEAR_PATTERNS = {
    **NORMALISATION_PATTERNS,
    # From any start in a run of [\w.+-], the address reads to the end of the run and needs an "@" just after
    # it: where that fails it fails for every start in the run, so a failed run with punctuation is skipped
    # whole (one without is a single word, with no other start inside it).
    "email": re.compile(rf"(?i)\b(?:{_EMAIL}|(?P<skip>\w*[.+-][\w.+-]*))"),
    # A start inside "1,111,111" reaches everything the first digit reaches (its ",111"s are the first
    # digit's thousands), so when the amount fails at the first digit, it fails at every "111" too.
    "money": re.compile(rf"(?i){_MONEY_SYMBOL}|\b(?:{_MONEY_WORDS}|(?P<skip>\d+(?:,\d{{3}}(?!\d))+))"),
}


def _replace(kind: str, text: str, found: list[str] | None = None) -> str:
    """``text`` with every match of the kind's pattern replaced by its placeholder between spaces; the matched
    texts are added to ``found`` when it is given."""
    pattern = _LINEAR_PATTERNS[kind]
    replacement = f" {PLACEHOLDERS[kind]} "
    if "skip" not in pattern.groupindex:
        if found is not None:
            found.extend(match.group(0) for match in pattern.finditer(text))
        return pattern.sub(replacement, text)

    def replace(match: re.Match) -> str:
        if match.group("skip") is not None:
            return match.group(0)
        if found is not None:
            found.append(match.group(0))
        return replacement

    return pattern.sub(replace, text)


STEMMERS = ("porter", "snowball")
STRIP_ACCENTS = ("ascii", "unicode")

_WORD_CHAR = re.compile(r"\w")
_WORD_RUN = re.compile(r"\w+")


@dataclass(frozen=True)
class AnalysisOptions:
    """How documents are turned into features. Names follow scikit-learn where it has one.

    The defaults are scikit-learn's ``CountVectorizer``: lowercase, then words of two or more letters or digits.

    Parameters
    ----------
    lowercase : bool, default True
        Fold the text to lower case before tokenising.
    token_pattern : str, default "default"
        A preset name from ``TOKEN_PATTERNS`` ("default", "words", "whitespace") or a regular expression with at
        most one capturing group.
    strip_accents : {None, "ascii", "unicode"}, default None
        Remove accents as scikit-learn's option of the same name does.
    stop_words : None, "english" or tuple of str, default None
        Words to drop: none, the built-in English list, or these words (a list or set is stored sorted, as a tuple).
    stemmer : {None, "porter", "snowball"}, default None
        Reduce each word to its stem (needs the ``snowballstemmer`` package).
    normalize : tuple of str, default ()
        Kinds of placeholder to apply, from ``PLACEHOLDERS`` ("url", "email", "money", "phone", "number"); a single
        string is taken as a tuple of one. Stored in ``PLACEHOLDERS`` order.
    ngram_range : (int, int), default (1, 1)
        The smallest and largest n of the word n-grams counted, 1 ≤ min ≤ max ≤ 3.

    Attributes
    ----------
    regex : str
        The token pattern as a regular expression.
    stop_word_set : frozenset of str
        The stop words as a set (empty for None).

    Raises
    ------
    ValueError
        For an unknown ``strip_accents``, ``stemmer``, ``stop_words`` name or ``normalize`` kind, an ``ngram_range``
        outside 1 … 3 or in the wrong order, or a ``token_pattern`` that is not a valid regular expression or has
        more than one capturing group.

    Examples
    --------
    >>> "not" in AnalysisOptions(stop_words="english").stop_word_set  # a stop word that can flip a review
    True
    >>> AnalysisOptions(normalize="url").normalize
    ('url',)
    >>> AnalysisOptions(ngram_range=(2, 1))
    Traceback (most recent call last):
        ...
    ValueError: ngram_range must be (min, max) with 1 <= min <= max <= 3, not (2, 1)
    """

    lowercase: bool = True
    token_pattern: str = "default"
    strip_accents: str | None = None
    stop_words: str | tuple[str, ...] | None = None
    stemmer: str | None = None
    normalize: tuple[str, ...] = ()
    ngram_range: tuple[int, int] = (1, 1)

    def __post_init__(self):
        if self.strip_accents not in (None, *STRIP_ACCENTS):
            raise ValueError(f"strip_accents must be one of {STRIP_ACCENTS} or None, not {self.strip_accents!r}")
        if self.stemmer not in (None, *STEMMERS):
            raise ValueError(f"stemmer must be one of {STEMMERS} or None, not {self.stemmer!r}")
        if isinstance(self.stop_words, str) and self.stop_words != "english":
            raise ValueError(f"stop_words must be 'english', a list of words or None, not {self.stop_words!r}")
        if isinstance(self.stop_words, (list, set, frozenset)):
            object.__setattr__(self, "stop_words", tuple(sorted(self.stop_words)))
        if isinstance(self.normalize, str):
            object.__setattr__(self, "normalize", (self.normalize,))
        unknown = set(self.normalize) - set(PLACEHOLDERS)
        if unknown:
            raise ValueError(f"normalize accepts {tuple(PLACEHOLDERS)}, not {sorted(unknown)}")
        object.__setattr__(self, "normalize", tuple(k for k in PLACEHOLDERS if k in self.normalize))
        low, high = self.ngram_range
        if not (1 <= low <= high <= 3):
            raise ValueError(f"ngram_range must be (min, max) with 1 <= min <= max <= 3, not {self.ngram_range}")
        object.__setattr__(self, "ngram_range", (int(low), int(high)))
        try:
            compiled = re.compile(self.regex)
        except re.error as error:
            raise ValueError(f"token_pattern is not a valid regular expression: {error}") from None
        if compiled.groups > 1:
            raise ValueError("token_pattern may have at most one capturing group")

    @property
    def regex(self) -> str:
        return TOKEN_PATTERNS.get(self.token_pattern, self.token_pattern)

    @property
    def stop_word_set(self) -> frozenset[str]:
        if self.stop_words is None:
            return frozenset()
        if self.stop_words == "english":
            return ENGLISH_STOP_WORDS
        return frozenset(self.stop_words)

    def to_dict(self) -> dict:
        """Plain values, for JSON and for the command line."""
        return {
            "lowercase": self.lowercase,
            "token_pattern": self.token_pattern,
            "strip_accents": self.strip_accents,
            "stop_words": list(self.stop_words) if isinstance(self.stop_words, tuple) else self.stop_words,
            "stemmer": self.stemmer,
            "normalize": list(self.normalize),
            "ngram_range": list(self.ngram_range),
        }


@dataclass(frozen=True)
class DroppedWord:
    word: str
    reason: str  # "one-letter word", "not a token", "stop word"


@dataclass(frozen=True)
class DocumentAnalysis:
    """What the analysis did to one document, step by step (see ``Analyzer.explain``).

    Parameters
    ----------
    text : str
        The document after normalisation, lowercasing and accent stripping.
    replacements : tuple of (str, str)
        Each (original text, placeholder) that normalisation replaced, kind by kind.
    words : tuple of str
        The tokens kept after stop words and stemming: the unigrams.
    features : tuple of str
        What is counted: the unigrams and/or n-grams of ``ngram_range``.
    dropped : tuple of DroppedWord
        The words the analysis threw away, each with its reason ("one-letter word", "not a token", "stop word").
    stems : tuple of (str, str), default ()
        (word, stem) for each word that stemming changed.
    """

    text: str  # the document after normalisation, lowercasing and accent stripping
    replacements: tuple[tuple[str, str], ...]  # (original text, placeholder)
    words: tuple[str, ...]  # tokens after stop words and stemming: the unigrams
    features: tuple[str, ...]  # what is counted: unigrams and/or n-grams
    dropped: tuple[DroppedWord, ...]
    stems: tuple[tuple[str, str], ...] = field(default=())  # (word, stem) where stemming changed it


class _WordCharTable(dict):
    """A ``str.translate`` table that maps every non-word character to a space.

    Filled lazily: each new character is classified once with the regular-expression engine itself, so
    "word character" means exactly what ``\\w`` means to ``re``.
    """

    def __missing__(self, codepoint: int):
        value = codepoint if _WORD_CHAR.match(chr(codepoint)) else 32
        self[codepoint] = value
        return value


_WORD_CHAR_TABLE = _WordCharTable()


def strip_accents_unicode(text: str) -> str:
    """Remove combining marks after NFKD decomposition (scikit-learn's ``strip_accents='unicode'``)."""
    try:
        text.encode("ascii")
        return text
    except UnicodeEncodeError:
        normalized = unicodedata.normalize("NFKD", text)
        return "".join(ch for ch in normalized if not unicodedata.combining(ch))


def strip_accents_ascii(text: str) -> str:
    """Decompose and drop every non-ASCII character (scikit-learn's ``strip_accents='ascii'``)."""
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")


# Longer "words" (a pasted hash, a run of one letter) are not stemmed: see ``Analyzer.stem``.
LONGEST_STEMMED_WORD = 100


class Analyzer:
    """Turns a document into features according to ``AnalysisOptions``.

    Calling it is the fast path used over whole corpora; ``explain`` is the slow, talkative path used
    for one document on screen. Both give the same features (a test checks this).

    Parameters
    ----------
    options : AnalysisOptions, optional
        How to analyse; the defaults (scikit-learn's ``CountVectorizer``) when None.

    Attributes
    ----------
    options : AnalysisOptions
        The options in use.

    Examples
    --------
    >>> analyzer = Analyzer()
    >>> analyzer("I liked it, NOT a bad match!")
    ['liked', 'it', 'not', 'bad', 'match']
    >>> Analyzer(AnalysisOptions(stop_words="english", ngram_range=(1, 2)))("the keeper was not sharp")
    ['keeper', 'sharp', 'keeper sharp']
    """

    def __init__(self, options: AnalysisOptions | None = None):
        self.options = options or AnalysisOptions()
        self._pattern = re.compile(self.options.regex)
        self._stop_words = self.options.stop_word_set
        self._stem_cache: dict[str, str] = {}
        preset = self.options.token_pattern if self.options.token_pattern in TOKEN_PATTERNS else None
        # The presets are tokenised by translate-and-split, which gives exactly the regex's tokens
        # about twice as fast; custom patterns go through the regex.
        self._tokenize = {
            "default": self._tokenize_word_runs_min2,
            "words": self._tokenize_word_runs,
            "whitespace": str.split,
        }.get(preset, self._pattern.findall)

    # -- the steps ------------------------------------------------------------------------------

    def preprocess(self, text: str) -> str:
        for kind in self.options.normalize:
            text = _replace(kind, text)
        return self._fold(text)

    def _fold(self, text: str) -> str:
        """Lowercase and strip accents, in scikit-learn's order."""
        if self.options.lowercase:
            text = text.lower()
        if self.options.strip_accents == "unicode":
            text = strip_accents_unicode(text)
        elif self.options.strip_accents == "ascii":
            text = strip_accents_ascii(text)
        return text

    @staticmethod
    def _tokenize_word_runs(text: str) -> list[str]:
        return text.translate(_WORD_CHAR_TABLE).split()

    def unfiltered(self):
        """``(tokenize, drops)`` for counting whole corpora fast, or None when the analysis stems or makes n-grams.

        ``tokenize(text)`` gives the tokens before the analysis drops any, ``drops(token)`` whether it drops that
        one (a one-letter word under the default pattern, a stop word): ``[t for t in tokenize(text) if not
        drops(t)]`` is ``self(text)``. A counter that asks ``drops`` once per distinct token, and remembers the
        answer with the token's column, then does no Python work per token at all (see bag._count)."""
        if self.options.stemmer or self.options.ngram_range != (1, 1):
            return None
        # The default pattern's tokens are the word runs of two characters or more: the runs, one-letter ones dropped.
        min2 = self._tokenize is Analyzer._tokenize_word_runs_min2
        raw = Analyzer._tokenize_word_runs if min2 else self._tokenize
        stop_words = self._stop_words

        def tokenize(text: str) -> list[str]:
            return raw(self.preprocess(text))

        def drops(token: str) -> bool:
            return (min2 and len(token) < 2) or token in stop_words

        return tokenize, drops

    @staticmethod
    def _tokenize_word_runs_min2(text: str) -> list[str]:
        return [word for word in text.translate(_WORD_CHAR_TABLE).split() if len(word) > 1]

    def stem(self, word: str) -> str:
        """The word's stem; a word longer than ``LONGEST_STEMMED_WORD`` is kept as it is (the stemmers take time
        quadratic in a word's length, and no English word is that long)."""
        if len(word) > LONGEST_STEMMED_WORD:
            return word
        stem = self._stem_cache.get(word)
        if stem is None:
            stem = self._stemmer.stemWord(word)
            self._stem_cache[word] = stem
        return stem

    @cached_property
    def _stemmer(self):
        import snowballstemmer  # imported only when stemming is asked for

        algorithm = "porter" if self.options.stemmer == "porter" else "english"
        return snowballstemmer.stemmer(algorithm)

    def _words(self, tokens: list[str]) -> list[str]:
        if self._stop_words:
            tokens = [token for token in tokens if token not in self._stop_words]
        if self.options.stemmer:
            tokens = [self.stem(token) for token in tokens]
        return tokens

    def _ngrams(self, words: list[str]) -> list[str]:
        low, high = self.options.ngram_range
        if high == 1:
            return words
        features = list(words) if low == 1 else []
        for n in range(max(low, 2), min(high, len(words)) + 1):
            features.extend(" ".join(words[i : i + n]) for i in range(len(words) - n + 1))
        return features

    # -- the two paths --------------------------------------------------------------------------

    def __call__(self, text: str) -> list[str]:
        return self._ngrams(self._words(self._tokenize(self.preprocess(text))))

    def explain(self, text: str) -> DocumentAnalysis:
        """What each step of the analysis kept and dropped for one document.

        Parameters
        ----------
        text : str
            The document as typed.

        Returns
        -------
        DocumentAnalysis
            The normalised text, the placeholders' replacements, the words and features kept, the words dropped
            with their reasons, and the stems. Its ``features`` are what calling the analyzer gives.

        Examples
        --------
        >>> analysis = Analyzer().explain("I liked it, NOT a bad match!")
        >>> analysis.features
        ('liked', 'it', 'not', 'bad', 'match')
        >>> [(d.word, d.reason) for d in analysis.dropped]
        [('i', 'one-letter word'), ('a', 'one-letter word')]
        >>> Analyzer(AnalysisOptions(normalize=("url", "money"))).explain("Win $500 at www.example.com").replacements
        (('www.example.com', '__url__'), ('$500', '__money__'))
        """
        replacements = []
        for kind in self.options.normalize:
            found: list[str] = []
            text = _replace(kind, text, found)
            replacements.extend((original, PLACEHOLDERS[kind]) for original in found)
        text = self._fold(text)

        matches = list(self._pattern.finditer(text))
        # As re.findall (the fast path): the group when the pattern has one, "" when it took no part.
        tokens = [(m.group(1) or "") if self._pattern.groups else m.group(0) for m in matches]
        dropped = [DroppedWord(word, reason) for word, reason in self._uncovered_words(text, matches)]
        kept = []
        for token in tokens:
            if token in self._stop_words:
                dropped.append(DroppedWord(token, "stop word"))
            else:
                kept.append(token)
        stems = ()
        if self.options.stemmer:
            stems = tuple(dict.fromkeys((w, self.stem(w)) for w in kept if self.stem(w) != w))
            kept = [self.stem(w) for w in kept]
        return DocumentAnalysis(
            text=text,
            replacements=tuple(replacements),
            words=tuple(kept),
            features=tuple(self._ngrams(kept)),
            dropped=tuple(dropped),
            stems=stems,
        )

    def _uncovered_words(self, text: str, matches):
        """Runs of word characters that no token covers: what the token pattern threw away."""
        spans = [m.span() for m in matches]
        position = 0
        for run in _WORD_RUN.finditer(text):
            start, end = run.span()
            while position < len(spans) and spans[position][1] <= start:
                position += 1
            covered = position < len(spans) and spans[position][0] < end
            if not covered:
                word = run.group(0)
                yield word, ("one-letter word" if len(word) == 1 else "not a token")
