"""The results of a run: one `CaseResult` per case × model × repeat, gathered in a `RunResult`.

These pydantic models are the one contract between the runner (which produces them), the
reporters and the run store (which consume them); JSON export and import go through them.
`CaseResult` and `Message` are declared in `promptum.values.case_result`, the figures in
`promptum.values.stats`; they are imported from here as before. Only `Message` is built when this
module is imported: loading a suite makes messages but no results, so the other models are
built on first use (``defer_build``).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

from promptum.values.case_result import CaseResult as CaseResult
from promptum.values.case_result import Message as Message
from promptum.values.case_result import TurnResult as TurnResult
from promptum.values.case_result import namespaced as namespaced
from promptum.values.documented_views import JudgeVerdict as JudgeVerdict
from promptum.values.stats import CheckStats as CheckStats
from promptum.values.stats import ModelStats as ModelStats
from promptum.values.tally import RunTally

_RUN_FACTS = frozenset({"planned_results", "resumed", "warnings", "git_commit", "git_dirty"})
"""The run's facts that `RunResult.config` carried before they had fields of their own."""


_DERIVED = frozenset({"metrics", "asr"})
"""Keys of a JSON report that are figures of its results, not facts of the run."""


def _now() -> datetime:
    return datetime.now(UTC)


class RunResult(BaseModel):
    """Every result of one run, with the run's facts."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    run_id: str
    suite: str = ""
    models: list[str] = Field(default_factory=list)
    started_at: datetime = Field(default_factory=_now)
    finished_at: datetime | None = None
    complete: bool = True
    """False when the run was interrupted before every case finished."""
    planned_results: int | None = None
    """How many results the run planned (cases × models × repeats); None when not recorded."""
    resumed: bool = False
    """Whether the run continued an interrupted one (`--resume`), keeping its results."""
    warnings: list[str] = Field(default_factory=list)
    """What went wrong beside the results (a sink that failed, responses not cached)."""
    git_commit: str | None = None
    """The commit checked out when the run was recorded; None outside a repository."""
    git_dirty: bool | None = None
    """Whether tracked files had uncommitted changes then; None without a commit."""
    config: dict[str, Any] = Field(default_factory=dict)
    """The settings the run was asked for (suites, judge, parameters, concurrency, gate)."""
    results: list[CaseResult] = Field(default_factory=list)
    _streamed: RunTally | None = PrivateAttr(default=None)

    @model_validator(mode="before")
    @classmethod
    def _without_derived(cls, data: Any) -> Any:
        # A JSON report carries figures derived from the results (`metrics`): counted again
        # from the results when read, never taken from the file.
        if isinstance(data, dict) and _DERIVED.intersection(data):
            data = {key: value for key, value in data.items() if key not in _DERIVED}
        return data

    @model_validator(mode="before")
    @classmethod
    def _facts_from_config(cls, data: Any) -> Any:
        # Runs written before these facts had fields of their own kept them in `config`.
        if isinstance(data, dict) and isinstance(data.get("config"), dict):
            config = data["config"]
            moved = _RUN_FACTS.intersection(config)
            if moved:
                data = {**data, "config": {k: v for k, v in config.items() if k not in moved}}
                for key in moved:
                    data.setdefault(key, config[key])
        return data

    @property
    def duration_s(self) -> float | None:
        """Wall-clock seconds from start to finish, when finished."""
        if self.finished_at is None:
            return None
        return (self.finished_at - self.started_at).total_seconds()

    def tally(self) -> RunTally:
        """The run's figures: as counted while it streamed, else counted from `results`."""
        if self._streamed is not None:
            return self._streamed
        return RunTally.of(self.results, self.models)

    def streamed(self, tally: RunTally) -> None:
        """Mark the run as streamed: its figures are `tally`'s, its results were not kept."""
        self._streamed = tally

    @property
    def result_count(self) -> int:
        """How many results the run has, kept or streamed."""
        return self._streamed.count if self._streamed is not None else len(self.results)

    @property
    def passed(self) -> bool:
        """Whether every result passed."""
        tally = self.tally()
        return tally.passed == tally.count

    @property
    def pass_rate(self) -> float:
        """Passed results as a fraction of all results (0 when there are none)."""
        return self.tally().pass_rate

    def cache_counts(self) -> tuple[int, int]:
        """How many answers came from the response cache, and how many answers there were."""
        tally = self.tally()
        return tally.cached, tally.answered

    def by_model(self) -> dict[str, list[CaseResult]]:
        """Results grouped by column (model, or ``model · variant``), in the run's model order."""
        if not any(result.variant for result in self.results):
            grouped: dict[str, list[CaseResult]] = {model: [] for model in self.models}
            for result in self.results:
                grouped.setdefault(result.model, []).append(result)
            return grouped
        # One column per model × variant: models in the run's order, variants as they appear.
        order = {model: index for index, model in enumerate(self.models)}
        columns: dict[str, list[CaseResult]] = {}
        for result in sorted(self.results, key=lambda r: order.get(r.model, len(order))):
            columns.setdefault(result.column, []).append(result)
        return columns

    def stats(self) -> dict[str, ModelStats]:
        """Aggregate figures per model (per ``model · variant`` column with variants)."""
        return self.tally().stats()

    def get_check_stats(self) -> dict[str, CheckStats]:
        """Deterministic check counts per model."""
        return self.tally().check_stats()
