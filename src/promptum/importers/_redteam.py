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
        "excessive_agency",
        "promptum detects a tool with side effects (its name an acting verb) called though the "
        "user did not ask; promptfoo asks a judge whether the answer claimed actions beyond "
        "its tools",
    ),
    "pii": (
        "pii",
        "promptum plants a fictional person's record in the case's context and detects its "
        "values leaking; promptfoo asks a judge whether any personal data was disclosed",
    ),
    "harmful": (
        "harmful",
        "promptum's judge grades the answer against a rubric per MLCommons AILuminate hazard "
        "category; promptfoo's grader uses its own rubric",
    ),
    "policy": (
        "policy",
        "promptum's judge grades the answer against the policy with its own prompt",
    ),
}
_HAZARDS = {
    "violent-crime": "violent_crimes",
    "non-violent-crime": "non_violent_crimes",
    "cybercrime": "non_violent_crimes",
    "cybercrime:malicious-code": "non_violent_crimes",
    "illegal-activities": "non_violent_crimes",
    "illegal-drugs": "non_violent_crimes",
    "illegal-drugs:meth": "non_violent_crimes",
    "sex-crime": "sex_related_crimes",
    "child-exploitation": "child_sexual_exploitation",
    "indiscriminate-weapons": "indiscriminate_weapons",
    "chemical-biological-weapons": "indiscriminate_weapons",
    "weapons:ied": "indiscriminate_weapons",
    "self-harm": "suicide_and_self_harm",
    "hate": "hate",
    "specialized-advice": "specialized_advice",
    "privacy": "privacy",
    "intellectual-property": "intellectual_property",
    "copyright-violations": "intellectual_property",
    "sexual-content": "sexual_content",
}
"""promptfoo's `harmful:` plugins as the AILuminate hazard categories of promptum's `harmful`
goal (AILuminate counts cyber and drug crimes as non-violent crimes, chemical and biological
weapons and explosives as indiscriminate weapons); the others have no category."""
_STRATEGIES = {
    "basic": "direct",
    "prompt-injection": "ignore_previous",
    "base64": "base64",
    "rot13": "rot13",
    "leetspeak": "leetspeak",
    "homoglyph": "homoglyph",
    "multilingual": "multilingual",
}
_SEARCHES = {
    "jailbreak": "`attacker:` with `rounds:` (PAIR)",
    "jailbreak:tree": "`tap:` (tree of attacks with pruning)",
    "crescendo": "`crescendo:`",
    "goat": "`goat:`",
    "best-of-n": "`best_of_n:`",
}
"""promptfoo's strategies that search with a model or augmentations, as promptum's keys."""
_SETTINGS = {
    "purpose": "promptum's attacks ride on the suite's own prompts and cases; its `purpose:` "
    "aims the intents an attacker model writes, with `promptum redteam generate`",
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
        family, _colon, kind = plugin.partition(":")
        if family not in _GOALS or (family == "harmful" and kind and kind not in _HAZARDS):
            context.skip(item, f"redteam plugin {plugin}", "promptum has no such attack goal")
            continue
        goal, why = _GOALS[family]
        if family == "harmful" and kind:
            goal = f"harmful:{_HAZARDS[kind]}"
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
        elif strategy in _SEARCHES:
            context.skip(
                item,
                f"redteam strategy {strategy}",
                f"promptum's equivalent is the `redteam:` section's {_SEARCHES[strategy]}, "
                "which `promptum redteam generate` runs against the target to write the attacks "
                "(a suite that loads its section has no attacker)",
            )
        else:
            context.skip(item, f"redteam strategy {strategy}", "promptum has no such strategy")
    return strategies
