"""Windows of the bag of words and pages of documents, as the engine builds them for the matrix and corpus pages."""
from __future__ import annotations

import numpy as np

from webnb.engine import AnalysisOptions, Analyzer, Corpus, TrainingSet
from webnb.engine.records.document_window import DOCUMENTS_PER_PAGE, document_pages, document_window
from webnb.engine.records.matrix_window import ROWS_PER_PAGE, WORDS_PER_PAGE, matrix_pages, matrix_window
from webnb.examples import load_example_corpus

# The match reviews' vocabulary, alphabetical, and how many of the 5 reviews contain each word.
MATCH_WORDS = ("and", "brilliant", "composed", "keeper", "match", "not", "sharp", "was")
DOCUMENT_FREQUENCY = (1, 1, 3, 1, 4, 2, 2, 4)


def test_the_whole_match_reviews_matrix_and_its_plain_data(match_reviews):
    window = matrix_window(match_reviews, np.arange(8))
    data = window.to_dict()
    assert (data["documents"], data["vocabulary_size"], data["non_zero"]) == (5, 8, sum(DOCUMENT_FREQUENCY))
    assert data["sparsity"] == 1 - 18 / 40 == window.sparsity and window.cells == 40
    assert (data["values"], data["query"], data["order"], data["matching_words"]) == ("counts", "", "alphabetical", 8)
    assert (data["rows_page"], data["rows_pages"], data["words_page"], data["words_pages"]) == (1, 1, 1, 1)
    assert data["words"] == list(MATCH_WORDS)
    # "keeper was sharp and composed"; "match was not composed"
    assert data["rows"][0] == {"index": 0, "position": 0, "id": "1", "label": "positive",
                               "values": [1, 0, 1, 1, 0, 0, 1, 1]}
    assert data["rows"][4] == {"index": 4, "position": 4, "id": "5", "label": "negative",
                               "values": [0, 0, 1, 0, 1, 1, 0, 1]}
    assert list(window.rows) == [0, 1, 2, 3, 4] and list(window.columns) == list(range(8))
    assert [row.page for row in window.documents] == [1] * 5 and window.first_word == 1


def test_counts_or_presence():
    corpus = Corpus.from_pairs([("a", "cup cup cup of tea"), ("b", "tea")])
    training = TrainingSet.build(corpus)
    counts = matrix_window(training, np.arange(len(training.vocabulary)))
    presence = matrix_window(training, np.arange(len(training.vocabulary)), presence=True)
    assert counts.words == presence.words == ("cup", "of", "tea")
    assert [row.values for row in counts.documents] == [(3, 1, 1), (0, 0, 1)]
    assert [row.values for row in presence.documents] == [(1, 1, 1), (0, 0, 1)]
    assert presence.to_dict()["values"] == "presence"


def test_the_most_frequent_words_first(match_reviews):
    window = matrix_window(match_reviews, np.arange(8), order="frequent")
    assert window.words == ("match", "was", "composed", "not", "sharp", "and", "brilliant", "keeper")
    filtered = matrix_window(match_reviews, np.array([2, 5, 7]), query="o", order="frequent")
    assert filtered.words == ("was", "composed", "not") and filtered.matching_words == 3


def test_both_axes_are_paged():
    training = TrainingSet.build(load_example_corpus("spam-ham"))
    n_words = len(training.vocabulary)
    assert matrix_pages(16, n_words) == (1, -(-n_words // WORDS_PER_PAGE)) and matrix_pages(81, 0) == (3, 0)
    second = matrix_window(training, np.arange(n_words), column_page=2)
    assert list(second.columns) == list(range(WORDS_PER_PAGE, 2 * WORDS_PER_PAGE))
    assert second.first_word == WORDS_PER_PAGE + 1 and second.column_page == 2
    beyond = matrix_window(training, np.arange(n_words), row_page=7, column_page=10**6)
    assert (beyond.row_page, beyond.column_page) == (1, beyond.column_pages)  # the nearest pages
    nothing = matrix_window(training, np.array([], dtype=np.int64), query="zzz")
    assert nothing.words == () and (nothing.column_page, nothing.column_pages) == (1, 0)
    assert all(row.values == () for row in nothing.documents) and len(nothing.documents) == 16
    many = Corpus.from_pairs([("a" if i % 2 else "b", f"word{i} common") for i in range(130)])
    window = matrix_window(TrainingSet.build(many), np.arange(3), row_page=3)
    assert list(window.rows) == list(range(2 * ROWS_PER_PAGE, 3 * ROWS_PER_PAGE))
    # Each document links to the page of the corpus's documents that shows it.
    assert {row.page for row in window.documents} == {2 * ROWS_PER_PAGE // DOCUMENTS_PER_PAGE + 1, 3}


def test_a_page_of_documents_with_their_analysis():
    corpus = load_example_corpus("spam-ham")
    analyzer = Analyzer(AnalysisOptions(stop_words="english"))
    asked = []

    def analyse(indices):
        asked.append(indices)
        return [analyzer.explain(corpus.texts[i]) for i in indices]

    window = document_window(corpus, 1, analyse=analyse, vocabulary_size=99)
    assert asked == [range(0, 16)] and window.pages == document_pages(16) == 1
    data = window.to_dict()
    assert data["class_counts"] == {"ham": 9, "spam": 7} and data["vocabulary_size"] == 99
    assert (data["page"], data["pages"], len(data["documents"])) == (1, 1, 16)
    first = data["documents"][0]
    assert (first["index"], first["id"], first["label"], first["text"]) == (
        0, corpus.ids[0], corpus.labels[0], corpus.texts[0])
    assert first["tokens"] == list(analyzer.explain(corpus.texts[0]).features)
    assert {"word": "you", "reason": "stop word"} in first["dropped"]
    plain = document_window(corpus).to_dict()["documents"][0]
    assert plain["tokens"] is None and plain["dropped"] is None


def test_documents_are_paged():
    corpus = Corpus.from_pairs([("a" if i % 2 else "b", f"document {i}") for i in range(2 * DOCUMENTS_PER_PAGE + 1)])
    assert document_pages(len(corpus)) == 3 and document_pages(0) == 1
    last = document_window(corpus, 3)
    assert [d.index for d in last.documents] == [2 * DOCUMENTS_PER_PAGE] and last.n_documents == len(corpus)
    assert document_window(corpus, 99).page == 3 and document_window(corpus, -1).page == 1
    assert document_window(corpus, 2).documents[0].text == f"document {DOCUMENTS_PER_PAGE}"
