"""Text analysis: the fast path agrees with scikit-learn's ``CountVectorizer`` analyzer, the explaining path
agrees with the fast path, and the extras scikit-learn lacks (stemming, placeholders) do what the lecture says."""
from __future__ import annotations

import itertools

import pytest
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS as SKLEARN_STOP_WORDS
from sklearn.feature_extraction.text import CountVectorizer

from webnb.engine.io.readers import read_corpus
from webnb.engine.text.analysis import PLACEHOLDERS, TOKEN_PATTERNS, AnalysisOptions, Analyzer, DroppedWord
from webnb.engine.text.stopwords import ENGLISH_STOP_WORDS

TRICKY = (
    "Hello, World! Isn't it... great?!",
    "digits 42 3.14 2024-05-01 x86_64 1st 7",
    "snake_case __dunder__ _x_ a_b",
    "don't won't l'homme O'Brien rock'n'roll",
    "a I x y z ab",  # one-letter words
    "naïve café Ωmega ÉCOLE Straße",
    "漢字テスト 中文 한국어 日本語",
    "cafe\u0301 re\u0301sume\u0301 n\u0303",  # combining accents
    "tab\there\nnew\r\nline\x0bvertical\x0cfeed",
    "a\x1cb\x1dc\x1e dd\x1f ee \x1cff\x1c",  # file/group/record/unit separators
    "non\u00a0breaking line\u2028separator para\u2029graph next\u0085line",
    "emoji 😀 smile👍ok 👩‍👩‍👧 family",
    "",
    "   ",
    "İstanbul ǅungla ﬁne x²³ ½ ①② ٣٤ ℌ",
    "𝐁𝐨𝐥𝐝 ℌilbert Ⅻ ＡＢＣ K",  # compatibility letters that decompose to capitals: lowercase, then strip
    "THE Quick, brown—fox; (jumps) [over] {the} <lazy> dog's back.",
    "e-mail me@example.com or http://spam.me/win?now=1",
    "\u200bzero\u200bwidth\ufeffbom",
)

# name -> (our options, the equivalent CountVectorizer arguments)
SETTINGS = {
    "default": ({}, {}),
    "words": ({"token_pattern": "words"}, {"token_pattern": r"(?u)\b\w+\b"}),
    "whitespace": ({"token_pattern": "whitespace"}, {"token_pattern": r"\S+"}),
    "custom-letters": ({"token_pattern": r"(?u)\b[^\W\d_]{3,}\b"}, {"token_pattern": r"(?u)\b[^\W\d_]{3,}\b"}),
    "custom-group": ({"token_pattern": r"(?u)\b(\w)\w*"}, {"token_pattern": r"(?u)\b(\w)\w*"}),
    "no-lowercase": ({"lowercase": False}, {"lowercase": False}),
    "strip-ascii": ({"strip_accents": "ascii"}, {"strip_accents": "ascii"}),
    "strip-unicode": ({"strip_accents": "unicode"}, {"strip_accents": "unicode"}),
    "strip-unicode-no-lowercase": (
        {"strip_accents": "unicode", "lowercase": False},
        {"strip_accents": "unicode", "lowercase": False},
    ),
    "stop-english": ({"stop_words": "english"}, {"stop_words": "english"}),
    "stop-custom": (
        {"stop_words": ("great", "hello", "the", "won")},
        {"stop_words": ["great", "hello", "the", "won"]},
    ),
    "ngram-1-2": ({"ngram_range": (1, 2)}, {"ngram_range": (1, 2)}),
    "ngram-2-2": ({"ngram_range": (2, 2)}, {"ngram_range": (2, 2)}),
    "ngram-1-3-words": (
        {"ngram_range": (1, 3), "token_pattern": "words"},
        {"ngram_range": (1, 3), "token_pattern": r"(?u)\b\w+\b"},
    ),
    "ngram-2-2-stop": (
        {"ngram_range": (2, 2), "stop_words": "english"},
        {"ngram_range": (2, 2), "stop_words": "english"},
    ),
    "ngram-1-2-stop-ascii": (
        {"ngram_range": (1, 2), "stop_words": "english", "strip_accents": "ascii"},
        {"ngram_range": (1, 2), "stop_words": "english", "strip_accents": "ascii"},
    ),
}

