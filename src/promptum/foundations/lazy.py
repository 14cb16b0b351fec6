"""Names a package imports from its modules on first use (PEP 562): promptum's one mechanism.

`promptum validate` imports the suite loader, which needs a few leaf modules of the runner
and the providers; importing their whole packages would also load asyncio, the run
machinery and the HTTP clients, for nothing. `import promptum` comes first in every command,
and the pytest plugin's package is imported by every pytest run: they import nothing either.

A package declares each such name once, in its ``if TYPE_CHECKING:`` block, where type
checkers and readers see it, and sets ``__getattr__ = lazy_exports(__name__)``. On the first
name the package does not have, its source is read (once) and every ``from module import
name`` of that block becomes a lazy export when the name is in ``__all__`` (public) or is
imported ``as`` itself: how a package shares a name with promptum's other packages without
publishing it. A public name is kept in the package once imported; a shared one is looked up
on each use and never kept, so the package's namespace holds its public names only.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import ast

# package -> {name: (module, attribute, computed)}; read from the package's source on first use.
_ORIGINS: dict[str, dict[str, tuple[str, str, bool]]] = {}


def lazy_exports(package: str, computed: Mapping[str, str] | None = None) -> Callable[[str], Any]:
    """A package's ``__getattr__``: each name of its TYPE_CHECKING block, imported when used.

    ``computed`` maps a name to ``"module:function"``: the name's value is what the function
    returns (the root package's ``__version__``).
    """

    def load(name: str) -> Any:
        return lazy_export(package, name, computed)

    return load


def lazy_export(package: str, name: str, computed: Mapping[str, str] | None = None) -> Any:
    """``package``'s lazy export ``name`` (see `lazy_exports`); kept in it when public."""
    origins = _ORIGINS.get(package)
    if origins is None:
        origins = _ORIGINS[package] = _declared(package, computed or {})
    origin = origins.get(name)
    if origin is None:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    module, attribute, call = origin
    value = getattr(import_module(module), attribute)
    if call:
        value = value()
    namespace = vars(sys.modules[package])
    if name in namespace.get("__all__", ()):
        namespace[name] = value
    return value


def _declared(package: str, computed: Mapping[str, str]) -> dict[str, tuple[str, str, bool]]:
    """Where each lazy export of ``package`` comes from: its TYPE_CHECKING block, ``computed``."""
    import ast  # only on the first missing name: every command's start-up reads no source

    module = sys.modules[package]
    source = _source(module)
    public = set(vars(module).get("__all__", ()))
    origins: dict[str, tuple[str, str, bool]] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for statement in node.body:
                if (
                    isinstance(statement, ast.ImportFrom)
                    and statement.module
                    and not statement.level
                ):
                    for alias in statement.names:
                        name = alias.asname or alias.name
                        if name in public or alias.asname == alias.name:
                            origins[name] = (statement.module, alias.name, False)
    for name, where in computed.items():
        module_name, _, function = where.partition(":")
        origins[name] = (module_name, function, True)
    return origins


def _source(module: ModuleType) -> str:
    """The source of ``module``: its file, or what its loader gives (a zip archive's)."""
    try:
        with open(module.__file__ or "", encoding="utf-8") as file:
            return file.read()
    except OSError:  # not a plain file; pytest's assertion-rewriting loader gives no source
        get_source = getattr(module.__loader__, "get_source", None)
        source = get_source(module.__name__) if get_source is not None else None
        if source is None:
            raise ImportError(
                f"{module.__name__}: no source to read its lazy exports from"
            ) from None
        return str(source)


def _is_type_checking(test: ast.expr) -> bool:
    """Whether ``test`` is ``TYPE_CHECKING`` (or ``typing.TYPE_CHECKING``, under any alias)."""
    name = getattr(test, "attr", None) or getattr(test, "id", None)
    return name == "TYPE_CHECKING"
