"""A run in which every result is an error graded nothing: no --fail-under lets it pass."""

from __future__ import annotations

import pytest

from promptum import Prompt, Session
from promptum.gate import decide


def down(query: str) -> str:
    """An application whose backend is down: every call fails."""
    raise ConnectionError("the backend is down")


def up(query: str) -> str:
    """An application that answers."""
    return "Paris"


@pytest.mark.parametrize("fail_under", [None, 0.0, 0.5])
def test_a_run_of_errors_only_never_passes(fail_under: float | None) -> None:
    session = Session(target=down)
    session.add_test(
        Prompt(
            name="a", prompt="Capital of France?", checks=[{"type": "contains", "value": "Paris"}]
        )
    )
    run = session.run()
    assert [result.status for result in run.results] == ["error"]
    decision = decide(run, fail_under)
    assert not decision.passed
    assert decision.reason == "all 1 results are errors: none passed or failed"


def test_one_graded_result_is_enough_for_the_pass_rate_to_decide() -> None:
    session = Session()
    for name, target in (("a", down), ("b", up)):
        session.add_test(
            Prompt(
                name=name,
                prompt="Capital of France?",
                target=target,
                checks=[{"type": "contains", "value": "Paris"}],
            )
        )
    run = session.run()
    assert sorted(result.status for result in run.results) == ["error", "pass"]
    assert decide(run, 0.5).passed
