"""A case's grading is one `Grading` value whose fields declare their roles as the case's do:
the fingerprint hashes each as the case's own key, a conversation's turn and its whole-
conversation grades are made from the roles, and a data file's rows share one `Grading`."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import pytest

from promptum.cases import ConversationGrading, Criterion, Grading, JudgeConfig, TestCase, Turn
from promptum.cases import role_table as roles_of
from promptum.cases._roles import HASHED_WHEN_SET, Hashed, Role, declared_roles, nested, roles
from promptum.checks import CheckDefinition
from promptum.runner import plan_fingerprint
from promptum.runner._conversation import _turn_case
from promptum.suites import load_suite
from promptum.values.run_result import Message
from tests.support.cli import write

CHECKS = (CheckDefinition(type="contains", value="Paris"),)


@declared_roles
@dataclass(frozen=True, slots=True)
class KeyedGrading(Grading):
    """A grading with one key more, declared as a new grading key would be."""

    min_score: float | None = field(default=None, metadata=roles(hashed=HASHED_WHEN_SET))
    tone: str | None = field(default=None, metadata=roles(Role.TURN_RESET, hashed=None))


@declared_roles
@dataclass(frozen=True, slots=True)
class KeyedCase(TestCase):
    """A case holding that grading."""

    grading: KeyedGrading = field(
        default=KeyedGrading(), metadata=roles(hashed=nested(KeyedGrading))
    )


def _case(index: int, **grading: Any) -> KeyedCase:
    message = (Message(role="user", content=f"q{index}"),)
    graded = KeyedGrading(checks=CHECKS, **grading)
    return KeyedCase(id=f"c{index}", messages=message, models=("m1",), grading=graded)


def _plain(case: KeyedCase) -> TestCase:
    own = {f.name: getattr(case, f.name) for f in fields(TestCase)}
    own["grading"] = Grading(**{f.name: getattr(case.grading, f.name) for f in fields(Grading)})
    return TestCase(**own)


def test_each_grading_field_is_hashed_as_the_cases_own_key() -> None:
    hashed = {item.key: item for item in roles_of(TestCase).hashed}
    for name in ("checks", "validator", "expected", "judge", "threshold", "conversation"):
        assert hashed[name].holder == "grading"
        assert hashed[name].name == f"grading.{name}"
    assert "grading" not in hashed  # the group has no key of its own
    assert "judge_off" not in hashed


def test_a_case_without_the_new_grading_key_keeps_its_fingerprint() -> None:
    cases = [_case(0), _case(1, threshold=0.5)]
    assert plan_fingerprint(cases) == plan_fingerprint([_plain(case) for case in cases])


def test_the_fingerprint_hashes_the_new_grading_key_once_set() -> None:
    assert plan_fingerprint([_case(0, min_score=0.5)]) != plan_fingerprint([_case(0)])
    assert plan_fingerprint([_case(0, min_score=0.5)]) != plan_fingerprint(
        [_case(0, min_score=0.6)]
    )


def test_rows_differing_only_by_a_grading_key_are_not_hashed_as_one_frame() -> None:
    # The digest writes a row sharing the last one's settings from its text: a grading that
    # is another object, however alike, is written again.
    first = _case(0, min_score=0.1)
    same = replace(_case(1), grading=first.grading)
    other = replace(same, grading=replace(first.grading, min_score=0.2))
    assert plan_fingerprint([first, same]) != plan_fingerprint([first, other])


def test_a_turns_grading_resets_a_grading_key_declared_reset_per_turn() -> None:
    judge = JudgeConfig("m3", criteria=(Criterion("kind", "Kind."),))
    turn = Turn(
        query="next",
        checks=(CheckDefinition(type="max_length", value=9),),
        expected={"a": 1},
        criteria=(Criterion("short", "Short."),),
    )
    case = replace(
        _case(0, tone="terse", min_score=0.3, judge=judge, expected_behavior="helps"),
        turns=(turn,),
    )
    graded = _turn_case(case, turn, case.messages)
    assert isinstance(graded.grading, KeyedGrading)
    assert (graded.grading.tone, graded.grading.min_score) == (None, 0.3)
    assert graded.grading.checks == CHECKS + turn.checks
    assert graded.grading.expected == {"a": 1}
    assert graded.grading.expected_behavior is None  # the whole conversation's criterion
    assert graded.grading.judge == replace(judge, criteria=turn.criteria)
    assert graded.turns == ()


def test_the_conversations_own_grades_keep_only_what_grades_the_whole() -> None:
    judge = JudgeConfig("m3", criteria=(Criterion("kind", "Kind."),))
    whole = ConversationGrading(
        checks=(CheckDefinition(type="min_length", value=1),),
        criteria=(Criterion("coherent", "Coherent."),),
    )
    grading = Grading(
        checks=CHECKS,
        expected={"a": 1},
        expected_behavior="helps",
        judge=judge,
        threshold=0.4,
        transform="output | trim",
        conversation=whole,
    )
    replies = grading.for_replies()
    assert (replies.checks, replies.judge, replies.expected_behavior) == (whole.checks, None, None)
    assert (replies.transform, replies.conversation, replies.threshold) == (None, None, 0.4)
    transcript = grading.for_transcript()
    assert (transcript.checks, transcript.expected, transcript.transform) == ((), None, None)
    assert transcript.expected_behavior == "helps"
    assert transcript.judge == replace(judge, criteria=judge.criteria + whole.criteria)


def test_a_grading_field_without_roles_is_refused_when_its_class_is_made() -> None:
    with pytest.raises(TypeError, match=r"Undeclared\.min_score declares no roles.*hashed="):

        @declared_roles
        @dataclass(frozen=True, slots=True)
        class Undeclared(Grading):
            min_score: float | None = None


def test_a_grading_field_cannot_be_a_rows_own() -> None:
    @declared_roles
    @dataclass(frozen=True, slots=True)
    class RowGrading(Grading):
        row_value: str = field(default="", metadata=roles(Role.PER_ROW, hashed=Hashed()))

    with pytest.raises(TypeError, match=r"a row's own fields are the case's"):

        @declared_roles
        @dataclass(frozen=True, slots=True)
        class RowCase(TestCase):
            grading: RowGrading = field(
                default=RowGrading(), metadata=roles(hashed=nested(RowGrading))
            )


def test_a_group_of_fields_is_hashed_by_its_fields_alone() -> None:
    with pytest.raises(TypeError, match=r"`nested\(cls\)` alone"):
        roles(hashed=Hashed(key="g", nested=Grading))


def test_the_rows_copied_from_a_prototype_share_its_grading(tmp_path: Path) -> None:
    write(tmp_path / "rows.csv", "id,question\n" + "".join(f"r{i},q{i}\n" for i in range(6)))
    suite = write(
        tmp_path / "suite.yaml",
        """\
        models: [m1]
        prompt: "Answer: {{ question }}"
        defaults:
          checks: [{type: max_length, value: 200}]
        cases_from: rows.csv
        """,
    )
    cases = list(load_suite(suite).cases)
    assert [case.id for case in cases] == [f"r{i}" for i in range(6)]
    # The first row is the prototype; the second, built in full, vouches for its copies.
    assert all(case.grading is cases[0].grading for case in cases[2:])