# Settings with no scikit-learn equivalent: only the fast/explaining agreement is checked for them.
EXTRA_SETTINGS = {
    "porter": {"stemmer": "porter"},
    "snowball-stop-bigrams": {"stemmer": "snowball", "stop_words": "english", "ngram_range": (1, 2)},
    "normalize-all": {"normalize": tuple(PLACEHOLDERS)},
    "normalize-all-words-stem": {"normalize": tuple(PLACEHOLDERS), "token_pattern": "words", "stemmer": "porter"},
}


def ours(name: str) -> Analyzer:
    return Analyzer(AnalysisOptions(**SETTINGS[name][0]))


def theirs(name: str):
    return CountVectorizer(**SETTINGS[name][1]).build_analyzer()


# --- agreement with scikit-learn ------------------------------------------------------------


@pytest.mark.parametrize("setting", list(SETTINGS))
def test_same_features_as_sklearn_on_tricky_strings(setting):
    analyzer, reference = ours(setting), theirs(setting)
    assert {text: analyzer(text) for text in TRICKY} == {text: reference(text) for text in TRICKY}


def test_default_features_of_a_few_strings():
    """The golden values themselves, so that a change on both sides would still be noticed."""
    analyzer = Analyzer()
    assert analyzer("Hello, World! Isn't it... great?!") == ["hello", "world", "isn", "it", "great"]
    assert analyzer("a I x y z ab") == ["ab"]
    assert analyzer("naïve café Ωmega") == ["naïve", "café", "ωmega"]
    assert analyzer("a\x1cb\x1dc\x1e dd\x1f ee") == ["dd", "ee"]
    assert analyzer("non\u00a0breaking line\u2028separator") == ["non", "breaking", "line", "separator"]
    assert analyzer("snake_case __dunder__ _x_") == ["snake_case", "__dunder__", "_x_"]
    assert analyzer("") == []


def test_whitespace_preset_keeps_punctuation_and_splits_on_unicode_spaces():
    analyzer = Analyzer(AnalysisOptions(token_pattern="whitespace"))
    assert analyzer("Hi, there!\u00a0a\u2028b\x1cc") == ["hi,", "there!", "a", "b", "c"]


def test_presets_are_the_documented_regular_expressions():
    assert TOKEN_PATTERNS == {"default": r"(?u)\b\w\w+\b", "words": r"(?u)\b\w+\b", "whitespace": r"\S+"}
    assert CountVectorizer().token_pattern == TOKEN_PATTERNS["default"]


def test_english_stop_words_are_sklearns():
    assert ENGLISH_STOP_WORDS == SKLEARN_STOP_WORDS
    assert len(ENGLISH_STOP_WORDS) == 318
    assert {"not", "no", "the", "a"} <= ENGLISH_STOP_WORDS


def test_stop_word_list_is_kept_sorted_as_a_tuple():
    options = AnalysisOptions(stop_words=["won", "great", "the"])
    assert options.stop_words == ("great", "the", "won")
    assert options.stop_word_set == frozenset({"great", "the", "won"})
    assert options.to_dict()["stop_words"] == ["great", "the", "won"]


def test_ngrams_are_unigrams_then_bigrams_then_trigrams():
    analyzer = Analyzer(AnalysisOptions(ngram_range=(1, 3)))
    assert analyzer("match was not sharp") == [
        "match", "was", "not", "sharp",
        "match was", "was not", "not sharp",
        "match was not", "was not sharp",
    ]
    assert Analyzer(AnalysisOptions(ngram_range=(2, 2)))("sharp") == []
    # Stop words go before the n-grams are made, so "match sharp" is a bigram though it is not in the text.
    assert Analyzer(AnalysisOptions(ngram_range=(2, 2), stop_words="english"))("match was not sharp") == [
        "match sharp"
    ]


