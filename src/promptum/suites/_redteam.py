"""A suite's `redteam:` section: the facts handed to promptum.redteam, its cases, its file."""

from __future__ import annotations

import contextlib
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from promptum import redteam
from promptum.checks import FOLDER, SHARED, CheckTable
from promptum.errors import ConfigError
from promptum.providers import EndpointConfig
from promptum.suites._build_output import structured_output
from promptum.suites._data_files import RawCase
from promptum.suites._file_reading import max_suite_bytes
from promptum.suites._format import SuiteSpec
from promptum.suites._locate import (
    Locator,
    problem,
    problems_error,
    raise_problems,
    validation_problems,
)
from promptum.suites._redteam_detectors import custom_detector_problems
from promptum.suites._suite_context import SuiteContext
from promptum.suites._tools import tools_json
from promptum.suites._variants import Variants, suite_variants
from promptum.suites._yaml_reader import read_yaml
from promptum.templating import is_template

GENERATED_KEYS = ("redteam", "test_cases", "cases_from", "columns")
"""What a generated suite does not copy from its source: it holds the attacks alone."""


def _expected_calls(checks: Any) -> set[str]:
    """The tools checks expect a case to call: tool_called, tool_order, tool_args expected.

    A check as written (a mapping of the file) or loaded (a definition of `defaults:`).
    """
    found = set()
    for check in checks if isinstance(checks, list) else []:
        found.update(_expected_tools(*_type_and_value(check)))
    return found


def _expected_tools(kind: Any, value: Any) -> list[str]:
    """The tools one check of type `kind` and value `value` expects to be called."""
    if kind == "tool_called" and isinstance(value, str):
        return [value]
    if kind == "tool_order" and isinstance(value, list):
        return [name for name in value if isinstance(name, str)]
    if kind == "tool_args" and isinstance(value, Mapping) and value.get("expected"):
        return [str(value.get("tool"))]
    return []


def _type_and_value(check: Any) -> tuple[Any, Any]:
    """A check's `type` and `value`, as written (a mapping) or loaded (a definition)."""
    if isinstance(check, Mapping):
        return check.get("type"), check.get("value")
    return getattr(check, "type", None), getattr(check, "value", None)


def _called(raw_cases: Any, defaults: Any) -> frozenset[str]:
    """The tools any case of the suite (its `defaults:` too) expects to be called."""
    found = _expected_calls(getattr(defaults, "checks", None))
    for raw in raw_cases if isinstance(raw_cases, list) else []:
        if isinstance(raw, Mapping):
            found |= _expected_calls(raw.get("checks"))
    return frozenset(found)


def _carriers(raw_cases: Any) -> list[redteam.Carrier]:
    """The suite's own cases with a plain query: ordinary questions attacks can ride on."""
    found = []
    for raw in raw_cases if isinstance(raw_cases, list) else []:
        if not isinstance(raw, Mapping):
            continue
        query = raw.get("query")
        if not isinstance(query, str) or not query.strip() or is_template(query):
            continue
        expected = raw.get("expected")
        calls = _expected_calls(raw.get("checks"))
        found.append(
            redteam.Carrier(query, expected if isinstance(expected, dict) else {}, frozenset(calls))
        )
    return found


def _variants(variants: Variants) -> list[redteam.Variant]:
    found = []
    for context in variants.contexts:
        if context.template is not None:
            first = context.template[0]
            system = first.content if first.role == "system" else None
            texts = tuple(message.content for message in context.template)
            found.append(redteam.Variant(context.variant, system, texts))
        else:
            found.append(redteam.Variant(context.variant, None, (context.prompt or "",)))
    return found


def suite_facts(
    spec: SuiteSpec, raw_cases: Any, folder: Path, variants: Variants
) -> redteam.SuiteFacts:
    """What the suite has to attack, as plain data."""
    defaults = spec.defaults
    schema = None
    if defaults is not None and defaults.response_model is not None:
        # A broken one is reported by every case, where it is written.
        with contextlib.suppress(ValueError):
            schema, _ = structured_output(defaults.response_model, folder)
    return redteam.SuiteFacts(
        response_schema=schema,
        tools=tools_json(spec.tools) or (),
        system=(defaults.system if defaults is not None else None) or spec.system,
        variants=_variants(variants),
        carriers=_carriers(raw_cases),
        called=_called(raw_cases, defaults),
        target=spec.target is not None,
    )


