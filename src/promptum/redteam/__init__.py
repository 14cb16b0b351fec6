"""Red teaming: goals × strategies generated into ordinary, seeded attack cases.

Pure: the suite loader hands in plain data (`SuiteFacts`, the `redteam:` section) and gets
case mappings back, which it loads like any written case.
"""

import typing as _typing

from promptum.foundations.lazy import lazy_exports as _lazy_exports

# Imported from their modules on first use (promptum.foundations.lazy): every suite's schema needs
# `RedteamSpec`, only a suite with a `redteam:` section needs the generator and its data.
if _typing.TYPE_CHECKING:
    from promptum.redteam._adaptive_spec import BestOfNSpec, GoatSpec
    from promptum.redteam._attacker_refusal import RETRY_NOTE, Refusals, refused
    from promptum.redteam._best_of_n import best_of_n
    from promptum.redteam._crescendo import CrescendoTalk, crescendo
    from promptum.redteam._data import strategy_names
    from promptum.redteam._facts import Carrier, SuiteFacts, Variant
    from promptum.redteam._generate import Generation, RedteamError, generate, generate_cases
    from promptum.redteam._goat import goat
    from promptum.redteam._intents import IntentWriter
    from promptum.redteam._opt_in_goals import harmful_aims
    from promptum.redteam._pair import Ask, Attacker, AttackerError, Outcome, RunCases, refine
    from promptum.redteam._search_spec import CrescendoSpec, TapSpec
    from promptum.redteam._spec import GOALS, RedteamSpec
    from promptum.redteam._tap import TapTree, tap

__getattr__ = _lazy_exports(__name__)

__all__ = [
    "GOALS",
    "RETRY_NOTE",
    "Ask",
    "Attacker",
    "AttackerError",
    "BestOfNSpec",
    "Carrier",
    "CrescendoSpec",
    "CrescendoTalk",
    "Generation",
    "GoatSpec",
    "IntentWriter",
    "Outcome",
    "RedteamError",
    "RedteamSpec",
    "Refusals",
    "RunCases",
    "SuiteFacts",
    "TapSpec",
    "TapTree",
    "Variant",
    "best_of_n",
    "crescendo",
    "generate",
    "generate_cases",
    "goat",
    "harmful_aims",
    "refine",
    "refused",
    "strategy_names",
    "tap",
]
