"""A conversation with no turn is refused where it is written, not run as an empty request."""

from __future__ import annotations

from pathlib import Path

from tests.suites.suite_problems import located_problem


def test_an_empty_turns_list_is_a_located_error(tmp_path: Path) -> None:
    problem = located_problem(
        tmp_path,
        """\
        models: [local/smollm2]
        test_cases:
          - id: empty
            turns: []
        """,
    )
    assert problem.startswith("4:5: test_cases[0].turns: ")
    assert "at least 1 item" in problem
