"""Writing a review of proposed cases: the kept ones, with their edited expectations.

Into the file itself, the dropped cases are cut out and the edited ones rewritten in place;
every other byte (comments included) is the file's own. Into another suite, the kept cases
are appended after its last case by the save-as-case writer, an id already there getting a
suffix. Either way the result is loaded as `promptum validate` would from a temporary file
beside the target, and only then renamed over it: a refused write changes nothing.
"""

from __future__ import annotations

import copy
import hmac
import os
import re
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml.comments import CommentedBase

from promptum.errors import PromptumError
from promptum.suites import load_suite, suite_yaml, yaml11_text
from promptum.viewer._proposals import ReviewFile
from promptum.viewer._save_case import SourceFile, case_block, list_end, splice_cases
from promptum.viewer._security import RefusedError

MAX_TEXT = 4000
"""Characters an edited expectation may hold, as in save as case."""


@dataclass(frozen=True)
class Decisions:
    """What the reviewer chose: the ids dropped, and each edited case's new texts."""

    drop: frozenset[str]
    behaviors: dict[str, str] = field(default_factory=dict)
    check_values: dict[tuple[str, int], str] = field(default_factory=dict)


@dataclass(frozen=True)
class Written:
    """What a write did, as the page reports it."""

    target: Path
    kept: list[str]
    dropped: list[str]
    renamed: dict[str, str]


def decisions_from(data: Mapping[str, Any]) -> Decisions:
    """The decisions of a write's JSON; `RefusedError` 422 when they are not well formed."""
    drop = data.get("drop", [])
    if not isinstance(drop, list) or not all(isinstance(item, str) for item in drop):
        raise RefusedError(422, "drop must be a list of case ids")
    edits = data.get("edits", {})
    if not isinstance(edits, dict):
        raise RefusedError(422, "edits must map case ids to {expected_behavior, checks}")
    behaviors: dict[str, str] = {}
    values: dict[tuple[str, int], str] = {}
    for case_id, edit in edits.items():
        if not isinstance(edit, dict):
            raise RefusedError(422, f"edits of {case_id!r}: give an object")
        if "expected_behavior" in edit:
            behaviors[case_id] = _edited_text(case_id, "expected_behavior", edit)
        checks = edit.get("checks", {})
        if not isinstance(checks, dict) or not all(str(key).isdigit() for key in checks):
            raise RefusedError(422, f"edits of {case_id!r}: checks map check numbers to texts")
        for index in checks:
            values[case_id, int(index)] = _edited_text(case_id, index, checks)
    return Decisions(frozenset(drop), behaviors, values)


def _edited_text(case_id: str, name: str, edit: Mapping[str, Any]) -> str:
    value = edit[name]
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_TEXT:
        raise RefusedError(
            422, f"{case_id}: {name}: give the expected text (1 to {MAX_TEXT} characters)"
        )
    return value


def write_kept(
    review: ReviewFile, sha: str, target_sha: str | None, decisions: Decisions
) -> Written:
    """Write the kept cases of `review` into its target; see the module for how."""
    text = _current(review.path, sha)
    cases = suite_yaml().load(text)["test_cases"]
    ids = [str(case.get("id")) for case in cases]
    _check_named(review.path, ids, decisions)
    for case in cases:
        _edit(case, decisions)
    lines = re.findall(r"[^\n]*\n|[^\n]+$", text)  # YAML counts lines by \n only
    starts = [_note_start(lines, cases.lc.item(index)[0]) for index in range(len(cases))]
    kept = [index for index, case_id in enumerate(ids) if case_id not in decisions.drop]
    renamed: dict[str, str] = {}
    if review.into is None:
        updated = _without_dropped(text, cases, decisions, starts)
    else:
        notes = ["".join(lines[starts[index] : cases.lc.item(index)[0]]) for index in kept]
        chosen = [_styled(cases[index]) for index in kept]
        updated, renamed = _appended(review.into, target_sha or "", chosen, notes)
    _replace_validated(review.target, updated)
    dropped = [case_id for case_id in ids if case_id in decisions.drop]
    written = [renamed.get(ids[index], ids[index]) for index in kept]
    return Written(review.target, written, dropped, renamed)


def _check_named(path: Path, ids: list[str], decisions: Decisions) -> None:
    """`RefusedError` 409 when the decisions name a case the file has not (any more)."""
    named = decisions.drop | decisions.behaviors.keys() | {i for i, _ in decisions.check_values}
    unknown = sorted(named - set(ids))
    if unknown:
        raise RefusedError(409, f"{path.name} has no case {unknown[0]!r}: reload the page")


