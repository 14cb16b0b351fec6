"""promptum in pytest: suite cases as test items, a `promptum` fixture and `assert_prompt`.

The ``pytest11`` entry point loads `promptum.pytest_plugin._plugin` in every pytest run; it
collects nothing until ``promptum_suites`` (ini) or ``--promptum-suites`` names suites, and
imports nothing heavy until then. See docs/pytest.md.

::

    from promptum.pytest_plugin import assert_prompt

    def test_capital(promptum):
        answer = promptum.complete("local/smollm2", "What is the capital of France?")
        promptum.assert_prompt(answer, contains="Paris", judge="Names Paris")
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from promptum.pytest_plugin._assert import (
        ModelCallError,
        PromptAssertionError,
        PromptGradingError,
        assert_prompt,
    )
    from promptum.pytest_plugin._fixture import PromptumFixture


def __getattr__(name: str) -> Any:
    """Import a public name when first used, and keep it (`promptum.foundations.lazy`)."""
    # Not at start-up: pytest imports this package in every run, collecting suites or not.
    from promptum.foundations.lazy import lazy_export

    return lazy_export(__name__, name)


__all__ = [
    "ModelCallError",
    "PromptAssertionError",
    "PromptGradingError",
    "PromptumFixture",
    "assert_prompt",
]
