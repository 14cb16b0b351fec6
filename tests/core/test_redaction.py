"""Which environment variables count as secrets, and what is replaced."""

from promptum.foundations.redaction import REDACTED, environment_secrets, redact, scrub

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


def test_scrub_and_redact() -> None:
    assert scrub(f"key is {LONG}!", (LONG,)) == f"key is {REDACTED}!"
    assert redact({"api_key": "k", "params": {"max_tokens": 5}}) == {
        "api_key": REDACTED,
        "params": {"max_tokens": 5},
    }
