"""Vars read from files: `{file: path}` is the file's text, `{files: glob}` one case per file.

`{paths: glob}` is one case per file too, its var the file's path (relative to the suite's
folder) instead of its text: for the images, documents and audio a case attaches
(`images: "{{ receipt }}"`), which are read when sent, never as text.

A var whose value is a mapping with the single key `file` or `files` refers to files of the
suite's project, relative to the suite's folder, and refused outside it like `cases_from`.
Its text is a value, never rendered as a template. Each file is read once per load, and its
text shared by every case that uses it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any

from promptum.errors import ConfigError
from promptum.foundations.suggestions import did_you_mean
from promptum.suites._case_files import fixed_parts, is_glob, project_glob
from promptum.suites._data_files import RawCase
from promptum.suites._file_reading import SUITE_BYTES_VARIABLE, project_path, read_document
from promptum.suites._locate import Loc, Locator, problem

FILE = "file"
FILES = "files"
PATHS = "paths"
_MANY = (FILES, PATHS)
"""The kinds that make one case per file matched."""

_TOO_LARGE = (
    "a var's file is read whole into the cases that use it: shorten it, or set "
    f"{SUITE_BYTES_VARIABLE} on the machine that runs the suite"
)
_IN_ROWS = (
    "file references (`{file: ...}`, `{files: ...}`, `{paths: ...}`) are read in YAML suites "
    "and in YAML or TOML case files, not in CSV or JSONL rows (a row is read again when it "
    "runs): give the file to every row in the suite's `vars:`, or move this case to a YAML "
    "case file"
)
_FILES_IN_SUITE = (
    "`files:` and `paths:` make one case per matching file, so they belong in a case's "
    "`vars:`; the suite's `vars:` take `file:`, one file's text for every case"
)


def reference(value: Any) -> tuple[str, Any] | None:
    """`(file or files, what it names)` when a var's value refers to files, else None."""
    if isinstance(value, dict) and len(value) == 1:
        kind = next(iter(value))
        if kind in (FILE, *_MANY):
            return kind, value[kind]
    return None


def _has_reference(variables: Any) -> bool:
    if not isinstance(variables, dict) or dict not in map(type, variables.values()):
        return False  # most cases, and every CSV row: checked at C speed, a row at a time
    return any(map(reference, variables.values()))


@dataclass(slots=True)
class _Match:
    """One file a `files:` glob matched: the end of its case's id, and its text."""

    suffix: str
    text: str


