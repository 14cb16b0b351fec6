"""`promptum generate checks`: checks proposed for a suite's judge-only cases, as a diff."""

from __future__ import annotations

import difflib
import io
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from promptum.errors import ConfigError
from promptum.generation import proposed_checks, proposed_expected
from promptum.suites._redteam import suite_settings
from promptum.suites._yaml_writer import suite_yaml

GRADED_KEYS = ("checks", "expected", "attack_target")
"""A case with any of these is graded deterministically already: nothing is proposed."""


@dataclass(frozen=True, slots=True)
class ProposedChecks:
    """The suite file's diff, and how much it proposes."""

    diff: str
    """A unified diff of the file (empty: nothing to propose)."""
    cases: int
    """Cases given checks or field assertions."""
    checks: int
    """Checks and field assertions proposed."""


def proposed_for_suite(path: Path) -> ProposedChecks:
    """What `path`'s judge-only cases could check deterministically, as a diff of the file."""
    settings = suite_settings(path)  # a suite that does not load gets no proposals
    text = path.read_text(encoding="utf-8")
    writer = suite_yaml()
    nodes = writer.load(text)
    cases = nodes.get("test_cases") if isinstance(nodes, Mapping) else None
    if not isinstance(cases, list):
        raise ConfigError(f"{path}: no `test_cases:` list to propose checks for")
    structured = settings.facts.response_schema is not None
    changed = proposed = 0
    for case in cases:
        added = _propose(case, structured, settings.facts.response_schema)
        changed += added > 0
        proposed += added
    buffer = io.StringIO()
    writer.dump(nodes, buffer)
    name = path.as_posix()
    lines = difflib.unified_diff(
        text.splitlines(keepends=True),
        buffer.getvalue().splitlines(keepends=True),
        fromfile=f"a/{name}",
        tofile=f"b/{name}",
    )
    return ProposedChecks("".join(lines), changed, proposed)


def _propose(case: Any, structured: bool, schema: Mapping[str, Any] | None) -> int:
    """Add what the case's `expected_behavior` states to `case`; how many were added."""
    if not isinstance(case, dict) or any(key in case for key in GRADED_KEYS):
        return 0
    behaviour = case.get("expected_behavior")
    if not isinstance(behaviour, str):
        return 0
    checks = proposed_checks(behaviour, structured)
    expected = proposed_expected(behaviour, schema) if structured else {}
    if checks:
        case["checks"] = checks
    if expected:
        case["expected"] = expected
    return len(checks) + len(expected)
