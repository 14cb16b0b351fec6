"""Whatever a model or a suite says, every format renders, and stays valid in its own syntax."""

from __future__ import annotations

import csv
import io
import re
import xml.etree.ElementTree as ET

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from report_samples import MODELS, completion, result

from promptum.reporting import REPORT_FORMATS, render_report
from promptum.values.run_result import JudgeVerdict, RunResult

RAW_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def hostile_run(text: str, case_id: str, tag: str) -> RunResult:
    model = MODELS[0]
    return RunResult(
        run_id=case_id,
        suite=tag,
        models=[model],
        results=[
            result(
                case_id, model, completion(text, model), prompt=text, tags=[tag],
                checks=[{"type": "contains", "value": tag or "x"}],
                verdict=JudgeVerdict(model=model, score=0.1, reason=text),
                expected_behavior=text,
            ),
            result(
                case_id, model, completion("", model).model_copy(update={"error": text}),
                prompt=text, repeat=1,
            ),
        ],
    )  # fmt: skip


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(text=st.text(), case_id=st.text(min_size=1), tag=st.text())
def test_every_format_renders_any_text(text: str, case_id: str, tag: str) -> None:
    run = hostile_run(text, case_id, tag)
    for name in REPORT_FORMATS:
        rendered = render_report(run, name)
        rendered.encode("utf-8")  # never a lone surrogate
        if name in ("xml", "html", "md", "csv"):
            assert RAW_CONTROL.search(rendered) is None, name
    root = ET.fromstring(render_report(run, "xml").encode("utf-8"))
    assert root.get("tests") == "2"
    rows = list(csv.reader(io.StringIO(render_report(run, "csv"))))
    assert len(rows) == 3
    assert render_report(run, "html").count("<script") == 2


EMPTY = {
    "json": '"results": []',
    "jsonl": "",
    "xml": 'tests="0" failures="0" errors="0"',
    "html": "this report holds the 0 results that did",  # the rows are drawn by its script
    "csv": "case_id,model,variant,repeat,",
    "md": "promptum run: 0 of 0 passed",
}


@pytest.mark.parametrize("name", sorted(REPORT_FORMATS))
def test_an_interrupted_run_with_no_result_yet_renders(name: str) -> None:
    run = RunResult(run_id="empty", models=MODELS, complete=False)
    assert EMPTY[name] in render_report(run, name)
