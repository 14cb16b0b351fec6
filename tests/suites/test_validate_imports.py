"""`promptum validate` imports only what the suite needs: it must start fast (issue 15)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

import promptum.providers
import promptum.redteam
import promptum.runner
from tests.support.imports import imported_after, imported_by_command
from tests.support.suites import GREETING_SUITE

# What a run needs and loading a suite does not; each costs 5-35 ms to import.
_HEAVY = (
    "asyncio",
    "jinja2",
    "jsonschema",
    "sqlite3",
    "promptum.providers._client",
    "promptum.runner._runner",
    "regex",  # the leak checks' hidden-text search, on a non-ASCII response
    "promptum.redteam._generate",  # a suite's `redteam:` section
)

_PLAIN = GREETING_SUITE

_STRUCTURED = """\
models: [openai/gpt-4o-mini]
test_cases:
  - id: profile
    vars: {who: Ada}
    query: "Describe {{ who | title }} as JSON."
    response_model: {type: object, properties: {name: {type: string}}}
"""


def _heavy_modules_after(code: str) -> list[str]:
    """The heavy modules a fresh interpreter has imported after running `code`."""
    return imported_after(code, _HEAVY)[0]


def _validated(tmp_path: Path, suite: str) -> list[str]:
    path = tmp_path / "suite.yaml"
    path.write_text(suite)
    return imported_by_command(["validate", str(path)], tmp_path, _HEAVY)[0]


def test_validating_a_plain_suite_imports_nothing_a_run_needs(tmp_path: Path) -> None:
    assert _validated(tmp_path, _PLAIN) == []


def test_a_schema_and_a_template_import_what_checks_them(tmp_path: Path) -> None:
    # The probe sees imports: a response_model is checked with jsonschema, a template with jinja2
    # (one with a filter: a plain `{{ name }}` is filled in without it).
    assert set(_validated(tmp_path, _STRUCTURED)) == {"jinja2", "jsonschema"}


_JUDGED = """\
models: [openai/gpt-4o-mini]
judge: {model: openai/gpt-4o-mini}
test_cases:
  - {id: greet, query: Hi, expected_behavior: Greets back.}
  - {id: ungraded, query: Hi again}
"""


def test_validating_a_judged_suite_imports_nothing_of_the_runner(tmp_path: Path) -> None:
    # What the judge grades and whether anything grades a case are the cases' rules.
    path = tmp_path / "suite.yaml"
    path.write_text(_JUDGED)
    imported, output = imported_by_command(["validate", str(path)], tmp_path, ["promptum.runner"])
    assert "2 cases" in output
    assert "nothing grades 1 case" in output  # `ungraded`: the judge has nothing to grade it by
    assert imported == []


def test_importing_the_runner_and_the_providers_loads_no_asyncio() -> None:
    assert _heavy_modules_after("import promptum.runner, promptum.providers") == []


@pytest.mark.parametrize("package", [promptum.runner, promptum.providers, promptum.redteam])
def test_every_public_name_of_a_lazy_package_imports(package: ModuleType) -> None:
    for name in package.__all__:
        assert getattr(package, name) is not None, f"{package.__name__}.{name}"
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        _ = package.Nope
