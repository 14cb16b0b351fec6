"""The public names: `from promptum import ...` works as the references write it."""

import subprocess
import sys

import promptum
import promptum.checks
import promptum.validation


def test_reference_import_line_works() -> None:
    from promptum import Contains, ExactMatch, JsonSchema, Regex, Validator  # noqa: F401


def test_all_is_sorted_and_complete() -> None:
    for module in (promptum, promptum.validation, promptum.checks):
        assert module.__all__ == sorted(module.__all__), module.__name__
        for name in module.__all__:
            assert hasattr(module, name), f"{module.__name__}.{name}"


def test_cli_version_and_help() -> None:
    for flag in ("--help", "--version"):
        done = subprocess.run(
            [sys.executable, "-m", "promptum", flag], capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, done.stderr
    assert promptum.__version__ in done.stdout
