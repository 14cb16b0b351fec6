"""Packages whose public names are imported from their modules on first use (PEP 562).

`promptum validate` imports the suite loader, which needs a few leaf modules of the runner
and the providers; importing their whole packages would also load asyncio, the run
machinery and the HTTP clients, for nothing.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_exports(package: str, modules: Mapping[str, tuple[str, ...]]) -> Callable[[str], Any]:
    """A package's ``__getattr__``: each name of ``modules[module]`` is imported from it when used.

    Once imported, a name is kept in the package, so it is looked up only once.
    """
    origins = {name: module for module, names in modules.items() for name in names}
    namespace = vars(sys.modules[package])

    def load(name: str) -> Any:
        module = origins.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module), name)
        namespace[name] = value
        return value

    return load
