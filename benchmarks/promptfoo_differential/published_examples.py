"""promptfoo's published example configs through `promptum import promptfoo`: which convert.

Every config of ``published/`` (copies of promptfoo's ``examples/``, see its README) is
imported and the suite written is loaded as ``promptum validate`` loads it. A table says, per
config, whether it converted, whether the suite validates, and why not; for a suite that
converted, how many parts of the config were left out (each with its reason in the import's
report). Nothing is run: no model is called.

Run from the repository root:
  .venv/bin/python -m benchmarks.promptfoo_differential.published_examples
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from promptum.errors import PromptumError
from promptum.importers import import_promptfoo
from promptum.suites import load_suite

PUBLISHED = Path(__file__).parent / "published"


@dataclass(frozen=True)
class Examined:
    """What the import made of one published config."""

    config: str
    converts: bool
    validates: bool
    reason: str
    """Why it did not convert or validate; for a suite that did, what was left out."""


def published_configs() -> list[Path]:
    """The published configs: every promptfooconfig*.yaml under ``published/``."""
    return sorted(PUBLISHED.rglob("promptfooconfig*.yaml"))


def examine(config: Path, work: Path) -> Examined:
    """Import `config` into `work` and validate the suite; a refusal is a stated reason."""
    name = config.relative_to(PUBLISHED).as_posix()
    suite = work / "suite.yaml"
    try:
        conversion = import_promptfoo(config, suite)
    except PromptumError as exc:
        return Examined(name, False, False, _first_line(str(exc)))
    try:
        load_suite(suite, check_models=True)
    except PromptumError as exc:
        return Examined(name, True, False, _first_line(str(exc)))
    skipped = conversion.outcome.skipped
    left_out = f"{len(skipped)} part(s) left out, first: {skipped[0]}" if skipped else ""
    return Examined(name, True, True, left_out)


def _first_line(text: str) -> str:
    """The message's first line; when it ends with a colon, with the line that says why."""
    lines = [line.strip() for line in text.strip().splitlines()]
    if not lines:
        return "(no message)"
    return " ".join(lines[:2]) if lines[0].endswith(":") and len(lines) > 1 else lines[0]


def examine_all() -> list[Examined]:
    """Every published config examined, each in a folder of its own."""
    with tempfile.TemporaryDirectory() as tmp:
        rows = []
        for index, config in enumerate(published_configs()):
            work = Path(tmp) / str(index)
            work.mkdir()
            rows.append(examine(config, work))
        return rows


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def main() -> None:
    """Print the table and its summary."""
    rows = examine_all()
    width = max(len(row.config) for row in rows)
    print(f"{'config':<{width}}  converts  validates  reason")
    for row in rows:
        flags = f"{_yes(row.converts):<8}  {_yes(row.validates):<9}"
        print(f"{row.config:<{width}}  {flags}  {row.reason}")
    converted = sum(row.converts for row in rows)
    valid = sum(row.validates for row in rows)
    whole = sum(row.validates and not row.reason for row in rows)
    print(
        f"\n{len(rows)} configs: {converted} convert, {valid} validate ({whole} with nothing "
        f"left out), {len(rows) - converted} refused with the reason above"
    )


if __name__ == "__main__":
    main()
