"""Registries: check types, report formats and providers, and the entry points that add them.

Each of them is a `Registry` beside what it registers, with its ``register_*`` function.
A registry loads an installed package's entry point the first time a name is not one it
holds, once::

    [project.entry-points."promptum.checks"]
    no_pii = "pii_checks:no_pii"              # a check function or a CheckType
    [project.entry-points."promptum.reports"]
    tap = "tap_report:render"                 # RunResult -> str, or a ReportFormat
    [project.entry-points."promptum.providers"]
    myprov = "myprov_promptum:MyProvider"     # serves model ids myprov/<model>

A bad plugin is an error naming the plugin, the hook and the reason, never a surprise in
the middle of a run. Built-in names always win: a plugin adds names, it never replaces one.

This module is a leaf (it imports `promptum.errors` only), so every registry imports it at
module level; ``importlib.metadata`` is imported on first use, as it would double the
time `promptum --help` takes.
"""

from __future__ import annotations

import inspect
import re
import sys
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Generic, TypeVar

from promptum.errors import PluginError

if TYPE_CHECKING:
    import importlib.metadata

CHECKS_GROUP = "promptum.checks"
REPORTS_GROUP = "promptum.reports"
PROVIDERS_GROUP = "promptum.providers"

_loading = threading.RLock()
T = TypeVar("T")


def plugin_error(hook: str, name: str, plugin: str, reason: str) -> PluginError:
    """The error for plugin ``plugin`` providing ``hook`` ``name``: ``check type 'x' from ...``."""
    return PluginError(f"{hook} {name!r} from {plugin}: {reason}")


def caller_label(function_name: str, target: object) -> str:
    """How a ``register_*`` call is named in errors: ``register_check(pii_checks.no_pii)``."""
    module = getattr(target, "__module__", None)
    qualname = getattr(target, "__qualname__", None) or type(target).__name__
    shown = f"{module}.{qualname}" if module and module != "__main__" else qualname
    return f"{function_name}({shown})"


def entry_point_label(entry_point: importlib.metadata.EntryPoint) -> str:
    """How an entry point is named in errors: the line declaring it and the package."""
    dist = entry_point.dist
    package = f", package {dist.name} {dist.version}" if dist is not None else ""
    return (
        f"entry point '{entry_point.name} = {entry_point.value}' "
        f"(group {entry_point.group}{package})"
    )


_scans: dict[tuple[str, tuple[str, ...]], tuple[importlib.metadata.EntryPoint, ...]] = {}


def _entry_points(group: str) -> tuple[importlib.metadata.EntryPoint, ...]:
    """The entry points of ``group``, read once per Python path (a scan takes milliseconds).

    A suite with a mistyped type in every one of a thousand rows would otherwise read every
    installed package's metadata a thousand times.
    """
    import importlib.metadata

    key = (group, tuple(sys.path))
    found = _scans.get(key)
    if found is None:
        found = _scans[key] = tuple(
            entry_point
            for distribution in importlib.metadata.distributions(path=_installed_paths())
            for entry_point in distribution.entry_points.select(group=group)
        )
    return found


def _installed_paths() -> list[str]:
    """The Python path without the working directory, where a pull request writes files.

    `python -m promptum` puts the working directory first on the path: a `*.dist-info` a
    pull request commits there would otherwise make a suite's `type:` run its code.
    """
    here = Path.cwd().resolve()
    return [entry for entry in sys.path if entry and Path(entry).resolve() != here]


def entry_point_names(group: str) -> list[str]:
    """The names the installed packages provide in ``group``, without importing any."""
    return list(dict.fromkeys(ep.name for ep in _entry_points(group)))


def load_entry_point(
    group: str, name: str, hook: str, accept: Callable[[object, str], None]
) -> tuple[object, str] | None:
    """The object of the entry point ``name`` in ``group`` and its label; None if none is named so.

    ``accept(object, label)`` registers it (so the registry answers the next lookup: each
    plugin loads once), raising `PluginError` if it will not do. Two packages declaring the
    same name is an error naming both.
    """
    with _loading:
        found = [ep for ep in _entry_points(group) if ep.name == name]
        if not found:
            return None
        if len({(ep.value, ep.dist.name if ep.dist else None) for ep in found}) > 1:
            raise plugin_error(
                hook,
                name,
                " and ".join(entry_point_label(ep) for ep in found),
                "two installed packages declare this name; uninstall one of them",
            )
        label = entry_point_label(found[0])
        try:
            target = found[0].load()
        except Exception as exc:  # the plugin's own import failed: say whose and why
            raise plugin_error(
                hook, name, label, f"cannot be loaded: {type(exc).__name__}: {exc}"
            ) from exc
        accept(target, label)
        return target, label


