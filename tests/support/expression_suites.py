"""A one-case suite with an expression written in any of the places an expression may stand."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

EXPRESSION_FIELDS: dict[str, str] = {
    "expr": "test_cases[0].checks[0]",
    "check_transform": "test_cases[0].checks[0].transform",
    "case_transform": "test_cases[0].transform",
    "defaults_transform": "defaults.transform",
}
"""Each place an expression may stand, and the path a load error names it by."""


def suite_with(field: str, expression: str, model: str = "fault/m") -> dict[str, Any]:
    """A suite checking for "Ahoy", with `expression` in the place `field` names."""
    check: dict[str, Any] = {"type": "contains", "value": "Ahoy"}
    case: dict[str, Any] = {"id": "a", "query": "Say ahoy.", "checks": [check]}
    suite: dict[str, Any] = {"models": [model], "test_cases": [case]}
    if field == "expr":
        check.update(type="expr", value=expression)
    elif field == "check_transform":
        check["transform"] = expression
    elif field == "case_transform":
        case["transform"] = expression
    else:
        suite["defaults"] = {"transform": expression}
    return suite


def write_suite(path: Path, suite: dict[str, Any]) -> Path:
    """Write `suite` as YAML, each expression on one line; return the path."""
    path.write_text(yaml.safe_dump(suite, sort_keys=False, width=10_000), encoding="utf-8")
    return path
