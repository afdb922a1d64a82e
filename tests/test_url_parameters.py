"""The table of URL parameters: each parameter's default, the message a value it cannot use gives, what counts as
"not given", and the hidden fields that carry a state through a form and read back as the same state."""
from __future__ import annotations

import random
from dataclasses import MISSING, replace

import pytest
from werkzeug.datastructures import MultiDict

from webnb.engine.shared.numbers import ExactNumber
from webnb.lesson.state import (
    GAUSSIAN_STEPS,
    LESSON_PARAMETERS,
    PAGE_PARAMETERS,
    STEPS,
    TABLE_PARAMETERS,
    LessonState,
    Parameter,
    ParameterTable,
    TableState,
    parse_state,
    parse_table_state,
)


def every_page_parameter() -> dict[str, Parameter]:
    """What many pages read (webnb/lesson/state.py) and every view's own ``PARAMETERS``, declared beside it."""
    import importlib
    import pkgutil

    import webnb.views

    found = dict(PAGE_PARAMETERS)
    for module in pkgutil.walk_packages(webnb.views.__path__, "webnb.views."):
        own = getattr(importlib.import_module(module.name), "PARAMETERS", {})
        for key, parameter in own.items():
            assert found.get(key, parameter) is parameter, f"{key} is declared twice"
            found[key] = parameter
    return found


def read_page_parameter(args, key: str, default=MISSING, **context):
    return every_page_parameter()[key].read(args, default, **context)

LESSON_DEFAULTS = {
    "model": "bernoulli", "alpha": ExactNumber(1), "binary": False, "prior": "learned", "floor": False, "text": "",
    "step": "tokens", "notation": "phi-psi", "presenter": False, "slide": "", "theme": "", "zoom": "",
    "repeats": "", "lowercase": True,
    "tokens": "default", "accents": "", "stop_words": "", "stemmer": "", "normalize": (), "ngrams": "1-1",
    "min_df": "1", "max_df": "1.0", "max_features": "all", "test": "split", "test_size": ExactNumber("0.25"),
    "seed": "0", "train": "all",
}
TABLE_DEFAULTS = {
    "var_smoothing": "1e-9", "prior": "learned", "values": (), "step": "densities", "presenter": False, "slide": "",
    "theme": "", "zoom": "", "test": "split", "test_size": ExactNumber("0.25"), "seed": "0", "train": "all",
}
# A corpus's own defaults, none of them the plain state's, so that a fallback to them can be told from one to those.
CORPUS_LESSON = LessonState(
    model="multinomial", alpha=ExactNumber("0.5"), binary=True, prior="uniform", floor=True, text="a review",
    step="zeros", slide="documents", theme="dark", zoom="125",
    notation="p-hat", presenter=True, repeats="30", lowercase=False, tokens="words", accents="ascii",
    stop_words="english", stemmer="porter", normalize=("url",), ngrams="1-2", min_df="2", max_df="0.9",
    max_features="50", test="training", test_size=ExactNumber("0.3"), seed="7", train="split",
)
CORPUS_TABLE = TableState(var_smoothing="0.01", prior="uniform", values=("1", "2"), step="product", presenter=True,
                          slide="curves", theme="light", zoom="150",
                          test="training", test_size=ExactNumber("0.3"), seed="7", train="split")

