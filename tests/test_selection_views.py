"""Feature selection's pages (IIR §13.5): each word's 2 × 2 table against one class with its mutual information and
χ², checked against IIR's formulas computed here from the documents themselves; the cell view with the book's
export/poultry example; sorting and paging; bad input; a hostile label; the slides and their JSON twins; and the
accuracy against the number of words kept."""
from __future__ import annotations

import json
import math
from fractions import Fraction
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest
from conftest import pasted_id, soup_of

from webnb.engine import Corpus
from webnb.engine.text.selection import WordClassTables
from webnb.lesson.selection_records import IIR_EXAMPLE, class_tables, curve_sizes, word_tables
from webnb.views.common import LARGE_CORPUS

CELL = "/corpora/{}/selection/cell"
PAGE = "/corpora/{}/selection"


def twin(client, url: str, status: int = 200, **query) -> dict:
    response = client.get(url, query_string={**query, "format": "json"})
    assert response.status_code == status, response.get_data(as_text=True)[:300]
    text = response.get_data(as_text=True)
    assert "NaN" not in text and "Infinity" not in text
    return json.loads(text)


def statements_of(soup) -> dict[str, str]:
    return {li["data-statement"]: li.get_text(" ", strip=True) for li in soup.select("[data-statement]")}


# -- IIR's formulas, computed here from the four counts ----------------------------------------------------------------


def iir_mutual_information(n11: int, n10: int, n01: int, n00: int) -> float:
    """IIR equation 13.17, term by term (N1. = N10 + N11, N.1 = N01 + N11, …); a cell of 0 adds 0."""
    n = n11 + n10 + n01 + n00
    n1_, n0_, n_1, n_0 = n10 + n11, n00 + n01, n01 + n11, n00 + n10
    total = 0.0
    for count, row, column in ((n11, n1_, n_1), (n01, n0_, n_1), (n10, n1_, n_0), (n00, n0_, n_0)):
        if count:
            total += count / n * math.log2(n * count / (row * column))
    return total


def iir_chi_square(n11: int, n10: int, n01: int, n00: int) -> Fraction | None:
    """IIR equation 13.19, exactly (None for 0/0)."""
    n = n11 + n10 + n01 + n00
    denominator = (n11 + n01) * (n11 + n10) * (n10 + n00) * (n01 + n00)
    return Fraction(n * (n11 * n00 - n10 * n01) ** 2, denominator) if denominator else None


def iir_chi_square_by_cells(n11: int, n10: int, n01: int, n00: int) -> Fraction:
    """IIR equation 13.18: Σ (N − E)² / E over the four cells, E = N × P(t) × P(c)."""
    n = n11 + n10 + n01 + n00
    total = Fraction(0)
    for count, row, column in ((n11, n11 + n10, n11 + n01), (n10, n11 + n10, n10 + n00),
                               (n01, n01 + n00, n11 + n01), (n00, n01 + n00, n10 + n00)):
        expected = Fraction(row * column, n)
        total += (count - expected) ** 2 / expected
    return total


# -- the book's export/poultry example through the cell view -----------------------------------------------------------


def test_export_poultry_reproduces_the_book_in_the_twin(client):
    data = twin(client, CELL.format("china-japan"), **IIR_EXAMPLE)
    assert data["source"] == "counts" and data["word"] is None and data["class"] is None
    assert [data[name] for name in ("n11", "n10", "n01", "n00", "n")] == [49, 27_652, 141, 774_106, 801_948]
    assert round(data["mutual_information"], 7) == 0.0001105
    assert data["mutual_information"] == pytest.approx(iir_mutual_information(49, 27_652, 141, 774_106), rel=1e-12)
    assert round(data["chi2"]) == 284 and data["chi2"] == pytest.approx(284.28631830257, rel=1e-12)
    exact = iir_chi_square(49, 27_652, 141, 774_106)
    assert data["chi2_exact"] == f"{exact.numerator}/{exact.denominator}"
    assert exact == iir_chi_square_by_cells(49, 27_652, 141, 774_106)  # 13.18 and 13.19 agree
    terms = {t["cell"]: t for t in data["mutual_information_terms"]}
    assert math.fsum(t["term"] for t in terms.values()) == pytest.approx(data["mutual_information"], rel=1e-15)
    assert terms["11"]["row_total"] == 27_701 and terms["11"]["column_total"] == 190
    assert Fraction(terms["11"]["expected"]) == Fraction(27_701 * 190, 801_948)
    assert data["p_value"] == pytest.approx(math.erfc(math.sqrt(float(exact) / 2)))
    assert data["statements"]["mutual_information"] == "I(U;C) = 0.0001105 bits."
    assert data["statements"]["chi2"].startswith("X² = 284.3, above 10.83")


