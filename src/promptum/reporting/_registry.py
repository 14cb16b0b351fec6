"""The report formats by file extension, and writing a report to a file.

Formats from outside promptum join it through `register_report` (``promptum.register_report``)
or an entry point of the ``promptum.reports`` group, loaded the first time its extension is
looked up.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, cast

from promptum.errors import ConfigError
from promptum.foundations.entry_points import REPORTS_GROUP, Registry, call_problem, caller_label
from promptum.foundations.redaction import environment_secrets
from promptum.reporting._source import ReportSource, Results, scrubbed
from promptum.reporting._stored import StoredJson
from promptum.values.reviews import ReviewMap
from promptum.values.run_result import RunResult

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
    write: Callable[[ReportSource, TextIO], None] | None = None
    """For a built-in format: writes the report a result at a time, in bounded memory.
    Without it a run's results are loaded to call `render`."""

    @property
    def streams(self) -> bool:
        """Whether a run writes this format as results arrive (through `sink`)."""
        return self.sink is not None


def _on_call(module: str, name: str) -> Callable[..., Any]:
    """Function `name` of format module `module`, imported when first called.

    A run imports the module of the formats it writes only: ``-o r.json`` does not import
    the HTML page's template machinery nor the JUnit writer.
    """

    def call(*arguments: Any) -> Any:
        return getattr(import_module(f"promptum.reporting.{module}"), name)(*arguments)

    call.__name__ = call.__qualname__ = name
    return call


def _built_in(
    name: str, description: str, module: str, aliases: tuple[str, ...] = (), *, sink: str = ""
) -> ReportFormat:
    """A built-in format: `module`'s ``render_<module>`` and ``write_<module>``, on call."""
    stem = module.removeprefix("_")
    return ReportFormat(
        name,
        description,
        _on_call(module, f"render_{stem}"),
        aliases,
        sink=_on_call(module, sink) if sink else None,
        write=_on_call(module, f"write_{stem}"),
    )


REPORT_FORMATS: dict[str, ReportFormat] = {
    f.name: f
    for f in (
        _built_in("json", "the whole run, loadable again", "_json"),
        _built_in("jsonl", "one result per line", "_jsonl", sink="JsonlSink"),
        _built_in("xml", "JUnit XML for CI", "_junit", ("junit",)),
        _built_in("html", "a self-contained page for people", "_html"),
        _built_in("csv", "one row per result", "_csv"),
        _built_in("md", "a Markdown summary for a pull request", "_markdown", ("markdown",)),
    )
}
"""Every format, keyed by its file extension."""


_EXTENSION = re.compile(r"[a-z0-9][a-z0-9_-]*")
_REGISTRY: Registry[ReportFormat] = Registry(
    "report format",
    REPORTS_GROUP,
    REPORT_FORMATS,
    lambda name, target, plugin: register_report_format(name, target, plugin),
    built_in_as="a built-in format",
    pattern=_EXTENSION,
)


def _known() -> str:
    known = [f".{name} ({f.description})" for name, f in REPORT_FORMATS.items()]
    known += [f".{name} (a plugin)" for name in _REGISTRY.plugin_names()]
    return ", ".join(dict.fromkeys(known))


def _lookup(key: str) -> ReportFormat | None:
    for report_format in REPORT_FORMATS.values():
        if key == report_format.name or key in report_format.aliases:
            return report_format
    return None


def _format(name: str, path: Path | None) -> ReportFormat:
    key = name.lower().lstrip(".")
    found = _lookup(key) or _REGISTRY.load(key)
    if found is not None:
        return found
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

    def refuse(reason: str) -> Exception:
        return _REGISTRY.error(name, plugin, reason)

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
            whose = _REGISTRY.whose(taken.name)
            raise refuse(f"the extension .{extension} is taken ({whose}); choose another")
    return _REGISTRY.add(name, report_format, plugin)


def register_report(
    name: str,
    render: Callable[[RunResult], str] | ReportFormat,
    *,
    description: str = "",
    aliases: Sequence[str] = (),
) -> ReportFormat:
    """Add report format ``name`` (the file extension, e.g. ``tap``): ``render(run) -> str``.

    ``promptum run -o results.tap`` then writes it. Raises `PluginError` if the name or an
    alias is taken or ``render`` does not take one argument.
    """
    return register_report_format(
        name, render, caller_label("register_report", render), description, tuple(aliases)
    )


