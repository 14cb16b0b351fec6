"""The ``http`` kind: a target that is an HTTP endpoint of the team's own service.

The body's strings are rendered in Jinja's sandbox, like every template of a suite; secret
header values come only from environment variables (see `HttpTarget.headers_env`). The
call runs on a worker thread through the standard library; its socket gives up at the call's
time limit (the target's `timeout_s`, else the run's), when the client stops waiting too.
"""

from __future__ import annotations

import json
import os
import re
import time
import urllib.error
import urllib.request
from typing import TYPE_CHECKING, Any

from promptum.providers._base import ModelRequest
from promptum.providers._errors import (
    ConnectionFailedError,
    ProviderTimeoutError,
    UnusableAnswerError,
)
from promptum.providers._sdk import error_body, redact, status_error
from promptum.providers._target_answer import TargetError, completion_of, target_inputs
from promptum.providers._workers import run_in_worker
from promptum.templating import TemplateError, render
from promptum.values.completion import Completion
from promptum.values.target import HttpTarget

if TYPE_CHECKING:
    from promptum.providers._route import Route

_STEP = re.compile(r"\.?([^.\[\]]+)|\[(\d+)\]")

MAX_ANSWER_BYTES = 16 * 1024 * 1024
"""The most a service's answer may hold: one answer, graded and stored, is not a download."""
_SHOWN_KEYS = 10
"""How many of an object's keys an error names where a path stopped; the rest are counted."""
_SHOWN_KEY_CHARS = 40


def _http_only() -> urllib.request.OpenerDirector:
    """An opener of HTTP and HTTPS URLs only, redirects followed among them.

    `urlopen`'s default opener also reads ``file:``, ``ftp:`` and ``data:`` URLs, and follows
    a redirect to ``ftp:``: here those are unknown URL types, failed connections.
    """
    opener = urllib.request.OpenerDirector()
    for handler in (
        urllib.request.ProxyHandler(),
        urllib.request.UnknownHandler(),
        urllib.request.HTTPHandler(),
        urllib.request.HTTPSHandler(),
        urllib.request.HTTPDefaultErrorHandler(),
        urllib.request.HTTPRedirectHandler(),
        urllib.request.HTTPErrorProcessor(),
    ):
        opener.add_handler(handler)
    return opener


_OPENER = _http_only()


def _what_is_there(value: Any) -> str:
    """What a path found where it stopped, in a few words: an object's keys, a list's size."""
    if isinstance(value, dict):
        if not value:
            return "an empty object"
        keys = [
            repr(key if len(key) <= _SHOWN_KEY_CHARS else key[: _SHOWN_KEY_CHARS - 1] + "…")
            for key in list(value)[:_SHOWN_KEYS]
        ]
        more = len(value) - len(keys)
        return "an object with the keys " + ", ".join(keys) + (f" and {more} more" if more else "")
    if isinstance(value, list):
        return f"a list of {len(value)} item{'' if len(value) == 1 else 's'}"
    if value is None:
        return "null"
    kinds = {bool: "a boolean", int: "a number", float: "a number", str: "a string"}
    return kinds.get(type(value), type(value).__name__)


def json_path(document: Any, path: str) -> Any:
    """The value at ``path`` (``answer``, ``$.choices[0].text``, ``data.items.0``)."""
    rest = path.strip().removeprefix("$")
    value = document
    for match in _STEP.finditer(rest):
        key, index = match.group(1), match.group(2)
        step: int | str = int(index) if index is not None else key
        if isinstance(value, list) and isinstance(step, str) and step.isdigit():
            step = int(step)
        try:
            if isinstance(value, str):  # a string's first letter is no answer
                raise TypeError(step)
            value = value[step]
        except (KeyError, IndexError, TypeError):
            # What the answer does hold there is what fixes the suite's `output:` (or the
            # service): the keys, bounded, as one answer may have thousands of them.
            raise UnusableAnswerError(
                f"the response has nothing at {path!r} (stopped at {step!r}, "
                f"where there is {_what_is_there(value)})"
            ) from None
    return value


def _rendered(value: Any, variables: dict[str, Any]) -> Any:
    if isinstance(value, str):
        try:
            return render(value, variables)
        except TemplateError as exc:
            raise TargetError(f"the target's body template: {exc}") from exc
    if isinstance(value, dict):
        return {k: _rendered(v, variables) for k, v in value.items()}
    if isinstance(value, list):
        return [_rendered(v, variables) for v in value]
    return value


class HttpTargetProvider:
    """Sends one request per case to the service and reads the answer at `output`."""

    def __init__(self, route: Route, timeout_s: float) -> None:
        assert isinstance(route.target, HttpTarget)  # routing made this an http route
        self.target = route.target
        self.timeout_s = timeout_s

    def _headers(self) -> tuple[dict[str, str], list[str]]:
        headers = {"Content-Type": "application/json", **self.target.headers}
        secrets = []
        for name, variable in self.target.headers_env.items():
            value = os.environ.get(variable)
            if not value:
                raise TargetError(f"header {name!r} needs the {variable} environment variable")
            headers[name] = value
            secrets.append(value)
        return headers, secrets

    def _send(self, body: bytes | None, headers: dict[str, str], secrets: list[str]) -> bytes:
        request = urllib.request.Request(
            self.target.url, data=body, headers=headers, method=self.target.method
        )
        try:
            with _OPENER.open(request, timeout=self.timeout_s) as response:
                data: bytes = response.read(MAX_ANSWER_BYTES + 1)
        except urllib.error.HTTPError as exc:
            answer = error_body(exc.read(MAX_ANSWER_BYTES).decode(errors="replace"))
            fallback = f"{exc.code} {exc.reason}"
            raise status_error(exc.code, dict(exc.headers), answer, fallback, secrets) from exc
        except TimeoutError as exc:
            raise ProviderTimeoutError(f"no answer within {self.timeout_s:g} s") from exc
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            message = redact(f"connection to {self.target.url} failed: {reason}", secrets)
            raise ConnectionFailedError(message) from exc
        if len(data) > MAX_ANSWER_BYTES:
            raise UnusableAnswerError(
                f"the answer is over {MAX_ANSWER_BYTES:,} bytes: more than one answer holds"
            )
        return data

    async def complete(self, request: ModelRequest) -> Completion:
        """Call the service with the case's inputs; read the answer from its JSON."""
        inputs = target_inputs(request)
        template = self.target.body
        if template is None:
            # In a conversation the service needs the history and the conversation's id too;
            # a single request's body stays as it always was.
            keys: tuple[str, ...] = ("query", "vars", "context")
            if request.conversation_id is not None:
                keys += ("messages", "conversation_id")
            payload: Any = {k: inputs[k] for k in keys}
        else:
            payload = _rendered(template, {**inputs["vars"], **inputs})
        headers, secrets = self._headers()
        body = None if self.target.method == "GET" else json.dumps(payload).encode()
        started = time.perf_counter()
        raw = await run_in_worker(lambda: self._send(body, headers, secrets))
        latency_ms = (time.perf_counter() - started) * 1000  # the service, not the parsing
        text = raw.decode(errors="replace")
        try:
            document: Any = json.loads(text)
        except ValueError:
            if self.target.output is not None:
                raise UnusableAnswerError(
                    f"the response is not JSON, so {self.target.output!r} cannot be read: "
                    f"{text[:80]!r}"
                ) from None
            document = text
        value = json_path(document, self.target.output) if self.target.output else document
        if not isinstance(value, str | dict):
            value = json.dumps(value)
        return completion_of(value, request.model, latency_ms)
