"""Handouts and figures (webnb/views/handouts.py): the whole lecture on one printable page, every slide of the walk
in order with the state on each, and every chart as a standalone SVG file with its title and the state."""
from __future__ import annotations

import xml.etree.ElementTree as ET
from urllib.parse import quote_plus

import pytest
from conftest import pasted_id, soup_of
from test_workspaces import student

from webnb.lesson import pages

SVG = "{http://www.w3.org/2000/svg}"
SETTINGS = "model=bernoulli&alpha=0&text=match+was+sharp"
HOSTILE = '<script>alert(1)</script> "&\''


def words(tag) -> str:
    """A tag's text, its white space run together."""
    return " ".join(tag.get_text(" ").split())


def lecture(client, corpus="match-reviews", query=SETTINGS):
    return soup_of(client.get(f"/corpora/{corpus}/lecture?{query}"))


def test_the_whole_lecture_has_every_slide_of_the_walk_in_order_with_the_state_on_each(client):
    soup = lecture(client)
    walk = pages.walk("text")
    slides = soup.select("article.handout-slide")
    assert len(walk) == 30 and len(slides) == len(walk)
    for number, (slide, article) in enumerate(zip(walk, slides, strict=True), 1):
        position = words(article.select_one(".handout-position"))
        assert position.startswith(f"Slide {number} of 30 · {slide.page.title}"), position
        state = words(article.select_one(".slide-context"))
        assert state == "Match reviews · Bernoulli, α = 0 · match was sharp", state
        assert article.select_one(".handout-body") is not None, f"slide {number} ({slide.title}) was not shown"
        # The slide's own title, as presenter mode shows it (the steps of Bayes' rule are numbered).
        assert slide.title in words(article.select_one(".handout-body h2"))
        # No chrome of the slide's page: no deck bar, no forms, no buttons, one state line per slide.
        assert not article.select(".deck-bar, .deck-keys, form, button, nav, .lesson-header")
        assert len(article.select(".slide-context")) == 1
    # The ids of the slides' pages are made unique (every slide has a title with the id "slide-title").
    ids = [tag["id"] for tag in soup.select("[id]")]
    assert len(ids) == len(set(ids))
    assert soup.select_one("#s3-slide-title") is not None
    # Every reference to an id (a chart's title, a section's heading) names an id of its own slide.
    for number, article in enumerate(slides, 1):
        own = {tag["id"] for tag in article.select("[id]")}
        references = ".handout-body [aria-labelledby], .handout-body [aria-describedby], .handout-body [for]"
        for tag in article.select(references):
            for name in ("aria-labelledby", "aria-describedby", "for"):
                for ref in (tag.get(name) or "").split():
                    assert ref.startswith(f"s{number}-") and ref in own, (number, name, ref)
    assert soup.select_one("#s3-slide-matrix")["aria-labelledby"] == "s3-slide-title"
    # A copied slide is a picture: nothing in it asks the server for anything.
    assert not [tag for tag in soup.select(".handout-body *") if any(a.startswith("hx-") for a in tag.attrs)]
    # The decision slide says what the lesson decided: α = 0, Bernoulli, "match was sharp" is positive.
    decision = slides[[s.key for s in walk].index("decision")]
    assert "positive" in words(decision)


@pytest.mark.slow  # the whole lecture twice: over a second
def test_two_slides_per_page_pairs_the_slides(client):
    soup = lecture(client, query=f"{SETTINGS}&per_page=2")
    sheets = soup.select(".handout-sheet")
    assert [len(sheet.select("article.handout-slide")) for sheet in sheets] == [2] * 15
    assert "handout-2" in soup.body["class"]
    one = lecture(client)
    assert len(one.select(".handout-sheet")) == 30 and "handout-1" in one.body["class"]
    wrong = lecture(client, query=f"{SETTINGS}&per_page=7")
    assert len(wrong.select(".handout-sheet")) == 30
    assert "Slides per page are 1 or 2" in wrong.select_one(".errors").get_text()


