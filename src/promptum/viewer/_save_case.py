"""Save as case: a reviewed answer's case appended to the YAML file it came from.

The file is parsed with ruamel.yaml's round-trip loader (it knows where each case starts
and keeps comments), and the new case is dumped by the suites' writer (`suite_yaml`, which
the importer writes with too) and spliced in as text after the last case of the list:
every byte before the insertion is the file's own, untouched. A file changed since the
page read it (another sha256) is refused rather than merged.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from promptum.suites import YAML_SUFFIXES, suite_yaml, yaml11_text
from promptum.viewer._security import RefusedError

KINDS = ("contains", "not_contains", "expected_behavior")
"""What the reviewer's expectation becomes: a check on the text, or a judge rubric."""
_SOURCE = re.compile(r"^(?P<path>.+):(?P<line>\d+)$")
_ID = re.compile(r"^[\w.\-/ ]{1,200}$")
_NEW_FILE = re.compile(r"^[\w.\-]{1,100}\.ya?ml$")
_NOT_COPIED = frozenset({"test_cases", "cases_from", "redteam"})
"""Keys a new suite does not copy: the source's cases (and generated attacks) are not its."""


@dataclass(frozen=True)
class SourceFile:
    """Where a case was defined: the file (inside the project) and the case's line."""

    path: Path
    line: int

    def sha256(self) -> str:
        """The digest of the file's bytes, what a page sends back to prove what it read."""
        return hashlib.sha256(self.path.read_bytes()).hexdigest()


def locate(source: str | None, root: Path) -> SourceFile:
    """The file of a result's `source` (``file:line``), refused when outside `root`."""
    found = _SOURCE.match(source or "")
    if found is None:
        raise RefusedError(422, "this result has no source file:line (it was not read from a file)")
    path = Path(found["path"])
    full = (path if path.is_absolute() else root / path).resolve()
    if not full.is_relative_to(root.resolve()):
        raise RefusedError(
            403,
            f"{path} is outside {root}, the folder the viewer was started in: start "
            "`promptum view --review` in the suite's project to save cases into it",
        )
    if full.suffix.lower() not in YAML_SUFFIXES:
        raise RefusedError(
            422,
            f"{path} is a {full.suffix or 'suffix-less'} file: save as case appends to YAML "
            "suites and case files only (add a row or a table to it by hand)",
        )
    if not full.is_file():
        raise RefusedError(404, f"{path} does not exist any more")
    return SourceFile(full, int(found["line"]))


