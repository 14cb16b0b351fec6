"""Reading a suite's own files safely: regular files only, within the machine's limits.

Every reader of the suites (YAML, TOML, CSV, JSONL, prompt files) opens files through here:
a path is refused when it leads out of the project, is not a regular file (a pipe could
block), or is larger than a limit that only the environment of the machine running the
suite can raise; an unreadable file is a ConfigError that says where, why and what to do.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from pathlib import Path

from promptum.errors import ConfigError
from promptum.foundations.environment import positive_int

MAX_DATA_BYTES = 256 * 1024 * 1024
"""The largest CSV or JSONL file read, unless `PROMPTUM_MAX_DATA_BYTES` says otherwise.

Rows are read one at a time and built again when run, so memory does not limit it; a
suite file cannot raise the limit, the machine running it can.
"""

DATA_BYTES_VARIABLE = "PROMPTUM_MAX_DATA_BYTES"

MAX_DOCUMENT_BYTES = 16 * 1024 * 1024
"""The largest YAML suite or TOML case file, unless `PROMPTUM_MAX_SUITE_BYTES` says otherwise.

Each is parsed whole, into many times its size; like the data limit, only the environment
of the machine running the suite can raise it, never a file.
"""

SUITE_BYTES_VARIABLE = "PROMPTUM_MAX_SUITE_BYTES"


_NOT_FILES = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
    (stat.S_ISSOCK, "a socket"),
)


_LINK_HINT = "point the link at the real file, or put the file in its place"


def _reason(path: Path, exc: OSError) -> str:
    """Why `path` cannot be read, in words, with what to do about it."""
    if exc.errno == errno.ELOOP:
        return f"it is a symbolic link that leads back to itself; {_LINK_HINT}"
    if exc.errno == errno.ENOENT and os.path.islink(path):
        return f"it is a symbolic link to a file that does not exist; {_LINK_HINT}"
    if exc.errno == errno.ENOENT:
        return "no such file or folder"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied; make it readable by the user that runs promptum"
    return exc.strerror or str(exc)


def unreadable(path: Path, exc: OSError | UnicodeDecodeError, what: str = "file") -> ConfigError:
    """The error for a file that cannot be opened or read: where, why, and what to do."""
    if isinstance(exc, UnicodeDecodeError):
        reason = f"not UTF-8 text (byte {exc.start + 1} is not UTF-8); save it as UTF-8"
    else:
        reason = _reason(path, exc)
    return ConfigError(f"{path}: cannot read the {what}: {reason}")


def stat_of(path: Path) -> os.stat_result:
    """`path`'s status, following links; ConfigError if it has none (missing, a link loop)."""
    try:
        return os.stat(path)
    except OSError as exc:
        raise unreadable(path, exc) from None


def resolved(path: Path) -> Path:
    """`path` with its links followed; ConfigError if they cannot be (a loop of links)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # Python 3.11 and 3.12 raise RuntimeError for a loop
        stat_of(path)  # says why
        raise  # pragma: no cover - a path that cannot be resolved has no status either


def data_path(suite: Path, source: str) -> Path:
    """The `cases_from` source beside `suite`; refused when it leads out of the project.

    A suite is data from a pull request: it may read the project's files (its own folder
    or the working directory, the repository in CI), not the machine's, whose contents
    would otherwise reach prompts sent to a model.
    """
    return project_path(suite.parent, source)


def project_path(folder: Path, source: str) -> Path:
    """`source` relative to a suite's `folder`; refused when it leads out of the project."""
    path = folder / source
    target = resolved(path)  # symlinks too: a committed link could point anywhere
    roots = {folder.resolve(), Path.cwd().resolve()}
    if not any(target.is_relative_to(root) for root in roots):
        raise ConfigError(
            f"{source!r} is {target}, outside the suite's folder and the working "
            "directory; a suite reads data only from its own project: move the file into it"
        )
    return path


