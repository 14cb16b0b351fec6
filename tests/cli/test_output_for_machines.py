"""Output for logs and machines: uncut tables in pipes, colour only when asked, `--json`,
`runs export` with several outputs, failure excerpts, rounded figures, `init`'s .gitignore,
and `promptum run`'s options read from the library."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import re
import subprocess
import sys
import textwrap
from datetime import timedelta
from pathlib import Path
from typing import Any, ClassVar

import pytest

import promptum.runner
from promptum.checks import CheckDefinition, evaluate_checks
from promptum.cli._machine import print_json
from promptum.cli._options import RunOptions
from promptum.cli._run import run_command
from promptum.reporting import REPORT_FORMATS, JsonlSink, ReportFormat, render_report
from promptum.store import RunStore
from promptum.values.completion import Completion
from promptum.values.grade import Grade
from promptum.values.run_result import CaseResult, RunResult
from tests.store.samples import GPT, LOCAL, T0, make_run, mixed_outcomes
from tests.store.test_store import record
from tests.support.cli import invoke
from tests.support.fault_server import FaultServer, Reply

LONG = [f"fault/a-very-long-model-name-that-goes-on-and-on-{i}" for i in range(1, 5)]
SUITE = """\
name: machines
test_cases:
  - id: greet
    query: Say hello
    checks:
      - {type: contains, value: hello}
