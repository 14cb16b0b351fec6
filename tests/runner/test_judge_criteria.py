"""Richer judging: per-case judges, named criteria, context and faithfulness, sampling."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from promptum.cases import Criterion, Grading, JudgeConfig, TestCase
from promptum.errors import ConfigError
from promptum.providers import DEFAULT_MODEL, ClientOptions, ModelClient
from promptum.reporting import load_run
from promptum.reporting._html import render_html
from promptum.reporting._junit import render_junit
from promptum.reporting._markdown import render_markdown
from promptum.runner import FAITHFULNESS_PROMPT, JUDGE_PROMPT, Runner, judge_request, render
from promptum.session import Prompt, Session
from promptum.suites import load_suite
from promptum.values.run_result import Message, RunResult
from tests.suites.suite_problems import problems
from tests.support.cli import write
from tests.support.fault_server import FaultServer, Reply

MODEL = "fault/model"
JUDGE = "fault/judge"
EXAMPLES = Path(__file__).parents[2] / "examples"


def verdict(score: int, reason: str = "fine") -> Reply:
    return Reply.ok(json.dumps({"score": score, "reason": reason}))


def run_suite(path: Path, options: ClientOptions) -> RunResult:
    # One worker: the fault server answers in the order the calls arrive.
    session = Session(client_options=options, concurrency=1)
    session.add_suite(path)
    return session.run()


def judged_suite(folder: Path, text: str) -> Path:
    """Write a suite answered by `MODEL` and judged by `JUDGE`: `text` (dedented) holds the
    judge's other keys, indented under it, then the suite's other keys."""
    return write(
        folder / "suite.yaml",
        f"models: [{MODEL}]\njudge:\n  model: {JUDGE}\n{textwrap.dedent(text)}",
    )


def judge_calls(server: FaultServer) -> list[tuple[str, str]]:
    """(model, prompt) of every call made to a judge model."""
    return [
        (r.body["model"], r.body["messages"][-1]["content"])
        for r in server.requests
        if r.body.get("model") != "model"
    ]


# --- A case's own judge, merged over the suite's -------------------------------------------


def test_a_case_judge_is_merged_over_the_suites_key_by_key(
    tmp_path: Path, server: FaultServer, options: ClientOptions
) -> None:
    path = judged_suite(
        tmp_path,
        """\
          threshold: 0.7
          prompt: "SUITE rubric={{ rubric }}"
        test_cases:
          - {id: inherits, query: q1, expected_behavior: e1}
          - {id: stricter, query: q2, expected_behavior: e2, judge: {threshold: 0.9}}
          - {id: other-model, query: q3, expected_behavior: e3, judge: {model: fault/mine}}
          - id: own-prompt
            query: q4
            expected_behavior: e4
            judge: {prompt: "CASE {{ rubric }}"}
          - id: unjudged
            query: q5
            expected_behavior: e5
            judge: false
            checks: [{type: min_length, value: 1}]  # graded by something: else an error
        """,
    )
    cases = {case.id: case.grading.judge for case in load_suite(path).cases}
    suite_judge = JudgeConfig(JUDGE, 0.7, "SUITE rubric={{ rubric }}")
    assert cases == {
        "inherits": suite_judge,
        "stricter": JudgeConfig(JUDGE, 0.9, "SUITE rubric={{ rubric }}"),
        "other-model": JudgeConfig("fault/mine", 0.7, "SUITE rubric={{ rubric }}"),
        "own-prompt": JudgeConfig(JUDGE, 0.7, "CASE {{ rubric }}"),
        "unjudged": None,
    }

    server.default = verdict(8)
    results = {r.case_id: r for r in run_suite(path, options).results}
    assert judge_calls(server) == [
        ("judge", "SUITE rubric=e1"),
        ("judge", "SUITE rubric=e2"),
        ("mine", "SUITE rubric=e3"),
        ("judge", "CASE e4"),
    ]
    assert {case_id: r.status for case_id, r in results.items()} == {
        "inherits": "pass",
        "stricter": "fail",  # 0.8 < its own 0.9
        "other-model": "pass",
        "own-prompt": "pass",
        "unjudged": "pass",
    }
    assert results["unjudged"].of_kind("judge") == []
    assert results["stricter"].reasons == ["judge score 0.8 < 0.9: fine"]


def test_toml_case_files_and_jsonl_rows_carry_their_own_judge_and_context(
    tmp_path: Path,
) -> None:
    write(
        tmp_path / "cases/refund.toml",
        """\
        query = "Refund after 40 days?"
        context = ["Refunds within 30 days.", "Receipts required."]

        [judge]
        prompt = "faithfulness"
        threshold = 0.8
        """,
    )
    (case,) = load_suite(tmp_path / "cases").cases
    assert case.context == ("Refunds within 30 days.", "Receipts required.")
    assert case.grading.judge == JudgeConfig(DEFAULT_MODEL, 0.8, "faithfulness")

    row = {
        "id": "row",
        "question": "Capital of France?",
        "passage": "Paris is the capital of France.",
        "judge": {"criteria": {"grounded": {"prompt": "faithfulness"}}, "samples": 2},
    }
    write(tmp_path / "rows.jsonl", json.dumps(row) + "\n")
    path = write(
        tmp_path / "suite.yaml",
        f"""\
        judge: {{model: {JUDGE}, criteria: {{polite: Is polite}}}}
        prompt: "{{{{ question }}}}"
        defaults: {{context: "{{{{ passage }}}}"}}
        cases_from: rows.jsonl
        """,
    )
    (case,) = load_suite(path).cases
    assert case.context == ("Paris is the capital of France.",)
    assert case.grading.judge == JudgeConfig(
        JUDGE, criteria=(Criterion("grounded", prompt="faithfulness"),), samples=2
    )


def test_python_prompts_carry_a_judge_over_the_sessions(
    server: FaultServer, options: ClientOptions
) -> None:
    polite = Criterion("polite", "Is polite")
    session = Session(
        models=[MODEL],
        judge=JudgeConfig(JUDGE, 0.7, criteria=(polite,)),
        client_options=options,
        concurrency=1,
    )
    session.add_test(Prompt(name="stricter", prompt="q", judge={"threshold": 0.9}))
    session.add_test(Prompt(name="other", prompt="q", judge="fault/other"))
    session.add_test(
        Prompt(name="off", prompt="q", judge=False, checks=[{"type": "min_length", "value": 1}])
    )
    session.add_test(
        Prompt(name="own", prompt="q", expected_behavior="says q", judge={"criteria": {}})
    )
    judges = {test.id: test.grading.judge for test in session.tests}
    assert judges == {
        "stricter": JudgeConfig(JUDGE, 0.9, criteria=(polite,)),
        "other": JudgeConfig("fault/other", 0.7, criteria=(polite,)),
        "off": None,
        "own": JudgeConfig(JUDGE, 0.7),
    }
    session.override(judge="fault/cli")  # `promptum run --judge`: criteria and thresholds stay
    assert session.tests[0].grading.judge == JudgeConfig("fault/cli", 0.9, criteria=(polite,))
    server.default = verdict(8)
    results = {r.case_id: r for r in session.run().results}
    assert [g.name for g in results["stricter"].grades] == ["polite"]
    assert [g.name for g in results["own"].grades] == ["judge"]
    assert [g.name for g in results["off"].grades] == ["min_length"]  # not judged
    session.override(judge=None)  # `--no-judge`
    assert all(test.grading.judge is None for test in session.tests)

    # A session judge without criteria judges only prompts with an expected behaviour.
    plain = Session(models=[MODEL], judge=JUDGE)
    plain.add_test(Prompt(name="a", prompt="q"))
    assert plain.tests[0].grading.judge is None
    with pytest.raises(ConfigError, match=r"judge\.criteria\.x: unknown key 'treshold'"):
        plain.add_test(Prompt(name="b", prompt="q", judge={"criteria": {"x": {"treshold": 1}}}))
    with pytest.raises(ConfigError, match=r"has no `context`.*Prompt\(context=\.\.\.\)"):
        plain.add_test(Prompt(name="c", prompt="q", judge={"prompt": "faithfulness"}))


# --- Named criteria ----------------------------------------------------------------------------

CRITERIA = """\
  criteria:
    correct: Names {{ city }} as the capital
    polite: Is courteous
    concise: {rubric: At most two sentences, threshold: 0.8}
