"""The lesson's state, read from and written to the URL's query string.

Everything a page shows follows from the corpus id in the path and these parameters, so a link
reproduces exactly what the projector shows. Parsing never fails: a value that makes no sense is
replaced by the default and reported in ``errors``, so the page can say what was wrong.

Every parameter a page reads from its address is a ``Parameter`` in a table: ``LESSON_PARAMETERS`` (the text
pages' ``LessonState``), ``TABLE_PARAMETERS`` (the Gaussian pages' ``TableState``), ``PAGE_PARAMETERS`` (what many
pages read: the JSON twin, a word filter, page numbers; through ``read_parameter``), and each view's own
``PARAMETERS`` (``page_parameters``, declared beside the view: the sampling page's draw, the telling words' k, …).
A state's table reads the state (``parse_state``, ``parse_table_state``) and writes it back into links
(``query``) and forms (``hidden_fields``).
"""
from __future__ import annotations

import functools
import re
from dataclasses import MISSING, dataclass, field, fields, replace
from typing import Any, Callable, Mapping, NamedTuple
from urllib.parse import quote_plus

from webnb.engine import AnalysisOptions, CorpusError, ModelOptions, VocabularyOptions, parse_alpha
from webnb.engine.gaussian.table import parse_number
from webnb.engine.shared.numbers import ExactNumber, is_plain_decimal, is_whole, parse_exact_decimal, parse_whole
from webnb.engine.text.analysis import PLACEHOLDERS, STEMMERS, STRIP_ACCENTS, TOKEN_PATTERNS
from webnb.lesson import notation, pages

MODELS = ("bernoulli", "multinomial", "complement")
PRIORS = ("learned", "uniform")
NGRAMS = {"1-1": (1, 1), "1-2": (1, 2), "2-2": (2, 2)}
NOTATIONS = tuple(notation.NOTATIONS)  # their keys, in the order of the lecture notes
STEPS = tuple(key for key, _ in pages.INFERENCE_STEPS)
MAX_TEXT_LENGTH = 5000
MAX_SEED = 2**32 - 1
MAX_REPEATS = 5000
MAX_FEATURES = 10_000_000  # more words than any vocabulary here may hold
MAX_DOCUMENT_COUNT = 10**9  # more documents than any corpus here holds, so min_df/max_df never need more


# --- one parameter of an address ---------------------------------------------------------------------------------


class Reading(NamedTuple):
    """What a parameter's text in an address came to."""

    value: Any  # the value to use: the parsed text, or the default
    message: str | None  # why the text could not be used (None when it could, was absent, or falls back silently)
    text: Any  # the text as read (a list of texts for a parameter read from all its repetitions); None when absent


@dataclass(frozen=True)
class Parameter:
    """One parameter of an address: how its text becomes a value, and what the page says when it cannot.

    ``parse`` turns the text into the value or raises ValueError; then the page uses the default and shows
    ``message``, a template of the words a student reads: ``{error}`` is the parser's own explanation, ``{raw}`` the
    text, and other names come from the page's context (``read_parameter``; a list there reads as its items joined by
    commas). An empty message falls back without a word."""

    name: str  # in the address
    parse: Callable[..., Any]  # the text, and what ``needs`` names, to the value
    message: str = "{error}"
    default: Any = None  # in a state's table the state's own default, filled in by ``ParameterTable``
    field: str = ""  # the state's field, or the page's name for the parameter, when it is not ``name``
    # "strip": read without the spaces around it; "keep": spaces are part of the text (" " is a wrong value);
    # "blank": spaces alone are not given, anything else is read as typed (α, whose messages quote what was typed)
    spaces: str = "strip"
    unset: tuple[str, ...] = ("",)  # texts that leave the default in place, without a message
    repeated: str = "first"  # which text counts when the address repeats the name: "first", "last", or "all" (a list)
    several: bool = False  # the value is a tuple written as one text per item (value=5.1&value=3.5)
    needs: tuple[str, ...] = ()  # what ``parse`` takes from the page besides the text, e.g. ("classes",)
    in_every_link: bool = False  # links carry it even at its default, so that they mean the same thing tomorrow

    def __post_init__(self):
        if not self.field:
            object.__setattr__(self, "field", self.name)

    def read(self, args: Mapping, default: Any = MISSING, **context) -> Reading:
        """The value in ``args`` (a query string or a form; a dict in tests), or ``default`` (this parameter's own
        unless given) when it is absent or cannot be used, with the message for the latter."""
        default = self.default if default is MISSING else default
        text = self._text(args)
        if text is None or text in self.unset:
            return Reading(default, None, text)
        try:
            value = self.parse(text, **{name: context[name] for name in self.needs})
        except ValueError as error:
            named = {name: ", ".join(v) if isinstance(v, (tuple, list)) else v for name, v in context.items()}
            return Reading(default, self.message.format(error=error, raw=text, **named) or None, text)
        return Reading(value, None, text)

    def _text(self, args: Mapping):
        if hasattr(args, "getlist"):
            texts = args.getlist(self.name)
        else:
            texts = [args[self.name]] if self.name in args else []
        if not texts:
            return None
        if self.repeated == "all":
            return texts
        text = texts[-1] if self.repeated == "last" else texts[0]
        if self.spaces == "strip":
            return text.strip()
        if self.spaces == "blank" and not text.strip():
            return ""
        return text

    def texts(self, value) -> tuple[str, ...]:
        """How ``value`` is written in an address: one text (a flag as 1 or 0, a tuple joined by commas), or one
        text per item when the parameter is ``several``."""
        if self.several:
            return tuple(value)
        if isinstance(value, bool):
            return ("1" if value else "0",)
        if isinstance(value, tuple):
            return (",".join(value),)
        return (str(value),)


