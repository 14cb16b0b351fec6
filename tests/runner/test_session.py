"""`Session` and `Prompt` as the reference uses them, suites through the same objects, resume."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pydantic import BaseModel

from promptum import CaseResult, Contains, Prompt, RunResult, Session
from promptum.cases import JudgeConfig
from promptum.errors import ConfigError, ProviderUnavailableError
from promptum.providers import ClientOptions
from tests.support.fault_server import FaultServer, Reply
from tests.support.reference import LengthValidator

MODEL = "fault/model-a"


def test_the_reference_usage(server: FaultServer, options: ClientOptions) -> None:
    server.default = Reply.ok("Roses are red, Python is neat.")
    session = Session(client_options=options)
    session.add_test(
        Prompt(
            name="length_check",
            prompt="Write a short poem",
            model=MODEL,
            validator=LengthValidator(min_length=10, max_length=500),
        )
    )
    session.add_test(
        Prompt(name="mentions", prompt="Poem about Rust", model=MODEL, validator=Contains("Rust"))
    )
    result = session.run()
    assert isinstance(result, RunResult)
    by_name = {r.case_id: r for r in result.results}
    assert by_name["length_check"].checks_passed
    assert by_name["length_check"].check_results[0].description == "Length between 10 and 500"
    assert not by_name["mentions"].checks_passed
    assert [c.type for c in by_name["mentions"].failed_checks] == ["validator"]
    stats = result.get_check_stats()[MODEL]
    assert (stats.passed, stats.total) == (1, 2)
    assert result.stats()[MODEL].passed == 1
    assert result.config["promptum_version"]
    assert result.models == [MODEL]


def test_session_defaults_apply_to_prompts_without_their_own(
    server: FaultServer, options: ClientOptions
) -> None:
    server.queue(Reply.ok("Paris"), Reply.ok('{"score": 9, "reason": "right"}'), Reply.ok("x"))
    session = Session(models=[MODEL], judge=MODEL, client_options=options, concurrency=1)
    session.add_test(
        Prompt(
            name="judged",
            prompt="Capital of France?",
            system="Be brief.",
            expected_behavior="Names Paris",
            checks=[{"type": "contains", "value": "Paris"}],
            temperature=0,
            max_tokens=10,
            tags=["geo"],
        )
    )
    session.add_test(Prompt(name="unjudged", prompt="Anything"))
    result = asyncio.run(session.arun())
    judged, unjudged = sorted(result.results, key=lambda r: r.case_id)
    assert judged.judge is not None
    assert judged.judge.score == 0.9
    assert unjudged.judge is None  # no expected_behavior, nothing to judge against
    first = server.requests[0].body
    assert first["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Capital of France?"},
    ]
    assert (first["temperature"], first["max_tokens"]) == (0, 10)
    assert judged.tags == ["geo"]


class Answer(BaseModel):
    answer: int


def test_prompts_with_structured_output(server: FaultServer, options: ClientOptions) -> None:
    server.default = Reply.ok('{"answer": 4}')
    session = Session(models=[MODEL], client_options=options)
    session.add_test(
        Prompt(
            name="sum",
            prompt="2+2?",
            response_model=Answer,
            expected={"answer": 4},
            attack_target={"answer": 5},
        )
    )
    (result,) = session.run().results
    assert result.status == "pass"
    assert result.eval_result is not None
    assert result.eval_result.passed


@pytest.mark.parametrize(
    ("prompt", "message"),
    [
        (Prompt(name="x"), "give exactly one of `prompt`"),
        (Prompt(name="x", prompt="a", messages=[{"role": "user", "content": "b"}]), "exactly one"),
        (Prompt(name="x", messages=[{"role": "robot", "content": "b"}]), "invalid `messages`"),
        (Prompt(name="x", prompt="a", checks=[{"type": "contian", "value": "a"}]), "Did you mean"),
        (Prompt(name="x", prompt="a", expected={"a": 1}), "need response_model"),
        (Prompt(name="x", prompt="a", response_model=str), "pydantic model class or a JSON"),  # type: ignore[arg-type]
        (Prompt(name="x", prompt="a", response_model={"type": "nonsense"}), "valid JSON Schema"),
        (Prompt(name="x", prompt="a", repeat=0), "repeat must be at least 1"),
        (Prompt(name="x", prompt="a", validator="nope"), "validate(response) and describe()"),  # type: ignore[arg-type]
        (Prompt(name="", prompt="a"), "non-empty `name`"),
    ],
)
def test_bad_prompts_are_clear_errors(prompt: Prompt, message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Session().add_test(prompt)


def test_duplicate_names_and_empty_sessions() -> None:
    session = Session()
    session.add_test(Prompt(name="a", prompt="q"))
    with pytest.raises(ConfigError, match="a test named 'a' is already in the session"):
        session.add_test(Prompt(name="a", prompt="q"))
    with pytest.raises(ConfigError, match="the session has no tests"):
        Session().run()


def test_an_unusable_model_fails_before_any_call(options: ClientOptions) -> None:
    session = Session(models=["nowhere/model"], client_options=options)
    session.add_test(Prompt(name="a", prompt="q"))
    with pytest.raises(ProviderUnavailableError, match="unknown provider 'nowhere'"):
        session.run()


def test_suite_files_become_the_same_objects(
    tmp_path: Path, server: FaultServer, options: ClientOptions
) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(
        f"name: demo\nmodels: [{MODEL}]\njudge: {{model: {MODEL}, threshold: 0.5}}\n"
        "test_cases:\n  - {id: a, query: q, expected_behavior: says hi}\n"
        "  - {id: b, query: r}\n",
        encoding="utf-8",
    )
    session = Session(client_options=options)
    suite = session.add_suite(path)
    assert session.tests == list(suite.cases)
    session.override(judge="fault/strict")  # another judge model, the suite's threshold
    assert session.tests[0].grading.judge == JudgeConfig("fault/strict", 0.5)
    session.override(judge=None, repeat=2)
    assert all(t.grading.judge is None and t.repeat == 2 for t in session.tests)
    session.override(judge=JudgeConfig(MODEL, 0.9))
    assert all(t.grading.judge == JudgeConfig(MODEL, 0.9) for t in session.tests)
    session.override(judge=None)
    result = session.run()
    assert result.suite == "demo"
    assert result.config["suites"] == [str(path)]
    assert len(result.results) == 4


def test_suite_endpoints_reach_the_client(tmp_path: Path, server: FaultServer) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(
        f"endpoints:\n  mine: {{base_url: '{server.base_url}', max_concurrency: 2}}\n"
        "pricing:\n  mine/m: {input: 1.0, output: 2.0}\n"
        "models: [mine/m]\ntest_cases:\n"
        "  - {id: a, query: one two, checks: [{type: min_length, value: 1}]}\n",
        encoding="utf-8",
    )
    session = Session(client_options=ClientOptions(cache=False, max_retries=0))
    session.add_suite(path)
    (result,) = session.run().results
    assert result.status == "pass"
    assert result.completion.cost_usd is not None
    assert result.completion.cost_usd > 0


def test_resume_runs_only_what_did_not_finish(
    tmp_path: Path, server: FaultServer, options: ClientOptions
) -> None:
    journal = tmp_path / "runs"
    server.queue(Reply.ok("one"), Reply.ok("two"))
    server.default = Reply.hang(30)

    def session() -> Session:
        fresh = Session(models=[MODEL], client_options=options, concurrency=1)
        for name in "abcde":
            fresh.add_test(Prompt(name=name, prompt=f"question {name}"))
        return fresh

    class StopAfterTwo:
        def __init__(self, stop: asyncio.Event) -> None:
            self.stop, self.count = stop, 0

        def start(self, run: RunResult) -> None: ...

        def add(self, result: CaseResult) -> None:
            self.count += 1
            if self.count == 2:
                self.stop.set()

        def finish(self, run: RunResult) -> None: ...

    async def interrupted() -> RunResult:
        stop = asyncio.Event()
        return await session().arun(
            sinks=[StopAfterTwo(stop)], stop=stop, journal_dir=journal, grace_s=0.1
        )

    first = asyncio.run(interrupted())
    assert not first.complete
    assert len(first.results) == 2
    assert len(list(journal.glob("*.jsonl"))) == 1

    server.default = Reply.ok("later")
    calls_before = len(server.requests)
    second = session().run(journal_dir=journal, resume=True)
    assert second.complete
    assert second.run_id == first.run_id
    assert second.resumed is True
    assert sorted(r.case_id for r in second.results) == list("abcde")
    texts = {r.case_id: r.completion.text for r in second.results}
    assert texts["a"] == "one"
    assert texts["b"] == "two"
    # The interrupted third call and the two never started: three new calls, none repeated.
    assert len(server.requests) - calls_before == 3
    assert list(journal.glob("*.jsonl")) == []  # a complete run leaves nothing to resume


def test_without_resume_a_run_starts_over(
    tmp_path: Path, server: FaultServer, options: ClientOptions
) -> None:
    journal = tmp_path / "runs"
    session = Session(models=[MODEL], client_options=options)
    session.add_test(Prompt(name="a", prompt="q"))
    session.run(journal_dir=journal)
    session.run(journal_dir=journal, resume=True)  # nothing to resume: runs again
    assert len(server.requests) == 2


def test_run_inside_an_event_loop_points_to_arun() -> None:
    session = Session()
    session.add_test(Prompt(name="p", prompt="q", model="local/smollm2"))

    async def inside() -> None:
        with pytest.raises(ConfigError, match=r"use `await session.arun\(\)`"):
            session.run()

    asyncio.run(inside())