test_cases:
  - id: capital
    query: What is the capital of France?
    vars: {city: Paris}
"""
"""The judge's three criteria (under `judge:`, as `judged_suite` takes them) and one case."""


def test_each_criterion_is_one_judge_call_and_one_grade(
    tmp_path: Path, server: FaultServer, options: ClientOptions
) -> None:
    path = judged_suite(tmp_path, CRITERIA)
    server.queue(Reply.ok("Paris."), verdict(9, "names it"), verdict(3, "curt"), verdict(8))
    run = run_suite(path, options)
    (result,) = run.results
    calls = judge_calls(server)
    assert len(calls) == 3
    for (_, prompt), rubric in zip(
        calls, ["Names Paris as the capital", "Is courteous", "At most two sentences"], strict=True
    ):
        assert f"A good answer: {rubric}\n" in prompt
        assert "The assistant answered:\nParis.\n" in prompt
    assert [(g.name, g.passed, g.score) for g in result.grades] == [
        ("correct", True, 0.9),
        ("polite", False, 0.3),
        ("concise", True, 0.8),  # its own threshold, 0.8
    ]
    assert [g.details["threshold"] for g in result.grades] == [0.7, 0.7, 0.8]
    assert result.grades[1].details["rubric"] == "Is courteous"
    assert result.status == "fail"  # one criterion failed
    assert result.reasons == ["judge polite score 0.3 < 0.7: curt"]
    assert result.judge is not None  # the one-verdict view: every criterion must pass
    assert (result.judge.passed, result.judge.score) == (False, pytest.approx(2 / 3))

    junit = render_junit(run)
    assert 'message="judge criteria below threshold: polite 0.3 &lt; 0.7"' in junit
    assert "judge FAIL polite (judged by fault/judge, threshold 0.7) score 0.3: curt" in junit
    assert "judge PASS concise (judged by fault/judge, threshold 0.8) score 0.8: fine" in junit
    assert "judge polite score 0.3 &lt; 0.7: curt" in junit  # the failure's body names it
    # The HTML report draws results from its data block: [failed?, label, threshold, ...].
    assert '[0,"judge polite 0.30","0.70","","curt","Is courteous"]' in render_html(run)
    markdown = render_markdown(run)
    assert "**suite/capital** on fault/model: judge polite score 0.3 \\< 0.7: curt" in markdown


