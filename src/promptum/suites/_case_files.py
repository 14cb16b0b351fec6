"""The sources `cases_from` names: globs expanded, and YAML case files (lists of cases) read.

A YAML case file holds what a suite's `test_cases:` holds, a list of cases, and is read a
case at a time like it (`read_yaml`); its errors are located in that file. Other sources
(CSV, JSONL, TOML case files and folders) are read by `_data_files`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path, PurePath

from promptum.errors import ConfigError
from promptum.suites._data_files import CaseFilesError, RawCase
from promptum.suites._data_files import case_source as _row_source
from promptum.suites._file_reading import project_path, read_document, resolved
from promptum.suites._yaml_reader import CASES_KEY, YAML_SUFFIXES, parse_yaml

_MAGIC = re.compile(r"[*?[]")


def is_glob(pattern: str) -> bool:
    """Whether `pattern` has a wildcard (`*`, `?`, `[...]`)."""
    return _MAGIC.search(pattern) is not None


def project_glob(folder: Path, pattern: str) -> list[str]:
    """What `pattern` matches relative to `folder` (`**` spans folders), sorted.

    A pattern whose folder is out of the project is refused before anything is listed (an
    absolute `/**` would search the whole machine); a match is only a name, still refused
    by `project_path` when it is a link leading out.
    """
    fixed = str(PurePath(*PurePath(pattern).parts[: fixed_parts(pattern)]))
    try:
        project_path(folder, fixed)
    except ConfigError:
        raise ConfigError(
            f"{pattern!r} searches {resolved(folder / fixed)}, outside the suite's folder and "
            "the working directory; a suite reads data only from its own project: move the "
            "files into it"
        ) from None
    # pathlib's `**` does not follow links to folders: `glob.glob` does, and two committed
    # links to `.` would make it list 2**40 paths. Names starting with `.` are matched only
    # when the pattern asks for them, as `glob.glob` does.
    rest = PurePath(*PurePath(pattern).parts[fixed_parts(pattern) :])
    wanted = any(_hidden(part) for part in rest.parts)
    names = [
        str(match if PurePath(pattern).is_absolute() else match.relative_to(folder))
        for match in (folder / fixed).glob(str(rest))
        if wanted or not any(map(_hidden, match.relative_to(folder / fixed).parts))
    ]
    return sorted(names)


def _hidden(name: str) -> bool:
    return name.startswith(".") and name not in (".", "..")


def fixed_parts(pattern: str) -> int:
    """How many leading folders of `pattern` have no wildcard: the folder its matches are in."""
    parts = PurePath(pattern).parts[:-1]
    return next((i for i, part in enumerate(parts) if is_glob(part)), len(parts))


def source_paths(suite: Path, source: str) -> list[Path]:
    """The paths one `cases_from` entry names: itself, or what its glob matches, sorted.

    A path that exists as written is taken as written, even with glob characters in its name.
    Raises ConfigError for a glob that matches nothing, or a path out of the project.
    """
    folder = suite.parent
    if not is_glob(source) or os.path.lexists(folder / source):
        return [project_path(folder, source)]
    itself = resolved(suite)
    # `*.yaml` beside the suite matches the suite too: it is not one of its own case files.
    matches = [m for m in project_glob(folder, source) if resolved(folder / m) != itself]
    if not matches:
        raise ConfigError(
            f"{source!r} matches no file or folder: the pattern is relative to the suite's "
            f"folder, {folder.absolute()} (`*` matches within a folder, `**` across folders); "
            "correct it or remove it"
        )
    return [project_path(folder, match) for match in matches]


def case_source(path: Path) -> Iterator[RawCase]:
    """The cases of a `cases_from` source: CSV, JSONL, a YAML or TOML case file, a folder."""
    if path.suffix.lower() in YAML_SUFFIXES and not path.is_dir():
        return yaml_cases(path)
    return _row_source(path)


def yaml_cases(path: Path) -> Iterator[RawCase]:
    """Each case of a YAML case file, located in it; its id defaults to `<file>-<number>`.

    A file that cannot be read, or holds no case, is a ConfigError (reported at its
    `cases_from` line); what is wrong inside it is a CaseFilesError located in the file,
    raised after its readable cases.
    """
    text = read_document(path)
    try:
        data, locator, problems = parse_yaml(text, path)
    except ConfigError as exc:
        raise CaseFilesError([str(exc)]) from None
    if isinstance(data, dict) and (CASES_KEY in data or "cases_from" in data):
        raise CaseFilesError(
            [
                f"{locator.at(())}: this is a suite, not a case file: a case file of "
                "`cases_from` is a list of cases (`- id: ...`); run the suite by itself, or "
                "move its cases into a list"
            ]
        )
    if data is not None and not isinstance(data, list):
        kind = "mapping" if isinstance(data, dict) else type(data).__name__
        raise CaseFilesError(
            [
                f"{locator.at(())}: a YAML case file of `cases_from` is a list of cases, as "
                f"under `test_cases:` (`- id: ...`, `query: ...`), not a {kind}"
            ]
        )
    if not data:
        raise ConfigError(
            f"{path}: the YAML case file holds no case; add one (`- id: ...`), or remove it "
            "from `cases_from`"
        )
    for index in range(len(data)):
        # Not held once taken: each case is read once, then built.
        case, data[index] = data[index], None
        yield RawCase(case, locator.within((index,)), f"{path.stem}-{index + 1}")
    if problems:
        raise CaseFilesError(problems)
