"""A promptfoo chat prompt's messages as promptum's: text, or content lists with files.

promptfoo sends a message's `content` list to the provider as written: OpenAI's
`image_url`, `input_audio` and `file` items, Anthropic's `image` and `document` blocks. In
promptum a message's files are content parts (`{type: image, file: ...}`); a part's `file`
is a template of the case's vars, and a value that is a URL is sent as one. A var holding an
image is a path in promptum (the importer writes `file://` image vars so), where promptfoo
holds the file's base64: `data:...;base64,{{ image }}` becomes `file: "{{ image }}"`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

ROLES = ("system", "user", "assistant")
_DATA_URL = re.compile(r"^data:[\w/+.-]+;base64,(?P<rest>.+)$", re.DOTALL)
_IGNORED_KEYS = frozenset({"cache_control"})
"""Item keys promptum does not send (Anthropic's prompt-cache breakpoints): noted, not refused."""


class ContentError(ValueError):
    """A content item promptum has no part for."""


def chat_messages(data: Any) -> tuple[list[dict[str, Any]], set[str]] | None:
    """The messages of a chat prompt (a list, or `{messages: [...]}`), as promptum's.

    With them, the item keys left out; None when `data` is no chat. Raises ContentError
    for an item it cannot convert.
    """
    if isinstance(data, Mapping) and set(data) == {"messages"}:
        data = data["messages"]
    if not isinstance(data, list) or not data:
        return None
    messages, dropped = [], set[str]()
    for message in data:
        if not (isinstance(message, Mapping) and set(message) == {"role", "content"}):
            return None
        role, content = message["role"], message["content"]
        if role not in ROLES:
            return None
        if isinstance(content, list):
            content = _content(content, dropped)
        elif not isinstance(content, str):
            return None
        messages.append({"role": role, "content": content})
    return messages, dropped


def _content(items: list[Any], dropped: set[str]) -> str | list[dict[str, Any]]:
    """A content list: one text when it is all text, else promptum's items."""
    converted = []
    for item in items:
        if not isinstance(item, Mapping) or not isinstance(item.get("type"), str):
            raise ContentError("a content item is a mapping with a `type`")
        dropped.update(_IGNORED_KEYS.intersection(item))
        converted.append(_item(item))
    if all(item["type"] == "text" for item in converted):
        return "\n\n".join(item["text"] for item in converted)
    return converted


def _item(item: Mapping[str, Any]) -> dict[str, Any]:
    """One content item as promptum's (text, image, document or audio)."""
    kind = item["type"]
    if kind == "text" and isinstance(item.get("text"), str):
        return {"type": "text", "text": item["text"]}
    if kind == "image_url":
        url = item.get("image_url")
        url = url.get("url") if isinstance(url, Mapping) else url
        return _part("image", url)
    if kind in ("image", "document"):
        return _part(kind, _source(item.get("source")))
    if kind == "input_audio" and isinstance(item.get("input_audio"), Mapping):
        return _part("audio", item["input_audio"].get("data"))
    if kind == "file" and isinstance(item.get("file"), Mapping):
        return _part("document", item["file"].get("file_data"))
    raise ContentError(
        f"a `{kind}` content item has no promptum part (text, image, document, audio)"
    )


def _source(source: Any) -> Any:
    """What an Anthropic block's `source` points at: its base64 data or its URL."""
    if isinstance(source, Mapping):
        return source.get("data") if source.get("type") == "base64" else source.get("url")
    return None


def _part(kind: str, written: Any) -> dict[str, Any]:
    """A part of `kind` whose file (a template, a path or a URL) is `written`."""
    if not isinstance(written, str) or not written.strip():
        raise ContentError(f"an {kind} item without its data or URL")
    data_url = _DATA_URL.match(written.strip())
    return {"type": kind, "file": data_url["rest"] if data_url else written.strip()}
