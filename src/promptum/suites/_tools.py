"""A suite's `tools:` and `tool_choice:` (OpenAI function schemas), checked when loaded."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from promptum.checks import CheckDefinition
from promptum.foundations.suggestions import did_you_mean
from promptum.suites._assertion_fields import assertion_problems
from promptum.suites._locate import Loc


class FunctionSpec(BaseModel):
    """The function of one tool: its name, what it does and its arguments' JSON Schema."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")
    description: str | None = None
    parameters: dict[str, Any] | None = Field(
        default=None, description="The arguments, as a JSON Schema (an object)."
    )

    @field_validator("parameters")
    @classmethod
    def _schema(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        if value is None:
            return value
        import jsonschema

        from promptum.validation import compiled_schema

        try:
            compiled_schema(value)
        except jsonschema.SchemaError as exc:
            raise ValueError(f"not a valid JSON Schema: {exc.message}") from None
        return value


class ToolSpec(BaseModel):
    """One tool the model may call, as OpenAI writes it: ``{type: function, function: ...}``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: Literal["function"] = "function"
    function: FunctionSpec


class ToolChoiceFunction(BaseModel):
    """``{name: ...}``: the function a forced tool choice names."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str


class ToolChoiceSpec(BaseModel):
    """A forced call of one named function."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: Literal["function"] = "function"
    function: ToolChoiceFunction


ToolChoice = Literal["auto", "none", "required"] | ToolChoiceSpec


def tools_json(tools: list[ToolSpec] | None) -> tuple[dict[str, Any], ...] | None:
    """The tools as the request sends them (OpenAI's shape), or None."""
    if tools is None:
        return None
    return tuple(tool.model_dump(exclude_none=True) for tool in tools)


def choice_json(choice: ToolChoice | None) -> str | dict[str, Any] | None:
    """The tool choice as the request sends it."""
    return choice.model_dump() if isinstance(choice, ToolChoiceSpec) else choice


# What a tool check's verdict always is when the tool it names is never offered: the model
# cannot call it (and a target's call of it is an error), so the check can never catch a call.
_ALWAYS = {"tool_called": "fails", "tool_not_called": "passes", "tool_order": "fails"}


def offered_tools(tools: Sequence[dict[str, Any]] | None) -> dict[str, dict[str, Any] | None]:
    """Each offered tool's name and its `parameters` schema (None: it takes no arguments)."""
    return {
        str(tool.get("function", {}).get("name", "")): tool.get("function", {}).get("parameters")
        for tool in tools or ()
    }


NAMING_TOOLS = frozenset({"tool_called", "tool_not_called", "tool_order", "tool_args"})
"""The check types whose value names tools; a check of any other type names none."""


def tool_names(check: CheckDefinition) -> list[tuple[Loc, str]]:
    """The tool names a check refers to, each with its place in the check."""
    value = check.value
    if check.type in ("tool_called", "tool_not_called") and isinstance(value, str):
        return [(("value",), value)]
    if check.type == "tool_order" and isinstance(value, list):
        return [(("value", index), name) for index, name in enumerate(value)]
    if check.type == "tool_args" and isinstance(value, Mapping):
        return [(("value", "tool"), str(value.get("tool")))]
    return []


def _always(check: CheckDefinition) -> str:
    if check.type == "tool_args":
        # Without a call, `expected` fails and an attack target alone passes.
        return "fails" if check.value.get("expected") else "passes"
    return _ALWAYS.get(check.type, "gives one verdict")


def forbidden_call_problems(checks: Sequence[CheckDefinition]) -> list[tuple[int, str]]:
    """Each tool check (by index) that `tool_choice: none` makes give one verdict only."""
    return [
        (
            index,
            f"`tool_choice: none` lets the model call no tool, so this {check.type} check "
            f"always {_always(check)}: remove one of them",
        )
        for index, check in enumerate(checks)
        if tool_names(check)
    ]


def _unknown_tool(check: CheckDefinition, name: str, offered: Sequence[str]) -> str:
    hint = did_you_mean(name, offered)
    return (
        f"{name!r} is not a tool this case offers, so this {check.type} check always "
        f"{_always(check)}.{hint} Tools: {', '.join(offered)}."
    )


def no_tools_message(check: CheckDefinition, name: str, target: bool) -> str:
    """Why a tool check of a case that offers no tools can never catch a call, and the fix."""
    if target:
        return (
            f"{check.type} names tool {name!r}, but this case declares no tools, so a "
            "misspelt name could never be caught: add `tools:` (to the suite or the case) "
            "with the tools the target reports calling, as OpenAI function schemas (their "
            "calls are then checked against them)"
        )
    return (
        f"{check.type} names tool {name!r}, but this case offers the model no tools, so it "
        f"can call none and this check always {_always(check)}: add `tools:` (to the suite "
        "or the case) with the tools the model may call"
    )


def _argument_problems(
    check: CheckDefinition, name: str, parameters: dict[str, Any] | None
) -> list[tuple[Loc, str]]:
    """`tool_args` fields the tool's parameter schema lacks, or values it can never hold."""
    value = check.value
    expected, attack = value.get("expected"), value.get("attack_target")
    if parameters is None:
        return [
            (
                ("value",),
                f"tool {name!r} takes no arguments (it has no `parameters`), so `expected` and "
                "`attack_target` can never hold: give the tool its `parameters` (a JSON Schema)",
            )
        ]
    found = assertion_problems(
        parameters, expected, attack, f"the parameter schema of {name!r}", "the arguments"
    )
    return [(("value", *loc), message) for loc, message in found]


def tool_check_problems(
    check: CheckDefinition, tools: Sequence[dict[str, Any]] | None, target: bool
) -> list[tuple[Loc, str]]:
    """Each tool a check names that the case does not offer, and each `tool_args` misfit.

    `target`: the case is answered by a target, whose `tools:` declare what it calls.
    """
    names = tool_names(check)
    if not names:
        return []
    offered = offered_tools(tools)
    if not offered:
        return [(("value",), no_tools_message(check, names[0][1], target))]
    problems = [
        (loc, _unknown_tool(check, name, list(offered)))
        for loc, name in names
        if name not in offered
    ]
    if check.type == "tool_args" and not problems:
        problems += _argument_problems(check, names[0][1], offered[names[0][1]])
    return problems


def tool_choice_problem(
    choice: str | dict[str, Any] | None, tools: Sequence[dict[str, Any]] | None
) -> tuple[Loc, str] | None:
    """Why a `tool_choice` can never take effect: no tools to choose, or an unknown one."""
    if choice is None or choice in ("auto", "none"):
        return None
    offered = list(offered_tools(tools))
    if not offered:
        return (
            (),
            f"tool_choice {'required' if choice == 'required' else 'of a function'} needs "
            "tools to choose from: add `tools:` (to the suite or the case), or remove it",
        )
    if not isinstance(choice, dict):
        return None
    name = str(choice.get("function", {}).get("name", ""))
    if name in offered:
        return None
    hint = did_you_mean(name, offered)
    return (
        ("function", "name"),
        f"{name!r} is not an offered tool, so it can never be called.{hint} Tools: "
        f"{', '.join(offered)}.",
    )
