"""Each JUnit testcase is written as text, byte for byte what ElementTree writes of it.

Parsing a testcase and serializing it again with ElementTree gives the same text only if
its escaping and indentation are ElementTree's own.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from report_samples import CONTROL, MODELS, STARTED, completion, result, sample_run

from promptum.reporting import write_report
from promptum.values.run_result import RunResult

AWKWARD = "say \"<b>\" & 'it'\tthen\r\nmore > less"


def _awkward_run() -> RunResult:
    model = MODELS[1]
    results = [
        result(
            f"case {AWKWARD}",
            model,
            completion(f"{AWKWARD} {CONTROL}", model),
            prompt="q",
            checks=[{"type": "contains", "value": "absent & <missing>"}],
            source=f"dir/{AWKWARD}.yaml:7",
        ),
        result(
            "passes",
            model,
            completion("fine", model),
            prompt="q",
            checks=[{"type": "contains", "value": "fine"}],
            source="no line number",
        ),
        result("fails-without-checks", model, completion("", model, error="boom <&>"), prompt="q"),
    ]
    return RunResult(run_id="awkward", models=[model], started_at=STARTED, results=results)


def _testcases(text: str) -> list[str]:
    return re.findall(r"<testcase .*?</testcase>", text, flags=re.DOTALL)


def test_each_testcase_is_what_elementtree_writes(tmp_path: Path) -> None:
    for run in (_awkward_run(), sample_run()):
        path = tmp_path / "junit.xml"
        write_report(run, path)
        written = _testcases(path.read_text(encoding="utf-8"))
        assert len(written) == len(run.results)
        for case in written:
            assert ET.tostring(ET.fromstring(case), encoding="unicode") == case


def test_awkward_names_and_texts_come_back_as_written(tmp_path: Path) -> None:
    path = tmp_path / "junit.xml"
    write_report(_awkward_run(), path)
    cases = ET.parse(path).getroot().findall("./testsuite/testcase")
    first, second, third = cases
    assert first.get("name") == f"case {AWKWARD}"
    assert (first.get("file"), first.get("line")) == (f"dir/{AWKWARD}.yaml", "7")
    failure = first.find("failure")
    assert failure is not None
    assert "absent & <missing>" in (failure.text or "")
    assert (second.get("file"), second.get("line")) == ("no line number", None)
    assert second.find("failure") is None
    error = third.find("error")
    assert error is not None
    assert "boom <&>" in (error.get("message") or "") + (error.text or "")
