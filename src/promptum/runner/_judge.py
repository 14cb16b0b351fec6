"""The LLM judge: grade a response on each criterion, as structured output, one grade each.

The case's `expected_behavior` is the criterion named ``judge``; a judge's `criteria` add
named ones. Each criterion is asked `samples` times; its grade's score is the mean.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from promptum.cases import (
    BUILTIN_PROMPTS,
    DEFAULT_CRITERION,
    Criterion,
    JudgeConfig,
    TestCase,
    join_context,
    judge_template,
    judged_criteria,
    prompt_uses,
)
from promptum.providers import ModelRequest, extract_json_object
from promptum.templating import TemplateError, render
from promptum.values.case_result import Message
from promptum.values.completion import Completion
from promptum.values.content import ContentPart
from promptum.values.documented_views import JudgeVerdict, judge_grade
from promptum.values.grade import Grade
from promptum.values.metrics import METRIC

_SCORES = list(range(11))

REASON_MAX_CHARS = 160
"""The longest reason a judge may give."""
# Printable ASCII without '"' and '\\': llama.cpp's `maxLength` counts characters, yet one
# character may take several tokens (an emoji 3-4, a \uXXXX escape up to 6) and raw newlines
# make the JSON invalid; with this set every token is at least one character, so the
# reason's length in tokens is bounded too. Measured on SmolLM2 with `maxLength` alone, 3 of
# 19 varied responses got no verdict (raw newlines; emoji ran out of tokens).
_REASON_PATTERN = rf"^[ !#-\[\]-~]{{0,{REASON_MAX_CHARS}}}$"

VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        # The score comes first: a reason cut off by the token limit cannot lose it.
        "score": {"type": "integer", "enum": _SCORES},
        "reason": {"type": "string", "maxLength": REASON_MAX_CHARS, "pattern": _REASON_PATTERN},
    },
    "required": ["score", "reason"],
    "additionalProperties": False,
}
"""What the judge must return; constrained decoding makes even a tiny model comply."""

VERDICT_FRAME_CHARS = len('{ "score" : 10, "reason" : "" } ')
"""The longest verdict around its reason: keys, score, and every space the grammar allows."""
JUDGE_MAX_TOKENS = VERDICT_FRAME_CHARS + REASON_MAX_CHARS
"""Enough for the longest verdict even at one character per token, so it always closes."""

Complete = Callable[[ModelRequest], Awaitable[Completion]]


TEXT_ONLY_JUDGE = "local/"
"""The embedded model's prefix: a judge there reads text only and is sent no part."""
NO_AUDIO_JUDGE = "anthropic/"
"""Anthropic's prefix: a judge there is sent a case's images and documents, not its audio."""
JUDGED_FROM = "judged_from"
"""The grade detail of what a judge of a case with parts saw: ``text only: 1 image not shown``."""
_NOUNS = {"image": "image", "document": "document", "audio": "audio clip"}


def judge_parts(model: str, case: TestCase) -> tuple[list[ContentPart], list[ContentPart]]:
    """The parts of the case's user messages a judge on `model` is sent, and those it is not."""
    parts = [part for m in case.messages if m.role == "user" for part in m.parts or ()]
    if model.startswith(TEXT_ONLY_JUDGE):
        return [], parts
    if model.startswith(NO_AUDIO_JUDGE):
        return [p for p in parts if p.type != "audio"], [p for p in parts if p.type == "audio"]
    return parts, []


def _counted(parts: list[ContentPart]) -> str:
    """``1 image, 2 documents``: how many parts of each kind, in the order they come."""
    kinds = Counter(part.type for part in parts)
    return ", ".join(f"{n} {_NOUNS[kind]}{'s' if n > 1 else ''}" for kind, n in kinds.items())