def test_the_lecture_of_a_table_has_the_nine_gaussian_slides(client):
    soup = lecture(client, corpus="iris", query="var_smoothing=0.01")
    walk = pages.walk("table")
    slides = soup.select("article.handout-slide")
    assert len(walk) == 9 and len(slides) == 9
    for slide, article in zip(walk, slides, strict=True):
        assert slide.page.title in article.select_one(".handout-position").get_text()
        assert "var_smoothing = 0.01" in words(article.select_one(".slide-context"))
        assert article.select_one(".handout-body") is not None
        # Drawn in handout mode: the value boxes, the settings and the step buttons are not on a printed slide.
        assert not article.select("form, button, nav, input, .lesson-header, .deck-bar")
        assert len(article.select(".slide-context")) == 1


def test_the_review_is_escaped_on_every_slide(client):
    response = client.get(f"/corpora/match-reviews/lecture?text={quote_plus(HOSTILE)}")
    body = response.get_data(as_text=True)
    assert response.status_code == 200
    assert "<script>alert(1)" not in body
    soup = soup_of(response)
    states = [words(s) for s in soup.select("article .slide-context")]
    assert len(states) == 30 and all(HOSTILE in state for state in states)


def test_the_lesson_pages_link_to_the_handout_with_their_state(client):
    settings = "model=bernoulli&alpha=0&text=was+match+sharp"  # not the corpus's own review, which links leave out
    soup = soup_of(client.get(f"/corpora/match-reviews/parameters?{settings}"))
    links = [a["href"] for a in soup.select(".handout-links a")]
    lecture_path = f"/corpora/match-reviews/lecture?{settings}"
    assert links == [lecture_path, f"{lecture_path}&per_page=2"]
    # On paper, the page prints its state (hidden on screen).
    state = soup.select_one(".print-state")
    assert state.has_attr("hidden") and "Bernoulli, α = 0" in words(state)
    # On a slide, the handout is in the list of keys (one key away, off the slide), and the slide has its own line
    # of context.
    slide = soup_of(client.get(f"/corpora/match-reviews/parameters?{settings}&presenter=1"))
    assert not slide.select(".print-state")
    assert [a["href"] for a in slide.select("#deck-keys .handout-links a")] == links
    assert not slide.select(".deck-slide .handout-links")


def test_an_unknown_corpus_has_no_lecture(client):
    assert client.get("/corpora/no-such-corpus/lecture").status_code == 404
    assert client.get("/corpora/no-such-corpus/figures/sweep/sweep.svg").status_code == 404
    assert client.get("/corpora/match-reviews/figures/nowhere/sweep.svg").status_code == 404
    assert client.get("/corpora/match-reviews/figures/sweep/no-such-chart.svg").status_code == 404


def test_a_student_only_sees_their_own_corpus(make_hosted_app):
    app = make_hosted_app()
    alice, bob = student(app), student(app)
    corpus = "\n".join(["spam\tzyxsecret win money now", "ham\tzyxsecret lunch at noon", "spam\tfree money win",
                        "ham\tsee you at lunch"])
    alice_id = pasted_id(alice, corpus, "Alice's corpus")
    mine = soup_of(alice.get(f"/corpora/{alice_id}/lecture?text=win+money"))
    assert len(mine.select("article.handout-slide")) == 30
    assert all(article.select_one(".handout-body") for article in mine.select("article.handout-slide"))
    assert "zyxsecret" in mine.get_text()
    refused = bob.get(f"/corpora/{alice_id}/lecture?text=win+money")
    assert refused.status_code == 404 and "zyxsecret" not in refused.get_data(as_text=True)
    figure = bob.get(f"/corpora/{alice_id}/figures/sweep/sweep.svg")
    assert figure.status_code == 404 and "zyxsecret" not in figure.get_data(as_text=True)
    # Her own α sweep as a file.
    svg = alice.get(f"/corpora/{alice_id}/figures/sweep/sweep.svg?text=win+money")
    assert svg.status_code == 200 and "Alice" in svg.get_data(as_text=True)


# -- the charts as SVG files ----------------------------------------------------------------------------------------

