"""Writing the converted suite so that it validates: what promptum refuses is left out.

The suite is loaded as `promptum validate` loads it. A problem promptum reports is located
at a line of the suite; the innermost part of the suite written from one piece of the
config (an assertion, a test, a prompt) that holds the line is left out, noted with
promptum's reason, and the suite is written again.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from promptum.errors import ConfigError
from promptum.importers._context import Context
from promptum.importers._outcome import Fidelity, Note
from promptum.importers._source import Where
from promptum.importers._writer import Commented, dump
from promptum.suites import load_suite

_MAX_ROUNDS = 200
_PROBLEM = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?:\d+:)? (?P<message>.*)$")


def forget_module(adapter: Path) -> None:
    """Drop an adapter imported earlier in this process, so validating reads the new one."""
    resolved = adapter.resolve()
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if file and Path(file).resolve() == resolved:
            del sys.modules[name]


def write_valid(
    data: dict[str, Any], output: Path, context: Context, header: tuple[str, ...]
) -> None:
    """Write the suite; what promptum refuses is dropped, noted, and the suite written again."""
    for _ in range(_MAX_ROUNDS):
        text, spans = dump(data, header)
        output.write_text(text, encoding="utf-8")
        try:
            load_suite(output, check_models=True)
            return
        except ConfigError as exc:
            problems = _problems(str(exc), output)
            if not problems or not _drop_refused(data, spans, problems, context):
                output.unlink(missing_ok=True)
                raise ConfigError(
                    f"the suite converted from {context.config.name} does not validate, and "
                    f"what promptum refuses is not a part it can leave out:\n{exc}"
                    + _skipped(context)
                ) from exc
            if not data.get("test_cases"):
                output.unlink(missing_ok=True)
                raise ConfigError(
                    f"{context.config.name}: no test could be converted: promptum refused "
                    "every one, as listed" + _skipped(context)
                ) from exc
    raise ConfigError(f"the suite converted from {context.config.name} does not validate")


def _problems(message: str, output: Path) -> list[tuple[int, str]]:
    problems = []
    for line in message.splitlines():
        match = _PROBLEM.match(line.strip())
        if match and Path(match["file"]).name == output.name:
            problems.append((int(match["line"]), match["message"]))
    return problems


def _drop_refused(
    data: dict[str, Any],
    spans: dict[object, tuple[int, int]],
    problems: list[tuple[int, str]],
    context: Context,
) -> bool:
    """Leave out the innermost tagged part holding each problem; False if one has none."""
    refused = _innermost_parts(spans, problems)
    if refused is None:
        return False
    for tag, message in _dropped_this_round(data, spans, refused).items():
        _leave_out(data, spans, tag, message, context)
    return True


def _innermost_parts(
    spans: dict[object, tuple[int, int]], problems: list[tuple[int, str]]
) -> dict[object, str] | None:
    """The innermost tagged part holding each problem's line, with the problem's message."""
    refused: dict[object, str] = {}
    for line, message in problems:
        holding = [
            (end - start, tag) for tag, (start, end) in spans.items() if start <= line <= end
        ]
        if not holding:
            return None
        refused.setdefault(min(holding, key=lambda pair: pair[0])[1], message)
    return refused


def _dropped_this_round(
    data: dict[str, Any], spans: dict[object, tuple[int, int]], refused: dict[object, str]
) -> dict[object, str]:
    """The refused parts to leave out now: the prompts and settings if any, else the cases."""
    # A refused prompt or setting leaves cases without what they need: drop it first, and
    # see which cases are still refused without it. A case refused for a variable only a
    # prompt uses is the prompt's problem, reported at the case.
    for tag, why in list(refused.items()):
        if _is_case(tag):
            for variant in _variants_using(data, spans, why):
                refused.setdefault(variant, why)
    first = {tag: why for tag, why in refused.items() if not _is_case(tag)}
    return first or refused


def _leave_out(
    data: dict[str, Any],
    spans: dict[object, tuple[int, int]],
    tag: object,
    message: str,
    context: Context,
) -> None:
    """Remove one refused part and all it holds, noting why; its assertions are downgraded."""
    start, end = spans[tag]
    inner = [other for other, (s, e) in spans.items() if start <= s and e <= end]
    for other in inner:
        if isinstance(other, tuple) and other[0] == "assertion":
            _downgrade(other, message, context)
    if isinstance(tag, tuple) and tag[0] in ("case", "prompt", "redteam"):
        what = {"case": "test", "redteam": "redteam"}.get(tag[0], f"prompt {tag[1]}")
        where = _where(str(tag[2] if tag[0] == "prompt" else tag[1]))
        context.skip(where, what, f"promptum refused it: {message}")
    _remove(data, {*inner, tag})


def _variants_using(
    data: dict[str, Any], spans: dict[object, tuple[int, int]], message: str
) -> list[object]:
    """The prompt variants that use the variable a case was refused for."""
    undefined = re.search(r"'(\w+)' is undefined", message)
    prompts = data.get("prompts")
    if undefined is None or not isinstance(prompts, dict):
        return []
    used = re.compile(r"\{[{%][^}]*\b" + re.escape(undefined.group(1)) + r"\b")
    return [
        item.tag
        for item in prompts.values()
        if isinstance(item, Commented) and item.tag in spans and used.search(str(item.value))
    ]


def _is_case(tag: object) -> bool:
    return isinstance(tag, tuple) and tag[0] == "case"


def _downgrade(tag: tuple[Any, ...], message: str, context: Context) -> None:
    where = _where(tag[1])
    what = f"assertion `{tag[2]}`"
    outcome = context.outcome
    note = Note(where, what, f"promptum refused the converted check: {message}")
    if any(n.where == where and n.what == what for n in outcome.skipped):
        return  # already downgraded (an assertion shared by several cases)
    approximate = any(n.where == where and n.what == what for n in outcome.approximate)
    outcome.downgrade(Fidelity.APPROXIMATE if approximate else Fidelity.EXACT, note)


def _where(text: str) -> Where:
    file, _, line = text.rpartition(":")
    return Where(file, int(line) if line.isdigit() else 1)


def _remove(value: Any, tags: set[object]) -> None:
    """Remove every commented entry whose tag is in `tags`, wherever it is."""
    if isinstance(value, Commented):
        _remove(value.value, tags)
        return
    if isinstance(value, dict):
        for key in [k for k, v in value.items() if _tagged(v, tags)]:
            del value[key]
        children = list(value.values())
    elif isinstance(value, list):
        value[:] = [v for v in value if not _tagged(v, tags)]
        children = value
    else:
        return
    for item in children:
        _remove(item, tags)


def _tagged(value: Any, tags: set[object]) -> bool:
    return isinstance(value, Commented) and value.tag in tags


def _skipped(context: Context) -> str:
    notes = context.outcome.skipped
    return "".join(f"\n  not converted: {note}" for note in notes)