def test_criteria_add_to_the_expected_behaviour(
    tmp_path: Path, server: FaultServer, options: ClientOptions
) -> None:
    path = judged_suite(
        tmp_path,
        CRITERIA.replace(
            "vars: {city: Paris}", "vars: {city: Paris}\n    expected_behavior: Says Paris"
        ),
    )
    server.default = verdict(10)
    (result,) = run_suite(path, options).results
    assert [g.name for g in result.grades] == ["judge", "correct", "polite", "concise"]
    assert "A good answer: Says Paris\n" in judge_calls(server)[0][1]
    assert result.status == "pass"


def test_a_custom_prompt_sees_the_rubric_and_the_cases_expected_behaviour(
    server: FaultServer, options: ClientOptions
) -> None:
    config = JudgeConfig(
        JUDGE,
        prompt="R={{ rubric }} E={{ expected_behavior }} A={{ response }}",
        criteria=(Criterion("tone", "Is warm"),),
    )
    case = TestCase(
        id="c",
        messages=(Message(role="user", content="hi"),),
        models=(MODEL,),
        grading=Grading(expected_behavior="Greets", judge=config),
    )
    server.queue(Reply.ok("Hello"), verdict(9), verdict(9))

    async def run() -> RunResult:
        client = ModelClient(options)
        try:
            return await Runner(client).run([case], RunResult(run_id="t"))
        finally:
            await client.aclose()

    asyncio.run(run())
    assert [prompt for _, prompt in judge_calls(server)] == [
        "R=Greets E=Greets A=Hello",
        "R=Is warm E=Greets A=Hello",
    ]