def _new_case(original: Mapping[str, Any], case_id: str, kind: str, value: str) -> dict[str, Any]:
    """The case to append: the original's input under `case_id`, with the expectation."""
    if kind not in KINDS:
        raise RefusedError(422, f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    if not value.strip() or len(value) > 4000:
        raise RefusedError(422, "value: give the expected text (1 to 4000 characters)")
    if not _ID.match(case_id):
        raise RefusedError(
            422, f"id {case_id!r}: use letters, digits, '-', '_', '.', '/' or spaces"
        )
    case = {key: _plain(item) for key, item in original.items() if key != "id"}
    case = {"id": yaml11_text(case_id), **case}
    if kind == "expected_behavior":
        case["expected_behavior"] = yaml11_text(value)
    else:
        case["checks"] = [*case.get("checks", []), {"type": kind, "value": yaml11_text(value)}]
    return case


def _plain(value: Any) -> Any:
    """A round-trip node as plain data (the new case is dumped afresh, not copied as text)."""
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value  # a scalar keeps its style (a |-block stays a block)


def _read_cases(text: str) -> tuple[Any, Any]:
    """The document and its list of cases (`test_cases:`, or a case file's top-level list)."""
    from ruamel.yaml.comments import CommentedSeq
    from ruamel.yaml.error import YAMLError

    try:
        document = suite_yaml().load(text)
    except YAMLError as exc:
        raise RefusedError(422, f"the file is not YAML that can be appended to: {exc}") from None
    cases = document.get("test_cases") if isinstance(document, Mapping) else document
    if not isinstance(cases, CommentedSeq) or not cases:
        raise RefusedError(422, "the file has no block list of test_cases to append to")
    if cases.fa.flow_style():
        raise RefusedError(422, "test_cases is written as a [flow] list: write it as a block list")
    return document, cases


def _case_at(cases: Any, line: int) -> Any:
    """The case of `cases` defined at `line` (1-based): the last one starting at or before it."""
    chosen = None
    for index, case in enumerate(cases):
        if cases.lc.item(index)[0] + 1 <= line and isinstance(case, Mapping):
            chosen = case
    if chosen is None:
        raise RefusedError(409, f"no case starts at line {line} any more")
    return chosen


def _insertion(text: str, document: Any, cases: Any) -> tuple[int, int]:
    """Where the new case goes (a character offset) and the column of the list's dashes."""
    lines = re.findall(r"[^\n]*\n|[^\n]+$", text)  # YAML counts lines by \n, not \f or \v
    last_line = cases.lc.item(len(cases) - 1)[0]
    dash = len(lines[last_line]) - len(lines[last_line].lstrip(" "))
    end = len(lines)  # the list runs to the end of the file, or to the next top-level key
    if cases is not document:  # a suite's test_cases, not a case file's top-level list
        keys = list(document)
        position = keys.index("test_cases")
        if position + 1 < len(keys):
            end = document.lc.key(keys[position + 1])[0]
            # Comments and blank lines right above the next key belong to it.
            while end - 1 > last_line and (
                not lines[end - 1].strip() or lines[end - 1].startswith("#")
            ):
                end -= 1
    # A document-end marker (``...``) closes the list too: a case after it would be a
    # second document.
    ender = next((i for i in range(last_line + 1, end) if lines[i].rstrip() == "..."), None)
    return sum(len(line) for line in lines[: end if ender is None else ender]), dash


def _read(source: SourceFile, expected_sha: str) -> str:
    """The file's text, refused (409) unless it is the version the page was shown."""
    data = source.path.read_bytes()
    if not hmac.compare_digest(hashlib.sha256(data).hexdigest(), expected_sha):
        raise RefusedError(
            409,
            f"{source.path.name} changed since the page read it: reload the page and save again",
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise RefusedError(422, f"{source.path.name} is not UTF-8 text") from None


def write_new_suite(
    source: SourceFile, expected_sha: str, name: str, case_id: str, kind: str, value: str
) -> SourceFile:
    """A new suite file `name` beside `source`: its settings, and only the reviewed case.

    Returns where the case is in it, as the page tells the reviewer.

    Beside it, so the settings' relative paths (a target's module, `file://` values) mean
    what they meant; refused (409) when `name` exists, since a new file never overwrites.
    """
    from ruamel.yaml.comments import CommentedMap

    if not _NEW_FILE.match(name):
        raise RefusedError(
            422, f"new file {name!r}: give a file name ending in .yaml, without a folder"
        )
    target = source.path.parent / name
    document, cases = _read_cases(_read(source, expected_sha))
    if not isinstance(document, CommentedMap):
        raise RefusedError(
            422, f"{source.path.name} is a case file (a list of cases): append to it instead"
        )
    suite = CommentedMap((key, item) for key, item in document.items() if key not in _NOT_COPIED)
    if "name" in suite:
        suite["name"] = target.stem  # two suites of one name could not run together
    suite["test_cases"] = [_new_case(_case_at(cases, source.line), case_id, kind, value)]
    buffer = io.StringIO()
    suite_yaml().dump(suite, buffer)
    _, written_cases = _read_cases(buffer.getvalue())
    try:
        with target.open("x", encoding="utf-8") as written:
            written.write(buffer.getvalue())
    except FileExistsError:
        raise RefusedError(409, f"{name} exists already: pick another name") from None
    return SourceFile(target, written_cases.lc.item(0)[0] + 1)


def append_case(
    source: SourceFile, expected_sha: str, case_id: str, kind: str, value: str
) -> SourceFile:
    """Append the reviewed case after the cases of `source`; returns where it now is.

    RefusedError with 409 when the file is not the one the page read (`expected_sha`), or
    already has a case `case_id`.
    """
    text = _read(source, expected_sha)
    document, cases = _read_cases(text)
    if any(isinstance(c, Mapping) and c.get("id") == case_id for c in cases):
        raise RefusedError(
            409, f"{source.path.name} already has a case {case_id!r}: pick another id"
        )
    case = _new_case(_case_at(cases, source.line), case_id, kind, value)
    updated = splice_cases(text, [case])
    _, after = _read_cases(updated)  # still YAML, with the new case last in the list
    if (
        _plain(after[len(after) - 1]) != case
        or len(after) != len(cases) + 1
        or not _reads_back(updated, document is cases, case, kind)
    ):
        raise RefusedError(
            422, "the case could not be appended without changing the file's meaning"
        )
    source.path.write_bytes(updated.encode("utf-8"))
    return SourceFile(source.path, after.lc.item(len(after) - 1)[0] + 1)


def list_end(text: str) -> tuple[int, int]:
    """Where the case list of `text` ends (a character offset) and the column of its dashes."""
    document, cases = _read_cases(text)
    return _insertion(text, document, cases)


def case_block(case: Mapping[str, Any], dash: int) -> str:
    """`case` written by the suites' writer as an item of a list whose dashes are at `dash`.

    A round-trip `case` keeps its styles (flow lists, quotes) and any comments it carries.
    """
    buffer = io.StringIO()
    suite_yaml().dump(case, buffer)
    # Lines end at \n only: str.splitlines would also cut at U+2028, U+0085... inside a text.
    body = buffer.getvalue().removesuffix("\n").split("\n")
    return "".join(
        " " * dash + ("- " if number == 0 else "  ") + line + "\n" if line else "\n"
        for number, line in enumerate(body)
    )


def splice_cases(text: str, added: Sequence[Mapping[str, Any]], notes: Sequence[str] = ()) -> str:
    """`text` with the `added` cases written after its last case; every other byte kept.

    `notes`, one per case when given, are comment lines to write above each.
    """
    offset, dash = list_end(text)
    head = text[:offset]
    if head and not head.endswith("\n"):
        head += "\n"
    blocks = [
        "".join(" " * dash + line.lstrip(" ") for line in note.splitlines(keepends=True))
        + case_block(case, dash)
        for case, note in zip(added, notes or [""] * len(added), strict=True)
    ]
    return head + "".join(blocks) + text[offset:]


def _reads_back(text: str, case_file: bool, case: Mapping[str, Any], kind: str) -> bool:
    """Whether the suite loader's YAML (PyYAML, 1.1) reads the new case's id and expectation."""
    import yaml

    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError:
        return False
    cases = document if case_file or not isinstance(document, dict) else document.get("test_cases")
    added = cases[-1] if isinstance(cases, list) and cases else None
    if not isinstance(added, dict) or added.get("id") != case["id"]:
        return False
    if kind == "expected_behavior":
        return bool(added.get("expected_behavior") == case["expected_behavior"])
    checks = added.get("checks")
    return isinstance(checks, list) and bool(checks) and checks[-1] == case["checks"][-1]
