"""How a run reads its cases: a few at a time, the fingerprint unchanged across versions, and
`override` copying only the cases it changes."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import overload

from promptum import Session
from promptum.cases import (
    ConversationGrading,
    Criterion,
    GenerationParams,
    Grading,
    JudgeConfig,
    TestCase,
    Turn,
    role_table,
)
from promptum.cases._hashed import check_data
from promptum.checks import CheckDefinition
from promptum.providers import ModelRequest
from promptum.runner import Runner, plan_fingerprint
from promptum.runner._journal import PlanDigest
from promptum.runner._plan import Survey
from promptum.runner._runner import BUILD_AHEAD
from promptum.validation import Contains
from promptum.values.completion import Completion
from promptum.values.run_result import Message, RunResult

SHARED = (
    CheckDefinition(type="contains", value="Paris"),
    CheckDefinition(type="max_length", value=200),
)
SHARED_GRADING = Grading(checks=SHARED)


def _case(index: int) -> TestCase:
    message = (Message(role="user", content=f"q{index}"),)
    return TestCase(
        id=f"c{index}", messages=message, models=("m1",), suite="s", grading=SHARED_GRADING
    )


def test_the_fingerprint_is_the_one_earlier_versions_gave_the_same_cases() -> None:
    # A resume finds the journal of a run interrupted before an upgrade by this hash.
    own = TestCase(
        id="own",
        messages=(Message(role="system", content="terse"), Message(role="user", content="q")),
        models=("m1", "m2"),
        params=GenerationParams(temperature=0.2, max_tokens=50, seed=7, extra={"top_p": 0.9}),
        repeat=2,
        variant="v2",
        grading=Grading(
            checks=(CheckDefinition(type="regex", value=r"\bParis\b", case_insensitive=True),),
            judge=JudgeConfig(model="m3", threshold=0.8),
            expected_behavior="names Paris",
        ),
    )
    assert plan_fingerprint([*(_case(i) for i in range(3)), own]) == "192433ca641eb91e"


def test_a_structured_case_keeps_the_fingerprint_earlier_versions_gave() -> None:
    structured = TestCase(
        id="field",
        messages=(Message(role="user", content="é q"),),
        models=("m1",),
        response_schema={"type": "object", "properties": {"city": {"type": "string"}}},
        context=("doc one",),
        grading=Grading(
            checks=(*SHARED, CheckDefinition(type="max_length", value=80)),
            expected={"city": ["Berlin", "Munich"]},
            attack_target={"city": "Paris"},
        ),
    )
    assert plan_fingerprint([structured, _case(1)]) == "01d69d4992697681"


RICH_JUDGE = JudgeConfig(
    model="m3",
    threshold=0.8,
    samples=2,
    criteria=(Criterion("concise", "Is short.", 0.6, metric="brevity"),),
)


def test_a_case_graded_every_way_keeps_the_fingerprint_it_had_before_grading_was_grouped() -> None:
    # Known answers from 547471b, whose TestCase held each grading field itself: grouping
    # them as `case.grading` must leave every journal of an interrupted run resumable.
    single = TestCase(
        id="rich",
        messages=(Message(role="user", content="Where is Paris?"),),
        models=("m1",),
        params=GenerationParams(temperature=0.2, seed=7),
        response_schema={"type": "object", "properties": {"city": {"type": "string"}}},
        vars={"limit": 100},
        suite="s",
        grading=Grading(
            checks=(
                CheckDefinition(type="expr", value="output | length < vars.limit"),
                CheckDefinition(type="contains", value="Paris", metric="acc", weight=2),
            ),
            validator=Contains("Paris"),
            expected={"city": ["Paris"]},
            attack_target={"city": "Lyon"},
            expected_behavior="names Paris",
            judge=RICH_JUDGE,
            threshold=0.5,
            transform="output | trim",
        ),
    )
    conversation = TestCase(
        id="talk",
        messages=(Message(role="system", content="Be kind."),),
        models=("m1",),
        turns=(
            Turn(
                query="hi",
                checks=(CheckDefinition(type="contains", value="hello"),),
                criteria=(Criterion("polite", "Polite."),),
            ),
            Turn(query="bye"),
        ),
        suite="s",
        grading=Grading(
            checks=(CheckDefinition(type="max_length", value=300),),
            expected_behavior="stays kind",
            judge=RICH_JUDGE,
            conversation=ConversationGrading(
                checks=(CheckDefinition(type="max_length", value=999),),
                criteria=(Criterion("coherent", "Coherent."),),
            ),
        ),
    )
    assert plan_fingerprint([single]) == "803aecc16db1f141"
    assert plan_fingerprint([conversation]) == "60c95a69db4df710"
    assert plan_fingerprint([single, conversation]) == "40217d1d1e05a705"
    # Whether the run turned the judge off is not hashed: the judge's own hash tells.
    off = replace(single, grading=replace(single.grading, judge=None, judge_off=True))
    assert plan_fingerprint([off]) == plan_fingerprint(
        [replace(off, grading=replace(off.grading, judge_off=False))]
    )


def test_offered_tools_change_the_fingerprint_only_when_given() -> None:
    plain = _case(0)
    offered = replace(plain, tools=({"type": "function", "function": {"name": "lookup"}},))
    chosen = replace(offered, tool_choice="required")
    prints = {plan_fingerprint([case]) for case in (plain, offered, chosen)}
    assert len(prints) == 3  # a resume never reuses results graded with other tools


def test_the_digest_writes_the_json_of_the_whole_case_with_sorted_keys() -> None:
    # The digest writes the checks apart (each once) and the fields around them as objects:
    # together, the JSON of the whole case as its fields' roles hash it.
    grading = replace(_case(0).grading, attack_target={"city": "Paris"}, threshold=0.5)
    case = replace(_case(0), grading=grading)
    data = {
        item.key: [check_data(check) for check in case.grading.checks]
        if item.hashed.each is not None
        else (item.hashed.encode or (lambda value: value))(item.get(case))
        for item in role_table(TestCase).hashed
        if item.key
        not in ("vars", "turns", "simulate", "conversation", "transform", "tools", "tool_choice")
    }
    digest = PlanDigest()
    digest.add(case)
    expected = hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode())
    assert digest.hexdigest() == expected.hexdigest()[:16]


def test_a_changed_shared_check_changes_the_fingerprint() -> None:
    other = (CheckDefinition(type="contains", value="Lyon"), SHARED[1])
    changed = [_case(0), replace(_case(1), grading=Grading(checks=other))]
    assert plan_fingerprint(changed) != plan_fingerprint([_case(0), _case(1)])


class _Built(Sequence[TestCase]):
    """Cases built as they are read, counting how many were built."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.built = 0

    def __len__(self) -> int:
        return self.count

    @overload
    def __getitem__(self, index: int) -> TestCase: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[TestCase]: ...

    def __getitem__(self, index: int | slice) -> TestCase | Sequence[TestCase]:
        raise NotImplementedError("the runner reads cases in order")

    def __iter__(self) -> Iterator[TestCase]:
        for index in range(self.count):
            self.built += 1
            yield _case(index)


