"""promptfoo's `prompts` as promptum prompt variants: inline text, files, `---` parts, chats."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from promptum.errors import ConfigError
from promptum.importers._chat_content import ContentError, chat_messages
from promptum.importers._context import FILE_PREFIX, Context, is_glob, slug
from promptum.importers._source import READ_AS_YAML, Node, Where, parse_yaml
from promptum.importers._writer import Commented

_SEPARATOR = re.compile(r"^---[ \t]*$", re.MULTILINE)
_TEXT_SUFFIXES = {"", ".txt", ".md", ".j2", ".jinja", ".njk", ".nunjucks", ".prompt"}
_CODE_SUFFIXES = {".py", ".js", ".ts", ".mjs", ".cjs"}
_DUMP = re.compile(r"\|\s*dump\b")
_LOAD = re.compile(r"\|\s*load\b")


Chat = tuple[list[dict[str, Any]], set[str]]
"""A chat prompt's messages, and the content item keys they left out."""


@dataclass(slots=True)
class Prompts:
    """The converted prompts: promptum's variants by name, each with where it came from."""

    variants: dict[str, Commented] = field(default_factory=dict)
    configs: dict[str, Node] = field(default_factory=dict)
    """The `config:` a prompt gives (promptfoo merges it over the provider's), by variant."""

    def suite_keys(self) -> dict[str, Any]:
        """`prompt:` for one unlabelled text prompt, else `prompts:`."""
        if len(self.variants) == 1:
            ((name, only),) = self.variants.items()
            if name.startswith("prompt-") and isinstance(only.value, str):
                return {"prompt": only}
        return {"prompts": dict(self.variants)} if self.variants else {}


def convert_prompts(node: Node, context: Context) -> Prompts:
    """Every prompt the config names, in order; what cannot be converted is noted."""
    prompts = Prompts()
    value = node.value
    if isinstance(value, dict) and not ({"id", "raw"} & value.keys()):
        for reference, label_node in node.items():  # {file://a.txt: label}
            _one(prompts, context, label_node, reference, str(label_node.value))
        return prompts
    for item in node.elements():
        raw = item.value
        if isinstance(raw, str):
            _one(prompts, context, item, raw, None)
        elif isinstance(raw, dict) and isinstance(raw.get("raw") or raw.get("id"), str):
            label = raw.get("label")
            text = raw.get("raw")
            before = len(prompts.variants)
            _one(
                prompts,
                context,
                item,
                text if text is not None else raw["id"],
                label if isinstance(label, str) else None,
                inline=text is not None,
            )
            config = item.get("config")
            if config is not None:
                for name in list(prompts.variants)[before:]:
                    prompts.configs[name] = config
        else:
            context.skip(item, "prompt", "a prompt is text, a file:// path or {raw|id, label}")
    return prompts


def _one(
    prompts: Prompts,
    context: Context,
    node: Node,
    text: str,
    label: str | None,
    inline: bool = False,
) -> None:
    if inline or not (text.startswith(FILE_PREFIX) or _names_a_file(text, context)):
        name = label or f"prompt-{len(prompts.variants) + 1}"
        _add(prompts, context, node.where, name, _inline(text, node, context))
        return
    reference = text.removeprefix(FILE_PREFIX)
    paths = context.glob(reference) if is_glob(reference) else [context.path(reference)]
    if not paths:
        context.skip(node, f"prompt {text}", "the pattern matches no file")
    for path in paths:
        _from_file(prompts, context, node, path, label if len(paths) == 1 else None)


def _names_a_file(text: str, context: Context) -> bool:
    """Whether a prompt without `file://` is the path of a file: promptfoo then reads the file."""
    if "\n" in text or not text.strip():
        return False
    try:
        return context.path(text).is_file()
    except OSError:  # a text too long, or with a NUL, to be a path
        return False