def test_four_counts_need_nothing_of_the_corpus(client):
    """A lesson whose settings keep no word still opens four counts typed in, with no error of its own."""
    assert list(twin(client, CELL.format("spam-ham"), min_df="1000")) == ["error"]
    data = twin(client, CELL.format("spam-ham"), min_df="1000", n11="1", n10="2", n01="3", n00="4")
    assert "error" not in data and data["chi2_exact"] == "5/63"  # 10 · (1·4 − 2·3)² / (4 · 3 · 6 · 7)


def test_export_poultry_reproduces_the_book_on_the_page_and_its_slide(client):
    page = soup_of(client.get(CELL.format("china-japan"), query_string=IIR_EXAMPLE))
    assert page.find(id="cell-title").get_text(strip=True) == "Four counts typed in: the 2 × 2 table"
    table = page.select_one("table.contingency")
    assert [td.strong.get_text() for td in table.select("td[data-cell]")] == ["49", "27,652", "141", "774,106"]
    assert "expected 6.563" in table.select_one('td[data-cell="11"]').get_text(" ", strip=True)
    assert table.tfoot.get_text(" ", strip=True).endswith("N = 801,948")
    assert page.find(id="cell-mi-value").get_text(strip=True) == "1.105 × 10⁻⁴ bits"
    filled = page.find(id="cell-chi2-filled").get_text(" ", strip=True)
    assert "801,948" in filled and "37,931,194" in filled and "3,898,932" in filled and filled.endswith("284.3")
    twin_statements = twin(client, CELL.format("china-japan"), **IIR_EXAMPLE)["statements"]
    assert statements_of(page) == twin_statements  # every sentence of the page is the record's
    assert [page.find(id=f"cell-{name}")["value"] for name in IIR_EXAMPLE] == [str(v) for v in IIR_EXAMPLE.values()]
    slide = soup_of(client.get(CELL.format("china-japan"), query_string={**IIR_EXAMPLE, "presenter": "1"}))
    assert slide.find(id="slide-mi").get_text(strip=True) == "1.105 × 10⁻⁴"
    assert slide.find(id="slide-chi2").get_text(strip=True) == "284.3"
    assert slide.select_one(".deck-slide")["data-slide-key"] == "contingency"


# -- a word and a class of the corpus against IIR's formulas -----------------------------------------------------------


def china_japan_tables() -> dict[tuple[str, str], tuple[int, int, int, int]]:
    """(word, class) → (N11, N10, N01, N00), counted here from the four documents of IIR's example 13.1."""
    from webnb.examples import load_example_corpus

    corpus = load_example_corpus("china-japan")
    documents = [(label, set(text.lower().split())) for label, text in zip(corpus.labels, corpus.texts, strict=True)]
    words = sorted(set().union(*(words for _, words in documents)))
    tables = {}
    for label in ("China", "not China"):
        for word in words:
            cells = [sum(1 for c, ws in documents if (word in ws) == holds and (c == label) == in_class)
                     for holds, in_class in ((True, True), (True, False), (False, True), (False, False))]
            tables[word, label] = tuple(cells)
    return tables