def judged_from(model: str, case: TestCase) -> str | None:
    """What a judge on `model` sees of a case with parts (None for a case of text alone)."""
    shown, unshown = judge_parts(model, case)
    seen = f"text and {_counted(shown)}" if shown else "text only"
    if not shown and not unshown:
        return None
    return f"{seen}: {_counted(unshown)} not shown" if unshown else seen


def _conversation(case: TestCase) -> str:
    turns = [m for m in case.messages if m.role != "system"]
    if len(turns) == 1:
        return turns[0].content
    return "\n".join(f"{m.role}: {m.content}" for m in turns)


def judge_request(
    config: JudgeConfig,
    case: TestCase,
    response: str,
    criterion: Criterion | None = None,
    sample: int = 0,
) -> ModelRequest:
    """One call grading `response` on a criterion (default: ``judge``), under the verdict schema.

    `sample` keeps the cache from answering every sample of a criterion with the first.
    """
    if criterion is None:
        criterion = Criterion(DEFAULT_CRITERION, case.grading.expected_behavior or "")
    prompt = criterion.prompt or config.prompt
    variables = {
        "input": _conversation(case),
        "response": response,
        "expected_behavior": case.grading.expected_behavior or "",
        "rubric": criterion.rubric,
    }
    context = join_context(case.context)
    if context is not None:
        variables["context"] = context
    elif prompt_uses(prompt, "context"):
        raise TemplateError(
            f"the judge prompt of criterion {criterion.name!r} uses {{{{ context }}}}, but "
            f"case {case.id!r} has no context: give it `context`"
        )
    text = render(judge_template(prompt), variables)
    shown, _ = judge_parts(config.model, case)
    if shown:  # what the assistant was given besides the text follows the prompt
        text += f"\n\nAttached: what the assistant was given besides its text ({_counted(shown)})."
    return ModelRequest(
        model=config.model,
        messages=(Message(role="user", content=text, parts=tuple(shown) or None),),
        temperature=config.sampling_temperature,
        max_tokens=JUDGE_MAX_TOKENS,
        response_schema=VERDICT_SCHEMA,
        sample=sample,
    )


def _threshold(config: JudgeConfig, criterion: Criterion) -> float:
    return config.threshold if criterion.threshold is None else criterion.threshold


def _verdict(config: JudgeConfig, completion: Completion, threshold: float) -> JudgeVerdict:
    failed = JudgeVerdict(model=config.model, threshold=threshold)
    if completion.error is not None:
        return failed.model_copy(update={"error": completion.error})
    output = completion.output
    if output is None:
        # Only a grammar (the embedded model, llama.cpp servers) holds a judge to the schema;
        # a remote judge whose reason quotes the answer ('"', 'é') still gave its score.
        output = extract_json_object(completion.text) or {}
    score = output.get("score")
    if not isinstance(score, int) or isinstance(score, bool) or score not in _SCORES:
        return failed.model_copy(
            update={"error": f"the judge returned no score from 0 to 10: {completion.text!r}"}
        )
    fraction = score / 10
    return JudgeVerdict(
        model=config.model,
        score=fraction,
        passed=fraction >= threshold,
        reason=str(output.get("reason", "")).strip(),
        threshold=threshold,
    )


async def _ask(
    config: JudgeConfig,
    case: TestCase,
    response: str,
    criterion: Criterion,
    sample: int,
    complete: Complete,
) -> JudgeVerdict:
    """One sample of one criterion; a failed call is recorded in the verdict, never raised."""
    threshold = _threshold(config, criterion)
    try:
        request = judge_request(config, case, response, criterion, sample)
        completion = await complete(request)
    except TemplateError as exc:
        return JudgeVerdict(model=config.model, threshold=threshold, error=str(exc))
    except Exception as exc:  # a client that raises costs the verdict, not the checks
        error = f"the judge call raised {type(exc).__name__}: {exc}"
        return JudgeVerdict(model=config.model, threshold=threshold, error=error)
    return _verdict(config, completion, threshold)


