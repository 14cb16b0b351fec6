"""A secret a model echoes is replaced before grading: no reason quotes a piece of it."""

from __future__ import annotations

import os

import pytest

from promptum import Prompt, Session
from promptum.reporting import render_report

SECRET = "sk-test-SECRET1234567890abcdef"


def echo_key(query: str) -> str:
    """An application that leaks its key after `query` characters of padding."""
    return "x" * int(query) + os.environ["OPENAI_API_KEY"] + " tail"


@pytest.mark.parametrize("pad", range(36, 64, 3))
def test_no_prefix_of_a_secret_reaches_a_reason_or_a_report(
    pad: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    session = Session(target=echo_key)
    session.add_test(
        Prompt(name="leak", prompt=str(pad), checks=[{"type": "contains", "value": "hello"}])
    )
    run = session.run()
    (result,) = run.results
    assert result.status == "fail"  # graded, on the response with the key replaced
    texts = [*result.reasons, *(render_report(run, fmt) for fmt in ("json", "md", "xml"))]
    for text in texts:
        assert "sk-test-SECRET" not in text
        assert SECRET[:12] not in text