CHARTS = [
    # (page, its address and state, the chart's name, words of its title)
    ("/corpora/match-reviews/evaluation/sweep", "model=multinomial&alpha=1", "sweep", "Accuracy and log loss"),
    ("/corpora/china-japan/confidence", "text=Chinese+Chinese+Chinese+Tokyo+Japan&alpha=1", "posterior",
     "Posterior of each class"),
    ("/corpora/china-japan/confidence", "text=Chinese+Chinese+Chinese+Tokyo+Japan&alpha=1", "doubt",
     "One minus the top posterior"),
    ("/corpora/match-reviews/inference", "step=contributions&text=match+was+sharp&alpha=1", "contributions",
     "Log-likelihood ratio of each word"),
    ("/corpora/match-reviews/parameters/prior", "word=match&class=negative&alpha=1", "beta", "Likelihood, prior"),
    ("/corpora/iris/gaussian/parameters", "var_smoothing=0.01", "density-1", "Density of sepal length"),
    ("/corpora/iris/gaussian/inference", "step=densities", "step-density-2", "Density of sepal width"),
]


@pytest.mark.parametrize(("page", "query", "name", "title"), CHARTS)
def test_every_chart_downloads_as_the_same_drawing_in_a_standalone_svg(client, page, query, name, title):
    soup = soup_of(client.get(f"{page}?{query}"))
    drawn = soup.select_one(f'svg[data-figure="{name}"]')
    assert drawn is not None
    link = drawn.find_next("p", class_="figure-download").a
    assert link.get_text(" ", strip=True).startswith("Download SVG") and link.has_attr("download")
    response = client.get(link["href"])
    assert response.status_code == 200
    assert response.mimetype == "image/svg+xml"
    disposition = response.headers["Content-Disposition"]
    assert disposition.startswith("attachment;") and disposition.endswith(f'-{name}.svg"')
    root = ET.fromstring(response.data)
    assert root.tag == f"{SVG}svg"
    width, height = float(root.get("width")), float(root.get("height"))
    assert root.get("viewBox") == f"0 0 {width:g} {height:g}"
    assert title in root.find(f"{SVG}title").text
    texts = [" ".join(t.itertext()) for t in root.iter(f"{SVG}text")]
    assert any(title in t for t in texts)
    state = root.find(f"{SVG}desc").text
    assert any(state.startswith(t) for t in texts if t)
    # The charts' stylesheet is inside, so that the file is drawn as on the page.
    style = root.find(f"{SVG}style").text
    assert ".sweep-chart" in style and "--class-0" in style
    # The same drawing: the page's <svg>, with every element and its text, nested under the heading.
    nested = next(e for e in root.iter(f"{SVG}svg") if e.get("data-figure") == name)
    assert nested.get("viewBox") == drawn["viewbox"]
    bottom = float(nested.get("y")) + float(nested.get("height"))
    assert float(nested.get("y")) > 0 and float(nested.get("height")) == float(drawn["viewbox"].split()[3])
    page_shapes = [tag.name for tag in drawn.find_all(True)]
    file_shapes = [e.tag.removeprefix(SVG) for e in nested.iter() if e is not nested]
    assert file_shapes == page_shapes
    assert "".join(nested.itertext()).split() == drawn.get_text().split()
    # The legend beside the chart on the page (a swatch and its words) is under the drawing in the file.
    figure = drawn.find_parent("figure")
    swatches = figure.select("svg.swatch") if figure else []
    legend = [(words(swatch.parent), swatch.select_one("line")["class"]) for swatch in swatches]
    in_file = [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "figure-legend"]
    assert in_file == [label for label, _ in legend]
    assert bottom == height if not legend else bottom < height  # the legend's rows under the drawing
    assert len(in_file) >= {"posterior": 2, "beta": 3, "density-1": 3, "step-density-2": 3}.get(name, 0)
    file_swatches = [e for e in root.iter(f"{SVG}svg") if "swatch" in (e.get("class") or "").split()]
    assert [e.find(f"{SVG}line").get("class").split() for e in file_swatches] == [c for _, c in legend]


def test_the_state_in_a_svg_file_says_the_settings_and_escapes_the_review(client):
    review = quote_plus(HOSTILE)
    page = soup_of(client.get(f"/corpora/match-reviews/evaluation/sweep?model=multinomial&alpha=0.5&text={review}"))
    response = client.get(page.select_one(".figure-download a")["href"])
    body = response.get_data(as_text=True)
    assert "<script>" not in body
    root = ET.fromstring(response.data)
    state = root.find(f"{SVG}desc").text
    assert state == f"Match reviews · Multinomial, α = 0.5 · “{HOSTILE}”"
    assert f"“{HOSTILE}”" in " ".join(" ".join(t.itertext()) for t in root.iter(f"{SVG}text"))
    assert response.headers["Content-Disposition"] == 'attachment; filename="match-reviews-sweep-sweep.svg"'


