"""The public names: `from promptum import ...` works as the references write it."""

import subprocess
import sys

import pytest

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


def test_register_provider_joins_register_check_and_register_report() -> None:
    from promptum.providers import resolve
    from promptum.providers._routing import unregister_provider

    assert {"register_check", "register_provider", "register_report"} <= set(promptum.__all__)

    class Echo:
        def __init__(self, endpoint: object, config: object, timeout_s: float) -> None:
            self.endpoint = endpoint

        async def complete(self, request: object) -> object:
            raise NotImplementedError

    assert promptum.register_provider("echo-api", Echo) is Echo
    try:
        route = resolve("echo-api/m", {})
        assert (route.kind, route.endpoint, route.name) == ("plugin", "echo-api", "m")
        with pytest.raises(promptum.PluginError, match=r"the name is taken \(registered by"):
            promptum.register_provider("echo-api", Echo)
    finally:
        unregister_provider("echo-api")
    with pytest.raises(promptum.PluginError, match=r"the name is taken \(a built-in provider\)"):
        promptum.register_provider("openai", Echo)
