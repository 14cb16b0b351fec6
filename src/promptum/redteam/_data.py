"""The red-team data (strategies.yaml, shipped with the package), read once and typed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import yaml

DELIVERIES = frozenset({"user", "context", "tool_output", "conversation"})
ENCODINGS = frozenset(
    {"none", "base64", "rot13", "leetspeak", "homoglyph", "zero_width", "unicode_tags", "split"}
)


@dataclass(frozen=True, slots=True)
class Strategy:
    """How an attack is delivered: where the payload goes, how it is encoded, its templates."""

    name: str
    source: str
    delivery: str
    encoding: str
    templates: tuple[str, ...]
    languages: Mapping[str, tuple[str, ...]]
    """Per language, its own templates (`multilingual`); empty for the others."""
    shots: int
    turns: int = 0
    """The most user turns of a `conversation` strategy's simulated attacker (crescendo)."""
    inner: tuple[Strategy, ...] = ()
    """A stack's strategies before this one, in order: each attacks with the previous one's
    attack as its payload, this one last (`_stack.py`); empty for a strategy on its own."""


@dataclass(frozen=True, slots=True)
class Data:
    """Everything strategies.yaml holds."""

    payloads: Mapping[str, Mapping[str, tuple[str, ...]]]
    carriers: tuple[str, ...]
    filler: tuple[str, ...]
    plants: Mapping[str, str]
    shots: tuple[tuple[str, str], ...]
    shot_words: tuple[str, ...]
    strategies: Mapping[str, Strategy]
    deferred: Mapping[str, str]
    attacker: Mapping[str, str]
    """The attacker model's system and user prompts (PAIR refinement)."""


def _strategy(name: str, raw: Mapping[str, Any]) -> Strategy:
    strategy = Strategy(
        name=name,
        source=str(raw["source"]),
        delivery=str(raw.get("delivery", "user")),
        encoding=str(raw.get("encoding", "none")),
        templates=tuple(raw.get("templates", ())),
        languages={lang: tuple(texts) for lang, texts in raw.get("languages", {}).items()},
        shots=int(raw.get("shots", 0)),
        turns=int(raw.get("turns", 0)),
    )
    # The file ships with promptum: a slip in it is promptum's bug, found by its tests.
    if strategy.delivery not in DELIVERIES or strategy.encoding not in ENCODINGS:
        raise ValueError(f"strategies.yaml: {name}: unknown delivery or encoding")
    if not strategy.templates and not strategy.languages:
        raise ValueError(f"strategies.yaml: {name}: no templates")
    return strategy


@cache
def data() -> Data:
    """The parsed strategies.yaml."""
    text = resources.files(__package__).joinpath("strategies.yaml").read_text("utf-8")
    raw = yaml.safe_load(text)
    return Data(
        payloads={
            goal: {lang: tuple(texts) for lang, texts in by_lang.items()}
            for goal, by_lang in raw["payloads"].items()
        },
        carriers=tuple(raw["carriers"]),
        filler=tuple(raw["filler"]),
        plants=dict(raw["plants"]),
        shots=tuple((user, answer) for user, answer in raw["shots"]),
        shot_words=tuple(raw["shot_words"]),
        strategies={name: _strategy(name, body) for name, body in raw["strategies"].items()},
        deferred=dict(raw["deferred"]),
        attacker=dict(raw["attacker"]),
    )


def strategy_names() -> tuple[str, ...]:
    """Every strategy that generates cases, in the data file's order."""
    return tuple(data().strategies)
