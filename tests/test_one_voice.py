"""One voice (issue 36, part 6): the small contradictions a lecturer met, each said from the record the numbers come
from. The α sweep names the α it picks for the reason it was picked; both parameter counts are in the JSON twin;
the float the seed points at keeps every digit; the notation's name of the pseudo-count is used on the bar and in
the keys list; the keys list of a deck offers only keys that do something there; a class corpus's test set reads as
words."""
from __future__ import annotations

import dataclasses

import pytest

from tests.conftest import soup_of
from webnb.hosting.catalog import _preset_phrase


def words(element) -> str:
    return " ".join(element.get_text(" ").split())


# --- the α sweep ----------------------------------------------------------------------------------------------------


def test_the_sweep_slide_says_why_the_alpha_it_names_is_named(client):
    """The match reviews' 5 documents cannot tell the 20 values apart, and 19 of them are equally accurate: the slide
    never says "tie" beside a "most accurate" α, and says the α was picked by its log loss."""
    data = client.get("/corpora/match-reviews/evaluation/sweep?format=json").get_json()
    assert (data["best_is_clear"], len(data["tied_alphas"]), data["as_accurate"], data["best_picked_by"]) == (
        False, 20, 19, "log loss")
    slide = soup_of(client.get("/corpora/match-reviews/evaluation/sweep?presenter=1"))
    lead = words(slide.select_one(".slide-lead"))
    assert "tie" not in lead and lead.endswith("20 values too close to call.")
    assert words(slide.select_one(".best-alpha dt")) == "◯ Most accurate α"
    assert words(slide.select_one(".best-alpha dd")).startswith("0 100.0 % right least log loss")
    page = words(soup_of(client.get("/corpora/match-reviews/evaluation/sweep")).select_one("#sweep-verdict")
                 or soup_of(client.get("/corpora/match-reviews/evaluation/sweep")))
    assert "19 of these 20 are equally the most accurate; of them, the smallest log loss is α = 0" in page


def test_a_clear_best_alpha_is_named_best(client):
    data = client.get("/corpora/spam-ham/evaluation/sweep?format=json").get_json()
    slide = soup_of(client.get("/corpora/spam-ham/evaluation/sweep?presenter=1"))
    label = words(slide.select_one(".best-alpha dt"))
    assert label == ("◯ Best α" if data["best_is_clear"] else "◯ Most accurate α")
    said = words(slide.select_one(".best-alpha dd"))
    assert ("least log loss" in said) == (data["best_picked_by"] == "log loss")


# --- parameter counts -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("model, counts", [
    ("bernoulli", {"every": 18, "last_prior_fixed": 17}),
    ("multinomial", {"every": 18, "last_prior_fixed": 17, "free": 15}),
])
def test_both_parameter_counts_are_in_the_json_twin_and_on_the_page(client, model, counts):
    """Seed 001's match reviews: K = 2 classes, d = 8 words; the notes count K·d + (K − 1) = 17."""
    data = client.get(f"/corpora/match-reviews/parameters?model={model}&format=json").get_json()
    assert data["parameter_counts"] == counts and data["parameter_count"] == counts["every"]
    text = words(soup_of(client.get(f"/corpora/match-reviews/parameters?model={model}")))
    assert "K(d + 1) = 18 numbers" in text and "K·d + (K − 1) = 17" in text
    assert ("K(d − 1) + (K − 1) = 15" in text) == (model == "multinomial")


# --- the float the seed points at -------------------------------------------------------------------------------------


def test_the_underflow_step_shows_every_digit_of_the_float64_product(client):
    page = soup_of(client.get("/corpora/match-reviews/inference?step=underflow&text=match+was+sharp"))
    cells = [words(td) for td in page.select("table.product-demonstration td")]
    assert "1.0000000000000005 × 10⁻⁴⁰" in cells  # 0.01²⁰ in float64: not 10⁻⁴⁰, the seed's point


# --- the notation's pseudo-count, the keys per deck -------------------------------------------------------------


def test_the_bar_and_the_keys_list_name_the_pseudo_count_as_the_notation_does(client):
    slide = soup_of(client.get("/corpora/match-reviews/parameters?presenter=1&notation=beta-alpha&alpha=2"))
    assert words(slide.select_one(".slide-context")).split(" · ")[1].endswith("γ = 2")
    assert words(slide.select_one(".slide-alpha")) == "γ = 2"
    assert slide.select_one("[data-control=alpha-up]")["title"] == "γ = 5"
    keys = {words(row.th): words(row.td) for row in slide.select("#deck-keys tr")}
    assert keys["− / +"] == "γ one step down / up, on the same slide"
    assert "α" not in " ".join(words(t) for t in slide.select(".deck-bar, #deck-keys table"))


def test_a_table_decks_keys_list_offers_only_keys_that_work_there(client):
    slide = soup_of(client.get("/corpora/iris/gaussian?presenter=1"))
    keys = [words(row.th) for row in slide.select("#deck-keys tr")]
    assert keys == ["→", "←", "Home / End", "p", "t", "z / Z", "Tab , Enter", "Esc", "?"]
    assert not slide.select("[data-control=alpha-up], [data-control=model], [data-control=review]")
    text = soup_of(client.get("/corpora/match-reviews/matrix?presenter=1"))
    assert [words(row.th) for row in text.select("#deck-keys tr")][4:7] == ["− / +", "m", "r"]


# --- a class corpus's presets in words ------------------------------------------------------------------------------


@pytest.mark.parametrize("presets, phrases", [
    ((("model", "multinomial"), ("alpha", "1"), ("test", "news-test")),
     ("multinomial model", "α = 1", "news-test as the test set")),
    ((("test", "training"), ("alpha", "2"), ("notation", "beta-alpha")),
     ("its training documents as the test set", "γ = 2", "the notation β and α")),
    ((("test", "split"),), ("a held-out split",)),
])
def test_a_class_corpus_opens_with_words_that_read(app, presets, phrases):
    entry = next(e for e in app.extensions["webnb"]["catalog"].builtin() if not e.is_table)
    assert dataclasses.replace(entry, presets=presets).preset_phrases == phrases
    assert not any(phrase.startswith("tested on") for phrase in phrases)
    assert _preset_phrase("alpha", "0.5", "γ") == "γ = 0.5"
