"""The engine documented as scikit-learn documents its estimators (numpydoc): every public function and class of
webnb/engine that the rest of webnb imports has a Parameters section (when it takes any) and a Returns section (a
function), and the central ones have Examples, which run with the suite (``--doctest-modules``, pyproject.toml)."""
from __future__ import annotations

import ast
import importlib
import inspect
import re
from pathlib import Path

import webnb

PACKAGE = Path(webnb.__file__).resolve().parent
# The lesson's central steps: reading, counting, fitting, predicting, Bayes' rule, evaluating, the α sweep.
CENTRAL = (
    "webnb.engine.io.readers.read_corpus", "webnb.engine.text.bag.BagOfWords", "webnb.engine.text.training.TrainingSet",
    "webnb.engine.text.models.fit_naive_bayes", "webnb.engine.text.trace.explain",
    "webnb.engine.evaluation.scores.evaluate", "webnb.engine.evaluation.scores.stratified_split",
    "webnb.engine.evaluation.heldout.hold_out", "webnb.engine.records.insights.alpha_sweep",
    "webnb.engine.gaussian.model.explain", "webnb.engine.shared.plain.fraction_text",
)


def section(doc: str, name: str) -> bool:
    return re.search(rf"^\s*{name}\n\s*-{{{len(name)}}}\s*$", doc, re.M) is not None


def imported_from_the_engine() -> set[tuple[str, str]]:
    """(module, name) of every ``from webnb.engine… import name`` outside the engine."""
    found = set()
    for path in PACKAGE.rglob("*.py"):
        if "engine" in path.relative_to(PACKAGE).parts[:1]:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("webnb.engine"):
                found.update((node.module, alias.name) for alias in node.names if not alias.name.startswith("_"))
    return found


def public_callables():
    for module_name, name in sorted(imported_from_the_engine()):
        module = importlib.import_module(module_name)
        value = getattr(module, name, None)
        if value is None:  # a submodule (``from webnb.engine.io import persist``)
            continue
        if inspect.ismodule(value) or not callable(value) or not getattr(value, "__module__", "").startswith("webnb"):
            continue
        yield f"{module_name}.{name}", value


def takes_parameters(value) -> bool:
    try:
        signature = inspect.signature(value)
    except (TypeError, ValueError):
        return False
    return any(p.name not in ("self", "cls") for p in signature.parameters.values())


def test_every_public_name_the_app_imports_has_numpydoc_sections():
    documented, missing = 0, []
    for name, value in public_callables():
        doc = inspect.getdoc(value) or ""
        wants = ["Parameters"] if takes_parameters(value) else []
        if inspect.isfunction(value):
            wants.append("Returns")
        lacking = [part for part in wants if not section(doc, part) and not section(doc, "Yields")]
        if lacking:
            missing.append(f"{name}: {', '.join(lacking)}")
        documented += 1
    assert documented >= 100
    assert missing == []


def test_the_central_steps_have_examples_that_run():
    lacking = []
    for dotted in CENTRAL:
        module_name, _, name = dotted.rpartition(".")
        doc = inspect.getdoc(getattr(importlib.import_module(module_name), name)) or ""
        if not section(doc, "Examples") or ">>> " not in doc:
            lacking.append(dotted)
    assert lacking == []
