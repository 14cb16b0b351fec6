"""The gate: one decision per run, pass or fail, with the reason a person reads in CI logs.

Rules, in order: an interrupted or empty run fails; any must-pass result that did not pass
fails; then the pass rate decides (at least `fail_under` when given, else every result).
"""

from __future__ import annotations

from dataclasses import dataclass

from promptum.results import CaseResult, RunResult

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


def _named(results: list[CaseResult]) -> str:
    multi_model = len({r.column for r in results}) > 1
    names = [
        f"{r.key} ({'errored' if r.status == 'error' else 'failed'}"
        + (f" on {r.column})" if multi_model else ")")
        for r in results[:_NAMED]
    ]
    more = f" and {len(results) - _NAMED} more" if len(results) > _NAMED else ""
    return ", ".join(names) + more


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
    total = len(run.results)
    if not run.complete:
        planned = run.config.get("planned_results", "?")
        return GateDecision(False, f"interrupted: {total} of {planned} results finished")
    if total == 0:
        return GateDecision(False, "no results")
    must = [r for r in run.results if r.must_pass]
    broken = [r for r in must if r.status != "pass"]
    if broken:
        noun = "case" if len(broken) == 1 else "cases"
        return GateDecision(False, f"must-pass {noun} {_named(broken)}")
    rate = run.pass_rate
    guarded = f"; all {len(must)} must-pass results passed" if must else ""
    if fail_under is not None:
        verdict = rate >= fail_under
        sign = "≥" if verdict else "<"
        shown, wanted = _rates(rate, fail_under)
        return GateDecision(verdict, f"pass rate {shown} {sign} {wanted} (--fail-under){guarded}")
    not_passed = [r for r in run.results if r.status != "pass"]
    if not not_passed:
        return GateDecision(True, f"all {total} results passed")
    failed = sum(r.status == "fail" for r in not_passed)
    errors = len(not_passed) - failed
    error_word = "error" if errors == 1 else "errors"
    parts = [f"{n} {word}" for n, word in ((failed, "failed"), (errors, error_word)) if n]
    return GateDecision(
        False, f"{len(not_passed)} of {total} results did not pass ({', '.join(parts)})"
    )
