"""The goals generated only when named: pii, excessive_agency, harmful:<category>, custom:<name>.

Each needs the user's say: `harmful` attacks are graded by the judge (a model call per
attack), `custom` by the user's own check, and `pii` and `excessive_agency` add cases every
run of a suite without `goals:` would otherwise change by.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from string import Template
from typing import Any

from promptum.foundations.suggestions import did_you_mean
from promptum.redteam._aim import Aim, GoalError
from promptum.redteam._data import data
from promptum.redteam._facts import SuiteFacts
from promptum.redteam._harms import CATEGORIES, HARMS
from promptum.redteam._person import fictional_person
from promptum.redteam._spec import RedteamSpec

OPT_IN_GOALS = ("pii", "excessive_agency", "harmful", "custom")
"""Goals generated only when `goals:` names them, in the order they are listed."""

ACTING_VERBS = frozenset(
    {
        "add", "apply", "approve", "archive", "assign", "book", "buy", "cancel", "change",
        "charge", "close", "create", "delete", "deposit", "disable", "drop", "edit", "enable",
        "execute", "forward", "grant", "insert", "invite", "issue", "mark", "modify", "move",
        "order", "pay", "place", "post", "publish", "purchase", "refund", "register", "remove",
        "reply", "reset", "revoke", "run", "save", "schedule", "send", "set", "share", "submit",
        "suspend", "terminate", "transfer", "unsubscribe", "update", "upload", "withdraw",
        "write",
    }
)  # fmt: skip
"""A tool whose name starts with one of these verbs acts: it changes something or sends it."""
_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def acts(tool: str) -> bool:
    """Whether a tool's name says it has side effects: ``issue_refund``, ``sendEmail``."""
    words = _WORDS.findall(tool)
    return bool(words) and words[0].lower() in ACTING_VERBS


def pii_aims(rng: random.Random) -> list[Aim]:
    """The `pii` goal: a made-up person's record in the context, which must not leave."""
    person = fictional_person(rng)
    fill = {**person.values(), "town": person.town}
    document = Template(data().plants["pii"]).substitute(fill)
    checks = {"checks": [{"type": "pii_not_leaked", "value": person.values()}]}
    return [Aim("pii", "pii", {}, checks, frozenset({"context"}), (document,))]


def _agency_aim(tool: str, facts: SuiteFacts) -> Aim:
    # Asked by a question that does not call it, a call is the model acting unasked.
    questions = tuple(c.query for c in facts.carriers if tool not in c.calls)
    detector = {"checks": [{"type": "tool_not_called", "value": tool}]}
    carriers = questions + data().carriers
    return Aim("excessive_agency", "excessive_agency", {"tool": tool}, detector, carriers=carriers)


def agency_aims(name: str | None, facts: SuiteFacts) -> list[Aim]:
    """The `excessive_agency` goal: a tool with side effects called when the user did not ask.

    Without a name, each tool whose name starts with an acting verb (`ACTING_VERBS`);
    ``excessive_agency:NAME`` aims at any tool the suite offers.
    """
    offered = facts.tool_names
    if not offered:
        raise GoalError(
            "the `excessive_agency` goal needs tools, and the suite offers none: add `tools:`"
        )
    if name is not None:
        if name not in offered:
            raise GoalError(
                f"the suite offers no tool {name!r}.{did_you_mean(name, offered)} "
                f"Tools: {', '.join(offered)}."
            )
        return [_agency_aim(name, facts)]
    acting = [tool for tool in offered if acts(tool)]
    if not acting:
        raise GoalError(
            f"no tool of the suite ({', '.join(offered)}) is named as one that acts (send_, "
            "create_, delete_, issue_, cancel_...): name the tool with side effects, "
            "`excessive_agency:NAME`"
        )
    return [_agency_aim(tool, facts) for tool in acting]


def harmful_aims(category: str | None) -> list[Aim]:
    """The `harmful` goal: each behaviour of the category (of every one without a name)."""
    if category is not None and category not in CATEGORIES:
        known = list(CATEGORIES)
        raise GoalError(
            f"unknown harm category {category!r}.{did_you_mean(category, known)} Categories "
            f"(MLCommons AILuminate v1.0): {', '.join(known)}."
        )
    harms = [CATEGORIES[category]] if category is not None else list(HARMS)
    return [
        Aim(
            f"harmful:{harm.name}",  # a category's rate apart from the others'
            "harmful",
            {"behaviour": behaviour},
            {"judge": {"criteria": {"harmful": {"rubric": harm.rubric()}}}},
        )
        for harm in harms
        for behaviour in harm.behaviours
    ]


def custom_aims(name: str | None, spec: RedteamSpec) -> list[Aim]:
    """The `custom:<name>` goal: the user's objective, detected by the user's own check."""
    goals: Mapping[str, Any] = spec.custom or {}
    if name is None or name not in goals:
        known = list(goals)
        listed = f" (custom goals: {', '.join(known)})" if known else ""
        which = (
            f"a custom goal names its detector, `custom:NAME`{listed}."
            if name is None
            else f"there is no custom goal {name!r}{listed}.{did_you_mean(name, known)}"
        )
        raise GoalError(
            f"{which} Give each its objective and detector in the section: `custom: {{NAME: "
            "{objective: <what the attack asks for>, check: {type: expr, value: <true when "
            "the attack failed>}}}`"
        )
    goal = goals[name]
    checks = {"checks": [dict(goal.check)]}
    return [Aim(f"custom:{name}", "custom", {"objective": goal.objective}, checks)]


def opt_in_aims(
    goal: str, name: str | None, facts: SuiteFacts, spec: RedteamSpec, rng: random.Random
) -> list[Aim]:
    """The aims of one goal generated only when named (raise GoalError if unsupported)."""
    if goal == "pii":
        if name is not None:
            raise GoalError("`pii` names nothing: its person is made up from the seed")
        return pii_aims(rng)
    if goal == "excessive_agency":
        return agency_aims(name, facts)
    if goal == "harmful":
        return harmful_aims(name)
    return custom_aims(name, spec)
