"""The ``python`` kind: a target that is a Python function of the team's own application.

Called with the parameters it names: ``query``, ``messages``, ``vars``, ``context``, or
any of the case's variables by its name (a ``**kwargs`` gets every variable). Async
functions are awaited; sync ones run on worker threads, so the run's concurrency applies.
A sync call still running at its time limit cannot be stopped: it is abandoned on its
daemon thread and counted, so the run ends and says so.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from promptum.completion import Completion
from promptum.providers._base import ModelRequest
from promptum.providers._sdk import redact
from promptum.providers._target_answer import INPUTS, TargetError, completion_of, target_input
from promptum.providers._target_spec import PythonTarget
from promptum.providers._workers import run_in_worker

if TYPE_CHECKING:
    from promptum.providers._route import Route


def _binder(function: Callable[..., Any]) -> Callable[[ModelRequest], dict[str, Any]]:
    """How to pick a function's arguments from a request, worked out once."""
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):  # a builtin without a signature: give it the query
        return lambda request: {"query": target_input(request, "query")}
    takes_all = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)
    named = [
        p
        for p in parameters
        if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    ]

    def bind(request: ModelRequest) -> dict[str, Any]:
        variables = request.vars
        arguments: dict[str, Any] = {}
        for parameter in named:
            if parameter.name in INPUTS:  # only what the function asks for is built
                arguments[parameter.name] = target_input(request, parameter.name)
            elif parameter.name in variables:
                arguments[parameter.name] = variables[parameter.name]
            elif parameter.default is inspect.Parameter.empty:
                raise TargetError(
                    f"the target's parameter {parameter.name!r} is none of "
                    f"{', '.join(INPUTS)} nor a variable of the case "
                    f"({', '.join(variables) or 'it has none'})"
                )
        if takes_all:
            arguments.update({k: v for k, v in variables.items() if k not in arguments})
        return arguments

    return bind


class PythonTargetProvider:
    """Calls one Python function per request; what it returns becomes the completion."""

    def __init__(self, route: Route, timeout_s: float) -> None:
        assert isinstance(route.target, PythonTarget)  # routing made this a python route
        self.function = route.target.function
        self._bind = _binder(self.function)
        call = type(self.function).__call__  # an object with `async def __call__`
        self._async = inspect.iscoroutinefunction(self.function) or inspect.iscoroutinefunction(
            call
        )
        self.abandoned = 0
        """Calls left running on their thread when the wait for them ended (`ModelClient`)."""

    def _abandon(self) -> None:
        self.abandoned += 1

    async def complete(self, request: ModelRequest) -> Completion:
        """Call the function with the case's inputs; its exception is a `TargetError`."""
        arguments = self._bind(request)
        started = time.perf_counter()
        try:
            if self._async:
                value = await self.function(**arguments)
            else:
                value = await run_in_worker(lambda: self.function(**arguments), self._abandon)
        except TargetError:
            raise
        except Exception as exc:  # the application's failure is this result's error
            # Key-shaped strings are masked here; the runner scrubs the environment's secrets.
            raise TargetError(redact(f"{type(exc).__name__}: {exc}", [])) from exc
        return completion_of(value, request.model, (time.perf_counter() - started) * 1000)