def generated(
    section: redteam.RedteamSpec,
    facts: redteam.SuiteFacts,
    locator: Locator,
    problems: list[str],
    seed: int | None = None,
    writer: redteam.IntentWriter | None = None,
) -> redteam.Generation:
    """What a suite's `redteam:` section generates; its problems located.

    A request whose cases would not fit in a suite file (the loader's limit) is refused.
    """
    broken = custom_detector_problems(section, locator)
    if broken:
        problems += broken
        return redteam.Generation([], [], {})
    try:
        return redteam.generate(section, facts, seed, max_suite_bytes(), writer)
    except redteam.RedteamError as exc:
        problems += [problem(locator, ("redteam", *loc), text) for loc, text in exc.problems]
        return redteam.Generation([], [], {})


_RUN_WHEN_GENERATED = (
    ("attacker", "an attacker model rewrites attacks by running them"),
    ("best_of_n", "Best-of-N keeps the augmented try that worked by running its tries"),
)
"""The `redteam:` keys whose attacks are made by running them: `generate` only, with why."""


def redteam_cases(
    spec: SuiteSpec,
    raw_cases: Any,
    variants: Variants,
    locator: Locator,
    problems: list[str],
) -> list[RawCase]:
    """The attack cases a suite's `redteam:` section generates when it is loaded."""
    if spec.redteam is None:
        return []
    for key, why in _RUN_WHEN_GENERATED:
        if getattr(spec.redteam, key) is not None:
            problems.append(
                problem(
                    locator,
                    ("redteam", key),
                    f"{why}, and loading a suite calls no model: write them with `promptum "
                    f"redteam generate SUITE -o attacks.yaml` and run that file, or remove "
                    f"`{key}:`",
                )
            )
            return []
    facts = suite_facts(spec, raw_cases, locator.path.parent, variants)
    where = locator.within(("redteam",))
    cases = generated(spec.redteam, facts, locator, problems).cases
    return [RawCase(case, where, None) for case in cases]


try:  # libyaml's emitter when PyYAML has it: several times faster on a thousand cases.
    from yaml import CSafeDumper as _SafeDumper
except ImportError:  # pragma: no cover - PyYAML without libyaml
    from yaml import SafeDumper as _SafeDumper  # type: ignore[assignment]


class _Dumper(_SafeDumper):
    """Writes multi-line texts as `|` blocks, and texts with invisible characters quoted."""


def _invisible(text: str) -> bool:
    return any(unicodedata.category(char) == "Cf" for char in text)


def _text(dumper: _SafeDumper, text: str) -> yaml.ScalarNode:
    if _invisible(text):
        return dumper.represent_scalar("tag:yaml.org,2002:str", text, style='"')
    style = "|" if "\n" in text else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


_Dumper.add_representer(str, _text)


def _escaped(text: str) -> str:
    """Invisible characters as escapes, so a reviewer sees them (only quoted texts hold any)."""
    return "".join(
        (f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}")
        if unicodedata.category(c) == "Cf"
        else c
        for c in text
    )


