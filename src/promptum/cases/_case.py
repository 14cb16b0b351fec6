"""`TestCase`: one prompt with everything needed to run and grade it, validated before a run.

Each field declares its roles once (`roles`, see `promptum.cases._roles`): whether the resume
fingerprint hashes it and how, whether a data file's row sets it, what a conversation resets.
A new key is a field here (or, if it grades the response, in `Grading`) with its roles, the
suite format's key, and the build filling it in.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar

from pydantic import BaseModel

from promptum.cases._grading import Grading
from promptum.cases._hashed import (
    messages_data,
    messages_json,
    params_data,
    simulation_data,
    string_text,
    turns_data,
)
from promptum.cases._parts import GenerationParams, Simulation, Turn
from promptum.cases._roles import (
    CONVERSATION_RESET,
    HASHED,
    HASHED_WHEN_SET,
    PER_ROW,
    TURN_RESET,
    Hashed,
    When,
    declared_roles,
    nested,
    roles,
)
from promptum.checks import CheckInput
from promptum.values.case_result import Message, namespaced
from promptum.values.completion import Completion
from promptum.values.target import Target

_TURNS = Hashed(encode=turns_data, when=When.CONVERSATION)
_SIMULATION = Hashed(encode=simulation_data, when=When.CONVERSATION)


@declared_roles
@dataclass(frozen=True, slots=True)
class TestCase:
    """One case: the messages to send and every way its response is graded (`grading`).

    `models` empty means "the run's default models".
    """

    __test__: ClassVar[bool] = False  # not a pytest test class, despite the name

    # Roles (`promptum.cases._roles`). Not hashed (`hashed=None`): where a case was written,
    # how its result is counted (tags, must_pass), the model a hashed schema is parsed into,
    # what the run decides (target, its id being in `models`). The grading's fields are
    # hashed by their own roles, as the case's keys.

    id: str = field(metadata=roles(PER_ROW, hashed=Hashed(text=string_text)))
    messages: tuple[Message, ...] = field(
        metadata=roles(PER_ROW, hashed=Hashed(encode=messages_data, text=messages_json))
    )
    models: tuple[str, ...] = field(default=(), metadata=roles(hashed=HASHED))
    params: GenerationParams = field(
        default_factory=GenerationParams, metadata=roles(hashed=Hashed(encode=params_data))
    )
    grading: Grading = field(default=Grading(), metadata=roles(hashed=nested(Grading)))
    """Every way its responses are graded; its fields are hashed as the case's own."""
    response_schema: Mapping[str, Any] | None = field(
        default=None, metadata=roles(CONVERSATION_RESET, hashed=Hashed(key="schema"))
    )
    """The JSON Schema of the structured output, sent with the request; a response is
    graded on fitting it."""
    response_model: type[BaseModel] | None = field(
        default=None,
        metadata=roles(CONVERSATION_RESET, hashed=None),  # its schema is hashed
    )
    """A pydantic model the structured output is parsed into before field assertions."""
    context: tuple[str, ...] | None = field(default=None, metadata=roles(hashed=HASHED))
    """Retrieved documents the response should rest on; judge prompts see ``{{ context }}``."""
    tags: tuple[str, ...] = field(default=(), metadata=roles(hashed=None))
    repeat: int = field(default=1, metadata=roles(hashed=HASHED))
    source: str | None = field(default=None, metadata=roles(PER_ROW, hashed=None))
    """Where the case was defined, as ``file:line``."""
    must_pass: bool = field(default=False, metadata=roles(hashed=None))
    """Any failure or error of this case fails the run's gate, whatever the pass rate."""
    vars: Mapping[str, Any] = field(
        default_factory=dict, metadata=roles(PER_ROW, hashed=Hashed(when=When.READ))
    )
    """The variables its templates were rendered with; checks the user wrote see them."""
    target: Target | None = field(default=None, metadata=roles(CONVERSATION_RESET, hashed=None))
    """The function or service answering the case instead of a model (its id is in
    `models`); the session gives it to the model client."""
    tools: tuple[dict[str, Any], ...] | None = field(
        default=None, metadata=roles(hashed=HASHED_WHEN_SET)
    )
    """Tools the model may call, as OpenAI function schemas."""
    tool_choice: str | dict[str, Any] | None = field(
        default=None, metadata=roles(hashed=HASHED_WHEN_SET)
    )
    suite: str = field(default="", metadata=roles(hashed=HASHED))
    """The suite's name: ids are unique within a suite, ``suite/id`` within a run."""
    variant: str = field(default="", metadata=roles(hashed=HASHED))
    """The prompt variant these messages are (a suite's `prompts:`); "" when it has none."""
    turns: tuple[Turn, ...] = field(
        default=(), metadata=roles(TURN_RESET | CONVERSATION_RESET, hashed=_TURNS)
    )
    """A scripted conversation (docs/conversations.md): `messages` open it, then each turn's
    query is sent with every earlier reply; empty: one request."""
    simulate: Simulation | None = field(
        default=None, metadata=roles(TURN_RESET | CONVERSATION_RESET, hashed=_SIMULATION)
    )
    """A conversation whose user a model plays; exclusive with `turns`."""

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
