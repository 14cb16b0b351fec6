"""Weighted cases and named metrics end to end: `promptum run` against a real local server.

The fault server (tests/support) answers every model and judge call with one JSON verdict,
so the checks, the judge's scores and the weighted scores they give are known. A run with
the store on streams its results (figures counted as they arrive, reports read back from
the store); one with `--no-store` keeps them: both must show the same figures everywhere.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from promptum import Prompt, Session
from promptum.cases import Criterion, Grading, JudgeConfig, TestCase
from promptum.checks import CheckDefinition
from promptum.errors import PromptumError
from promptum.providers import ClientOptions
from promptum.runner import plan_fingerprint
from promptum.values.run_result import Message
from tests.support.cli import run_promptum
from tests.support.fault_server import FaultServer, Reply, fault_server

ANSWER = '{"score": 8, "reason": "courteous and on topic"}'
"""What the fault server answers every call with: the model's response and the judge's verdict."""

SUITE = """\
name: weighted
models: [fault/m]
judge:
  model: fault/judge
  criteria:
    polite: {rubric: Is courteous, metric: tone}
defaults:
  threshold: 0.6
test_cases:
  - id: passes-with-a-failed-check
    query: Say hello
    checks:
      - {type: contains, value: courteous, metric: accuracy, weight: 3}
      - {type: contains, value: Goodbye, metric: accuracy}
  - id: fails-on-its-score
    query: Say goodbye
    threshold: 0.9
    checks:
      - {type: contains, value: courteous, metric: accuracy}
      - {type: max_length, value: 5, metric: brevity}
  - id: unweighted
    query: Say anything
    judge: false
    threshold: 1
    checks:
      - {type: contains, value: topic}
"""


@pytest.fixture
def server() -> Iterator[FaultServer]:
    with fault_server() as running:
        running.default = Reply.ok(ANSWER)
        yield running


def test_the_python_api_takes_a_threshold_and_metrics(
    server: FaultServer, options: ClientOptions
) -> None:
    """`Prompt(threshold=...)` and checks with `metric`/`weight`, run by `Session`."""
    session = Session(models=["fault/m"], client_options=options, concurrency=1)
    checks = [
        {"type": "contains", "value": "courteous", "metric": "accuracy", "weight": 3},
        {"type": "contains", "value": "Goodbye", "metric": "accuracy"},
    ]
    session.add_test(Prompt(name="weighed", prompt="Hi", checks=checks, threshold=0.7))
    session.add_test(Prompt(name="strict", prompt="Hi", checks=checks))
    run = session.run()
    weighed, strict = run.results
    assert (weighed.status, weighed.score, weighed.threshold) == ("pass", 0.75, 0.7)
    assert weighed.reasons == []  # passed on its score: the failed check is no reason
    assert (strict.status, strict.score, strict.threshold) == ("fail", None, None)
    assert [g.details for g in strict.grades] == [
        {"metric": "accuracy", "weight": 3.0},
        {"metric": "accuracy"},
    ]
    accuracy = run.tally().metric_figures()["accuracy"]["fault/m"]
    assert (accuracy.passed, accuracy.total, accuracy.mean_score) == (2, 4, 0.5)
    with pytest.raises(PromptumError, match="threshold"):
        Session().add_test(Prompt(name="bad", prompt="Hi", threshold=2))


def promptum(cwd: Path, server: FaultServer, *args: str) -> subprocess.CompletedProcess[str]:
    """The CLI in its own process, as a user runs it."""
    env = {**os.environ, "PROMPTUM_FAULT_BASE_URL": server.base_url, "COLUMNS": "200"}
    env["PROMPTUM_DB"] = str(cwd / "history.db")
    return run_promptum(*args, cwd=cwd, env=env)


def reports(folder: Path) -> list[str]:
    return [f"-o{folder / name}" for name in ("r.json", "r.md", "r.html", "r.xml", "r.csv")]


def junit_properties(path: Path) -> dict[str, str]:
    suite = ET.parse(path).getroot().find("testsuite")
    assert suite is not None
    return {
        str(p.get("name")): str(p.get("value"))
        for p in suite.iter("property")
        if str(p.get("name")).startswith("metric.")
    }


def html_metrics(path: Path) -> str:
    html = path.read_text(encoding="utf-8")
    return html.split('<section id="metrics">', 1)[1].split("</section>", 1)[0]


def markdown_metrics(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    return text.split("### Metrics", 1)[1].split("###", 1)[0]


def figures(folder: Path) -> dict[str, Any]:
    """What each report says of the metrics and the cases' scores."""
    data = json.loads((folder / "r.json").read_text(encoding="utf-8"))
    return {
        "json": data["metrics"],
        "scores": {
            r["case_id"]: (r["status"], r.get("score"), r.get("threshold")) for r in data["results"]
        },
        "md": markdown_metrics(folder / "r.md"),
        "html": html_metrics(folder / "r.html"),
        "junit": junit_properties(folder / "r.xml"),
    }


