"""Sharing a corpus: a read-only link that opens a copy in the viewer's own workspace."""
from __future__ import annotations

from flask import Blueprint, abort, current_app, redirect, render_template, url_for

from webnb.engine import CorpusError
from webnb.views.common import catalog

bp = Blueprint("sharing", __name__)


def _storage():
    return current_app.extensions["webnb"]["storage"]


@bp.post("/corpora/<corpus_id>/share")
def share(corpus_id):
    """Make a share link for one of this workspace's corpora (a built-in needs none: everyone has it)."""
    entry = catalog().get(corpus_id)
    if entry is None or entry.builtin:
        abort(404)
    token = _storage().share(corpus_id)
    return render_template(
        "sharing/link.html", entry=entry, link=url_for("sharing.shared", token=token, _external=True)
    )


def _shared_entry(token: str):
    corpus_id = _storage().shared_corpus_id(token)
    # The token is the permission: the corpus is read from the whole catalog, whoever owns it.
    entry = current_app.extensions["webnb"]["catalog"].get(corpus_id) if corpus_id else None
    if entry is None:
        abort(404)
    return entry


@bp.get("/shared/<token>")
def shared(token):
    entry = _shared_entry(token)
    return render_template("sharing/open.html", entry=entry, token=token, error=None)


@bp.post("/shared/<token>")
def open_copy(token):
    """Store a copy of the shared corpus in the viewer's workspace and open it; the original never changes."""
    entry = _shared_entry(token)
    try:
        # A new entry for the same stored records (and counted data): nothing is read, stored or counted again.
        corpus_id = catalog().copy(entry, name=entry.name, source=f"a copy of a shared corpus ({entry.source})")
    except CorpusError as error:
        return render_template("sharing/open.html", entry=entry, token=token, error=str(error)), 400
    return redirect(url_for("corpus.show", corpus_id=corpus_id), code=303)
