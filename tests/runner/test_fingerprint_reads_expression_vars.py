"""The vars an expression reads (a check's, a transform's) are in the resume fingerprint."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptum.runner import plan_fingerprint
from promptum.suites import load_suite
from tests.support.cli import write


@pytest.mark.parametrize(
    ("body", "changes"),
    [
        ("checks: [{type: expr, value: 'output | length < vars.limit'}]", True),
        ("transform: 'output[:vars.limit]'\n    checks: [{type: contains, value: x}]", True),
        ("checks: [{type: contains, value: x}]", False),  # vars unread: as before
    ],
)
def test_vars_an_expression_reads_are_in_the_resume_fingerprint(
    tmp_path: Path, body: str, changes: bool
) -> None:
    """Before: changing `limit` kept the fingerprint, so `--resume` reused results graded
    against the old limit."""

    def fingerprint(limit: int) -> str:
        suite = write(
            tmp_path / "suite.yaml",
            f"models: [openai/gpt-4o-mini]\nvars: {{limit: {limit}}}\n"
            f"test_cases:\n  - id: a\n    query: hi\n    {body}\n",
        )
        return plan_fingerprint(load_suite(suite).cases)

    assert (fingerprint(100) != fingerprint(50)) is changes
