"""Running a conversation: turn after turn, each reply carried into the next turn's history.

Each turn is one call through the run's `complete` (cache, retries, limits and judge as for
any call), graded like a single response with ``details["turn"]`` on its grades; then the
conversation's own grades: its checks over every reply, its criteria (and the case's
`expected_behavior`) judged on the transcript. The user's messages are the case's scripted
`turns`, or a simulated user's (`promptum.runner._simulator`).

Every call a finished turn made goes to the `TurnLog` (the resume journal), so a resumed run
replays those turns instead of asking again, and continues from the first unfinished one.
Not when the target keeps the history itself (``history: server``): the journal cannot give
it back what it kept (an in-process target lost it with the interrupted process), so its
conversation starts again from turn 1, under a new id.
"""

from __future__ import annotations

import dataclasses
import hashlib
import uuid
from collections import deque
from collections.abc import Iterable

from promptum.cases import Grading, TestCase, Turn, role_table
from promptum.checks import TOOL_CHECK_TYPES, CheckDefinition, call_errors_grade
from promptum.foundations.redaction import scrub_model
from promptum.providers import ModelRequest
from promptum.runner._executor import ResultKey
from promptum.runner._grade import grade_async
from promptum.runner._response import Complete, graded, result_of, status_of
from promptum.runner._simulator import (
    Exchange,
    goal_reached,
    simulator_request,
    user_message,
)
from promptum.runner._turn_lines import TurnCall, request_digest
from promptum.runner._unit_context import UnitContext
from promptum.templating import TemplateError, render
from promptum.values.case_result import TURN
from promptum.values.completion import Completion
from promptum.values.grade import Grade
from promptum.values.run_result import CaseResult, Message, TurnResult

TRANSCRIPT_INPUT = (
    "A whole conversation with a user: the answer below is its transcript, every user "
    "message and every reply, in order."
)
"""What a judge prompt sees as ``{{ input }}`` when it grades a conversation's transcript
(its ``{{ response }}``)."""


def conversation_id(run_id: str | None, unit: ResultKey) -> str:
    """The id a target keeps the conversation's state under, unless it keeps the history.

    Stable within a run (a resumed one too, as it keeps its run id), new in every run. A
    target keeping the history itself gets a `new_conversation_id` each time instead.
    """
    if run_id is None:  # a unit run on its own (pytest item, Ray worker): its own run
        return new_conversation_id()
    return hashlib.sha256("\0".join(map(str, (run_id, *unit))).encode()).hexdigest()[:16]


def new_conversation_id() -> str:
    """An id no conversation had: for one whose target keeps the history (a fresh start)."""
    return uuid.uuid4().hex[:16]


class _Calls:
    """The conversation's way to call: replays what an interrupted run asked, else asks.

    Every completion comes back with the run's secrets replaced, before a later turn's
    history, a grade or the journal sees it.
    """

    def __init__(
        self,
        complete: Complete,
        earlier: Iterable[TurnCall],
        secrets: tuple[str, ...],
        journalled: bool,
    ) -> None:
        self._complete = complete
        self._secrets = secrets
        self._journalled = journalled
        """Whether calls are kept for a journal (else none is hashed nor held)."""
        self._earlier: dict[str, deque[Completion]] = {}
        for call in earlier:
            self._earlier.setdefault(call.request, deque()).append(call.completion)
        self.made: list[TurnCall] = []
        """The calls since the last finished turn."""
        self.asked = False
        """Whether one of them was asked, not replayed: only then is the turn journalled."""

    async def __call__(self, request: ModelRequest) -> Completion:
        if not self._journalled:
            return scrub_model(await self._complete(request), self._secrets)
        digest = request_digest(request)
        replayed = self._earlier.get(digest)
        if replayed:
            completion = replayed.popleft()
        else:
            completion = scrub_model(await self._complete(request), self._secrets)
            self.asked = True
        self.made.append(TurnCall(digest, completion))
        return completion

    def taken(self) -> tuple[list[TurnCall], bool]:
        """The calls since the last finished turn, and whether any was asked; then none."""
        made, asked = self.made, self.asked
        self.made, self.asked = [], False
        return made, asked


def _numbered(grades: list[Grade], number: int) -> list[Grade]:
    return [dataclasses.replace(g, details={**g.details, TURN: number}) for g in grades]


def _total(values: Iterable[float | int | None]) -> float | int | None:
    present = [value for value in values if value is not None]
    return sum(present) if present else None


def _summed(completions: list[Completion], last: Completion) -> Completion:
    """`last`, with latency, tokens and cost summed over every turn, and every tool call."""
    return last.model_copy(
        update={
            "latency_ms": _total(c.latency_ms for c in completions),
            "input_tokens": _total(c.input_tokens for c in completions),
            "output_tokens": _total(c.output_tokens for c in completions),
            "cache_read_tokens": _total(c.cache_read_tokens for c in completions),
            "cache_write_tokens": _total(c.cache_write_tokens for c in completions),
            "cost_usd": _total(c.cost_usd for c in completions),
            "cached": all(c.cached for c in completions),
            "tool_calls": tuple(call for c in completions for call in c.tool_calls),
        }
    )


