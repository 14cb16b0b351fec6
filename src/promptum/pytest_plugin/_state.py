"""What the plugin's hooks, its collectors and its fixture share through pytest's stash.

The settings of the configuration, what the collected suites declare together, and the
session's one engine (started on first use). Loaded with the plugin in every pytest run, so
it imports only pytest and the standard library, as `_plugin` does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from promptum.providers import EndpointConfig, HttpTarget, Price, PythonTarget
    from promptum.pytest_plugin._engine import Engine
    from promptum.suites import Suite


@dataclass(frozen=True, slots=True)
class Settings:
    """What the pytest configuration asks of promptum."""

    suites: frozenset[Path]
    """Every suite file and TOML case folder the globs matched, resolved."""
    store: bool
    cache: bool
    home: Path
    """Where ``.promptum/`` (the response cache, the run store) lives: pytest's rootdir."""
    roots: tuple[Path, ...] = ()
    """The folder each glob searches (before its first wildcard), resolved: a suite found
    below one is named by its path there, as `promptum run` names a folder's suites."""


@dataclass(slots=True)
class Collected:
    """What the suites of one session declare together: case ids, endpoints, prices, targets."""

    ids: dict[str, str] = field(default_factory=dict)
    """Each case id, with where it was first defined: ids are unique within a run."""
    endpoints: dict[str, EndpointConfig] = field(default_factory=dict)
    pricing: dict[str, Price] = field(default_factory=dict)
    targets: dict[str, PythonTarget | HttpTarget] = field(default_factory=dict)
    """The functions and services answering cases, by id, as `promptum run` gathers them."""
    planned: int | None = None
    """How many case items the session selected (known once collection finished)."""
    tags: set[str] = field(default_factory=set)
    """The case tags registered as markers."""

    def add(self, suite: Suite) -> list[str]:
        """Take in one suite; the problems that keep it from running with the others."""
        problems = []
        for case in suite.cases:
            where = case.source or str(suite.path)
            # Ids are namespaced by suite, and a case runs once per prompt variant.
            first = self.ids.setdefault(f"{case.key}[{case.variant}]", where)
            if first != where:
                problems.append(
                    f"{where}: duplicate case id {case.id!r}, first defined at {first}; "
                    "ids must be unique within a run"
                )
            target = case.target
            if target is not None and self.targets.setdefault(target.id, target) != target:
                problems.append(
                    f"{where}: two different targets are named {target.id!r}: give one a `name`"
                )
        for kind, mine, theirs in (
            ("endpoint", self.endpoints, suite.endpoints),
            ("price", self.pricing, suite.pricing),
        ):
            for name, value in theirs.items():
                if mine.setdefault(name, value) != value:  # type: ignore[arg-type]
                    problems.append(
                        f"{suite.path}: {kind} {name!r} differs from another suite's; "
                        "suites run together must agree"
                    )
        return problems


SETTINGS = pytest.StashKey[Settings]()
COLLECTED: pytest.StashKey[Collected] = pytest.StashKey()
ENGINE: pytest.StashKey[Engine] = pytest.StashKey()


def engine(config: pytest.Config) -> Engine:
    """The session's (or xdist worker's) one model client, started on first use."""
    running = config.stash.get(ENGINE, None)
    if running is None:
        from promptum.pytest_plugin._engine import Engine

        settings = config.stash.get(SETTINGS, None)
        collected = config.stash.get(COLLECTED, None)
        home = settings.home if settings is not None else config.rootpath
        running = Engine.start(
            cache=settings.cache if settings is not None else True,
            cache_path=home / ".promptum" / "cache.sqlite",
            endpoints=collected.endpoints if collected is not None else {},
            pricing=collected.pricing if collected is not None else {},
            targets=collected.targets if collected is not None else {},
        )
        config.stash[ENGINE] = running
    return running
