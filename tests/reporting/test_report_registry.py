from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import promptum.reporting
from promptum.cli import main
from promptum.errors import ConfigError
from promptum.reporting import REPORT_FORMATS, JsonlSink, load_run, write_report
from promptum.values.completion import Completion
from promptum.values.run_result import Message, RunResult

FIRST_BYTES = {
    "json": "{",
    "jsonl": '{"case_id":',
    "xml": "<?xml",
    "html": "<!doctype html>",
    "csv": "case_id,model,",
    "md": "## ",
}


def test_public_api_is_complete() -> None:
    # ruff (RUF022) keeps __all__ sorted; this keeps it complete.
    exported = promptum.reporting.__all__
    assert len(exported) == len(set(exported))
    for name in exported:  # a format's names are imported on first use, then kept
        getattr(promptum.reporting, name)
    # "@py_builtins" and the like: pytest rewrites the asserts of a package that ships a
    # pytest plugin (promptum's pytest11 entry point) and leaves those names behind.
    public = {name for name in vars(promptum.reporting) if not name.startswith(("_", "@"))}
    assert public == set(exported)


_ONE_REPORT = """\
import sys
from promptum.reporting import write_report
from promptum.values.run_result import RunResult
write_report(RunResult(run_id="r", models=["m"]), sys.argv[1])
print(" ".join(name for name in sys.modules if name.startswith("promptum.reporting.")))
"""


def test_writing_a_format_imports_no_other_formats_module(tmp_path: Path) -> None:
    # `promptum run -o r.json` pays for the JSON report alone, not for the HTML page's.
    done = subprocess.run(
        [sys.executable, "-c", _ONE_REPORT, str(tmp_path / "r.json")],
        capture_output=True,
        text=True,
        check=True,
    )
    imported = set(done.stdout.split())
    assert "promptum.reporting._json" in imported
    others = {"_html", "_junit", "_csv", "_markdown", "_jsonl"}
    assert not {f"promptum.reporting.{name}" for name in others} & imported
    assert json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["run_id"] == "r"


@pytest.mark.parametrize("name", sorted(FIRST_BYTES))
def test_extension_picks_the_format(sample: RunResult, tmp_path: Path, name: str) -> None:
    path = tmp_path / f"report.{name.upper()}"
    write_report(sample, path)
    assert path.read_text(encoding="utf-8").startswith(FIRST_BYTES[name])
    assert set(REPORT_FORMATS) == set(FIRST_BYTES)


@pytest.mark.parametrize(("fmt", "start"), [("junit", "<?xml"), ("markdown", "## "), ("md", "## ")])
def test_format_overrides_the_extension(
    sample: RunResult, tmp_path: Path, fmt: str, start: str
) -> None:
    path = tmp_path / "summary.txt"
    write_report(sample, path, fmt)
    assert path.read_text(encoding="utf-8").startswith(start)


