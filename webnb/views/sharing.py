"""Sharing a corpus: a read-only link that opens a copy in the viewer's own workspace."""
from __future__ import annotations

from dataclasses import dataclass

from flask import Blueprint, abort, current_app, redirect, url_for

from webnb.engine import CorpusError
from webnb.hosting.catalog import CorpusEntry
from webnb.views.common import catalog, corpus_or_404, respond

bp = Blueprint("sharing", __name__)


def _storage():
    return current_app.extensions["webnb"]["storage"]


@dataclass(frozen=True)
class ShareLink:
    """The link that lets anyone open their own copy of ``entry``."""

    entry: CorpusEntry
    link: str

    def to_dict(self) -> dict:
        entry = self.entry
        return {"corpus": {"id": entry.id, "name": entry.name, "documents": entry.n_documents}, "link": self.link}


@dataclass(frozen=True)
class SharedCorpus:
    """What a share link shows before the viewer makes a copy: the corpus's name, size and classes (never its
    id, which is its owner's), and why the copy could not be made, if it could not."""

    entry: CorpusEntry
    error: str | None = None

    def to_dict(self) -> dict:
        entry = self.entry
        corpus = {"name": entry.name, "documents": entry.n_documents, "classes": entry.corpus.class_counts()}
        return {"corpus": corpus, "error": self.error}


@bp.post("/corpora/<corpus_id>/share")
def share(corpus_id):
    """Make a share link for one of this workspace's corpora (a built-in needs none: everyone has it)."""
    entry = corpus_or_404(corpus_id)
    if entry.builtin:
        abort(404, "A built-in or class corpus needs no share link: everyone who opens webnb has it already.")
    token = _storage().share(corpus_id)
    link = ShareLink(entry, url_for("sharing.shared", token=token, _external=True))
    return respond("sharing/link.html", "content", link, entry=entry, link=link.link)


def _shared_entry(token: str):
    corpus_id = _storage().shared_corpus_id(token)
    # The token is the permission: the corpus is read from the whole catalog, whoever owns it.
    entry = current_app.extensions["webnb"]["catalog"].get(corpus_id) if corpus_id else None
    if entry is None:
        abort(404)
    return entry


def _shared_page(entry: CorpusEntry, token: str, error: str | None = None, status: int = 200):
    return respond("sharing/open.html", "content", SharedCorpus(entry, error), status=status,
                   entry=entry, token=token, error=error)


@bp.get("/shared/<token>")
def shared(token):
    return _shared_page(_shared_entry(token), token)


@bp.post("/shared/<token>")
def open_copy(token):
    """Store a copy of the shared corpus in the viewer's workspace and open it; the original never changes."""
    entry = _shared_entry(token)
    try:
        # A new entry for the same stored records (and counted data): nothing is read, stored or counted again.
        corpus_id = catalog().copy(entry, name=entry.name, source=f"a copy of a shared corpus ({entry.source})")
    except CorpusError as error:
        return _shared_page(entry, token, str(error), status=400)
    return redirect(url_for("corpus.show", corpus_id=corpus_id), code=303)