class ParameterTable:
    """The parameters of one kind of state (a frozen dataclass with an ``errors`` field), one per field, in the order
    a page lists their messages. Reads the state from an address and writes it back into links and forms."""

    def __init__(self, state_class, parameters: tuple[Parameter, ...]):
        self.plain = state_class()
        names = [f.name for f in fields(state_class) if f.name not in NOT_PARAMETERS]
        if sorted(p.field for p in parameters) != sorted(names):
            raise TypeError(f"{state_class.__name__} needs one parameter for each of its fields: {', '.join(names)}")
        self.parameters = tuple(replace(p, default=getattr(self.plain, p.field)) for p in parameters)
        by_field = {p.field: p for p in self.parameters}
        self.by_field = {name: by_field[name] for name in names}  # in field order, the order of links and forms

    def parse(self, args: Mapping, defaults=None):
        """The state in ``args``; what cannot be used is the default's, its message in ``errors`` under its name."""
        defaults = defaults or self.plain
        values, errors, typed = {}, {}, {}
        for parameter in self.parameters:
            reading = parameter.read(args, getattr(defaults, parameter.field))
            values[parameter.field] = reading.value
            if reading.message:
                errors[parameter.name] = reading.message
            elif isinstance(reading.value, ExactNumber) and isinstance(reading.text, str):
                typed[parameter.field] = (reading.text.strip(), reading.value)
        extra = {"typed": typed} if hasattr(defaults, "typed") else {}
        return replace(defaults, **values, errors=errors, **extra)

    def query(self, state, defaults, changes: dict) -> str:
        """``state`` with ``changes`` as a query string, leaving out what equals ``defaults`` (the plain state's when
        None) unless the parameter is ``in_every_link``."""
        defaults = defaults or self.plain
        parts = self._query_parts(state, defaults)
        if changes:
            parts = dict(parts)
            for name, value in changes.items():
                if name not in parts:
                    raise TypeError(f"{type(state).__name__} has no field {name!r}")
                parts[name] = self._query_part(self.by_field[name], value, defaults)
        return "&".join(part for part in parts.values() if part)

    def _query_parts(self, state, defaults) -> dict[str, str]:
        """Each field's "name=value" ("" when left out), in field order, made once per state and defaults: a page
        links its state a few dozen times (every step, setting and download), each with one change or none."""
        made = state.__dict__.setdefault("_query_parts_made", {})
        parts = made.get(defaults)
        if parts is None:
            parts = made[defaults] = {
                name: self._query_part(parameter, getattr(state, name), defaults)
                for name, parameter in self.by_field.items()
            }
        return parts

    @staticmethod
    def _query_part(parameter: Parameter, value, defaults) -> str:
        if value == getattr(defaults, parameter.field) and not parameter.in_every_link:
            return ""
        name = quote_plus(parameter.name)
        return "&".join(f"{name}={quote_plus(text)}" for text in parameter.texts(value))

    def hidden_fields(self, state) -> tuple[tuple[str, str], ...]:
        """(name, text) of every parameter of ``state`` in field order, one pair per text."""
        return tuple(
            (parameter.name, text)
            for name, parameter in self.by_field.items()
            for text in parameter.texts(getattr(state, name))
        )


