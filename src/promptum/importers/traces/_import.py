"""`import_traces`: production calls (OTLP GenAI spans, chat logs) in, a suite of cases out."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from promptum.errors import ConfigError
from promptum.importers.traces._call import Call, LeftOutError, Where
from promptum.importers.traces._chat_log import SHAPE, log_call
from promptum.importers.traces._lines import FIX, json_records
from promptum.importers.traces._mask import Masker
from promptum.importers.traces._otlp import span_call, spans
from promptum.importers.traces._sample import Sampler, Stratum
from promptum.importers.traces._suite import (
    Reference,
    case_of,
    cases_text,
    write_suite,
    write_suite_rows,
)

_CHUNK = 200
"""Cases written per call of the suites' writer."""


@dataclass
class TraceImport:
    """What `import_traces` read, left out, sampled, masked and wrote."""

    suite: Path
    rows: Path | None = None
    """The cases' JSON lines, read by the suite (`--rows`)."""
    calls: int = 0
    """Model calls read (spans and logged calls), duplicates and those left out included."""
    other_spans: int = 0
    """Spans that are not a model call (HTTP, tool execution, agent spans...)."""
    skipped: Counter[str] = field(default_factory=Counter)
    """Calls left out, by reason."""
    first_skipped: dict[str, Where] = field(default_factory=dict)
    duplicates: int = 0
    strata: dict[Stratum, tuple[int, int]] = field(default_factory=dict)
    """Per (model, tool called): distinct requests read, and cases kept."""
    masked: Counter[str] = field(default_factory=Counter)
    """Texts masked in the suite, by kind."""
    cases: int = 0
    sampled: bool = False
    masking: bool = True

    def skip(self, where: Where, reason: str) -> None:
        """Count a call left out, and remember where the first of its kind was."""
        self.calls += 1
        self.skipped[reason] += 1
        self.first_skipped.setdefault(reason, where)


def import_traces(
    files: Sequence[Path],
    output: Path,
    sample: int | None = None,
    seed: int = 0,
    mask: bool = True,
    reference: Reference = "judge",
    rows: bool = False,
) -> TraceImport:
    """Read every call of `files`, sample and mask them, and write them as a suite to `output`.

    With `rows`, the cases are JSON lines in a file beside the suite, which reads it with
    `cases_from` (written and loaded many times faster than YAML, for whole-traffic imports).

    Raises ConfigError, located at a file's line, for input of an unknown shape or that
    holds no call to import; `output` is then left as it was.
    """
    try:
        return _imported(files, output, sample, seed, mask, reference, rows)
    except RecursionError:  # json reads ~1,000 levels; masking and writing recurse too
        shown = ", ".join(path.name for path in files)
        raise ConfigError(f"{shown}: a record nests lists or objects too deeply; {FIX}") from None


def _imported(
    files: Sequence[Path],
    output: Path,
    sample: int | None,
    seed: int,
    mask: bool,
    reference: Reference,
    rows: bool,
) -> TraceImport:
    """`import_traces`, but for records nested deeper than Python recurses."""
    report = TraceImport(output, sampled=sample is not None, masking=mask)
    sampler = Sampler(sample, seed)
    for path in files:
        for call in _calls(path, report):
            report.calls += 1
            sampler.offer(call)
    if not sampler.distinct:
        raise ConfigError(_nothing(files, report))
    report.duplicates = sampler.duplicates
    quotas = sampler.quotas()
    report.strata = {s: (n, quotas.get(s, 0)) for s, n in sorted(sampler.distinct.items())}
    masker = Masker() if mask else None
    calls = list(sampler.sample())
    shared = _shared_tools(calls)
    cases = _cases(calls, masker, reference, shared)
    header = _header(files, sample, seed, reference)
    head = _head(reference, masker.value(shared) if masker is not None else shared)
    if rows:
        report.rows = write_suite_rows(output, head, header, _rows(cases))
    else:
        write_suite(output, head, header, _yaml_texts(cases))
    report.cases = len(calls)
    report.masked = masker.counts if masker is not None else Counter()
    return report


