"""The pytest hooks: options, suite collection, outcomes, the run store and the fixture.

Loaded in every pytest run by the ``pytest11`` entry point, so this module imports only
pytest, the standard library and a constant of promptum's foundations; the rest of promptum
is imported once a suite is configured, an item runs, or the fixture is used.
"""

from __future__ import annotations

import glob
from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from promptum.foundations.file_suffixes import YAML_SUFFIXES
from promptum.pytest_plugin._state import COLLECTED, ENGINE, SETTINGS, Settings, engine

if TYPE_CHECKING:
    from promptum.pytest_plugin._fixture import PromptumFixture
    from promptum.pytest_plugin._record import RunRecorder


def pytest_addoption(parser: pytest.Parser) -> None:
    """The promptum options and ini keys."""
    group = parser.getgroup("promptum", "promptum: LLM prompt suites as tests")
    group.addoption(
        "--promptum-suites",
        action="append",
        default=[],
        metavar="GLOB",
        help="Collect the cases of these suites (YAML files or TOML case folders; repeatable; "
        "relative to the current directory).",
    )
    group.addoption(
        "--promptum-no-store",
        action="store_true",
        help="Do not record the run of the suites' cases in promptum's run history.",
    )
    group.addoption(
        "--promptum-no-cache",
        action="store_true",
        help="Call the models even for requests promptum's response cache has answered.",
    )
    parser.addini(
        "promptum_suites",
        type="args",
        default=[],
        help="Globs of promptum suites to collect as tests, relative to the rootdir "
        "(e.g. prompts/**/*.yaml).",
    )
    parser.addini(
        "promptum_store",
        type="bool",
        default=True,
        help="Record the suites' results in promptum's run history (default: true).",
    )


def _is_suite(path: Path) -> bool:
    if path.is_dir():
        return any(path.glob("*.toml"))
    return path.suffix.lower() in YAML_SUFFIXES and path.is_file()


def _refuse_broken_links(paths: list[Path], pattern: str, where: str) -> None:
    """A suite file a glob matches that is a link to itself or to nothing is a usage error."""
    for path in paths:
        if path.suffix.lower() in YAML_SUFFIXES and path.is_symlink() and not path.exists():
            raise pytest.UsageError(
                f"{where} {pattern!r} matches {path}, which cannot be read: it is a symbolic "
                "link that leads back to itself or to a file that does not exist; point the "
                "link at the real file, or put the file in its place"
            )


def _expand(patterns: list[str], base: Path, where: str) -> list[Path]:
    """The suites each glob matches under `base`; a glob matching none is a usage error."""
    found: list[Path] = []
    for pattern in patterns:
        found += [path for path in _matched(pattern, base, where) if path not in found]
    return found


def _matched(pattern: str, base: Path, where: str) -> list[Path]:
    """The suites one glob matches under `base`; matching none is a usage error."""
    named = [base / name for name in sorted(glob.glob(pattern, root_dir=base, recursive=True))]
    _refuse_broken_links(named, pattern, where)
    matches = [path.resolve() for path in named]
    suites = [path for path in matches if _is_suite(path)]
    from promptum.suites import case_data  # only once suites are configured (see above)

    cases = case_data(suites)  # YAML case files the glob also matches: not suites
    suites = [path for path in suites if path not in cases]
    if not suites:
        raise pytest.UsageError(
            f"{where} {pattern!r} matches no suite under {base}: give a glob of .yaml "
            "suite files or of folders of .toml case files"
        )
    return suites


def _root(pattern: str, base: Path) -> Path:
    """The folder a glob searches: its path up to the first part with a wildcard."""
    fixed: list[str] = []
    for part in Path(pattern).parts:
        if glob.has_magic(part):
            break
        fixed.append(part)
    return base.joinpath(*fixed).resolve()


