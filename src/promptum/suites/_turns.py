"""A case's conversation (`turns:`, `simulate:`, `conversation:`), built and checked at load.

Every problem is located like any other of the case: a turn reading a reply that does not
exist yet, a conversation given a `query` too, case-level grades with no reply to grade.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from promptum.cases import ConversationGrading, Criterion, JudgeConfig, Simulation, Turn
from promptum.checks import CheckDefinition
from promptum.suites._assertion_fields import assertion_problems, assertion_schema
from promptum.suites._canary import VARIABLE as CANARY
from promptum.suites._format import CaseFields, CriterionSpec, QuerySpec, TurnSpec
from promptum.suites._locate import Loc
from promptum.templating import TemplateError, is_template, names_read, render, subscripts_read
from promptum.values.content import ContentPart

TURNS = "turns"
"""The variable a turn's query reads earlier turns from: ``turns[0].reply``."""

CONVERSATION_KEYS = ("turns", "simulate", "conversation")
"""The case keys that make (or grade) a conversation."""


def is_conversation(case: CaseFields) -> bool:
    """Whether the written case is a conversation (scripted or simulated)."""
    return case.turns is not None or case.simulate is not None


@dataclass(frozen=True, slots=True)
class BuildHooks:
    """What building a case gives its conversation: how to render, fill in and complain."""

    add: Callable[[Loc, str], None]
    """Reports a problem at a path within the case."""
    render: Callable[[str, Loc], str]
    """Renders a template with the case's vars (and canary), reporting what fails."""
    scope: Callable[[str], Mapping[str, Any]]
    """The variables a template of the case renders with."""
    check: Callable[[CheckDefinition, Loc], CheckDefinition]
    """A check with templates in its value filled in."""
    value: Callable[[Any, Loc], Any]
    """A value (an assertion's) with the templates within it filled in."""
    criteria_problems: Callable[[tuple[Criterion, ...]], list[tuple[Loc, str]]]
    """What is wrong with criteria under the case's judge, each at ``criteria.<name>``."""
    line: Callable[[Loc], str] = lambda loc: ""
    """Where a path within the case is written, as ``file:line``."""
    literal: bool = False
    """Texts are sent as written (the Python API's `Prompt`)."""
    needs_schema: bool = False
    """Field assertions need a `response_model` (no target answers with a dict)."""
    parts: Callable[[QuerySpec, Loc], tuple[ContentPart, ...]] = lambda query, loc: ()
    """The files a `query:` mapping attaches, each problem located under `loc`."""


@dataclass(frozen=True, slots=True)
class Conversation:
    """A case's conversation parts, as the TestCase holds them."""

    turns: tuple[Turn, ...] = ()
    simulate: Simulation | None = None
    grading: ConversationGrading | None = None

    @property
    def graded(self) -> bool:
        """Whether anything grades it besides the case's own grades."""
        by_turn = any(t.checks or t.expected or t.attack_target or t.criteria for t in self.turns)
        grading = self.grading
        return by_turn or (grading is not None and bool(grading.checks or grading.criteria))


NO_CONVERSATION = Conversation()
"""The conversation parts of a case that is not a conversation: none."""


def structure_problems(case: CaseFields, variant: str) -> Iterator[tuple[Loc, str]]:
    """What a conversation case may not be given besides its turns, each where it is written."""
    if not is_conversation(case):
        if case.conversation is not None:
            yield (
                ("conversation",),
                "`conversation:` grades a conversation, and this case is one request: give it "
                "`turns:` (or `simulate:`), or move these checks to the case's `checks`",
            )
        return
    yield from _request_problems(case, variant)
    yield from _grading_problems(case)


def _request_problems(case: CaseFields, variant: str) -> Iterator[tuple[Loc, str]]:
    """What a conversation case may not be sent by besides its turns or simulated user."""
    key = "turns" if case.turns is not None else "simulate"
    if case.turns is not None and case.simulate is not None:
        yield (
            ("simulate",),
            "give either `turns` (the user's messages, written out) or `simulate` (a model "
            "plays the user), not both",
        )
    for other in ("query", "messages"):
        if getattr(case, other) is not None:
            yield (
                (other,),
                f"a conversation's user messages are its `{key}`: remove `{other}` (a "
                "`system:` message may open the conversation)",
            )
    if variant:
        yield (
            (key,),
            "a conversation cannot run on the suite's `prompts:` variants (a variant writes "
            "the one request a case sends): give the conversation its own suite",
        )


