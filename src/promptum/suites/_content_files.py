"""The images, documents and audio a case's messages carry, checked as the suite loads.

A part's file obeys the rules of every suite file (inside the project, no link out, a
regular file within a limit only the machine's environment can raise), and its bytes must
be what its extension says. Loading reads each file once, a block at a time, for its digest
and its type; the bytes are read again when the request is sent, never held with the case.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path, PurePath

from promptum.errors import ConfigError
from promptum.suites._file_reading import env_limit, open_regular, project_path
from promptum.values.content import (
    MEDIA_TYPES,
    SNIFF_BYTES,
    ContentPart,
    PartKind,
    sniffed_media_type,
)

MAX_PART_BYTES = 20 * 1024 * 1024
"""The largest image, document or audio file a case sends, unless `PROMPTUM_MAX_PART_BYTES`
says otherwise (OpenAI takes images up to 20 MB; a suite file cannot raise it)."""

PART_BYTES_VARIABLE = "PROMPTUM_MAX_PART_BYTES"

_BLOCK = 1024 * 1024
_PART_HINT = f"shrink it, or set {PART_BYTES_VARIABLE} on the machine that runs the suite"
_NAMES = {"image/jpeg": "JPEG", "image/png": "PNG", "image/gif": "GIF", "image/webp": "WebP"}
_NAMES |= {"application/pdf": "PDF", "audio/wav": "WAV", "audio/mpeg": "MP3"}


_A = {"image": "an image", "document": "a document", "audio": "an audio"}


def _extensions(kind: PartKind) -> str:
    return ", ".join(ext for ext, (of, _) in MEDIA_TYPES.items() if of == kind)


def max_part_bytes() -> int:
    """The size limit of a part's file: `PROMPTUM_MAX_PART_BYTES`, else MAX_PART_BYTES."""
    return env_limit(PART_BYTES_VARIABLE, MAX_PART_BYTES)


def _media_type(written: str, kind: PartKind) -> str:
    """The media type `written`'s extension names for a part of `kind`; ValueError if none."""
    known = MEDIA_TYPES.get(PurePath(written).suffix.lower())
    if known is None:
        raise ValueError(f"{written!r}: {_A[kind]} part is a {_extensions(kind)} file")
    if known[0] != kind:
        raise ValueError(
            f"{written!r} is {_A[known[0]]} file, not {_A[kind]}: give it as {_A[known[0]]}"
        )
    return known[1]


def _refuse_other_type(written: str, head: bytes, media_type: str) -> None:
    """ValueError unless the bytes starting with `head` are of `media_type`."""
    found = sniffed_media_type(head)
    if found != media_type:
        what = f"{_NAMES[found]} data" if found else "not of a type a part may be"
        raise ValueError(
            f"{written!r}: its bytes are {what}, not {_NAMES[media_type]} as its type says: "
            "save it in the format it claims, or name it by the format it is"
        )


@dataclass(slots=True)
class ContentFiles:
    """Reads the part files of one suite's cases, each file once per load."""

    _digests: dict[Path, str] = field(default_factory=dict)
    """Each file's digest by its resolved path (an image two cases share is read once)."""

    def file_part(self, folder: Path, written: str, kind: PartKind) -> ContentPart:
        """The part of file `written` (in `folder`); ValueError or ConfigError saying why not."""
        media_type = _media_type(written, kind)
        path = project_path(folder, written)
        real = path.resolve()
        digest = self._digests.get(real)
        if digest is None:
            digest = self._digests[real] = _digest(path, written, media_type)
        return ContentPart(type=kind, media_type=media_type, file=str(real), sha256=digest)


def _digest(path: Path, written: str, media_type: str) -> str:
    """The sha256 of the file at `path`, refused unless its bytes are of `media_type`."""
    descriptor = open_regular(path, max_part_bytes(), _PART_HINT)
    with os.fdopen(descriptor, "rb") as handle:
        head = handle.read(SNIFF_BYTES)
        _refuse_other_type(written, head, media_type)
        digest = hashlib.sha256(head)
        while block := handle.read(_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def url_part(url: str) -> ContentPart:
    """An image the provider fetches from `url`; ValueError unless it is http(s)."""
    if not url.startswith(("https://", "http://")):
        raise ValueError(f"{url!r}: an image's `url` starts with https:// (or http://)")
    known = MEDIA_TYPES.get(PurePath(url.split("?", 1)[0]).suffix.lower())
    media_type = known[1] if known is not None and known[0] == "image" else "image/jpeg"
    return ContentPart(type="image", media_type=media_type, url=url)


def inline_part(data: str, media_type: str | None, kind: PartKind) -> ContentPart:
    """A part of inline base64 `data`; ValueError unless it decodes to `media_type`'s bytes."""
    allowed = sorted({media for of, media in MEDIA_TYPES.values() if of == kind})
    if media_type not in allowed:
        raise ValueError(f"inline data needs a `media_type` of {', '.join(allowed)}")
    try:
        decoded = base64.b64decode(data, validate=True)
    except binascii.Error as exc:
        raise ValueError(f"`data` is not base64: {exc}") from None
    limit = max_part_bytes()
    if len(decoded) > limit:
        raise ConfigError(f"inline data of {len(decoded):,} bytes, over {limit:,}; {_PART_HINT}")
    _refuse_other_type("data", decoded[:SNIFF_BYTES], media_type)
    digest = hashlib.sha256(decoded).hexdigest()
    return ContentPart(type=kind, media_type=media_type, data=data, sha256=digest)