class _Client:
    """Answers every call, noting how far ahead of the calls the cases were built."""

    def __init__(self, cases: _Built) -> None:
        self.cases = cases
        self.calls = 0
        self.ahead: list[int] = []

    def max_concurrency(self, model: str) -> int:
        return 1

    async def complete(self, request: ModelRequest) -> Completion:
        self.calls += 1
        self.ahead.append(self.cases.built - self.calls)
        return Completion(text="Paris", model=request.model)


def test_a_run_builds_its_cases_a_few_at_a_time_ahead_of_the_calls() -> None:
    cases = _Built(100)
    client = _Client(cases)
    survey = Survey.of(cases)  # the pass before the first call
    cases.built = 0

    runner = Runner(client, concurrency=1)
    result = asyncio.run(runner.run(cases, RunResult(run_id="r"), survey=survey))

    assert result.result_count == 100
    assert [r.case_id for r in result.results] == [f"c{i}" for i in range(100)]
    assert max(client.ahead) < BUILD_AHEAD  # memory stays flat: never the whole plan
    assert min(client.ahead) == 0  # the last case, with nothing left to build


def test_override_copies_only_the_cases_it_changes() -> None:
    plain = _case(0)
    judged = replace(_case(1), grading=replace(SHARED_GRADING, judge=JudgeConfig(model="m3")))
    session = Session(tests=[plain, judged])
    session.override(judge=None)

    first, second = session.tests
    assert first is plain
    assert second.grading.judge is None
    assert second.id == "c1"
