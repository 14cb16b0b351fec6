"""JSON: the whole `RunResult` through its pydantic model, and loading it back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TextIO

from pydantic import ValidationError

from promptum.errors import ConfigError
from promptum.foundations.model_json import model_json
from promptum.foundations.redaction import redact
from promptum.reporting._indented import indented
from promptum.reporting._metrics import json_figures
from promptum.reporting._numbers import rounded
from promptum.reporting._source import ReportSource, rendered
from promptum.reporting._stored import legacy_views, stored_items
from promptum.values.asr import AttackRates
from promptum.values.reviews import ReviewsOf
from promptum.values.run_result import CaseResult, RunResult


def _item(result: CaseResult, reviews: ReviewsOf = ()) -> str:
    """One result as the JSON report writes it, at the depth of the ``results`` list."""
    result = rounded(result)
    data = json.loads(model_json(result))
    data.update(legacy_views(data["grades"]))
    if reviews:  # people's reviews, beside the grades; absent when there are none
        data["reviews"] = [review.brief() for review in reviews]
    return indented(data).replace("\n", "\n    ")


def _asr_entry(rates: AttackRates, source: ReportSource) -> dict[str, Any]:
    """The ``asr`` entry of a run with red-team results."""
    # Imported for such a run only: the rates' reporting reads the detectors' measured
    # quality, modules every other `-o r.json` would load for an empty entry.
    from promptum.reporting._asr import detector_corrections, json_asr

    return json_asr(rates, detector_corrections(rates, source))


def write_json(source: ReportSource, out: TextIO) -> None:
    """Write the run as indented JSON, secrets in its config redacted, latency and cost rounded.

    Each result holds its `grades` and, derived from them, the `check_results`,
    `eval_result` and `judge` views that readers of earlier reports know.
    """
    run = source.run
    shell = run.model_copy(update={"config": redact(run.config), "results": []})
    facts = json.loads(model_json(shell))
    del facts["results"]  # the last field: written after the run's facts, one at a time
    facts.update(json_figures(run.tally().metric_figures()))  # read back as derived
    rates = run.tally().asr()  # derived too: counted again when read
    if rates:
        facts.update(_asr_entry(rates, source))
    head = json.dumps(facts, ensure_ascii=False, indent=2)
    out.write(head.removesuffix("\n}") + ',\n  "results": [')
    separator = "\n    "
    if source.stored is not None and not source.reviews:  # decoded once, not validated
        items = stored_items(source.stored(), _item)
    else:
        items = (_item(result, source.reviews_of(result)) for result in source.results())
    for item in items:
        out.write(separator + item)
        separator = ",\n    "
    out.write("]\n}\n" if separator == "\n    " else "\n  ]\n}\n")


def render_json(run: RunResult) -> str:
    """The run as indented JSON (see `write_json`)."""
    return rendered(write_json, run)


def _problem(error: ValidationError) -> str:
    shown = []
    for item in error.errors()[:3]:
        where = ".".join(str(part) for part in item["loc"])
        shown.append(f"{where}: {item['msg']}" if where else item["msg"])
    more = error.error_count() - len(shown)
    return "; ".join(shown) + (f" (and {more} more)" if more > 0 else "")


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(
            f"{path}: no such file; pass a results file written by `promptum run -o FILE.json`"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read it: {exc}") from None


def _load_jsonl(path: Path, text: str) -> RunResult:
    results: list[CaseResult] = []
    # Split on "\n" only: str.splitlines() would also split inside a string holding U+2028.
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            results.append(CaseResult.model_validate_json(line))
        except ValidationError as exc:
            raise ConfigError(
                f"{path}:{number}: not a promptum result line: {_problem(exc)}"
            ) from None
    models = list(dict.fromkeys(r.model for r in results))
    # A JSONL file holds results only, not the run's facts; it is read to recover what an
    # interrupted run finished, so it is not claimed complete.
    return RunResult(run_id=path.stem, models=models, complete=False, results=results)


def load_run(path: Path | str) -> RunResult:
    """Load a run from a JSON report (or the results of a JSONL file) written by promptum."""
    path = Path(path)
    text = _read(path)
    if path.suffix.lower() == ".jsonl":
        return _repeats_from_one(_load_jsonl(path, text))
    try:
        return _repeats_from_one(RunResult.model_validate_json(text))
    except ValidationError as exc:
        raise ConfigError(
            f"{path}: not a promptum results file: {_problem(exc)}; "
            "pass the JSON written by `promptum run -o FILE.json`"
        ) from None


def _repeats_from_one(run: RunResult) -> RunResult:
    """The run with repeats numbered from 1; files written before counted from 0."""
    if any(result.repeat < 1 for result in run.results):
        for result in run.results:
            result.repeat += 1
    return run
