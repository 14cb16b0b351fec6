"""Importing the Python a suite names (``module:Class``, ``checks.py:function``): code by design.

A module beside the suite file is loaded from that file under a name of its own, so two
suites that each keep a ``checks.py`` or ``models.py`` get their own; any other module is
imported from the Python path, to which the suite's folder and the working directory are
added.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType


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
    unique = f"_promptum_suite_{digest}_{module_name.replace('.', '_')}"
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
    except Exception as exc:  # the module itself is broken: a syntax error, a failing import
        raise ValueError(
            f"module {module_name!r} of {purpose} failed to import: {type(exc).__name__}: {exc}"
        ) from exc
