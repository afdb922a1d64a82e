"""The parameters table as the engine builds it: the lecture's seed table (match reviews, Bernoulli, α = 0) and the
China/Japan example (multinomial, α = 1), their orders, filters and pages, and their plain data."""
from __future__ import annotations

import numpy as np
import pytest

from webnb.engine import SEED_EPSILON, TrainingSet
from webnb.engine.records.parameter_table import WholeTable, parameter_pages, parameter_table, words_per_page
from webnb.examples import load_example_corpus

# The vocabulary of the match reviews, alphabetical: and, brilliant, composed, keeper, match, not, sharp, was.
MATCH_WORDS = ("and", "brilliant", "composed", "keeper", "match", "not", "sharp", "was")


def seed_table(**options):
    model = TrainingSet.build(load_example_corpus("match-reviews")).model("bernoulli", 0, **options)
    return WholeTable(model)


def test_the_seed_table_and_its_plain_data():
    whole = seed_table()
    table = parameter_table(whole, np.arange(len(MATCH_WORDS)))
    assert tuple(row.word for row in table.rows) == MATCH_WORDS
    data = table.to_dict()
    assert data["model"] == {"model": "bernoulli", "alpha": 0, "epsilon": None, "binary": True, "prior": "learned"}
    assert data["classes"] == ["negative", "positive"]
    assert data["priors"] == [{"class": "negative", "documents": 2, "exact": "2/5", "value": 0.4},
                              {"class": "positive", "documents": 3, "exact": "3/5", "value": 0.6}]
    assert (data["vocabulary_size"], data["parameter_count"]) == (8, 18)  # K(d + 1)
    assert (data["page"], data["pages"], data["sort"], data["query"]) == (1, 1, "word", "")
    ratios = {word["word"]: [cell["ratio"] for cell in word["per_class"]] for word in data["words"]}
    assert ratios == {"and": ["0/2", "1/3"], "brilliant": ["0/2", "1/3"], "composed": ["1/2", "2/3"],
                      "keeper": ["0/2", "1/3"], "match": ["2/2", "2/3"], "not": ["2/2", "0/3"],
                      "sharp": ["1/2", "1/3"], "was": ["2/2", "2/3"]}
    not_row = next(word for word in data["words"] if word["word"] == "not")
    assert not_row["per_class"] == [{"ratio": "2/2", "value": 1.0, "zero": False, "one": True},
                                    {"ratio": "0/3", "value": 0.0, "zero": True, "one": False}]
    # 0/2 four times and 2/2 three times in the negative class, 0/3 once in the positive one.
    assert data["breaking_cells"] == table.breaking_cells == 7
    cells = {(row.word, k): cell for row in table.rows for k, cell in enumerate(row.cells)}
    assert cells["not", 1] == ("0/3", "0", 0.0) and cells["was", 0] == ("2/2", "1", 1.0)
    assert cells["composed", 1] == ("2/3", "", 2 / 3)


@pytest.mark.parametrize("sort, expected", [
    ("zeros", ("and", "brilliant", "keeper", "match", "not", "was", "composed", "sharp")),
    ("class-1", ("composed", "match", "was", "and", "brilliant", "keeper", "sharp", "not")),  # positive, largest first
    ("class-01", ("composed", "match", "was", "and", "brilliant", "keeper", "sharp", "not")),
    ("class-0", ("match", "not", "was", "composed", "sharp", "and", "brilliant", "keeper")),
    ("class-2", MATCH_WORDS),  # no such class: alphabetical
    ("class- 1", MATCH_WORDS),
    ("class-²", MATCH_WORDS),
    ("class-" + "1" * 5000, MATCH_WORDS),
    ("breaking", MATCH_WORDS),
])
def test_orders_of_the_rows(sort, expected):
    table = parameter_table(seed_table(), np.arange(len(MATCH_WORDS)), sort=sort)
    assert tuple(row.word for row in table.rows) == expected
    assert table.to_dict()["sort"] == sort  # said back as it was asked for


def test_a_filter_keeps_the_order_among_the_matching_words():
    whole = seed_table()
    matching = np.array([j for j, word in enumerate(MATCH_WORDS) if "a" in word])
    table = parameter_table(whole, matching, query="a", sort="zeros")
    assert [row.word for row in table.rows] == ["and", "brilliant", "match", "was", "sharp"]
    assert (table.matching, table.query, table.to_dict()["query"]) == (5, "a", "a")
    assert "zeros" in whole.orders  # kept for the next page of the same model
    nothing = parameter_table(whole, np.array([], dtype=np.int64), query="zz")
    assert (nothing.rows, nothing.matching, nothing.page, nothing.pages) == ((), 0, 1, 1)


def test_pages_hold_fewer_words_with_more_classes():
    assert [words_per_page(k) for k in (2, 6, 7, 20, 40)] == [25, 25, 22, 8, 8]
    assert [parameter_pages(20, n) for n in (0, 8, 9, 17)] == [1, 1, 2, 3]
    training = TrainingSet.build(load_example_corpus("spam-ham"))
    whole = WholeTable(training.model("multinomial", 1))
    n_words = len(training.vocabulary)
    last = parameter_pages(2, n_words)
    assert last >= 2
    pages = [parameter_table(whole, np.arange(n_words), page=page) for page in range(1, last + 1)]
    assert [row.index for page in pages for row in page.rows] == list(range(n_words))
    assert parameter_table(whole, np.arange(n_words), page=last + 5).page == last  # kept to the last page
    assert parameter_table(whole, np.arange(n_words), page=0).page == 1


def test_multinomial_china_japan():
    model = TrainingSet.build(load_example_corpus("china-japan")).model("multinomial", 1)
    data = parameter_table(WholeTable(model), np.arange(len(model.vocabulary))).to_dict()
    assert [prior["exact"] for prior in data["priors"]] == ["3/4", "1/4"]
    chinese = next(word for word in data["words"] if word["word"] == "chinese")
    assert [cell["ratio"] for cell in chinese["per_class"]] == ["6/14", "2/9"]
    assert [cell["value"] for cell in chinese["per_class"]] == [6 / 14, 2 / 9]
    assert (data["parameter_count"], data["breaking_cells"]) == (14, 0)


def test_under_the_floor_cells_have_no_ratio_and_nothing_breaks():
    table = parameter_table(seed_table(epsilon=SEED_EPSILON), np.arange(len(MATCH_WORDS)))
    not_row = next(row for row in table.rows if row.word == "not")
    assert not_row.cells == ((None, "", 1 - SEED_EPSILON), (None, "", SEED_EPSILON))
    assert table.breaking_cells == 0
