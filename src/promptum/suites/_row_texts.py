"""What loading a data file learnt of its copied rows, kept for the plan in a temporary file.

Loading renders each row copied from its file's prototype case (to validate it); the plan
needs the same texts for its fingerprint. Rather than reading and rendering the rows once
more, loading writes each such row's own part of the fingerprint (`own_text`), a line a
row, to an unnamed temporary file (disk, not memory: a million short rows take ~90 MB),
and the plan reads it back a block at a time. A row built in full has an empty line: the plan
reads it from the data file, as it reads any row whose copy it cannot vouch for.
"""

from __future__ import annotations

import io
import itertools
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from functools import partial
from typing import Protocol

from promptum.cases import CopiedRow, CopiedRun, PlanItem, TestCase
from promptum.suites._data_files import RawCase, RowFile

_FLUSH_LINES = 1024
"""Lines gathered before a write to the temporary file."""
_BLOCK_BYTES = 1 << 17
"""The plan reads the temporary file this many bytes at a time (~1,700 rows: their texts
with their frames, hashed at once, take some megabytes)."""


class RowBuild(Protocol):
    """Builds a data row's cases (one per prompt variant), or reads it for a plan."""

    def __call__(self, raw: RawCase) -> Sequence[TestCase]:
        """Row `raw`'s cases."""
        ...

    def plan(self, raw: RawCase) -> Sequence[TestCase] | CopiedRow:
        """Row `raw`'s cases, or the `CopiedRow` standing for its one case."""
        ...

    def copying(self, keys: frozenset[str]) -> TestCase | None:
        """The case rows setting `keys` are copied from; None while they are built in full."""
        ...


def planned_rows(build: RowBuild, raws: Iterable[RawCase]) -> Iterator[TestCase | CopiedRow]:
    """Each row of `raws` as a plan reads it: its cases, or the copy standing for its case."""
    for raw in raws:
        item = build.plan(raw)
        if isinstance(item, CopiedRow):
            yield item
        else:
            yield from item


class RowTexts:
    """The fingerprint texts of a data file's copied rows, a line per row (see the module)."""

    def __init__(self, rows: RowFile) -> None:
        self.rows = rows
        self.keys: frozenset[str] | None = None
        """The keys every copied row sets (its prototype's)."""
        self.copied = 0
        self._written = 0
        """Lines given so far (those pending included)."""
        self._pending: list[str] = []
        self._file: io.BufferedRandom | None = None
        self._failed = False
        """The temporary file could not be written: the plan reads the rows, as it did."""

    def add(self, keys: frozenset[str], text: str) -> None:
        """Note the text of the row the data file was last read at, copied from `keys`' case."""
        if self._failed:
            return
        index = len(self.rows.lines) - 1  # the row scanned last, the one being loaded
        if index < self._written or (self.keys is not None and keys != self.keys):
            self._fail()  # a row noted twice, two prototypes: never, but not trusted if it were
            return
        self.keys = keys
        pending = self._pending
        if index > self._written:  # the rows in between were built in full
            pending.append("\n" * (index - self._written))
        pending.append(text + "\n")
        self._written = index + 1
        self.copied += 1
        if len(pending) >= _FLUSH_LINES:
            self._flush()

    def finished(self) -> RowTexts | None:
        """These texts, with a line for every row of the file; None if no row was copied."""
        if len(self.rows) > self._written:
            self._pending.append("\n" * (len(self.rows) - self._written))
            self._written = len(self.rows)
        if self.copied and not self._failed:
            self._flush()
        if self._file is not None and not self._failed:
            try:
                self._file.flush()
                return self
            except OSError:
                pass
        self.close()
        return None

    def close(self) -> None:
        """Remove the temporary file."""
        if self._file is not None:
            self._file.close()
            self._file = None

    def __del__(self) -> None:
        self.close()

    def _flush(self) -> None:
        if not self._pending:
            return
        try:
            if self._file is None:
                # Unnamed where the system allows it: gone when closed or when the process ends.
                self._file = tempfile.TemporaryFile(prefix="promptum-rows-")  # noqa: SIM115
            # The texts are JSON written by `encode_basestring_ascii`: ASCII only.
            self._file.write("".join(self._pending).encode("ascii"))
        except OSError:  # no temporary folder, or a full disk: nothing is lost but time
            self._fail()
        self._pending.clear()

    def _fail(self) -> None:
        """Keep no texts: the plan reads every row from the data file, as it did before."""
        self._failed = True
        self._pending.clear()
        self.close()

    def planned(self, build: RowBuild, file: io.FileIO) -> Iterator[PlanItem]:
        """Every row as a plan reads it: copied ones as runs of texts, others from `file`."""
        index = 0
        for block in self._blocks():
            if block[0] != "\n" and "\n\n" not in block:  # every row copied: the usual block
                count = block.count("\n")
                yield from self._run(build, file, index, count, block)
                index += count
                continue
            lines = block[:-1].split("\n")
            for copied, group in itertools.groupby(lines, key=bool):
                texts = list(group)
                if copied:
                    yield from self._run(build, file, index, len(texts), "\n".join(texts) + "\n")
                else:
                    yield from self._read(build, file, index, index + len(texts))
                index += len(texts)
        if index != len(self.rows):  # a line per row was written: anything else is a bug
            raise RuntimeError(f"{index} texts for the {len(self.rows)} rows of {self.rows.path}")

    def _run(
        self, build: RowBuild, file: io.FileIO, first: int, count: int, text: str
    ) -> Iterator[PlanItem]:
        """Rows `first` to `first + count`, copied when loaded: one run, if still copied."""
        read = partial(self._read, build, file, first, first + count)
        base = None if self.keys is None else build.copying(self.keys)
        if base is None:  # the plan's builder does not copy them (yet): it reads them
            yield from read()
            return
        yield CopiedRun(base, count, text, read)

    def _read(
        self, build: RowBuild, file: io.FileIO, first: int, last: int
    ) -> Iterator[TestCase | CopiedRow]:
        """Rows `first` to `last` read from the data file, as a plan reads them."""
        return planned_rows(build, self.rows.rows(file, first, last))

    def _blocks(self) -> Iterator[str]:
        """The texts, in blocks of whole lines."""
        if self._file is None:
            raise RuntimeError("RowTexts read before it was finished")
        file = self._file
        offset, rest = 0, b""
        while True:
            file.seek(offset)  # each time: two plans may read it in turn
            data = file.read(_BLOCK_BYTES)
            if not data:
                break
            offset += len(data)
            data = rest + data
            end = data.rfind(b"\n") + 1
            rest = data[end:]
            if end:
                yield data[:end].decode("ascii")
        if rest:
            raise RuntimeError("the rows' temporary file ends inside a line")
