"""The settings of a `ModelClient`: timeouts, retries, the cache, endpoints and prices."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from promptum.foundations.redaction import declare_secret_variables
from promptum.values.completion import Completion
from promptum.values.target import MAX_TIMEOUT_S, HttpTarget, HttpUrlText, PythonTarget

StructuredMode = Literal["auto", "json_schema", "json_object", "prompt"]


BATCH_DISCOUNT = 0.5
"""What a call through a provider's batch API costs, as a share of its price: OpenAI's Batch
API and Anthropic's Message Batches bill every rate, prompt-cache ones included, at half."""


class TokenRates(BaseModel):
    """What a call costs per million tokens of each kind, in USD."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input: float = Field(ge=0)
    """USD per million input (prompt) tokens."""
    output: float = Field(ge=0)
    """USD per million output (completion) tokens."""
    cached_input: float | None = Field(default=None, ge=0)
    """USD per million input tokens read from the provider's prompt cache; None: `input`."""
    cache_write: float | None = Field(default=None, ge=0)
    """USD per million input tokens written to the provider's prompt cache (Anthropic);
    None: `input`."""

    def _usd(self, input_tokens: int, output_tokens: int, read: int, written: int) -> float:
        # `input_tokens` counts every prompt token; those read or written are priced apart.
        plain = max(0, input_tokens - read - written)
        cached = self.input if self.cached_input is None else self.cached_input
        writes = self.input if self.cache_write is None else self.cache_write
        usd = plain * self.input + read * cached + written * writes + output_tokens * self.output
        return usd / 1e6


class LongContextRates(TokenRates):
    """The rates of a call with a long input: they apply to every token of it."""

    above: int = Field(ge=0)
    """Input tokens a call must exceed to be priced at these rates."""


class Price(TokenRates):
    """What a model costs, in USD per million tokens: input, output and prompt-cache tokens."""

    long_context: LongContextRates | None = None
    """Other rates for calls of more than `above` input tokens (GPT-5.4: 272,000)."""

    def cost(
        self,
        input_tokens: int | None,
        output_tokens: int | None,
        *,
        cache_read_tokens: int | None = None,
        cache_write_tokens: int | None = None,
        batch: bool = False,
    ) -> float | None:
        """The cost of one call, or None when the provider reported no usage.

        ``input_tokens`` counts every input token, the cache's included. ``batch``: the call
        went through the provider's batch API, priced at `BATCH_DISCOUNT` of every rate.
        """
        if input_tokens is None and output_tokens is None:
            return None
        long = self.long_context
        rates = long if long is not None and (input_tokens or 0) > long.above else self
        usd = rates._usd(
            input_tokens or 0, output_tokens or 0, cache_read_tokens or 0, cache_write_tokens or 0
        )
        return usd * BATCH_DISCOUNT if batch else usd

    def cost_of(self, completion: Completion, *, batch: bool = False) -> float | None:
        """The cost of the call that answered `completion`, from its usage."""
        return self.cost(
            completion.input_tokens,
            completion.output_tokens,
            cache_read_tokens=completion.cache_read_tokens,
            cache_write_tokens=completion.cache_write_tokens,
            batch=batch,
        )


class EndpointConfig(BaseModel):
    """One named model endpoint: ``<name>/<model>`` ids are sent to it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["openai", "anthropic"] = "openai"
    """The protocol: ``openai`` for every OpenAI-compatible server, or ``anthropic``."""
    base_url: HttpUrlText | None = None
    """The API root, e.g. ``http://127.0.0.1:8000/v1``; None keeps the SDK's default."""
    api_key_env: str | None = None
    """The environment variable holding the key; when given, the variable must be set.
    None reads ``PROMPTUM_<NAME>_API_KEY`` if set. A suite may name only that variable."""
    api_key: SecretStr | None = None
    """A key given directly (Python API only: a suite file can never hold a key)."""
    max_concurrency: int | None = Field(default=None, ge=1)
    """How many calls may be in flight at once on this endpoint; None: as many as the run
    sends (``--concurrency``)."""
    rpm: int | None = Field(default=None, ge=1)
    """Requests per minute this endpoint allows (its rate limit); None: the run's ``--rpm``,
    else what its answers' headers tell, else what it sustains (docs/rate-limits.md)."""
    tpm: int | None = Field(default=None, ge=1)
    """Tokens per minute this endpoint allows, prompt and answer; None: as `rpm`."""
    structured_output: StructuredMode = "auto"
    """How a response schema is sent: ``json_schema`` (OpenAI), ``json_object`` with a
    ``schema`` (llama.cpp server), ``prompt`` (instructions only), or ``auto``: try
    ``json_schema`` and fall back to ``json_object`` once if the server rejects it."""
    timeout_s: float | None = Field(default=None, gt=0, le=MAX_TIMEOUT_S)
    """Seconds one call (one attempt) to this endpoint may take; None: the run's
    (``--timeout``, `ClientOptions.timeout_s`)."""
    retries: int | None = Field(default=None, ge=0)
    """Retries of a failed call to this endpoint; None: the run's ``max_retries``."""
    price: Price | None = None
    """What every model of this endpoint costs (USD per million tokens), where `pricing`
    names no price for the model's id; None: the built-in list prices, if any."""
    batch: bool | None = None
    """Send the run's calls through the endpoint's batch API (docs/batch.md): True for an
    endpoint serving OpenAI's ``/v1/batches`` or Anthropic's Message Batches; False: never;
    None: when the run says ``--batch`` (``openai`` and ``anthropic`` have such an API)."""

    def model_post_init(self, context: Any, /) -> None:
        """Make the key variable's value a secret of the process, whatever its name."""
        # Python code may name any variable (`api_key_env="ACME_CREDS"`): its value is
        # scrubbed from answers and everything written, as a `*_API_KEY`'s is.
        if self.api_key_env:
            declare_secret_variables((self.api_key_env,))


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
    rpm: int | None = Field(default=None, ge=1)
    """Requests per minute allowed on each model endpoint that states no ``rpm`` itself."""
    tpm: int | None = Field(default=None, ge=1)
    """Tokens per minute allowed on each model endpoint that states no ``tpm`` itself."""
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
    batch: bool = False
    """Send every model's calls through its endpoint's batch API (``--batch``), at half price."""