@dataclass(slots=True)
class FileVars:
    """Reads the file references of one suite's vars, collecting their located problems."""

    folder: Path
    """The suite's folder: the paths are relative to it."""
    problems: list[str]
    files: list[Path] = field(default_factory=list)
    """Every file read, in order of first use (what `--watch` watches)."""
    _texts: dict[Path, str] = field(default_factory=dict)
    """Each file's text by its resolved path: read once, whatever the number of cases."""

    def suite_vars(self, variables: Mapping[str, Any], locator: Locator) -> dict[str, Any]:
        """The suite's `vars:` with each `file:` read; a `files:` there is a problem."""
        read = dict(variables)
        for name, value in variables.items():
            found = reference(value)
            if found is None:
                continue
            kind, source = found
            loc: Loc = ("vars", name, kind)
            if kind in _MANY:
                self._problem(locator, loc, _FILES_IN_SUITE)
                read[name] = ""
            else:
                read[name] = self._read(source, locator, loc) or ""
        return read

    def cases(self, raw_cases: Iterable[RawCase]) -> Iterator[RawCase]:
        """Each case with its vars' files read; a case with `files:` once per file matched."""
        for raw in raw_cases:
            if _has_reference(raw.data.get("vars") if isinstance(raw.data, dict) else None):
                yield from self._expanded(raw)
            else:
                yield raw

    def refused(self, raw_cases: Iterable[RawCase]) -> Iterator[RawCase]:
        """Data rows as they are, each file reference in one a problem."""
        for raw in raw_cases:
            variables = raw.data.get("vars")
            if isinstance(variables, dict) and _has_reference(variables):
                for name, value in variables.items():
                    if reference(value) is not None:
                        self._problem(raw.locator, ("vars", name), _IN_ROWS)
            yield raw

    def _expanded(self, raw: RawCase) -> Iterator[RawCase]:
        variables, many = self._resolved(raw)
        case_id = raw.data.get("id") or raw.default_id
        if many is None or not isinstance(case_id, str):
            if many is not None:  # no id to extend: checked once, and its id's problem reported
                variables[many[0]] = many[1][0].text
            yield RawCase({**raw.data, "vars": variables}, raw.locator, raw.default_id)
            return
        name, matched = many
        for match in matched:
            data = {**raw.data, "id": f"{case_id}-{match.suffix}"}
            data["vars"] = {**variables, name: match.text}
            yield RawCase(data, raw.locator, None)

    def _resolved(self, raw: RawCase) -> tuple[dict[str, Any], tuple[str, list[_Match]] | None]:
        """The case's vars with each `file:` read, and its `files:` var with what it matches."""
        variables: dict[str, Any] = dict(raw.data["vars"])
        many: tuple[str, list[_Match]] | None = None
        for name, value in raw.data["vars"].items():
            found = reference(value)
            if found is None:
                continue
            kind, source = found
            loc: Loc = ("vars", name, kind)
            variables[name] = ""  # what the case is checked with when the files fail
            if kind == FILE:
                variables[name] = self._read(source, raw.locator, loc) or ""
            elif many is not None:
                message = (
                    f"a case makes one case per file of one `files:` or `paths:` var, and "
                    f"`{many[0]}` already does: give this var `file:`, or split the case in two"
                )
                self._problem(raw.locator, loc, message)
            else:
                matched = self._matches(source, raw.locator, loc, read=kind == FILES)
                if matched:
                    many = name, matched
        return variables, many

    def _matches(self, pattern: Any, locator: Locator, loc: Loc, read: bool) -> list[_Match]:
        """The files `pattern` matches, sorted, each with its text (`read`) or its path.

        [] after a problem.
        """
        if not isinstance(pattern, str) or not pattern:
            message = f"`{loc[-1]}:` takes a glob pattern such as docs/*.md (got {pattern!r})"
            self._problem(locator, loc, message)
            return []
        names = self._file_names(pattern, locator, loc)
        if not names:
            return []
        fixed = fixed_parts(pattern)
        matched: list[_Match] = []
        seen: dict[str, str] = {}
        for name in names:
            parts = PurePath(name).parts[fixed:]
            suffix = "-".join((*parts[:-1], PurePath(parts[-1]).stem))
            other = seen.setdefault(suffix, name)
            if other != name:
                self._problem(
                    locator,
                    loc,
                    f"{other} and {name} would both make the case id ending `-{suffix}`: "
                    "narrow the pattern (such as *.md) or rename one of them",
                )
                return []
            text = self._read(name, locator, loc) if read else name
            if text is None:
                return []
            matched.append(_Match(suffix, text))
        return matched

    def _file_names(self, pattern: str, locator: Locator, loc: Loc) -> list[str]:
        """The names of the files (not folders) `pattern` matches; [] after a problem."""
        try:
            found = project_glob(self.folder, pattern)
        except ConfigError as exc:  # its folder is out of the project
            self._problem(locator, loc, str(exc))
            return []
        names = [name for name in found if not (self.folder / name).is_dir()]
        if not names:
            where = "matches no file" if is_glob(pattern) else "is not a file"
            self._problem(
                locator,
                loc,
                f"{pattern!r} {where}: the pattern is relative to the suite's folder, "
                f"{self.folder.absolute()} (`*` matches within a folder, `**` across folders)",
            )
        return names

    def _read(self, source: Any, locator: Locator, loc: Loc) -> str | None:
        """The text of the file `source` names; None after a problem."""
        if not isinstance(source, str) or not source:
            message = f"`file:` takes a path relative to the suite's folder (got {source!r})"
            self._problem(locator, loc, message)
            return None
        try:
            path = project_path(self.folder, source)
            key = path.resolve()
            if key not in self._texts:
                if not os.path.lexists(path):
                    raise ConfigError(self._missing(source))
                self._texts[key] = read_document(path, _TOO_LARGE)
                self.files.append(path)
        except ConfigError as exc:
            self._problem(locator, loc, str(exc))
            return None
        return self._texts[key]

    def _missing(self, source: str) -> str:
        """Why `source` cannot be read: it does not exist; and the closest file that does."""
        path = self.folder / source
        try:
            siblings = [entry.name for entry in os.scandir(path.parent)]
        except OSError:
            siblings = []
        shown = {name: str(PurePath(source).with_name(name)) for name in siblings}
        hint = did_you_mean(path.name, shown)
        return (
            f"{source!r}: no such file (a `file:` path is relative to the suite's folder, "
            f"{self.folder.absolute()}).{hint}"
        )

    def _problem(self, locator: Locator, loc: Loc, message: str) -> None:
        self.problems.append(problem(locator, loc, message))
