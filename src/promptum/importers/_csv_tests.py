"""promptfoo's CSV (and JSONL) test files: vars columns, `__expected` shorthand, `__` options."""

from __future__ import annotations

import csv
import io
import json
import re
from typing import Any

from promptum.errors import ConfigError
from promptum.importers._source import Document, Path_

_TYPES = (
    "answer-relevance",
    "bleu",
    "classifier",
    "contains-all",
    "contains-any",
    "contains-json",
    "contains-sql",
    "contains-xml",
    "contains",
    "context-faithfulness",
    "context-recall",
    "context-relevance",
    "cost",
    "ends-with",
    "equals",
    "factuality",
    "g-eval",
    "icontains-all",
    "icontains-any",
    "icontains",
    "is-json",
    "is-sql",
    "is-valid-openai-tools-call",
    "is-xml",
    "javascript",
    "latency",
    "levenshtein",
    "llm-rubric",
    "model-graded-closedqa",
    "model-graded-factuality",
    "perplexity-score",
    "perplexity",
    "python",
    "regex",
    "rouge-n",
    "similar",
    "starts-with",
    "webhook",
    "word-count",
)
_SHORTHAND = re.compile(
    r"^(not-)?(" + "|".join(map(re.escape, _TYPES)) + r")(?:\((\d+(?:\.\d+)?)\))?(?::([\s\S]*))?$"
)
_LISTS = ("contains-all", "contains-any", "icontains-all", "icontains-any")
_SCORED = (
    "answer-relevance",
    "classifier",
    "context-faithfulness",
    "context-recall",
    "context-relevance",
    "cost",
    "latency",
    "levenshtein",
    "perplexity-score",
    "perplexity",
    "rouge-n",
    "similar",
    "starts-with",
)
_OPTIONS = {"__description", "__metric", "__threshold", "__prefix", "__suffix"}


def assertion_from_text(text: str) -> dict[str, Any]:
    """An `__expected` cell as the assertion promptfoo reads it (no prefix: `equals`)."""
    for prefix, kind in (
        ("javascript:", "javascript"),
        ("fn:", "javascript"),
        ("eval:", "javascript"),
        ("grade:", "llm-rubric"),
        ("llm-rubric:", "llm-rubric"),
        ("python:", "python"),
    ):
        if text.startswith(prefix):
            return {"type": kind, "value": text[len(prefix) :].strip()}
    if text.startswith("file://") and (text.endswith(".py") or ".py:" in text):
        return {"type": "python", "value": text}
    if text.startswith("file://") and re.search(r"\.(js|ts)(:|$)", text):
        return {"type": "javascript", "value": text}
    match = _SHORTHAND.match(text)
    if match is None:
        return {"type": "equals", "value": text}
    negated, kind, threshold, value = match.groups()
    full = f"not-{kind}" if negated else kind
    if kind in _LISTS:
        return {"type": full, "value": [part.strip() for part in (value or "").split(",")]}
    assertion: dict[str, Any] = {"type": full}
    if value is not None:
        assertion["value"] = value
    if kind in _SCORED:  # promptfoo gives these a threshold even when the cell has none
        assertion["threshold"] = (
            float(threshold) if threshold else (0.8 if kind == "similar" else 0.75)
        )
    return assertion


def _test_from_row(row: dict[str, str]) -> dict[str, Any]:
    test: dict[str, Any] = {"vars": {}, "assert": []}
    for column, cell in row.items():
        if column.startswith("__expected"):
            if cell.strip():
                test["assert"].append(assertion_from_text(cell))
        elif column == "__description":
            test["description"] = cell
        elif column == "__threshold":
            try:
                test["threshold"] = float(cell)
            except ValueError:
                test["threshold"] = cell
        elif column in ("__prefix", "__suffix"):
            test.setdefault("options", {})[column[2:]] = cell
        elif column.startswith("__") and column != "__metric":
            test.setdefault("__unknown", []).append(column)
        elif column != "__metric":
            test["vars"][column] = cell
    metric = row.get("__metric")
    if metric:
        for assertion in test["assert"]:
            assertion["metric"] = metric
    return test


def csv_tests(text: str, shown: str) -> Document:
    """A CSV test file as a document of promptfoo tests, each at its row's line."""
    reader = csv.DictReader(io.StringIO(text))
    tests: list[dict[str, Any]] = []
    lines: dict[Path_, int] = {}
    start = 2
    try:
        for row in reader:
            lines[(len(tests),)] = start
            tests.append(_test_from_row({k: v or "" for k, v in row.items() if k is not None}))
            start = reader.line_num + 1
    except csv.Error as exc:
        raise ConfigError(f"{shown}:{reader.line_num}: not valid CSV: {exc}") from exc
    return Document(tests, shown, lines)


def jsonl_tests(text: str, shown: str) -> Document:
    """A JSONL test file: one test per line."""
    tests: list[Any] = []
    lines: dict[Path_, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            test = json.loads(line)
        except ValueError as exc:
            raise ConfigError(f"{shown}:{number}: not valid JSON: {exc}") from exc
        lines[(len(tests),)] = number
        tests.append(test)
    return Document(tests, shown, lines)
