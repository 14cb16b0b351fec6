"""The python check type: ``{type: python, value: "checks.py:no_apology"}``, the user's function.

The reference is ``file.py:function`` (a file beside the suite, or below its folder) or
``module:function`` (a module beside the suite, else on the Python path). It is code, like
a conftest.py: imported when the suite loads, and listed by ``promptum validate``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from promptum.checks._base import CompiledCheck, ScoredCheckType, ValueKind
from promptum.checks._custom import DEFAULT_THRESHOLD, CustomCheck, doc_line
from promptum.foundations.entry_points import call_problem
from promptum.foundations.suggestions import did_you_mean

FOLDER = "folder"
"""The key of the validation context naming the folder references are relative to (the
suite's); without it, the working directory."""

_NAME = r"[A-Za-z_]\w*"
_REFERENCE = re.compile(
    rf"(?P<module>(?:[\w-]+/)*[\w-]+\.py|{_NAME}(?:\.{_NAME})*):(?P<attribute>{_NAME}(?:\.{_NAME})*)"
)


@dataclass(frozen=True, slots=True)
class PythonFunction:
    """A resolved reference: the text the suite wrote and the function it names."""

    reference: str
    function: Any


def module_name(reference: str) -> str:
    """The dotted module a reference names: ``lib/checks.py:f`` is ``lib.checks``."""
    module = reference.partition(":")[0]
    return module.removesuffix(".py").replace("/", ".") if module.endswith(".py") else module


def python_function(value: Any, context: object) -> PythonFunction:
    """Import the function a python check's ``value`` names; raise ValueError saying what to fix."""
    from promptum.foundations.user_code import beside, import_referenced

    if not isinstance(value, str) or not _REFERENCE.fullmatch(value):
        raise ValueError(
            f"check 'python' needs {ValueKind.FUNCTION.value}, e.g. 'checks.py:no_apology'; "
            f"got {value!r}"
        )
    folder = Path.cwd()
    if isinstance(context, Mapping) and isinstance(context.get(FOLDER), Path):
        folder = context[FOLDER]
    written, _, attribute = value.partition(":")
    name = module_name(value)
    if written.endswith(".py") and not beside(name, folder).is_file():
        raise ValueError(
            f"check 'python': there is no file {beside(name, folder)}; a `file.py:function` "
            "reference names a file beside the suite, relative to its folder (write "
            "`module:function` for a module on the Python path)"
        )
    module = import_referenced(name, folder, f"check 'python' {value!r}")
    target: Any = module
    for part in attribute.split("."):
        if not hasattr(target, part):
            names = [
                n for n in dir(target) if not n.startswith("_") and callable(getattr(target, n))
            ]
            hint = did_you_mean(part, names)
            raise ValueError(f"check 'python': {written} has no function {attribute!r}.{hint}")
        target = getattr(target, part)
    if isinstance(target, type) or not callable(target):
        raise ValueError(
            f"check 'python': {value} is a {type(target).__name__}, not a function of the "
            "response (def check(response): ...)"
        )
    problem = call_problem(target, 1, "f(response)")
    if problem is not None:
        raise ValueError(
            f"check 'python': {value} {problem.removeprefix('it ')}; a python check is called "
            "with one argument, the response (promptum.CheckInput)"
        )
    return PythonFunction(value, target)


def _build(value: PythonFunction, threshold: float, _model: str | None) -> CompiledCheck:
    name = value.reference.partition(":")[2].rpartition(".")[2]
    return CustomCheck(
        value.function,
        label=value.reference,
        name=name,
        description=doc_line(value.function) or f"Python check {value.reference}",
        threshold=threshold,
    )


PYTHON = ScoredCheckType(
    "python",
    "the function `file.py:function` (beside the suite) or `module:function` passes the "
    "response: a bool, a score ≥ threshold (default 0.5), a (passed, reason) pair or a Grade",
    ValueKind.FUNCTION,
    lambda value, _case_insensitive: _build(value, DEFAULT_THRESHOLD, None),
    default_threshold=DEFAULT_THRESHOLD,
    build_scored=_build,
)
