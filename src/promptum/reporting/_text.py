"""Make any string a model or a suite produced safe to show in a report."""

from __future__ import annotations

import re

# C0 controls except tab, newline and carriage return, plus DEL: written as Python-style
# escapes (ESC becomes the four characters "\x1b") so a reader sees they were there, in any
# font, instead of a terminal or parser acting on them.
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# What XML 1.0 cannot hold even as a character reference: lone surrogates and U+FFFE/U+FFFF.
_NOT_XML = re.compile(r"[\ud800-\udfff\ufffe\uffff]")
_EITHER = re.compile(f"{_CONTROLS.pattern}|{_NOT_XML.pattern}")
# Markdown that could turn model text into links, images, HTML, emphasis, headings, table
# cells or mentions; escaped with a backslash so it shows as typed.
_MARKDOWN = re.compile(r"([\\`*_\[\]<>|~@#])")
# What GitHub makes a link of with no Markdown at all: a scheme's `://`, `www.`, an email's
# `@`. A word joiner (U+2060, zero-width) in each leaves the text as it reads, linking nothing.
_AUTOLINK = re.compile(r"(?<=:)(?=//)|(?<=\bwww)(?=\.)|(?<=@)", re.IGNORECASE)
_WORD_JOINER = "\u2060"


def _escape(match: re.Match[str]) -> str:
    return f"\\x{ord(match.group()):02x}"


def visible(text: str) -> str:
    """Escape control characters visibly and replace what no text format can hold by U+FFFD."""
    if _EITHER.search(text) is None:  # the usual case, checked in one pass
        return text
    return _NOT_XML.sub("\ufffd", _CONTROLS.sub(_escape, text))


def shorten(text: str, limit: int) -> str:
    """Cut text to at most `limit` characters, marking the cut with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def inline_markdown(text: str, limit: int | None = None) -> str:
    """Text from a model or a suite as inert one-line Markdown, cut to `limit` characters."""
    flat = " ".join(visible(text).split())
    if limit is not None:
        flat = shorten(flat, limit)
    return _AUTOLINK.sub(_WORD_JOINER, _MARKDOWN.sub(r"\\\1", flat))
