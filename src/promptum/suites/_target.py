"""A suite's `target:`: the Python function or HTTP service that answers instead of a model.

``target: app.py:answer`` (or ``mypkg.support:answer``) imports a function, code by design
like a ``type: python`` check, and ``promptum validate`` lists its module. A mapping with
``url`` names an HTTP service; its secret headers come only from ``PROMPTUM_<NAME>_*``
environment variables, so a suite cannot send an arbitrary secret to a URL it writes.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationInfo, field_validator, model_validator

from promptum.foundations.user_code import import_referenced, python_module_file
from promptum.providers import (
    KEY_SUFFIX,
    MAX_TIMEOUT_S,
    HttpTarget,
    PythonTarget,
    Target,
    env_name,
    target_name_problem,
)
from promptum.values.target import HttpUrlText


class TargetSpec(BaseModel):
    """A target written as a mapping: a `function` or a service `url`, with its settings."""

    model_config = {"extra": "forbid", "frozen": True}

    function: str | None = Field(
        default=None, description="`file.py:function` or `module:function` to call."
    )
    url: HttpUrlText | None = Field(default=None, description="The service's endpoint (HTTP).")
    name: str | None = Field(default=None, description="The target's id in reports: target:<name>.")
    method: Literal["GET", "POST", "PUT", "PATCH"] = "POST"
    headers: dict[str, str] = Field(
        default_factory=dict, description="Headers written out (never secrets)."
    )
    headers_env: dict[str, str] = Field(
        default_factory=dict,
        description="Header → environment variable with its value; only PROMPTUM_<NAME>_* "
        "variables, NAME being the target's `name`.",
    )
    body: Any = Field(
        default=None,
        description="JSON to send; its strings are Jinja templates of query, messages, vars "
        "and context. Default: {query, vars, context}.",
    )
    output: str | None = Field(
        default=None,
        description="Where the answer is in the JSON response: `answer`, `$.choices[0].text`.",
    )
    max_concurrency: int | None = Field(default=None, ge=1)
    timeout_s: float | None = Field(
        default=None,
        gt=0,
        le=MAX_TIMEOUT_S,
        description="Seconds one call may take (default: the run's, `--timeout`, 60 s).",
    )
    retries: int | None = Field(
        default=None,
        ge=0,
        description="Retries of a failed call, timeouts included (default: a timeout is not "
        "retried; 429, 5xx and dropped connections of a `url` target follow the run's).",
    )
    history: Literal["client", "server"] = Field(
        default="client",
        description="In a conversation, who keeps its history: `client` (promptum sends the "
        "whole history each turn) or `server` (only the new user message, with the "
        "conversation_id). See docs/conversations.md.",
    )

    @field_validator("headers_env")
    @classmethod
    def _suite_variables(cls, headers_env: dict[str, str], info: ValidationInfo) -> dict[str, str]:
        """Only the target's own ``PROMPTUM_<NAME>_*`` variables, and no endpoint's key."""
        if not headers_env:
            return headers_env
        name = info.data.get("name")
        if name is None:
            raise ValueError(
                "a target with `headers_env` needs a `name`: its variables are PROMPTUM_<NAME>_*"
            )
        _bound_headers(name, headers_env)
        return headers_env

    @model_validator(mode="after")
    def _one_kind(self) -> TargetSpec:
        if (self.function is None) == (self.url is None):
            raise ValueError("a target has exactly one of `function` or `url`")
        if self.function is not None:
            http_only = {"method", "headers", "headers_env", "body", "output"}
            written = sorted(http_only & self.model_fields_set)
            if written:
                raise ValueError(f"{', '.join(written)} apply to `url` targets only")
        return self


def _function(reference: str, folder: Path) -> tuple[Callable[..., Any], str | None]:
    module_name, sep, attribute = reference.partition(":")
    if not sep or not module_name or not attribute:
        raise ValueError(f"target {reference!r} must be `file.py:function` or `module:function`")
    module_name = module_name.removesuffix(".py").replace("/", ".")
    module = import_referenced(module_name, folder, f"target {reference!r}")
    function = getattr(module, attribute, None)
    if not callable(function):
        raise ValueError(f"module {module_name!r} has no function {attribute!r}")
    origin = python_module_file(module_name + ":", folder)
    return function, str(origin) if origin else None


def _bound_headers(name: str, headers_env: Mapping[str, str]) -> None:
    stem = env_name(name) + "_"
    for header, variable in headers_env.items():
        if not variable.startswith(stem):
            raise ValueError(
                f"{header}: a suite may read only {stem}* variables for target "
                f"{name!r}, not {variable!r}: rename the variable (e.g. {stem}TOKEN), or "
                "configure the target in Python"
            )
        # PROMPTUM_<X>_API_KEY is endpoint X's key, sent only to X's URL, which the machine
        # may pin (PROMPTUM_<X>_BASE_URL): a target named X must not send it elsewhere.
        if variable.endswith(KEY_SUFFIX):
            raise ValueError(
                f"{header}: {variable!r} is the key of an endpoint (models.md, "
                f"Security), sent to that endpoint only: name the target's own variable "
                f"otherwise (e.g. {stem}TOKEN), or configure the target in Python"
            )


def suite_target(
    written: str | TargetSpec | Target | Callable[..., Any], folder: Path, where: str = ""
) -> Target:
    """The target a suite (or a `Prompt`) names; ValueError says what to fix.

    `where` is the suite's folder within a folder run (``team-a/``): it starts the default
    name of a function target, so ``app.py:answer`` of two team folders are two targets.
    """
    if isinstance(written, PythonTarget | HttpTarget):
        return written  # built in Python, where any variable may be named
    if not isinstance(written, str | TargetSpec):
        return callable_target(written)
    spec = TargetSpec(function=written) if isinstance(written, str) else written
    if spec.function is not None:
        return _python_target(spec, spec.function, folder, where)
    return _http_target(spec)


def _python_target(spec: TargetSpec, written: str, folder: Path, where: str) -> PythonTarget:
    """The function target a suite names (``app.py:answer``), imported from its folder."""
    function, origin = _function(written, folder)
    name = spec.name or where + written
    if problem := target_name_problem(name):
        raise ValueError(problem)
    return PythonTarget(
        name,
        function,
        spec.max_concurrency or 8,
        origin,
        timeout_s=spec.timeout_s,
        retries=spec.retries,
        history=spec.history,
    )


def _http_target(spec: TargetSpec) -> HttpTarget:
    """The HTTP service target a suite names by its `url`."""
    assert spec.url is not None
    name = spec.name or spec.url
    fields = spec.model_dump(exclude={"function", "name"}, exclude_none=True)
    return HttpTarget(name=name, **fields)


def callable_target(function: Callable[..., Any], name: str | None = None) -> PythonTarget:
    """A function given in Python, named by its module and qualified name."""
    if name is None:
        module = getattr(function, "__module__", None) or "python"
        qualname = getattr(function, "__qualname__", None) or type(function).__name__
        name = f"{module}:{qualname}".replace("<", "").replace(">", "")
    origin = inspect.getsourcefile(function) if inspect.isfunction(function) else None
    return PythonTarget(name, function, module_file=origin)
