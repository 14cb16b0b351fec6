"""One lazy-export mechanism (issue 23): names declared once, in a package's TYPE_CHECKING block.

A public name is in ``__all__`` and kept once imported; a name shared between promptum's
packages is imported ``as`` itself there, served on use and never kept, so a package's
namespace holds its public names only.
"""

from __future__ import annotations

from importlib import import_module

import pytest

from promptum.foundations.lazy import _declared
from tests.support.imports import imported_after

# Every package that serves names through promptum.foundations.lazy.
PACKAGES = (
    "promptum",
    "promptum.checks",
    "promptum.providers",
    "promptum.pytest_plugin",
    "promptum.reporting",
    "promptum.runner",
    "promptum.suites",
    "promptum.validation",
)
# Whose every public name is imported on first use.
LAZY = ("promptum", "promptum.providers", "promptum.pytest_plugin", "promptum.runner")
COMPUTED = {"promptum": {"__version__": "promptum.foundations.version:promptum_version"}}


@pytest.mark.parametrize("name", PACKAGES)
def test_every_declared_name_imports_and_only_public_names_are_kept(name: str) -> None:
    package = import_module(name)
    declared = _declared(name, COMPUTED.get(name, {}))
    for export in declared:
        assert getattr(package, export) is not None, f"{name}.{export}"
    public = set(package.__all__)
    kept = {export for export in declared if export in vars(package)}
    assert kept <= public, f"{name} keeps names that are not public: {kept - public}"


@pytest.mark.parametrize("name", LAZY)
def test_the_type_checking_block_declares_every_public_name(name: str) -> None:
    # The names are written twice (the TYPE_CHECKING block, a literal __all__): they agree.
    declared = _declared(name, COMPUTED.get(name, {}))
    assert set(import_module(name).__all__) <= set(declared)


def test_a_name_nobody_declares_is_an_attribute_error() -> None:
    import promptum.runner

    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        promptum.runner.nothing_here  # noqa: B018


def test_the_version_is_computed_once_and_kept() -> None:
    import promptum

    assert promptum.__version__ == vars(promptum)["__version__"]


def test_importing_promptum_and_the_pytest_plugin_loads_no_lazy_machinery() -> None:
    code = "import promptum, promptum.pytest_plugin"
    assert imported_after(code, ["promptum.foundations.lazy"])[0] == []
