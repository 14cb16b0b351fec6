"""The suite file format, as pydantic models: validation and the JSON Schema come from here.

Every model forbids unknown keys, so a typo is an error with a "did you mean", not a
silently ignored setting.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from enum import Enum
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    TypeAdapter,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WithJsonSchema,
    field_validator,
    model_validator,
)
from pydantic.json_schema import SkipJsonSchema
from pydantic_core import InitErrorDetails, PydanticCustomError

from promptum.cases import DEFAULT_THRESHOLD
from promptum.checks import CheckDefinition, Transform, get_check_type
from promptum.foundations.suggestions import did_you_mean
from promptum.providers import EndpointConfig, HttpTarget, Price, key_variable, repeated_model
from promptum.redteam import RedteamSpec
from promptum.suites._target import TargetSpec
from promptum.suites._tools import ToolChoice, ToolSpec
from promptum.values.asr_bounds import gate_problem
from promptum.values.completion import ToolCall
from promptum.values.metrics import MetricName


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


def _each_once(model_ids: list[str]) -> list[str]:
    problem = repeated_model(model_ids)
    if problem is not None:
        raise ValueError(problem)
    return model_ids


ModelIds = Annotated[OneOrMany, AfterValidator(_each_once)]
"""`models:`: one model id or a list of them, each named once."""


class PartSpec(_Strict):
    """An image, PDF document or audio item of a message's `content` list."""

    type: Literal["image", "document", "audio"]
    file: str | None = Field(
        default=None, description="A project file (a Jinja template of the vars)."
    )
    url: str | None = Field(default=None, description="An image's https:// URL.")
    data: str | None = Field(default=None, description="The bytes inline, as base64.")
    media_type: str | None = Field(default=None, description="Inline data's type: image/png...")

    @model_validator(mode="after")
    def _one_source(self) -> PartSpec:
        if sum(value is not None for value in (self.file, self.url, self.data)) != 1:
            raise ValueError(f"a `{self.type}` item needs one of `file`, `url` or `data`")
        return self


class _TextItem(_Strict):
    type: Literal["text"]
    text: str


_ContentItem = Annotated[_TextItem | PartSpec, Field(discriminator="type")]
_CONTENT_ITEMS = TypeAdapter(list[_ContentItem], config=ConfigDict(defer_build=True))
_CONTENT_SCHEMA = {
    "anyOf": [
        {"type": "string"},
        {
            "type": "array",
            "description": "Content parts: {type: text, text} and {type: image|document|audio, "
            "file|url|data} (docs/multimodal.md).",
            "items": {"type": "object", "required": ["type"]},
        },
    ]
}


def _absent(value: object) -> bool:
    return value is None


class MessageSpec(_Strict):
    """One chat message of a case's `messages`."""

    role: Literal["system", "user", "assistant", "tool"]
    content: Annotated[str, WithJsonSchema(_CONTENT_SCHEMA)] = ""
    parts: SkipJsonSchema[tuple[PartSpec, ...] | None] = Field(default=None, exclude_if=_absent)
    """The images, documents and audio of a `content` list, sent after its text."""
    tool_calls: list[ToolCall] | None = Field(
        default=None,
        description="An assistant turn's tool calls, replayed: [{name, arguments, id}].",
    )
    tool_call_id: str | None = Field(
        default=None, description="A `tool` message's answer to the call with this id."
    )

    @model_validator(mode="before")
    @classmethod
    def _content_items(cls, data: Any) -> Any:
        # A `content` list (the providers' shape): its texts joined, its other items parts.
        if not isinstance(data, dict) or not isinstance(data.get("content"), list):
            return data
        try:
            items = _CONTENT_ITEMS.validate_python(data["content"])
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(map(str, error["loc"][:2]))
            raise ValueError(f"`content` item {where}: {error['msg']}") from None
        texts = [item.text for item in items if isinstance(item, _TextItem)]
        parts = tuple(item for item in items if isinstance(item, PartSpec))
        return {**data, "content": "\n\n".join(texts), "parts": parts or None}

    @model_validator(mode="after")
    def _has_content(self) -> MessageSpec:
        if self.parts and self.role != "user":
            raise ValueError("only a user message carries images, documents or audio")
        if not self.content and not self.tool_calls and not self.parts:
            raise ValueError("a message needs `content` (or, from the assistant, `tool_calls`)")
        return self


