"""The messages stage of building a case: its documents and the conversation it sends."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from promptum.cases import join_context
from promptum.suites._build_parts import PartBuilder, Parts, unsent_problems
from promptum.suites._build_render import CaseScope, Problems, Renderer
from promptum.suites._format import CaseFields, Context, MessageSpec, QuerySpec
from promptum.suites._locate import Loc
from promptum.suites._suite_context import SuiteContext
from promptum.suites._turns import is_conversation
from promptum.values.case_result import Message


class Prompted(NamedTuple):
    """What a case gives the model: its messages and documents, and the scope they need."""

    messages: tuple[Message, ...]
    documents: tuple[str, ...] | None
    scope: CaseScope
    """The case's variables with its documents (``context``) and, for a variant, its query."""
    lacking: list[Loc]
    """The suite's templates (where the suite wrote them) reading {{ context }}, which the
    case does not give: the loader says so once per template, naming the cases."""


def prompted(
    case: CaseFields, context: SuiteContext, scope: CaseScope
) -> tuple[Prompted, Problems]:
    """The case's documents and messages, each rendered with its vars."""
    found: Problems = []
    lacking: list[Loc] = []
    rendered = scope.renderer(found, lacking)
    written = case.context if case.context is not None else context.defaults.context
    documents = _documents(written, rendered)
    if documents is not None:
        # Retrieved material is the app's to place in the prompt: templates may use it.
        scope = scope.given("context", join_context(documents))
        rendered = scope.renderer(found, lacking)
    if context.variant and case.query is not None:
        # The variant is the prompt: the case's query is what it fills in.
        scope = scope.given("query", rendered(_query_text(case.query), _query_loc(case.query)))
        rendered = scope.renderer(found, lacking)
    system = _system(case, context, rendered)
    conversation = _conversation(case, context, rendered, found)
    found += unsent_problems(case, context, conversation)
    if system is not None and not (conversation and conversation[0].role == "system"):
        conversation = (system, *conversation)  # else the conversation's own system wins
    return Prompted(conversation, documents, scope, lacking), found


def _documents(spec: Context | None, rendered: Renderer) -> tuple[str, ...] | None:
    """The case's documents, each rendered with its vars."""
    if spec is None:
        return None
    if isinstance(spec, str):
        return (rendered(spec, ("context",)),)
    return tuple(rendered(text, ("context", index)) for index, text in enumerate(spec))


def _system(case: CaseFields, context: SuiteContext, rendered: Renderer) -> Message | None:
    """The system message: the case's, else its suite's defaults', else its suite's."""
    system = case.system or context.defaults.system or context.system
    if system is None:
        return None
    suite_system: Loc | None = None  # where the suite wrote it, when the case did not
    if not case.system:
        suite_system = ("defaults", "system") if context.defaults.system else ("system",)
    return Message(role="system", content=rendered(system, ("system",), suite_system))


def _query_text(query: str | QuerySpec) -> str:
    return query if isinstance(query, str) else query.text


def _query_loc(query: str | QuerySpec) -> Loc:
    return ("query",) if isinstance(query, str) else ("query", "text")


def _conversation(
    case: CaseFields, context: SuiteContext, rendered: Renderer, found: Problems
) -> tuple[Message, ...]:
    """The conversation after the system message: a variant's, `messages`, `query`, `prompt`."""
    # Only a case with `messages` or turns can be no plain request: one with `query` never is.
    if (case.messages is not None or is_conversation(case)) and _no_request(case, context, found):
        return ()
    parts = PartBuilder(context, rendered, found)
    if context.template is not None or (context.variant and context.prompt is not None):
        variant = _variant(context, rendered, parts)
        if isinstance(case.query, QuerySpec):
            # The variant writes the message; the case's query brings its files to it.
            return _attached(variant, parts.of_query(case.query))
        return variant
    if case.messages is not None:
        return _written(case.messages, rendered, parts)
    if case.query is not None:
        return _query(case.query, rendered, parts)
    if context.prompt is not None:
        return (Message(role="user", content=rendered(context.prompt, (), ("prompt",))),)
    found.append(((), "the case has no prompt: give `query`, `messages`, or a suite `prompt`"))
    return ()


def _no_request(case: CaseFields, context: SuiteContext, found: Problems) -> bool:
    """Whether the case sends no request of its own: a conversation, or `messages` misplaced."""
    if case.query is not None and case.messages is not None:
        found.append((("messages",), "give either `query` or `messages`, not both"))
        return True
    if is_conversation(case):
        return True  # its turns are its user's messages (`structure_problems` says what else is)
    if context.variant and case.messages is not None:
        found.append(
            (
                ("messages",),
                "the suite's `prompts:` variants write the conversation: give this case `query` "
                "or `vars` (the variants see them as {{ query }} and their names), not `messages`",
            )
        )
        return True
    return False


def _variant(context: SuiteContext, rendered: Renderer, parts: PartBuilder) -> tuple[Message, ...]:
    """A prompt variant's conversation: its chat template, or its text as the user message."""
    if context.template is not None:
        return _template(context.template, ("prompts", context.variant), rendered, parts)
    content = rendered(context.prompt or "", (), ("prompts", context.variant))
    return (Message(role="user", content=content),)


def _query(query: str | QuerySpec, rendered: Renderer, parts: PartBuilder) -> tuple[Message, ...]:
    """The user message of a `query`: its text, with the files a `query:` mapping lists."""
    if isinstance(query, str):
        return (Message(role="user", content=rendered(query, ("query",))),)
    text = rendered(query.text, ("query", "text"))
    return (Message(role="user", content=text, parts=parts.of_query(query)),)


def _attached(messages: tuple[Message, ...], parts: Parts) -> tuple[Message, ...]:
    """`messages` with `parts` added to the last user message's own."""
    last = max((i for i, m in enumerate(messages) if m.role == "user"), default=None)
    if parts is None or last is None:
        return messages
    joined = (*(messages[last].parts or ()), *parts)
    return (
        *messages[:last],
        messages[last].model_copy(update={"parts": joined}),
        *messages[last + 1 :],
    )


def _template(
    template: Sequence[MessageSpec], at: Loc, rendered: Renderer, parts: PartBuilder
) -> tuple[Message, ...]:
    """A chat-template variant's conversation, each message rendered where the suite wrote it."""
    messages = []
    for index, message in enumerate(template):
        loc: Loc = (*at, index)
        content = rendered(message.content, loc, loc)
        sent = parts.of_items(message.parts, loc)
        messages.append(Message(role=message.role, content=content, parts=sent))
    return tuple(messages)


def _written(
    written: Sequence[MessageSpec], rendered: Renderer, parts: PartBuilder
) -> tuple[Message, ...]:
    """The case's own `messages`, tool calls replayed as written."""
    return tuple(
        Message(
            role=message.role,
            content=rendered(message.content, ("messages", index, "content")),
            tool_calls=message.tool_calls,
            tool_call_id=message.tool_call_id,
            parts=parts.of_items(message.parts, ("messages", index, "content")),
        )
        for index, message in enumerate(written)
    )
