"""`TestCase`: one prompt with everything needed to run and grade it, validated before a run."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar

from pydantic import BaseModel

from promptum.case_result import Message, namespaced
from promptum.checks import CheckDefinition, CheckInput
from promptum.completion import Completion
from promptum.providers import Target
from promptum.validation import Validator

DEFAULT_THRESHOLD = 0.7


@dataclass(frozen=True, slots=True)
class GenerationParams:
    """Sampling parameters sent with every call of a case."""

    temperature: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Provider-specific parameters passed through unchanged."""


DEFAULT_SAMPLE_TEMPERATURE = 0.7
"""The judge's temperature when it samples more than once: at 0 every sample would agree."""


@dataclass(frozen=True, slots=True)
class Criterion:
    """One named criterion the judge scores on its own, as one grade (G-Eval style)."""

    name: str
    rubric: str = ""
    """What a good response does; the judge prompt sees it as ``{{ rubric }}``."""
    threshold: float | None = None
    """The least passing score; None: the judge's threshold."""
    prompt: str | None = None
    """This criterion's judge prompt (a built-in's name or a template); None: the judge's."""
    metric: str | None = None
    """The metric its grade is counted under in reports (docs/metrics.md); None: none."""


@dataclass(frozen=True, slots=True)
class JudgeConfig:
    """Which model grades responses, against what, how often, and the passing score.

    The case's `expected_behavior` is the criterion named ``judge``; `criteria` add more.
    """

    model: str
    threshold: float = DEFAULT_THRESHOLD
    prompt: str | None = None
    """A built-in judge prompt's name (``default``, ``faithfulness``) or a Jinja template
    replacing the default (see `promptum.runner.JUDGE_PROMPT`)."""
    criteria: tuple[Criterion, ...] = ()
    samples: int = 1
    """How many times the judge grades each criterion; the grade's score is their mean."""
    temperature: float | None = None
    """The judge's temperature; None: 0 for one sample, DEFAULT_SAMPLE_TEMPERATURE for more."""

    def __post_init__(self) -> None:
        if self.samples < 1:
            raise ValueError(f"judge samples must be at least 1, got {self.samples}")

    @property
    def sampling_temperature(self) -> float:
        """The temperature every judge call is made at."""
        if self.temperature is not None:
            return self.temperature
        return DEFAULT_SAMPLE_TEMPERATURE if self.samples > 1 else 0.0


@dataclass(frozen=True, slots=True)
class Turn:
    """One scripted user turn of a conversation, graded on the reply to it."""

    query: str
    """The user's message. Rendered when the suite loads, unless it reads ``turns`` (the
    earlier turns' ``query`` and ``reply``): then it is rendered when the turn is reached."""
    reads_turns: bool = False
    """Whether `query` is still a template, rendered with the case's vars and ``turns``."""
    checks: tuple[CheckDefinition, ...] = ()
    expected: Mapping[str, Any] | None = None
    attack_target: Mapping[str, Any] | None = None
    criteria: tuple[Criterion, ...] = ()
    """Judge criteria on this turn's reply, graded by the case's judge model."""
    source: str | None = None
    """Where the turn was written, as ``file:line``."""


@dataclass(frozen=True, slots=True)
class ConversationGrading:
    """Grades over a whole conversation: checks see every reply, the judge the transcript."""

    checks: tuple[CheckDefinition, ...] = ()
    """Checks of the conversation: their text is every reply, their tool calls every call."""
    criteria: tuple[Criterion, ...] = ()
    """Judge criteria over the transcript, graded by the case's judge model."""


GOAL_REACHED = "[[GOAL REACHED]]"
"""What a simulated user answers, alone, when its goal is reached: the conversation ends."""


