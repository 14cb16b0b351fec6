"""The report formats by file extension, and writing a report to a file."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from promptum.errors import ConfigError
from promptum.redaction import environment_secrets, scrub_json
from promptum.reporting._csv import render_csv
from promptum.reporting._html import render_html
from promptum.reporting._json import render_json
from promptum.reporting._jsonl import render_jsonl
from promptum.reporting._junit import render_junit
from promptum.reporting._markdown import render_markdown
from promptum.reporting._serialize import model_json
from promptum.results import RunResult


@dataclass(frozen=True, slots=True)
class ReportFormat:
    """A report format: its name (the file extension, without the dot) and its renderer."""

    name: str
    description: str
    render: Callable[[RunResult], str]
    aliases: tuple[str, ...] = ()


REPORT_FORMATS: dict[str, ReportFormat] = {
    f.name: f
    for f in (
        ReportFormat("json", "the whole run, loadable again", render_json),
        ReportFormat("jsonl", "one result per line", render_jsonl),
        ReportFormat("xml", "JUnit XML for CI", render_junit, ("junit",)),
        ReportFormat("html", "a self-contained page for people", render_html),
        ReportFormat("csv", "one row per result", render_csv),
        ReportFormat("md", "a Markdown summary for a pull request", render_markdown, ("markdown",)),
    )
}
"""Every format, keyed by its file extension."""


def _known() -> str:
    return ", ".join(f".{name} ({f.description})" for name, f in REPORT_FORMATS.items())


def _format(name: str, path: Path | None) -> ReportFormat:
    key = name.lower().lstrip(".")
    for report_format in REPORT_FORMATS.values():
        if key == report_format.name or key in report_format.aliases:
            return report_format
    where = f"{path}: " if path is not None else ""
    what = f"unknown report format {name!r}" if name else "no file extension to pick a format"
    raise ConfigError(f"{where}{what}; use one of {_known()}")


def _without_secrets(run: RunResult) -> RunResult:
    """`run` with the value of every secret-looking environment variable replaced.

    The store does the same to what it records; a report written straight from a run (a key
    pasted into a prompt, echoed in a response or an error) must not hold one either. The
    run's strings are scrubbed, not the rendered text, so the HTML page's own script stays
    intact.
    """
    secrets = environment_secrets()
    if not secrets:
        return run
    text = model_json(run)  # fast; usually there is nothing to replace and `run` is kept
    cleaned = scrub_json(text, secrets)
    return run if cleaned is text else RunResult.model_validate_json(cleaned)


def render_report(run: RunResult, fmt: str) -> str:
    """The run rendered in format `fmt` (an extension such as ``html``, or ``junit``)."""
    return _format(fmt, None).render(_without_secrets(run))


def write_report(run: RunResult, path: Path | str, fmt: str | None = None) -> None:
    """Write the run to `path`, in `fmt` or the format its extension names."""
    path = Path(path)
    report_format = _format(path.suffix if fmt is None else fmt, path)
    text = report_format.render(_without_secrets(run))
    # Write beside the target and rename, so a failure never leaves half a report over a
    # good one.
    partial = path.with_name(f".{path.name}.partial")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial.write_text(text, encoding="utf-8", newline="")
        os.replace(partial, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)
        raise ConfigError(f"{path}: cannot write the report: {exc.strerror or exc}") from None