def test_the_default_criterion_asks_exactly_what_the_judge_asked_before_criteria() -> None:
    # Same text, temperature and sample: the cache still answers verdicts of earlier runs.
    before = JUDGE_PROMPT.replace("{{ rubric }}", "{{ expected_behavior }}")
    case = TestCase(
        id="c",
        messages=(Message(role="user", content="Capital of France?"),),
        grading=Grading(expected_behavior="Names Paris", judge=JudgeConfig(JUDGE)),
    )
    request = judge_request(JudgeConfig(JUDGE), case, "Paris")
    expected = render(
        before,
        {"input": "Capital of France?", "response": "Paris", "expected_behavior": "Names Paris"},
    )
    assert request.messages[0].content == expected
    assert (request.temperature, request.sample) == (0.0, 0)


# --- Context and the faithfulness prompt -------------------------------------------------------


def test_context_reaches_the_judge_and_only_the_templates_that_use_it(
    tmp_path: Path, server: FaultServer, options: ClientOptions
) -> None:
    path = judged_suite(
        tmp_path,
        """\
          prompt: faithfulness
        test_cases:
          - id: in-the-prompt
            context: ["Refunds within {{ days }} days.", "Receipts are required."]
            vars: {days: 30}
            query: "Policy: {{ context }}\\nCan I get a refund after 40 days?"
          - id: judge-only
            context: The office opens at nine.
            query: When does the office open?
        """,
    )
    server.queue(Reply.ok("No."), verdict(9), Reply.ok("At nine."), verdict(4, "unsupported"))
    results = {r.case_id: r for r in run_suite(path, options).results}
    asked = [
        r.body["messages"][-1]["content"] for r in server.requests if r.body["model"] == "model"
    ]
    assert asked == [
        "Policy: Refunds within 30 days.\n\nReceipts are required.\n"
        "Can I get a refund after 40 days?",
        "When does the office open?",  # context is not sent unless a template places it
    ]
    first, second = (prompt for _, prompt in judge_calls(server))
    # No expected_behavior, yet judged: faithfulness grades against the context.
    assert first.startswith(FAITHFULNESS_PROMPT.split("{{")[0])
    assert "The context:\nRefunds within 30 days.\n\nReceipts are required.\n" in first
    assert "every claim in it is supported by the context" in first
    assert "The context:\nThe office opens at nine.\n" in second
    assert "The assistant answered:\nAt nine.\n" in second
    assert results["in-the-prompt"].grades[0].details["prompt"] == "faithfulness"
    assert results["judge-only"].reasons == ["judge score 0.4 < 0.7: unsupported"]


def test_a_faithfulness_criterion_beside_a_rubric(
    tmp_path: Path, server: FaultServer, options: ClientOptions
) -> None:
    path = judged_suite(
        tmp_path,
        """\
          criteria:
            faithful: {prompt: faithfulness}
            grounded:
              prompt: "Docs: {{ context }} / {{ rubric }} / {{ response }}"
              rubric: Cites a doc
        test_cases:
          - {id: a, query: q, context: [d1, d2], expected_behavior: Answers}
        """,
    )
    server.default = verdict(9)
    (result,) = run_suite(path, options).results
    assert [g.name for g in result.grades] == ["judge", "faithful", "grounded"]
    prompts = [prompt for _, prompt in judge_calls(server)]
    assert "A good answer: Answers" in prompts[0]
    assert "The context:\nd1\n\nd2\n" in prompts[1]
    assert prompts[2] == f"Docs: d1\n\nd2 / Cites a doc / {server.default.text}"


# --- Sampling ----------------------------------------------------------------------------------


def sampled_case(threshold: float = 0.7) -> TestCase:
    return TestCase(
        id="sampled",
        messages=(Message(role="user", content="Capital of France?"),),
        models=(MODEL,),
        grading=Grading(
            expected_behavior="Names Paris", judge=JudgeConfig(JUDGE, threshold, samples=3)
        ),
    )


