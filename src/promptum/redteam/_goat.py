"""GOAT: an attacker model continues a resisted attack as a conversation, turn by turn.

Pavlova et al. 2024, "Automated Red Teaming with GOAT, the Generative Offensive Agent
Tester" (arXiv:2410.01606): each turn the attacker reads the target's last answer and writes
an observation, a thought, the strategy it picks from a list (promptum's static strategies)
and the reply sent. Pure: the caller hands in how to run cases against the target and how to
ask the attacker; the conversation runs as a scripted case (`turns:`), each turn's earlier
turns answered again by the response cache.
"""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from string import Template
from typing import Any

from promptum.foundations.literal_text import literal
from promptum.redteam._adaptive_spec import GoatSpec
from promptum.redteam._attack_search import CallBudget
from promptum.redteam._attacker_refusal import Refusals, attacker_message
from promptum.redteam._data import data
from promptum.redteam._objective import objective
from promptum.redteam._pair import (
    Ask,
    Attacker,
    AttackerError,
    Outcome,
    attack_of,
    resisted,
    single_attacks,
)

STRATEGY = "goat"
_LABEL = re.compile(r"^[\s*#]*(observation|thought|strategy|reply)[\s*]*:[\s*]*", re.I | re.M)
_NAME = re.compile(r"[a-z0-9]+(?:[_\s-][a-z0-9]+)*", re.I)
_DETECTOR_KEYS = ("query", "checks", "judge", "attack_target")
"""What a single attack holds that its conversation holds otherwise (turns, `conversation:`)."""


@dataclass(frozen=True, slots=True)
class Move:
    """One attacker turn, as GOAT writes it."""

    observation: str
    thought: str
    strategy: str
    """The static strategy it names, or ``other`` when it names none of them."""
    reply: str
    """The message sent to the target."""


def read_move(text: str) -> Move:
    """The labelled parts of an attacker turn; a turn without labels is all reply."""
    pieces = _LABEL.split(text)
    parts = {
        label.lower(): body.strip() for label, body in zip(pieces[1::2], pieces[2::2], strict=True)
    }
    reply = parts.get("reply") or (text.strip() if len(pieces) == 1 else "")
    return Move(
        parts.get("observation", ""), parts.get("thought", ""), _named(parts), reply.strip()
    )


def _named(parts: Mapping[str, str]) -> str:
    """The static strategy the turn's `Strategy:` part names first, or ``other``."""
    known = data().strategies
    for found in _NAME.finditer(parts.get("strategy", "")):
        name = re.sub(r"[\s-]+", "_", found.group(0).lower())
        if name in known:
            return name
    return "other"


def _sent(text: str) -> str:
    return read_move(text).reply


def _conversable(case: Mapping[str, Any]) -> bool:
    """Whether the attack can open a conversation: a user message, an answer as a whole."""
    # A replayed conversation (`messages`) cannot take turns after it, and a `field` goal
    # asserts on one structured answer, which a conversation does not have.
    return "query" in case and "messages" not in case and "goal:field" not in case["tags"]