def test_china_japan_every_word_and_class_against_iirs_formulas(client):
    expected = china_japan_tables()
    assert len(expected) == 12
    for label in ("China", "not China"):
        data = twin(client, PAGE.format("china-japan"), **{"class": label})
        assert data["class"] == label and data["n_documents"] == 4
        assert data["in_class"] == (3 if label == "China" else 1)
        assert len(data["words"]) == data["matching"] == 6
        for row in data["words"]:
            cells = expected[row["word"], label]
            assert (row["n11"], row["n10"], row["n01"], row["n00"]) == cells, row
            assert row["class"] == label
            assert row["mutual_information"] == pytest.approx(iir_mutual_information(*cells), abs=1e-15)
            exact = iir_chi_square(*cells)
            if exact is None:  # "chinese" is in all four documents: 0/0
                assert row["word"] == "chinese" and row["chi2"] is None and row["chi2_exact"] is None
            else:
                assert Fraction(row["chi2_exact"]) == exact == iir_chi_square_by_cells(*cells)
                assert row["chi2"] == float(exact)
    # Tokyo and Japan are in the one not-China document only: N11 = 0, N10 = 1, N01 = 3, N00 = 0 against China;
    # I = 3/4 log2(4·3/(3·3)) + 1/4 log2(4·1/(1·1)) = 0.811 bits and X² = 4·(0 − 3)²/(3·1·1·3) = 4.
    tokyo = twin(client, CELL.format("china-japan"), word="tokyo", **{"class": "China"})
    assert (tokyo["n11"], tokyo["n10"], tokyo["n01"], tokyo["n00"]) == (0, 1, 3, 0)
    assert tokyo["mutual_information"] == pytest.approx(0.75 * math.log2(4 / 3) + 0.25 * math.log2(4), rel=1e-15)
    assert tokyo["chi2_exact"] == "4"
    assert tokyo["statements"]["direction"] == (
        "N₁₁ = 0, where independence expects 0.75: “tokyo” points away from China.")
    chinese = twin(client, CELL.format("china-japan"), word="chinese", **{"class": "China"})
    assert chinese["chi2"] is None and chinese["mutual_information"] == 0.0
    assert chinese["statements"]["chi2"] == "X² has no value (0/0): every document holds the word."


def test_one_class_row_is_the_row_of_every_class_table(spam_ham, china_japan):
    """The page's one-row tables are WordClassTables.of's rows, counts and measures alike; a word's tables against
    every class are its column."""
    for training in (spam_ham, china_japan):
        statistics = training.statistics
        every = WordClassTables.of(statistics)
        for k in range(statistics.n_classes):
            one = class_tables(statistics, k)
            for name in ("n11", "n10", "n01", "n00"):
                assert np.array_equal(getattr(one, name)[0], getattr(every, name)[k])
            assert np.array_equal(one.mutual_information[0], every.mutual_information[k])
            assert np.array_equal(one.chi_square[0], every.chi_square[k], equal_nan=True)
        for j in (0, statistics.n_words - 1):
            assert word_tables(statistics, j) == tuple(every.table(k, j) for k in range(statistics.n_classes))


# -- sorting, paging, filtering ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("sort", ["mi", "chi2", "n11", "n10", "n01", "n00", "word"])
def test_every_order_sorts_the_whole_list_with_ties_in_vocabulary_order(client, spam_ham, sort):
    rows = []
    for page in (1, 2, 3):
        data = twin(client, PAGE.format("spam-ham"), sort=sort, page=page, **{"class": "spam"})
        assert data["pages"] == 3 and data["page"] == page and data["sort"] == sort
        rows += data["words"]
    assert [row["rank"] for row in rows] == list(range(1, 126))
    vocabulary = list(spam_ham.vocabulary)
    assert sorted(row["word"] for row in rows) == sorted(vocabulary)
    if sort == "word":
        assert [row["word"] for row in rows] == sorted(vocabulary)
        return
    field = {"mi": "mutual_information"}.get(sort, sort)
    keys = [-math.inf if row[field] is None else row[field] for row in rows]
    assert all(a >= b for a, b in zip(keys, keys[1:], strict=False))
    for a, b in zip(rows, rows[1:], strict=False):
        if a[field] == b[field]:
            assert vocabulary.index(a["word"]) < vocabulary.index(b["word"])


