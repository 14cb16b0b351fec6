"""Attack intents aimed at the app: an attacker model writes what each goal asks of this suite.

From the suite (system prompt, tools, response model, `policy`, `purpose`) the attacker writes,
per aim of each goal, concrete requests ("get a refund of 500 EUR approved for invoice
INV-1001"); the static strategies then deliver those instead of the generic phrasings. Pure:
the caller hands in how to ask the attacker (seeded and cached) and how to tell a
near-duplicate. A refusal, an intent that misses what the detector looks for, or one too long
is counted and never used.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from string import Template
from typing import Any

from promptum.redteam._aim import Aim
from promptum.redteam._attacker_refusal import RETRY_NOTE, refused
from promptum.redteam._data import Data
from promptum.redteam._facts import SuiteFacts
from promptum.redteam._goals import GoalAims
from promptum.redteam._intent_prompt import (
    MAX_INTENT_CHARS,
    MIN_INTENT_WORDS,
    SYSTEM,
    answer_schema,
    application,
    request,
    required_text,
)
from promptum.redteam._spec import RedteamSpec

AskJson = Callable[[str, str, Mapping[str, Any], int], Mapping[str, Any] | None]
"""Asks the attacker (system, user, the answer's JSON Schema, the call's number) for the JSON
object its answer holds, None when it holds none. The same arguments give the same answer."""
Fresh = Callable[[str, str], bool]
"""Whether an intent (goal, text) is new, not a near-duplicate of one kept; a new one is kept."""
RETRIES = 2
"""How many more times an aim is asked when its answers gave fewer intents than wanted."""
INTENT_PREFIX = "intent:"
"""The payload key of an aim's intents, in the data the strategies fill their templates from."""


@dataclass(slots=True)
class IntentTally:
    """What became of one goal's intents."""

    written: list[str] = field(default_factory=list)
    """The intents used: the goal's attacks deliver them."""
    refused: int = 0
    """The attacker declining ("I can't help with that"): never used."""
    near_duplicates: int = 0
    unusable: int = 0
    """Answers without intents, and intents copied from the request (the policy itself), of
    fewer than 4 words, too long, or without what the detector looks for (the made-up value,
    the exfiltration host)."""

    def line(self, goal: str) -> str:
        """``policy: 3 written, 1 refused, 0 near-duplicates, 0 unusable``."""
        return (
            f"{goal}: {len(self.written)} written, {self.refused} refused, "
            f"{self.near_duplicates} near-duplicates, {self.unusable} unusable"
        )


@dataclass(slots=True)
class IntentWriter:
    """How to ask the attacker for intents, and, once asked, what it wrote per goal."""

    ask: AskJson
    fresh: Fresh
    calls: int = 0
    """Calls made so far: each call's number, from which its seed is drawn."""
    tallies: dict[str, IntentTally] = field(default_factory=dict)

    def lines(self) -> list[str]:
        """One line per goal, for the command's output."""
        return [tally.line(goal) for goal, tally in self.tallies.items()]

    def intents(self, aim: Aim, app: str, count: int, generic: str) -> list[str]:
        """Up to `count` intents of `aim`, asking again (at most `RETRIES` times) for more.

        `generic` is the aim's built-in phrasing, shown as what to make specific.
        """
        tally = self.tallies.setdefault(aim.goal, IntentTally())
        user, schema = request(app, aim, count, generic), answer_schema(count)
        kept: list[str] = []
        declined = 0
        for _ in range(RETRIES + 1):
            if len(kept) >= count:
                break
            answer = self.ask(SYSTEM, user + RETRY_NOTE * declined, schema, self.calls)
            self.calls += 1
            before = tally.refused
            texts = [text for text in _texts(answer, tally) if _own(text, user, tally)]
            kept += self._usable(aim, texts, tally)[: count - len(kept)]
            if tally.refused > before:  # the next ask reminds it of the authorised test
                declined += 1
        tally.written += kept
        return kept

    def _usable(self, aim: Aim, texts: Sequence[str], tally: IntentTally) -> list[str]:
        """The texts that are intents of `aim`: no refusal, no near-duplicate, what it needs."""
        required = required_text(aim)
        kept = []
        for text in texts:
            if len(text.split()) < MIN_INTENT_WORDS or len(text) > MAX_INTENT_CHARS:
                tally.unusable += 1
            elif refused(text):
                tally.refused += 1
            elif required is not None and required.casefold() not in text.casefold():
                tally.unusable += 1
            elif not self.fresh(aim.goal, text):
                tally.near_duplicates += 1
            else:
                kept.append(text)
        return kept


def _own(text: str, asked: str, tally: IntentTally) -> bool:
    """Whether `text` is the attacker's own, not copied from what it was shown (the policy)."""
    if text.casefold() in asked.casefold():
        tally.unusable += 1
        return False
    return True


def _texts(answer: Mapping[str, Any] | None, tally: IntentTally) -> list[str]:
    """The intents an answer lists, stripped; an answer listing none counts as unusable."""
    listed = answer.get("intents") if answer is not None else None
    if not isinstance(listed, list) or not listed:
        tally.unusable += 1
        return []
    return [_phrase(str(item)) for item in listed]


def _phrase(text: str) -> str:
    """An intent as the phrase templates place mid-sentence ("... and $payload.")."""
    text = " ".join(text.split()).rstrip(".")
    return text[:1].lower() + text[1:] if text[1:2].islower() else text


def with_intents(
    goals: Sequence[GoalAims],
    facts: SuiteFacts,
    spec: RedteamSpec,
    writer: IntentWriter,
    data: Data,
) -> tuple[list[GoalAims], Data]:
    """The goals with each aim the attacker wrote intents for delivering those, and their data.

    An aim with intents gets a payload of its own whose English texts are the intents (other
    languages keep the generic phrasings); an aim without keeps its payload.
    """
    assert spec.intents is not None  # the caller asks only when the section wants intents
    app = application(facts, spec)
    payloads = dict(data.payloads)
    found = []
    for entry in goals:
        aims = []
        for aim in entry.aims:
            generic = Template(data.payloads[aim.payload]["en"][0]).substitute(aim.values)
            texts = writer.intents(aim, app, spec.intents, generic)
            if texts:
                key = f"{INTENT_PREFIX}{aim.goal}:{len(payloads)}"
                # Payload texts are templates of the aim's values: a `$` of the attacker's is text.
                written = tuple(text.replace("$", "$$") for text in texts)
                payloads[key] = {**payloads[aim.payload], "en": written}
                aim = dataclasses.replace(aim, payload=key)
            aims.append(aim)
        found.append(GoalAims(entry.goal, aims, entry.index))
    return found, dataclasses.replace(data, payloads=payloads)
