"""The answered check type: the provider answered without error, and nothing more is asked."""

from __future__ import annotations

from typing import Any

from promptum.checks._base import CheckType, CompiledCheck, ValueKind, condition_check
from promptum.values.completion import Completion

_DESCRIPTION = "the provider answered without error"


def _why_not(completion: Completion) -> str:
    return f"the provider did not answer: {completion.error}"


def _build(_value: Any, _case_insensitive: bool) -> CompiledCheck:
    # The runner grades no failed call (it is an error, not a failure): this grade says, in
    # so many words, that the response was not judged on anything but having arrived.
    return condition_check("answered", _DESCRIPTION, "completion.error is None", {}, _why_not)


ANSWERED = CheckType(
    "answered",
    "the provider answered without error (the response itself is not judged)",
    ValueKind.NONE,
    _build,
)
