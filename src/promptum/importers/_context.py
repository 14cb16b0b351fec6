"""What every part of a conversion shares: where the config and the suite are, and the tally."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from promptum.errors import ConfigError
from promptum.importers._adapter import Adapter
from promptum.importers._outcome import Fidelity, Note, Outcome
from promptum.importers._source import Document, Node, Where, read_text, read_yaml

FILE_PREFIX = "file://"


@dataclass(slots=True)
class Context:
    """The paths of one conversion, its outcome so far and the adapter it may need."""

    config: Path
    output: Path
    outcome: Outcome = field(default_factory=Outcome)
    adapter: Adapter = field(init=False)
    subject: str = "output"
    """What a test's transform sees as `output`: the provider's transform, when it has one,
    or `answer` when promptfoo's output is data (tool calls, a JSON schema's object)."""
    data_answers: bool = False
    """Whether the suite's answers may be data, which its transform `answer` shows text
    checks as JSON (promptfoo's assertions see its output so)."""
    models: list[str] = field(default_factory=list)
    """The suite's model ids, once the providers are converted: a cost bound needs prices."""
    names: set[str] = field(default_factory=set)
    """Names taken so far (case ids, endpoint and criterion names), to keep each unique."""

    @property
    def assertion_subject(self) -> str:
        """What promptfoo's `output` is in an assertion's JavaScript (after a suite transform)."""
        return "answer" if self.subject == "answer" else "output"

    def __post_init__(self) -> None:
        relative = os.path.relpath(self.config_dir, self.output.parent.resolve())
        self.adapter = Adapter(self.config.name, PurePosixPath(Path(relative)).as_posix())

    @property
    def config_dir(self) -> Path:
        """The folder the config's relative paths start from."""
        return self.config.resolve().parent

    def path(self, reference: str) -> Path:
        """The file a `file://` reference (or a plain relative path) names."""
        return self.config_dir / reference.removeprefix(FILE_PREFIX)

    def readable(self, path: Path) -> Path:
        """`path` if it is inside the config's folder or the working directory, else refused.

        What is read ends up in the suite, and from there in prompts sent to a model: a
        config must not pull in a file of the machine's (`file:///etc/passwd`).
        """
        resolved = path.resolve()
        for root in (self.config_dir, Path.cwd().resolve()):
            if resolved.is_relative_to(root):
                return path
        raise ConfigError(
            f"{path}: outside the config's folder and the working directory; not read (copy "
            "the file into the project)"
        )

    def shown(self, path: Path) -> str:
        """A file of the config as the summary and comments name it."""
        try:
            return path.resolve().relative_to(self.config_dir).as_posix()
        except ValueError:
            return str(path)

    def from_suite(self, path: Path) -> str:
        """`path` relative to the suite's folder, as the suite's `file:` references write it."""
        return PurePosixPath(
            Path(os.path.relpath(path.resolve(), self.output.parent.resolve()))
        ).as_posix()

    def text(self, reference: str) -> str:
        """The text of a file the config refers to."""
        path = self.readable(self.path(reference))
        return read_text(path, self.shown(path))

    def yaml(self, reference: str) -> Document:
        """A YAML or JSON file the config refers to, with its lines."""
        path = self.readable(self.path(reference))
        return read_yaml(path, self.shown(path))

    def glob(self, reference: str) -> list[Path]:
        """The files a glob reference matches, sorted (absolute patterns match nothing)."""
        pattern = reference.removeprefix(FILE_PREFIX)
        if Path(pattern).is_absolute():
            return []
        return sorted(path for path in self.config_dir.glob(pattern) if path.is_file())

    def skip(self, where: Node | Where, what: str, why: str) -> None:
        """Note a setting that is not converted."""
        self.outcome.setting(Fidelity.NONE, Note(_where(where), what, why))

    def approximate(self, where: Node | Where, what: str, why: str) -> None:
        """Note a setting converted only approximately."""
        self.outcome.setting(Fidelity.APPROXIMATE, Note(_where(where), what, why))

    def unique(self, name: str) -> str:
        """`name`, or `name-2`, `name-3`... when taken."""
        candidate, number = name, 1
        while candidate in self.names:
            number += 1
            candidate = f"{name}-{number}"
        self.names.add(candidate)
        return candidate


def _where(where: Node | Where) -> Where:
    return where.where if isinstance(where, Node) else where


def slug(text: str, fallback: str) -> str:
    """Letters, digits and `-` from `text`, lower-cased, at most 48 characters."""
    cleaned = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:48].strip("-")
    return cleaned or fallback


def is_glob(reference: str) -> bool:
    """Whether a reference names several files."""
    return any(char in reference for char in "*?[")
