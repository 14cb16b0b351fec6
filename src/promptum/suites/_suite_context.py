"""What a suite gives every one of its cases, as building each case reads it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from promptum.cases import JudgeConfig
from promptum.checks import CheckTable
from promptum.providers import Target
from promptum.suites._content_files import ContentFiles
from promptum.suites._format import DefaultsSpec, MessageSpec
from promptum.suites._reused import Reused


@dataclass(frozen=True, slots=True)
class SuiteContext:
    """What a suite gives every one of its cases."""

    folder: Path
    """The folder relative to which `module:Class` response models are imported."""
    models: tuple[str, ...] = ()
    system: str | None = None
    prompt: str | None = None
    variables: Mapping[str, Any] = field(default_factory=dict)
    tags: tuple[str, ...] = ()
    defaults: DefaultsSpec = field(default_factory=DefaultsSpec)
    repeat: int = 1
    judge: JudgeConfig | None = None
    must_pass_tags: frozenset[str] = frozenset()
    """Cases with any of these tags gate on their own (the suite's `gate.must_pass_tags`)."""
    literal: bool = False
    """Texts are sent as written, not rendered as Jinja (the Python API's `Prompt`)."""
    suite: str = ""
    """The suite's name, which namespaces its case ids in a run (``suite/id``)."""
    variant: str = ""
    """The prompt variant being built ("" without `prompts:`); its text is `prompt` or
    `template`, and a case's `query` is then a variable of it."""
    template: tuple[MessageSpec, ...] | None = None
    """A chat-template variant: the conversation, each message a template of the vars."""
    target: Target | None = None
    """The suite's `target`: answers every case without its own `models` or `target`."""
    tools: tuple[dict[str, Any], ...] | None = None
    """The suite's `tools` (OpenAI function schemas), for cases without their own."""
    tool_choice: str | dict[str, Any] | None = None
    where: str = ""
    """The suite's folder within a folder run (``team-a/``): it starts target names."""
    checks: CheckTable | None = None
    """The checks compiled in this load, for checks filled in from a case's vars."""
    reused: Reused = field(default_factory=Reused, compare=False, repr=False)
    """What building each case finds the same in `defaults`, looked at once."""
    content_files: ContentFiles = field(default_factory=ContentFiles, compare=False, repr=False)
    """The digests of the files the cases' messages carry, each file read once per load."""
