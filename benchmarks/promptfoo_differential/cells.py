"""Verdict cells: one (test case x prompt x provider) of a config, as each tool graded it.

A cell is named ``config/case/pP/mM``: the corpus folder, the test's description as a slug
(every corpus test has a unique one: promptum makes it the case id), the prompt's and the
provider's position in the config. A verdict is ``pass``, ``fail`` or ``error``; two tools
agree on a cell when both pass it or neither does.
"""

from __future__ import annotations

import re
from typing import Any

Verdicts = dict[str, str]
"""Cell name -> ``pass`` | ``fail`` | ``error``."""


def slug(text: str) -> str:
    """A description as promptum's importer writes a case id (lower case, words joined by -)."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def cell(config: str, case: str, prompt: int, provider: int) -> str:
    """The name of one cell."""
    return f"{config}/{case}/p{prompt}/m{provider}"


def _ordinal(order: list[Any], value: Any) -> int:
    if value not in order:
        order.append(value)
    return order.index(value)


def promptfoo_verdicts(config: str, output: dict[str, Any]) -> Verdicts:
    """The cells of promptfoo's ``eval -o out.json`` output."""
    columns = output["results"]["prompts"]
    prompts: list[Any] = []
    providers: list[Any] = []
    place = [
        (_ordinal(prompts, (c.get("label"), c.get("raw"))), _ordinal(providers, c["provider"]))
        for c in columns
    ]
    verdicts: Verdicts = {}
    for result in output["results"]["results"]:
        prompt, provider = place[result["promptIdx"]]
        case = slug(result["testCase"].get("description") or f"test-{result['testIdx']}")
        if result.get("success"):
            verdict = "pass"
        elif result.get("failureReason") == 2:  # promptfoo's ResultFailureReason.ERROR
            verdict = "error"
        else:
            verdict = "fail"
        verdicts[cell(config, case, prompt, provider)] = verdict
    return verdicts


def promptum_verdicts(
    config: str, suite: dict[str, Any], report: dict[str, Any], tests: list[str] | None = None
) -> Verdicts:
    """The cells of a promptum JSON report of the suite imported from `config`.

    A conversation's turns are the config's tests in order (`tests`: their cases' names),
    each graded on its own, as promptfoo grades each test of a `_conversation` config.
    """
    variants: list[Any] = list(suite.get("prompts") or {})
    models: list[Any] = list(suite.get("models") or [])
    verdicts: Verdicts = {}
    for result in report["results"]:
        prompt = _ordinal(variants, result.get("variant"))
        provider = _ordinal(models, result.get("model"))
        graded = [(str(result["case_id"]), result)]
        if result.get("turns") and tests:
            graded = list(zip(tests, result["turns"], strict=False))
        for case, outcome in graded:
            status = str(outcome["status"])
            verdict = status if status in ("pass", "fail") else "error"
            verdicts[cell(config, case, prompt, provider)] = verdict
    return verdicts


def agree(promptfoo: str | None, promptum: str | None) -> bool:
    """Whether two verdicts agree: both pass, or both do not (a missing cell never agrees)."""
    if promptfoo is None or promptum is None:
        return False
    return (promptfoo == "pass") == (promptum == "pass")


def disagreeing(promptfoo: Verdicts, promptum: Verdicts) -> list[str]:
    """promptfoo's cells promptum does not agree on (missing ones included), in order."""
    return [name for name, verdict in promptfoo.items() if not agree(verdict, promptum.get(name))]