def _grading_problems(case: CaseFields) -> Iterator[tuple[Loc, str]]:
    """What a conversation case grades at its top level, where a turn's or the whole's goes."""
    where = "a turn or in `conversation:`" if case.turns is not None else "`conversation:`"
    if case.checks:
        yield (
            ("checks",),
            f"a conversation has a reply per turn: put these checks in {where} (which sees "
            "every reply)",
        )
    for name in ("expected", "attack_target"):
        if getattr(case, name) is not None:
            fix = (
                f"put `{name}` in the turn whose reply it asserts on"
                if case.turns is not None
                else "a simulated conversation has no turn written out to hold it: use a "
                "`conversation:` check (json_path, tool_args...) instead"
            )
            yield ((name,), f"a conversation has a reply per turn: {fix}")


def conversation_of(
    case: CaseFields,
    judge: JudgeConfig | None,
    schema: tuple[dict[str, Any], type[BaseModel] | None] | None,
    hooks: BuildHooks,
) -> Conversation:
    """The case's turns, simulated user and conversation grades; problems go to `hooks.add`."""
    if not is_conversation(case) and case.conversation is None:
        return NO_CONVERSATION
    turns = tuple(
        _turn(spec, index, judge, schema, hooks) for index, spec in enumerate(case.turns or ())
    )
    simulate = None
    if case.simulate is not None:
        spec = case.simulate
        at: Loc = ("simulate",)
        simulate = Simulation(
            model=spec.model,
            goal=hooks.render(spec.goal, (*at, "goal")),
            max_turns=spec.max_turns,
            persona=hooks.render(spec.persona, (*at, "persona")),
            stop=tuple(hooks.check(c, (*at, "stop", i)) for i, c in enumerate(spec.stop)),
            opening=None if spec.opening is None else hooks.render(spec.opening, (*at, "opening")),
            seed=spec.seed,
            temperature=spec.temperature,
        )
    grading = None
    if case.conversation is not None:
        at = ("conversation",)
        written = case.conversation
        grading = ConversationGrading(
            checks=tuple(hooks.check(c, (*at, "checks", i)) for i, c in enumerate(written.checks)),
            criteria=_criteria(written.criteria, at, judge, hooks),
        )
    return Conversation(turns, simulate, grading)


def _criteria(
    written: Mapping[str, CriterionSpec] | None,
    at: Loc,
    judge: JudgeConfig | None,
    hooks: BuildHooks,
) -> tuple[Criterion, ...]:
    """Judge criteria of a turn or of `conversation:`, their rubrics rendered with the vars."""
    if not written:
        return ()
    if judge is None:
        hooks.add(
            (*at, "criteria"),
            "judge criteria need a judge model, and this case has none: give the suite or the "
            "case `judge: {model: local/smollm2}` (or another model; `judge=` in Python), or "
            "remove `criteria`",
        )
        return ()
    criteria = tuple(
        Criterion(
            name,
            hooks.render(spec.rubric or "", (*at, "criteria", name)),
            spec.threshold,
            spec.prompt,
            spec.metric,
        )
        for name, spec in written.items()
    )
    for loc, message in hooks.criteria_problems(criteria):
        hooks.add((*at, *loc), message)
    return criteria


