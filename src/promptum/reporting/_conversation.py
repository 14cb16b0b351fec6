"""How the text reports name a conversation's failing turn and show its transcript."""

from __future__ import annotations

from promptum.reporting._format import with_tool_calls
from promptum.reporting._text import shorten, visible
from promptum.values.run_result import CaseResult

EXCERPT = 300
"""Characters of a user message or reply shown in a transcript excerpt."""


def failing_where(result: CaseResult) -> str | None:
    """``turn N`` (the first turn that did not pass) or ``conversation``; None if it passed.

    None too for a single request: it has no turns to name.
    """
    if result.turns is None or result.status == "pass":
        return None
    number = result.failing_turn
    return "conversation" if number is None else f"turn {number}"


def turn_lines(
    result: CaseResult, *, only_failing: bool = False, limit: int | None = EXCERPT
) -> list[str]:
    """The transcript as lines: each turn's status, the user's message, then the reply.

    With `only_failing`, the failing turn alone (the whole transcript when no turn failed:
    a conversation grade failed, which is about all of it). Texts are cut to `limit`
    characters (None: whole). Empty for a single request.
    """
    turns = list(enumerate(result.turns or (), start=1))
    failing = result.failing_turn
    if only_failing and failing is not None:
        turns = [turns[failing - 1]]
    lines = []
    for number, turn in turns:
        lines.append(f"turn {number} ({turn.status}):")
        lines.append(f"  user: {_one_block(turn.query, limit)}")
        completion = turn.completion
        if completion.error is not None:
            lines.append(f"  error: {_one_block(completion.error, limit)}")
        else:
            lines.append(f"  assistant: {_one_block(with_tool_calls(completion), limit)}")
    return lines


def _one_block(text: str, limit: int | None) -> str:
    """`text` shortened, its later lines indented under the first."""
    text = visible(text.strip())
    if limit is not None:
        text = shorten(text, limit)
    return text.replace("\n", "\n    ") or "(empty)"