def test_the_best_words_and_the_filter(client):
    data = twin(client, PAGE.format("spam-ham"), **{"class": "spam"})
    assert data["best_mutual_information"]["word"] == data["words"][0]["word"]
    by_chi2 = twin(client, PAGE.format("spam-ham"), sort="chi2", **{"class": "spam"})
    assert data["best_chi2"]["word"] == by_chi2["words"][0]["word"]
    assert data["statements"]["agreement"] == (f"Of the top 10 words by mutual information, {data['agreeing']} are "
                                              f"in the top 10 by χ².")
    filtered = twin(client, PAGE.format("spam-ham"), q="cla", **{"class": "spam"})
    assert filtered["matching"] == len(filtered["words"]) >= 1
    assert all("cla" in row["word"] for row in filtered["words"])
    none = soup_of(client.get(PAGE.format("spam-ham"), query_string={"q": "zzzz"}))
    assert "No word contains “zzzz”." in none.select_one("table.selection-table").get_text()
    past = twin(client, PAGE.format("spam-ham"), page="99")
    assert past["page"] == 3  # past the end: the last page


def test_the_page_links_each_row_to_its_cell_and_each_column_to_its_order(client):
    page = soup_of(client.get(PAGE.format("spam-ham"), query_string={"class": "spam", "sort": "chi2"}))
    table = page.select_one("table.selection-table")
    first = table.select_one("tbody th a")
    opened = soup_of(client.get(first["href"]))
    assert opened.find(id="cell-title").get_text(strip=True) == f"“{first.get_text()}” and spam: the 2 × 2 table"
    headers = table.select("thead th")
    assert headers[-1]["aria-sort"] == "descending" and headers[-1].find("a") is None  # sorted by χ²: no link
    mi_link = headers[-2].find("a")["href"]
    assert "sort=mi" in mi_link and "class=spam" in mi_link


def test_page_statements_are_the_twins(client):
    page = soup_of(client.get(PAGE.format("spam-ham")))
    data = twin(client, PAGE.format("spam-ham"))
    said = statements_of(page)
    assert {key: said[key] for key in data["statements"]} == data["statements"]
    assert {key: said[key] for key in data["curves"]["statements"] if key != "model"} == {
        key: value for key, value in data["curves"]["statements"].items() if key != "model"}
    assert said["model"] == data["curves"]["statements"]["model"]


# -- bad input ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("query, status, message", [
    ({"n11": "-1", "n10": "1", "n01": "1", "n00": "1"}, 400, "n11 = “-1”: n11 counts the documents of the class"),
    ({"n11": "1.5", "n10": "1", "n01": "1", "n00": "1"}, 400, "n11 = “1.5”"),
    ({"n11": "1", "n10": "ten", "n01": "1", "n00": "1"}, 400, "n10 = “ten”: n10 counts the documents of the other"),
    ({"n11": "1", "n10": "1", "n01": "1", "n00": "1" + "0" * 20}, 400, "a whole number from 0 to"),
    ({"n11": "1", "n10": "2"}, 400, "n01 and n00 are missing"),
    ({"n11": "0", "n10": "0", "n01": "0", "n00": "0"}, 400, "The four counts are all 0"),
    ({"word": "nosuchword"}, 404, "“nosuchword” is not a word of this vocabulary."),
    ({"word": "tokyo", "class": "Atlantis"}, 404, "“Atlantis” is not a class of this corpus."),
])
def test_bad_input_is_said_on_the_page_and_in_the_twin(client, query, status, message):
    data = twin(client, CELL.format("china-japan"), status, **query)
    assert list(data) == ["error"] and message in data["error"]
    response = client.get(CELL.format("china-japan"), query_string=query)
    page = soup_of(response, status)
    assert message in page.select_one('#selection-cell .errors[role="alert"]').get_text(" ", strip=True)
    if "n11" in query:  # the counts as typed, to correct them
        assert page.find(id="cell-n11")["value"] == query["n11"]


def test_bad_settings_of_the_table_fall_back_with_a_message(client):
    data = twin(client, PAGE.format("spam-ham"), sort="size", **{"class": "eggs"})
    assert data["sort"] == "mi" and data["class"] == "ham"
    assert set(data["errors"]) == {"sort", "class"} and "eggs" in data["errors"]["class"]
    page = soup_of(client.get(PAGE.format("spam-ham"), query_string={"sort": "size"}))
    assert "sort" in page.select_one("#selection .errors").get_text()


# -- a hostile label and word ------------------------------------------------------------------------------------------

HOSTILE = "<script>alert(1)</script>"


