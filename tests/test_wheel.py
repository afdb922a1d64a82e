"""The wheel carries the top-level templates/ and static/ and serves the home page once installed."""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest
from conftest import skip_unless_ci

pytestmark = pytest.mark.slow

REPO_ROOT = Path(__file__).parents[1]
PACKED_FILES = [
    "webnb/templates/base.html",
    "webnb/templates/home/index.html",
    "webnb/static/webnb.css",
    "webnb/static/vendor/htmx.min.js",
    "webnb/examples/match-reviews.jsonl",
    "webnb/examples/iris.csv",
    "webnb/examples/match-ratings.csv",
    "webnb/examples/red-cards.csv",
]
SERVE_HOME = """
import webnb
from webnb import create_app
app = create_app({"TESTING": True})
response = app.test_client().get("/")
print(webnb.__file__)
print(app.template_folder)
print(response.status_code)
print("Match reviews" in response.get_data(as_text=True))
print("Iris flowers" in response.get_data(as_text=True))
"""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    for module in ("build", "hatchling"):
        if importlib.util.find_spec(module) is None:
            skip_unless_ci(f"building the wheel needs {module!r} installed")
    outdir = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(outdir)],
        cwd=REPO_ROOT, check=True, capture_output=True,
    )
    (wheel,) = outdir.glob("webnb-*.whl")
    return wheel


def test_wheel_packs_templates_static_and_examples(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert [name for name in PACKED_FILES if name not in names] == []


def test_installed_wheel_serves_home(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site_packages = Path(
        subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True, capture_output=True, text=True,
        ).stdout.strip()
    )
    # Flask & co. come from the environment running the tests, which is usually itself a venv and so not the
    # "system" one. A plain path in a .pth is appended after the new venv's own site-packages, without running
    # that environment's .pth files, so the editable install of the checkout stays invisible.
    (site_packages / "test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--quiet", str(wheel)],
        check=True, capture_output=True,
    )

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    result = subprocess.run(
        [python, "-I", "-c", SERVE_HOME], cwd=elsewhere, env=env, check=True, capture_output=True, text=True,
    )
    module_file, template_folder, status, has_title, has_table = result.stdout.splitlines()
    assert Path(module_file).is_relative_to(venv)
    assert Path(template_folder) == Path(module_file).parent / "templates"
    assert status == "200"
    assert has_title == "True" and has_table == "True"
