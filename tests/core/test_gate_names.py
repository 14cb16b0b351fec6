"""How the gate names broken must-pass cases: each case once, however often it repeated."""

from __future__ import annotations

from promptum import Prompt, Session
from promptum.gate import decide


def answer(query: str) -> str:
    """An application under test that never says the number it is asked for."""
    return "I cannot say"


def _session(broken: int, repeat: int) -> Session:
    session = Session(target=answer, concurrency=2)
    for n in range(broken):
        session.add_test(
            Prompt(
                name=f"guard-{n}",
                prompt=f"Say the number {n}",
                checks=[{"type": "contains", "value": str(n)}],
                must_pass=True,
                repeat=repeat,
            )
        )
    return session


def test_a_repeated_must_pass_case_is_named_once_with_its_count() -> None:
    decision = decide(_session(broken=1, repeat=3).run())
    assert decision.line == "gate: FAIL — must-pass case guard-0 (failed ×3)"


def test_cases_past_the_named_ones_are_counted_as_results() -> None:
    decision = decide(_session(broken=4, repeat=2).run())
    assert decision.reason == (
        "must-pass cases guard-0 (failed ×2), guard-1 (failed ×2), guard-2 (failed ×2)"
        " and 2 more results"
    )


def test_one_broken_result_is_one_case() -> None:
    assert decide(_session(broken=1, repeat=1).run()).reason == "must-pass case guard-0 (failed)"
