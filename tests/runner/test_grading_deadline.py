"""Grading runs off the event loop within a deadline: a slow check costs its own result only."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from promptum import Prompt, RunResult, Session
from promptum.errors import ConfigError
from promptum.executors import RayExecutor, quiet_local_ray
from promptum.providers import ClientOptions
from promptum.values.run_result import CaseResult
from tests.support.fault_server import FaultServer, Reply

MODEL = "fault/m"

# A held check notes that it started, waits until the test releases it (a file the `folder`
# fixture writes at the end; 60 s at most) and notes that it finished: a run that returns
# while the check is held did not wait for it. Files, so a Ray worker's check is seen too.
CHECKS = """\
import asyncio
import time
from pathlib import Path

HERE = Path(__file__).parent


def slow_on_case_0(response):
    \"\"\"Held far past the deadline on case-0 only.\"\"\"
    if response.case_id == "case-0":
        (HERE / "started").touch()
        for _ in range(600):
            if (HERE / "release").exists():
                break
            time.sleep(0.1)
        (HERE / "finished").touch()
    return True


async def waits(response):
    (HERE / "started").touch()
    for _ in range(600):
        if (HERE / "release").exists():
            break
        await asyncio.sleep(0.1)
    (HERE / "finished").touch()
    return True
"""


def _still_held(folder: Path) -> bool:
    """The held check had started and had not finished: the run returned without waiting."""
    return (folder / "started").exists() and not (folder / "finished").exists()


class Arrivals:
    """A sink noting the order results arrive in, as a run's JSONL report is written."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def start(self, run: RunResult) -> None:
        pass

    def add(self, result: CaseResult) -> None:
        self.seen.append(result.case_id)

    def finish(self, run: RunResult) -> None:
        pass


class SlowValidator:
    """A validator that takes far longer than the deadline."""

    def validate(self, response: str) -> tuple[bool, dict[str, str]]:
        time.sleep(30)
        return True, {}

    def describe(self) -> str:
        return "slow"


@pytest.fixture
def folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """The working directory, holding the checks module the cases name; releases its checks."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "checks.py").write_text(CHECKS, encoding="utf-8")
    yield tmp_path
    (tmp_path / "release").touch()


def _cases(check: str, count: int = 10) -> list[Prompt]:
    return [
        Prompt(
            name=f"case-{i}",
            prompt=f"question {i}",
            model=MODEL,
            checks=[{"type": "min_length", "value": 1}, {"type": "python", "value": check}],
        )
        for i in range(count)
    ]


def test_a_check_past_the_deadline_is_an_error_and_the_other_cases_do_not_wait(
    server: FaultServer, options: ClientOptions, folder: Path
) -> None:
    server.default = Reply.ok("an answer")
    session = Session(client_options=options, concurrency=4, grade_timeout_s=3)
    for prompt in _cases("checks.py:slow_on_case_0"):
        session.add_test(prompt)
    arrivals = Arrivals()
    run = session.run(sinks=[arrivals])
    assert _still_held(folder)  # the run did not wait for the check

    assert arrivals.seen[-1] == "case-0"  # planned first, finished last: the nine never waited
    assert sorted(arrivals.seen[:-1]) == sorted(f"case-{i}" for i in range(1, 10))

    by_id = {result.case_id: result for result in run.results}
    assert all(by_id[f"case-{i}"].status == "pass" for i in range(1, 10))
    slow = by_id["case-0"]
    assert slow.status == "error"
    grade = slow.grades[1]
    assert (grade.name, grade.passed) == ("slow_on_case_0", False)
    assert grade.error is not None
    assert "checks.py:slow_on_case_0 did not finish within the grading deadline of 3 s" in (
        grade.error
    )
    assert slow.grades[0].passed  # the checks that finished keep their verdicts
    assert any("1 grading did not finish" in warning for warning in run.warnings)


def test_an_async_check_past_the_deadline_is_an_error(
    server: FaultServer, options: ClientOptions, folder: Path
) -> None:
    server.default = Reply.ok("an answer")
    session = Session(client_options=options, grade_timeout_s=1)
    session.add_test(_cases("checks.py:waits", count=1)[0])
    result = session.run().results[0]
    assert _still_held(folder)
    assert result.status == "error"
    error = result.grades[1].error or ""
    assert "checks.py:waits did not finish within the grading deadline of 1 s" in error


def test_a_slow_validator_is_an_error_naming_it(
    server: FaultServer, options: ClientOptions, folder: Path
) -> None:
    server.default = Reply.ok("an answer")
    session = Session(client_options=options, grade_timeout_s=1)
    session.add_test(Prompt(name="v", prompt="q", model=MODEL, validator=SlowValidator()))
    result = session.run().results[0]
    assert result.status == "error"
    (grade,) = result.grades
    assert grade.name == "grading"
    assert grade.error is not None
    assert grade.error.startswith(
        "the validator SlowValidator did not finish within the grading deadline of 1 s"
    )


def test_the_deadline_bounds_the_whole_grading_where_each_regex_search_has_its_own_bound(
    server: FaultServer, options: ClientOptions
) -> None:
    # Each search stops at its 1 s bound (a failed check); three of them cost 3 s.
    server.default = Reply.ok("a" * 40 + "!")
    backtracks = {"type": "regex", "value": "^(a|aa)*$"}
    session = Session(client_options=options, grade_timeout_s=1)
    session.add_test(Prompt(name="r", prompt="q", model=MODEL, checks=[backtracks] * 3))
    result = session.run().results[0]
    assert result.status == "error"
    (grade,) = result.grades
    assert grade.name == "grading"
    assert (grade.error or "").startswith(
        "the checks did not finish within the grading deadline of 1 s"
    )


@pytest.mark.parametrize("seconds", [0, -1.5])
def test_a_deadline_must_be_positive(seconds: float) -> None:
    with pytest.raises(ConfigError, match="grade_timeout_s must be a number of seconds above 0"):
        Session(grade_timeout_s=seconds)


@pytest.fixture
def ray() -> Iterator[Any]:
    """A local Ray instance started as promptum starts one."""
    pytest.importorskip("ray")  # the ray extra: skipped without it, run where it is installed
    with quiet_local_ray(num_cpus=1) as ray:
        yield ray


@pytest.mark.slow
def test_ray_workers_grade_within_the_sessions_deadline(
    server: FaultServer, options: ClientOptions, folder: Path, ray: Any
) -> None:
    server.default = Reply.ok("an answer")
    (folder / "suite.yaml").write_text(
        "models: [fault/m]\ntest_cases:\n"
        "  - {id: case-0, query: q, checks: [{type: python, value: 'checks.py:slow_on_case_0'}]}\n",
        encoding="utf-8",
    )
    session = Session(client_options=options, grade_timeout_s=1, executor=RayExecutor(workers=1))
    session.add_suite(folder / "suite.yaml")
    (result,) = session.run().results
    assert _still_held(folder)  # the worker's check is held: the run did not wait for it
    assert result.status == "error"
    assert "did not finish within the grading deadline of 1 s" in (result.grades[0].error or "")
