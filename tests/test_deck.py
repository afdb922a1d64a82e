"""The presenter's deck (issue 24, part 2): every lesson page is a few slides in presenter mode, and following the
deck's → from the first slide visits every slide of every page once, in the lesson's order (webnb/lesson/pages.py), with
the lesson's settings carried along; ← goes back the same way. Read through the test client: the links themselves."""
from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from conftest import soup_of

from webnb.lesson import pages
from webnb.lesson.state import GAUSSIAN_STEPS, STEPS

# Not the corpus's own review (which links leave out): the same words, so the same Bernoulli verdicts.
SETTINGS = "model=bernoulli&alpha=0&text=was+match+sharp"


def bar(client, url):
    response = client.get(url)
    assert response.status_code == 200, url
    page = soup_of(response)
    deck = page.find("nav", class_="deck-bar")
    assert deck is not None, url
    return page, deck


def link(deck, step: str) -> str | None:
    found = deck.find("a", attrs={"data-step": step})
    return found["href"] if found else None


def test_the_slides_are_the_pages_in_the_lessons_order_and_the_steps_are_one_list():
    assert [key for key, _ in pages.INFERENCE_STEPS] == list(STEPS)
    assert [key for key, _ in pages.GAUSSIAN_INFERENCE_STEPS] == list(GAUSSIAN_STEPS)
    for kind, lesson_pages in pages.PAGES.items():
        walk = pages.walk(kind)
        assert [slide.page for slide in walk] == [page for page in lesson_pages for _ in page.slides]
        for page in lesson_pages:
            keys = [key for key, _ in page.slides]
            assert keys and len(set(keys)) == len(keys), page
    assert [s.page.key for s in pages.walk("text")][:7] == [
        "corpus", "corpus", "matrix", "parameters", "parameters", "cell", "prior"]
    assert len(pages.walk("text")) == 30 and len(pages.walk("table")) == 9


@pytest.mark.parametrize("start, kind, carried", [
    # The text lesson's 29 slides take over a second: the table's stay in the fast run.
    pytest.param(f"/corpora/match-reviews?{SETTINGS}&presenter=1", "text",
                 {"alpha": ["0"], "text": ["was match sharp"]}, marks=pytest.mark.slow),
    ("/corpora/iris/gaussian?var_smoothing=0.01&presenter=1", "table", {"var_smoothing": ["0.01"]}),
])
def test_next_visits_every_slide_once_in_order_and_back_returns(client, start, kind, carried):
    walk = pages.walk(kind)
    url, visited = start, []
    corpus = "/corpora/" + urlsplit(start).path.split("/")[2]
    for number, slide in enumerate(walk, start=1):
        page, deck = bar(client, url)
        position = deck.find(class_="deck-position").get_text(" ", strip=True)
        assert position.startswith(slide.page.title) and position.endswith(f"{number}/{len(walk)} slides"), url
        assert urlsplit(url).path == corpus + slide.page.path, url
        query = parse_qs(urlsplit(url).query)
        assert query["presenter"] == ["1"] and all(query[name] == value for name, value in carried.items()), url
        if slide.page.slide_parameter == "step":
            assert page.find(id=f"step-{slide.key}") is not None
        else:
            assert page.find("section", id=f"slide-{slide.key}") is not None
            assert page.find(id="slide-title").get_text(strip=True) == slide.title
        visited.append((url, slide))
        url = link(deck, "next")
    assert url is None  # nothing after the last slide
    for (url, slide), (earlier, _) in zip(reversed(visited[1:]), reversed(visited[:-1]), strict=True):
        _, deck = bar(client, url)
        assert link(deck, "prev") == earlier, slide
    _, deck = bar(client, visited[0][0])
    assert link(deck, "prev") is None
    assert link(deck, "first") == visited[0][0] and link(deck, "last") == visited[-1][0]