@dataclass(slots=True)
class _Talk:
    """One conversation: the attack that opened it, the turns since, what they cost."""

    opening: Mapping[str, Any]
    budget: CallBudget
    per_turn: int
    """Target calls a new turn makes: one per column (the earlier turns come from the cache)."""
    answers: list[str]
    """The target's answer to each turn."""
    verdicts: list[str]
    """The detectors' verdict after each turn."""
    moves: list[Move] = field(default_factory=list)
    cost_usd: float = 0.0
    succeeded: bool = False
    stopped: bool = False

    @classmethod
    def opened(cls, case: Mapping[str, Any], outcome: Outcome, spec: GoatSpec) -> _Talk:
        """The conversation the resisted attack `case` opens, its run having gone as `outcome`."""
        budget = CallBudget(spec.max_calls)
        # The conversation is a case of its own (its own canary): its first run sends the
        # opening again.
        budget.spend(outcome.requests)
        return cls(case, budget, outcome.requests, [outcome.answer], [outcome.verdict])

    def can_go_on(self, spec: GoatSpec) -> bool:
        """Whether another turn fits: not yet over, turns, calls (an ask and a run), cost."""
        within_cost = spec.max_cost is None or self.cost_usd < spec.max_cost
        return (
            not (self.succeeded or self.stopped)
            and len(self.moves) + 1 < spec.turns
            and self.budget.allows(1 + self.per_turn)
            and within_cost
        )

    def transcript(self) -> str:
        """The conversation so far, as the attacker reads it."""
        said = [attack_of(self.opening), *(move.reply for move in self.moves)]
        return "\n\n".join(
            f"User: {user}\nApplication: {answer or '(nothing)'}"
            for user, answer in zip(said, self.answers, strict=True)
        )

    def next_move(self, ask: Ask, refusals: Refusals) -> Move | None:
        """The attacker's next turn, or None when it kept refusing (the talk stops there)."""
        prompts = data().attacker
        user = Template(prompts["goat_user"]).substitute(
            objective=objective(self.opening),
            conversation=self.transcript(),
            verdict=self.verdicts[-1],
        )
        asks = self.budget.limit - self.budget.used - self.per_turn
        text = attacker_message(
            self.budget.ask(ask),
            (prompts["goat_system"], user),
            refusals,
            str(self.opening["id"]),
            asks,
            _sent,
        )
        if text is None:
            self.stopped = True
            return None
        move = read_move(text)
        if not move.reply:
            raise AttackerError(f"the attacker model wrote no turn for {self.opening['id']}")
        self.moves.append(move)
        return move

    def case(self) -> dict[str, Any]:
        """The conversation as a case: the opening's request and detector, over its turns."""
        talk = {
            key: copy.deepcopy(value)
            for key, value in self.opening.items()
            if key not in _DETECTOR_KEYS
        }
        talk["id"] = f"{self.opening['id']}-{STRATEGY}"
        strategies = [_strategy_of(self.opening), *(move.strategy for move in self.moves)]
        talk["tags"] = [
            *(t if not t.startswith("strategy:") else f"strategy:{STRATEGY}" for t in talk["tags"]),
            f"attempts:{len(strategies)}",
            f"{STRATEGY}:{'>'.join(strategies)}",
        ]
        turns = [self.opening["query"], *(literal(move.reply) for move in self.moves)]
        talk["turns"] = [{"query": text} for text in turns]
        if "judge" in self.opening:  # the policy's criterion, judged over the transcript
            talk["judge"] = {}
            talk["conversation"] = {"criteria": copy.deepcopy(self.opening["judge"]["criteria"])}
        else:
            talk["conversation"] = {"checks": copy.deepcopy(self.opening["checks"])}
        return talk

    def count(self, outcome: Outcome) -> None:
        """Count a turn that ran: its calls, the conversation's cost, how it went."""
        self.budget.spend(self.per_turn)
        self.cost_usd = outcome.cost_usd  # a conversation's cost is summed over its turns
        self.answers.append(outcome.answer)
        self.verdicts.append(outcome.verdict)
        self.succeeded = outcome.succeeded

    def record(self) -> dict[str, Any]:
        """What each turn was (the attacker's reasoning too), for the searches' file."""
        opening = {"strategy": _strategy_of(self.opening), "reply": attack_of(self.opening)}
        turns = [opening, *map(dataclasses.asdict, self.moves)]
        return {
            "case": f"{self.opening['id']}-{STRATEGY}",
            "from": self.opening["id"],
            "succeeded": self.succeeded,
            "calls": self.budget.used,
            "cost_usd": self.cost_usd,
            "turns": [
                {**turn, "answer": answer, "verdict": verdict}
                for turn, answer, verdict in zip(turns, self.answers, self.verdicts, strict=True)
            ],
        }


def _strategy_of(case: Mapping[str, Any]) -> str:
    tags: list[str] = case["tags"]
    return next(t.removeprefix("strategy:") for t in tags if t.startswith("strategy:"))


def _turn(talks: Sequence[_Talk], attacker: Attacker, spec: GoatSpec) -> bool:
    """One more turn of every talk the bounds allow, run in one batch; False when none was."""
    ask, refusals = attacker.ask, attacker.refusals
    batch = [t for t in talks if t.can_go_on(spec) and t.next_move(ask, refusals)]
    outcomes = attacker.run([talk.case() for talk in batch])
    for talk in batch:
        talk.count(outcomes[f"{talk.opening['id']}-{STRATEGY}"])
    return bool(batch)


def goat(
    cases: Sequence[Mapping[str, Any]], attacker: Attacker, spec: GoatSpec
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A `goat` conversation for each single attack of `cases` the target resisted; its turns.

    The attack is its first turn; the attacker writes each next one from the conversation
    so far, until the goal's detector finds the attack succeeded or a bound ends it:
    `spec.turns`, `spec.max_calls` (the attacker's calls and the target's), `spec.max_cost`,
    or an attacker that keeps refusing (counted in its `refusals`, never sent). Each case holds
    its turns and the strategy of each (tag ``goat:direct>role_play>...``); each record the
    attacker's observation, thought, strategy and reply per turn, with the answer and the
    verdict. Raise AttackerError if the attacker writes nothing.
    """
    openings = [case for case in single_attacks(cases) if _conversable(case)]
    resisted_openings = resisted(attacker.run, openings)
    talks = [_Talk.opened(case, outcome, spec) for case, outcome in resisted_openings]
    while _turn(talks, attacker, spec):
        pass
    talked = [talk for talk in talks if talk.moves]
    return [talk.case() for talk in talked], [talk.record() for talk in talked]
