"""A config whose prompt reads `_conversation` as one promptum case whose turns are its tests.

promptfoo runs such a config's tests in order, as one conversation: `_conversation` holds the
earlier tests' rendered prompts (`input`) and answers (`output`). A promptum case with
`turns:` sends one turn per test and lets each turn's query read the earlier ones as `turns`
(`query`, `reply`), so the prompt becomes every turn's query with `_conversation` read as
`turns` and each test's vars written in as literals.
"""

from __future__ import annotations

import re
from typing import Any

from promptum.importers._context import Context
from promptum.importers._javascript import literal
from promptum.importers._source import Where
from promptum.importers._writer import Commented

_READS = re.compile(r"\{[{%][^}]*\b_conversation\b")
_TAG = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.DOTALL)
_FIELDS = {"input": "query", "output": "reply"}
_SENT = (
    "promptfoo sends the rendered prompt alone; promptum sends each earlier turn as chat "
    "messages too, before the turn's query (the prompt, with the transcript it renders)"
)


def reads_conversation(text: Any) -> bool:
    """Whether a prompt's template reads `_conversation`."""
    return isinstance(text, str | list) and _READS.search(str(text)) is not None


def turn_template(prompt: str) -> str | None:
    """The prompt as a turn's query: `_conversation` read as `turns`; None if it reads more."""
    unknown = []

    def rewritten(tag: re.Match[str]) -> str:
        text = tag.group().replace("_conversation", "turns")

        def field(match: re.Match[str]) -> str:
            if match.group(1) not in _FIELDS:
                unknown.append(match.group(1))
            return "." + _FIELDS.get(match.group(1), match.group(1))

        return re.sub(r"\.(input|output|prompt|metadata)\b", field, text)

    template = _TAG.sub(rewritten, prompt)
    return None if unknown else template


def _with_values(template: str, variables: dict[str, Any]) -> str | None:
    """The template with each of the test's vars written in as a literal.

    None if one is not text or a number (a list, a file).
    """
    for value in variables.values():
        if not isinstance(value, str | int | float) or isinstance(value, bool):
            return None
    names = {
        re.compile(rf"(?<![.\w]){re.escape(name)}(?!\w)"): literal(value)
        for name, value in variables.items()
    }

    def filled(tag: re.Match[str]) -> str:
        text = tag.group()
        for name, shown in names.items():
            text = name.sub(shown.replace("\\", "\\\\"), text)  # a replacement, not a pattern
        return text

    return _TAG.sub(filled, template)


def conversation_case(
    template: str, where: Where, cases: list[Commented], context: Context
) -> Commented | None:
    """One case whose turns are the tests `cases`, in order; None (noted) if one cannot be."""
    turns = []
    for case in cases:
        value = case.value
        query = _with_values(template, value.get("vars") or {})
        if query is None:
            context.skip(
                _where(case), "test", "a conversation turn writes its vars in: text or numbers"
            )
            continue
        turn: dict[str, Any] = {"query": query}
        if value.get("checks"):
            turn["checks"] = value["checks"]
        criteria = (value.get("judge") or {}).get("criteria")
        if criteria:
            turn["criteria"] = criteria
        for key in sorted(set(value) - {"id", "vars", "checks", "judge"}):
            context.skip(_where(case), f"test `{key}`", "a conversation turn has no such key")
        turns.append(Commented(turn, case.comments, tag=case.tag))
    if not turns:
        return None
    context.approximate(where, "`_conversation`: the tests are the turns of one case", _SENT)
    comment = (f"{where}: the prompt reads _conversation: each test is a turn, in order",)
    return Commented({"id": context.unique("conversation"), "turns": turns}, comment)


def _where(case: Commented) -> Where:
    tag = case.tag
    text = str(tag[1]) if isinstance(tag, tuple) and len(tag) > 1 else ""
    file, _, line = text.rpartition(":")
    return Where(file or text, int(line) if line.isdigit() else 1)
