"""Load suites from files: a YAML suite (with `cases_from`), or a folder of TOML case files."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from promptum.errors import ConfigError
from promptum.providers import EndpointConfig, Price
from promptum.runner import JUDGE_VARIABLES, JudgeConfig, TemplateError, TestCase, render
from promptum.suites._build import InvalidCaseError, SuiteContext, build_case
from promptum.suites._format import CaseFields, DefaultsSpec, SuiteSpec
from promptum.suites._locate import (
    Locator,
    problem,
    problems_error,
    raise_problems,
    validation_problems,
)
from promptum.suites._rows import RawCase, case_source
from promptum.suites._yaml import read_yaml

YAML_SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True, slots=True)
class Suite:
    """A loaded, validated suite: its cases are ready to run."""

    name: str
    path: Path
    cases: tuple[TestCase, ...]
    endpoints: Mapping[str, EndpointConfig] = field(default_factory=dict)
    pricing: Mapping[str, Price] = field(default_factory=dict)


def _cases(
    raw_cases: Iterable[RawCase], context: SuiteContext, problems: list[str]
) -> Iterator[TestCase]:
    for raw in raw_cases:
        try:
            fields = CaseFields.model_validate(raw.data)
        except ValidationError as exc:
            problems += validation_problems(raw.locator, CaseFields, raw.data, exc)
            continue
        try:
            yield build_case(fields, raw.locator, raw.default_id, context)
        except InvalidCaseError as exc:
            problems += exc.problems


def _judge(spec: SuiteSpec, locator: Locator, problems: list[str]) -> JudgeConfig | None:
    if spec.judge is None:
        return None
    from promptum.providers import DEFAULT_MODEL

    if spec.judge.prompt is not None:
        try:
            render(spec.judge.prompt, dict.fromkeys(JUDGE_VARIABLES, ""))
        except TemplateError as exc:
            problems.append(problem(locator, ("judge", "prompt"), str(exc)))

    return JudgeConfig(
        model=spec.judge.model or DEFAULT_MODEL,
        threshold=spec.judge.threshold,
        prompt=spec.judge.prompt,
    )


def _inline_cases(data: dict[str, Any], locator: Locator, problems: list[str]) -> list[RawCase]:
    cases = data.get("test_cases") or []
    if not isinstance(cases, list):
        problems.append(problem(locator, ("test_cases",), "must be a list of cases (`- id: ...`)"))
        return []
    return [RawCase(case, locator.within(("test_cases", i)), None) for i, case in enumerate(cases)]


def _yaml_suite(path: Path) -> Suite:
    data, locator = read_yaml(path)
    if data is None:
        raise ConfigError(f"{path}: the file is empty; `promptum init` writes a starter suite")
    if not isinstance(data, dict):
        raise ConfigError(
            f"{locator.at(())}: a suite is a mapping with `test_cases:` (and optionally "
            f"`models:`, `defaults:`, `judge:`...), not a {type(data).__name__}"
        )
    problems: list[str] = []
    inline = _inline_cases(data, locator, problems)
    settings = {key: value for key, value in data.items() if key != "test_cases"}
    try:
        spec = SuiteSpec.model_validate(settings)
    except ValidationError as exc:
        # Still check every case on its own, so one report lists every problem in the file.
        problems += validation_problems(locator, SuiteSpec, settings, exc)
        for raw in inline:
            try:
                CaseFields.model_validate(raw.data)
            except ValidationError as case_exc:
                problems += validation_problems(raw.locator, CaseFields, raw.data, case_exc)
        raise problems_error(problems) from None
    context = SuiteContext(
        folder=path.parent,
        models=tuple(spec.models or ()),
        system=spec.system,
        prompt=spec.prompt,
        variables=spec.vars,
        tags=tuple(spec.tags),
        defaults=spec.defaults or DefaultsSpec(),
        repeat=spec.repeat,
        judge=_judge(spec, locator, problems),
    )
    cases = list(_cases(inline, context, problems))
    for index, source in enumerate(spec.cases_from):
        try:
            cases += _cases(case_source(path.parent / source), context, problems)
        except ConfigError as exc:
            problems.append(problem(locator, ("cases_from", index), str(exc)))
    if not cases and not problems:
        problems.append(problem(locator, (), "the suite has no cases: add `test_cases:`"))
    raise_problems(problems)
    return Suite(spec.name or path.stem, path, tuple(cases), spec.endpoints, spec.pricing)


def _folder_suite(path: Path) -> Suite:
    problems: list[str] = []
    cases = list(_cases(case_source(path), SuiteContext(folder=path), problems))
    raise_problems(problems)
    return Suite(path.name, path, tuple(cases))


def load_suite(path: Path | str) -> Suite:
    """Load and validate one suite: a `.yaml` file or a folder of `.toml` case files."""
    path = Path(path)
    if path.is_dir():
        suite = _folder_suite(path)
    elif not path.exists():
        raise ConfigError(f"{path}: no such file or folder")
    elif path.suffix.lower() not in YAML_SUFFIXES:
        raise ConfigError(
            f"{path}: not a suite; give a .yaml/.yml suite or a folder of .toml case files "
            "(CSV and JSONL files are read through a suite's `cases_from`)"
        )
    else:
        suite = _yaml_suite(path)
    check_unique_ids([suite])
    return suite


def load_suites(paths: Iterable[Path | str]) -> list[Suite]:
    """Load several suites; case ids must be unique across all of them."""
    suites = [load_suite(path) for path in paths]
    check_unique_ids(suites)
    return suites


def check_unique_ids(suites: Iterable[Suite]) -> None:
    """Raise a ConfigError naming every case id defined twice (a run keys results by id)."""
    seen: dict[str, str] = {}
    problems = []
    for suite in suites:
        for case in suite.cases:
            where = case.source or str(suite.path)
            if case.id in seen:
                problems.append(
                    f"{where}: duplicate case id {case.id!r}, first defined at {seen[case.id]}; "
                    "ids must be unique within a run"
                )
            else:
                seen[case.id] = where
    raise_problems(problems)