# The messages a text lesson and a table's lesson give alike, word for word.
SLIDE = "There is no such slide."
THEME = "The theme is light or dark (high contrast), or normal."
ZOOM = "The zoom is 125 or 150 (per cent), or 100."
FLAG = "Expected 1 or 0."
HELD_OUT_SHARE = "The held-out share is a fraction between 0 and 1, such as 0.25."
SEED = "The seed is a whole number from 0 to 4,294,967,295."
# A value each parameter cannot use, and today's message for it, word for word.
LESSON_REFUSED = {
    "model": ("gaussian", "The model is Bernoulli, multinomial or Complement."),
    "prior": ("flat", "The prior is learned from the class frequencies, or uniform."),
    "step": ("jump", "There is no such step."),
    "slide": ("last", SLIDE),
    "notation": ("greek", "Unknown notation."),
    "theme": ("sepia", THEME),
    "zoom": ("200", ZOOM),
    "tokens": ("letters", "Tokens are the default words, all words, or white-space separated."),
    "ngrams": ("3-3", "Words can be single words (1-1), words and pairs (1-2) or pairs (2-2)."),
    "accents": ("latin", "Unknown accents option."),
    "stemmer": ("lancaster", "Unknown stemmer option."),
    "stop_words": ("french", "Unknown stop words option."),
    "binary": ("maybe", FLAG),
    "floor": ("2", FLAG),
    "presenter": (" ", FLAG),  # a space is given, and is no flag
    "lowercase": ("yes please", FLAG),
    "alpha": ("1001", "α above 1000 drowns every count; use a value between 0 and 1000."),
    "text": ("x" * 5001, "The review is 5,001 characters long; the limit is 5,000."),
    "repeats": ("0", "Repeat the review between 1 and 5,000 times."),
    "normalize": ("url,dates", "Placeholders are chosen from url, email, money, phone, number."),
    "min_df": ("1.5", "min_df: a whole number of documents or a fraction between 0 and 1, or all for no limit "
                      "(min_df as a fraction must be between 0 and 1, not 1.5)."),
    "max_df": ("half", "max_df: a whole number of documents or a fraction between 0 and 1, or all for no limit "
                       "(write it as 2 (documents) or 0.5 (a fraction of them))."),
    "max_features": ("²", "max_features is a whole number of words, from 1 to 10,000,000, or all for no limit."),
    "test": ("../x", "The test documents are a split of the corpus, its training documents, or another corpus."),
    "train": ("some", "The model is trained on all documents or on the training part of the split."),
    "test_size": ("1", HELD_OUT_SHARE),
    "seed": ("-1", SEED),
}
TABLE_REFUSED = {
    "var_smoothing": ("-1", "var_smoothing is a number from 0 to 1,000,000, such as 1e-9 or 0."),
    "prior": ("flat", "The prior is learned from the rows or uniform."),
    "step": ("jump", "Unknown step."),
    "test": ("other", "Test on a split of the rows or on the training rows."),
    "train": ("some", "Train on all rows or on the split's training part."),
    "value": ("x" * 101, "Too many or too long values."),
    # The text lessons' messages.
    "slide": ("last", SLIDE),
    "presenter": ("maybe", FLAG),
    "theme": ("bright", THEME),
    "zoom": ("1.5", ZOOM),
    "test_size": ("0", HELD_OUT_SHARE),
    "seed": ("9" * 41, SEED),
}


def test_each_field_of_a_state_is_one_parameter_with_the_states_default():
    assert {p.field: p.default for p in LESSON_PARAMETERS.parameters} == LESSON_DEFAULTS
    assert {p.field: p.default for p in TABLE_PARAMETERS.parameters} == TABLE_DEFAULTS
    assert parse_state({}) == LessonState() and parse_state(MultiDict()).errors == {}
    assert parse_table_state({}) == TableState() and parse_table_state(MultiDict()).errors == {}
    assert parse_state({}, CORPUS_LESSON) == CORPUS_LESSON and parse_table_state({}, CORPUS_TABLE) == CORPUS_TABLE
    with pytest.raises(TypeError, match="one parameter for each of its fields"):
        ParameterTable(TableState, TABLE_PARAMETERS.parameters[1:])


@pytest.mark.parametrize("name", sorted(LESSON_REFUSED))
def test_a_lesson_value_that_cannot_be_used_gives_its_message_and_the_corpus_default(name):
    text, message = LESSON_REFUSED[name]
    for args in ({name: text}, MultiDict([(name, text)])):
        state = parse_state(args, CORPUS_LESSON)
        assert state.errors == {name: message}
        assert state == CORPUS_LESSON


@pytest.mark.parametrize("name", sorted(TABLE_REFUSED))
def test_a_table_value_that_cannot_be_used_gives_its_message_and_the_corpus_default(name):
    text, message = TABLE_REFUSED[name]
    state = parse_table_state(MultiDict([(name, text)]), CORPUS_TABLE)
    assert state.errors == {name: message}
    assert state == CORPUS_TABLE


def test_messages_are_listed_in_the_tables_order():
    everything = MultiDict([(name, text) for name, (text, _) in reversed(LESSON_REFUSED.items())])
    assert list(parse_state(everything).errors) == [p.name for p in LESSON_PARAMETERS.parameters]
    table = MultiDict([(name, text) for name, (text, _) in TABLE_REFUSED.items()])
    assert list(parse_table_state(table).errors) == [
        "var_smoothing", "prior", "step", "slide", "test", "train", "presenter", "theme", "zoom", "value", "test_size",
        "seed"]


