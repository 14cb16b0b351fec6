"""A case key declares its roles once, on its field: the resume fingerprint, the cache key, the
row copying and a conversation's per-turn case follow, and a field declaring none is refused."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Annotated, Any

import pytest

from promptum.cases import CopiedRow, Grading, Prototype, TestCase, Turn
from promptum.cases._roles import HASHED_WHEN_SET, Role, declared_roles, roles
from promptum.checks import CheckDefinition
from promptum.providers import ModelRequest
from promptum.providers._cache import cache_key
from promptum.providers._key_text import plain_key_text
from promptum.providers._keyed import Keyed
from promptum.runner import plan_fingerprint
from promptum.runner._conversation import _turn_case
from promptum.runner._journal import PlanDigest
from promptum.suites._data_files import RawCase
from promptum.suites._locate import Locator, Position
from promptum.suites._row_build import RowCopier
from promptum.suites._suite_context import SuiteContext
from promptum.values.run_result import Message

CHECKS = (CheckDefinition(type="contains", value="Paris"),)


@declared_roles
@dataclass(frozen=True, slots=True)
class KeyedCase(TestCase):
    """A case with one key more, declared as a new key would be."""

    top_k: int | None = field(default=None, metadata=roles(hashed=HASHED_WHEN_SET))
    persona: str | None = field(default=None, metadata=roles(Role.TURN_RESET, hashed=None))


def _case(index: int, **changes: Any) -> KeyedCase:
    message = (Message(role="user", content=f"q{index}"),)
    case = KeyedCase(
        id=f"c{index}", messages=message, models=("m1",), suite="s", grading=Grading(checks=CHECKS)
    )
    return replace(case, **changes)


def _plain(case: KeyedCase) -> TestCase:
    return TestCase(**{f.name: getattr(case, f.name) for f in fields(TestCase)})


def test_a_case_without_the_new_key_keeps_its_fingerprint() -> None:
    cases = [_case(0), _case(1)]
    assert plan_fingerprint(cases) == plan_fingerprint([_plain(case) for case in cases])


def test_the_fingerprint_hashes_the_new_key_once_set() -> None:
    assert plan_fingerprint([_case(0, top_k=5)]) != plan_fingerprint([_case(0)])
    assert plan_fingerprint([_case(0, top_k=5)]) != plan_fingerprint([_case(0, top_k=6)])


def test_rows_differing_only_by_the_new_key_are_not_hashed_as_one_frame() -> None:
    # The rows of a data file share every field but their own: the digest writes the second
    # row from the first's text. A key it did not know of would be hashed as the first's.
    first = _case(0, top_k=1)
    same = replace(_case(1), grading=first.grading, models=first.models, top_k=1)
    other = replace(same, top_k=2)
    assert plan_fingerprint([first, same]) != plan_fingerprint([first, other])


def test_a_copied_row_keeps_its_prototypes_new_key_and_is_hashed_as_its_case() -> None:
    row = CopiedRow(
        Prototype(_case(0, top_k=5)), "r1", [("user", "q r1")], {}, lambda: "rows.csv:3"
    )
    case = row.case()
    assert isinstance(case, KeyedCase)
    assert (case.top_k, case.id, case.source) == (5, "r1", "rows.csv:3")
    copied, made = PlanDigest(), PlanDigest()
    copied.add(_case(0, top_k=5))
    copied.add_copy(row)
    made.add(_case(0, top_k=5))
    made.add(case)
    assert copied.hexdigest() == made.hexdigest()


def _raw(folder: Path, case_id: str, line: int) -> RawCase:
    locator = Locator(folder / "rows.csv", {(): Position(line)})
    return RawCase({"id": case_id, "vars": {"name": case_id}}, locator, None)


def test_rows_copied_from_a_prototype_keep_its_new_key(tmp_path: Path) -> None:
    context = SuiteContext(folder=tmp_path, prompt="Hello {{ name }}", suite="s")
    prototype = RowCopier(context, [context])

    def built(case_id: str, line: int) -> KeyedCase:
        message = (Message(role="user", content=f"Hello {case_id}"),)
        return KeyedCase(
            id=case_id,
            messages=message,
            source=f"{tmp_path / 'rows.csv'}:{line}",
            vars={"name": case_id},
            suite="s",
            top_k=7,
        )

    prototype.built(_raw(tmp_path, "a", 2), built("a", 2))
    prototype.built(_raw(tmp_path, "b", 3), built("b", 3))  # vouches for the copy
    copied = prototype.build(_raw(tmp_path, "c", 4))
    assert copied == built("c", 4)


def test_a_turns_case_resets_a_key_declared_reset_per_turn() -> None:
    case = _case(0, persona="terse", top_k=3, turns=(Turn(query="next"),))
    turn = _turn_case(case, case.turns[0], case.messages)
    assert isinstance(turn, KeyedCase)
    assert (turn.persona, turn.top_k, turn.turns) == (None, 3, ())


def test_a_case_field_without_roles_is_refused_when_its_class_is_made() -> None:
    with pytest.raises(TypeError, match=r"Undeclared\.top_p declares no roles.*hashed="):

        @declared_roles
        @dataclass(frozen=True, slots=True)
        class Undeclared(TestCase):
            top_p: float | None = None


class KeyedRequest(ModelRequest):
    """A request with one parameter more, keyed only when set (as a new one would be)."""

    top_k: Annotated[int | None, Keyed.WHEN_SET] = None


def _request(**changes: Any) -> ModelRequest:
    return ModelRequest(model="m/x", messages=(Message(role="user", content="q"),), **changes)


def test_the_cache_key_of_a_request_without_the_new_parameter_is_unchanged() -> None:
    keyed = KeyedRequest(**_request().model_dump())
    assert cache_key(keyed, "e") == cache_key(_request(), "e")
    # Written directly still: the text leaves out what is keyed only when set.
    assert plain_key_text(keyed, "e", "v") == plain_key_text(_request(), "e", "v")
    assert plain_key_text(KeyedRequest(**_request().model_dump(), top_k=3), "e", "v") is None


def test_the_cache_key_holds_the_new_parameter_once_set() -> None:
    keys = {cache_key(KeyedRequest(**_request().model_dump(), top_k=k), "e") for k in (3, 4)}
    assert len(keys) == 2
    assert cache_key(_request(), "e") not in keys


def test_a_request_field_never_keyed_leaves_the_key_and_its_direct_text_alone() -> None:
    class Traced(ModelRequest):
        trace_id: Annotated[str | None, Keyed.NEVER] = None

    traced = Traced(**_request().model_dump(), trace_id="t1")
    assert plain_key_text(traced, "e", "v") == plain_key_text(_request(), "e", "v")


def test_a_request_field_without_keyed_is_refused_when_its_class_is_made() -> None:
    with pytest.raises(TypeError, match=r"Unkeyed\.top_p does not say.*Keyed\.ALWAYS"):

        class Unkeyed(ModelRequest):
            top_p: float | None = None
