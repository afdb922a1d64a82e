"""1 · The rows of a table of numbers, a page at a time, and how many each class has."""
from __future__ import annotations

from dataclasses import dataclass

from webnb.engine.gaussian.lesson import RowsPage, TableRow, page_count, rows_page
from webnb.engine.gaussian.table import NumericTable
from webnb.views.common import respond
from webnb.views.gaussian.lesson import ROWS_PER_PAGE, TableLesson, asked_page, load_table_lesson

EXAMPLES_PER_CLASS = 3  # the first rows of each class, wherever they stand in the table (the slide shows a few)


def class_examples(table: NumericTable, per_class: int = EXAMPLES_PER_CLASS) -> dict[str, tuple[TableRow, ...]]:
    """The first ``per_class`` rows of each class, in the table's order, the classes in class order."""
    found: dict[str, list[TableRow]] = {label: [] for label in table.classes}
    missing = len(found)
    for i, label in enumerate(table.labels):
        rows = found[label]
        if len(rows) < per_class:
            rows.append(TableRow(i, table.ids[i], label, tuple(float(v) for v in table.values[i])))
            missing -= len(rows) == per_class
            if not missing:
                break
    return {label: tuple(rows) for label, rows in found.items()}


@dataclass(frozen=True)
class TableRowsPage:
    """The rows page: the table's size, the rows shown, the first rows of each class, and the settings in the
    address that could not be used."""

    lesson: TableLesson
    shown: RowsPage
    examples: dict[str, tuple[TableRow, ...]]

    def to_dict(self) -> dict:
        entry = self.lesson.entry
        return {"corpus": {"id": entry.id, "name": entry.name, "rows": len(entry.table)}, **self.shown.to_dict(),
                "first_rows_of_each_class": {label: [row.to_dict() for row in rows]
                                             for label, rows in self.examples.items()},
                "errors": self.lesson.state.errors}


def rows(corpus_id):
    lesson = load_table_lesson(corpus_id)
    table = lesson.entry.table
    page = asked_page(lesson, page_count(len(table), ROWS_PER_PAGE))
    shown = rows_page(table, page, ROWS_PER_PAGE)
    return respond("gaussian/rows.html", "rows", TableRowsPage(lesson, shown, class_examples(table)), lesson=lesson,
                   section="rows")
