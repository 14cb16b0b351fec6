"""`RayExecutor` on a real local Ray instance: same results, no lost result, global limits."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from promptum import Prompt, Session
from promptum.errors import ConfigError
from promptum.executors import RayExecutor, quiet_local_ray
from promptum.providers import ClientOptions, EndpointConfig
from promptum.runner import result_key
from promptum.values.run_result import CaseResult, RunResult
from tests.support.fault_server import FaultServer, Reply, _Handler, _Server, fault_server

pytest.importorskip("ray")  # the ray extra: skipped without it, run where it is installed

pytestmark = pytest.mark.slow

MODEL = "fault/model-a"


@pytest.fixture(scope="module")
def ray() -> Iterator[Any]:
    """One local Ray instance (2 CPUs) for the module, started as promptum starts one."""
    with quiet_local_ray(num_cpus=2) as ray:
        yield ray


SUITE = """\
name: seeded
models: [local/smollm2]
system: Answer in one short sentence.
judge: {model: local/smollm2, threshold: 0.7}
defaults:
  params: {temperature: 0, max_tokens: 32}
  checks:
    - {type: max_length, value: 400}
    - {type: python, value: "checks.py:no_apology"}
test_cases:
  - id: capital
    query: What is the capital of France?
    expected_behavior: Says that Paris is the capital of France.
    checks:
      - {type: contains, value: Paris}
  - id: arithmetic
    query: What is 2+2?
    checks:
      - {type: regex, value: '\\b4\\b'}
  - id: opposite
    query: What is the opposite of hot?
    checks:
      - {type: contains, value: cold, case_insensitive: true}
  - id: city
    vars: {text: "I live in Berlin and work in Munich."}
    query: "Which city does the person live in? {{ text }}"
    response_model: city_model:City
    expected: {city: [Berlin, Munich]}
"""

CHECKS = """\
def no_apology(response):
    return "sorry" not in response.text.lower()
"""

CITY_MODEL = """\
from pydantic import BaseModel, Field


class City(BaseModel):
    city: str = Field(max_length=24)
"""


def _seeded(folder: Path, executor: RayExecutor | None) -> RunResult:
    """The seeded suite, whose user code lives beside it (imported by workers by name)."""
    (folder / "checks.py").write_text(CHECKS)
    (folder / "city_model.py").write_text(CITY_MODEL)
    (folder / "suite.yaml").write_text(SUITE)
    session = Session(client_options=ClientOptions(cache=False), executor=executor)
    session.add_suite(folder / "suite.yaml")
    return session.run()


def _verdicts(run: RunResult) -> list[tuple[Any, ...]]:
    return [
        (result_key(r), r.status, r.completion.text, r.completion.output, r.grades)
        for r in run.results
    ]


def test_the_embedded_model_gives_the_same_results_in_process_and_on_ray(
    ray: Any, tmp_path: Path
) -> None:
    here = _seeded(tmp_path, None)
    there = _seeded(tmp_path, RayExecutor(workers=2))
    assert there.complete
    assert there.warnings == []
    assert _verdicts(there) == _verdicts(here)
    assert len(there.results) == 4
    assert all(r.completion.ok for r in there.results), [r.completion.error for r in there.results]
    assert {r.status for r in there.results} >= {"pass"}
    city = next(r for r in there.results if r.case_id == "city")
    assert city.completion.output is not None  # the pydantic class from beside the suite
    capital = next(r for r in there.results if r.case_id == "capital")
    assert capital.judge is not None  # judged on the worker, by its own embedded model
    assert capital.judge.error is None


def _options(server: FaultServer, limit: int = 8) -> ClientOptions:
    return ClientOptions(
        max_retries=0,
        cache=False,
        endpoints={"fault": EndpointConfig(base_url=server.base_url, max_concurrency=limit)},
    )


def _session(options: ClientOptions, count: int, **settings: Any) -> Session:
    session = Session(models=[MODEL], client_options=options, **settings)
    for index in range(count):
        prompt = Prompt(
            name=f"case-{index:02d}",
            prompt=f"question {index}",
            checks=[{"type": "min_length", "value": 1}],
        )
        session.add_test(prompt)
    return session


@dataclass
class _Recorder:
    """A sink keeping every result it is given, calling `after(count)` after each."""

    after: Any = None
    results: list[CaseResult] = field(default_factory=list)

    def start(self, run: RunResult) -> None: ...

    def add(self, result: CaseResult) -> None:
        self.results.append(result)
        if self.after is not None:
            self.after(len(self.results))

    def finish(self, run: RunResult) -> None: ...


@dataclass
class _InFlight:
    """Calls the server is answering now, and the most it answered at once."""

    delay_s: float
    now: int = 0
    peak: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


class _SlowHandler(_Handler):
    """The fault server's handler, answering after a delay and counting calls in flight."""

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        counter: _InFlight = self.server.in_flight  # type: ignore[attr-defined]
        with counter.lock:
            counter.now += 1
            counter.peak = max(counter.peak, counter.now)
        try:
            time.sleep(counter.delay_s)
            super().do_POST()
        finally:
            with counter.lock:
                counter.now -= 1