"""
# What decides how rich draws: cleared so the tests see what a CI job sees.
_TERMINAL_ENV = ("COLUMNS", "LINES", "FORCE_COLOR", "NO_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE")
_COLOUR = re.compile(r"\x1b\[[0-9;]*(?:3[0-9]|9[0-7])m")


@pytest.fixture(autouse=True)
def _plain_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _TERMINAL_ENV:
        monkeypatch.delenv(name, raising=False)


def piped(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """`promptum ARGS` in a child process with stdout to a file, as a CI log gets it."""
    out = Path("stdout.txt")
    with out.open("w", encoding="utf-8") as file:
        done = subprocess.run(
            [sys.executable, "-m", "promptum", *args],
            stdin=subprocess.DEVNULL,
            stdout=file,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **(env or {})},
            timeout=120,
            check=False,
        )
    return done.returncode, out.read_text(encoding="utf-8"), done.stderr


def models(names: list[str]) -> list[str]:
    return [arg for name in names for arg in ("-m", name)]


# Non-TTY output ----------------------------------------------------------------------------


def test_a_piped_run_keeps_every_long_model_name_and_run_id_whole(server: FaultServer) -> None:
    server.default = Reply.ok("hello there")
    Path("suite.yaml").write_text(SUITE, encoding="utf-8")
    code, out, err = piped("run", "suite.yaml", *models(LONG))
    assert code == 0, out + err
    # The summary table's header row holds the four names whole, on one line.
    assert any("┃" in line and all(name in line for name in LONG) for line in out.splitlines())
    assert "…" not in out
    assert "\x1b[" not in out  # no colour, no cursor movement

    (run,) = RunStore().list_runs()
    code, listed, err = piped("runs", "list")
    assert code == 0, err
    row = next(line for line in listed.splitlines() if run.run_id in line)
    assert all(name in row for name in LONG)
    code, shown, err = piped("runs", "show", run.run_id)
    assert code == 0, err
    assert any("┃" in line and all(name in line for name in LONG) for line in shown.splitlines())


def test_columns_sets_the_width_of_piped_output(server: FaultServer) -> None:
    server.default = Reply.ok("hello there")
    Path("suite.yaml").write_text(SUITE, encoding="utf-8")
    code, out, err = piped("run", "suite.yaml", *models(LONG), env={"COLUMNS": "70"})
    assert code == 0, out + err
    table = [line for line in out.splitlines() if line[:1] in ("┏", "┃", "│", "└")]
    assert table
    assert max(len(line) for line in table) <= 70


def test_force_color_colours_a_pipe_but_never_redraws_it(server: FaultServer) -> None:
    server.default = Reply.ok("hello there")
    Path("suite.yaml").write_text(SUITE, encoding="utf-8")
    code, out, err = piped("run", "suite.yaml", *models(LONG[:2]), env={"FORCE_COLOR": "1"})
    assert code == 0, out + err
    assert _COLOUR.search(out)  # PASS in green
    # One plain line per result, as in any log: no progress bar drawn over itself.
    assert "[1/2]" in out
    assert "[2/2]" in out
    assert "\r" not in out
    assert "\x1b[2K" not in out
    assert "\x1b[?25l" not in out  # the bar hides the cursor
    assert any("┃" in line and all(n in line for n in LONG[:2]) for line in out.splitlines())


def test_no_color_wins_over_force_color(server: FaultServer) -> None:
    server.default = Reply.ok("Goodbye")
    Path("suite.yaml").write_text(SUITE, encoding="utf-8")
    code, out, err = piped(
        "run", "suite.yaml", "-m", "fault/m", env={"FORCE_COLOR": "1", "NO_COLOR": "1"}
    )
    assert code == 1, out + err
    assert "FAIL machines/greet" in out
    assert _COLOUR.search(out) is None


# --json ------------------------------------------------------------------------------------


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "runs.sqlite"
    store = RunStore(path)
    record(store, make_run("run-old", mixed_outcomes(), started=T0, latency=359.23456789))
    record(store, make_run("run-new", mixed_outcomes(), started=T0 + timedelta(hours=1)))
    return path


def test_runs_list_json(db: Path) -> None:
    result = invoke("runs", "list", "--db", db, "--json")
    assert result.exit_code == 0, result.output
    runs = json.loads(result.stdout)["runs"]
    assert [run["run_id"] for run in runs] == ["run-new", "run-old"]
    assert set(runs[0]) == {
        "run_id", "suite", "models", "started_at", "finished_at", "state", "total", "passed",
        "failed", "errors", "pass_rate", "git_commit", "git_dirty", "promptum_version",
    }  # fmt: skip
    assert runs[0]["models"] == [LOCAL, GPT]
    assert runs[0]["state"] == "complete"
    assert runs[0]["started_at"] == (T0 + timedelta(hours=1)).isoformat()
    assert runs[0]["total"] == runs[0]["passed"] + runs[0]["failed"] + runs[0]["errors"]
    assert runs[0]["pass_rate"] == runs[0]["passed"] / runs[0]["total"]

    empty = invoke("runs", "list", "--db", db, "--json", "--suite", "nothing-like-it")
    assert json.loads(empty.stdout) == {"runs": []}


def test_runs_show_json(db: Path) -> None:
    result = invoke("runs", "show", "run-old", "--db", db, "--json")
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert shown["run_id"] == "run-old"
    assert shown["duration_s"] == 42.0
    local, gpt = shown["stats"]
    assert local["model"] == LOCAL
    assert local["total"] == 18
    assert local["latency_p50_ms"] == 361.2  # 359.23456789 + 2 (repeats from 1), rounded
    assert gpt["cost_usd"] == 0.003  # 15 × 0.0002, without the float noise of the sum
    assert {(f["case_id"], f["model"]) for f in shown["failures"]} >= {("capital-1", LOCAL)}
    failure = next(f for f in shown["failures"] if f["case_id"] == "capital-1")
    assert failure["status"] == "fail"
    assert failure["source"] == "suites/geo.yaml:3"
    assert any(reason.startswith("contains: expected to contain 'Paris', got") for reason in
               failure["reasons"])  # fmt: skip
    assert {(f["case_id"], f["passed"], f["total"]) for f in shown["flaky"]} == {
        ("capital-2", 2, 3),
        ("capital-5", 2, 3),
    }
    assert shown["gate"]["passed"] is False
    assert shown["gate"]["line"].startswith("gate: FAIL — ")


@pytest.mark.parametrize(
    "args",
    [["runs", "show", "nope"], ["runs", "list", "--db", "missing.sqlite"], ["compare", "a", "b"]],
)
def test_json_errors_exit_2_with_the_message_on_stderr(
    db: Path, args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    if "--db" not in args:
        args = [*args, "--db", str(db)]
    result = invoke(*args, "--json")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("error: ")


@pytest.fixture
def compare_db(tmp_path: Path) -> Path:
    cases = [f"case-{i}" for i in range(12)]

    def outcomes(failing: set[int]) -> dict[tuple[str, str], list[str]]:
        return {(case, LOCAL): ["fail" if i in failing else "pass"] for i, case in enumerate(cases)}

    path = tmp_path / "runs.sqlite"
    store = RunStore(path)
    record(store, make_run("base", outcomes({1}), started=T0))
    record(store, make_run("worse", outcomes({1, 3, 4}), started=T0 + timedelta(hours=1)))
    return path


def test_compare_json_without_the_gate(compare_db: Path) -> None:
    result = invoke("compare", "base", "worse", "--db", compare_db, "--json")
    assert result.exit_code == 0, result.output
    compared = json.loads(result.stdout)
    assert compared["a"] == {"run_id": "base", "suite": "geo"}
    assert compared["b"] == {"run_id": "worse", "suite": "geo"}
    assert compared["gate"] is None
    (pair,) = compared["pairs"]
    assert pair["name"] == LOCAL
    assert pair["shared"] == 12
    assert pair["fell"] == 2
    assert pair["rose"] == 0
    assert pair["verdict"] == "no significant change"
    assert pair["significant"] is False
    assert [c["case_id"] for c in pair["regressed"]] == ["case-3", "case-4"]
    assert pair["regressed"][0]["before"] == {"outcome": "pass", "passed": 1, "total": 1}
    assert pair["regressed"][0]["after"] == {"outcome": "fail", "passed": 0, "total": 1}
    assert pair["a"]["stats"]["passed"] == 11
    assert pair["b"]["stats"]["passed"] == 9
    low, high = pair["delta_interval"]
    assert low <= pair["delta"] <= high


def test_compare_json_carries_the_gate_and_its_exit_code(compare_db: Path, tmp_path: Path) -> None:
    md = tmp_path / "compare.md"
    result = invoke(
        "compare", "base", "worse", "--db", compare_db, "--json", "--fail-on-regression",
        "-o", md,
    )  # fmt: skip
    assert result.exit_code == 1
    gate = json.loads(result.stdout)["gate"]
    assert gate["passed"] is False
    assert gate["max_regressed"] == 1
    assert "2 cases regressed on local/smollm2 > 1 (--max-regressed)" in gate["reason"]
    assert gate["line"] == f"gate: FAIL — {gate['reason']}"
    assert result.stderr == f"wrote {md}\n"  # stdout holds the JSON only
    assert md.is_file()

    allowed = invoke(
        "compare", "base", "worse", "--db", compare_db, "--json", "--fail-on-regression",
        "--max-regressed", "2",
    )  # fmt: skip
    assert allowed.exit_code == 0
    assert json.loads(allowed.stdout)["gate"]["passed"] is True


@pytest.mark.embedded_model
def test_models_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = invoke("models", "--json")
    assert result.exit_code == 0, result.output
    providers = {p["prefix"]: p for p in json.loads(result.stdout)["providers"]}
    assert providers["local"] == {
        "prefix": "local",
        "example": "local/smollm2",
        "ready": True,
        "detail": "in-process: SmolLM2-135M-Instruct.Q4_1.gguf",
    }
    assert providers["openai"]["ready"] is False
    assert "OPENAI_API_KEY" in providers["openai"]["detail"]

    checked = invoke("models", "local/smollm2", "openai/gpt-4o", "--json")
    assert checked.exit_code == 1
    assert json.loads(checked.stdout)["models"] == [
        {"model": "local/smollm2", "usable": True, "problem": None},
        {
            "model": "openai/gpt-4o",
            "usable": False,
            "problem": "model 'openai/gpt-4o' needs an API key: "
            "set the OPENAI_API_KEY environment variable",
        },
    ]


def test_json_output_escapes_what_a_terminal_would_act_on(tmp_path: Path) -> None:
    run = make_run("hostile", {("case\x9b31m\x7f", LOCAL): ["fail"]})
    path = tmp_path / "runs.sqlite"
    record(RunStore(path), run)
    result = invoke("runs", "show", "hostile", "--db", path, "--json")
    assert result.exit_code == 0, result.output
    assert re.search("[\x7f-\x9f]", result.stdout) is None
    (failure,) = json.loads(result.stdout)["failures"]
    assert failure["case_id"] == "case\x9b31m\x7f"


def test_json_output_keeps_a_lone_surrogate_as_an_escape(
    capsys: pytest.CaptureFixture[str],
) -> None:
    print_json({"text": "a\ud800b"})
    printed = capsys.readouterr().out
    assert "\\ud800" in printed
    assert json.loads(printed) == {"text": "a\ud800b"}


# runs export -------------------------------------------------------------------------------


def test_runs_export_writes_every_output(db: Path, tmp_path: Path) -> None:
    outputs = [tmp_path / "out" / "run.json", tmp_path / "run.html", tmp_path / "run.csv"]
    result = invoke(
        "runs", "export", "run-new", "--db", db, *[a for o in outputs for a in ("-o", o)]
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [f"wrote {path}" for path in outputs]
    assert json.loads(outputs[0].read_text())["run_id"] == "run-new"
    assert outputs[1].read_text().startswith("<!doctype html>")
    assert outputs[2].read_text().startswith("case_id,model,")


def test_runs_export_goes_on_after_an_output_it_cannot_write(db: Path, tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    blocked, good = tmp_path / "file" / "run.json", tmp_path / "run.md"
    result = invoke("runs", "export", "run-new", "--db", db, "-o", blocked, "-o", good)
    assert result.exit_code == 2
    assert "cannot write the report" in result.stderr
    assert good.read_text().startswith("## ")


def test_runs_export_writes_nothing_when_a_format_is_unknown(db: Path, tmp_path: Path) -> None:
    good, bad = tmp_path / "run.json", tmp_path / "run.pdf"
    result = invoke("runs", "export", "run-new", "--db", db, "-o", good, "-o", bad)
    assert result.exit_code == 2
    assert "unknown report format '.pdf'" in result.stderr
    assert not good.exists()


# Failure excerpts --------------------------------------------------------------------------


def reason(text: str, **definition: Any) -> str:
    (check,) = evaluate_checks([CheckDefinition.model_validate(definition)], Completion(text=text))
    assert not check.passed
    assert check.reason is not None
    return check.reason


def test_each_text_check_failure_quotes_what_the_model_said() -> None:
    said = "The capital of France is Paris."
    assert reason(said, type="contains", value="Lyon") == (
        "expected to contain 'Lyon', got 'The capital of France is Paris.'"
    )
    assert reason(said, type="contains", value="lyon", case_insensitive=True).endswith(
        "got 'The capital of France is Paris.'"
    )
    assert reason(said, type="not_contains", value="Paris") == (
        "expected not to contain 'Paris', found in '…apital of France is Paris.'"
    )
    assert reason(said, type="not_contains", value="PARIS", case_insensitive=True) == (
        "expected not to contain 'PARIS', found in '…apital of France is Paris.'"
    )
    assert reason(said, type="regex", value=r"\bLyon\b") == (
        r"expected to match /\bLyon\b/, got 'The capital of France is Paris.'"
    )
    assert reason(said, type="not_regex", value="Par.s") == (
        "expected not to match /Par.s/, found 'Paris'"
    )
    assert reason(said, type="min_length", value=100) == (
        "length 31 < 100 characters, got 'The capital of France is Paris.'"
    )
    assert reason(said, type="max_length", value=10) == (
        "length 31 > 10 characters, got 'The capital of France is Paris.'"
    )


@pytest.mark.parametrize(
    "said",
    [
        "word " * 2000,
        "\x1b[2J\x1b[31m" * 50,
        "line one\nline two\r\n\tindented\u2028next\x85end",
        "\u202eevil\u200b" * 30,
        "",
    ],
)
def test_an_excerpt_is_one_short_line_without_control_characters(said: str) -> None:
    definitions: list[dict[str, Any]] = [
        {"type": "contains", "value": "absent"},
        {"type": "regex", "value": "absent"},
        {"type": "min_length", "value": 100_000},
    ]
    if said:
        definitions.append({"type": "max_length", "value": 0})
    for definition in definitions:
        text = reason(said, **definition)
        assert len(text) < 140, text
        assert text.isprintable(), text


def test_the_failure_line_shows_the_excerpt(server: FaultServer) -> None:
    server.default = Reply.ok("Goodbye \x1b[31mfriend\nsee you")
    Path("suite.yaml").write_text(
        textwrap.dedent("""\
        models: [fault/m]
        test_cases:
          - id: greet
            query: Say hello
            checks:
              - {type: contains, value: hello}
              - {type: max_length, value: 5}
        """),
        encoding="utf-8",
    )
    result = invoke("run", "suite.yaml", "--no-store")
    assert result.exit_code == 1
    expected = "'Goodbye \\x1b[31mfriend see you'"
    assert f"    - contains: expected to contain 'hello', got {expected}" in result.stdout
    assert f"    - max_length: length 27 > 5 characters, got {expected}" in result.stdout
    assert "[1/1] FAIL suite/greet (fault/m" in result.stdout
    assert "\x1b" not in result.stdout


# Rounding ----------------------------------------------------------------------------------


def noisy_run() -> RunResult:
    completions = [
        Completion(text="ok", model="m", latency_ms=359.23456789, cost_usd=0.00021 * 3),
        Completion(text="ok", model="m", latency_ms=0.04, cost_usd=1.2345678e-05),
    ]
    return RunResult(
        run_id="noisy",
        models=["m"],
        results=[
            CaseResult(case_id=f"c{i}", model="m", status="pass", completion=completion)
            for i, completion in enumerate(completions)
        ],
    )


def test_csv_and_json_round_latency_and_cost(tmp_path: Path) -> None:
    run = noisy_run()
    rows = list(csv.DictReader(io.StringIO(render_report(run, "csv"))))
    assert [(row["latency_ms"], row["cost_usd"]) for row in rows] == [
        ("359.2", "0.00063"),
        ("0.0", "0.000012346"),
    ]
    data = json.loads(render_report(run, "json"))
    lines = [json.loads(line) for line in render_report(run, "jsonl").splitlines()]
    for results in (data["results"], lines):
        figures = [(r["completion"]["latency_ms"], r["completion"]["cost_usd"]) for r in results]
        assert figures == [(359.2, 0.00063), (0.0, 1.2346e-05)]
    sink = JsonlSink(tmp_path / "r.jsonl")
    sink.start(run)
    for result in run.results:
        sink.add(result)
    sink.finish(run)
    assert (tmp_path / "r.jsonl").read_text() == render_report(run, "jsonl")
    # The data itself keeps the measured figures: the store records them unrounded.
    store = RunStore(tmp_path / "runs.sqlite")
    record(store, run)
    assert store.load("noisy").results[0].completion.latency_ms == 359.23456789


def test_scores_are_written_as_they_are() -> None:
    (result,) = noisy_run().results[:1]
    judge = Grade("judge", "judge", False, 1 / 3, "meh", details={"threshold": 0.7})
    judged = result.model_copy(update={"grades": [judge], "status": "fail"})
    data = json.loads(render_report(RunResult(run_id="r", results=[judged]), "json"))
    assert data["results"][0]["grades"][0]["score"] == 1 / 3


# init --------------------------------------------------------------------------------------


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_init_creates_a_gitignore_for_the_store(project: Path) -> None:
    result = invoke("init")
    assert result.exit_code == 0, result.output
    assert ".promptum/" in Path(".gitignore").read_text().splitlines()
    assert "added .promptum/ to .gitignore" in result.output
    again = invoke("init", "--force")
    assert again.exit_code == 0
    assert Path(".gitignore").read_text().splitlines().count(".promptum/") == 1
    assert ".gitignore already ignores .promptum/" in again.output


def test_init_appends_to_an_existing_gitignore(project: Path) -> None:
    Path(".gitignore").write_text("node_modules/\n*.pyc", encoding="utf-8")
    assert invoke("init").exit_code == 0
    lines = Path(".gitignore").read_text().splitlines()
    assert lines[:2] == ["node_modules/", "*.pyc"]
    assert lines[-1] == ".promptum/"


@pytest.mark.parametrize("line", ["/.promptum", ".promptum", "/.promptum/", ".promptum/**"])
def test_init_leaves_a_gitignore_that_already_ignores_the_store(project: Path, line: str) -> None:
    Path(".gitignore").write_text(f"build/\n{line}\n", encoding="utf-8")
    assert invoke("init").exit_code == 0
    assert Path(".gitignore").read_text() == f"build/\n{line}\n"


def test_init_says_what_to_add_when_it_cannot_write_the_gitignore(project: Path) -> None:
    Path(".gitignore").mkdir()  # not a file: cannot be read or appended to
    result = invoke("init")
    assert result.exit_code == 0, result.output
    assert "add the line .promptum/ to it" in result.output
    assert Path("promptum.yaml").is_file()


# `promptum run`'s options ------------------------------------------------------------------


def test_run_options_are_one_typed_object() -> None:
    fields = {field.name for field in dataclasses.fields(RunOptions)}
    assert fields == {param.name for param in run_command.params}
    with pytest.raises(dataclasses.FrozenInstanceError):
        RunOptions(paths=(Path("s.yaml"),), concurrency=1).concurrency = 2  # type: ignore[misc]


def test_run_help_reads_the_library(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(promptum.runner, "DEFAULT_CONCURRENCY", 3)
    extra = ReportFormat("tap", "Test Anything Protocol", lambda run: "TAP version 14\n")
    monkeypatch.setitem(REPORT_FORMATS, "tap", extra)
    help_text = " ".join(invoke("run", "--help").output.split())
    assert "[default: 3; x>=1]" in help_text
    assert f"({' '.join(f'.{name}' for name in REPORT_FORMATS)})" in help_text
    assert ".tap" in help_text
    report_help = " ".join(invoke("report", "--help").output.split())
    assert "xml, junit," in report_help
    assert "tap)" in report_help


def test_the_runner_default_concurrency_is_used(
    server: FaultServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(promptum.runner, "DEFAULT_CONCURRENCY", 3)
    server.default = Reply.ok("hello")
    Path("suite.yaml").write_text(SUITE.replace("name: machines", "models: [fault/m]"))
    assert invoke("run", "suite.yaml").exit_code == 0
    assert RunStore().load("latest").config["concurrency"] == 3


class _Recording:
    """A streaming report format's sink that records what it was given."""

    events: ClassVar[list[str]] = []

    def __init__(self, path: Path) -> None:
        self.path = path

    def start(self, run: RunResult) -> None:
        self.events.append(f"start {self.path}")

    def add(self, result: CaseResult) -> None:
        self.events.append(result.case_id)

    def finish(self, run: RunResult) -> None:
        self.events.append("finish")


