"""User code raising `SystemExit` (or another `BaseException`) costs its result, not the run.

A module that exits when imported is a located load error (exit 2); a target, check or
validator that raises one is an error for its case, the run goes on and its reports are
written. Only a `KeyboardInterrupt` still stops the run.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from promptum import Prompt, Session
from promptum.providers import ClientOptions, run_in_worker
from tests.support.cli import run_promptum, run_pytest

APP = """\
import sys


class Stop(BaseException):
    \"\"\"Like pytest.fail: a BaseException that is not an Exception.\"\"\"


def exits(query):
    sys.exit(3)


async def exits_async(query):
    raise SystemExit("bye")


def stops(query):
    raise Stop("halt")


def answer(query):
    return "fine"


def check_exits(response):
    raise SystemExit(0)


async def check_exits_async(response):
    raise SystemExit(0)


def check_stops(response):
    raise Stop("no")


def check_passes(response):
    return True
"""

SUITE = """\
name: exits
target: app.py:answer
test_cases:
  - {id: target-exits, query: hi, target: app.py:exits, must_pass: true,
     checks: [{type: contains, value: fine}]}
  - {id: async-target-exits, query: hi, target: app.py:exits_async}
  - {id: target-stops, query: hi, target: app.py:stops}
  - id: checks-exit
    query: hi
    checks:
      - {type: python, value: "app.py:check_exits"}
      - {type: python, value: "app.py:check_exits_async"}
      - {type: python, value: "app.py:check_stops"}
      - {type: python, value: "app.py:check_passes"}
  - {id: fine, query: hi, checks: [{type: contains, value: fine}]}
"""

EXITS_ON_IMPORT = """\
import sys

sys.exit(0)


def answer(query):
    return "x"
"""


def _project(folder: Path, suite: str = SUITE, app: str = APP) -> Path:
    (folder / "app.py").write_text(app)
    path = folder / "suite.yaml"
    path.write_text(suite)
    return path


def _cli(folder: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    """promptum in its own process: a SystemExit inside it must not pass for its exit."""
    return run_promptum(*arguments, cwd=folder)


def _by_case(path: Path) -> dict[str, Any]:
    session = Session(client_options=ClientOptions(cache=False))
    session.add_suite(path)
    return {result.case_id: result for result in session.run().results}


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("target-exits", "target failed: SystemExit: 3"),
        ("async-target-exits", "target failed: SystemExit: bye"),
        ("target-stops", "target failed: Stop: halt"),
    ],
)
def test_a_target_that_exits_is_an_error_result_and_the_run_goes_on(
    tmp_path: Path, target: str, expected: str
) -> None:
    results = _by_case(_project(tmp_path))
    assert (results[target].status, results[target].completion.error) == ("error", expected)
    assert results["fine"].status == "pass"


def test_a_check_that_exits_is_an_error_grade_and_the_other_checks_still_grade(
    tmp_path: Path,
) -> None:
    result = _by_case(_project(tmp_path))["checks-exit"]
    assert [(g.name, g.passed, g.error) for g in result.grades] == [
        ("check_exits", False, "app.py:check_exits raised SystemExit: 0"),
        ("check_exits_async", False, "app.py:check_exits_async raised SystemExit: 0"),
        ("check_stops", False, "app.py:check_stops raised Stop: no"),
        ("check_passes", True, None),
    ]


def test_a_validator_that_exits_is_an_error_grade() -> None:
    class Exits:
        def validate(self, text: str) -> tuple[bool, dict[str, Any]]:
            raise SystemExit(0)

        def describe(self) -> str:
            raise SystemExit(0)

    prompt = Prompt(name="v", prompt="q", target=lambda query: "x", validator=Exits())
    (result,) = Session(tests=[prompt], client_options=ClientOptions(cache=False)).run().results
    (grade,) = result.grades
    assert (grade.passed, grade.description, grade.error) == (
        False,
        "Exits (describe() raised SystemExit)",
        "Exits.validate raised SystemExit: 0",
    )


def test_the_cli_reports_user_code_that_exits_and_writes_its_reports(tmp_path: Path) -> None:
    _project(tmp_path)
    done = _cli(tmp_path, "run", "suite.yaml", "--no-store", "--no-cache", "-o", "out.xml")
    assert done.returncode == 1, done.stdout + done.stderr  # a must-pass case failed
    report = (tmp_path / "out.xml").read_text()
    assert "target failed: SystemExit: 3" in report
    assert "app.py:check_exits raised SystemExit: 0" in report
    assert "Traceback" not in done.stdout + done.stderr


def test_a_module_that_exits_when_imported_is_a_located_load_error(tmp_path: Path) -> None:
    suite = "name: ex\ntarget: app.py:answer\ntest_cases: [{id: a, query: hi}]\n"
    _project(tmp_path, suite, EXITS_ON_IMPORT)
    for command in (["validate"], ["run", "--no-store", "-o", "out.xml"]):
        done = _cli(tmp_path, *command, "suite.yaml")
        output = " ".join((done.stdout + done.stderr).split())
        assert done.returncode == 2, output
        assert "suite.yaml:2" in output, output
        assert "failed to import: SystemExit: 0" in output, output
        assert 'if __name__ == "__main__":' in output, output
        assert "Traceback" not in output
    assert not (tmp_path / "out.xml").exists()


def test_the_pytest_plugin_reports_a_target_that_exits_instead_of_hanging(tmp_path: Path) -> None:
    # In its own process, within a time limit: before the fix this hung the session.
    _project(tmp_path, SUITE.replace("must_pass: true,", ""))
    (tmp_path / "pytest.ini").write_text("[pytest]\npromptum_suites = suite.yaml\n")
    done = run_pytest("-q", "--promptum-no-store", cwd=tmp_path)
    assert "1 passed, 4 errors" in done.stdout, done.stdout + done.stderr
    assert "SystemExit: 3" in done.stdout


def test_a_worker_job_that_exits_fails_its_future_without_ending_the_loop() -> None:
    async def scenario() -> str:
        with pytest.raises(RuntimeError, match=r"^SystemExit: 4$") as caught:
            await run_in_worker(lambda: sys.exit(4))
        assert isinstance(caught.value.__cause__, SystemExit)
        return "the loop goes on"

    assert asyncio.run(scenario()) == "the loop goes on"
