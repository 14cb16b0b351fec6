"""A data file changed while its cases run: the run stops as if interrupted, keeping results."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import invoke, write

pytestmark = pytest.mark.usefixtures("project")

APP = """\
def answer(query: str) -> str:
    if query == "edit 3":  # an editor, a checkout or a pipeline rewriting the data file
        with open("cases.csv", "a", encoding="utf-8") as handle:
            handle.write("added,late\\n")
    return "hello"
"""

SUITE = """\
name: rows
target: app.py:answer
prompt: "{{ action }}"
defaults:
  checks: [{type: contains, value: hello}]
cases_from: cases.csv
"""


def test_the_run_stops_keeping_what_finished_and_says_why() -> None:
    write("app.py", APP)
    write("suite.yaml", SUITE)
    rows = "".join(f"c{n},edit {n}\n" for n in range(1, 21))
    write("cases.csv", "id,action\n" + rows)
    result = invoke("run", "suite.yaml", "-c", "1", "-o", "r.jsonl", "-o", "r.json")
    assert result.exit_code == 130, result.output
    assert "changed after the suite was loaded" in result.output
    assert "Interrupted:" in result.output
    assert "gate: FAIL — interrupted" in result.output
    finished = [json.loads(line) for line in Path("r.jsonl").read_text().splitlines()]
    assert 3 <= len(finished) < 20
    report = json.loads(Path("r.json").read_text())
    assert len(report["results"]) == len(finished)
    assert report["complete"] is False
