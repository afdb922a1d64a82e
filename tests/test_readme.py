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


# -- where each lecture file comes from (webnb/lesson/seed_lessons.py's ARCHIVES: the home page's hint, the CLI's help)


def test_every_publishable_lesson_says_where_its_file_comes_from():
    from webnb.lesson.seed_lessons import ARCHIVES, RECIPES, SEED_LESSONS, get_recipe

    for lesson in SEED_LESSONS:
        if lesson.recipe is None:
            assert lesson.origin is None  # a built-in corpus: nothing to publish
            continue
        origin = lesson.origin
        assert origin is not None, f"{lesson.id}: its recipe's file has no entry in ARCHIVES"
        assert origin.file == get_recipe(lesson.recipe).source and origin.lesson == lesson.recipe
        assert origin.name and origin.distributor and origin.url.startswith(("http://", "https://"))
    assert {recipe.source for recipe in RECIPES} <= {archive.file for archive in ARCHIVES}
    for archive in ARCHIVES:  # an archive with a lesson is that recipe's file
        assert archive.lesson is None or get_recipe(archive.lesson).source == archive.file


def test_the_readme_names_each_file_its_dataset_distributor_and_address():
    from webnb.lesson.seed_lessons import ARCHIVES

    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    section = " ".join(text.split("**Where each file comes from.**", 1)[1].split("**An id in use.**", 1)[0].split())
    for archive in ARCHIVES:
        for part in (f"`{archive.file}`", archive.name, archive.distributor, archive.url):
            assert part in section, f"the README's list of sources lacks {part!r}"
        if archive.lesson:
            assert f"--lesson {archive.lesson}" in section


def test_the_publish_hint_and_the_help_say_where_each_file_comes_from(client, capsys):
    import pytest
    from bs4 import BeautifulSoup

    from webnb.cli import main
    from webnb.lesson.seed_lessons import ARCHIVES, SEED_LESSONS

    home = BeautifulSoup(client.get("/").get_data(as_text=True), "html.parser")
    hinted = set()
    for lesson in SEED_LESSONS:
        item = home.select_one(f"#lesson-{lesson.id}")
        source = item.select_one(".lesson-source")
        if item.select_one(".lesson-needs code") is None:  # built in, or its command was told above
            assert source is None
            continue
        assert " ".join(source.get_text().split()) == lesson.origin.credit
        hinted.add(lesson.origin.file)
    assert hinted == {archive.file for archive in ARCHIVES if archive.lesson}

    with pytest.raises(SystemExit):
        main(["corpora", "add", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    for archive in ARCHIVES:
        assert archive.credit in help_text


# -- the LMS's configurations, as `webnb lti add-platform` prints them ---------------------------------------------


def test_the_readme_gives_the_lms_configurations_that_webnb_lti_prints():
    import json

    from webnb.lti.addresses import tool_addresses
    from webnb.lti.commands import canvas_configuration, moodle_configuration

    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## LMS integration", 1)[1].split("\n## ", 1)[0]
    addresses = tool_addresses("https://webnb.example.edu")
    for label, value in moodle_configuration(addresses).items():
        assert f"   - {label}: {value}\n" in section, label
    canvas = section.split("   Canvas's JSON:\n\n", 1)[1].split("\n\n", 1)[0]
    assert json.loads("\n".join(line[7:] for line in canvas.splitlines())) == canvas_configuration(addresses)
