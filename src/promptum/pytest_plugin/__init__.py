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

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from promptum.pytest_plugin._assert import (
        ModelCallError,
        PromptAssertionError,
        PromptGradingError,
        assert_prompt,
    )
    from promptum.pytest_plugin._fixture import PromptumFixture

# Imported on first use: this package is imported whenever pytest starts.
_LAZY = {
    "ModelCallError": "promptum.pytest_plugin._assert",
    "PromptAssertionError": "promptum.pytest_plugin._assert",
    "PromptGradingError": "promptum.pytest_plugin._assert",
    "PromptumFixture": "promptum.pytest_plugin._fixture",
    "assert_prompt": "promptum.pytest_plugin._assert",
}


def __getattr__(name: str) -> Any:
    """Import the public names when first used."""
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'promptum.pytest_plugin' has no attribute {name!r}")


__all__ = [
    "ModelCallError",
    "PromptAssertionError",
    "PromptGradingError",
    "PromptumFixture",
    "assert_prompt",
]
