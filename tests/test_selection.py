"""Feature selection (webnb/engine/text/selection.py): IIR §13.5's export/poultry numbers, exact χ², every word's
and class's table as the corpus counts it, and both measures checked against scikit-learn and scipy."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
from webnb.engine.text.selection import ContingencyTable, WordClassTables

EXPORT_POULTRY = ContingencyTable(n11=49, n10=27_652, n01=141, n00=774_106)


def test_the_books_export_poultry_example():
    table = EXPORT_POULTRY
    assert table.n == 801_948
    assert round(table.mutual_information, 7) == 0.0001105  # IIR: I(U;C) ≈ 0.0001105
    assert table.chi_square == Fraction(801_948 * (49 * 774_106 - 27_652 * 141) ** 2,
                                        (49 + 141) * (49 + 27_652) * (27_652 + 774_106) * (141 + 774_106))
    assert round(float(table.chi_square)) == 284  # IIR: X² ≈ 284
    # E11 = N · (N11 + N10)/N · (N11 + N01)/N = 27,701 · 190 / 801,948 ≈ 6.6 (IIR's example 13.4)
    assert round(float(table.expected[0]), 1) == 6.6
    assert sum(table.expected) == table.n
    assert math.fsum(table.mutual_information_terms()) == table.mutual_information


def test_a_table_refuses_what_is_not_a_count():
    for bad in (-1, 1.5, True, "3"):
        with pytest.raises(ValueError, match="must be a whole number of at least 0"):
            ContingencyTable(bad, 1, 1, 1)
    with pytest.raises(ValueError, match="N = 0"):
        ContingencyTable(0, 0, 0, 0)


def test_independence_gives_zero_and_an_empty_row_gives_no_chi_square():
    independent = ContingencyTable(n11=10, n10=30, n01=20, n00=60)  # the same share holds the word in and out
    assert independent.mutual_information == 0.0 and independent.chi_square == 0
    everywhere = ContingencyTable(n11=3, n10=5, n01=0, n00=0)  # every document holds the word
    assert everywhere.chi_square is None and everywhere.mutual_information == 0.0
    perfect = ContingencyTable(n11=5, n10=0, n01=0, n00=5)  # holds the word exactly when in the class
    assert perfect.mutual_information == 1.0 and perfect.chi_square == 10


def test_every_table_of_china_japan():
    training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
    tables = WordClassTables.of(training.statistics)
    china, japan = training.classes.index("China"), training.classes.index("Japan")
    index = training.bag.index
    assert tables.table(china, index["chinese"]) == ContingencyTable(3, 1, 0, 0)
    assert tables.table(japan, index["tokyo"]) == ContingencyTable(1, 0, 0, 3)
    assert tables.table(china, index["tokyo"]) == ContingencyTable(0, 1, 3, 0)
    mutual_information, chi_square = tables.mutual_information, tables.chi_square
    for k in range(2):
        for j in range(len(training.vocabulary)):
            table = tables.table(k, j)
            assert mutual_information[k, j] == pytest.approx(table.mutual_information, abs=1e-15)
            exact = table.chi_square
            assert math.isnan(chi_square[k, j]) if exact is None else chi_square[k, j] == pytest.approx(float(exact))
    assert [training.vocabulary[j] for j in tables.top_words("frequency", 1)] == ["chinese"]
    with pytest.raises(ValueError, match="measure must be one of"):
        tables.scores("information gain")
    with pytest.raises(ValueError, match="count must be"):
        tables.top_words("chi_square", 0)


@pytest.mark.corpora
def test_both_measures_agree_with_scikit_learn_and_scipy_on_sms_spam(sms_spam):
    from scipy.stats import chi2_contingency
    from sklearn.metrics import mutual_info_score

    corpus = sms_spam
    training = TrainingSet.build(corpus)
    tables = WordClassTables.of(training.statistics)
    presence = training.matrix.tocsc()
    labels = np.asarray(corpus.labels)
    mutual_information, chi_square = tables.mutual_information, tables.chi_square
    words = [training.bag.index[w] for w in ("free", "call", "txt", "the", "ok", "prize", "you")]
    for k, label in enumerate(training.classes):
        in_class = labels == label
        for j in words:
            holds = presence[:, j].toarray().ravel() > 0
            assert mutual_information[k, j] == pytest.approx(mutual_info_score(in_class, holds) / math.log(2),
                                                             rel=1e-9)
            table = tables.table(k, j)
            statistic = chi2_contingency([[table.n11, table.n10], [table.n01, table.n00]], correction=False)[0]
            assert chi_square[k, j] == pytest.approx(statistic, rel=1e-9)
            assert table.n11 == int((holds & in_class).sum()) and table.n00 == int((~holds & ~in_class).sum())
    top = [training.vocabulary[j] for j in tables.top_words("chi_square", 5)]
    assert "txt" in top and "free" in top


def test_kept_statistics_are_the_counts_of_the_kept_words_only():
    from webnb.engine.text.selection import kept_statistics

    training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
    index = training.bag.index
    kept = kept_statistics(training.statistics, [index["tokyo"], index["japan"], index["tokyo"]])
    assert kept.vocabulary == ("japan", "tokyo") and kept.classes == training.classes
    assert kept.document_count_.tolist() == [[0, 0], [1, 1]] and kept.class_count_.tolist() == [3, 1]


def test_a_curve_point_refuses_what_it_cannot_draw():
    from webnb.engine.text.selection import selection_curves

    training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
    test = training.transform(["Tokyo"])
    with pytest.raises(ValueError, match="a number of words must be a whole number of at least 1"):
        selection_curves(training.statistics, test, ["Japan"], [0])
    with pytest.raises(ValueError, match="one label per document"):
        selection_curves(training.statistics, test, ["Japan", "China"], [1])
    with pytest.raises(ValueError, match="measure must be one of"):
        selection_curves(training.statistics, test, ["Japan"], [1], measures=["gain"])
    (curve,) = selection_curves(training.statistics, test, ["Japan"], [100, 3], measures=["chi_square"])
    assert curve.sizes == (3, 6)  # ascending, and no more than the vocabulary


@pytest.mark.corpora
def test_selection_curves_on_sms_spam_agree_with_scikit_learn_on_the_same_words(sms_spam_held_out):
    from sklearn.naive_bayes import MultinomialNB

    from webnb.engine.text.selection import selection_curves

    train, test, training, test_matrix = (sms_spam_held_out.train, sms_spam_held_out.test,
                                          sms_spam_held_out.training, sms_spam_held_out.test_matrix)
    sizes = (10, 100, 1000, len(training.vocabulary))
    curves = selection_curves(training.statistics, test_matrix, test.labels, sizes)
    tables = WordClassTables.of(training.statistics)
    for curve in curves:
        assert curve.sizes == sizes
        for size, accuracy in zip(curve.sizes, curve.accuracies, strict=True):
            words = np.sort(tables.top_words(curve.measure, size))
            theirs = MultinomialNB(alpha=1).fit(training.matrix[:, words], train.labels)
            assert accuracy == pytest.approx(theirs.score(test_matrix[:, words], test.labels), abs=1e-12)
    full = [curve.accuracies[-1] for curve in curves]
    assert full[0] == full[1] == full[2]  # every word kept: the same model, whatever the ranking
    by_measure = {curve.measure: curve.accuracies for curve in curves}
    # IIR's observation: with few words, χ² and MI choose better than frequency (here 0.9225 against 0.8824).
    assert by_measure["chi_square"][0] > by_measure["frequency"][0]
    assert by_measure["mutual_information"][0] > by_measure["frequency"][0]
