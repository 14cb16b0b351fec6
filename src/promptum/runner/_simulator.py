"""The simulated user of a conversation: a model playing the user, from a persona to a goal.

It sees the transcript with the roles swapped (its own messages are the assistant's, the
assistant's replies are the user's), so any chat model can play it, and answers with the
user's next message, or `GOAL_REACHED` alone once the goal is reached.
"""

from __future__ import annotations

import hashlib

from promptum.cases import GOAL_REACHED, Simulation, TestCase
from promptum.providers import ModelRequest
from promptum.values.run_result import Message

SIMULATOR_MAX_TOKENS = 80
"""The longest message the simulated user writes, in tokens (about 60 words): a user's turn
is short, and a small model left to run on would ramble in the user's name."""

SIMULATOR_PROMPT = """\
You are playing a user who is talking to an AI assistant.{persona}
Your goal: {goal}
Reply with only the user's next message: no role labels, no quotes, no commentary.
When the goal has been reached, reply with exactly {marker} and nothing else."""
"""The simulated user's system prompt: its persona (if any) and goal, and how to end."""

OPENING = "(The conversation starts: write your first message to the assistant.)"
"""The first message the simulated user sees, so that its transcript starts with a user turn
(chat templates expect one)."""

Exchange = tuple[str, str]
"""One finished turn: what the user said, and the assistant's reply."""


def _simulator_seed(simulation: Simulation, case: TestCase, repeat: int) -> int:
    """The seed of the user's calls: the simulation's, the case's, else one from the unit."""
    if simulation.seed is not None:
        return simulation.seed
    if case.params.seed is not None:
        return case.params.seed
    # Stable across runs and processes (not `hash`), different between repeats.
    digest = hashlib.sha256(f"{case.key}\0{case.variant}\0{repeat}".encode()).digest()
    return int.from_bytes(digest[:4], "big") >> 1


def _system_prompt(simulation: Simulation) -> str:
    """What the simulated user is told it is, wants, and how to end the conversation."""
    persona = f"\nWho you are: {simulation.persona}" if simulation.persona else ""
    return SIMULATOR_PROMPT.format(persona=persona, goal=simulation.goal, marker=GOAL_REACHED)


def simulator_request(
    simulation: Simulation, case: TestCase, exchanges: list[Exchange], repeat: int
) -> ModelRequest:
    """The call asking the simulated user for its next message, given the turns so far."""
    messages = [
        Message(role="system", content=_system_prompt(simulation)),
        Message(role="user", content=OPENING),
    ]
    for said, reply in exchanges:  # roles swapped: the simulator is the one "assisting"
        messages.append(Message(role="assistant", content=said))
        messages.append(Message(role="user", content=reply))
    return ModelRequest(
        model=simulation.model,
        messages=tuple(messages),
        temperature=simulation.temperature,
        max_tokens=SIMULATOR_MAX_TOKENS,
        seed=_simulator_seed(simulation, case, repeat),
        sample=repeat - 1,  # each repeat a fresh conversation, as for the assistant's calls
    )


def goal_reached(message: str, exchanges: list[Exchange]) -> bool:
    """Whether the simulated user says its goal is reached (small models add words to it).

    Not when an assistant's reply holds the marker: the simulated user may be quoting it, and
    the application under test must not end its own test early (a conversation that ends
    sooner has fewer replies to fail on); such a conversation goes on.
    """
    if GOAL_REACHED not in message:
        return False
    return not any(GOAL_REACHED in reply for _, reply in exchanges)


def user_message(text: str) -> str:
    """The simulated user's message as sent: without surrounding space or quotes."""
    return text.strip().strip('"').strip()