@dataclass(frozen=True, slots=True)
class Simulation:
    """A model playing the user, from a persona towards a goal, until a stop."""

    model: str
    goal: str
    max_turns: int
    """The most user turns; the conversation ends after the reply to the last one."""
    persona: str = ""
    stop: tuple[CheckDefinition, ...] = ()
    """Checks on each reply: the conversation ends after the first reply passing all of them."""
    opening: str | None = None
    """The first user message as written; None: the simulated user writes it too."""
    seed: int | None = None
    temperature: float | None = None

    def __post_init__(self) -> None:
        if self.max_turns < 1:
            raise ValueError(f"max_turns must be at least 1, got {self.max_turns}")


@dataclass(frozen=True, slots=True)
class TestCase:
    """One case: the messages to send and every way its response is graded.

    `models` empty means "the run's default models"; `judge` None means no judging.
    """

    __test__: ClassVar[bool] = False  # not a pytest test class, despite the name

    id: str
    messages: tuple[Message, ...]
    models: tuple[str, ...] = ()
    params: GenerationParams = field(default_factory=GenerationParams)
    checks: tuple[CheckDefinition, ...] = ()
    validator: Validator | None = None
    response_schema: Mapping[str, Any] | None = None
    response_model: type[BaseModel] | None = None
    """A pydantic model the structured output is parsed into before field assertions."""
    expected: Mapping[str, Any] | None = None
    attack_target: Mapping[str, Any] | None = None
    expected_behavior: str | None = None
    context: tuple[str, ...] | None = None
    """Retrieved documents the response should rest on; judge prompts see ``{{ context }}``."""
    judge: JudgeConfig | None = None
    tags: tuple[str, ...] = ()
    repeat: int = 1
    source: str | None = None
    """Where the case was defined, as ``file:line``."""
    must_pass: bool = False
    """Any failure or error of this case fails the run's gate, whatever the pass rate."""
    threshold: float | None = None
    """The weighted score (0-1) at which the case passes, failed grades and all; None: every
    grade must pass (`promptum.metrics.thresholded_status`)."""
    transform: str | None = None
    """A Jinja expression whose value every check and field assertion sees instead of the
    response (docs/expressions.md); None: the response as it came."""
    vars: Mapping[str, Any] = field(default_factory=dict)
    """The variables its templates were rendered with; checks the user wrote see them."""
    target: Target | None = None
    """The function or service answering the case instead of a model (its id is in
    `models`); the session gives it to the model client."""
    tools: tuple[dict[str, Any], ...] | None = None
    """Tools the model may call, as OpenAI function schemas."""
    tool_choice: str | dict[str, Any] | None = None
    suite: str = ""
    """The suite's name: ids are unique within a suite, ``suite/id`` within a run."""
    variant: str = ""
    """The prompt variant these messages are (a suite's `prompts:`); "" when it has none."""
    turns: tuple[Turn, ...] = ()
    """A scripted conversation (docs/conversations.md): `messages` open it, then each turn's
    query is sent with every earlier reply; empty: one request."""
    simulate: Simulation | None = None
    """A conversation whose user a model plays; exclusive with `turns`."""
    conversation: ConversationGrading | None = None
    """Grades over the whole conversation, besides each turn's."""
    judge_off: bool = False
    """Its judge was turned off for the run (`--no-judge`): a response only the judge would
    grade is then ungraded, and its error says so."""

    @property
    def is_conversation(self) -> bool:
        """Whether the case is a conversation (scripted or simulated), not one request."""
        return bool(self.turns) or self.simulate is not None

    @property
    def key(self) -> str:
        """The id that is unique within a run: ``suite/id``, or the id outside a suite."""
        return namespaced(self.suite, self.id)

    def check_input(
        self, completion: Completion, output: Any, model: str | None, repeat: int
    ) -> CheckInput:
        """What a check the user wrote (or an expression) sees of this case's response."""
        return CheckInput(
            completion.text,
            output,
            completion,
            MappingProxyType(self.vars),
            self.id,
            completion.model if model is None else model,
            repeat,
            self.tags,
        )
