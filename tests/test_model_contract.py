"""One model contract: Bernoulli, multinomial and Gaussian Naive Bayes answer the same questions by the same names
(scikit-learn's), with the same types: the joint log-likelihood, the log posterior, the class index and the class."""
from __future__ import annotations

import numpy as np
import pytest

from webnb.engine import TrainingSet
from webnb.engine.gaussian.model import GaussianStatistics
from webnb.engine.text.models import LogPosterior
from webnb.examples import load_example_corpus, load_example_table

CONTRACT = ("joint_log_likelihood", "predict_log_proba", "predict_index", "predict", "classes", "to_dict")


def text_model(kind: str, alpha):
    training = TrainingSet.build(load_example_corpus("match-reviews"))
    return training.model(kind, alpha), training.transform(["not sharp match", "match was sharp", "great"])


def gaussian_model():
    table = load_example_table("iris")
    far = np.array([[5.1, 3.5, 1.4, 0.2], [6.5, 3.0, 5.5, 1.8], [1e6, -1e6, 1e6, -1e6]])
    return GaussianStatistics.fit(table).model(), far


MODELS = {
    "bernoulli, α = 0 (a review it cannot decide)": lambda: text_model("bernoulli", 0),
    "bernoulli, α = 1": lambda: text_model("bernoulli", 1),
    "multinomial, α = 1": lambda: text_model("multinomial", 1),
    "gaussian": gaussian_model,
}


@pytest.mark.parametrize("make", MODELS.values(), ids=MODELS.keys())
def test_every_model_answers_the_same_questions_in_the_same_types(make):
    model, rows = make()
    assert all(hasattr(model, name) for name in CONTRACT)
    n, k = rows.shape[0], len(model.classes)
    jll = model.joint_log_likelihood(rows)
    assert isinstance(jll, np.ndarray) and jll.shape == (n, k) and jll.dtype == np.float64 and not np.isnan(jll).any()
    posterior = model.predict_log_proba(rows)
    assert isinstance(posterior, LogPosterior)
    assert posterior.log_proba.shape == (n, k) and posterior.decidable.shape == (n,)
    assert posterior.decidable.dtype == bool
    decided = posterior.decidable
    np.testing.assert_allclose(np.exp(posterior.log_proba[decided]).sum(axis=1), 1.0, rtol=1e-12)
    assert np.all(posterior.log_proba[~decided] == -np.inf)
    index = model.predict_index(rows)
    assert index.shape == (n,) and np.issubdtype(index.dtype, np.integer)
    assert np.array_equal(index == -1, ~decided)
    assert np.array_equal(index[decided], jll[decided].argmax(axis=1))
    assert model.predict(rows) == [model.classes[i] if i >= 0 else None for i in index]
    assert isinstance(model.to_dict(), dict)


def test_the_undecidable_review_is_said_alike_by_every_answer():
    # "not sharp match": no positive review has 'not', and every negative one has 'was', which it lacks.
    model, rows = text_model("bernoulli", 0)
    assert model.predict(rows)[0] is None and model.predict_index(rows)[0] == -1
    assert not model.predict_log_proba(rows).decidable[0] and model.predict(rows)[1] == "positive"


def test_a_model_kind_is_a_class_and_the_shared_code_never_asks_which():
    """The kinds differ by their methods (BernoulliNaiveBayes, MultinomialNaiveBayes), named in MODEL_KINDS; the
    shared code in NaiveBayes has no branch on the kind's name, and the base cannot be fitted on its own."""
    import ast
    import inspect

    from webnb.engine.text import models

    bernoulli, _ = text_model("bernoulli", 1)
    multinomial, _ = text_model("multinomial", 1)
    assert type(bernoulli) is models.BernoulliNaiveBayes and bernoulli.kind == "bernoulli"
    assert type(multinomial) is models.MultinomialNaiveBayes and multinomial.kind == "multinomial"
    assert models.MODEL_KINDS == {"bernoulli": models.BernoulliNaiveBayes, "multinomial": models.MultinomialNaiveBayes}
    assert bernoulli.uses_presence and not multinomial.uses_presence
    assert bernoulli.absent_log_prob_ is not None and multinomial.absent_log_prob_ is None
    with pytest.raises(TypeError, match="abstract"):
        models.NaiveBayes(**{name: None for name in models.NaiveBayes.__dataclass_fields__})
    tree = ast.parse(inspect.getsource(models))
    asks = [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Compare) and any(isinstance(part, ast.Attribute) and part.attr == "kind"
                                                     for part in [node.left, *node.comparators])]
    assert asks == []
    with pytest.raises(ValueError, match=r"model must be one of \('bernoulli', 'multinomial'\), not 'gaussian'"):
        TrainingSet.build(load_example_corpus("match-reviews")).model("gaussian", 1)
