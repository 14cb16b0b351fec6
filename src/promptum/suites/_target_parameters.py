"""Whether a Python target's call can be given what a case has: its inputs and its vars."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from promptum.foundations.suggestions import did_you_mean
from promptum.providers import INPUTS, PythonTarget

_FILLED_BY_NAME = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


@dataclass(frozen=True, slots=True)
class _Signature:
    """What a target function can be given by name, as the target's call binds it."""

    required: tuple[inspect.Parameter, ...]
    """The parameters without a default."""
    named: tuple[str, ...]
    """Every parameter filled by name, defaults or not."""
    takes_all: bool
    """A ``**kwargs``: it is given the case's variables too."""
    asks: bool
    """Whether it has parameters at all: one without any ignores the case on purpose."""


_ANY_SIGNATURE = _Signature((), ("query",), True, True)
"""A callable without a signature (a builtin): its call is given the query."""


def _signature(function: Callable[..., Any]) -> _Signature:
    """`function`'s signature as a target's call sees it, worked out once per function."""
    try:
        return _signature_of(function)  # not once for each row of a file
    except TypeError:  # an unhashable callable object
        return _signature_of.__wrapped__(function)


@lru_cache(maxsize=64)
def _signature_of(function: Callable[..., Any]) -> _Signature:
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return _ANY_SIGNATURE
    variadic = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    return _Signature(
        required=tuple(
            p for p in parameters if p.default is inspect.Parameter.empty and p.kind not in variadic
        ),
        named=tuple(p.name for p in parameters if p.kind in _FILLED_BY_NAME),
        takes_all=any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters),
        asks=bool(parameters),
    )


def parameter_problems(target: PythonTarget, variables: Mapping[str, Any]) -> list[str]:
    """Each required parameter of a Python target that a case with `variables` cannot fill."""
    problems = []
    fillable = [*INPUTS, *variables]
    signature = _signature(target.function)
    for parameter in signature.required:
        if parameter.kind not in _FILLED_BY_NAME:
            problems.append(
                f"the target {target.name!r} has the positional-only parameter "
                f"{parameter.name!r}, which promptum cannot fill (it passes the case's inputs "
                "by name): make it an ordinary parameter, or give it a default"
            )
        elif parameter.name not in fillable:
            hint = did_you_mean(parameter.name, fillable)
            problems.append(
                f"the target {target.name!r} needs the parameter {parameter.name!r}, which "
                f"this case cannot fill: it is none of {', '.join(INPUTS)} nor a variable of "
                f"the case ({', '.join(variables) or 'it has none'}).{hint} Give the case "
                f"`vars: {{{parameter.name}: ...}}` (or a data column of that name), or give "
                "the parameter a default"
            )
    if not problems and _given_nothing(signature, fillable, variables):
        problems.append(_given_nothing_problem(target, signature, fillable))
    return problems


def _given_nothing(
    signature: _Signature, fillable: list[str], variables: Mapping[str, Any]
) -> bool:
    """Whether the target's call would be given none of the case: it could not answer it."""
    if not signature.asks or set(signature.named) & set(fillable):
        return False
    return not (signature.takes_all and variables)


def _given_nothing_problem(target: PythonTarget, signature: _Signature, fillable: list[str]) -> str:
    close = (
        f" It takes {name!r}.{suggested}"
        for name in signature.named
        if (suggested := did_you_mean(name, fillable))
    )
    hint = next(close, "")
    return (
        f"the target {target.name!r} would be called with none of the case: it takes none of "
        f"{', '.join(INPUTS)} nor a variable of the case by name.{hint} Give it a `query` "
        "parameter (or `messages`, `vars`, `context`)"
    )
