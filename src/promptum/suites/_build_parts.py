"""The content parts of a case's messages: a `query`'s files and a `content` list's items.

Each file path is a template of the case's vars (``receipts/{{ id }}.png``), checked as every
suite file is (`_content_files`); a part the case's model or target cannot take is refused
here when the suite names it, so nothing is sent.
"""

from __future__ import annotations

from collections.abc import Sequence

from promptum.errors import ConfigError
from promptum.suites._build_render import Problems, Renderer
from promptum.suites._content_files import inline_part, url_part
from promptum.suites._format import CaseFields, PartSpec, QuerySpec
from promptum.suites._locate import Loc
from promptum.suites._suite_context import SuiteContext
from promptum.values.case_result import Message
from promptum.values.content import ContentPart, PartKind

Parts = tuple[ContentPart, ...] | None
"""A message's parts; None for a message of text alone (dumped as before)."""

_QUERY_LISTS: tuple[tuple[str, PartKind], ...] = (
    ("images", "image"),
    ("documents", "document"),
    ("audio", "audio"),
)

TEXT_ONLY_MODEL = "local/"
"""The prefix of the embedded model's ids: it reads text only."""
NO_AUDIO_MODEL = "anthropic/"
"""The prefix of Anthropic's model ids: they read images and PDFs, not audio."""


class PartBuilder:
    """Builds one case's parts, each problem located where the suite wrote the part."""

    __slots__ = ("_context", "_found", "_rendered")

    def __init__(self, context: SuiteContext, rendered: Renderer, found: Problems) -> None:
        self._context = context
        self._rendered = rendered
        self._found = found

    def of_query(self, query: QuerySpec, at: Loc = ("query",)) -> Parts:
        """The images, documents and audio of a `query:` mapping written at `at`, in order."""
        parts: list[ContentPart] = []
        for key, kind in _QUERY_LISTS:
            for index, written in enumerate(getattr(query, key)):
                loc: Loc = (*at, key, index)
                part = self._part(kind, loc, file=written, url=written)
                if part is not None:
                    parts.append(part)
        return tuple(parts) or None

    def of_items(self, items: Sequence[PartSpec] | None, loc: Loc) -> Parts:
        """The parts of a message's `content` list, written at `loc`."""
        if not items:
            return None
        parts = []
        for item in items:
            part = self._part(item.type, loc, item.file, item.url, item.data, item.media_type)
            if part is not None:
                parts.append(part)
        return tuple(parts) or None

    def _part(
        self,
        kind: PartKind,
        loc: Loc,
        file: str | None = None,
        url: str | None = None,
        data: str | None = None,
        media_type: str | None = None,
    ) -> ContentPart | None:
        """One part from where its bytes are; None (and a problem) when it cannot be sent."""
        try:
            if data is not None:
                return inline_part(data, media_type, kind)
            known = len(self._found)
            written = self._rendered(file or url or "", loc)
            if len(self._found) > known:
                return None  # the template's problem says why; no path was made of it
            if written.startswith(("https://", "http://")) or file is None:
                if kind != "image":
                    raise ValueError(f"{written!r}: only an image may be a URL; give a `file`")
                return url_part(written)
            return self._context.content_files.file_part(self._context.folder, written, kind)
        except (ValueError, ConfigError) as exc:
            self._found.append((loc, str(exc)))
            return None


def unsent_problems(
    case: CaseFields, context: SuiteContext, messages: Sequence[Message]
) -> Problems:
    """Why the parts of `messages` cannot be sent to what answers the case, when the suite says."""
    parts = tuple(part for message in messages for part in message.parts or ())
    problem = parts_problem(case, context, parts)
    return [] if problem is None else [(("messages",) if case.messages else ("query",), problem)]


def parts_problem(
    case: CaseFields, context: SuiteContext, parts: tuple[ContentPart, ...]
) -> str | None:
    """Why `parts` cannot be sent to what answers the case, when the suite says; else None."""
    if not parts:
        return None
    models = case.models or context.models
    return _audio_problem(models, parts) or _text_only_problem(case, context, models)


def _audio_problem(models: Sequence[str], parts: tuple[ContentPart, ...]) -> str | None:
    audio = next((part for part in parts if part.type == "audio"), None)
    no_audio = [model for model in models if model.startswith(NO_AUDIO_MODEL)]
    if audio is None or not no_audio:
        return None
    return f"{audio.described}: {no_audio[0]} takes no audio (Anthropic's models read none)"


def _text_only_problem(
    case: CaseFields, context: SuiteContext, models: Sequence[str]
) -> str | None:
    if case.target or context.target:
        return (
            "a target is called with the messages' text only, so this case's images, "
            "documents or audio would never reach it: give the case a model that reads them"
        )
    text_only = [model for model in models if model.startswith(TEXT_ONLY_MODEL)]
    if text_only:
        return (
            f"{text_only[0]} (the embedded model) reads text only, so this case's images, "
            "documents or audio would be dropped: run it on a model that reads them "
            "(openai/gpt-4o, anthropic/claude-sonnet-4-5...)"
        )
    return None
