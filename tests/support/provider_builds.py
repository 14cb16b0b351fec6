"""The providers a `ModelClient` builds, recorded as it builds them."""

from __future__ import annotations

from typing import Any

import pytest

import promptum.providers._client as client_module


def recorded_builds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The model id of each provider built from now on (each still built as usual)."""
    built: list[str] = []
    real = client_module.build_provider

    def counting(route: Any, timeout_s: float) -> Any:
        built.append(route.model_id)
        return real(route, timeout_s)

    monkeypatch.setattr(client_module, "build_provider", counting)
    return built
