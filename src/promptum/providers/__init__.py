"""Models: one `ModelClient` calls any model id through the provider its prefix names.

``openai/<m>``, ``openrouter/<vendor>/<m>``, ``ollama/<m>``, ``anthropic/<m>``,
``local/smollm2`` (the default), ``local/<path.gguf>`` and ``<endpoint>/<m>`` for a named
OpenAI-compatible endpoint. SDKs and llama.cpp are imported only when a call needs them.

Each name is imported from its module on first use: loading a suite needs the routing
table and the endpoint settings, not the client, its cache or asyncio.

Loading the package hands the `similar` check's embedding engine the way to embedding
endpoints (`promptum.embeddings.serve_endpoints`): the check never imports providers.
"""

from typing import TYPE_CHECKING

from promptum.embeddings import serve_endpoints as _serve_embedding_endpoints
from promptum.foundations.lazy import lazy_exports

# Imported from their modules on first use (promptum.foundations.lazy). The names imported `as`
# themselves and not in __all__ are shared with the runner, the suites and the pytest plugin,
# not documented for users: served on use, never kept here.
if TYPE_CHECKING:
    from collections.abc import Callable, Hashable

    from promptum.embeddings import Embedder
    from promptum.providers._base import SAMPLING_PARAMETERS as SAMPLING_PARAMETERS
    from promptum.providers._base import ModelRequest, Provider
    from promptum.providers._batch import BatchPhase as BatchPhase
    from promptum.providers._batch import BatchRecord as BatchRecord
    from promptum.providers._batch_choice import batched_models as batched_models
    from promptum.providers._cache import ResponseCache, cache_key
    from promptum.providers._catalog import ProviderStatus, provider_statuses
    from promptum.providers._client import ModelClient
    from promptum.providers._errors import (
        AuthError,
        BadRequestError,
        ConnectionFailedError,
        MalformedResponseError,
        ProviderError,
        ProviderTimeoutError,
        RateLimitError,
        ServerError,
    )
    from promptum.providers._kinds import PROVIDER_KINDS, ProviderKind
    from promptum.providers._local_model import LOCAL_MODELS, local_model_path
    from promptum.providers._options import BATCH_DISCOUNT as BATCH_DISCOUNT
    from promptum.providers._options import ClientOptions, EndpointConfig, Price
    from promptum.providers._pricing import LIST_PRICES_TAKEN as LIST_PRICES_TAKEN
    from promptum.providers._pricing import price_for
    from promptum.providers._pricing import priced as priced
    from promptum.providers._pricing import pricing_basis as pricing_basis
    from promptum.providers._pricing import pricing_line as pricing_line
    from promptum.providers._pricing import unpriced_problem as unpriced_problem
    from promptum.providers._route import Route
    from promptum.providers._routing import (
        BUILTIN_ENDPOINTS,
        DEFAULT_MODEL,
        key_variable,
        model_id_problem,
        register_provider,
        resolve,
    )
    from promptum.providers._routing import KEY_SUFFIX as KEY_SUFFIX
    from promptum.providers._routing import env_name as env_name
    from promptum.providers._routing import repeated_model as repeated_model
    from promptum.providers._structured import SchemaMismatch as SchemaMismatch
    from promptum.providers._structured import extract_json_object as extract_json_object
    from promptum.providers._structured import parse_structured as parse_structured
    from promptum.providers._target_answer import INPUTS as INPUTS
    from promptum.providers._workers import run_in_worker as run_in_worker
    from promptum.values.target import MAX_TIMEOUT_S as MAX_TIMEOUT_S
    from promptum.values.target import HttpTarget, PythonTarget
    from promptum.values.target import Target as Target
    from promptum.values.target import target_name_problem as target_name_problem

__getattr__ = lazy_exports(__name__)

__all__ = [
    "BUILTIN_ENDPOINTS",
    "DEFAULT_MODEL",
    "LOCAL_MODELS",
    "PROVIDER_KINDS",
    "AuthError",
    "BadRequestError",
    "ClientOptions",
    "ConnectionFailedError",
    "EndpointConfig",
    "HttpTarget",
    "MalformedResponseError",
    "ModelClient",
    "ModelRequest",
    "Price",
    "Provider",
    "ProviderError",
    "ProviderKind",
    "ProviderStatus",
    "ProviderTimeoutError",
    "PythonTarget",
    "RateLimitError",
    "ResponseCache",
    "Route",
    "ServerError",
    "cache_key",
    "key_variable",
    "local_model_path",
    "model_id_problem",
    "price_for",
    "provider_statuses",
    "register_provider",
    "resolve",
]


def _embedding_endpoint(model: str) -> "tuple[Hashable, Callable[[], Embedder]]":
    # Imported on first use, as every name of the package: the routing table loads pydantic.
    from promptum.providers._embeddings import endpoint_embedder

    return endpoint_embedder(model)


def _embedding_problem(model: str) -> str | None:
    from promptum.providers._embeddings import endpoint_problem

    return endpoint_problem(model)


_serve_embedding_endpoints(_embedding_endpoint, _embedding_problem)
