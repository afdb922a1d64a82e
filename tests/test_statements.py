"""A slide never contradicts the lesson (issue 24, part 4): every sentence of Bayes' rule that states a decision
(decided, cannot decide, tie; the α in use) carries what it is about (data-about) and what it says (data-says,
data-class), and each is held against the JSON twin of the same address, on every step of every seed lesson, in
presenter mode and out of it. Any "cannot decide" outside such a sentence, or a verdict without one, fails."""
from __future__ import annotations

import math
import re
from urllib.parse import urlencode

import pytest
from conftest import publish_lecture_corpora, soup_of

from webnb.lesson.seed_lessons import SEED_LESSONS, get_recipe
from webnb.lesson.state import STEPS

TEXT_SEEDS = [seed for seed in SEED_LESSONS if seed.endpoint == "inference.show" and seed.recipe is None]
# Beyond the seeds: a lesson at α = 1 (its zero step is a what-if) and the China review that flips when repeated.
MORE = {
    "match-alpha-1-cannot-at-zero": ("match-reviews", {"model": "bernoulli", "alpha": "1", "text": "not sharp match"}),
    "match-floor": ("match-reviews", {"model": "bernoulli", "alpha": "0", "floor": "1", "text": "not sharp match"}),
    "china-japan-99": ("china-japan", {"model": "multinomial", "alpha": "1",
                                       "text": "Chinese Chinese Chinese Tokyo Japan", "repeats": "99"}),
}
LESSONS = {seed.id: (seed.corpus_id, dict(seed.parameters)) for seed in TEXT_SEEDS} | MORE


def check_statements(client, corpus: str, settings: dict, step: str, presenter: bool) -> list[str]:
    """What disagrees between the step's sentences and the JSON twin of the same address (nothing, when all agree)."""
    query = {**settings, "step": step, **({"presenter": "1"} if presenter else {})}
    url = f"/corpora/{corpus}/inference?{urlencode(query, doseq=True)}"
    page = soup_of(client.get(url))
    twin = client.get(url + "&format=json").get_json()
    step_part = page.find(id=f"step-{step}")
    problems = [f"{url}: {problem}" for element in step_part.select("[data-about]")
                for problem in marked_sentence(element, twin)]
    problems += [f"{url}: {problem}" for problem in unmarked_sentences(step_part)]
    said, context = twin["statements"], page.find(class_="slide-context")
    if presenter and (context["data-alpha"], context["data-floor"]) != (said["alpha"], "1" if said["floor"] else "0"):
        problems.append(f"{url}: the context line says α = {context['data-alpha']}, floor {context['data-floor']}")
    return problems


def marked_sentence(element, twin: dict) -> list[str]:
    """What a sentence marked with data-about says that its record does not."""
    said, about = twin["statements"], element["data-about"]
    text = element.get_text(" ", strip=True)
    where = f"{about}: {text[:90]}"
    if about == "smoothing-alpha":
        wrong = element["data-alpha"] != said["smoothing_alpha"] or (
            not said["smoothing_is_lesson"] and f"uses α = {said['alpha']}" not in text)
        return [where] if wrong else []
    if about == "float64-products":
        wrong = element["data-says"] != "cannot-decide" or any(p != 0 for p in twin["underflow"]["naive_products"])
        return [where] if wrong else []
    verdicts = {"lesson": said["lesson"], "at-zero": said["at_zero"], "smoothed": said["smoothed"],
                "floored": said["floored"],
                "repeated": said["repetition"]["repeated"] if said["repetition"] else None}
    expected = verdicts[about]
    problems = []
    if (element["data-says"], element["data-class"]) != (expected["says"], expected["decision"] or ""):
        problems.append(f"{where} (the record says {expected['says']} {expected['decision']})")
    if expected["decision"] and expected["says"] != "cannot-decide" and expected["decision"] not in text:
        problems.append(f"{where} (does not name {expected['decision']})")
    return problems


def unmarked_sentences(step_part) -> list[str]:
    """"cannot decide" said outside a sentence marked as saying it, a verdict without its record, a "still"."""
    problems = []
    for string in step_part.find_all(string=re.compile("cannot decide", re.I)):
        holder = string.find_parent(attrs={"data-says": True})
        if holder is None or holder["data-says"] != "cannot-decide":
            problems.append(f"'cannot decide' outside a sentence that says so: {string.strip()[:90]}")
    for element in step_part.select(".verdict"):
        text = element.get_text(" ", strip=True)
        if not element.has_attr("data-about"):
            problems.append(f"a verdict without its record: {text[:90]}")
        if re.search(r"\bstill decided\b", text):
            problems.append(f"'still' in {text[:90]}")
    return problems


@pytest.mark.parametrize("lesson", list(LESSONS))
def test_every_statement_of_every_step_agrees_with_the_record(client, lesson):
    corpus, settings = LESSONS[lesson]
    problems = [problem for step in STEPS for presenter in (False, True)
                for problem in check_statements(client, corpus, settings, step, presenter)]
    assert problems == [], "\n".join(problems)