@pytest.mark.slow
def test_weighted_cases_and_metrics_through_a_run(tmp_path: Path, server: FaultServer) -> None:
    (tmp_path / "suite.yaml").write_text(SUITE, encoding="utf-8")
    streamed_dir, kept_dir = tmp_path / "streamed", tmp_path / "kept"
    streamed = promptum(
        tmp_path, server, "run", "suite.yaml", "--no-cache", "-c", "4", *reports(streamed_dir)
    )
    kept = promptum(
        tmp_path,
        server,
        "run",
        "suite.yaml",
        "--no-cache",
        "--no-store",
        "-c",
        "1",
        *reports(kept_dir),
    )
    for done in (streamed, kept):
        assert "Traceback" not in done.stdout + done.stderr
        assert done.returncode == 1, done.stdout + done.stderr  # one case fails on its score

    # Scores: (3·1 + 1·0 + 0.8) / 5 = 0.76 ≥ 0.6; (1 + 0 + 0.8) / 3 = 0.6 < 0.9; 1 ≥ 1.
    result = figures(streamed_dir)
    assert result["scores"] == {
        "passes-with-a-failed-check": ("pass", pytest.approx(0.76), 0.6),
        "fails-on-its-score": ("fail", pytest.approx(0.6), 0.9),
        "unweighted": ("pass", 1.0, 1.0),
    }
    assert result["json"] == {
        "accuracy": {
            "fault/m": {
                "model": "fault/m",
                "variant": None,
                "total": 3,
                "passed": 2,
                "failed": 1,
                "errors": 0,
                "pass_rate": pytest.approx(2 / 3),
                "mean_score": pytest.approx(2 / 3),
            }
        },
        "brevity": {"fault/m": {**result["json"]["brevity"]["fault/m"], "passed": 0, "total": 1}},
        "tone": {
            "fault/m": {
                "model": "fault/m",
                "variant": None,
                "total": 2,
                "passed": 2,
                "failed": 0,
                "errors": 0,
                "pass_rate": 1.0,
                "mean_score": pytest.approx(0.8),
            }
        },
    }
    assert "| accuracy | fault/m | 66.7% | 2/3 | 0 | 0.67 |" in result["md"]
    assert "| tone | fault/m | 100.0% | 2/2 | 0 | 0.80 |" in result["md"]
    assert "<td>brevity</td><td>fault/m</td><td>0.0%</td><td>0/1</td>" in result["html"]
    assert result["junit"]["metric.tone.mean_score"] == "0.8"
    assert result["junit"]["metric.accuracy.passed"] == "2"

    # A streamed run and a kept one: the same figures in every report.
    assert figures(kept_dir) == result

    # The terminal summary: the metrics table, and why the failing case failed.
    for done in (streamed, kept):
        out = done.stdout
        assert "Metrics" in out
        assert re.search(r"accuracy\s*│\s*2/3 passed \(67%\), mean 0\.67", out), out
        assert re.search(r"tone\s*│\s*2/2 passed \(100%\), mean 0\.80", out), out
        assert "weighted score 0.6 < threshold 0.9" in out
        assert "FAIL weighted/passes-with-a-failed-check" not in out

    # JUnit: a case that passed on its score is no failure; the one below it says so.
    cases = {c.get("name"): c for c in ET.parse(streamed_dir / "r.xml").getroot().iter("testcase")}
    assert cases["weighted/passes-with-a-failed-check"].find("failure") is None
    failure = cases["weighted/fails-on-its-score"].find("failure")
    assert failure is not None
    assert failure.get("type") == "ScoreBelowThreshold"

    # The stored run gives the same figures back.
    shown = promptum(tmp_path, server, "runs", "show", "latest", "--json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["metrics"] == result["json"]
    exported = promptum(tmp_path, server, "runs", "export", "latest", "-o", "again.md")
    assert exported.returncode == 0, exported.stderr
    assert markdown_metrics(tmp_path / "again.md") == result["md"]
    exported = promptum(tmp_path, server, "runs", "export", "latest", "-o", "again.json")
    assert exported.returncode == 0, exported.stderr
    again = json.loads((tmp_path / "again.json").read_text(encoding="utf-8"))
    assert again["metrics"] == result["json"]
    scores = {
        r["case_id"]: (r["status"], r.get("score"), r.get("threshold")) for r in again["results"]
    }
    assert scores == result["scores"]  # the store keeps each case's score and threshold


@pytest.mark.slow
def test_a_run_without_metrics_shows_none(tmp_path: Path, server: FaultServer) -> None:
    (tmp_path / "suite.yaml").write_text(
        "models: [fault/m]\n"
        "test_cases:\n  - {id: a, query: q, checks: [{type: contains, value: score}]}\n",
        encoding="utf-8",
    )
    done = promptum(tmp_path, server, "run", "suite.yaml", "--no-cache", *reports(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Metrics" not in done.stdout
    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert "metrics" not in data
    assert "score" not in data["results"][0]
    assert "Metrics" not in (tmp_path / "r.md").read_text(encoding="utf-8")
    assert 'id="metrics"' not in (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "metric." not in (tmp_path / "r.xml").read_text(encoding="utf-8")


@pytest.mark.slow
def test_the_docs_example_runs(tmp_path: Path, server: FaultServer) -> None:
    """docs/metrics.md: its suite loads and runs as the page says (on the local server)."""
    doc = (Path(__file__).parents[2] / "docs" / "metrics.md").read_text(encoding="utf-8")
    example, criteria = re.findall(r"```yaml\n(.*?)```", doc, re.S)
    server.default = Reply.ok("Refunds are possible within 30 days; write to help@example.com.")
    (tmp_path / "suite.yaml").write_text(example, encoding="utf-8")
    done = promptum(
        tmp_path, server, "run", "suite.yaml", "-m", "fault/m", "--no-cache", *reports(tmp_path)
    )
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert set(data["metrics"]) == {"accuracy", "brevity", "tone"}
    assert [r["threshold"] for r in data["results"]] == [0.75, 1.0]
    # The judge snippet is a valid `judge:` section.
    (tmp_path / "judged.yaml").write_text(
        criteria + "models: [fault/m]\ntest_cases:\n  - {id: a, query: q}\n", encoding="utf-8"
    )
    checked = promptum(tmp_path, server, "validate", "judged.yaml")
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_threshold_metric_or_weight_changes_the_resume_fingerprint() -> None:
    """A run resumed with another threshold, metric, weight or transform reuses no result."""
    message = (Message(role="user", content="q"),)
    judge = JudgeConfig(model="m2", criteria=(Criterion("polite", "Is courteous"),))
    check = CheckDefinition(type="contains", value="x")
    base = TestCase(
        id="a", messages=message, models=("m1",), grading=Grading(checks=(check,), judge=judge)
    )
    gradings = [
        replace(base.grading, threshold=0.5),
        replace(base.grading, checks=(CheckDefinition(type="contains", value="x", metric="acc"),)),
        replace(base.grading, checks=(CheckDefinition(type="contains", value="x", weight=2),)),
        replace(
            base.grading,
            judge=replace(judge, criteria=(Criterion("polite", "Is courteous", metric="tone"),)),
        ),
        replace(base.grading, transform="output | trim"),
        replace(
            base.grading,
            checks=(CheckDefinition(type="contains", value="x", transform="output"),),
        ),
    ]
    changed = [replace(base, grading=grading) for grading in gradings]
    prints = {plan_fingerprint([case]) for case in [base, *changed]}
    assert len(prints) == 7
