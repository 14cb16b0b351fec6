"""The similar check type: cosine similarity of embeddings of the response and a reference.

The embeddings come from `promptum.embeddings`: the embedded all-MiniLM-L6-v2, or an
OpenAI-compatible ``/embeddings`` endpoint named ``<endpoint>/<model>`` like any model, which
promptum.providers hands in. Each distinct reference is embedded once per model; each
response once per check.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

from promptum.checks._base import CompiledCheck, ScoredCheckType, ValueKind, shorten
from promptum.embeddings import (
    INSTALL_HINT,
    LOCAL_MODEL,
    Embedder,
    EmbeddingError,
    Vector,
    cosine,
    endpoint_embedder,
    endpoint_problem,
    local_embedder,
    missing_modules,
)
from promptum.values.completion import Completion
from promptum.values.grade import Grade

DEFAULT_THRESHOLD = 0.8
"""Where paraphrases and non-paraphrases of the benchmark set part best (see docs/checks.md)."""
_CACHED_REFERENCES = 4096

_loaded: dict[Hashable, Embedder] = {}
_loading = threading.Lock()


def embedder(model: str) -> Embedder:
    """The embedder for ``model``, made once per process (per endpoint URL and key)."""
    key: Hashable
    make: Callable[[], Embedder]
    if model == LOCAL_MODEL:
        key, make = (model,), local_embedder
    else:
        key, make = endpoint_embedder(model)
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
    return endpoint_problem(model)


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
