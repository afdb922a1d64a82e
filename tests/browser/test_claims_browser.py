"""Seed 003's claims on the projector: the movie reviews' compare slide "Is a difference real?" and evaluation slide
at 1024 × 768 at every zoom, in legible type, each claim's verdict the twin's; and on a phone, the claims' cards."""
from __future__ import annotations

import json
from urllib.parse import urlencode

import pytest
from playwright.sync_api import expect
from test_seed_lessons import review_polarity_archive

from browser.slides import MEASURE, slide_problems
from webnb.lesson.pages import ZOOMS

pytestmark = [pytest.mark.browser, pytest.mark.corpora, pytest.mark.slow]


@pytest.fixture(scope="module")
def movie_reviews(served_app, shared_corpora, tmp_path_factory) -> str:
    """The 2,000 reviews, published on the served app as the operator publishes them (``--lesson movie-reviews``)."""
    import io

    from webnb.cli import main

    archive = review_polarity_archive(shared_corpora, tmp_path_factory.mktemp("reviews"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("webnb.create_app", lambda: served_app)
        assert main(["corpora", "add", str(archive), "--lesson", "movie-reviews"], out=io.StringIO()) == 0
    return "movie-reviews"


def twin(page, server_url: str, path: str, **query) -> dict:
    return json.loads(page.context.request.get(
        f"{server_url}/corpora/movie-reviews{path}?{urlencode({**query, 'format': 'json'})}").text())


def test_the_claims_fit_the_projector_at_every_zoom_and_say_the_twins_verdicts(page, server_url, shot, movie_reviews):
    claims = {claim["key"]: claim for claim in twin(page, server_url, "/compare", splits="3")["claims"]["claims"]}
    assert [claims[key]["verdict"] for key in ("bigrams", "binary", "logistic")] == [
        "contradicts", "consistent", "cannot tell"]
    problems = []
    for zoom in ZOOMS:
        for path, query, prefix in (("/compare", {"slide": "pairs", "splits": "3"}, "slide-claim-"),
                                    ("/evaluation", {}, "slide-claim-")):
            page.goto(f"{server_url}/corpora/{movie_reviews}{path}?"
                      + urlencode({**query, "presenter": "1", **({"zoom": zoom} if zoom else {})}))
            for key, claim in claims.items():
                line = page.locator(f".deck-slide #{prefix}{key}")
                expect(line).to_have_attribute("data-verdict", claim["verdict"])
                expect(line).to_contain_text(claim["topic"] if path == "/evaluation" else claim["said"])
            shot(page, f"claims{path.replace('/', '-')}-zoom-{zoom or '100'}", full_page=False)
            problems += [f"{path} zoom {zoom or 100}: {p}" for p in slide_problems(page.evaluate(MEASURE))]
    assert problems == [], "\n".join(problems)
    # The full table is one key away, with the claims' accuracies.
    page.goto(f"{server_url}/corpora/{movie_reviews}/compare?slide=pairs&presenter=1")
    page.locator(".deck-slide details.full-table > summary").first.click()
    expect(page.locator(".deck-slide .claims-table #claim-bigrams")).to_contain_text("78.0 %")


def test_on_a_phone_each_claim_is_a_card_that_reads_from_the_left(page, server_url, shot, movie_reviews):
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{server_url}/corpora/{movie_reviews}/compare?splits=3")
    card = page.locator("#claim-bigrams")
    card.scroll_into_view_if_needed()
    expect(card).to_contain_text("This split says the opposite")
    verdict = card.locator("td.prose").last
    assert verdict.evaluate("e => getComputedStyle(e).textAlign") == "left"
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    shot(page, "claims-phone", full_page=False)


def test_on_the_page_the_claims_table_fits_1024_px_without_scrolling_sideways(page, server_url, shot, movie_reviews):
    page.goto(f"{server_url}/corpora/{movie_reviews}/compare?splits=3")
    table = page.locator("table.claims-table")
    expect(table.locator("tbody tr")).to_have_count(3)
    table.scroll_into_view_if_needed()
    assert table.evaluate("t => t.closest('[role=region]').scrollWidth <= t.closest('[role=region]').clientWidth")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    sizes = table.evaluate("t => [...t.querySelectorAll('td')].map(c => parseFloat(getComputedStyle(c).fontSize))")
    assert len(set(sizes)) == 1, sizes  # one type size for every cell
    shot(page, "claims-page-1024", full_page=False)
