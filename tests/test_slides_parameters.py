"""The slides of the bag of words, the parameters, one parameter and the Beta prior (issue 24): in presenter mode each
page shows a condensed view of what its record holds, every number the same as its JSON twin's, and the normal page
(presenter off) has no slide. Read through the test client."""
from __future__ import annotations

import re

import pytest
from conftest import soup_of

MATCH = "model=bernoulli&alpha=0&text=match+was+sharp"
MATCH_1 = "model=bernoulli&alpha=1&text=match+was+sharp"
CHINA = "model=multinomial&alpha=1&text=Chinese+Chinese+Chinese+Tokyo+Japan"
SPAM = "model=bernoulli&alpha=1&text=Claim+your+free+prize+now%2C+call+0800+555+0199"

# Six groups of two posts each: more classes than a slide shows across.
SIX_GROUPS = "".join(f"{label}\t{text}\n" for label, text in [
    ("alt.atheism", "god belief atheism argument"), ("alt.atheism", "belief god morality"),
    ("comp.graphics", "opengl graphics render gpu"), ("comp.graphics", "image render fast"),
    ("rec.autos", "car engine fast road"), ("rec.autos", "engine oil car"),
    ("sci.med", "doctor patient medicine"), ("sci.med", "patient disease doctor"),
    ("sci.space", "orbit launch rocket"), ("sci.space", "moon orbit nasa"),
    ("talk.politics.misc", "vote government tax"), ("talk.politics.misc", "government law vote"),
])


def text_of(element) -> str:
    return " ".join(element.get_text(" ", strip=True).split())


def slide_of(client, url):
    page = soup_of(client.get(url))
    slide = page.find("section", class_="deck-slide")
    assert slide is not None, url
    return slide


def twin(client, url):
    return client.get(url + "&format=json").get_json()


@pytest.fixture()
def six_groups(app, webnb, tmp_path):
    path = tmp_path / "six.txt"
    path.write_text(SIX_GROUPS, encoding="utf-8")
    code, _, err = webnb(app, "corpora", "add", path, "--id", "six-groups", "--name", "Six groups",
                         "--model", "bernoulli", "--alpha", "0", "--review", "opengl gpu fast car")
    assert code == 0, err
    return "/corpora/six-groups"


# -- the bag of words --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("settings", [MATCH, CHINA])
def test_the_matrix_slide_shows_cells_of_the_matrix_and_its_real_size(client, settings):
    corpus = "china-japan" if settings == CHINA else "match-reviews"
    url = f"/corpora/{corpus}/matrix?{settings}"
    data = twin(client, url)
    slide = slide_of(client, url + "&presenter=1")
    said = text_of(slide)
    assert f"{data['documents']:,} documents × {data['vocabulary_size']:,} words" in said
    assert f"{data['sparsity'] * 100:.1f} % zeros" in said
    table = slide.find("table", class_="slide-matrix")
    words = [text_of(th) for th in table.thead.find_all("th", class_="word")]
    # These small corpora fit whole: every word, every document, every cell the twin's.
    assert words == data["words"] and "The whole matrix" in text_of(table.caption)
    rows = table.tbody.find_all("tr")
    assert [text_of(tr.th) for tr in rows] == [row["id"] for row in data["rows"]]
    for tr, row in zip(rows, data["rows"], strict=True):
        assert [int(text_of(td)) for td in tr.find_all("td", class_="num")] == row["values"]
    assert any(value for row in data["rows"] for value in row["values"])
    assert soup_of(client.get(url)).find(class_="deck-slide") is None


def test_a_larger_matrix_shows_the_reviews_words_first_and_documents_that_contain_them(client):
    url = f"/corpora/spam-ham/matrix?{SPAM}"
    data = twin(client, url)
    slide = slide_of(client, url + "&presenter=1")
    table = slide.find("table", class_="slide-matrix")
    words = [text_of(th) for th in table.thead.find_all("th", class_="word")]
    assert words[:3] == ["claim", "your", "free"] and len(words) <= 7
    assert "from the review" in text_of(table.caption)
    rows = table.tbody.find_all("tr")
    assert 0 < len(rows) <= 6
    values = [[int(text_of(td)) for td in tr.find_all("td", class_="num")] for tr in rows]
    assert all(any(row) for row in values)  # each shown document contains some of the words
    assert f"{data['documents']:,} documents × {data['vocabulary_size']:,} words" in text_of(slide)
    # The page's own window, one key away.
    full = slide.find("details", class_="full-table")
    assert full is not None and len(full.find("tbody").find_all("tr")) == len(data["rows"])