def env_limit(variable: str, default: int, unit: str = "bytes") -> int:
    """A size limit: the positive integer the machine's environment sets, else `default`."""

    def refuse(raw: str) -> Exception:
        return ConfigError(f"{variable} must be a positive number of {unit}, got {raw!r}")

    return positive_int(variable, default, refuse)


def max_data_bytes() -> int:
    """The size limit of CSV and JSONL files: `PROMPTUM_MAX_DATA_BYTES`, else MAX_DATA_BYTES."""
    return env_limit(DATA_BYTES_VARIABLE, MAX_DATA_BYTES)


def max_suite_bytes() -> int:
    """The size limit of YAML suites and TOML case files (`PROMPTUM_MAX_SUITE_BYTES`)."""
    return env_limit(SUITE_BYTES_VARIABLE, MAX_DOCUMENT_BYTES)


DATA_HINT = f"split it, or set {DATA_BYTES_VARIABLE} on the machine that runs it"
_DOCUMENT_HINT = (
    f"move the cases to a CSV or JSONL file read with `cases_from`, or set "
    f"{SUITE_BYTES_VARIABLE} on the machine that runs it"
)


def refuse_file(path: Path, mode: int, size: int, limit: int, hint: str = _DOCUMENT_HINT) -> None:
    """Raise ConfigError unless `mode` is a regular file's and `size` is within `limit`."""
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _NOT_FILES if test(mode)), "not a regular file")
        raise ConfigError(
            f"{path}: this is {kind}, not a regular file; suites and cases are read only "
            "from regular files (a pipe or device could block or never end)"
        )
    if size > limit:
        raise ConfigError(
            f"{path}: the file has {size:,} bytes, over the limit of {limit:,}; {hint}"
        )


def open_regular(path: Path, limit: int, hint: str = _DOCUMENT_HINT) -> int:
    """A file descriptor of `path`, refused unless it is a regular file of at most `limit` bytes.

    Checked before opening (opening a pipe blocks, opening some devices acts) and again on
    what was opened, in case the path was swapped in between.
    """
    before = stat_of(path)
    refuse_file(path, before.st_mode, before.st_size, limit, hint)
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise unreadable(path, exc) from None
    try:
        opened = os.fstat(descriptor)
        refuse_file(path, opened.st_mode, opened.st_size, limit, hint)
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


def read_document(path: Path, hint: str = _DOCUMENT_HINT) -> str:
    """The text of a whole-file document (a suite, a TOML case), refused past its limit.

    Raises ConfigError, located, for a file that is missing, not regular, too large,
    unreadable or not UTF-8; `hint` says what to do about one too large.
    """
    limit = max_suite_bytes()
    descriptor = open_regular(path, limit, hint)
    try:
        with open(descriptor, "rb") as handle:
            # What the file holds, not the limit: reading allocates what it is asked for.
            size = os.fstat(handle.fileno()).st_size
            data = handle.read(size + 1)
            if len(data) > size:  # the file grew since it was checked
                data += handle.read(limit + 1 - len(data))
        if len(data) > limit:
            refuse_file(path, stat.S_IFREG, len(data), limit, hint)
        # A byte-order mark (Windows editors write one) is not text: YAML skips it, TOML not.
        text = data.decode("utf-8").removeprefix("\ufeff")
    except (OSError, UnicodeDecodeError) as exc:
        raise unreadable(path, exc) from None
    # Newlines as Path.read_text gives them, so line numbers in messages stay the same.
    return text.replace("\r\n", "\n").replace("\r", "\n")


def too_long_number() -> str:
    """What is wrong with a whole number too long for Python to read (it refuses, not promptum)."""
    digits = sys.get_int_max_str_digits()
    return f"a number has more than {digits:,} digits, more than Python reads"


def long_number(where: str) -> ConfigError:
    """The error for a whole number at `where` too long for Python to read."""
    return ConfigError(f"{where}: {too_long_number()}; quote it to keep it as text")