@contextmanager
def slow_server(delay_s: float) -> Iterator[tuple[FaultServer, _InFlight]]:
    """The fault server answering after `delay_s`, with its count of calls in flight."""
    server = _Server(("127.0.0.1", 0), _SlowHandler)
    host, port = server.server_address[:2]
    state = FaultServer(root_url=f"http://{host!s}:{port}")
    server.state = state
    server.in_flight = counter = _InFlight(delay_s)  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield state, counter
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_a_killed_worker_loses_no_finished_result_and_the_run_completes(ray: Any) -> None:
    def kill_a_worker(count: int) -> None:
        if count == 3:
            (name,) = [n for n in ray.util.list_named_actors() if n.endswith("-0")]
            ray.kill(ray.get_actor(name))

    recorder = _Recorder(after=kill_a_worker)
    with slow_server(0.2) as (server, _):
        # An endpoint limit of 2: permits the dead worker held must come back, or the run hangs.
        session = _session(_options(server, limit=2), 16, executor=RayExecutor(workers=2))
        run = session.run(sinks=[recorder])
    assert run.complete
    keys = [result_key(r) for r in recorder.results]
    assert len(keys) == len(set(keys)) == 16  # every unit recorded, none twice
    assert sorted(r.case_id for r in run.results) == [f"case-{i:02d}" for i in range(16)]
    assert all(r.status == "pass" for r in run.results)
    first = {result_key(r): r for r in recorder.results[:3]}
    assert all(first[result_key(r)] == r for r in run.results if result_key(r) in first)
    (warning,) = run.warnings
    assert "died" in warning
    assert "its unfinished units went to the other workers" in warning


def test_the_endpoint_limit_holds_across_workers(ray: Any) -> None:
    with slow_server(0.2) as (server, in_flight):
        executor = RayExecutor(workers=2)
        session = _session(_options(server, limit=3), 24, concurrency=8, executor=executor)
        run = session.run()
    assert run.complete
    assert len(run.results) == 24
    assert len(server.requests) == 24
    # Each worker alone may hold 3 calls; together they still hold at most 3.
    assert in_flight.peak == 3


def test_the_run_concurrency_holds_across_workers_and_endpoints(ray: Any) -> None:
    with slow_server(0.2) as (server, in_flight):
        options = _options(server).model_copy(
            update={
                "endpoints": {
                    name: EndpointConfig(base_url=server.base_url, max_concurrency=8)
                    for name in ("fault", "other")
                }
            }
        )
        session = Session(
            models=[MODEL, "other/model-b"],
            client_options=options,
            concurrency=2,
            executor=RayExecutor(workers=2),
        )
        for index in range(12):
            prompt = Prompt(
                name=f"case-{index:02d}",
                prompt=f"question {index}",
                checks=[{"type": "min_length", "value": 1}],
            )
            session.add_test(prompt)
        run = session.run()
    assert run.complete
    assert len(run.results) == 24
    assert in_flight.peak == 2


def test_a_stopped_run_keeps_what_finished_and_resume_finishes_it(ray: Any, tmp_path: Path) -> None:
    journal = tmp_path / "runs"
    with fault_server() as server:
        server.queue(Reply.ok("one"), Reply.ok("two"))
        server.default = Reply.hang(30)

        async def interrupted() -> RunResult:
            stop = asyncio.Event()

            def stop_after_two(count: int) -> None:
                if count == 2:
                    stop.set()

            executor = RayExecutor(workers=2)
            session = _session(_options(server), 6, concurrency=1, executor=executor)
            return await session.arun(
                sinks=[_Recorder(after=stop_after_two)], stop=stop, journal_dir=journal, grace_s=0.2
            )

        first = asyncio.run(interrupted())
        assert not first.complete
        assert sorted(r.completion.text for r in first.results) == ["one", "two"]

        server.default = Reply.ok("later")
        executor = RayExecutor(workers=2)
        session = _session(_options(server), 6, concurrency=1, executor=executor)
        second = session.run(journal_dir=journal, resume=True)
    assert second.complete
    assert second.run_id == first.run_id
    assert len(second.results) == 6
    assert sorted(r.completion.text for r in second.results) == ["later"] * 4 + ["one", "two"]


class _LockedValidator:
    """A validator holding a lock: nothing can pickle it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()

    def validate(self, response: str) -> tuple[bool, dict[str, Any]]:
        return True, {}

    def describe(self) -> str:
        return "locked"


def test_a_case_that_cannot_be_sent_is_a_clear_error(ray: Any) -> None:
    with fault_server() as server:
        session = _session(_options(server), 0, executor=RayExecutor(workers=1))
        session.add_test(Prompt(name="locked", prompt="q", validator=_LockedValidator()))
        with pytest.raises(ConfigError, match="a case cannot be sent to the Ray workers") as raised:
            session.run()
    assert "lock" in str(raised.value)