def test_a_hostile_label_and_word_stay_text(client):
    corpus_id = pasted_id(client, f"{HOSTILE}\tred blue red\nplain\tgreen blue\n{HOSTILE}\tred", "hostile")
    for url, query in [(PAGE, {}), (PAGE, {"presenter": "1"}), (PAGE, {"class": HOSTILE}),
                       (CELL, {"word": "red"}), (CELL, {"word": "red", "presenter": "1"}),
                       (CELL, {"word": HOSTILE})]:
        response = client.get(url.format(corpus_id), query_string=query)
        raw = response.get_data(as_text=True)
        assert response.status_code in (200, 404), (url, query)
        assert "<script>alert(1)" not in raw, (url, query)
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in raw, (url, query)
    data = twin(client, CELL.format(corpus_id), word="red")
    assert data["class"] == HOSTILE and data["n11"] == 2


# -- slides and their twins --------------------------------------------------------------------------------------------


def test_the_table_slide_and_its_twin_keep_the_same_words(client):
    for zoom, most in (("", 6), ("150", 4)):
        query = {"presenter": "1", "class": "spam", "zoom": zoom}
        slide = soup_of(client.get(PAGE.format("spam-ham"), query_string=query))
        assert slide.select_one(".deck-slide")["data-slide-key"] == "selection"
        data = twin(client, PAGE.format("spam-ham"), **query)
        assert "curves" not in data  # the table's slide draws no curves
        shown = {part["part"]: part for part in data["shown_on_slide"]}
        words = shown["selection.slide.words"]
        assert words["total"] == 125 and words["more"] == 125 - most and len(words["shown"]) == most
        assert words["shown"] == [row["word"] for row in data["words"][:most]]
        rows = slide.select("table.slide-selection tbody th[scope=row]")
        assert [th.get_text(strip=True) for th in rows] == words["shown"]
        assert slide.select_one("table.slide-selection tfoot").get_text(" ", strip=True).startswith(
            f"+ {125 - most} more words")
        full = shown["selection.slide.full"]
        assert len(slide.select("table.slide-selection-full tbody tr")) == len(full["shown"]) == 50


def test_the_curves_slide_and_its_twin(client):
    query = {"presenter": "1", "slide": "curves"}
    slide = soup_of(client.get(PAGE.format("spam-ham"), query_string=query))
    assert slide.select_one(".deck-slide")["data-slide-key"] == "curves"
    lines = slide.select(".deck-slide svg.chart g.measure")
    assert [g["data-measure"] for g in lines] == ["mutual_information", "chi_square", "frequency"]
    data = twin(client, PAGE.format("spam-ham"), **query)
    curves = data["curves"]
    assert curves["state"] == "done"
    shown = {part["part"]: part for part in data["shown_on_slide"]}
    assert shown["selection.slide.curves"]["shown"] == ["mutual information", "χ²", "frequency"]
    sizes = curve_sizes(curves["n_words"])
    assert all(c["sizes"] == list(sizes) for c in curves["curves"])
    assert len(lines[0].select("circle")) == len(sizes)
    widest = slide.find(id="slide-curves-widest").get_text(" ", strip=True)
    assert widest == f"{curves['statements']['widest']} {curves['statements']['all']}"


def test_the_curves_agree_with_the_engine_on_the_lessons_split(client, spam_ham):
    """The page's curves are selection_curves on the evaluation's held-out split, fitted with the lesson's model."""
    from webnb.engine import AnalysisOptions, VocabularyOptions
    from webnb.engine.evaluation.heldout import hold_out
    from webnb.engine.text.selection import selection_curves
    from webnb.examples import load_example_corpus

    data = twin(client, PAGE.format("spam-ham"), model="multinomial", alpha="1", test="split")["curves"]
    held = hold_out(load_example_corpus("spam-ham"), AnalysisOptions(), VocabularyOptions(), test_size=0.25, seed=0)
    assert data["n_train"] == len(held.training.corpus) and data["n_test"] == len(held.test)
    expected = selection_curves(held.training.statistics, held.test_matrix, held.test_labels,
                                curve_sizes(held.training.statistics.n_words), kind="multinomial", alpha=1)
    assert [c["accuracies"] for c in data["curves"]] == [list(c.accuracies) for c in expected]
    assert data["model"] == "multinomial" and data["alpha"] == "1"