async def judge_response(
    config: JudgeConfig, case: TestCase, response: str, complete: Complete
) -> JudgeVerdict:
    """Grade one response against its `expected_behavior` once (the criterion ``judge``)."""
    criterion = Criterion(DEFAULT_CRITERION, case.grading.expected_behavior or "")
    return await _ask(config, case, response, criterion, 0, complete)


def _details(config: JudgeConfig, criterion: Criterion) -> dict[str, Any]:
    """What a grade records of its criterion besides the verdict's model and threshold."""
    details: dict[str, Any] = {}
    if criterion.name != DEFAULT_CRITERION and criterion.rubric:
        details["rubric"] = criterion.rubric
    prompt = criterion.prompt or config.prompt
    if prompt in BUILTIN_PROMPTS and prompt != "default":
        details["prompt"] = prompt
    if criterion.metric is not None:
        details[METRIC] = criterion.metric
    return details


def _sampled_grade(
    config: JudgeConfig, criterion: Criterion, verdicts: list[JudgeVerdict]
) -> Grade:
    """Several samples of one criterion as one grade: the mean score, spread and agreement."""
    threshold = _threshold(config, criterion)
    count = len(verdicts)
    # Whole points out of 10, summed before dividing: 0.6 and 0.8 average to exactly 0.7.
    points = [round(v.score * 10) for v in verdicts if v.score is not None]
    scores = [p / 10 for p in points]
    details = _sample_details(config, criterion, verdicts, scores)
    description = f"judged by {config.model}, threshold {threshold}, mean of {count} samples"
    errors = [v.error for v in verdicts if v.error is not None]
    if errors:
        error = f"{len(errors)} of {count} samples failed: {errors[0]}"
        return Grade("judge", criterion.name, False, None, None, description, error, details)
    mean = sum(points) / (10 * count)
    passing = sum(score >= threshold for score in scores)
    details["stdev"] = round(statistics.pstdev(scores), 4)
    details["agreement"] = round(max(passing, count - passing) / count, 4)
    passed = mean >= threshold
    reason = _explaining(verdicts, passed)
    return Grade("judge", criterion.name, passed, mean, reason or None, description, None, details)


def _sample_details(
    config: JudgeConfig, criterion: Criterion, verdicts: list[JudgeVerdict], scores: list[float]
) -> dict[str, Any]:
    """The details of a sampled grade: its judge, threshold, samples, scores and reasons."""
    return {
        "model": config.model,
        "threshold": _threshold(config, criterion),
        "samples": len(verdicts),
        "temperature": config.sampling_temperature,
        "scores": scores,
        "reasons": [v.reason for v in verdicts if v.error is None],
        **_details(config, criterion),
    }


def _explaining(verdicts: list[JudgeVerdict], passed: bool) -> str:
    """The reason of the first sample that reached the grade's verdict: it explains it best."""
    return next((v.reason for v in verdicts if v.passed == passed), verdicts[0].reason)


async def judge_criterion(
    config: JudgeConfig, case: TestCase, response: str, criterion: Criterion, complete: Complete
) -> Grade:
    """The grade of one criterion: `config.samples` verdicts, each its own sample of the judge."""
    # One after another: scripted servers and rate limits see a stable order, and cases
    # already run side by side.
    verdicts = [
        await _ask(config, case, response, criterion, sample, complete)
        for sample in range(config.samples)
    ]
    if config.samples == 1:
        grade = judge_grade(verdicts[0], criterion.name, _details(config, criterion))
    else:
        grade = _sampled_grade(config, criterion, verdicts)
    seen = judged_from(config.model, case)
    return grade if seen is None else replace(grade, details={**grade.details, JUDGED_FROM: seen})


async def judge_grades(
    config: JudgeConfig, case: TestCase, response: str, complete: Complete
) -> list[Grade]:
    """One grade per criterion judged on `case` (none when nothing applies)."""
    return [
        await judge_criterion(config, case, response, criterion, complete)
        for criterion in judged_criteria(config, case.grading.expected_behavior)
    ]