@pytest.mark.parametrize("args, expected, errors", [
    ({"model": ""}, {}, {}),  # an empty field is not given
    # a choice is exact
    ({"model": " multinomial"}, {}, {"model": "The model is Bernoulli, multinomial or Complement."}),
    ({"accents": "none", "stemmer": "none", "stop_words": "none"}, {}, {}),
    ({"alpha": "   "}, {}, {}),
    ({"alpha": " 0.5 "}, {"alpha": ExactNumber("0.5")}, {}),
    ({"alpha": " -1"}, {}, {"alpha": "α must be 0 or more, not  -1"}),  # quoted as typed
    ({"text": ""}, {"text": ""}, {}),  # an empty review clears the corpus's example review
    ({"normalize": ""}, {"normalize": ()}, {}),
    ({"normalize": "money,url"}, {"normalize": ("url", "money")}, {}),
    ({"repeats": " 007 ", "seed": "0042", "max_features": "10"}, {"repeats": "7", "seed": "42", "max_features": "10"},
     {}),
    ({"min_df": " 2 ", "max_df": "0.5"}, {"min_df": "2", "max_df": "0.5"}, {}),
    ({"binary": " ON ", "lowercase": "0"}, {"binary": True, "lowercase": False}, {}),
    ({"test": "spam-ham_2", "test_size": " 0.4"}, {"test": "spam-ham_2", "test_size": ExactNumber("0.4")}, {}),
])
def test_what_a_lesson_text_reads_as(args, expected, errors):
    state = parse_state(args)
    assert state == replace(LessonState(), **expected) and state.errors == errors


def test_a_repeated_lesson_setting_takes_the_last_text_and_a_table_setting_the_first():
    # A ticked checkbox arrives as its hidden "0" followed by "1"; the placeholder checkboxes send one text each.
    lesson = parse_state(MultiDict([("binary", "0"), ("binary", "1"), ("normalize", "phone"), ("normalize", ""),
                                    ("normalize", "url"), ("seed", "1"), ("seed", "2")]))
    assert (lesson.binary, lesson.normalize, lesson.seed, lesson.errors) == (True, ("url", "phone"), "2", {})
    table = parse_table_state(MultiDict([("prior", "uniform"), ("prior", "learned"), ("value", " 5.1"),
                                         ("value", "3.5 "), ("seed", "1"), ("seed", "2")]))
    assert (table.prior, table.values, table.seed, table.errors) == ("uniform", ("5.1", "3.5"), "1", {})
    assert parse_table_state(MultiDict([("value", "1")] * 201)).errors == {"value": "Too many or too long values."}


RANDOM_LESSON = {
    "model": ["bernoulli", "multinomial"], "alpha": [ExactNumber(text) for text in ("0", "1", "0.5", "1/3")],
    "binary": [True, False],
    "prior": ["learned", "uniform"], "floor": [True, False], "text": ["", "x y", "ü&=+% <b>\"'", " spaced "],
    "step": list(STEPS), "notation": ["phi-psi", "beta-alpha"], "presenter": [True, False], "repeats": ["", "3"],
    "theme": ["", "light", "dark"], "zoom": ["", "125", "150"],
    "lowercase": [True, False], "tokens": ["default", "words", "whitespace"], "accents": ["", "ascii", "unicode"],
    "stop_words": ["", "english"], "stemmer": ["", "porter", "snowball"],
    "normalize": [(), ("url",), ("email", "money", "number")], "ngrams": ["1-1", "1-2", "2-2"],
    "min_df": ["1", "2", "0.1"], "max_df": ["1.0", "0.8", "30"], "max_features": ["all", "100"],
    "test": ["split", "training", "other-corpus"], "test_size": [ExactNumber("0.25"), ExactNumber("0.5")],
    "seed": ["0", "123"],
    "train": ["all", "split"],
}
RANDOM_TABLE = {
    "var_smoothing": ["1e-9", "0", "0.5"], "prior": ["learned", "uniform"], "values": [(), ("5.1",), ("1", "-2.5e3")],
    "step": list(GAUSSIAN_STEPS), "presenter": [True, False], "test": ["split", "training"],
    "theme": ["", "light", "dark"], "zoom": ["", "125", "150"],
    "test_size": [ExactNumber("0.25"), ExactNumber("0.1")], "seed": ["0", "9"], "train": ["all", "split"],
}