# Fields of a state that are not parameters of its address.
NOT_PARAMETERS = ("errors", "typed")


def field_text(state, name: str) -> str:
    """See ``LessonState.field_text``."""
    value = getattr(state, name)
    text, typed_value = getattr(state, "typed", {}).get(name, (None, None))
    return text if text is not None and typed_value == value else str(value)


# --- parsers: each turns a text into a value, or raises ValueError ------------------------------------------------


def one_of(allowed):
    """A parser that takes one of the ``allowed`` texts."""
    def allowed_text(text: str) -> str:
        if text not in allowed:
            raise ValueError(f"{text[:40]!r} is not one of {', '.join(allowed)}")
        return text

    return allowed_text


def whole_number(low: int, high: int):
    """A parser of whole numbers from ``low`` to ``high``."""
    def whole(text: str) -> int:
        return parse_whole(text, low=low, high=high, what="The number")

    return whole


def _whole_text(low: int, high: int):
    """A whole number kept as the text a state holds, without leading zeros ("007" is "7")."""

    def whole_text(text: str) -> str:
        return str(parse_whole(text, low=low, high=high, what="The number"))

    return whole_text


def _flag(text: str) -> bool:
    flag = {
        "1": True, "true": True, "on": True, "yes": True, "0": False, "false": False, "off": False, "no": False
    }.get(text.strip().lower())
    if flag is None:
        raise ValueError(f"{text[:40]!r} is not 1 or 0")
    return flag


def _alpha(text: str) -> ExactNumber:
    """α as the exact number typed ("0.1" is 1/10; "0", "0.00" and ".0" are all 0), read once here: links, pages
    and the engine use the number."""
    alpha = parse_alpha(text)
    if alpha > 1000:
        raise ValueError("α above 1000 drowns every count; use a value between 0 and 1000.")
    return ExactNumber(alpha)


# "0,5": a decimal comma, which a phone's keyboard types in many languages (a class answers α from phones).
_DECIMAL_COMMA = re.compile(r"\s*(\d*),(\d+)\s*")


def read_alpha_answer(text: str) -> ExactNumber:
    """α typed as an answer to a question: read as the pages read it, and with a decimal comma too."""
    comma = _DECIMAL_COMMA.fullmatch(text)
    return _alpha(f"{comma[1] or '0'}.{comma[2]}" if comma else text.strip())


def _review(text: str) -> str:
    if len(text) > MAX_TEXT_LENGTH:
        raise ValueError(f"The review is {len(text):,} characters long; the limit is {MAX_TEXT_LENGTH:,}.")
    return text


def _placeholders(texts: list[str]) -> tuple[str, ...]:
    """The placeholder kinds, from one text of commas or from the form's checkboxes (one text each)."""
    kinds = {kind for text in texts for kind in text.split(",") if kind}
    if not kinds <= set(PLACEHOLDERS):
        raise ValueError("not a placeholder kind")
    return tuple(kind for kind in PLACEHOLDERS if kind in kinds)


def document_bound(text: str, name: str = "min_df") -> int | float:
    """min_df or max_df (``name``), as the lesson pages and the command line read it: a whole number of documents,
    or a fraction of them between 0 and 1 (at most 40 characters, never NaN)."""
    text = text.strip()
    if is_whole(text):
        bound = parse_whole(text, low=0, high=MAX_DOCUMENT_COUNT, what="A number of documents")
    elif is_plain_decimal(text):
        bound = float(text)
    else:
        raise ValueError("write it as 2 (documents) or 0.5 (a fraction of them)")
    VocabularyOptions(**{name: bound})  # refuses a fraction above 1, in the vocabulary's own words
    return bound


# What a vocabulary limit's field may say for "no limit": cleared, "all" or "0". Typed, it overrides a preset.
NO_LIMIT_TEXTS = ("", "all", "0")
NO_LIMIT = {"min_df": "1", "max_df": "1.0", "max_features": "all"}


def _document_bound_text(name: str):
    def document_bound_text(text: str) -> str:
        if text.lower() in NO_LIMIT_TEXTS:
            return NO_LIMIT[name]
        document_bound(text, name)
        return text

    return document_bound_text


