"""The ``python`` kind: a target that is a Python function of the team's own application.

Called with the parameters it names: ``query``, ``messages``, ``vars``, ``context``,
``conversation_id`` (in a conversation; else None), or any of the case's variables by its
name (a ``**kwargs`` gets every variable). Sync
functions run on worker threads, async ones on promptum's own event loop on a thread of its
own (never the run's loop, which a blocking call would stall), so the run's concurrency
applies. A sync call still running at its time limit cannot be stopped: it is abandoned on
its daemon thread and counted, so the run ends and says so; an async one is cancelled, and
abandoned the same way if it does not end. Whatever the function raises (``SystemExit``
too; only Ctrl-C stops the run) is its result's error.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from promptum.providers._base import ModelRequest
from promptum.providers._sdk import redact
from promptum.providers._target_answer import INPUTS, TargetError, completion_of, target_input
from promptum.providers._workers import run_in_worker, run_on_call_loop
from promptum.values.completion import Completion
from promptum.values.target import PythonTarget

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
        if self._async:
            value = await run_on_call_loop(lambda: self._awaited(arguments), self._abandon)
        else:
            value = await run_in_worker(lambda: self._called(arguments), self._abandon)
        return completion_of(value, request.model, (time.perf_counter() - started) * 1000)

    def _called(self, arguments: dict[str, Any]) -> Any:
        """On a worker thread: the sync function's answer."""
        try:
            return self.function(**arguments)
        except (KeyboardInterrupt, TargetError):
            raise
        except BaseException as exc:  # SystemExit too: the application's failure is the result's
            raise _failure(exc) from exc

    async def _awaited(self, arguments: dict[str, Any]) -> Any:
        """On the call loop: the async function's answer."""
        try:
            return await self.function(**arguments)
        except (KeyboardInterrupt, TargetError, asyncio.CancelledError):  # cancelled at its limit
            raise
        except BaseException as exc:
            raise _failure(exc) from exc


def _failure(error: BaseException) -> TargetError:
    """What the function raised, as its result's error."""
    # Key-shaped strings are masked here; the runner scrubs the environment's secrets.
    return TargetError(redact(f"{type(error).__name__}: {error}", []))
