"""Time limits a user sets: `--timeout`, and `timeout_s` / `retries` on targets and endpoints.

A target that hangs ends its case at its limit and is not retried unless asked; a sync
function that never returns is abandoned on its thread, counted and warned about, and the
process still exits.
"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from pydantic import ValidationError

from promptum import Prompt, Session
from promptum.cli import main
from promptum.providers import ClientOptions, HttpTarget, PythonTarget, _workers
from promptum.values.run_result import RunResult
from tests.support.fault_server import Reply, fault_server

HUNG_APP = """
import threading


def hang(query):
    threading.Event().wait()  # never returns: nothing can stop this thread
"""
OLD_COST_S = 300
"""What one hung case cost before time limits could be set (60 s x 5 attempts)."""
FAST = {"cache": False, "backoff_base_s": 0.01, "backoff_max_s": 0.05}


def _write(folder: Path, suite: str) -> Path:
    (folder / "app.py").write_text(HUNG_APP)
    path = folder / "suite.yaml"
    path.write_text(suite)
    return path


def _cli_run(folder: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    """`promptum run` in its own process, which must exit although a thread is stuck."""
    command = ["run", "suite.yaml", "--no-store", "--no-cache", "-o", "r.jsonl", *arguments]
    return subprocess.run(
        [sys.executable, "-m", "promptum", *command],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=OLD_COST_S,  # the process exits by itself, or the test fails
    )


def _results(folder: Path) -> list[dict[str, Any]]:
    lines = (folder / "r.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def _run(path: Path, **options: Any) -> RunResult:
    session = Session(client_options=ClientOptions(**{**FAST, **options}))
    session.add_suite(path)
    return session.run()


@pytest.fixture
def silent_server() -> Iterator[str]:
    """A URL whose server takes connections (the kernel's backlog) and never answers."""
    with socket.create_server(("127.0.0.1", 0)) as listening:
        yield f"http://127.0.0.1:{listening.getsockname()[1]}/answer"


def test_a_hung_target_with_its_own_limit_ends_its_case_and_the_process(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "name: hung\n"
        "target: {function: app.py:hang, timeout_s: 2, retries: 0}\n"
        "test_cases:\n  - {id: stuck, query: hi}\n",
    )
    done = _cli_run(tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    (result,) = _results(tmp_path)
    assert result["status"] == "error"
    assert result["completion"]["error"] == "timed out: no answer within 2 s"
    assert result["completion"]["attempts"] == 1
    assert "1 call abandoned after its time limit (or the run's stop); it may still run" in (
        " ".join(done.stdout.split())
    )


def test_the_timeout_option_limits_every_call_and_a_target_is_not_retried(
    tmp_path: Path,
) -> None:
    _write(tmp_path, "name: hung\ntarget: app.py:hang\ntest_cases:\n  - {id: stuck, query: hi}\n")
    done = _cli_run(tmp_path, "--timeout", "2")
    assert done.returncode == 1, done.stdout + done.stderr
    (result,) = _results(tmp_path)
    assert result["completion"]["error"] == "timed out: no answer within 2 s"
    assert result["completion"]["attempts"] == 1  # not retried: nobody asked for it
    assert "abandoned after its time limit" in done.stdout


def test_a_time_limit_must_be_positive(tmp_path: Path) -> None:
    path = _write(
        tmp_path, "target: {function: app.py:hang, timeout_s: 0}\ntest_cases:\n  - query: hi\n"
    )
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 2, result.output
    assert f"{path}:1:33: target.timeout_s: Input should be greater than 0" in result.output
    assert "valid string" not in result.output  # only the mapping's own problem is told
    assert "Traceback" not in result.output
    result = CliRunner().invoke(main, ["run", str(path), "--timeout", "0"])
    assert result.exit_code == 2
    assert "Invalid value for '--timeout': 0.0 is not in the range x>0" in result.output
    for option in ("--timeout", "--grade-timeout"):
        for endless in ("nan", "inf", "1e12"):
            result = CliRunner().invoke(main, ["run", str(path), option, endless])
            assert result.exit_code == 2, result.output
            assert "of at most 604800" in result.output
            assert result.exception is None or isinstance(result.exception, SystemExit)


def test_a_target_built_in_python_checks_its_limits() -> None:
    with pytest.raises(ValueError, match="timeout_s must be more than 0 and at most 604800"):
        PythonTarget("bot", len, timeout_s=0)
    for endless in (float("nan"), float("inf"), 1e12):  # past a week, OS timers overflow
        with pytest.raises(ValueError, match="at most 604800 seconds"):
            PythonTarget("bot", len, timeout_s=endless)
        with pytest.raises(ValidationError, match="timeout_s"):
            HttpTarget(name="bot", url="http://127.0.0.1:9/", timeout_s=endless)
    with pytest.raises(ValueError, match="retries must be 0 or more, not -1"):
        PythonTarget("bot", len, retries=-1)
    with pytest.raises(ValidationError, match="timeout_s"):
        HttpTarget(name="bot", url="http://127.0.0.1:9/", timeout_s=-1)


def test_an_http_target_that_never_answers_times_out_once(
    tmp_path: Path, silent_server: str
) -> None:
    path = _write(
        tmp_path,
        f"target: {{url: '{silent_server}', name: silent}}\n"
        "test_cases:\n  - {id: s, query: hi}\n",
    )
    (result,) = _run(path, timeout_s=1).results  # the run's max_retries stays at 4
    assert (result.status, result.completion.error) == (
        "error",
        "timed out: no answer within 1 s",
    )
    assert result.completion.attempts == 1


def test_an_http_target_sets_its_own_limit_and_retries(tmp_path: Path, silent_server: str) -> None:
    path = _write(
        tmp_path,
        f"target: {{url: '{silent_server}', name: silent, timeout_s: 0.5, retries: 2}}\n"
        "test_cases:\n  - {id: s, query: hi}\n",
    )
    (result,) = _run(path, timeout_s=60).results
    assert result.completion.error == "timed out: no answer within 0.5 s (gave up after 3 attempts)"
    assert result.completion.attempts == 3


FIRST_CALL_HANGS = """
import threading

calls = 0


def answer(query):
    global calls
    calls += 1
    if calls == 1:
        threading.Event().wait(3)  # the first call hangs (its thread ends by itself later)
    return "answered"
"""


def test_a_target_that_timed_out_is_retried_only_when_it_asks(tmp_path: Path) -> None:
    (tmp_path / "once.py").write_text(FIRST_CALL_HANGS)
    (tmp_path / "twice.py").write_text(FIRST_CALL_HANGS)
    path = tmp_path / "suite.yaml"
    path.write_text(
        "test_cases:\n"
        "  - {id: unasked, query: hi, target: {function: once.py:answer, timeout_s: 0.3}}\n"
        "  - id: asked\n    query: hi\n"
        "    target: {function: twice.py:answer, timeout_s: 0.3, retries: 1}\n"
    )
    run = _run(path)
    by_id = {r.case_id: r.completion for r in run.results}
    assert (by_id["unasked"].error, by_id["unasked"].attempts) == (
        "timed out: no answer within 0.3 s",
        1,
    )
    assert (by_id["asked"].error, by_id["asked"].text, by_id["asked"].attempts) == (
        None,
        "answered",
        2,
    )


def test_an_endpoint_sets_its_own_limit_and_retries(tmp_path: Path) -> None:
    with fault_server() as server:
        server.queue(Reply.hang(5), Reply.hang(5))
        path = tmp_path / "suite.yaml"
        path.write_text(
            f"endpoints:\n  faulty: {{base_url: '{server.base_url}', timeout_s: 0.5, retries: 1}}\n"
            "models: [faulty/m]\ntest_cases:\n  - {id: e, query: hi}\n"
        )
        (result,) = _run(path, timeout_s=60, max_retries=4).results
    assert result.completion.error == "timed out: no answer within 0.5 s (gave up after 2 attempts)"
    assert len(server.requests) == 2


def test_an_abandoned_call_is_counted_and_the_run_says_so() -> None:
    released = threading.Event()

    def stuck(query: str) -> str:
        released.wait(30)
        return "late"

    prompts = [Prompt(name=f"p{i}", prompt="hi", target=stuck) for i in range(2)]
    options = ClientOptions(**{**FAST, "timeout_s": 0.3})
    try:
        run = Session(tests=prompts, client_options=options).run()
    finally:
        released.set()
    assert [r.completion.error for r in run.results] == ["timed out: no answer within 0.3 s"] * 2
    assert any(
        "2 calls abandoned after their time limit (or the run's stop); they may still run"
        in warning
        for warning in run.warnings
    ), run.warnings


def test_hung_calls_do_not_use_up_the_worker_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every thread the pool may have is taken by a call that hangs; one more hung call and
    # a normal one wait in the queue. Abandoning the hung calls must let the normal one run.
    cap = max(_workers._threads, 1)
    monkeypatch.setattr(_workers, "_MAX_THREADS", cap)
    released = threading.Event()
    running = threading.Semaphore(0)

    def hang() -> None:
        running.release()
        released.wait(30)

    async def scenario() -> object:
        hung = [_workers.run_in_worker(hang) for _ in range(cap)]
        for _ in range(cap):  # every thread is in a hung call now
            await asyncio.to_thread(running.acquire)
        queued = _workers.run_in_worker(hang)
        normal = _workers.run_in_worker(lambda: 42)
        for future in [queued, *hung]:
            future.cancel()
        return await asyncio.wait_for(normal, timeout=5)

    try:
        assert asyncio.run(scenario()) == 42
        assert not running.acquire(timeout=0.2), "a call dropped while queued still ran"
    finally:
        released.set()
