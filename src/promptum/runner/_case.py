"""`TestCase`: one prompt with everything needed to run and grade it, validated before a run."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pydantic import BaseModel

from promptum.checks import CheckDefinition
from promptum.results import Message
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


@dataclass(frozen=True, slots=True)
class JudgeConfig:
    """Which model grades responses against `expected_behavior`, and the passing score."""

    model: str
    threshold: float = DEFAULT_THRESHOLD
    prompt: str | None = None
    """A Jinja template replacing the default rubric (see `promptum.runner.JUDGE_PROMPT`)."""


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
    judge: JudgeConfig | None = None
    tags: tuple[str, ...] = ()
    repeat: int = 1
    source: str | None = None
    """Where the case was defined, as ``file:line``."""
    must_pass: bool = False
    """Any failure or error of this case fails the run's gate, whatever the pass rate."""
