"""Suites as pytest collectors: one item per case × model × repeat, named ``suite/case[model]``.

A case runs in its item's setup: a model call or judge that failed is an error there (pytest
shows ERROR), and the call phase fails the item when a grade failed (FAILED).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from _pytest._code.code import ReprExceptionInfo

from promptum.cases import TestCase
from promptum.errors import PromptumError
from promptum.providers import DEFAULT_MODEL
from promptum.pytest_plugin._state import COLLECTED, SETTINGS, Collected, engine
from promptum.pytest_plugin._text import case_longrepr
from promptum.suites import load_suite, suite_name

if TYPE_CHECKING:
    from promptum.values.run_result import CaseResult


def item_name(
    suite: str, case: str, model: str, repeat: int, repeats: int, variant: str = ""
) -> str:
    """``suite/case[model]``; with repeats ``suite/case[model-repeat2]`` (counted from 1)."""
    # The brackets hold the matrix's coordinates, joined with "-" as pytest joins parameters:
    # a prompt variant will come first, as in ``suite/case[variant-model]``.
    coordinates = model if repeats == 1 else f"{model}-repeat{repeat}"
    if variant:
        coordinates = f"{variant}-{coordinates}"
    return f"{suite}/{case}[{coordinates}]"


def _display_path(path: Path) -> Path:
    """`path` relative to the working directory when under it, as `promptum run` records it."""
    try:
        return Path(os.path.relpath(path))
    except ValueError:  # another drive on Windows
        return path


def _name(collector: pytest.Collector) -> str | None:
    """The suite's name unless it has a `name:`: its path in the folder its glob searched."""
    path = collector.path.resolve()
    settings = collector.config.stash.get(SETTINGS, None)
    for root in settings.roots if settings is not None else ():
        if path.is_relative_to(root):
            return suite_name(path, root)
    return None


def marker_name(tag: str) -> str:
    """The marker of a case tag: ``goal:tool`` is ``goal_tool``.

    pytest reads a `markers` line up to its first colon as the name, so a colon cannot be
    registered (and `--strict-markers` would refuse the red-team tags).
    """
    return tag.replace(":", "_")


def _items(collector: pytest.Collector) -> Iterator[CaseItem]:
    config = collector.config
    try:
        suite = load_suite(_display_path(collector.path), name=_name(collector))
    except PromptumError as exc:
        raise collector.CollectError(str(exc)) from None
    collected = config.stash.setdefault(COLLECTED, Collected())
    problems = collected.add(suite)
    if problems:
        raise collector.CollectError("\n".join(problems))
    for case in suite.cases:
        for tag in {marker_name(tag) for tag in case.tags} - collected.tags:
            # Registered so that --strict-markers accepts them and -m can select them.
            config.addinivalue_line("markers", f"{tag}: promptum case tag")
            collected.tags.add(tag)
        for model in case.models or (DEFAULT_MODEL,):
            for repeat in range(1, case.repeat + 1):  # repeats count from 1, as in results
                name = item_name(suite.name, case.id, model, repeat, case.repeat, case.variant)
                yield CaseItem.from_parent(
                    collector,
                    name=name,
                    # Given as text so that it parses as what pytest reads back from its
                    # cache (--lf): names before the brackets, parameters inside them.
                    nodeid=f"{collector.nodeid}::{name}",
                    case=case,
                    model=model,
                    repeat=repeat,
                    suite=suite.name,
                )


class SuiteFile(pytest.File):
    """A YAML suite: its cases on each of their models."""

    def collect(self) -> Iterator[CaseItem]:
        """Load the suite; its problems are one collection error, located like the CLI's."""
        yield from _items(self)


class SuiteFolder(pytest.Directory):
    """A folder of TOML case files: one suite."""

    def collect(self) -> Iterator[CaseItem]:
        """Load the folder as one suite."""
        yield from _items(self)


class CaseNotPassed(Exception):  # noqa: N818 - an outcome of the case, not of the plugin
    """Raised in setup for an error, in the call for a failure; carries the report text."""

    def __init__(self, longrepr: ReprExceptionInfo) -> None:
        super().__init__(longrepr.reprcrash.message if longrepr.reprcrash else "")
        self.longrepr = longrepr


class CaseItem(pytest.Item):
    """One case on one model (one repeat), run through promptum's runner."""

    def __init__(
        self, *, case: TestCase, model: str, repeat: int, suite: str, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.model = model
        self.repeat = repeat
        self.suite = suite
        self._result: CaseResult | None = None
        self.add_marker("promptum")
        for tag in case.tags:
            self.add_marker(marker_name(tag))
        if case.must_pass:
            self.add_marker("must_pass")

    def _source(self) -> tuple[Path, int | None]:
        """The file and line (1-based) where the case is defined."""
        if self.case.source is None:
            return self.path, None
        file, _, line = self.case.source.rpartition(":")
        if not file or not line.isdigit():
            return self.path, None
        return Path(file).absolute(), int(line)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        """The case's file and line (0-based, as pytest counts), for reports and IDEs."""
        path, line = self._source()
        return path, None if line is None else line - 1, self.name

    def setup(self) -> None:
        """Call the model and grade the response: a call or judge that failed is an error."""
        try:
            running = engine(self.config)
        except PromptumError as exc:
            pytest.fail(str(exc), pytrace=False)
        self._result = running.run_case(self.case, self.model, self.repeat)
        if self._result.status == "error":
            raise CaseNotPassed(case_longrepr(self._result))

    def runtest(self) -> None:
        """Fail when a grade failed."""
        if self._result is not None and self._result.status == "fail":
            raise CaseNotPassed(case_longrepr(self._result))

    def attach_result(self, report: pytest.TestReport) -> None:
        """Put the result on the teardown report: the run store gets it, from any worker."""
        result, self._result = self._result, None  # the store keeps it; the item need not
        if result is None:
            return
        # Plain data: xdist sends a report's attributes from a worker to the controller.
        extra: Mapping[str, Any] = {
            "promptum_result": result.model_dump(mode="json"),
            "promptum_suite": self.suite,
            "promptum_planned": self.config.stash[COLLECTED].planned,
        }
        report.__dict__.update(extra)