def _not_regraded(
    grades: list[Grade], every: Completion, checks: tuple[CheckDefinition, ...]
) -> list[Grade]:
    """The conversation checks' grades, without the one failing on broken tool calls.

    Every check sees every call (an `expr` or `python` check reading `tool_calls` included),
    but the calls' errors were graded by each turn that made them: without a tool check,
    grading adds that grade again, which would count them twice.
    """
    if any(check.type in TOOL_CHECK_TYPES for check in checks):
        return grades
    again = call_errors_grade(every)
    return grades if again is None else [grade for grade in grades if grade != again]


def _turn_case(case: TestCase, turn: Turn, messages: tuple[Message, ...]) -> TestCase:
    """What one turn is graded as: a single request of these messages.

    Graded as the turn is (`Grading.for_turn`), without what only the whole conversation
    has (`Role.TURN_RESET`).
    """
    own = {"messages": messages, "grading": case.grading.for_turn(turn)}
    return dataclasses.replace(case, **{**dict(role_table(type(case)).turn_reset), **own})


def transcript(exchanges: list[Exchange]) -> str:
    """The conversation as a judge reads it: ``User: ...`` and ``Assistant: ...`` lines."""
    return "\n".join(f"User: {said}\nAssistant: {reply}" for said, reply in exchanges)


