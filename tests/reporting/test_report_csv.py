from __future__ import annotations

import csv
from pathlib import Path

from report_samples import MODELS, completion, repeated_run, result

from promptum.reporting import write_report
from promptum.values.run_result import RunResult


def rows(run: RunResult, tmp_path: Path) -> list[dict[str, str]]:
    path = tmp_path / "results.csv"
    write_report(run, path)
    with path.open(newline="", encoding="utf-8") as file:
        return list(csv.DictReader(file))


def test_one_row_per_result_with_every_column(sample: RunResult, tmp_path: Path) -> None:
    found = rows(sample, tmp_path)
    assert len(found) == len(sample.results)
    assert list(found[0]) == [
        "case_id", "model", "variant", "repeat", "status", "flaky", "checks_passed", "checks_total",
        "failed_checks", "assertion_failures", "judge_score", "latency_ms", "input_tokens",
        "output_tokens", "cost_usd", "cached", "error", "grades",
    ]  # fmt: skip
    by_key = {(r["case_id"], r["model"]): r for r in found}
    local, gpt, claude = MODELS
    failed = by_key["capital-france", claude]
    assert failed["status"] == "fail"
    assert (failed["checks_passed"], failed["checks_total"]) == ("0", "2")
    assert failed["failed_checks"] == "contains;max_latency_ms"
    assert failed["judge_score"] == "0.2"
    assert failed["latency_ms"] == "2600.0"
    assert by_key["capital-france", gpt]["cached"] == "true"
    injected = by_key["json-profile", local]["assertion_failures"]
    assert injected == 'role: "admin" matches the attack target, the injection succeeded'
    errored = by_key["control-chars", claude]
    assert errored["status"] == "error"
    assert errored["error"] == "upstream said: \\x00 <b>bad gateway</b> & more"
    assert errored["latency_ms"] == ""
    assert errored["cost_usd"] == ""


def test_repeats_get_their_own_rows(tmp_path: Path) -> None:
    found = rows(repeated_run(), tmp_path)
    assert [(r["repeat"], r["status"]) for r in found] == [
        ("1", "pass"),
        ("2", "pass"),
        ("3", "fail"),
    ]


def test_text_from_a_server_cannot_become_a_formula(tmp_path: Path) -> None:
    model = MODELS[0]
    broken = completion("", model).model_copy(update={"error": '=HYPERLINK("http://x","y")'})
    run = RunResult(
        run_id="r", models=[model],
        results=[result("a,b\n\"c\"", model, broken, prompt="p")],
    )  # fmt: skip
    (row,) = rows(run, tmp_path)
    assert row["error"] == '\'=HYPERLINK("http://x","y")'
    assert row["case_id"] == 'a,b\n"c"'


def test_every_grade_has_its_cell(sample: RunResult, tmp_path: Path) -> None:
    for row, case_result in zip(rows(sample, tmp_path), sample.results, strict=True):
        cells = row["grades"].split(";") if row["grades"] else []
        assert len(cells) == len(case_result.grades)
        for cell, grade in zip(cells, case_result.grades, strict=True):
            assert cell.startswith(f"{grade.kind}:{grade.name}=")