class ParamsSpec(_Strict):
    """Sampling parameters: in `defaults.params` or a case's `params`."""

    temperature: float | None = Field(default=None, ge=0, le=2)
    max_tokens: int | None = Field(default=None, gt=0)
    seed: int | None = None
    top_p: float | None = Field(default=None, gt=0, le=1)
    extra: dict[str, Any] = Field(
        default_factory=dict, description="Provider-specific parameters passed through unchanged."
    )


class CriterionSpec(_Strict):
    """One named criterion of `judge.criteria`, written as a mapping."""

    rubric: str | None = Field(
        default=None,
        description="What a good response does (a Jinja template of the case's vars); the "
        "judge prompt sees it as {{ rubric }}.",
    )
    threshold: float | None = Field(
        default=None, ge=0, le=1, description="The least passing score; default: the judge's."
    )
    prompt: str | None = Field(
        default=None,
        description="This criterion's judge prompt: `default`, `faithfulness` or a Jinja "
        "template; default: the judge's.",
    )
    metric: MetricName | None = Field(
        default=None,
        description="The metric this criterion's grade is counted under in reports "
        "(docs/metrics.md).",
    )


_CRITERION_KEYS = ("metric", "prompt", "rubric", "threshold")
_CRITERION_NAME = re.compile(r"[\w.-]+")
RESERVED_CRITERION = "judge"
"""The name of the criterion a case's `expected_behavior` is; no named criterion may take it."""


def _criterion(value: Any) -> Any:
    """A criterion written as its rubric alone becomes ``{rubric: ...}``."""
    if isinstance(value, str):
        return {"rubric": value}
    if not isinstance(value, Mapping):
        raise ValueError(
            "a criterion is its rubric (text) or a mapping with `rubric`, `threshold`, "
            f"`prompt` and `metric` (got {type(value).__name__})"
        )
    for key in value:
        if key not in _CRITERION_KEYS:
            hint = did_you_mean(str(key), _CRITERION_KEYS)
            raise ValueError(
                f"unknown key {key!r} in this criterion.{hint} Allowed keys: "
                f"{', '.join(_CRITERION_KEYS)}."
            )
    return value


CriterionValue = Annotated[
    CriterionSpec, BeforeValidator(_criterion, json_schema_input_type=str | CriterionSpec)
]
"""A criterion: its rubric as text, or a mapping with its own threshold or prompt."""


def _name_problems(criteria: Mapping[Any, Any]) -> list[InitErrorDetails]:
    problems = []
    for name in criteria:
        if not isinstance(name, str):
            continue  # the key's own validation says what is wrong
        if name == RESERVED_CRITERION:
            message = (
                "the criterion `judge` is the case's expected_behavior: give this criterion "
                "another name (or write its rubric as expected_behavior)"
            )
        elif not _CRITERION_NAME.fullmatch(name):
            message = (
                f"criterion name {name!r} must be letters, digits, '_', '-' or '.' (reports "
                "show it as `judge <name>`)"
            )
        else:
            continue
        problems.append(
            InitErrorDetails(
                type=PydanticCustomError("value_error", message), loc=(name,), input=None
            )
        )
    return problems


