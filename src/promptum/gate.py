"""The gate: one decision per run, pass or fail, with the reason a person reads in CI logs.

Rules, in order: an interrupted or empty run fails; any must-pass result that did not pass
fails; with ASR bounds (``--max-asr``), the red-team results of the goals they bound are
judged by their attack success rate (`promptum.values.asr_bounds`) instead of one by one;
then the pass rate of the other results decides (at least `fail_under` when given, else
every result). An attack that errored was not graded: it stays among the other results, as
one that did not pass; so do the attacks and controls of goals no bound covers.
"""

from __future__ import annotations

from dataclasses import dataclass

from promptum.values.asr_bounds import AsrBounds, asr_verdict
from promptum.values.run_result import RunResult
from promptum.values.tally import FirstInPlan

_NAMED = 3
"""Cases named in a reason before the rest are only counted."""


@dataclass(frozen=True, slots=True)
class GateDecision:
    """Whether a run passes its gate, and why in one phrase."""

    passed: bool
    reason: str

    @property
    def line(self) -> str:
        """The decision as the run summary, Markdown and JUnit state it."""
        return f"gate: {'PASS' if self.passed else 'FAIL'} — {self.reason}"


def _named(broken: FirstInPlan) -> tuple[str, bool]:
    """The first broken cases, each named once however often it repeated; and whether several."""
    multi_model = len(broken.columns) > 1
    seen: dict[tuple[str, str, str], int] = {}
    for result in broken.first():
        place = (result.key, result.status, result.column)
        seen[place] = seen.get(place, 0) + 1
    names = [
        f"{key} ({'errored' if status == 'error' else 'failed'}"
        + (f" ×{times}" if times > 1 else "")
        + (f" on {column})" if multi_model else ")")
        for (key, status, column), times in list(seen.items())[:_NAMED]
    ]
    shown = sum(list(seen.values())[:_NAMED])
    rest = broken.count - shown
    more = f" and {rest} more {'result' if rest == 1 else 'results'}" if rest else ""
    return ", ".join(names) + more, len(seen) > 1 or broken.count > shown


def _rates(rate: float, threshold: float) -> tuple[str, str]:
    """Both rates with two decimals, or four where two would show ``0.90 < 0.90``."""
    shown = f"{rate:.2f}", f"{threshold:.2f}"
    if shown[0] == shown[1] and rate != threshold:
        shown = f"{rate:.4f}", f"{threshold:.4f}"
    return shown


def decide(run: RunResult, fail_under: float | None = None) -> GateDecision:
    """The gate's decision for `run`.

    `fail_under` is the least pass rate that passes; None takes the run's own setting
    (``Session(fail_under=...)``, ``--fail-under``), which reports read too.
    """
    if fail_under is None:
        fail_under = run.config.get("fail_under")
    tally = run.tally()
    total = tally.count
    if not run.complete:
        planned = "?" if run.planned_results is None else run.planned_results
        return GateDecision(False, f"interrupted: {total} of {planned} results finished")
    if total == 0:
        return GateDecision(False, "no results")
    broken = tally.must_pass_broken
    if broken.count:
        named, several = _named(broken)
        return GateDecision(False, f"must-pass {'cases' if several else 'case'} {named}")
    passed, errors, other, asr = tally.passed, tally.errors, "", ""
    bounds = AsrBounds.from_config(run.config.get("max_asr"))
    if bounds:
        rates = tally.asr()
        held = asr_verdict(rates, bounds)
        if not held.passed:
            return GateDecision(False, held.reason)
        # The attacks the bounds judged, and their controls, leave the pass rate's count:
        # an attack resisted may still have failed its response model (shown apart).
        for (goal, status), count in rates.statuses.items():
            if status != "error" and bounds.covers(goal):
                total -= count
                passed -= count if status == "pass" else 0
        if not total:
            return GateDecision(True, held.reason)
        other, asr = " other", held.reason + "; "
    if errors == total:  # nothing was graded: no pass rate, however low, is met by it
        return GateDecision(
            False, f"{asr}all {total}{other} results are errors: none passed or failed"
        )
    rate = passed / total
    must = tally.must_pass
    guarded = f"; all {must} must-pass results passed" if must else ""
    if fail_under is not None:
        verdict = rate >= fail_under
        sign = "≥" if verdict else "<"
        shown, wanted = _rates(rate, fail_under)
        return GateDecision(
            verdict, f"{asr}pass rate{other} {shown} {sign} {wanted} (--fail-under){guarded}"
        )
    not_passed = total - passed
    if not not_passed:
        return GateDecision(True, f"{asr}all {total}{other} results passed")
    failed = not_passed - errors
    error_word = "error" if errors == 1 else "errors"
    parts = [f"{n} {word}" for n, word in ((failed, "failed"), (errors, error_word)) if n]
    return GateDecision(
        False, f"{asr}{not_passed} of {total}{other} results did not pass ({', '.join(parts)})"
    )
