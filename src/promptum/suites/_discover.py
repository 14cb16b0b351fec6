"""Finding the suites of a folder: YAML suites and TOML case folders, found recursively."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from promptum.errors import ConfigError
from promptum.suites._case_files import source_paths
from promptum.suites._file_reading import read_document, resolved, unreadable
from promptum.suites._yaml_reader import YAML_SUFFIXES, read_yaml

SUITE_KEYS = ("test_cases", "cases_from")
"""A YAML file with one of these top-level keys is a suite; any other YAML is not."""
_SUITE_WORD = re.compile(r"\b(?:test_cases|cases_from)\b")
"""A YAML file that does not load is taken for a broken suite when it holds one of these."""
_SECOND_DOCUMENT = "but found another document"
_TOML_CASE_KEYS = ("query", "messages")
_A_LIST = "not a suite: a list"
_SKIPPED_FOLDERS = frozenset({"node_modules", "__pycache__", "venv", "site-packages"})
"""Besides hidden folders (``.git``, ``.venv``, ``.promptum``): never suites, often huge."""


@dataclass(slots=True)
class Discovery:
    """The suites found under the paths given, and the files passed over with the reason."""

    suites: list[Path] = field(default_factory=list)
    skipped: list[tuple[Path, str]] = field(default_factory=list)
    names: dict[Path, str] = field(default_factory=dict)
    """The name of each suite found inside a folder searched: its path there (`suite_name`)."""


def suite_name(path: Path, folder: Path) -> str | None:
    """The name of a suite without `name:` found in `folder`: its path there, less `.yaml`.

    Teams keep one `suite.yaml` per folder: `team-a/suite` and `team-b/suite` are two names.
    None for `folder` itself, named as a suite given by itself is (its file or folder name).
    """
    relative = path.relative_to(folder)
    if relative == Path():
        return None
    if path.suffix.lower() in YAML_SUFFIXES:
        relative = relative.with_suffix("")
    return relative.as_posix()


def _children(folder: Path) -> list[Path]:
    """The entries of `folder` in name order; ConfigError, saying why, if it cannot be listed."""
    try:
        return sorted(folder.iterdir())
    except OSError as exc:
        raise unreadable(folder, exc, "folder") from None


def _walk(folder: Path, skipped: list[tuple[Path, str]]) -> Iterator[Path]:
    """Every file and folder below `folder`, in name order, skipping hidden and tool folders.

    A folder below it that cannot be listed is skipped, with the reason: a repository may
    hold folders of other users' (a database's volume) where no suite is expected.
    """
    for child in _children(folder):
        if child.name.startswith(".") or child.name in _SKIPPED_FOLDERS:
            continue
        yield child
        if child.is_dir() and not child.is_symlink():
            try:
                yield from _walk(child, skipped)
            except ConfigError as exc:
                skipped.append((child, f"not searched: {str(exc).removeprefix(f'{child}: ')}"))


def _same(path: Path) -> Path:
    """`path` with its links followed, or as given when they lead nowhere (loading says so)."""
    try:
        return resolved(path)
    except ConfigError:
        return path


def _sources(path: Path, data: dict[str, Any]) -> set[Path]:
    """The folders and files a suite reads through `cases_from`: its data, not suites."""
    written = data.get("cases_from") or []
    items = [written] if isinstance(written, str) else written
    if not isinstance(items, list):
        return set()
    found: set[Path] = set()
    for item in items:
        if not isinstance(item, str):
            continue
        try:
            found.update(map(_same, source_paths(path, item)))  # a glob: what it matches
        except ConfigError:
            found.add(_same(path.parent / item))  # loading the suite says what is wrong
    return found


def _broken_kind(path: Path, error: ConfigError) -> str | None:
    """Why a YAML file that does not load is not a suite; None when it may be one.

    A file that names no suite key anywhere (a Kubernetes manifest of several documents, a
    Helm template) is not a suite; one that does, or cannot be read, is reported as broken.
    """
    try:
        text = read_document(path)
    except ConfigError:
        return None
    if _SUITE_WORD.search(text):
        return None
    cause = error.__cause__
    if isinstance(cause, yaml.MarkedYAMLError) and cause.problem == _SECOND_DOCUMENT:
        return "not a suite: several YAML documents (`---`), none with `test_cases`"
    return "not a suite: it does not load as YAML, and never says `test_cases` or `cases_from`"


def _yaml_kind(path: Path) -> tuple[str | None, set[Path]]:
    """Why the YAML file is not a suite (None when it is one), and the data it reads."""
    try:
        data, _ = read_yaml(path)
    except ConfigError as exc:
        return _broken_kind(path, exc), set()  # a suite, its error reported when it loads
    if isinstance(data, list):
        return f"{_A_LIST} (a YAML case file? a suite reads one with `cases_from`)", set()
    if not isinstance(data, dict):
        return "not a suite: not a mapping", set()
    if not any(key in data for key in SUITE_KEYS):
        return "not a suite: no `test_cases` or `cases_from`", set()
    return None, _sources(path, data)


def _is_case_file(path: Path) -> bool:
    try:
        data = tomllib.loads(read_document(path))
    # ValueError: a TOML error, or a number too long for int().
    except (OSError, ValueError, ConfigError, RecursionError):
        return True  # unreadable: loading the folder says what is wrong with it
    return any(key in data for key in _TOML_CASE_KEYS)


def is_case_folder(folder: Path) -> bool:
    """Whether a folder is a TOML case folder: a `.toml` file in it holds a `query`/`messages`."""
    return any(_is_case_file(path) for path in sorted(folder.glob("*.toml")))


def _is_yaml(path: Path) -> bool:
    """Whether `path` is a YAML file, or a link named like one that leads nowhere."""
    if path.suffix.lower() not in YAML_SUFFIXES:
        return False
    # A link to itself or to a missing file may well be a suite: reading it says what is wrong.
    return path.is_file() or (path.is_symlink() and not path.exists())


def _search(folder: Path, found: Discovery) -> None:
    yaml_files: list[Path] = []
    toml_folders: list[Path] = []
    for path in [folder, *_walk(folder, found.skipped)]:
        if _is_yaml(path):
            yaml_files.append(path)
        elif path.is_dir() and any(path.glob("*.toml")):
            toml_folders.append(path)
    data: set[Path] = set()
    kinds = []
    for path in yaml_files:
        reason, sources = _yaml_kind(path)
        data |= sources
        kinds.append((path, reason))
    for path, reason in kinds:
        if reason is None:
            _found(found, path, folder)
        elif _same(path) not in data:  # a case file a suite reads is no news
            found.skipped.append((path, reason))
    for path in toml_folders:
        if _same(path) in data:
            continue  # read by a suite's `cases_from`
        if is_case_folder(path):
            _found(found, path, folder)
        else:
            found.skipped.append((path, "not a case folder: no .toml file has `query`/`messages`"))


def case_data(paths: Iterable[Path]) -> set[Path]:
    """Which of the YAML `paths` are cases, not suites: files a suite among them reads, lists."""
    data: set[Path] = set()
    lists: set[Path] = set()
    for path in paths:
        if not _is_yaml(path):
            continue
        reason, sources = _yaml_kind(path)
        data |= sources
        if reason is not None and reason.startswith(_A_LIST):
            lists.add(_same(path))
    return {path for path in paths if _same(path) in data | lists}


def _found(found: Discovery, path: Path, folder: Path) -> None:
    found.suites.append(path)
    name = suite_name(path, folder)
    if name is not None:
        found.names.setdefault(path, name)  # a suite under two folders given: the first names it


def find_suites(paths: Iterable[Path]) -> Discovery:
    """The suites the paths name: a suite file, a TOML case folder, or a folder searched for both.

    A folder holding ``*.toml`` case files and no YAML is a case folder, as before; any other
    folder is searched recursively, and the suites found in it are named by their path there
    (`names`). Raise ConfigError when a path names no suite, or a folder given cannot be read.
    """
    found = Discovery()
    for path in paths:
        if not path.is_dir():
            found.suites.append(path)  # loading it says what is wrong, if anything
            continue
        if is_case_folder(path) and not any(_walk_yaml(path)):
            found.suites.append(path)
            continue
        before = len(found.suites)
        _search(path, found)
        if len(found.suites) == before:
            raise ConfigError(
                f"{path}: no suite found in this folder (looked for *.yaml and *.yml files with "
                "`test_cases` or `cases_from`, and folders of .toml case files)"
            )
    return found


def _walk_yaml(folder: Path) -> Iterator[Path]:
    return (path for path in _walk(folder, []) if _is_yaml(path))