def run_cases(options: ClientOptions, cases: list[TestCase]) -> RunResult:
    async def run() -> RunResult:
        client = ModelClient(options)
        try:
            return await Runner(client, concurrency=1).run(cases, RunResult(run_id="t"))
        finally:
            await client.aclose()

    return asyncio.run(run())


def test_samples_record_mean_spread_and_agreement_and_replay_from_the_cache(
    tmp_path: Path, server: FaultServer, options: ClientOptions
) -> None:
    cached = options.model_copy(update={"cache": True, "cache_path": tmp_path / "cache.sqlite"})
    server.queue(Reply.ok("Paris"), verdict(9, "a"), verdict(5, "b"), verdict(7, "c"))
    (result,) = run_cases(cached, [sampled_case()]).results
    (grade,) = result.grades
    judged = [r.body for r in server.requests[1:]]
    assert [body["temperature"] for body in judged] == [0.7, 0.7, 0.7]  # not 0: they may differ
    assert grade.score == 0.7  # the mean, exactly
    assert grade.passed  # 0.7 >= 0.7
    assert grade.reason == "a"  # the first sample that passed explains the pass
    details = grade.details
    assert details["samples"] == 3
    assert details["scores"] == [0.9, 0.5, 0.7]
    assert details["stdev"] == pytest.approx(0.1633, abs=1e-4)
    assert details["agreement"] == pytest.approx(0.6667, abs=1e-4)  # 2 of 3 passed
    assert details["reasons"] == ["a", "b", "c"]
    assert details["temperature"] == 0.7
    assert result.status == "pass"

    # Each sample has its own cache entry: a second run replays all three, not one thrice.
    asked = len(server.requests)
    (again,) = run_cases(cached, [sampled_case()]).results
    assert len(server.requests) == asked
    assert again.completion.cached
    assert again.grades[0].details["scores"] == [0.9, 0.5, 0.7]
    assert again.grades[0].score == 0.7


def test_a_sampled_failure_says_how_the_samples_went(
    server: FaultServer, options: ClientOptions
) -> None:
    server.queue(Reply.ok("Paris"), verdict(9, "a"), verdict(5, "b"), verdict(7, "c"))
    run = run_cases(options, [sampled_case(threshold=0.8)])
    (result,) = run.results
    assert result.status == "fail"
    assert result.reasons == [
        "judge mean score 0.7 < 0.8 (3 samples 0.5-0.9, sd 0.16, 1 of 3 passed): b"
    ]
    assert "judge mean score 0.7 &lt; 0.8 (3 samples 0.5-0.9, sd 0.16, 1 of 3 passed): b" in (
        render_junit(run)
    )
    assert (
        "judge FAIL judge (judged by fault/judge, threshold 0.8, mean of 3 samples) mean score "
        "0.7 (3 samples 0.5-0.9, sd 0.16, 1 of 3 passed): b"
    ) in render_junit(run)
    assert "judge mean score 0.7 \\< 0.8 (3 samples 0.5-0.9, sd 0.16, 1 of 3 passed)" in (
        render_markdown(run)
    )
    html = render_html(run)
    assert '[0,"judge 0.70","0.80","3 samples 0.5-0.9, sd 0.16, ' in html


def test_a_sample_the_judge_could_not_give_makes_the_criterion_an_error(
    server: FaultServer, options: ClientOptions
) -> None:
    server.queue(Reply.ok("Paris"), verdict(9), Reply.error(400, "judge down"), verdict(9))
    (result,) = run_cases(options, [sampled_case()]).results
    (grade,) = result.grades
    assert result.status == "error"
    assert grade.error is not None
    assert grade.error.startswith("1 of 3 samples failed: ")
    assert grade.details["scores"] == [0.9, 0.9]


