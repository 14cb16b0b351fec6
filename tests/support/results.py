"""What a run's results say, read the way the tests compare them."""

from __future__ import annotations

from promptum.values.run_result import RunResult


def statuses(run: RunResult) -> dict[str, str]:
    """Each case's status in `run`, by case id (a case run more than once: its last result)."""
    return {result.case_id: result.status for result in run.results}