def test_the_last_step_of_bayes_rule_leads_to_the_evaluation_and_back(client):
    _, deck = bar(client, f"/corpora/match-reviews/inference?{SETTINGS}&step=contributions&presenter=1")
    after = link(deck, "next")
    assert urlsplit(after).path == "/corpora/match-reviews/evaluation"
    assert "step=" not in after  # one slide parameter per address
    _, deck = bar(client, after)
    assert link(deck, "prev") == f"/corpora/match-reviews/inference?{SETTINGS}&step=contributions&presenter=1"


def test_one_parameter_and_its_prior_open_on_the_reviews_first_word_of_the_vocabulary(client):
    _, deck = bar(client, "/corpora/match-reviews/parameters?model=bernoulli&alpha=0&text=match+was+sharp&presenter=1"
                          "&slide=table")
    cell = parse_qs(urlsplit(link(deck, "next")).query)
    assert cell["word"] == ["match"] and "class" not in cell
    _, deck = bar(client, link(deck, "next"))
    prior = parse_qs(urlsplit(link(deck, "next")).query)
    assert prior["word"] == ["match"] and prior["class"] == ["negative"]


def test_exit_leaves_presenter_mode_on_the_same_page_with_the_same_settings(client):
    _, deck = bar(client, f"/corpora/match-reviews?{SETTINGS}&presenter=1&slide=documents")
    exit_link = deck.find("a", class_="deck-exit")
    assert exit_link.has_attr("data-presenter-toggle")
    assert exit_link["href"] == f"/corpora/match-reviews?{SETTINGS}"
    normal = soup_of(client.get(exit_link["href"]))
    assert normal.find("nav", class_="deck-bar") is None and normal.find("h1") is not None


def test_a_slide_the_page_does_not_have_opens_its_first_and_an_unknown_one_is_said(client):
    page, deck = bar(client, f"/corpora/match-reviews?{SETTINGS}&presenter=1&slide=mistakes")
    assert page.find("section", id="slide-classes") is not None
    assert "· 1/" in deck.get_text()
    page, _ = bar(client, f"/corpora/match-reviews?{SETTINGS}&presenter=1&slide=nonsense")
    assert page.find(class_="errors").find("li").get_text(" ", strip=True) == "slide : There is no such slide."
    assert page.find("section", id="slide-classes") is not None


def test_the_keys_are_listed_on_every_slide(client):
    page, _ = bar(client, f"/corpora/match-reviews/matrix?{SETTINGS}&presenter=1")
    keys = page.find(id="deck-keys")
    assert keys.has_attr("hidden") and [k.get_text() for k in keys.find_all("kbd")][:4] == ["→", "←", "Home", "End"]


# --- into the deck from any page (issue 36, part 1) -------------------------------------------------------------------


@pytest.mark.parametrize("kind, corpus, settings", [
    ("text", "match-reviews", SETTINGS + "&slide=priors"),  # another page's slide: the deck starts at this page's first
    ("table", "iris", "var_smoothing=0.01"),
])
def test_every_lesson_page_has_a_present_control_that_opens_its_first_slide_with_the_state(client, kind, corpus,
                                                                                              settings):
    for page in pages.PAGES[kind]:
        path = f"/corpora/{corpus}{page.path}"
        if page.key in ("cell", "prior"):  # one parameter's pages: which one is part of the address
            settings_here = settings + "&word=match&class=positive"
        else:
            settings_here = settings
        response = client.get(f"{path}?{settings_here}")
        assert response.status_code == 200, path
        present = soup_of(response).select("a.present-link[data-presenter-toggle]")
        assert len(present) == 1 and present[0].get_text(strip=True) == "Present", path
        assert present[0].has_attr("data-first-slide") == (page.slide_parameter == "slide"), path
        shown, deck = bar(client, present[0]["href"])
        query = parse_qs(urlsplit(present[0]["href"]).query)
        assert urlsplit(present[0]["href"]).path == path and query["presenter"] == ["1"], path
        for name, value in parse_qs(settings_here).items():
            if name != "slide":
                assert query[name] == value, (path, name)
        # The page's first slide (the Bayes'-rule pages: their first step, none being asked for).
        number = next(n for n, slide in enumerate(pages.walk(kind), 1) if slide.page is page)
        assert deck.find(class_="deck-position").get_text(" ", strip=True).endswith(
            f"{number}/{len(pages.walk(kind))} slides"), path
        assert not shown.select("a.present-link"), path  # in the deck: the bar's Exit instead