def test_hidden_fields_read_back_as_the_same_state():
    rng = random.Random(13)
    for _ in range(500):
        lesson = LessonState(**{k: rng.choice(v) for k, v in RANDOM_LESSON.items() if rng.random() < 0.6})
        hidden = lesson.hidden_fields()
        assert [name for name, _ in hidden] == list(LESSON_DEFAULTS)  # every setting, in field order
        for defaults in (None, LessonState(model="multinomial", test="training")):
            again = parse_state(MultiDict(hidden), defaults)
            assert again == lesson and again.errors == {}
        table = TableState(**{k: rng.choice(v) for k, v in RANDOM_TABLE.items() if rng.random() < 0.6})
        hidden = table.hidden_fields()
        assert [name for name, _ in hidden if name != "value"] == [n for n in TABLE_DEFAULTS if n != "values"]
        assert tuple(text for name, text in hidden if name == "value") == table.values
        for defaults in (None, TableState(test="training")):
            again = parse_table_state(MultiDict(hidden), defaults)
            assert again == table and again.errors == {}


def test_hidden_fields_write_texts_as_links_do():
    state = LessonState(binary=True, lowercase=False, normalize=("url", "money"), text="a&b")
    hidden = dict(state.hidden_fields())
    assert [hidden[name] for name in ("binary", "floor", "lowercase", "normalize", "text", "repeats", "max_df")] == [
        "1", "0", "0", "url,money", "a&b", "", "1.0"]
    table = dict(TableState(presenter=True, values=("1", "2")).hidden_fields())
    assert (table["presenter"], table["value"]) == ("1", "2")  # the last of the typed values, each a field
    assert "normalize=url%2Cmoney" in state.query() and "text=a%26b" in state.query()


# -- a page's own parameters --------------------------------------------------------------------------------------

CLASSES = ("ham", "spam")


