"""Text a case sends as written: Jinja syntax in generated text is not a template of promptum's."""

from __future__ import annotations

import re

_OPENING = re.compile(r"\{[{%#]")
"""Jinja's three openings: an expression, a statement, a comment."""


def literal(text: str) -> str:
    """`text` as a template that renders to itself (a model's or an attacker's words)."""
    if _OPENING.search(text) is None:
        return text
    if "endraw" not in text:
        return "{% raw %}" + text + "{% endraw %}"
    # An `endraw` in the text would end a raw block early, and what follows would run as a
    # template (a policy's, or an attacker model's, `{% endraw %}{{ ... }}`): each opening is
    # written as an expression of itself instead.
    return _OPENING.sub(lambda opening: "{{ '" + opening.group(0) + "' }}", text)
