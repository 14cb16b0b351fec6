"""`promptum run --watch`: run, then run again whenever a file the suites read changes.

Each run is a fresh ``promptum run`` process: a changed Python module (a check, a response
model, a target) is imported anew, and Ctrl-C keeps its usual meaning inside a run. The
response cache makes a re-run cheap: only requests that changed reach a model, and every
other case is answered from the cache and graded again.

Files are polled (their modification time and size), not watched through the operating
system: the set is small (suites, prompt and data files, Python modules), polling works the
same on every platform, in containers and on network drives, and it needs no dependency.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING

from promptum.cli._options import RunOptions

if TYPE_CHECKING:
    from rich.console import Console

POLL_VARIABLE = "PROMPTUM_WATCH_POLL_S"
DEFAULT_POLL_S = 0.5
EXIT_INTERRUPTED = 130

Snapshot = dict[Path, tuple[int, int] | None]
"""Each watched file's (modification time in ns, size), None when it is missing."""

_FLAGS = {
    "models": "-m",
    "judge": "--judge",
    "repeat": "--repeat",
    "patterns": "-k",
    "tags": "-t",
    "prompts": "--prompt",
    "fail_under": "--fail-under",
    "max_asr": "--max-asr",
    "outputs": "-o",
    "summary_md": "--summary-md",
    "concurrency": "-c",
}
_SWITCHES = {"no_judge": "--no-judge", "no_cache": "--no-cache", "no_store": "--no-store"}


def run_argv(options: RunOptions) -> list[str]:
    """The ``promptum run`` command line of `options`, without --watch and --resume."""
    argv = ["run", *map(str, options.paths)]
    for item in fields(options):
        value = getattr(options, item.name)
        if item.name in _SWITCHES and value:
            argv.append(_SWITCHES[item.name])
        elif item.name in _FLAGS and value is not None and value != ():
            for one in value if isinstance(value, tuple) else (value,):
                argv += [_FLAGS[item.name], str(one)]
    return argv


def _poll_s() -> float:
    try:
        return max(0.01, float(os.environ.get(POLL_VARIABLE, DEFAULT_POLL_S)))
    except ValueError:
        return DEFAULT_POLL_S


def _files_of(path: Path) -> list[Path]:
    """A file, or the case files of a folder."""
    return sorted(path.glob("*.toml")) if path.is_dir() else [path]


def watched_files(paths: Sequence[Path]) -> list[Path]:
    """Every file the suites under `paths` read: suites, prompt and data files, modules."""
    from promptum.errors import PromptumError
    from promptum.suites import find_suites, load_suite

    try:
        suites = find_suites(paths).suites
    except PromptumError:
        return [p for path in paths for p in _files_of(path)]  # the run reports the problem
    files: list[Path] = []
    for path in suites:
        files += _files_of(path)
        try:
            suite = load_suite(path)
        except PromptumError:
            continue  # a broken suite: its own file is watched, and the run says what is wrong
        for source in suite.inputs:
            files += _files_of(source)
        files += [item.path for item in suite.python_imports if item.path is not None]
    return list(dict.fromkeys(files))


def snapshot(files: Iterable[Path]) -> Snapshot:
    """The state of each file now."""
    state: Snapshot = {}
    for path in files:
        try:
            stat = path.stat()
        except OSError:
            state[path] = None
        else:
            state[path] = (stat.st_mtime_ns, stat.st_size)
    return state


def changed(before: Snapshot, after: Snapshot) -> list[Path]:
    """The files whose state differs between two snapshots."""
    return [path for path in after if before.get(path) != after[path]]


class _Terminated(KeyboardInterrupt):
    """SIGTERM to the watcher: it stops watching as on Ctrl-C (exit 130)."""


def _terminated(signum: int, frame: object) -> None:
    raise _Terminated


def _run_once(argv: list[str]) -> int:
    """One ``promptum run``; Ctrl-C reaches it too (same process group) and it stops itself."""
    process = subprocess.Popen([sys.executable, "-m", "promptum", *argv])
    try:
        return process.wait()
    except KeyboardInterrupt as stop:
        if isinstance(stop, _Terminated):  # sent to the watcher alone: pass it on
            process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
        raise


def watch(console: Console, options: RunOptions) -> int:
    """Run, then wait for a change and run again, until Ctrl-C (exit 130)."""
    argv = run_argv(options)
    poll = _poll_s()
    stopping = signal.signal(signal.SIGTERM, _terminated)
    try:
        _run_once([*argv, "--resume"] if options.resume else argv)
        while True:
            files = watched_files(options.paths)
            before = snapshot(files)
            console.print(
                f"[dim]watching {len(files)} file(s) for changes; Ctrl-C to stop[/]",
                highlight=False,
            )
            sys.stdout.flush()
            while not (moved := changed(before, snapshot(files))):
                time.sleep(poll)
            if console.is_terminal:
                console.clear()  # the summary is refreshed in place
            names = ", ".join(str(path) for path in moved[:5])
            console.print(f"changed: {names}; running again", highlight=False, soft_wrap=True)
            sys.stdout.flush()
            _run_once(argv)
    except KeyboardInterrupt:
        console.print("stopped watching")
        return EXIT_INTERRUPTED
    finally:
        signal.signal(signal.SIGTERM, stopping)
