"""The one list of lesson pages (webnb/lesson/pages.py): every page it names is served at its address, the menus show it
in its order, and the README's tables of addresses follow it."""
from __future__ import annotations

import re

import pytest
from conftest import REPO_ROOT, soup_of

from webnb.lesson.pages import TABLE_PAGES, TEXT_PAGES, lesson_menu


def test_every_page_is_served_at_its_address_by_its_view(app):
    rules = {rule.endpoint: rule.rule for rule in app.url_map.iter_rules()}
    for page in (*TEXT_PAGES, *TABLE_PAGES):
        assert rules[page.endpoint] == "/corpora/<corpus_id>" + page.path, page


def test_the_menus_are_numbered_in_teaching_order():
    assert lesson_menu("text")[:4] == (
        ("corpus", "1 · Documents", "corpus.show"), ("matrix", "2 · Bag of words", "matrix.show"),
        ("parameters", "3 · Parameters", "parameters.show"), ("inference", "4 · Bayes' rule", "inference.show"))
    assert [title for _, title, _ in lesson_menu("text")][4:] == [
        "5 · Evaluation", "6 · Models side by side", "7 · Telling words", "8 · Feature selection", "9 · Overconfidence",
        "10 · Calibration", "11 · Sampling", "12 · Add a document"]
    assert [title for _, title, _ in lesson_menu("table")] == [
        "1 · Rows", "2 · Bell curves", "3 · Bayes' rule", "4 · Evaluation"]


@pytest.mark.parametrize(("url", "kind"), [("/corpora/match-reviews/words", "text"),
                                           ("/corpora/iris/gaussian/evaluation", "table")])
def test_a_lesson_page_shows_the_list_in_its_wide_and_phone_menus(client, url, kind):
    page = soup_of(client.get(url))
    titles = [title for _, title, _ in lesson_menu(kind)]
    assert [a.get_text(" ", strip=True) for a in page.select(".lesson-nav a")] == titles
    assert [a.get_text(" ", strip=True) for a in page.select(".lesson-menu details a")] == titles


def readme_page_tables() -> list[list[str]]:
    """The addresses in the first column of each of the README's tables of pages ("| page | what it shows |")."""
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    tables = [part.split("\n\n", 1)[0] for part in text.split("| page | what it shows |")[1:]]
    return [re.findall(r"^\| `([^`]+)`", table, flags=re.M) for table in tables]


def test_the_readme_lists_the_pages_in_the_lessons_order():
    text_rows, table_rows = readme_page_tables()
    wanted = ["/corpora/<id>" + page.path for page in TEXT_PAGES]
    assert [path for path in text_rows if path in wanted] == wanted
    wanted = ["/corpora/<id>" + page.path for page in TABLE_PAGES]
    listed = [row.replace("…/gaussian", "/corpora/<id>/gaussian") for row in table_rows]
    assert [path for path in listed if path in wanted] == wanted