@pytest.mark.parametrize("key, args, context, value, message", [
    ("page", {}, {"pages": 4}, 1, None),
    ("page", {"page": "3"}, {"pages": 4}, 3, None),
    ("page", {"page": "9"}, {"pages": 4}, 4, None),  # past the end: the last page
    ("page", {"page": "0"}, {"pages": 4}, 1, None),
    ("rows", {"rows": "²"}, {"pages": 4}, 1, None),  # silently the first page
    ("cols", {"cols": "2"}, {"pages": 0}, 1, None),
    ("wrong_page", {"wrong_page": "2", "page": "3"}, {"pages": 5}, 2, None),
    ("table_page", {"page": "x"}, {"pages": 1200}, 1,
     "The page is a whole number from 1 to 1,200; the first page is shown."),
    ("table_page", {"page": ""}, {"pages": 3}, 1, "The page is a whole number from 1 to 3; the first page is shown."),
    ("table_page", {"page": "7"}, {"pages": 3}, 7, None),  # the view says there are only 3
    ("q", {"q": "  CaSe "}, {}, "case", None),
    ("q", {"q": "W" * 150}, {}, "w" * 100, None),
    ("sort", {"sort": ""}, {}, "", None),
    ("sort", {}, {}, "word", None),
    ("values", {"values": "counts"}, {}, "counts", None),
    ("values", {"values": "both"}, {}, None, None),
    ("order", {"order": "frequent"}, {}, "frequent", None),
    ("order", {"order": "random"}, {}, "alphabetical", None),
    ("format", {"format": "json"}, {}, "json", None),
    ("format", {"format": "xml"}, {}, None, None),
    ("from", {"from": "test"}, {}, "test", None),
    ("word", {"word": " match "}, {}, " match ", None),
    ("cell_class", {}, {"classes": CLASSES}, None, None),
    ("cell_class", {"class": "spam"}, {"classes": CLASSES}, "spam", None),
    ("cell_class", {"class": ""}, {"classes": CLASSES}, None, "“” is not a class of this corpus."),
    ("sampled_class", {"class": ""}, {"classes": CLASSES}, "", None),
    ("sampled_class", {"class": "eggs"}, {"classes": CLASSES}, "",
     "“eggs” is not a class of this corpus, so the class is drawn from the prior instead. The classes are: ham, spam."),
    ("document", {"document": " 12 "}, {}, 12, None),
    ("document", {"document": " "}, {}, None, None),
    ("document", {"document": "-1"}, {}, None, "There is no such document."),
    ("C", {"C": "0.1"}, {}, 0.1, None),
    ("C", {"C": "0"}, {}, 1.0, "C must be a positive number such as 1 or 0.1, not 0.0. Showing C = 1."),
    ("draw", {"draw": "4294967295"}, {}, 4294967295, None),
    ("draw", {"draw": " " + "9" * 30}, {}, 0,
     "The draw is a whole number from 0 to 4,294,967,295, not “99999999999999999999”; draw 0 is shown instead."),
    ("length", {"length": "1001"}, {}, None, "The length is a whole number of words from 1 to 1,000, not “1001”; "
                                             "the mean length of the class is used instead."),
    ("k", MultiDict([("k", "7"), ("k", "12")]), {}, 12, None),
    ("k", {"k": "4"}, {}, 10, "k is a whole number of words from 5 to 50."),
    ("top", {"top": "10001"}, {}, 200, "top is a whole number of words from 1 to 10,000."),
    ("by", {"by": "difference"}, {}, "difference", None),
    ("by", {"by": "sum"}, {}, "ratio", "Words are ranked by the ratio or by the difference of their probabilities."),
    ("positive", {"positive": "spam"}, {"classes": CLASSES}, "spam", None),
    ("negative", {"negative": "e" * 50}, {"classes": CLASSES}, None,
     f"There is no class {'e' * 40 + '…'!r} in this corpus."),
    ("bigram_job", MultiDict([("bigram_job", "a1"), ("bigram_job", " b2 ")]), {}, "b2", None),
    ("bigram_job", {"bigram_job": " "}, {}, None, None),
    ("part", {"part": "bigrams"}, {}, "bigrams", None),
    ("part", {"part": "unigrams"}, {}, None, None),
    ("of", {"of": "evaluation"}, {}, "evaluation", None),
    ("of", {"of": ""}, {}, "parameters",
     "A check is of the parameters or of the evaluation (of=parameters or of=evaluation)."),
    ("label", {}, {}, "", None),
    ("new_document", {"document": "  a new review "}, {}, "  a new review ", None),
])
def test_a_page_parameter_reads_as_the_page_uses_it(key, args, context, value, message):
    reading = read_page_parameter(args, key, **context)
    assert (reading.value, reading.message) == (value, message)


def test_a_page_may_give_its_own_default_and_the_text_read_is_kept():
    assert read_page_parameter({}, "top", default=25).value == 25
    top = read_page_parameter({"top": "x"}, "top", default=25)
    assert (top.value, top.message) == (25, "top is a whole number of words from 1 to 10,000.")
    assert read_page_parameter({"positive": ""}, "positive", default="ham", classes=CLASSES).value == "ham"
    assert read_page_parameter({"C": " 0.x "}, "C").text == "0.x"  # the form shows what was typed
    assert read_page_parameter({}, "new_document").text is None  # the add form tells "not sent" from "sent empty"
    assert read_page_parameter({"document": ""}, "new_document").text == ""
    with pytest.raises(KeyError):
        read_page_parameter({"class": "x"}, "cell_class")  # the classes must be given


def test_every_page_parameter_falls_back_to_its_default_when_absent():
    context = {"pages": 3, "classes": CLASSES}
    for key, parameter in every_page_parameter().items():
        assert read_page_parameter({}, key, **context) == (parameter.default, None, None), key


def test_a_message_template_names_the_text_and_the_pages_context():
    parameter = Parameter("n", int, "{raw:.3} is no number; pick one of {choices}.")
    assert parameter.read({"n": " 12345x "}, choices=("1", "2"))[:2] == (None, "123 is no number; pick one of 1, 2.")
    assert Parameter("n", int, "").read({"n": "x"}, default=5) == (5, None, "x")  # a silent fallback

    def refuse(text):
        raise ValueError(f"{text} is too big")

    assert Parameter("n", refuse).read({"n": "9"}).message == "9 is too big"  # the parser's own words
