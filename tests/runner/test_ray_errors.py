"""`--executor ray` mistakes are clear errors, said before Ray starts or any model is called."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from pydantic import SecretStr

from promptum import Prompt, Session
from promptum.cli import main
from promptum.errors import ConfigError
from promptum.executors import RayExecutor
from promptum.providers import ClientOptions, EndpointConfig

INSTALL = "pip install 'promptum[ray]'"


def test_without_ray_the_executor_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now fails
    with pytest.raises(ConfigError, match=re.escape(INSTALL)):
        RayExecutor()


def test_without_ray_the_command_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(sys.modules, "ray", None)
    Path("s.yaml").write_text("test_cases:\n  - {id: a, query: q}\n")
    result = CliRunner().invoke(main, ["run", "s.yaml", "--executor", "ray", "--no-store"])
    assert result.exit_code == 2
    assert f"--executor ray needs Ray, an optional extra: {INSTALL}" in result.output
    assert "Traceback" not in result.output


def test_an_address_needs_the_ray_executor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("s.yaml").write_text("test_cases:\n  - {id: a, query: q}\n")
    result = CliRunner().invoke(main, ["run", "s.yaml", "--address", "auto"])
    assert result.exit_code == 2
    assert "--address needs --executor ray" in result.output


@pytest.mark.parametrize("setting", ["workers", "shard_size"])
def test_workers_and_shards_are_at_least_one(setting: str) -> None:
    with pytest.raises(ConfigError, match=f"RayExecutor {setting} must be at least 1, got 0"):
        RayExecutor(**{setting: 0})


def test_a_key_given_in_code_is_never_sent_to_workers() -> None:
    pytest.importorskip("ray")
    endpoint = EndpointConfig(base_url="http://127.0.0.1:9/v1", api_key=SecretStr("sk-in-code"))
    session = Session(
        models=["mine/model"],
        client_options=ClientOptions(cache=False, endpoints={"mine": endpoint}),
        executor=RayExecutor(),
    )
    session.add_test(Prompt(name="a", prompt="q"))
    with pytest.raises(ConfigError, match="'mine' has its API key given in code") as raised:
        session.run()
    assert "set `api_key_env` to a variable set on every worker" in str(raised.value)
    assert "sk-in-code" not in str(raised.value)


def test_an_address_nobody_answers_at_fails_fast() -> None:
    pytest.importorskip("ray")
    session = Session(
        models=["fault/model"],
        client_options=ClientOptions(
            cache=False, endpoints={"fault": EndpointConfig(base_url="http://127.0.0.1:9/v1")}
        ),
        executor=RayExecutor(address="127.0.0.1:1"),
    )
    session.add_test(Prompt(name="a", prompt="q"))
    with pytest.raises(ConfigError, match=re.escape("cannot reach the Ray cluster at 127.0.0.1:1")):
        session.run()
