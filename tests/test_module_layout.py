"""How webnb's modules may depend on each other: no import cycle, and no module reaching into another's private
names (a leading underscore means "only this module relies on it"). Read from the source with ast, so a new module
is checked as soon as it exists."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

import webnb

pytestmark = pytest.mark.slow  # each test parses every module of webnb: 3-4 s in all

PACKAGE = Path(webnb.__file__).resolve().parent


def module_names() -> dict[str, Path]:
    return {
        ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__"): path
        for path in PACKAGE.rglob("*.py")
    }


def imports_of(path: Path) -> list[tuple[str, list[str]]]:
    """(module, names) of every ``from webnb… import names`` and ``import webnb…`` in the module: at its top level,
    inside functions and under ``if TYPE_CHECKING:`` alike. An import deferred into a function does not form a
    cycle at load, but it hides one from the reader; relative imports are resolved against the module."""
    found = []
    package = path.relative_to(PACKAGE.parent).with_suffix("").parts
    if path.name != "__init__.py":
        package = package[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = ".".join([*base, module] if module else base)
            if module.split(".")[0] == "webnb":
                found.append((module, [alias.name for alias in node.names]))
        elif isinstance(node, ast.Import):
            found.extend((alias.name, []) for alias in node.names if alias.name.split(".")[0] == "webnb")
    return found


def dependency_graph() -> dict[str, set[str]]:
    modules = module_names()
    graph = {}
    for name, path in modules.items():
        depends = set()
        for module, names in imports_of(path):
            submodules = {f"{module}.{n}" for n in names if f"{module}.{n}" in modules}
            depends.update(submodules)
            if not names or len(submodules) < len(names):  # a name of the module itself (not only its submodules)
                depends.add(module)
        graph[name] = {d for d in depends if d in modules and d != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts with more than one module (Tarjan's algorithm, iteratively)."""
    index, low, on_stack, stack, found, counter = {}, {}, set(), [], [], 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                part = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    part.append(member)
                    if member == node:
                        break
                if len(part) > 1:
                    found.append(sorted(part))
    return found


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_two_modules_of_webnb_import_each_other():
    graph = dependency_graph()
    assert len(graph) > 80 and "webnb.engine.text.models" in graph["webnb.engine.text.trace"]
    assert cycles(graph) == []


def test_no_module_imports_another_modules_private_names():
    modules = module_names()
    reaching = []
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "webnb":
                private = [a.name for a in node.names if a.name.startswith("_")]
                if private and node.module != name:
                    reaching.append((name, node.module, private))
    assert reaching == []


def test_the_app_s_error_handlers_are_all_in_one_module():
    """Every error a request can meet is answered by webnb/errors.py: no other module registers a handler."""
    registering = []
    for name, path in module_names().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            called = node.func if isinstance(node, ast.Call) else None
            if isinstance(called, ast.Attribute) and called.attr in (
                    "register_error_handler", "errorhandler", "app_errorhandler"):
                registering.append(name)
    assert set(registering) == {"webnb.errors"} and len(registering) >= 8


def test_the_classifier_never_imports_the_page_records():
    """webnb/engine/text is the classifier; webnb/engine/records builds on it, never the other way."""
    graph = dependency_graph()
    core = {name for name in graph if name.startswith("webnb.engine.text")}
    assert {"webnb.engine.text.models", "webnb.engine.text.trace", "webnb.engine.text.bag"} <= core
    assert "webnb.engine.records.explanation" in graph
    assert [(name, sorted(d for d in graph[name] if d.startswith("webnb.engine.records"))) for name in sorted(core)
            if any(d.startswith("webnb.engine.records") for d in graph[name])] == []


def test_the_storage_side_never_reads_an_address():
    """Presets are plain (name, text) pairs where corpora are kept; only the pages' side parses them."""
    graph = dependency_graph()
    for storage_side in ("webnb.hosting.catalog", "webnb.store.database", "webnb.hosting.admission"):
        assert "webnb.lesson.state" not in graph[storage_side], storage_side


# -- the top of the package shows the architecture (README, Layout) -------------------------------------------------

TOP_MODULES = {"__init__", "cli", "answers", "errors"}
SUBPACKAGES = {"engine", "lesson", "store", "hosting", "views", "room", "lti", "examples"}
# Who may import whom, from the bottom up: a layer never imports one above it.
LAYERS = ("engine", "lesson", "answers", "store", "hosting", "views", "room", "lti", "errors", "cli")


def test_the_top_of_the_package_is_a_few_modules_and_a_package_per_kind():
    modules = {path.stem for path in PACKAGE.glob("*.py")}
    packages = {path.name for path in PACKAGE.iterdir() if (path / "__init__.py").is_file()}
    assert (modules, packages) == (TOP_MODULES, SUBPACKAGES)
    readme = (PACKAGE.parent / "README.md").read_text(encoding="utf-8")
    layout = readme[readme.index("## Layout"):]
    assert [name for name in sorted(SUBPACKAGES) if f"`webnb/{name}/`" not in layout] == []


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else None


def test_no_layer_imports_one_above_it():
    upward = sorted(
        (name, dependency)
        for name, dependencies in dependency_graph().items() if layer_of(name)
        for dependency in dependencies if layer_of(dependency)
        and LAYERS.index(layer_of(dependency)) > LAYERS.index(layer_of(name)))
    assert upward == []


# -- the tests' own shape: a fixture or helper every module needs is defined once, in tests/conftest.py ----------

SHARED_IN_CONFTEST = ("app", "client", "match_reviews", "china_japan", "spam_ham", "paste", "pasted_id")


def test_shared_fixtures_and_helpers_are_defined_once():
    tests = PACKAGE.parent / "tests"
    defined = {}
    for path in sorted(tests.rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef) and node.name in SHARED_IN_CONFTEST:
                defined.setdefault(node.name, []).append(str(path.relative_to(tests)))
    assert defined == {name: ["conftest.py"] for name in SHARED_IN_CONFTEST}


def test_every_cache_is_made_by_create_app():
    """No module keeps a cache of its own at import: a kept value (a dict, a weak dictionary, a bounded Cache) made at
    a module's top level would outlive the app, be shared by every app of a process and need a "forget" for tests.
    The app makes each one in create_app and keeps it in app.extensions["webnb"]."""
    makers = {"dict", "OrderedDict", "WeakKeyDictionary", "WeakValueDictionary", "Cache", "defaultdict"}
    module_caches = []
    for name, path in module_names().items():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
            called = value.func if isinstance(value, ast.Call) else None
            called = getattr(called, "attr", getattr(called, "id", None))
            if called in makers and not (value.args or value.keywords):
                module_caches.append(f"{name}:{node.lineno}")
    assert module_caches == []
