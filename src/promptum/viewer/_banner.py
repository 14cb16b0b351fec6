"""A notice at the top of a page rendered elsewhere (the run page is the HTML report)."""

from __future__ import annotations

from html import escape

_BODY = "<body>"


def with_banner(page: str, note: str | None) -> str:
    """`page` with `note` (escaped) as a banner first in its body; `page` itself without one.

    The report is our template: its first ``<body>`` is the tag itself, since the data it
    shows is escaped and comes after it.
    """
    if note is None or _BODY not in page:
        return page
    banner = f'\n<p class="banner incomplete" id="reviews-skipped">{escape(note)}</p>'
    return page.replace(_BODY, _BODY + banner, 1)
