"""Importing the Python a suite names (``module:Class``, ``checks.py:function``): code by design.

A module beside the suite file is loaded from that file under a name of its own, so two
suites that each keep a ``checks.py`` or ``models.py`` get their own; any other module is
imported from the Python path, to which the suite's folder and the working directory are
added.

Another process (a Ray worker) imports those modules under the same names, from a copy of
their folder: `suite_modules` says what was loaded, and `install_suite_modules` teaches the
other process's import system where each name lives, so classes, decorators and caches of
the user's modules work there as they do here.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from types import ModuleType

_EXIT_HINT = (
    '; it exits when imported: put what runs as a script under `if __name__ == "__main__":`'
)

SUITE_MODULE_PREFIX = "_promptum_suite_"
"""The start of the import name of every module loaded from beside a suite."""


@dataclass(frozen=True, slots=True)
class SuiteModule:
    """A module loaded from beside a suite: what another process needs to import it too."""

    name: str
    """Its import name, ``_promptum_suite_<hash>_<module>``: unique to its file."""
    folder: str
    """The suite's folder it was found in, as the loading process saw it (absolute)."""
    file: str
    """Its file, relative to `folder`, with ``/`` separators."""
    digest: str
    """SHA-256 of the file as it was loaded: which copy of `folder` holds this very file."""

    def locate(self, roots: Iterable[str]) -> Path:
        """A copy of `folder` holding this file: ``<root>/<folder's name>``, else `folder` itself.

        A folder shipped by Ray's ``py_modules`` is a directory of that name on the Python path.
        A copy comes first, so a worker beside the driver runs what a cluster's workers run.
        """
        original = Path(self.folder)
        copies = [Path(root, original.name) for root in roots if root]
        for candidate in [*(c for c in copies if c.resolve() != original), original]:
            path = candidate.joinpath(*PurePosixPath(self.file).parts)
            if path.is_file() and _digest(path) == self.digest:
                return candidate
        raise ImportError(
            f"cannot import {self.file} (from {self.folder}): no copy of its folder on this "
            "machine holds the file as it was loaded; ship the folder, or install it",
            name=self.name,
        )


_LOADED: dict[str, SuiteModule] = {}
"""Every module this process loaded from beside a suite, by import name."""


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def suite_modules() -> list[SuiteModule]:
    """The modules loaded from beside suites (and still imported), in the order loaded."""
    return [module for name, module in _LOADED.items() if name in sys.modules]


class _SuiteModuleFinder(importlib.abc.MetaPathFinder):
    """Finds suite modules by the names another process gave them."""

    def __init__(self, modules: Iterable[SuiteModule]) -> None:
        self._modules = {module.name: module for module in modules}

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        """The spec of a suite module's file, from a copy of its folder; None for other names."""
        module = self._modules.get(fullname)
        if module is None:
            return None
        folder = module.locate(list(sys.path))
        # As where it was loaded first: the suite's folder is on the path for its neighbours.
        if str(folder) not in sys.path:
            sys.path.append(str(folder))
        file = folder.joinpath(*PurePosixPath(module.file).parts)
        return importlib.util.spec_from_file_location(fullname, file)


def install_suite_modules(modules: Sequence[SuiteModule]) -> None:
    """Make `modules` importable here under their names (objects pickled by reference load)."""
    if modules:
        _LOADED.update((module.name, module) for module in modules)
        sys.meta_path.append(_SuiteModuleFinder(modules))


def beside(module_name: str, folder: Path) -> Path:
    """Where a dotted module name's file would be under ``folder``."""
    return folder.joinpath(*module_name.split(".")).with_suffix(".py")


def python_module_file(reference: str, folder: Path) -> Path | None:
    """The file a ``module:name`` reference runs: beside the suite, else on the Python path."""
    module_name = reference.partition(":")[0]
    local = beside(module_name, folder)
    if local.is_file():
        return local
    module = sys.modules.get(module_name)
    origin = getattr(module, "__file__", None)
    return Path(origin) if origin else None


def load_module(module_name: str, folder: Path) -> ModuleType:
    """The module beside the suite if there is one, else the one on the Python path."""
    local = beside(module_name, folder)
    if not local.is_file():
        return importlib.import_module(module_name)
    # Loaded from its file under a name of its own: two suites that each keep a `models.py`
    # must get their own classes, not whichever was imported first.
    digest = hashlib.sha256(str(local.resolve()).encode()).hexdigest()[:12]
    unique = f"{SUITE_MODULE_PREFIX}{digest}_{module_name.replace('.', '_')}"
    if unique in sys.modules:
        return sys.modules[unique]
    spec = importlib.util.spec_from_file_location(unique, local)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {local}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[unique] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[unique]
        raise
    relative = PurePosixPath(*module_name.split(".")).with_suffix(".py")
    _LOADED[unique] = SuiteModule(unique, str(folder.resolve()), str(relative), _digest(local))
    return module


def import_module_for(module_name: str, folder: Path) -> ModuleType:
    """`load_module`, with the suite's folder and the working directory on the Python path.

    On the path so that a module beside the suite can import its own neighbours.
    """
    for root in (str(folder), str(Path.cwd())):
        if root not in sys.path:
            sys.path.append(root)
    return load_module(module_name, folder)


def import_referenced(module_name: str, folder: Path, purpose: str) -> ModuleType:
    """`import_module_for`, its failures as a ValueError naming what needed the module.

    The suite loader turns the ValueError into a located problem (file, line, field).
    """
    try:
        return import_module_for(module_name, folder)
    except ImportError as exc:
        raise ValueError(
            f"cannot import module {module_name!r} for {purpose}: {exc}; it is looked up "
            f"beside the suite (in {folder}) and on the Python path"
        ) from exc
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # the module is broken (a syntax error) or exits on import
        raise ValueError(
            f"module {module_name!r} of {purpose} failed to import: {type(exc).__name__}: {exc}"
            f"{_EXIT_HINT if isinstance(exc, SystemExit) else ''}"
        ) from exc