# --- agreement with scikit-learn on real corpora ----------------------------------------------


@pytest.fixture(scope="module")
def sms_texts(shared_corpora):
    return read_corpus(shared_corpora / "sms-spam-collection-v1" / "all.jsonl").texts


@pytest.fixture(scope="module")
def newsgroups_texts(shared_corpora):
    texts = read_corpus(shared_corpora / "20newsgroups-bydate" / "train.jsonl.gz").texts[:2000]
    assert len(texts) == 2000
    return texts


def first_difference(analyzer, reference, texts):
    """(index, ours, theirs) of the first document analysed differently, or None."""
    for i, text in enumerate(texts):
        a, b = analyzer(text), reference(text)
        if a != b:
            return i, a, b
    return None


@pytest.mark.corpora
@pytest.mark.parametrize("setting", list(SETTINGS))
def test_same_features_as_sklearn_on_every_sms(sms_texts, setting):
    assert len(sms_texts) == 5574
    assert first_difference(ours(setting), theirs(setting), sms_texts) is None


@pytest.mark.corpora
@pytest.mark.parametrize("setting", list(SETTINGS))
def test_same_features_as_sklearn_on_newsgroups(newsgroups_texts, setting):
    """latin-1-decoded mail with headers, control characters and odd bytes."""
    assert any(any(0x80 <= ord(c) <= 0xFF for c in text) for text in newsgroups_texts)
    assert first_difference(ours(setting), theirs(setting), newsgroups_texts) is None


# --- the explaining path agrees with the fast path -------------------------------------------


def explained(analyzer: Analyzer):
    return lambda text: list(analyzer.explain(text).features)


@pytest.mark.parametrize("setting", list(SETTINGS) + list(EXTRA_SETTINGS))
def test_explain_gives_the_same_features_on_tricky_strings(setting):
    analyzer = Analyzer(AnalysisOptions(**(SETTINGS[setting][0] if setting in SETTINGS else EXTRA_SETTINGS[setting])))
    texts = TRICKY + ("Call 0800 123 4567 or 867-5309 for $500 at www.win.com, 88 running ponies",)
    assert {t: list(analyzer.explain(t).features) for t in texts} == {t: analyzer(t) for t in texts}


def test_explain_agrees_for_a_group_that_takes_no_part():
    """re.findall gives "" for a group that did not match; explain must too."""
    analyzer = Analyzer(AnalysisOptions(token_pattern=r"(a)?b+"))
    assert analyzer("ab bb xab") == ["a", "", "a"]
    assert list(analyzer.explain("ab bb xab").features) == ["a", "", "a"]


@pytest.mark.corpora
@pytest.mark.parametrize("setting", ["default", "stop-english", "porter", "normalize-all"])
def test_explain_gives_the_same_features_on_every_sms(sms_texts, setting):
    options = SETTINGS[setting][0] if setting in SETTINGS else EXTRA_SETTINGS[setting]
    analyzer = Analyzer(AnalysisOptions(**options))
    assert first_difference(explained(analyzer), analyzer, sms_texts) is None


@pytest.mark.corpora
def test_explain_gives_the_same_features_on_newsgroups(newsgroups_texts):
    analyzer = Analyzer()
    assert first_difference(explained(analyzer), analyzer, newsgroups_texts) is None


# --- what explain reports ---------------------------------------------------------------------


def test_explain_reports_one_letter_words_under_the_default_pattern():
    analysis = Analyzer().explain("I saw a cat, x")
    assert analysis.text == "i saw a cat, x"
    assert analysis.words == ("saw", "cat")
    assert analysis.features == ("saw", "cat")
    assert analysis.dropped == (
        DroppedWord("i", "one-letter word"),
        DroppedWord("a", "one-letter word"),
        DroppedWord("x", "one-letter word"),
    )
    assert analysis.replacements == ()
    assert analysis.stems == ()


