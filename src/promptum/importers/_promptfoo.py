"""`import_promptfoo`: a promptfoo config in, a promptum suite (that validates) out."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from promptum.errors import ConfigError
from promptum.importers._context import Context, slug
from promptum.importers._conversation import conversation_case, reads_conversation, turn_template
from promptum.importers._outcome import Outcome
from promptum.importers._prompts import Prompts, convert_prompts
from promptum.importers._providers import Providers, convert_providers, response_model_of
from promptum.importers._redteam import convert_redteam
from promptum.importers._refusals import forget_module, write_valid
from promptum.importers._source import Node, Where, read_yaml
from promptum.importers._tests import Defaults, convert_default_test, convert_tests
from promptum.importers._writer import Commented

_PROMPTFOO_KEYS = ("prompts", "providers", "targets", "tests")
_SETTINGS = {
    "description": None,
    "evaluateOptions": None,
    "outputPath": "promptum writes reports with `promptum run -o FILE`",
    "sharing": "promptum shares nothing: reports are files",
    "env": "a suite reads no environment; export variables before `promptum run`",
    "nunjucksFilters": "filters written in JavaScript are code; promptum's templates are data",
    "derivedMetrics": "promptum reports each metric, not formulas of them",
    "extensions": "hooks are code; promptum runs none from a suite",
    "scenarios": "not converted: write each scenario's vars into its tests",
    "redteam": None,
    "targets": None,
    "tags": "promptfoo's run tags are not case tags; add `tags:` to the suite if wanted",
    "metadata": None,
    "commandLineOptions": "give the options to `promptum run`",
    "writeLatestResults": None,
    "defaultTest": None,
    "prompts": None,
    "providers": None,
    "tests": None,
}


@dataclass(slots=True)
class Conversion:
    """What `import_promptfoo` wrote and how faithfully."""

    suite: Path
    adapter: Path | None
    outcome: Outcome
    cases: int = 0
    variants: int = 0
    models: list[str] = field(default_factory=list)
    target: str | None = None


def import_promptfoo(config: Path, output: Path) -> Conversion:
    """Convert `config`, write the suite to `output` (and its adapter beside it), validated.

    Raises ConfigError when `config` is not a promptfoo config, or when what was converted
    cannot be made to validate. Nothing of the config is run, and no environment is read.
    """
    document = read_yaml(config, config.name)
    root = document.root()
    _check_is_promptfoo(root, config.name)
    context = Context(config, output)
    prompts = convert_prompts(root.get("prompts") or root, context)
    conversation = _conversation_prompt(prompts, context)
    if not prompts.variants and conversation is None:
        raise ConfigError(f"{config.name}: no prompt could be converted{_why(context)}")
    providers = convert_providers(_providers_node(root), context)
    context.models = providers.models
    _prompt_response_format(prompts, providers, context)
    if providers.transform is not None:  # promptfoo transforms a test's output after it
        context.subject = providers.transform
    else:
        _data_answers(root, providers, context)
    defaults = convert_default_test(root.get("defaultTest"), context)
    cases = convert_tests(root.get("tests"), context, defaults)
    if conversation is not None:
        case = conversation_case(*conversation, cases, context)
        cases = [case] if case is not None else []
    if not cases:
        raise ConfigError(f"{config.name}: no test could be converted{_why(context)}")
    data = _suite(root, context, prompts.suite_keys(), providers, defaults, cases)
    redteam = convert_redteam(root.get("redteam"), context)
    if redteam is not None:
        data["redteam"] = redteam
    _settings(root, context)
    adapter_text = context.adapter.text()
    adapter = output.with_name(output.stem + "_adapter.py") if adapter_text else None
    if adapter is not None and adapter_text is not None:
        forget_module(adapter)
        adapter.write_text(adapter_text, encoding="utf-8")
    try:
        write_valid(data, output, context, _header(config.name))
    except ConfigError:
        if adapter is not None:
            adapter.unlink(missing_ok=True)
        raise
    for listed in (context.outcome.approximate, context.outcome.skipped):
        listed.sort(key=lambda n: (n.where.file != config.name, n.where.file, n.where.line))
    return Conversion(
        suite=output,
        adapter=adapter,
        outcome=context.outcome,
        cases=len(data.get("test_cases", [])),
        variants=len(data.get("prompts", {})) or int("prompt" in data),
        models=list(providers.models),
        target=_target_name(providers),
    )


def _conversation_prompt(prompts: Prompts, context: Context) -> tuple[str, Where] | None:
    """The turn template of the one prompt reading `_conversation`, taken out of the variants.

    None when no prompt reads it; the prompts that read it and cannot be a conversation's
    turns are left out, saying why.
    """
    reading = [name for name, item in prompts.variants.items() if reads_conversation(item.value)]
    if not reading:
        return None
    first = prompts.variants[reading[0]]
    template = turn_template(first.value) if isinstance(first.value, str) else None
    if len(prompts.variants) > 1:
        why = (
            "promptum runs a conversation on no prompt variants: convert it with this prompt alone"
        )
    elif not isinstance(first.value, str):
        why = "a chat prompt's turns have no promptum form: write the prompt as text"
    elif template is None:
        why = "it reads an entry's `prompt` or `metadata`; a promptum turn has `query` and `reply`"
    else:
        del prompts.variants[reading[0]]
        return template, _variant_where(first)
    for name in reading:
        where = _variant_where(prompts.variants.pop(name))
        context.skip(where, f"prompt {name}", f"it reads `_conversation`: {why}")
    return None


def _variant_where(variant: Commented) -> Where:
    file, _, line = str(variant.comments[0]).rpartition(":")
    return Where(file, int(line) if line.isdigit() else 1)


def _providers_node(root: Node) -> Node | None:
    """`providers`, or `targets` (its other name in promptfoo's red-team configs)."""
    return root.get("providers") or root.get("targets")


def _prompt_response_format(prompts: Prompts, providers: Providers, context: Context) -> None:
    """A `response_format` the prompts give (over the providers'), as every case's schema."""
    formats: list[Node | None] = []
    for name in prompts.variants:
        config = prompts.configs.get(name)
        for key, item in config.items() if config is not None else ():
            if key != "response_format":
                context.skip(
                    item,
                    f"prompt config `{key}`",
                    "promptum's prompt variants carry no model settings: give it to the provider",
                )
        formats.append(None if config is None else config.get("response_format"))
    given = [item for item in formats if item is not None]
    if not given:
        return
    first = given[0]
    if len(given) == len(formats) and all(item.value == first.value for item in given):
        schema = response_model_of(first.value, first, context)
        if schema is not None:
            providers.response_model = schema
        return
    for item in given:
        context.skip(
            item,
            "prompt response_format",
            "promptum asks every prompt variant of a suite for the same structured output, "
            "and these prompts differ: split the suite by prompt",
        )


def _data_answers(root: Node, providers: Providers, context: Context) -> None:
    """Make the checks see tool calls and JSON-schema answers as promptfoo's assertions do.

    promptfoo's `output` of such an answer is data (its OpenAI provider's tool calls or parsed
    object); its text assertions see that data's JSON. promptum's `answer` is the same data,
    and a text check's transform `answer` gives it that JSON as the response.
    """
    if providers.tools is None and providers.response_model is None:
        return
    context.data_answers = True
    where = _providers_node(root) or root
    context.approximate(
        where,
        "tool calls and JSON-schema answers",
        "a text check's `transform: answer` shows it their JSON with a space after `,` and "
        "`:`, where promptfoo's JSON.stringify writes none",
    )
    if any(model.startswith("anthropic/") for model in providers.models):
        if providers.tools is not None:
            context.approximate(
                where,
                "Anthropic tool calls",
                "promptfoo's Anthropic output is text: the answer's text, then each "
                "tool_use block as JSON; promptum shows the calls in OpenAI's shape "
                "({id, type, function: {name, arguments}})",
            )
        return
    context.subject = "answer"  # promptfoo's OpenAI output is the data itself


def _why(context: Context) -> str:
    """What was not converted, for an error that leaves nothing to write."""
    notes = context.outcome.skipped
    return ":\n" + "\n".join(f"  {note}" for note in notes) if notes else " (there is none)"


def _check_is_promptfoo(root: Node, shown: str) -> None:
    value = root.value
    expected = (
        "expected a promptfoo config: a YAML mapping with `prompts`, `providers` and `tests` "
        "(promptfooconfig.yaml)"
    )
    if not isinstance(value, dict):
        got = "empty" if value is None else f"a {type(value).__name__}"
        raise ConfigError(f"{shown}: not a promptfoo config (the file is {got}); {expected}")
    if "test_cases" in value or "cases_from" in value:
        raise ConfigError(f"{shown}: this is a promptum suite already; {expected}")
    if not any(key in value for key in _PROMPTFOO_KEYS):
        keys = ", ".join(sorted(value)[:8]) or "none"
        raise ConfigError(f"{shown}: not a promptfoo config (its keys: {keys}); {expected}")
    if "prompts" not in value:
        raise ConfigError(
            f"{shown}: a promptfoo config without `prompts` sends nothing to a "
            "model; add the prompts it tests"
        )


def _suite(
    root: Node,
    context: Context,
    prompt_keys: dict[str, Any],
    providers: Providers,
    defaults: Defaults,
    cases: list[Commented],
) -> dict[str, Any]:
    data: dict[str, Any] = _identity(root, context)
    data.update(_answering(root, context, providers))
    repeat = _repeat(root, context)
    if repeat is not None:
        data["repeat"] = repeat
    if defaults.vars:
        data["vars"] = defaults.vars
    data.update(prompt_keys)
    suite_defaults = _suite_defaults(providers, defaults)
    if suite_defaults:
        data["defaults"] = suite_defaults
    judge = _judge(defaults, cases)
    if judge is not None:
        data["judge"] = judge
    data["test_cases"] = cases
    return data


def _answering(root: Node, context: Context, providers: Providers) -> dict[str, Any]:
    """What answers the cases: the target or the models, with their endpoints and tools."""
    data: dict[str, Any] = {}
    if providers.target is not None:
        data["target"] = Commented(providers.target, tuple(providers.comments))
    else:
        if not providers.models:
            providers_node = _providers_node(root)
            where = (
                providers_node.where
                if providers_node is not None
                else Where(context.config.name, 1)
            )
            context.approximate(
                where,
                "providers",
                "no provider converted: the embedded model answers (`-m` chooses others)",
            )
        models = providers.models or ["local/smollm2"]
        comments = providers.comments or ["no provider converted"]
        data["models"] = [
            Commented(model, (where,)) for model, where in zip(models, comments, strict=False)
        ]
    for key, value in (
        ("endpoints", providers.endpoints or None),
        ("tools", providers.tools),
        ("tool_choice", providers.tool_choice),
    ):
        if value is not None:
            data[key] = value
    return data


def _suite_defaults(providers: Providers, defaults: Defaults) -> dict[str, Any]:
    """The suite's `defaults:`: what every case shares, from the providers and defaultTest."""
    suite_defaults = {
        "params": providers.params or None,
        "response_model": providers.response_model,
        "context": defaults.context,
        "transform": defaults.transform.text if defaults.transform else providers.transform,
        "threshold": defaults.threshold,
        "checks": defaults.checks or None,
    }
    return {key: value for key, value in suite_defaults.items() if value is not None}


def _judge(defaults: Defaults, cases: list[Commented]) -> Commented | None:
    """The suite's `judge:` when a case has criteria or a grader model is named; else None."""
    judged = defaults.criteria or any(
        "judge" in case.value and "criteria" in case.value["judge"] for case in cases
    )
    if not (judged or defaults.judge_model):
        return None
    judge: dict[str, Any] = {}
    if defaults.judge_model:
        judge["model"] = defaults.judge_model
    if defaults.criteria:
        judge["criteria"] = defaults.criteria
    return Commented(
        judge or {"threshold": 0.7},
        (
            "promptfoo grades with its default grader unless options.provider names one;",
            "promptum's judge is local/smollm2 unless `model:` (or --judge) says otherwise",
        ),
    )


def _identity(root: Node, context: Context) -> dict[str, Any]:
    """The suite's `name:` (its description's or its folder's, as a slug) and `description:`.

    Without a `name:` a suite is named by its file, and imported suites are most often all
    `suite.yaml` or `promptum.yaml`: the config's own description tells them apart.
    """
    folder = slug(context.config_dir.name, "promptfoo")
    description = root.get("description")
    if description is None or not (
        isinstance(description.value, str) and description.value.strip()
    ):
        return {"name": folder}
    return {
        "name": slug(description.value, folder),
        "description": Commented(description.value, (str(description.where),)),
    }


def _repeat(root: Node, context: Context) -> int | None:
    options = root.get("evaluateOptions")
    if options is None or not isinstance(options.value, dict):
        return None
    for key, item in options.items():
        if key != "repeat":
            context.skip(
                item,
                f"evaluateOptions.{key}",
                "give it to `promptum run` (--concurrency, --timeout...) or leave it",
            )
    repeat = options.value.get("repeat")
    return repeat if isinstance(repeat, int) and repeat > 1 else None


def _settings(root: Node, context: Context) -> None:
    for key, item in root.items():
        if key not in _SETTINGS:
            context.skip(item, f"`{key}`", "not a promptfoo config key promptum knows")
        elif _SETTINGS[key] is not None:
            context.skip(item, f"`{key}`", str(_SETTINGS[key]))


def _header(shown: str) -> tuple[str, ...]:
    lines = [
        f"Converted by `promptum import promptfoo {shown}`.",
        "A comment `file:line` names the part of the config an entry comes from;",
        "`approximately:` marks one that does not behave exactly as in promptfoo",
        "(docs/migrating-from-promptfoo.md).",
    ]
    return tuple(lines)


def _target_name(providers: Providers) -> str | None:
    if providers.target is None:
        return None
    return f"target:{providers.target.get('name')}"
