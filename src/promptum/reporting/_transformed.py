"""What a result's checks saw when a transform changed the response (docs/expressions.md)."""

from __future__ import annotations

from promptum.checks import SEEN
from promptum.values.run_result import CaseResult


def transformed_texts(result: CaseResult) -> list[str]:
    """Each distinct transformed text the result's grades record, in the grades' order."""
    texts: dict[str, None] = {}
    for grade in result.grades:
        text = grade.details.get(SEEN)
        if isinstance(text, str):
            texts.setdefault(text)
    return list(texts)
