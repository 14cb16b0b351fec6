"""The batch phase of a run (`run --batch`): its models' calls answered by batches, first.

Before the ordinary run, the calls of the batched models' units still to run go to the
providers' batch APIs (`promptum.providers.BatchPhase`); each batch's id is journalled as
soon as it exists, so a resumed run polls it again instead of submitting the calls twice.
Calls that quote an answer go in later rounds, each once the round before is read: the
judge's calls on the answers in the second, a conversation's turn k+1 (and the judge's
calls on turn k) in the round after turn k's. They are found by running each
conversation against the answers so far (`_next_calls`): the calls it then makes are
exactly those the run will make. A call on a model that is not batched ends that
conversation's rounds; the run makes it live. The ordinary run then makes the same calls
and the client answers them from the batches: grading, reports and the store are those
of any run.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

# Its names are read when a run asks for batches: the batch APIs are not loaded otherwise.
import promptum.providers as providers
from promptum.cases import TestCase, judged_criteria
from promptum.foundations.redaction import scrub_model
from promptum.runner._conversation import run_conversation
from promptum.runner._journal import Journal
from promptum.runner._judge import judge_request
from promptum.runner._unit_context import UnitContext
from promptum.templating import TemplateError
from promptum.values.completion import Completion

if TYPE_CHECKING:
    from promptum.providers import BatchPhase, BatchRecord, ModelRequest

Call = tuple[TestCase, "ModelRequest", int]
"""A call of the run's units on batched models: its case, its request (the opening of a
conversation) and its repeat."""
Calls = Callable[[], Iterable[Call]]
"""The run's batched calls, afresh on each call (they are read once per round)."""

ANSWERS, JUDGING = 1, 2
"""The first rounds of a run's batches: the answers, then the judge's calls quoting them.
A conversation's later turns go in the rounds after, one round per turn."""

LATER = "asked in a later batch"
"""What `_next_calls` answers a call not answered yet: the conversation stops there."""


def batched(client: object, models: Sequence[str], *, executor: bool) -> list[str]:
    """The models whose calls go through batches; `ConfigError` for one that cannot."""
    return providers.batched_models(client, models, executor=executor)


def _earlier(journal: Journal | None) -> list[BatchRecord]:
    """The batches an interrupted run submitted, from its journal."""
    if journal is None:
        return []
    records = (providers.BatchRecord.from_json(data) for data in journal.earlier_batches())
    return [record for record in records if record is not None]


async def answer_in_batches(
    client: object,
    calls: Calls,
    journal: Journal | None,
    stopping: asyncio.Event,
    show: Callable[[Callable[[], str | None]], None],
    context: UnitContext,
) -> list[str]:
    """Answer `calls`, then the calls that quote their answers, in rounds of batches.

    Returns the run's warnings. `show` is handed the phase's progress line (each batch's id
    and counts) at each look at a batch. `context` is the run's (`secrets` scrubbed from an
    answer before a judge quotes it, the `run_id` a conversation's id is made from), as
    grading will see it. Returns early, the batches left running on the provider's side,
    when `stopping` is set.
    """
    assert isinstance(client, providers.ModelClient)  # `batched` chose no model otherwise
    record = (lambda batch: journal.add_batch(batch.as_json())) if journal else _unrecorded
    phase = providers.BatchPhase(client, record, stopping, polled=lambda: show(lambda: phase.line))
    earlier = _earlier(journal)
    for number in itertools.count(ANSWERS):
        # A conversation's next calls, found by running it on the answers so far.
        asked: Iterable[ModelRequest] = await _next_calls(phase, calls(), context)
        if number == ANSWERS:
            asked = itertools.chain(_answers(calls()), asked)
        elif number == JUDGING:
            asked = itertools.chain(_judge_calls(phase, calls(), context.secrets), asked)
        new = await phase.answer(asked, earlier, number)
        if stopping.is_set() or (number > ANSWERS and not new):
            break
    return phase.warnings


def _answers(calls: Iterable[Call]) -> Iterator[ModelRequest]:
    """The calls of the units that are one call each (not conversations)."""
    return (request for case, request, _ in calls if not case.is_conversation)


def _judge_calls(
    phase: BatchPhase, calls: Iterable[Call], secrets: tuple[str, ...]
) -> Iterator[ModelRequest]:
    """The judge's calls on each answer of the first round, as grading will make them."""
    for case, request, _ in calls:
        judge = case.grading.judge
        if case.is_conversation or judge is None or not phase.batchable(judge.model):
            continue
        answer = phase.answered(request)
        if answer is None or not answer.ok:  # not answered, or failed: nothing to judge
            continue
        response = scrub_model(answer, secrets).text
        for criterion in judged_criteria(judge, case.grading.expected_behavior):
            for sample in range(judge.samples):
                try:
                    yield judge_request(judge, case, response, criterion, sample)
                except TemplateError:  # grading records the error; nothing to send
                    continue


async def _next_calls(
    phase: BatchPhase, calls: Iterable[Call], context: UnitContext
) -> list[ModelRequest]:
    """The calls each conversation makes next, run on the answers the batches gave so far.

    Every call already answered is answered so; the first that is not ends the turn (a
    judge's, only its verdict), as a failed call would: the calls found are exactly those
    the run will make next, once these are answered. Its grading runs each round too (its
    grades are not kept): the checks of a conversation run once per round of its batches.
    """
    found: list[ModelRequest] = []

    async def complete(request: ModelRequest) -> Completion:
        answer = phase.answered(request)
        if answer is not None:
            return answer
        if phase.batchable(request.model) and not phase.asked(request):
            found.append(request)
        # Else a call of a model not batched, or one a batch failed: the run makes it live.
        return Completion(model=request.model, error=LATER)

    probe = UnitContext(context.secrets, context.grade_timeout_s, run_id=context.run_id)
    for case, request, repeat in calls:
        if case.is_conversation:
            await run_conversation(complete, case, request, repeat, probe)
    return found


def _unrecorded(batch: BatchRecord) -> None:
    """A run without a journal (the Python API's default) keeps no batch for a resume."""
