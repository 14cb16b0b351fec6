"""The parts of a case: its sampling parameters, judge, criteria, turns and simulated user."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from promptum.cases._roles import (
    HASHED,
    HASHED_WHEN_SET,
    Hashed,
    declared_roles,
    role_table,
    roles,
)
from promptum.checks import CheckDefinition
from promptum.values.content import ContentPart

DEFAULT_THRESHOLD = 0.7


@declared_roles
@dataclass(frozen=True, slots=True)
class GenerationParams:
    """Sampling parameters sent with every call of a case.

    Each field but `extra` is a field of the same name of `promptum.providers.ModelRequest`
    (`SAMPLING_PARAMETERS` there), copied into each call by name; its roles say how the
    resume fingerprint hashes it (`HASHED_WHEN_SET` for a new one, so interrupted runs still
    resume).
    """

    temperature: float | None = field(default=None, metadata=roles(hashed=HASHED))
    max_tokens: int | None = field(default=None, metadata=roles(hashed=HASHED))
    seed: int | None = field(default=None, metadata=roles(hashed=HASHED))
    extra: Mapping[str, Any] = field(
        default_factory=dict, metadata=roles(hashed=Hashed(encode=dict))
    )
    """Provider-specific parameters passed through unchanged."""
    top_p: float | None = field(default=None, metadata=roles(hashed=HASHED_WHEN_SET))
    """Nucleus sampling: only the most likely tokens whose probabilities add up to this."""

    def sampling(self) -> tuple[tuple[str, Any], ...]:
        """(name, value) of each sampling parameter, a new one only when set: a run's config."""
        return tuple(
            (item.key, getattr(self, item.name))
            for item in _SAMPLING
            if item.hashed_now(getattr(self, item.name))
        )


_PARAMS_HASHED = {item.name: item for item in role_table(GenerationParams).hashed}
_SAMPLING = tuple(
    _PARAMS_HASHED[name] for name in role_table(GenerationParams).names if name != "extra"
)
"""The sampling parameters' roles, in the order of the fields."""


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
    replacing the default (see `promptum.cases.JUDGE_PROMPT`)."""
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
    parts: tuple[ContentPart, ...] = ()
    """The images, documents and audio the turn's message carries after its text."""


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
