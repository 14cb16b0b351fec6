"""Bytes that sniff as each type a content part may be, and writing them into a project."""

from __future__ import annotations

from pathlib import Path

PNG = b"\x89PNG\r\n\x1a\n"
JPEG = b"\xff\xd8\xff\xe0"
PDF = b"%PDF-1.7\n"
WAV = b"RIFF\x24\x00\x00\x00WAVEfmt "
MP3 = b"ID3\x04\x00\x00"


def media(path: Path, head: bytes, size: int = 0) -> Path:
    """Write `head` and `size` bytes more (each its index mod 251, so no two files match)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(head + bytes(i % 251 for i in range(size)))
    return path