def _turn(
    spec: TurnSpec,
    index: int,
    judge: JudgeConfig | None,
    schema: tuple[dict[str, Any], type[BaseModel] | None] | None,
    hooks: BuildHooks,
) -> Turn:
    at: Loc = ("turns", index)
    text, text_at = spec.query, (*at, "query")
    parts: tuple[ContentPart, ...] = ()
    if isinstance(text, QuerySpec):
        parts = hooks.parts(text, text_at)
        text, text_at = text.text, (*text_at, "text")
    # Reading earlier turns makes a query a template even where texts are sent as written
    # (a `Prompt`): there is no other way to say "what you answered".
    query, reads = text, reads_turns(text)
    if reads:
        _check_turn_template(text, index, text_at, hooks)
    else:
        query = hooks.render(text, text_at)
    expected = hooks.value(spec.expected, (*at, "expected"))
    attack_target = hooks.value(spec.attack_target, (*at, "attack_target"))
    if expected or attack_target:
        _check_turn_assertions(at, expected, attack_target, schema, hooks)
    return Turn(
        query=query,
        reads_turns=reads,
        checks=tuple(hooks.check(c, (*at, "checks", i)) for i, c in enumerate(spec.checks)),
        expected=expected,
        attack_target=attack_target,
        criteria=_criteria(spec.criteria, at, judge, hooks),
        source=None if hooks.literal else hooks.line(at),
        parts=parts,
    )


def _check_turn_assertions(
    at: Loc,
    expected: dict[str, Any] | None,
    attack_target: dict[str, Any] | None,
    schema: tuple[dict[str, Any], type[BaseModel] | None] | None,
    hooks: BuildHooks,
) -> None:
    """Add where a turn's field assertions cannot hold: no structured output, or no such field."""
    if schema is None:
        if hooks.needs_schema:
            loc = (*at, "expected" if expected else "attack_target")
            hooks.add(
                loc, "field assertions need structured output: add `response_model` to the case"
            )
        return
    for loc, message in assertion_problems(assertion_schema(*schema), expected, attack_target):
        hooks.add((*at, *loc), message)


def reads_turns(text: str) -> bool:
    """Whether a template reads ``turns`` (earlier turns): then it renders when its turn comes."""
    if not is_template(text) or TURNS not in text:
        return False
    return TURNS in names_read(text)


def _later_turns_read(text: str, index: int) -> list[str]:
    """Each ``turns[k]`` the template of turn `index` (from 0) reads that is not earlier."""
    return [
        f"turns[{position}]" + (f".{attribute}" if attribute else "")
        for position, attribute in subscripts_read(text, TURNS)
        if position >= index or -position > index
    ]


def _stand_ins(count: int) -> list[dict[str, str]]:
    """Earlier turns as a template sees them, for checking it before any reply exists."""
    return [
        {"query": f"(the user's message of turn {n})", "reply": f"(the reply to turn {n})"}
        for n in range(1, count + 1)
    ]


def _check_turn_template(text: str, index: int, loc: Loc, hooks: BuildHooks) -> None:
    """Render a turn reading earlier turns with stand-ins, so its mistakes show at load."""
    for read in _later_turns_read(text, index):
        seen = {0: "it is the first", 1: "only turns[0]"}.get(index, f"turns[0] to [{index - 1}]")
        hooks.add(
            loc,
            f"turn {index + 1} reads {read}, which does not exist yet: a turn sees only "
            f"earlier turns ({seen}; turns[0] is the first turn)",
        )
        return
    if CANARY in names_read(text):
        hooks.add(
            loc,
            "a turn that reads earlier turns is rendered when its turn comes, where the "
            "canary is not given: put {{ canary }} in the system message instead",
        )
        return
    variables = {**hooks.scope(text), TURNS: _stand_ins(index)}
    try:
        render(text, variables)
    except TemplateError as exc:
        hint = ""
        if "has no attribute" in str(exc):
            hint = " (an earlier turn has `query` and `reply`: {{ turns[0].reply }})"
        hooks.add(loc, f"{exc}{hint}")


ROW_PROBLEM = (
    "a conversation (`{key}`) cannot be written in a CSV or JSONL row: write it in the "
    "suite's `test_cases` or a YAML case file (`cases_from: cases/*.yaml`)"
)


def row_problems(data: Mapping[str, Any]) -> list[tuple[Loc, str]]:
    """The conversation keys of a data row (a CSV column lands in its vars), refused."""
    found: list[tuple[Loc, str]] = []
    written = data.get("vars")
    columns = written if isinstance(written, Mapping) else {}
    for key in CONVERSATION_KEYS:
        if key in data:
            found.append(((key,), ROW_PROBLEM.format(key=key)))
    if TURNS in columns:  # a CSV column: other names may be ordinary variables
        found.append(((), ROW_PROBLEM.format(key=TURNS) + " (the row's column `turns`)"))
    return found
