"""`Grading`: every way a case's response is graded, held by the case as `case.grading`.

Its fields declare their roles as the case's do (`promptum.cases._roles`): the resume
fingerprint hashes each under its own key among the case's (so grouping them changed no
fingerprint), and a conversation's turn and its grades over the whole conversation are this
grading with what they reset (`Role.TURN_RESET`, `Role.CONVERSATION_RESET`) and set
(`for_turn`, `for_replies`, `for_transcript`). The rows of a data file share their
prototype's `Grading` object.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from promptum.cases._hashed import (
    check_data,
    conversation_data,
    judge_data,
    validator_data,
)
from promptum.cases._parts import ConversationGrading, JudgeConfig, Turn
from promptum.cases._roles import (
    CONVERSATION_RESET,
    HASHED,
    HASHED_WHEN_SET,
    TURN_RESET,
    Hashed,
    When,
    declared_roles,
    role_table,
    roles,
)
from promptum.checks import CheckDefinition
from promptum.validation import Validator


@declared_roles
@dataclass(frozen=True, slots=True)
class Grading:
    """How a case's responses are graded: checks, validator, field assertions, the judge.

    The case's output shape (`response_schema`, `response_model`) is not here: it is sent
    with the request, and the response is parsed into it before any grade.
    """

    checks: tuple[CheckDefinition, ...] = field(
        default=(), metadata=roles(CONVERSATION_RESET, hashed=Hashed(each=check_data))
    )
    validator: Validator | None = field(
        default=None, metadata=roles(CONVERSATION_RESET, hashed=Hashed(encode=validator_data))
    )
    expected: Mapping[str, Any] | None = field(
        default=None, metadata=roles(CONVERSATION_RESET, hashed=HASHED)
    )
    """Field assertions: each field of the structured output equals (or is one of) these."""
    attack_target: Mapping[str, Any] | None = field(
        default=None, metadata=roles(CONVERSATION_RESET, hashed=HASHED)
    )
    """Field assertions: no field of the structured output takes the attacker's value."""
    expected_behavior: str | None = field(
        default=None, metadata=roles(TURN_RESET | CONVERSATION_RESET, hashed=HASHED)
    )
    """The judge's own criterion (named ``judge``): what a good response does."""
    judge: JudgeConfig | None = field(
        default=None, metadata=roles(CONVERSATION_RESET, hashed=Hashed(encode=judge_data))
    )
    """The judge's model, criteria and threshold; None: no judging."""
    threshold: float | None = field(default=None, metadata=roles(hashed=HASHED_WHEN_SET))
    """The weighted score (0-1) at which the case passes, failed grades and all; None: every
    grade must pass (`promptum.values.metrics.thresholded_status`)."""
    transform: str | None = field(
        default=None, metadata=roles(CONVERSATION_RESET, hashed=HASHED_WHEN_SET)
    )
    """A Jinja expression whose value every check and field assertion sees instead of the
    response (docs/expressions.md); None: the response as it came."""
    conversation: ConversationGrading | None = field(
        default=None,
        metadata=roles(
            TURN_RESET | CONVERSATION_RESET,
            hashed=Hashed(encode=conversation_data, when=When.CONVERSATION),
        ),
    )
    """Grades over the whole conversation, besides each turn's."""
    default_checks: int = field(default=0, metadata=roles(CONVERSATION_RESET, hashed=None))
    """How many of `checks`, first, are the suite's `defaults.checks`: an attack's own checks
    detect it, never these (docs/redteam.md, Reading ASR). Not hashed: `checks`'s hash tells."""
    judge_off: bool = field(default=False, metadata=roles(hashed=None))
    """The judge was turned off for the run (`--no-judge`): a response only the judge would
    grade is then ungraded, and its error says so. Not hashed: `judge`'s hash tells."""

    def for_turn(self, turn: Turn) -> Grading:
        """What one turn's reply is graded by, as the turn says.

        These checks (a suite's defaults) and the turn's own, its field assertions, its
        criteria judged by this judge's model, and nothing only the whole conversation has
        (`Role.TURN_RESET`).
        """
        judge = None
        if self.judge is not None and turn.criteria:
            judge = replace(self.judge, criteria=turn.criteria)
        own = {
            "checks": self.checks + turn.checks,
            "expected": turn.expected,
            "attack_target": turn.attack_target,
            "judge": judge,
        }
        return replace(self, **{**dict(role_table(type(self)).turn_reset), **own})

    def for_replies(self) -> Grading:
        """What a conversation's replies together are graded by: its own checks alone."""
        checks = () if self.conversation is None else self.conversation.checks
        return replace(self, **{**self._conversation_reset(), "checks": checks})

    def for_transcript(self) -> Grading:
        """What a conversation's transcript is judged by.

        `expected_behavior`, the judge's criteria and the conversation's, and nothing else
        (`Role.CONVERSATION_RESET`).
        """
        judge = self.judge
        if judge is not None and self.conversation is not None:
            judge = replace(judge, criteria=judge.criteria + self.conversation.criteria)
        own = {"expected_behavior": self.expected_behavior, "judge": judge}
        return replace(self, **{**self._conversation_reset(), **own})

    def _conversation_reset(self) -> dict[str, Any]:
        """Each field a conversation's own grades reset, with its default."""
        return dict(role_table(type(self)).conversation_reset)
