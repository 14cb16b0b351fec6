"""A suite's `tools:` and `tool_choice:` (OpenAI function schemas), checked when loaded."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator


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