def _appended(
    target: Path, target_sha: str, kept: list[Any], notes: list[str]
) -> tuple[str, dict[str, str]]:
    """The text of `target` with the `kept` cases (and their `notes`) after its own cases."""
    base = _current(target, target_sha)
    taken = {str(case.get("id")) for case in suite_yaml().load(base)["test_cases"]}
    renamed = _unique_ids(kept, taken)
    return (splice_cases(base, kept, notes) if kept else base), renamed


def _current(path: Path, expected_sha: str) -> str:
    """The file's text, refused (409) unless it is the version the page was shown."""
    if not hmac.compare_digest(SourceFile(path, 0).sha256(), expected_sha):
        raise RefusedError(
            409, f"{path.name} changed since the page read it: reload the page and write again"
        )
    return path.read_text(encoding="utf-8")


def _edit(case: Any, decisions: Decisions) -> None:
    """Apply the reviewer's texts to the round-trip `case`."""
    case_id = str(case.get("id"))
    if case_id in decisions.behaviors:
        if not (
            case.get("expected_behavior") is None or isinstance(case["expected_behavior"], str)
        ):
            raise RefusedError(422, f"{case_id}: its expected_behavior is a rubric: edit the file")
        case["expected_behavior"] = yaml11_text(decisions.behaviors[case_id])
    checks = case.get("checks") or []
    for (named, number), value in decisions.check_values.items():
        if named != case_id:
            continue
        if number >= len(checks) or not isinstance(checks[number].get("value"), str):
            raise RefusedError(422, f"{case_id}: check {number} has no text value to edit")
        checks[number]["value"] = yaml11_text(value)


def _without_dropped(text: str, cases: Any, decisions: Decisions, starts: list[int]) -> str:
    """`text` with the dropped cases cut and the edited ones rewritten, in their places.

    A case runs from its `starts` line (its comments) to the next case's, the last one to
    the end of the list.
    """
    lines = re.findall(r"[^\n]*\n|[^\n]+$", text)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    end, dash = list_end(text)
    bounds = [offsets[start] for start in starts] + [end]
    pieces = [text[: bounds[0]]]
    for index, case in enumerate(cases):
        case_id = str(case.get("id"))
        block = text[bounds[index] : bounds[index + 1]]
        if case_id in decisions.drop:
            continue
        if _is_edited(case_id, decisions):
            notes = "".join(lines[starts[index] : cases.lc.item(index)[0]])
            blank = block[len(block.rstrip("\n")) + 1 :] if block.endswith("\n\n") else ""
            block = notes + case_block(_styled(case), dash) + blank
        pieces.append(block)
    return "".join(pieces) + text[end:]


def _note_start(lines: list[str], dash_line: int) -> int:
    """The first line of a case: its dash, or the comment lines right above it."""
    start = dash_line
    while start > 0 and lines[start - 1].lstrip().startswith("#"):
        start -= 1
    return start


def _styled(case: Any) -> Any:
    """A copy of the round-trip `case` with its styles and without comments.

    The comments a case's nodes carry include the ones above the next case, which are
    written (or cut) with that case.
    """
    copied = copy.deepcopy(case)
    _drop_comments(copied)
    return copied


def _drop_comments(node: Any) -> None:
    if isinstance(node, CommentedBase):
        node.ca.items.clear()
        node.ca.comment = None
        node.ca.end = None
    children = (
        node.values() if isinstance(node, Mapping) else node if isinstance(node, list) else ()
    )
    for child in children:
        _drop_comments(child)


def _is_edited(case_id: str, decisions: Decisions) -> bool:
    return case_id in decisions.behaviors or any(
        named == case_id for named, _ in decisions.check_values
    )


def _unique_ids(kept: list[Any], taken: set[str]) -> dict[str, str]:
    """Give each kept case an id the target has not (`id-2`, `id-3`...); the renames."""
    renamed: dict[str, str] = {}
    for case in kept:
        case_id = str(case["id"])
        fresh, number = case_id, 1
        while fresh in taken:
            number += 1
            fresh = f"{case_id}-{number}"
        if fresh != case_id:
            case["id"] = yaml11_text(fresh)
            renamed[case_id] = fresh
        taken.add(fresh)
    return renamed


def _replace_validated(target: Path, text: str) -> None:
    """Write `text` over `target` once it loads as `promptum validate` would load it."""
    handle, name = tempfile.mkstemp(
        prefix=f".{target.stem}.", suffix=target.suffix, dir=target.parent
    )
    temporary = Path(name)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as written:
            written.write(text)
        try:
            load_suite(temporary, check_models=True, name=target.stem)
        except PromptumError as exc:
            reason = str(exc).replace(str(temporary), str(target))
            raise RefusedError(
                422, f"not written, the result would not validate: {reason}"
            ) from None
        os.chmod(temporary, target.stat().st_mode & 0o7777)
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)
