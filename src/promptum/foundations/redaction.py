"""Keep secrets out of what promptum writes: a config may carry a key by mistake, a prompt too.

Two nets, both cheap: config entries whose key names a secret are dropped (store) or masked
(reports), and the value of every secret-looking environment variable (``OPENAI_API_KEY``,
``*_TOKEN``, ...) is replaced wherever it appears in what is written. So is the value of every
variable that code sending it declared a secret (`declare_secret_variables`: an HTTP target's
``headers_env``), whatever its name.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from promptum.foundations.model_json import model_json

if TYPE_CHECKING:
    from pydantic import BaseModel

ModelT = TypeVar("ModelT", bound="BaseModel")

# Matched against config keys; narrow on purpose so `max_tokens` and the like are kept.
_SECRET_KEY = re.compile(
    r"api[_-]?key|secret|password|passwd|authorization|bearer|credential"
    r"|(access|auth|api|bearer|session)[_-]?token",
    re.IGNORECASE,
)
# Matched against environment variable names: the last word names a secret (OPENAI_API_KEY,
# GITHUB_TOKEN, DB_PASSWORD), so PIP_KEYRING_PROVIDER and the like keep their values.
_SECRET_ENV = re.compile(
    # ..._CUSTOM_HEADERS: the SDKs' extra headers, which may carry a proxy's token.
    r"(^|_)(KEY|KEYS|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?|CUSTOM_HEADERS)$",
    re.IGNORECASE,
)
_MIN_SECRET = 8
"""Shorter values are too likely to occur by chance (``true``, ``1``) to be worth replacing."""
# An HTTP credential with its scheme (``Bearer <token>``, ``Basic <base64>``): a service may
# echo the credential without the scheme, so that part alone is a secret too. Known schemes
# only: the last word of any passphrase would otherwise be replaced wherever it occurs.
_SCHEMED = re.compile(r"(?:Bearer|Basic|Token|Bot|ApiKey|Api-Key|Key|OAuth|JWT|DPoP) +(\S+)", re.I)
_DECLARED: set[str] = set()
"""Variables whose values are secrets whatever their names (`declare_secret_variables`)."""
REDACTED = "[redacted]"


def is_secret_key(key: object) -> bool:
    """Whether a mapping key names a secret (``api_key``, ``password``, ``auth_token``...)."""
    return isinstance(key, str) and _SECRET_KEY.search(key) is not None


def redact(value: Any) -> Any:
    """A copy of `value` with the value of every secret-named entry replaced by a marker."""
    if isinstance(value, Mapping):
        return {key: REDACTED if is_secret_key(key) else redact(v) for key, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact(item) for item in value]
    return value


def without_secret_keys(value: Any) -> Any:
    """A copy of `value` without any mapping entry whose key names a secret."""
    if isinstance(value, Mapping):
        return {
            key: without_secret_keys(item) for key, item in value.items() if not is_secret_key(key)
        }
    if isinstance(value, list | tuple):
        return [without_secret_keys(item) for item in value]
    return value


def declare_secret_variables(names: Iterable[str]) -> None:
    """Count these environment variables' values as secrets, in this process, from now on.

    For variables whose names need not look secret (``PROMPTUM_SUPPORT_AUTH``) but whose
    values promptum sends as credentials: every `environment_secrets` includes them after.
    """
    _DECLARED.update(names)


def _secret_values(value: str) -> list[str]:
    """A secret's value and the credential in it without its scheme (``Bearer ...``), if any."""
    scheme = _SCHEMED.fullmatch(value)
    credential = scheme.group(1) if scheme else ""
    return [value, credential] if len(credential) >= _MIN_SECRET else [value]


def environment_secrets(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The values of secret-looking or declared environment variables, longest first."""
    environ = os.environ if environ is None else environ
    values = {
        form
        for name, value in environ.items()
        if (_SECRET_ENV.search(name) or name in _DECLARED) and len(value) >= _MIN_SECRET
        for secret in _secret_values(value)
        # The JSON-escaped form too: results are stored as JSON text.
        for form in (secret, json.dumps(secret, ensure_ascii=False)[1:-1])
    }
    # Longest first, so a secret that contains another is replaced whole.
    return tuple(sorted(values, key=len, reverse=True))


def scrub(text: str, secrets: tuple[str, ...]) -> str:
    """`text` with every occurrence of each secret replaced."""
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


def scrub_values(value: Any, secrets: tuple[str, ...]) -> Any:
    """A copy of `value` (JSON-like data) with each secret replaced in every string in it."""
    if isinstance(value, str):
        return scrub(value, secrets)
    if isinstance(value, Mapping):
        return {key: scrub_values(item, secrets) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [scrub_values(item, secrets) for item in value]
    return value


def scrub_json(text: str, secrets: tuple[str, ...]) -> str:
    """JSON `text` with each secret replaced in its string values.

    Never in the text as such: a secret that happens to equal a field name would otherwise
    turn the JSON into something that no longer loads.
    """
    if not any(secret in text for secret in secrets):
        return text  # the usual case, without parsing
    cleaned = scrub_values(json.loads(text), secrets)
    return json.dumps(cleaned, ensure_ascii=False, separators=(",", ":"))


def scrub_model(value: ModelT, secrets: tuple[str, ...]) -> ModelT:
    """A copy of pydantic `value` with each secret replaced in every string in it."""
    if not secrets:
        return value
    text = model_json(value)
    cleaned = scrub_json(text, secrets)
    return value if cleaned is text else type(value).model_validate_json(cleaned)
