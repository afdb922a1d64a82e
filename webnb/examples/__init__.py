"""The small corpora that ship with webnb, each the worked example of a lecture.

They are read with the same reader as an upload, so they obey the same rules.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from webnb.engine.gaussian.table import NumericTable, read_numeric_csv
from webnb.engine.shared.corpus import Corpus


@dataclass(frozen=True)
class Example:
    id: str
    title: str
    description: str
    suggested_model: str  # "bernoulli" or "multinomial"
    suggested_alpha: str
    sample_review: str


EXAMPLES = (
    Example(
        id="match-reviews",
        title="Match reviews",
        description=(
            "Five one-line football match reviews, three positive and two negative. With no smoothing, "
            "a review containing “not” can never be positive, and one without “was” can never be negative."
        ),
        suggested_model="bernoulli",
        suggested_alpha="0",
        sample_review="match was sharp",
    ),
    Example(
        id="china-japan",
        title="China or not China",
        description=(
            "Four tiny documents made of city and country words. The classic worked example for "
            "multinomial Naive Bayes with add-one smoothing."
        ),
        suggested_model="multinomial",
        suggested_alpha="1",
        sample_review="Chinese Chinese Chinese Tokyo Japan",
    ),
    Example(
        id="folgers-students",
        title="Folgers and students",
        description=(
            "Two sentences, one a coffee jingle and one a teacher's praise, to watch text become a vocabulary "
            "and a bag of words: counts for the multinomial model, presence for Bernoulli."
        ),
        suggested_model="multinomial",
        suggested_alpha="1",
        sample_review="Fill your cup, great students",
    ),
    Example(
        id="film-sentiment",
        title="Predictable with no fun",
        description=(
            "Five one-line film reviews, three negative and two positive: the sentiment example of Jurafsky and "
            "Martin's Speech and Language Processing (3rd edition, chapter 4). A review with a word the training never "
            "saw drops it; without smoothing, each class meets a word it never saw and neither survives."
        ),
        suggested_model="multinomial",
        suggested_alpha="1",
        sample_review="predictable with no fun",
    ),
    Example(
        id="spam-ham",
        title="Spam or ham",
        description=(
            "Sixteen short text messages, seven of them spam. Prize calls, phone numbers, money and links are "
            "where the placeholder options of the text analysis earn their keep."
        ),
        suggested_model="bernoulli",
        suggested_alpha="1",
        sample_review="Claim your free prize now, call 0800 555 0199",
    ),
)


def example_ids() -> tuple[str, ...]:
    return tuple(example.id for example in EXAMPLES)


def get_example(example_id: str) -> Example:
    for example in EXAMPLES:
        if example.id == example_id:
            return example
    raise KeyError(example_id)


@lru_cache(maxsize=None)
def load_example_corpus(example_id: str) -> Corpus:
    """The documents of a built-in example (raises KeyError for an unknown id)."""
    example = get_example(example_id)
    source = resources.files(__name__).joinpath(f"{example.id}.jsonl")
    records = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines() if line.strip()]
    return Corpus(
        texts=tuple(r["text"] for r in records),
        labels=tuple(r["label"] for r in records),
        ids=tuple(r["id"] for r in records),
        name=example.title,
    )


@dataclass(frozen=True)
class TableExample:
    """A built-in table of numbers, for Gaussian Naive Bayes; ``sample`` is the row the step-through starts from
    and ``far`` one whose densities underflow."""

    id: str
    title: str
    description: str
    sample: tuple[float, ...]
    far: tuple[float, ...]


TABLE_EXAMPLES = (
    TableExample(
        id="iris",
        title="Iris flowers",
        description=(
            "150 flowers of three iris species, 50 each, measured in centimetres: sepal length and width, petal length "
            "and width. The classic public dataset for classifying numbers."
        ),
        sample=(5.1, 3.5, 1.4, 0.2),
        far=(5.9, 3.0, 40.0, 1.8),
    ),
    TableExample(
        id="match-ratings",
        title="Opponent's rating",
        description=(
            "One number per match: how highly the opposing team was rated, and whether we won or lost. Eighteen "
            "matches, written for webnb: a bell curve for the wins, another for the losses."
        ),
        sample=(6.5,),
        far=(60.0,),
    ),
    TableExample(
        id="red-cards",
        title="Rating and red cards",
        description=(
            "The opponent's rating and red cards in fourteen matches, written for webnb. The opponent never had a "
            "red card in a match we lost, so that feature has variance 0 in the lost class."
        ),
        sample=(7.5, 1.0),
        far=(60.0, 0.0),
    ),
)


def get_table_example(example_id: str) -> TableExample:
    for example in TABLE_EXAMPLES:
        if example.id == example_id:
            return example
    raise KeyError(example_id)


@lru_cache(maxsize=None)
def load_example_table(example_id: str) -> NumericTable:
    """The rows of a built-in table (raises KeyError for an unknown id), read as an upload would be."""
    example = get_table_example(example_id)
    text = resources.files(__name__).joinpath(f"{example.id}.csv").read_text(encoding="utf-8")
    return read_numeric_csv(text, name=example.title)