def _word_limit(text: str) -> str:
    """max_features: a whole number of words, or no limit ("all", "0" or nothing typed)."""
    if text.lower() in NO_LIMIT_TEXTS:
        return NO_LIMIT["max_features"]
    return str(parse_whole(text, low=1, high=MAX_FEATURES, what="The number"))


def _test_source(text: str) -> str:
    if text in ("split", "training") or re.fullmatch(r"[A-Za-z0-9_-]{1,64}", text):
        return text  # whether such a test corpus exists is checked where it is loaded
    raise ValueError("not a split, the training documents or a corpus id")


def _share(text: str) -> ExactNumber:
    """The held-out share, as the exact number typed: a fraction strictly between 0 and 1, at most 8 characters."""
    if len(text) <= 8:
        share = parse_exact_decimal(text)
        if 0 < share < 1:
            return ExactNumber(share)
    raise ValueError("not a fraction between 0 and 1")


def _smoothing(text: str) -> str:
    number = parse_number(text)
    if number is None or not 0 <= number <= MAX_VAR_SMOOTHING:
        raise ValueError("not a number from 0 to 1,000,000")
    return text


def _typed_values(texts: list[str]) -> tuple[str, ...]:
    if len(texts) > MAX_VALUES or any(len(text) > 100 for text in texts):
        raise ValueError("too many or too long values")
    return tuple(text.strip() for text in texts)


def class_of_the_corpus(text: str, classes: tuple[str, ...]) -> str:
    if text not in classes:
        shown = text if len(text) <= 40 else text[:40] + "…"
        raise ValueError(f"There is no class {shown!r} in this corpus.")
    return text


# Imported when a page needs them: they bring scipy.optimize and scipy.special, which the command line never does.
def inverse_penalty(text: str) -> float:
    """C of the logistic regression on the comparison page."""
    from webnb.engine.evaluation.comparison import parse_C

    return parse_C(text)


def measure(text: str) -> str:
    """How the telling-words page ranks the words that tell two classes apart."""
    from webnb.engine.records.insights import DISCRIMINATIVE_MEASURES

    return one_of(DISCRIMINATIVE_MEASURES)(text)


def word_filter(text: str) -> str:
    return text.lower()[:100]


def page_within(text: str, pages: int) -> int:
    """Kept between 1 and ``pages``: page 0 is the first, a page past the end the last."""
    return min(max(parse_whole(text, low=0, high=10**40, what="The page"), 1), max(pages, 1))


def _split_parameters(repeated: str) -> tuple[Parameter, Parameter]:
    """The held-out split of the evaluation pages, texts and tables alike."""
    return (
        Parameter("test_size", _share, "The held-out share is a fraction between 0 and 1, such as 0.25.",
                  repeated=repeated),
        Parameter("seed", _whole_text(0, MAX_SEED), f"The seed is a whole number from 0 to {MAX_SEED:,}.",
                  repeated=repeated),
    )


def _projector_parameters(kind) -> tuple[Parameter, Parameter]:
    """The theme and the zoom of the projector, texts and tables alike."""
    return (
        kind("theme", one_of(tuple(pages.THEMES)), "The theme is light or dark (high contrast), or normal.",
             spaces="keep", unset=("", "normal")),
        kind("zoom", one_of(tuple(pages.ZOOMS)), "The zoom is 125 or 150 (per cent), or 100.", spaces="keep",
             unset=("", "100")),
    )


