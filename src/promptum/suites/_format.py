"""The suite file format, as pydantic models: validation and the JSON Schema come from here.

Every model forbids unknown keys, so a typo is an error with a "did you mean", not a
silently ignored setting.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema, field_validator

from promptum.checks import CheckDefinition
from promptum.providers import EndpointConfig, Price
from promptum.runner import DEFAULT_THRESHOLD


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _one_or_many(value: Any) -> Any:
    return [value] if isinstance(value, str) else value


OneOrMany = Annotated[
    list[str],
    BeforeValidator(_one_or_many),
    WithJsonSchema({"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}),
]
"""A list of strings where a single string stands for a one-item list (``models: local/x``)."""


class MessageSpec(_Strict):
    """One chat message of a case's `messages`."""

    role: Literal["system", "user", "assistant"]
    content: str


class ParamsSpec(_Strict):
    """Sampling parameters: in `defaults.params` or a case's `params`."""

    temperature: float | None = Field(default=None, ge=0, le=2)
    max_tokens: int | None = Field(default=None, gt=0)
    seed: int | None = None
    extra: dict[str, Any] = Field(
        default_factory=dict, description="Provider-specific parameters passed through unchanged."
    )


class JudgeSpec(_Strict):
    """The `judge` section: grade each response against its `expected_behavior`."""

    model: str | None = Field(default=None, description="Judge model; default local/smollm2.")
    threshold: float = Field(default=DEFAULT_THRESHOLD, ge=0, le=1)
    prompt: str | None = Field(
        default=None,
        description="Jinja template replacing the default rubric; sees input, response, "
        "expected_behavior.",
    )


class CaseFields(_Strict):
    """The keys a test case may have, in a suite, a TOML case file or a data row."""

    id: str | None = Field(default=None, min_length=1)
    query: str | None = Field(default=None, description="The user message (a Jinja template).")
    messages: list[MessageSpec] | None = Field(
        default=None, description="A chat conversation instead of `query`."
    )
    system: str | None = None
    expected_behavior: str | None = Field(
        default=None, description="What a good response does; the judge grades against it."
    )
    checks: list[CheckDefinition] = Field(default_factory=list)
    vars: dict[str, Any] = Field(default_factory=dict)
    tags: OneOrMany = Field(default_factory=list)
    models: OneOrMany | None = None
    params: ParamsSpec | None = None
    response_model: str | dict[str, Any] | None = Field(
        default=None,
        description="Structured output: an inline JSON Schema or `module:Class` of a pydantic "
        "model.",
    )
    expected: dict[str, Any] | None = Field(
        default=None, description="Field assertions: a value means ==, a list means `in`."
    )
    attack_target: dict[str, Any] | None = Field(
        default=None, description="Field assertions: the output must not hold these values."
    )
    repeat: int | None = Field(default=None, ge=1)


class DefaultsSpec(_Strict):
    """The `defaults` section, merged into every case (case values win)."""

    system: str | None = None
    checks: list[CheckDefinition] = Field(
        default_factory=list, description="Run before each case's own checks."
    )
    params: ParamsSpec | None = None
    tags: OneOrMany = Field(default_factory=list)
    response_model: str | dict[str, Any] | None = None
    expected_behavior: str | None = None


class SuiteSpec(_Strict):
    """A suite file: its settings and its test cases."""

    name: str | None = None
    description: str | None = None
    models: OneOrMany | None = Field(
        default=None, description="Models every case runs on; default local/smollm2."
    )
    system: str | None = None
    prompt: str | None = Field(
        default=None,
        description="Template for cases without `query` or `messages` (handy with `cases_from`).",
    )
    vars: dict[str, Any] = Field(default_factory=dict)
    tags: OneOrMany = Field(default_factory=list)
    defaults: DefaultsSpec | None = None
    repeat: int = Field(default=1, ge=1)
    judge: JudgeSpec | None = None
    test_cases: list[CaseFields] = Field(default_factory=list)
    cases_from: OneOrMany = Field(
        default_factory=list,
        description="CSV or JSONL files (one case per row) and folders of TOML case files, "
        "relative to this file.",
    )
    endpoints: dict[str, EndpointConfig] = Field(
        default_factory=dict,
        description="Named OpenAI-compatible endpoints: `<name>/<model>` ids are sent there.",
    )
    pricing: dict[str, Price] = Field(
        default_factory=dict, description="USD per million input/output tokens, by model id."
    )

    @field_validator("endpoints")
    @classmethod
    def _no_keys(cls, endpoints: dict[str, EndpointConfig]) -> dict[str, EndpointConfig]:
        for name, endpoint in endpoints.items():
            if endpoint.api_key is not None:
                raise ValueError(
                    f"endpoint {name!r}: never write an API key into a suite file; name the "
                    "environment variable that holds it with `api_key_env`"
                )
        return endpoints


def suite_json_schema() -> dict[str, Any]:
    """The JSON Schema of a suite file, for editors (yaml-language-server) and `promptum schema`."""
    from promptum.checks import CHECK_TYPES

    schema = SuiteSpec.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "promptum suite"
    check = schema["$defs"]["CheckDefinition"]
    check["properties"]["type"]["enum"] = list(CHECK_TYPES)
    check["description"] = "A deterministic check: " + "; ".join(
        f"{t.name}: {t.passes_when}" for t in CHECK_TYPES.values()
    )
    return schema