def test_a_format_that_streams_is_written_by_its_sink(
    server: FaultServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    def never(run: RunResult) -> str:
        raise AssertionError("a streamed format is not rendered after the run")

    monkeypatch.setattr(_Recording, "events", [])
    monkeypatch.setitem(REPORT_FORMATS, "tap", ReportFormat("tap", "t", never, sink=_Recording))
    assert REPORT_FORMATS["tap"].streams
    assert REPORT_FORMATS["jsonl"].streams
    assert not REPORT_FORMATS["json"].streams
    server.default = Reply.ok("hello")
    Path("suite.yaml").write_text(SUITE.replace("name: machines", "models: [fault/m]"))
    result = invoke("run", "suite.yaml", "-o", "out.tap", "--no-store")
    assert result.exit_code == 0, result.output
    assert _Recording.events == ["start out.tap", "greet", "finish"]
    assert "wrote out.tap as results arrived" in result.stdout


def test_promptum_help_imports_no_report_runner_or_rich() -> None:
    program = (
        "import sys\n"
        "from promptum.cli import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = ('promptum.reporting', 'promptum.runner', 'promptum.store', 'rich')\n"
        "print(sorted(m for m in sys.modules if m.startswith(heavy)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True
    )
    assert done.stdout.splitlines()[-1] == "[]"
