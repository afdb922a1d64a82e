"""1 · The rows of a table of numbers, a page at a time, and how many each class has."""
from __future__ import annotations

from dataclasses import dataclass

from webnb.engine.gaussian.lesson import RowsPage, page_count, rows_page
from webnb.views.common import respond
from webnb.views.gaussian.lesson import ROWS_PER_PAGE, TableLesson, asked_page, load_table_lesson


@dataclass(frozen=True)
class TableRowsPage:
    """The rows page: the table's size, the rows shown, and the settings in the address that could not be used."""

    lesson: TableLesson
    shown: RowsPage

    def to_dict(self) -> dict:
        entry = self.lesson.entry
        return {"corpus": {"id": entry.id, "name": entry.name, "rows": len(entry.table)}, **self.shown.to_dict(),
                "errors": self.lesson.state.errors}


def rows(corpus_id):
    lesson = load_table_lesson(corpus_id)
    table = lesson.entry.table
    page = asked_page(lesson, page_count(len(table), ROWS_PER_PAGE))
    shown = rows_page(table, page, ROWS_PER_PAGE)
    return respond("gaussian/rows.html", "rows", TableRowsPage(lesson, shown), lesson=lesson, section="rows")
