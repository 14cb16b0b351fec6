"""`promptum models`: the provider table and the check of given model ids."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from promptum.cli import main
from promptum.providers import EndpointConfig, provider_statuses


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENROUTER_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.embedded_model
def test_statuses_list_builtins_then_named_endpoints() -> None:
    env = {"OPENAI_API_KEY": "x", "PROMPTUM_MYVLLM_BASE_URL": "http://127.0.0.1:8000/v1"}
    statuses = provider_statuses({"corp": EndpointConfig(base_url="http://corp/v1")}, env)
    by_prefix = {s.prefix: s for s in statuses}
    assert [s.prefix for s in statuses] == [
        "local", "openai", "openrouter", "ollama", "anthropic", "corp", "myvllm",
    ]  # fmt: skip
    assert by_prefix["local"].ready
    assert by_prefix["local"].detail == "in-process: SmolLM2-135M-Instruct.Q4_1.gguf"
    assert by_prefix["openai"].ready
    assert not by_prefix["openrouter"].ready
    assert "OPENROUTER_API_KEY" in by_prefix["openrouter"].detail
    assert by_prefix["myvllm"].detail == "http://127.0.0.1:8000/v1"
    assert by_prefix["corp"].example == "corp/<model>"


def test_the_table_shows_what_to_do() -> None:
    result = CliRunner().invoke(main, ["models"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "local/smollm2" in result.output
    assert "set the OPENAI_API_KEY environment variable" in result.output
    assert "PROMPTUM_<NAME>_BASE_URL" in result.output


@pytest.mark.embedded_model
def test_checking_ids_exits_1_when_one_is_unusable() -> None:
    result = CliRunner().invoke(main, ["models", "local/smollm2", "openai/gpt-4o"])
    assert result.exit_code == 1
    assert "✓ local/smollm2" in result.output
    assert (
        "✗ model 'openai/gpt-4o' needs an API key: set the OPENAI_API_KEY environment variable"
        in result.output
    )


def test_checking_usable_ids_exits_0(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    result = CliRunner().invoke(main, ["models", "openai/gpt-4o", "ollama/llama3.2"])
    assert result.exit_code == 0
    assert result.output.splitlines() == ["✓ openai/gpt-4o", "✓ ollama/llama3.2"]