def pytest_configure(config: pytest.Config) -> None:
    """Register the markers; when suites are configured, make sure pytest collects them."""
    config.addinivalue_line("markers", "promptum: a case of a promptum suite (on one model)")
    config.addinivalue_line("markers", "must_pass: a promptum case that gates on its own")
    from_cli: list[str] = config.getoption("promptum_suites")
    from_ini: list[str] = config.getini("promptum_suites")
    if not from_cli and not from_ini:
        return
    cli = _expand(from_cli, config.invocation_params.dir, "--promptum-suites")
    ini = _expand(from_ini, config.rootpath, "promptum_suites")
    store = bool(config.getini("promptum_store")) and not config.getoption("promptum_no_store")
    config.stash[SETTINGS] = Settings(
        suites=frozenset(cli + ini),
        store=store,
        cache=not config.getoption("promptum_no_cache"),
        home=config.rootpath,
        roots=tuple(_root(pattern, config.invocation_params.dir) for pattern in from_cli)
        + tuple(_root(pattern, config.rootpath) for pattern in from_ini),
    )
    _add_unwalked(config, cli, ini)
    if store and not hasattr(config, "workerinput"):  # xdist workers send results to it
        config.pluginmanager.register(Recording(config.rootpath), "promptum-recording")


def _add_unwalked(config: pytest.Config, cli: list[Path], ini: list[Path]) -> None:
    """Add to pytest's paths the configured suites outside the paths it walks."""
    # Those a glob on the command line names always, the ini's when no path was given
    # (pytest runs its testpaths).
    named_paths = config.args_source == pytest.Config.ArgsSource.ARGS
    walked = [
        Path(config.invocation_params.dir, arg.split("::")[0]).resolve() for arg in config.args
    ]
    for path in cli if named_paths else cli + ini:
        if not any(path == root or path.is_relative_to(root) for root in walked):
            config.args.append(str(path))


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """A configured suite file is a collector of its cases."""
    settings = parent.config.stash.get(SETTINGS, None)
    if settings is None or file_path.suffix.lower() not in YAML_SUFFIXES:
        return None
    if file_path.resolve() not in settings.suites:
        return None
    from promptum.pytest_plugin._collect import SuiteFile

    suite_file: pytest.Collector = SuiteFile.from_parent(parent, path=file_path)
    return suite_file


@pytest.hookimpl(tryfirst=True)
def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """A configured folder of TOML case files is a collector of its cases."""
    settings = parent.config.stash.get(SETTINGS, None)
    if settings is None or path.resolve() not in settings.suites:
        return None
    from promptum.pytest_plugin._collect import SuiteFolder

    folder: pytest.Collector = SuiteFolder.from_parent(parent, path=path)
    return folder


def pytest_collection_finish(session: pytest.Session) -> None:
    """Count the cases this session will run: a run recorded without all of them is partial."""
    collected = session.config.stash.get(COLLECTED, None)
    if collected is not None:
        from promptum.pytest_plugin._collect import CaseItem

        collected.planned = sum(isinstance(item, CaseItem) for item in session.items)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A case's report: its reasons as the failure text; its result for the run store."""
    report = yield
    if SETTINGS not in item.config.stash:
        return report
    from promptum.pytest_plugin._collect import CaseItem, CaseNotPassed

    if call.excinfo is not None and isinstance(call.excinfo.value, CaseNotPassed):
        report.longrepr = call.excinfo.value.longrepr
    if call.when == "teardown" and isinstance(item, CaseItem):
        item.attach_result(report)
    return report


class Recording:
    """Records the results of a session's cases as one run in the store, as they arrive.

    Registered only where reports arrive from every item: the one pytest process, or the
    xdist controller (workers send it their reports, each carrying its case's result).
    """

    def __init__(self, home: Path) -> None:
        self._home = home
        self.recorder: RunRecorder | None = None

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Record the result a case's teardown report carries."""
        if report.when != "teardown" or "promptum_result" not in report.__dict__:
            return
        if self.recorder is None:
            from promptum.pytest_plugin._record import RunRecorder

            self.recorder = RunRecorder(self._home)
        self.recorder.add(report.__dict__)

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        """Finish the run: partial when pytest stopped early (-x, Ctrl-C)."""
        if self.recorder is not None:
            stopped = bool(session.shouldstop or session.shouldfail)
            interrupted = exitstatus == pytest.ExitCode.INTERRUPTED
            self.recorder.finish(stopped=stopped or interrupted)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """Say where the run was recorded, as `promptum run` does."""
        if self.recorder is not None and self.recorder.line:
            terminalreporter.write_line(self.recorder.line)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Stop the model client."""
    running = session.config.stash.get(ENGINE, None)
    if running is not None:
        del session.config.stash[ENGINE]
        running.close()


@pytest.fixture
def promptum(request: pytest.FixtureRequest) -> PromptumFixture:
    """Call models and grade responses with the session's model client and response cache."""
    from promptum.pytest_plugin._fixture import PromptumFixture

    return PromptumFixture(lambda: engine(request.config))