def _from_file(
    prompts: Prompts, context: Context, node: Node, path: Path, label: str | None
) -> None:
    shown = context.shown(path)
    suffix = path.suffix.lower()
    base = label or slug(path.stem, "prompt")
    if suffix.split(":")[0] in _CODE_SUFFIXES or ".py:" in path.name or ".js:" in path.name:
        context.skip(
            node,
            f"prompt {shown}",
            "a prompt function is code; promptum's prompts are "
            "templates: write its text as a Jinja template",
        )
        return
    try:
        text = context.text(str(path))
    except ConfigError as exc:
        context.skip(node, f"prompt {shown}", str(exc))
        return
    where = Where(shown, 1)
    if suffix in READ_AS_YAML:
        chat = _chat(text, suffix)
        _add_chat(prompts, context, (node, where), base, chat, f"prompt {shown}")
        return
    if suffix == ".jsonl":
        for number, row in enumerate(text.splitlines(), 1):
            if row.strip():
                here = Where(shown, number)
                chat = _chat(row, ".json")
                _add_chat(prompts, context, (node, here), f"{base}-{number}", chat, "prompt")
        return
    if suffix not in _TEXT_SUFFIXES:
        context.skip(node, f"prompt {shown}", f"promptum does not read {suffix} prompt files")
        return
    parts = _SEPARATOR.split(text)
    line = 1
    for index, part in enumerate(parts):
        name = base if len(parts) == 1 else f"{base}-{index + 1}"
        _add(prompts, context, Where(shown, line), name, _inline(part.strip("\n"), node, context))
        line += part.count("\n") + 1


def _add_chat(
    prompts: Prompts,
    context: Context,
    at: tuple[Node, Where],
    name: str,
    chat: Chat | str | None,
    what: str,
) -> None:
    """Add a chat prompt file's messages (`at`: the config's line, the file's line)."""
    node, where = at
    skip_at = where if where.line > 1 else node
    if chat is None or isinstance(chat, str):
        context.skip(skip_at, what, chat or "not a list of {role, content} messages")
        return
    messages, dropped = chat
    if dropped:
        context.approximate(
            skip_at,
            what,
            f"{', '.join(sorted(dropped))} left out: promptum sets no prompt-cache breakpoints",
        )
    _add(prompts, context, where, name, _filtered_chat(messages, node, context))


def _inline(text: str, node: Node, context: Context) -> str | list[dict[str, Any]]:
    """Inline prompt text, or a chat when it is a JSON list of messages."""
    if text.lstrip().startswith("["):
        chat = _chat(text, ".json")
        if isinstance(chat, tuple):
            return _filtered_chat(chat[0], node, context)
    return _filtered(text, node, context)


def _filtered(text: str, node: Node, context: Context) -> str:
    """A template with promptfoo's Nunjucks filters `load` and `dump` as promptum's."""
    text = _LOAD.sub("| from_json", text)  # both parse JSON text (JSON.parse, json.loads)
    if _DUMP.search(text):
        context.approximate(
            node,
            "prompt filter `dump`",
            "written as Jinja's `tojson`, which also escapes <, >, & and ' as \\u sequences",
        )
        return _DUMP.sub("| tojson", text)
    return text


def _filtered_chat(
    chat: list[dict[str, Any]], node: Node, context: Context
) -> list[dict[str, Any]]:
    """Each message's texts with promptfoo's filters as promptum's."""
    return [
        {**message, "content": _filtered_content(message["content"], node, context)}
        for message in chat
    ]


def _filtered_content(content: Any, node: Node, context: Context) -> Any:
    if isinstance(content, str):
        return _filtered(content, node, context)
    return [
        {**item, "text": _filtered(item["text"], node, context)} if item["type"] == "text" else item
        for item in content
    ]


def _chat(text: str, suffix: str) -> Chat | str | None:
    """The chat of a prompt file's text, or why it cannot be converted.

    The chat is its messages and the item keys left out; None when the text is no chat.
    """
    try:
        data = json.loads(text) if suffix == ".json" else parse_yaml(text, "prompt").value
    except (ValueError, ConfigError):
        return None
    try:
        return chat_messages(data)
    except ContentError as exc:
        return str(exc)


def _add(
    prompts: Prompts, context: Context, where: Where, name: str, value: str | list[Any]
) -> None:
    name = re.sub(r"[^\w.-]+", "-", name).strip("-") or "prompt"  # promptum's variant names
    unique = name
    number = 1
    while unique in prompts.variants:
        number += 1
        unique = f"{name}-{number}"
    if isinstance(value, str) and not value.strip():
        context.skip(where, f"prompt {unique}", "the prompt is empty")
        return
    prompts.variants[unique] = Commented(value, (str(where),), tag=("prompt", unique, str(where)))
