"""What a case's judge grades: its prompts by name, the variables they see, its criteria.

The rules both loading (which settings make sense, what a case lacks) and the run (what it
asks the judge) read, so they are said once, beside `JudgeConfig`. The judge itself, its
requests and verdicts, is the runner's (`promptum.runner`).
"""

from __future__ import annotations

import re

from promptum.cases._parts import Criterion, JudgeConfig
from promptum.templating import names_read

JUDGE_PROMPT = """\
You are grading an AI assistant's response.

The assistant was asked:
{{ input }}

The assistant answered:
{{ response }}

A good answer: {{ rubric }}

Give a score from 0 (the answer does not do this at all) to 10 (it does exactly this), \
then one short sentence saying why."""
"""The default judge prompt (``default``): `rubric` is the criterion graded, for the criterion
``judge`` the case's `expected_behavior`. `judge.prompt` in a suite replaces it."""

FAITHFULNESS_PROMPT = """\
You are checking whether an AI assistant's answer is faithful to the context it was given.

The context:
{{ context }}

The assistant was asked:
{{ input }}

The assistant answered:
{{ response }}

A faithful answer makes only claims that the context supports: every fact it states is \
in the context or follows from it, and it contradicts nothing there.

Give a score from 0 (it states things the context does not support) to 10 (every claim in \
it is supported by the context), then one short sentence saying why."""
"""The built-in ``faithfulness`` prompt: is every claim in the response supported by the
case's `context`? It needs no rubric, so it grades every case it applies to."""

BUILTIN_PROMPTS: dict[str, str] = {"default": JUDGE_PROMPT, "faithfulness": FAITHFULNESS_PROMPT}
"""Judge prompts chosen by name (`judge.prompt: faithfulness`)."""

_PROMPT_NAME = re.compile(r"[A-Za-z_][\w-]*")


JUDGE_VARIABLES = ("input", "response", "expected_behavior", "rubric", "context")
"""The variables a judge prompt template sees: `rubric` is the criterion being graded (for
``judge``, the `expected_behavior`), `context` the case's documents (only when it has some)."""

DEFAULT_CRITERION = "judge"
"""The name of the criterion a case's `expected_behavior` is."""


def is_prompt_name(prompt: str) -> bool:
    """Whether `prompt` is written as a built-in prompt's name rather than as a template."""
    return _PROMPT_NAME.fullmatch(prompt) is not None


def judge_template(prompt: str | None) -> str:
    """The template of a judge prompt: the default, a built-in by name, or the prompt itself."""
    if prompt is None:
        return JUDGE_PROMPT
    return BUILTIN_PROMPTS.get(prompt, prompt)


def prompt_uses(prompt: str | None, variable: str) -> bool:
    """Whether the judge prompt (a built-in's name or a template) uses `variable`."""
    return variable in names_read(judge_template(prompt))


def needs_rubric(prompt: str | None) -> bool:
    """Whether a judge prompt grades against a rubric (faithfulness, for one, does not)."""
    return prompt_uses(prompt, "rubric") or prompt_uses(prompt, "expected_behavior")


def judged_criteria(config: JudgeConfig, expected_behavior: str | None) -> tuple[Criterion, ...]:
    """The criteria the judge grades on a case, in order: ``judge`` when it applies, then its own.

    ``judge`` is the case's `expected_behavior`, graded when the case has one, or on every
    case when the judge's prompt needs no rubric (faithfulness).
    """
    default: tuple[Criterion, ...] = ()
    if expected_behavior or not needs_rubric(config.prompt):
        default = (Criterion(DEFAULT_CRITERION, expected_behavior or ""),)
    return default + config.criteria


def join_context(documents: tuple[str, ...] | None) -> str | None:
    """A case's context as one text: its documents, a blank line between each."""
    return None if documents is None else "\n\n".join(documents)


def missing_context(config: JudgeConfig, expected_behavior: str | None) -> list[str]:
    """The criteria graded on a case without context whose prompt uses ``{{ context }}``."""
    return [
        c.name
        for c in judged_criteria(config, expected_behavior)
        if prompt_uses(c.prompt or config.prompt, "context")
    ]