# -- the parameters ----------------------------------------------------------------------------------------------


def test_the_priors_slide_shows_each_prior_and_both_parameter_counts(client):
    url = f"/corpora/match-reviews/parameters?{MATCH}"
    data = twin(client, url)
    slide = slide_of(client, url + "&presenter=1")
    rows = slide.find("table", class_="slide-priors").tbody.find_all("tr")
    shown = {text_of(tr.th): [text_of(td) for td in tr.find_all("td")] for tr in rows}
    assert shown == {"negative": ["2/5", "0.4"], "positive": ["3/5", "0.6"]}
    assert [p["exact"] for p in data["priors"]] == ["2/5", "3/5"]
    said = text_of(slide)
    k, d = len(data["classes"]), data["vocabulary_size"]
    assert data["parameter_count"] == k * (d + 1) == 18
    assert "K(d + 1) = 2 × (8 + 1) = 18" in said and "K·d + (K − 1) = 17" in said
    assert "sum to 1" in said


def test_the_normal_parameters_page_gives_both_counts_and_no_slide(client):
    page = soup_of(client.get(f"/corpora/match-reviews/parameters?{MATCH}"))
    said = text_of(page)
    assert page.find(class_="deck-slide") is None
    assert "K(d + 1) = 18 numbers when every prior is counted" in said
    assert "K·d + (K − 1) = 17 when the last prior is left out" in said
    multinomial = text_of(soup_of(client.get(f"/corpora/china-japan/parameters?{CHINA}")))
    assert "K(d + 1) = 14" in multinomial and "K·d + (K − 1) = 13" in multinomial
    assert "K(d − 1) + (K − 1) = 11" in multinomial


@pytest.mark.parametrize("settings", [MATCH, MATCH_1])
def test_the_table_slide_shows_the_reviews_words_in_every_class(client, settings):
    url = f"/corpora/match-reviews/parameters?{settings}"
    data = twin(client, url)
    by_word = {row["word"]: row["per_class"] for row in data["words"]}
    slide = slide_of(client, url + "&presenter=1&slide=table")
    table = slide.find("table", class_="slide-params")
    assert [text_of(th) for th in table.thead.find_all("th")[1:]] == data["classes"]
    rows = table.tbody.find_all("tr")
    assert [text_of(tr.th) for tr in rows] == ["match", "was", "sharp"]
    for tr in rows:
        for td, cell in zip(tr.find_all("td"), by_word[text_of(tr.th)], strict=True):
            assert text_of(td.find(class_="frac")) == cell["ratio"]
            flag = td.find(class_="flag")
            assert (flag is not None) == (cell["zero"] or cell["one"]), text_of(td)
            if flag is not None:
                assert "breaks" in td["class"] and text_of(flag) == ("0" if cell["zero"] else "1")
    warning = slide.find(class_="warning")
    assert (warning is not None) == (data["breaking_cells"] > 0)
    if warning is not None:
        assert text_of(warning).startswith(f"{data['breaking_cells']} cells")
    full = slide.find("details", class_="full-table")
    assert len(full.find("tbody").find_all("tr")) == len(data["words"])


def test_many_classes_show_a_few_and_say_how_many_more(client, six_groups):
    url = f"{six_groups}/parameters?model=bernoulli&alpha=0"
    data = twin(client, url)
    assert len(data["classes"]) == 6
    table = slide_of(client, url + "&presenter=1&slide=table").find("table", class_="slide-params")
    heads = [th.get_text("", strip=True) for th in table.thead.find_all("th")]  # labels break only at <wbr>
    assert heads[1:4] == data["classes"][:3] and heads[-1] == "+ 3 more classes"
    assert [text_of(tr.th) for tr in table.tbody.find_all("tr")] == ["opengl", "gpu", "fast", "car"]
    priors = slide_of(client, url + "&presenter=1")
    assert len(priors.find("table", class_="slide-priors").tbody.find_all("tr")) == 6  # six fit
    cell = slide_of(client, f"{six_groups}/parameters/cell?model=bernoulli&alpha=0&word=opengl&presenter=1")
    assert len(cell.find("table", class_="slide-cells").tbody.find_all("tr")) == 3
    assert "+ 3 more classes" in text_of(cell)
    assert len(cell.find("details", class_="full-table").tbody.find_all("tr")) == 6


