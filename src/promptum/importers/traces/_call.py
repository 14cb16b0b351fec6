"""One production model call read from a trace or a log: what was asked and what was answered."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

Message = dict[str, Any]
"""A chat message as a suite writes it: `role`, `content`, and `tool_calls` or `tool_call_id`."""


@dataclass(frozen=True, slots=True)
class Where:
    """Where a call was read: the file, its line, and the span or record within the line."""

    file: str
    line: int
    inside: str = ""

    def __str__(self) -> str:
        return f"{self.file}:{self.line}" + (f": {self.inside}" if self.inside else "")


@dataclass(frozen=True, slots=True)
class Call:
    """A model call as the product made it: the request, the answer, and where it came from."""

    where: Where
    messages: tuple[Message, ...]
    tools: tuple[dict[str, Any], ...]
    answer: str
    answer_calls: tuple[Message, ...]
    """The tool calls of the answer, each `{name, arguments}`."""
    model: str = ""
    trace_id: str = ""
    span_id: str = ""

    @property
    def tool_called(self) -> str:
        """The first tool the answer called, or "" when it called none."""
        return str(self.answer_calls[0]["name"]) if self.answer_calls else ""


class LeftOutError(Exception):
    """A span or record that holds no call to import, with the reason, counted in the report."""
