"""Hosted mode: a corpus id in a parameter (``test=``, ``from=test``) is checked against the request's workspace
before any cache is asked, so caches warmed by the owner never answer another workspace's request."""
from __future__ import annotations

import pytest
from test_workspaces import alice_and_bob, student

# Alice's private corpus has the classes of the built-in match reviews, so it is a valid test corpus for them;
# its labels are the opposite of what the match reviews teach, so every document is misclassified and listed.
SECRET_WORD = "zyxprivate"
ALICE_CORPUS = "\n".join(
    f"{label}\t{SECRET_WORD} {text} note{i}"
    for i, (label, text) in enumerate([
        ("negative", "sharp match and composed keeper"),
        ("positive", "match was not sharp"),
        ("negative", "brilliant composed match"),
        ("positive", "dull match was not composed"),
    ])
)


def lesson_routes(app) -> list[str]:
    """Every GET route of a corpus (pages, fragments' pages, JSON twins and downloads)."""
    return sorted(
        rule.rule for rule in app.url_map.iter_rules() if "corpus_id" in rule.arguments and "GET" in rule.methods
    )


@pytest.mark.slow  # about 1 s
def test_a_test_corpus_id_is_authorised_before_any_cache(hosted_app):
    app, alice, bob, alice_id = alice_and_bob(hosted_app, ALICE_CORPUS, "Alice's private corpus")
    routes = lesson_routes(app)
    assert len(routes) >= 25
    query = f"test={alice_id}&document=0&from=test&step=decision&model=multinomial&alpha=1"
    warmed, refused = 0, 0
    for rule in routes:
        url = rule.replace("<corpus_id>", "match-reviews")
        # The owner warms every cache first: her own view of the page uses her corpus as the test documents.
        owner = alice.get(f"{url}?{query}")
        assert owner.status_code < 500, (url, owner.status_code)
        warmed += SECRET_WORD in owner.get_data(as_text=True) or "private corpus" in owner.get_data(as_text=True)
        for suffix, headers in (("", {}), ("&format=json", {}), ("", {"HX-Request": "true"})):
            response = bob.get(f"{url}?{query}{suffix}", headers=headers)
            body = response.get_data(as_text=True)
            assert response.status_code < 500, (url, suffix, response.status_code)
            assert SECRET_WORD not in body and "note0" not in body, (url, suffix)
            assert "Alice&#39;s private corpus" not in body and "Alice's private corpus" not in body, (url, suffix)
            refused += "There is no test corpus" in body
    # The owner really saw her documents (the evaluation's misclassified list, the step-through of one of them),
    # so the caches Bob asked were warm.
    assert warmed >= 2
    assert refused >= 5
    evaluation = bob.get(f"/corpora/match-reviews/evaluation?test={alice_id}&format=json").get_json()
    assert "There is no test corpus" in evaluation["error"]
    predictions = bob.get(f"/corpora/match-reviews/export/predictions.csv?test={alice_id}")
    assert predictions.status_code == 400 and SECRET_WORD not in predictions.get_data(as_text=True)
    mine = alice.get(f"/corpora/match-reviews/export/predictions.csv?test={alice_id}").get_data(as_text=True)
    assert mine.count("\n") == 5  # a header and her four documents


def test_the_owner_still_sees_her_test_corpus_after_another_workspace_asked(hosted_app):
    app, alice, bob, alice_id = alice_and_bob(hosted_app, ALICE_CORPUS, "Alice's private corpus")
    # Bob asks first (nothing cached for him), then Alice: she sees her four documents scored.
    refused = bob.get(f"/corpora/match-reviews/evaluation?test={alice_id}&format=json").get_json()
    assert "There is no test corpus" in refused["error"]
    data = alice.get(f"/corpora/match-reviews/evaluation?test={alice_id}&format=json").get_json()
    assert data.get("error") is None
    assert data["test"]["source"] == "corpus" and data["test"]["n_test"] == 4


def test_the_compare_cache_is_keyed_by_the_test_corpus_owner(hosted_app):
    app, alice, bob, alice_id = alice_and_bob(hosted_app, ALICE_CORPUS, "Alice's private corpus")
    url = f"/corpora/match-reviews/compare?test={alice_id}&format=json"
    assert alice.get(url).get_json()["comparison"] is not None
    refused = bob.get(url).get_json()
    assert "comparison" not in refused and "There is no test corpus" in refused["error"]


@pytest.mark.parametrize("page", ["evaluation", *(pytest.param(page, marks=pytest.mark.slow)
                                                  for page in ("evaluation/sweep", "compare", "words"))])
def test_a_built_in_test_corpus_is_everyones(hosted_app, page):
    app = hosted_app()
    alice, bob = student(app), student(app)
    for who in (alice, bob):
        response = who.get(f"/corpora/china-japan/{page}?test=china-japan&format=json")
        assert response.status_code == 200
        assert "There is no test corpus" not in (response.get_json().get("error") or "")