# --- Load errors -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "judge:\n  criteria:\n    concise: {rubric: short, treshold: 0.8}\n"
            "test_cases:\n  - {id: a, query: q}\n",
            "suite.yaml:3:5: judge.criteria.concise: unknown key 'treshold' in this "
            "criterion. Did you mean 'threshold'? Allowed keys: metric, prompt, rubric, threshold.",
        ),
        (
            "judge:\n  criteria:\n    judge: Is right\ntest_cases:\n  - {id: a, query: q}\n",
            "suite.yaml:3:5: judge.criteria.judge: the criterion `judge` is the case's "
            "expected_behavior",
        ),
        (
            "judge: {prompt: faithfulness}\ntest_cases:\n  - {id: a, query: q}\n",
            "suite.yaml:3:5: test_cases[0].context: the judge prompt of criterion 'judge' "
            "(prompt: faithfulness) uses {{ context }}, but the case has no `context`",
        ),
        (
            "judge: {criteria: {g: {prompt: 'Docs {{ context }} {{ rubric }}', rubric: r}}}\n"
            "test_cases:\n  - {id: a, query: q, judge: {threshold: 0.5}}\n",
            "suite.yaml:3:5: test_cases[0].context: the judge prompt of criterion 'g' "
            "(prompt: a template) uses {{ context }}",
        ),
        (
            "judge: {prompt: faithfullness}\ntest_cases:\n  - {id: a, query: q, context: c}\n",
            "suite.yaml:1:9: judge.prompt: unknown built-in judge prompt 'faithfullness'. "
            "Did you mean 'faithfulness'?",
        ),
        (
            "judge:\n  prompt: 'Rate {{ response }} against {{ expected_behavior }}'\n"
            "  criteria: {polite: Is polite}\ntest_cases:\n  - {id: a, query: q}\n",
            "suite.yaml:3:14: judge.criteria.polite: the judge's prompt does not use "
            "{{ rubric }}, so this criterion's rubric never reaches the judge",
        ),
        (
            "judge: {criteria: {g: {prompt: faithfulness, rubric: r}}}\n"
            "test_cases:\n  - {id: a, query: q, context: c}\n",
            "suite.yaml:1:20: judge.criteria.g: its own prompt, 'faithfulness', shows no rubric",
        ),
        (
            "judge: {criteria: {g: {threshold: 0.5}}}\ntest_cases:\n  - {id: a, query: q}\n",
            "suite.yaml:1:20: judge.criteria.g: this criterion needs a rubric",
        ),
        (
            "judge: {prompt: 'Grade {{ answer }}'}\ntest_cases:\n  - {id: a, query: q}\n",
            "suite.yaml:1:9: judge.prompt: template variable error: 'answer' is undefined; a "
            "judge prompt sees input, response, expected_behavior, rubric, context",
        ),
        (
            "test_cases:\n  - {id: a, query: q, judge: {treshold: 0.5}}\n",
            "suite.yaml:2:31: test_cases[0].judge.treshold: unknown key 'treshold'. Did you "
            "mean 'threshold'?",
        ),
        (
            "test_cases:\n  - {id: a, query: q, judge: true}\n",
            "suite.yaml:2:23: test_cases[0].judge: give the case's judge settings as a mapping",
        ),
        (
            "test_cases:\n  - {id: a, query: q, judge: {criteria: {c: 'Says {{ city }}'}}}\n",
            "suite.yaml:2:42: test_cases[0].judge.criteria.c: template variable error: 'city' "
            "is undefined",
        ),
        (
            "test_cases:\n  - {id: a, query: q, judge: {samples: 0}}\n",
            "suite.yaml:2:31: test_cases[0].judge.samples: Input should be greater than or "
            "equal to 1",
        ),
    ],
)
def test_judge_mistakes_are_located_load_errors(tmp_path: Path, text: str, expected: str) -> None:
    path = write(tmp_path / "suite.yaml", text)
    found = problems(path)
    assert len(found) == 1, found
    assert found[0].removeprefix(f"{tmp_path}/").startswith(expected), found[0]


