"""The gate of a comparison (``compare --fail-on-regression``): pass or fail, and why.

The paired sign test alone cannot fail a small suite: below six moved cases no split is
significant, so five cases going from pass to fail would pass. Two severity rules stand
beside it, and any one of the three fails the gate, for each model pair:

- a case that B marks must-pass regressed;
- more than `max_regressed` cases regressed;
- the pass rate fell significantly (the comparison's verdict is *regression*).
"""

from __future__ import annotations

from promptum.compare import _text as text
from promptum.comparison_figures import CaseChange, Comparison, ModelComparison
from promptum.gate import GateDecision

DEFAULT_MAX_REGRESSED = 1
"""Regressed cases a model may have before the gate fails.

One, not zero: a sampled model, or an API that is not deterministic even at temperature 0,
flips a case now and then between two runs of the same prompt, and a gate that fails on
every such flip is soon ignored. Two cases falling is already a pattern on a small suite.
"""
_NAMED = 3
"""Must-pass cases named in a reason before the rest are only counted."""


def _cases(count: int) -> str:
    return f"{count} case{'' if count == 1 else 's'}"


def _must_pass(pair: ModelComparison, changes: list[CaseChange]) -> str:
    def moved(change: CaseChange) -> str:
        return f"({change.before.outcome} → {change.after.outcome})"

    if len(changes) == 1:
        return f"must-pass case {changes[0].case_id} regressed {moved(changes[0])} on {pair.name}"
    named = ", ".join(f"{c.case_id} {moved(c)}" for c in changes[:_NAMED])
    more = f" and {len(changes) - _NAMED} more" if len(changes) > _NAMED else ""
    return f"must-pass cases {named}{more} regressed on {pair.name}"


def _failures(pair: ModelComparison, max_regressed: int) -> list[str]:
    reasons = []
    must = pair.must_pass_regressions
    if must:
        reasons.append(_must_pass(pair, must))
    regressed = len(pair.of_kind("regressed"))
    if regressed > max_regressed:
        reasons.append(
            f"{_cases(regressed)} regressed on {pair.name} > {max_regressed} (--max-regressed)"
        )
    if pair.verdict == "regression":
        reasons.append(
            f"significant regression on {pair.name} "
            f"({text.points(pair.delta)}, p={text.p_value(pair.p_value)})"
        )
    return reasons


def _passed(comparison: Comparison, max_regressed: int) -> str:
    pairs = comparison.models
    counts = [(pair.name, len(pair.of_kind("regressed"))) for pair in pairs]
    if len(counts) == 1:
        regressed = f"{_cases(counts[0][1])} regressed"
    else:
        regressed = "cases regressed: " + ", ".join(f"{n} on {name}" for name, n in counts)
    # Only shared cases can regress: a must-pass case new in B is the run gate's business.
    marked = sum(len(pair.must_pass - set(pair.only_b)) for pair in pairs)
    if marked:
        guarded = f"none of {_cases(marked)} marked must-pass regressed"
    elif any(pair.must_pass for pair in pairs):
        guarded = "no shared must-pass cases"
    else:
        guarded = "no must-pass cases"
    return f"{regressed} ≤ {max_regressed} (--max-regressed); {guarded}; no significant regression"


def comparison_gate(
    comparison: Comparison, max_regressed: int = DEFAULT_MAX_REGRESSED
) -> GateDecision:
    """Whether `comparison` passes the gate of ``--fail-on-regression``, and why."""
    if max_regressed < 0:
        raise ValueError(f"max_regressed must be 0 or more, not {max_regressed}")
    reasons = [r for pair in comparison.models for r in _failures(pair, max_regressed)]
    if not comparison.run_b.complete:
        # Cases that never ran cannot regress: an interrupted run B proves nothing.
        reasons.insert(0, f"run {comparison.run_b.run_id} was interrupted before every case ran")
    if reasons:
        return GateDecision(False, "; ".join(reasons))
    return GateDecision(True, _passed(comparison, max_regressed))
