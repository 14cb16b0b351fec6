"""A suite's prompt variants (`prompts:`): one case context per variant, and each one's hash."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from pydantic import ConfigDict, TypeAdapter, ValidationError

from promptum.errors import ConfigError
from promptum.foundations.problems import first_problem
from promptum.foundations.suggestions import did_you_mean
from promptum.suites._file_reading import data_path, read_document
from promptum.suites._format import MessageSpec, PromptFileSpec, PromptVariantValue
from promptum.suites._locate import Loc, Locator, problem
from promptum.suites._suite_context import SuiteContext
from promptum.suites._yaml_reader import YAML_SUFFIXES, read_yaml

_NAME = re.compile(r"[\w.-]+")
# Built on first use: only a variant kept in a .yaml file is read with it.
_MESSAGES = TypeAdapter(list[MessageSpec], config=ConfigDict(defer_build=True))
_TEXT_SUFFIXES = (".txt", ".md", ".j2", ".jinja")


@dataclass(slots=True)
class Variants:
    """A suite's variants: the context each case is built in, their hashes, the files read."""

    contexts: list[SuiteContext] = field(default_factory=list)
    hashes: dict[str, str] = field(default_factory=dict)
    """Variant name -> a short hash of its text: a run records it, `compare` reads it."""
    files: list[Path] = field(default_factory=list)


def text_hash(text: str | list[MessageSpec]) -> str:
    """A short, stable hash of a variant's text (or its messages)."""
    data = text if isinstance(text, str) else json.dumps([m.model_dump() for m in text])
    return hashlib.sha256(data.encode()).hexdigest()[:12]


def _from_file(
    spec: PromptFileSpec, suite: Path, loc: Loc, locator: Locator, problems: list[str]
) -> str | list[MessageSpec] | None:
    try:
        path = data_path(suite, spec.file)
        suffix = path.suffix.lower()
        if suffix in YAML_SUFFIXES:
            data, _ = read_yaml(path)
            try:
                messages = _MESSAGES.validate_python(data)
            except ValidationError as exc:
                where, what = first_problem(exc)
                raise ConfigError(
                    f"{path}: a chat template is a list of {{role, content}} messages "
                    f"({where or 'top level'}: {what})"
                ) from None
            return messages
        if suffix in _TEXT_SUFFIXES or not suffix:
            return read_document(path).rstrip("\n")  # the newline editors end a file with
        raise ConfigError(
            f"{path}: a prompt file is text (.txt, .md, .j2) or a chat template (.yaml)"
        )
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(problem(locator, loc, f"cannot read {spec.file}: {exc}"))
    except ConfigError as exc:
        problems.append(problem(locator, loc, str(exc)))
    return None


def suite_variants(
    prompts: dict[str, PromptVariantValue],
    suite: Path,
    locator: Locator,
    base: SuiteContext,
    problems: list[str],
) -> Variants:
    """One context per variant (none without `prompts:`); problems are located and collected."""
    found = Variants()
    for name, value in prompts.items():
        loc: Loc = ("prompts", name)
        if not _NAME.fullmatch(name):
            problems.append(
                problem(locator, loc, "a variant's name is letters, digits, '_', '-' or '.'")
            )
            continue
        text: str | list[MessageSpec] | None = (
            value if not isinstance(value, PromptFileSpec) else None
        )
        if isinstance(value, PromptFileSpec):
            text = _from_file(value, suite, loc, locator, problems)
            if text is not None:
                found.files.append(suite.parent / value.file)
        if text is None:
            continue
        if isinstance(text, list) and not text:
            problems.append(problem(locator, loc, "a chat template needs at least one message"))
            continue
        found.hashes[name] = text_hash(text)
        if isinstance(text, str):
            found.contexts.append(replace(base, variant=name, prompt=text))
        else:
            found.contexts.append(replace(base, variant=name, template=tuple(text)))
    return found


def unknown_variant(names: Iterable[str], known: Iterable[str]) -> str | None:
    """Why a `--prompt` name selects nothing (no suite has that variant), or None."""
    have = list(dict.fromkeys(known))
    for name in names:
        if name in have:
            continue
        if not have:
            return f"--prompt {name!r}: no suite has prompt variants; add `prompts:` to a suite"
        hint = did_you_mean(name, have)
        return (
            f"--prompt {name!r}: no suite has this variant, so it would run nothing.{hint} "
            f"Variants: {', '.join(have)}."
        )
    return None