# -- one parameter and its Beta prior ----------------------------------------------------------------------------


@pytest.mark.parametrize("corpus, settings, word", [
    ("match-reviews", MATCH, "match"), ("china-japan", CHINA, "chinese"), ("spam-ham", SPAM, "claim"),
])
def test_the_cell_slide_fills_each_classs_counts_into_the_formula(client, corpus, settings, word):
    url = f"/corpora/{corpus}/parameters/cell?{settings}&word={word}"
    data = twin(client, url)
    slide = slide_of(client, url + "&presenter=1")
    rows = slide.find("table", class_="slide-cells").tbody.find_all("tr")
    assert len(rows) == len(data["classes"])
    alpha = data["model"]["alpha"]
    for tr, cell in zip(rows, data["classes"], strict=True):
        assert text_of(tr.th) == cell["class"]
        numbers = [text_of(mn) for mn in tr.find_all("mn")]
        spread = "2" if cell["model"]["model"] == "bernoulli" else f"{cell['vocabulary_size']:,}"
        assert numbers[:6] == [f"{cell['count']:,}", str(alpha), f"{cell['total']:,}", spread, str(alpha),
                               cell["ratio"]]
        assert ("breaks" in (tr.get("class") or [])) == (cell["zero"] or cell["one"])
    assert soup_of(client.get(url)).find(class_="deck-slide") is None


def test_the_deck_opens_the_cell_on_the_reviews_first_word(client):
    page = soup_of(client.get(f"/corpora/match-reviews/parameters?{MATCH}&presenter=1&slide=table"))
    onward = page.find("a", attrs={"data-step": "next"})["href"]
    assert "/parameters/cell?" in onward and "word=match" in onward
    slide = slide_of(client, onward)
    assert "“match” in each class k" in text_of(slide)


@pytest.mark.parametrize("corpus, settings, word, label", [
    ("match-reviews", MATCH, "match", "negative"), ("match-reviews", MATCH_1, "match", "negative"),
    ("china-japan", CHINA, "chinese", "China"),
])
def test_the_prior_slide_draws_the_chart_and_gives_the_three_estimates(client, corpus, settings, word, label):
    url = f"/corpora/{corpus}/parameters/prior?{settings}&word={word}&class={label}"
    data = twin(client, url)
    slide = slide_of(client, url + "&presenter=1")
    svg = slide.find("svg", class_="beta-chart")
    assert svg is not None and len(svg.find_all("polyline")) == 3
    assert [text_of(t) for t in svg.find_all("text", class_="estimate-label")] == ["MLE", "MAP", "posterior mean"]
    rows = slide.find("table", class_="slide-estimates").tbody.find_all("tr")
    estimates, alpha = data["estimates"], str(data["model"]["alpha"])
    for tr, name in zip(rows, ("mle", "map", "posterior_mean"), strict=True):
        filled, rest = text_of(tr.td).split(" ≈ ")
        assert filled.endswith(estimates[name]["ratio"])
        assert float(rest) == pytest.approx(estimates[name]["value"], rel=1e-3)
    # The MAP, the table's value, with the counts filled in.
    count, total = data["count"], data["total"]
    spread = f"2 × {alpha}" if data["model"]["model"] == "bernoulli" else f"{data['vocabulary_size']} × {alpha}"
    assert text_of(rows[1].td).startswith(f"= ({count} + {alpha}) / ({total} + {spread}) = ")
    assert rows[1]["class"] == ["chosen"] and estimates["map"]["ratio"] == data["table"]["ratio"]
    curves = data["curves"]
    assert f"posterior Beta({curves['posterior']['a']}, {curves['posterior']['b']})" in text_of(slide)
    assert soup_of(client.get(url)).find(class_="deck-slide") is None


def test_the_prior_slide_says_the_posterior_is_the_likelihood_only_when_it_is(client):
    bernoulli = text_of(slide_of(client, f"/corpora/match-reviews/parameters/prior?{MATCH}&word=match&class=negative"
                                         "&presenter=1"))
    assert "the posterior is the likelihood" in bernoulli
    multinomial = text_of(slide_of(client, "/corpora/china-japan/parameters/prior?model=multinomial&alpha=0"
                                           "&text=Chinese&word=chinese&class=China&presenter=1"))
    assert "the posterior is the likelihood" not in multinomial
    assert re.search(r"prior Beta\(1, 5\)", multinomial)
