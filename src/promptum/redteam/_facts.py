"""What the generator knows of a suite: plain data its loader hands in, nothing imported."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

_SHOWS_CONTEXT = re.compile(r"\{[{%][^}]*\bcontext\b")
_SHOWS_CANARY = re.compile(r"\{\{\s*canary\s*\}\}")


def shows_context(text: str | None) -> bool:
    """Whether a template puts the case's `context` into the prompt."""
    return text is not None and _SHOWS_CONTEXT.search(text) is not None


def shows_canary(text: str | None) -> bool:
    """Whether a template holds the run-time canary, ``{{ canary }}``."""
    return text is not None and _SHOWS_CANARY.search(text) is not None


@dataclass(frozen=True, slots=True)
class Variant:
    """One prompt variant of the suite (`prompts:`): its own system message and its texts."""

    name: str
    system: str | None
    """Its own system message; None: the case's (or suite's) system prompt is sent."""
    texts: tuple[str, ...]
    """Every message (or the one text) of the variant."""


@dataclass(frozen=True, slots=True)
class Carrier:
    """One of the suite's own cases, as an ordinary question an attack can ride on."""

    query: str
    expected: Mapping[str, Any] = field(default_factory=dict)
    """Its field assertions: what a legitimate answer holds."""
    calls: frozenset[str] = frozenset()
    """The tools it expects to be called (`tool_called`, `tool_order`, `tool_args` expected)."""


@dataclass(frozen=True, slots=True)
class SuiteFacts:
    """What a suite has to attack."""

    response_schema: Mapping[str, Any] | None = None
    """The JSON Schema of its `defaults.response_model`."""
    tools: Sequence[Mapping[str, Any]] = ()
    """Its `tools:`, as OpenAI function schemas."""
    system: str | None = None
    """Its system prompt (`defaults.system`, else `system`)."""
    variants: Sequence[Variant] = ()
    carriers: Sequence[Carrier] = ()
    called: frozenset[str] = frozenset()
    """The tools any of its own cases expects to be called (carriers or not): no default aim
    of the `tool` goal."""
    target: bool = False
    """It answers through the user's application, which is given the query alone."""

    @property
    def tool_names(self) -> list[str]:
        """The names of the tools offered."""
        return [str(tool.get("function", {}).get("name")) for tool in self.tools]

    def tool(self, name: str) -> Mapping[str, Any]:
        """The function schema of the tool `name`."""
        for tool in self.tools:
            function: Mapping[str, Any] = tool.get("function", {})
            if function.get("name") == name:
                return function
        raise KeyError(name)
