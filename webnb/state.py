"""The lesson's state, read from and written to the URL's query string.

Everything a page shows follows from the corpus id in the path and these parameters, so a link
reproduces exactly what the projector shows. Parsing never fails: a value that makes no sense is
replaced by the default and reported in ``errors``, so the page can say what was wrong.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, fields, replace
from typing import Mapping
from urllib.parse import quote_plus, urlencode

from webnb.engine import AnalysisOptions, VocabularyOptions, parse_alpha
from webnb.engine.shared.numbers import is_plain_decimal, parse_whole
from webnb.engine.text.analysis import PLACEHOLDERS, STEMMERS, STRIP_ACCENTS, TOKEN_PATTERNS

MODELS = ("bernoulli", "multinomial")
PRIORS = ("learned", "uniform")
NGRAMS = {"1-1": (1, 1), "1-2": (1, 2), "2-2": (2, 2)}
NOTATIONS = ("phi-psi", "pi-theta", "p-hat", "beta-alpha")
STEPS = (
    "tokens",
    "vector",
    "factors",
    "product",
    "decision",
    "zeros",
    "smoothing",
    "underflow",
    "logspace",
    "contributions",
)
MAX_TEXT_LENGTH = 5000
MAX_SEED = 2**32 - 1
MAX_REPEATS = 5000
MAX_FEATURES = 10_000_000  # more words than any vocabulary here may hold


@dataclass(frozen=True)
class LessonState:
    model: str = "bernoulli"
    alpha: str = "1"
    binary: bool = False
    prior: str = "learned"
    floor: bool = False  # the ε-floor of the lecture notebook instead of exact zeros
    text: str = ""
    step: str = STEPS[0]
    notation: str = NOTATIONS[0]
    presenter: bool = False
    repeats: str = ""  # how often the underflow step repeats the review; "" lets the engine choose
    # text analysis and vocabulary
    lowercase: bool = True
    tokens: str = "default"
    accents: str = ""
    stop_words: str = ""
    stemmer: str = ""
    normalize: tuple[str, ...] = ()
    ngrams: str = "1-1"
    min_df: str = "1"
    max_df: str = "1.0"
    max_features: str = ""
    # how the model is scored: a held-out split of the corpus, its own training documents, or another corpus
    test: str = "split"  # "split", "training", or the id of a test corpus
    test_size: str = "0.25"
    seed: str = "0"
    train: str = "all"  # "split": the lesson pages use the model trained on the split's training part only
    errors: dict = field(default_factory=dict, compare=False)

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
            min_df=document_bound(self.min_df),
            max_df=document_bound(self.max_df),
            max_features=int(self.max_features) if self.max_features else None,
            binary=self.binary,
        )

    def model_options(self) -> dict:
        return {
            "kind": self.model,
            "alpha": self.alpha,
            "binary": self.binary,
            "fit_prior": self.prior == "learned",
            "epsilon": 1e-14 if self.floor else None,
        }

    @property
    def split(self) -> tuple[float, int]:
        """(test_size, seed) of the held-out split."""
        return float(self.test_size), int(self.seed)

    @property
    def step_index(self) -> int:
        return STEPS.index(self.step)

    # -- the URL -------------------------------------------------------------------------------------

    def query(self, defaults: "LessonState | None" = None, **changes) -> str:
        """The query string for this state with ``changes``, leaving out values equal to ``defaults``
        except the model, α and review, which every link carries so it means the same thing tomorrow."""
        defaults = defaults or _PLAIN_STATE
        parts = self._query_parts(defaults)
        if changes:
            parts = dict(parts)
            for name, value in changes.items():
                if name not in parts:
                    raise TypeError(f"LessonState has no field {name!r}")
                parts[name] = _query_part(name, value, defaults)
        return "&".join(part for part in parts.values() if part)

    def _query_parts(self, defaults: "LessonState") -> dict[str, str]:
        """Each field's "name=value" ("" when left out), in field order, made once per state and defaults: a page
        links its state a few dozen times (every step, setting and download), each with one change or none."""
        made = self.__dict__.setdefault("_query_parts_made", {})
        parts = made.get(defaults)
        if parts is None:
            parts = made[defaults] = {
                f.name: _query_part(f.name, getattr(self, f.name), defaults) for f in fields(self) if f.name != "errors"
            }
        return parts


_ALWAYS_IN_LINKS = ("model", "alpha", "text")


def _query_part(name: str, value, defaults: LessonState) -> str:
    if value == getattr(defaults, name) and name not in _ALWAYS_IN_LINKS:
        return ""
    return f"{quote_plus(name)}={quote_plus(_encode(value))}"


_PLAIN_STATE = LessonState()


def _encode(value) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, tuple):
        return ",".join(value)
    return str(value)


def is_whole(text: str) -> bool:
    """Only the digits 0-9: str.isdigit() also accepts "²" and other digits that int() refuses."""
    return text.isascii() and text.isdigit()


MAX_DOCUMENT_COUNT = 10**9  # more documents than any corpus here holds, so min_df/max_df never need more


def document_bound(text: str):
    """min_df/max_df: a whole number of documents, or a fraction of them (at most 40 characters, never NaN)."""
    if is_whole(text):
        return parse_whole(text, low=0, high=MAX_DOCUMENT_COUNT, what="A number of documents")
    if not is_plain_decimal(text):
        raise ValueError("write it as 2 (documents) or 0.5 (a fraction of them)")
    return float(text)


def _flag(raw: str) -> bool | None:
    return {
        "1": True, "true": True, "on": True, "yes": True, "0": False, "false": False, "off": False, "no": False
    }.get(raw.strip().lower())


def _single_values(args) -> dict[str, str]:
    """One value per name. A form sends a checkbox as a hidden "0" followed by "1" when ticked, so the
    last value wins; the placeholder checkboxes send one value each, which are joined by commas."""
    if not hasattr(args, "getlist"):
        return dict(args)
    values = {name: args.getlist(name)[-1] for name in args.keys()}
    if "normalize" in values:
        values["normalize"] = ",".join(v for v in args.getlist("normalize") if v)
    return values


# Over the complexity limit until it is replaced by the URL-parameter table, which is on its way.
def parse_state(args: Mapping[str, str], defaults: LessonState | None = None) -> LessonState:  # noqa: C901
    """Read the query string; anything invalid falls back to the default and is named in ``errors``."""
    defaults = defaults or LessonState()
    args = _single_values(args)
    values: dict = {}
    errors: dict[str, str] = {}

    def choice(name: str, allowed, message: str):
        raw = args.get(name)
        if raw is None or raw == "":
            return
        if raw in allowed:
            values[name] = raw
        else:
            errors[name] = message

    choice("model", MODELS, "The model is Bernoulli or multinomial.")
    choice("prior", PRIORS, "The prior is learned from the class frequencies, or uniform.")
    choice("step", STEPS, "There is no such step.")
    choice("notation", NOTATIONS, "Unknown notation.")
    choice("tokens", TOKEN_PATTERNS, "Tokens are the default words, all words, or white-space separated.")
    choice("ngrams", NGRAMS, "Words can be single words (1-1), words and pairs (1-2) or pairs (2-2).")
    for name, allowed in (("accents", STRIP_ACCENTS), ("stemmer", STEMMERS), ("stop_words", ("english",))):
        raw = args.get(name)
        if raw in (None, "", "none"):
            continue
        if raw in allowed:
            values[name] = raw
        else:
            errors[name] = f"Unknown {name.replace('_', ' ')} option."

    for name in ("binary", "floor", "presenter", "lowercase"):
        raw = args.get(name)
        if raw is not None and raw != "":
            flag = _flag(raw)
            if flag is None:
                errors[name] = "Expected 1 or 0."
            else:
                values[name] = flag

    raw_alpha = args.get("alpha")
    if raw_alpha is not None and raw_alpha.strip() != "":
        try:
            alpha = parse_alpha(raw_alpha)
            if alpha > 1000:
                raise ValueError("α above 1000 drowns every count; use a value between 0 and 1000.")
            values["alpha"] = raw_alpha.strip()
        except ValueError as error:
            errors["alpha"] = str(error)

    text = args.get("text")
    if text is not None:
        if len(text) > MAX_TEXT_LENGTH:
            errors["text"] = f"The review is {len(text):,} characters long; the limit is {MAX_TEXT_LENGTH:,}."
        else:
            values["text"] = text

    raw_repeats = args.get("repeats", "").strip()
    if raw_repeats:
        try:
            values["repeats"] = str(parse_whole(raw_repeats, low=1, high=MAX_REPEATS, what="repeats"))
        except ValueError:
            errors["repeats"] = f"Repeat the review between 1 and {MAX_REPEATS:,} times."

    raw_normalize = args.get("normalize")
    if raw_normalize is not None:
        kinds = tuple(k for k in raw_normalize.split(",") if k)
        if set(kinds) <= set(PLACEHOLDERS):
            values["normalize"] = tuple(k for k in PLACEHOLDERS if k in kinds)
        else:
            errors["normalize"] = f"Placeholders are chosen from {', '.join(PLACEHOLDERS)}."

    for name in ("min_df", "max_df"):
        raw = args.get(name, "").strip()
        if raw:
            try:
                bound = document_bound(raw)
                VocabularyOptions(**{name: bound})
                values[name] = raw
            except ValueError as error:
                errors[name] = f"{name}: a whole number of documents or a fraction between 0 and 1 ({error})."
    raw_max = args.get("max_features", "").strip()
    if raw_max:
        try:
            values["max_features"] = str(parse_whole(raw_max, low=1, high=MAX_FEATURES, what="max_features"))
        except ValueError:
            errors["max_features"] = f"max_features is a whole number of words, from 1 to {MAX_FEATURES:,}."

    raw_test = args.get("test", "").strip()
    if raw_test:
        if raw_test in ("split", "training") or re.fullmatch(r"[A-Za-z0-9_-]{1,64}", raw_test):
            values["test"] = raw_test  # whether such a test corpus exists is checked where it is loaded
        else:
            errors["test"] = "The test documents are a split of the corpus, its training documents, or another corpus."
    choice("train", ("all", "split"), "The model is trained on all documents or on the training part of the split.")
    _parse_split(args, values, errors)
    return replace(defaults, **values, errors=errors)


def _parse_split(args, values: dict, errors: dict) -> None:
    """``test_size`` (a fraction between 0 and 1) and ``seed`` (a whole number) into ``values``, or ``errors``."""
    raw_size = args.get("test_size", "").strip()
    if raw_size:
        try:
            size = float(raw_size)
        except ValueError:
            size = None
        if size is not None and 0.0 < size < 1.0 and len(raw_size) <= 8:
            values["test_size"] = raw_size
        else:
            errors["test_size"] = "The held-out share is a fraction between 0 and 1, such as 0.25."
    raw_seed = args.get("seed", "").strip()
    if raw_seed:
        try:
            values["seed"] = str(parse_whole(raw_seed, low=0, high=MAX_SEED, what="The seed"))
        except ValueError:
            errors["seed"] = f"The seed is a whole number from 0 to {MAX_SEED:,}."


# --- tables of numbers (Gaussian Naive Bayes) ----------------------------------------------------------------

GAUSSIAN_STEPS = ("densities", "product", "normalise", "underflow", "logspace", "zero-width")
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
    test: str = "split"  # "split" or "training"
    test_size: str = "0.25"
    seed: str = "0"
    train: str = "all"  # "split": the step-through uses the model trained on the split's training part
    errors: dict = field(default_factory=dict, compare=False)

    @property
    def smoothing(self) -> float:
        return float(self.var_smoothing)

    @property
    def split(self) -> tuple[float, int]:
        return float(self.test_size), int(self.seed)

    @property
    def step_index(self) -> int:
        return GAUSSIAN_STEPS.index(self.step)

    def query(self, defaults: "TableState | None" = None, **changes) -> str:
        """The query string, leaving out defaults except ``var_smoothing``, which every link carries."""
        state = replace(self, **changes) if changes else self
        defaults = defaults or TableState()
        pairs = []
        for f in fields(state):
            value = getattr(state, f.name)
            if f.name == "errors" or (value == getattr(defaults, f.name) and f.name != "var_smoothing"):
                continue
            if f.name == "values":
                pairs.extend(("value", v) for v in value)
            else:
                pairs.append((f.name, _encode(value)))
        return urlencode(pairs)


def parse_table_state(args, defaults: TableState | None = None) -> TableState:
    """Read the query string of a Gaussian page; anything invalid falls back to the default, named in ``errors``."""
    from webnb.engine.gaussian.table import parse_number

    defaults = defaults or TableState()
    values: dict = {}
    errors: dict[str, str] = {}
    raw = args.get("var_smoothing", "").strip()
    if raw:
        number = parse_number(raw)
        if number is not None and 0 <= number <= MAX_VAR_SMOOTHING:
            values["var_smoothing"] = raw
        else:
            errors["var_smoothing"] = "var_smoothing is a number from 0 to 1,000,000, such as 1e-9 or 0."
    for name, allowed, message in (
        ("prior", PRIORS, "The prior is learned from the rows or uniform."),
        ("step", GAUSSIAN_STEPS, "Unknown step."),
        ("test", ("split", "training"), "Test on a split of the rows or on the training rows."),
        ("train", ("all", "split"), "Train on all rows or on the split's training part."),
    ):
        value = args.get(name, "").strip()
        if value:
            if value in allowed:
                values[name] = value
            else:
                errors[name] = message
    presenter = args.get("presenter", "").strip()
    if presenter:
        flag = _flag(presenter)
        if flag is None:
            errors["presenter"] = "Expected 1 or 0."
        else:
            values["presenter"] = flag
    typed = args.getlist("value") if hasattr(args, "getlist") else ([args["value"]] if "value" in args else [])
    if typed:
        if len(typed) > MAX_VALUES or any(len(v) > 100 for v in typed):
            errors["value"] = "Too many or too long values."
        else:
            values["values"] = tuple(v.strip() for v in typed)
    _parse_split(args, values, errors)
    return replace(defaults, **values, errors=errors)
