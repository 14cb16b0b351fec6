"""A suite file names servers, never secrets: each way a suite could send a key elsewhere.

Every attempt runs against a real HTTP server on 127.0.0.1 that records what arrives, and
the secret's value must be nowhere in any request's headers or body.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from promptum import Session
from promptum.errors import ConfigError, ProviderUnavailableError
from promptum.providers import ClientOptions, EndpointConfig, ModelClient, resolve
from promptum.values.run_result import RunResult
from tests.support.fault_server import FaultServer, fault_server

SECRETS = {
    "OPENAI_API_KEY": "sk-openai-secret-0123456789",
    "OPENROUTER_API_KEY": "sk-or-secret-0123456789",
    "ANTHROPIC_API_KEY": "sk-ant-secret-0123456789",
    "GITHUB_TOKEN": "ghp_secret0123456789",
}


@pytest.fixture
def server() -> Iterator[FaultServer]:
    with fault_server() as running:
        yield running


@pytest.fixture(autouse=True)
def _secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [*SECRETS, "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "OPENROUTER_BASE_URL"]:
        monkeypatch.delenv(name, raising=False)
    for name in ("OPENAI", "OPENROUTER", "ANTHROPIC", "X"):
        monkeypatch.delenv(f"PROMPTUM_{name}_API_KEY", raising=False)
        monkeypatch.delenv(f"PROMPTUM_{name}_BASE_URL", raising=False)
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)


def _run(tmp_path: Path, settings: str, model: str) -> RunResult:
    path = tmp_path / "suite.yaml"
    path.write_text(
        f"{settings}models: [{model}]\ntest_cases:\n  - {{id: a, query: hello}}\n",
        encoding="utf-8",
    )
    session = Session(client_options=ClientOptions(cache=False, max_retries=0))
    session.add_suite(path)
    return session.run()


def _refusal(tmp_path: Path, settings: str) -> str:
    """The message of the ConfigError that a run of model x/m under suite `settings` raises."""
    with pytest.raises(ConfigError) as caught:
        _run(tmp_path, settings, "x/m")
    return str(caught.value)


def _leaked(server: FaultServer) -> list[str]:
    """Every secret that reached the server, in a header or the body."""
    seen = [json.dumps(request.headers) + json.dumps(request.body) for request in server.requests]
    return [name for name, value in SECRETS.items() if any(value in text for text in seen)]


@pytest.mark.parametrize("variable", ["OPENAI_API_KEY", "GITHUB_TOKEN"])
def test_a_suite_endpoint_cannot_read_another_variable(
    tmp_path: Path, server: FaultServer, variable: str
) -> None:
    settings = f"endpoints:\n  x: {{base_url: '{server.base_url}', api_key_env: {variable}}}\n"
    message = _refusal(tmp_path, settings)
    assert "suite.yaml:2:" in message
    assert "endpoints.x.api_key_env: a suite cannot choose which secret is sent" in message
    assert "reads its key only from PROMPTUM_X_API_KEY" in message
    assert SECRETS[variable] not in message
    assert server.requests == []


def test_a_key_written_in_a_suite_is_refused_and_never_shown(
    tmp_path: Path, server: FaultServer
) -> None:
    secret = SECRETS["OPENAI_API_KEY"]
    settings = f"endpoints:\n  x: {{base_url: '{server.base_url}', api_key: {secret}}}\n"
    message = _refusal(tmp_path, settings)
    assert "endpoints.x.api_key: never write an API key into a suite file" in message
    assert "export it as PROMPTUM_X_API_KEY" in message
    assert secret not in message
    assert server.requests == []


@pytest.mark.parametrize(
    ("builtin", "model", "url"),
    [
        ("openai", "openai/gpt-4o-mini", "base_url"),
        ("openrouter", "openrouter/openai/gpt-4", "base_url"),
        ("anthropic", "anthropic/claude-3-5-haiku-latest", "root_url"),
    ],
)
def test_a_builtin_redirected_by_a_suite_gets_no_builtin_key(
    tmp_path: Path, server: FaultServer, builtin: str, model: str, url: str
) -> None:
    settings = f"endpoints:\n  {builtin}: {{base_url: '{getattr(server, url)}'}}\n"
    (result,) = _run(tmp_path, settings, model).results
    assert result.completion.error is None, result.completion.error
    assert len(server.requests) == 1
    assert _leaked(server) == []


@pytest.mark.parametrize(
    ("endpoint", "model", "variable"),
    [
        ("openai", "openai/gpt-4o-mini", "PROMPTUM_OPENAI_API_KEY"),  # a redirected builtin
        ("x", "x/m", "PROMPTUM_X_API_KEY"),
    ],
)
def test_an_endpoint_reads_only_its_own_promptum_variable(
    tmp_path: Path,
    server: FaultServer,
    monkeypatch: pytest.MonkeyPatch,
    endpoint: str,
    model: str,
    variable: str,
) -> None:
    monkeypatch.setenv(variable, "meant-for-the-suite-server")
    settings = f"endpoints:\n  {endpoint}: {{base_url: '{server.base_url}'}}\n"
    (result,) = _run(tmp_path, settings, model).results
    assert result.completion.error is None, result.completion.error
    (request,) = server.requests
    assert request.headers["authorization"] == "Bearer meant-for-the-suite-server"
    assert _leaked(server) == []


def test_a_name_that_differs_from_a_builtin_only_in_case_is_not_that_builtin(
    tmp_path: Path, server: FaultServer
) -> None:
    settings = f"endpoints:\n  OpenAI: {{base_url: '{server.base_url}'}}\n"
    (result,) = _run(tmp_path, settings, "OpenAI/gpt-4o-mini").results
    assert result.completion.error is None, result.completion.error
    assert _leaked(server) == []


def test_changing_a_builtins_protocol_drops_its_key() -> None:
    configured = {"anthropic": EndpointConfig(kind="openai")}
    route = resolve("anthropic/m", configured, {"ANTHROPIC_API_KEY": "k"})
    assert route.config is not None
    assert route.config.api_key_env is None


def test_naming_the_endpoints_own_variable_makes_it_required(
    tmp_path: Path, server: FaultServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = (
        f"endpoints:\n  x: {{base_url: '{server.base_url}', api_key_env: PROMPTUM_X_API_KEY}}\n"
    )
    with pytest.raises(ProviderUnavailableError, match="set the PROMPTUM_X_API_KEY environment"):
        _run(tmp_path, settings, "x/m")
    monkeypatch.setenv("PROMPTUM_X_API_KEY", "x-key-0123456789")
    (result,) = _run(tmp_path, settings, "x/m").results
    assert result.completion.error is None, result.completion.error
    assert server.requests[0].headers["authorization"] == "Bearer x-key-0123456789"


@pytest.mark.parametrize("variable", ["PROMPTUM_OPENAI_BASE_URL", "OPENAI_BASE_URL"])
def test_a_url_set_in_the_environment_gets_the_builtin_key(
    tmp_path: Path, server: FaultServer, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    monkeypatch.setenv(variable, server.base_url)
    (result,) = _run(tmp_path, "", "openai/gpt-4o-mini").results
    assert result.completion.error is None, result.completion.error
    (request,) = server.requests
    assert request.headers["authorization"] == f"Bearer {SECRETS['OPENAI_API_KEY']}"


def test_the_environment_url_wins_over_the_suites_and_keeps_the_key(
    tmp_path: Path, server: FaultServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PROMPTUM_OPENAI_BASE_URL", server.base_url)
    settings = "endpoints:\n  openai: {base_url: 'http://127.0.0.1:9/v1'}\n"
    (result,) = _run(tmp_path, settings, "openai/gpt-4o-mini").results
    assert result.completion.error is None, result.completion.error
    (request,) = server.requests
    assert request.headers["authorization"] == f"Bearer {SECRETS['OPENAI_API_KEY']}"


def test_python_code_may_still_name_any_variable(server: FaultServer) -> None:
    endpoints = {"x": EndpointConfig(base_url=server.base_url, api_key_env="GITHUB_TOKEN")}
    client = ModelClient(ClientOptions(cache=False, max_retries=0, endpoints=endpoints))
    client.check_model("x/m")
    route = resolve("x/m", client.options.endpoints)
    assert route.config is not None
    assert route.config.api_key_env == "GITHUB_TOKEN"


SDK_SETTINGS = {
    "OPENAI_ORG_ID": "org-private-0123456789",
    "OPENAI_PROJECT_ID": "proj_private0123456789",
    "OPENAI_CUSTOM_HEADERS": "X-Proxy-Auth: proxy-secret-0123456789",
    "ANTHROPIC_CUSTOM_HEADERS": "X-Gateway-Auth: gateway-secret-0123456789",
}


def _headers_seen(server: FaultServer) -> str:
    return json.dumps([request.headers for request in server.requests])


@pytest.mark.parametrize(
    ("settings", "model"),
    [
        ("endpoints: {x: {base_url: '{url}/v1'}}\n", "x/m"),
        ("endpoints: {openai: {base_url: '{url}/v1'}}\n", "openai/m"),
        ("endpoints: {x: {base_url: '{url}', kind: anthropic}}\n", "x/m"),
        ("endpoints: {anthropic: {base_url: '{url}'}}\n", "anthropic/m"),
    ],
)
def test_the_sdks_own_environment_stays_with_their_own_hosts(
    tmp_path: Path,
    server: FaultServer,
    monkeypatch: pytest.MonkeyPatch,
    settings: str,
    model: str,
) -> None:
    for name, value in SDK_SETTINGS.items():
        monkeypatch.setenv(name, value)
    _run(tmp_path, settings.replace("{url}", server.root_url), model)
    assert server.requests
    seen = _headers_seen(server)
    for name, value in SDK_SETTINGS.items():
        assert value.split(": ")[-1] not in seen, name


def test_a_url_set_in_the_environment_keeps_the_sdks_settings(
    tmp_path: Path, server: FaultServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_ORG_ID", SDK_SETTINGS["OPENAI_ORG_ID"])
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    _run(tmp_path, "", "openai/m")
    assert SDK_SETTINGS["OPENAI_ORG_ID"] in _headers_seen(server)