def _calls(path: Path, report: TraceImport) -> Iterator[Call]:
    """The model calls of one file, each span or line left out noted in the report."""
    if not path.is_file():
        raise ConfigError(f"{path}: no such file")
    for line, record in json_records(path):
        if not isinstance(record, dict):
            raise ConfigError(
                f"{path.name}:{line}: unknown shape (a JSON {type(record).__name__}); {SHAPE}"
            )
        found = _spans(record, path.name, line) if "resourceSpans" in record else None
        for where, read in found or [(Where(path.name, line), record)]:
            try:
                call = span_call(read, where) if found is not None else log_call(read, where)
            except LeftOutError as exc:
                report.skip(where, str(exc))
                continue
            if call is None:
                report.other_spans += 1
            else:
                yield call


def _spans(record: dict[str, Any], shown: str, line: int) -> list[tuple[Where, dict[str, Any]]]:
    return [
        (Where(shown, line, f"{path} (span {span.get('spanId', '?')})"), span)
        for path, span in spans(record)
    ]


def _nothing(files: Sequence[Path], report: TraceImport) -> str:
    """Why nothing was imported, located at the first call left out (or at the files)."""
    names = ", ".join(path.name for path in files)
    if report.first_skipped:
        reason, where = next(iter(report.first_skipped.items()))
        more = sum(report.skipped.values()) - 1
        also = f" (and {more} more left out)" if more else ""
        return f"{where}: {reason}{also}; no span or line of {names} holds a call to import"
    return (
        f"{names}: no model call found ({report.other_spans} spans without gen_ai attributes); "
        f"{SHAPE}"
    )


def _shared_tools(calls: list[Call]) -> tuple[dict[str, Any], ...]:
    """The tools each call offered, when all offered the same ones: written once, in the suite."""
    offered = {json.dumps(call.tools, sort_keys=True) for call in calls}
    return calls[0].tools if len(offered) == 1 else ()


def _cases(
    calls: list[Call], masker: Masker | None, reference: Reference, shared: tuple[Any, ...]
) -> Iterator[tuple[dict[str, Any], tuple[str, ...]]]:
    """Each call's case, with the comment line saying where it came from."""
    ids: Counter[str] = Counter()
    for call in calls:
        masked = call if masker is None else _masked(call, masker)
        where = call.where
        base = f"span-{call.span_id}" if call.span_id else f"{Path(where.file).stem}-{where.line}"
        ids[base] += 1
        case_id = base if ids[base] == 1 else f"{base}-{ids[base]}"
        said = f"from {where}" + (f", trace {call.trace_id}" if call.trace_id else "")
        yield case_of(replace(masked, tools=()) if shared else masked, case_id, reference), (said,)


def _yaml_texts(cases: Iterator[tuple[dict[str, Any], tuple[str, ...]]]) -> Iterator[str]:
    """The cases' YAML, a chunk at a time: each call of the suites' writer has a cost of its own."""
    while chunk := list(itertools.islice(cases, _CHUNK)):
        yield cases_text(chunk)


def _rows(cases: Iterator[tuple[dict[str, Any], tuple[str, ...]]]) -> Iterator[str]:
    """The cases as JSON lines: the case keys of a data row, the source in the row's tags."""
    for case, _ in cases:
        yield json.dumps(case, ensure_ascii=False) + "\n"


def _masked(call: Call, masker: Masker) -> Call:
    return replace(
        call,
        messages=masker.value(call.messages),
        tools=masker.value(call.tools),
        answer=masker.text(call.answer),
        answer_calls=masker.value(call.answer_calls),
    )


def _head(reference: Reference, tools: tuple[dict[str, Any], ...]) -> dict[str, Any]:
    """The suite's settings: the tools all cases offer; a judge when it grades the answers."""
    head: dict[str, Any] = {"tools": list(tools)} if tools else {}
    return {**head, "judge": {"threshold": 0.7}} if reference == "judge" else head


def _header(
    files: Sequence[Path], sample: int | None, seed: int, reference: Reference
) -> tuple[str, ...]:
    sampled = f", a sample of {sample} (seed {seed})" if sample is not None else ""
    return (
        f"Cases from production calls: promptum import traces {' '.join(p.name for p in files)}"
        f"{sampled}.",
        "Each case replays a call's messages and tools; the answer given then is its reference.",
        *_GRADED[reference],
        "Review each case before keeping it; run with -m MODEL to compare a model with it.",
    )


_GRADED = {
    "judge": (
        "The judge grades each answer against production's: give judge.model a capable model",
        "(the default is the small embedded local/smollm2).",
    ),
    "similar": ("A `similar` check compares each answer with production's (embedding cosine).",),
}
