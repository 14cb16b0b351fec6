"""The target of `promptum redteam generate`'s adaptive attacks: runs attacks as the file would.

The refinement itself is pure (`promptum.redteam.refine`); this wires it to a run of the
suite's target (`promptum.suite_run.run_suites`); the attacker model is asked by `_asking`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from promptum.redteam import Outcome, RunCases
    from promptum.suites import Generated
    from promptum.values.run_result import CaseResult


def _answer(result: CaseResult) -> str:
    """What the target said, shown to the attacker, its canary masked (no file may hold one)."""
    from promptum.suites import known_token
    from promptum.values.case_result import namespaced

    calls = [call.describe() for call in result.completion.tool_calls]
    answer = "\n".join(filter(None, [result.completion.text, *calls]))
    token = known_token(namespaced(result.suite, result.case_id))
    return answer.replace(token, "[canary]") if token else answer


def runner(source: Path, generated: Generated) -> RunCases:
    """Runs attack cases as the written file would: the source's settings, beside it."""
    from promptum.redteam import Outcome
    from promptum.suite_run import run_suites
    from promptum.suites import suite_from_data
    from promptum.values.asr import UNTAGGED, attack_of, attack_verdict

    def run(cases: Sequence[Mapping[str, Any]]) -> Mapping[str, Outcome]:
        if not cases:
            return {}
        # Placed at the source, so its relative paths hold; no file is written.
        suite = suite_from_data(generated.suite_data(list(map(dict, cases))), source)
        results = run_suites([suite]).run.results
        outcomes: dict[str, Outcome] = {}
        for result in results:
            before = outcomes.get(result.case_id)
            # Every column's request counts against an adaptive attack's budget.
            requests = 1 + (before.requests if before else 0)
            cost = (result.completion.cost_usd or 0.0) + (before.cost_usd if before else 0.0)
            if before is not None and before.succeeded:
                # an attack that succeeded on one column succeeded
                outcomes[result.case_id] = replace(before, requests=requests, cost_usd=cost)
                continue
            attack = attack_of(result.tags)
            goal = UNTAGGED if attack is None else attack[0]
            outcomes[result.case_id] = Outcome(
                attack_verdict(goal, result).verdict == "succeeded",
                _answer(result),
                "; ".join(result.reasons) or "every detector passed",
                requests,
                cost,
            )
        return outcomes

    return run
