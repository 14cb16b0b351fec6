"""A run whose stdout reader exits early (`| head -1`) still finishes: its reports are
written and its exit code is the gate's, not click's silent 1 for a broken pipe."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from promptum.reporting import load_run
from tests.support.cli import write
from tests.support.fault_server import Reply, project_fault_server


def test_a_run_whose_reader_has_gone_writes_its_reports_and_exits_by_its_gate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(
        tmp_path / "suite.yaml",
        """\
        models: [fault/m]
        test_cases:
          - {id: a, query: hi, checks: [{type: contains, value: Hello}]}
          - {id: b, query: hi, checks: [{type: contains, value: Hello}]}
        """,
    )
    with project_fault_server(tmp_path, monkeypatch) as server:
        server.default = Reply.ok("Hello!")
        read, written = os.pipe()
        os.close(read)  # the reader is gone before the first line: every write breaks the pipe
        try:
            done = subprocess.run(
                [sys.executable, "-m", "promptum", "run", "suite.yaml", "-o", "r.json",
                 "--summary-md", "s.md"],
                stdout=written, stderr=subprocess.PIPE, text=True, timeout=120, check=False,
            )  # fmt: skip
        finally:
            os.close(written)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert [result.status for result in load_run(tmp_path / "r.json").results] == ["pass"] * 2
    assert (tmp_path / "s.md").read_text().startswith("## ✅")
