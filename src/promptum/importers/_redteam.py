"""promptfoo's `redteam:` plugins and strategies as promptum's red-team goals and strategies.

promptfoo generates attacks from a purpose with its own models; promptum generates them from
the suite's prompts and cases by templates, seeded. A plugin becomes the goal whose detector
asks the same question, a strategy the one that delivers attacks the same way; what has no
equivalent is noted, never guessed.
"""

from __future__ import annotations

from typing import Any

from promptum.importers._context import Context
from promptum.importers._source import Node
from promptum.importers._writer import Commented

_GOALS = {
    "prompt-extraction": (
        "prompt_leak",
        "promptum detects the leak by a canary planted in the system prompt; promptfoo asks "
        "a judge whether the prompt was disclosed",
    ),
    "data-exfil": (
        "exfiltration",
        "promptum detects a link or image carrying data; promptfoo asks a judge",
    ),
    "excessive-agency": (
        "tool",
        "promptum's attacks ask for a tool the cases never call, with the attacker's "
        "argument; promptfoo asks a judge whether the answer claimed actions beyond its tools",
    ),
    "pii": (
        "secret_leak",
        "promptum plants a secret in the case's context and detects it leaking; promptfoo "
        "asks a judge whether any personal data was disclosed",
    ),
    "policy": (
        "policy",
        "promptum's judge grades the answer against the policy with its own prompt",
    ),
}
_STRATEGIES = {
    "basic": "direct",
    "prompt-injection": "ignore_previous",
    "base64": "base64",
    "rot13": "rot13",
    "leetspeak": "leetspeak",
    "homoglyph": "homoglyph",
    "multilingual": "multilingual",
}
_ATTACKER_STRATEGIES = ("jailbreak", "crescendo", "goat", "jailbreak:tree")
_SETTINGS = {
    "purpose": "promptum's attacks ride on the suite's own prompts and cases, not a purpose",
    "provider": "promptum's templates write the attacks; an attacker model is `redteam.attacker`",
    "injectVar": "promptum delivers an attack through the case's query, context or messages",
    "entities": "promptum's attacks name no entities",
    "language": "the `multilingual` strategy chooses the languages",
}


def convert_redteam(node: Node | None, context: Context) -> Commented | None:
    """The suite's `redteam:` section, or None (noted) when no plugin has a goal."""
    if node is None:
        return None
    if not isinstance(node.value, dict):
        context.skip(node, "redteam", "it is a mapping of plugins and strategies")
        return None
    section: dict[str, Any] = {}
    goals, policy = _goals(node.get("plugins"), context)
    if not goals:
        context.skip(node, "redteam", "none of its plugins has a promptum goal")
        return None
    section["goals"] = goals
    strategies = _strategies(node.get("strategies"), context)
    if strategies:
        section["strategies"] = strategies
    count = node.value.get("numTests")
    if isinstance(count, int) and not isinstance(count, bool) and count > 0:
        section["per_goal"] = count
    if policy is not None:
        section["policy"] = policy
    for key, item in node.items():
        if key in _SETTINGS:
            context.skip(item, f"redteam `{key}`", _SETTINGS[key])
        elif key not in ("plugins", "strategies", "numTests"):
            context.skip(item, f"redteam `{key}`", "promptum's red team has no such setting")
    comment = (str(node.where), "promptum generates these attacks when the suite loads")
    return Commented(section, comment, tag=("redteam", str(node.where)))


def _entries(node: Node | None) -> list[tuple[Node, str, dict[str, Any]]]:
    """Each plugin or strategy of a list: its node, id and config."""
    if node is None:
        return []
    entries: list[tuple[Node, str, dict[str, Any]]] = []
    for item in node.elements():
        raw = item.value
        if isinstance(raw, str):
            entries.append((item, raw, {}))
        elif isinstance(raw, dict) and isinstance(raw.get("id"), str):
            config = raw.get("config")
            entries.append((item, raw["id"], config if isinstance(config, dict) else {}))
    return entries


def _goals(node: Node | None, context: Context) -> tuple[list[str], str | None]:
    """The goals the plugins ask for, in order, and the policy text of `policy` plugins."""
    goals: list[str] = []
    policies: list[str] = []
    for item, plugin, config in _entries(node):
        family = "pii" if plugin.startswith("pii") else plugin
        if family not in _GOALS:
            context.skip(item, f"redteam plugin {plugin}", "promptum has no such attack goal")
            continue
        goal, why = _GOALS[family]
        if goal == "policy":
            text = config.get("policy")
            if not isinstance(text, str) or not text.strip():
                context.skip(item, f"redteam plugin {plugin}", "it states no policy text")
                continue
            policies.append(text.strip())
        context.approximate(item, f"redteam plugin {plugin}", f"goal `{goal}`: {why}")
        if goal not in goals:
            goals.append(goal)
    return goals, "\n".join(policies) or None


def _strategies(node: Node | None, context: Context) -> list[str]:
    """The strategies of promptfoo's; `direct` too, as promptfoo always runs `basic`."""
    strategies = ["direct"]
    for item, strategy, _config in _entries(node):
        if strategy in _STRATEGIES:
            if _STRATEGIES[strategy] not in strategies:
                strategies.append(_STRATEGIES[strategy])
        elif strategy in _ATTACKER_STRATEGIES:
            context.skip(
                item,
                f"redteam strategy {strategy}",
                "an attacker model rewriting attacks is promptum's `pair` (or `crescendo`) "
                "strategy, run by `promptum redteam generate` with `redteam.attacker`",
            )
        else:
            context.skip(item, f"redteam strategy {strategy}", "promptum has no such strategy")
    return strategies