def suite_data(source: Mapping[str, Any], cases: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The generated suite: the source's settings, then the attack cases."""
    settings = {key: value for key, value in source.items() if key not in GENERATED_KEYS}
    settings["test_cases"] = list(cases)
    return settings


def suite_text(source: Mapping[str, Any], cases: Iterable[dict[str, Any]], header: str) -> str:
    """The generated suite's YAML: the source's settings, then the attack cases."""
    settings = suite_data(source, cases)
    body = yaml.dump(settings, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
    return header + _escaped(body)


@dataclass(slots=True)
class Generated:
    """A suite's generated attacks, before they are written."""

    source: dict[str, Any]
    """The source suite as read."""
    cases: list[dict[str, Any]]
    section: redteam.RedteamSpec
    header: str
    endpoints: Mapping[str, EndpointConfig]
    """The source's `endpoints:`, where an attacker model id may point."""
    unsupported: Mapping[str, str]
    """Goals of the default set the suite cannot support, each with why."""

    def text(self) -> str:
        """The reviewable suite file."""
        return suite_text(self.source, self.cases, self.header)

    def suite_data(self, cases: Iterable[dict[str, Any]]) -> dict[str, Any]:
        """A suite of the source's settings and `cases`, as data (to run them as the file would)."""
        return suite_data(self.source, cases)


@dataclass(frozen=True, slots=True)
class SuiteSettings:
    """A suite file's settings, validated without its cases, and what they say to attack."""

    data: dict[str, Any]
    """The file as read, its cases included."""
    locator: Locator
    spec: SuiteSpec
    facts: redteam.SuiteFacts


def suite_settings(path: Path) -> SuiteSettings:
    """`path`'s settings as `validate` checks them (its cases are read as written)."""
    data, locator = read_yaml(path)
    if not isinstance(data, dict):
        raise ConfigError(f"{locator.at(())}: a suite is a mapping of settings and `test_cases`")
    settings = {key: value for key, value in data.items() if key != "test_cases"}
    context = {FOLDER: path.parent, SHARED: CheckTable()}
    try:
        spec = SuiteSpec.model_validate(settings, context=context)
    except ValidationError as exc:
        raise problems_error(validation_problems(locator, SuiteSpec, settings, exc)) from None
    problems: list[str] = []
    variants = suite_variants(spec.prompts, path, locator, SuiteContext(path.parent), problems)
    raise_problems(problems)
    facts = suite_facts(spec, data.get("test_cases"), path.parent, variants)
    return SuiteSettings(data, locator, spec, facts)


# Named, not evaluated: the intents' writer is imported only by a suite that asks for it.
IntentWriters = Callable[
    ["redteam.RedteamSpec", Mapping[str, EndpointConfig]], "redteam.IntentWriter"
]
"""Makes the writer of a section's attack intents, given the section and the suite's endpoints."""


def generate_suite(
    path: Path,
    seed: int | None = None,
    per_goal: int | None = None,
    stacks: int | None = None,
    writers: IntentWriters | None = None,
) -> Generated:
    """The attacks `promptum redteam generate` writes from `path` (an attacker's not yet).

    `seed`, `per_goal` and `stacks`, when given, replace the section's. With `writers`, a
    section asking for `intents:` (with its `attacker:`) has them written by the writer made.
    """
    read = suite_settings(path)
    if read.spec.redteam is None:
        raise ConfigError(
            f"{read.locator.at(())}: the suite has no `redteam:` section: add one (`redteam: "
            "{seed: 1}` generates every goal and strategy the suite supports)"
        )
    section = read.spec.redteam
    if per_goal is not None:
        section = section.model_copy(update={"per_goal": per_goal})
    if stacks is not None:
        section = section.model_copy(update={"stacks": stacks})
    problems: list[str] = []
    writer = None
    if writers is not None and section.intents is not None and section.attacker is not None:
        writer = writers(section, read.spec.endpoints)
    generation = generated(section, read.facts, read.locator, problems, seed, writer)
    raise_problems(problems)
    cases = generation.cases
    header = _header(path, section, seed, (per_goal, stacks), cases)
    return Generated(read.data, cases, section, header, read.spec.endpoints, generation.unsupported)


def _header(
    path: Path,
    section: redteam.RedteamSpec,
    seed: int | None,
    options: tuple[int | None, int | None],
    cases: list[dict[str, Any]],
) -> str:
    """The comment a generated suite opens with: the command that made it, how to read it.

    `options`: the `--per-goal` and `--stacks` given, if any.
    """
    used = section.seed if seed is None else seed
    command = f"promptum redteam generate {path.name} --seed {used}"
    for option, value in zip(("--per-goal", "--stacks"), options, strict=True):
        if value is not None:
            command += f" {option} {value}"
    header = (
        f"# Attack cases generated by `{command}`.\n"
        "# An ordinary suite: review it, edit it, run it. Each attack is tagged with its goal and\n"
        "# strategy; one that fails is an attack that succeeded. A `redteam-control` case asks\n"
        "# an attack's question without it: its goal's baseline (docs/redteam.md).\n"
    )
    if section.attacker is not None:
        kind, made = ("tap", "grown as trees (TAP)") if section.tap else ("pair", "rewritten")
        header += (
            f"# `strategy:{kind}` cases were {made} by {section.attacker} from the target's\n"
            "# answers (not reproducible by the seed alone).\n"
        )
        if section.intents is not None:
            header += f"# The attacks deliver intents {section.attacker} wrote from this suite.\n"
    if section.crescendo is not None and any("simulate" in case for case in cases):
        header += (
            f"# `strategy:crescendo` cases are the turns {section.attacker} kept, turn by turn,\n"
            "# backtracking on refusals, when this file was written (docs/redteam.md).\n"
        )
    elif any("simulate" in case for case in cases):
        header += (
            f"# `strategy:crescendo` cases are conversations whose user {section.attacker} plays,\n"
            "# escalating turn by turn when they run (docs/conversations.md).\n"
        )
    return header
