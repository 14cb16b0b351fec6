"""A failed `assert_prompt` points at the user's test line, not at promptum's own frames."""

from __future__ import annotations

import pytest

USER_TEST = """\
from promptum.pytest_plugin import assert_prompt


def test_answer():
    answer = "The capital of France is Lyon."
    assert_prompt(answer, contains="Paris")


def test_answer_through_the_fixture(promptum):
    answer = "The capital of France is Lyon."
    promptum.assert_prompt(answer, contains="Paris")
"""


@pytest.mark.parametrize("style", ["long", "short", "auto"])
def test_the_failure_location_is_the_users_line(pytester: pytest.Pytester, style: str) -> None:
    pytester.makepyfile(test_user=USER_TEST)
    result = pytester.runpytest("-p", "no:cacheprovider", f"--tb={style}")
    result.assert_outcomes(failed=2)
    output = result.stdout.str()
    # pytest names the location of each frame it shows; the user's is the last one.
    result.stdout.fnmatch_lines(["test_user.py:6: *", "test_user.py:11: *"])
    assert "_assert.py" not in output
    assert "_fixture.py" not in output
    assert "contains: expected to contain 'Paris'" in output


def test_the_one_line_traceback_is_the_users_line(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_user=USER_TEST)
    result = pytester.runpytest("-p", "no:cacheprovider", "--tb=line")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["*test_user.py:6: *", "*test_user.py:11: *"])
    assert "_assert.py" not in result.stdout.str()