def test_the_json_schema_knows_criteria_context_and_a_cases_judge() -> None:
    import jsonschema

    from promptum.suites import suite_json_schema

    validator = jsonschema.Draft202012Validator(suite_json_schema())
    good = {
        "judge": {"criteria": {"polite": "Is polite", "short": {"rubric": "x", "threshold": 0.8}}},
        "test_cases": [
            {"id": "a", "query": "q", "context": ["d"], "judge": {"samples": 3}},
            {"id": "b", "query": "q", "context": "d", "judge": False},
        ],
    }
    assert validator.is_valid(good)
    bad_key = {"judge": {"criteria": {"short": {"treshold": 0.8}}}}
    assert not validator.is_valid(bad_key)
    assert not validator.is_valid({"test_cases": [{"id": "a", "judge": True}]})


def test_a_suite_judge_mistake_is_reported_once_not_per_case(tmp_path: Path) -> None:
    path = write(
        tmp_path / "suite.yaml",
        "judge: {prompt: faithfullness}\ntest_cases:\n"
        "  - {id: a, query: q, context: c, judge: {threshold: 0.5}}\n"
        "  - {id: b, query: q, context: c, judge: {samples: 2}}\n",
    )
    found = problems(path)
    assert len(found) == 1, found
    assert "judge.prompt: unknown built-in judge prompt" in found[0]


def test_validate_checks_a_cases_own_judge_model(tmp_path: Path) -> None:
    path = write(
        tmp_path / "suite.yaml",
        "test_cases:\n  - {id: a, query: q, judge: {model: opnai/gpt-4o-mini}}\n",
    )
    with pytest.raises(ConfigError) as caught:
        load_suite(path, check_models=True)
    (found,) = str(caught.value).splitlines()[1:]
    assert "suite.yaml:2:31: test_cases[0].judge.model: unknown provider 'opnai'" in found


# --- The embedded model ------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.embedded_model
def test_the_embedded_judge_gives_a_parseable_verdict_for_every_criterion(tmp_path: Path) -> None:
    path = write(
        tmp_path / "suite.yaml",
        """\
        models: [local/smollm2]
        defaults: {params: {temperature: 0, max_tokens: 32}}
        judge:
          criteria:
            correct: "{{ fact }}"
            polite: Is courteous.
            concise: {rubric: At most two sentences., threshold: 0.8}
            grounded: {prompt: faithfulness}
        test_cases:
          - id: capital
            query: What is the capital of France?
            context: Paris is the capital of France.
            vars: {fact: Names Paris.}
          - id: refund
            query: "Policy: {{ context }} Can I get a refund after 40 days?"
            context: Refunds are accepted within 30 days of purchase.
            vars: {fact: Says no.}
        """,
    )
    session = Session(client_options=ClientOptions(cache=False))
    session.add_suite(path)
    run = session.run()
    judged = [(r.case_id, g) for r in run.results for g in r.grades]
    assert [(case_id, g.name) for case_id, g in judged] == [
        (case_id, name)
        for case_id in ("capital", "refund")
        for name in ("correct", "polite", "concise", "grounded")
    ]
    assert [(case_id, g.name, g.error) for case_id, g in judged if g.error] == []
    assert all(g.score is not None and 0 <= g.score <= 1 for _, g in judged)


@pytest.mark.slow
@pytest.mark.embedded_model
def test_the_judge_criteria_example_runs(tmp_path: Path) -> None:
    # tests/cli/test_examples.py lists its suites; this one is checked here.
    done = subprocess.run(
        [sys.executable, "-m", "promptum", "run", str(EXAMPLES / "judge_criteria.yaml"),
         "-o", "run.json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stdout + done.stderr
    run = load_run(tmp_path / "run.json")
    assert [r.case_id for r in run.results] == [
        "criteria-capital",
        "criteria-opposite",
        "rag-refund-policy",
    ]
    assert all(r.status != "error" for r in run.results), [r.reasons for r in run.results]
    names = {r.case_id: [g.name for g in r.grades] for r in run.results}
    assert names["criteria-capital"] == ["correct", "polite", "concise"]
    assert names["rag-refund-policy"] == ["correct", "faithful"]
    assert all(g.details["samples"] == 3 for g in run.results[2].grades)
    assert done.returncode == (0 if run.passed else 1)
