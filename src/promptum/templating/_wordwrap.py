"""The sandbox's `wordwrap` filter: Jinja's, charging the text it builds, long words included."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from promptum.templating._budget import current

if TYPE_CHECKING:
    import jinja2


class _Wrapper(textwrap.TextWrapper):
    """textwrap's wrapper, charging each word too long for a line as it breaks it."""

    def _handle_long_word(
        self, reversed_chunks: list[str], cur_line: list[str], cur_len: int, width: int
    ) -> None:
        # It cuts a line off the word and copies the rest, once per line: quadratic in the
        # word's length, `('x' * 3000000)|wordwrap(1)` would run for minutes.
        if self.break_long_words:
            current().spend(len(reversed_chunks[-1]))
        super()._handle_long_word(reversed_chunks, cur_line, cur_len, width)


def wordwrap(
    environment: jinja2.Environment,
    s: str,
    width: int = 79,
    break_long_words: bool = True,
    wrapstring: str | None = None,
    break_on_hyphens: bool = True,
) -> str:
    """Jinja's `wordwrap`, refused before it builds more than the budget allows."""
    breaks = len(s) // max(width, 1) + s.count("\n") + 1
    current().afford(len(s) + breaks * len(wrapstring or "\n"))
    wrapper = _Wrapper(
        width=width,
        expand_tabs=False,
        replace_whitespace=False,
        break_long_words=break_long_words,
        break_on_hyphens=break_on_hyphens,
    )
    wrapstring = environment.newline_sequence if wrapstring is None else wrapstring
    # Like Jinja's: each line is a paragraph, wrapped on its own.
    return wrapstring.join(wrapstring.join(wrapper.wrap(line)) for line in s.splitlines())
