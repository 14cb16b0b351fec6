"""A streamed run whose store loses its results: no whole-run report claims a partial run."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import invoke, write

pytestmark = pytest.mark.usefixtures("project")

APP = """\
from pathlib import Path


def answer(query: str) -> str:
    if query == "vanish":  # what a cleanup job or a full disk can do to a run store
        for path in Path(".promptum").glob("runs.sqlite*"):
            path.unlink()
    return "hello" if query.startswith("good") else "bye"
"""

SUITE = """\
name: lost
target: app.py:answer
test_cases:
  - {id: a, query: good 1, checks: [{type: contains, value: hello}]}
  - {id: b, query: vanish, checks: [{type: contains, value: hello}]}
  - {id: c, query: good 2, checks: [{type: contains, value: hello}]}
  - {id: d, query: bad, checks: [{type: contains, value: hello}]}
"""


def test_reports_are_not_written_from_a_store_that_lost_results() -> None:
    write("app.py", APP)
    write("suite.yaml", SUITE)
    result = invoke("run", "suite.yaml", "-c", "1", "-o", "r.html", "--summary-md", "s.md")
    assert result.exit_code == 2, result.output
    assert "4 results" in result.output  # the summary counted every result
    assert "gate: FAIL — 2 of 4 results did not pass" in result.output
    assert "could not write r.html: it is written from the run store, which" in result.output
    assert "could not write s.md" in result.output
    assert "recorded as run" not in result.output
    assert not Path("r.html").exists()
    assert not Path("s.md").exists()


def test_the_same_run_with_its_store_intact_writes_them() -> None:
    write("app.py", APP.replace('"vanish"', '"never"'))
    write("suite.yaml", SUITE)
    result = invoke("run", "suite.yaml", "-c", "1", "-o", "r.html", "--summary-md", "s.md")
    assert result.exit_code == 1, result.output
    assert "wrote r.html" in result.output
    assert "2 of 4 results did not pass" in Path("s.md").read_text()