def call_problem(target: object, count: int, called_as: str) -> str | None:
    """Why ``target`` cannot be called with ``count`` positional arguments, or None if it can.

    A signature Python cannot read (some built-ins) is trusted.
    """
    if not callable(target):
        return f"it is {_a(target)}, not something callable like {called_as}"
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError):
        return None
    try:
        signature.bind(*range(count))
    except TypeError as exc:
        return f"it cannot be called as {called_as}: its signature is {signature} ({exc})"
    return None


def _a(value: object) -> str:
    """``a str 'yes'``, ``a list``: a value's type, and the value when short."""
    shown = repr(value)
    kind = type(value).__name__
    return f"{kind} {shown}" if len(shown) <= 40 else kind


class Registry(Generic[T]):
    """Names to what they name: promptum's own first, then those registered or loaded.

    ``entries`` is the registry's dict, kept as given (``CHECK_TYPES``, ``REPORT_FORMATS``).
    Its names, with ``reserved`` ones served elsewhere, are built in: taken for good. A
    name it does not hold is looked up among the entry points of ``group``, and the one
    found goes through ``adopt(name, object, label)``, the registry's ``register_*``
    validation, which calls `add`.
    """

    def __init__(
        self,
        hook: str,
        group: str,
        entries: dict[str, T],
        adopt: Callable[[str, object, str], object],
        *,
        built_in_as: str,
        pattern: re.Pattern[str] | None = None,
        reserved: Iterable[str] = (),
    ) -> None:
        self.hook = hook
        """What a name is, in errors: ``check type``, ``report format``, ``provider``."""
        self.group = group
        self.entries = entries
        self.built_in = frozenset(entries) | frozenset(reserved)
        self.origins: dict[str, str] = {}
        """Where each registered (not built-in) name came from, for the error of a second one."""
        self._adopt = adopt
        self._built_in_as = built_in_as
        self._pattern = pattern

    def get(self, name: str) -> T | None:
        """What ``name`` names, an installed plugin's loaded on first use; None if nothing."""
        try:
            return self.entries[name]
        except KeyError:
            pass
        return self.load(name)

    def load(self, name: str) -> T | None:
        """The entry point ``name`` of the group, loaded and adopted; None if none is named so.

        A name the registry's pattern refuses is looked up nowhere.
        """
        if self._pattern is not None and not (
            isinstance(name, str) and self._pattern.fullmatch(name)
        ):
            return None

        def accept(target: object, label: str) -> None:
            self._adopt(name, target, label)

        if load_entry_point(self.group, name, self.hook, accept) is None:
            return None
        return self.entries[name]

    def plugin_names(self) -> list[str]:
        """The names the installed packages provide, without importing any."""
        return entry_point_names(self.group)

    def names(self) -> list[str]:
        """Every name: held ones, then the installed packages' (for errors and schemas)."""
        return list(dict.fromkeys([*self.entries, *self.plugin_names()]))

    def error(self, name: str, plugin: str, reason: str) -> PluginError:
        """The error refusing ``name`` from ``plugin``."""
        return plugin_error(self.hook, name, plugin, reason)

    def whose(self, name: str) -> str:
        """Who holds the taken ``name``: ``a built-in format``, ``registered by ...``."""
        return self._built_in_as if name in self.built_in else f"registered by {self.origins[name]}"

    def add(self, name: str, value: T, plugin: str) -> T:
        """Hold ``value`` under ``name``, from ``plugin`` (validated by the caller)."""
        self.entries[name] = value
        self.origins[name] = plugin
        return value

    def unregister(self, name: str) -> None:
        """Remove a registered name (a built-in one stays); for tests and reloading code."""
        if name in self.built_in:
            raise ValueError(f"{name!r} is a built-in {self.hook}")
        self.entries.pop(name, None)
        self.origins.pop(name, None)