def test_explain_reports_stop_words():
    analysis = Analyzer(AnalysisOptions(stop_words="english")).explain("The match was not sharp")
    assert analysis.words == ("match", "sharp")
    assert analysis.dropped == (
        DroppedWord("the", "stop word"),
        DroppedWord("was", "stop word"),
        DroppedWord("not", "stop word"),
    )


def test_explain_reports_both_reasons_one_letter_words_first():
    analysis = Analyzer(AnalysisOptions(stop_words=("match",))).explain("a match I liked")
    assert analysis.words == ("liked",)
    assert [(d.word, d.reason) for d in analysis.dropped] == [
        ("a", "one-letter word"),
        ("i", "one-letter word"),
        ("match", "stop word"),
    ]


def test_explain_reports_words_a_custom_pattern_does_not_cover():
    analysis = Analyzer(AnalysisOptions(token_pattern=r"[a-z]{3,}")).explain("ok 42 cats a")
    assert analysis.words == ("cats",)
    assert [(d.word, d.reason) for d in analysis.dropped] == [
        ("ok", "not a token"),
        ("42", "not a token"),
        ("a", "one-letter word"),
    ]


@pytest.mark.parametrize("text", ["I saw a cat, x", "The match was not sharp", "a b c", ""])
def test_nothing_is_dropped_under_words_without_stop_words(text):
    analysis = Analyzer(AnalysisOptions(token_pattern="words")).explain(text)
    assert analysis.dropped == ()
    assert analysis.words == tuple(text.lower().replace(",", "").split())


def test_explain_of_ngrams_keeps_the_unigrams_in_words():
    analysis = Analyzer(AnalysisOptions(ngram_range=(2, 2))).explain("match was sharp")
    assert analysis.words == ("match", "was", "sharp")
    assert analysis.features == ("match was", "was sharp")


# --- stemming ----------------------------------------------------------------------------------


@pytest.mark.parametrize("stemmer", ["porter", "snowball"])
def test_stemming(stemmer):
    analyzer = Analyzer(AnalysisOptions(stemmer=stemmer))
    assert analyzer("running ponies cats testing match") == ["run", "poni", "cat", "test", "match"]
    analysis = analyzer.explain("Running ponies run, running cats match")
    assert analysis.words == ("run", "poni", "run", "run", "cat", "match")
    # Each change once, in order of first appearance; unchanged words ("run", "match") are not listed.
    assert analysis.stems == (("running", "run"), ("ponies", "poni"), ("cats", "cat"))


def test_porter_and_snowball_differ_where_they_should():
    """Snowball ("Porter2") is the newer algorithm; "generously" is a known difference."""
    porter = Analyzer(AnalysisOptions(stemmer="porter"))
    snowball = Analyzer(AnalysisOptions(stemmer="snowball"))
    assert porter("generously") == ["gener"]
    assert snowball("generously") == ["generous"]


def test_stop_words_are_removed_before_stemming():
    # "becoming" is a stop word; its stem "becom" is not, and must not survive.
    analyzer = Analyzer(AnalysisOptions(stemmer="porter", stop_words="english"))
    assert analyzer("becoming runners") == ["runner"]
    assert analyzer.explain("becoming runners").dropped == (DroppedWord("becoming", "stop word"),)


def test_no_stemming_by_default():
    assert Analyzer()("running ponies") == ["running", "ponies"]
    assert Analyzer().explain("running ponies").stems == ()


# --- placeholders ------------------------------------------------------------------------------