# --- the text pages ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LessonState:
    model: str = "bernoulli"
    alpha: ExactNumber = ExactNumber(1)
    binary: bool = False
    prior: str = "learned"
    floor: bool = False  # the ε-floor of the lecture notebook instead of exact zeros
    text: str = ""
    step: str = STEPS[0]
    notation: str = NOTATIONS[0]
    presenter: bool = False
    slide: str = ""  # in presenter mode, the slide of a page that is not Bayes' rule ("": its first)
    theme: str = ""  # pages.THEMES: "" normal, "light" or "dark" high contrast
    zoom: str = ""  # pages.ZOOMS: "" is 100 %
    repeats: str = ""  # how often the underflow step repeats the review; "" lets the engine choose
    # text analysis and vocabulary
    lowercase: bool = True
    tokens: str = "default"
    accents: str = ""
    stop_words: str = ""
    stemmer: str = ""
    normalize: tuple[str, ...] = ()
    ngrams: str = "1-1"
    min_df: str = NO_LIMIT["min_df"]
    max_df: str = NO_LIMIT["max_df"]
    max_features: str = NO_LIMIT["max_features"]  # "all", or a whole number of words
    # how the model is scored: a held-out split of the corpus, its own training documents, or another corpus
    test: str = "split"  # "split", "training", or the id of a test corpus
    test_size: ExactNumber = ExactNumber("0.25")
    seed: str = "0"
    train: str = "all"  # "split": the lesson pages use the model trained on the split's training part only
    errors: dict = field(default_factory=dict, compare=False)
    typed: dict = field(default_factory=dict, compare=False)  # what was typed for a number, to echo in its field

    # -- what the engine needs ---------------------------------------------------------------------

    def analysis_options(self) -> AnalysisOptions:
        return AnalysisOptions(
            lowercase=self.lowercase,
            token_pattern=self.tokens,
            strip_accents=self.accents or None,
            stop_words=self.stop_words or None,
            stemmer=self.stemmer or None,
            normalize=self.normalize,
            ngram_range=NGRAMS[self.ngrams],
        )

    def vocabulary_options(self) -> VocabularyOptions:
        return VocabularyOptions(
            min_df=document_bound(self.min_df, "min_df"),
            max_df=document_bound(self.max_df, "max_df"),
            max_features=None if self.max_features == NO_LIMIT["max_features"] else int(self.max_features),
            binary=self.binary,
        )

    def model_options(self) -> ModelOptions:
        """The model this state asks for, as one value that the views pass on whole."""
        return ModelOptions(self.model, self.alpha, self.binary, self.prior == "learned", 1e-14 if self.floor else None)

    @property
    def split(self) -> tuple[float, int]:
        """(test_size, seed) of the held-out split."""
        return float(self.test_size), int(self.seed)

    @property
    def step_index(self) -> int:
        return STEPS.index(self.step)

    def field_text(self, name: str) -> str:
        """What a form's field for ``name`` shows: the text typed for it (".50" stays ".50"), as long as it is
        still the value in use, else the value as links write it."""
        return field_text(self, name)

    # -- the URL -------------------------------------------------------------------------------------

    def query(self, defaults: "LessonState | None" = None, **changes) -> str:
        """The query string for this state with ``changes``, leaving out values equal to ``defaults`` (the
        corpus's presets) except the model and α, which every link carries: they say which lesson it is at a
        glance, and keep meaning the same if the presets change."""
        return LESSON_PARAMETERS.query(self, defaults, changes)

    def hidden_fields(self) -> tuple[tuple[str, str], ...]:
        """(name, text) of every setting, for the hidden fields that carry the state through a form."""
        return LESSON_PARAMETERS.hidden_fields(self)


def _setting(name: str, parse, message: str = "{error}", **how) -> Parameter:
    """A parameter of the lesson state. Its forms send a checkbox as a hidden "0" followed by "1" when ticked, so
    the last text wins."""
    how.setdefault("repeated", "last")
    return Parameter(name, parse, message, **how)


