"""The LLM judge: grade a response against the case's expected behaviour, as structured output."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from promptum.completion import Completion
from promptum.providers import ModelRequest
from promptum.results import JudgeVerdict, Message
from promptum.runner._case import JudgeConfig, TestCase
from promptum.runner._template import TemplateError, render

JUDGE_PROMPT = """\
You are grading an AI assistant's response.

The assistant was asked:
{{ input }}

The assistant answered:
{{ response }}

A good answer: {{ expected_behavior }}

Give a score from 0 (the answer does not do this at all) to 10 (it does exactly this), \
then one short sentence saying why."""
"""The default rubric; `judge.prompt` in a suite replaces it (same three variables)."""

_SCORES = list(range(11))

VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        # The score comes first: a reason cut off by the token limit cannot lose it.
        "score": {"type": "integer", "enum": _SCORES},
        "reason": {"type": "string", "maxLength": 160},
    },
    "required": ["score", "reason"],
    "additionalProperties": False,
}
"""What the judge must return; constrained decoding makes even a tiny model comply."""

JUDGE_MAX_TOKENS = 96

Complete = Callable[[ModelRequest], Awaitable[Completion]]


JUDGE_VARIABLES = ("input", "response", "expected_behavior")
"""The variables a judge prompt template sees."""


def _conversation(case: TestCase) -> str:
    turns = [m for m in case.messages if m.role != "system"]
    if len(turns) == 1:
        return turns[0].content
    return "\n".join(f"{m.role}: {m.content}" for m in turns)


def judge_request(config: JudgeConfig, case: TestCase, response: str) -> ModelRequest:
    """The call that grades `response`: rubric prompt, temperature 0, verdict schema."""
    prompt = render(
        config.prompt or JUDGE_PROMPT,
        {
            "input": _conversation(case),
            "response": response,
            "expected_behavior": case.expected_behavior or "",
        },
    )
    return ModelRequest(
        model=config.model,
        messages=(Message(role="user", content=prompt),),
        temperature=0.0,
        max_tokens=JUDGE_MAX_TOKENS,
        response_schema=VERDICT_SCHEMA,
    )


def _verdict(config: JudgeConfig, completion: Completion) -> JudgeVerdict:
    failed = JudgeVerdict(model=config.model, threshold=config.threshold)
    if completion.error is not None:
        return failed.model_copy(update={"error": completion.error})
    output = completion.output or {}
    score = output.get("score")
    if not isinstance(score, int) or isinstance(score, bool) or score not in _SCORES:
        return failed.model_copy(
            update={"error": f"the judge returned no score from 0 to 10: {completion.text!r}"}
        )
    fraction = score / 10
    return JudgeVerdict(
        model=config.model,
        score=fraction,
        passed=fraction >= config.threshold,
        reason=str(output.get("reason", "")).strip(),
        threshold=config.threshold,
    )


async def judge_response(
    config: JudgeConfig, case: TestCase, response: str, complete: Complete
) -> JudgeVerdict:
    """Grade one response; a failed judge call is recorded in the verdict, never raised."""
    try:
        request = judge_request(config, case, response)
        completion = await complete(request)
    except TemplateError as exc:
        return JudgeVerdict(model=config.model, threshold=config.threshold, error=str(exc))
    except Exception as exc:  # a client that raises costs the verdict, not the checks
        error = f"the judge call raised {type(exc).__name__}: {exc}"
        return JudgeVerdict(model=config.model, threshold=config.threshold, error=error)
    return _verdict(config, completion)
