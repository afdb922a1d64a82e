"""The Gaussian lesson's notebook: valid nbformat, and run in a Jupyter kernel it recomputes the app's numbers."""
from __future__ import annotations

import importlib
import json

import pytest
from conftest import skip_unless_ci

from webnb.engine import CorpusError
from webnb.engine.export import gaussian_notebook
from webnb.examples import load_example_table


def run_in_kernel(notebook: dict):
    try:
        import nbformat
        from jupyter_client.kernelspec import NoSuchKernel
        from nbclient import NotebookClient
    except ImportError:
        skip_unless_ci("nbformat, nbclient or jupyter_client is not installed")
    node = nbformat.from_dict(notebook)
    nbformat.validate(node)
    try:
        NotebookClient(node, timeout=120, kernel_name="python3").execute()
    except (NoSuchKernel, RuntimeError) as error:
        skip_unless_ci(f"no Jupyter kernel could start here: {error}")
    printed = "".join(o.get("text", "") for o in node.cells[-1].outputs if o.output_type == "stream")
    return json.loads(printed), node.cells


def _log(value):
    return float("-inf") if value == "-inf" else value


@pytest.mark.slow
def test_the_downloaded_notebook_reproduces_the_pages(client):
    query = "value=5.9&value=3&value=40&value=1.8&var_smoothing=1e-6&test_size=0.3&seed=4"
    response = client.get(f"/corpora/iris/gaussian/notebook.ipynb?{query}")
    assert response.status_code == 200
    assert response.headers["Content-Disposition"] == 'attachment; filename="iris-gaussian.ipynb"'
    summary, cells = run_in_kernel(json.loads(response.get_data(as_text=True)))
    assert not [o for c in cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    # numpy's warning for the log taken too late is part of the lesson, and shows in the notebook too.
    warnings = "".join(o.get("text", "") for c in cells if c.cell_type == "code" for o in c.outputs
                       if o.output_type == "stream" and o.get("name") == "stderr")
    assert "divide by zero encountered in log" in warnings

    evaluation = client.get(f"/corpora/iris/gaussian/evaluation?format=json&{query}").get_json()
    assert summary["accuracy"] == pytest.approx(evaluation["evaluation"]["accuracy"], abs=1e-15)
    assert summary["confusion"] == evaluation["evaluation"]["confusion"]
    # The step-through trained on the same split: the split's training rows.
    inference = client.get(f"/corpora/iris/gaussian/inference?format=json&train=split&{query}").get_json()
    explained = inference["explanation"]
    assert summary["classes"] == [c["class"] for c in explained["classes"]]
    assert summary["decision"] == explained["decision"] == "virginica"
    assert summary["naive_decision"] is None and explained["naive_decision"] is None
    for k, c in enumerate(explained["classes"]):
        assert summary["prior"][k] == pytest.approx(c["prior"], rel=1e-15)
        assert _log(summary["naive_log_joint"][k]) == _log(c["naive_log_joint"]) == float("-inf")
        assert summary["log_joint"][k] == pytest.approx(c["log_joint"], rel=1e-12)
        assert summary["posterior"][k] == pytest.approx(c["posterior"], rel=1e-9, abs=1e-300)
        for j, f in enumerate(c["features"]):
            assert summary["means"][k][j] == pytest.approx(f["mean"], rel=1e-14)
            assert summary["variances"][k][j] == pytest.approx(f["variance"], rel=1e-13)


def test_the_notebook_is_refused_where_its_formula_would_divide_by_zero(client):
    response = client.get("/corpora/red-cards/gaussian/notebook.ipynb?var_smoothing=0")
    assert response.status_code == 400 and "variance 0" in response.get_data(as_text=True)
    assert client.get("/corpora/red-cards/gaussian/notebook.ipynb").status_code == 200


def test_hostile_names_stay_data_in_the_notebook(monkeypatch):
    table = load_example_table("match-ratings")
    from webnb.engine.gaussian.table import NumericTable

    names = ("'''; import os; os.system('echo owned') #",)
    hostile = NumericTable(names, table.values, tuple(f"\\'{label}'''" for label in table.labels), table.ids)
    notebook = gaussian_notebook(hostile, var_smoothing=1e-9, prior="learned", values=(6.0,), test_size=None)
    source = notebook["cells"][3]["source"]
    namespace: dict = {}
    exec(source.split("\n", 1)[0], {"json": json}, namespace)  # only the line that reads the embedded JSON
    assert namespace["TABLE"]["features"] == list(names)
    assert namespace["TABLE"]["labels"] == list(hostile.labels)
    # The package re-exports the function under the module's name, so the module is found by its import name.
    monkeypatch.setattr(importlib.import_module("webnb.engine.export.gaussian_notebook"), "MAX_NOTEBOOK_CELLS", 10)
    with pytest.raises(CorpusError, match="at most 10"):
        gaussian_notebook(table, var_smoothing=1e-9, prior="learned", values=(1.0,), test_size=None)