# In the order the messages are listed.
LESSON_PARAMETERS = ParameterTable(LessonState, (
    _setting("model", one_of(MODELS), "The model is Bernoulli, multinomial or Complement.", spaces="keep",
             in_every_link=True),
    _setting("prior", one_of(PRIORS), "The prior is learned from the class frequencies, or uniform.", spaces="keep"),
    _setting("step", one_of(STEPS), "There is no such step.", spaces="keep"),
    _setting("slide", one_of(pages.SLIDE_KEYS["text"]), "There is no such slide.", spaces="keep"),
    _setting("notation", one_of(NOTATIONS), "Unknown notation.", spaces="keep"),
    *_projector_parameters(_setting),
    _setting("tokens", one_of(TOKEN_PATTERNS), "Tokens are the default words, all words, or white-space separated.",
             spaces="keep"),
    _setting("ngrams", one_of(NGRAMS), "Words can be single words (1-1), words and pairs (1-2) or pairs (2-2).",
             spaces="keep"),
    _setting("accents", one_of(STRIP_ACCENTS), "Unknown accents option.", spaces="keep", unset=("", "none")),
    _setting("stemmer", one_of(STEMMERS), "Unknown stemmer option.", spaces="keep", unset=("", "none")),
    _setting("stop_words", one_of(("english",)), "Unknown stop words option.", spaces="keep", unset=("", "none")),
    *(
        _setting(name, _flag, "Expected 1 or 0.", spaces="keep")
        for name in ("binary", "floor", "presenter", "lowercase")
    ),
    _setting("alpha", _alpha, spaces="blank", in_every_link=True),
    # An empty review is a review: "text=" overrides a preset's review, so links write it when it differs.
    _setting("text", _review, spaces="keep", unset=()),
    _setting("repeats", _whole_text(1, MAX_REPEATS), f"Repeat the review between 1 and {MAX_REPEATS:,} times."),
    _setting("normalize", _placeholders, f"Placeholders are chosen from {', '.join(PLACEHOLDERS)}.", repeated="all",
             unset=()),
    # A cleared field is sent as "": it means no limit (``NO_LIMIT_TEXTS``), not the corpus's preset.
    *(
        _setting(name, _document_bound_text(name),
                 name + ": a whole number of documents or a fraction between 0 and 1, or all for no limit ({error}).",
                 unset=())
        for name in ("min_df", "max_df")
    ),
    _setting("max_features", _word_limit,
             f"max_features is a whole number of words, from 1 to {MAX_FEATURES:,}, or all for no limit.", unset=()),
    _setting("test", _test_source,
             "The test documents are a split of the corpus, its training documents, or another corpus."),
    _setting("train", one_of(("all", "split")),
             "The model is trained on all documents or on the training part of the split.", spaces="keep"),
    *_split_parameters("last"),
))


def parse_state(args: Mapping[str, str], defaults: LessonState | None = None) -> LessonState:
    """Read the query string; anything invalid falls back to the default and is named in ``errors``."""
    return LESSON_PARAMETERS.parse(args, defaults)


# --- tables of numbers (Gaussian Naive Bayes) ----------------------------------------------------------------

GAUSSIAN_STEPS = tuple(key for key, _ in pages.GAUSSIAN_INFERENCE_STEPS)
MAX_VAR_SMOOTHING = 1e6
MAX_VALUES = 200  # typed feature values; no table here has more features


@dataclass(frozen=True)
class TableState:
    """What the Gaussian pages show, from the URL. ``values`` are the typed feature values (as typed; empty: the
    example's own row), checked against the table's features by the view."""

    var_smoothing: str = "1e-9"
    prior: str = "learned"
    values: tuple[str, ...] = ()
    step: str = GAUSSIAN_STEPS[0]
    presenter: bool = False
    slide: str = ""  # in presenter mode, the slide of a page that is not Bayes' rule ("": its first)
    theme: str = ""  # see LessonState
    zoom: str = ""
    test: str = "split"  # "split" or "training"
    test_size: ExactNumber = ExactNumber("0.25")
    seed: str = "0"
    train: str = "all"  # "split": the step-through uses the model trained on the split's training part
    errors: dict = field(default_factory=dict, compare=False)
    typed: dict = field(default_factory=dict, compare=False)  # what was typed for a number, to echo in its field

    @property
    def smoothing(self) -> float:
        return float(self.var_smoothing)

    def field_text(self, name: str) -> str:
        """See ``LessonState.field_text``."""
        return field_text(self, name)

    @property
    def split(self) -> tuple[float, int]:
        return float(self.test_size), int(self.seed)

    @property
    def step_index(self) -> int:
        return GAUSSIAN_STEPS.index(self.step)

    def query(self, defaults: "TableState | None" = None, **changes) -> str:
        """The query string, leaving out defaults except ``var_smoothing``, which every link carries."""
        return TABLE_PARAMETERS.query(self, defaults, changes)

    def hidden_fields(self) -> tuple[tuple[str, str], ...]:
        """(name, text) of every setting and typed value, for the hidden fields that carry the state through a
        form."""
        return TABLE_PARAMETERS.hidden_fields(self)


# In the order the messages are listed.
TABLE_PARAMETERS = ParameterTable(TableState, (
    Parameter("var_smoothing", _smoothing, "var_smoothing is a number from 0 to 1,000,000, such as 1e-9 or 0.",
              in_every_link=True),
    Parameter("prior", one_of(PRIORS), "The prior is learned from the rows or uniform."),
    Parameter("step", one_of(GAUSSIAN_STEPS), "Unknown step."),
    Parameter("slide", one_of(pages.SLIDE_KEYS["table"]), "There is no such slide."),
    Parameter("test", one_of(("split", "training")), "Test on a split of the rows or on the training rows."),
    Parameter("train", one_of(("all", "split")), "Train on all rows or on the split's training part."),
    Parameter("presenter", _flag, "Expected 1 or 0."),
    *_projector_parameters(Parameter),
    Parameter("value", _typed_values, "Too many or too long values.", field="values", repeated="all", several=True),
    *_split_parameters("first"),
))


