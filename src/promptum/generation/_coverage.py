"""What the kept cases cover: each tool, each variable's values, the documents' passages."""

from __future__ import annotations

from collections import Counter

from promptum.generation._brief import Brief
from promptum.generation._generate import Generation


def coverage(brief: Brief, generation: Generation) -> list[str]:
    """One line per thing to cover, ``tools: 2 of 3 (refund, lookup; not: cancel)``."""
    lines = []
    if brief.tool_names:
        used = {aim.tool for aim in generation.aims if aim.tool}
        lines.append(_line("tools", brief.tool_names, used))
    for name, values in sorted(brief.variables.items()):
        used = {aim.values[name] for aim in generation.aims if name in aim.values}
        lines.append(_line(f"values of {name}", sorted(set(values)), used))
    if brief.passages:
        spans = [passage.span for passage in brief.passages]
        used = {passage.span for aim in generation.aims for passage in aim.passages}
        lines.append(_line("passages", spans, used))
    return lines


def kinds(generation: Generation) -> str:
    """``question 12, document 5, constraint 3``: the kept cases by how they were made."""
    counted = Counter(aim.kind for aim in generation.aims)
    return ", ".join(f"{kind} {count}" for kind, count in counted.most_common())


def _line(what: str, everything: list[str], used: set[str]) -> str:
    missing = [item for item in everything if item not in used]
    line = f"{what}: {len(everything) - len(missing)} of {len(everything)}"
    return line + (f" (not: {', '.join(missing[:10])})" if missing else "")
