"""The inference lesson computes each part when a step first reads it: every step renders the same HTML, and the
JSON twin carries the same data, as when every part is computed first; a step computes only what it shows. And the
parameters page's whole-table facts (breaking cells, row orders), read from the sparse parameters and kept per
model, agree with the dense ψ/θ table they replace."""
from __future__ import annotations

import numpy as np
import pytest

from webnb.engine import SEED_EPSILON, Corpus, TrainingSet, explain
from webnb.engine.records import explanation as lesson_module
from webnb.engine.records.explanation import (
    PARTS,
    computed_parts,
    contributions,
    explain_review,
    find_underflow,
    log_space,
)
from webnb.engine.records.parameter_table import WholeTable
from webnb.engine.text.trace import factor_of
from webnb.examples import example_ids, load_example_corpus
from webnb.lesson.state import STEPS
from webnb.views import inference as inference_views

MODELS = [
    {"model": "bernoulli", "alpha": "0"},
    {"model": "bernoulli", "alpha": "1"},
    {"model": "multinomial", "alpha": "0"},
    {"model": "multinomial", "alpha": "1"},
]
REVIEWS = {
    "match-reviews": "not sharp match was",
    "china-japan": "Chinese Chinese Chinese Tokyo Japan",
    "folgers-students": "the best coffee",
    "spam-ham": "win money now, call",
    "uploaded": "b3 b4 shared",
}
# The first corpus in the fast run, the others marked slow (each case takes up to a second).
FAST_FIRST = [*REVIEWS][:1] + [pytest.param(name, marks=pytest.mark.slow) for name in [*REVIEWS][1:]]


def uploaded_corpus() -> Corpus:
    """More than 60 words (a Bernoulli trace aggregates the absent ones), a word in every document of class "a"
    (a zero factor for its absence at α = 0), and three classes."""
    pairs = [("a", f"common a{j} a{j + 1} shared") for j in range(40)]
    pairs += [("b", f"b{j} b{j + 1} shared") for j in range(40)]
    pairs += [("c", "c1 c2 shared common")]
    return Corpus.from_pairs(pairs)


@pytest.fixture()
def corpus_ids(app):
    ids = {example: example for example in example_ids()}
    ids["uploaded"] = app.extensions["webnb"]["catalog"].add(uploaded_corpus(), name="uploaded", source="test")
    return ids


class Built(list):
    """The lessons the inference view built; with ``force`` set, each had all its parts computed right away."""

    force = False


@pytest.fixture()
def built_lessons(monkeypatch):
    built, real = Built(), inference_views.explain_review

    def recording(*args, **kwargs):
        lesson = real(*args, **kwargs)
        if built.force:
            for name in reversed(PARTS):  # the opposite of the order the steps read them
                getattr(lesson, name)
        built.append(lesson)
        return lesson

    monkeypatch.setattr(inference_views, "explain_review", recording)
    return built


def fragment(client, corpus_id: str, query: dict) -> str:
    response = client.get(f"/corpora/{corpus_id}/inference", query_string=query, headers={"HX-Request": "true"})
    assert response.status_code == 200
    return response.get_data(as_text=True)


# -- the same HTML and the same JSON, lazily or eagerly ----------------------------------------------------------


@pytest.mark.parametrize("model", MODELS, ids=lambda m: f"{m['model']}-{m['alpha']}")
@pytest.mark.parametrize("corpus", FAST_FIRST)
def test_every_step_renders_the_same_html_lazily_and_eagerly(client, corpus_ids, built_lessons, corpus, model):
    drawn = []
    for step in STEPS:
        query = {**model, "text": REVIEWS[corpus], "step": step}
        built_lessons.force = False
        lazy = fragment(client, corpus_ids[corpus], query)
        built_lessons.force = True
        eager = fragment(client, corpus_ids[corpus], query)
        assert lazy == eager, f"step {step} differs"
        assert "<html" not in lazy and 'id="inference"' in lazy
        drawn.append(f'id="step-{step}"' in lazy)
    # Every step drew its lesson, unless the corpus cannot have α = 0: then no lesson was built and none is drawn.
    assert drawn == [bool(built_lessons)] * len(STEPS)


@pytest.mark.parametrize("model", MODELS, ids=lambda m: f"{m['model']}-{m['alpha']}")
@pytest.mark.parametrize("corpus", FAST_FIRST)
def test_the_json_twin_is_the_whole_lesson_whatever_was_read_first(client, corpus_ids, built_lessons, corpus, model):
    query = {**model, "text": REVIEWS[corpus], "format": "json"}
    as_json = client.get(f"/corpora/{corpus_ids[corpus]}/inference", query_string=query).get_json()
    if as_json["error"]:
        assert "cannot have" in as_json["error"] and not built_lessons
        return
    (lesson,) = built_lessons
    # The twin carries every part (the review's reading inside its trace, which holds the same words and vector).
    assert set(computed_parts(lesson)) | {"reading"} == set(PARTS)
    again = client.get(
        f"/corpora/{corpus_ids[corpus]}/inference", query_string={**query, "step": "underflow"}).get_json()
    assert again == as_json | {"step": "underflow"}
    built_lessons.force = True
    eager = client.get(f"/corpora/{corpus_ids[corpus]}/inference", query_string=query).get_json()
    assert eager == as_json