class _Conversation:
    """One conversation being run: its history, turns and grades so far."""

    def __init__(
        self,
        complete: Complete,
        case: TestCase,
        request: ModelRequest,
        repeat: int,
        context: UnitContext,
    ) -> None:
        self.case = case
        self.model = request.model
        self.repeat = repeat
        self.unit: ResultKey = (case.key, case.variant, self.model, repeat)
        target = case.target
        self.server_history = (
            target is not None and target.id == self.model and target.history == "server"
        )
        log = context.log
        earlier = log.earlier_calls(self.unit) if log is not None else []
        if self.server_history:
            # The target's own history of the interrupted run is not in the journal (nor,
            # for an in-process target, anywhere): it starts again from turn 1, under an id
            # it never saw, so a service that kept the old turns (or a turn cut off
            # mid-call) does not answer from them. Its calls carry that id, so no earlier
            # one is replayed; a judge's or simulated user's, the very request asked
            # again, still is.
            conversation = new_conversation_id()
            if earlier and context.on_restart is not None:
                context.on_restart()
        else:
            conversation = conversation_id(context.run_id, self.unit)
        self.calls = _Calls(complete, earlier, context.secrets, journalled=log is not None)
        self.log = log
        self.request = request.model_copy(update={"conversation_id": conversation})
        self.grade_timeout_s = context.grade_timeout_s
        self.on_abandon = context.on_abandon
        self.history: list[Message] = list(case.messages)
        self.exchanges: list[Exchange] = []
        self.turns: list[TurnResult] = []
        self.grades: list[Grade] = []
        self.error: str | None = None

    def _journal(self, number: int) -> None:
        made, asked = self.calls.taken()
        if self.log is not None and made and asked:
            self.log.add_turn(self.unit, number, made)

    def fail(self, number: int, query: str, completion: Completion, prefix: str = "") -> None:
        """End the conversation at turn `number`, which could not get a reply."""
        completion = completion.model_copy(update={"error": f"{prefix}{completion.error}"})
        self.turns.append(TurnResult(query=query, completion=completion, status="error"))
        self.error = f"turn {number}: {completion.error}"
        self._journal(number)

    def query(self, number: int, turn: Turn) -> str | None:
        """The turn's message, rendered with the earlier turns when it reads them."""
        if not turn.reads_turns:
            return turn.query
        earlier = [{"query": said, "reply": reply} for said, reply in self.exchanges]
        try:
            return render(turn.query, {**self.case.vars, "turns": earlier})
        except TemplateError as exc:
            error = Completion(model=self.model, error=f"its query template: {exc}")
            self.fail(number, turn.query, error)
            return None

    async def turn(self, number: int, turn: Turn, query: str) -> Completion | None:
        """Send one user message, grade the reply; None when the turn failed."""
        user = Message(role="user", content=query, parts=turn.parts or None)
        if self.server_history:  # the target keeps the rest; the opening goes with turn 1
            sent = (*self.case.messages, user) if number == 1 else (user,)
        else:
            sent = (*self.history, user)
        completion = await self.calls(self.request.model_copy(update={"messages": sent}))
        if not completion.ok:
            self.fail(number, query, completion)
            return None
        view = _turn_case(self.case, turn, (*self.history, user))
        completion, grades = await self._graded(view, completion)
        if not completion.ok:  # grading failed
            self.fail(number, query, completion)
            return None
        grades = _numbered(grades, number)
        self.grades += grades
        self.turns.append(
            TurnResult(query=query, completion=completion, status=status_of(completion, grades))
        )
        # The reply's text only: its tool calls are kept in its turn (tool checks read them),
        # but promptum runs no tool, and a call without its result is refused by chat APIs
        # (OpenAI's: every tool_call_id must be answered by a tool message).
        self.history += [user, Message(role="assistant", content=completion.text)]
        self.exchanges.append((query, completion.text))
        self._journal(number)
        return completion

    async def scripted(self) -> None:
        """Every scripted turn in order, until one fails."""
        for number, turn in enumerate(self.case.turns, start=1):
            query = self.query(number, turn)
            if query is None or await self.turn(number, turn, query) is None:
                return

    async def simulated(self) -> None:
        """Turns written by the simulated user, until max_turns, a stop, its goal or an error."""
        simulation = self.case.simulate
        assert simulation is not None  # a simulated conversation
        for number in range(1, simulation.max_turns + 1):
            if number == 1 and simulation.opening is not None:
                query = simulation.opening
            else:
                request = simulator_request(simulation, self.case, self.exchanges, self.repeat)
                said = await self.calls(request)
                if not said.ok:
                    self.fail(number, "", said, "the simulated user: ")
                    return
                if goal_reached(said.text, self.exchanges):
                    self._journal(number)
                    return
                query = user_message(said.text)
            reply = await self.turn(number, Turn(query=query), query)
            if reply is None or await self._stops(reply):
                return

    async def _stops(self, reply: Completion) -> bool:
        """Whether the reply passes every `stop` check (none: the conversation goes on)."""
        simulation = self.case.simulate
        if simulation is None or not simulation.stop:
            return False
        case = self.case
        stop = Grading(checks=simulation.stop)
        checks = TestCase(id=case.id, messages=(), grading=stop, vars=case.vars)
        try:
            grades = await grade_async(
                checks,
                reply,
                model=self.model,
                repeat=self.repeat - 1,
                timeout_s=self.grade_timeout_s,
                on_abandon=self.on_abandon,
            )
        except Exception:  # a stop check that cannot decide does not end the conversation
            return False
        return all(grade.passed for grade in grades)

    async def conversation_grades(self) -> list[Grade]:
        """The checks over every reply, then the judge on the transcript."""
        case = self.case
        grades: list[Grade] = []
        replies = [turn.completion for turn in self.turns]
        # Every field of the case scripting the conversation, or shaping one reply, back to
        # its default; the grading is the conversation's own (`Grading.for_replies` and
        # `for_transcript`).
        bare = dataclasses.replace(case, **dict(role_table(type(case)).conversation_reset))
        over_replies = case.grading.for_replies()
        if over_replies.checks:
            every = _summed(replies, Completion(model=self.model)).model_copy(
                update={"text": "\n\n".join(reply.text for reply in replies), "cached": False}
            )
            checked = dataclasses.replace(bare, grading=over_replies)
            _, found = await self._graded(checked, every)
            grades += _not_regraded(found, every, over_replies.checks)
        if case.grading.judge is not None:
            judged = dataclasses.replace(
                bare,
                messages=(Message(role="user", content=TRANSCRIPT_INPUT),),
                grading=case.grading.for_transcript(),
            )
            said = Completion(text=transcript(self.exchanges), model=self.model)
            grades += (await self._graded(judged, said))[1]
        return grades

    async def _graded(
        self, case: TestCase, completion: Completion
    ) -> tuple[Completion, list[Grade]]:
        return await graded(
            case,
            completion,
            self.model,
            self.repeat,
            self.calls,
            grade_timeout_s=self.grade_timeout_s,
            on_abandon=self.on_abandon,
        )

    def result(self) -> CaseResult:
        """The conversation's result once it ended."""
        case = self.case
        replies = [turn.completion for turn in self.turns]
        if not replies:
            error = "the simulated user ended the conversation before its first message"
            last = Completion(model=self.model, error=error)
        else:
            last = _summed(replies, replies[-1])
        if self.error is not None:
            last = last.model_copy(update={"error": self.error})
        # Ungraded only when no turn and nothing over the conversation graded it.
        return result_of(case, self.model, self.repeat, last, self.grades, self.turns)


async def run_conversation(
    complete: Complete,
    case: TestCase,
    request: ModelRequest,
    repeat: int,
    context: UnitContext,
) -> CaseResult:
    """One conversation of `case` on `request.model` (the request of its opening), graded.

    A call that fails ends it as an error naming its turn, the turns before kept, with no
    conversation grades; the context's `log` keeps each finished turn and gives back those an
    interrupted run finished; its `run_id` makes the conversation's id (`conversation_id`). A
    target keeping the history itself gets a new id and every turn again: `on_restart` hears
    of it when an interrupted run had finished some of those turns.
    """
    conversation = _Conversation(complete, case, request, repeat, context)
    if case.simulate is not None:
        await conversation.simulated()
    else:
        await conversation.scripted()
    if conversation.error is None and conversation.turns:
        conversation.grades += await conversation.conversation_grades()
        conversation.calls.taken()  # the transcript's judge: asked again on a resume
    return conversation.result()
