"""The judge stage of building a case, and what is wrong with a judge's settings."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal

from promptum.cases import (
    BUILTIN_PROMPTS,
    JUDGE_VARIABLES,
    Criterion,
    JudgeConfig,
    is_prompt_name,
    judged_criteria,
    missing_context,
    prompt_uses,
)
from promptum.foundations.suggestions import did_you_mean
from promptum.providers import DEFAULT_MODEL
from promptum.suites._build_render import CaseScope, Problems
from promptum.suites._format import CaseFields, JudgeSpec
from promptum.suites._locate import Loc
from promptum.templating import TemplateError, render

JudgeProblem = tuple[Loc, str]
"""A problem of a judge's settings, located within its `judge` section."""


def merged_judge(spec: JudgeSpec, base: JudgeConfig | None) -> JudgeConfig:
    """The keys `spec` sets, over `base` (the default judge when there is none)."""
    if base is None:
        base = JudgeConfig(model=DEFAULT_MODEL)
    given = spec.model_fields_set
    changes: dict[str, Any] = {
        key: getattr(spec, key)
        for key in ("threshold", "prompt", "samples", "temperature")
        if key in given
    }
    if spec.model is not None:
        changes["model"] = spec.model
    if "criteria" in given:
        changes["criteria"] = tuple(
            Criterion(name, c.rubric or "", c.threshold, c.prompt, c.metric)
            for name, c in (spec.criteria or {}).items()
        )
    return replace(base, **changes)


def _prompt_problems(prompt: str | None, loc: Loc) -> list[JudgeProblem]:
    """What is wrong with a judge prompt: a built-in's name mistyped, a template that fails."""
    if prompt is None or prompt in BUILTIN_PROMPTS:
        return []
    if is_prompt_name(prompt):
        hint = did_you_mean(prompt, list(BUILTIN_PROMPTS))
        return [
            (
                loc,
                f"unknown built-in judge prompt {prompt!r}.{hint} Built-in prompts: "
                f"{', '.join(BUILTIN_PROMPTS)}; or write a Jinja template that uses "
                "{{ response }}",
            )
        ]
    try:
        render(prompt, dict.fromkeys(JUDGE_VARIABLES, ""))
    except TemplateError as exc:
        import jinja2

        cause = exc.__cause__
        message = str(exc)
        if isinstance(cause, jinja2.UndefinedError):
            message = (
                f"template variable error: {cause.message}; a judge prompt sees "
                f"{', '.join(JUDGE_VARIABLES)}"
            )
        return [(loc, message)]
    return []


def _unshown_rubric(prompt: str | None, own: bool) -> str:
    """Why a criterion's rubric would never reach the judge, and what to do."""
    whose = "its own prompt" if own else "the judge's prompt"
    if prompt in BUILTIN_PROMPTS:
        return (
            f"{whose}, {prompt!r}, shows no rubric (it grades against the context): drop "
            "the rubric, or give this criterion `prompt: default`"
        )
    also = (
        " ({{ expected_behavior }} is the case's expected_behavior, the same for every criterion)"
        if prompt_uses(prompt, "expected_behavior")
        else ""
    )
    return (
        f"{whose} does not use {{{{ rubric }}}}, so this criterion's rubric never reaches "
        f"the judge: write {{{{ rubric }}}} where the criterion belongs{also}"
    )


def judge_problems(config: JudgeConfig) -> list[JudgeProblem]:
    """What is wrong with a judge's settings: unknown prompts, rubrics no prompt shows."""
    problems = _prompt_problems(config.prompt, ("prompt",))
    for criterion in config.criteria:
        loc: Loc = ("criteria", criterion.name)
        problems += _prompt_problems(criterion.prompt, (*loc, "prompt"))
        prompt = criterion.prompt or config.prompt
        uses_rubric = prompt_uses(prompt, "rubric")
        if uses_rubric and not criterion.rubric:
            problems.append(
                (
                    loc,
                    "this criterion needs a rubric, what a good response does: the judge "
                    "prompt grades against {{ rubric }} (write the criterion as its rubric, "
                    "or give `rubric:`)",
                )
            )
        elif not uses_rubric and criterion.rubric:
            problems.append((loc, _unshown_rubric(prompt, criterion.prompt is not None)))
    return problems


def criteria_problems(
    judge: JudgeConfig | None, criteria: tuple[Criterion, ...]
) -> list[JudgeProblem]:
    """What is wrong with a turn's (or conversation's) criteria under the case's judge."""
    if judge is None:
        return []
    found = judge_problems(replace(judge, criteria=criteria))
    return [(loc, text) for loc, text in found if loc[:1] == ("criteria",)]


def context_problem(
    config: JudgeConfig,
    expected_behavior: str | None,
    fix: str = "`context:`, or `defaults.context` for every case",
) -> str | None:
    """Why a case without context cannot be judged as configured, or None."""
    names = missing_context(config, expected_behavior)
    if not names:
        return None
    prompts = {
        c.name: c.prompt or config.prompt for c in judged_criteria(config, expected_behavior)
    }
    shown = ", ".join(f"{name!r} (prompt: {_prompt_label(prompts[name])})" for name in names)
    which = "criterion" if len(names) == 1 else "criteria"
    return (
        f"the judge prompt of {which} {shown} uses {{{{ context }}}}, but the case has no "
        f"`context`: give it the documents the response should rest on ({fix})"
    )


def _prompt_label(prompt: str | None) -> str:
    if prompt is None:
        return "default"
    return prompt if prompt in BUILTIN_PROMPTS else "a template"


def case_judge(
    case: CaseFields,
    suite: JudgeConfig | None,
    scope: CaseScope,
    expected_behavior: str | None,
    grounded: bool,
) -> tuple[JudgeConfig | None, Problems]:
    """The suite's judge with the case's own keys over it, rubrics rendered with its vars.

    `grounded`: whether the case gives documents, which a prompt reading them needs.
    """
    found: Problems = []
    judge = _merged(case.judge, suite, found)
    if judge is None:
        return None, found
    if judge.criteria:
        rendered = scope.renderer(found)
        criteria = tuple(
            replace(c, rubric=rendered(c.rubric, ("judge", "criteria", c.name)))
            for c in judge.criteria
        )
        judge = replace(judge, criteria=criteria)
    if not grounded:
        missing = context_problem(judge, expected_behavior)
        if missing is not None:
            found.append((("context",), missing))
    return judge, found


def _merged(
    spec: JudgeSpec | Literal[False] | None, suite: JudgeConfig | None, found: Problems
) -> JudgeConfig | None:
    """The case's judge before rendering: none, the suite's, or the case's keys over it."""
    if spec is False:
        return None
    if spec is None:
        return suite
    config = merged_judge(spec, suite)
    # The suite's own mistakes are reported once, at the suite's `judge`.
    known = set(judge_problems(suite)) if suite is not None else set()
    for loc, message in judge_problems(config):
        if (loc, message) not in known:
            found.append((("judge", *loc), message))
    return config
