"""The README's two command lines stay true: CI runs the test one, and the serve one names `webnb serve`."""
from __future__ import annotations

import re

from conftest import REPO_ROOT


def readme_commands() -> list[str]:
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    quick_start = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return [line.strip() for line in quick_start.splitlines() if line.startswith("    ")]


def test_readme_gives_exactly_two_commands():
    serve, test = readme_commands()
    assert serve.endswith("webnb serve") and "pip install -e ." in serve
    assert test.endswith("pytest") and "pip install -e '.[test]'" in test


def test_ci_runs_the_readme_test_command():
    _, test = readme_commands()
    ci_lines = [line.strip() for line in (REPO_ROOT / ".ci" / "run").read_text().splitlines()]
    assert test in ci_lines
    assert re.search(r"^export CI=true$", "\n".join(ci_lines), re.M)
