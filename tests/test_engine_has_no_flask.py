"""The engine never imports Flask (nor scikit-learn, a test-only dependency): ``webnb/engine/`` is numpy and scipy
only and could be published alone. The one test of it: no other test starts an interpreter to check the same.

Every module of the package is found with ``pkgutil.walk_packages``. A fresh interpreter imports them (this one has
the app's imports already) and says whether Flask got loaded; and each module's source is read for an import of
Flask, or of a part of webnb outside the engine that could bring it in, even one inside a function that runs late.
"""
from __future__ import annotations

import ast
import importlib.util
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import webnb
import webnb.engine

CHECKOUT = Path(webnb.__file__).resolve().parent.parent

# Run by a fresh interpreter: imports webnb.engine, then each module named in argv, and prints as JSON the steps
# it took and the packages of Flask or scikit-learn that each step loaded first (flask, flask_wtf, sklearn, ...).
IMPORT_ONE_BY_ONE = """
import importlib, json, sys

def framework():
    return {name.partition(".")[0] for name in sys.modules
            if name in ("flask", "sklearn") or name.startswith(("flask.", "flask_", "sklearn."))}

seen, steps, loaded_by = framework(), [], {}
if seen:
    loaded_by["before any import"] = sorted(seen)
for name in ["webnb.engine", *sys.argv[1:]]:
    importlib.import_module(name)
    steps.append(name)
    new = framework() - seen
    if new:
        loaded_by[name], seen = sorted(new), seen | new
print(json.dumps({"steps": steps, "loaded_by": loaded_by}))
"""


def engine_modules() -> list[pkgutil.ModuleInfo]:
    return sorted(pkgutil.walk_packages(webnb.engine.__path__, prefix="webnb.engine."), key=lambda info: info.name)


def test_the_walk_finds_every_module_of_the_engine():
    names = {info.name for info in engine_modules()}
    engine_folder = Path(webnb.engine.__file__).parent
    on_disk = {
        "webnb.engine." + ".".join(path.relative_to(engine_folder).with_suffix("").parts).removesuffix(".__init__")
        for path in engine_folder.rglob("*.py")
        if path.parent != engine_folder or path.stem != "__init__"
    }
    assert names == on_disk and len(names) >= 20
    assert {"webnb.engine.text.models", "webnb.engine.text.training", "webnb.engine.evaluation.comparison"} <= names


def test_importing_the_engine_and_every_module_of_it_never_loads_flask_or_scikit_learn():
    names = [info.name for info in engine_modules()]
    finished = subprocess.run(
        [sys.executable, "-c", IMPORT_ONE_BY_ONE, *names],
        cwd=CHECKOUT, capture_output=True, text=True, timeout=300, check=False,
    )
    assert finished.returncode == 0, finished.stderr
    report = json.loads(finished.stdout)
    assert report["steps"] == ["webnb.engine", *names]  # every module was imported
    assert report["loaded_by"] == {}


def imported_names(tree: ast.Module, module: str, is_package: bool) -> list[tuple[int, str]]:
    """(line, module name) of every import in ``tree``, at the top or inside a function, relative ones resolved."""
    package = module if is_package else module.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = importlib.util.resolve_name("." * node.level + (node.module or ""), package)
            else:
                base = node.module
            # "from webnb import views" imports a module of webnb by the name after "import".
            if base == "webnb":
                found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
            else:
                found += [(node.lineno, base)]
    return found


def test_no_engine_source_imports_flask_or_the_rest_of_webnb():
    forbidden = []
    for module, is_package in [("webnb.engine", True), *((info.name, info.ispkg) for info in engine_modules())]:
        source = Path(importlib.util.find_spec(module).origin).read_text(encoding="utf-8")
        for line, name in imported_names(ast.parse(source), module, is_package):
            top = name.partition(".")[0]
            outside_engine = top == "webnb" and name != "webnb.engine" and not name.startswith("webnb.engine.")
            if top == "flask" or top.startswith("flask_") or outside_engine:
                forbidden.append(f"{module}:{line} imports {name}")
    assert forbidden == []