def test_the_cell_without_a_word_opens_the_first_classs_best_word(client):
    data = twin(client, CELL.format("spam-ham"))
    best = twin(client, PAGE.format("spam-ham"))["best_mutual_information"]
    assert (data["word"], data["class"]) == (best["word"], "ham") and data["chosen"].startswith(f"“{best['word']}”")
    alone = twin(client, CELL.format("spam-ham"), word="call")
    assert alone["class"] == max(alone["classes"], key=lambda row: row["mutual_information"])["class"]
    assert [row["class"] for row in alone["classes"]] == ["ham", "spam"]


def test_the_fragments(client):
    fragment = soup_of(client.get(PAGE.format("spam-ham"), headers={"HX-Request": "true"}))
    top = [element for element in fragment.contents if getattr(element, "name", None)]
    assert [(element.name, element.get("id")) for element in top] == [("section", "selection")]
    curves = soup_of(client.get(PAGE.format("spam-ham"), query_string={"part": "curves"},
                                headers={"HX-Request": "true"}))
    top = [element for element in curves.contents if getattr(element, "name", None)]
    assert [(element.name, element.get("id")) for element in top] == [("section", "curves")]
    assert curves.select_one('svg[data-figure="curves"]') is not None
    cell = soup_of(client.get(CELL.format("spam-ham"), headers={"HX-Request": "true"}))
    top = [element for element in cell.contents if getattr(element, "name", None)]
    assert [(element.name, element.get("id")) for element in top] == [("div", "selection-cell")]


def test_the_curves_chart_downloads_as_svg(client):
    page = soup_of(client.get(PAGE.format("spam-ham")))
    link = page.select_one("#curves .figure-download a")["href"]
    response = client.get(link)
    assert response.status_code == 200 and response.mimetype == "image/svg+xml"
    assert response.get_data(as_text=True).count('data-measure="') == 3


# -- a large corpus: the curves in the background ----------------------------------------------------------------------


def test_a_large_corpus_computes_the_curves_in_the_background(app, client):
    pairs = [("spam", f"win cash prize now {i % 40}") if i % 3 == 0 else ("ham", f"lunch at noon today {i % 40}")
             for i in range(LARGE_CORPUS + 60)]
    corpus_id = app.extensions["webnb"]["catalog"].add(Corpus.from_pairs(pairs), name="Many messages", source="test")
    first = twin(client, PAGE.format(corpus_id))  # the table at once, the curves on their way
    assert first["words"] and first["curves"]["state"] in ("running", "done")
    data = first
    if data["curves"]["state"] == "running":
        poll = data["curves"]["poll"]
        assert "/selection?" in poll and "curves_job=" in poll
        # The page's next poll, once the job has finished (waited for, not slept on).
        app.extensions["webnb"]["jobs"].wait(parse_qs(urlsplit(poll).query)["curves_job"][0])
        data = client.get(poll).get_json()
    assert data["curves"]["state"] == "done" and data["curves"]["all_words"] == 1.0
    slide = soup_of(client.get(PAGE.format(corpus_id), query_string={"presenter": "1", "slide": "curves"}))
    assert slide.select_one(".deck-slide svg.chart") is not None


def test_a_large_corpus_s_curves_slide_waits_on_a_progress_page(app, client):
    pairs = [("a", f"alpha word {i % 30}") if i % 2 else ("b", f"beta word {i % 30}") for i in range(LARGE_CORPUS + 10)]
    corpus_id = app.extensions["webnb"]["catalog"].add(Corpus.from_pairs(pairs), name="Many", source="test")
    table = twin(client, PAGE.format(corpus_id), presenter="1")  # counted (a twin counts in its request)
    assert "curves" not in table and table["n_documents"] == LARGE_CORPUS + 10
    response = client.get(PAGE.format(corpus_id), query_string={"presenter": "1", "slide": "curves"})
    assert response.status_code == 202  # the progress page, which opens the slide once the curves are done
    page = soup_of(response, 202)
    assert "Scoring a model on the top words by three measures" in page.get_text()
    assert page.select_one("svg.chart") is None
