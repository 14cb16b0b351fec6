"""What the tools print is right: model and variant apart in `--json`, similar long names kept
apart at 80 columns, and a `-k` run's header naming only the suites it runs."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from promptum.store import RunStore
from promptum.values.run_result import RunResult
from tests.store.samples import LOCAL, T0, make_result
from tests.store.test_store import record
from tests.support.cli import invoke, write
from tests.support.fault_server import FaultServer, Reply

SIMILAR = [f"target:agent_customer_support_v{i}" for i in range(1, 4)]


def variant_run(
    run_id: str, outcomes: dict[tuple[str, str], list[str]], hours: int = 0
) -> RunResult:
    """A run of LOCAL with prompt variants: (variant, case) -> the status of each repeat."""
    results = [
        make_result(case_id, LOCAL, status, repeat).model_copy(
            update={"variant": variant, "suite": "geo"}
        )
        for (variant, case_id), statuses in outcomes.items()
        for repeat, status in enumerate(statuses, start=1)
    ]
    started = T0 + timedelta(hours=hours)
    return RunResult(
        run_id=run_id,
        suite="geo",
        models=[LOCAL],
        started_at=started,
        finished_at=started + timedelta(seconds=42),
        results=results,
    )


@pytest.fixture
def variants_db(tmp_path: Path) -> Path:
    path = tmp_path / "runs.sqlite"
    store = RunStore(path)
    before = {
        ("v1", "capital-0"): ["pass", "fail"],  # flaky
        ("v1", "capital-1"): ["fail", "fail"],
        ("v2", "capital-0"): ["pass", "pass"],
        ("v2", "capital-1"): ["pass", "pass"],
    }
    after = {("v1", "capital-0"): ["pass", "pass"], ("v1", "capital-1"): ["pass", "pass"]}
    record(store, variant_run("before", before))
    record(store, variant_run("after", after, hours=1))
    return path


# Model and variant apart in every JSON output --------------------------------------------


def test_runs_show_json_gives_model_and_variant_apart(variants_db: Path) -> None:
    result = invoke("runs", "show", "before", "--db", variants_db, "--json")
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert [(s["model"], s["variant"], s["column"]) for s in shown["stats"]] == [
        (LOCAL, "v1", f"{LOCAL} · v1"),
        (LOCAL, "v2", f"{LOCAL} · v2"),
    ]
    assert {(f["model"], f["variant"]) for f in shown["failures"]} == {(LOCAL, "v1")}
    (flaky,) = shown["flaky"]
    assert (flaky["case_id"], flaky["model"], flaky["variant"]) == ("geo/capital-0", LOCAL, "v1")
    assert flaky["column"] == f"{LOCAL} · v1"


def test_a_run_without_variants_has_a_null_variant(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    results = [make_result("capital-0", LOCAL, "pass")]
    record(RunStore(path), RunResult(run_id="plain", suite="geo", models=[LOCAL], results=results))
    shown = json.loads(invoke("runs", "show", "plain", "--db", path, "--json").stdout)
    (stats,) = shown["stats"]
    assert (stats["model"], stats["variant"], stats["column"]) == (LOCAL, None, LOCAL)


def test_compare_json_gives_each_sides_model_and_variant_apart(variants_db: Path) -> None:
    args = ("compare", "before", "--variant-a", "v1", "--variant-b", "v2", "--json")
    result = invoke(*args, "--db", variants_db)
    assert result.exit_code == 0, result.output
    (pair,) = json.loads(result.stdout)["pairs"]
    for side, variant in (("a", "v1"), ("b", "v2")):
        assert (pair[side]["model"], pair[side]["variant"]) == (LOCAL, variant)
        assert pair[side]["column"] == f"{LOCAL} · {variant}"
        assert (pair[side]["stats"]["model"], pair[side]["stats"]["variant"]) == (LOCAL, variant)
    assert pair["name"] == f"{LOCAL} · v1 → {LOCAL} · v2"


# Similar long names at 80 columns --------------------------------------------------------


def similar_targets_run() -> RunResult:
    results = [make_result(f"c-{i}", model, "pass") for model in SIMILAR for i in range(2)]
    return RunResult(run_id="similar", suite="agents", models=SIMILAR, results=results)


def header_cells(output: str) -> list[str]:
    """The summary table's header cells, each cell's folded lines joined back together."""
    rows = [line for line in output.splitlines() if line.startswith("┃")]
    columns = [row.strip("┃").split("┃") for row in rows]
    return ["".join(part.strip() for part in cell) for cell in zip(*columns, strict=True)]


def body_rows(output: str) -> list[list[str]]:
    """The cells of a table's body rows, each cell's folded lines joined back together."""
    rows: list[list[str]] = []
    for line in output.splitlines():
        if not line.startswith("│"):
            continue
        cells = [cell.strip() for cell in line.strip("│").split("│")]
        if cells[0]:  # the first column never wraps: a new row starts
            rows.append(cells)
        else:
            rows[-1] = [kept + more for kept, more in zip(rows[-1], cells, strict=True)]
    return rows


def test_similar_long_targets_keep_distinct_headers_at_80_columns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    path = tmp_path / "runs.sqlite"
    record(RunStore(path), similar_targets_run())
    shown = invoke("runs", "show", "similar", "--db", path)
    assert shown.exit_code == 0, shown.output
    assert max(len(line) for line in shown.stdout.splitlines()) <= 80
    assert header_cells(shown.stdout)[1:] == SIMILAR  # every name whole, none cut


def test_runs_list_keeps_similar_suites_and_models_distinct_at_80_columns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    path = tmp_path / "runs.sqlite"
    store = RunStore(path)
    for index in (1, 2):
        run = similar_targets_run().model_copy(
            update={"run_id": f"similar-{index}", "suite": f"customer_support_agents_{index}"}
        )
        record(store, run)
    listed = invoke("runs", "list", "--db", path)
    assert listed.exit_code == 0, listed.output
    assert max(len(line) for line in listed.stdout.splitlines()) <= 80
    assert "…" not in listed.stdout
    rows = body_rows(listed.stdout)
    assert [(row[0], row[2]) for row in rows] == [
        ("similar-2", "customer_support_agents_2"),
        ("similar-1", "customer_support_agents_1"),
    ]
    assert all(row[3] == ",".join(SIMILAR) for row in rows)


# The header of a run with -k ------------------------------------------------------------


def test_a_filtered_run_names_only_the_suites_it_runs(server: FaultServer) -> None:
    server.default = Reply.ok("Paris")
    graded = "checks: [{type: min_length, value: 1}]"
    suites = [("geo", "capital", "q"), ("maths", "sum", "s"), ("history", "year", "y")]
    for name, case, query in suites:
        write(
            f"prompts/{name}.yaml",
            f"models: [fault/m]\ntest_cases:\n  - {{id: {case}, query: {query}, {graded}}}\n",
        )

    result = invoke("run", "prompts", "-k", "geo/*", "-k", "year")
    assert result.exit_code == 0, result.output
    assert "Running 2 results of geo, history on fault/m" in result.output
    (run,) = RunStore().list_runs()
    assert run.suite == "geo, history"
    assert RunStore().load(run.run_id).config["suites"] == [
        str(Path("prompts/geo.yaml")),
        str(Path("prompts/history.yaml")),
    ]

    everything = invoke("run", "prompts")
    assert "Running 3 results of geo, history, maths on fault/m" in everything.output
