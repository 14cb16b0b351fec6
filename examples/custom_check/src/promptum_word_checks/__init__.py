"""An example promptum plugin: one check type, declared as an entry point in pyproject.toml."""

from __future__ import annotations

from promptum import CheckInput


def max_words(response: CheckInput, value: int) -> tuple[bool, str]:
    """The response has at most `value` words."""
    count = len(response.text.split())
    return count <= value, f"{count} words, at most {value}"
