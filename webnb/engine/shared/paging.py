"""Paging: how many pages a list fills. One rule for every paged table of the pages (documents, words, rows,
mistakes): at least one page, so that an empty list still has a page that says so."""
from __future__ import annotations

import math


def page_count(items: int, per_page: int) -> int:
    """How many pages ``items`` fill, ``per_page`` to a page: at least one, even when there is nothing to show.

    Parameters
    ----------
    items : int
        Things to show.
    per_page : int
        Things a page shows, at least 1.

    Returns
    -------
    int
        At least 1.

    Examples
    --------
    >>> page_count(0, 25), page_count(25, 25), page_count(26, 25)
    (1, 1, 2)
    """
    return max(1, math.ceil(items / per_page))
