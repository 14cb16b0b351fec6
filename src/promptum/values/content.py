"""`ContentPart`: an image, a PDF document or an audio clip a message carries besides its text.

A part names its bytes (a project file, a URL, or inline base64) and holds their digest. The
cache key and the resume fingerprint dump a part with `KEYED` as context: its digest stands
for its bytes, so the same image under two paths is one cache entry and a changed image is a
miss. A file's bytes are read when the request is sent, never held with the case.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

PartKind = Literal["image", "document", "audio"]

_KEYED = "promptum_keyed"
KEYED = {_KEYED: True}
"""The dump context of the cache key and the fingerprint: a part as its digest, not its path."""

MEDIA_TYPES: dict[str, tuple[PartKind, str]] = {
    ".jpg": ("image", "image/jpeg"),
    ".jpeg": ("image", "image/jpeg"),
    ".png": ("image", "image/png"),
    ".gif": ("image", "image/gif"),
    ".webp": ("image", "image/webp"),
    ".pdf": ("document", "application/pdf"),
    ".wav": ("audio", "audio/wav"),
    ".mp3": ("audio", "audio/mpeg"),
}
"""The file types a part may be, by extension: what kind of part each is, and its media type."""

SNIFF_BYTES = 12
"""How many leading bytes `sniffed_media_type` needs."""


def sniffed_media_type(head: bytes) -> str | None:
    """The media type the leading bytes of a file say it is, of those parts take; else None."""
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "image/webp"
    if head.startswith(b"RIFF") and head[8:12] == b"WAVE":
        return "audio/wav"
    if head.startswith(b"%PDF-"):
        return "application/pdf"
    # An MP3 starts with its ID3 tag, or straight with a frame's sync bits (11 set bits).
    if head.startswith(b"ID3") or (len(head) > 1 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0):
        return "audio/mpeg"
    return None


class ContentPart(BaseModel):
    """One part of a message besides its text: its kind, media type, and where its bytes are."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: PartKind
    media_type: str
    """``image/png``, ``application/pdf``, ``audio/wav``...: what the bytes are."""
    file: str | None = None
    """A project file's path, read when the request is sent (kept for display and reading)."""
    url: str | None = None
    """An image's URL, which the provider fetches."""
    data: str | None = None
    """The bytes inline, as base64."""
    sha256: str | None = None
    """The hex digest of the bytes of a file or inline data; what the cache key holds."""

    @model_validator(mode="after")
    def _one_source(self) -> ContentPart:
        sources = [name for name in ("file", "url", "data") if getattr(self, name) is not None]
        if len(sources) != 1:
            raise ValueError("a content part needs exactly one of `file`, `url` or `data`")
        if self.url is not None and self.type != "image":
            raise ValueError(f"a {self.type} part cannot be a URL: give its `file`")
        if self.url is None and self.sha256 is None:
            raise ValueError("a part of a file or inline data needs the `sha256` of its bytes")
        return self

    @model_serializer(mode="wrap")
    def _dumped(
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        keyed = isinstance(info.context, dict) and info.context.get(_KEYED, False)
        for name in ("file", "url", "data", "sha256"):
            # A key holds the digest, not where the bytes are: a file moved keeps its key.
            if data.get(name) is None or (keyed and name in ("file", "data")):
                data.pop(name, None)
        return data

    @property
    def name(self) -> str:
        """What a person reads for the part: its file, its URL, or its kind inline."""
        return self.file or self.url or f"inline {self.media_type}"

    @property
    def described(self) -> str:
        """The part as an error message names it: ``image receipts/001.png``."""
        return f"{self.type} {self.name}"
