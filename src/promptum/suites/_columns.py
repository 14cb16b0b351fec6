"""Per-row checks (`columns:`): a data row's cell becomes that row's check of a given type."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from promptum.foundations.suggestions import did_you_mean
from promptum.suites._data_files import RawCase
from promptum.suites._format import ColumnCheckSpec
from promptum.suites._locate import Locator, problem

_MAX_NAMES = 1000
"""Column names kept to suggest from: JSONL rows may each have keys of their own."""


def _missing(name: str, source: Path, present: Iterable[str]) -> str:
    """The problem of a column the file does not have, with the closest one it has."""
    names = list(present)
    hint = did_you_mean(name, names)
    listing = f" Its columns: {', '.join(names[:20])}." if names else ""
    return (
        f"{source} has no column {name!r}, so this check would never run.{hint}{listing} "
        "Name a column of the file (not one that sets a case key, such as `query`), or "
        "remove this check"
    )


class ColumnChecks:
    """Turns the cells of the `columns` a suite names into each row's own checks."""

    def __init__(self, columns: Mapping[str, ColumnCheckSpec]) -> None:
        self.columns = columns
        self._written = {name: spec.model_dump(exclude_none=True) for name, spec in columns.items()}
        """Each column's check as written, but `value`: dumped once, not once a row."""

    def rows(
        self, raw_cases: Iterable[RawCase], source: Path, problems: list[str], locator: Locator
    ) -> Iterator[RawCase]:
        """The rows with their column checks added; a column no row has is a problem."""
        seen: set[str] = set()
        present: dict[str, None] = {}
        for raw in raw_cases:
            variables = raw.data.get("vars")
            if isinstance(variables, dict) and len(present) < _MAX_NAMES:
                present.update(dict.fromkeys(variables))
            yield self.with_checks(raw, seen)
        for name in self.columns:
            if name not in seen:
                problems.append(
                    problem(locator, ("columns", name), _missing(name, source, present))
                )

    def with_checks(self, raw: RawCase, seen: set[str]) -> RawCase:
        """`raw` with a check for each of its cells in `columns`; adds the columns to `seen`."""
        variables = raw.data.get("vars")
        if not self.columns or not isinstance(variables, dict):
            return raw
        added = []
        for name, written in self._written.items():
            if name not in variables:
                continue
            seen.add(name)
            cell = variables[name]
            if cell is None or cell == "":
                continue  # an empty cell: this row has no such check
            added.append({**written, "value": cell})
        if not added:
            return raw
        checks = raw.data.get("checks")
        own = checks if isinstance(checks, list) else []
        return RawCase({**raw.data, "checks": [*own, *added]}, raw.locator, raw.default_id)