ALL_KINDS = AnalysisOptions(normalize=tuple(PLACEHOLDERS))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the lecture's examples
        ("http://spam.me", ["__url__"]),
        ("$", ["__money__"]),
        ("£", ["__money__"]),
        ("867-5309", ["__phone__"]),
        ("88", ["__number__"]),
        # URLs
        ("Visit http://spam.me now", ["visit", "__url__", "now"]),
        ("see https://example.com/a?b=1&c=2, then", ["see", "__url__", "then"]),
        ("go to www.win-big.co.uk.", ["go", "to", "__url__"]),
        ("(https://example.org/page)", ["__url__"]),
        # e-mail addresses
        ("mail me@example.org!", ["mail", "__email__"]),
        ("write to first.last+tag@mail.example.co.uk", ["write", "to", "__email__"]),
        ("info@www.example.com", ["__email__"]),
        # money
        ("win $500 now", ["win", "__money__", "now"]),
        ("£20 cash", ["__money__", "cash"]),
        ("30 dollars", ["__money__"]),
        ("a £1,000.50 prize", ["__money__", "prize"]),
        ("€5 or 5 euros", ["__money__", "or", "__money__"]),
        ("£1.50/min", ["__money__", "min"]),
        ("$1,000,000 now", ["__money__", "now"]),
        ("10,50 euros", ["__money__"]),
        # phone numbers
        ("call 867-5309 now", ["call", "__phone__", "now"]),
        ("(555) 123-4567", ["__phone__"]),
        ("+44 20 7946 0958", ["__phone__"]),
        ("ring +44 (0)20 7946 0958 today", ["ring", "__phone__", "today"]),
        ("09061701461", ["__phone__"]),
        ("Call 09061701461.", ["call", "__phone__"]),
        ("0800 123 4567", ["__phone__"]),
        ("text 07946 123456", ["text", "__phone__"]),
        ("1-800-555-0199", ["__phone__"]),
        ("+447781234567", ["__phone__"]),
        ("555.123.4567", ["__phone__"]),
        # plain numbers, which are not phone numbers
        ("I have 3 cats and 1.5 dogs", ["have", "__number__", "cats", "and", "__number__", "dogs"]),
        ("10,000 people", ["__number__", "people"]),
        ("from 1990-2000", ["from", "__number__", "__number__"]),
        ("at 10:30 in 2024", ["at", "__number__", "__number__", "in", "__number__"]),
        ("txt WIN to 87121", ["txt", "win", "to", "__number__"]),
        # digits inside a word stay part of the word
        ("b4 2nite mp3 x86_64", ["b4", "2nite", "mp3", "x86_64"]),
        # an ordinary sentence is untouched
        ("The keeper was sharp and composed.", ["the", "keeper", "was", "sharp", "and", "composed"]),
    ],
)
def test_placeholders(text, expected):
    analyzer = Analyzer(ALL_KINDS)
    assert analyzer(text) == expected
    assert list(analyzer.explain(text).features) == expected


def test_placeholders_leave_a_normal_sentence_unchanged():
    text = "Sorry, I'll call later. Are you free tonight?"
    assert Analyzer(ALL_KINDS)(text) == Analyzer()(text)
    assert Analyzer(ALL_KINDS).explain(text).replacements == ()


def test_explain_lists_the_replacements_kind_by_kind():
    text = "Call 867-5309 or visit http://spam.me/88 for $500, 3 times, or mail win@spam.me"
    analysis = Analyzer(ALL_KINDS).explain(text)
    assert analysis.replacements == (
        ("http://spam.me/88", "__url__"),
        ("win@spam.me", "__email__"),
        ("$500", "__money__"),  # the comma after it is punctuation, not part of the amount
        ("867-5309", "__phone__"),
        ("3", "__number__"),
    )
    assert analysis.features == (
        "call", "__phone__", "or", "visit", "__url__", "for", "__money__", "__number__", "times", "or", "mail",
        "__email__",
    )


