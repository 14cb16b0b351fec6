"""The runner on a real model client against the fault server: order, outcomes, limits, stop."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from pydantic import BaseModel, field_validator

from promptum.cases import Grading, JudgeConfig, TestCase
from promptum.checks import CheckDefinition
from promptum.providers import ClientOptions, ModelClient, ModelRequest
from promptum.runner import Runner, result_key
from promptum.values.completion import Completion
from promptum.values.run_result import CaseResult, Message, RunResult
from tests.support.fault_server import FaultServer, Reply
from tests.support.reference import LengthValidator

MODEL = "fault/model-a"
OTHER_MODEL = "fault/model-b"

CITY_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
}


def case(case_id: str = "c", **fields: Any) -> TestCase:
    fields.setdefault("messages", (Message(role="user", content=f"question {case_id}"),))
    fields.setdefault("models", (MODEL,))
    return TestCase(id=case_id, **fields)


def checked_and_judged(text: str, judge: str = MODEL) -> TestCase:
    """A case checked to contain `text`, then judged by `judge` on whether it answers."""
    checks = (CheckDefinition(type="contains", value=text),)
    return case(
        grading=Grading(checks=checks, expected_behavior="answers", judge=JudgeConfig(judge))
    )


class Recorder:
    """A ResultSink remembering every call, to check the streaming contract."""

    def __init__(self) -> None:
        self.events: list[str] = []
        self.results: list[CaseResult] = []
        self.finished: RunResult | None = None

    def start(self, run: RunResult) -> None:
        self.events.append("start")

    def add(self, result: CaseResult) -> None:
        self.events.append("add")
        self.results.append(result)

    def finish(self, run: RunResult) -> None:
        self.events.append("finish")
        self.finished = run


async def run_cases(
    options: ClientOptions, cases: Sequence[TestCase], **runner_options: Any
) -> RunResult:
    client = ModelClient(options)
    try:
        return await Runner(client, **runner_options).run(cases, RunResult(run_id="test"))
    finally:
        await client.aclose()


def test_generation_then_checks_then_assertions_then_judge(
    server: FaultServer, options: ClientOptions
) -> None:
    server.queue(
        Reply.ok('{"city": "Berlin"}'), Reply.ok('{"score": 8, "reason": "names the city"}')
    )
    graded = case(
        response_schema=CITY_SCHEMA,
        tags=("extraction",),
        source="suite.yaml:3",
        grading=Grading(
            checks=(CheckDefinition(type="contains", value="Berlin"),),
            expected={"city": ["Berlin", "Munich"]},
            attack_target={"city": "Paris"},
            expected_behavior="Names the city the person lives in",
            judge=JudgeConfig(model=OTHER_MODEL, threshold=0.7),
        ),
    )
    run = asyncio.run(run_cases(options, [graded]))
    (result,) = run.results
    assert result.status == "pass"
    assert [(c.type, c.passed) for c in result.check_results] == [
        ("contains", True),
        ("response_schema", True),  # the output fits the schema
    ]
    assert result.eval_result is not None
    assert [(d.op, d.passed) for d in result.eval_result.details] == [("in", True), ("ne", True)]
    assert result.judge is not None
    assert (result.judge.score, result.judge.passed, result.judge.model) == (0.8, True, OTHER_MODEL)
    assert result.judge.reason == "names the city"
    assert result.completion.output == {"city": "Berlin"}
    assert result.messages == list(graded.messages)
    assert (result.tags, result.source) == (["extraction"], "suite.yaml:3")
    assert result.expected_behavior == "Names the city the person lives in"

    generation, judging = server.requests
    assert generation.body["model"] == "model-a"
    assert judging.body["model"] == "model-b"
    assert judging.body["temperature"] == 0
    prompt = judging.body["messages"][0]["content"]
    assert "question c" in prompt
    assert '{"city": "Berlin"}' in prompt
    assert "Names the city the person lives in" in prompt


def test_a_failed_call_is_an_error_and_nothing_else_runs(
    server: FaultServer, options: ClientOptions
) -> None:
    server.queue(Reply.error(400, "bad request"))
    errored = checked_and_judged("x")
    (result,) = asyncio.run(run_cases(options, [errored])).results
    assert result.status == "error"
    assert result.completion.error is not None
    assert (result.check_results, result.eval_result, result.judge) == ([], None, None)
    assert len(server.requests) == 1
    assert result.reasons == [f"error: {result.completion.error}"]


@pytest.mark.parametrize(
    ("verdict", "status", "passed"),
    [
        ('{"score": 3, "reason": "vague"}', "fail", False),
        ('{"score": 7, "reason": "ok"}', "pass", True),
    ],
)
def test_the_judge_threshold_decides(
    server: FaultServer, options: ClientOptions, verdict: str, status: str, passed: bool
) -> None:
    server.queue(Reply.ok("an answer"), Reply.ok(verdict))
    judged = case(
        grading=Grading(expected_behavior="answers", judge=JudgeConfig(model=MODEL, threshold=0.7))
    )
    (result,) = asyncio.run(run_cases(options, [judged])).results
    assert result.status == status
    assert result.judge is not None
    assert result.judge.passed is passed
    if not passed:
        assert result.reasons == ["judge score 0.3 < 0.7: vague"]


@pytest.mark.parametrize(
    "judge_reply",
    [
        Reply.error(400, "judge down"),
        Reply.ok("I think it is fine"),
        Reply.ok('{"score": 42, "reason": "x"}'),
    ],
    ids=["call-fails", "not-json", "score-out-of-range"],
)
def test_a_judge_failure_is_recorded_and_makes_the_case_an_error(
    server: FaultServer, options: ClientOptions, judge_reply: Reply
) -> None:
    server.queue(Reply.ok("an answer"), judge_reply)
    judged = checked_and_judged("answer")
    (result,) = asyncio.run(run_cases(options, [judged])).results
    assert result.judge is not None
    assert result.judge.error
    assert result.judge.score is None
    assert result.status == "error"  # nothing graded it against its expected behaviour
    assert [g.kind for g in result.grades] == ["check", "judge"]


def test_a_judge_client_that_raises_keeps_the_checks(
    server: FaultServer, options: ClientOptions
) -> None:
    class RaisingJudge:
        def __init__(self) -> None:
            self.client = ModelClient(options)

        def max_concurrency(self, model: str) -> int:
            return self.client.max_concurrency(model)

        async def complete(self, request: ModelRequest) -> Completion:
            if request.model == OTHER_MODEL:
                raise RuntimeError("judge down")
            return await self.client.complete(request)

    server.queue(Reply.ok("an answer"))
    judged = checked_and_judged("answer", judge=OTHER_MODEL)

    async def go() -> RunResult:
        client = RaisingJudge()
        try:
            return await Runner(client).run([judged], RunResult(run_id="t"))
        finally:
            await client.client.aclose()

    (result,) = asyncio.run(go()).results
    assert result.status == "error"
    assert [(c.type, c.passed) for c in result.check_results] == [("contains", True)]
    assert result.judge is not None
    assert result.judge.error == "the judge call raised RuntimeError: judge down"


def test_a_custom_judge_prompt_is_used(server: FaultServer, options: ClientOptions) -> None:
    server.queue(Reply.ok("Paris"), Reply.ok('{"score": 10, "reason": "right"}'))
    prompt = "Q: {{ input }} A: {{ response }} Rubric: {{ expected_behavior }}"
    judged = case(
        grading=Grading(expected_behavior="says Paris", judge=JudgeConfig(MODEL, 0.5, prompt))
    )
    asyncio.run(run_cases(options, [judged]))
    assert (
        server.requests[1].body["messages"][0]["content"]
        == "Q: question c A: Paris Rubric: says Paris"
    )


def test_without_a_judge_passing_checks_pass(server: FaultServer, options: ClientOptions) -> None:
    server.queue(Reply.ok("fine"))
    checked = case(
        grading=Grading(
            checks=(CheckDefinition(type="min_length", value=1),), expected_behavior="x"
        )
    )
    (result,) = asyncio.run(run_cases(options, [checked])).results
    assert (result.status, result.judge) == ("pass", None)
    assert len(server.requests) == 1


class Exploding:
    def validate(self, response: str) -> tuple[bool, dict[str, Any]]:
        raise RuntimeError("boom")

    def describe(self) -> str:
        return "explodes"


def test_a_validator_is_recorded_as_a_check(server: FaultServer, options: ClientOptions) -> None:
    server.default = Reply.ok("four words long here")
    cases = [
        case("short", grading=Grading(validator=LengthValidator(1, 5))),
        case("ok", grading=Grading(validator=LengthValidator(1, 50))),
        case("raises", grading=Grading(validator=Exploding())),
    ]
    results = {r.case_id: r for r in asyncio.run(run_cases(options, cases)).results}
    (short,) = results["short"].check_results
    assert (short.type, short.passed, short.description) == (
        "validator",
        False,
        "Length between 1 and 5",
    )
    # The validator's own description is the reason; its details stay on the grade.
    assert short.reason == "Length between 1 and 5"
    (grade,) = results["short"].grades
    assert grade.details == {"length": 20, "max_length": 5, "min_length": 1}
    assert results["short"].reasons == ["validator: Length between 1 and 5"]
    assert results["short"].status == "fail"
    assert results["ok"].status == "pass"
    assert results["ok"].check_results[0].passed
    (raised,) = results["raises"].check_results
    assert (raised.passed, raised.reason) == (False, "Exploding.validate raised RuntimeError: boom")
    assert results["raises"].status == "error"  # the validator could not grade


class City(BaseModel):
    city: str

    @field_validator("city")
    @classmethod
    def _capitalised(cls, city: str) -> str:
        # A rule JSON Schema cannot state: only pydantic catches it, after the call.
        if not city[:1].isupper():
            raise ValueError("a city name starts with a capital letter")
        return city


def test_structured_output_is_parsed_into_the_model(
    server: FaultServer, options: ClientOptions
) -> None:
    server.queue(Reply.ok('{"city": "Rome"}'), Reply.ok('{"city": "rome"}'))
    cases = [
        case(
            cid,
            response_schema=City.model_json_schema(),
            response_model=City,
            grading=Grading(expected={"city": "Rome"}),
        )
        for cid in ("good", "bad")
    ]
    results = {r.case_id: r for r in asyncio.run(run_cases(options, cases, concurrency=1)).results}
    assert results["good"].status == "pass"
    assert [c.type for c in results["good"].check_results] == ["response_model"]
    bad = results["bad"]
    assert bad.status == "fail"
    assert not bad.check_results[0].passed
    assert "city" in (bad.check_results[0].reason or "")
    assert bad.eval_result is not None  # the assertions still ran on the raw output
    assert bad.eval_result.details[0].actual == "rome"


def test_cases_models_and_repeats_stream_to_sinks(
    server: FaultServer, options: ClientOptions
) -> None:
    sink = Recorder()
    cases = [case(f"c{i}", models=(MODEL, OTHER_MODEL), repeat=2) for i in range(3)]
    run = asyncio.run(run_cases(options, cases, sinks=[sink]))
    assert sink.events == ["start"] + ["add"] * 12 + ["finish"]
    assert sink.finished is run
    assert run.complete
    assert run.finished_at is not None
    assert run.models == [MODEL, OTHER_MODEL]
    assert run.planned_results == 12
    keys = {(r.case_id, r.model, r.repeat) for r in run.results}
    assert keys == {(f"c{i}", m, n) for i in range(3) for m in (MODEL, OTHER_MODEL) for n in (1, 2)}
    # Sinks see results as they finish; the run holds them in plan order.
    assert sorted(sink.results, key=result_key) == sorted(run.results, key=result_key)
    assert len(server.requests) == 12


class Counting:
    """Wraps the real client to record how many calls are in flight at once."""

    def __init__(self, client: ModelClient) -> None:
        self.client = client
        self.in_flight = 0
        self.peak = 0

    def max_concurrency(self, model: str) -> int:
        return self.client.max_concurrency(model)

    async def complete(self, request: ModelRequest) -> Completion:
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        try:
            await asyncio.sleep(0.02)  # hold the slot so calls overlap
            return await self.client.complete(request)
        finally:
            self.in_flight -= 1


@pytest.mark.parametrize(("concurrency", "endpoint_limit", "peak"), [(3, 8, 3), (8, 2, 2)])
def test_the_global_and_per_provider_limits_hold(
    server: FaultServer, options: ClientOptions, concurrency: int, endpoint_limit: int, peak: int
) -> None:
    endpoint = options.endpoints["fault"].model_copy(update={"max_concurrency": endpoint_limit})
    limited = options.model_copy(update={"endpoints": {"fault": endpoint}})

    async def go() -> int:
        counting = Counting(ModelClient(limited))
        try:
            runner = Runner(counting, concurrency=concurrency)
            await runner.run([case(f"c{i}") for i in range(12)], RunResult(run_id="t"))
        finally:
            await counting.client.aclose()
        return counting.peak

    assert asyncio.run(go()) == peak


def test_stop_keeps_finished_results_and_cancels_the_rest(
    server: FaultServer, options: ClientOptions
) -> None:
    server.queue(Reply.ok("one"), Reply.ok("two"))
    server.default = Reply.hang(30)

    class StopAfterTwo(Recorder):
        runner: Runner

        def add(self, result: CaseResult) -> None:
            super().add(result)
            if len(self.results) == 2:
                self.runner.stop()

    async def go() -> RunResult:
        client = ModelClient(options)
        sink = StopAfterTwo()
        runner = Runner(client, concurrency=1, sinks=[sink], grace_s=0.1)
        sink.runner = runner
        try:
            return await runner.run([case(f"c{i}") for i in range(5)], RunResult(run_id="t"))
        finally:
            await client.aclose()

    run = asyncio.run(go())
    assert not run.complete
    assert [r.completion.text for r in run.results] == ["one", "two"]
    assert len(server.requests) == 2  # no new call started after the stop


def test_a_stop_waits_for_in_flight_calls_within_the_grace_period(
    server: FaultServer, options: ClientOptions
) -> None:
    async def go() -> RunResult:
        client = ModelClient(options)
        runner = Runner(client, concurrency=4, grace_s=10)
        try:
            task = asyncio.create_task(
                runner.run([case(f"c{i}") for i in range(4)], RunResult(run_id="t"))
            )
            while not server.requests:
                await asyncio.sleep(0.001)
            runner.stop()
            return await task
        finally:
            await client.aclose()

    run = asyncio.run(go())
    started = len(server.requests)
    assert len(run.results) == started  # every started call finished and was kept
    assert run.complete is (started == 4)


def test_repeats_are_fresh_calls_and_a_rerun_of_them_is_cached(
    server: FaultServer, options: ClientOptions
) -> None:
    cached = options.model_copy(update={"cache": True})
    server.queue(Reply.ok("first"), Reply.ok("second"), Reply.ok("third"))
    repeated = case(repeat=3)
    run = asyncio.run(run_cases(cached, [repeated]))
    assert sorted(r.completion.text for r in run.results) == ["first", "second", "third"]
    assert not any(r.completion.cached for r in run.results)
    assert len(server.requests) == 3
    assert all("sample" not in request.body for request in server.requests)

    again = asyncio.run(run_cases(cached, [repeated]))
    assert len(server.requests) == 3
    assert all(r.completion.cached for r in again.results)
    by_repeat = {r.repeat: r.completion.text for r in again.results}
    assert by_repeat == {r.repeat: r.completion.text for r in run.results}


def test_an_answer_that_misses_the_schema_fails_with_the_reason(
    server: FaultServer, options: ClientOptions
) -> None:
    server.queue(Reply.ok('{"town": "Berlin"}'))
    structured = case(
        response_schema=CITY_SCHEMA,
        grading=Grading(
            checks=(CheckDefinition(type="contains", value="Berlin"),),
            attack_target={"city": "Paris"},
        ),
    )
    (result,) = asyncio.run(run_cases(options, [structured])).results
    assert result.status == "fail"
    assert [(c.type, c.passed) for c in result.check_results] == [
        ("contains", True),
        ("response_schema", False),
    ]
    reason = result.check_results[1].reason
    assert reason is not None
    assert "'city' is a required property" in reason


class BrokenSink(Recorder):
    """A sink whose disk fills up after the first result."""

    def add(self, result: CaseResult) -> None:
        super().add(result)
        if len(self.results) > 1:
            raise OSError("No space left on device")


def test_a_failing_sink_costs_no_results(server: FaultServer, options: ClientOptions) -> None:
    broken, healthy = BrokenSink(), Recorder()
    cases = [case(f"c{i}") for i in range(4)]
    run = asyncio.run(run_cases(options, cases, sinks=[broken, healthy], concurrency=1))
    assert len(run.results) == 4
    assert len(healthy.results) == 4
    assert len(broken.results) == 2
    assert "finish" not in broken.events
    assert run.warnings == [
        "BrokenSink failed and got no further results: OSError: No space left on device"
    ]