def unregister_report_format(name: str) -> None:
    """Remove a registered format (a built-in one stays); for tests and reloading code."""
    _REGISTRY.unregister(name)


def format_of(path: Path, fmt: str | None = None) -> ReportFormat:
    """The format `fmt` names, else the one `path`'s extension picks; a ConfigError if none."""
    return _format(path.suffix if fmt is None else fmt, path)


def _refuse_unkept(run: RunResult) -> None:
    """A run that streamed its results has none to report without a way to read them."""
    if run.result_count > len(run.results):
        raise ValueError(
            f"run {run.run_id} streamed its results without keeping them; pass `results` "
            "to read them (from the run store: lambda: store.iter_results(run.run_id))"
        )


def render_report(run: RunResult, fmt: str, reviews: ReviewMap | None = None) -> str:
    """The run rendered in format `fmt` (an extension such as ``html``, or ``junit``).

    `reviews` (people's, by result, from the run store) show beside the grades in the
    formats that show them (JSON, HTML); without any the report is as it always was.
    """
    _refuse_unkept(run)
    report_format = _format(fmt, None)
    kept = scrubbed(run, environment_secrets())
    if not reviews or report_format.write is None:
        return report_format.render(kept)
    out = io.StringIO(newline="")
    report_format.write(replace(ReportSource.kept(kept), reviews=_scrubbed(reviews)), out)
    return out.getvalue()


def _scrubbed(reviews: ReviewMap) -> ReviewMap:
    """`reviews` without the environment's secrets, as the results they sit beside."""
    secrets = environment_secrets()
    return {key: [r.scrubbed(secrets) for r in group] for key, group in reviews.items()}


def write_report(
    run: RunResult,
    path: Path | str,
    fmt: str | None = None,
    results: Results | None = None,
    reviews: ReviewMap | None = None,
    stored: StoredJson | None = None,
) -> None:
    """Write the run to `path`, in `fmt` or the format its extension names.

    `results` reads the results of a run that streamed them instead of keeping them (to the
    run store: ``lambda: store.iter_results(run.run_id)``); each call yields every result
    in plan order. The built-in formats then write the report a result at a time, in
    bounded memory, identical to the report of the same run with its results kept. A
    registered format renders a whole run: its results are loaded for it.

    `reviews` (people's reviews from the run store, by result) show beside the grades in
    the JSON and HTML reports; without any, every report is as it was.

    `stored` (with `results`) reads the same results as this promptum just recorded them
    (``lambda: store.iter_result_json(run.run_id)``): the formats that can are written from
    that JSON without validating it again. Not for results an older promptum recorded.
    """
    path = Path(path)
    report_format = _format(path.suffix if fmt is None else fmt, path)
    if results is None:
        _refuse_unkept(run)
        source = ReportSource.kept(scrubbed(run, environment_secrets()))
    else:
        source = ReportSource.streamed(run, results, environment_secrets(), stored)
    if reviews:
        source = replace(source, reviews=_scrubbed(reviews))
    write = report_format.write
    if write is None:
        loaded = source.run.model_copy(update={"results": list(source.results())})
        text = report_format.render(loaded)
        _write_file(path, lambda out: out.write(text))
    else:
        _write_file(path, lambda out: write(source, out))


def _file_in_the_way(path: Path) -> Path:
    """The first of `path`'s folders that is a file (or the folder itself, if none is)."""
    return next((parent for parent in reversed(path.parents) if parent.is_file()), path.parent)


def _write_file(path: Path, write: Callable[[TextIO], object]) -> None:
    # Write beside the target and rename, so a failure never leaves half a report over a
    # good one.
    partial = path.with_name(f".{path.name}.partial")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with partial.open("w", encoding="utf-8", newline="") as out:
            write(out)
        os.replace(partial, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)
        reason = exc.strerror or str(exc)
        if isinstance(exc, FileExistsError | NotADirectoryError):  # a file where a folder goes
            reason = f"{_file_in_the_way(path)} is a file, not a folder"
        raise ConfigError(f"{path}: cannot write the report: {reason}") from None
    except BaseException:
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)
        raise