@pytest.mark.parametrize(
    "example, text, options",
    [
        ("match-reviews", "not sharp match", {"kind": "bernoulli", "alpha": "0"}),
        ("match-reviews", "match was sharp", {"kind": "bernoulli", "alpha": "0.5"}),
        ("china-japan", "Chinese Chinese Chinese Tokyo Japan", {"kind": "multinomial", "alpha": 1}),
        ("china-japan", "Tokyo Japan Beijing", {"kind": "multinomial", "alpha": 0, "repeats": 3}),
        ("uploaded", "b3 b4", {"kind": "bernoulli", "alpha": "0", "epsilon": SEED_EPSILON}),
        ("uploaded", "a1 c1 common", {"kind": "multinomial", "alpha": "1", "fit_prior": False}),
    ],
)
def test_each_part_is_what_the_engine_makes_of_its_scenario(example, text, options):
    """The lesson, read part by part, against each scenario made directly with the public engine functions."""
    corpus = uploaded_corpus() if example == "uploaded" else load_example_corpus(example)
    training = TrainingSet.build(corpus)
    lesson = explain_review(training, text, **options)
    kind, alpha, epsilon = options["kind"], options["alpha"], options.get("epsilon")
    model_options = {"binary": False, "fit_prior": options.get("fit_prior", True)}
    user_model = training.model(kind, alpha, epsilon=epsilon, **model_options)
    scenarios = {
        "trace": user_model,
        "unsmoothed": training.model(kind, 0, epsilon=None, **model_options),
        "smoothed": training.model(kind, lesson.smoothing_alpha, epsilon=None, **model_options),
        "floored": training.model(kind, 0, epsilon=SEED_EPSILON, **model_options),
    }
    for name, model in scenarios.items():
        assert getattr(lesson, name).to_dict() == explain(model, training.bag, text).to_dict(), name
    expected_underflow = find_underflow(user_model, training.bag, text, repeats=options.get("repeats"))
    assert lesson.underflow.to_dict() == expected_underflow.to_dict()
    assert lesson.log_space.to_dict() == log_space(lesson.trace).to_dict()
    source, model = ((lesson.smoothed, scenarios["smoothed"]) if lesson.trace.cannot_decide
                     else (lesson.trace, user_model))
    expected = contributions(source, from_smoothed=source is not lesson.trace, model=model)
    assert lesson.contributions.to_dict() == expected.to_dict()
    # Culprits: each factor as factor_of gives it, one word at a time.
    index = training.bag.index
    for culprit in lesson.culprits:
        k, j = training.classes.index(culprit.label), index[culprit.word]
        for name in ("unsmoothed", "smoothed", "floored"):
            assert getattr(culprit, name) == factor_of(scenarios[name], k, j, culprit.present)
    assert lesson.zero_summary == tuple(lesson_module._class_zeros(c) for c in lesson.unsmoothed.per_class)
    # Computed once, then kept: reading a part again gives the very same object.
    assert all(getattr(lesson, name) is getattr(lesson, name) for name in PARTS)
    assert lesson.to_dict() == explain_review(training, text, **options).to_dict()


def test_what_cannot_be_computed_is_refused_when_the_lesson_is_built(match_reviews):
    """Errors cannot wait for a part to be read: the page shows them instead of the steps."""
    no_words = Corpus.from_pairs([("a", "apple banana"), ("a", "banana cherry"), ("b", "x y")])  # "b" has no word
    training = TrainingSet.build(no_words)
    with pytest.raises(ValueError, match="cannot have"):
        explain_review(training, "apple", kind="multinomial", alpha=1)
    with pytest.raises(ValueError, match="repeats must be between 1 and 5000"):
        explain_review(match_reviews, "sharp", repeats=5001)


# -- only the step's work ---------------------------------------------------------------------------------------------

# What each step reads, for a user whose α is neither 0 nor a fixed scenario's (bernoulli α = 1 on match reviews).
PARTS_READ = {
    "tokens": {"reading"},
    "vector": {"reading"},
    "factors": {"trace"},
    "product": {"trace"},
    "decision": {"trace", "verdict"},
    # α = 0's zeros are a what-if beside the lesson's own decision, which the step says too.
    "zeros": {"unsmoothed", "culprits", "at_zero", "trace", "verdict"},
    "smoothing": {"unsmoothed", "smoothed", "floored", "culprits"},  # (multinomial also reads the vocabulary size)
    "underflow": {"trace", "underflow"},  # (with a repetition, as multinomial has, "repetition" too)
    "logspace": {"trace", "log_space"},
    "contributions": {"trace", "contributions"},
}