class JudgeSpec(_Strict):
    """The `judge` section (of a suite or a case): which model grades what, and how.

    A case's `judge` is merged over the suite's key by key: a case that sets only
    `threshold` keeps the suite's model, prompt and criteria.
    """

    model: str | None = Field(default=None, description="Judge model; default local/smollm2.")
    threshold: float = Field(default=DEFAULT_THRESHOLD, ge=0, le=1)
    prompt: str | None = Field(
        default=None,
        description="The judge prompt: `default`, `faithfulness` (is every claim supported by "
        "the case's context?) or a Jinja template seeing input, response, expected_behavior, "
        "rubric and context.",
    )
    criteria: dict[str, CriterionValue] | None = Field(
        default=None,
        description="Named criteria, each graded on its own (one grade each), besides "
        "expected_behavior: a rubric, or {rubric, threshold, prompt}. A case's criteria "
        "replace the suite's.",
    )
    samples: int = Field(
        default=1,
        ge=1,
        le=100,
        description="Ask the judge N times per criterion; the score is the mean.",
    )
    temperature: float | None = Field(
        default=None,
        ge=0,
        le=2,
        description="The judge's temperature; default 0 for one sample, 0.7 for several.",
    )

    @field_validator("criteria", mode="wrap")
    @classmethod
    def _names(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        if isinstance(value, Mapping) and (problems := _name_problems(value)):
            raise ValidationError.from_exception_data("criteria", problems)
        return handler(value)


def _case_judge(value: Any) -> Any:
    if value is True:
        raise ValueError(
            "give the case's judge settings as a mapping (`judge: {}` keeps the suite's "
            "judge as it is), or `judge: false` to not judge this case"
        )
    return value


def _judge_kind(value: Any) -> str:
    # A tagged union reports only the errors of the branch the value is written for.
    return "off" if value is False else "settings"


CaseJudge = Annotated[
    Annotated[JudgeSpec, Tag("settings")] | Annotated[Literal[False], Tag("off")],
    Discriminator(_judge_kind),
    BeforeValidator(_case_judge),
]
"""A case's `judge`: settings merged over the suite's, or false for none."""


Context = str | list[str]
"""Retrieved documents: one text, or a list of them (each a Jinja template of the vars)."""


CaseThreshold = Annotated[
    float | None,
    Field(
        ge=0,
        le=1,
        allow_inf_nan=False,
        strict=True,
        description="Pass at this weighted score (0-1) of the case's grades, even with a grade "
        "failed; without it every grade must pass (docs/metrics.md).",
    ),
]
"""A case's `threshold:` (or the suite's `defaults.threshold`)."""


def _named_criteria(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    """Criteria whose names are checked as a judge's are (`judge` is reserved)."""
    if isinstance(value, Mapping) and (problems := _name_problems(value)):
        raise ValidationError.from_exception_data("criteria", problems)
    return handler(value)


class QuerySpec(_Strict):
    """A user message with attachments: its text, then its images, documents and audio."""

    text: str = Field(default="", description="The user message (a Jinja template).")
    images: OneOrMany = Field(
        default_factory=list,
        description="Image files (.jpg .png .gif .webp; Jinja templates of the vars) or URLs.",
    )
    documents: OneOrMany = Field(default_factory=list, description="PDF files.")
    audio: OneOrMany = Field(default_factory=list, description="Audio files (.wav .mp3).")

    @model_validator(mode="after")
    def _says_something(self) -> QuerySpec:
        if not (self.text or self.images or self.documents or self.audio):
            raise ValueError("a query needs `text`, or `images`, `documents` or `audio`")
        return self


class TurnSpec(_Strict):
    """One scripted user turn of a conversation (`turns:`), graded on the reply to it."""

    query: str | QuerySpec = Field(
        description="The user's message (a Jinja template); {{ turns[0].reply }} reads an "
        "earlier turn's reply. Or {text, images, documents, audio}: the turn attaches files."
    )
    checks: list[CheckDefinition] = Field(default_factory=list)
    expected: dict[str, Any] | None = None
    attack_target: dict[str, Any] | None = None
    criteria: dict[str, CriterionValue] | None = Field(
        default=None, description="Judge criteria on this turn's reply (the case's judge model)."
    )

    @field_validator("criteria", mode="wrap")
    @classmethod
    def _names(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        return _named_criteria(value, handler)


class ConversationSpec(_Strict):
    """A conversation's own grades (`conversation:`): checks of every reply, judged transcript."""

    checks: list[CheckDefinition] = Field(
        default_factory=list,
        description="Checks seeing every reply joined (and every tool call of every turn).",
    )
    criteria: dict[str, CriterionValue] | None = Field(
        default=None, description="Judge criteria over the whole transcript."
    )

    @field_validator("criteria", mode="wrap")
    @classmethod
    def _names(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        return _named_criteria(value, handler)


class SimulateSpec(_Strict):
    """A simulated user (`simulate:`): a model plays the user, from a persona towards a goal."""

    model: str = Field(description="The simulated user's model (any provider).")
    goal: str = Field(min_length=1, description="What the simulated user wants.")
    max_turns: int = Field(ge=1, le=1000, description="The most user turns.")
    persona: str = Field(default="", description="Who the simulated user is.")
    stop: list[CheckDefinition] = Field(
        default_factory=list,
        description="Checks on each reply: the conversation ends after a reply passing all.",
    )
    opening: str | None = Field(default=None, description="A fixed first user message.")
    seed: int | None = None
    temperature: float | None = Field(default=None, ge=0, le=2)


class RowCopy(Enum):
    """What a data row writing a case key does to copying its file's first case for it.

    The rows of a data file are copied from its first row's case when they can
    (`suites._row_build`): a key a field of `CaseFields` marks so (``Annotated[..., FILLED]``)
    keeps the copy possible; any other key a row writes makes its case built in full, which
    is always right: a new key needs no role until its rows are worth copying.
    """

    FILLED = "filled"
    """The copy fills it in from the row, as a full build would (an id, vars, a prompt)."""
    SHARED = "shared"
    """A row may write it, to the first row's very value (``tags: [math]`` in every case):
    what it makes of the case depends on nothing else a row writes."""


FILLED = RowCopy.FILLED
SHARED = RowCopy.SHARED


class CaseFields(_Strict):
    """The keys a test case may have, in a suite, a TOML case file or a data row."""

    id: Annotated[str | None, FILLED] = Field(default=None, min_length=1)
    query: Annotated[str | QuerySpec | None, FILLED] = Field(
        default=None,
        description="The user message (a Jinja template), or {text, images, documents, audio}.",
    )
    messages: list[MessageSpec] | None = Field(
        default=None, description="A chat conversation instead of `query`."
    )
    system: Annotated[str | None, FILLED] = None
    expected_behavior: str | None = Field(
        default=None, description="What a good response does; the judge grades against it."
    )
    context: Context | None = Field(
        default=None,
        description="Retrieved documents (RAG): judge prompts see them as {{ context }}, and "
        "so do this case's templates; not sent to the model unless a template uses it.",
    )
    judge: CaseJudge | None = Field(
        default=None,
        description="This case's judge settings, merged over the suite's key by key; false: "
        "do not judge this case.",
    )
    checks: Annotated[list[CheckDefinition], FILLED] = Field(default_factory=list)
    vars: Annotated[dict[str, Any], FILLED] = Field(
        default_factory=dict,
        description="Template variables; {file: path} is a file's text, {files: glob} one "
        "case per file matched (its id + '-' + the file's name).",
    )
    tags: Annotated[OneOrMany, SHARED] = Field(default_factory=list)
    models: ModelIds | None = None
    tools: list[ToolSpec] | None = Field(
        default=None, description="Tools the model may call (OpenAI function schemas)."
    )
    tool_choice: ToolChoice | None = Field(
        default=None, description="auto, none, required, or {function: {name: ...}}."
    )
    target: (
        str
        | TargetSpec
        | SkipJsonSchema[HttpTarget]  # built in Python (`Prompt`), where any variable may be read
        | SkipJsonSchema[Callable[..., Any]]
        | None
    ) = Field(
        default=None,
        description="Your application answers instead of a model: `app.py:answer` (a Python "
        "function) or {url: ...} (an HTTP service). See docs/targets.md.",
    )
    params: ParamsSpec | None = None
    response_model: str | dict[str, Any] | SkipJsonSchema[type[BaseModel]] | None = Field(
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
    repeat: Annotated[int | None, SHARED] = Field(default=None, ge=1)
    must_pass: Annotated[bool, SHARED] = Field(
        default=False,
        description="Gate on this case alone: its failure or error fails the run, whatever "
        "the pass rate (prompt-injection cases, for example).",
    )
    transform: Transform | None = Field(
        default=None,
        description="A Jinja expression whose value the checks and field assertions see "
        "instead of the response, e.g. `output | trim` (docs/expressions.md).",
    )
    threshold: CaseThreshold = None
    turns: list[TurnSpec] | None = Field(
        default=None,
        min_length=1,
        description="A scripted conversation: user turns, each graded on its reply "
        "(docs/conversations.md). Instead of `query`/`messages`.",
    )
    simulate: SimulateSpec | None = Field(
        default=None, description="A conversation whose user a model plays (docs/conversations.md)."
    )
    conversation: ConversationSpec | None = Field(
        default=None, description="Grades over the whole conversation, besides each turn's."
    )


def keys_copied(role: RowCopy) -> frozenset[str]:
    """The case keys whose `CaseFields` field has `role` (see `RowCopy`)."""
    fields = CaseFields.model_fields
    return frozenset(name for name, field in fields.items() if role in field.metadata)


Rate = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False, strict=True)]
"""A rate between 0 and 1, written as a number (`true` or `"0.1"` is refused)."""


class GateSpec(_Strict):
    """The `gate` section: what fails a run besides its pass rate."""

    must_pass_tags: OneOrMany = Field(
        default_factory=list,
        description="Cases with any of these tags are must-pass cases.",
    )
    max_asr: Rate | dict[str, Rate] | None = Field(
        default=None,
        description="The highest attack success rate (0-1) of red-team cases the run accepts: "
        "one rate, or rates by goal ({prompt_leak: 0.1}). See docs/redteam.md.",
    )

    @field_validator("max_asr", mode="before")
    @classmethod
    def _rate_or_rates(cls, value: Any) -> Any:
        # One message, not one per member of the union (`constrained-float`, `dict[...]`).
        problem = gate_problem(value)
        if problem is not None:
            raise ValueError(problem)
        return value


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
    context: Context | None = Field(
        default=None,
        description='For cases without their own, e.g. `"{{ passage }}"` from a CSV column.',
    )
    threshold: CaseThreshold = None
    transform: Transform | None = Field(
        default=None, description="For cases without their own `transform:`."
    )


class EndpointSpec(EndpointConfig):
    """An endpoint in a suite's `endpoints`: where calls go, never which secret goes with them."""

    api_key_env: str | None = Field(
        default=None,
        description="Only PROMPTUM_<NAME>_API_KEY (NAME: this endpoint's name), which is read "
        "when set anyway; naming it makes it required. No other variable: see models.md.",
    )
    api_key: SkipJsonSchema[None] = Field(default=None, exclude=True)


def _key_problem(loc: tuple[str, str], message: str) -> InitErrorDetails:
    return InitErrorDetails(type=PydanticCustomError("value_error", message), loc=loc, input=None)


def _key_problems(endpoints: Mapping[Any, Any]) -> list[InitErrorDetails]:
    """A suite names where calls go: a key, or a variable not bound to the endpoint, is refused."""
    problems = []
    for name, raw in endpoints.items():
        if not isinstance(name, str) or not isinstance(raw, Mapping):
            continue  # the model's own validation says what is wrong
        bound = key_variable(name)
        if "api_key" in raw:
            problems.append(
                _key_problem(
                    (name, "api_key"),
                    "never write an API key into a suite file (whoever reads the file can use "
                    f"it): export it as {bound}, the variable endpoint {name!r} reads its key from",
                )
            )
        variable = raw.get("api_key_env")
        if variable is not None and variable != bound:
            problems.append(
                _key_problem(
                    (name, "api_key_env"),
                    "a suite cannot choose which secret is sent to the server it names: endpoint "
                    f"{name!r} reads its key only from {bound}. Export the key under that name "
                    f"and remove `api_key_env` (or set it to {bound} to make the key required); "
                    f"to send {variable} there, configure the endpoint in Python (ClientOptions)",
                )
            )
    return problems


class ColumnCheckSpec(_Strict):
    """A check of `columns`: a check's keys but `value`, which comes from the row's cell."""

    type: str
    case_insensitive: bool | None = None
    threshold: float | None = None
    model: str | None = None
    metric: str | None = None
    weight: float | None = None

    @field_validator("type")
    @classmethod
    def _known_type(cls, value: str) -> str:
        # Checked now, not at the first non-empty cell: with none, a typo would go unseen.
        get_check_type(value)
        return value


class PromptFileSpec(_Strict):
    """A prompt variant kept in its own file, relative to the suite."""

    file: str = Field(description="A .txt (the user message) or .yaml (a list of messages).")


PromptVariantValue = str | list[MessageSpec] | PromptFileSpec
"""A prompt variant: inline text, a chat template, or a file holding either."""


class SuiteSpec(_Strict):
    """A suite file: its settings and its test cases."""

    name: str | None = None
    description: str | None = None
    models: ModelIds | None = Field(
        default=None, description="Models every case runs on; default local/smollm2."
    )
    tools: list[ToolSpec] | None = Field(
        default=None, description="Tools every case offers the model (OpenAI function schemas)."
    )
    tool_choice: ToolChoice | None = None
    target: str | TargetSpec | None = Field(
        default=None,
        description="Your application answers every case instead of a model: `app.py:answer` "
        "or {url: ...}. See docs/targets.md.",
    )
    system: str | None = None
    prompt: str | None = Field(
        default=None,
        description="Template for cases without `query` or `messages` (handy with `cases_from`).",
    )
    vars: dict[str, Any] = Field(
        default_factory=dict,
        description="Template variables of every case; {file: path} is a file's text.",
    )
    tags: OneOrMany = Field(default_factory=list)
    defaults: DefaultsSpec | None = None
    repeat: int = Field(default=1, ge=1)
    judge: JudgeSpec | None = None
    gate: GateSpec = Field(default_factory=GateSpec)
    test_cases: list[CaseFields] = Field(default_factory=list)
    cases_from: OneOrMany = Field(
        default_factory=list,
        description="CSV or JSONL files (one case per row), YAML case files (a list of cases), "
        "TOML case files and folders of them, or globs (cases/*.yaml), relative to this file.",
    )
    columns: dict[str, ColumnCheckSpec] = Field(
        default_factory=dict,
        description="Per-row checks of `cases_from` rows: column name -> a check without its "
        "value ({type: contains}); the row's cell is the value, an empty cell means no check.",
    )
    prompts: dict[str, PromptVariantValue] = Field(
        default_factory=dict,
        description="Named prompt variants: every case runs on each. Inline text, a chat "
        "template (a list of messages) or {file: prompts/v2.txt|.yaml}; all Jinja templates "
        "of the case's vars ({{ query }} is the case's query).",
    )
    endpoints: dict[str, EndpointSpec] = Field(
        default_factory=dict,
        description="Named OpenAI-compatible endpoints: `<name>/<model>` ids are sent there. "
        "Keys come from the environment: PROMPTUM_<NAME>_API_KEY only.",
    )
    pricing: dict[str, Price] = Field(
        default_factory=dict, description="USD per million input/output tokens, by model id."
    )
    redteam: RedteamSpec | None = Field(
        default=None,
        description="Generate attack cases when loaded: goals × strategies, seeded. See "
        "docs/redteam.md.",
    )
    generator: str | None = Field(
        default=None,
        description="The model `promptum generate cases` writes new cases with (any model id); "
        "`--model` replaces it. See docs/generating.md.",
    )

    @field_validator("endpoints", mode="wrap")
    @classmethod
    def _bind_keys(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        # Checked on the raw mapping, before the fields: a key must never be echoed in an error.
        if isinstance(value, Mapping) and (problems := _key_problems(value)):
            raise ValidationError.from_exception_data("endpoints", problems)
        return handler(value)


def suite_json_schema() -> dict[str, Any]:
    """The JSON Schema of a suite file, for editors (yaml-language-server) and `promptum schema`."""
    from promptum.checks import all_check_types

    check_types = all_check_types()  # registered and installed plugins' types too
    schema = SuiteSpec.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "promptum suite"
    check = schema["$defs"]["CheckDefinition"]
    check["properties"]["type"]["enum"] = list(check_types)
    check["description"] = "A deterministic check: " + "; ".join(
        f"{t.name}: {t.passes_when}" for t in check_types.values()
    )
    return schema
