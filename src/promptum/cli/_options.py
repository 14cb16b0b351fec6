"""Options whose help states library facts (report formats, defaults), read when help is shown.

The facts live in the library (the report registry, the runner's defaults), not in help
strings here. Importing them costs tens of milliseconds, so they are read only when an
option's help is rendered: `promptum --help` and every command that runs import none of it.
`RunOptions` is what `promptum run` was given, as typed values (read by its ``--watch`` too).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click


class FactOption(click.Option):
    """A click option whose help text, and a default given as a function, are read for `--help`."""

    def __init__(
        self, *args: Any, help_text: Callable[[], str] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self._help_text = help_text

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        """The option's line in `--help`, its text and default read from the library now."""
        # Swapped in for this rendering only: the command object lives as long as the process.
        help_text, default = self.help, self.default
        try:
            if self._help_text is not None:
                self.help = self._help_text()
            if callable(default):  # click itself would show "(dynamic)"
                self.default = default()
            return super().get_help_record(ctx)
        finally:
            self.help, self.default = help_text, default


def report_extensions() -> str:
    """Every report format's extension, from the registry: ``.json .jsonl .xml ...``."""
    from promptum.reporting import REPORT_FORMATS

    return " ".join(f".{name}" for name in REPORT_FORMATS)


def report_names() -> str:
    """Every name `--format` takes, aliases included: ``json, jsonl, xml, junit, ...``."""
    from promptum.reporting import REPORT_FORMATS

    return ", ".join(name for f in REPORT_FORMATS.values() for name in (f.name, *f.aliases))


def output_help() -> str:
    """The help of a report's ``-o``."""
    return f"Write a report; the extension picks the format ({report_extensions()}). Repeatable."


def format_help() -> str:
    """The help of ``-f/--format``."""
    return f"Use this format whatever the extension ({report_names()})."


def timeout_help() -> str:
    """The help of ``run --timeout``, with the library's default time limit."""
    from promptum.providers import ClientOptions

    default = ClientOptions.model_fields["timeout_s"].default
    return (
        f"Seconds one model or target call may take (default {default:g}); an endpoint's or "
        "target's own timeout_s wins. A target that times out is retried only if it sets retries."
    )


def at_most_a_week(_ctx: click.Context, _param: click.Parameter, value: float | None) -> Any:
    """A time limit's upper bound (`MAX_TIMEOUT_S`), also refusing nan and infinity."""
    # Read when an option is given, not at start-up (it loads the providers package).
    from promptum.providers import MAX_TIMEOUT_S

    if value is not None and not value <= MAX_TIMEOUT_S:  # false for nan too
        raise click.BadParameter(
            f"{value!r} is not a number of seconds of at most {MAX_TIMEOUT_S:g}"
        )
    return value


def json_option(what: str) -> Callable[[Any], Any]:
    """The ``--json`` flag: print `what` as JSON (documented, stable keys) instead of text."""
    return click.option(
        "--json", "as_json", is_flag=True, help=f"Print {what} as JSON, for scripts."
    )


def suite_output_option(help_text: str, *, required: bool = True) -> Callable[[Any], Any]:
    """The ``-o/--output`` of a command writing a suite file."""
    return click.option(
        "-o",
        "--output",
        type=click.Path(path_type=Path, dir_okay=False),
        required=required,
        help=help_text,
    )


BESIDE_SOURCE = "The suite file to write (beside SUITE, so its relative paths still hold)."
"""Where a suite file written from another goes: relative paths are the source's."""


def refuse_overwriting(output: Path, source: Path, what: str) -> None:
    """Exit 2 if `output` is the `source` file itself: a command never writes over its input."""
    if output.resolve() == source.resolve():
        click.echo(
            f"error: {output}: this is SUITE itself; write the {what} to another file", err=True
        )
        raise SystemExit(2)


@dataclass(frozen=True, slots=True)
class RunOptions:
    """What `promptum run` was asked to do: its command line as typed values."""

    paths: tuple[Path, ...]
    concurrency: int
    """Model calls in flight at once (`promptum.runner.DEFAULT_CONCURRENCY` when not given)."""
    models: tuple[str, ...] = ()
    judge: str | None = None
    no_judge: bool = False
    repeat: int | None = None
    patterns: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    prompts: tuple[str, ...] = ()
    """Only these prompt variants (`--prompt`); empty: every variant."""
    fail_under: float | None = None
    max_asr: tuple[str, ...] = ()
    """The ``--max-asr`` bounds as given (``0.05``, ``GOAL=0.1``), checked when parsed."""
    no_cache: bool = False
    outputs: tuple[Path, ...] = ()
    summary_md: Path | None = None
    resume: bool = False
    no_store: bool = False
    watch: bool = False
    """Run again whenever a suite, prompt, data file or Python module it reads changes."""
    executor: str = "local"
    """Where the units run: ``local`` (this process) or ``ray`` (Ray actors)."""
    address: str | None = None
    """The Ray cluster to join (`--executor ray`); None starts a local Ray instance."""
    timeout: float | None = None
    """Seconds one model or target call may take (`--timeout`); None: the library's default.
    An endpoint's or target's own `timeout_s` wins over it."""
    grade_timeout: float | None = None
    """Seconds grading one response may take (`--grade-timeout`); None: the library's default."""
    rpm: int | None = None
    """Requests per minute on each model endpoint that states no ``rpm:`` (`--rpm`)."""
    tpm: int | None = None
    """Tokens per minute on each model endpoint that states no ``tpm:`` (`--tpm`)."""
    batch: bool = False
    """Send the run's model calls through the providers' batch APIs, at half price (`--batch`)."""


def asr_bounds(
    ctx: click.Context, param: click.Parameter, value: tuple[str, ...]
) -> tuple[str, ...]:
    """Refuse a ``--max-asr`` value that is no bound before anything is loaded (exit 2)."""
    from promptum.errors import ConfigError
    from promptum.values.asr_bounds import AsrBounds

    try:
        AsrBounds.parse(value)
    except ConfigError as exc:
        raise click.BadParameter(str(exc).removeprefix("--max-asr "), ctx, param) from None
    return value