@pytest.fixture()
def engine_calls(monkeypatch):
    """How often the lesson explains a review (by the model's α and floor) and runs each builder."""
    calls: dict = {}

    def counting(name, function):
        def counted(*args, **kwargs):
            key = name
            if name == "explain":
                model = args[0]
                key = ("explain", model.alpha, model.epsilon)
            calls[key] = calls.get(key, 0) + 1
            return function(*args, **kwargs)

        monkeypatch.setattr(lesson_module, name, counted)

    for name in ("explain", "find_underflow", "_culprits", "contributions", "log_space"):
        counting(name, getattr(lesson_module, name))
    return calls


@pytest.mark.parametrize("step", [*STEPS[:3], *(pytest.param(step, marks=pytest.mark.slow) for step in STEPS[3:])])
def test_a_step_computes_only_what_it_shows(client, built_lessons, engine_calls, step):
    query = {"model": "bernoulli", "alpha": "1", "text": "not sharp match", "step": step}
    html = fragment(client, "match-reviews", query)
    (lesson,) = built_lessons
    assert 'class="step"' in html
    assert set(computed_parts(lesson)) == PARTS_READ[step]
    # The user's trace is explained once (α = 1, which is also the smoothed scenario's; the underflow step explains
    # the review repeated too), and not at all by the steps that only read the review or show the zeros at α = 0;
    # the α = 0 traces only for the steps about zeros.
    user_traces = engine_calls.get(("explain", 1, None), 0)
    assert user_traces == (0 if step in ("tokens", "vector") else 1) or step == "underflow"
    unsmoothed, floored = engine_calls.get(("explain", 0, None), 0), engine_calls.get(("explain", 0, SEED_EPSILON), 0)
    assert (unsmoothed, floored) == {"zeros": (1, 0), "smoothing": (1, 1)}.get(step, (0, 0))
    assert engine_calls.get("find_underflow", 0) == (step == "underflow")
    assert engine_calls.get("_culprits", 0) == (step in ("zeros", "smoothing"))
    assert engine_calls.get("contributions", 0) == (step == "contributions")
    assert engine_calls.get("log_space", 0) == (step == "logspace") or step == "underflow"


def test_the_tokens_step_builds_no_trace(client, built_lessons, engine_calls):
    """The first step of the lesson, as a student types (a request a word): the review's words looked up in the
    vocabulary, and no model asked for a probability; nothing smoothed, floored, no culprits, no underflow search."""
    fragment(client, "match-reviews", {"model": "bernoulli", "alpha": "0", "text": "not sharp match", "step": "tokens"})
    assert engine_calls == {}
    assert computed_parts(built_lessons[0]) == ("reading",)


# -- the parameters page: whole-table facts from the sparse parameters ------------------------------------------------


@pytest.mark.parametrize(
    "kind, alpha, epsilon",
    [("bernoulli", 0, None), ("bernoulli", 1, None), ("multinomial", 0, None), ("multinomial", "0.5", None),
     ("bernoulli", 0, SEED_EPSILON), ("multinomial", 0, SEED_EPSILON)],
)
@pytest.mark.parametrize("corpus", ["match-reviews", "spam-ham", "uploaded"])
def test_whole_table_facts_agree_with_the_dense_table(corpus, kind, alpha, epsilon):
    training = TrainingSet.build(uploaded_corpus() if corpus == "uploaded" else load_example_corpus(corpus))
    model = training.model(kind, alpha, epsilon=epsilon)
    dense = model.feature_prob_
    breaks = (dense == 0) | ((dense == 1) if kind == "bernoulli" else False)
    table = WholeTable(model)
    assert table.breaking_cells == int(breaks.sum())
    assert (table.breaking_words == breaks.any(axis=0)).all()
    n_words = dense.shape[1]
    every_word, some_words = np.arange(n_words), np.arange(0, n_words, 3)
    for words in (every_word, some_words):
        breaking_first = words[np.argsort(~breaks[:, words].any(axis=0), kind="stable")]
        assert (table.ordered(words, "zeros") == breaking_first).all()
        for k in range(len(model.classes)):
            by_class = table.ordered(words, f"class-{k}")
            assert (by_class == words[np.argsort(-dense[k, words], kind="stable")]).all()
        assert (table.ordered(words, "word") == words).all()
        assert (table.ordered(words, f"class-{len(model.classes)}") == words).all()  # no such class
    if kind == "bernoulli" and alpha == 0 and epsilon is None:
        assert table.breaking_cells > 0  # the case the facts are for


def test_the_parameters_page_keeps_its_whole_table_facts_with_the_model(app, client):
    query = {"model": "bernoulli", "alpha": "0", "sort": "zeros"}
    first = client.get("/corpora/match-reviews/parameters", query_string=query, headers={"HX-Request": "true"})
    tables = app.extensions["webnb"]["parameter_tables"]
    (key,) = tables.keys()
    assert "zeros" in tables.get(key).orders
    again = client.get("/corpora/match-reviews/parameters", query_string=query, headers={"HX-Request": "true"})
    assert again.get_data() == first.get_data() and tables.keys() == [key]
