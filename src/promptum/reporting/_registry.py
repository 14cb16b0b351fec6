"""The report formats by file extension, and writing a report to a file."""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

from promptum.errors import ConfigError
from promptum.redaction import environment_secrets, scrub_json
from promptum.reporting._csv import render_csv
from promptum.reporting._html import render_html
from promptum.reporting._json import render_json
from promptum.reporting._jsonl import JsonlSink, render_jsonl
from promptum.reporting._junit import render_junit
from promptum.reporting._markdown import render_markdown
from promptum.reporting._serialize import model_json
from promptum.results import RunResult

if TYPE_CHECKING:
    from promptum.sinks import ResultSink


@dataclass(frozen=True, slots=True)
class ReportFormat:
    """A report format: its name (the file extension, without the dot) and its renderer."""

    name: str
    description: str
    render: Callable[[RunResult], str]
    aliases: tuple[str, ...] = ()
    sink: Callable[[Path], ResultSink] | None = None
    """For a format written as results arrive: the sink that writes it to a path. A run then
    streams the file instead of rendering it at the end, so an interrupted run keeps it."""

    @property
    def streams(self) -> bool:
        """Whether a run writes this format as results arrive (through `sink`)."""
        return self.sink is not None


REPORT_FORMATS: dict[str, ReportFormat] = {
    f.name: f
    for f in (
        ReportFormat("json", "the whole run, loadable again", render_json),
        ReportFormat("jsonl", "one result per line", render_jsonl, sink=JsonlSink),
        ReportFormat("xml", "JUnit XML for CI", render_junit, ("junit",)),
        ReportFormat("html", "a self-contained page for people", render_html),
        ReportFormat("csv", "one row per result", render_csv),
        ReportFormat("md", "a Markdown summary for a pull request", render_markdown, ("markdown",)),
    )
}
"""Every format, keyed by its file extension."""


_BUILT_IN = frozenset(REPORT_FORMATS)
_origins: dict[str, str] = {}
"""Where each registered (not built-in) format came from, for the error of a second one."""
_EXTENSION = re.compile(r"[a-z0-9][a-z0-9_-]*")
_HOOK = "report format"


def _known() -> str:
    from promptum._plugins import REPORTS_GROUP, entry_point_names

    known = [f".{name} ({f.description})" for name, f in REPORT_FORMATS.items()]
    known += [f".{name} (a plugin)" for name in entry_point_names(REPORTS_GROUP)]
    return ", ".join(dict.fromkeys(known))


def _lookup(key: str) -> ReportFormat | None:
    for report_format in REPORT_FORMATS.values():
        if key == report_format.name or key in report_format.aliases:
            return report_format
    return None


def _format(name: str, path: Path | None) -> ReportFormat:
    key = name.lower().lstrip(".")
    found = _lookup(key)
    if found is not None:
        return found
    if _EXTENSION.fullmatch(key):
        from promptum._plugins import REPORTS_GROUP, load_entry_point

        def accept(target: object, label: str) -> None:
            register_report_format(key, target, label)

        if load_entry_point(REPORTS_GROUP, key, _HOOK, accept) is not None:
            return REPORT_FORMATS[key]
    where = f"{path}: " if path is not None else ""
    what = f"unknown report format {name!r}" if name else "no file extension to pick a format"
    raise ConfigError(f"{where}{what}; use one of {_known()}")


def register_report_format(
    name: str,
    render: object,
    plugin: str,
    description: str = "",
    aliases: tuple[str, ...] = (),
) -> ReportFormat:
    """Add format ``name`` (an extension) from ``plugin``: a render function or a ReportFormat.

    Raises `PluginError` naming the plugin and the reason: a name or alias taken or
    malformed, a renderer that cannot be called with the run.
    """
    from promptum._plugins import call_problem, plugin_error

    def refuse(reason: str) -> Exception:
        return plugin_error(_HOOK, name, plugin, reason)

    given = render.render if isinstance(render, ReportFormat) else render
    problem = call_problem(given, 1, "render(run)")
    if problem is not None:
        raise refuse(f"{problem}; a renderer takes the RunResult and returns the report's text")
    if isinstance(render, ReportFormat):
        if render.name != name:
            raise refuse(f"the ReportFormat is named {render.name!r}; register it under its name")
        report_format = render
    else:
        renderer = cast(Callable[[RunResult], str], render)
        report_format = ReportFormat(name, description or "a plugin", renderer, tuple(aliases))
    for extension in (report_format.name, *report_format.aliases):
        if not isinstance(extension, str) or not _EXTENSION.fullmatch(extension):
            raise refuse(
                f"{extension!r} is not a file extension: lower-case letters, digits, '_' or "
                "'-', without the dot"
            )
        taken = _lookup(extension)
        if taken is not None:
            whose = (
                "a built-in format"
                if taken.name in _BUILT_IN
                else f"registered by {_origins[taken.name]}"
            )
            raise refuse(f"the extension .{extension} is taken ({whose}); choose another")
    REPORT_FORMATS[name] = report_format
    _origins[name] = plugin
    return report_format


def unregister_report_format(name: str) -> None:
    """Remove a registered format (a built-in one stays); for tests and reloading code."""
    if name in _BUILT_IN:
        raise ValueError(f"{name!r} is a built-in report format")
    REPORT_FORMATS.pop(name, None)
    _origins.pop(name, None)


def format_of(path: Path, fmt: str | None = None) -> ReportFormat:
    """The format `fmt` names, else the one `path`'s extension picks; a ConfigError if none."""
    return _format(path.suffix if fmt is None else fmt, path)


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
