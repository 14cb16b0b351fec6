"""Which environment variables count as secrets, and what is replaced."""

from promptum.foundations.redaction import (
    REDACTED,
    declare_secret_variables,
    environment_secrets,
    redact,
    scrub,
)
from promptum.providers import ClientOptions, EndpointConfig, HttpTarget, ModelClient

LONG = "x" * 12


def test_variables_whose_last_word_names_a_secret_are_secrets() -> None:
    names = ["OPENAI_API_KEY", "GITHUB_TOKEN", "DB_PASSWORD", "AWS_SECRET", "GCP_CREDENTIALS"]
    secrets = environment_secrets({name: f"{name}-{LONG}" for name in names})
    assert sorted(secrets) == sorted(f"{name}-{LONG}" for name in names)


def test_ordinary_variables_keep_their_values() -> None:
    environ = {"PIP_KEYRING_PROVIDER": "subprocess", "MAX_TOKENS_DEFAULT": LONG, "KEYMAP": LONG}
    assert environment_secrets(environ) == ()


def test_short_values_are_not_treated_as_secrets() -> None:
    assert environment_secrets({"SOME_TOKEN": "true"}) == ()


def test_variables_declared_secret_are_secrets_whatever_their_names() -> None:
    environ = {"PROMPTUM_REDACTION_TEST_SESSION": LONG, "PROMPTUM_REDACTION_TEST_OTHER": "y" * 12}
    assert environment_secrets(environ) == ()
    declare_secret_variables(["PROMPTUM_REDACTION_TEST_SESSION"])
    assert environment_secrets(environ) == (LONG,)


def test_a_credential_is_a_secret_without_its_scheme_too() -> None:
    token = "tok-" + LONG
    environ = {
        "SUPPORT_TOKEN": f"Bearer {token}",
        "SHORT_TOKEN": "Basic abc",
        "DB_PASSWORD": "correct horsebattery",  # no scheme: its last word is no secret alone
    }
    secrets = environment_secrets(environ)
    assert set(secrets) == {"correct horsebattery", f"Bearer {token}", token, "Basic abc"}
    assert secrets.index(f"Bearer {token}") < secrets.index(token)  # the whole one first


def test_an_http_targets_header_variables_are_declared_where_it_is_built_or_sent() -> None:
    environ = {"PROMPTUM_DECLARED_BUILT_HEADER": LONG, "PROMPTUM_DECLARED_SENT_HEADER": "z" * 12}
    HttpTarget(
        name="built",
        url="http://127.0.0.1:9/a",
        headers_env={"X-A": "PROMPTUM_DECLARED_BUILT_HEADER"},
    )
    assert environment_secrets(environ) == (LONG,)
    # A target not built in this process (unpickled in a Ray worker) or copied with other
    # headers is declared by the client that sends its headers.
    copied = HttpTarget(name="sent", url="http://127.0.0.1:9/a").model_copy(
        update={"headers_env": {"X-A": "PROMPTUM_DECLARED_SENT_HEADER"}}
    )
    assert environment_secrets(environ) == (LONG,)
    ModelClient(ClientOptions(cache=False, targets={"target:sent": copied}))
    assert set(environment_secrets(environ)) == {LONG, "z" * 12}


def test_an_endpoints_key_variable_is_a_secret_whatever_its_name() -> None:
    environ = {"ACME_CREDS_FOR_REDACTION_TEST": LONG}
    assert environment_secrets(environ) == ()
    EndpointConfig(base_url="http://127.0.0.1:9/v1", api_key_env="ACME_CREDS_FOR_REDACTION_TEST")
    assert environment_secrets(environ) == (LONG,)


def test_scrub_and_redact() -> None:
    assert scrub(f"key is {LONG}!", (LONG,)) == f"key is {REDACTED}!"
    assert redact({"api_key": "k", "params": {"max_tokens": 5}}) == {
        "api_key": REDACTED,
        "params": {"max_tokens": 5},
    }