def test_only_the_chosen_kinds_are_replaced():
    analyzer = Analyzer(AnalysisOptions(normalize=("number",)))
    assert analyzer("win $500 at http://spam.me/88") == ["win", "__number__", "at", "http", "spam", "me", "__number__"]
    urls_only = Analyzer(AnalysisOptions(normalize=("url",)))
    assert urls_only("win $500 at http://spam.me/88") == ["win", "500", "at", "__url__"]


def test_normalize_is_put_in_the_order_it_is_applied():
    assert AnalysisOptions(normalize=("number", "url", "phone")).normalize == ("url", "phone", "number")


@pytest.mark.parametrize("token_pattern", ["default", "words", "whitespace"])
def test_placeholders_survive_every_preset(token_pattern):
    analyzer = Analyzer(AnalysisOptions(normalize=tuple(PLACEHOLDERS), token_pattern=token_pattern))
    assert analyzer("x http://a.b y@z.org $5 867-5309 7") == (
        (["x"] if token_pattern != "default" else [])
        + ["__url__", "__email__", "__money__", "__phone__", "__number__"]
    )


def test_placeholders_come_before_lowercasing_and_stemming():
    analyzer = Analyzer(AnalysisOptions(normalize=("url",), stemmer="porter", lowercase=False))
    assert analyzer("Visiting HTTP://SPAM.ME") == ["Visit", "__url__"]


# --- invalid options ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"strip_accents": "latin"}, r"strip_accents must be one of \('ascii', 'unicode'\) or None, not 'latin'"),
        ({"stemmer": "lancaster"}, r"stemmer must be one of \('porter', 'snowball'\) or None, not 'lancaster'"),
        ({"stop_words": "french"}, r"stop_words must be 'english', a list of words or None, not 'french'"),
        ({"normalize": ("urls", "money")},
         r"normalize accepts \('url', 'email', 'money', 'phone', 'number'\), not \['urls'\]"),
        ({"ngram_range": (0, 1)}, r"ngram_range must be \(min, max\) with 1 <= min <= max <= 3, not \(0, 1\)"),
        ({"ngram_range": (2, 1)}, r"ngram_range must be .*not \(2, 1\)"),
        ({"ngram_range": (1, 4)}, r"ngram_range must be .*not \(1, 4\)"),
        ({"token_pattern": "[a-"}, r"token_pattern is not a valid regular expression"),
        ({"token_pattern": r"(a)(b)"}, r"token_pattern may have at most one capturing group"),
    ],
)
def test_invalid_options(options, message):
    with pytest.raises(ValueError, match=message):
        AnalysisOptions(**options)


def test_options_describe_round_trips():
    options = AnalysisOptions(
        lowercase=False, token_pattern="words", strip_accents="ascii", stop_words=("b", "a"), stemmer="porter",
        normalize=("number", "url"), ngram_range=(1, 2),
    )
    assert options.to_dict() == {
        "lowercase": False,
        "token_pattern": "words",
        "strip_accents": "ascii",
        "stop_words": ["b", "a"],
        "stemmer": "porter",
        "normalize": ["url", "number"],
        "ngram_range": [1, 2],
    }
    rebuilt = AnalysisOptions(**{k: tuple(v) if isinstance(v, list) else v for k, v in options.to_dict().items()})
    assert rebuilt == options


def test_every_setting_combination_is_accepted():
    """The options are independent: any combination of valid values builds an analyzer that runs."""
    for lowercase, pattern, accents, stop, stem, ngrams in itertools.product(
        (True, False), TOKEN_PATTERNS, (None, "ascii", "unicode"), (None, "english"), (None, "porter"), ((1, 1), (1, 2))
    ):
        options = AnalysisOptions(lowercase, pattern, accents, stop, stem, tuple(PLACEHOLDERS), ngrams)
        analyzer = Analyzer(options)
        text = "Naïve running ponies cost $5 at http://x.y"
        assert list(analyzer.explain(text).features) == analyzer(text)
        assert "__money__" in analyzer(text)