def test_present_keeps_the_step_on_screen_and_the_pages_own_parameters(client):
    inference = soup_of(client.get(f"/corpora/match-reviews/inference?{SETTINGS}&step=smoothing"))
    [present] = inference.select("a.present-link")
    assert parse_qs(urlsplit(present["href"]).query)["step"] == ["smoothing"]
    assert not inference.find(string="Presenter mode")  # one control, not two
    sample = soup_of(client.get(f"/corpora/match-reviews/sample?{SETTINGS}&draw=7"))
    assert parse_qs(urlsplit(sample.select_one("a.present-link")["href"]).query)["draw"] == ["7"]


def test_the_join_slides_go_to_the_lesson_opens_the_deck(app, client):
    from tests.conftest import browser_from

    lecturer = browser_from(app)
    started = soup_of(lecturer.post("/classes", data={"corpus": "match-reviews"}))
    slide = soup_of(lecturer.get(started.find("a", id="show-join-slide")["href"]))
    go = slide.find("a", id="class-lesson")["href"]
    assert urlsplit(go).path == "/corpora/match-reviews" and parse_qs(urlsplit(go).query)["presenter"] == ["1"]
    bar(lecturer, go)


# --- zoom shows less (issue 36, part 2) -------------------------------------------------------------------------


@pytest.mark.parametrize("zoom, rows, words", [("", 6, 7), ("125", 4, 5), ("150", 4, 4)])
def test_zoom_keeps_fewer_rows_and_words_of_the_matrix_on_a_slide(client, zoom, rows, words):
    page = soup_of(client.get(f"/corpora/spam-ham/matrix?presenter=1&zoom={zoom}"))
    table = page.select_one("#slide-matrix table")
    assert len(table.select("tbody tr")) == rows
    assert len(table.select("thead th")) == words + 2  # the document and its class, then the words


@pytest.mark.parametrize("zoom, rows", [("", 6), ("125", 4), ("150", 4)])
def test_zoom_keeps_fewer_of_the_reviews_words_in_the_parameters_slide(client, zoom, rows):
    review = "win a free prize call now claim cash"
    page = soup_of(client.get("/corpora/spam-ham/parameters", query_string={
        "presenter": "1", "slide": "table", "zoom": zoom, "text": review}))
    assert len(page.select_one(".deck-slide table").select("tbody tr")) == rows


def test_kept_at_zoom():
    from webnb.lesson.slides import kept_at_zoom

    assert [kept_at_zoom(6, zoom) for zoom in ("", "125", "150")] == [6, 4, 4]
    assert [kept_at_zoom(7, zoom) for zoom in ("", "125", "150")] == [7, 5, 4]
    assert kept_at_zoom(2, "150") == 2  # never fewer than two


@pytest.mark.parametrize("zoom, shown", [("", 3), ("125", 2), ("150", 2)])
def test_zoom_keeps_fewer_classes_side_by_side(zoom, shown):
    """Twenty classes: 3 and "+ 17 more" at 100 %, 2 and "+ 18 more" at 125 % and 150 % (at least two)."""
    from webnb.lesson.slides import keep

    scores = [{"log_joint": float(k)} for k in range(20)]
    kept = keep("inference.classes", scores, zoom, by="log_joint")
    assert [s["log_joint"] for s in kept] == [float(k) for k in range(20 - shown, 20)]
    assert kept.more == 20 - shown


