"""One page of a corpus's documents, each with what the analysis made of it: the words counted and the words
dropped (and why), so that a student sees the text become the features before any counting."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from webnb.engine.shared.corpus import Corpus
from webnb.engine.shared.paging import page_count
from webnb.engine.text.analysis import DocumentAnalysis

DOCUMENTS_PER_PAGE = 50


@dataclass(frozen=True)
class ShownDocument:
    index: int  # the document's position in the corpus
    id: str
    label: str
    text: str
    analysis: DocumentAnalysis | None  # None when the corpus could not be counted with the lesson's options

    def to_dict(self) -> dict:
        analysis = self.analysis
        return {
            "index": self.index,
            "id": self.id,
            "label": self.label,
            "text": self.text,
            "tokens": list(analysis.features) if analysis else None,
            "dropped": [{"word": w.word, "reason": w.reason} for w in analysis.dropped] if analysis else None,
        }


@dataclass(frozen=True)
class DocumentWindow:
    """Page ``page`` of ``pages`` of a corpus's documents, and what the page says of the whole corpus.

    Parameters
    ----------
    documents : tuple of ShownDocument
        The documents on this page, each with its position, id, label, text and analysis (or None).
    page : int
        This page, from 1.
    pages : int
        Pages in all.
    n_documents : int
        Documents in the corpus.
    class_counts : tuple of (str, int)
        (class, documents), in the corpus's class order.
    vocabulary_size : int or None
        None when the corpus could not be counted.
    """

    documents: tuple[ShownDocument, ...]
    page: int  # from 1
    pages: int
    n_documents: int  # in the corpus
    class_counts: tuple[tuple[str, int], ...]  # (class, documents), in the corpus's class order
    vocabulary_size: int | None  # None when the corpus could not be counted

    def to_dict(self) -> dict:
        return {
            "class_counts": dict(self.class_counts),
            "vocabulary_size": self.vocabulary_size,
            "page": self.page,
            "pages": self.pages,
            "documents": [document.to_dict() for document in self.documents],
        }


def document_pages(n_documents: int) -> int:
    """How many pages of ``DOCUMENTS_PER_PAGE`` (50) documents a corpus of ``n_documents`` takes: at least one.

    Parameters
    ----------
    n_documents : int
        Documents in the corpus.

    Returns
    -------
    int
        Pages of documents, at least 1 (see ``page_count``).

    Examples
    --------
    >>> document_pages(0), document_pages(50), document_pages(51)
    (1, 1, 2)
    """
    return page_count(n_documents, DOCUMENTS_PER_PAGE)


def document_window(corpus: Corpus, page: int = 1, *,
                    analyse: Callable[[range], Sequence[DocumentAnalysis]] | None = None,
                    vocabulary_size: int | None = None) -> DocumentWindow:
    """Page ``page`` (of ``document_pages``; kept between 1 and the last) of ``corpus``.

    Parameters
    ----------
    corpus : Corpus
        The corpus.
    page : int, default 1
        The page, from 1.
    analyse : callable, optional
        ``analyse(positions)`` gives the analyses of the documents at the positions of a range (an
        ``Analyzer.explain`` of each, which a caller may keep); without it, the documents are shown without
        analysis.
    vocabulary_size : int, optional
        The vocabulary's size, for the page to say; None when the corpus could not be counted.

    Returns
    -------
    DocumentWindow
        The page's documents, and what the page says of the corpus.

    Examples
    --------
    >>> from webnb.engine.shared.corpus import Corpus
    >>> from webnb.engine.text.analysis import Analyzer
    >>> corpus = Corpus.from_pairs([("China", "Chinese Beijing Chinese"), ("Japan", "I saw Tokyo")])
    >>> window = document_window(corpus, 1, analyse=lambda positions: [Analyzer().explain(corpus.texts[i])
    ...                                                                 for i in positions])
    >>> window.pages, window.class_counts
    (1, (('China', 1), ('Japan', 1)))
    >>> [(d.id, d.analysis.features) for d in window.documents]
    [('1', ('chinese', 'beijing', 'chinese')), ('2', ('saw', 'tokyo'))]
    """
    pages = document_pages(len(corpus))
    page = min(max(page, 1), pages)
    start = (page - 1) * DOCUMENTS_PER_PAGE
    indices = range(start, min(start + DOCUMENTS_PER_PAGE, len(corpus)))
    analyses = analyse(indices) if analyse is not None else [None] * len(indices)
    documents = tuple(
        ShownDocument(i, corpus.ids[i], corpus.labels[i], corpus.texts[i], analysis)
        for i, analysis in zip(indices, analyses, strict=True)
    )
    return DocumentWindow(documents, page, pages, len(corpus), tuple(corpus.class_counts().items()), vocabulary_size)
