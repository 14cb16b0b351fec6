"""What the generator is told of the application: plain data its caller hands in."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from promptum.generation._documents import Passage


@dataclass(frozen=True, slots=True)
class Brief:
    """The suite's application and the material new cases are written from."""

    system: str | None = None
    """The application's system prompt."""
    tools: Sequence[Mapping[str, Any]] = ()
    """Its tools, as OpenAI function schemas."""
    response_schema: Mapping[str, Any] | None = None
    """The JSON Schema its answers follow, if structured."""
    variables: Mapping[str, Sequence[str]] = field(default_factory=dict)
    """Each template variable of its cases, with the values its cases give it."""
    queries: Sequence[str] = ()
    """Its existing cases' user messages: examples to follow, and near-duplicates to avoid."""
    passages: Sequence[Passage] = ()
    """The documents' passages cases are written from (none: cases from the app alone)."""

    @property
    def tool_names(self) -> list[str]:
        """The names of the tools offered, in order."""
        return [str(tool.get("function", {}).get("name", "")) for tool in self.tools]
