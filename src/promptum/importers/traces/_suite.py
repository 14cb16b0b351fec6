"""Imported calls as suite cases, written case by case to a temporary file, then validated."""

from __future__ import annotations

import contextlib
import json
import os
import uuid
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Literal, TextIO

from promptum.errors import ConfigError
from promptum.foundations.literal_text import literal
from promptum.importers.traces._call import Call
from promptum.suites import load_suite, suite_text

Reference = Literal["judge", "similar"]
"""How the answer given in production grades a case: the judge's `expected_behavior`, or a
`similar` check against it."""

_BUG = "the traces importer wrote a suite that does not load (a bug: please report it)"


def _message(message: dict[str, Any]) -> dict[str, Any]:
    return {**message, "content": literal(message["content"])} if message["content"] else message


def _said(call: Call) -> str:
    """The production answer in words, for the judge: its text and the tools it called."""
    calls = [
        f"calls {c['name']} with {json.dumps(c['arguments'], ensure_ascii=False)}"
        for c in call.answer_calls
    ]
    parts = [f"Answers as it did in production (the same facts and intent):\n\n{call.answer}"]
    if calls:
        parts = [f"As it did in production, {' and '.join(calls)}."] + (
            [f"It said:\n\n{call.answer}"] if call.answer else []
        )
    return literal("\n\n".join(parts))


def case_of(call: Call, case_id: str, reference: Reference) -> dict[str, Any]:
    """The case replaying `call`, graded against the answer given in production."""
    case: dict[str, Any] = {"id": case_id, "messages": [_message(m) for m in call.messages]}
    if call.tools:
        case["tools"] = list(call.tools)
    checks: list[dict[str, Any]] = [{"type": "tool_called", "value": call.tool_called}]
    checks = checks if call.answer_calls else []
    if reference == "judge":
        case["expected_behavior"] = _said(call)
    elif call.answer:
        checks.append({"type": "similar", "value": literal(call.answer)})
    if checks:
        case["checks"] = checks
    named = {"model": call.model, "trace": call.trace_id, "span": call.span_id}
    case["tags"] = ["imported"] + [f"{key}:{value}" for key, value in named.items() if value]
    return case


class _Noted:
    """A case with the comment lines written above it."""

    def __init__(self, value: Any, comments: tuple[str, ...]) -> None:
        self.value, self.comments = value, comments


def _noted(value: Any) -> tuple[Any, tuple[str, ...]]:
    return (value.value, value.comments) if isinstance(value, _Noted) else (value, ())


def cases_text(cases: list[tuple[dict[str, Any], tuple[str, ...]]]) -> str:
    """The YAML of items of `test_cases:`, each case's comment lines above it."""
    noted = [_Noted(case, comments) for case, comments in cases]
    return suite_text({"test_cases": noted}, _noted).split("\n", 1)[1]


def write_suite(
    output: Path, head: dict[str, Any], header: tuple[str, ...], cases: Iterable[str]
) -> None:
    """Write the suite's `head` settings and the cases' texts; load it; then put it in place.

    Written to a temporary file beside `output` and renamed, so a failure leaves nothing
    half-written.
    """
    with _partial(output) as (partial, file):
        file.write(_head_text(head, header))
        file.write("test_cases:\n")
        file.writelines(cases)
        file.close()
        _load(partial)


def write_suite_rows(
    output: Path, head: dict[str, Any], header: tuple[str, ...], rows: Iterable[str]
) -> Path:
    """Write the cases as JSON lines beside `output`, and the suite reading them; load it.

    Both are written to temporary files and renamed once the suite loads. Returns the rows'
    file: `<suite name>.cases.jsonl`.
    """
    data = output.with_name(f"{output.stem}.cases.jsonl")
    with _partial(data) as (partial_rows, file):
        file.writelines(rows)
        file.close()
        with _partial(output) as (partial, suite):
            suite.write(_head_text({**head, "cases_from": partial_rows.name}, header))
            suite.close()
            _load(partial)
            partial.write_text(_head_text({**head, "cases_from": data.name}, header), "utf-8")
    return data


@contextlib.contextmanager
def _partial(output: Path) -> Iterator[tuple[Path, TextIO]]:
    """A temporary file beside `output`, renamed to it when the block ends without error."""
    # Made as any file the user writes (not mkstemp's owner-only mode), under a name of its own.
    partial = output.with_name(f".{output.stem}.{uuid.uuid4().hex[:12]}.partial{output.suffix}")
    try:
        with partial.open("x", encoding="utf-8") as file:
            yield partial, file
        os.replace(partial, output)
    finally:
        partial.unlink(missing_ok=True)


def _head_text(head: dict[str, Any], header: tuple[str, ...]) -> str:
    return suite_text(head, header=header) if head else _comments(header)


def _comments(header: tuple[str, ...]) -> str:
    return "".join(f"# {line}\n" for line in header)


def _load(path: Path) -> None:
    try:
        load_suite(path)
    except ConfigError as exc:  # pragma: no cover - a bug of the importer
        raise ConfigError(f"{_BUG}:\n{exc}") from exc