def test_a_lesson_at_alpha_one_says_its_own_decision_beside_the_what_if_of_alpha_zero(client):
    corpus, settings = MORE["match-alpha-1-cannot-at-zero"]
    page = soup_of(client.get(f"/corpora/{corpus}/inference?{urlencode({**settings, 'step': 'zeros'})}"))
    at_zero, lesson = (page.select_one(f'[data-about="{about}"]').get_text(" ", strip=True)
                       for about in ("at-zero", "lesson"))
    assert at_zero == ("Exact α = 0 without the floor: every class has probability 0, so the classifier cannot "
                       "decide.")
    assert lesson == "This lesson, with α = 1: it decides negative ."
    smoothing = soup_of(client.get(f"/corpora/{corpus}/inference?{urlencode({**settings, 'step': 'smoothing'})}"))
    assert smoothing.select_one('[data-about="smoothing-alpha"]').get_text(" ", strip=True) == (
        "Here α = 1, the lesson's own")


def test_the_repeated_review_that_flips_says_why_with_the_prior_once_and_the_ratio_per_copy(client):
    corpus, settings = MORE["china-japan-99"]
    url = f"/corpora/{corpus}/inference?{urlencode({**settings, 'step': 'underflow'})}"
    page = soup_of(client.get(url))
    said = client.get(url + "&format=json").get_json()["statements"]["repetition"]
    assert said["flips"] and said["once"]["decision"] == "China" and said["repeated"]["decision"] == "not China"
    # log(3/4) − log(1/4) = log 3 once; per copy log P(x | not China) − log P(x | China), from the seed's θ.
    assert said["log_prior_ratio"] == pytest.approx(1.0986122886681098)
    china = 3 * math.log(3 / 7) + 2 * math.log(1 / 14)
    not_china = 3 * math.log(2 / 9) + 2 * math.log(2 / 9)
    assert said["log_likelihood_ratio"] == pytest.approx(not_china - china)
    why = " ".join(page.find(class_="repetition-why").get_text(" ").split())
    assert why == ("The prior is counted once, the words once per copy: the prior favours China by 1.0986 "
                   "(log φ(China) − log φ(not China)), each copy favours not China by 0.2996 "
                   "(log P(x | not China) − log P(x | China)), and 99 × 0.2996 = 29.6625 is more than 1.0986: "
                   "the decision flips.")
    assert page.select_one('[data-about="repeated"]').get_text(" ", strip=True) == (
        "Compared as logs, the review repeated 99 times is decided not China , although the review once is decided "
        "China .")


@pytest.fixture(scope="module")
def published(tmp_path_factory, shared_corpora):
    """The app with the lectures' real corpora published as the instructor publishes them."""
    from webnb import create_app

    app = create_app({"TESTING": True, "WTF_CSRF_ENABLED": False},
                     instance_path=str(tmp_path_factory.mktemp("instance")))
    publish_lecture_corpora(app, shared_corpora, tmp_path_factory.mktemp("lecture"))
    yield app
    app.extensions["webnb"]["jobs"].shutdown()
    app.extensions["webnb"]["storage"].dispose()


@pytest.mark.corpora
@pytest.mark.slow
@pytest.mark.parametrize("recipe", ["sms-spam", "newsgroups-4"])
def test_the_published_lecture_corpora_never_contradict_themselves(published, recipe):
    settings = dict(get_recipe(recipe).presets)
    client = published.test_client()
    problems = [problem for step in STEPS for presenter in (False, True)
                for problem in check_statements(client, recipe, settings, step, presenter)]
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize("model", ["bernoulli", "multinomial"])
def test_the_underflow_step_shows_the_notes_demonstration_for_both_models(client, model):
    """0.01 multiplied 20 times is 1.0000000000000005e-40 in float64, 10,000 times 0.0; as sums of logs, −92.1034
    and −46,051.7019: before the review's own repetition, whatever the model."""
    query = urlencode({"model": model, "alpha": "1", "text": "match was sharp", "step": "underflow"})
    url = f"/corpora/match-reviews/inference?{query}"
    rows = [[cell.get_text(" ", strip=True) for cell in row.find_all(["th", "td"])]
            for row in soup_of(client.get(url)).select("table.product-demonstration tbody tr")]
    # Every digit of the float: the trailing 5 is the rounding the seed points at.
    assert rows == [["20 times", "1.0000000000000005 × 10⁻⁴⁰", "−92.1034"], ["10,000 times", "0.0 0", "−46051.7019"]]
    twin = client.get(url + "&format=json").get_json()["product_demonstration"]
    assert twin == [
        {"factor": 0.01, "times": 20, "product": 1.0000000000000005e-40, "log_sum": math.fsum([math.log(0.01)] * 20)},
        {"factor": 0.01, "times": 10000, "product": 0.0, "log_sum": math.fsum([math.log(0.01)] * 10_000)}]
    assert twin[1]["log_sum"] == pytest.approx(10_000 * math.log(0.01), rel=1e-15)
