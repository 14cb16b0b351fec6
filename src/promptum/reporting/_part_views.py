"""A message's content parts as reports show them: small images inline, everything else named.

An image file (or inline data) of at most `THUMBNAIL_MAX_BYTES` becomes a ``data:`` URL the
page scales down, so the page still loads nothing. It is embedded only when its bytes still
have the digest the run recorded and are the image type it names: a stored run naming some
other file on this machine can show that file only by knowing its digest already. An image
given by URL is shown as its URL, never loaded; documents and audio are named.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import os
import stat
from collections.abc import Iterable
from typing import NamedTuple

from promptum.values.content import MEDIA_TYPES, ContentPart, sniffed_media_type

THUMBNAIL_MAX_BYTES = 200 * 1024
"""The largest image embedded as a thumbnail; a larger one is named with its digest."""


class PartView(NamedTuple):
    """One part as a page shows it: what it is, and its thumbnail or why there is none."""

    kind: str
    name: str
    media_type: str
    digest: str
    """The first hex digits of its sha256 ("" for a URL)."""
    src: str
    """A ``data:`` URL of the image to show, or "" when it is only named."""
    note: str
    """Why an image is not shown ("" when it is, or the part is no image)."""


_IMAGE_TYPES = frozenset(media for kind, media in MEDIA_TYPES.values() if kind == "image")
_DIGEST_SHOWN = 12
"""Hex digits of a part's digest shown beside its name."""


def part_views(parts: Iterable[ContentPart] | None) -> list[PartView]:
    """How each of `parts` is shown, in order."""
    return [_view(part) for part in parts or ()]


# A report shows a case's image once per model and repeat, one after another: read it once.
@functools.lru_cache(maxsize=16)
def _view(part: ContentPart) -> PartView:
    """How `part` is shown (`PartView`)."""
    digest = (part.sha256 or "")[:_DIGEST_SHOWN]
    src, note = "", ""
    if part.url is not None:
        note = "an image given by URL is not loaded"
    elif part.type == "image":
        data, note = _image_bytes(part)
        if data is not None:
            src = f"data:{part.media_type};base64,{base64.b64encode(data).decode('ascii')}"
    return PartView(part.type, part.name, part.media_type, digest, src, note)


def _image_bytes(part: ContentPart) -> tuple[bytes | None, str]:
    """The image's bytes if they may be embedded, else None and why not."""
    if part.media_type not in _IMAGE_TYPES:
        return None, f"{part.media_type} is not shown"
    data, note = _inline_bytes(part.data) if part.data is not None else _file_bytes(part.file)
    if data is None:
        return None, note
    if hashlib.sha256(data).hexdigest() != part.sha256:
        return None, "changed since the run: not shown"
    if sniffed_media_type(data[:16]) != part.media_type:
        return None, f"not {part.media_type} data: not shown"
    return data, ""


def _too_large(size: int) -> str:
    return f"{size / 1024:,.0f} KB, over the {THUMBNAIL_MAX_BYTES // 1024} KB shown inline"


def _inline_bytes(data: str) -> tuple[bytes | None, str]:
    """Inline base64 decoded, unless it is too large to embed or not base64."""
    if len(data) * 3 // 4 > THUMBNAIL_MAX_BYTES:
        return None, _too_large(len(data) * 3 // 4)
    try:
        return base64.b64decode(data, validate=True), ""
    except binascii.Error:
        return None, "not base64: not shown"


def _file_bytes(path: str | None) -> tuple[bytes | None, str]:
    """The file's bytes, unless it is missing, not a regular file, or too large to embed."""
    try:
        # Checked before opening (opening a pipe blocks, some devices act on it) and after.
        if not stat.S_ISREG(os.stat(str(path)).st_mode):
            return None, "not a regular file: not shown"
        descriptor = os.open(str(path), os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(descriptor, "rb") as handle:
            opened = os.fstat(descriptor)
            if not stat.S_ISREG(opened.st_mode):
                return None, "not a regular file: not shown"
            if opened.st_size > THUMBNAIL_MAX_BYTES:
                return None, _too_large(opened.st_size)
            data = handle.read(THUMBNAIL_MAX_BYTES + 1)
    except OSError as exc:
        return None, f"cannot read it here ({exc.strerror or exc}): not shown"
    if len(data) > THUMBNAIL_MAX_BYTES:  # it grew since it was measured
        return None, _too_large(len(data))
    return data, ""
