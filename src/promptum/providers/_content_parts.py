"""A message's content parts as the providers take them: their bytes read when they are sent.

A file part is read as its request is built, never before, and must still have the digest
it had when the suite was loaded: the cache key holds that digest, so an answer to other
bytes would be stored under it. A part that cannot be sent fails its call, naming the part.
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import PurePath
from typing import Any

from promptum.providers._base import ModelRequest
from promptum.providers._errors import BadRequestError
from promptum.values.case_result import Message
from promptum.values.content import ContentPart

_AUDIO_FORMATS = {"audio/wav": "wav", "audio/mpeg": "mp3"}


def has_parts(request: ModelRequest) -> bool:
    """Whether any message of `request` carries content parts."""
    return any(message.parts for message in request.messages)


def part_base64(part: ContentPart) -> str:
    """The part's bytes as base64; BadRequestError naming the part if they cannot be read."""
    if part.data is not None:
        return part.data
    if part.file is None:
        raise BadRequestError(f"{part.described}: only an image is sent by its URL")
    try:
        with open(part.file, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise BadRequestError(f"{part.described}: cannot read it: {exc.strerror}") from None
    if hashlib.sha256(data).hexdigest() != part.sha256:
        raise BadRequestError(
            f"{part.described}: the file changed since the suite was loaded; run again"
        )
    return base64.b64encode(data).decode("ascii")


def data_url(part: ContentPart) -> str:
    """The part as a ``data:`` URL (or its own URL, for an image sent by URL)."""
    return part.url or f"data:{part.media_type};base64,{part_base64(part)}"


def _openai_part(part: ContentPart) -> dict[str, Any]:
    """One part as a chat-completions content item."""
    if part.type == "image":
        return {"type": "image_url", "image_url": {"url": data_url(part)}}
    if part.type == "audio":
        audio = {"data": part_base64(part), "format": _AUDIO_FORMATS[part.media_type]}
        return {"type": "input_audio", "input_audio": audio}
    name = PurePath(part.file).name if part.file else "document.pdf"
    return {"type": "file", "file": {"file_data": data_url(part), "filename": name}}


def openai_content(message: Message) -> list[dict[str, Any]]:
    """A message with parts as chat-completions content: its text, then each part."""
    text = [{"type": "text", "text": message.content}] if message.content else []
    return text + [_openai_part(part) for part in message.parts or ()]


def _anthropic_part(part: ContentPart) -> dict[str, Any]:
    """One part as a Messages API content block."""
    if part.type == "audio":
        raise BadRequestError(f"{part.described}: Anthropic's models take no audio")
    if part.url is not None:
        return {"type": part.type, "source": {"type": "url", "url": part.url}}
    source = {"type": "base64", "media_type": part.media_type, "data": part_base64(part)}
    return {"type": part.type, "source": source}


def anthropic_content(message: Message) -> list[dict[str, Any]]:
    """A message with parts as Messages API content blocks: its text, then each part."""
    text = [{"type": "text", "text": message.content}] if message.content else []
    return text + [_anthropic_part(part) for part in message.parts or ()]
