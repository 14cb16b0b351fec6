"""How figures read in every human-facing report (HTML, Markdown)."""

from __future__ import annotations

from datetime import datetime

from promptum.values.completion import Completion


def percent(fraction: float) -> str:
    """A fraction as a percentage with one decimal."""
    return f"{fraction * 100:.1f}%"


def cost(usd: float | None) -> str:
    """Dollars, precise enough for the cost of one small call."""
    if usd is None:
        return "–"
    return f"${usd:.4f}" if usd < 1 else f"${usd:,.2f}"


def milliseconds(ms: float | None) -> str:
    """A latency in whole milliseconds."""
    return "–" if ms is None else f"{ms:,.0f} ms"


def seconds(value: float | None) -> str:
    """A duration in seconds, or minutes and seconds when longer."""
    if value is None:
        return "–"
    if value < 60:
        return f"{value:.1f} s"
    minutes, rest = divmod(round(value), 60)
    return f"{minutes} min {rest} s"


def score(value: float | None) -> str:
    """A judge score with two decimals."""
    return "–" if value is None else f"{value:.2f}"


def timestamp(moment: datetime) -> str:
    """A moment to the minute with its zone."""
    return moment.strftime("%Y-%m-%d %H:%M %Z").strip()


def with_tool_calls(completion: Completion) -> str:
    """The response text, then one ``→ name(arguments)`` line per tool call made."""
    calls = [f"→ {call.describe()}" for call in completion.tool_calls]
    return "\n".join([completion.text, *calls]) if calls else completion.text