def test_slides_carry_no_download_links(client):
    soup = soup_of(client.get("/corpora/match-reviews/evaluation/sweep?presenter=1"))
    assert soup.select('svg[data-figure="sweep"]') and not soup.select(".figure-download")


@pytest.mark.slow  # the whole lecture, twice: over a second
def test_slides_still_being_computed_are_named_and_the_page_reloads_itself(app, client, monkeypatch):
    """A large corpus is counted in the background: the handout first shows the progress of counting (as every page
    does), then the slides whose numbers are still being computed say so, link to their progress and the page asks
    for itself again; once the work is done every slide is there."""
    # Five documents count as many: the counting, and the four models of the comparison, go to the background.
    monkeypatch.setattr("webnb.views.common.LARGE_CORPUS", 1)
    monkeypatch.setattr("webnb.views.compare.LARGE_CORPUS", 1)
    jobs = app.extensions["webnb"]["jobs"]
    first = client.get("/corpora/match-reviews/lecture?text=match")
    assert first.status_code == 202
    jobs.wait(soup_of(first, 202).select_one('a[href^="/jobs/"]')["href"].rsplit("/", 1)[-1], timeout=60)
    rounds = []
    for _ in range(5):
        soup = lecture(client, query="text=match")
        pending = soup.select("article .notice a[href^='/jobs/']")
        reloads = soup.select('meta[http-equiv="refresh"]')
        rounds.append(len(pending))
        assert bool(reloads) == bool(pending)
        if not pending:
            break
        assert f"{len(pending)} slide" in words(soup.select_one(".handout-intro .notice"))
        assert all("still being computed" in words(link.parent) for link in pending)
        for link in pending:
            jobs.wait(link["href"].rsplit("/", 1)[-1], timeout=60)
    assert rounds[0] >= 1 and rounds[-1] == 0, rounds
    assert len(soup.select("article .handout-body")) == 30


def test_the_whole_lecture_costs_one_request_of_the_rate_limit(make_hosted_app):
    app = make_hosted_app(WEBNB_RATE_LIMIT="5 per minute")
    browser = student(app)
    response = browser.get(f"/corpora/match-reviews/lecture?{SETTINGS}")
    assert response.status_code == 200 and len(soup_of(response).select("article .handout-body")) == 30
    assert response.headers["X-RateLimit-Remaining"] == "4"
    assert browser.get(f"/corpora/match-reviews/lecture?{SETTINGS}").headers["X-RateLimit-Remaining"] == "3"


def test_no_module_reads_back_the_html_the_app_writes():
    """Handouts and figures are drawn by the templates in handout or figure mode, from the same records as the
    pages: no module of the app parses HTML (renaming a CSS class must not silently change a printed handout)."""
    import ast

    from conftest import REPO_ROOT

    found = []
    for path in sorted((REPO_ROOT / "webnb").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            found += [(path.name, name) for name in names
                      if name == "html.parser" or name.split(".")[0] in ("bs4", "lxml", "html5lib")]
    assert found == []


def test_a_figure_is_the_chart_its_page_draws_stopped_where_it_is_drawn(client):
    """The SVG file comes from the drawing the page's figure_svg macro makes (webnb/views/handouts.py: offer_figure),
    so the file's drawing and legend follow the page's records, not its HTML: the legend's words are the chart's
    LegendEntry labels, in order."""
    page = soup_of(client.get("/corpora/china-japan/confidence?text=Chinese+Chinese+Chinese+Tokyo+Japan&alpha=1"))
    on_page = [words(item) for item in page.select_one('svg[data-figure="posterior"]').find_parent("figure")
               .select("ul.legend li")]
    response = client.get("/corpora/china-japan/figures/confidence/posterior.svg"
                          "?text=Chinese+Chinese+Chinese+Tokyo+Japan&alpha=1")
    root = ET.fromstring(response.data)
    in_file = [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "figure-legend"]
    assert in_file == on_page == ["China", "not China"]
    # A chart the page does not draw with these settings is a 404 that says so, not an empty file.
    missing = client.get("/corpora/china-japan/figures/confidence/doubt.svg?text=&alpha=1")
    assert missing.status_code == 404
