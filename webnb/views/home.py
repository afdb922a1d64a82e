"""The home page: what webnb is for, the example corpora it ships with, and the class corpora the operator
published."""
from __future__ import annotations

from dataclasses import dataclass

from flask import Blueprint, url_for

from webnb.engine.gaussian.table import NumericTable
from webnb.engine.shared.corpus import Corpus
from webnb.examples import EXAMPLES, TABLE_EXAMPLES, Example, TableExample, load_example_corpus, load_example_table
from webnb.hosting.catalog import CorpusEntry
from webnb.hosting.outages import STORAGE_ERRORS
from webnb.hosting.workspaces import may_start, offers_start
from webnb.lesson.seed_lessons import SEED_LESSONS, TEXTBOOK_LESSONS, SeedLesson, get_recipe
from webnb.views.common import catalog, class_corpora_with_tests, respond

bp = Blueprint("home", __name__)


@dataclass(frozen=True)
class LessonLink:
    """A seed lesson as the home page offers it: its address; or, while the class corpus it needs is not published
    (``href`` None), the command that publishes it (told once per corpus)."""

    lesson: SeedLesson
    href: str | None
    publish_command: str | None = None

    def to_dict(self) -> dict:
        return {"id": self.lesson.id, "title": self.lesson.title, "summary": self.lesson.summary,
                "corpus": self.lesson.corpus_id, "href": self.href, "publish_command": self.publish_command,
                **({"book": self.lesson.book} if self.lesson.book else {})}


@dataclass(frozen=True)
class HomePage:
    """The built-in examples the home page introduces: each text corpus with its documents, each table of numbers
    with its size; and the class corpora, each with its size and presets (their documents stay in the database) and
    its test part, if it has one (listed under it, not as a corpus of its own)."""

    examples: tuple[tuple[Example, Corpus], ...]
    tables: tuple[tuple[TableExample, NumericTable], ...]
    class_corpora: tuple[tuple[CorpusEntry, CorpusEntry | None], ...] = ()
    lessons: tuple[LessonLink, ...] = ()
    textbook_lessons: tuple[LessonLink, ...] = ()

    def to_dict(self) -> dict:
        return {
            "lessons": [link.to_dict() for link in self.lessons],
            "textbook_lessons": [link.to_dict() for link in self.textbook_lessons],
            "examples": [
                {"id": example.id, "title": example.title, "description": example.description,
                 "sample_review": example.sample_review, "class_counts": corpus.class_counts(),
                 "documents": [{"id": doc_id, "label": label, "text": text}
                               for doc_id, label, text in zip(corpus.ids, corpus.labels, corpus.texts, strict=True)]}
                for example, corpus in self.examples
            ],
            "tables": [
                {"id": example.id, "title": example.title, "description": example.description, "rows": len(table),
                 "features": list(table.features), "class_counts": table.class_counts()}
                for example, table in self.tables
            ],
            # Only where the operator published some, so that a server without any answers as before.
            **({"class_corpora": [
                {"id": entry.id, "name": entry.name, "description": entry.description, "source": entry.source,
                 "documents": entry.n_documents, "class_counts": dict(entry.class_counts),
                 "presets": dict(entry.presets),
                 "test_set": None if test is None else {"id": test.id, "name": test.name,
                                                        "documents": test.n_documents}}
                for entry, test in self.class_corpora
            ]} if self.class_corpora else {}),
        }


def _class_corpora() -> tuple[CorpusEntry, ...]:
    """The published class corpora; none while the database cannot be reached, so that the home page and its
    examples, which need no database, keep working through an outage."""
    try:
        return tuple(entry for entry in catalog().builtin() if entry.class_corpus)
    except STORAGE_ERRORS:
        return ()


def _lesson_links(class_corpora: tuple[CorpusEntry, ...]) -> tuple[LessonLink, ...]:
    """Every seed lesson, linked when its corpus is here: always for a built-in, for a lecture's class corpus once
    the operator has published it."""
    published = {entry.id for entry in class_corpora}
    links, told = [], set()
    for lesson in SEED_LESSONS:
        if lesson.recipe is not None and lesson.corpus_id not in published:
            recipe = get_recipe(lesson.recipe)
            command = None if recipe.id in told else f"webnb corpora add {recipe.source} --lesson {recipe.id}"
            told.add(recipe.id)
            links.append(LessonLink(lesson, None, command))
            continue
        links.append(_link(lesson))
    return tuple(links)


def _link(lesson: SeedLesson) -> LessonLink:
    """The lesson's page with its settings in the address."""
    parameters = {name: list(value) if isinstance(value, tuple) else value for name, value in lesson.parameters}
    return LessonLink(lesson, url_for(lesson.endpoint, corpus_id=lesson.corpus_id, **parameters))


@bp.get("/")
def index():
    class_corpora = _class_corpora()
    page = HomePage(
        tuple((example, load_example_corpus(example.id)) for example in EXAMPLES),
        tuple((example, load_example_table(example.id)) for example in TABLE_EXAMPLES),
        class_corpora_with_tests(class_corpora),
        _lesson_links(class_corpora),
        tuple(_link(lesson) for lesson in TEXTBOOK_LESSONS),  # every one on a built-in corpus
    )
    return respond("home/index.html", "content", page, class_start=_class_start())


@dataclass(frozen=True)
class ClassStart:
    """The home page's "Start a class" control: offered to the owner in local mode, and in hosted mode where the
    operator set an instructor key (asked for until this browser has given it)."""

    offered: bool
    needs_key: bool
    corpora: tuple[CorpusEntry, ...]


def _class_start() -> ClassStart:
    offered = offers_start()
    corpora = ()
    if offered:
        try:
            builtin = tuple(catalog().builtin())
            test_parts = {test.id for _, test in class_corpora_with_tests(builtin) if test is not None}
            corpora = tuple(entry for entry in builtin if entry.id not in test_parts)  # no class trains on a test set
        except STORAGE_ERRORS:
            corpora = ()
    return ClassStart(offered and bool(corpora), offered and not may_start(), corpora)
