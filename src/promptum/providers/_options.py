"""The settings of a `ModelClient`: timeouts, retries, the cache, endpoints and prices."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from promptum.values.target import MAX_TIMEOUT_S, HttpTarget, PythonTarget

StructuredMode = Literal["auto", "json_schema", "json_object", "prompt"]


class EndpointConfig(BaseModel):
    """One named model endpoint: ``<name>/<model>`` ids are sent to it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["openai", "anthropic"] = "openai"
    """The protocol: ``openai`` for every OpenAI-compatible server, or ``anthropic``."""
    base_url: str | None = None
    """The API root, e.g. ``http://127.0.0.1:8000/v1``; None keeps the SDK's default."""
    api_key_env: str | None = None
    """The environment variable holding the key; when given, the variable must be set.
    None reads ``PROMPTUM_<NAME>_API_KEY`` if set. A suite may name only that variable."""
    api_key: SecretStr | None = None
    """A key given directly (Python API only: a suite file can never hold a key)."""
    max_concurrency: int | None = Field(default=None, ge=1)
    """How many calls may be in flight at once on this endpoint; None: as many as the run
    sends (``--concurrency``)."""
    structured_output: StructuredMode = "auto"
    """How a response schema is sent: ``json_schema`` (OpenAI), ``json_object`` with a
    ``schema`` (llama.cpp server), ``prompt`` (instructions only), or ``auto``: try
    ``json_schema`` and fall back to ``json_object`` once if the server rejects it."""
    timeout_s: float | None = Field(default=None, gt=0, le=MAX_TIMEOUT_S)
    """Seconds one call (one attempt) to this endpoint may take; None: the run's
    (``--timeout``, `ClientOptions.timeout_s`)."""
    retries: int | None = Field(default=None, ge=0)
    """Retries of a failed call to this endpoint; None: the run's ``max_retries``."""


class Price(BaseModel):
    """What a model costs, in USD per million tokens."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input: float = Field(ge=0)
    """USD per million input (prompt) tokens."""
    output: float = Field(ge=0)
    """USD per million output (completion) tokens."""

    def cost(self, input_tokens: int | None, output_tokens: int | None) -> float | None:
        """The cost of one call, or None when the provider reported no usage."""
        if input_tokens is None and output_tokens is None:
            return None
        return ((input_tokens or 0) * self.input + (output_tokens or 0) * self.output) / 1e6


class ClientOptions(BaseModel):
    """How a `ModelClient` calls models: one set per run."""

    # Built on first use: loading a suite needs the endpoint and price models only.
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    timeout_s: float = Field(default=60.0, gt=0, le=MAX_TIMEOUT_S)
    """Seconds one call (one attempt) may take, where an endpoint or target sets none."""
    max_retries: int = Field(default=4, ge=0)
    """Retries per call on 429, 5xx, timeouts and dropped connections, where an endpoint or
    target sets no ``retries``; a target's timeouts are retried only when it sets them."""
    retry_budget: int | None = Field(default=None, ge=0)
    """Retries allowed across the whole run (None: no limit beyond ``max_retries``)."""
    backoff_base_s: float = Field(default=0.5, ge=0)
    """The first backoff delay; it doubles with each retry (with jitter)."""
    backoff_max_s: float = Field(default=30.0, ge=0)
    """The longest wait between attempts, Retry-After included."""
    cache: bool = True
    cache_path: Path | None = None
    """The SQLite response cache; None means ``.promptum/cache.sqlite`` under the cwd."""
    cache_ttl_s: float | None = Field(default=None, gt=0)
    """Ignore cached responses older than this many seconds (None: keep forever)."""
    endpoints: dict[str, EndpointConfig] = Field(default_factory=dict)
    """Named endpoints by prefix; a name of a built-in (``openai``, ``ollama``...) overrides it."""
    pricing: dict[str, Price] = Field(default_factory=dict)
    """Prices by full model id, overriding the built-in table."""
    targets: dict[str, PythonTarget | HttpTarget] = Field(default_factory=dict)
    """Targets by id (``target:<name>``): the team's own functions and services."""
