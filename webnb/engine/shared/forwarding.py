"""Records that show a part's attribute as their own: ``classes = forwarded("statistics.classes")`` instead of a
three-line property for each."""
from __future__ import annotations

from operator import attrgetter


def forwarded(path: str, doc: str | None = None) -> property:
    """A read-only property that reads the dotted attribute ``path`` of the object it is on.

    Parameters
    ----------
    path : str
        Where the value is, as ``"part.attribute"``.
    doc : str, optional
        The property's docstring; by default it names ``path``.

    Returns
    -------
    property

    Examples
    --------
    >>> class Counted:
    ...     def __init__(self, statistics):
    ...         self.statistics = statistics
    ...     classes = forwarded("statistics.classes")
    >>> from types import SimpleNamespace
    >>> Counted(SimpleNamespace(classes=("ham", "spam"))).classes
    ('ham', 'spam')
    """
    return property(attrgetter(path), doc=doc or f"``{path}``, read where it is kept.")