def test_unknown_extension_lists_the_known_ones(sample: RunResult, tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        write_report(sample, tmp_path / "report.pdf")
    message = str(info.value)
    assert "report.pdf: unknown report format '.pdf'" in message
    for name in FIRST_BYTES:
        assert f".{name} (" in message
    with pytest.raises(ConfigError, match="no file extension"):
        write_report(sample, tmp_path / "report")


def test_parent_directories_are_created(sample: RunResult, tmp_path: Path) -> None:
    path = tmp_path / "reports" / "ci" / "junit.xml"
    write_report(sample, path)
    assert path.is_file()


def test_a_failed_render_keeps_the_previous_report(sample: RunResult, tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    write_report(sample, path)
    before = path.read_text()
    broken = sample.model_copy(update={"config": {"not json": object()}})
    with pytest.raises(Exception):  # noqa: B017, PT011 - whatever serialisation raises
        write_report(broken, path)
    assert path.read_text() == before
    assert list(tmp_path.iterdir()) == [path]


def test_unwritable_path_is_a_clear_error(sample: RunResult, tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(
        ConfigError, match=r"file/report\.html: cannot write the report: .*/file is a file, not a"
    ):
        write_report(sample, tmp_path / "file" / "report.html")


def test_cli_report_renders_saved_results(sample: RunResult, tmp_path: Path) -> None:
    saved = tmp_path / "results.json"
    write_report(sample, saved)
    html, junit = tmp_path / "out" / "report.html", tmp_path / "junit.xml"
    outcome = CliRunner().invoke(main, ["report", str(saved), "-o", str(html), "-o", str(junit)])
    assert outcome.exit_code == 0, outcome.output
    assert f"wrote {html}" in outcome.output
    assert html.read_text().startswith("<!doctype html>")
    assert "DeterministicCheckFailed" in junit.read_text()


def test_cli_report_writes_nothing_for_an_unknown_format_and_every_file_it_can(
    sample: RunResult, tmp_path: Path
) -> None:
    saved, html, csv = tmp_path / "results.json", tmp_path / "r.html", tmp_path / "r.csv"
    write_report(sample, saved)
    refused = CliRunner().invoke(main, ["report", str(saved), "-o", str(html), "-o", "r.txt"])
    assert refused.exit_code == 2
    assert not html.exists()  # the unknown extension is refused before anything is written
    (tmp_path / "folder.html").mkdir()
    args = ["report", str(saved), "-o", str(tmp_path / "folder.html"), "-o", str(csv)]
    partly = CliRunner().invoke(main, args)
    assert partly.exit_code == 2
    assert "folder.html: cannot write the report" in partly.output
    assert csv.read_text().startswith("case_id,")  # the folder in the way stopped no other


def test_cli_report_again_as_json_is_the_same_run(sample: RunResult, tmp_path: Path) -> None:
    saved, again = tmp_path / "results.json", tmp_path / "again.json"
    write_report(sample, saved)
    outcome = CliRunner().invoke(main, ["report", str(saved), "-o", str(again)])
    assert outcome.exit_code == 0, outcome.output
    assert json.loads(again.read_text()) == json.loads(saved.read_text())
    assert load_run(again).model_dump() == load_run(saved).model_dump()


def test_cli_report_format_option(sample: RunResult, tmp_path: Path) -> None:
    saved, out = tmp_path / "results.json", tmp_path / "summary.txt"
    write_report(sample, saved)
    outcome = CliRunner().invoke(main, ["report", str(saved), "-o", str(out), "-f", "markdown"])
    assert outcome.exit_code == 0, outcome.output
    assert out.read_text().startswith("## ❌")


def test_cli_report_user_errors_exit_2_without_traceback(tmp_path: Path) -> None:
    runner = CliRunner()
    missing = runner.invoke(main, ["report", str(tmp_path / "nope.json"), "-o", "x.html"])
    assert missing.exit_code == 2
    assert "nope.json: no such file" in missing.output
    assert "Traceback" not in missing.output
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    wrong = runner.invoke(main, ["report", str(bad), "-o", str(tmp_path / "x.html")])
    assert wrong.exit_code == 2
    assert "bad.json: not a promptum results file" in wrong.output
    assert not (tmp_path / "x.html").exists()
    no_output = runner.invoke(main, ["report", str(bad)])
    assert no_output.exit_code == 2
    assert "Missing option '-o'" in no_output.output


def test_no_environment_secret_in_any_report(
    sample: RunResult, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "sk-proj-Th1sIsAFakeKeyThatMustNeverBeWritten0123"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    first, second = sample.results[0], sample.results[1]
    leaky = sample.model_copy(
        update={
            "results": [
                first.model_copy(
                    update={
                        "messages": [*first.messages, Message(role="user", content=f"key {key}")],
                        "completion": first.completion.model_copy(update={"text": f"ok {key}"}),
                    }
                ),
                second.model_copy(
                    update={
                        "status": "error",
                        "completion": Completion(model=second.model, error=f"401: {key}"),
                    }
                ),
                *sample.results[2:],
            ]
        }
    )
    for name in FIRST_BYTES:
        write_report(leaky, tmp_path / f"report.{name}")
    streamed = JsonlSink(tmp_path / "streamed.jsonl")
    streamed.start(leaky)
    for item in leaky.results:
        streamed.add(item)
    streamed.finish(leaky)
    for path in tmp_path.iterdir():
        assert key not in path.read_text(encoding="utf-8"), path.name
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "[redacted]" in html
    assert load_run(tmp_path / "report.json").results[1].completion.error == "401: [redacted]"
