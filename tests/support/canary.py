"""The canary key a run keeps in its working folder, written as a test needs it."""

from __future__ import annotations

from pathlib import Path

from promptum.suites._canary import KEY_FILE

A_KEY = "ab" * 32 + "\n"
"""A well-formed key: 32 bytes in hex."""


def write_canary_key(folder: Path, text: str = A_KEY, mode: int = 0o600) -> Path:
    """Write the canary key under `folder` with `text` and file `mode`; return its path."""
    key = folder / KEY_FILE
    key.parent.mkdir()
    key.write_text(text)
    key.chmod(mode)
    return key