def parse_table_state(args: Mapping, defaults: TableState | None = None) -> TableState:
    """Read the query string of a Gaussian page; anything invalid falls back to the default, named in ``errors``."""
    return TABLE_PARAMETERS.parse(args, defaults)


# --- what a page reads for itself -----------------------------------------------------------------------------


def page_parameters(*parameters: Parameter) -> dict[str, Parameter]:
    """A page's own parameters, declared beside its view, keyed by ``field`` (the page's name for the parameter:
    "page" of a text page and "table_page" of a Gaussian page are both ?page=, read differently). The view reads
    one with ``PARAMETERS[field].read(request.args, ...)``."""
    keyed = {parameter.field: parameter for parameter in parameters}
    if len(keyed) != len(parameters):
        raise TypeError("two page parameters have the same field")
    return keyed


# What many pages read: the JSON twin, the filter of a word table, and the pages of long lists.
PAGE_PARAMETERS = page_parameters(
    # every page: its JSON twin
    Parameter("format", one_of(("json",)), "", spaces="keep"),
    # the word tables of the matrix and parameters pages; pages of documents, words, matrix rows and columns, mistakes
    Parameter("q", word_filter, "", default=""),
    *(
        Parameter(name, page_within, "", default=1, needs=("pages",))
        for name in ("page", "rows", "cols", "wrong_page")
    ),
)


def read_parameter(args: Mapping, key: str, default: Any = MISSING, **context) -> Reading:
    """One parameter of ``PAGE_PARAMETERS`` (by its ``field``) from ``args`` (``request.args``, or ``request.form``):
    its value, or ``default`` (the table's unless given) when it is absent or cannot be used, with the message for
    the latter. ``context`` gives what the parameter ``needs`` and what its message names, e.g.

        page = read_parameter(request.args, "page", pages=pages).value

    A page's own parameters are read the same way from its view's ``PARAMETERS``:
    ``PARAMETERS["draw"].read(request.args)``.
    """
    return PAGE_PARAMETERS[key].read(args, default, **context)


# --- where a corpus's pages start ----------------------------------------------------------------------------------

# Below this many documents a held-out split leaves almost nothing to learn from or to test on, so the
# evaluation starts on the training documents (as the lecture's small examples do).
SMALLEST_SPLIT_CORPUS = 10


def preset_state(presets, n_documents: int) -> LessonState:
    """The state a corpus's pages open with: multinomial, α = 1, tested on a split (on the training documents below
    ``SMALLEST_SPLIT_CORPUS``), changed by ``presets`` ((address parameter, text) pairs) as the pages' own parser
    reads them; its messages for what it cannot use are in ``errors``."""
    base = LessonState(model="multinomial", alpha=ExactNumber(1),
                       test="training" if n_documents < SMALLEST_SPLIT_CORPUS else "split")
    return parse_state(dict(presets), base)


def check_presets(presets, n_documents: int) -> LessonState:
    """``preset_state``, or a CorpusError with the pages' message for each preset they cannot use."""
    state = preset_state(presets, n_documents)
    if state.errors:
        raise CorpusError("; ".join(f"{name}: {message}" for name, message in state.errors.items()))
    return state


def counting_options(presets, n_documents: int) -> tuple[AnalysisOptions, VocabularyOptions]:
    """The options a class corpus is counted under when it is published: its checked presets'."""
    state = check_presets(presets, n_documents)
    return state.analysis_options(), state.vocabulary_options()


@functools.lru_cache(maxsize=1024)
def _entry_defaults(presets, n_documents: int, is_table: bool) -> LessonState:
    # Presets stored by an earlier release that this one's parser cannot use fall back silently.
    return LessonState() if is_table else preset_state(presets, n_documents)


def entry_defaults(entry) -> LessonState:
    """The settings a first visit to ``entry``'s pages starts from (a ``catalog.CorpusEntry``): its presets read by
    the pages' parser; a table of numbers has none."""
    return _entry_defaults(entry.presets, entry.n_documents, entry.is_table)
