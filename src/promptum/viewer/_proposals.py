"""A file of proposed cases (`generate cases`, `import traces`), read for a person's review.

Both the file and the suite its kept cases go into are loaded as `promptum validate` loads
them before the viewer starts, so a malformed file is a located error, never a page.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ruamel.yaml.comments import CommentedSeq
from ruamel.yaml.error import YAMLError

from promptum.errors import ConfigError
from promptum.suites import YAML_SUFFIXES, load_suite, suite_yaml
from promptum.viewer._save_case import list_end
from promptum.viewer._security import RefusedError


@dataclass(frozen=True)
class ProposedCheck:
    """A check of a proposed case; `value` is its text when a reviewer may edit it."""

    index: int
    type: str
    value: str | None


@dataclass(frozen=True)
class Proposal:
    """One proposed case as the review page shows it."""

    id: str
    line: int
    query: str
    expected_behavior: str | None
    behavior_editable: bool
    checks: tuple[ProposedCheck, ...]
    tags: tuple[str, ...]


@dataclass(frozen=True)
class ReviewFile:
    """The file under review, and the suite its kept cases are written into."""

    path: Path
    into: Path | None = None

    @property
    def target(self) -> Path:
        """Where the kept cases go: `into`, else the file itself (minus the dropped ones)."""
        return self.into if self.into is not None else self.path


def sha256_of(path: Path) -> str:
    """The digest of the file's bytes, what a page sends back to prove what it read."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def open_review_file(path: Path, into: Path | None) -> ReviewFile:
    """`path` (and `into`) checked as `promptum validate` would, and as lists to write to."""
    for suite in (path, into):
        if suite is None:
            continue
        if suite.suffix.lower() not in YAML_SUFFIXES:
            raise ConfigError(f"{suite}: review reads and writes YAML suites only (.yaml, .yml)")
        load_suite(suite, check_models=True)  # a located ConfigError when it is not valid
        try:
            list_end(suite.read_text(encoding="utf-8"))
        except RefusedError as exc:
            raise ConfigError(f"{suite}: {exc.reason}") from None
    same = into is not None and into.resolve() == path.resolve()
    return ReviewFile(path, None if same else into)  # into itself: minus the dropped ones


def read_proposals(text: str) -> list[Proposal]:
    """The cases of a suite's text, in order; `ConfigError` when it has no list of them."""
    try:
        document = suite_yaml().load(text)
    except YAMLError as exc:
        raise ConfigError(f"not YAML any more: {exc}") from None
    cases = document.get("test_cases") if isinstance(document, Mapping) else None
    if not isinstance(cases, CommentedSeq):
        raise ConfigError("no block list of test_cases any more: restart the review")
    return [
        _proposal(case, cases.lc.item(index)[0] + 1)
        for index, case in enumerate(cases)
        if isinstance(case, Mapping)
    ]


def _proposal(case: Mapping[str, Any], line: int) -> Proposal:
    behavior = case.get("expected_behavior")
    checks = case.get("checks") or []
    return Proposal(
        id=str(case.get("id", "")),
        line=line,
        query=_query(case),
        expected_behavior=behavior if isinstance(behavior, str) else None,
        behavior_editable=behavior is None or isinstance(behavior, str),
        checks=tuple(
            ProposedCheck(
                index,
                str(check.get("type", "")),
                check.get("value") if isinstance(check.get("value"), str) else None,
            )
            for index, check in enumerate(checks)
            if isinstance(check, Mapping)
        ),
        tags=tuple(str(tag) for tag in case.get("tags") or []),
    )


def _query(case: Mapping[str, Any]) -> str:
    """What the case asks: its query, else its last user message's text."""
    query = case.get("query")
    if isinstance(query, str):
        return query
    messages = case.get("messages")
    users = [m for m in messages or [] if isinstance(m, Mapping) and m.get("role") == "user"]
    if not users:
        return f"({len(messages or [])} messages)"
    content = users[-1].get("content")
    if isinstance(content, Sequence) and not isinstance(content, str):
        texts = [part.get("text") for part in content if isinstance(part, Mapping)]
        return " ".join(text for text in texts if isinstance(text, str))
    return str(content)
