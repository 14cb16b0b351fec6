"""Writing the suite as YAML a person reads: block style, short values in flow, comments.

PyYAML writes no comments, so the layout is written here and PyYAML renders only the
scalars and short flow values; the whole text is read back and compared with the data,
so a quirk of this writer can never change what the suite says.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from promptum.errors import ConfigError

_FLOW_WIDTH = 96
_BUG = "the importer wrote YAML it cannot read back (a bug: please report it with the config)"
_NON_PRINTABLE = yaml.reader.Reader.NON_PRINTABLE
"""What YAML refuses to read anywhere in a file, a comment too."""


@dataclass(frozen=True, slots=True)
class Commented:
    """A value with comment lines written above it, and a tag naming where it came from."""

    value: Any
    comments: tuple[str, ...] = ()
    tag: object = None


def plain(value: Any) -> Any:
    """The value without its comments: what the YAML says."""
    if isinstance(value, Commented):
        return plain(value.value)
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


def _has_comments(value: Any) -> bool:
    if isinstance(value, Commented):
        return True
    if isinstance(value, dict):
        return any(_has_comments(item) for item in value.values())
    if isinstance(value, list):
        return any(_has_comments(item) for item in value)
    return False


def _dumped(value: Any) -> str:
    text = yaml.safe_dump(
        value, default_flow_style=True, width=10**9, allow_unicode=True, sort_keys=False
    )
    text = text.removesuffix("\n").removesuffix("\n...").rstrip("\n")
    if isinstance(value, dict | list) or _reads_back(text, value):
        return text
    # Line breaks YAML knows besides \n (NEL, U+2028...): escaped, on one line.
    text = yaml.safe_dump(value, default_style='"', width=10**9, allow_unicode=False)
    return text.removesuffix("\n")


def _reads_back(text: str, value: Any) -> bool:
    try:
        return "\n" not in text and bool(yaml.safe_load(f"k: {text}\n") == {"k": value})
    except yaml.YAMLError:
        return False


def _flow(value: Any, room: int) -> str | None:
    """`value` on one line, when it is short, uncommented and holds no multi-line text."""
    if _has_comments(value):
        return None
    text = _dumped(value)
    if len(text) > room or not _reads_back(text, value):
        return None
    return text


def _comment_text(line: str) -> str:
    """One line of a comment, with what YAML refuses in a file (control characters) escaped."""
    return _NON_PRINTABLE.sub(lambda found: found[0].encode("unicode_escape").decode(), line)


def _block(text: str, indent: int) -> list[str] | None:
    """A literal block scalar (`|`) for multi-line text, when one reads back the same."""
    if "\n" not in text or "\r" in text or text[:1] in (" ", "\t"):
        return None
    if any(not (char.isprintable() or char in "\n\t") for char in text):
        return None
    if text.endswith("\n\n"):
        header, body = "|+", text[:-1]
    elif text.endswith("\n"):
        header, body = "|", text[:-1]
    else:
        header, body = "|-", text
    pad = " " * indent
    lines = [header] + [pad + line if line else "" for line in body.split("\n")]
    try:
        if yaml.safe_load("k: " + "\n".join(lines) + "\n") != {"k": text}:
            return None
    except yaml.YAMLError:
        return None
    return lines


class _Emitter:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.spans: dict[object, tuple[int, int]] = {}

    def comments(self, comments: tuple[str, ...], indent: int) -> None:
        for comment in comments:
            # A comment ends at a line break: text over several lines (a test's
            # `description: |`) is a comment line each, or its rest would be read as YAML.
            for line in comment.splitlines() or [""]:
                self.lines.append(" " * indent + ("# " + _comment_text(line)).rstrip())

    def mapping(self, mapping: dict[str, Any], indent: int) -> None:
        for key, item in mapping.items():
            start = len(self.lines) + 1
            value, tag = item, None
            if isinstance(item, Commented):
                self.comments(item.comments, indent)
                value, tag = item.value, item.tag
            self.entry(" " * indent + _dumped(key) + ":", value, indent)
            if tag is not None:
                self.spans[tag] = (start, len(self.lines))

    def sequence(self, items: list[Any], indent: int) -> None:
        for item in items:
            start = len(self.lines) + 1
            value, tag = item, None
            if isinstance(item, Commented):
                self.comments(item.comments, indent)
                value, tag = item.value, item.tag
            if isinstance(value, dict) and value and _flow(value, _FLOW_WIDTH - indent) is None:
                first = len(self.lines)
                self.mapping(value, indent + 2)
                self.lines[first] = " " * indent + "- " + self.lines[first][indent + 2 :]
            else:
                self.entry(" " * indent + "-", value, indent)
            if tag is not None:
                self.spans[tag] = (start, len(self.lines))

    def entry(self, prefix: str, value: Any, indent: int) -> None:
        if isinstance(value, dict | list) and value:
            flow = _flow(value, _FLOW_WIDTH - len(prefix))
            if flow is not None:
                self.lines.append(f"{prefix} {flow}")
            elif isinstance(value, dict):
                self.lines.append(prefix)
                self.mapping(value, indent + 2)
            else:
                self.lines.append(prefix)
                self.sequence(value, indent + 2)
            return
        if isinstance(value, str):
            block = _block(value, indent + 2)
            if block is not None:
                self.lines.append(f"{prefix} {block[0]}")
                self.lines.extend(block[1:])
                return
        self.lines.append(f"{prefix} {_dumped(value)}")


def dump(
    data: dict[str, Any], header: tuple[str, ...] = (), shown: str = "the suite"
) -> tuple[str, dict[object, tuple[int, int]]]:
    """The YAML text of `data` and the lines (first, last) of each tagged value.

    Raises ConfigError, located in the text, when it does not read back as `data`.
    """
    emitter = _Emitter()
    emitter.comments(header, 0)
    emitter.mapping(data, 0)
    text = "\n".join(emitter.lines) + "\n"
    try:
        same = yaml.safe_load(text) == plain(data)
    except yaml.YAMLError as exc:  # pragma: no cover - a bug of this writer
        mark = getattr(exc, "problem_mark", None)
        where = f"{shown}:{mark.line + 1}" if mark is not None else shown
        raise ConfigError(f"{where}: {_BUG}: {getattr(exc, 'problem', None) or exc}") from exc
    if not same:  # pragma: no cover - a bug of this writer
        raise ConfigError(f"{shown}: {_BUG}: it does not read back as converted")
    return text, emitter.spans
